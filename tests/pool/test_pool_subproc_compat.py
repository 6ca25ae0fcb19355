"""What code written for ``SubprocVecEnv`` does and ZmqVecEnv must accept unchanged: negative env
indices (Python indexing) and the ``start_method`` argument."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import pool_envs
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv


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
