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

from sc2pool import wire
from sc2pool.broker.processes import blocked_in, describe_exit, kill_and_reap, kill_group
from sc2pool.broker.records import Vacancy, WorkerRecord
from sc2pool.broker.restart_policy import AfterFailure, GiveUp, RespawnStuck
from sc2pool.broker.state import BrokerState
from sc2pool.errors import PoolError, WorkerDied, WorkerTimeout

log = logging.getLogger("sc2pool.broker")

# Identities of removed workers remembered (to tell them to go should they speak again).
_MAX_RETIRED = 4096


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


class Supervision(BrokerState):
    """Liveness checks and the failure policy's execution. Call with ``lock`` held."""

    def _death(self, w: WorkerRecord, why: str) -> WorkerDied:
        if w.proc is not None:
            try:  # the connection usually drops a moment before the exit status is available
                w.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            if w.proc.returncode is not None:
                why = f"the process {describe_exit(w.proc.returncode)}"
        return WorkerDied(why, worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices)

    def _after(self, w: WorkerRecord | None) -> AfterFailure:
        return self.policy.after_failure(
            w, running=self.running, starting=self._starting, closed=self._closed,
            failed=self.failure is not None, local_names=self._local,
        )

    def _check_health(self, now: float, raise_: bool) -> None:
        """Notice dead, hung or timed-out workers. With ``on_failure="restart"`` (once running)
        each is removed and its slots become vacant; otherwise the failure is raised (``raise_``)
        or recorded for the next call."""
        if self.failure is not None:
            if raise_:
                raise self.failure
            return
        if self.launcher is not None and now >= self._next_launcher_poll:
            self._next_launcher_poll = now + 0.5
            try:
                self.launcher.poll()
            except PoolError as exc:
                self._record_failure(exc)
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
                self._record_failure(err)
                if raise_:
                    raise err
                return
            try:
                self._fail(w, err)  # type: ignore[arg-type]
            except PoolError:
                if raise_:
                    raise
                return

    def _find_failure(self, now: float) -> tuple[WorkerRecord | None, PoolError] | None:
        found = find_failure(self.workers, now, self.heartbeat_timeout, self.step_timeout)
        if found is not None:
            return found
        for slot in self._local.values():
            if slot.proc is not None and slot.proc.poll() is not None and not any(
                w.proc is slot.proc for w in self.workers
            ):
                err = WorkerDied(
                    f"the process {describe_exit(slot.proc.returncode)} before joining the pool",
                    worker=slot.name, pid=slot.proc.pid, env_indices=range(slot.lo, slot.hi),
                )
                if self._after(None) is AfterFailure.RESPAWN_AT_START:
                    self._respawn_at_start(slot.name, err)
                    continue
                vacancy = next((v for v in self.vacancies if v.local_name == slot.name), None)
                if vacancy is None or not self._restarting:
                    return None, err
                # a replacement that died before joining: start another one (counted)
                slot.proc = None
                vacancy.spawned = False
                self._count_restart(vacancy.key, err)
        return None

    @property
    def _restarting(self) -> bool:
        return self.policy.restart and self.running and not self._closed

    def _respawn_at_start(self, name: str, err: PoolError, w: WorkerRecord | None = None) -> None:
        """While the pool is being built: kill local worker ``name`` (joined as ``w``, or not yet),
        free its slots, count the failure (``max_restarts`` bounds the retries) and start it again."""
        slot = self._local[name]
        proc = w.proc if w is not None else slot.proc
        if proc is not None and proc.poll() == 1:
            # Exit status 1: perhaps a worker that reported an error building or starting its envs
            # (a bug: no respawn) and exited; its ERROR may still be on its way through ZeroMQ.
            deadline = time.monotonic() + 0.25
            while self.failure is None and time.monotonic() < deadline:
                self.transport.wait(20)
                self.transport.drain()
            if self.failure is not None:
                raise self.failure
        log.warning("restarting while the pool starts: %s", err)
        if w is not None:
            self._drop(w)
        slot.proc = None  # it died before joining: gone already
        self._count_restart(name, err)
        self.launch_local(name)

    def _count_restart(self, key: str, err: PoolError) -> None:
        self.stats["restarts"] += 1
        try:
            self.policy.count(key, err)
        except PoolError as limit:
            self._record_failure(limit)
            raise

    def _kill(self, w: WorkerRecord) -> None:
        """SIGKILL a local worker's process group (its game processes die with it) and reap it."""
        if w.proc is not None:
            kill_and_reap(w.proc, w.name)

    def _fail(self, w: WorkerRecord, err: PoolError) -> None:
        """Worker ``w`` died or hung. Policy "raise" (or not running yet): raise ``err``.
        Policy "restart": kill it, retire its identity, vacate its slots for a replacement
        (respawned by :meth:`await_replacements`, or a remote worker that joins) and count it."""
        if not self._restarting:
            self._kill(w)
            self._record_failure(err)
            raise err
        if w.failed is not None:
            return
        w.failed = err
        log.warning("restarting: %s", err)
        if not w.local:  # tell a hung remote worker to go, should it ever wake up
            self.transport.post(w.identity, wire.Close().encode())
            if self.launcher is not None:  # and have its launcher stop it and place another
                self.launcher.worker_failed(w.name)
        self._drop(w)
        self.transport.forget(w)
        vacancy = self.policy.vacate(w, err)
        self.failures.append(w)
        self.vacancies.append(vacancy)
        self._count_restart(vacancy.key, err)

    def _drop(self, w: WorkerRecord) -> None:
        """Take failed worker ``w`` out of the pool: kill its process group, retire its identity
        (it is told to go should it speak again), free its env slots and, for a local worker, its
        slot's process and lane (a respawn gets new ones)."""
        self._kill(w)
        self._retired[w.identity] = None
        while len(self._retired) > _MAX_RETIRED:
            del self._retired[next(iter(self._retired))]
        self.by_id.pop(w.identity, None)
        self.workers = [x for x in self.workers if x is not w]
        for g in range(w.lo, w.hi):
            self.slots[g] = None
        slot = self._local.get(w.name) if w.local else None
        if slot is not None:
            slot.proc = None
            if slot.lane is not None:
                slot.lane.close()
                slot.lane = None

    def _respawn_stuck(self, v: Vacancy) -> None:
        """A respawned local worker that did not say HELLO within ``replace_timeout``: kill it and
        start another (counted as a restart, so ``max_restarts`` bounds the retries)."""
        assert v.local_name is not None
        slot = self._local[v.local_name]
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
            f"the respawned process did not join within replace_timeout={self.policy.replace_timeout:g} s{state}",
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
        policy = self.policy
        while True:
            now = time.monotonic()
            for v in self.vacancies:
                if v.local_name is not None and not v.spawned:
                    v.spawned = True
                    v.since = now
                    self.launch_local(v.local_name)
            self.transport.drain()
            now = time.monotonic()
            self._check_health(now, raise_=True)
            if self._spares and self.vacancies:
                self._use_spares(now)
            if not self.vacancies and all(w.ready for w in self.workers):
                return [w for w in self.workers if w.fresh]
            for action in policy.overdue(self.vacancies, now):
                if isinstance(action, RespawnStuck):
                    self._respawn_stuck(action.vacancy)
                elif isinstance(action, GiveUp):
                    self._record_failure(action.error)
                    raise action.error
            slow = policy.slow_starter(self.workers, now)
            if slow is not None:
                self._record_failure(slow)
                raise slow
            self.transport.wait(20 if any(v.local_name for v in self.vacancies) else 100)

    def _record_failure(self, err: PoolError) -> None:
        if self.failure is None:
            self.failure = err
