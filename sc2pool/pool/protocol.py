"""The sc2pool transport: ZeroMQ multipart without pyzmq's Python overhead, and the local lane.

The wire is in three layers: :mod:`sc2pool.pool.codec` encodes values (bounded, never pickled),
:mod:`sc2pool.pool.wire` defines the messages (kinds, fields, full and compact forms, the only place
that reads or writes a header key), and this module moves their bytes.

It also re-exports a few names of the other two (the protocol version, the message kinds, raw
header encoding and decoding, the value codec) for code that builds or inspects raw headers on
purpose, such as tests that play a hostile or outdated peer; the trainer and the worker use
:mod:`sc2pool.pool.wire`'s typed messages instead.
"""

from __future__ import annotations

import select
import socket
import struct
import time
from collections.abc import Sequence
from typing import Any

import zmq
from zmq.backend import Socket as _ZmqSocket

from sc2pool.errors import ProtocolError
from sc2pool.pool.codec import (
    EXT_ENVSPEC,
    EXT_NDARRAY,
    EXT_NPSCALAR,
    EXT_SPACE,
    EXT_TUPLE,
    MAX_HEADER_BYTES,
    array_from_buffer,
    pack,
    unpack,
)
from sc2pool.pool.wire import (
    HEARTBEAT_SUFFIX,
    PROTOCOL_VERSION,
    Kind,
    decode_header,
    header,
    peek_version,
)

__all__ = [
    "EXT_ENVSPEC", "EXT_NDARRAY", "EXT_NPSCALAR", "EXT_SPACE", "EXT_TUPLE", "HEARTBEAT_SUFFIX",
    "MAX_HEADER_BYTES", "PROTOCOL_VERSION",
    "Kind", "Lane", "array_from_buffer", "decode_header", "header", "pack", "peek_version", "readable",
    "recv_parts", "recv_ready", "recv_wait", "send_parts", "unpack",
]

# ------------------------------------------------------------------------------ zmq hot path
# pyzmq's Python-level ``send_multipart``/``recv_multipart``/``getsockopt`` (the "sugar" layer) cost
# ~10 us per message round in flag arithmetic on IntFlag enums and per-frame checks; on the ZeroMQ
# path (remote workers, ``shared_memory=False``) that is a fifth of a no-op env's step. These call
# the Cython backend directly with plain int flags; the semantics are those of the sugar methods.
_zsend = _ZmqSocket.send
_zrecv = _ZmqSocket.recv
_zget = _ZmqSocket.get
_SNDMORE = int(zmq.SNDMORE)
_RCVMORE = int(zmq.RCVMORE)
_ZEVENTS = int(zmq.EVENTS)
_ZPOLLIN = int(zmq.POLLIN)


def send_parts(sock: Any, parts: Sequence[Any], flags: int = 0, copy: bool = True) -> None:
    """``sock.send_multipart(parts, flags, copy=copy)`` without pyzmq's Python overhead.

    ZeroMQ queues a multipart message atomically once its first part is accepted, so an error
    (``zmq.Again`` with NOBLOCK, ``EHOSTUNREACH`` on a mandatory ROUTER) comes from the first part."""
    last = len(parts) - 1
    more = flags | _SNDMORE
    for i, part in enumerate(parts):
        _zsend(sock, part, more if i < last else flags, copy)


def recv_parts(sock: Any, flags: int = 0) -> list[bytes]:
    """``sock.recv_multipart(flags)`` (copying) without pyzmq's Python overhead."""
    parts = [_zrecv(sock, flags)]
    while _zget(sock, _RCVMORE):
        parts.append(_zrecv(sock, flags))
    return parts


_NOBLOCK = int(zmq.NOBLOCK)
_Again = zmq.Again


def recv_ready(sock: Any) -> list[bytes] | None:
    """The next message waiting on ``sock`` (its frames, copied), or None when none is waiting.

    ``readable`` + ``recv_parts`` costs two option reads per message, and pyzmq's ``get`` maps every
    option number through an enum; a non-blocking receive that fails costs less than one of them,
    and a received frame carries its "more" flag, so this reads no option at all. ZeroMQ delivers a
    multipart message atomically: once its first frame is here, the rest is too."""
    return _recv_message(sock, _NOBLOCK)


def recv_wait(sock: Any) -> list[bytes] | None:
    """The next message on ``sock``, waiting for it inside libzmq for at most the socket's
    ``RCVTIMEO``; None when none came in that time.

    One blocking receive costs less than the poll of ZeroMQ's notification FD plus the event
    checks that have to surround it (the FD only signals changes, so every wait needs a check of
    the socket's state before and after), and libzmq sleeps in its own poll with the GIL
    released. A signal interrupts the wait as ``poll`` would (pyzmq checks for signals)."""
    return _recv_message(sock, 0)


def _recv_message(sock: Any, first_flags: int) -> list[bytes] | None:
    """One message's frames, its first frame received with ``first_flags`` (None on ``Again``);
    each frame's own "more" flag says whether another follows, so no option is read."""
    try:
        frame = _zrecv(sock, first_flags, False)
    except _Again:
        return None
    parts = [frame.bytes]
    while frame.more:
        frame = _zrecv(sock, _NOBLOCK, False)
        parts.append(frame.bytes)
    return parts


def readable(sock: Any) -> bool:
    """Whether a message is waiting on ``sock`` (its ``zmq.EVENTS`` has POLLIN)."""
    return bool(int(_zget(sock, _ZEVENTS)) & _ZPOLLIN)


# ------------------------------------------------------------------------------ local fast lane
# Local workers exchange STEP/RESET and their replies over a private Unix socketpair instead of
# the ZeroMQ socket (observations are in shared memory, so these messages are tiny). The bytes
# are the same msgpack headers, length-prefixed, or the compact forms of :mod:`sc2pool.pool.wire`;
# ZeroMQ's I/O threads cost four thread wake-ups per round trip, most of a small env's step
# when cores are few.
_LEN = struct.Struct("<I")


class Lane:
    """One end of a local fast lane: length-prefixed messages over a non-blocking Unix socket.

    Reads never block: :meth:`read_ready` returns the complete messages that have arrived (an
    incomplete one stays buffered), so a peer stopped mid-message cannot hang the reader, whose
    wait loop keeps checking liveness. Writes wait at most ``write_timeout`` seconds for room.
    """

    def __init__(self, sock: socket.socket, write_timeout: float | None = None) -> None:
        self.sock = sock
        sock.setblocking(False)
        self.fd = sock.fileno()
        self.write_timeout = write_timeout
        self._buf = bytearray()
        self._chunk = bytearray(1 << 16)
        self._view = memoryview(self._chunk)

    @staticmethod
    def frame(payload: bytes) -> bytes:
        """``payload`` with its length prefix, ready for :meth:`write_framed`."""
        return _LEN.pack(len(payload)) + payload

    def write(self, payload: bytes) -> None:
        """Send one message. Raises ``TimeoutError`` if the peer does not read for too long,
        ``OSError`` (e.g. ``BrokenPipeError``) if it is gone."""
        self.write_framed(self.frame(payload))

    def write_framed(self, data: bytes) -> None:
        """:meth:`write` for a message already framed by :meth:`frame`."""
        try:
            sent = self.sock.send(data)
        except BlockingIOError:
            sent = 0
        if sent == len(data):
            return
        view = memoryview(data)[sent:]
        deadline = None if self.write_timeout is None else time.monotonic() + self.write_timeout
        poller = select.poll()
        poller.register(self.fd, select.POLLOUT)
        while view:
            wait_ms = None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000))
            if not poller.poll(wait_ms) and deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError("lane peer is not reading")
            try:
                view = view[self.sock.send(view) :]
            except BlockingIOError:
                continue

    def read_ready(self) -> list[bytes]:
        """All complete messages available now (possibly none). Raises ``EOFError`` when the
        peer closed the lane."""
        sock, buf, chunk = self.sock, self._buf, self._chunk
        while True:
            try:
                n = sock.recv_into(chunk)
            except BlockingIOError:
                break
            except ConnectionResetError:
                n = 0
            if n == 0:
                raise EOFError("lane closed by peer")
            if n < len(chunk):
                # The usual case in lockstep: exactly one whole message, nothing buffered.
                if not buf and n >= 4 and _LEN.unpack_from(chunk)[0] + 4 == n:
                    return [bytes(self._view[4:n])]
                buf += self._view[:n]
                break
            buf += self._view[:n]
        out: list[bytes] = []
        pos = 0
        end = len(buf)
        while end - pos >= 4:
            (size,) = _LEN.unpack_from(buf, pos)
            if size > MAX_HEADER_BYTES:
                raise ProtocolError(f"lane message of {size} bytes exceeds the {MAX_HEADER_BYTES}-byte limit")
            if end - pos - 4 < size:
                break
            out.append(bytes(buf[pos + 4 : pos + 4 + size]))
            pos += 4 + size
        if pos:
            del buf[:pos]
        return out

    def close(self) -> None:
        self.sock.close()
