"""The sc2pool wire schema: one typed message per kind, its encoding and its bounds checks.

This module defines the header keys, once. Every ZeroMQ message is multipart:
frame 0 is a msgpack *header* (a map that always carries the protocol version ``v`` and the kind
``k``), frames 1..n are raw numpy buffers whose dtype and shape both ends know (from the spaces
exchanged in HELLO, or from the header). Values inside a header use the bounded codec of
:mod:`sc2pool.pool.codec` (never pickle).

Two messages also have a *compact* form, a fixed binary layout used for the lockstep STEP and its
common reply, on a local lane and over ZeroMQ to a worker that announced it reads them (HELLO's
``compact_zmq``). A compact message starts with 0xC1, the one byte msgpack never uses, so it
cannot be mistaken for a header::

    STEP    C1 'S' seq:u64  action bytes            (dtype and shape: the last full STEP's)
    RESULT  C1 'R' seq:u64  reward:f64 x n  terminated:u8 x n  truncated:u8 x n

Anything else (a first STEP, an action dtype/shape change, a reply with infos, a finished episode,
an error) is a full header. :meth:`Step.encode` and :meth:`Result.encode` choose the form when
asked for ``compact=True``; :func:`decode` reads either.

Each message class names its fields in full; ``encode`` writes the short keys of the protocol
(listed in each class's docstring), ``from_header`` reads them back and checks their types,
raising :class:`MalformedMessage` (a :class:`~sc2pool.errors.ProtocolError`) naming the field.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from sc2pool.errors import ProtocolError
from sc2pool.pool.codec import _packer_pack, pack, unpack

PROTOCOL_VERSION = 2


class Kind(enum.IntEnum):
    """Message kinds (the ``k`` field of every header)."""

    HELLO = 1  # worker -> broker: version, name, hostname, pid, env count, spaces
    WELCOME = 2  # broker -> worker: global env indices, shm layout, heartbeat settings
    REFUSE = 3  # broker -> worker: reason
    READY = 4  # worker -> broker: host.start() finished
    RESET = 5  # broker -> worker: seeds, options for each of its envs
    STEP = 6  # broker -> worker: one action batch (inline, or frame 1)
    RESULT = 7  # worker -> broker: rewards, dones, infos, reset infos (+ obs frames)
    CALL = 8  # broker -> worker: get_attr/set_attr/env_method/has_attr/is_wrapped/render
    CALL_RESULT = 9  # worker -> broker: one value per requested env
    ERROR = 10  # worker -> broker: type, message, traceback, local env index
    HEARTBEAT = 11  # both ways, on the worker's heartbeat socket
    CLOSE = 12  # broker -> worker: shut down


_KINDS = frozenset(int(k) for k in Kind)

# Suffix of the ZeroMQ identity of a worker's heartbeat socket (its main identity + this suffix).
HEARTBEAT_SUFFIX = b"~hb"

# The operations a CALL may name (the VecEnv methods that reach into an env).
CALL_OPS = frozenset({"get_attr", "set_attr", "env_method", "has_attr", "is_wrapped", "render"})


class MalformedMessage(ProtocolError):
    """A header of a known kind whose fields are missing or of the wrong type.

    ``kind`` and ``seq`` (the header's sequence number, as it came) let a worker answer a request
    with an ERROR the trainer can match, instead of leaving it to a timeout."""

    def __init__(self, message: str, kind: Kind, seq: Any = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.seq = seq


# ------------------------------------------------------------------------------------ raw headers
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


def peek_version(frame: bytes | memoryview) -> Any:
    """The ``v`` field of a header, or None when the frame is not a decodable map."""
    try:
        hdr = unpack(frame)
    except ProtocolError:
        return None
    return hdr.get("v") if isinstance(hdr, dict) else None


def is_hello(frame: bytes | memoryview) -> bool:
    """Whether ``frame`` is a HELLO header of any protocol version (so that a worker of another
    version can be refused with a reason naming both, rather than dropped)."""
    try:
        hdr = unpack(frame)
    except ProtocolError:
        return False
    return isinstance(hdr, dict) and hdr.get("k") == int(Kind.HELLO)


# ----------------------------------------------------------------------------------- compact forms
COMPACT = 0xC1
COMPACT_STEP = b"\xc1S"
COMPACT_RESULT = b"\xc1R"
_SEQ = struct.Struct("<Q")
COMPACT_HEAD = 2 + _SEQ.size


def compact_step(seq: int, actions: bytes) -> bytes:
    """A compact STEP: ``seq`` and the raw action bytes (layout: the last full STEP's)."""
    return compact_step_head(seq) + actions


def compact_step_head(seq: int) -> bytes:
    """The bytes before the actions in a compact STEP: a step's messages to many workers share
    them (``compact_step_head(seq) + actions == compact_step(seq, actions)``)."""
    return COMPACT_STEP + _SEQ.pack(seq)


def compact_seq(data: bytes) -> int:
    """The sequence number of a compact message (``ProtocolError`` if it is too short)."""
    if len(data) < COMPACT_HEAD:
        raise ProtocolError(f"compact lane message of {len(data)} bytes is truncated")
    return int(_SEQ.unpack_from(data, 2)[0])


_RESULT_STRUCTS: dict[int, struct.Struct] = {}


def compact_result(seq: int, rewards: Sequence[float], terminated: Sequence[bool], truncated: Sequence[bool]) -> bytes:
    """A compact RESULT: ``seq``, then rewards and both flags of every env."""
    n = len(rewards)
    st = _RESULT_STRUCTS.get(n)
    if st is None:
        st = _RESULT_STRUCTS[n] = struct.Struct(f"<2sQ{n}d{n}?{n}?")
    return st.pack(COMPACT_RESULT, seq, *rewards, *terminated, *truncated)


def compact_result_arrays(data: bytes, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rewards f8, terminated bool, truncated bool)`` of a compact RESULT for ``n`` envs."""
    if len(data) != COMPACT_HEAD + 10 * n:
        raise ProtocolError(f"compact RESULT of {len(data)} bytes for {n} envs (expected {COMPACT_HEAD + 10 * n})")
    flag_bytes = bytes(data[COMPACT_HEAD + 8 * n :])
    if flag_bytes.translate(None, b"\x00\x01"):  # what is left is neither 0 nor 1 (a tenth of numpy's max)
        raise ProtocolError("compact RESULT carries flag bytes other than 0 and 1")
    rewards = np.frombuffer(data, dtype=np.float64, count=n, offset=COMPACT_HEAD)
    flags = np.frombuffer(data, dtype=np.uint8, count=2 * n, offset=COMPACT_HEAD + 8 * n)
    done = flags.view(np.bool_)
    return rewards, done[:n], done[n:]


def _can_be_compact(seq: Any) -> bool:
    return type(seq) is int and 0 <= seq < 1 << 64


# ------------------------------------------------------------------------------------ field checks
def _field(hdr: dict[Any, Any], key: str, types: type | tuple[type, ...], kind: Kind, name: str,
           *, optional: bool = False) -> Any:
    value = hdr.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        raise MalformedMessage(
            f"{kind.name} field {name!r} ({key!r}) missing or of wrong type ({type(value).__name__})",
            kind, _seq_of(hdr),
        )
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _seq_of(hdr: dict[Any, Any]) -> Any:
    return hdr.get("s")  # echoed as it came: the peer matches its own sequence numbers


def _int_list(hdr: dict[Any, Any], key: str, kind: Kind, name: str, length: int | None = None) -> list[int]:
    value = _field(hdr, key, list, kind, name)
    if not all(type(x) is int for x in value) or (length is not None and len(value) != length):
        what = f"{length} ints" if length is not None else "ints"
        raise MalformedMessage(f"{kind.name} field {name!r} ({key!r}) must be a list of {what}", kind, _seq_of(hdr))
    return value


# ---------------------------------------------------------------------------------------- messages
@dataclass(slots=True)
class Hello:
    """Worker -> broker, first message: who it is and what its envs look like.

    Keys: ``name``, ``host`` (the machine's hostname), ``pid``, ``n`` (env count), ``obs``/``act`` (space descriptions),
    ``lay`` (their array layouts), ``render_mode``, ``local``, ``cz`` (reads compact STEPs over
    ZeroMQ), ``tok`` (a local worker's start-up secret)."""

    KIND: ClassVar[Kind] = Kind.HELLO
    name: str
    hostname: str
    pid: int
    num_envs: int
    observation_space: Any
    action_space: Any
    layout: Any
    render_mode: str | None = None
    local: bool = False
    compact_zmq: bool = True
    token: str | None = None

    @staticmethod
    def layout_of(observation_layout: Any, action_layout: Any) -> dict[str, Any]:
        """The ``layout`` field from the array layouts of the observation and action spaces."""
        return {"obs": observation_layout, "act": action_layout}

    @property
    def declares_layout(self) -> bool:
        """Whether ``layout`` has the shape :meth:`layout_of` gives (workers of older versions
        declare none)."""
        return isinstance(self.layout, dict)

    @property
    def observation_layout(self) -> Any:
        """The declared array layout of the observation space (None if not declared)."""
        return self.layout.get("obs") if isinstance(self.layout, dict) else None

    @property
    def action_layout(self) -> Any:
        """The declared array layout of the action space (None if not declared)."""
        return self.layout.get("act") if isinstance(self.layout, dict) else None

    def encode(self) -> bytes:
        fields: dict[str, Any] = {
            "name": self.name, "host": self.hostname, "pid": self.pid, "n": self.num_envs,
            "obs": self.observation_space, "act": self.action_space, "lay": self.layout,
            "render_mode": self.render_mode, "local": self.local, "cz": self.compact_zmq,
        }
        if self.token:
            fields["tok"] = self.token
        return header(Kind.HELLO, **fields)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Hello:
        k = Kind.HELLO
        return cls(
            name=_field(hdr, "name", str, k, "name"),
            hostname=_field(hdr, "host", str, k, "hostname"),
            pid=_field(hdr, "pid", int, k, "pid"),
            num_envs=_field(hdr, "n", int, k, "num_envs"),
            observation_space=hdr.get("obs"),
            action_space=hdr.get("act"),
            layout=hdr.get("lay"),
            render_mode=_field(hdr, "render_mode", str, k, "render_mode", optional=True),
            local=bool(hdr.get("local")),
            compact_zmq=hdr.get("cz") is True,
            token=_field(hdr, "tok", str, k, "token", optional=True),
        )


@dataclass(slots=True)
class Welcome:
    """Broker -> worker: the worker joined. Keys: ``slots`` (``[lo, hi)`` global env indices),
    ``shm`` (``{"path", "n"}`` of the shared observation file, or None), ``hb`` (``{"interval",
    "timeout"}`` heartbeat settings)."""

    KIND: ClassVar[Kind] = Kind.WELCOME
    lo: int
    hi: int
    shm_path: str | None = None
    shm_envs: int | None = None
    heartbeat_interval: float | None = None
    heartbeat_timeout: float | None = None

    def encode(self) -> bytes:
        shm = {"path": self.shm_path, "n": self.shm_envs} if self.shm_path is not None else None
        hb = {"interval": self.heartbeat_interval, "timeout": self.heartbeat_timeout}
        return header(Kind.WELCOME, slots=[self.lo, self.hi], shm=shm, hb=hb)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Welcome:
        k = Kind.WELCOME
        lo, hi = _int_list(hdr, "slots", k, "slots", 2)
        if not 0 <= lo < hi:
            raise MalformedMessage(f"WELCOME slots [{lo}, {hi}) are empty or negative", k)
        shm = _field(hdr, "shm", dict, k, "shm", optional=True) or {}
        path, n = shm.get("path"), shm.get("n")
        if shm and (not isinstance(path, str) or type(n) is not int):
            raise MalformedMessage("WELCOME field 'shm' must carry a str 'path' and an int 'n'", k)
        hb = _field(hdr, "hb", dict, k, "hb", optional=True) or {}
        interval, timeout = hb.get("interval"), hb.get("timeout")
        return cls(
            lo, hi,
            shm_path=path if shm else None,
            shm_envs=n if shm else None,
            heartbeat_interval=_number(interval),
            heartbeat_timeout=_number(timeout),
        )


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


@dataclass(slots=True)
class Refuse:
    """Broker -> worker: not admitted. Key: ``reason``."""

    KIND: ClassVar[Kind] = Kind.REFUSE
    reason: str = "no reason given"

    def encode(self) -> bytes:
        return header(Kind.REFUSE, reason=self.reason)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Refuse:
        reason = hdr.get("reason")
        return cls(str(reason) if reason is not None else "no reason given")


@dataclass(slots=True)
class Ready:
    """Worker -> broker: its envs started; it serves requests now. No fields."""

    KIND: ClassVar[Kind] = Kind.READY

    def encode(self) -> bytes:
        return header(Kind.READY)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Ready:
        return cls()


@dataclass(slots=True)
class Heartbeat:
    """Both ways, on the worker's heartbeat socket: a ping and its answer. No fields."""

    KIND: ClassVar[Kind] = Kind.HEARTBEAT

    def encode(self) -> bytes:
        return header(Kind.HEARTBEAT)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Heartbeat:
        return cls()


@dataclass(slots=True)
class Close:
    """Broker -> worker: shut down. No fields."""

    KIND: ClassVar[Kind] = Kind.CLOSE

    def encode(self) -> bytes:
        return header(Kind.CLOSE)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Close:
        return cls()


@dataclass(slots=True)
class Reset:
    """Broker -> worker: reset every env of the worker. Keys: ``s`` (sequence number),
    ``seeds`` and ``opts`` (one per env, or None for all)."""

    KIND: ClassVar[Kind] = Kind.RESET
    seq: Any
    seeds: list[Any] | None = None
    options: list[Any] | None = None

    def encode(self) -> bytes:
        return header(Kind.RESET, s=self.seq, seeds=self.seeds, opts=self.options)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Reset:
        k = Kind.RESET
        seeds = _field(hdr, "seeds", list, k, "seeds", optional=True)
        if seeds is not None and not all(x is None or type(x) is int for x in seeds):
            raise MalformedMessage("RESET field 'seeds' must hold ints or None", k, _seq_of(hdr))
        return cls(hdr.get("s"), seeds, _field(hdr, "opts", list, k, "options", optional=True))


@dataclass(slots=True)
class Step:
    """Broker -> worker: one action batch for the worker's envs.

    Full form keys: ``s``; then either ``ad``/``as`` (dtype string and shape of a flat action
    array, its bytes inline in ``a`` on a lane or as frame 1 on ZeroMQ) or ``al`` (structured
    actions: one ``[dtype, shape, bytes, zero_dim]`` entry per leaf of a Dict/Tuple space).
    Compact form: ``seq`` and the raw bytes, in the layout of the last full STEP
    (``compact=True`` when decoded from it)."""

    KIND: ClassVar[Kind] = Kind.STEP
    seq: Any
    action_dtype: str | None = None
    action_shape: tuple[int, ...] | None = None
    data: bytes | None = None
    leaves: list[Any] | None = None
    compact: bool = False

    def encode(self, *, compact: bool = False, inline: bool = True) -> bytes:
        """The header (or, with ``compact`` and a usable ``seq``, the compact form). ``inline``:
        the action bytes go in the header (a lane); otherwise the caller sends them as frame 1."""
        if self.leaves is not None:
            return header(Kind.STEP, s=self.seq, al=self.leaves)
        if compact and self.data is not None and _can_be_compact(self.seq):
            return compact_step(self.seq, self.data)
        if inline and self.data is not None:
            return header(Kind.STEP, s=self.seq, ad=self.action_dtype, a=self.data, **{"as": list(self.action_shape or ())})
        return header(Kind.STEP, s=self.seq, ad=self.action_dtype, **{"as": list(self.action_shape or ())})

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Step:
        k = Kind.STEP
        seq = hdr.get("s")
        if "al" in hdr:
            return cls(seq, leaves=_field(hdr, "al", list, k, "leaves"))
        dtype = _field(hdr, "ad", str, k, "action_dtype")
        shape = tuple(_int_list(hdr, "as", k, "action_shape"))
        return cls(seq, dtype, shape, _field(hdr, "a", bytes, k, "data", optional=True))


@dataclass(slots=True)
class Result:
    """Worker -> broker: the answer to a STEP or a RESET (observations: shared memory or frames).

    STEP answer keys: ``s``, ``r`` (rewards), ``te``/``tr`` (terminated/truncated flags), ``i``
    (infos, or None when all are empty), ``ri`` (``[local index, reset info]`` of the envs reset
    in this step, or None). RESET answer keys: ``s``, ``ri`` (one reset info per env); its
    ``rewards`` are None. Compact form: see the module docstring; decoded from it, ``compact`` is
    True and the rewards and flags are arrays (views of the message) instead of lists."""

    KIND: ClassVar[Kind] = Kind.RESULT
    seq: Any
    rewards: Any = None
    terminated: Any = None
    truncated: Any = None
    infos: list[Any] | None = None
    reset_infos: list[Any] | None = None
    compact: bool = False

    def encode(self, *, compact: bool = False) -> bytes:
        """The header; with ``compact``, the compact form whenever it can say everything (no
        infos, no resets, an unsigned 64-bit ``seq``). Raises ``EncodeError`` naming the value
        that cannot travel."""
        if self.rewards is None:  # the answer to a RESET
            return header(Kind.RESULT, s=self.seq, ri=self.reset_infos)
        if compact and self.infos is None and self.reset_infos is None and _can_be_compact(self.seq):
            return compact_result(self.seq, self.rewards, self.terminated, self.truncated)
        return pack(
            {"v": PROTOCOL_VERSION, "k": int(Kind.RESULT), "s": self.seq, "r": self.rewards,
             "te": self.terminated, "tr": self.truncated, "i": self.infos, "ri": self.reset_infos},
            what="RESULT message",
        )

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Result:
        k = Kind.RESULT
        # The well-formed STEP answer first, in plain type checks (the field-by-field checks
        # below, which name what is wrong, cost twice as much and run for every full RESULT).
        r, te, tr, i, ri = hdr.get("r"), hdr.get("te"), hdr.get("tr"), hdr.get("i"), hdr.get("ri")
        if (
            type(r) is list and type(te) is list and type(tr) is list
            and (i is None or type(i) is list) and (ri is None or type(ri) is list)
            and len(r) == len(te) == len(tr)
        ):
            return cls(hdr.get("s"), r, te, tr, i, ri)
        ri = _field(hdr, "ri", list, k, "reset_infos", optional=True)
        if "r" not in hdr:
            if ri is None:
                raise MalformedMessage("RESULT carries neither rewards nor reset infos", k, _seq_of(hdr))
            return cls(hdr.get("s"), reset_infos=ri)
        rewards = _field(hdr, "r", list, k, "rewards")
        term = _field(hdr, "te", list, k, "terminated")
        trunc = _field(hdr, "tr", list, k, "truncated")
        if not len(rewards) == len(term) == len(trunc):
            raise MalformedMessage(
                f"RESULT has {len(rewards)} rewards, {len(term)} terminated and {len(trunc)} truncated flags",
                k, _seq_of(hdr),
            )
        return cls(hdr.get("s"), rewards, term, trunc, _field(hdr, "i", list, k, "infos", optional=True), ri)

    @classmethod
    def from_compact(cls, data: bytes, num_envs: int) -> Result:
        """A compact RESULT for ``num_envs`` envs (arrays are views of ``data``). Raises
        :class:`ProtocolError` if its size does not fit ``num_envs`` or a flag is not 0 or 1."""
        rewards, term, trunc = compact_result_arrays(data, num_envs)
        # positional: this runs for every worker on every lockstep step
        return cls(_SEQ.unpack_from(data, 2)[0], rewards, term, trunc, None, None, True)


class CompactResult(Result):
    """A compact RESULT as the broker files it: its size and sequence number checked, its rewards
    and flags left as bytes until read.

    The VecEnv's lockstep step copies them as bytes into its own buffers (:meth:`copy_into`) and
    checks the flag bytes of all workers at once, instead of building three arrays per worker
    message; reading :attr:`rewards`, :attr:`terminated` or :attr:`truncated` builds the arrays
    (checking the flags, :class:`ProtocolError` if one is neither 0 nor 1), as
    :meth:`Result.from_compact` does. Raises :class:`ProtocolError` if ``data`` is not the size
    of a compact RESULT for ``num_envs`` envs."""

    __slots__ = ("data", "num_envs")

    def __init__(self, data: bytes, num_envs: int) -> None:
        if len(data) != COMPACT_HEAD + 10 * num_envs:
            raise ProtocolError(
                f"compact RESULT of {len(data)} bytes for {num_envs} envs (expected {COMPACT_HEAD + 10 * num_envs})"
            )
        self.seq = _SEQ.unpack_from(data, 2)[0]
        self.infos = None
        self.reset_infos = None
        self.compact = True
        self.data = data
        self.num_envs = num_envs

    def __getattr__(self, name: str) -> Any:
        # Only the unset array slots get here (normal lookup found nothing): build them once.
        if name in ("rewards", "terminated", "truncated"):
            self.rewards, self.terminated, self.truncated = compact_result_arrays(self.data, self.num_envs)
            return getattr(self, name)
        raise AttributeError(name)

    def copy_into(self, rewards_f8: memoryview, terminated: memoryview, truncated: memoryview, at: int) -> None:
        """Copy the rewards (float64) into the byte view ``rewards_f8`` and the flag bytes into the
        byte views ``terminated``/``truncated``, at env ``at``. The flags are not checked here."""
        n, data = self.num_envs, self.data
        flags = COMPACT_HEAD + 8 * n
        rewards_f8[at * 8 : (at + n) * 8] = data[COMPACT_HEAD:flags]
        terminated[at : at + n] = data[flags : flags + n]
        truncated[at : at + n] = data[flags + n :]


@dataclass(slots=True)
class Call:
    """Broker -> worker: a VecEnv method that reaches into envs. Keys: ``s``, ``op`` (one of
    :data:`CALL_OPS`), ``name`` (attribute, method or wrapper path), ``idx`` (local env indices),
    and by op: ``value`` (set_attr), ``args``/``kwargs`` (env_method)."""

    KIND: ClassVar[Kind] = Kind.CALL
    seq: Any
    op: str
    name: str
    indices: list[int]
    value: Any = None
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)

    def encode(self) -> bytes:
        fields: dict[str, Any] = {}
        if self.op == "set_attr":
            fields["value"] = self.value
        elif self.op == "env_method":
            fields["args"] = list(self.args)
            fields["kwargs"] = self.kwargs
        return header(Kind.CALL, s=self.seq, op=self.op, name=self.name, idx=self.indices, **fields)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Call:
        k = Kind.CALL
        op = _field(hdr, "op", str, k, "op")
        if op not in CALL_OPS:
            raise MalformedMessage(f"unknown call {op!r}", k, _seq_of(hdr))
        return cls(
            hdr.get("s"), op, str(hdr.get("name")), _int_list(hdr, "idx", k, "indices"),
            value=hdr.get("value"),
            args=_field(hdr, "args", list, k, "args", optional=True) or [],
            kwargs=_field(hdr, "kwargs", dict, k, "kwargs", optional=True) or {},
        )


@dataclass(slots=True)
class CallResult:
    """Worker -> broker: one value per env a CALL named, in order. Keys: ``s``, ``res``."""

    KIND: ClassVar[Kind] = Kind.CALL_RESULT
    seq: Any
    results: list[Any]

    def encode(self) -> bytes:
        return header(Kind.CALL_RESULT, s=self.seq, res=self.results)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> CallResult:
        return cls(hdr.get("s"), _field(hdr, "res", list, Kind.CALL_RESULT, "results"))


@dataclass(slots=True)
class Error:
    """Worker -> broker: an env (or the worker) failed. Keys: ``s`` (the request's sequence
    number, None outside a request), ``name``, ``pid``, ``idx`` (local env index or None),
    ``et``/``em``/``tb`` (exception type, message, traceback), ``stage`` (what was running),
    ``tok`` (a local worker's start-up secret: proves a start-up error is its own).

    Decoding is lenient (text fields are coerced to str): a worker's report of its failure should
    reach the user even when it is odd."""

    KIND: ClassVar[Kind] = Kind.ERROR
    seq: Any
    name: str
    pid: int
    index: int | None
    error_type: str
    message: str
    traceback: str
    stage: str
    token: str | None = None

    def encode(self) -> bytes:
        fields: dict[str, Any] = {"idx": self.index, "et": self.error_type, "em": self.message,
                                  "tb": self.traceback, "stage": self.stage}
        if self.token:
            fields["tok"] = self.token
        return header(Kind.ERROR, s=self.seq, name=self.name, pid=self.pid, **fields)

    @classmethod
    def from_header(cls, hdr: dict[Any, Any]) -> Error:
        idx, pid, tok = hdr.get("idx"), hdr.get("pid"), hdr.get("tok")
        return cls(
            hdr.get("s"), str(hdr.get("name")), pid if type(pid) is int else -1,
            idx if type(idx) is int else None,
            str(hdr.get("et", "Exception")), str(hdr.get("em", "")), str(hdr.get("tb", "")),
            str(hdr.get("stage", "")), tok if isinstance(tok, str) else None,
        )


Message = Hello | Welcome | Refuse | Ready | Reset | Step | Result | Call | CallResult | Error | Heartbeat | Close

_CLASSES: dict[int, Any] = {
    int(c.KIND): c
    for c in (Hello, Welcome, Refuse, Ready, Reset, Step, Result, Call, CallResult, Error, Heartbeat, Close)
}


def from_header(hdr: dict[Any, Any]) -> Message:
    """The typed message of a header already checked by :func:`decode_header`."""
    msg: Message = _CLASSES[hdr["k"]].from_header(hdr)
    return msg


def decode(frame: bytes | memoryview, num_envs: int | None = None) -> Message:
    """Decode frame 0 of any message, full or compact, into its typed message.

    ``num_envs`` (the sender's env count) is needed to read a compact RESULT. Raises
    :class:`ProtocolError` (:class:`MalformedMessage` when a known kind has bad fields)."""
    head = frame[:2]
    if head == COMPACT_STEP:  # the lockstep hot path: positional fields, no keyword parsing
        if len(frame) < COMPACT_HEAD:
            raise ProtocolError(f"compact lane message of {len(frame)} bytes is truncated")
        return Step(_SEQ.unpack_from(frame, 2)[0], None, None, bytes(frame[COMPACT_HEAD:]), None, True)
    if head == COMPACT_RESULT:
        if num_envs is None:
            raise ProtocolError("a compact RESULT cannot be read without the sender's env count")
        return Result.from_compact(bytes(frame), num_envs)
    return from_header(decode_header(frame))
