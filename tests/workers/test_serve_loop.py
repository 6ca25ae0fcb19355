"""The worker's serve loop over a scripted transport (no sockets, no processes): which messages it
answers, with what, and which it drops."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import numpy as np
from scripted_host import N, ScriptedHost

from sc2pool.pool import wire
from workers.observations import ObsSink
from workers.stepping import Stepper
from workers.worker import EXIT_OK, Worker, WorkerConfig


class ScriptedTransport:
    """Hands the loop ``incoming`` messages one by one and records what it sends."""

    waits_in_zmq = False  # requests are awaited through recv()

    def __init__(self, incoming: list[list[bytes]]) -> None:
        self.incoming = list(incoming)
        self.sent: list[list[Any]] = []
        self.via_lane = False

    async def recv(self) -> list[bytes]:
        return self.incoming.pop(0)

    def send(self, parts: list[Any]) -> None:
        self.sent.append(parts)


def serve(incoming: list[list[bytes]]) -> tuple[int, list[wire.Message]]:
    host = ScriptedHost()
    worker = Worker(WorkerConfig(endpoint="inproc://unused", make_host=lambda: host, name="w"))
    transport = ScriptedTransport(incoming)
    worker.transport = transport  # type: ignore[assignment]
    stepper = Stepper(host, ObsSink.frames_only(host.observation_space, N))
    code = asyncio.run(worker._serve(stepper))
    return code, [wire.decode(parts[0], num_envs=N) for parts in transport.sent]


def raw(kind: wire.Kind, **fields: Any) -> list[bytes]:
    return [msgpack.packb({"v": wire.PROTOCOL_VERSION, "k": int(kind), **fields}, use_bin_type=True)]


def test_requests_are_answered_and_malformed_requests_get_an_error_with_their_seq() -> None:
    acts = np.zeros(N, np.int64)
    code, replies = serve([
        [wire.Reset(1).encode()],
        [wire.Step(2, "<i8", (N,)).encode(inline=False), acts.tobytes()],
        raw(wire.Kind.STEP, s=3, ad="<i8", **{"as": "x"}),  # bad field
        [wire.Step(4, "<i8", (N + 1,)).encode(inline=False), b"\x00" * 8 * (N + 1)],  # wrong env count
        raw(wire.Kind.CALL, s="odd", op="no_such_op", name="x", idx=[0]),  # seq echoed as it came
        [wire.Call(6, "get_attr", "speed", [1]).encode()],
        [wire.Close().encode()],
    ])
    assert code == EXIT_OK
    assert [type(m).__name__ for m in replies] == ["Result", "Result", "Error", "Error", "Error", "CallResult"]
    assert [getattr(m, "seq", None) for m in replies] == [1, 2, 3, 4, "odd", 6]
    errors = [m for m in replies if isinstance(m, wire.Error)]
    assert [e.stage for e in errors] == ["step", "step", "call"]
    assert "action_shape" in errors[0].message and "for 3 envs" in errors[1].message


def test_malformed_non_requests_and_garbage_are_dropped_not_answered() -> None:
    """An ERROR outside a request would make the broker fail this worker: a hostile or garbled
    message that is not a request must not cause one."""
    code, replies = serve([
        raw(wire.Kind.HELLO, name=5),
        [b"\x00\x01garbage"],
        raw(wire.Kind.RESULT, s=1),
        [wire.Result(1, [0.0], [False], [False]).encode(compact=True)],  # a compact RESULT sent to a worker
        [wire.Heartbeat().encode()],
        [wire.Reset(9).encode()],
        [wire.Close().encode()],
    ])
    assert code == EXIT_OK
    assert replies == [replies[0]] and isinstance(replies[0], wire.Result) and replies[0].seq == 9


class ZmqWaitingTransport(ScriptedTransport):
    """A transport whose receive waits inside libzmq (a remote worker of a synchronous host):
    :meth:`recv_now` hands the loop a message, or None for a receive slice that timed out."""

    waits_in_zmq = True

    def recv_now(self) -> list[bytes] | None:
        return self.incoming.pop(0) or None

    async def recv(self) -> list[bytes]:
        raise AssertionError("a worker that waits in libzmq never awaits recv()")


def test_compact_steps_read_in_place_are_answered_and_bad_ones_get_an_error() -> None:
    """The lockstep request as a remote worker reads it, without decoding a message: same replies
    and same errors as the decoded path."""
    host = ScriptedHost()
    worker = Worker(WorkerConfig(endpoint="inproc://unused", make_host=lambda: host, name="w"))
    acts = np.arange(N, dtype=np.int64)
    transport = ZmqWaitingTransport([
        [wire.compact_step(1, acts.tobytes())],  # before any full STEP: no layout yet
        [wire.Step(2, "<i8", (N,)).encode(inline=False), acts.tobytes()],
        [],  # a receive slice with nothing in it
        [wire.compact_step(3, acts.tobytes())],
        [wire.compact_step(4, acts.tobytes()[:-1])],  # one byte short
        [wire.COMPACT_STEP + b"\x05"],  # too short to carry a sequence number
        [wire.Close().encode()],
    ])
    worker.transport = transport  # type: ignore[assignment]
    code = asyncio.run(worker._serve(Stepper(host, ObsSink.frames_only(host.observation_space, N))))
    assert code == EXIT_OK
    replies = [wire.decode(parts[0], num_envs=N) for parts in transport.sent]
    assert [type(m).__name__ for m in replies] == ["Error", "Result", "Result", "Error", "Error"]
    assert [getattr(m, "seq", None) for m in replies] == [1, 2, 3, 4, None]
    assert [m.stage for m in replies if isinstance(m, wire.Error)] == ["step", "step", "step"]
    assert "has not carried a full STEP" in replies[0].message  # type: ignore[union-attr]
    assert f"{8 * N - 1} bytes, expected {8 * N}" in replies[3].message  # type: ignore[union-attr]
    assert host.actions == [list(acts), list(acts)]  # the full and the compact STEP reached the host
