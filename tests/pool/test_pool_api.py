"""The VecEnv contract beyond step/reset, and ZmqVecEnv inside SB3 (wrappers, PPO, make_vec_env)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pool_envs
import psutil
import pytest

from sc2pool import ZmqVecEnv
from sc2pool.errors import AlreadyPendingCallError, EnvError, NoAsyncCallError, PoolClosedError


@pytest.mark.timeout(60)
def test_attr_and_method_calls(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_multi] * 4, n_workers=2)
    assert pool.get_attr("magic") == [42] * 4
    pool.set_attr("magic", 5, indices=[1, 3])
    assert pool.get_attr("magic") == [42, 5, 42, 5]
    assert pool.get_attr("magic", indices=2) == [42]
    assert pool.env_method("add", 1, y=2, indices=[3, 0]) == [8, 45]
    assert pool.has_attr("magic") and not pool.has_attr("no_such_attr")
    with pytest.raises(AttributeError) as exc_info:
        pool.get_attr("no_such_attr", indices=[2])
    assert isinstance(exc_info.value, EnvError) and exc_info.value.env_index == 2
    assert "no_such_attr" in str(exc_info.value)
    # a value that cannot travel on the wire: clear error naming it, pool still usable
    with pytest.raises(EnvError, match="np_random"):
        pool.get_attr("np_random", indices=[0])
    with pytest.raises(IndexError):
        pool.get_attr("magic", indices=[9])
    assert pool.reset()["img"].shape == (4, 3, 4)


@pytest.mark.timeout(60)
def test_env_is_wrapped(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_cartpole, pool_envs.make_marked_cartpole], n_workers=1)
    assert pool.env_is_wrapped(gym.wrappers.TimeLimit) == [True, True]
    assert pool.env_is_wrapped(pool_envs.Marker) == [False, True]  # SubMarker is a Marker
    assert pool.env_is_wrapped(pool_envs.SubMarker, indices=[1]) == [True]
    assert pool.env_is_wrapped(gym.wrappers.RecordEpisodeStatistics) == [False, False]


@pytest.mark.timeout(60)
def test_render_and_get_images(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([partial(pool_envs.make_multi, render_mode="rgb_array")] * 3, n_workers=2)
    assert pool.render_mode == "rgb_array"
    pool.reset()
    pool.step(np.zeros((3, 2), np.float32))
    images = pool.get_images()
    assert len(images) == 3 and all(img.shape == (4, 6, 3) and img.dtype == np.uint8 for img in images)
    ts = pool.get_attr("_t")  # 1, or 0 where the step ended an episode (auto-reset)
    assert all((img == t).all() for img, t in zip(images, ts, strict=True)) and set(ts) <= {0, 1}
    tiled = pool.render()
    assert tiled is not None and tiled.shape == (8, 12, 3)
    plain = make_pool([pool_envs.make_cartpole] * 2)
    with pytest.warns(UserWarning):
        assert plain.get_images() == [None, None]


@pytest.mark.timeout(60)
def test_state_guard_and_close(make_pool: Callable[..., Any], pool_tmpdir: Path) -> None:
    pool = make_pool([pool_envs.make_cartpole] * 2, n_workers=2)
    pool.reset()
    with pytest.raises(NoAsyncCallError):
        pool.step_wait()
    pool.step_async(np.zeros(2, dtype=np.int64))
    with pytest.raises(AlreadyPendingCallError):
        pool.step_async(np.zeros(2, dtype=np.int64))
    with pytest.raises(AlreadyPendingCallError):
        pool.get_attr("render_mode")
    assert pool.reset().shape == (2, 4)  # reset while a step is pending finishes that step first
    with pytest.raises(ValueError, match="one row per env"):
        pool.step_async(np.zeros(3, dtype=np.int64))
    pids = pool.worker_pids
    assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    assert any(pool_tmpdir.iterdir())  # ipc socket + shm file exist while open
    pool.close()
    pool.close()  # idempotent
    assert pool.closed
    assert not any(pool_tmpdir.iterdir())
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    with pytest.raises(PoolClosedError):
        pool.reset()
    with pytest.raises(PoolClosedError):
        pool.step(np.zeros(2, dtype=np.int64))


@pytest.mark.timeout(90)
def test_make_vec_env_and_wrappers(pool_tmpdir: Path) -> None:
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecFrameStack, VecMonitor, VecNormalize

    # make_vec_env's factories are closures of SB3 code: each worker imports SB3 (and torch)
    venv = make_vec_env("CartPole-v1", n_envs=3, seed=0, vec_env_cls=ZmqVecEnv, vec_env_kwargs={"n_workers": 1})
    try:
        assert isinstance(venv, ZmqVecEnv) and len(venv.worker_pids) == 1
        assert venv.env_is_wrapped(Monitor) == [True] * 3  # SB3's Monitor, by import path
        wrapped = VecNormalize(VecFrameStack(VecMonitor(venv), n_stack=3))
        obs: Any = wrapped.reset()
        assert obs.shape == (3, 12)
        episodes = 0
        for _ in range(60):
            obs, rew, done, infos = wrapped.step(np.ones(3, dtype=np.int64))
            episodes += sum("episode" in info for info in infos)
        assert episodes > 0  # VecMonitor saw auto-resets
        assert all("terminal_observation" in info for info, d in zip(infos, done, strict=True) if d)
        wrapped.close()
    finally:
        venv.close()


@pytest.mark.timeout(120)
def test_ppo_learn_save_load_evaluate(make_pool: Callable[..., Any], tmp_path: Path) -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    def make() -> gym.Env:
        return Monitor(gym.make("CartPole-v1"))

    venv = make_pool([make] * 4, n_workers=1)
    model = PPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    path = tmp_path / "ppo.zip"
    model.save(path)
    loaded = PPO.load(path, env=venv, device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean, std = evaluate_policy(loaded, venv, n_eval_episodes=4)
    assert float(mean) > 0 and np.isfinite(std)  # type: ignore[arg-type]
    assert os.path.exists(path)


@pytest.mark.timeout(60)
def test_stale_private_dirs_are_swept(make_pool: Callable[..., Any], pool_tmpdir: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = pool_tmpdir / f"sc2pool-{dead.pid}-abcd"
    stale.mkdir()
    (stale / "obs.shm").write_bytes(b"x")
    alive = pool_tmpdir / f"sc2pool-{os.getpid()}-keep"  # a live trainer's dir is kept
    alive.mkdir()
    pool = make_pool([pool_envs.make_cartpole], n_workers=1)
    assert not stale.exists() and alive.exists()
    assert pool.reset().shape == (1, 4)
    alive.rmdir()
