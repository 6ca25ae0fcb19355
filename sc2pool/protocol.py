"""The sc2pool wire protocol: message kinds, framing and the value codec.

Every ZeroMQ message is multipart: frame 0 is a msgpack *header* (a map that always carries the
protocol version ``v`` and the message kind ``k``), frames 1..n are raw numpy buffers whose dtype and
shape both ends know (from the spaces exchanged in HELLO, or from the header). Nothing is pickled:
values that are not plain msgpack types travel as msgpack extension types:

====  ==================  ==========================================================
code  python type         payload
====  ==================  ==========================================================
1     ``numpy.ndarray``   msgpack ``[dtype.str, shape, raw bytes]`` (C order)
2     numpy scalar        msgpack ``[dtype.str, raw bytes]``
3     ``tuple``           msgpack array of the items
====  ==================  ==========================================================

Decoding is bounded: header size, string/array/map lengths and the bytes of an embedded array are
checked against limits and against the declared dtype/shape, and object/void dtypes are refused, so a
malformed or hostile message raises :class:`~sc2pool.errors.ProtocolError` instead of allocating
without bound or executing anything.
"""

from __future__ import annotations

import enum
import math
import select
import socket
import struct
import threading
import time
from collections.abc import Sequence
from typing import Any

import msgpack
import numpy as np
import zmq
from zmq.backend import Socket as _ZmqSocket

from sc2pool.errors import EncodeError, ProtocolError

PROTOCOL_VERSION = 2

# A header larger than this is refused (it may legitimately hold rendered frames or terminal
# observations encoded as extension arrays, hence the generous bound).
MAX_HEADER_BYTES = 512 * 1024 * 1024
MAX_NDIM = 32
MAX_TUPLE_DEPTH = 32  # tuples (extension 3) nested deeper than this are refused
# dtype kinds allowed for arrays on the wire: bool, ints, uints, floats, complex, bytes/str,
# datetimes. Object ('O') and void/structured ('V') arrays are refused.
_SAFE_KINDS = frozenset("biufcSUmM")

EXT_NDARRAY = 1
EXT_NPSCALAR = 2
EXT_TUPLE = 3


class Kind(enum.IntEnum):
    """Message kinds (the ``k`` field of every header)."""

    HELLO = 1  # worker -> broker: version, name, host, pid, env count, spaces
    WELCOME = 2  # broker -> worker: global env indices, shm layout, heartbeat settings
    REFUSE = 3  # broker -> worker: reason
    READY = 4  # worker -> broker: host.start() finished
    RESET = 5  # broker -> worker: seeds, options for each of its envs
    STEP = 6  # broker -> worker: one action batch (frame 1)
    RESULT = 7  # worker -> broker: rewards, dones, infos, reset infos (+ obs frames)
    CALL = 8  # broker -> worker: get_attr/set_attr/env_method/has_attr/is_wrapped/render
    CALL_RESULT = 9  # worker -> broker: one value per requested env
    ERROR = 10  # worker -> broker: type, message, traceback, local env index
    HEARTBEAT = 11  # both ways, on the worker's heartbeat socket
    CLOSE = 12  # broker -> worker: shut down


# Suffix of the ZeroMQ identity of a worker's heartbeat socket (its main identity + this suffix).
HEARTBEAT_SUFFIX = b"~hb"


# --------------------------------------------------------------------------------------------- codec
def _default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        arr = obj
        if arr.dtype.kind not in _SAFE_KINDS:
            raise TypeError(f"numpy array of dtype {arr.dtype} cannot be sent")
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        return msgpack.ExtType(
            EXT_NDARRAY, msgpack.packb([arr.dtype.str, list(arr.shape), arr.tobytes()], use_bin_type=True)
        )
    if isinstance(obj, np.generic):
        if obj.dtype.kind not in _SAFE_KINDS:
            raise TypeError(f"numpy scalar of dtype {obj.dtype} cannot be sent")
        return msgpack.ExtType(EXT_NPSCALAR, msgpack.packb([obj.dtype.str, obj.tobytes()], use_bin_type=True))
    if isinstance(obj, tuple):
        # a fresh packer: this runs inside the thread's packer (re-entrancy would corrupt it)
        return msgpack.ExtType(
            EXT_TUPLE, msgpack.packb(list(obj), default=_default, strict_types=True, use_bin_type=True)
        )
    if isinstance(obj, dict):  # OrderedDict and other dict subclasses travel as plain dicts
        return dict(obj)
    if isinstance(obj, list):
        return list(obj)
    if isinstance(obj, (bool, int, float, str, bytes)):  # subclasses (IntEnum, str enums...)
        for base in (bool, int, float, str, bytes):
            if isinstance(obj, base):
                return base(obj)  # type: ignore[call-arg, arg-type]
    raise TypeError(f"cannot encode object of type {type(obj).__module__}.{type(obj).__qualname__}")


_TLS = threading.local()


def _packer_pack(obj: Any) -> bytes:
    # One Packer per thread (msgpack.packb would build a new one per call).
    packer = getattr(_TLS, "packer", None)
    if packer is None:
        packer = _TLS.packer = msgpack.Packer(default=_default, strict_types=True, use_bin_type=True)
    try:
        return packer.pack(obj)
    except BaseException:
        _TLS.packer = None  # a failed pack may leave the packer's buffer dirty
        raise


def _dtype(spec: Any) -> np.dtype[Any]:
    if not isinstance(spec, str) or len(spec) > 16:
        raise ProtocolError(f"bad dtype field {spec!r}")
    try:
        dt = np.dtype(spec)
    except Exception as exc:  # numpy raises TypeError, ValueError, SyntaxError... on odd strings
        raise ProtocolError(f"bad dtype {spec!r}") from exc
    if dt.kind not in _SAFE_KINDS or dt.fields is not None:
        raise ProtocolError(f"dtype {spec!r} is not allowed on the wire")
    if dt.itemsize == 0:  # "<U0", "S0": cannot hold data (np.frombuffer refuses them)
        raise ProtocolError(f"zero-size dtype {spec!r} is not allowed on the wire")
    return dt


def _shape(spec: Any) -> tuple[int, ...]:
    if not isinstance(spec, (list, tuple)) or len(spec) > MAX_NDIM:
        raise ProtocolError(f"bad shape field {spec!r}")
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in spec):
        raise ProtocolError(f"bad shape {spec!r}")
    return tuple(spec)


def array_from_buffer(buf: Any, dtype: Any, shape: Any, *, copy: bool = True) -> np.ndarray:
    """Build an array from a raw buffer, checking that its size matches ``dtype`` x ``shape``."""
    dt = dtype if isinstance(dtype, np.dtype) else _dtype(dtype)
    shp = _shape(shape)
    n = math.prod(shp) * dt.itemsize
    if len(memoryview(buf)) != n:
        raise ProtocolError(f"buffer of {len(memoryview(buf))} bytes does not match {dt.str}{list(shp)} ({n} bytes)")
    arr = np.frombuffer(buf, dtype=dt).reshape(shp)
    return arr.copy() if copy else arr


_LIMITS = {
    "max_str_len": 64 * 1024 * 1024,
    "max_bin_len": MAX_HEADER_BYTES,
    "max_array_len": 16 * 1024 * 1024,
    "max_map_len": 1024 * 1024,
    "max_ext_len": MAX_HEADER_BYTES,
}


def _ext_hook(code: int, data: bytes) -> Any:
    if code == EXT_NDARRAY:
        parts = msgpack.unpackb(data, raw=False, **_LIMITS)
        if not isinstance(parts, list) or len(parts) != 3 or not isinstance(parts[2], bytes):
            raise ProtocolError("malformed ndarray extension")
        return array_from_buffer(parts[2], _dtype(parts[0]), parts[1], copy=True)
    if code == EXT_NPSCALAR:
        parts = msgpack.unpackb(data, raw=False, **_LIMITS)
        if not isinstance(parts, list) or len(parts) != 2 or not isinstance(parts[1], bytes):
            raise ProtocolError("malformed numpy scalar extension")
        dt = _dtype(parts[0])
        if len(parts[1]) != dt.itemsize:
            raise ProtocolError("numpy scalar size mismatch")
        return np.frombuffer(parts[1], dtype=dt)[0]
    if code == EXT_TUPLE:
        # Each nesting level re-enters msgpack's C unpacker (tens of KB of C stack): without a
        # bound a ~1 KB message of nested tuples overflows the stack (SIGSEGV).
        depth = getattr(_TLS, "tuple_depth", 0)
        if depth >= MAX_TUPLE_DEPTH:
            raise ProtocolError(f"tuples nested deeper than {MAX_TUPLE_DEPTH}")
        _TLS.tuple_depth = depth + 1
        try:
            items = unpack(data)
        finally:
            _TLS.tuple_depth = depth
        if not isinstance(items, list):
            raise ProtocolError("malformed tuple extension")
        return tuple(items)
    raise ProtocolError(f"unknown msgpack extension code {code}")


def _find_unencodable(obj: Any, path: str) -> str | None:
    """Path of the first value inside ``obj`` that the codec cannot encode (None if all can)."""
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return None
    if isinstance(obj, (np.ndarray, np.generic)):
        return None if obj.dtype.kind in _SAFE_KINDS else f"{path} (numpy dtype {obj.dtype})"
    if isinstance(obj, dict):
        for key, value in obj.items():
            bad = _find_unencodable(key, f"{path} key {key!r}")
            if bad is None:
                bad = _find_unencodable(value, f"{path}[{key!r}]")
            if bad is not None:
                return bad
        return None
    if isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            bad = _find_unencodable(value, f"{path}[{i}]")
            if bad is not None:
                return bad
        return None
    return f"{path} (type {type(obj).__module__}.{type(obj).__qualname__})"


def pack(obj: Any, what: str = "value") -> bytes:
    """Encode ``obj`` (msgpack types, numpy arrays and scalars, tuples) to bytes.

    Raises :class:`EncodeError` naming the first offending path (``what`` is its root name).
    """
    try:
        return _packer_pack(obj)
    except (TypeError, ValueError, OverflowError) as exc:
        bad = _find_unencodable(obj, what)
        raise EncodeError(
            f"{bad or what} cannot be sent between processes: only msgpack types (None, bool, int, "
            f"float, str, bytes, list, dict), tuples and numpy arrays/scalars travel on the wire ({exc})"
        ) from None


def unpack(data: bytes | memoryview) -> Any:
    """Decode bytes produced by :func:`pack`, with bounded sizes. Raises :class:`ProtocolError`."""
    if len(data) > MAX_HEADER_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes exceeds the {MAX_HEADER_BYTES}-byte limit")
    try:
        return msgpack.unpackb(data, raw=False, ext_hook=_ext_hook, strict_map_key=False, **_LIMITS)
    except ProtocolError:
        raise
    except Exception as exc:  # msgpack raises many types (ExtraData, FormatError, ValueError...)
        raise ProtocolError(f"undecodable message: {type(exc).__name__}: {exc}") from None


# ------------------------------------------------------------------------------------------ headers
def header(kind: Kind, **fields: Any) -> bytes:
    """Encode a message header of ``kind`` carrying the protocol version and ``fields``."""
    fields["v"] = PROTOCOL_VERSION
    fields["k"] = int(kind)
    try:
        return _packer_pack(fields)  # hot path: the error text is built only on failure
    except (TypeError, ValueError, OverflowError):
        return pack(fields, what=f"{kind.name} message")


def decode_header(frame: bytes | memoryview) -> dict[Any, Any]:
    """Decode and validate frame 0 of a message: a map with an int ``v`` and a known ``k``.

    A version mismatch is reported as :class:`ProtocolError` whose message names both versions;
    callers that must answer it (the broker, on HELLO) use :func:`peek_version` first.
    """
    hdr = unpack(frame)
    if not isinstance(hdr, dict):
        raise ProtocolError(f"message header is a {type(hdr).__name__}, not a map")
    version = hdr.get("v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"protocol version mismatch: peer speaks {version!r}, this side speaks {PROTOCOL_VERSION}"
        )
    kind = hdr.get("k")
    if not isinstance(kind, int) or kind not in _KINDS:
        raise ProtocolError(f"unknown message kind {kind!r}")
    return hdr


_KINDS = frozenset(int(k) for k in Kind)


def peek_version(frame: bytes | memoryview) -> Any:
    """The ``v`` field of a header, or None when the frame is not a decodable map."""
    try:
        hdr = unpack(frame)
    except ProtocolError:
        return None
    return hdr.get("v") if isinstance(hdr, dict) else None


def require(hdr: dict[Any, Any], key: str, types: type | tuple[type, ...]) -> Any:
    """Fetch a required header field of the given type(s), or raise ProtocolError."""
    value = hdr.get(key)
    if not isinstance(value, types):
        raise ProtocolError(f"header field {key!r} missing or of wrong type ({type(value).__name__})")
    return value


def frames_to_arrays(
    frames: Sequence[Any], dtypes: Sequence[np.dtype[Any]], shapes: Sequence[tuple[int, ...]]
) -> list[np.ndarray]:
    """Views of the raw frames as arrays of known dtypes/shapes (sizes checked; no copy)."""
    if len(frames) != len(dtypes):
        raise ProtocolError(f"expected {len(dtypes)} data frames, got {len(frames)}")
    return [array_from_buffer(f, d, s, copy=False) for f, d, s in zip(frames, dtypes, shapes, strict=True)]


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


def readable(sock: Any) -> bool:
    """Whether a message is waiting on ``sock`` (its ``zmq.EVENTS`` has POLLIN)."""
    return bool(int(_zget(sock, _ZEVENTS)) & _ZPOLLIN)


# ------------------------------------------------------------------------------ local fast lane
# Local workers exchange STEP/RESET and their replies over a private Unix socketpair instead of
# the ZeroMQ socket (observations are in shared memory, so these messages are tiny). The bytes
# are the same msgpack headers, length-prefixed, or the compact forms below; ZeroMQ's I/O threads
# cost four thread wake-ups per round trip, which on a 2-core machine is most of a small env's step.
_LEN = struct.Struct("<I")

# Compact lane messages: the lockstep STEP and its common reply (no env finished, every info
# empty) as fixed binary layouts instead of msgpack maps. Encoding and decoding a msgpack header
# at both ends of every step cost about a third of a small env's step on 2 cores; a compact
# message is one struct call. They travel only on a local lane, whose peer is a process this
# trainer spawned with the same code, so they need no version field. A compact message starts
# with 0xC1, the one byte msgpack never uses, so it cannot be mistaken for a header:
#
#   STEP    C1 'S' seq:u64  action bytes            (dtype and shape: the last full STEP's)
#   RESULT  C1 'R' seq:u64  reward:f64 x n  terminated:u8 x n  truncated:u8 x n
#
# Anything else (first STEP, an action dtype/shape change, a reply with infos, a finished
# episode, an error) is a full msgpack header as on ZeroMQ.
COMPACT = 0xC1
COMPACT_STEP = b"\xc1S"
COMPACT_RESULT = b"\xc1R"
_SEQ = struct.Struct("<Q")
COMPACT_HEAD = 2 + _SEQ.size


def compact_step(seq: int, actions: bytes) -> bytes:
    return COMPACT_STEP + _SEQ.pack(seq) + actions


def compact_seq(data: bytes) -> int:
    """The sequence number of a compact message (``ProtocolError`` if it is too short)."""
    if len(data) < COMPACT_HEAD:
        raise ProtocolError(f"compact lane message of {len(data)} bytes is truncated")
    return int(_SEQ.unpack_from(data, 2)[0])


_RESULT_STRUCTS: dict[int, struct.Struct] = {}


def compact_result(seq: int, rewards: Sequence[float], terminated: Sequence[bool], truncated: Sequence[bool]) -> bytes:
    n = len(rewards)
    st = _RESULT_STRUCTS.get(n)
    if st is None:
        st = _RESULT_STRUCTS[n] = struct.Struct(f"<2sQ{n}d{n}?{n}?")
    return st.pack(COMPACT_RESULT, seq, *rewards, *terminated, *truncated)


def compact_result_arrays(data: bytes, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rewards f8, terminated bool, truncated bool)`` of a compact RESULT for ``n`` envs."""
    if len(data) != COMPACT_HEAD + 10 * n:
        raise ProtocolError(f"compact RESULT of {len(data)} bytes for {n} envs (expected {COMPACT_HEAD + 10 * n})")
    rewards = np.frombuffer(data, dtype=np.float64, count=n, offset=COMPACT_HEAD)
    flags = np.frombuffer(data, dtype=np.uint8, count=2 * n, offset=COMPACT_HEAD + 8 * n)
    if flags.max(initial=0) > 1:
        raise ProtocolError("compact RESULT carries flag bytes other than 0 and 1")
    done = flags.view(np.bool_)
    return rewards, done[:n], done[n:]


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
