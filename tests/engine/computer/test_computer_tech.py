"""The melee Computer's tech builds (``levels.Tech``): bio (Timing, Power), mech (Macro) and air.

Each game runs in process as in ``test_computer_melee.py`` (the participant idle), on AcidPlantLE.
The lower builds (Simple for VeryEasy and Easy, Rush) must play exactly as before the tech builds
were added (the agent trained against Easy meets the same games): their seeded games are compared
with traces recorded before the change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_computer_melee import _rush, computer, count, melee, play_until  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer.rules import TECH_STRUCTURES  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402
from sc2pool.engine.scenarios.base import VICTORY  # noqa: E402
from sc2pool.engine.sim.systems.addons import REACTORS, TECHLABS, addon_spot  # noqa: E402
from sc2pool.engine.sim.units import FOLLOW, TYPES  # noqa: E402

FACTORY, STARPORT = 27, 28
PRODUCTION = (D.BARRACKS, FACTORY, STARPORT)


def no_attack(g: Game) -> None:
    """The Computer never launches a wave nor a drop (so that the idle participant lasts the test)."""
    c = computer(g)
    c.build = dataclasses.replace(c.build, first_attack_s=math.inf)
    c.rules.next_drop = 1 << 60  # type: ignore[attr-defined]  # (Terran's)


def quiet(difficulty: int, build: int, race: int, until_s: float) -> Game:
    """A game whose Computer never attacks (:func:`no_attack`), played to ``until_s``."""
    g = melee(difficulty, build, race=race)
    no_attack(g)
    play_until(g, until_s)
    return g


def addons_of(g: Game, structure: int) -> tuple[int, int]:
    """(tech labs, reactors) attached to the Computer's finished structures of type ``structure``,
    each at its structure's add-on spot."""
    w = g.world
    labs = reactors = 0
    for s in w.construction.structures.values():
        if s.owner != 2 or s.unit_id != structure:
            continue
        a = w.addons.attached(s)
        if a is None:
            continue
        assert (a.x, a.y) == addon_spot(s.x, s.y)
        labs += a.unit_id in TECHLABS
        reactors += a.unit_id in REACTORS
    return labs, reactors


@pytest.mark.timeout(240)
@pytest.mark.parametrize("build", [L.TIMING, L.POWER])
def test_bio_builds_barracks_add_ons_a_factory_and_a_starport_for_medivacs(build: int) -> None:
    g = melee(L.HARD, build)
    no_attack(g)
    play_until(g, 480)  # (Combat Shield and Stimpack take the gas of its first Medivacs)
    assert count(g, 2, FACTORY) >= 1 and count(g, 2, STARPORT) >= 1
    labs, reactors = addons_of(g, D.BARRACKS)
    assert labs >= 1 and reactors >= 1
    assert count(g, 2, L.MARAUDER) >= 3 and count(g, 2, L.MEDIVAC) >= 2
    assert count(g, 2, D.MARINE) > count(g, 2, L.MARAUDER)


@pytest.mark.timeout(240)
def test_mech_builds_factories_with_tech_labs_for_siege_tanks_and_vikings() -> None:
    g = melee(L.HARD, L.MACRO)
    no_attack(g)
    play_until(g, 600)
    assert count(g, 2, FACTORY) >= 2
    labs, reactors = addons_of(g, FACTORY)
    assert labs >= 1 and reactors >= 1
    assert count(g, 2, L.SIEGETANK) >= 3 and count(g, 2, L.HELLION) >= 1
    assert count(g, 2, L.VIKING) >= 1


@pytest.mark.timeout(240)
def test_air_builds_starports_with_tech_labs_for_banshees_and_vikings() -> None:
    g = melee(L.HARD, L.AIR)
    no_attack(g)
    play_until(g, 480)  # (Cloaking Field takes the gas of a Banshee first)
    assert count(g, 2, STARPORT) >= 2
    labs, _ = addons_of(g, STARPORT)
    assert labs >= 2
    assert count(g, 2, L.BANSHEE) >= 2 and count(g, 2, L.VIKING) >= 1
    assert count(g, 2, D.MARINE) >= 4  # (marines for defence)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("build", [L.TIMING, L.MACRO, L.AIR])
def test_a_tech_wave_with_units_that_cannot_fight_ground_wins(build: int) -> None:
    """The units that cannot fight ground units (Medivacs, Vikings; at Hard the Air build's
    Liberators and Raven) go with the wave (following a unit that fights) and do not stall it: the
    Computer eliminates the idle participant."""
    g = melee(L.HARD, build)
    escorts_followed = False
    while not g.ended and g.world.loop < 15 * 60 * 22.4:
        play_until(g, g.world.loop / 22.4 + 10)
        c = computer(g)
        if c.wave:
            u = g.world.u
            rows = u.rows(np.fromiter(c.wave, dtype=np.int64))
            rows = rows[rows >= 0]
            no_ground = ~TYPES.hits_ground[u.ti[rows]]
            escorts_followed |= bool((u.kind[rows[no_ground]] == FOLLOW).any())
    assert g.ended and g.results == {1: 2, 2: VICTORY}
    assert escorts_followed


def test_medium_keeps_its_caps_on_production_and_spending() -> None:
    """The level's knobs bind the tech builds too: at most 4 + 2 production structures at Medium
    (its cap on barracks, then a Factory and a Starport), and no more spent than 4/5 of its
    minerals and 3/4 of its vespene (+50 minerals)."""
    g = melee(L.MEDIUM, L.MACRO)
    no_attack(g)
    play_until(g, 480)
    assert sum(count(g, 2, p) for p in PRODUCTION) <= L.LEVELS[L.MEDIUM].max_barracks + TECH_STRUCTURES
    assert count(g, 2, L.SIEGETANK) >= 1
    s = g.world.supply
    assert s.spent_minerals[2] <= 50 + 0.8 * s.collected_minerals[2]
    assert s.spent_vespene[2] <= 0.75 * s.collected_vespene[2]


def trace(difficulty: int, build: int, seed: int, until_s: int, rush_s: int = 0) -> str:
    """A digest of the Computer's game: every 10 game seconds its unit counts by type, its money and
    spending, and the participant's unit count, until ``until_s`` or the game's end (from ``rush_s``
    on, 8 of the participant's marines attack its main)."""
    g = melee(difficulty, build, seed=seed)
    rows = []
    t = 0
    if rush_s:
        _rush(g, D.MARINE, 8, rush_s)
        t = rush_s - rush_s % 10
    while t < until_s and not g.ended:
        t += 10
        play_until(g, t)
        u = g.world.u
        ids, n = np.unique(u.unit_id[u.owner == 2], return_counts=True)
        s = g.world.supply
        rows.append((g.world.loop, tuple(zip(ids.tolist(), n.tolist(), strict=True)), s.minerals[2], s.vespene[2],
                     s.spent_minerals[2], int(np.count_nonzero(u.owner == 1))))
    rows.append((g.ended, tuple(sorted(g.results.items())) if g.ended else ()))
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("difficulty", "build", "rush_s", "digest"), [
    (L.EASY, L.RANDOM_BUILD, 0, "5684ca848d54e61e"),
    (L.EASY, L.RANDOM_BUILD, 150, "d724090522116de6"),
    (L.VERY_EASY, L.RANDOM_BUILD, 0, "962a7af004bd7ada"),
    (L.HARD, L.RUSH, 0, "95586ed10dc3993f"),
])
def test_simple_and_rush_play_as_before_the_tech_builds(difficulty: int, build: int, rush_s: int, digest: str) -> None:
    """The digests were recorded with the Computer as it was before the tech builds (its code at
    commit 61c7382, on the engine of the merge that brought them, by this test's ``trace``): the
    games of Simple (VeryEasy, Easy; one defending its base) and Rush are unchanged, outcome
    included.  The three Simple digests were recorded again when targeting learnt that a unit
    attacks only what its player sees (a rule of the engine, not of the Computer: with it switched
    off the old digests still come out), and the two Easy ones again when idle workers stopped
    acquiring targets of their own (``_WORKER_TI`` in ``systems/targeting.py``; with it emptied the
    previous digests come out), and all four again when a worker finding its field occupied came
    to look for a free one over the whole mineral line (``harvest.BOUNCE_RADIUS``; set back to 3
    the previous digests come out).  Rush's again when the levels that play their own build
    began to morph Orbital Commands and call down MULEs (``terran.TerranRules.train_workers``,
    ``tend_bases``): the Simple games are unchanged by it."""
    assert trace(difficulty, build, seed=5, until_s=600, rush_s=rush_s) == digest


@pytest.mark.timeout(240)
def test_mech_answers_enemy_air_with_more_vikings() -> None:
    """Enemy air units seen near its base: the mech build trains Vikings up to one more than the
    most it has seen at once (one only otherwise), and its army shoots them down."""
    vikings = {}
    for air in (False, True):
        g = melee(L.HARD, L.MACRO)
        no_attack(g)
        if air:
            tags = _rush(g, 35, 4, 300, dist=12.0)  # (4 of the participant's Vikings fly at its main)
        play_until(g, 540)
        vikings[air] = count(g, 2, L.VIKING)
        if air:
            assert computer(g).enemy_air == 4
            assert not (g.world.u.rows(tags) >= 0).any()
    assert vikings[False] == 1 and vikings[True] >= 3, vikings
