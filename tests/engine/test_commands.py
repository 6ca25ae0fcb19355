"""The command path: every ability is answered; one the engine does not simulate gets a clear
result and a log line naming it."""

from __future__ import annotations

import logging

import pytest

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim import commands
from sc2pool.engine.sim.commands import ERROR, NOT_SUPPORTED, SUCCESS
from sc2pool.engine.sim.world import World

ARENA = MapSpec("Test", 64, 64, (0, 0, 64, 64))


@pytest.fixture
def fresh_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "_reported", set())


def test_an_ability_not_simulated_is_refused_and_logged_by_name(fresh_log: None,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    w = World(ARENA)
    tag = int(w.spawn(D.MARINE, 1, [10.0], [10.0])[0])
    hatch = 28  # a Zerg spray (cosmetic): in the data, simulated by no system
    with caplog.at_level(logging.WARNING, logger="sc2pool.engine.sim.commands"):
        assert w.command(1, hatch, [tag], (20.0, 20.0), 0, False) == NOT_SUPPORTED
        assert w.command(1, hatch, [tag], None, 0, False) == ERROR  # (no target: as it always answered)
        assert w.command(1, 99999, [tag], (20.0, 20.0), 0, False) == NOT_SUPPORTED
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["ability 28 (Effect Spray Zerg) is not simulated: no system of the engine simulates it",
                     "ability 99999 (<ability 99999: not in the client's data>) is not simulated: no system of "
                     "the engine simulates it"]  # once per ability
    assert w.command(1, D.MOVE_MOVE, [tag], (20.0, 20.0), 0, False) == SUCCESS


def test_an_economy_ability_without_an_economy_says_so(fresh_log: None, caplog: pytest.LogCaptureFixture) -> None:
    w = World(ARENA)
    tag = int(w.spawn(D.SCV, 1, [10.0], [10.0])[0])
    with caplog.at_level(logging.WARNING, logger="sc2pool.engine.sim.commands"):
        assert w.command(1, 319, [tag], (20.0, 20.0), 0, False) == NOT_SUPPORTED  # build a supply depot
    assert [r.getMessage() for r in caplog.records] == [
        "ability 319 (TERRANBUILD_SUPPLYDEPOT) is not simulated: this game has no economy"]
