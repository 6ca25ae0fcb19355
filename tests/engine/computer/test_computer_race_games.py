"""Whole games of a Protoss and a Zerg melee Computer, as ``test_computer_melee.py`` plays the Terran
one."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_computer_melee import computer, count, melee, play_until  # noqa: E402
from test_computer_terran import _army_at_home, _near, _until, made  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402
from sc2pool.engine.scenarios.base import VICTORY  # noqa: E402

RACE_PARAMS = [pytest.param(r, id=R.PROFILES[r].name) for r in (D.PROTOSS, D.ZERG)]


def army(g: Game, race: int) -> int:
    u = g.world.u
    return int(np.count_nonzero((u.owner == 2) & np.isin(u.unit_id, R.PROFILES[race].army)))


def no_attack(g: Game) -> None:
    c = computer(g)
    c.build = dataclasses.replace(c.build, first_attack_s=math.inf)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty", [L.VERY_EASY, L.EASY, L.MEDIUM, L.HARD, L.VERY_HARD])
@pytest.mark.parametrize("race", RACE_PARAMS)
def test_every_level_builds_an_economy_and_an_army(race: int, difficulty: int) -> None:
    g = melee(difficulty, seed=difficulty, race=race)
    p = R.PROFILES[race]
    assert computer(g).race is p
    play_until(g, 360)
    assert not g.ended or g.results == {1: 2, 2: VICTORY}
    assert count(g, 2, p.worker) > 14
    assert count(g, 2, p.supply_unit) >= (2 if p.supply_train else 1)
    assert sum(count(g, 2, t) for t in p.roles[p.production[0]].types) >= 1  # (a Gateway or its Warp Gate)
    assert army(g, race) >= 3
    used, cap = g.world.supply.food(2)
    assert used <= cap


@pytest.mark.timeout(300)
@pytest.mark.parametrize("race", RACE_PARAMS)
def test_the_tech_builds_reach_their_tech_units(race: int) -> None:
    """Protoss Power: a Cybernetics Core, Warp Gates, Stalkers and a Robotics Facility's Immortals; Zerg Power: a Roach Warren, a Lair, a
    Hydralisk Den and Hydralisks, Queens."""
    g = melee(L.HARD, L.POWER, race=race)
    no_attack(g)
    play_until(g, 540)
    if race == D.PROTOSS:
        # (no Sentry asked for: its 100 vespene goes first to Warp Gate, the Forge's upgrades,
        # Stalkers and Immortals)
        assert count(g, 2, R.CYBERCORE_T) >= 1 and count(g, 2, R.STALKER) >= 3
        assert count(g, 2, R.WARPGATE_T) >= 1 and g.world.research.has(2, 84)  # Warp Gate
        assert count(g, 2, R.ROBO_T) >= 1 and count(g, 2, R.IMMORTAL) >= 1
        pylons = [(s.x, s.y) for s in g.world.construction.structures.values()
                  if s.owner == 2 and s.unit_id == R.PYLON]
        for s in g.world.construction.structures.values():  # every powered structure in a Pylon's field
            if s.owner == 2 and s.unit_id in (R.GATEWAY_T, R.WARPGATE_T, R.CYBERCORE_T, R.ROBO_T, R.STARGATE_T):
                assert any(math.hypot(s.x - x, s.y - y) <= R.POWER_RADIUS for x, y in pylons)
    else:
        assert count(g, 2, R.WARREN_T) >= 1 and count(g, 2, R.ROACH) >= 3
        assert count(g, 2, R.LAIR) >= 1 and count(g, 2, R.DEN_T) >= 1 and count(g, 2, R.HYDRALISK) >= 1
        assert count(g, 2, R.QUEEN) >= 1
    assert count(g, 2, p_townhall(race)) >= 2  # (it expanded)


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("build", "until", "unit", "structure"), [
    (L.MACRO, 660, R.COLOSSUS, R.ROBOBAY_T), (L.AIR, 540, R.CARRIER, R.FLEET_BEACON_T),
    (L.MACRO, 720, R.ARCHON, R.ARCHIVES_T)])
def test_from_hard_up_the_protoss_builds_reach_colossi_carriers_and_archons(build: int, until: float, unit: int,
                                                                            structure: int) -> None:
    """The structure a top-tier unit needs is built for it (``MeleeComputer.unlock``: a Templar
    Archives by way of a Twilight Council) and the unit trained from Hard up, High Templar merged
    by pairs into Archons (``Tech.unit_morphs``); MediumHard plays the build without them."""
    got = {}
    for level in (L.MEDIUM_HARD, L.HARD):
        g = melee(level, build, race=D.PROTOSS)
        no_attack(g)
        play_until(g, until)
        got[level] = (count(g, 2, unit), count(g, 2, structure))
    assert got[L.HARD][0] >= 1 and got[L.HARD][1] >= 1, got
    assert got[L.MEDIUM_HARD][0] == 0, got


@pytest.mark.timeout(300)
def test_from_hard_up_the_zerg_macro_build_goes_up_to_hive_tech_and_ultralisks() -> None:
    """An Infestation Pit, the Hive, an Ultralisk Cavern on the way to its Ultralisks
    (``MeleeComputer.obtain``); with room under the supply cap it makes them."""
    g = melee(L.HARD, L.MACRO, race=D.ZERG)
    no_attack(g)
    play_until(g, 780)
    assert count(g, 2, R.PIT_T) >= 1 and count(g, 2, R.HIVE) >= 1 and count(g, 2, R.CAVERN_T) >= 1
    assert count(g, 2, R.ULTRALISK) == 0  # (its quiet army filled 200 supply before the Cavern stood)
    w = g.world
    u = w.u
    lings = u.tag[(u.owner == 2) & (u.unit_id == R.ZERGLING)]
    w.remove_tags([int(t) for t in lings[: len(lings) // 2]])
    play_until(g, 790, chunk_s=1)
    hatching = sum(k for _, t, k in computer(g).rules.hatching if t == R.ULTRALISK)  # type: ignore[attr-defined]
    assert count(g, 2, R.ULTRALISK) + hatching >= 1


def _free_supply(g: Any, keep: set[int]) -> None:
    """A quiet army soon fills 200 supply, and a morph to a unit of more supply (a Ravager, a
    Lurker, a Brood Lord) then waits for room, as in the real game: half of its army units not of
    the morph's source (``keep``) go, to leave it room."""
    w = g.world
    u = w.u
    rows = np.flatnonzero((u.owner == 2) & np.isin(u.unit_id, computer(g).army_types) & ~np.isin(u.unit_id, sorted(keep)))
    w.remove_tags([int(t) for t in w.u.tag[rows[: len(rows) // 2]].tolist()])


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("build", "until", "unit", "source", "structure"), [
    pytest.param(L.TIMING, 420, R.RAVAGER, R.ROACH, R.WARREN_T, id="Timing-Ravagers"),
    pytest.param(L.MACRO, 480, R.BANELING, R.ZERGLING, R.NEST_T, id="Macro-Banelings"),
    pytest.param(L.POWER, 780, R.LURKER, R.HYDRALISK, R.LURKER_DEN_T, id="Power-Lurkers"),
    pytest.param(L.AIR, 780, R.BROODLORD, R.CORRUPTOR, R.GREATER_SPIRE_T, id="Air-BroodLords")])
def test_from_hard_up_the_zerg_builds_morph_part_of_their_army(build: int, until: float, unit: int, source: int,
                                                               structure: int) -> None:
    """``Tech.unit_morphs``: the structure a morph needs is obtained (a Baneling Nest, a Lurker Den,
    a Greater Spire by way of a Hive) and units of the army morph (cocoons counted) from Hard up;
    MediumHard plays the build without them."""
    got = {}
    for level in (L.MEDIUM_HARD, L.HARD):
        g = melee(level, build, race=D.ZERG)
        no_attack(g)
        play_until(g, until - 60)
        _free_supply(g, keep={source})
        play_until(g, until)
        got[level] = (made(g, unit), count(g, 2, structure))
    assert got[L.HARD][0] >= 1 and got[L.HARD][1] >= 1, got
    assert got[L.MEDIUM_HARD][0] == 0, got


@pytest.mark.timeout(240)
def test_lurkers_burrow_near_enemy_ground_units_and_come_up_when_none_is_left() -> None:
    g, sx, sy, (lurker,) = _army_at_home(L.POWER, (R.LURKER, 0, 0), race=D.ZERG)
    w = g.world
    uid = lambda: int(w.u.unit_id[w.u.row(lurker)])  # noqa: E731
    assert uid() == R.LURKER  # nothing near: it stays up
    marines = _near(g, D.MARINE, 3, sx, sy, 6)
    assert _until(g, lambda: uid() == R.LURKER_BURROWED, 6)
    # burrowed, it fights: its spines kill the marines that hold their place in its range
    assert _until(g, lambda: all(w.u.row(t) < 0 for t in marines), 20)
    assert _until(g, lambda: uid() == R.LURKER, 10)
    assert lurker in set(w.u.tag[computer(g).army_rows].tolist())


@pytest.mark.timeout(240)
def test_ravagers_spit_corrosive_bile_at_what_cannot_step_out_of_it() -> None:
    """``ZergRules.bile``: a Ravager whose bile is ready spits it at an enemy in reach, a structure
    before a unit that could walk away; two Ravagers both aim at the one structure."""
    from sc2pool.engine.sim.systems.zerg_spells import CORROSIVE_BILE

    g, sx, sy, ravagers = _army_at_home(L.TIMING, (R.RAVAGER, 0, 0), (R.RAVAGER, 1, 0), race=D.ZERG)
    w = g.world
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    d = float(np.hypot(sx - hx, sy - hy))
    bx, by = sx + (sx - hx) / d * 7, sy + (sy - hy) / d * 7
    [bunker] = w.spawn(24, 1, [bx], [by], free=True).tolist()  # (a Bunker: 400 life, 1 armor)
    _near(g, D.MARINE, 1, sx, sy, 5)
    assert _until(g, lambda: not any(w.casting.ready_to(t, CORROSIVE_BILE) for t in ravagers), 6)
    biles = list(w.zerg.spells.biles)
    r = w.u.row(bunker)
    bunker_xy = (float(w.u.x[r]), float(w.u.y[r]))
    assert len(biles) == 2 and all((x, y) == bunker_xy for _, x, y, _ in biles), (biles, bunker_xy)


@pytest.mark.timeout(240)
def test_high_templar_storm_a_clump_of_enemy_units_once_psionic_storm_is_researched() -> None:
    """``ProtossRules.storms``: no storm before the research; with it and the energy, a High Templar
    storms the clump of Marines, not the lone one nearer to it."""
    from sc2pool.engine.computer import protoss as PR

    g, sx, sy, (ht,) = _army_at_home(L.MACRO, (R.HIGHTEMPLAR, 0, 0), race=D.PROTOSS)
    w = g.world
    w.abilities.energy[ht] = (200.0, w.loop, 200.0)
    [lone] = _near(g, D.MARINE, 1, sx, sy, -6.5)  # (behind it, towards its main; out of reach)
    clump = _near(g, D.MARINE, 5, sx, sy, 9)
    assert not _until(g, lambda: bool(w.protoss.storms), 3)  # (not researched: no storm)
    w.research.grant(2, PR.STORM_UPGRADE)
    assert _until(g, lambda: bool(w.protoss.storms), 4)
    storm = w.protoss.storms[0]
    rows = [w.u.row(t) for t in clump if w.u.row(t) >= 0]
    cx, cy = float(np.mean(w.u.x[rows])), float(np.mean(w.u.y[rows]))
    r = w.u.row(lone)
    assert math.hypot(storm.x - cx, storm.y - cy) < 1.5
    assert r < 0 or math.hypot(storm.x - float(w.u.x[r]), storm.y - float(w.u.y[r])) > 1.5


@pytest.mark.timeout(240)
def test_high_templar_feed_back_the_enemy_caster_with_the_most_energy_in_reach() -> None:
    """``ProtossRules.feedbacks``: a High Templar with 50 energy drains the Ghost with 100 energy,
    not the nearer one with 30 (below the 50 it looks for), and no research is needed."""
    g, sx, sy, (ht,) = _army_at_home(L.MACRO, (R.HIGHTEMPLAR, 0, 0), race=D.PROTOSS)
    w = g.world
    ghost = 50
    [poor] = _near(g, ghost, 1, sx, sy, 5)
    [rich] = _near(g, ghost, 1, sx, sy, 8.5)
    w.abilities._register()
    w.abilities.energy[ht] = (60.0, w.loop, 200.0)
    w.abilities.energy[poor] = (30.0, w.loop, 200.0)
    w.abilities.energy[rich] = (100.0, w.loop, 200.0)
    assert _until(g, lambda: w.abilities.energy_of(rich) < 5.0, 4)
    assert w.abilities.energy_of(poor) >= 30.0
    assert w.abilities.energy_of(ht) < 15.0  # (60 - 50 and what it regained since)
    r = w.u.row(rich)
    assert r < 0 or float(w.u.hp[r]) <= 100.0 - 50.0 + 1e-6  # 0.5 damage per energy drained


def p_townhall(race: int) -> int:
    return R.PROFILES[race].townhalls[0]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("difficulty", [L.MEDIUM, L.HARD, L.VERY_HARD])
@pytest.mark.parametrize("race", RACE_PARAMS)
def test_it_defeats_an_idle_player_within_20_minutes(race: int, difficulty: int) -> None:
    g = melee(difficulty, seed=difficulty, race=race)
    play_until(g, 20 * 60, chunk_s=30)
    assert g.ended and g.results == {1: 2, 2: VICTORY}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("race", RACE_PARAMS)
def test_strength_knobs_are_ordered(race: int) -> None:
    """As for Terran: at six minutes the harder levels have spent more and hold more workers."""
    got = []
    p = R.PROFILES[race]
    for difficulty in (L.VERY_EASY, L.MEDIUM, L.VERY_HARD):
        g = melee(difficulty, build=L.POWER, seed=11, race=race)
        play_until(g, 360)
        got.append((g.world.supply.spent_minerals[2], count(g, 2, p.worker)))
    assert got[0][0] < got[1][0] < got[2][0], got
    assert got[0][1] < got[1][1] <= got[2][1], got
