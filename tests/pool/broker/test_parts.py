"""The broker's parts as objects with one job each, wired through narrow calls: the supervisor gives
up on a worker, the registry takes it out of the table, the transport stops waiting for it; and a
retired worker that speaks again is told to go. No worker process: the peer is a record (and, for
the message, a DEALER in this process)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import zmq

from sc2pool.broker import Broker
from sc2pool.broker.records import WorkerRecord
from sc2pool.broker.registry import Registry
from sc2pool.broker.supervision import Supervision
from sc2pool.broker.transport import Transport
from sc2pool.errors import WorkerTimeout
from sc2pool.pool import wire


@pytest.fixture
def broker() -> Iterator[Broker]:
    b = Broker(n_envs=4, heartbeat_interval=1.0, heartbeat_timeout=10.0, step_timeout=None, on_failure="restart")
    b.bind("inproc://parts-test")
    try:
        yield b
    finally:
        b.close()


def join(broker: Broker, ident: bytes, lo: int, hi: int) -> WorkerRecord:
    w = WorkerRecord(ident, ident.decode(), "node1", 7, lo, hi, False, ready=True)
    broker.by_id[ident] = w
    broker.workers = sorted([*broker.workers, w], key=lambda r: r.lo)
    for g in range(lo, hi):
        broker.slots[g] = w
    return w


def test_parts_are_objects_not_mixins(broker: Broker) -> None:
    assert not issubclass(Broker, (Transport, Registry, Supervision))
    assert broker.registry.pool is broker and broker.supervision.pool is broker
    assert broker.transport.by_id is broker.by_id  # the members it files replies for: the registry's table


def test_a_worker_given_up_on_leaves_the_table_and_is_no_longer_awaited(broker: Broker) -> None:
    a, b = join(broker, b"a", 0, 2), join(broker, b"b", 2, 4)
    broker.running = True
    seq = broker.next_seq()
    a.pending_seq = b.pending_seq = seq
    broker.transport._outstanding = 2
    with broker.lock:
        broker.supervision.fail(a, WorkerTimeout("no heartbeat", worker="a", hostname="node1", env_indices=[0, 1]))
    assert a.failed is not None and broker.failures == [a]
    assert broker.workers == [b] and b"a" not in broker.by_id and broker.slots[:2] == [None, None]
    assert [(v.lo, v.hi) for v in broker.vacancies] == [(0, 2)] and broker.needs_repair
    assert b"a" in broker.registry.retired
    assert broker.transport._outstanding == 1  # gather waits for b alone
    assert broker.restart_counts == {"envs 0-1": 1}


def test_a_retired_worker_that_speaks_again_is_told_to_go(broker: Broker) -> None:
    a = join(broker, b"ghost", 0, 2)
    broker.running = True
    with broker.lock:
        broker.supervision.fail(a, WorkerTimeout("no heartbeat", worker="ghost", env_indices=[0, 1]))
    peer = broker.ctx.socket(zmq.DEALER)
    try:
        peer.setsockopt(zmq.IDENTITY, b"ghost")
        peer.setsockopt(zmq.LINGER, 0)
        peer.connect("inproc://parts-test")
        peer.send(wire.Result(1, [0.0, 0.0], [False, False], [False, False]).encode())
        assert broker.sock.poll(2000)
        with broker.lock:
            broker.transport.drain()
        assert peer.poll(2000) and isinstance(wire.decode(peer.recv()), wire.Close)
        assert broker.stats["stale"] == 1 and a.reply is None
    finally:
        peer.close()
