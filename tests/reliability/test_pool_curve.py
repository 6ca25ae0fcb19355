"""CurveZMQ integrated into the pool: ``ZmqVecEnv(curve=KEYS_DIR)`` and ``sc2pool worker
--curve-secret ... --curve-server-key ...``, with real processes over tcp 127.0.0.1, plus the bind
policy. (The authenticator itself is tested in ``test_security.py``; the netns variant across
hosts in ``test_multihost.py``.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zmq
from helpers.waiting import HANG_S

from sc2pool.cli import main as cli_main
from sc2pool.pool import protocol as P
from sc2pool.pool.security import InsecureBindError
from sc2pool.pool.vec_env import ZmqVecEnv

from .reliability_helpers import free_port, kill_group, wait_for

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    """keys/broker.*, keys/authorized_workers/worker-a.key; keys/intruder.* (not authorised)."""
    d = tmp_path / "keys"
    assert cli_main(["keygen", str(d)]) == 0
    assert cli_main(["keygen", str(d), "--name", "worker-a", "--authorize-into", str(d / "authorized_workers")]) == 0
    assert cli_main(["keygen", str(d), "--name", "intruder"]) == 0
    return d


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    try:
        yield started
    finally:
        for p in started:
            kill_group(p)


def _worker(port: int, keys: Path, secret: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "sc2pool", "worker", "--connect", f"tcp://127.0.0.1:{port}", "--env", "CartPole-v1",
         "--envs", "1", "--log-level", "WARNING",
         "--curve-secret", str(keys / f"{secret}.key_secret"), "--curve-server-key", str(keys / "broker.key"),
         *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )


def test_curve_pool_admits_authorised_workers_only(
    keys: Path, procs: list[subprocess.Popen[bytes]], short_tmpdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CURVE pool: its local worker (ephemeral key over ipc) and an authorised remote worker
    join and step; an intruder's real worker and a plain-zmq rogue are refused during the
    handshake (counted), never get a WELCOME or an action, and the intruder gives up."""
    monkeypatch.setenv("SC2POOL_TMPDIR", str(short_tmpdir))
    port = free_port()
    intruder = _worker(port, keys, "intruder", "--connect-timeout", "4")
    procs.append(intruder)
    procs.append(_worker(port, keys, "worker-a", "--connect-timeout", "60"))
    ctx: zmq.Context[Any] = zmq.Context()
    rogue = ctx.socket(zmq.DEALER)
    rogue.linger = 0
    rogue.connect(f"tcp://127.0.0.1:{port}")
    rogue.send(P.header(P.Kind.HELLO, name="rogue", host="x", pid=1, n=1, obs={}, act={}, local=False))
    pool = ZmqVecEnv(env="CartPole-v1", n_envs=2, n_local_workers=1, n_local_envs=1, bind=f"tcp://127.0.0.1:{port}",
                     curve=str(keys), join_timeout=60)
    try:
        assert sorted(w.local for w in pool.workers) == [False, True]
        pool.reset()
        for _ in range(20):
            pool.step(np.zeros(2, dtype=np.int64))
        wait_for(lambda: intruder.poll() is not None, HANG_S, "the intruder to give up")
        assert intruder.returncode != 0
        stats = pool.stats
        assert stats["curve_refused"] >= 2, stats  # the intruder (bad key) and the rogue (no CURVE)
        assert stats["curve_accepted"] >= 2, stats
        assert stats.get("refused", 0) == 0 and stats.get("malformed", 0) == 0, "nothing reached the broker"
        assert rogue.poll(200) == 0, "the rogue must not receive a single byte"
    finally:
        pool.close()
        ctx.destroy(linger=0)
    assert list(short_tmpdir.glob("sc2pool-*")) == []


def test_curve_pool_restarts_local_workers_with_fresh_keys(keys: Path, short_tmpdir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SC2POOL_TMPDIR", str(short_tmpdir))
    pool = ZmqVecEnv(env="CartPole-v1", n_envs=2, n_workers=2, curve=str(keys), on_failure="restart",
                     heartbeat_interval=0.25, heartbeat_timeout=1.5)
    try:
        pool.reset()
        for _ in range(3):
            os.kill(pool.worker_pids[1], signal.SIGKILL)
            t0 = time.monotonic()
            while not pool.step(np.zeros(2, dtype=np.int64))[2][1]:
                assert time.monotonic() - t0 < HANG_S, "the killed worker's env never restarted"
        assert pool.restart_counts == {"local-1": 3}
    finally:
        pool.close()


def test_bind_policy_in_the_pool() -> None:
    """A non-loopback tcp bind needs CURVE (or the explicit override); refused before anything starts."""
    with pytest.raises(InsecureBindError, match="without CurveZMQ"):
        ZmqVecEnv(env="CartPole-v1", n_envs=1, bind="tcp://0.0.0.0:0")
    with pytest.raises(InsecureBindError):
        ZmqVecEnv(env="CartPole-v1", n_envs=1, bind="tcp://*:0")
