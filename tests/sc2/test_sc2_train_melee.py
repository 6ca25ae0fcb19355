"""Training and evaluation of a full-game task (``sc2pool/training/``): the win rate and its
Wilson interval, the policy for ``Dict`` observations with a minimap, per-task PPO settings, and
``sc2pool train``/``eval --task Melee`` end to end on short games."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch as th
from helpers.proctree import ProcessTree

from sc2pool.training.extractors import MinimapExtractor, policy_for
from sc2pool.training.train import PPO_DEFAULTS, EvalResult, ppo_params, summarize_eval, wilson_interval

ENV = {k: v for k, v in os.environ.items() if k != "SC2PATH"}


def test_only_games_that_are_won_or_lost_report_a_result() -> None:
    from sc2pool.training.train import reports_results

    assert reports_results("Melee") and reports_results("Skirmish")
    assert not reports_results("MoveToBeacon") and not reports_results("TerranEconomy")
    assert not reports_results("no_such_module:Task")


def test_wilson_interval_known_values() -> None:
    # Brown, Cai and DasGupta (2001): the interval is asymmetric near 0 and 1 and never empty
    lo, hi = wilson_interval(32, 40)
    assert lo == pytest.approx(0.6524, abs=1e-4) and hi == pytest.approx(0.8951, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="wins"):
        wilson_interval(5, 4)


def test_eval_result_counts_results_and_prints_the_interval() -> None:
    res = EvalResult(returns=[1.0, -1.0, 0.0, 1.0], lengths=[10, 10, 10, 10], seconds=1.0,
                     results=["Victory", "Defeat", "Tie", "Victory"])
    assert (res.games, res.wins, res.win_rate) == (4, 2, 0.5)
    text = summarize_eval(res)
    lo, hi = wilson_interval(2, 4)
    assert f"win rate: 0.500  (2/4 games won, 1 tied; 95% Wilson interval {lo:.3f}-{hi:.3f})" in text
    # episodes without a game result (a mini-game cut by a restart) print no win rate
    assert "win rate" not in summarize_eval(EvalResult([1.0], [3], 1.0, results=[None]))


def test_eval_summary_gives_each_opponent_its_own_win_rate() -> None:
    res = EvalResult(returns=[1.0, -1.0, 1.0, 1.0], lengths=[10] * 4, seconds=1.0,
                     results=["Victory", "Defeat", "Victory", "Victory"],
                     opponents=["terran/easy/randombuild", "terran/medium/randombuild"] * 2)
    groups = res.by_opponent()
    assert [(k, g.wins, g.games) for k, g in groups.items()] == [
        ("terran/easy/randombuild", 2, 2), ("terran/medium/randombuild", 1, 2)]
    text = summarize_eval(res)
    assert "win rate: 0.750  (3/4 games won" in text
    assert "against terran/easy/randombuild: 1.000  (2/2 won, 0 tied;" in text
    assert "against terran/medium/randombuild: 0.500  (1/2 won, 0 tied;" in text
    # one opponent: no breakdown
    assert "against" not in summarize_eval(EvalResult([1.0], [3], 1.0, results=["Victory"], opponents=["x"]))


def test_win_rate_plot_reads_results_with_and_without_the_opponent_column(tmp_path: Path) -> None:
    from sc2pool.training.train import plot_win_rate

    old = tmp_path / "old.csv"
    old.write_text("timestep,wall_s,result\n" + "".join(f"{i},{i}.0,{'Victory' if i % 2 else 'Tie'}\n" for i in range(30)))
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("timestep,wall_s,result,opponent\n" + "".join(
        f"{i},{i}.0,{'Victory' if i % 3 else 'Defeat'},terran/{'easy' if i % 2 else 'medium'}/randombuild\n"
        for i in range(30)))
    for src in (old, mixed):
        plot_win_rate(src, tmp_path / f"{src.stem}.png")
        assert (tmp_path / f"{src.stem}.png").stat().st_size > 1000


def test_dict_observations_with_a_minimap_get_the_minimap_extractor() -> None:
    space = gym.spaces.Dict({
        "features": gym.spaces.Box(0.0, 1.0, (52,), np.float32),
        "minimap": gym.spaces.Box(0, 255, (8, 32, 32), np.uint8),
    })
    policy, kwargs = policy_for(space, {"net_arch": [16]})
    assert policy == "MultiInputPolicy"
    assert kwargs == {"net_arch": [16], "features_extractor_class": MinimapExtractor}
    ext = MinimapExtractor(space, cnn_output_dim=64)
    assert ext.features_dim == 52 + 64
    out = ext({"features": th.zeros(3, 52), "minimap": th.zeros(3, 8, 32, 32)})
    assert out.shape == (3, 116)
    assert policy_for(gym.spaces.Box(0, 1, (4,)), None) == ("MlpPolicy", {})
    assert policy_for(gym.spaces.Dict({"a": gym.spaces.Box(0, 1, (4,))}), None) == ("MultiInputPolicy", {})


def test_task_ppo_defaults_apply_under_the_overrides() -> None:
    melee = ppo_params("Melee")
    assert melee["gamma"] == 0.995 and melee["n_steps"] == 256
    assert ppo_params("Melee", {"gamma": 0.9})["gamma"] == 0.9
    assert ppo_params("MoveToBeacon") == PPO_DEFAULTS


@pytest.mark.starts_first
@pytest.mark.timeout(240)
def test_train_and_eval_melee_from_the_command_line(tmp_path: Path, process_tree: ProcessTree) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return process_tree.run([sys.executable, "-m", "sc2pool", *args], capture_output=True, text=True,
                                timeout=180, env=ENV)

    short = json.dumps({"map": "BlueshiftLE", "time_limit_s": 20})  # 15 decisions a game
    out = tmp_path / "run"
    r = cli("train", "--task", "Melee", "--task-kwargs", short, "--workers", "1", "--envs-per-worker", "2",
            "--timesteps", "128", "--out", str(out), "--no-progress", "--pretrain-episodes", "2",
            "--ppo", json.dumps({"n_steps": 32, "batch_size": 32, "n_epochs": 1}))
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"pretrain: 2 games \(0 won\) in .* held-out action accuracy", r.stdout), r.stdout
    pretrain = json.loads((out / "run.json").read_text())["pretrain"]
    assert pretrain["episodes"] == 2 and pretrain["steps"] >= 2 * 14
    with (out / "game_results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) >= 6 and {row["result"] for row in rows} == {"Tie"}  # every game hit the limit
    assert all(int(a["timestep"]) <= int(b["timestep"]) for a, b in zip(rows, rows[1:], strict=False))
    assert (out / "win_rate.png").stat().st_size > 1000
    r = cli("eval", str(out / "model.zip"), "--task", "Melee", "--task-kwargs", short, "--episodes", "2")
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"win rate: 0\.000  \(0/2 games won, 2 tied; 95% Wilson interval 0\.000-0\.658\)", r.stdout), r.stdout
    assert {row["opponent"] for row in rows} == {"terran/easy/randombuild"}

    # on from the saved model, with a lower learning rate, against Easy and VeryEasy drawn per game
    mixed = json.dumps({"map": "BlueshiftLE", "time_limit_s": 20,
                        "opponent": [{"difficulty": "easy"}, {"difficulty": "veryeasy"}]})
    more = tmp_path / "more"
    r = cli("train", "--task", "Melee", "--task-kwargs", mixed, "--workers", "1", "--envs-per-worker", "2",
            "--timesteps", "64", "--out", str(more), "--no-progress", "--resume", str(out / "model.zip"),
            "--ppo", json.dumps({"learning_rate": 1e-5}))
    assert r.returncode == 0, r.stderr[-3000:]
    ppo = json.loads((more / "run.json").read_text())["ppo"]
    assert ppo["learning_rate"] == 1e-5 and ppo["n_steps"] == 32 and ppo["batch_size"] == 32  # the rest: the model's
    with (more / "game_results.csv").open() as f:
        labels = {row["opponent"] for row in csv.DictReader(f)}
    assert labels and labels <= {"terran/easy/randombuild", "terran/veryeasy/randombuild"}
    r = cli("train", "--task", "Melee", "--task-kwargs", short, "--resume", str(out / "model.zip"), "--out",
            str(tmp_path / "bad"), "--ppo", json.dumps({"policy_kwargs": {"net_arch": [8]}}))
    assert r.returncode == 2 and "cannot change when resuming" in r.stderr


def test_pretrain_options_are_checked_before_anything_starts(tmp_path: Path) -> None:
    from sc2pool.training.train import TASK_PRETRAIN_DEFAULTS, train

    assert TASK_PRETRAIN_DEFAULTS == {"Melee": 24}
    r = subprocess.run([sys.executable, "-m", "sc2pool", "train", "--task", "Melee", "--pretrain-episodes", "-1",
                        "--out", str(tmp_path / "a")], capture_output=True, text=True, timeout=60, env=ENV)
    assert r.returncode == 2 and "--pretrain-episodes must be >= 0" in r.stderr
    model = tmp_path / "m.zip"
    model.write_bytes(b"x")
    r = subprocess.run([sys.executable, "-m", "sc2pool", "train", "--task", "Melee", "--pretrain-episodes", "3",
                        "--resume", str(model), "--out", str(tmp_path / "b")], capture_output=True, text=True,
                       timeout=60, env=ENV)
    assert r.returncode == 2 and "does not apply with --resume" in r.stderr
    with pytest.raises(ValueError, match="does not apply with resume"):
        train("Melee", 1, 2, 64, tmp_path / "c", resume=model, pretrain_episodes=2)
