"""Failure behaviour: typed errors, never a hang, no orphans."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pool_envs
import portpicker
import psutil
import pytest
from helpers.waiting import wait_until
from pool_helpers import HERE, worker_env

from sc2pool.errors import EnvError, PoolClosedError, WorkerDied, WorkerTimeout
from workers.host import HostSpec

ZEROS2 = np.zeros(2, dtype=np.int64)


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.timeout(60)
def test_env_raising_in_step_is_typed_and_closes_the_pool(make_pool: Callable[..., Any]) -> None:
    fns = [pool_envs.make_count, pool_envs.make_count, partial(pool_envs.make_count, fail_step=3)]
    pool = make_pool(fns, n_workers=2)
    pids = pool.worker_pids
    pool.reset()
    pool.step(np.zeros(3, dtype=np.int64))
    pool.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(EnvError) as exc_info:
        pool.step(np.zeros(3, dtype=np.int64))
    err = exc_info.value
    assert isinstance(err, ValueError)  # remote ValueError mirrored
    assert err.env_index == 2 and err.remote_type == "ValueError" and err.worker == "local-1"
    assert "step 3 exploded on purpose" in err.remote_traceback
    assert "pool_envs.py" in err.remote_traceback and "Traceback" in err.remote_traceback
    assert pool.closed and all(gone(p) for p in pids)
    with pytest.raises(PoolClosedError, match="fatal error"):
        pool.step(np.zeros(3, dtype=np.int64))


@pytest.mark.timeout(60)
def test_env_raising_in_reset_and_unencodable_info(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_count, partial(pool_envs.make_count, fail_reset=True)], n_workers=1)
    with pytest.raises(EnvError, match="reset exploded on purpose") as exc_info:
        pool.reset()
    assert exc_info.value.env_index == 1
    pool = make_pool([pool_envs.make_count, partial(pool_envs.make_count, bad_info=True)], n_workers=2)
    pool.reset()
    with pytest.raises(EnvError, match=r"info\['handle'\]") as exc_info:
        pool.step(ZEROS2)
    assert exc_info.value.env_index == 1


@pytest.mark.timeout(60)
def test_factory_failure_at_start_is_reported_fast(make_pool: Callable[..., Any]) -> None:
    # A join timeout no test outlives: the error must come from the failure itself, not from
    # waiting out the join timeout.
    with pytest.raises(EnvError, match="no_such_kwarg") as exc_info:
        make_pool(env="pool_envs:make_count", env_kwargs={"no_such_kwarg": 1}, n_envs=1, join_timeout=3600.0)
    assert isinstance(exc_info.value, TypeError) and exc_info.value.env_index == 0
    assert "during build" in str(exc_info.value)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("idle", [False, True], ids=["killed-mid-run", "killed-while-idle"])
def test_killed_worker_is_noticed_quickly(make_pool: Callable[..., Any], idle: bool) -> None:
    # A heartbeat timeout no test outlives: the death must be noticed from the process's exit.
    pool = make_pool([pool_envs.make_count] * 4, n_workers=2, heartbeat_timeout=3600.0)
    pool.reset()
    victim = pool.worker_pids[1]
    os.kill(victim, signal.SIGKILL)
    if idle:  # the service thread notices between calls: it reaps the dead child on its own
        wait_until(lambda: not psutil.pid_exists(victim), "the pool to reap the dead worker between calls")
    with pytest.raises(WorkerDied) as exc_info:
        for _ in range(1000):
            pool.step(np.zeros(4, dtype=np.int64))
    err = exc_info.value
    assert err.pid == victim and err.env_indices == [2, 3] and err.worker == "local-1"
    assert "SIGKILL" in str(err)
    assert pool.closed and all(gone(p) for p in pool.worker_pids + [victim])


@pytest.mark.timeout(60)
def test_stopped_worker_times_out(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_count] * 2, n_workers=2, heartbeat_interval=0.2, heartbeat_timeout=1.5)
    pool.reset()
    victim = pool.worker_pids[0]
    os.kill(victim, signal.SIGSTOP)
    try:
        with pytest.raises(WorkerTimeout) as exc_info:
            for _ in range(100000):
                pool.step(ZEROS2)
        assert exc_info.value.pid == victim and exc_info.value.env_indices == [0]
        assert "no heartbeat" in str(exc_info.value)
        assert gone(victim)  # close() killed the stopped process
    finally:
        if not gone(victim):
            os.kill(victim, signal.SIGCONT)


@pytest.mark.timeout(60)
def test_a_trainer_stopped_past_the_heartbeat_timeout_is_told_why_its_workers_left(
        make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_count] * 2, n_workers=2, heartbeat_interval=0.2, heartbeat_timeout=1.0)
    pool.reset()
    pool.step(ZEROS2)
    # the whole trainer process (this one) stopped for 3 s, as a trainer starved of CPU or swapped
    # out is: its workers hear nothing for longer than the timeout and leave
    me = os.getpid()
    subprocess.run(["sh", "-c", f"kill -STOP {me}; sleep 3; kill -CONT {me}"], check=True, timeout=30)
    with pytest.raises(WorkerDied) as exc_info:
        for _ in range(100000):
            pool.step(ZEROS2)
    msg = str(exc_info.value)
    assert "exited with code 3" in msg and "heard nothing from the trainer" in msg, msg
    assert "heartbeat timeout" in msg and "--heartbeat-timeout" in msg, msg
    assert pool.closed and all(gone(p) for p in pool.worker_pids)


@pytest.mark.timeout(60)
def test_busy_worker_is_not_declared_dead(make_pool: Callable[..., Any]) -> None:
    # a 2.5 s step and a 2.5 s blocking host start, with a 1 s heartbeat timeout
    pool = make_pool(
        host=HostSpec("pool_envs:make_slow_start_host", {"delay": 2.5}),
        n_envs=2,
        n_workers=1,
        heartbeat_interval=0.2,
        heartbeat_timeout=1.0,
    )
    pool.reset()
    pool.env_method("__setattr__", "delay", 2.5, indices=[0])
    t0 = time.monotonic()
    obs, _, _, _ = pool.step(ZEROS2)
    assert time.monotonic() - t0 >= 2.4
    assert obs.shape == (2, 2)


@pytest.mark.timeout(60)
def test_step_timeout(make_pool: Callable[..., Any]) -> None:
    # A step that would outlast any test: if the typed error comes at all, step_timeout fired (and
    # closing the failed pool killed the hung worker). How soon is benchmarks/bench_reliability.py's.
    pool = make_pool(env="pool_envs:make_count", env_kwargs={"delay": 3600.0}, n_envs=1, step_timeout=0.5)
    pool.reset()
    pids = pool.worker_pids
    with pytest.raises(WorkerTimeout, match="step_timeout"):
        pool.step(np.zeros(1, dtype=np.int64))
    assert pool.closed and all(gone(p) for p in pids)


def start_trainer(procs: list[Any], *args: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    p = subprocess.Popen(
        [sys.executable, str(HERE / "pool_trainer.py"), *args],
        env=worker_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    procs.append(p)
    assert p.stdout is not None
    line = p.stdout.readline()
    if not line:
        pytest.fail(f"trainer failed to start: {p.communicate(timeout=10)[1]}")
    return p, json.loads(line)


@pytest.mark.timeout(60)
def test_workers_exit_when_the_trainer_dies(procs: list[Any], pool_tmpdir: Path) -> None:
    port = portpicker.pick_unused_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    remote = subprocess.Popen(
        [sys.executable, "-m", "sc2pool", "worker", "--connect", endpoint, "--env", "pool_envs:make_count",
         "--log-level", "ERROR"],
        env=worker_env(), stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    procs.append(remote)
    trainer, info = start_trainer(procs, "--bind", endpoint, "--n-envs", "2", "--local", "1")
    local_pids = info["pids"]
    assert len(local_pids) == 1 and os.path.isdir(info["dir"])
    os.kill(trainer.pid, signal.SIGKILL)
    trainer.wait(timeout=5)
    # local worker: parent-death signal; remote worker: broker heartbeats stop (timeout 1.5 s)
    wait_until(lambda: gone(local_pids[0]), "the local worker to exit")
    wait_until(lambda: remote.poll() is not None, "the remote worker to exit")
    assert remote.returncode == 3, remote.stderr.read() if remote.stderr else ""
    wait_until(lambda: not os.path.exists(info["dir"]), "the orphaned ipc/shm dir to be removed")


@pytest.mark.timeout(60)
def test_ctrl_c_in_the_trainer_leaves_nothing(procs: list[Any], pool_tmpdir: Path) -> None:
    trainer, info = start_trainer(procs, "--n-envs", "2", "--local", "2")
    pids = info["pids"]
    os.kill(trainer.pid, signal.SIGINT)
    try:
        _, err = trainer.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.kill(trainer.pid, signal.SIGUSR1)  # faulthandler: every thread's stack to stderr
        try:
            trainer.communicate(timeout=3)
        except subprocess.TimeoutExpired as exc:
            stacks = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr
            pytest.fail(f"the trainer did not exit within 20 s of SIGINT; its threads:\n{stacks}")
        raise
    assert "KeyboardInterrupt" in err
    assert all(gone(p) for p in pids)
    assert not os.path.exists(info["dir"])


@pytest.mark.timeout(60)
def test_interpreter_exit_without_close_leaves_nothing(procs: list[Any], pool_tmpdir: Path) -> None:
    trainer, info = start_trainer(procs, "--n-envs", "2", "--local", "1", "--steps", "20")
    _, err = trainer.communicate(timeout=30)
    assert trainer.returncode == 0, err
    assert all(gone(p) for p in info["pids"])
    assert not os.path.exists(info["dir"])
