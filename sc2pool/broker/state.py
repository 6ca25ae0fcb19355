"""The state the registry and the supervisor share, declared once so each can be read (and
type-checked) on its own.

:class:`~sc2pool.broker.Broker` joins :class:`~sc2pool.broker.registry.Registry` and
:class:`~sc2pool.broker.supervision.Supervision` over one worker table under one lock; both reach
the socket only through their :class:`~sc2pool.broker.transport.Transport` object (``transport``),
which reports back through :class:`~sc2pool.broker.transport.TransportEvents`. The methods declared
here are the calls the registry and the supervisor make into each other; each is defined by the
part named in its docstring.
"""

from __future__ import annotations

import mmap
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from gymnasium import spaces

from sc2pool import security, wire
from sc2pool.broker.records import LocalSlot, Vacancy, WorkerRecord
from sc2pool.broker.restart_policy import RestartPolicy
from sc2pool.errors import EnvError, PoolError, WorkerDied
from sc2pool.spaces import ObsLayout

if TYPE_CHECKING:
    from sc2pool.broker.transport import Transport
    from sc2pool.launchers.base import Launcher


class BrokerState:
    """Attributes shared by the broker's parts (set in :meth:`Broker.__init__`)."""

    n_envs: int
    heartbeat_interval: float
    heartbeat_timeout: float
    step_timeout: float | None
    shm_path: str | None
    policy: RestartPolicy
    stats: Counter[str]
    transport: Transport
    auth: security.CurveAuthenticator | None
    curve: security.BrokerCurveConfig | None
    lock: threading.RLock
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
