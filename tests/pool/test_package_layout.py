"""The package as a user imports it: one folder per part, the command line in ``sc2pool/cli/``,
and every import path a user could have written before the split still working."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sc2pool

ROOT = Path(sc2pool.__file__).resolve().parent

# the old module paths a user may have imported, and the module each now is
OLD_PATHS = {
    "sc2pool.vec_env": "sc2pool.pool.vec_env",
    "sc2pool.spaces": "sc2pool.pool.spaces",
    "sc2pool.train": "sc2pool.training.train",
}


def test_the_root_holds_only_what_every_part_shares() -> None:
    modules = sorted(p.name for p in ROOT.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "errors.py", "options.py", "spaces.py", "train.py", "vec_env.py"]
    folders = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file())
    assert folders == ["bench", "broker", "cli", "engine", "launchers", "pool", "training"]


def test_the_command_line_lives_in_sc2pool_cli() -> None:
    scripts = (ROOT.parent / "pyproject.toml").read_text().split("[project.scripts]", 1)[1]
    assert re.match(r'\s*sc2pool = "sc2pool\.cli:main"\n', scripts)
    from sc2pool import cli

    assert Path(cli.__file__).parent == ROOT / "cli"
    commands = cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(commands) == {"train", "eval", "replay", "worker", "bench", "engine", "keygen"}
    out = subprocess.run([sys.executable, "-m", "sc2pool", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "train" in out.stdout and "engine" in out.stdout


@pytest.mark.parametrize("old, new", sorted(OLD_PATHS.items()))
def test_old_module_paths_are_the_moved_modules(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


def test_the_public_names_are_where_they_were() -> None:
    from sc2pool import FailurePolicy, ZmqVecEnv
    from sc2pool.errors import ClusterUnavailableError, EncodeError
    from sc2pool.launchers import RayLauncher, SlurmLauncher
    from sc2pool.options import Timeouts
    from sc2pool.spaces import space_to_msg
    from sc2pool.train import evaluate, train
    from sc2pool.vec_env import ZmqVecEnv as OldZmqVecEnv

    assert OldZmqVecEnv is ZmqVecEnv and sc2pool.FailurePolicy is FailurePolicy
    for name in sc2pool._LAZY:
        assert getattr(sc2pool, name) is not None, name
    assert all(callable(x) for x in (train, evaluate, space_to_msg, RayLauncher, SlurmLauncher))
    assert issubclass(ClusterUnavailableError, sc2pool.PoolError) and issubclass(EncodeError, ValueError)
    assert Timeouts(join=5).join == 5
