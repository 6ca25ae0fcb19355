"""Adaptive spin-then-sleep of local workers that have a core to themselves (``workers.main``'s
``spin_read`` and ``ReplyGap``)."""

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

from sc2pool.pool import affinity
from sc2pool.pool import protocol as P
from workers.main import ReplyGap, spin_read

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


def test_spin_read_returns_a_request_that_is_there_and_gives_up_after_its_time() -> None:
    ours, peer = socket.socketpair()
    lane = P.Lane(ours)
    try:
        peer.sendall(P.Lane.frame(b"req"))
        assert spin_read(lane, 0.002) == [b"req"]
        t0 = time.monotonic()
        assert spin_read(lane, 0.002) == []
        assert time.monotonic() - t0 >= 0.002, "it polled for its whole time before giving up"
        peer.close()
        assert spin_read(lane, 0.002) == []  # a closed lane is left to the blocking path to report
    finally:
        lane.close()
        peer.close()


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_reply_gap_follows_requests_and_forgets_long_pauses() -> None:
    clock = _Clock()
    gap = ReplyGap(clock, cap=0.01)
    assert gap.seconds == math.inf  # no spinning before a request has followed a reply
    gap.replied()
    clock.now += 100.0  # e.g. the trainer was busy training for minutes
    gap.requested()
    assert gap.seconds == pytest.approx(0.01)  # capped: a few fast steps bring it back under spin_s
    for _ in range(12):
        gap.replied()
        clock.now += 0.00001
        gap.requested()
    assert gap.seconds < 0.00015
    assert gap.seconds == pytest.approx(0.00001, abs=0.00001)
