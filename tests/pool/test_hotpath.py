"""The hot-path helpers behave like the generic code they replace (pyzmq's sugar, the lane's
general parser): multipart framing, event checks, and lane messages split or batched."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import numpy as np
import pytest
import zmq

from sc2pool.pool import protocol as P


@pytest.fixture
def pair() -> Iterator[tuple[zmq.Socket, zmq.Socket]]:  # type: ignore[type-arg]
    """Two connected PAIR sockets (in-process), closed with their context afterwards."""
    ctx = zmq.Context()
    a, b = ctx.socket(zmq.PAIR), ctx.socket(zmq.PAIR)
    try:
        a.bind("inproc://hotpath")
        b.connect("inproc://hotpath")
        yield a, b
    finally:
        a.close(linger=0)
        b.close(linger=0)
        ctx.term()


@pytest.mark.timeout(20)
def test_send_parts_recv_parts_match_pyzmq_multipart(pair: tuple[zmq.Socket, zmq.Socket]) -> None:  # type: ignore[type-arg]
    a, b = pair
    assert not P.readable(b)
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    big = np.arange(100_000, dtype=np.uint8)
    P.send_parts(a, [b"head", arr, big], copy=True)
    P.send_parts(a, [b"solo"], zmq.NOBLOCK, copy=False)
    deadline = time.monotonic() + 5
    while not P.readable(b):
        assert time.monotonic() < deadline, "message never became readable"
        b.poll(50)
    parts = P.recv_parts(b, zmq.NOBLOCK)
    assert parts[0] == b"head"
    assert np.array_equal(np.frombuffer(parts[1], np.float32).reshape(2, 3), arr)
    assert parts[2] == big.tobytes()
    assert b.recv_multipart() == [b"solo"]  # boundaries kept: the next message is separate
    assert not P.readable(b)
    with pytest.raises(zmq.Again):
        P.recv_parts(b, zmq.NOBLOCK)


@pytest.mark.timeout(20)
def test_recv_ready_reads_whole_messages_and_none_when_nothing_waits(
    pair: tuple[zmq.Socket, zmq.Socket],  # type: ignore[type-arg]
) -> None:
    a, b = pair
    assert P.recv_ready(b) is None
    big = np.arange(100_000, dtype=np.uint8)
    P.send_parts(a, [b"head", b"", big], copy=False)
    P.send_parts(a, [b"solo"])
    deadline = time.monotonic() + 5
    while (first := P.recv_ready(b)) is None:
        assert time.monotonic() < deadline, "message never arrived"
        b.poll(50)
    assert first == [b"head", b"", big.tobytes()]  # every frame, empty ones too
    assert P.recv_ready(b) == [b"solo"]  # boundaries kept
    assert P.recv_ready(b) is None


@pytest.mark.timeout(20)
def test_lane_reads_whole_split_and_batched_messages() -> None:
    left, right = socket.socketpair()
    writer, reader = P.Lane(left), P.Lane(right)
    try:
        assert reader.read_ready() == []
        writer.write(b"one")
        assert reader.read_ready() == [b"one"]  # the single-message fast path
        writer.write(b"")
        assert reader.read_ready() == [b""]
        writer.write(b"a")
        writer.write(b"bb")
        assert reader.read_ready() == [b"a", b"bb"]
        left.send(P._LEN.pack(5) + b"ab")  # a message split across reads stays buffered
        assert reader.read_ready() == []
        left.send(b"cde")
        assert reader.read_ready() == [b"abcde"]
        payload = bytes(range(256)) * 280  # larger than one 64 KiB read chunk, fits the socket buffer
        writer.write(payload)
        got: list[bytes] = []
        deadline = time.monotonic() + 5
        while not got:
            assert time.monotonic() < deadline
            got = reader.read_ready()
        assert got == [payload]
        left.close()
        with pytest.raises(EOFError):
            reader.read_ready()
    finally:
        writer.close()
        reader.close()
