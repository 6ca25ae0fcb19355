"""Self-play on the host (``workers/sc2/host.py``, ``bridge.py``): Melee with ``opponent="self"``
plays env slots 2k and 2k+1 of a worker as the two players of one game - both slots step in one
lockstep, reset together and end at the same step with opposite results; a crash of either game
fails both slots. Games are short: 40 game seconds, one decision per 224 game loops (10 s)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sc2pool.errors import EnvError
from workers.host import EnvFailure, HostSpec
from workers.sc2.bridge import GameCrashedError
from workers.sc2.host import SC2EnvHost
from workers.sc2.tasks.base import make_task
from workers.sc2.tasks.melee import MINIMAP_CHANNELS

SHORT = {"map": "FractureLE", "time_limit_s": 40, "step_loops": 224, "shaping": 0}
SELF = {"opponent": "self", **SHORT}
SURRENDER = 11  # sc2_user_task.SurrenderingMelee: the last action surrenders


@pytest.fixture(autouse=True)
def _embedded_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SC2PATH", raising=False)


# -- options (no game) ------------------------------------------------------------------------------
@pytest.mark.parametrize("opponent", ["self", "league", "Self"])
def test_self_and_league_make_a_paired_setup_without_a_computer(opponent: str) -> None:
    task = make_task("Melee", {"opponent": opponent})
    setup = task.episode_setup(3)
    assert setup.paired and setup.opponents == ()
    assert task.paired_opponent == opponent.lower()  # type: ignore[attr-defined]


def test_an_odd_number_of_envs_is_refused_naming_the_pairing_rule() -> None:
    with pytest.raises(ValueError, match=r"slots 2k and 2k\+1.*even number of envs; got 3"):
        SC2EnvHost(3, task="Melee", task_kwargs=SELF)


def test_relaunching_a_crashed_game_is_refused_with_self_play() -> None:
    with pytest.raises(ValueError, match="on_game_crash='relaunch' is not supported with a self-play task"):
        SC2EnvHost(2, task="Melee", task_kwargs=SELF, on_game_crash="relaunch")


# -- on the engine ------------------------------------------------------------------------------------
def _own_structures_centre(obs: dict[str, np.ndarray]) -> np.ndarray:
    mask = obs["minimap"][MINIMAP_CHANNELS.index("own_structures")] > 0
    ys, xs = np.nonzero(mask)
    return np.array([xs.mean(), ys.mean()])


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine", ["inprocess", "subprocess"])
def test_two_slots_play_one_game_to_its_time_limit_each_from_its_own_view(run: Any, no_leaks: None, engine: str) -> None:
    host = SC2EnvHost(4, task="Melee", task_kwargs=SELF, engine=engine)
    try:
        run(host.start())
        for episode in range(2):  # the second one on the same connections (leave, create, join)
            resets = run(host.reset([0, 1, 2, 3], [7 + episode, None, 9, None], [None] * 4))
            assert resets[0][1]["game_seed"] == resets[1][1]["game_seed"] != resets[2][1]["game_seed"]
            # each player sees its own base in the same (mirrored) corner, though they start apart
            a, b = _own_structures_centre(resets[0][0]), _own_structures_centre(resets[1][0])
            assert np.abs(a - b).max() <= 2, (a, b)
            steps = 0
            while steps < 20:
                results = run(host.step([0, 1, 1, 0]))
                steps += 1
                ended = [r.terminated or r.truncated for r in results]
                loops = [r.info["game_loop"] for r in results]
                assert len(set(loops)) == 1, f"the slots stepped apart: {loops}"
                if any(ended):
                    break
            assert ended == [True] * 4, "every game ends for both of its players at the same step"
            assert all(r.truncated and not r.terminated and r.info["game_result"] == "Tie" for r in results)
            assert steps == 5  # 40 game seconds at 10 s per decision: the first decision past 40 s (at 50 s)
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_with_tie_reward_both_players_of_a_tied_game_are_terminated_with_it(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(2, task="Melee", task_kwargs={**SELF, "tie_reward": -1}, engine="inprocess")
    try:
        run(host.start())
        run(host.reset([0, 1], [7, None], [None] * 2))
        for _ in range(20):
            results = run(host.step([0, 0]))
            if results[0].terminated or results[0].truncated:
                break
        # the time limit's Tie scored for both: neither gains by a game that ends undecided
        assert [(r.terminated, r.truncated, r.reward, r.info["game_result"]) for r in results] == [
            (True, False, -1.0, "Tie"), (True, False, -1.0, "Tie")]
    finally:
        run(host.close())


def _pool(n_envs: int, n_workers: int, task: str, **kwargs: Any) -> Any:
    from sc2pool import ZmqVecEnv

    spec = HostSpec("workers.sc2.host:make_host", {"task": task, **kwargs})
    return ZmqVecEnv(host=spec, n_envs=n_envs, n_workers=n_workers)


@pytest.mark.timeout(90)
def test_a_self_play_game_ends_through_the_pool_with_one_victory_and_one_defeat(
    no_leaks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = str(Path(__file__).parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p))
    env = _pool(4, 1, "sc2_user_task:SurrenderingMelee", task_kwargs=SELF)
    try:
        env.reset()
        _, rewards, dones, infos = env.step(np.array([0, 0, 0, 0]))
        assert not dones.any()
        # slot 1 surrenders to slot 0; in the other game slot 2 surrenders to slot 3
        _, rewards, dones, infos = env.step(np.array([0, SURRENDER, SURRENDER, 0]))
        if not dones.any():  # the game ends on the step after the surrender is sent
            _, rewards, dones, infos = env.step(np.array([0, 0, 0, 0]))
        assert dones.tolist() == [True] * 4
        assert [i["game_result"] for i in infos] == ["Victory", "Defeat", "Defeat", "Victory"]
        assert rewards.tolist() == [1.0, -1.0, -1.0, 1.0]
        assert not any(i["TimeLimit.truncated"] for i in infos)
        # auto-reset: both slots of each game are in a new game together
        _, _, dones, infos = env.step(np.array([0, 0, 0, 0]))
        assert not dones.any() and len({i["game_loop"] for i in infos}) == 1
    finally:
        env.close()


@pytest.mark.timeout(90)
def test_a_league_game_against_the_scripted_member_is_played_by_the_opponents_baseline(no_leaks: None) -> None:
    from sc2pool.training.selfplay import LeagueVecEnv, SnapshotPool
    from workers.sc2.tasks.melee import ACTIONS

    scout = ACTIONS.index("scout")  # never the baseline's choice
    env = _pool(2, 1, "Melee", task_kwargs={**SHORT, "opponent": "league"}, engine="inprocess")
    league = LeagueVecEnv(env, SnapshotPool(fixed=["scripted"], seed=0))
    try:
        league.action_space.sample = lambda *a, **k: scout  # type: ignore[method-assign]
        league.reset()
        assert env.get_attr("scripted") == [False, True]
        for _ in range(3):
            league.step(np.array([scout]))
        learner, opponent = env.get_attr("action_counts")
        # the learner's scouts were carried out; the opponent's env ignored what it was sent and
        # chose as the baseline does (workers, supply)
        assert learner[scout] == 3 and opponent[scout] == 0 and sum(opponent) == 3, (learner, opponent)
        assert opponent[ACTIONS.index("train_worker")] >= 1
    finally:
        league.close()


def test_resetting_one_slot_of_a_pair_alone_is_an_error_naming_both(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(2, task="Melee", task_kwargs=SELF, engine="inprocess")
    try:
        run(host.start())
        run(host.reset([0, 1], [1, None], [None, None]))
        with pytest.raises(EnvFailure, match="env slots 0 and 1 are the two players of one self-play game"):
            run(host.reset([1], [None], [None]))
    finally:
        run(host.close())


@pytest.mark.timeout(60)
@pytest.mark.parametrize("victim", [0, 1])
def test_a_crash_of_either_game_fails_both_slots_at_once(run: Any, no_leaks: None, victim: int) -> None:
    host = SC2EnvHost(2, task="Melee", task_kwargs=SELF, step_timeout=30)
    try:
        run(host.start())
        run(host.reset([0, 1], [1, None], [None, None]))
        run(host.step([0, 0]))
        pid = host.games[victim].connection.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        t0 = time.monotonic()
        with pytest.raises(EnvFailure) as err:
            for _ in range(5):
                run(host.step([0, 0]))
        assert time.monotonic() - t0 < 10, "the other player must not wait for its step_timeout"
        assert isinstance(err.value.cause, GameCrashedError)
        for game in host.games:
            assert isinstance(game.dead, GameCrashedError), (game.index, game.dead)
        other = host.games[1 - victim].dead
        # whichever notices first: the pairing (the other slot failed) or, when the host's game
        # died, the guest's engine process (its game was closed under it)
        assert (f"the other player of its self-play game (env {victim}) failed" in str(other)
                or (victim == 0 and "the host engine closed the game" in str(other))), other
        # and a reset of the pair reports the crash instead of waiting
        with pytest.raises(EnvFailure, match="GameCrashedError"):
            run(asyncio.wait_for(host.reset([0, 1], [None, None], [None, None]), 10))
    finally:
        run(host.close())


@pytest.mark.timeout(90)
def test_a_crash_reaches_the_trainer_as_a_typed_error(no_leaks: None) -> None:
    from sc2_helpers import engine_pids

    env = _pool(2, 1, "Melee", task_kwargs=SELF)
    try:
        env.reset()
        env.step(np.array([0, 0]))
        victims = engine_pids()
        assert len(victims) == 2  # one game process per player
        os.kill(victims[1], signal.SIGKILL)
        with pytest.raises(EnvError) as err:
            for _ in range(5):
                env.step(np.array([0, 0]))
        assert err.value.remote_type == "GameCrashedError", err.value.remote_type
    finally:
        env.close()


@pytest.mark.starts_first
@pytest.mark.timeout(240)
@pytest.mark.parametrize("opponent", ["self", "league"])
def test_sc2pool_train_runs_self_play_and_the_model_is_evaluated_against_the_computer(
    tmp_path: Path, process_tree: Any, opponent: str
) -> None:
    import json
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "SC2PATH"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return process_tree.run([sys.executable, "-m", "sc2pool", *args], capture_output=True, text=True,
                                timeout=180, env=env)

    out = tmp_path / "run"
    league = ["--league-fixed", "scripted"] if opponent == "league" else []
    r = cli("train", "--task", "Melee", "--task-kwargs", json.dumps({**SHORT, "opponent": opponent}),
            "--workers", "1", "--envs-per-worker", "2", "--timesteps", "64", "--out", str(out), "--no-progress",
            "--snapshot-every", "32", "--ppo", json.dumps({"n_steps": 16, "batch_size": 16, "n_epochs": 1}),
            "--pretrain-episodes", "2", *league)
    assert r.returncode == 0, r.stderr[-3000:]
    run = json.loads((out / "run.json").read_text())
    assert run["selfplay"]["opponent"] == opponent
    # cloned from the baseline playing itself: one game's two players make the two episodes
    assert run["pretrain"]["episodes"] == 2 and run["pretrain"]["steps"] >= 2 * 4  # 40 s of 10 s steps
    assert run["pretrain"]["opponent"] == "self"
    snapshots = sorted((out / "snapshots").iterdir())
    assert len(snapshots) >= 2 and (out / "snapshots" / "snapshot_0.zip") in snapshots
    if opponent == "league":  # (the scripted baseline beside the snapshots)
        assert run["selfplay"]["league_fixed"] == ["scripted"]
        assert sum(run["selfplay"]["league_games"].values()) >= 1
        assert set(run["selfplay"]["league_games"]) <= {"scripted"} | {p.name for p in snapshots}
    r = cli("eval", str(snapshots[-1]), "--task", "Melee", "--task-kwargs", json.dumps(SHORT), "--episodes", "1")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "win rate: 0.000  (0/1 games won, 1 tied" in r.stdout, r.stdout
    r = cli("train", "--task", "Melee", "--task-kwargs", json.dumps({**SHORT, "opponent": opponent}),
            "--workers", "1", "--envs-per-worker", "3", "--timesteps", "64", "--out", str(tmp_path / "odd"))
    assert r.returncode == 2 and "--envs-per-worker must be even; got 3" in r.stderr
