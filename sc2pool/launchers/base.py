"""What every cluster launcher shares: the plan a pool hands it, the recipe one worker gets, and
the way a worker program is started on a node.

A launcher is the pool's *control plane* on a cluster: it decides where remote workers run,
starts them, restarts the ones that die and tears them all down at ``close()``. It never carries
observations: every worker it starts runs the ordinary worker program (``workers.main``), which
connects back to the trainer's broker over tcp, says HELLO and takes free env slots, or replaces
a failed worker's slots, exactly as a hand-started ``sc2pool worker --connect`` does.

Secrets (the per-worker CurveZMQ key pair and the broker's public key) travel inside the
:class:`WorkerRecipe`, which reaches the node through the cluster manager (Ray's object store,
``srun``'s stdin) and the worker process through its stdin: never through a command line, where
any user of the node could read them.
"""

from __future__ import annotations

import abc
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("sc2pool.launchers")

# fresh CURVE keys for worker ``name`` (authorised by the broker): {"public", "secret", "server"}
KeyMaker = Callable[[str], "dict[str, bytes] | None"]


@dataclass(frozen=True)
class WorkerRecipe:
    """Everything one remote worker needs; built by the launcher on the trainer, used on a node."""

    name: str
    endpoint: str
    target: str
    kwargs: dict[str, Any]
    num_envs: int
    index: int
    heartbeat_interval: float
    curve: dict[str, bytes] | None = field(default=None, repr=False)
    log_level: str = "WARNING"

    def stdin_payload(self) -> bytes:
        """The recipe ``python -m workers.main --remote`` reads on its stdin (cloudpickle: the
        process start-up on the node itself, never the network)."""
        import cloudpickle

        return bytes(cloudpickle.dumps({
            "kind": "spec",
            "target": self.target,
            "kwargs": self.kwargs,
            "num_envs": self.num_envs,
            "curve": self.curve,
            "sys_path": [p for p in sys.path if p],
        }))

    def argv(self, parent_pid: int | None) -> list[str]:
        """The worker's command line: no secret on it."""
        cmd = [
            sys.executable, "-m", "workers.main", "--remote",
            "--connect", self.endpoint,
            "--name", self.name,
            "--index", str(self.index),
            "--heartbeat-interval", str(self.heartbeat_interval),
            "--log-level", self.log_level,
        ]
        if parent_pid is not None:
            cmd += ["--parent-pid", str(parent_pid)]
        return cmd


@dataclass
class LaunchPlan:
    """What a pool asks its launcher for: ``len(worker_envs)`` workers, worker ``i`` hosting
    ``worker_envs[i]`` envs of the ``HostSpec`` ``target``/``kwargs``, connecting to ``endpoint``."""

    endpoint: str
    target: str
    kwargs: dict[str, Any]
    worker_envs: list[int]
    heartbeat_interval: float
    restart: bool
    max_restarts: int | None
    keys: KeyMaker
    log_level: str = "WARNING"

    def recipe(self, index: int, name: str) -> WorkerRecipe:
        """A fresh recipe (and fresh CURVE keys) for the worker in position ``index``."""
        return WorkerRecipe(
            name=name,
            endpoint=self.endpoint,
            target=self.target,
            kwargs=self.kwargs,
            num_envs=self.worker_envs[index],
            index=index,
            heartbeat_interval=self.heartbeat_interval,
            curve=self.keys(name),
            log_level=self.log_level,
        )


class Launcher(abc.ABC):
    """Places, restarts and tears down a pool's remote workers through a cluster manager.

    Life: :meth:`prepare` (connect, check resources: typed errors before the pool binds anything),
    :meth:`bind_endpoint`/:meth:`advertise` (where the broker listens, how workers reach it),
    :meth:`start`, then :meth:`poll` from the broker's liveness checks, :meth:`worker_failed` when
    the broker removes a worker, :meth:`close` (idempotent).
    """

    #: how many workers to start (the pool splits the remote envs evenly over them)
    n_workers: int

    @abc.abstractmethod
    def prepare(self) -> None:
        """Connect to the cluster manager and check it can host ``n_workers`` workers.

        Raises:
            ClusterUnavailableError: no cluster manager to talk to.
            ClusterResourcesError: it has too few resources.
        """

    @abc.abstractmethod
    def bind_endpoint(self) -> str:
        """The endpoint the broker binds for these workers (port 0: any free port)."""

    def advertise(self, bound: str) -> str:
        """The endpoint workers connect to, given the one the broker actually bound."""
        return bound

    @abc.abstractmethod
    def start(self, plan: LaunchPlan) -> None:
        """Start every worker of ``plan`` (returns at once; workers join the pool as they come)."""

    @abc.abstractmethod
    def poll(self) -> None:
        """Check on the workers: start replacements for ended ones (``plan.restart``) or raise.

        Raises:
            LauncherError: a worker ended and the plan does not restart, or restarts ran out.
        """

    def worker_failed(self, name: str) -> None:  # noqa: B027 - optional hook
        """The broker removed worker ``name`` (dead, hung or unreachable): make sure it is gone,
        so that :meth:`poll` replaces it."""

    def owns(self, name: str) -> bool:
        """Whether ``name`` is a worker this launcher started (and has not replaced yet)."""
        return False

    def describe(self) -> list[str]:
        """Lines on workers not joined yet, for a join-timeout message."""
        return []

    @abc.abstractmethod
    def close(self, grace: float = 3.0) -> None:
        """Stop every worker this launcher started, on every node. Idempotent."""


def _die_with_parent() -> None:
    """``preexec_fn``: SIGTERM this child when the process that started it dies (Linux)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def start_worker_process(recipe: WorkerRecipe) -> subprocess.Popen[bytes]:
    """Start the worker program for ``recipe`` on this node, as the leader of its own process group
    (so stopping it also stops the games it launched), handing the recipe over on stdin. It gets
    SIGTERM when the calling process dies (the Ray actor or task that owns it)."""
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    proc = subprocess.Popen(
        recipe.argv(os.getpid()),
        stdin=subprocess.PIPE,
        process_group=0,
        env=env,
        close_fds=True,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(recipe.stdin_payload())
        proc.stdin.close()
    except BrokenPipeError:
        pass  # it died at once: its exit code says so
    return proc


def stop_process_group(proc: subprocess.Popen[Any], grace: float) -> int | None:
    """SIGTERM ``proc``'s process group, SIGKILL it after ``grace`` s; returns the exit code."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    try:  # the group may hold grandchildren (games) even after the leader exited
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return proc.poll()


def describe_exit_code(code: int | None) -> str:
    """How a worker program ended, in words (its exit codes are in ``workers.main``)."""
    from workers.main import EXIT_BROKER_LOST, EXIT_FAILED, EXIT_OK, EXIT_REFUSED

    if code is None:
        return "is still running"
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return {
        EXIT_OK: "exited normally (told to close)",
        EXIT_FAILED: "exited with code 1 (its envs failed to build or start; see its log)",
        EXIT_REFUSED: "exited with code 2 (refused by the pool; see its log)",
        EXIT_BROKER_LOST: "exited with code 3 (it heard nothing from the trainer for the heartbeat timeout: a "
                          "trainer process stopped, swapped out or starved of CPU that long loses its workers; "
                          "give it the CPU, or a longer heartbeat timeout: Timeouts(heartbeat=...), "
                          "sc2pool train --heartbeat-timeout)",
    }.get(code, f"exited with code {code}")
