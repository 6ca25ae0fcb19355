"""How a worker talks to the broker: its DEALER socket, the local lane, and the heartbeat thread.

Requests arrive on the ZeroMQ DEALER or, for a local worker, on a private Unix socketpair (the
*lane*, see :class:`sc2pool.pool.protocol.Lane`); a reply goes back the way its request came.

Heartbeats run on a separate *thread* with its own DEALER socket (identity = main identity +
``~hb``): the thread pings the broker every ``interval`` and the broker answers each ping. A
thread, not an asyncio task, because a synchronous env that computes for many seconds inside
``step`` (or a slow ``host.start()``) blocks the event loop, and such a worker is busy, not dead.
A stopped (SIGSTOP) or crashed process stops pinging, so the broker still notices it. When the
broker's answers stop for ``broker_timeout`` the thread reports the broker lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import select
import socket as socketlib
import threading
import time
from collections.abc import Callable
from typing import Any

import zmq

from sc2pool.pool import protocol as P
from sc2pool.pool import security, wire

log = logging.getLogger("sc2pool.worker")
_NOBLOCK = int(zmq.NOBLOCK)


class Heartbeat(threading.Thread):
    """Pings the broker from a thread; calls ``on_lost(reason)`` when its answers stop (or when no
    broker answered within ``connect_timeout``)."""

    def __init__(self, ctx: zmq.Context[Any], endpoint: str, identity: bytes, *, interval: float,
                 broker_timeout: float, connect_timeout: float,
                 curve: security.WorkerCurveConfig | None, on_lost: Callable[[str], None]) -> None:
        super().__init__(name="sc2pool-worker-heartbeat", daemon=True)
        self.ctx = ctx
        self.endpoint = endpoint
        self.identity = identity + wire.HEARTBEAT_SUFFIX
        self.interval = interval
        self.broker_timeout = broker_timeout  # replaced by the broker's setting from WELCOME
        self.connect_timeout = connect_timeout
        self.curve = curve
        self.on_lost = on_lost
        self.stop = threading.Event()
        self.contact = False

    def run(self) -> None:
        sock = self.ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.IDENTITY, self.identity)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.MAXMSGSIZE, 65536)  # it only ever receives heartbeats
        if self.curve is not None:  # a separate connection: it needs the keys too
            security.apply_client(sock, self.curve)
        sock.connect(self.endpoint)
        ping = wire.Heartbeat().encode()
        started = last_answer = time.monotonic()
        try:
            while not self.stop.is_set():
                with contextlib.suppress(zmq.Again):
                    sock.send(ping, zmq.NOBLOCK)
                deadline = time.monotonic() + self.interval
                while not self.stop.is_set():
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    if sock.poll(int(min(remaining, 0.1) * 1000) + 1):  # short slices: quick stop
                        while True:
                            try:
                                sock.recv(zmq.NOBLOCK)
                            except zmq.Again:
                                break
                            self.contact = True
                            last_answer = time.monotonic()
                now = time.monotonic()
                if self.contact and now - last_answer > self.broker_timeout:
                    self.on_lost(f"no answer from the broker for {now - last_answer:.1f} s")
                    return
                if not self.contact and now - started > self.connect_timeout:
                    self.on_lost(f"no broker answered at {self.endpoint} within {self.connect_timeout:.0f} s")
                    return
        finally:
            sock.close(linger=0)


class ReplyGap:
    """How soon the trainer's requests have recently followed our replies over the lane.

    An average of reply-to-request gaps, each capped at ``cap`` seconds so that one long pause
    (the trainer training for minutes between rollouts) is forgotten after a few fast steps. A
    worker spins (:func:`spin_read`) only while this is under its ``spin_s``; before any request
    has followed a reply it is infinite, so a new worker does not spin.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, cap: float = 0.01) -> None:
        self._clock = clock
        self._cap = cap
        self._replied_at = 0.0
        self.seconds = math.inf

    def replied(self) -> None:
        """A reply left now."""
        self._replied_at = self._clock()

    def requested(self) -> None:
        """A request arrived now: fold its gap since the last reply into the average."""
        gap = min(self._clock() - self._replied_at, self._cap)
        self.seconds = gap if self.seconds == math.inf else 0.5 * (self.seconds + gap)


def spin_read(lane: P.Lane, seconds: float) -> list[bytes]:
    """Poll ``lane`` for up to ``seconds`` instead of sleeping at once (adaptive spin-then-block).

    Returns the messages read (``[]`` when none came in time, or when the lane is closed: the
    blocking path reports that).

    Why: waking a process that sleeps on another, idle core costs tens of microseconds on a VM (an
    inter-processor interrupt and a hypervisor exit), a sizeable share of a 1 ms env step. When
    the trainer has been sending the next request within ``spin_s`` of our reply (a fast policy, a
    benchmark), polling for it is cheaper than sleeping; when it has not (a slow policy
    between steps, e.g. PPO on CPU), the recent gap (:class:`ReplyGap`) says so and the worker
    sleeps at once. Only a worker with a core to itself spins, and it yields that core to
    anything else runnable.
    """
    end = time.monotonic() + seconds
    while True:
        try:
            messages = lane.read_ready()
        except (EOFError, OSError):
            return []
        if messages or time.monotonic() >= end:
            return messages
        os.sched_yield()


class Transport:
    """The worker's end of the connection: receives requests and sends replies.

    Args:
        endpoint: the broker's ZeroMQ endpoint.
        identity: this worker's ZeroMQ identity.
        curve: CurveZMQ client keys, or None.
        lane_fd: the local lane's file descriptor inherited from the trainer, or None.
        spin_s: how long to poll the lane after a reply before sleeping (0: never).
        name: the worker's name, for the log.
        on_lane_closed: called with a reason when the trainer closed the lane; :meth:`recv` and
            :meth:`send` then raise ``asyncio.CancelledError`` to end the worker's loop.

    Call :meth:`open` from the event loop that will serve, :meth:`close` once at the end.
    """

    def __init__(self, endpoint: str, identity: bytes, *, curve: security.WorkerCurveConfig | None = None,
                 lane_fd: int | None = None, spin_s: float = 0.0, name: str = "",
                 on_lane_closed: Callable[[str], None] = lambda reason: None) -> None:
        self.name = name
        self.endpoint = endpoint
        self.identity = identity
        self.curve = curve
        self.spin_s = spin_s
        self.on_lane_closed = on_lane_closed
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.lane: P.Lane | None = None
        self._lane_fd = lane_fd if lane_fd is not None else -1
        self.via_lane = False  # the request being served came over the lane
        # Hosts that declare ``blocking_poll_ok`` (no background tasks, e.g. GymHost) let the worker
        # wait in ``poll(2)`` directly (the loop still runs between 50 ms slices), which halves the
        # per-step latency compared to waking up through the event loop.
        self.blocking_ok = False
        self._gap = ReplyGap()  # how soon lane requests have recently followed our replies
        self._lane_pending: list[bytes] = []
        self._zmq_dirty = True
        self._fdpoll = select.poll()
        self._readable: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._zmq_fd = -1

    def open(self) -> None:
        """Connect the socket, adopt the lane, and register both with the running event loop."""
        sock = self.sock
        sock.setsockopt(zmq.IDENTITY, self.identity)
        sock.setsockopt(zmq.LINGER, 2000)
        sock.setsockopt(zmq.MAXMSGSIZE, P.MAX_HEADER_BYTES)  # dropped before allocation
        # How long one waiting receive (recv, blocking hosts without a lane) may block before the
        # event loop gets a turn; every other receive on this socket passes NOBLOCK.
        sock.setsockopt(zmq.RCVTIMEO, 50)
        if self.curve is not None:
            security.apply_client(sock, self.curve)
        sock.connect(self.endpoint)
        loop = self._loop = asyncio.get_running_loop()
        readable = self._readable = asyncio.Event()
        self._zmq_fd = int(sock.getsockopt(zmq.FD))
        self._fdpoll.register(self._zmq_fd, select.POLLIN)
        loop.add_reader(self._zmq_fd, readable.set)
        if self._lane_fd >= 0:
            self.lane = P.Lane(socketlib.socket(fileno=self._lane_fd))
            self._fdpoll.register(self._lane_fd, select.POLLIN)
            loop.add_reader(self._lane_fd, readable.set)

    def close(self, *, linger_ms: int) -> None:
        """Unregister, close the lane and the socket, end the ZeroMQ context."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(Exception):
                loop.remove_reader(self._zmq_fd)
            if self.lane is not None:
                with contextlib.suppress(Exception):
                    loop.remove_reader(self._lane_fd)
        if self.lane is not None:
            self.lane.close()
        self.sock.close(linger=linger_ms)
        self.ctx.term()

    def _lane_closed(self) -> asyncio.CancelledError:
        self.on_lane_closed("the trainer closed the local lane")
        return asyncio.CancelledError()

    # ------------------------------------------------------------------------------------ send
    def send(self, parts: list[Any]) -> None:
        """Send now (the DEALER never blocks in lockstep: at most a few messages are in flight).

        A reply to a request that came over the local lane goes back over the lane."""
        lane = self.lane
        if self.via_lane and lane is not None:
            try:
                lane.write(parts[0])
            except OSError:
                raise self._lane_closed() from None
            if self.spin_s:
                self._gap.replied()
            return
        copy = True  # zero-copy only pays off for big frames
        for frame in parts[1:]:
            if getattr(frame, "nbytes", 0) >= 65536:
                copy = False
                break
        self._zmq_dirty = True
        try:
            P.send_parts(self.sock, parts, _NOBLOCK, copy=copy)
        except zmq.Again:
            log.warning("worker %s: send queue full (broker gone?), message dropped", self.name)

    # ------------------------------------------------------------------------------------ recv
    @property
    def waits_in_zmq(self) -> bool:
        """Whether requests are awaited inside libzmq's receive (:meth:`recv_now`): a host that
        declares ``blocking_poll_ok`` (no background tasks) and no lane, i.e. a remote worker of
        plain gymnasium envs."""
        return self.blocking_ok and self.lane is None

    def recv_now(self) -> list[bytes] | None:
        """The next message from the ZeroMQ socket, waiting for it inside libzmq's receive for at
        most one RCVTIMEO slice (see :meth:`open`); None when none came (the caller then lets
        its event loop run). Only where :attr:`waits_in_zmq`."""
        frames = P.recv_wait(self.sock)
        if frames is not None:
            self.via_lane = False
        return frames

    async def recv(self) -> list[bytes]:
        """The next message, from the ZeroMQ socket or the lane (:attr:`via_lane` says which)."""
        if self._lane_pending:
            self.via_lane = True
            return [self._lane_pending.pop(0)]
        sock = self.sock
        lane = self.lane
        blocking_ok = self.blocking_ok
        if blocking_ok and lane is None:
            while (frames := self.recv_now()) is None:
                await asyncio.sleep(0)  # the event loop's turn between slices: signals, cancellation
            return frames
        # In blocking mode the first read is attempted only after poll(2) said the lane is
        # readable: one poll + one recv per request, no EAGAIN round trip.
        lane_ready = not blocking_ok
        while True:
            # ZeroMQ's FD only signals changes: after any use of the socket (or when poll says its
            # FD moved) check its event state; otherwise skip that call on the lane's hot path.
            if self._zmq_dirty or lane is None:
                # An option read, not recv_ready's failed receive: a worker finds nothing waiting
                # on most checks, and the raised Again costs it more CPU than the read.
                if P.readable(sock):
                    try:
                        frames = P.recv_parts(sock, _NOBLOCK)
                    except zmq.Again:
                        pass
                    else:
                        self.via_lane = False
                        return frames  # stays dirty: more may be queued
                self._zmq_dirty = False
            if lane is not None and lane_ready:
                try:
                    messages = lane.read_ready()
                except (EOFError, OSError):
                    raise self._lane_closed() from None
                if messages:
                    return self._from_lane(messages)
            if blocking_ok and not lane_ready and lane is not None and self._gap.seconds < self.spin_s:
                messages = spin_read(lane, self.spin_s)
                if messages:
                    return self._from_lane(messages)
            if blocking_ok:
                events = self._fdpoll.poll(50)
                if not events:
                    await asyncio.sleep(0)  # let the loop run (signals, cancellation)
                for fd, _ in events:
                    if fd == self._zmq_fd:
                        self._zmq_dirty = True
                    else:
                        lane_ready = True
            else:
                assert self._readable is not None
                self._readable.clear()
                await self._readable.wait()
                self._zmq_dirty = True

    def _from_lane(self, messages: list[bytes]) -> list[bytes]:
        """The first of ``messages`` (the rest are queued); a worker that may spin notes how soon it
        followed our last reply."""
        if self.spin_s:
            self._gap.requested()
        self._lane_pending.extend(messages[1:])
        self.via_lane = True
        return [messages[0]]
