"""``sc2pool train`` / ``sc2pool eval`` as a user runs them (real processes, tiny budgets)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ENV = {k: v for k, v in os.environ.items() if k != "SC2PATH"}


def _cli(*args: str, timeout: float = 150) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sc2pool", *args], capture_output=True, text=True, timeout=timeout, env=ENV
    )


@pytest.mark.timeout(240)
def test_train_then_eval(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = _cli(
        "train", "--task", "MoveToBeacon", "--workers", "1", "--envs-per-worker", "2", "--timesteps", "256",
        "--engine", "inprocess", "--out", str(out), "--no-progress",
        "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1}),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    assert "learning curve" in r.stdout
    for name in ("model.zip", "learning_curve.csv", "episode_reward.png", "run.json"):
        assert (out / name).is_file(), name
    assert any((out / "tensorboard").rglob("events.out.tfevents*"))
    r = _cli("eval", str(out / "model.zip"), "--task", "MoveToBeacon", "--episodes", "2", "--engine", "inprocess")
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"mean reward: -?\d+(\.\d+)?", r.stdout), r.stdout


@pytest.mark.timeout(120)
def test_eval_scripted_and_bad_arguments(tmp_path: Path) -> None:
    r = _cli("eval", "--policy", "scripted", "--task", "MoveToBeacon", "--episodes", "2", "--engine", "inprocess")
    assert r.returncode == 0, r.stderr[-3000:]
    mean = float(re.search(r"mean reward: (-?[\d.]+)", r.stdout).group(1))  # type: ignore[union-attr]
    assert mean >= 10, r.stdout
    r = _cli("eval", str(tmp_path / "missing.zip"))
    assert r.returncode == 2 and "no model file" in r.stderr
    r = _cli("train", "--task", "MoveToBacon", "--timesteps", "64", "--workers", "1", "--envs-per-worker", "1",
             "--out", str(tmp_path / "bad"), "--no-progress")  # fmt: skip
    assert r.returncode == 1 and "unknown task 'MoveToBacon'" in r.stderr and "MoveToBeacon" in r.stderr
