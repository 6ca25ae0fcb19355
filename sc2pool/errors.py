"""Typed errors raised by the environment pool.

Every failure a trainer can see is a subclass of :class:`PoolError`, so ``except PoolError`` is
enough to catch anything the pool raises, while the subclasses carry the facts needed to act on it
(which worker, which process, which global env indices, the remote traceback).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence


class PoolError(Exception):
    """Base class of every error raised by the sc2pool environment pool."""


class PoolClosedError(PoolError):
    """The pool was closed (by ``close()`` or after a fatal error); it cannot be used any more."""


class AlreadyPendingCallError(PoolError):
    """A call was made while another asynchronous call (``step_async``) is still pending."""


class NoAsyncCallError(PoolError):
    """``step_wait`` was called without a preceding ``step_async``."""


class ProtocolError(PoolError):
    """A message could not be decoded, or violates the wire protocol (wrong version, bad frame)."""


class EncodeError(ValueError):
    """A value cannot travel on the wire (only msgpack types, numpy arrays/scalars, tuples,
    gymnasium spaces and env specs can).

    The message names the offending path, e.g. ``info['frames'][2]``.
    """


class SpaceError(ValueError):
    """A gymnasium space cannot be described on the wire (unsupported space type)."""


class WorkerRefusedError(PoolError):
    """The broker refused a worker (version mismatch, differing spaces, pool full, duplicate id)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SpaceMismatchError(WorkerRefusedError):
    """A worker's spaces or array layout (keys, their order, dtypes, byte order, shapes) differ
    from the trainer's. Found at HELLO, before any data is exchanged: observations laid out
    differently on the two ends would be silently wrong, never an error later."""


class JoinTimeoutError(PoolError):
    """Not all expected environments joined (or became ready) before the deadline."""


def _describe(worker: str, pid: int | None, hostname: str | None, env_indices: Sequence[int]) -> str:
    where = f"worker {worker!r}"
    if pid is not None:
        where += f" (pid {pid}"
        where += f" on {hostname})" if hostname else ")"
    return f"{where} hosting envs {list(env_indices)}"


class WorkerFailure(PoolError):
    """A worker process failed as a whole. Names the worker, its pid, the machine it ran on
    (``hostname``) and its global env indices.

    ``host=`` is the constructor's former spelling of ``hostname=`` (still accepted); reading
    ``.host`` warns, since in this package a "host" is the ``EnvHost`` that runs envs.
    """

    def __init__(
        self,
        message: str,
        *,
        worker: str,
        pid: int | None = None,
        hostname: str | None = None,
        env_indices: Sequence[int] = (),
        host: str | None = None,
    ) -> None:
        if host is not None:
            if hostname is not None and hostname != host:
                raise TypeError(f"host={host!r} is the old spelling of hostname={hostname!r}: give only hostname=")
            hostname = host
        super().__init__(f"{_describe(worker, pid, hostname, env_indices)}: {message}")
        self.worker = worker
        self.pid = pid
        self.hostname = hostname
        self.env_indices = list(env_indices)

    @property
    def host(self) -> str | None:
        """Deprecated: the machine's name is :attr:`hostname`."""
        warnings.warn(
            "WorkerFailure.host is deprecated and will be removed in the next release; use .hostname",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.hostname


class WorkerDied(WorkerFailure):
    """The worker process exited (or its connection vanished) while the pool needed it."""


class WorkerTimeout(WorkerFailure):
    """The worker stopped answering: no heartbeat within the liveness timeout, or a step took longer
    than ``step_timeout``."""


class RestartLimitError(WorkerFailure):
    """``on_failure="restart"``: a worker slot failed more often than ``max_restarts``. Raised in
    place of the failure that exceeded the limit (chained as ``__cause__``); the pool is closed."""


class ReplacementTimeout(WorkerFailure):
    """``on_failure="restart"``: no replacement worker took over a failed worker's env slots (joined
    and finished ``start()``) within ``replace_timeout``/``start_timeout``; the pool is closed."""


class EnvError(PoolError):
    """An environment raised inside a worker.

    ``env_index`` is the *global* index of the env (``None`` when the failure was not tied to one
    env, e.g. while building the host), ``remote_type``/``remote_message`` describe the exception and
    ``remote_traceback`` is the formatted traceback from the worker process.
    """

    def __init__(
        self,
        *,
        env_index: int | None,
        worker: str,
        remote_type: str,
        remote_message: str,
        remote_traceback: str,
        during: str = "",
    ) -> None:
        env = f"env {env_index}" if env_index is not None else "environment host"
        what = f" during {during}" if during else ""
        super().__init__(
            f"{env} (worker {worker!r}) raised {remote_type}{what}: {remote_message}\n"
            f"--- remote traceback ---\n{remote_traceback.rstrip()}"
        )
        self.env_index = env_index
        self.worker = worker
        self.remote_type = remote_type
        self.remote_message = remote_message
        self.remote_traceback = remote_traceback


# Remote exceptions of these builtin types are re-raised as classes deriving from both EnvError and
# the builtin, so that code written for SubprocVecEnv (``except AttributeError`` around get_attr, as
# SB3's VecEnv.__init__ does) keeps working.
_MIRRORED: dict[str, type[Exception]] = {
    "AttributeError": AttributeError,
    "NotImplementedError": NotImplementedError,
    "ValueError": ValueError,
    "TypeError": TypeError,
    "KeyError": KeyError,
    "IndexError": IndexError,
    "RuntimeError": RuntimeError,
    "AssertionError": AssertionError,
}
_MIRROR_CACHE: dict[str, type[EnvError]] = {}


def env_error_class(remote_type: str) -> type[EnvError]:
    """The EnvError subclass to raise for a remote exception named ``remote_type``."""
    base = _MIRRORED.get(remote_type)
    if base is None:
        return EnvError
    cls = _MIRROR_CACHE.get(remote_type)
    if cls is None:
        cls = type(f"Remote{remote_type}", (EnvError, base), {"__module__": __name__})
        _MIRROR_CACHE[remote_type] = cls
    return cls


class LauncherError(PoolError):
    """A cluster launcher (Ray, SLURM) could not place, start or restart the pool's workers.
    The message says what is missing (a reachable cluster, CPUs, an allocation, a worker that
    never joined)."""


class ClusterUnavailableError(LauncherError):
    """The cluster manager cannot be reached or used at all (no Ray at the address, not inside a
    SLURM allocation, the optional package or command is not installed)."""


class ClusterResourcesError(LauncherError):
    """The cluster has too few resources (CPUs, nodes, tasks) for the requested workers, or could
    not place them within the placement timeout."""
