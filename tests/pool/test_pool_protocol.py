"""Wire codec, bounded decoding, space descriptions and the observation layout (no processes)."""

from __future__ import annotations

from typing import Any

import msgpack
import numpy as np
import pytest
from gymnasium import spaces

from sc2pool.errors import EncodeError, ProtocolError, SpaceError
from sc2pool.pool import protocol as P
from sc2pool.pool.spaces import ObsLayout, space_from_msg, space_to_msg, spaces_equal


def test_codec_roundtrip_preserves_numpy_and_tuples() -> None:
    value: dict[Any, Any] = {
        "a": np.arange(12, dtype=np.int16).reshape(3, 4),
        "f": np.float32(1.25),
        "b": np.bool_(True),
        "t": (1, (2.5, "x"), np.zeros(2, np.uint8)),
        3: [None, b"raw", {"nested": np.array([[1.5]], dtype=np.float64)}],
        "nc": np.arange(10)[::2],  # non-contiguous
    }
    out = P.unpack(P.pack(value))
    assert out["a"].dtype == np.int16 and np.array_equal(out["a"], value["a"])
    assert out["a"].flags.writeable
    assert type(out["f"]) is np.float32 and out["f"] == np.float32(1.25)
    assert type(out["b"]) is np.bool_
    assert isinstance(out["t"], tuple) and isinstance(out["t"][1], tuple)
    assert out["t"][2].dtype == np.uint8
    assert out[3][2]["nested"].dtype == np.float64
    assert np.array_equal(out["nc"], np.arange(0, 10, 2))


def test_encode_error_names_the_path() -> None:
    with pytest.raises(EncodeError, match=r"info\['deep'\]\[1\]") as exc_info:
        P.pack({"ok": 1, "deep": [1, object()]}, what="info")
    assert "object" in str(exc_info.value)
    with pytest.raises(EncodeError):
        P.pack({"x": np.array([object()], dtype=object)})


@pytest.mark.parametrize(
    "payload",
    [
        b"\xc1",  # never-used msgpack byte
        b"",
        msgpack.packb(msgpack.ExtType(99, b"x")),
        msgpack.packb(msgpack.ExtType(P.EXT_NDARRAY, msgpack.packb(["|O", [1], b"12345678"]))),
        msgpack.packb(msgpack.ExtType(P.EXT_NDARRAY, msgpack.packb(["<f4", [4], b"123"]))),
        msgpack.packb(msgpack.ExtType(P.EXT_NDARRAY, msgpack.packb(["<f4", [-1], b""]))),
        msgpack.packb(msgpack.ExtType(P.EXT_NDARRAY, msgpack.packb(["no-dtype", [1], b"1234"]))),
        msgpack.packb(msgpack.ExtType(P.EXT_NPSCALAR, msgpack.packb(["<f8", b"1"]))),
    ],
)
def test_malformed_input_raises_protocol_error(payload: bytes) -> None:
    with pytest.raises(ProtocolError):
        P.unpack(payload)


def test_header_version_and_kind_checks() -> None:
    hdr = P.decode_header(P.header(P.Kind.STEP, s=3))
    assert hdr["k"] == P.Kind.STEP and hdr["s"] == 3 and hdr["v"] == P.PROTOCOL_VERSION
    with pytest.raises(ProtocolError, match="peer speaks 99"):
        P.decode_header(msgpack.packb({"v": 99, "k": 1}))
    with pytest.raises(ProtocolError, match="unknown message kind"):
        P.decode_header(msgpack.packb({"v": P.PROTOCOL_VERSION, "k": 1234}))
    with pytest.raises(ProtocolError, match="not a map"):
        P.decode_header(msgpack.packb([1, 2]))
    assert P.peek_version(b"\xc1") is None


def test_array_from_buffer_checks_size() -> None:
    arr = P.array_from_buffer(np.arange(6, dtype=np.int32).tobytes(), "<i4", [2, 3])
    assert arr.shape == (2, 3)
    with pytest.raises(ProtocolError):
        P.array_from_buffer(b"\x00" * 5, "<i4", [2, 3])


ALL_SPACES = [
    spaces.Box(-1.0, 2.0, (3, 2), dtype=np.float32),
    spaces.Box(0, 255, (84, 84, 3), dtype=np.uint8),
    spaces.Box(low=np.array([-np.inf, 0.0]), high=np.array([np.inf, 1.0]), dtype=np.float64),
    spaces.Box(-5, 5, (2,), dtype=np.int64),
    spaces.Discrete(7, start=-2),
    spaces.MultiDiscrete([3, 4, 5]),
    spaces.MultiBinary(4),
    spaces.MultiBinary([2, 3]),
    spaces.Dict({"a": spaces.Discrete(2), "b": spaces.Box(0, 1, (2,), dtype=np.float32)}),
    spaces.Tuple((spaces.Discrete(3), spaces.MultiBinary(2))),
]


@pytest.mark.parametrize("space", ALL_SPACES, ids=lambda s: type(s).__name__)
def test_space_roundtrip_through_the_wire(space: spaces.Space) -> None:
    back = space_from_msg(P.unpack(P.pack(space_to_msg(space))))
    assert spaces_equal(space, back)
    assert back.dtype == space.dtype


def test_spaces_equal_is_exact() -> None:
    assert not spaces_equal(spaces.Box(0, 1, (2,), np.float32), spaces.Box(0, 1, (2,), np.float64))
    assert not spaces_equal(spaces.Box(0, 1, (2,)), spaces.Box(0, 1.0000001, (2,)))
    assert not spaces_equal(spaces.Discrete(2), spaces.Discrete(3))
    assert not spaces_equal(
        spaces.Dict({"a": spaces.Discrete(2), "b": spaces.Discrete(2)}),
        spaces.Dict({"a": spaces.Discrete(2), "c": spaces.Discrete(2)}),
    )


def test_unsupported_space_is_a_clear_error() -> None:
    with pytest.raises(SpaceError, match="Text"):
        space_to_msg(spaces.Text(5))
    with pytest.raises(SpaceError):
        space_from_msg({"type": "Box"})


def test_obs_layout_allocates_aligned_views() -> None:
    space = spaces.Dict({"img": spaces.Box(0, 255, (5, 5, 3), np.uint8), "v": spaces.Box(0, 1, (3,), np.float64)})
    layout = ObsLayout.of(space, 4)
    assert layout.kind == "dict" and layout.keys == ("img", "v")
    assert all(o % 64 == 0 for o in layout.offsets)
    buf = bytearray(layout.nbytes)
    views = layout.allocate(buf)
    views[1][2] = [1.0, 2.0, 3.0]
    again = layout.allocate(buf)
    assert np.array_equal(again[1][2], [1.0, 2.0, 3.0])
    obs = layout.assemble(again)
    assert set(obs) == {"img", "v"} and obs["img"].shape == (4, 5, 5, 3)
    with pytest.raises(SpaceError):
        ObsLayout.of(spaces.Dict({"n": spaces.Dict({"x": spaces.Discrete(2)})}), 2)
