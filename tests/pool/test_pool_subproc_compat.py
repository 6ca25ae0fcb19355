"""What code written for ``SubprocVecEnv`` does and ZmqVecEnv must accept unchanged: negative env
indices (Python indexing), the ``start_method`` argument, and ``get_attr`` of the env's spaces and
spec."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import pool_envs
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from sc2pool.errors import EnvError


@pytest.mark.timeout(90)
def test_negative_indices_count_from_the_end_as_in_sb3(make_pool: Callable[..., Any]) -> None:
    fns = [pool_envs.make_cartpole, pool_envs.make_marked_cartpole, pool_envs.make_cartpole]
    pool = make_pool(fns, n_workers=2)
    dummy = DummyVecEnv(fns)
    for venv in (pool, dummy):
        venv.set_attr("tag", 1)
        venv.set_attr("tag", 7, indices=[-1])
        venv.set_attr("tag", 5, indices=-3)
    assert pool.get_attr("tag") == dummy.get_attr("tag") == [5, 1, 7]
    assert pool.get_attr("tag", indices=[-1, 0, -2]) == dummy.get_attr("tag", indices=[-1, 0, -2]) == [7, 5, 1]
    assert pool.env_method("get_wrapper_attr", "tag", indices=[0, -1]) == [5, 7]
    assert pool.env_is_wrapped(pool_envs.Marker, indices=[-2, -1]) == [True, False]
    assert pool.env_is_wrapped(pool_envs.Marker, indices=-2) == dummy.env_is_wrapped(pool_envs.Marker, indices=-2)
    for bad in (3, -4, [0, 3], [-4]):
        with pytest.raises(IndexError, match="out of range for 3 envs"):
            pool.get_attr("tag", indices=bad)
    assert pool.get_attr("tag") == [5, 1, 7]  # a refused call changes nothing


@pytest.mark.timeout(120)
def test_start_method_is_accepted_like_subproc_vec_env(make_pool: Callable[..., Any]) -> None:
    fns = [pool_envs.make_cartpole] * 2
    for method in [None, *multiprocessing.get_all_start_methods()]:
        pool = make_pool(fns, method)  # positional, as SubprocVecEnv(env_fns, start_method)
        assert pool.reset().shape == (2, 4)
        pool.close()
    pool = make_pool(fns, start_method="spawn")
    assert pool.num_envs == 2
    with pytest.raises(ValueError, match="cannot find context for 'illegal_method'"):
        make_pool(fns, start_method="illegal_method")


@pytest.mark.timeout(90)
def test_spaces_and_spec_come_back_from_get_attr_as_from_subproc_vec_env(make_pool: Callable[..., Any]) -> None:
    """``get_attr("observation_space" | "action_space" | "spec")``: the real objects, equal to the
    ones ``SubprocVecEnv`` (here its in-process twin, ``DummyVecEnv``) returns."""
    from gymnasium.envs.registration import EnvSpec

    from sc2pool.pool.spaces import spaces_equal

    for fns in ([pool_envs.make_cartpole] * 2, [pool_envs.make_multi] * 2):
        pool = make_pool(fns, n_workers=2)
        dummy = DummyVecEnv(fns)
        for name in ("observation_space", "action_space"):
            got, want = pool.get_attr(name), dummy.get_attr(name)
            assert [type(s) for s in got] == [type(s) for s in want]
            assert all(spaces_equal(a, b) for a, b in zip(got, want, strict=True)), (got, want)
        specs = pool.get_attr("spec", indices=[-1])
        assert specs == dummy.get_attr("spec", indices=[-1])  # MultiSpaceEnv: None (no gym.make)
    cart = make_pool([pool_envs.make_cartpole], n_workers=1)
    (spec,) = cart.get_attr("spec")
    assert isinstance(spec, EnvSpec) and spec == DummyVecEnv([pool_envs.make_cartpole]).get_attr("spec")[0]
    # anything else that is not data is still refused with a clear error naming it
    with pytest.raises(EnvError, match="np_random"):
        cart.get_attr("np_random", indices=[0])
