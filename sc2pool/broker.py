"""The broker: the trainer-side ROUTER socket, the worker registry, heartbeats and lockstep gather.

Threading model (a deliberate change from "broker thread + inproc pair", for speed): the ROUTER
socket is owned by whichever thread holds :attr:`Broker.lock`. During a VecEnv call the *calling*
thread holds it and does the send/gather itself, so a step costs no thread hop and no inproc
copy; while waiting it blocks in ``zmq_poll`` (GIL released, no busy-wait) and answers heartbeats
and checks liveness between messages. Between calls (PPO's gradient updates) a small service
thread takes the lock every ``heartbeat_interval / 2`` to answer heartbeat pings, notice late or
dead workers and refuse strangers, so heartbeats flow both ways at all times.

The env-slot table maps every global env index to ``(worker, local index)``; each worker owns a
contiguous range ``[lo, hi)``. Keeping the table explicit is what later lets a restarted worker
take over a dead worker's slots.
"""

from __future__ import annotations

import logging
import mmap
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import zmq
from gymnasium import spaces

from sc2pool import protocol as P
from sc2pool import security
from sc2pool.errors import (
    EnvError,
    JoinTimeoutError,
    PoolError,
    ProtocolError,
    ReplacementTimeout,
    RestartLimitError,
    SpaceError,
    SpaceMismatchError,
    WorkerDied,
    WorkerRefusedError,
    WorkerTimeout,
    env_error_class,
)
from sc2pool.spaces import ObsLayout, check_layout, space_from_msg, spaces_equal

if TYPE_CHECKING:
    from sc2pool.launchers.base import Launcher

log = logging.getLogger("sc2pool.broker")

Reply = tuple[dict[Any, Any], list[bytes]]
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_NOBLOCK = int(zmq.NOBLOCK)


# The header ``gather`` files for a compact lane RESULT; its one frame is the message itself.
COMPACT_REPLY: dict[Any, Any] = {"k": P.COMPACT}


@dataclass(eq=False)
class WorkerRecord:
    """A worker known to the broker. ``[lo, hi)`` are its global env indices."""

    identity: bytes
    name: str
    host: str
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
    # a remote worker that takes compact STEPs over ZeroMQ (HELLO "cz"): sent once the action
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


@dataclass(frozen=True)
class WorkerInfo:
    """Public description of a worker (see ``ZmqVecEnv.workers``)."""

    name: str
    host: str
    pid: int
    env_indices: tuple[int, ...]
    local: bool
    ready: bool


# spawn(lane_fd, secrets) -> the started local worker process; ``secrets`` ({"token": ..., and with
# CURVE "curve": {"public", "secret", "server"}}) go into its stdin recipe, never onto a socket.
Spawner = Callable[[int | None, dict[str, Any]], "subprocess.Popen[bytes]"]


@dataclass(eq=False)
class _LocalSlot:
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


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


class Broker:
    """Owns the ROUTER socket and the worker registry. Used by :class:`~sc2pool.vec_env.ZmqVecEnv`.

    Public methods other than :meth:`start_service`/:meth:`close` must be called with :attr:`lock`
    held.
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
        self.on_failure = on_failure
        self.max_restarts = max_restarts
        self.replace_timeout = replace_timeout
        self.start_timeout = start_timeout
        self.vacancies: list[Vacancy] = []
        self.failures: list[WorkerRecord] = []  # removed workers not yet seen by the VecEnv
        self.restart_counts: Counter[str] = Counter()
        self._retired: dict[bytes, None] = {}  # identities of removed workers (ordered set)
        # restart policy: remote workers that said HELLO while no slot was free, waiting to take
        # over a vacancy of their size: identity -> [HELLO header, last heard of]
        self._spares: dict[bytes, list[Any]] = {}
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.sock.setsockopt(zmq.LINGER, 0)
        # libzmq drops a peer that sends a bigger frame, before allocating it
        self.sock.setsockopt(zmq.MAXMSGSIZE, P.MAX_HEADER_BYTES)
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
        self._poller = zmq.Poller()
        self._poller.register(self.sock, zmq.POLLIN)
        # The hot wait: poll(2) over ZeroMQ's notification FD and (one) local lane.
        self._zmq_fd = int(self.sock.getsockopt(zmq.FD))
        self._zmq_poll = select.poll()
        self._zmq_poll.register(self._zmq_fd, select.POLLIN)
        self.endpoints: list[str] = []
        # Re-entrant: a pool garbage-collected inside a locked section closes it from there.
        self.lock = threading.RLock()
        self.by_id: dict[bytes, WorkerRecord] = {}
        self.workers: list[WorkerRecord] = []  # sorted by lo
        self.slots: list[WorkerRecord | None] = [None] * n_envs  # global env index -> worker
        self._local: dict[str, _LocalSlot] = {}
        self._n_local_envs = 0
        self._next_remote = 0
        self.observation_space: spaces.Space[Any] | None = None
        self.action_space: spaces.Space[Any] | None = None
        self.render_mode: str | None = None
        self.layout: ObsLayout | None = None
        self.shm: mmap.mmap | None = None
        self.running = False  # all envs joined and ready
        self._starting = False  # inside wait_ready: local workers that die are started again (restart policy)
        self.failure: PoolError | None = None  # fatal failure noticed outside a call
        self.stats: Counter[str] = Counter()
        self._seq = 0
        self._outstanding = 0
        self._check_period = min(0.25, heartbeat_interval)
        self._next_check = 0.0
        self._pong = P.header(P.Kind.HEARTBEAT)
        self._service: threading.Thread | None = None
        # A cluster launcher (sc2pool.launchers) that places the remote workers: polled with the
        # liveness checks (it restarts the workers that ended), told of the workers removed.
        self.launcher: Launcher | None = None
        self._next_launcher_poll = 0.0
        self._stop = threading.Event()
        self._closed = False

    # --------------------------------------------------------------------------------- set-up
    def bind(self, endpoint: str) -> str:
        """Bind the ROUTER to ``endpoint`` (``tcp://host:0`` picks a free port); returns the
        actual endpoint."""
        self.sock.bind(endpoint)
        actual = self.sock.getsockopt(zmq.LAST_ENDPOINT)
        actual_str = actual.decode() if isinstance(actual, bytes) else str(actual)
        self.endpoints.append(actual_str)
        return actual_str

    def expect_local(self, name: str, n_envs: int, spawn: Spawner) -> None:
        """Reserve the next ``n_envs`` slots for the local worker ``name``, started (and, with
        ``on_failure="restart"``, restarted) by ``spawn(lane_fd, token)``."""
        lo = self._n_local_envs
        hi = lo + n_envs
        if hi > self.n_envs:
            raise ValueError(f"local workers would host {hi} envs, more than n_envs={self.n_envs}")
        self._local[name] = _LocalSlot(name, lo, hi, spawn=spawn)
        self._n_local_envs = hi
        self._next_remote = hi

    def launch_local(self, name: str) -> subprocess.Popen[bytes]:
        """Start the process of local slot ``name``: a fresh fast lane (with shared memory) and a
        fresh token, which only this process learns (on its stdin) and must echo in its HELLO."""
        slot = self._local[name]
        assert slot.spawn is not None
        child = None
        if slot.lane is not None:
            slot.lane.close()
            slot.lane = None
        if self.shm_path is not None:
            mine, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            # A worker that stops reading must not hang the trainer: bound every lane write.
            slot.lane = P.Lane(mine, write_timeout=self.heartbeat_timeout)
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
        return [s.proc for s in self._local.values() if s.proc is not None]

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    # ------------------------------------------------------------------------------- messaging
    def send(self, w: WorkerRecord, parts: Sequence[Any], seq: int | None = None) -> None:
        """Send one message to ``w``; with ``seq``, it becomes the reply ``w`` owes us."""
        if seq is not None:
            w.pending_seq = seq
            w.reply = None
            w.sent_at = time.monotonic()
        try:
            P.send_parts(self.sock, (w.identity, *parts))
        except zmq.ZMQError as exc:
            if exc.errno == zmq.EHOSTUNREACH:
                self._fail(w, self._death(w, "its connection is gone (process exited or network lost)"))
                return
            raise

    def request(self, w: WorkerRecord, head: bytes, seq: int) -> None:
        """Send a header-only request (RESET...) the way ``w`` takes them: over its local fast lane
        if it has one, otherwise over ZeroMQ. ``w`` then owes the reply ``seq``."""
        if w.lane is not None:
            self.send_lane(w, head, seq)
        else:
            self.send(w, (head,), seq)

    def send_lane(self, w: WorkerRecord, head: bytes, seq: int) -> None:
        """Send a request header over ``w``'s local fast lane; the reply will come back on it."""
        self.send_lanes(((w, head),), seq)

    def send_lanes(self, batch: Sequence[tuple[WorkerRecord, bytes]], seq: int) -> None:
        """Send request headers over several workers' local fast lanes; each reply will come back on
        its lane. Every message is framed and every record updated first, so the sends follow each
        other closely and the workers start their steps as close together as the kernel allows (a
        wake-up, not Python, is then what each send costs: ~10-20 us on the dev VM)."""
        now = time.monotonic()
        framed = []
        for w, head in batch:
            assert w.lane is not None
            w.pending_seq = seq
            w.reply = None
            w.sent_at = now
            framed.append((w, w.lane, P.Lane.frame(head)))
        for w, lane, data in framed:
            try:
                lane.write_framed(data)
            except TimeoutError:
                self._fail(w, WorkerTimeout(
                    f"does not read its requests (nothing read for {self.heartbeat_timeout:g} s)",
                    worker=w.name, pid=w.pid, host=w.host, env_indices=w.env_indices,
                ))
            except OSError:
                self._fail(w, self._death(w, "its local lane is closed (process exited)"))

    def _read_lane(self, w: WorkerRecord) -> None:
        assert w.lane is not None
        try:
            messages = w.lane.read_ready()
        except (EOFError, OSError):
            self._fail(w, self._death(w, "its local lane closed (process exited)"))
            return
        ident = w.identity
        for data in messages:
            if data.startswith(P.COMPACT_RESULT):
                self._compact_reply(w, data)
            else:
                self._dispatch([ident, data])

    def _compact_reply(self, w: WorkerRecord, data: bytes, frames: Sequence[bytes] = ()) -> None:
        """A compact RESULT (see :mod:`sc2pool.protocol`) from a lane, or from ZeroMQ with the
        observation ``frames`` after it; decoded by the caller of gather."""
        try:
            seq = P.compact_seq(data)
        except ProtocolError as exc:
            self._malformed(w.identity, str(exc))
            return
        w.last_seen = time.monotonic()
        if seq == w.pending_seq and w.reply is None:
            w.reply = (COMPACT_REPLY, [data, *frames])
            self._outstanding -= 1
        else:
            self.stats["stale"] += 1

    def gather(self, workers: Iterable[WorkerRecord]) -> None:
        """Wait until every worker in ``workers`` has replied to its pending request.

        Replies land in ``w.reply``. Raises :class:`WorkerDied`/:class:`WorkerTimeout` (never hangs:
        liveness is checked every quarter second at most while waiting). With
        ``on_failure="restart"`` a worker that fails meanwhile is removed (``w.failed`` set, its
        slots vacant) instead, and the others are still gathered.
        """
        pending = [w for w in workers if w.reply is None and w.pending_seq >= 0 and w.failed is None]
        self._outstanding = len(pending)
        zmq_fd = self._zmq_fd
        zmq_only = self._zmq_poll
        lanes = [w for w in pending if w.lane is not None]
        k = 0  # lanes[k] is the next lane reply to wait for
        # ZeroMQ's FD only signals changes: check the socket's event state once before waiting
        # and again whenever poll says its FD moved.
        zmq_dirty = True
        while True:
            if zmq_dirty:
                self._drain()  # checks the socket's event state itself
                zmq_dirty = False
            if self._outstanding <= 0:
                return
            # Wait for lane replies in order, as SubprocVecEnv does: one wake-up of this thread
            # per slow worker instead of one per reply (each wake-up steals a core from workers).
            while k < len(lanes) and (lanes[k].reply is not None or lanes[k].failed is not None):
                k += 1
            if k < len(lanes):
                target = lanes[k]
                self._read_lane(target)  # often already there
                if target.reply is not None or target.failed is not None:
                    continue
                poller = target.poll_obj
            else:
                poller = zmq_only
            now = time.monotonic()
            if now >= self._next_check:
                self._next_check = now + self._check_period
                self._check_health(now, raise_=True)
            timeout_ms = int((self._next_check - now) * 1000) + 1
            assert poller is not None
            for fd, _ in poller.poll(timeout_ms):
                if fd == zmq_fd:
                    zmq_dirty = True

    def _drain(self) -> None:
        sock = self.sock
        while P.readable(sock):
            try:
                frames = P.recv_parts(sock, _NOBLOCK)
            except zmq.Again:
                return
            self._dispatch(frames)

    def _dispatch(self, frames: list[bytes]) -> None:
        ident = frames[0]
        if len(frames) < 2:
            self._malformed(ident, "message without header frame")
            return
        w = self.by_id.get(ident)
        if w is not None:
            if w.compact and frames[1][:2] == P.COMPACT_RESULT:
                self._compact_reply(w, frames[1], frames[2:])
                return
            try:
                hdr = P.decode_header(frames[1])
            except ProtocolError as exc:
                self._malformed(ident, str(exc))
                return
            w.last_seen = time.monotonic()
            kind = hdr["k"]
            if kind == P.Kind.RESULT or kind == P.Kind.CALL_RESULT or kind == P.Kind.ERROR:
                seq = hdr.get("s")
                if seq == w.pending_seq and w.reply is None and seq is not None:
                    w.reply = (hdr, frames[2:])
                    self._outstanding -= 1
                elif kind == P.Kind.ERROR and seq is None:
                    self._record_failure(self._env_error(w, hdr))
                else:
                    self.stats["stale"] += 1
            elif kind == P.Kind.READY:
                w.ready = True
                log.info("worker %s ready (envs %d..%d)", w.name, w.lo, w.hi - 1)
            elif kind == P.Kind.HELLO:
                self._refuse(ident, "duplicate HELLO on an established connection")
            elif kind != P.Kind.HEARTBEAT:
                self.stats["unexpected"] += 1
            return
        if ident.endswith(P.HEARTBEAT_SUFFIX):
            main_id = ident[: -len(P.HEARTBEAT_SUFFIX)]
            base = self.by_id.get(main_id)
            if base is not None:
                base.last_seen = time.monotonic()
            elif main_id in self._spares:
                self._spares[main_id][1] = time.monotonic()
            elif main_id in self._retired:
                self._tell_retired(main_id)  # no pong: it must notice it is out of the pool
                return
            elif P.peek_version(frames[1]) != P.PROTOCOL_VERSION:
                self.stats["malformed"] += 1
                return  # its HELLO will be refused with the reason
            try:
                self.sock.send_multipart([ident, self._pong], zmq.NOBLOCK)
            except zmq.ZMQError:
                pass
            return
        self._from_stranger(ident, frames)

    def _tell_retired(self, ident: bytes) -> None:
        """A removed (replaced) worker spoke again, e.g. it was SIGSTOPped and resumed, or its
        network came back: tell it to exit. Its late replies are never applied."""
        self.stats["stale"] += 1
        try:
            self.sock.send_multipart([ident, P.header(P.Kind.CLOSE)], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass

    def _from_stranger(self, ident: bytes, frames: list[bytes]) -> None:
        if ident in self._retired:
            self._tell_retired(ident)
            return
        version = P.peek_version(frames[1])
        if version != P.PROTOCOL_VERSION:
            try:
                raw = P.unpack(frames[1])
            except ProtocolError:
                raw = None
            if isinstance(raw, dict) and raw.get("k") == int(P.Kind.HELLO):
                self._refuse(
                    ident,
                    f"protocol version mismatch: worker speaks version {version!r}, "
                    f"trainer speaks version {P.PROTOCOL_VERSION}",
                )
            else:
                self._malformed(ident, f"undecodable header or wrong protocol version ({version!r})")
            return
        try:
            hdr = P.decode_header(frames[1])
        except ProtocolError as exc:
            self._malformed(ident, str(exc))
            return
        kind = hdr["k"]
        if kind == P.Kind.HELLO:
            self._hello(ident, hdr)
        elif kind == P.Kind.ERROR:
            name = str(hdr.get("name"))
            slot = self._local.get(name)
            idx = hdr.get("idx")
            env_index = slot.lo + idx if slot is not None and isinstance(idx, int) else None
            err = self._env_error_from(hdr, name, env_index)
            replacing = any(v.local_name == name for v in self.vacancies)
            if slot is not None and (not self.running or replacing) and security.tokens_equal(slot.token, hdr.get("tok")):
                # a local worker (or its replacement) cannot build/start its envs: a bug, not a crash
                self._record_failure(err)
            elif slot is None and self.launcher is not None and self.launcher.owns(name):
                # so can a worker our launcher started (with CURVE only such workers get this far):
                # no endless relaunching of a worker that can never start
                self._record_failure(err)
            else:
                log.error("worker %s (not part of the pool) failed: %s", name, err)
                self.stats["stranger_errors"] += 1
        else:
            self._malformed(ident, f"{P.Kind(kind).name} from a worker that never said HELLO")

    def _malformed(self, ident: bytes, why: str) -> None:
        self.stats["malformed"] += 1
        log.warning("dropped malformed message from peer %s: %s", ident.hex()[:12], why)

    def _refuse(self, ident: bytes, reason: str) -> None:
        self.stats["refused"] += 1
        log.warning("refused worker %s: %s", ident.hex()[:12], reason)
        try:
            self.sock.send_multipart([ident, P.header(P.Kind.REFUSE, reason=reason)], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass

    def _hello(self, ident: bytes, hdr: dict[Any, Any]) -> None:
        try:
            name = P.require(hdr, "name", str)
            host = P.require(hdr, "host", str)
            pid = P.require(hdr, "pid", int)
            n = P.require(hdr, "n", int)
            wants_local = bool(hdr.get("local"))
        except ProtocolError as exc:
            self._refuse(ident, f"malformed HELLO: {exc}")
            return
        if self._closed or (self.running and not self.vacancies and self.on_failure != "restart"):
            self._refuse(ident, "the pool is already running with all its envs; no slot is free")
            return
        for other in self.workers:
            if other.name == name:
                self._refuse(
                    ident,
                    f"duplicate worker id {name!r}: already connected from {other.host} pid {other.pid}",
                )
                return
        slot = self._local.get(name)
        if slot is not None and (
            not wants_local or slot.proc is None or not security.tokens_equal(slot.token, hdr.get("tok"))
        ):
            self._refuse(ident, f"worker id {name!r} is reserved for a local worker of this pool")
            return
        vacancy: Vacancy | None = None
        if self.running:  # only a replacement for failed worker(s) may join now
            for v in self.vacancies:
                if (v.local_name == name) if slot is not None else (v.local_name is None and v.hi - v.lo == n):
                    vacancy = v
                    break
            if vacancy is None and slot is None and self.on_failure == "restart" and self._spare_ok(hdr):
                if ident not in self._spares:
                    log.info("worker %s (%s pid %d) waits as a spare for a vacancy of %d envs", name, host, pid, n)
                self._spares[ident] = [hdr, time.monotonic()]
                return
            if vacancy is None:
                sizes = sorted({v.hi - v.lo for v in self.vacancies if v.local_name is None})
                self._refuse(
                    ident,
                    f"the pool is running; it only takes replacement workers of {sizes} envs"
                    if sizes else "the pool is running with all its envs; no slot is free",
                )
                return
        if n < 1:
            self._refuse(ident, f"a worker must host at least one env, got {n}")
            return
        try:
            obs_space = space_from_msg(hdr.get("obs"))
            act_space = space_from_msg(hdr.get("act"))
        except SpaceError as exc:
            self._refuse(ident, f"bad space description: {exc}")
            return
        try:
            self._check_spaces(hdr, obs_space, act_space)
        except SpaceMismatchError as exc:
            if slot is not None:
                # Our own local worker: its envs can never join, so waiting (or respawning it)
                # would only turn a clear cause into a timeout.
                self.failure = exc
            self._refuse(ident, exc.reason)
            return
        if slot is not None:
            if slot.hi - slot.lo != n:
                self._refuse(ident, f"local worker {name!r} hosts {n} envs, expected {slot.hi - slot.lo}")
                return
            lo, hi = slot.lo, slot.hi
            proc = slot.proc
        elif vacancy is not None:
            lo, hi = vacancy.lo, vacancy.hi
            proc = None
        else:
            free = self.n_envs - self._next_remote
            if free <= 0:
                self._refuse(ident, f"the pool takes no more workers: all {self.n_envs} env slots are taken")
                return
            if n > free:
                self._refuse(ident, f"too many envs: the worker offers {n}, only {free} env slot(s) are free")
                return
            lo, hi = self._next_remote, self._next_remote + n
            self._next_remote = hi
            proc = None
        if self.observation_space is None:
            try:
                self.layout = ObsLayout.of(obs_space, self.n_envs)
            except SpaceError as exc:
                if slot is not None:  # as for a mismatch: our own worker can never join
                    self.failure = WorkerRefusedError(str(exc))
                self._refuse(ident, str(exc))
                return
            self.observation_space, self.action_space = obs_space, act_space
            self.render_mode = hdr.get("render_mode")
            if self.shm_path is not None:
                self._create_shm()
        w = WorkerRecord(ident, name, host, pid, lo, hi, local=slot is not None, proc=proc)
        if vacancy is not None:
            self.vacancies = [v for v in self.vacancies if v is not vacancy]
            w.fresh = True
        w.compact = (slot is None or slot.lane is None) and hdr.get("cz") is True  # every ZeroMQ-only worker
        if slot is not None and slot.lane is not None:
            w.lane = slot.lane
            w.poll_obj = select.poll()
            w.poll_obj.register(slot.lane.fd, select.POLLIN)
            w.poll_obj.register(self._zmq_fd, select.POLLIN)
        self.by_id[ident] = w
        # A new list (not in-place): a step in flight keeps iterating the list it was sent to.
        self.workers = sorted([*self.workers, w], key=lambda r: r.lo)
        for g in range(lo, hi):
            self.slots[g] = w
        shm = {"path": self.shm_path, "n": self.n_envs} if (w.local and self.shm is not None) else None
        welcome = P.header(
            P.Kind.WELCOME,
            slots=[lo, hi],
            shm=shm,
            hb={"interval": self.heartbeat_interval, "timeout": self.heartbeat_timeout},
        )
        try:
            self.sock.send_multipart([ident, welcome])
        except zmq.ZMQError as exc:  # gone meanwhile: heartbeat silence will vacate the slots again
            log.warning("could not welcome worker %s: %s", name, exc)
        log.info("worker %s (%s pid %d) joined with envs %d..%d", name, host, pid, lo, hi - 1)

    def _check_spaces(self, hdr: dict[Any, Any], obs_space: spaces.Space[Any], act_space: spaces.Space[Any]) -> None:
        """Raise :class:`SpaceMismatchError` unless the spaces rebuilt from a HELLO lay out their
        arrays exactly as the worker's own spaces do (the layout it declares beside them), and
        equal the pool's spaces once those are known."""
        lay = hdr.get("lay")
        if not isinstance(lay, dict):
            raise SpaceMismatchError("HELLO declares no array layout (a worker of another sc2pool version?)")
        try:
            check_layout(obs_space, lay.get("obs"), "observation space")
            check_layout(act_space, lay.get("act"), "action space")
        except SpaceMismatchError:
            raise
        except SpaceError as exc:
            raise SpaceMismatchError(f"bad space description: {exc}") from None
        if self.observation_space is not None and self.action_space is not None:
            if not spaces_equal(obs_space, self.observation_space):
                raise SpaceMismatchError(
                    f"observation space {obs_space} differs from the pool's {self.observation_space}"
                )
            if not spaces_equal(act_space, self.action_space):
                raise SpaceMismatchError(f"action space {act_space} differs from the pool's {self.action_space}")

    def _spare_ok(self, hdr: dict[Any, Any]) -> bool:
        """A remote worker may wait as a spare if it could replace one of the pool's workers."""
        if len(self._spares) >= 64 or hdr.get("local") or self.observation_space is None:
            return False
        assert self.action_space is not None
        n = hdr.get("n")
        if not any(not w.local and w.n_envs == n for w in self.workers) and not any(
            v.local_name is None and v.hi - v.lo == n for v in self.vacancies
        ):
            return False
        try:
            self._check_spaces(hdr, space_from_msg(hdr.get("obs")), space_from_msg(hdr.get("act")))
        except (SpaceError, SpaceMismatchError):
            return False
        return True

    def _use_spares(self, now: float) -> None:
        """Hand remote vacancies to live spares of the right size (they get their WELCOME now)."""
        for ident, (hdr, seen) in list(self._spares.items()):
            if now - seen > self.heartbeat_timeout:
                del self._spares[ident]  # gone quiet: forget it
                continue
            if any(v.local_name is None and v.hi - v.lo == hdr.get("n") for v in self.vacancies):
                del self._spares[ident]
                self._hello(ident, hdr)

    def _create_shm(self) -> None:
        assert self.layout is not None and self.shm_path is not None
        fd = os.open(self.shm_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, self.layout.nbytes)
            self.shm = mmap.mmap(fd, self.layout.nbytes)
        finally:
            os.close(fd)

    # ----------------------------------------------------------------------------- liveness
    def _death(self, w: WorkerRecord, why: str) -> WorkerDied:
        if w.proc is not None:
            try:  # the connection usually drops a moment before the exit status is available
                w.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            if w.proc.returncode is not None:
                why = f"the process {describe_exit(w.proc.returncode)}"
        return WorkerDied(why, worker=w.name, pid=w.pid, host=w.host, env_indices=w.env_indices)

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
            if w is not None and self._restarting_at_start(w):
                self._respawn_at_start(w.name, err, w)
                continue
            if w is None or not self._restarting:
                if w is not None:
                    self._kill(w)  # declared dead: no grace for a hung process at close
                self._record_failure(err)
                if raise_:
                    raise err
                return
            try:
                self._fail(w, err)
            except PoolError:
                if raise_:
                    raise
                return

    @property
    def _restarting(self) -> bool:
        return self.on_failure == "restart" and self.running and not self._closed

    def _restarting_at_start(self, w: WorkerRecord | None) -> bool:
        """Whether the failure of local worker ``w`` (``None``: a local process that died before
        it joined) while the pool is being built is repaired by starting it again. A worker that
        reports an error building or starting its envs is not: that is a bug, and it stops the
        pool (no endless respawning); remote workers are not started by the pool."""
        return (
            self.on_failure == "restart"
            and self._starting
            and not self._closed
            and self.failure is None
            and (w is None or (w.local and w.name in self._local))
        )

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
                self._poller.poll(20)
                self._drain()
            if self.failure is not None:
                raise self.failure
        log.warning("restarting while the pool starts: %s", err)
        if w is not None:
            self._drop(w)
        slot.proc = None  # it died before joining: gone already
        self._count_restart(name, err)
        self.launch_local(name)

    def _find_failure(self, now: float) -> tuple[WorkerRecord | None, PoolError] | None:
        for w in self.workers:
            if w.proc is not None and w.proc.poll() is not None:
                return w, WorkerDied(
                    f"the process {describe_exit(w.proc.returncode)}",
                    worker=w.name, pid=w.pid, host=w.host, env_indices=w.env_indices,
                )
            silent = now - w.last_seen
            if silent > self.heartbeat_timeout:
                return w, WorkerTimeout(
                    f"no heartbeat for {silent:.1f} s (heartbeat_timeout={self.heartbeat_timeout:g} s): "
                    "the process is hung or stopped, or its host is unreachable",
                    worker=w.name, pid=w.pid, host=w.host, env_indices=w.env_indices,
                )
            if (
                self.step_timeout is not None
                and w.pending_seq >= 0
                and w.reply is None
                and now - w.sent_at > self.step_timeout
            ):
                return w, WorkerTimeout(
                    f"no reply within step_timeout={self.step_timeout:g} s",
                    worker=w.name, pid=w.pid, host=w.host, env_indices=w.env_indices,
                )
        for slot in self._local.values():
            if slot.proc is not None and slot.proc.poll() is not None and not any(
                w.proc is slot.proc for w in self.workers
            ):
                err = WorkerDied(
                    f"the process {describe_exit(slot.proc.returncode)} before joining the pool",
                    worker=slot.name, pid=slot.proc.pid, env_indices=range(slot.lo, slot.hi),
                )
                if self._restarting_at_start(None):
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

    def _count_restart(self, key: str, err: PoolError) -> None:
        self.restart_counts[key] += 1
        self.stats["restarts"] += 1
        if self.max_restarts is not None and self.restart_counts[key] > self.max_restarts:
            limit = RestartLimitError(
                f"failed {self.restart_counts[key]} times, more than max_restarts={self.max_restarts}; "
                f"last failure: {err}",
                worker=key,
            )
            limit.__cause__ = err
            self._record_failure(limit)
            raise limit

    def _kill(self, w: WorkerRecord) -> None:
        """SIGKILL a local worker's process group (its game processes die with it) and reap it."""
        if w.proc is not None:
            _kill_group(w.proc.pid, signal.SIGKILL)
            try:
                w.proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                log.error("worker %s (pid %d) survived SIGKILL for 5 s", w.name, w.pid)

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
            try:
                self.sock.send_multipart([w.identity, P.header(P.Kind.CLOSE)], zmq.NOBLOCK)
            except zmq.ZMQError:
                pass
            if self.launcher is not None:  # and have its launcher stop it and place another
                self.launcher.worker_failed(w.name)
        self._drop(w)
        if w.pending_seq >= 0 and w.reply is None:
            self._outstanding -= 1
        key = w.name if w.local else f"envs {w.lo}-{w.hi - 1}"
        self.failures.append(w)
        self.vacancies.append(Vacancy(key, w.lo, w.hi, w.name if w.local else None, err))
        self._count_restart(key, err)

    def _drop(self, w: WorkerRecord) -> None:
        """Take failed worker ``w`` out of the pool: kill its process group, retire its identity
        (it is told to go should it speak again), free its env slots and, for a local worker, its
        slot's process and lane (a respawn gets new ones)."""
        self._kill(w)
        self._retired[w.identity] = None
        while len(self._retired) > 4096:
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
            try:
                with open(f"/proc/{proc.pid}/wchan") as f:
                    state = f" (blocked in {f.read().strip() or '?'})"
            except OSError:
                pass
            _kill_group(proc.pid, signal.SIGKILL)
            try:
                proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                pass
        err = WorkerTimeout(
            f"the respawned process did not join within replace_timeout={self.replace_timeout:g} s{state}",
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
        while True:
            now = time.monotonic()
            for v in self.vacancies:
                if v.local_name is not None and not v.spawned:
                    v.spawned = True
                    v.since = now
                    self.launch_local(v.local_name)
            self._drain()
            now = time.monotonic()
            self._check_health(now, raise_=True)
            if self._spares and self.vacancies:
                self._use_spares(now)
            if not self.vacancies and all(w.ready for w in self.workers):
                return [w for w in self.workers if w.fresh]
            for v in self.vacancies:
                if v.local_name is not None and v.spawned and now - v.since > self.replace_timeout:
                    self._respawn_stuck(v)
                elif v.local_name is None and now - v.since > self.replace_timeout:
                    err = ReplacementTimeout(
                        f"no replacement worker joined within replace_timeout={self.replace_timeout:g} s "
                        f"after: {v.cause}",
                        worker=v.key, env_indices=range(v.lo, v.hi),
                    )
                    self._record_failure(err)
                    raise err
            for w in self.workers:
                if not w.ready and now - w.joined_at > self.start_timeout:
                    err = ReplacementTimeout(
                        f"the replacement did not finish starting within start_timeout={self.start_timeout:g} s",
                        worker=w.name, pid=w.pid, host=w.host, env_indices=w.env_indices,
                    )
                    self._record_failure(err)
                    raise err
            self._poller.poll(20 if any(v.local_name for v in self.vacancies) else 100)

    def _record_failure(self, err: PoolError) -> None:
        if self.failure is None:
            self.failure = err

    def _env_error(self, w: WorkerRecord, hdr: dict[Any, Any]) -> EnvError:
        idx = hdr.get("idx")
        return self._env_error_from(hdr, w.name, w.lo + idx if isinstance(idx, int) else None)

    @staticmethod
    def _env_error_from(hdr: dict[Any, Any], worker: str, env_index: int | None) -> EnvError:
        et = str(hdr.get("et", "Exception"))
        return env_error_class(et)(
            env_index=env_index,
            worker=worker,
            remote_type=et,
            remote_message=str(hdr.get("em", "")),
            remote_traceback=str(hdr.get("tb", "")),
            during=str(hdr.get("stage", "")),
        )

    def reply_error(self, w: WorkerRecord, hdr: dict[Any, Any]) -> EnvError:
        """The EnvError carried by an ERROR reply of ``w``."""
        return self._env_error(w, hdr)

    # ------------------------------------------------------------------------------- joining
    def wait_ready(self, join_timeout: float, start_timeout: float, how_to_join: str = "") -> None:
        """Block until every env slot is held by a READY worker.

        ``join_timeout`` bounds the time until all slots are claimed (HELLO), ``start_timeout`` the
        time from then until every host finished ``start()`` (heartbeats keep slow starters alive).
        """
        self._starting = True
        try:
            self._wait_ready(join_timeout, start_timeout, how_to_join)
        finally:
            self._starting = False

    def _wait_ready(self, join_timeout: float, start_timeout: float, how_to_join: str) -> None:
        join_deadline = time.monotonic() + join_timeout
        ready_deadline: float | None = None
        while True:
            self._drain()
            now = time.monotonic()
            self._check_health(now, raise_=True)
            if self.failure is not None:
                raise self.failure
            joined = all(s is not None for s in self.slots)
            if joined and all(w.ready for w in self.workers):
                self.running = True
                return
            if not joined and now > join_deadline:
                raise JoinTimeoutError(self._join_report(join_timeout, how_to_join))
            if joined and ready_deadline is None:
                ready_deadline = now + start_timeout
            if ready_deadline is not None and now > ready_deadline:
                waiting = [f"{w.name} (pid {w.pid} on {w.host})" for w in self.workers if not w.ready]
                raise JoinTimeoutError(
                    f"all {self.n_envs} envs joined but these workers did not finish starting within "
                    f"start_timeout={start_timeout:g} s: {', '.join(waiting)}"
                )
            self._poller.poll(100)

    def _join_report(self, join_timeout: float, how_to_join: str) -> str:
        n_joined = sum(1 for s in self.slots if s is not None)
        lines = [f"timed out after {join_timeout:g} s waiting for workers: {n_joined}/{self.n_envs} envs joined"]
        for w in self.workers:
            lines.append(f"  joined: {w.name} ({w.host} pid {w.pid}) envs {w.lo}..{w.hi - 1}")
        joined_names = {w.name for w in self.workers}
        for slot in self._local.values():
            if slot.name not in joined_names:
                pid = slot.proc.pid if slot.proc is not None else "?"
                lines.append(f"  missing: local worker {slot.name} (pid {pid}) envs {slot.lo}..{slot.hi - 1}")
        free = self.n_envs - self._next_remote
        if free > 0:
            lines.append(f"  missing: {free} env slot(s) for remote workers {how_to_join}".rstrip())
        if self.launcher is not None:
            lines.extend(self.launcher.describe())
        return "\n".join(lines)

    # ------------------------------------------------------------------------------- service
    def start_service(self) -> None:
        """Start the background thread that keeps heartbeats flowing between calls."""
        self._service = threading.Thread(target=self._service_loop, name="sc2pool-broker", daemon=True)
        self._service.start()

    def _service_loop(self) -> None:
        period = self.heartbeat_interval / 2
        while not self._stop.wait(period):
            if not self.lock.acquire(blocking=False):
                continue  # a call is in progress; the caller is serving the socket
            try:
                if self._closed:
                    return
                self._drain()
                self._check_health(time.monotonic(), raise_=False)
            except Exception as exc:  # never let the service thread die silently
                log.exception("broker service error: %s", exc)
            finally:
                self.lock.release()

    def infos(self) -> list[WorkerInfo]:
        return [WorkerInfo(w.name, w.host, w.pid, tuple(w.env_indices), w.local, w.ready) for w in self.workers]

    # --------------------------------------------------------------------------------- close
    def close(self, grace: float = 2.0) -> None:
        """Tell workers to exit, reap local processes (escalating to SIGKILL of their process
        groups), close the socket. Idempotent."""
        if self._closed:
            return
        self._stop.set()
        if self._service is not None and self._service is not threading.current_thread():
            self._service.join(timeout=2.0)
        with self.lock:
            self._closed = True
            bye = P.header(P.Kind.CLOSE)
            for ident in [w.identity for w in self.workers] + list(self._spares):
                try:
                    self.sock.send_multipart([ident, bye], zmq.NOBLOCK)
                except zmq.ZMQError:
                    pass
            has_remote = any(not w.local for w in self.workers) or bool(self._spares)
            procs = self.local_processes()
            reap_processes(procs, grace)
            self.sock.close(linger=500 if has_remote else 0)
            if self.auth is not None:
                try:
                    self.auth.stop()
                except security.AuthenticatorError as exc:
                    log.error("%s", exc)
            for slot in self._local.values():
                if slot.lane is not None:
                    slot.lane.close()
            self.ctx.term()
            if self.shm is not None:
                try:
                    self.shm.close()
                except BufferError:
                    pass  # a view is still alive; the mapping goes when it is collected
                self.shm = None


def reap_processes(procs: Sequence[subprocess.Popen[bytes]], grace: float) -> None:
    """Wait up to ``grace`` s for processes to exit, then SIGTERM, then SIGKILL their process groups
    (each worker leads its own group, so game processes it started die with it)."""
    deadline = time.monotonic() + grace
    for sig, wait in ((None, grace), (signal.SIGTERM, 1.0), (signal.SIGKILL, 2.0)):
        alive = [p for p in procs if p.poll() is None]
        if not alive:
            break
        if sig is not None:
            for p in alive:
                _kill_group(p.pid, sig)
            deadline = time.monotonic() + wait
        for p in alive:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
    for p in procs:  # the group may hold grandchildren even after the leader exited
        _kill_group(p.pid, signal.SIGKILL)
        if p.poll() is None:
            p.wait(timeout=1.0)


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
