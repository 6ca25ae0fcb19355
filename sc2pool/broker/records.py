"""The broker's plain records: what it knows about each worker, each local slot and each vacancy.

No sockets and no processes are touched here; every other broker module reads and updates these.
"""

from __future__ import annotations

import subprocess
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sc2pool.errors import PoolError, ProtocolError
from sc2pool.pool import protocol as P
from sc2pool.pool import wire

# A reply ``gather`` filed for a pending request: the typed message (a RESULT, a CALL_RESULT or an
# ERROR; or the ProtocolError of a reply that echoed the request but could not be read, which the
# VecEnv raises naming the worker) and the observation frames that came after it over ZeroMQ.
Reply = tuple[wire.Result | wire.CallResult | wire.Error | ProtocolError, list[bytes]]


@dataclass(eq=False)
class WorkerRecord:
    """A worker known to the broker. ``[lo, hi)`` are its global env indices."""

    identity: bytes
    name: str
    hostname: str
    pid: int
    lo: int
    hi: int
    local: bool
    proc: subprocess.Popen[bytes] | None = None
    ready: bool = False
    last_seen: float = field(default_factory=time.monotonic)
    pending_seq: int = -1
    sent_at: float = 0.0
    reply: Reply | None = None
    lane: P.Lane | None = None  # local fast lane for STEP/RESET (None: all over ZeroMQ)
    lane_spec: tuple[str, tuple[int, ...]] | None = None  # action dtype/shape the worker has seen
    poll_obj: Any = None  # select.poll over this lane and the ZeroMQ FD
    # a remote worker that takes compact STEPs over ZeroMQ (its HELLO's compact_zmq): sent once the action
    # layout is known (lane_spec), answered with a compact RESULT followed by observation frames
    compact: bool = False
    failed: PoolError | None = None  # on_failure="restart": why it was removed from the pool
    fresh: bool = False  # joined as a replacement while running: its envs still need a reset
    joined_at: float = field(default_factory=time.monotonic)

    @property
    def n_envs(self) -> int:
        return self.hi - self.lo

    @property
    def env_indices(self) -> list[int]:
        return list(range(self.lo, self.hi))

    @property
    def transport(self) -> str:
        """How requests reach it: ``"lane"`` (local socket pair and shared memory),
        ``"zmq-compact"`` (ZeroMQ, compact STEPs once the action layout is known) or ``"zmq"``."""
        if self.lane is not None:
            return "lane"
        return "zmq-compact" if self.compact else "zmq"

    def take_reply(self) -> Reply | None:
        """The reply gathered for the pending request, cleared so that a late duplicate is stale."""
        reply = self.reply
        self.reply = None
        self.pending_seq = -1
        return reply


@dataclass(frozen=True)
class WorkerInfo:
    """Public description of a worker (see ``ZmqVecEnv.workers``).

    ``transport`` says how requests reach it (see :attr:`WorkerRecord.transport`);
    ``action_layout`` is the action ``(dtype, shape)`` it last received in a full STEP, which lets
    the trainer send the compact form while the layout stays the same (``None``: not known yet).
    """

    name: str
    hostname: str
    pid: int
    env_indices: tuple[int, ...]
    local: bool
    ready: bool
    transport: str = "zmq"
    action_layout: tuple[str, tuple[int, ...]] | None = None

    @property
    def host(self) -> str:
        """Deprecated: the machine's name is :attr:`hostname` (a "host" is the ``EnvHost``)."""
        warnings.warn(
            "WorkerInfo.host is deprecated and will be removed in the next release; use .hostname",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.hostname


# spawn(lane_fd, secrets) -> the started local worker process; ``secrets`` ({"token": ..., and with
# CURVE "curve": {"public", "secret", "server"}}) go into its stdin recipe, never onto a socket.
Spawner = Callable[[int | None, dict[str, Any]], "subprocess.Popen[bytes]"]


@dataclass(eq=False)
class LocalSlot:
    """Env slots ``[lo, hi)`` reserved for a local worker the broker starts (and restarts)."""

    name: str
    lo: int
    hi: int
    spawn: Spawner | None = None
    proc: subprocess.Popen[bytes] | None = None
    lane: P.Lane | None = None
    token: str = ""  # per-process secret from the stdin recipe, echoed in HELLO
    curve_public: bytes | None = None  # its ephemeral CURVE key, authorised while it lives


@dataclass(eq=False)
class Vacancy:
    """Env slots ``[lo, hi)`` whose worker failed (``on_failure="restart"``), waiting for a
    replacement: a respawned local worker (``local_name``) or any remote worker of ``hi - lo`` envs."""

    key: str
    lo: int
    hi: int
    local_name: str | None
    cause: PoolError
    since: float = field(default_factory=time.monotonic)
    spawned: bool = False

    @property
    def n_envs(self) -> int:
        return self.hi - self.lo
