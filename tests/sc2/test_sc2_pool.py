"""SC2 games through the whole pool: ZmqVecEnv -> worker processes -> bridge -> engine processes."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import psutil
import pytest
from helpers.waiting import HANG_S
from sc2_helpers import engine_pids, wait_gone

from sc2pool.errors import EnvError
from workers.host import HostSpec


def _pool(n_envs: int, n_workers: int, **kwargs: Any) -> Any:
    from sc2pool import ZmqVecEnv

    spec = HostSpec("workers.sc2.host:make_host", {"task": "MoveToBeacon", **kwargs})
    return ZmqVecEnv(host=spec, n_envs=n_envs, n_workers=n_workers)


@pytest.fixture(autouse=True)
def _embedded_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("SC2PATH", raising=False)
    yield


@pytest.mark.timeout(120)
def test_ppo_smoke_through_the_pool(no_leaks: None) -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor

    env = VecMonitor(_pool(4, 2, time_limit_s=3.0))
    try:
        model = PPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(total_timesteps=256)
        obs = env.reset()
        assert isinstance(obs, np.ndarray)
        actions, _ = model.predict(obs, deterministic=True)
        assert actions.shape == (4,)
        assert model.ep_info_buffer is not None and len(model.ep_info_buffer) > 0, "VecMonitor saw episodes"
        # One game process per env. Polled with a deadline: under load a game whose reset found it
        # dead is relaunched, and /proc can briefly show a process between fork and exec.
        deadline = time.monotonic() + HANG_S
        engines = engine_pids()
        while len(engines) != 4 and time.monotonic() < deadline:
            time.sleep(0.05)
            engines = engine_pids()
        assert len(engines) == 4, engines
        # Each game runs on its worker's core (cpu_affinity="auto"): a game inherits its worker's pinning.
        workers = set(env.venv.worker_pids)
        for pid in engines:
            owner = psutil.Process(pid)
            while owner.pid not in workers:
                owner = owner.parent()
            assert os.sched_getaffinity(pid) == os.sched_getaffinity(owner.pid)
            if len(os.sched_getaffinity(0)) > 1:
                assert len(os.sched_getaffinity(pid)) == 1
    finally:
        env.close()
    assert wait_gone(engines) == [], "game processes outlived close()"


@pytest.mark.timeout(120)
def test_sb3_episode_semantics(no_leaks: None) -> None:
    env = _pool(2, 1, time_limit_s=2.0)
    try:
        env.seed(3)
        obs = env.reset()
        saw_end = False
        for _ in range(100):
            prev = obs
            obs, rewards, dones, infos = env.step(np.array([0, 4]))
            if dones.any():
                for i in np.where(dones)[0]:
                    info = infos[i]
                    assert info["TimeLimit.truncated"] is True  # the time limit truncates
                    term = info["terminal_observation"]
                    assert term.shape == (8,)
                    assert not np.array_equal(term, obs[i]), "obs is the reset one, terminal is kept apart"
                    assert info["game_result"] == "Tie"
                saw_end = True
                break
            assert not any(i.get("TimeLimit.truncated") for i in infos)
            assert prev.shape == obs.shape
        assert saw_end
    finally:
        env.close()


@pytest.mark.timeout(120)
def test_game_process_death_reaches_the_trainer_as_typed_error(no_leaks: None) -> None:
    env = _pool(2, 1)
    try:
        env.reset()
        env.step(np.array([0, 0]))
        victims = engine_pids()
        assert len(victims) == 2
        os.kill(victims[0], signal.SIGKILL)
        with pytest.raises(EnvError) as err:
            for _ in range(10):
                env.step(np.array([0, 0]))
        assert err.value.remote_type in ("GameCrashedError", "EnvFailure"), err.value.remote_type
        assert "Game" in str(err.value) or "game" in str(err.value)
    finally:
        env.close()
    assert wait_gone(engine_pids()) == []


@pytest.mark.timeout(120)
def test_pool_matches_dummyvecenv_over_the_seed_adapter(no_leaks: None) -> None:
    """Same seeds, same actions: the pool's SC2 envs step exactly like SB3's DummyVecEnv over the
    plain gymnasium adapter (auto-reset, terminal observations and truncation flags included)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from workers.sc2.queue_env import QueueSC2Env

    ref = DummyVecEnv(
        [lambda: QueueSC2Env("MoveToBeacon", engine="inprocess", time_limit_s=1.5) for _ in range(2)]
    )
    pool = _pool(2, 1, engine="inprocess", time_limit_s=1.5)
    try:
        for env in (ref, pool):
            env.seed(11)
        a, b = ref.reset(), pool.reset()
        np.testing.assert_array_equal(a, b)
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(40):
            act = rng.integers(0, 8, size=2)
            oa, ra, da, ia = ref.step(act)
            ob, rb, db, ib = pool.step(act)
            np.testing.assert_array_equal(oa, ob)
            np.testing.assert_array_equal(ra, rb)
            np.testing.assert_array_equal(da, db)
            for x, y in zip(ia, ib, strict=True):
                assert x.get("TimeLimit.truncated") == y.get("TimeLimit.truncated")
                if "terminal_observation" in x:
                    ends += 1
                    np.testing.assert_array_equal(x["terminal_observation"], y["terminal_observation"])
        assert ends >= 2
    finally:
        ref.close()
        pool.close()
