"""Mechanism for local worker processes: signalling their process groups and reaping them.

Deciding *whether* to kill or restart a worker is :mod:`sc2pool.broker.restart_policy`'s job;
this module only does it. Each worker leads its own process group, so the game processes it
started die with it.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
from collections.abc import Sequence

log = logging.getLogger("sc2pool.broker")


def describe_exit(returncode: int) -> str:
    """How a worker process ended, in words, for error messages: ``"was killed by signal NAME"``,
    or ``"exited with code N"`` with what the worker program's own exit codes (``workers.main``)
    mean, so that the trainer's error says why a worker left (one that lost the trainer, above all:
    the fix is on the trainer's side)."""
    from sc2pool.launchers.base import describe_exit_code

    return describe_exit_code(returncode)


def kill_group(pid: int, sig: int) -> None:
    """Send ``sig`` to the process group led by ``pid``; a group already gone is not an error."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_and_reap(proc: subprocess.Popen[bytes], name: str) -> None:
    """SIGKILL ``proc``'s process group and wait for it (logged if it somehow survives)."""
    kill_group(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        log.error("worker %s (pid %d) survived SIGKILL for 5 s", name, proc.pid)


def blocked_in(pid: int) -> str:
    """Where a stuck process sleeps in the kernel (`` (blocked in X)``), or ``""`` if unknown:
    it tells a hang on a lock or pipe from one in the worker's own code."""
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return f" (blocked in {f.read().strip() or '?'})"
    except OSError:
        return ""


def reap_processes(procs: Sequence[subprocess.Popen[bytes]], grace: float) -> None:
    """Wait up to ``grace`` s for processes to exit, then SIGTERM, then SIGKILL their process groups
    (each worker leads its own group, so game processes it started die with it)."""
    deadline = time.monotonic() + grace
    for sig, wait in ((None, grace), (signal.SIGTERM, 1.0), (signal.SIGKILL, 2.0)):
        alive = [p for p in procs if p.poll() is None]
        if not alive:
            break
        if sig is not None:
            for p in alive:
                kill_group(p.pid, sig)
            deadline = time.monotonic() + wait
        for p in alive:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
    for p in procs:  # the group may hold grandchildren even after the leader exited
        kill_group(p.pid, signal.SIGKILL)
        if p.poll() is None:
            p.wait(timeout=1.0)
