"""The :class:`Broker`: the trainer's end of the pool, assembled from its parts.

Threading model: the ROUTER socket is owned by whichever thread holds :attr:`Broker.lock`. During
a VecEnv call the *calling* thread holds it and does the send/gather itself, so a step costs no
thread hop and no inproc copy; while waiting it blocks in ``poll`` (GIL released, no busy-wait)
and answers heartbeats and checks liveness between messages. Between calls the service thread
(:mod:`sc2pool.broker.service`) does that.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter

import zmq

from sc2pool.broker.processes import reap_processes
from sc2pool.broker.records import WorkerRecord
from sc2pool.broker.registry import Registry
from sc2pool.broker.restart_policy import RestartPolicy
from sc2pool.broker.service import ServiceThread
from sc2pool.broker.state import PoolState
from sc2pool.broker.supervision import Supervision
from sc2pool.broker.transport import Transport, TransportEvents
from sc2pool.pool import security, wire
from sc2pool.pool.codec import MAX_HEADER_BYTES

log = logging.getLogger("sc2pool.broker")


class Broker(PoolState):
    """The trainer's end of the pool, assembled from its parts. Used by
    :class:`~sc2pool.pool.vec_env.ZmqVecEnv`.

    The broker is the pool's shared state (:class:`PoolState`: the worker table, failures, life
    cycle) and owns the ROUTER socket, CURVE and the service thread. Its parts are objects with one
    job each: :attr:`transport` (:class:`Transport`: messages in and out) reports what it notices
    through :class:`TransportEvents`, wired here to :attr:`registry` (:class:`Registry`: who is in
    the pool) and :attr:`supervision` (:class:`Supervision`: liveness and the failure policy).

    The VecEnv's interface: set-up (:meth:`bind`, :meth:`expect_local`, :meth:`launch_local`,
    :meth:`wait_ready`, :meth:`start_service`), a request round (:meth:`next_seq`, :meth:`send`,
    :meth:`send_lanes`, :meth:`send_many`, :meth:`request`, :meth:`gather`, then
    ``WorkerRecord.take_reply`` and :meth:`reply_error`), the workers of this round (:attr:`workers`, replaced when membership
    changes, never changed in place, so a round keeps iterating the list it was sent to),
    repair (:attr:`failures`/:attr:`vacancies`, :attr:`needs_repair`, :meth:`take_failures`,
    :meth:`await_replacements`), and :meth:`infos`, :meth:`counters`, :attr:`restart_counts`,
    :meth:`close`. Methods other than :meth:`start_service`/:meth:`close` must be called with
    :attr:`lock` held. The round's methods are the parts' own, bound here once: no extra call per
    request.
    """

    def __init__(
        self,
        *,
        n_envs: int,
        heartbeat_interval: float,
        heartbeat_timeout: float,
        step_timeout: float | None,
        shm_path: str | None = None,
        on_failure: str = "raise",
        max_restarts: int | None = 10,
        replace_timeout: float = 60.0,
        start_timeout: float = 300.0,
        curve: security.BrokerCurveConfig | None = None,
    ) -> None:
        if n_envs < 1:
            raise ValueError(f"n_envs must be >= 1, got {n_envs}")
        self.n_envs = n_envs
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_timeout = heartbeat_timeout
        self.step_timeout = step_timeout
        self.shm_path = shm_path
        self.policy = RestartPolicy(on_failure, max_restarts, replace_timeout, start_timeout)
        self.stats = Counter()
        # Re-entrant: a pool garbage-collected inside a locked section closes it from there.
        self.lock = threading.RLock()
        self.by_id = {}
        self.workers = []
        self.slots = [None] * n_envs
        self.observation_space = None
        self.action_space = None
        self.render_mode = None
        self.layout = None
        self.shm = None
        self.vacancies = []
        self.failures = []
        self.failure = None
        self.running = False
        self.starting = False
        self.closed = False
        # A cluster launcher (sc2pool.launchers) that places the remote workers: polled with the
        # liveness checks (it restarts the workers that ended), told of the workers removed.
        self.launcher = None

        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.sock.setsockopt(zmq.LINGER, 0)
        # libzmq drops a peer that sends a bigger frame, before allocating it
        self.sock.setsockopt(zmq.MAXMSGSIZE, MAX_HEADER_BYTES)
        self.curve = curve
        self.auth: security.CurveAuthenticator | None = None
        if curve is not None:
            # CURVE on every endpoint of this ROUTER (ipc included): local workers get ephemeral keys
            self.auth = security.CurveAuthenticator(self.ctx, curve, logger=log).start()
            try:
                security.apply_server(self.sock, curve)
                self.auth.watch(self.sock)
            except BaseException:
                self.sock.close(linger=0)
                self.auth.stop()
                self.ctx.term()
                raise

        self.transport = Transport(
            self.sock, self.by_id, self.stats, heartbeat_interval, heartbeat_timeout,
            TransportEvents(
                failed=lambda w, err: self.supervision.fail(w, err),
                lost=lambda w, why: self.supervision.lost(w, why),
                tick=lambda now: self.supervision.check_health(now, raise_=True),
                member_error=lambda w, msg: self.record_failure(self.registry.reply_error(w, msg)),
                stranger=lambda ident, frames: self.registry.from_stranger(ident, frames),
                unknown_heartbeat=lambda ident, frames: self.registry.heartbeat_from_unknown(ident, frames),
            ),
        )
        self.registry = Registry(
            self, self.transport, lambda now: self.supervision.check_health(now, raise_=True), self.auth, curve
        )
        self.supervision = Supervision(self, self.registry, self.transport)
        self._service = ServiceThread(self.lock, self._serve, heartbeat_interval / 2, lambda: self.closed)

        # The VecEnv's interface, bound once: no extra call per request on the hot path.
        t, r = self.transport, self.registry
        self.endpoints = t.endpoints
        self.bind = t.bind
        self.next_seq = t.next_seq
        self.send = t.send
        self.send_lane = t.send_lane
        self.send_lanes = t.send_lanes
        self.send_many = t.send_many
        self.request = t.request
        self.gather = t.gather
        self.expect_local = r.expect_local
        self.launch_local = r.launch_local
        self.wait_ready = r.wait_ready
        self.local_processes = r.local_processes
        self.infos = r.infos
        self.reply_error = r.reply_error
        self.await_replacements = self.supervision.await_replacements

    # ------------------------------------------------------------------- the VecEnv's interface
    @property
    def needs_repair(self) -> bool:
        """Whether workers were removed (restart policy) and their slots await replacements."""
        return bool(self.vacancies or self.failures)

    @property
    def has_vacancies(self) -> bool:
        """Whether env slots of removed workers still wait for a replacement."""
        return bool(self.vacancies)

    def take_failures(self) -> list[WorkerRecord]:
        """The workers removed since the last call (``w.failed`` says why); their episodes end."""
        out, self.failures = self.failures, []
        return out

    def worker_at(self, env_index: int) -> WorkerRecord:
        """The worker that hosts global env ``env_index`` (every slot is held while running)."""
        w = self.slots[env_index]
        assert w is not None
        return w

    @property
    def restart_counts(self) -> Counter[str]:
        """Failures survived per worker slot (see :meth:`RestartPolicy.slot_key`)."""
        return self.policy.counts

    def counters(self) -> dict[str, int]:
        """Broker counters, with CURVE's handshake counts when CURVE is on."""
        out = dict(self.stats)
        if self.auth is not None:
            auth = self.auth.stats()
            out["curve_refused"] = auth.refused
            out["curve_accepted"] = auth.accepted
            for reason, n in auth.refused_by_reason.items():
                out[f"curve_refused_{reason}"] = n
        return out

    def remote_keys(self, name: str) -> dict[str, bytes] | None:
        """A fresh CURVE key pair for launcher worker ``name``, authorised here (``None``: no CURVE)."""
        if self.auth is None or self.curve is None:
            return None
        kp = security.ephemeral_keypair()
        self.auth.authorize(kp.public, name)
        return {"public": kp.public, "secret": kp.secret, "server": self.curve.keypair.public}

    # ------------------------------------------------------------------------------- service
    def start_service(self) -> None:
        """Start the background thread that keeps heartbeats flowing between calls."""
        self._service.start()

    def _serve(self) -> None:
        self.transport.drain()
        self.supervision.check_health(time.monotonic(), raise_=False)

    # --------------------------------------------------------------------------------- close
    def close(self, grace: float = 2.0) -> None:
        """Tell workers to exit, reap local processes (escalating to SIGKILL of their process
        groups), close the socket. Idempotent."""
        if self.closed:
            return
        self._service.stop()
        with self.lock:
            self.closed = True
            bye = wire.Close().encode()
            spares = list(self.registry.spares)
            for ident in [w.identity for w in self.workers] + spares:
                self.transport.post(ident, bye)
            has_remote = any(not w.local for w in self.workers) or bool(spares)
            procs = self.local_processes()
            reap_processes(procs, grace)
            self.sock.close(linger=500 if has_remote else 0)
            if self.auth is not None:
                try:
                    self.auth.stop()
                except security.AuthenticatorError as exc:
                    log.error("%s", exc)
            for slot in self.registry.local.values():
                if slot.lane is not None:
                    slot.lane.close()
            self.ctx.term()
            if self.shm is not None:
                try:
                    self.shm.close()
                except BufferError:
                    pass  # a view is still alive; the mapping goes when it is collected
                self.shm = None
