"""The transport routes typed messages, to the records of the pool's workers or, through its events,
to the rest of the broker: a ROUTER on an in-process socket, a peer played by a DEALER in the same
process (no worker process), messages built with the wire schema."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import zmq

from sc2pool.broker import Broker
from sc2pool.broker.records import WorkerRecord
from sc2pool.broker.transport import Transport, TransportEvents
from sc2pool.errors import ProtocolError
from sc2pool.pool import wire
from sc2pool.pool.codec import pack


@pytest.fixture
def broker() -> Iterator[Broker]:
    b = Broker(n_envs=2, heartbeat_interval=1.0, heartbeat_timeout=10.0, step_timeout=None)
    b.bind("inproc://routing-test")
    try:
        yield b
    finally:
        b.close()


@pytest.fixture
def peer(broker: Broker) -> Iterator[zmq.Socket[bytes]]:
    s = broker.ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.IDENTITY, b"peer-1")
    s.setsockopt(zmq.LINGER, 0)
    s.connect("inproc://routing-test")
    try:
        yield s
    finally:
        s.close()


def deliver(broker: Broker, peer: zmq.Socket[bytes], frame: bytes, *frames: bytes) -> None:
    """Send from the peer and let the broker route everything waiting."""
    peer.send_multipart([frame, *frames])
    with broker.lock:
        for _ in range(100):
            broker.transport.drain()
            if not broker.transport._poller.poll(10):
                break


def answer(peer: zmq.Socket[bytes]) -> wire.Message:
    assert peer.poll(2000), "the broker did not answer"
    return wire.decode(peer.recv())


def member(broker: Broker) -> WorkerRecord:
    """Enter the peer in the table as a joined remote worker of 2 envs that owes reply 5."""
    w = WorkerRecord(b"peer-1", "w", "node1", 7, 0, 2, False, pending_seq=5)
    broker.by_id[w.identity] = w
    broker.workers = [w]
    return w


def hello(**fields: object) -> bytes:
    hdr: dict[str, object] = {"v": wire.PROTOCOL_VERSION, "k": int(wire.Kind.HELLO), "name": "w", "host": "node1",
                              "pid": 7, "n": 2, "obs": None, "act": None, "lay": None}
    hdr.update(fields)
    return pack(hdr)


def test_malformed_hello_from_a_stranger_is_refused_naming_the_field(broker: Broker, peer: zmq.Socket[bytes]) -> None:
    deliver(broker, peer, hello(pid="seven"))
    msg = answer(peer)
    assert isinstance(msg, wire.Refuse) and "malformed HELLO" in msg.reason and "'pid'" in msg.reason
    assert broker.stats["refused"] == 1


def test_hello_of_another_version_is_refused_naming_both(broker: Broker, peer: zmq.Socket[bytes]) -> None:
    deliver(broker, peer, hello(v=wire.PROTOCOL_VERSION + 1, name=5))
    msg = answer(peer)
    assert isinstance(msg, wire.Refuse)
    assert f"version {wire.PROTOCOL_VERSION + 1}" in msg.reason and f"version {wire.PROTOCOL_VERSION}" in msg.reason


def test_reply_of_a_member_is_filed_as_its_typed_message(broker: Broker, peer: zmq.Socket[bytes]) -> None:
    w = member(broker)
    deliver(broker, peer, wire.CallResult(5, [1, "x"]).encode())
    assert w.reply is not None
    msg, frames = w.reply
    assert isinstance(msg, wire.CallResult) and msg.results == [1, "x"] and frames == []


def test_error_of_a_member_is_filed_with_its_fields(broker: Broker, peer: zmq.Socket[bytes]) -> None:
    w = member(broker)
    deliver(broker, peer, wire.Error(5, "w", 7, 1, "ValueError", "bad action", "tb", "step").encode())
    assert w.reply is not None and isinstance(w.reply[0], wire.Error)
    err = broker.reply_error(w, w.reply[0])
    assert err.env_index == 1 and err.remote_type == "ValueError" and "bad action" in str(err)


def test_unreadable_reply_to_the_pending_request_is_filed_as_the_error(broker: Broker, peer: zmq.Socket[bytes]) -> None:
    w = member(broker)
    bad = pack({"v": wire.PROTOCOL_VERSION, "k": int(wire.Kind.RESULT), "s": 5, "r": [0.0, 1.0], "te": [False], "tr": []})
    deliver(broker, peer, bad)
    assert w.reply is not None
    assert isinstance(w.reply[0], ProtocolError) and "1 terminated" in str(w.reply[0])


def test_stale_or_unreadable_replies_to_no_request_are_counted_not_filed(broker: Broker, peer: zmq.Socket[bytes]) -> None:
    w = member(broker)
    deliver(broker, peer, wire.CallResult(4, [1, 2]).encode())  # an older request's
    deliver(broker, peer, pack({"v": wire.PROTOCOL_VERSION, "k": int(wire.Kind.RESULT), "s": 9, "r": 1}))
    assert w.reply is None
    assert broker.stats["stale"] == 1 and broker.stats["malformed"] == 1


def test_compact_result_of_a_compact_member_is_decoded_for_its_env_count(broker: Broker, peer: zmq.Socket[bytes]) -> None:
    w = member(broker)
    w.compact = True
    deliver(broker, peer, wire.compact_result(5, [0.5, 1.5], [False, True], [False, False]), b"obs")
    assert w.reply is not None
    msg, frames = w.reply
    assert isinstance(msg, wire.Result) and msg.compact and frames == [b"obs"]
    assert msg.rewards.tolist() == [0.5, 1.5] and msg.terminated.tolist() == [False, True]


class Recorder:
    """Stands in for the registry and the supervisor: records what the transport reports."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def events(self) -> TransportEvents:
        return TransportEvents(
            failed=lambda w, err: self.calls.append(("failed", (w.name, err))),
            lost=lambda w, why: self.calls.append(("lost", (w.name, why))),
            tick=lambda now: None,
            member_error=lambda w, msg: self.calls.append(("member_error", (w.name, msg))),
            stranger=lambda ident, frames: self.calls.append(("stranger", (ident, wire.decode(frames[1])))),
            unknown_heartbeat=lambda ident, frames: self.calls.append(("unknown_heartbeat", ident)) is None,
        )


@pytest.fixture
def sockets() -> Iterator[tuple[zmq.Socket[bytes], zmq.Socket[bytes]]]:
    """A ROUTER for a bare :class:`Transport` and a DEALER to play a peer (its identity and
    endpoint set by the test), closed afterwards."""
    ctx: zmq.Context[Any] = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    dealer = ctx.socket(zmq.DEALER)
    router.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.LINGER, 0)
    try:
        yield router, dealer
    finally:
        dealer.close()
        router.close()
        ctx.term()


def test_transport_alone_hands_strangers_and_stray_errors_to_its_events(
        sockets: tuple[zmq.Socket[bytes], zmq.Socket[bytes]]) -> None:
    router, dealer = sockets
    rec = Recorder()
    w = WorkerRecord(b"member", "w", "node1", 7, 0, 2, False)
    t = Transport(router, {w.identity: w}, Counter(), 1.0, 10.0, rec.events())
    t.bind("inproc://transport-alone")
    dealer.setsockopt(zmq.IDENTITY, b"stranger")
    dealer.connect("inproc://transport-alone")
    hello = wire.Hello("s", "node2", 8, 1, None, None, None)
    dealer.send(hello.encode())
    assert router.poll(2000)
    t.drain()
    assert rec.calls == [("stranger", (b"stranger", hello))]
    # an ERROR of a member outside any request (seq None): the supervisor's business
    err = wire.Error(None, "w", 7, 0, "RuntimeError", "env broke between steps", "", "idle")
    t._dispatch([w.identity, err.encode()])
    assert rec.calls[-1] == ("member_error", ("w", err)) and w.reply is None
    # a lane that closed: the worker is reported lost, nothing else happens
    w.lane = _ClosedLane()  # type: ignore[assignment]
    t._read_lane(w)
    assert rec.calls[-1][0] == "lost" and "lane closed" in rec.calls[-1][1][1]


def test_liveness_is_judged_after_reading_what_has_arrived(
        sockets: tuple[zmq.Socket[bytes], zmq.Socket[bytes]]) -> None:
    """A worker whose heartbeat waits on the socket is alive: after a stall of the broker's thread
    longer than the heartbeat timeout, the liveness check must not run on stale ``last_seen``."""
    router, beat = sockets
    seen: list[float] = []
    w = WorkerRecord(b"member", "w", "node1", 7, 0, 2, False)
    events = dataclasses.replace(Recorder().events(), tick=lambda now: seen.append(now - w.last_seen))
    t = Transport(router, {w.identity: w}, Counter(), 1.0, 10.0, events)
    t.bind("inproc://transport-liveness")
    beat.setsockopt(zmq.IDENTITY, b"member" + wire.HEARTBEAT_SUFFIX)
    beat.connect("inproc://transport-liveness")
    w.last_seen -= 60.0  # nothing read for a minute: the thread was stalled
    beat.send(wire.Heartbeat().encode())
    assert router.poll(2000)  # (the heartbeat waits on the socket, unread)
    t._next_check = 0.0
    t._tick_if_due()
    assert len(seen) == 1 and seen[0] < 1.0, seen  # judged on the heartbeat just read


class _ClosedLane:
    def read_ready(self) -> list[bytes]:
        raise EOFError("lane closed by peer")
