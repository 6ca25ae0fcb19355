"""What the broker's parts share: the pool's worker table, its settings and its state.

:class:`~sc2pool.broker.Broker` is this record, and it is handed to each part: the
:class:`~sc2pool.broker.registry.Registry` (who is in the pool: it alone adds and removes workers),
the :class:`~sc2pool.broker.supervision.Supervision` (liveness and the failure policy) and, for
its table of members only, the :class:`~sc2pool.broker.transport.Transport`. Everything here is
plain data, read and written with the broker's ``lock`` held; the parts call each other only
through the methods each documents.
"""

from __future__ import annotations

import mmap
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from gymnasium import spaces

from sc2pool.broker.records import Vacancy, WorkerRecord
from sc2pool.broker.restart_policy import RestartPolicy
from sc2pool.errors import PoolError
from sc2pool.pool.spaces import ObsLayout

if TYPE_CHECKING:
    from sc2pool.launchers.base import Launcher


class PoolState:
    """The pool as the broker's parts share it (set in :meth:`Broker.__init__`)."""

    n_envs: int
    heartbeat_interval: float
    heartbeat_timeout: float
    step_timeout: float | None
    shm_path: str | None
    policy: RestartPolicy
    stats: Counter[str]
    lock: threading.RLock
    # the worker table (the registry's to change)
    by_id: dict[bytes, WorkerRecord]
    workers: list[WorkerRecord]  # sorted by lo; replaced, never changed in place
    slots: list[WorkerRecord | None]  # global env index -> worker
    observation_space: spaces.Space[Any] | None
    action_space: spaces.Space[Any] | None
    render_mode: str | None
    layout: ObsLayout | None
    shm: mmap.mmap | None
    # failures (the supervisor's to change)
    vacancies: list[Vacancy]
    failures: list[WorkerRecord]  # removed workers not yet seen by the VecEnv
    failure: PoolError | None  # the pool's first fatal failure
    # life cycle
    running: bool  # all envs joined and ready
    starting: bool  # inside wait_ready: local workers that die are started again (restart policy)
    closed: bool
    launcher: Launcher | None

    def record_failure(self, err: PoolError) -> None:
        """Remember the pool's first fatal failure (the next call raises it)."""
        if self.failure is None:
            self.failure = err
