"""``sc2pool engine install|scenarios|serve`` command line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sc2pool.cli import main
from sc2pool.engine.install import is_fake_install


def test_engine_install_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["engine", "install", str(tmp_path / "sc2")]) == 0
    root = (tmp_path / "sc2").resolve()
    assert is_fake_install(root)
    assert os.access(root / "Versions" / "Base94137" / "SC2_x64", os.X_OK)
    assert f"SC2PATH={root}" in capsys.readouterr().out


def test_engine_scenarios_cli(capsys: pytest.CaptureFixture[str]):
    assert main(["engine", "scenarios"]) == 0
    out = capsys.readouterr().out
    for name in ("MoveToBeacon", "CollectMineralShards", "DefeatRoaches", "DefeatZerglingsAndBanelings", "Skirmish"):
        assert name in out
    assert "Maps/mini_games/MoveToBeacon.SC2Map" in out


def test_engine_requires_action():
    with pytest.raises(SystemExit):
        main(["engine"])
