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


@pytest.mark.parametrize("space", ALL_SPACES, ids=lambda s: type(s).__name__)
def test_a_space_value_travels_as_the_space_itself(space: spaces.Space) -> None:
    """What get_attr("observation_space") sends back: the real space object, not its description."""
    back = P.unpack(P.pack({"space": space, "pair": (space, 1)}))
    assert type(back["space"]) is type(space) and spaces_equal(back["space"], space)
    assert isinstance(back["pair"], tuple) and spaces_equal(back["pair"][0], space)


def _entry(**kwargs: Any) -> Any:
    import gymnasium as gym

    return gym.make("CartPole-v1", **kwargs)


def test_an_env_spec_value_travels_as_an_env_spec() -> None:
    import gymnasium as gym
    from gymnasium.envs.registration import EnvSpec

    spec = gym.make("CartPole-v1", max_episode_steps=50).spec
    assert spec is not None
    back = P.unpack(P.pack(spec))
    assert isinstance(back, EnvSpec) and back == spec  # EnvSpec is a dataclass: field by field
    assert back.name == "CartPole" and back.version == 1  # parsed again from the id
    # a callable entry point travels as its import path, which gymnasium accepts as well
    called = EnvSpec("Mine-v0", entry_point=_entry, kwargs={"render_mode": None, "arr": np.arange(2)})
    back = P.unpack(P.pack(called))
    assert back.entry_point == f"{__name__}:_entry" and np.array_equal(back.kwargs["arr"], np.arange(2))


def test_spaces_and_specs_that_cannot_travel_are_clear_errors() -> None:
    from gymnasium.envs.registration import EnvSpec

    with pytest.raises(EncodeError, match=r"value\['s'\] \(space type Text is not supported"):
        P.pack({"s": spaces.Text(5)})
    with pytest.raises(EncodeError, match=r"value\.spec\['kwargs'\]\['f'\] \(type builtins.object\)"):
        P.pack(EnvSpec("Mine-v0", entry_point="x:y", kwargs={"f": object()}))


@pytest.mark.parametrize(
    "ext",
    [
        msgpack.ExtType(P.EXT_SPACE, msgpack.packb({"type": "Nope"})),
        msgpack.ExtType(P.EXT_SPACE, msgpack.packb({"type": "Box", "low": 0})),
        msgpack.ExtType(P.EXT_SPACE, msgpack.packb([1, 2])),
        msgpack.ExtType(P.EXT_ENVSPEC, msgpack.packb({"id": "X-v0", "not_a_field": 1})),
        msgpack.ExtType(P.EXT_ENVSPEC, msgpack.packb({"entry_point": "x:y"})),
        msgpack.ExtType(P.EXT_ENVSPEC, msgpack.packb({"id": "bad id with spaces!"})),
        msgpack.ExtType(P.EXT_ENVSPEC, msgpack.packb({"id": "X-v0", "additional_wrappers": [{"x": 1}]})),
    ],
)
def test_malformed_space_or_spec_extensions_raise_protocol_error(ext: msgpack.ExtType) -> None:
    with pytest.raises(ProtocolError, match="malformed"):
        P.unpack(msgpack.packb(ext))


def test_nested_space_extensions_are_bounded() -> None:
    data = msgpack.packb(None)
    for _ in range(200):  # each level re-enters the C unpacker: refused before the stack runs out
        data = msgpack.packb(msgpack.ExtType(P.EXT_SPACE, data))
    with pytest.raises(ProtocolError, match="nested deeper"):
        P.unpack(data)


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
