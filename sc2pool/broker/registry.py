"""Registry and admission: who is in the pool, and which env slots each worker holds.

Reserves slots for local workers and starts their processes (with a fresh lane, token and CURVE
key each time), answers HELLO by way of :func:`sc2pool.broker.admission.admit` (WELCOME, REFUSE or
a place among the spares), keeps the env-slot table (global env index -> worker; each worker owns
a contiguous range ``[lo, hi)``, which is what lets a replacement take over a failed worker's
slots) and waits until every slot is held by a READY worker.
"""

from __future__ import annotations

import logging
import mmap
import os
import socket
import subprocess
import time
from collections.abc import Callable
from typing import Any

from sc2pool.broker import admission
from sc2pool.broker.admission import Admit, Joined, Opening, PoolView, Refuse, Reservation, Spare
from sc2pool.broker.records import LocalSlot, Spawner, WorkerInfo, WorkerRecord
from sc2pool.broker.state import PoolState
from sc2pool.broker.transport import Transport
from sc2pool.errors import EnvError, JoinTimeoutError, env_error_class
from sc2pool.pool import protocol as P
from sc2pool.pool import security, wire

log = logging.getLogger("sc2pool.broker")


# Identities of removed workers remembered (to tell them to go should they speak again).
_MAX_RETIRED = 4096


class Registry:
    """The worker table and HELLO handling (see the module docstring). Call with the lock held.

    Args:
        pool: the shared pool state (its table is changed only here).
        transport: how it answers peers (REFUSE, WELCOME) and waits for messages.
        check_health: the supervisor's liveness check, run while waiting for workers to join.
        auth, curve: CURVE's authenticator and keys (None: no CURVE), to authorise each local
            worker's fresh key.
    """

    def __init__(
        self,
        pool: PoolState,
        transport: Transport,
        check_health: Callable[[float], None],
        auth: security.CurveAuthenticator | None = None,
        curve: security.BrokerCurveConfig | None = None,
    ) -> None:
        self.pool = pool
        self.transport = transport
        self.check_health = check_health
        self.auth = auth
        self.curve = curve
        self.local: dict[str, LocalSlot] = {}  # local worker name -> its reserved slots
        self._n_local_envs = 0
        self._next_remote = 0
        # restart policy: remote workers that said HELLO while no slot was free, waiting to take
        # over a vacancy of their size: identity -> [their wire.Hello, last heard of]
        self.spares: dict[bytes, list[Any]] = {}
        self.retired: dict[bytes, None] = {}  # identities of removed workers (ordered set)

    # ------------------------------------------------------------------------- local workers
    def expect_local(self, name: str, n_envs: int, spawn: Spawner) -> None:
        """Reserve the next ``n_envs`` slots for the local worker ``name``, started (and, with
        ``on_failure="restart"``, restarted) by ``spawn(lane_fd, secrets)``."""
        lo = self._n_local_envs
        hi = lo + n_envs
        if hi > self.pool.n_envs:
            raise ValueError(f"local workers would host {hi} envs, more than n_envs={self.pool.n_envs}")
        self.local[name] = LocalSlot(name, lo, hi, spawn=spawn)
        self._n_local_envs = hi
        self._next_remote = hi

    def launch_local(self, name: str) -> subprocess.Popen[bytes]:
        """Start the process of local slot ``name``: a fresh fast lane (with shared memory) and a
        fresh token, which only this process learns (on its stdin) and must echo in its HELLO."""
        slot = self.local[name]
        assert slot.spawn is not None
        child = None
        if slot.lane is not None:
            slot.lane.close()
            slot.lane = None
        if self.pool.shm_path is not None:
            mine, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            # A worker that stops reading must not hang the trainer: bound every lane write.
            slot.lane = P.Lane(mine, write_timeout=self.pool.heartbeat_timeout)
        slot.token = security.new_token()
        secrets: dict[str, Any] = {"token": slot.token}
        if self.auth is not None and self.curve is not None:
            if slot.curve_public is not None:
                self.auth.revoke(slot.curve_public)
            kp = security.ephemeral_keypair()
            self.auth.authorize(kp.public, name)
            slot.curve_public = kp.public
            secrets["curve"] = {"public": kp.public, "secret": kp.secret, "server": self.curve.keypair.public}
        try:
            slot.proc = slot.spawn(child.fileno() if child is not None else None, secrets)
        finally:
            if child is not None:
                child.close()
        log.info("started local worker %s (pid %d)", name, slot.proc.pid)
        return slot.proc

    def local_processes(self) -> list[subprocess.Popen[bytes]]:
        """The local worker processes started and not yet removed."""
        return [s.proc for s in self.local.values() if s.proc is not None]

    def infos(self) -> list[WorkerInfo]:
        """A public description of every worker in the pool."""
        return [
            WorkerInfo(w.name, w.hostname, w.pid, tuple(w.env_indices), w.local, w.ready, w.transport, w.lane_spec)
            for w in self.pool.workers
        ]

    def remove(self, w: WorkerRecord) -> None:
        """Take worker ``w`` out of the table: retire its identity (it is told to go should it
        speak again), free its env slots and, for a local worker, its slot's process and lane (a
        respawn gets new ones). Its process is the supervisor's to kill first."""
        self.retired[w.identity] = None
        while len(self.retired) > _MAX_RETIRED:
            del self.retired[next(iter(self.retired))]
        pool = self.pool
        pool.by_id.pop(w.identity, None)
        pool.workers = [x for x in pool.workers if x is not w]
        for g in range(w.lo, w.hi):
            pool.slots[g] = None
        slot = self.local.get(w.name) if w.local else None
        if slot is not None:
            slot.proc = None
            if slot.lane is not None:
                slot.lane.close()
                slot.lane = None

    # ------------------------------------------------------------------------------ strangers
    def heartbeat_from_unknown(self, ident: bytes, frames: list[bytes]) -> bool:
        main_id = ident[: -len(wire.HEARTBEAT_SUFFIX)]
        if main_id in self.spares:
            self.spares[main_id][1] = time.monotonic()
        elif main_id in self.retired:
            self.transport.tell_retired(main_id)  # no pong: it must notice it is out of the pool
            return False
        elif wire.peek_version(frames[1]) != wire.PROTOCOL_VERSION:
            self.pool.stats["malformed"] += 1
            return False  # its HELLO will be refused with the reason
        return True

    def from_stranger(self, ident: bytes, frames: list[bytes]) -> None:
        if ident in self.retired:
            self.transport.tell_retired(ident)
            return
        if wire.is_hello(frames[1]):  # of any version: one of another is refused naming both
            self._hello(ident, admission.admit_frame(frames[1], self._pool_view()))
            return
        version = wire.peek_version(frames[1])
        if version != wire.PROTOCOL_VERSION:
            self.transport.malformed(ident, f"undecodable header or wrong protocol version ({version!r})")
            return
        msg = self.transport.decode(ident, frames[1])
        if msg is None:
            return
        if isinstance(msg, wire.Error):
            name = msg.name
            slot = self.local.get(name)
            env_index = slot.lo + msg.index if slot is not None and msg.index is not None else None
            err = self._env_error_from(msg, name, env_index)
            replacing = any(v.local_name == name for v in self.pool.vacancies)
            if slot is not None and (not self.pool.running or replacing) and security.tokens_equal(slot.token, msg.token):
                # a local worker (or its replacement) cannot build/start its envs: a bug, not a crash
                self.pool.record_failure(err)
            elif slot is None and self.pool.launcher is not None and self.pool.launcher.owns(name):
                # so can a worker our launcher started (with CURVE only such workers get this far):
                # no endless relaunching of a worker that can never start
                self.pool.record_failure(err)
            else:
                log.error("worker %s (not part of the pool) failed: %s", name, err)
                self.pool.stats["stranger_errors"] += 1
        else:
            self.transport.malformed(ident, f"{msg.KIND.name} from a worker that never said HELLO")

    # ---------------------------------------------------------------------------------- HELLO
    def _pool_view(self) -> PoolView:
        return PoolView(
            n_envs=self.pool.n_envs,
            next_remote=self._next_remote,
            running=self.pool.running,
            closed=self.pool.closed,
            restart=self.pool.policy.restart,
            workers=[Joined(w.name, w.hostname, w.pid, w.n_envs, w.local) for w in self.pool.workers],
            local={
                s.name: Reservation(s.name, s.lo, s.hi, s.token, s.proc is not None, s.lane is not None)
                for s in self.local.values()
            },
            vacancies=[Opening(v.lo, v.hi, v.local_name) for v in self.pool.vacancies],
            n_spares=len(self.spares),
            observation_space=self.pool.observation_space,
            action_space=self.pool.action_space,
            render_mode=self.pool.render_mode,
        )

    def _hello(self, ident: bytes, decision: admission.Decision) -> None:
        """Carry out admission's decision on a HELLO."""
        if isinstance(decision, Refuse):
            if decision.fatal is not None:
                self.pool.failure = decision.fatal
            self.transport.refuse(ident, decision.reason)
            return
        if isinstance(decision, Spare):
            hello = decision.hello
            if ident not in self.spares:
                log.info(
                    "worker %s (%s pid %d) waits as a spare for a vacancy of %d envs",
                    hello.name, hello.hostname, hello.pid, hello.num_envs,
                )
            self.spares[ident] = [hello, time.monotonic()]
            return
        self._join(ident, decision)

    def _join(self, ident: bytes, a: Admit) -> None:
        """Enter admitted worker ``a`` in the table and WELCOME it."""
        hello = a.hello
        slot = self.local.get(hello.name) if a.local else None
        if not a.local and a.vacancy is None:
            self._next_remote = a.hi
        if a.layout is not None:  # the pool's first worker: its spaces become the pool's
            self.pool.layout = a.layout
            self.pool.observation_space, self.pool.action_space = a.observation_space, a.action_space
            self.pool.render_mode = hello.render_mode
            if self.pool.shm_path is not None:
                self._create_shm()
        w = WorkerRecord(
            ident, hello.name, hello.hostname, hello.pid, a.lo, a.hi, local=a.local, proc=slot.proc if slot else None
        )
        if a.vacancy is not None:
            vacancy = self.pool.vacancies[a.vacancy]
            self.pool.vacancies = [v for v in self.pool.vacancies if v is not vacancy]
            w.fresh = True
        w.compact = a.compact
        if slot is not None and slot.lane is not None:
            w.lane = slot.lane
            w.poll_obj = self.transport.lane_poller(slot.lane)
        self.pool.by_id[ident] = w
        # A new list (not in-place): a step in flight keeps iterating the list it was sent to.
        self.pool.workers = sorted([*self.pool.workers, w], key=lambda r: r.lo)
        for g in range(a.lo, a.hi):
            self.pool.slots[g] = w
        with_shm = w.local and self.pool.shm is not None
        welcome = wire.Welcome(
            a.lo, a.hi,
            shm_path=self.pool.shm_path if with_shm else None,
            shm_envs=self.pool.n_envs if with_shm else None,
            heartbeat_interval=self.pool.heartbeat_interval,
            heartbeat_timeout=self.pool.heartbeat_timeout,
        ).encode()
        # gone meanwhile: heartbeat silence will vacate the slots again
        self.transport.deliver(ident, welcome)
        log.info("worker %s (%s pid %d) joined with envs %d..%d", hello.name, hello.hostname, hello.pid, a.lo, a.hi - 1)

    def use_spares(self, now: float) -> None:
        """Hand remote vacancies to live spares of the right size (they get their WELCOME now)."""
        for ident, (hello, seen) in list(self.spares.items()):
            if now - seen > self.pool.heartbeat_timeout:
                del self.spares[ident]  # gone quiet: forget it
                continue
            if self.pool.policy.spare_for(self.pool.vacancies, hello.num_envs) is not None:
                del self.spares[ident]
                self._hello(ident, admission.admit(hello, self._pool_view()))

    def _create_shm(self) -> None:
        assert self.pool.layout is not None and self.pool.shm_path is not None
        fd = os.open(self.pool.shm_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, self.pool.layout.nbytes)
            self.pool.shm = mmap.mmap(fd, self.pool.layout.nbytes)
        finally:
            os.close(fd)

    # ---------------------------------------------------------------------------- env errors

    @staticmethod
    def _env_error_from(msg: wire.Error, worker: str, env_index: int | None) -> EnvError:
        return env_error_class(msg.error_type)(
            env_index=env_index,
            worker=worker,
            remote_type=msg.error_type,
            remote_message=msg.message,
            remote_traceback=msg.traceback,
            during=msg.stage,
        )

    def reply_error(self, w: WorkerRecord, msg: wire.Error) -> EnvError:
        """The EnvError carried by an ERROR of ``w`` (a reply, or a report outside a request)."""
        return self._env_error_from(msg, w.name, w.lo + msg.index if msg.index is not None else None)

    # ------------------------------------------------------------------------------- joining
    def wait_ready(self, join_timeout: float, start_timeout: float, how_to_join: str = "") -> None:
        """Block until every env slot is held by a READY worker.

        ``join_timeout`` bounds the time until all slots are claimed (HELLO), ``start_timeout`` the
        time from then until every host finished ``start()`` (heartbeats keep slow starters alive).
        """
        self.pool.starting = True
        try:
            self._wait_ready(join_timeout, start_timeout, how_to_join)
        finally:
            self.pool.starting = False

    def _wait_ready(self, join_timeout: float, start_timeout: float, how_to_join: str) -> None:
        join_deadline = time.monotonic() + join_timeout
        ready_deadline: float | None = None
        while True:
            self.transport.drain()
            now = time.monotonic()
            self.check_health(now)
            if self.pool.failure is not None:
                raise self.pool.failure
            joined = all(s is not None for s in self.pool.slots)
            if joined and all(w.ready for w in self.pool.workers):
                self.pool.running = True
                return
            if not joined and now > join_deadline:
                raise JoinTimeoutError(self._join_report(join_timeout, how_to_join))
            if joined and ready_deadline is None:
                ready_deadline = now + start_timeout
            if ready_deadline is not None and now > ready_deadline:
                waiting = [f"{w.name} (pid {w.pid} on {w.hostname})" for w in self.pool.workers if not w.ready]
                raise JoinTimeoutError(
                    f"all {self.pool.n_envs} envs joined but these workers did not finish starting within "
                    f"start_timeout={start_timeout:g} s: {', '.join(waiting)}"
                )
            self.transport.wait(100)

    def _join_report(self, join_timeout: float, how_to_join: str) -> str:
        n_joined = sum(1 for s in self.pool.slots if s is not None)
        lines = [f"timed out after {join_timeout:g} s waiting for workers: {n_joined}/{self.pool.n_envs} envs joined"]
        for w in self.pool.workers:
            lines.append(f"  joined: {w.name} ({w.hostname} pid {w.pid}) envs {w.lo}..{w.hi - 1}")
        joined_names = {w.name for w in self.pool.workers}
        for slot in self.local.values():
            if slot.name not in joined_names:
                pid = slot.proc.pid if slot.proc is not None else "?"
                lines.append(f"  missing: local worker {slot.name} (pid {pid}) envs {slot.lo}..{slot.hi - 1}")
        free = self.pool.n_envs - self._next_remote
        if free > 0:
            lines.append(f"  missing: {free} env slot(s) for remote workers {how_to_join}".rstrip())
        if self.pool.launcher is not None:
            lines.extend(self.pool.launcher.describe())
        return "\n".join(lines)
