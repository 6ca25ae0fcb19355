"""The value codec of the sc2pool wire: msgpack with numpy arrays, numpy scalars, tuples,
gymnasium spaces and env specs.

Nothing is pickled: values that are not plain msgpack types travel as msgpack extension types:

====  ==================  ==========================================================
code  python type         payload
====  ==================  ==========================================================
1     ``numpy.ndarray``   msgpack ``[dtype.str, shape, raw bytes]`` (C order)
2     numpy scalar        msgpack ``[dtype.str, raw bytes]``
3     ``tuple``           msgpack array of the items
4     gymnasium ``Space`` the space's description (:func:`sc2pool.pool.spaces.space_to_msg`,
                          as in HELLO): Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple
5     ``EnvSpec``         msgpack map of the spec's constructor fields; a callable entry
                          point travels as its import path ``"module:qualname"``
====  ==================  ==========================================================

Spaces and env specs travel so that ``get_attr("observation_space")``, ``"action_space"`` and
``"spec"`` answer what ``SubprocVecEnv`` answers, as real objects, without pickling (a space comes
back unseeded: its random generator stays in the worker).

Decoding is bounded: message size, string/array/map lengths and the bytes of an embedded array are
checked against limits and against the declared dtype/shape, and object/void dtypes are refused, so a
malformed or hostile message raises :class:`~sc2pool.errors.ProtocolError` instead of allocating
without bound or executing anything. The message schema built on this codec is
:mod:`sc2pool.pool.wire`.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Sequence
from typing import Any

import msgpack
import numpy as np

from sc2pool.errors import EncodeError, ProtocolError

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
EXT_SPACE = 4
EXT_ENVSPEC = 5


def _sub_pack(obj: Any) -> bytes:
    # a fresh packer: this runs inside the thread's packer (re-entrancy would corrupt it)
    return msgpack.packb(obj, default=_default, strict_types=True, use_bin_type=True)


def _entry_point(value: Any) -> Any:
    """An env spec's entry point as data: a callable becomes its import path (gymnasium accepts
    ``"module:attr"`` strings wherever it takes a callable)."""
    if callable(value):
        return f"{getattr(value, '__module__', '?')}:{getattr(value, '__qualname__', repr(value))}"
    return value


def _env_spec_fields(spec: Any) -> dict[str, Any]:
    """The constructor fields of a gymnasium ``EnvSpec`` (``name``, ``namespace`` and ``version``
    are parsed from ``id`` again on the other side)."""
    import dataclasses

    fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec) if f.init}
    fields["entry_point"] = _entry_point(fields["entry_point"])
    fields["vector_entry_point"] = _entry_point(fields.get("vector_entry_point"))
    fields["additional_wrappers"] = [
        {"name": w.name, "entry_point": _entry_point(w.entry_point), "kwargs": w.kwargs}
        for w in fields.get("additional_wrappers", ())
    ]
    return fields


def _gymnasium_ext(obj: Any) -> msgpack.ExtType | None:
    """A gymnasium space or env spec as an extension (None for anything else)."""
    if "gymnasium" not in sys.modules:  # then obj cannot be one: no import on the hot path
        return None
    from gymnasium import spaces
    from gymnasium.envs.registration import EnvSpec

    if isinstance(obj, spaces.Space):
        from sc2pool.errors import SpaceError
        from sc2pool.pool.spaces import space_to_msg

        try:
            return msgpack.ExtType(EXT_SPACE, _sub_pack(space_to_msg(obj)))
        except SpaceError as exc:
            raise TypeError(str(exc)) from None
    if isinstance(obj, EnvSpec):
        return msgpack.ExtType(EXT_ENVSPEC, _sub_pack(_env_spec_fields(obj)))
    return None


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
        return msgpack.ExtType(EXT_TUPLE, _sub_pack(list(obj)))
    if isinstance(obj, dict):  # OrderedDict and other dict subclasses travel as plain dicts
        return dict(obj)
    if isinstance(obj, list):
        return list(obj)
    if isinstance(obj, (bool, int, float, str, bytes)):  # subclasses (IntEnum, str enums...)
        for base in (bool, int, float, str, bytes):
            if isinstance(obj, base):
                return base(obj)  # type: ignore[call-arg, arg-type]
    ext = _gymnasium_ext(obj)
    if ext is not None:
        return ext
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
        items = _nested_unpack(data, "tuples")
        if not isinstance(items, list):
            raise ProtocolError("malformed tuple extension")
        return tuple(items)
    if code == EXT_SPACE:
        return _space_from_ext(_nested_unpack(data, "spaces"))
    if code == EXT_ENVSPEC:
        return _env_spec_from_ext(_nested_unpack(data, "env specs"))
    raise ProtocolError(f"unknown msgpack extension code {code}")


def _nested_unpack(data: bytes, what: str) -> Any:
    """Unpack an extension's payload, which may hold more extensions. Each nesting level re-enters
    msgpack's C unpacker (tens of KB of C stack): without a bound a ~1 KB message of nested
    extensions overflows the stack (SIGSEGV)."""
    depth = getattr(_TLS, "tuple_depth", 0)
    if depth >= MAX_TUPLE_DEPTH:
        raise ProtocolError(f"{what} nested deeper than {MAX_TUPLE_DEPTH}")
    _TLS.tuple_depth = depth + 1
    try:
        return unpack(data)
    finally:
        _TLS.tuple_depth = depth


def _space_from_ext(msg: Any) -> Any:
    from sc2pool.errors import SpaceError
    from sc2pool.pool.spaces import space_from_msg

    try:
        return space_from_msg(msg)
    except SpaceError as exc:
        raise ProtocolError(f"malformed space extension: {exc}") from None


def _env_spec_from_ext(fields: Any) -> Any:
    import dataclasses

    from gymnasium.envs.registration import EnvSpec, WrapperSpec

    allowed = {f.name for f in dataclasses.fields(EnvSpec) if f.init}
    if not isinstance(fields, dict) or not isinstance(fields.get("id"), str) or not set(fields) <= allowed:
        raise ProtocolError("malformed env spec extension")
    try:
        wrappers = tuple(WrapperSpec(**w) for w in fields.get("additional_wrappers", []))
        return EnvSpec(**{**fields, "additional_wrappers": wrappers})
    except Exception as exc:  # TypeError for odd fields, gymnasium's Error for a bad id
        raise ProtocolError(f"malformed env spec extension: {type(exc).__name__}: {exc}") from None


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
    if "gymnasium" in sys.modules:
        from gymnasium import spaces
        from gymnasium.envs.registration import EnvSpec

        if isinstance(obj, spaces.Space):
            from sc2pool.pool.spaces import space_to_msg

            try:
                space_to_msg(obj)
            except ValueError as exc:
                return f"{path} ({exc})"
            return None
        if isinstance(obj, EnvSpec):
            return _find_unencodable(_env_spec_fields(obj), f"{path}.spec")
    return f"{path} (type {type(obj).__module__}.{type(obj).__qualname__})"


def pack(obj: Any, what: str = "value") -> bytes:
    """Encode ``obj`` (msgpack types, numpy arrays and scalars, tuples, gymnasium spaces and env
    specs) to bytes.

    Raises :class:`EncodeError` naming the first offending path (``what`` is its root name).
    """
    try:
        return _packer_pack(obj)
    except (TypeError, ValueError, OverflowError) as exc:
        bad = _find_unencodable(obj, what)
        raise EncodeError(
            f"{bad or what} cannot be sent between processes: only msgpack types (None, bool, int, "
            f"float, str, bytes, list, dict), tuples, numpy arrays/scalars, gymnasium spaces and env "
            f"specs travel on the wire ({exc})"
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


def frames_to_arrays(
    frames: Sequence[Any], dtypes: Sequence[np.dtype[Any]], shapes: Sequence[tuple[int, ...]]
) -> list[np.ndarray]:
    """Views of the raw frames as arrays of known dtypes/shapes (sizes checked; no copy)."""
    if len(frames) != len(dtypes):
        raise ProtocolError(f"expected {len(dtypes)} data frames, got {len(frames)}")
    return [array_from_buffer(f, d, s, copy=False) for f, d, s in zip(frames, dtypes, shapes, strict=True)]
