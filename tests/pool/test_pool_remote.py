"""Remote workers: the real ``sc2pool worker`` CLI joining a bind= pool over tcp, refusals,
join timeouts, and a broker that keeps serving through malformed traffic."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import msgpack
import numpy as np
import portpicker
import pytest
import zmq
from helpers.waiting import HANG_S
from pool_helpers import worker_env

from sc2pool.errors import JoinTimeoutError, WorkerDied
from sc2pool.pool import protocol as P

SC2POOL = [sys.executable, "-m", "sc2pool"]  # the interpreter running the tests, not a fixed venv


def start_cli_worker(procs: list[Any], endpoint: str, *extra: str) -> subprocess.Popen[str]:
    cmd = [*SC2POOL, "worker", "--connect", endpoint, "--log-level", "WARNING", *extra]
    p = subprocess.Popen(
        cmd, env=worker_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    procs.append(p)
    return p


def wait_exit(p: subprocess.Popen[str], timeout: float) -> tuple[int, str]:
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"worker {p.args!r} did not exit within {timeout} s")
    return p.returncode, err


@pytest.mark.timeout(60)
def test_cli_worker_joins_bind_pool(make_pool: Callable[..., Any], procs: list[Any]) -> None:
    port = portpicker.pick_unused_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    remote = start_cli_worker(procs, endpoint, "--env", "pool_envs:make_count", "--envs", "2", "--name", "far-away")
    pool = make_pool(
        env="pool_envs:make_count", n_envs=3, bind=f"tcp://127.0.0.1:{port}", n_local_workers=1, n_local_envs=1
    )
    assert pool.endpoints == [endpoint]
    by_name = {w.name: w for w in pool.workers}
    assert by_name["far-away"].env_indices == (1, 2) and by_name["far-away"].pid == remote.pid
    assert not by_name["far-away"].local and by_name["local-0"].local
    assert pool.worker_pids == [by_name["local-0"].pid]
    obs = pool.reset()
    assert [ri["pid"] for ri in pool.reset_infos] == [by_name["local-0"].pid, remote.pid, remote.pid]
    for t in range(1, 4):
        obs, rew, done, infos = pool.step(np.zeros(3, dtype=np.int64))
        assert np.array_equal(obs, np.full((3, 2), t, np.float32))  # remote obs arrive as frames
    assert pool.get_attr("t") == [3, 3, 3]
    pool.close()
    code, err = wait_exit(remote, 10)
    assert code == 0, err


@pytest.mark.timeout(60)
def test_remote_worker_waiting_for_a_request_exits_on_sigterm(make_pool: Callable[..., Any], procs: list[Any]) -> None:
    """A remote worker of plain gym envs waits for requests inside ZeroMQ's receive, outside its
    event loop: a signal that arrives meanwhile must still end it (the loop's handler runs
    between receive slices), and the pool must see it gone."""
    port = portpicker.pick_unused_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    remote = start_cli_worker(procs, endpoint, "--env", "pool_envs:make_count", "--envs", "2")
    pool = make_pool(env="pool_envs:make_count", n_envs=2, bind=endpoint, n_local_workers=0)
    pool.reset()
    obs, *_ = pool.step(np.zeros(2, dtype=np.int64))
    assert np.array_equal(obs, np.full((2, 2), 1, np.float32))
    remote.send_signal(signal.SIGTERM)  # idle now: waiting for the next request
    code, err = wait_exit(remote, 10)
    assert code != 0 and "Traceback" not in err, err
    with pytest.raises(WorkerDied):  # from the closed connection, or the heartbeats' silence
        pool.step(np.zeros(2, dtype=np.int64))


@pytest.mark.timeout(30)
def test_join_timeout_lists_what_is_missing(make_pool: Callable[..., Any]) -> None:
    port = portpicker.pick_unused_port()
    with pytest.raises(JoinTimeoutError) as exc_info:
        make_pool(env="pool_envs:make_count", n_envs=2, bind=f"tcp://127.0.0.1:{port}", join_timeout=1.0)
    msg = str(exc_info.value)
    assert "0/2 envs joined" in msg and "2 env slot(s) for remote workers" in msg
    assert f"sc2pool worker --connect tcp://127.0.0.1:{port}" in msg


def raw_hello(endpoint: str, **fields: Any) -> dict[str, Any]:
    """Send a HELLO from a bare DEALER and return the broker's answer header."""
    ctx: Any = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    try:
        hello = {"v": P.PROTOCOL_VERSION, "k": int(P.Kind.HELLO), "name": "raw", "host": "h", "pid": 1, "n": 1}
        hello.update(fields)
        sock.send(msgpack.packb(hello, default=lambda o: o.tolist()))
        assert sock.poll(10_000), "no answer from the broker"
        return msgpack.unpackb(sock.recv(), raw=False)
    finally:
        sock.close()


@pytest.mark.timeout(90)
def test_refusals_while_joining(procs: list[Any], joins: JoinLog) -> None:
    from sc2pool import ZmqVecEnv

    port = portpicker.pick_unused_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    result: dict[str, Any] = {}

    def build() -> None:
        try:
            result["pool"] = ZmqVecEnv(
                env="pool_envs:make_count", n_envs=3, bind=endpoint, n_local_workers=1, n_local_envs=1, join_timeout=40
            )
        except BaseException as exc:  # reported below
            result["error"] = exc

    builder = threading.Thread(target=build)
    builder.start()
    try:
        # 1. another protocol version: refused with both versions named
        answer = raw_hello(endpoint, v=99)
        assert answer["k"] == P.Kind.REFUSE
        assert "99" in answer["reason"] and str(P.PROTOCOL_VERSION) in answer["reason"]
        # 2. garbage HELLO fields: refused, not a crash
        answer = raw_hello(endpoint, n="many")
        assert answer["k"] == P.Kind.REFUSE and "malformed HELLO" in answer["reason"]
        # 3. impersonating the pool's local worker
        answer = raw_hello(endpoint, name="local-0", local=True)
        assert answer["k"] == P.Kind.REFUSE
        assert "reserved for a local worker" in answer["reason"] or "duplicate worker id" in answer["reason"]
        # wait for the local worker so that the pool's spaces are known
        joins.wait_for("local-0")
        # 3. different spaces (CartPole's Box(4) vs the pool's Box(2))
        # 4. too many envs (both started at once: each CLI start-up takes a while)
        other = start_cli_worker(procs, endpoint, "--env", "CartPole-v1")
        greedy = start_cli_worker(procs, endpoint, "--env", "pool_envs:make_count", "--envs", "5")
        code, err = wait_exit(other, 30)
        assert code == 2 and "observation space" in err and "differs" in err
        code, err = wait_exit(greedy, 30)
        assert code == 2 and "too many envs" in err and "5" in err
        # 5. duplicate worker id: the first joins, the second is refused
        first = start_cli_worker(procs, endpoint, "--env", "pool_envs:make_count", "--name", "twin")
        joins.wait_for("twin")
        second = start_cli_worker(procs, endpoint, "--env", "pool_envs:make_count", "--name", "twin")
        code, err = wait_exit(second, 30)
        assert code == 2 and "duplicate worker id 'twin'" in err
        last = start_cli_worker(procs, endpoint, "--env", "pool_envs:make_count", "--name", "last")
        builder.join(timeout=40)
        assert "error" not in result, result.get("error")
        pool = result["pool"]
        try:
            assert sorted(w.name for w in pool.workers) == ["last", "local-0", "twin"]
            assert pool.stats["refused"] >= 5
            # 6. the pool is full now: a late worker is refused
            answer = raw_hello(endpoint)
            assert answer["k"] == P.Kind.REFUSE and "no slot is free" in answer["reason"]
            assert pool.reset().shape == (3, 2)
        finally:
            pool.close()
        for p in (first, last):
            assert wait_exit(p, 10)[0] == 0
    finally:
        builder.join(timeout=60)
        if "pool" in result:
            result["pool"].close()


class JoinLog(logging.Handler):
    """The broker's "worker NAME (...) joined" log lines: what a user watching the log sees, and
    the only sign of progress while the pool object is still being built."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self._names: set[str] = set()
        self._changed = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        words = record.getMessage().split()
        if len(words) > 2 and words[0] == "worker" and "joined" in words:
            with self._changed:
                self._names.add(words[1])
                self._changed.notify_all()

    def wait_for(self, name: str, timeout: float = HANG_S) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: name in self._names, timeout), f"worker {name!r} never joined"


@pytest.fixture
def joins() -> Iterator[JoinLog]:
    handler = JoinLog()
    logger = logging.getLogger("sc2pool.broker")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


@pytest.mark.timeout(60)
def test_malformed_traffic_is_dropped_and_counted(make_pool: Callable[..., Any]) -> None:
    port = portpicker.pick_unused_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    pool = make_pool(env="pool_envs:make_count", n_envs=2, bind=endpoint, n_local_workers=1, n_local_envs=2)
    pool.reset()
    ctx: Any = zmq.Context.instance()
    rogue = ctx.socket(zmq.DEALER)
    rogue.setsockopt(zmq.LINGER, 0)
    rogue.connect(endpoint)
    try:
        rogue.send(b"\xc1garbage")
        rogue.send_multipart([b"\x81\xa1v\x01", b"extra"])  # {"v": 1} without a kind
        rogue.send(msgpack.packb({"v": P.PROTOCOL_VERSION, "k": int(P.Kind.RESULT), "s": 1}))  # never said HELLO
        deadline = time.monotonic() + HANG_S
        while pool.stats.get("malformed", 0) < 3:
            assert time.monotonic() < deadline, f"only {pool.stats.get('malformed', 0)} of 3 malformed messages counted"
            pool.step(np.zeros(2, dtype=np.int64))
        obs, _, _, _ = pool.step(np.zeros(2, dtype=np.int64))  # still serving
        assert obs.shape == (2, 2)
    finally:
        rogue.close()
