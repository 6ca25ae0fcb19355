"""The failure policy: what happens after a worker fails, decided without touching a process.

:class:`RestartPolicy` holds ``on_failure``, ``max_restarts``, ``replace_timeout`` and
``start_timeout`` and the restart counts, and answers the questions supervision
(:mod:`sc2pool.broker.supervision`) asks: raise or replace? which vacancy does this failure leave?
has a slot failed too often? which vacancy waited too long, and what then? The clock is a
parameter, so the timeouts are tested with a fake one. Supervision carries the answers out
(kill, spawn, WELCOME a spare).
"""

from __future__ import annotations

import enum
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sc2pool.broker.records import Vacancy, WorkerRecord
from sc2pool.errors import PoolError, ReplacementTimeout, RestartLimitError


class AfterFailure(enum.Enum):
    """What to do with a worker that died or hung."""

    RAISE = "raise"  # the pool fails with the worker's error
    REPLACE = "replace"  # remove it, vacate its slots for a replacement, count the restart
    RESPAWN_AT_START = "respawn at start"  # the pool is being built: start the local worker again


@dataclass(frozen=True)
class RespawnStuck:
    """A respawned local worker did not join within ``replace_timeout``: kill it, start another."""

    vacancy: Vacancy


@dataclass(frozen=True)
class GiveUp:
    """No replacement in time: the pool fails with ``error``."""

    error: ReplacementTimeout


Overdue = RespawnStuck | GiveUp


class RestartPolicy:
    """``on_failure`` with its bounds, and the count of restarts per worker slot.

    Args:
        on_failure: ``"raise"`` (any worker failure fails the pool) or ``"restart"``.
        max_restarts: failures survived per slot before :class:`RestartLimitError` (``None``: no limit).
        replace_timeout: seconds a vacancy may wait for a replacement to join.
        start_timeout: seconds a joined replacement may take to become ready.
        clock: monotonic seconds (a fake one in tests).
    """

    def __init__(
        self,
        on_failure: str = "raise",
        max_restarts: int | None = 10,
        replace_timeout: float = 60.0,
        start_timeout: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if on_failure not in ("raise", "restart"):
            raise ValueError(f'on_failure must be "raise" or "restart", got {on_failure!r}')
        self.on_failure = on_failure
        self.max_restarts = max_restarts
        self.replace_timeout = replace_timeout
        self.start_timeout = start_timeout
        self.clock = clock
        self.counts: Counter[str] = Counter()

    @property
    def restart(self) -> bool:
        return self.on_failure == "restart"

    def after_failure(
        self, w: WorkerRecord | None, *, running: bool, starting: bool, closed: bool, failed: bool,
        local_names: Iterable[str] = (),
    ) -> AfterFailure:
        """What to do after worker ``w`` failed (``None``: a local process that died before it
        joined). ``running``: the pool was built; ``starting``: it is being built; ``failed``: the
        pool already has a fatal failure. A worker that reported an error building or starting its
        envs never gets here: that is a bug and fails the pool, so it is not respawned forever."""
        if not self.restart or closed:
            return AfterFailure.RAISE
        if starting and not failed and (w is None or (w.local and w.name in set(local_names))):
            return AfterFailure.RESPAWN_AT_START
        if running and w is not None:
            return AfterFailure.REPLACE
        return AfterFailure.RAISE

    @staticmethod
    def slot_key(w: WorkerRecord) -> str:
        """The name restarts are counted under: a local worker's name (it is respawned under it), or
        a remote worker's env range (any worker of that size may take it over)."""
        return w.name if w.local else f"envs {w.lo}-{w.hi - 1}"

    def vacate(self, w: WorkerRecord, cause: PoolError) -> Vacancy:
        """The vacancy failed worker ``w`` leaves, waiting from now."""
        return Vacancy(
            self.slot_key(w), w.lo, w.hi, w.name if w.local else None, cause, since=self.clock()
        )

    def count(self, key: str, cause: PoolError) -> None:
        """Count one failure of slot ``key``.

        Raises:
            RestartLimitError: the slot failed more than ``max_restarts`` times (``cause`` chained).
        """
        self.counts[key] += 1
        if self.max_restarts is not None and self.counts[key] > self.max_restarts:
            limit = RestartLimitError(
                f"failed {self.counts[key]} times, more than max_restarts={self.max_restarts}; "
                f"last failure: {cause}",
                worker=key,
            )
            limit.__cause__ = cause
            raise limit

    def overdue(self, vacancies: Sequence[Vacancy], now: float) -> list[Overdue]:
        """The vacancies that waited longer than ``replace_timeout``: a respawned local worker that
        never joined is killed and started again (counted, so ``max_restarts`` bounds it); a remote
        vacancy that no worker took fails the pool."""
        out: list[Overdue] = []
        for v in vacancies:
            if now - v.since <= self.replace_timeout:
                continue
            if v.local_name is not None:
                if v.spawned:
                    out.append(RespawnStuck(v))
            else:
                out.append(GiveUp(ReplacementTimeout(
                    f"no replacement worker joined within replace_timeout={self.replace_timeout:g} s "
                    f"after: {v.cause}",
                    worker=v.key, env_indices=range(v.lo, v.hi),
                )))
        return out

    def slow_starter(self, workers: Iterable[WorkerRecord], now: float) -> ReplacementTimeout | None:
        """A joined replacement that is not ready ``start_timeout`` s after it joined, as the error
        that fails the pool."""
        for w in workers:
            if not w.ready and now - w.joined_at > self.start_timeout:
                return ReplacementTimeout(
                    f"the replacement did not finish starting within start_timeout={self.start_timeout:g} s",
                    worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices,
                )
        return None

    @staticmethod
    def spare_for(vacancies: Sequence[Vacancy], n_envs: object) -> Vacancy | None:
        """The first remote vacancy a spare of ``n_envs`` envs can take over."""
        for v in vacancies:
            if v.local_name is None and v.hi - v.lo == n_envs:
                return v
        return None
