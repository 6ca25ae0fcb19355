"""Transport and gather: the ROUTER socket, requests out, replies in.

Sends a request to a worker over its local fast lane (a socket pair, observations in shared
memory) or over ZeroMQ, in the full or the compact form; waits for a step's replies (``gather``),
filing each in its worker's record; routes every other message (READY, heartbeats, strangers) to
the part that handles it. This is the hot path: a lockstep step is one :meth:`send_lanes` (or one
:meth:`send` per ZeroMQ worker) and one :meth:`gather`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

import zmq

from sc2pool import protocol as P
from sc2pool import wire
from sc2pool.broker.records import WorkerRecord
from sc2pool.broker.state import BrokerState
from sc2pool.errors import ProtocolError, WorkerTimeout
from sc2pool.wire import Kind

log = logging.getLogger("sc2pool.broker")

_NOBLOCK = int(zmq.NOBLOCK)


class Transport(BrokerState):
    """The socket side of the broker (see the module docstring). Call with ``lock`` held."""

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
        wake-up, not Python, is then what each send costs)."""
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
                    worker=w.name, pid=w.pid, hostname=w.hostname, env_indices=w.env_indices,
                ))
            except OSError:
                self._fail(w, self._death(w, "its local lane is closed (process exited)"))

    # ------------------------------------------------------------------------------ receiving
    def _read_lane(self, w: WorkerRecord) -> None:
        assert w.lane is not None
        try:
            messages = w.lane.read_ready()
        except (EOFError, OSError):
            self._fail(w, self._death(w, "its local lane closed (process exited)"))
            return
        ident = w.identity
        for data in messages:
            if data.startswith(wire.COMPACT_RESULT):
                self._compact_reply(w, data)
            else:
                self._dispatch([ident, data])

    def _compact_reply(self, w: WorkerRecord, data: bytes, frames: list[bytes] | None = None) -> None:
        """A compact RESULT (see :mod:`sc2pool.wire`) from a lane, or from ZeroMQ with the
        observation ``frames`` after it."""
        try:
            seq = wire.compact_seq(data)
        except ProtocolError as exc:
            self._malformed(w.identity, str(exc))
            return
        w.last_seen = time.monotonic()
        if seq == w.pending_seq and w.reply is None:
            try:
                w.reply = (wire.Result.from_compact(data, w.hi - w.lo), frames or [])
            except ProtocolError as exc:  # it answers the request but cannot be read: fatal for the step
                w.reply = (exc, [])
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

    def decode(self, ident: bytes, frame: bytes) -> wire.Message | None:
        """The typed message in header ``frame`` from peer ``ident``, or None (counted and logged
        as malformed) when it cannot be read."""
        try:
            return wire.decode(frame)
        except ProtocolError as exc:
            self._malformed(ident, str(exc))
            return None

    def _dispatch(self, frames: list[bytes]) -> None:
        ident = frames[0]
        if len(frames) < 2:
            self._malformed(ident, "message without header frame")
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
                self._malformed(ident, str(exc))
                return
            else:
                msg, kind, seq = decoded, decoded.KIND, getattr(decoded, "seq", None)
            w.last_seen = time.monotonic()
            if kind is Kind.RESULT or kind is Kind.CALL_RESULT or kind is Kind.ERROR:
                if seq == w.pending_seq and w.reply is None and seq is not None:
                    w.reply = (msg, frames[2:])  # type: ignore[assignment]
                    self._outstanding -= 1
                elif isinstance(msg, wire.Error) and seq is None:
                    self._record_failure(self._env_error(w, msg))
                elif isinstance(msg, ProtocolError):
                    self._malformed(ident, str(msg))
                else:
                    self.stats["stale"] += 1
            elif isinstance(msg, ProtocolError):
                self._malformed(ident, str(msg))
            elif kind is Kind.READY:
                w.ready = True
                log.info("worker %s ready (envs %d..%d)", w.name, w.lo, w.hi - 1)
            elif kind is Kind.HELLO:
                self._refuse(ident, "duplicate HELLO on an established connection")
            elif kind is not Kind.HEARTBEAT:
                self.stats["unexpected"] += 1
            return
        if ident.endswith(wire.HEARTBEAT_SUFFIX):
            base = self.by_id.get(ident[: -len(wire.HEARTBEAT_SUFFIX)])
            if base is not None:
                base.last_seen = time.monotonic()
            elif not self._heartbeat_from_unknown(ident, frames):
                return
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
            self.sock.send_multipart([ident, wire.Close().encode()], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass

    def _malformed(self, ident: bytes, why: str) -> None:
        self.stats["malformed"] += 1
        log.warning("dropped malformed message from peer %s: %s", ident.hex()[:12], why)

    def _refuse(self, ident: bytes, reason: str) -> None:
        self.stats["refused"] += 1
        log.warning("refused worker %s: %s", ident.hex()[:12], reason)
        try:
            self.sock.send_multipart([ident, wire.Refuse(reason).encode()], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass
