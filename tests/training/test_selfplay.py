"""The league on the trainer's side (``sc2pool/training/selfplay.py``) over plain gymnasium envs:
SB3 sees only the learner slots, the opponent slots are played by snapshots drawn per game, and
snapshots are saved and enter the league as training goes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from sc2pool.training.selfplay import (
    SCRIPTED,
    LeagueVecEnv,
    SnapshotPool,
    check_pairing,
    paired_opponent,
    snapshot_callback,
)

EPISODE = 3


class SlotEnv(gym.Env[np.ndarray, int]):
    """Observes its slot number; records the actions it is given; episodes of ``EPISODE`` steps."""

    observation_space = gym.spaces.Box(0.0, 10.0, (1,), np.float32)
    action_space = gym.spaces.Discrete(4)

    def __init__(self, slot: int) -> None:
        self.slot = slot
        self.actions: list[int] = []
        self.t = 0
        #: As a task's: while True the env plays its own baseline and ignores the action (-1 recorded).
        self.scripted = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        self.t = 0
        return np.array([self.slot], np.float32), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.actions.append(-1 if self.scripted else int(action))
        self.t += 1
        return np.array([self.slot], np.float32), float(self.slot), self.t >= EPISODE, False, {"slot": self.slot}


def _pool(n: int) -> DummyVecEnv:
    return DummyVecEnv([lambda i=i: SlotEnv(i) for i in range(n)])  # type: ignore[misc]


def _snapshot(tmp_path: Path, name: str, seed: int) -> Path:
    model = PPO("MlpPolicy", _pool(2), n_steps=8, batch_size=8, seed=seed, device="cpu")
    path = tmp_path / name
    model.save(path)
    return path


def test_paired_opponents_and_the_pairing_rule() -> None:
    assert paired_opponent({"opponent": "League"}) == "league" and paired_opponent({"opponent": "self"}) == "self"
    assert paired_opponent({"opponent": {"difficulty": "easy"}}) is None and paired_opponent(None) is None
    check_pairing({"opponent": "self"}, 2)
    check_pairing({"opponent": {"difficulty": "easy"}}, 3)
    with pytest.raises(ValueError, match="--envs-per-worker must be even; got 3"):
        check_pairing({"opponent": "league"}, 3)


def test_the_learner_sees_even_slots_and_snapshots_play_the_odd_ones(tmp_path: Path) -> None:
    league = SnapshotPool(size=2, seed=0)
    a, b = _snapshot(tmp_path, "a.zip", 1), _snapshot(tmp_path, "b.zip", 2)
    league.add(a)
    league.add(b)
    venv = _pool(6)
    env = LeagueVecEnv(venv, league, deterministic=True)
    assert env.num_envs == 3
    obs = env.reset()
    assert obs.ravel().tolist() == [0.0, 2.0, 4.0]
    assert env.get_attr("slot") == [0, 2, 4] and env.get_attr("slot", indices=[1]) == [2]
    drawn = list(env._opponents)
    for _ in range(EPISODE * 4):
        mine = np.array([1, 2, 3])
        obs, rewards, dones, infos = env.step(mine)
        assert obs.ravel().tolist() == [0.0, 2.0, 4.0] and rewards.tolist() == [0.0, 2.0, 4.0]
        assert [i["slot"] for i in infos] == [0, 2, 4]
    envs: list[SlotEnv] = venv.envs  # type: ignore[assignment]
    for k in range(3):
        assert envs[2 * k].actions == [k + 1] * (EPISODE * 4), "the learner's actions reach slot 2k"
    # each opponent slot played its drawn snapshot's own (deterministic) action, for the whole first game
    for k, path in enumerate(drawn):
        assert path in (a, b)
        want, _ = league.policy(path).predict(np.array([[2 * k + 1]], np.float32), deterministic=True)
        assert envs[2 * k + 1].actions[:EPISODE] == [int(want[0])] * EPISODE
    # a new snapshot is drawn per game: 3 pairs x 4 games
    assert sum(env.games_per_snapshot.values()) == 3 * 4 + 3 and set(env.games_per_snapshot) <= {"a.zip", "b.zip"}


def test_the_league_keeps_its_newest_snapshots(tmp_path: Path) -> None:
    league = SnapshotPool(size=2, seed=0)
    with pytest.raises(RuntimeError, match="no snapshot yet"):
        league.draw()
    paths = [_snapshot(tmp_path, f"s{i}.zip", i) for i in range(3)]
    for p in paths:
        league.add(p)
    assert league.paths == paths[1:] and {league.draw() for _ in range(20)} == set(paths[1:])
    with pytest.raises(FileNotFoundError):
        league.add(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="league size"):
        SnapshotPool(size=0)


def test_fixed_members_stay_in_the_league_beside_the_newest_snapshots(tmp_path: Path) -> None:
    clone = _snapshot(tmp_path, "clone.zip", 7)
    league = SnapshotPool(size=1, seed=0, fixed=[clone])
    assert league.paths == [clone] and league.draw() == clone  # (drawn before any snapshot)
    paths = [_snapshot(tmp_path, f"s{i}.zip", i) for i in range(3)]
    for p in paths:
        league.add(p)
    assert league.paths == [clone, paths[-1]]
    assert {league.draw() for _ in range(30)} == {clone, paths[-1]}
    with pytest.raises(FileNotFoundError, match="fixed member"):
        SnapshotPool(fixed=[tmp_path / "missing.zip"])
    # a fixed member named as a snapshot is still counted apart from it
    (tmp_path / "old").mkdir()
    same = _snapshot(tmp_path / "old", "s2.zip", 9)
    env = LeagueVecEnv(_pool(2), SnapshotPool(size=1, seed=1, fixed=[same]))
    env.league.add(paths[-1])
    env.reset()
    for _ in range(40):
        env._draw([0])
    assert set(env.games_per_snapshot) == {str(same), "s2.zip"}


def test_the_scripted_member_switches_its_opponent_env_to_the_baseline_for_that_game(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path, "s0.zip", 3)
    league = SnapshotPool(size=1, seed=4, fixed=["Scripted"])
    assert league.paths == [SCRIPTED]
    venv = _pool(4)
    env = LeagueVecEnv(venv, league)
    env.reset()
    # the only member: both opponent envs play their baseline from the first step on
    assert [e.scripted for e in venv.envs] == [False, True, False, True]  # type: ignore[attr-defined]
    env.step(np.array([2, 3]))
    assert [e.actions for e in venv.envs] == [[2], [-1], [3], [-1]]  # type: ignore[attr-defined]
    # with a snapshot beside it, each game's env follows the member drawn for it
    league.add(snap)
    drawn: set[str] = set()
    for _ in range(30):
        env._draw([0, 1])
        for k in (0, 1):
            member = env._opponents[k]
            drawn.add(str(member))
            assert venv.envs[2 * k + 1].scripted == (member == SCRIPTED)  # type: ignore[attr-defined]
            assert not venv.envs[2 * k].scripted  # type: ignore[attr-defined]
    assert drawn == {SCRIPTED, str(snap)}
    assert env.games_per_snapshot[SCRIPTED] > 0 and env.games_per_snapshot["s0.zip"] > 0
    with pytest.raises(ValueError, match="more than once"):
        SnapshotPool(fixed=["scripted", "SCRIPTED"])


def test_training_saves_snapshots_that_enter_the_league(tmp_path: Path) -> None:
    league = SnapshotPool(size=3, seed=0)
    env = VecMonitor(LeagueVecEnv(_pool(4), league))
    model = PPO("MlpPolicy", env, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu")
    cb = snapshot_callback(40, tmp_path / "snapshots", league)
    model.learn(total_timesteps=128, callback=cb)
    names = sorted(p.name for p in (tmp_path / "snapshots").iterdir())
    # at the start, then every 40 timesteps (2 learner envs: the check falls on even counts)
    assert names[0] == "snapshot_0.zip" and len(names) == 4, names
    assert [p.name for p in league.paths] == sorted(names, key=lambda n: int(n[9:-4]))[-3:]
    assert sum(env.venv.games_per_snapshot.values()) > 0
    assert model.num_timesteps == 128 and env.num_envs == 2
