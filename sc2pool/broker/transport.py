"""Transport and gather: the ROUTER socket, requests out, replies in.

Sends a request to a worker over its local fast lane (a socket pair, observations in shared
memory) or over ZeroMQ, in the full or the compact form; waits for a step's replies (``gather``),
filing each in its worker's record; routes every other message (READY, heartbeats, strangers) to
the part that handles it. This is the hot path: a lockstep step is one :meth:`send_lanes` and one
:meth:`send_many` (compact STEPs over ZeroMQ) or one :meth:`send` per ZeroMQ worker, then one
:meth:`gather`.

The transport knows the worker records (it files replies in them) but no policy: what it notices
(a worker whose connection is gone, an ERROR outside a request, a message from a stranger) it
reports through :class:`TransportEvents`, and while it waits it lets the supervisor check
liveness through the same interface.
"""

from __future__ import annotations

import logging
import select
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import zmq
from zmq.backend import Socket as ZmqSocket

from sc2pool.broker.records import WorkerRecord
from sc2pool.errors import PoolError, ProtocolError, WorkerTimeout
from sc2pool.pool import protocol as P
from sc2pool.pool import wire
from sc2pool.pool.wire import Kind

log = logging.getLogger("sc2pool.broker")

_NOBLOCK = int(zmq.NOBLOCK)
_SNDMORE = int(zmq.SNDMORE)
_zsend = ZmqSocket.send  # the Cython backend's send, as protocol.send_parts uses it


@dataclass(frozen=True)
class TransportEvents:
    """What the transport reports to the rest of the broker.

    ``failed(w, err)``: worker ``w`` cannot be reached (a lane write timed out); ``lost(w, why)``:
    its connection is gone (``why`` says how); ``tick(now)``: called at most every check period
    while :meth:`Transport.gather` waits, may raise the pool's failure; ``member_error(w, msg)``: an
    ERROR of ``w`` outside any request; ``stranger(ident, frames)``: a message from a peer that is
    not in the pool; ``unknown_heartbeat(ident, frames)``: a heartbeat-socket ping from such a
    peer, returns whether to answer it."""

    failed: Callable[[WorkerRecord, PoolError], None]
    lost: Callable[[WorkerRecord, str], None]
    tick: Callable[[float], None]
    member_error: Callable[[WorkerRecord, wire.Error], None]
    stranger: Callable[[bytes, list[bytes]], None]
    unknown_heartbeat: Callable[[bytes, list[bytes]], bool]


class Transport:
    """The socket side of the broker (see the module docstring). Call with the broker's lock held.

    Args:
        sock: the ROUTER socket (bound by :meth:`bind`; CURVE, if any, already applied).
        members: the pool's workers by ZeroMQ identity (the registry's table, read here).
        stats: the broker's counters (``malformed``, ``stale``, ``refused``, ``unexpected``).
        heartbeat_interval: how often workers ping; while :meth:`gather` waits, liveness is
            checked (``events.tick``) every ``heartbeat_interval`` or quarter second, whichever is
            shorter.
        heartbeat_timeout: how long a lane write may wait for a worker that does not read.
        events: where failures and strangers are reported.
    """

    def __init__(
        self,
        sock: zmq.Socket[Any],
        members: dict[bytes, WorkerRecord],
        stats: Counter[str],
        heartbeat_interval: float,
        heartbeat_timeout: float,
        events: TransportEvents,
    ) -> None:
        self.sock = sock
        self.by_id = members
        self.stats = stats
        self.heartbeat_timeout = heartbeat_timeout
        self.events = events
        self.endpoints: list[str] = []
        self._poller = zmq.Poller()
        self._poller.register(sock, zmq.POLLIN)
        # The hot wait: poll(2) over ZeroMQ's notification FD and (one) local lane.
        self._zmq_fd = int(sock.getsockopt(zmq.FD))
        self._zmq_poll = select.poll()
        self._zmq_poll.register(self._zmq_fd, select.POLLIN)
        self._seq = 0
        self._outstanding = 0
        self._check_period = min(0.25, heartbeat_interval)
        self._next_check = 0.0
        # While only ZeroMQ replies are due, gather waits inside libzmq's receive (P.recv_wait) in
        # slices of this many ms, so liveness checks stay on time. No other receive on this
        # socket blocks (they all pass NOBLOCK), so the timeout affects nothing else.
        sock.setsockopt(zmq.RCVTIMEO, max(1, min(20, int(self._check_period * 1000))))
        self._pong = wire.Heartbeat().encode()

    def lane_poller(self, lane: P.Lane) -> Any:
        """A ``select.poll`` over ``lane`` and the ZeroMQ socket: what :meth:`gather` waits on
        while a reply is due on that lane."""
        poller = select.poll()
        poller.register(lane.fd, select.POLLIN)
        poller.register(self._zmq_fd, select.POLLIN)
        return poller

    def wait(self, timeout_ms: int) -> None:
        """Block until a message may be waiting on the socket, or ``timeout_ms`` passed."""
        self._poller.poll(timeout_ms)

    def forget(self, w: WorkerRecord) -> None:
        """``w`` was removed from the pool: :meth:`gather` no longer waits for the reply it owed."""
        if w.pending_seq >= 0 and w.reply is None:
            self._outstanding -= 1

    def deliver(self, ident: bytes, frame: bytes) -> bool:
        """Send one frame to peer ``ident`` (WELCOME), waiting for room; False if it is gone."""
        try:
            self.sock.send_multipart([ident, frame])
        except zmq.ZMQError as exc:
            log.warning("could not send to peer %s: %s", ident.hex()[:12], exc)
            return False
        return True

    def post(self, ident: bytes, frame: bytes) -> None:
        """Send one frame to peer ``ident`` if it can be sent now (REFUSE, CLOSE...); a peer that is
        gone or not reading is not waited for."""
        try:
            self.sock.send_multipart([ident, frame], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass

    def bind(self, endpoint: str) -> str:
        """Bind the ROUTER to ``endpoint`` (``tcp://host:0`` picks a free port); returns the
        actual endpoint."""
        self.sock.bind(endpoint)
        actual = self.sock.getsockopt(zmq.LAST_ENDPOINT)
        actual_str = actual.decode() if isinstance(actual, bytes) else str(actual)
        self.endpoints.append(actual_str)
        return actual_str

    def next_seq(self) -> int:
        """A new request sequence number: a reply counts only if it echoes the pending one."""
        self._seq += 1
        return self._seq

    # ------------------------------------------------------------------------------- sending
    @staticmethod
    def _owe(workers: Iterable[WorkerRecord], seq: int) -> None:
        """Each of ``workers`` now owes the reply ``seq`` (sent now; none received yet)."""
        now = time.monotonic()
        for w in workers:
            w.pending_seq = seq
            w.reply = None
            w.sent_at = now

    def send(self, w: WorkerRecord, parts: Sequence[Any], seq: int | None = None) -> None:
        """Send one message to ``w``; with ``seq``, it becomes the reply ``w`` owes us."""
        if seq is not None:
            self._owe((w,), seq)
        try:
            P.send_parts(self.sock, (w.identity, *parts))
        except zmq.ZMQError as exc:
            if exc.errno == zmq.EHOSTUNREACH:
                self.events.lost(w, "its connection is gone (process exited or network lost)")
                return
            raise

    def send_many(self, batch: Sequence[tuple[WorkerRecord, bytes]], seq: int) -> None:
        """Send one single-frame request to each worker of ``batch`` over ZeroMQ; each then owes
        the reply ``seq``. The lockstep STEP to many remote workers: one clock read and no
        per-message frame list, as :meth:`send_lanes` does for lanes."""
        self._owe([w for w, _ in batch], seq)
        sock = self.sock
        send = _zsend
        for w, frame in batch:
            try:
                send(sock, w.identity, _SNDMORE, True)
                send(sock, frame, 0, True)
            except zmq.ZMQError as exc:
                if exc.errno == zmq.EHOSTUNREACH:
                    self.events.lost(w, "its connection is gone (process exited or network lost)")
                    continue
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
        wake-up, not Python, is then what each send costs)."""
        self._owe([w for w, _ in batch], seq)
        framed = []
        for w, head in batch:
            assert w.lane is not None
            framed.append((w, w.lane, P.Lane.frame(head)))
        for w, lane, data in framed:
            try:
                lane.write_framed(data)
            except TimeoutError:
                self.events.failed(w, WorkerTimeout(
                    f"does not read its requests (nothing read for {self.heartbeat_timeout:g} s)",
                    worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices,
                ))
            except OSError:
                self.events.lost(w, "its local lane is closed (process exited)")

    # ------------------------------------------------------------------------------ receiving
    def _read_lane(self, w: WorkerRecord) -> None:
        assert w.lane is not None
        try:
            messages = w.lane.read_ready()
        except (EOFError, OSError):
            self.events.lost(w, "its local lane closed (process exited)")
            return
        ident = w.identity
        for data in messages:
            if data.startswith(wire.COMPACT_RESULT):
                self._compact_reply(w, data)
            else:
                self._dispatch([ident, data])

    def _compact_reply(self, w: WorkerRecord, data: bytes, frames: list[bytes] | None = None) -> None:
        """A compact RESULT (see :mod:`sc2pool.pool.wire`) from a lane, or from ZeroMQ with the
        observation ``frames`` after it."""
        msg: wire.Result | ProtocolError
        try:
            msg = wire.CompactResult(data, w.hi - w.lo)  # size checked here; its bytes are read by the VecEnv
            seq = msg.seq
        except ProtocolError as exc:
            try:
                seq = wire.compact_seq(data)
            except ProtocolError as short:
                self.malformed(w.identity, str(short))
                return
            msg = exc  # if it answers the request but cannot be read, the step fails naming the worker
        w.last_seen = time.monotonic()
        if seq == w.pending_seq and w.reply is None:
            w.reply = (msg, frames or [])
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
        lanes = [w for w in pending if w.lane is not None]
        k = 0  # lanes[k] is the next lane reply to wait for
        # ZeroMQ's FD only signals changes: while lane replies are due (a poll over the lane and
        # that FD), check the socket's event state once before waiting and again whenever poll
        # says its FD moved. Once only ZeroMQ replies are due, the receive itself waits.
        zmq_dirty = bool(lanes)
        while k < len(lanes):
            if zmq_dirty:
                self.drain()  # checks the socket's event state itself
                zmq_dirty = False
            if self._outstanding <= 0:
                return
            # Wait for lane replies in order, as SubprocVecEnv does: one wake-up of this thread
            # per slow worker instead of one per reply (each wake-up steals a core from workers).
            target = lanes[k]
            if target.reply is not None or target.failed is not None:
                k += 1
                continue
            self._read_lane(target)  # often already there
            if target.reply is not None or target.failed is not None:
                continue
            now = self._tick_if_due()
            timeout_ms = int((self._next_check - now) * 1000) + 1
            for fd, _ in target.poll_obj.poll(timeout_ms):
                if fd == self._zmq_fd:
                    zmq_dirty = True
        # Only ZeroMQ replies (if any) are still due: each receive waits up to RCVTIMEO (see
        # __init__); messages that arrived while lanes were read come first, in order.
        sock, recv_wait, dispatch = self.sock, P.recv_wait, self._dispatch
        while self._outstanding > 0:
            frames = recv_wait(sock)
            if frames is not None:
                dispatch(frames)
            self._tick_if_due()

    def _tick_if_due(self) -> float:
        """Run the liveness checks (``events.tick``) when their period is up; returns the time now."""
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + self._check_period
            # what has arrived is read first: after this thread stalled (a trainer starved of CPU
            # for most of the heartbeat timeout) the workers' heartbeats wait on the socket, and
            # judging workers by ``last_seen`` before reading them takes live ones for silent ones
            self.drain()
            self.events.tick(now)
        return now

    def drain(self) -> None:
        """Route every message waiting on the socket."""
        sock = self.sock
        recv_ready = P.recv_ready
        dispatch = self._dispatch
        while (frames := recv_ready(sock)) is not None:
            dispatch(frames)

    def decode(self, ident: bytes, frame: bytes) -> wire.Message | None:
        """The typed message in header ``frame`` from peer ``ident``, or None (counted and logged
        as malformed) when it cannot be read."""
        try:
            return wire.decode(frame)
        except ProtocolError as exc:
            self.malformed(ident, str(exc))
            return None

    def _dispatch(self, frames: list[bytes]) -> None:
        ident = frames[0]
        if len(frames) < 2:
            self.malformed(ident, "message without header frame")
            return
        w = self.by_id.get(ident)
        if w is not None:
            if w.compact and frames[1][:2] == wire.COMPACT_RESULT:
                self._compact_reply(w, frames[1], frames[2:])
                return
            msg: wire.Message | ProtocolError
            try:
                decoded = wire.decode(frames[1])
            except wire.MalformedMessage as exc:
                msg = exc  # a reply that echoes the pending request is filed: the VecEnv names it
                kind, seq = exc.kind, exc.seq
            except ProtocolError as exc:
                self.malformed(ident, str(exc))
                return
            else:
                msg, kind, seq = decoded, decoded.KIND, getattr(decoded, "seq", None)
            w.last_seen = time.monotonic()
            if kind is Kind.RESULT or kind is Kind.CALL_RESULT or kind is Kind.ERROR:
                if seq == w.pending_seq and w.reply is None and seq is not None:
                    w.reply = (msg, frames[2:])  # type: ignore[assignment]
                    self._outstanding -= 1
                elif isinstance(msg, wire.Error) and seq is None:
                    self.events.member_error(w, msg)
                elif isinstance(msg, ProtocolError):
                    self.malformed(ident, str(msg))
                else:
                    self.stats["stale"] += 1
            elif isinstance(msg, ProtocolError):
                self.malformed(ident, str(msg))
            elif kind is Kind.READY:
                w.ready = True
                log.info("worker %s ready (envs %d..%d)", w.name, w.lo, w.hi - 1)
            elif kind is Kind.HELLO:
                self.refuse(ident, "duplicate HELLO on an established connection")
            elif kind is not Kind.HEARTBEAT:
                self.stats["unexpected"] += 1
            return
        if ident.endswith(wire.HEARTBEAT_SUFFIX):
            base = self.by_id.get(ident[: -len(wire.HEARTBEAT_SUFFIX)])
            if base is not None:
                base.last_seen = time.monotonic()
            elif not self.events.unknown_heartbeat(ident, frames):
                return
            self.post(ident, self._pong)
            return
        self.events.stranger(ident, frames)

    def tell_retired(self, ident: bytes) -> None:
        """A removed (replaced) worker spoke again, e.g. it was SIGSTOPped and resumed, or its
        network came back: tell it to exit. Its late replies are never applied."""
        self.stats["stale"] += 1
        self.post(ident, wire.Close().encode())

    def malformed(self, ident: bytes, why: str) -> None:
        """Count and log a message from ``ident`` that is dropped."""
        self.stats["malformed"] += 1
        log.warning("dropped malformed message from peer %s: %s", ident.hex()[:12], why)

    def refuse(self, ident: bytes, reason: str) -> None:
        """Send REFUSE with ``reason`` to peer ``ident`` (counted and logged)."""
        self.stats["refused"] += 1
        log.warning("refused worker %s: %s", ident.hex()[:12], reason)
        self.post(ident, wire.Refuse(reason).encode())
