"""Liveness from the worker records alone: heartbeat silence and step_timeout on a fake clock."""

from __future__ import annotations

from sc2pool.broker.records import WorkerRecord
from sc2pool.broker.supervision import find_failure
from sc2pool.errors import WorkerTimeout


def record(name: str, last_seen: float, **kw: object) -> WorkerRecord:
    return WorkerRecord(b"id-" + name.encode(), name, "node1", 7, 0, 2, False, last_seen=last_seen, **kw)  # type: ignore[arg-type]


def test_silence_past_heartbeat_timeout_is_a_timeout_naming_the_worker() -> None:
    quiet, chatty = record("quiet", last_seen=100.0), record("chatty", last_seen=104.0)
    assert find_failure([quiet, chatty], 105.0, heartbeat_timeout=5.0, step_timeout=None) is None
    found = find_failure([chatty, quiet], 105.5, heartbeat_timeout=5.0, step_timeout=None)
    assert found is not None
    w, err = found
    assert w is quiet and isinstance(err, WorkerTimeout)
    assert "no heartbeat for 5.5 s (heartbeat_timeout=5 s)" in str(err) and "'quiet'" in str(err)


def test_step_timeout_counts_only_while_a_reply_is_owed() -> None:
    w = record("slow", last_seen=100.0, pending_seq=3, sent_at=100.0)
    assert find_failure([w], 102.0, heartbeat_timeout=60.0, step_timeout=2.0) is None
    found = find_failure([w], 102.5, heartbeat_timeout=60.0, step_timeout=2.0)
    assert found is not None and "no reply within step_timeout=2 s" in str(found[1])
    assert find_failure([w], 102.5, heartbeat_timeout=60.0, step_timeout=None) is None
    w.reply = ({}, [])  # answered: nothing is owed any more
    assert find_failure([w], 102.5, heartbeat_timeout=60.0, step_timeout=2.0) is None
