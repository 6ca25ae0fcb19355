"""Fault injection against a live pool with policy ``on_failure="raise"`` (the default).

Each fault must end in a typed error naming the worker (never a hang; how soon is measured by
``benchmarks/bench_reliability.py``, not asserted here) and leave no process behind; killing the trainer must take every worker with it. The same
faults ridden out with ``on_failure="restart"`` are in ``test_recovery.py`` (and benchmarks/soak.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import psutil
import pytest
from helpers.proctree import ProcessTree
from helpers.waiting import HANG_S

from .reliability_helpers import TrainerProc, free_port, kill_group, wait_for

pytestmark = pytest.mark.timeout(90)
HB = 2.0  # heartbeat timeout given to the trainer


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _running_pool(
    trainer: Callable[..., TrainerProc], workers: int = 2, hb: float = HB
) -> tuple[TrainerProc, list[int]]:
    t = trainer("--envs", str(workers * 2), "--local-workers", str(workers), "--heartbeat-timeout", str(hb))
    pids = [int(p) for p in t.wait_ready()["pids"]]
    assert len(pids) == workers
    t.assert_progressing(by=100)
    return t, pids


def test_kill9_worker_mid_step_is_a_prompt_typed_error_and_leaks_nothing(
    trainer: Callable[..., TrainerProc],
) -> None:
    # A heartbeat timeout no test outlives: the death must be noticed from the process itself (its
    # exit status), not from heartbeat silence. How fast is benchmarks/bench_reliability.py's figure.
    t, pids = _running_pool(trainer, hb=3600.0)
    os.kill(pids[1], signal.SIGKILL)
    wait_for(lambda: t.event("error") is not None or t.proc.poll() is not None, HANG_S, "typed error")
    err = t.event("error")
    assert err is not None and err["type"] == "WorkerDied", t.describe()
    assert "local-1" in err["message"] and "SIGKILL" in err["message"], err
    wait_for(lambda: t.proc.poll() is not None, HANG_S, "trainer exit")
    wait_for(lambda: all(_gone(p) for p in pids), HANG_S, "every worker gone")


def test_stopped_worker_is_a_typed_timeout_then_everything_exits(trainer: Callable[..., TrainerProc]) -> None:
    t, pids = _running_pool(trainer)
    os.kill(pids[0], signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        wait_for(lambda: t.event("error") is not None or t.proc.poll() is not None, HANG_S, "typed error")
        err = t.event("error")
        assert err is not None and err["type"] == "WorkerTimeout", t.describe()
        assert "local-0" in err["message"], err
        # Not before its heartbeat timeout (less the one heartbeat interval, 0.5 s, that may have
        # passed since its last message): a lower bound, which load cannot break. How soon after
        # is benchmarks/bench_reliability.py's figure.
        took = time.monotonic() - t0
        assert took >= HB - 0.5, f"a stopped worker was declared dead after {took:.1f}s, timeout {HB}s"
    finally:
        if not _gone(pids[0]):
            os.kill(pids[0], signal.SIGCONT)  # "resume later": it must find its trainer gone and exit
    wait_for(lambda: t.proc.poll() is not None, HANG_S, "trainer exit")
    wait_for(lambda: all(_gone(p) for p in pids), HANG_S, "every worker gone, the resumed one included")


def test_killing_the_trainer_takes_every_worker_with_it(
    trainer: Callable[..., TrainerProc], process_tree: ProcessTree
) -> None:
    """Local workers (parent-death signal) and a remote worker (broker heartbeats stop) both exit."""
    port = free_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    t = trainer(
        *("--bind", endpoint, "--envs", "3", "--local-workers", "2", "--local-envs", "2"),
        *("--heartbeat-timeout", str(HB)),
    )
    remote = process_tree.popen(
        [
            sys.executable,
            "-m",
            "sc2pool",
            "worker",
            "--connect",
            endpoint,
            "--env",
            "CartPole-v1",
            "--envs",
            "1",
        ]
        + ["--connect-timeout", "30", "--log-level", "WARNING"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        pids = [int(p) for p in t.wait_ready()["pids"]]
        t.assert_progressing(by=100)
        everyone = [psutil.Process(p) for p in pids] + [psutil.Process(remote.pid)]
        everyone += [c for p in list(everyone) for c in p.children(recursive=True)]
        os.kill(t.proc.pid, signal.SIGKILL)
        wait_for(lambda: all(_gone(p.pid) for p in everyone), HANG_S, "all workers to exit after the trainer died")
        assert remote.wait(timeout=HANG_S) != 0
    finally:
        kill_group(remote)
