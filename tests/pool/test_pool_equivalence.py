"""ZmqVecEnv gives DummyVecEnv's results step by step, for many spaces and worker layouts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pool_envs
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from workers.host import HostSpec


def assert_same(a: Any, b: Any, where: str = "") -> None:
    """Deep equality with numpy awareness (dtype included)."""
    if isinstance(a, dict):
        assert isinstance(b, dict), where
        assert set(a) == set(b), f"{where}: keys {sorted(map(str, a))} != {sorted(map(str, b))}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) or {type(a), type(b)} <= {list, tuple} and isinstance(b, (list, tuple)), where
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        assert a_arr.dtype == b_arr.dtype, f"{where}: dtype {a_arr.dtype} != {b_arr.dtype}"
        assert np.array_equal(a_arr, b_arr), f"{where}: {a_arr} != {b_arr}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def run_both(
    fns: list[Callable[..., Any]],
    make_pool: Callable[..., Any],
    steps: int,
    seed: int = 123,
    options: Any = None,
    **pool_kwargs: Any,
) -> Any:
    dummy = DummyVecEnv(fns)
    pool = make_pool(fns, **pool_kwargs)
    try:
        assert pool.num_envs == dummy.num_envs
        assert str(pool.observation_space) == str(dummy.observation_space)
        assert str(pool.action_space) == str(dummy.action_space)
        for venv in (dummy, pool):
            venv.seed(seed)
            venv.action_space.seed(seed)
            if options is not None:
                venv.set_options(options)
        assert_same(pool.reset(), dummy.reset(), "reset obs")
        assert_same(pool.reset_infos, dummy.reset_infos, "reset_infos")
        rng = np.random.default_rng(seed)
        space: Any = dummy.action_space
        dones_seen = 0
        for t in range(steps):
            if hasattr(space, "n"):
                actions = rng.integers(0, int(space.n), dummy.num_envs)
            else:
                actions = rng.uniform(-1, 1, (dummy.num_envs, *space.shape)).astype(space.dtype)
            o1, r1, d1, i1 = pool.step(actions)
            o2, r2, d2, i2 = dummy.step(actions)
            assert_same(o1, o2, f"step {t} obs")
            assert_same(r1, r2, f"step {t} rewards")
            assert_same(d1, d2, f"step {t} dones")
            assert_same(list(i1), list(i2), f"step {t} infos")
            assert_same(pool.reset_infos, dummy.reset_infos, f"step {t} reset_infos")
            dones_seen += int(d1.sum())
        # a second reset, without seeds or options, must still agree: DummyVecEnv uses seeds and
        # options for one reset only, so must the pool
        assert_same(pool.reset(), dummy.reset(), "second reset obs")
        assert_same(pool.reset_infos, dummy.reset_infos, "second reset_infos")
        o1, r1, d1, i1 = pool.step(actions)
        o2, r2, d2, i2 = dummy.step(actions)
        assert_same((o1, r1, d1, list(i1)), (o2, r2, d2, list(i2)), "step after the second reset")
        return pool, dummy, dones_seen
    finally:
        dummy.close()


@pytest.mark.timeout(60)
def test_zeromq_path_goes_compact_and_still_equals_dummy(make_pool: Callable[..., Any]) -> None:
    # Without a lane (remote workers, shared_memory=False) lockstep STEPs and their common replies
    # switch to the compact binary forms after the first full STEP; episode ends (infos,
    # terminal observations) still travel as full headers, so CartPole's many resets cover both.
    pool, _, dones = run_both([pool_envs.make_cartpole] * 4, make_pool, 150, n_workers=2, shared_memory=False)
    assert dones > 0
    workers = pool.workers
    assert workers and all(w.transport == "zmq-compact" and w.action_layout is not None for w in workers)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("n_workers", [4, 2])
def test_cartpole_equals_dummy(make_pool: Callable[..., Any], n_workers: int) -> None:
    _, _, dones = run_both([pool_envs.make_cartpole] * 4, make_pool, 200, n_workers=n_workers)
    assert dones > 0  # auto-reset was exercised


@pytest.mark.timeout(60)
def test_pendulum_truncation_equals_dummy(make_pool: Callable[..., Any]) -> None:
    pool, dummy, dones = run_both([pool_envs.make_pendulum] * 3, make_pool, 210, n_workers=2)
    assert dones == 3  # TimeLimit truncation at 200 steps, reported as TimeLimit.truncated


@pytest.mark.timeout(60)
def test_dict_spaces_infos_and_options_equal_dummy(make_pool: Callable[..., Any]) -> None:
    fns = [pool_envs.make_multi] * 5
    options = [{"start": i} for i in range(5)]
    pool, dummy, dones = run_both(fns, make_pool, 60, options=options, n_workers=2)
    assert dones > 5
    # options and seeds are consumed by one reset: run_both's second reset matched DummyVecEnv's


@pytest.mark.timeout(60)
def test_tuple_space_equals_dummy_without_shared_memory(make_pool: Callable[..., Any]) -> None:
    # shared_memory=False sends observations as raw frames over ZeroMQ (the remote-worker path)
    _, _, dones = run_both([pool_envs.make_tuple] * 4, make_pool, 80, n_workers=2, shared_memory=False)
    assert dones > 0


@pytest.mark.timeout(60)
def test_host_spec_pool_uneven_split(make_pool: Callable[..., Any]) -> None:
    pool = make_pool(host=HostSpec("workers.gym_host:make_host", {"env": "pool_envs:make_count"}), n_envs=5, n_workers=2)
    assert [w.env_indices for w in pool.workers] == [(0, 1, 2), (3, 4)]
    assert len(set(pool.worker_pids)) == 2
    obs = pool.reset()
    assert obs.shape == (5, 2)
    pids = [info["pid"] for info in pool.reset_infos]
    assert pids[:3] == [pool.worker_pids[0]] * 3 and pids[3:] == [pool.worker_pids[1]] * 2
    obs, rew, done, infos = pool.step(np.zeros(5, dtype=np.int64))
    assert np.array_equal(obs, np.ones((5, 2), np.float32)) and rew.dtype == np.float32


@pytest.mark.timeout(60)
def test_env_string_and_async_host(make_pool: Callable[..., Any]) -> None:
    pool = make_pool(env="CartPole-v1", n_envs=2, n_workers=1)
    assert pool.reset().shape == (2, 4)
    pool.close()
    # an asynchronous host (the worker waits through the event loop, as with SC2 games)
    pool = make_pool(host=HostSpec("pool_envs:make_async_host"), n_envs=3, n_workers=1)
    pool.seed(7)
    pool.reset()
    assert [ri["seed"] for ri in pool.reset_infos] == [7, 8, 9]
    for _t in range(1, 6):
        obs, rew, done, infos = pool.step(np.array([1, 0, 1]))
        assert np.array_equal(rew, [1.0, 0.0, 1.0])
    assert done.all() and all(i["TimeLimit.truncated"] for i in infos)
    assert np.array_equal(infos[0]["terminal_observation"], np.full(2, 5, np.float32))
    assert np.array_equal(obs, np.zeros((3, 2), np.float32))
