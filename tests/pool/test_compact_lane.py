"""Compact lane messages (the lockstep STEP and its common reply as fixed binary layouts) and the
synchronous worker fast path: bad compact input is refused with a clear error, never applied."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pool_envs
import pytest

from sc2pool.errors import ProtocolError
from sc2pool.pool import protocol as P
from sc2pool.pool import wire


def test_compact_result_round_trip_and_refusals() -> None:
    data = wire.compact_result(7, [1.5, -2.0, 0.25], [False, True, False], [False, False, True])
    assert data[:2] == wire.COMPACT_RESULT and data[0] == wire.COMPACT
    assert wire.compact_seq(data) == 7
    rewards, term, trunc = wire.compact_result_arrays(data, 3)
    assert rewards.tolist() == [1.5, -2.0, 0.25]
    assert term.tolist() == [False, True, False] and trunc.tolist() == [False, False, True]
    with pytest.raises(ProtocolError, match="for 2 envs"):
        wire.compact_result_arrays(data, 2)
    with pytest.raises(ProtocolError, match="flag bytes"):
        wire.compact_result_arrays(data[:-1] + b"\x07", 3)
    with pytest.raises(ProtocolError, match="truncated"):
        wire.compact_seq(b"\xc1R\x01")
    step = wire.compact_step(9, np.arange(3, dtype=np.int64).tobytes())
    assert step[:2] == wire.COMPACT_STEP and wire.compact_seq(step) == 9
    with pytest.raises(ProtocolError):
        P.decode_header(step)  # never mistaken for a msgpack header (0xC1 is unused by msgpack)


def test_compact_result_as_filed_copies_its_bytes_and_builds_arrays_only_when_read() -> None:
    data = wire.compact_result(7, [1.5, -2.0, 0.25], [False, True, False], [False, False, True])
    msg = wire.CompactResult(data, 3)
    assert isinstance(msg, wire.Result) and msg.compact and msg.seq == 7 and msg.infos is None
    rewards, term, trunc = np.full(5, 9.0), np.full(5, 9, np.uint8), np.full(5, 9, np.uint8)
    msg.copy_into(rewards.data.cast("B"), term.data, trunc.data, 1)  # envs 1..3 of 5
    assert rewards.tolist() == [9.0, 1.5, -2.0, 0.25, 9.0]
    assert term.tolist() == [9, 0, 1, 0, 9] and trunc.tolist() == [9, 0, 0, 1, 9]
    assert msg.rewards.tolist() == [1.5, -2.0, 0.25] and msg.truncated.tolist() == [False, False, True]
    with pytest.raises(ProtocolError, match="for 2 envs"):
        wire.CompactResult(data, 2)
    with pytest.raises(ProtocolError, match="flag bytes"):
        wire.CompactResult(data[:-1] + b"\x07", 3).terminated  # noqa: B018  (reading it is the check)


@pytest.fixture
def lone_broker() -> Iterator[Any]:
    """A :class:`~sc2pool.broker.Broker` with one local CartPole worker of 2 envs on a lane (with
    shared memory), built from the broker's own API: it lets a test send requests the VecEnv
    never would."""
    import cloudpickle

    from sc2pool.broker import Broker
    from sc2pool.launchers.local import PrivateDir, spawn_worker

    pdir = PrivateDir()
    broker = Broker(
        n_envs=2, heartbeat_interval=1.0, heartbeat_timeout=10.0, step_timeout=None, shm_path=pdir.file("obs.shm")
    )
    try:
        endpoint = broker.bind(f"ipc://{pdir.file('ipc')}")
        recipe = {"kind": "fns", "fns": cloudpickle.dumps([pool_envs.make_cartpole] * 2)}

        def spawn(lane_fd: int | None, secrets: dict[str, Any]) -> Any:
            return spawn_worker(
                endpoint=endpoint, name="local-0", index=0, recipe={**recipe, **secrets},
                heartbeat_interval=1.0, private_dir=pdir.path, lane_fd=lane_fd,
            )

        broker.expect_local("local-0", 2, spawn)
        broker.launch_local("local-0")
        with broker.lock:
            broker.wait_ready(30.0, 30.0)
        yield broker
    finally:
        broker.close()
        pdir.cleanup()


def _send_raw(broker: Any, payload: Callable[[int], bytes]) -> Any:
    """Send ``payload(seq)`` over the worker's lane as a request and return its typed reply."""
    (w,) = broker.workers
    with broker.lock:
        seq = broker.next_seq()
        broker.send_lane(w, payload(seq), seq)
        broker.gather([w])
        reply = w.take_reply()
    assert reply is not None
    return reply[0]


def _full_step(seq: int, actions: np.ndarray) -> bytes:
    return wire.Step(seq, actions.dtype.str, actions.shape, actions.tobytes()).encode()


@pytest.mark.timeout(60)
def test_worker_refuses_bad_compact_steps_and_keeps_serving(lone_broker: Any) -> None:
    msg = _send_raw(lone_broker, lambda seq: wire.Reset(seq, [None] * 2, [None] * 2).encode())
    assert isinstance(msg, wire.Result) and msg.reset_infos is not None
    # no full STEP yet: the worker does not know the actions' layout
    msg = _send_raw(lone_broker, lambda seq: wire.compact_step(seq, np.zeros(2, np.int64).tobytes()))
    assert isinstance(msg, wire.Error) and "has not carried a full STEP" in msg.message
    # a full STEP: the layout is now int64 x 2
    msg = _send_raw(lone_broker, lambda seq: _full_step(seq, np.zeros(2, dtype=np.int64)))
    assert isinstance(msg, wire.Result)
    msg = _send_raw(lone_broker, lambda seq: wire.compact_step(seq, b"\x00" * 3))
    assert isinstance(msg, wire.Error) and "3 bytes, expected 16" in msg.message
    # the worker kept serving, and a well-formed compact step is answered in the compact form
    msg = _send_raw(lone_broker, lambda seq: wire.compact_step(seq, np.ones(2, np.int64).tobytes()))
    assert isinstance(msg, wire.Result) and msg.compact and msg.rewards.tolist() == [1.0, 1.0]


@pytest.mark.timeout(60)
def test_the_pool_goes_compact_on_the_lane_after_a_full_step(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_cartpole] * 2, n_workers=1)
    pool.reset()
    assert pool.workers[0].transport == "lane" and pool.workers[0].action_layout is None
    _, rewards, _, _ = pool.step(np.ones(2, dtype=np.int64))
    assert rewards.tolist() == [1.0, 1.0]
    assert pool.workers[0].action_layout == ("<i8", (2,))


@pytest.mark.timeout(60)
def test_action_layout_change_goes_back_to_a_full_step(make_pool: Callable[..., Any]) -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv

    pool = make_pool([pool_envs.make_cartpole] * 2, n_workers=1)
    ref = DummyVecEnv([pool_envs.make_cartpole] * 2)
    pool.seed(5)
    ref.seed(5)
    assert np.array_equal(pool.reset(), ref.reset())
    for t in range(40):  # int64, then int32, then int64 again: each change is a full STEP
        dtype = np.int32 if 10 <= t < 20 else np.int64
        acts = np.array([t % 2, (t // 3) % 2], dtype=dtype)
        a, b = pool.step(acts), ref.step(acts)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
        assert pool.workers[0].action_layout == (np.dtype(dtype).str, (2,))
    ref.close()


@pytest.mark.timeout(60)
def test_broker_drops_malformed_or_stale_compact_replies(make_pool: Callable[..., Any]) -> None:
    """A local worker that writes a truncated compact message and a RESULT for no request onto its
    lane: both are dropped and counted, and the pool goes on serving."""
    pool = make_pool([pool_envs.make_lane_saboteur, pool_envs.make_count], n_workers=1)
    pool.reset()
    pool.step(np.zeros(2, dtype=np.int64))  # the lane is in use
    before = dict(pool.stats)
    assert pool.env_method("sabotage", indices=[0]) == [2]
    obs, rewards, _, _ = pool.step(np.zeros(2, dtype=np.int64))
    assert pool.stats["malformed"] == before.get("malformed", 0) + 1
    assert pool.stats["stale"] == before.get("stale", 0) + 1
    assert rewards.tolist() == [1.0, 1.0] and obs.tolist() == [[2.0, 2.0]] * 2, "the real replies still count"


def test_fast_path_never_bypasses_an_overridden_step() -> None:
    from workers.gym_host import GymHost
    from workers.main import _sync_step_of

    class OwnStep(GymHost):  # overrides step() alone: the worker must keep calling it
        async def step(self, actions: Any) -> Any:
            return await super().step(actions)

    class Both(OwnStep):
        async def step(self, actions: Any) -> Any:
            return await super().step(actions)

        def step_sync(self, actions: Any) -> Any:
            return super().step_sync(actions)

    fns = [pool_envs.make_cartpole]
    plain, own, both = GymHost(fns), OwnStep(fns), Both(fns)
    assert _sync_step_of(plain) == plain.step_sync
    assert _sync_step_of(own) is None
    assert _sync_step_of(both) == both.step_sync
