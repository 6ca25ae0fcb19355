"""Supervision: liveness, and carrying out the failure policy.

Notices workers that died (their process exited or their connection vanished), went silent (no
heartbeat within ``heartbeat_timeout``) or overran ``step_timeout``; asks
:class:`~sc2pool.broker.restart_policy.RestartPolicy` what to do; and does it: raise, or kill the
worker's process group, retire its identity, vacate its slots and refill them (respawning a local
worker, or waiting for a remote one or a spare). Killing and reaping are in
:mod:`sc2pool.broker.processes`.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import time

from sc2pool.broker.processes import blocked_in, describe_exit, kill_and_reap, kill_group
from sc2pool.broker.records import Vacancy, WorkerRecord
from sc2pool.broker.registry import Registry
from sc2pool.broker.restart_policy import AfterFailure, GiveUp, RespawnStuck
from sc2pool.broker.state import PoolState
from sc2pool.broker.transport import Transport
from sc2pool.errors import PoolError, WorkerDied, WorkerTimeout
from sc2pool.pool import wire

log = logging.getLogger("sc2pool.broker")


def find_failure(
    workers: list[WorkerRecord], now: float, heartbeat_timeout: float, step_timeout: float | None
) -> tuple[WorkerRecord, PoolError] | None:
    """The first worker that exited, went silent for ``heartbeat_timeout`` s or owes a reply for
    longer than ``step_timeout`` s, with the error that says so."""
    for w in workers:
        if w.proc is not None and w.proc.poll() is not None:
            return w, WorkerDied(
                f"the process {describe_exit(w.proc.returncode)}",
                worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices,
            )
        silent = now - w.last_seen
        if silent > heartbeat_timeout:
            return w, WorkerTimeout(
                f"no heartbeat for {silent:.1f} s (heartbeat_timeout={heartbeat_timeout:g} s): "
                "the process is hung or stopped, or its host is unreachable",
                worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices,
            )
        if step_timeout is not None and w.pending_seq >= 0 and w.reply is None and now - w.sent_at > step_timeout:
            return w, WorkerTimeout(
                f"no reply within step_timeout={step_timeout:g} s",
                worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices,
            )
    return None


class Supervision:
    """Liveness checks and the failure policy's execution. Call with the lock held.

    Args:
        pool: the shared pool state (its failures and vacancies are changed only here).
        registry: who is in the pool: it starts local workers, hands vacancies to spares and
            removes the workers this part gives up on.
        transport: how it tells a removed remote worker to go, drains and waits for messages.
    """

    def __init__(self, pool: PoolState, registry: Registry, transport: Transport) -> None:
        self.pool = pool
        self.registry = registry
        self.transport = transport
        self._next_launcher_poll = 0.0

    def lost(self, w: WorkerRecord, why: str) -> None:
        """Worker ``w``'s connection vanished (``why`` says how): it failed."""
        self.fail(w, self._death(w, why))

    def _death(self, w: WorkerRecord, why: str) -> WorkerDied:
        """The error for a worker whose connection vanished: its exit status, if it has one."""
        if w.proc is not None:
            try:  # the connection usually drops a moment before the exit status is available
                w.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            if w.proc.returncode is not None:
                why = f"the process {describe_exit(w.proc.returncode)}"
        return WorkerDied(why, worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices)

    def _after(self, w: WorkerRecord | None) -> AfterFailure:
        return self.pool.policy.after_failure(
            w, running=self.pool.running, starting=self.pool.starting, closed=self.pool.closed,
            failed=self.pool.failure is not None, local_names=self.registry.local,
        )

    def check_health(self, now: float, raise_: bool) -> None:
        """Notice dead, hung or timed-out workers. With ``on_failure="restart"`` (once running)
        each is removed and its slots become vacant; otherwise the failure is raised (``raise_``)
        or recorded for the next call."""
        if self.pool.failure is not None:
            if raise_:
                raise self.pool.failure
            return
        if self.pool.launcher is not None and now >= self._next_launcher_poll:
            self._next_launcher_poll = now + 0.5
            try:
                self.pool.launcher.poll()
            except PoolError as exc:
                self.pool.record_failure(exc)
                if raise_:
                    raise
                return
        while True:
            found = self._find_failure(now)
            if found is None:
                return
            w, err = found
            action = self._after(w) if w is not None else AfterFailure.RAISE
            if action is AfterFailure.RESPAWN_AT_START:
                assert w is not None
                self._respawn_at_start(w.name, err, w)
                continue
            if action is AfterFailure.RAISE:
                if w is not None:
                    self._kill(w)  # declared dead: no grace for a hung process at close
                self.pool.record_failure(err)
                if raise_:
                    raise err
                return
            try:
                self.fail(w, err)  # type: ignore[arg-type]
            except PoolError:
                if raise_:
                    raise
                return

    def _find_failure(self, now: float) -> tuple[WorkerRecord | None, PoolError] | None:
        found = find_failure(self.pool.workers, now, self.pool.heartbeat_timeout, self.pool.step_timeout)
        if found is not None:
            return found
        for slot in self.registry.local.values():
            if slot.proc is not None and slot.proc.poll() is not None and not any(
                w.proc is slot.proc for w in self.pool.workers
            ):
                err = WorkerDied(
                    f"the process {describe_exit(slot.proc.returncode)} before joining the pool",
                    worker=slot.name, pid=slot.proc.pid, env_indices=range(slot.lo, slot.hi),
                )
                if self._after(None) is AfterFailure.RESPAWN_AT_START:
                    self._respawn_at_start(slot.name, err)
                    continue
                vacancy = next((v for v in self.pool.vacancies if v.local_name == slot.name), None)
                if vacancy is None or not self._restarting:
                    return None, err
                # a replacement that died before joining: start another one (counted)
                slot.proc = None
                vacancy.spawned = False
                self._count_restart(vacancy.key, err)
        return None

    @property
    def _restarting(self) -> bool:
        return self.pool.policy.restart and self.pool.running and not self.pool.closed

    def _respawn_at_start(self, name: str, err: PoolError, w: WorkerRecord | None = None) -> None:
        """While the pool is being built: kill local worker ``name`` (joined as ``w``, or not yet),
        free its slots, count the failure (``max_restarts`` bounds the retries) and start it again."""
        slot = self.registry.local[name]
        proc = w.proc if w is not None else slot.proc
        if proc is not None and proc.poll() == 1:
            # Exit status 1: perhaps a worker that reported an error building or starting its envs
            # (a bug: no respawn) and exited; its ERROR may still be on its way through ZeroMQ.
            deadline = time.monotonic() + 0.25
            while self.pool.failure is None and time.monotonic() < deadline:
                self.transport.wait(20)
                self.transport.drain()
            if self.pool.failure is not None:
                raise self.pool.failure
        log.warning("restarting while the pool starts: %s", err)
        if w is not None:
            self._drop(w)
        slot.proc = None  # it died before joining: gone already
        self._count_restart(name, err)
        self.registry.launch_local(name)

    def _count_restart(self, key: str, err: PoolError) -> None:
        self.pool.stats["restarts"] += 1
        try:
            self.pool.policy.count(key, err)
        except PoolError as limit:
            self.pool.record_failure(limit)
            raise

    def _kill(self, w: WorkerRecord) -> None:
        """SIGKILL a local worker's process group (its game processes die with it) and reap it."""
        if w.proc is not None:
            kill_and_reap(w.proc, w.name)

    def fail(self, w: WorkerRecord, err: PoolError) -> None:
        """Worker ``w`` died or hung. Policy "raise" (or not running yet): raise ``err``.
        Policy "restart": kill it, retire its identity, vacate its slots for a replacement
        (respawned by :meth:`await_replacements`, or a remote worker that joins) and count it."""
        if not self._restarting:
            self._kill(w)
            self.pool.record_failure(err)
            raise err
        if w.failed is not None:
            return
        w.failed = err
        log.warning("restarting: %s", err)
        if not w.local:  # tell a hung remote worker to go, should it ever wake up
            self.transport.post(w.identity, wire.Close().encode())
            if self.pool.launcher is not None:  # and have its launcher stop it and place another
                self.pool.launcher.worker_failed(w.name)
        self._drop(w)
        self.transport.forget(w)
        vacancy = self.pool.policy.vacate(w, err)
        self.pool.failures.append(w)
        self.pool.vacancies.append(vacancy)
        self._count_restart(vacancy.key, err)

    def _drop(self, w: WorkerRecord) -> None:
        """Take failed worker ``w`` out of the pool: kill its process group, then have the
        registry retire it and free its env slots."""
        self._kill(w)
        self.registry.remove(w)

    def _respawn_stuck(self, v: Vacancy) -> None:
        """A respawned local worker that did not say HELLO within ``replace_timeout``: kill it and
        start another (counted as a restart, so ``max_restarts`` bounds the retries)."""
        assert v.local_name is not None
        slot = self.registry.local[v.local_name]
        proc = slot.proc
        state = ""
        if proc is not None:
            state = blocked_in(proc.pid)
            kill_group(proc.pid, signal.SIGKILL)
            try:
                proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                pass
        err = WorkerTimeout(
            f"the respawned process did not join within replace_timeout={self.pool.policy.replace_timeout:g} s{state}",
            worker=v.local_name, pid=proc.pid if proc is not None else None, env_indices=range(v.lo, v.hi),
        )
        log.warning("restarting: %s", err)
        slot.proc = None
        v.spawned = False
        self._count_restart(v.key, err)

    def await_replacements(self) -> list[WorkerRecord]:
        """Block until every vacant slot is held by a READY worker (``on_failure="restart"``).

        Respawns local workers (from the calling thread: a parent-death signal is tied to the
        thread that forks); a remote vacancy waits ``replace_timeout`` s for a worker of the same
        env count and spaces to join. Returns the workers whose envs still need a reset."""
        policy = self.pool.policy
        while True:
            now = time.monotonic()
            for v in self.pool.vacancies:
                if v.local_name is not None and not v.spawned:
                    v.spawned = True
                    v.since = now
                    self.registry.launch_local(v.local_name)
            self.transport.drain()
            now = time.monotonic()
            self.check_health(now, raise_=True)
            if self.registry.spares and self.pool.vacancies:
                self.registry.use_spares(now)
            if not self.pool.vacancies and all(w.ready for w in self.pool.workers):
                return [w for w in self.pool.workers if w.fresh]
            for action in policy.overdue(self.pool.vacancies, now):
                if isinstance(action, RespawnStuck):
                    self._respawn_stuck(action.vacancy)
                elif isinstance(action, GiveUp):
                    self.pool.record_failure(action.error)
                    raise action.error
            slow = policy.slow_starter(self.pool.workers, now)
            if slow is not None:
                self.pool.record_failure(slow)
                raise slow
            self.transport.wait(20 if any(v.local_name for v in self.pool.vacancies) else 100)
