"""Property-based fuzzing of the wire codec: hostile bytes may only ever raise ``ProtocolError``.

What a peer controls is frame 0 (the msgpack header, including extension payloads naming dtypes
and shapes) and the raw data frames whose dtype/shape come from the header or the spaces. For
every such input the decoder must either return a value or raise the project's typed
:class:`~sc2pool.errors.ProtocolError`; never another exception type (which would escape the
broker's per-message error handling and kill it), never a hang, never a large allocation.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tracemalloc
from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sc2pool.errors import ProtocolError
from sc2pool.pool import protocol as P

pytestmark = pytest.mark.timeout(120)

# Derandomized and without an example database: CI runs the same examples every time (a failure is
# reproducible), and nothing is written into the source tree. No per-example deadline: on a loaded
# machine it fails for the machine's sake; a decoder that hangs still meets the test's timeout.
FUZZ = settings(
    max_examples=300,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _decode_or_protocol_error(fn: Any, *args: Any) -> Any:
    """Call ``fn``; a ProtocolError is fine, any other exception fails the test with its type."""
    try:
        return fn(*args)
    except ProtocolError:
        return None
    except Exception as exc:  # pragma: no cover - this is the failure being hunted
        pytest.fail(
            f"{fn.__name__}{tuple(a if len(repr(a)) < 200 else '...' for a in args)!r} raised "
            f"{type(exc).__name__}: {exc}"
        )


# --------------------------------------------------------------------------- value strategies

MSGPACK_INTS = st.integers(-(2**63), 2**64 - 1)  # what msgpack can carry at all
SAFE_DTYPES = [
    "|b1",
    "|i1",
    "<i2",
    "<i4",
    "<i8",
    "|u1",
    "<u2",
    "<u4",
    "<u8",
    "<f2",
    "<f4",
    "<f8",
    "<c8",
    "<c16",
]

arrays = st.builds(
    lambda dt, shape, seed: np.random.default_rng(seed).integers(0, 2, size=shape).astype(dt),
    st.sampled_from(SAFE_DTYPES),
    st.lists(st.integers(0, 4), max_size=3).map(tuple),
    st.integers(0, 2**32 - 1),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    MSGPACK_INTS,
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.sampled_from([np.int32(7), np.float32(1.5), np.bool_(True), np.uint8(255)]),
)
values = st.recursive(
    st.one_of(scalars, arrays),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=20,
)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
        )
    if isinstance(a, np.generic):
        return isinstance(b, np.generic) and a.dtype == b.dtype and a == b
    if isinstance(a, (list, tuple)):
        return (
            type(a) is type(b) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(type(a) is type(b) and a == b)


# ------------------------------------------------------------------------------------ properties


@FUZZ
@given(values)
def test_round_trip_is_exact(value: Any) -> None:
    """Bounded decoding must not refuse legitimate messages."""
    assert _equal(P.unpack(P.pack(value)), value)


@FUZZ
@given(st.binary(max_size=2048))
def test_random_bytes_only_raise_protocol_error(data: bytes) -> None:
    _decode_or_protocol_error(P.unpack, data)
    _decode_or_protocol_error(P.decode_header, data)
    P.peek_version(data)  # documented to never raise


@FUZZ
@given(values, st.data())
def test_truncated_and_padded_messages_are_refused(value: Any, data: st.DataObject) -> None:
    blob = P.pack(value)
    cut = data.draw(st.integers(0, len(blob) - 1), label="cut")
    with pytest.raises(ProtocolError):
        P.unpack(blob[:cut])  # msgpack is prefix-free: a strict prefix never decodes
    with pytest.raises(ProtocolError):
        P.unpack(blob + data.draw(st.binary(min_size=1, max_size=8), label="extra"))


@FUZZ
@given(values, st.data())
def test_bit_flips_only_raise_protocol_error(value: Any, data: st.DataObject) -> None:
    blob = bytearray(P.pack({"v": P.PROTOCOL_VERSION, "k": int(P.Kind.RESULT), "x": value}))
    for _ in range(data.draw(st.integers(1, 4), label="flips")):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    _decode_or_protocol_error(P.decode_header, bytes(blob))


@FUZZ
@given(
    st.one_of(MSGPACK_INTS, st.none(), st.text(max_size=4), st.floats(allow_nan=False)), st.integers(-5, 40)
)
def test_wrong_versions_and_kinds_are_refused_naming_both(version: Any, kind: int) -> None:
    blob = msgpack.packb({"v": version, "k": kind}, use_bin_type=True)
    assert P.peek_version(blob) == version
    if version == P.PROTOCOL_VERSION and kind in {int(k) for k in P.Kind}:
        assert P.decode_header(blob)["k"] == kind
        return
    with pytest.raises(ProtocolError) as err:
        P.decode_header(blob)
    if version != P.PROTOCOL_VERSION:
        assert repr(version) in str(err.value) and str(P.PROTOCOL_VERSION) in str(err.value)


def _ext(code: int, payload: Any) -> bytes:
    return msgpack.packb(msgpack.ExtType(code, msgpack.packb(payload, use_bin_type=True)), use_bin_type=True)


dtype_fields = st.one_of(
    st.sampled_from(
        SAFE_DTYPES + ["O", "V8", "<U0", "S0", "|S0", "<U3", "M8[as]", "m8", "<c32", "i9", "U99999999999"]
    ),
    st.text(max_size=20),
    MSGPACK_INTS,
    st.none(),
)
shape_fields = st.one_of(
    st.lists(st.integers(-3, 2**40), max_size=40),
    st.lists(st.integers(0, 3), max_size=4),
    MSGPACK_INTS,
    st.text(max_size=3),
    st.lists(st.booleans(), max_size=2),
)


@FUZZ
@given(dtype_fields, shape_fields, st.binary(max_size=64))
def test_hostile_array_extensions_only_raise_protocol_error(dtype: Any, shape: Any, raw: bytes) -> None:
    _decode_or_protocol_error(P.unpack, _ext(P.EXT_NDARRAY, [dtype, shape, raw]))
    _decode_or_protocol_error(P.unpack, _ext(P.EXT_NPSCALAR, [dtype, raw]))
    _decode_or_protocol_error(P.unpack, _ext(P.EXT_TUPLE, raw))
    _decode_or_protocol_error(P.unpack, _ext(99, raw))


@FUZZ
@given(dtype_fields, shape_fields, st.binary(max_size=64))
def test_data_frames_with_header_supplied_layout_only_raise_protocol_error(
    dtype: Any, shape: Any, raw: bytes
) -> None:
    """Raw data frames are viewed with a dtype/shape taken from a (peer-controlled) header."""
    arr = _decode_or_protocol_error(P.array_from_buffer, raw, dtype, shape)
    if arr is not None:
        assert arr.nbytes == len(raw)


# --------------------------------------------------------------------------- resource bombs


@pytest.mark.parametrize(
    "bomb",
    [
        pytest.param(b"\xdd\xff\xff\xff\xff", id="array-of-4G"),
        pytest.param(b"\xdd\x00\xff\xff\xff", id="array-of-16M"),
        pytest.param(b"\xdf\xff\xff\xff\xff", id="map-of-4G"),
        pytest.param(b"\xdb\xff\xff\xff\xff", id="str-of-4G"),
        pytest.param(b"\xc6\xff\xff\xff\xff", id="bin-of-4G"),
        pytest.param(b"\xc9\xff\xff\xff\xff\x01", id="ext-of-4G"),
        pytest.param(b"\x91" * 100_000 + b"\xc0", id="nesting-100k"),
        pytest.param(b"\x81\xa1k" * 50_000 + b"\xc0", id="map-nesting-50k"),
    ],
)
def test_size_and_nesting_bombs_fail_fast_without_allocating(bomb: bytes) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(ProtocolError):
            P.unpack(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"decoding a {len(bomb)}-byte bomb allocated {peak / 1e6:.1f} MB"


_NESTED_TUPLE_CHILD = """
import msgpack, sys
from sc2pool.pool import protocol as P
from sc2pool.errors import ProtocolError
blob = P.pack(())
for _ in range(int(sys.argv[1])):
    blob = msgpack.packb(msgpack.ExtType(P.EXT_TUPLE, b"\\x91" + blob), use_bin_type=True)
try:
    P.unpack(blob)
    print("decoded")
except ProtocolError as e:
    print("ProtocolError", e)
"""


@pytest.mark.parametrize("depth", [50, 300, 5000])
def test_nested_tuple_extensions_are_bounded(depth: int) -> None:
    """Each tuple level re-enters the C unpacker (~32 KB of C stack each): without a depth limit a
    ~1.5 KB message (300 levels) overflows the stack and kills the process with SIGSEGV. Run in a
    child so a crash is a test failure, not the end of the test session."""
    r = subprocess.run(
        [sys.executable, "-c", _NESTED_TUPLE_CHILD, str(depth)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, (
        f"decoder crashed (rc {r.returncode}) on {depth} nested tuples: {r.stderr[-300:]}"
    )
    assert r.stdout.startswith(("decoded", "ProtocolError")), r.stdout + r.stderr[-300:]
    if depth >= 300:
        assert r.stdout.startswith("ProtocolError")


def test_oversized_message_is_refused_before_decoding() -> None:
    # np.zeros maps untouched zero pages: a view longer than the limit costs no real memory
    big = np.zeros(P.MAX_HEADER_BYTES + 1, dtype=np.uint8)
    with pytest.raises(ProtocolError, match="exceeds"):  # the size error, not a decoding one
        P.unpack(big.data)


def test_array_claiming_more_elements_than_bytes_is_refused() -> None:
    shape = [2**20, 2**20]
    assert math.prod(shape) > 2**39
    with pytest.raises(ProtocolError):
        P.unpack(_ext(P.EXT_NDARRAY, ["<f8", shape, b"\x00" * 8]))
