"""Adaptive spin-then-sleep of local workers that have a core to themselves (``Worker._spin``)."""

from __future__ import annotations

import math
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pool_envs
import pytest

from sc2pool import affinity
from sc2pool import protocol as P
from workers.main import Worker, WorkerConfig

ALLOWED = sorted(os.sched_getaffinity(0))


def test_has_own_core() -> None:
    assert affinity.has_own_core([[0], [1]]) == [True, True]
    assert affinity.has_own_core([[0], [1], [0]]) == [False, True, False]
    assert affinity.has_own_core([None, None]) == [False, False]
    assert affinity.has_own_core([[0, 1], [2]]) == [False, True]
    assert affinity.has_own_core([]) == []


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


@pytest.mark.skipif(len(ALLOWED) < 2, reason="needs two cores to give two workers one each")
@pytest.mark.timeout(60)
def test_only_workers_with_a_core_of_their_own_spin(make_pool: Callable[..., Any]) -> None:
    two = ALLOWED[:2]
    alone = make_pool([pool_envs.make_cartpole] * 2, n_workers=2, cpu_affinity=two)
    assert all("--spin-us" in _cmdline(pid) for pid in alone.worker_pids)
    shared = make_pool([pool_envs.make_cartpole] * 3, n_workers=3, cpu_affinity=two)
    flags = ["--spin-us" in _cmdline(pid) for pid in shared.worker_pids]
    assert flags.count(True) == 1, flags  # two workers share a core: they sleep at once
    unpinned = make_pool([pool_envs.make_cartpole] * 2, n_workers=2, cpu_affinity=None)
    assert not any("--spin-us" in _cmdline(pid) for pid in unpinned.worker_pids)


def _worker(spin_s: float) -> tuple[Worker, P.Lane, socket.socket]:
    ours, theirs = socket.socketpair()
    w = Worker(WorkerConfig(endpoint="ipc:///nonexistent", make_host=lambda: None, spin_s=spin_s))  # type: ignore[arg-type,return-value]
    w._lane_pending = []
    return w, P.Lane(ours), theirs


def test_spin_returns_a_request_that_is_there_and_gives_up_after_spin_s() -> None:
    w, lane, peer = _worker(spin_s=0.002)
    try:
        peer.sendall(P.Lane.frame(b"req"))
        assert w._spin(lane) == [b"req"]
        t0 = time.monotonic()
        assert w._spin(lane) == []
        assert time.monotonic() - t0 >= 0.002
        peer.close()
        assert w._spin(lane) == []  # a closed lane is left to the blocking path to report
    finally:
        lane.close()
        peer.close()


def test_recent_gap_follows_requests_and_forgets_long_pauses() -> None:
    w, lane, peer = _worker(spin_s=0.00015)
    try:
        assert w._gap == math.inf  # no spinning before a request has followed a reply
        w._replied_at = time.monotonic() - 100.0  # e.g. the trainer was busy training for minutes
        assert w._from_lane([b"a", b"b"]) == [b"a"] and w._lane_pending == [b"b"]
        assert w._gap == pytest.approx(0.01)  # capped: a few fast steps bring it back under spin_s
        for _ in range(12):
            w._replied_at = time.monotonic()
            w._from_lane([b"x"])
        assert w._gap < w.cfg.spin_s
    finally:
        lane.close()
        peer.close()
