"""The state the broker's parts share, declared once so each part can be read (and type-checked)
on its own.

:class:`~sc2pool.broker.Broker` is assembled from :class:`~sc2pool.broker.transport.Transport`,
:class:`~sc2pool.broker.registry.Registry` and :class:`~sc2pool.broker.supervision.Supervision`;
they share one ROUTER socket and one worker table under one lock. The methods declared here are
the calls one part makes into another; each is defined by the part named in its docstring.
"""

from __future__ import annotations

import mmap
import select
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

import zmq
from gymnasium import spaces

from sc2pool import security, wire
from sc2pool.broker.records import LocalSlot, Vacancy, WorkerRecord
from sc2pool.broker.restart_policy import RestartPolicy
from sc2pool.errors import EnvError, PoolError, WorkerDied
from sc2pool.spaces import ObsLayout

if TYPE_CHECKING:
    from sc2pool.launchers.base import Launcher


class BrokerState:
    """Attributes shared by the broker's parts (set in :meth:`Broker.__init__`)."""

    n_envs: int
    heartbeat_interval: float
    heartbeat_timeout: float
    step_timeout: float | None
    shm_path: str | None
    policy: RestartPolicy
    # transport
    ctx: zmq.Context[Any]
    sock: zmq.Socket[Any]
    auth: security.CurveAuthenticator | None
    curve: security.BrokerCurveConfig | None
    endpoints: list[str]
    lock: threading.RLock
    stats: Counter[str]
    _poller: zmq.Poller
    _zmq_fd: int
    _zmq_poll: select.poll
    _seq: int
    _outstanding: int
    _check_period: float
    _next_check: float
    _pong: bytes
    # registry
    by_id: dict[bytes, WorkerRecord]
    workers: list[WorkerRecord]  # sorted by lo
    slots: list[WorkerRecord | None]  # global env index -> worker
    _local: dict[str, LocalSlot]
    _n_local_envs: int
    _next_remote: int
    _spares: dict[bytes, list[Any]]  # identity -> [its HELLO (wire.Hello), last heard of]
    _retired: dict[bytes, None]
    observation_space: spaces.Space[Any] | None
    action_space: spaces.Space[Any] | None
    render_mode: str | None
    layout: ObsLayout | None
    shm: mmap.mmap | None
    # supervision
    vacancies: list[Vacancy]
    failures: list[WorkerRecord]
    failure: PoolError | None
    running: bool
    _starting: bool
    launcher: Launcher | None
    _next_launcher_poll: float
    _closed: bool

    # --- calls between the parts
    def _dispatch(self, frames: list[bytes]) -> None:
        """Transport: route one ZeroMQ message."""
        raise NotImplementedError

    def _drain(self) -> None:
        """Transport: route every message waiting on the socket."""
        raise NotImplementedError

    def decode(self, ident: bytes, frame: bytes) -> wire.Message | None:
        """Transport: the typed message in ``frame``, or None (counted as malformed)."""
        raise NotImplementedError

    def _malformed(self, ident: bytes, why: str) -> None:
        """Transport: count and log a dropped message."""
        raise NotImplementedError

    def _refuse(self, ident: bytes, reason: str) -> None:
        """Transport: send REFUSE."""
        raise NotImplementedError

    def _tell_retired(self, ident: bytes) -> None:
        """Transport: tell a removed worker to exit."""
        raise NotImplementedError

    def _from_stranger(self, ident: bytes, frames: list[bytes]) -> None:
        """Registry: a message from a peer that is not in the pool."""
        raise NotImplementedError

    def _heartbeat_from_unknown(self, ident: bytes, frames: list[bytes]) -> bool:
        """Registry: a heartbeat-socket ping from a peer that is not in the pool; whether to pong."""
        raise NotImplementedError

    def _env_error(self, w: WorkerRecord, msg: wire.Error) -> EnvError:
        """Registry: the EnvError an ERROR of ``w`` carries."""
        raise NotImplementedError

    def _use_spares(self, now: float) -> None:
        """Registry: hand remote vacancies to live spares of the right size."""
        raise NotImplementedError

    def launch_local(self, name: str) -> Any:
        """Registry: start the process of local slot ``name``."""
        raise NotImplementedError

    def _fail(self, w: WorkerRecord, err: PoolError) -> None:
        """Supervision: worker ``w`` died or hung."""
        raise NotImplementedError

    def _death(self, w: WorkerRecord, why: str) -> WorkerDied:
        """Supervision: the error for a worker whose connection vanished."""
        raise NotImplementedError

    def _check_health(self, now: float, raise_: bool) -> None:
        """Supervision: notice dead, hung or timed-out workers."""
        raise NotImplementedError

    def _record_failure(self, err: PoolError) -> None:
        """Supervision: remember the pool's first fatal failure."""
        raise NotImplementedError
