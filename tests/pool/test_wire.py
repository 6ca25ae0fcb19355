"""The typed wire schema (``sc2pool.pool.wire``): every kind round-trips, writes exactly the keys of
protocol version 2 (so a peer that reads raw headers still understands it), takes its compact form
where one exists, and refuses bad fields with a typed error naming the field."""

from __future__ import annotations

from typing import Any

import msgpack
import numpy as np
import pytest

from sc2pool.errors import EncodeError, ProtocolError
from sc2pool.pool import wire

V, K = wire.PROTOCOL_VERSION, wire.Kind

# (message, the header a version-2 peer writes and reads for it, keys and values)
CASES: list[tuple[Any, dict[str, Any]]] = [
    (
        wire.Hello("w0", "node", 42, 2, {"t": "Box"}, {"t": "Discrete"}, {"obs": [], "act": []}, "rgb_array",
                   True, True, "secret"),
        {"name": "w0", "host": "node", "pid": 42, "n": 2, "obs": {"t": "Box"}, "act": {"t": "Discrete"},
         "lay": {"obs": [], "act": []}, "render_mode": "rgb_array", "local": True, "cz": True, "tok": "secret"},
    ),
    (
        wire.Welcome(2, 4, "/tmp/x/obs", 8, 0.5, 10.0),
        {"slots": [2, 4], "shm": {"path": "/tmp/x/obs", "n": 8}, "hb": {"interval": 0.5, "timeout": 10.0}},
    ),
    (wire.Refuse("pool is full"), {"reason": "pool is full"}),
    (wire.Ready(), {}),
    (wire.Reset(7, [1, None], [None, {"a": 1}]), {"s": 7, "seeds": [1, None], "opts": [None, {"a": 1}]}),
    (wire.Step(8, "<i8", (2,), b"\x01" * 16), {"s": 8, "ad": "<i8", "as": [2], "a": b"\x01" * 16}),
    (wire.Step(9, leaves=[["<f4", [2], b"\x00" * 8, False]]), {"s": 9, "al": [["<f4", [2], b"\x00" * 8, False]]}),
    (
        wire.Result(10, [1.0, 0.5], [False, True], [False, False], [{}, {"x": 1}], [[1, {"y": 2}]]),
        {"s": 10, "r": [1.0, 0.5], "te": [False, True], "tr": [False, False], "i": [{}, {"x": 1}],
         "ri": [[1, {"y": 2}]]},
    ),
    (wire.Result(11, reset_infos=[{}, {"seed": 3}]), {"s": 11, "ri": [{}, {"seed": 3}]}),
    (wire.Call(12, "env_method", "m", [0, 1], args=[1], kwargs={"k": 2}),
     {"s": 12, "op": "env_method", "name": "m", "idx": [0, 1], "args": [1], "kwargs": {"k": 2}}),
    (wire.Call(13, "set_attr", "a", [1], value=[3]), {"s": 13, "op": "set_attr", "name": "a", "idx": [1], "value": [3]}),
    (wire.CallResult(14, [1, "two"]), {"s": 14, "res": [1, "two"]}),
    (
        wire.Error(15, "w0", 42, 1, "ValueError", "bad", "Traceback...", "step", "secret"),
        {"s": 15, "name": "w0", "pid": 42, "idx": 1, "et": "ValueError", "em": "bad", "tb": "Traceback...",
         "stage": "step", "tok": "secret"},
    ),
    (wire.Heartbeat(), {}),
    (wire.Close(), {}),
]
IDS = [f"{type(m).__name__}-{i}" for i, (m, _) in enumerate(CASES)]


def test_every_kind_has_a_case() -> None:
    assert {type(m).KIND for m, _ in CASES} == set(wire.Kind)


@pytest.mark.parametrize(("msg", "fields"), CASES, ids=IDS)
def test_encode_writes_the_version_2_keys(msg: Any, fields: dict[str, Any]) -> None:
    raw = msgpack.unpackb(msg.encode(), raw=False)
    assert raw == {"v": V, "k": int(type(msg).KIND), **fields}


@pytest.mark.parametrize(("msg", "fields"), CASES, ids=IDS)
def test_decode_reads_a_hand_written_version_2_header(msg: Any, fields: dict[str, Any]) -> None:
    """A header built by hand (as a peer that never saw this module writes it) decodes to the message."""
    frame = msgpack.packb({"v": V, "k": int(type(msg).KIND), **fields}, use_bin_type=True)
    assert wire.decode(frame) == msg


@pytest.mark.parametrize(("msg", "fields"), CASES, ids=IDS)
def test_round_trip(msg: Any, fields: dict[str, Any]) -> None:
    assert wire.decode(msg.encode()) == msg


def test_step_and_result_take_the_compact_form_when_asked_and_possible() -> None:
    step = wire.Step(3, "<i8", (2,), np.array([1, 2], np.int64).tobytes())
    compact = step.encode(compact=True)
    assert compact[:2] == wire.COMPACT_STEP and len(compact) == wire.COMPACT_HEAD + 16
    back = wire.decode(compact)
    assert isinstance(back, wire.Step) and back.compact and back.seq == 3 and back.data == step.data
    assert not wire.decode(step.encode()).compact

    res = wire.Result(4, [1.5, -2.0], [False, True], [True, False])
    frame = res.encode(compact=True)
    assert frame[:2] == wire.COMPACT_RESULT
    back_res = wire.decode(frame, num_envs=2)
    assert isinstance(back_res, wire.Result) and back_res.seq == 4
    assert back_res.rewards.tolist() == [1.5, -2.0]
    assert back_res.terminated.tolist() == [False, True] and back_res.truncated.tolist() == [True, False]
    with pytest.raises(ProtocolError, match="env count"):
        wire.decode(frame)
    with pytest.raises(ProtocolError, match="for 3 envs"):
        wire.decode(frame, num_envs=3)


@pytest.mark.parametrize(
    "res",
    [
        wire.Result(4, [1.0], [False], [False], infos=[{"x": 1}]),  # infos need a full header
        wire.Result(4, [1.0], [False], [False], reset_infos=[[0, {}]]),
        wire.Result(-1, [1.0], [False], [False]),  # a sequence number the compact form cannot hold
        wire.Result(None, [1.0], [False], [False]),
    ],
)
def test_result_falls_back_to_the_full_header_when_compact_cannot_say_it(res: wire.Result) -> None:
    frame = res.encode(compact=True)
    assert frame[:2] != wire.COMPACT_RESULT
    assert wire.decode(frame) == res


def test_structured_step_is_never_compact() -> None:
    step = wire.Step(3, leaves=[["<f4", [1], b"\x00" * 4, False]])
    assert wire.decode(step.encode(compact=True)) == step


# (kind, the fields of a header that is wrong, the field the error must name)
BAD = [
    (K.HELLO, {"name": 5, "host": "h", "pid": 1, "n": 1}, "name"),
    (K.HELLO, {"name": "w", "host": "h", "pid": 1, "n": True}, "num_envs"),
    (K.HELLO, {"name": "w", "host": "h", "pid": 1, "n": 1, "tok": 3}, "token"),
    (K.WELCOME, {"slots": [0], "shm": None, "hb": None}, "slots"),
    (K.WELCOME, {"slots": [1, 1]}, "empty"),
    (K.WELCOME, {"slots": [0, 1], "shm": {"path": 3, "n": 1}}, "shm"),
    (K.RESET, {"s": 3, "seeds": "many"}, "seeds"),
    (K.RESET, {"s": 3, "seeds": [1.5]}, "seeds"),
    (K.RESET, {"s": 3, "opts": {"a": 1}}, "options"),
    (K.STEP, {"s": 3, "ad": 5, "as": [1]}, "action_dtype"),
    (K.STEP, {"s": 3, "ad": "<i8", "as": "2"}, "action_shape"),
    (K.STEP, {"s": 3, "ad": "<i8", "as": [2], "a": "text"}, "data"),
    (K.STEP, {"s": 3, "al": {"x": 1}}, "leaves"),
    (K.RESULT, {"s": 3, "r": [1.0], "te": [False], "tr": [False, True]}, "truncated flags"),
    (K.RESULT, {"s": 3}, "neither"),
    (K.RESULT, {"s": 3, "r": [1.0], "te": [False], "tr": [False], "i": "x"}, "infos"),
    (K.CALL, {"s": 3, "op": "no_such_op", "name": "x", "idx": [0]}, "no_such_op"),
    (K.CALL, {"s": 3, "op": "get_attr", "name": "x", "idx": "0"}, "indices"),
    (K.CALL, {"s": 3, "op": "get_attr", "name": "x", "idx": [0, "1"]}, "indices"),
    (K.STEP, {"s": 3, "ad": "<i8", "as": [2, 1.5]}, "action_shape"),
    (K.CALL, {"s": 3, "op": "env_method", "name": "x", "idx": [0], "kwargs": [1]}, "kwargs"),
    (K.CALL_RESULT, {"s": 3, "res": 5}, "results"),
]


@pytest.mark.parametrize(("kind", "fields", "named"), BAD, ids=[f"{k.name}-{i}" for i, (k, _, _) in enumerate(BAD)])
def test_bad_fields_raise_a_typed_error_naming_them(kind: wire.Kind, fields: dict[str, Any], named: str) -> None:
    frame = msgpack.packb({"v": V, "k": int(kind), **fields}, use_bin_type=True)
    with pytest.raises(wire.MalformedMessage, match=named) as info:
        wire.decode(frame)
    assert isinstance(info.value, ProtocolError)
    assert info.value.kind is kind
    assert info.value.seq == fields.get("s")  # so a worker can answer the request it could not read


def test_error_decoding_is_lenient_so_a_failure_report_is_never_lost() -> None:
    frame = msgpack.packb({"v": V, "k": int(K.ERROR), "s": 1, "name": 7, "idx": "x", "em": 3}, use_bin_type=True)
    err = wire.decode(frame)
    assert isinstance(err, wire.Error)
    assert (err.name, err.index, err.message, err.error_type, err.pid) == ("7", None, "3", "Exception", -1)


@pytest.mark.parametrize(
    "frame",
    [b"", b"\xc1S\x00", b"\xc1", b"\x92\x01\x02", msgpack.packb({"v": 1, "k": 6}), msgpack.packb({"v": V, "k": 99})],
    ids=["empty", "truncated-compact-step", "lone-0xc1", "not-a-map", "old-version", "unknown-kind"],
)
def test_garbage_raises_protocol_error(frame: bytes) -> None:
    with pytest.raises(ProtocolError):
        wire.decode(frame, num_envs=1)


def test_unencodable_result_names_the_value() -> None:
    with pytest.raises(EncodeError, match="RESULT message"):
        wire.Result(1, [0.0], [False], [False], infos=[{"bad": object()}]).encode()
