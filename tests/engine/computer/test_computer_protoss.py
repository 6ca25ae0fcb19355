"""The Protoss Computer's army control at the higher levels (``sc2pool.engine.computer.protoss``, ``.melee``):
its structures keep the way out of its bases free, its waves wait while the enemy army it has seen
is stronger (and its reckoning of that army keeps growing past a new sighting), it defends first
meanwhile, its Sentries cast Guardian Shield in a fight, its Nexus casts Chrono Boost, and from Hard
up Battery Overcharge on a Shield Battery in a fight.  Real games in process (the participant idle),
as ``test_computer_race_games.py`` plays them."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_computer_melee import computer, melee, play_until, snapshot  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from protoss_helpers import unit  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.computer.protoss import (  # noqa: E402
    CHRONO_ENERGY,
    OVERCHARGE_REACH,
    SHIELD_ENERGY,
    WAY_OUT_RADIUS,
    WAY_OUT_ROOM,
    ProtossRules,
)
from sc2pool.engine.computer.races import CHRONO_BOOST  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402
from sc2pool.engine.sim.commands import SUCCESS  # noqa: E402
from sc2pool.engine.sim.systems import warpgate as WG  # noqa: E402


def no_attack(g: Game) -> None:
    c = computer(g)
    c.build = dataclasses.replace(c.build, first_attack_s=math.inf)


def spawn(g: Game, unit_id: int, owner: int, at: tuple[float, float], n: int) -> np.ndarray:
    """Tags of ``n`` new units round ``at`` (in the store once the game has stepped)."""
    return g.world.spawn(unit_id, owner, np.full(n, at[0]) + np.arange(n) % 4 * 0.8,
                         np.full(n, at[1]) + np.arange(n) // 4 * 0.8, free=True)


def rows(g: Game, tags: np.ndarray) -> np.ndarray:
    r = g.world.u.rows(np.asarray(tags, dtype=np.int64))
    assert (r >= 0).all()
    return r


@pytest.mark.timeout(300)
def test_protoss_structures_leave_the_way_out_of_its_main_free() -> None:
    g = melee(L.HARD, L.MACRO, race=D.PROTOSS)
    no_attack(g)
    play_until(g, 360)
    c = computer(g)
    main = c.site_index(c.home)
    rules = c.rules
    assert isinstance(rules, ProtossRules)
    way = rules.ways[main]
    assert len(way) > 20  # (planned down the ramp, not stopped at its top)
    structures = [s for s in g.world.construction.structures.values()
                  if s.owner == 2 and s.unit_id not in (R.NEXUS, R.ASSIMILATOR)]
    assert len(structures) >= 8
    for s in structures:
        h = 1.0 if s.unit_id == R.PYLON else 1.5
        dx = np.maximum(np.abs(way[:, 0] - s.x) - h, 0.0)
        dy = np.maximum(np.abs(way[:, 1] - s.y) - h, 0.0)
        assert float(np.sqrt(dx * dx + dy * dy).min()) >= WAY_OUT_ROOM - 1e-6, (s.unit_id, s.x, s.y)
    # a Zealot walks out of the main to the enemy's start
    finder = g.world.pathing.finder
    goal = c.candidates[0]
    hx, hy = c.home
    d = math.hypot(goal[0] - hx, goal[1] - hy)
    start = finder.nearest_pathable(hx + 6 * (goal[0] - hx) / d, hy + 6 * (goal[1] - hy) / d, WAY_OUT_RADIUS)
    end = finder.path(start, goal, WAY_OUT_RADIUS)[-1]
    assert math.hypot(end[0] - goal[0], end[1] - goal[1]) < 12.0


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, waits", [(L.HARD, True), (L.MEDIUM, False)])
def test_a_wave_waits_while_the_enemy_army_it_remembers_is_stronger(difficulty: int, waits: bool) -> None:
    g = melee(difficulty, L.RUSH, race=D.PROTOSS)
    c = computer(g)
    no_attack(g)  # (its own decisions launch nothing meanwhile)
    play_until(g, 30)
    zealots = spawn(g, R.ZEALOT, 2, c.staging(g.world), 8)
    marine_tags = spawn(g, D.MARINE, 1, c.candidates[0], 40)
    play_until(g, 31)
    c.now = g.world.loop
    home, marines = rows(g, zealots), rows(g, marine_tags)
    c.remember_army(g.world, marines)
    assert len(c.enemy_army) == 40
    c.build = dataclasses.replace(c.build, first_attack_s=0.0)
    c.launch(g.world, home)
    assert bool(c.wave) != waits
    if waits:  # (the enemy army it knew of is gone: the wave goes)
        c.enemy_army.clear()
        c.launch(g.world, home)
        assert c.wave


@pytest.mark.timeout(300)
def test_the_enemy_army_it_reckons_keeps_growing_past_a_new_sighting() -> None:
    """19 Marines seen, three Barracks known: 100 s later it reckons 12 more, and seeing one new
    Marine then leaves 11 of them reckoned (an earlier reckoning started again from the units it
    remembered at each new sighting, and a Rush wave left into 44 Marines it reckoned 25)."""
    g = melee(L.HARD, L.RUSH, race=D.PROTOSS)
    c = computer(g)
    no_attack(g)
    c.level = dataclasses.replace(c.level, scout=0)  # (it sees only the units it is shown)
    play_until(g, 30)
    marine_tags = spawn(g, D.MARINE, 1, c.candidates[0], 20)
    play_until(g, 31)
    x, y = c.candidates[0]
    c.enemy_structures.update({-k: (x, y, D.BARRACKS) for k in range(1, 4)})
    c.remember_army(g.world, rows(g, marine_tags[:19]))
    seen = c.enemy_strength()
    assert seen > 0 and c.enemy_extra == 0.0
    play_until(g, 131)
    c.remember_army(g.world, rows(g, marine_tags[19:]))
    assert len(c.enemy_army) == 20
    assert c.enemy_extra == pytest.approx(11.0, abs=0.1)
    assert c.enemy_strength() == pytest.approx(seen * (31 / 19) ** 2, rel=0.02)


@pytest.mark.timeout(300)
def test_before_it_sees_an_army_it_reckons_what_the_enemy_production_trains() -> None:
    """Three Barracks known for 100 s and no Marine seen: it reckons 12 Marines, and a wave waits
    for three times their strength (a wave that went blind at 6:00 crossed 46 of them on their way
    to its base)."""
    g = melee(L.HARD, L.TIMING, race=D.PROTOSS)
    c = computer(g)
    no_attack(g)
    c.level = dataclasses.replace(c.level, scout=0)
    play_until(g, 30)
    x, y = c.candidates[0]
    c.enemy_structures.update({-k: (x, y, D.BARRACKS) for k in range(1, 4)})
    c.remember_army(g.world, np.zeros(0, dtype=np.int64))
    assert c.enemy_extra < 0.1
    play_until(g, 130)
    assert not c.enemy_army and c.enemy_extra == pytest.approx(12.0, abs=0.2)
    marine = D.unit_spec(D.MARINE)
    hp = marine.hp + marine.shield
    assert c.enemy_strength() > 0.9 * (12 * hp) * (12 * 6.0 / 13.78)
    assert not c.defend  # (a Barracks seen is no reason to stop expanding)
    # 10 Zealots (20 supply, the wave's 18) wait for three times the 12 Marines reckoned
    zealots = spawn(g, R.ZEALOT, 2, c.staging(g.world), 10)
    play_until(g, 130.5)
    home = rows(g, zealots)
    c.build = dataclasses.replace(c.build, first_attack_s=0.0)
    c.launch(g.world, home)
    assert not c.wave
    c.enemy_structures.clear()  # (no production known: nothing reckoned, the wave goes)
    c.launch(g.world, home)
    assert c.wave


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, defends", [(L.HARD, True), (L.MEDIUM, False)])
def test_it_defends_first_while_the_enemy_army_is_stronger(difficulty: int, defends: bool) -> None:
    """Against 40 Marines it reckons, with 8 Zealots at home: the harder levels train no more
    workers than its finished base mines, and start no Nexus."""
    g = melee(difficulty, L.RUSH, race=D.PROTOSS)
    c = computer(g)
    no_attack(g)
    play_until(g, 30)
    spawn(g, R.ZEALOT, 2, c.staging(g.world), 8)
    marine_tags = spawn(g, D.MARINE, 1, c.candidates[0], 40)
    play_until(g, 31)
    c.remember_army(g.world, rows(g, marine_tags))
    assert c.rules.defending(g.world) == defends
    # (the Marines stay remembered as they are)
    c.remember_army = lambda *a: None  # type: ignore[method-assign]
    c.build = dataclasses.replace(c.build, expand_s=(60.0, 420.0))
    play_until(g, 150)
    assert c.defend == defends
    u = g.world.u
    probes = int(((u.owner == 2) & (u.unit_id == R.PROBE)).sum())
    nexuses = sum(1 for s in g.world.construction.structures.values() if s.owner == 2 and s.unit_id == R.NEXUS)
    if defends:
        assert probes <= 16 + 3 and nexuses == 1
    else:
        assert nexuses == 2


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, boosts", [(L.HARD, True), (L.MEDIUM, False)])
def test_its_nexus_chrono_boosts_its_probes(difficulty: int, boosts: bool) -> None:
    g = melee(difficulty, L.RUSH, race=D.PROTOSS)
    play_until(g, 2)
    nexus = next(s for s in g.world.construction.structures.values() if s.owner == 2 and s.unit_id == R.NEXUS)
    assert nexus.queue  # (a Probe)
    assert (nexus.tag in g.world.tempo.boosted) == boosts
    assert computer(g).race.chrono == CHRONO_BOOST


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, casts", [(L.HARD, True), (L.MEDIUM, False)])
def test_a_sentry_casts_guardian_shield_near_enemies(difficulty: int, casts: bool) -> None:
    g = melee(difficulty, L.TIMING, race=D.PROTOSS)
    no_attack(g)
    c = computer(g)
    at = c.staging(g.world)
    tag = int(spawn(g, R.SENTRY, 2, at, 1)[0])
    play_until(g, 40)  # (its energy grows from 50 to 75)
    w = g.world
    assert w.abilities.energy_of(tag) >= SHIELD_ENERGY
    marine_tags = spawn(g, D.MARINE, 1, (at[0] + 5.0, at[1]), 4)
    other = int(spawn(g, R.SENTRY, 2, at, 1)[0])
    play_until(g, 40.5)
    c.now = w.loop
    sentry, marines = rows(g, np.array([tag])), rows(g, marine_tags)
    c.rules.shields(w, sentry, marines)
    assert (tag in w.protoss.guards) == casts
    assert (w.abilities.energy_of(tag) < SHIELD_ENERGY) == casts
    if casts:  # (a second Sentry beside it does not cast while its shield is up)
        w.abilities._set(other, 100.0)
        c.rules.shields(w, rows(g, np.array([tag, other])), marines)
        assert other not in w.protoss.guards and w.abilities.energy_of(other) == 100.0


@pytest.mark.timeout(240)
def test_it_researches_warp_gate_and_warps_its_gateway_units_in_at_its_pylons() -> None:
    g = melee(L.HARD, L.TIMING, race=D.PROTOSS)
    no_attack(g)
    play_until(g, 300)
    assert g.world.research.has(2, 84)  # Warp Gate, its first research
    warped: set[int] = set()
    for _ in range(24):  # (two minutes, read every 5 s: who is warping in; its natural's Nexus and
        # Shield Battery take the money of the first of them)
        play_until(g, g.world.loop / 22.4 + 5)
        warped |= set(g.world.warpgates.warping)
    structs = [s for s in g.world.construction.structures.values() if s.owner == 2]
    assert any(s.unit_id == R.WARPGATE_T for s in structs)
    assert not any(s.unit_id == R.GATEWAY_T and s.ready and not s.morph for s in structs)  # (all turned)
    u = g.world.u
    r = u.rows(np.fromiter(warped, dtype=np.int64))
    kinds = u.unit_id[r[r >= 0]]
    assert len(warped) >= 4 and set(kinds.tolist()) <= {R.ZEALOT, R.STALKER, R.SENTRY, R.ADEPT}


def battery_scene(difficulty: int) -> tuple[Game, int, int, tuple[float, float]]:
    """At 0:30, a finished Shield Battery of the Computer where its army waits and its Nexus at 100
    energy: the game, the Battery, the Nexus, the Battery's spot."""
    g = melee(difficulty, L.TIMING, race=D.PROTOSS)
    no_attack(g)
    play_until(g, 30)
    w = g.world
    at = computer(g).staging(w)
    battery = w.spawn(R.BATTERY_T, 2, [at[0]], [at[1]])
    w.adopt(battery)  # (finished)
    nexus = next(s for s in w.construction.structures.values() if s.owner == 2 and s.unit_id == R.NEXUS)
    w.abilities._set(nexus.tag, 100.0)
    return g, int(battery[0]), nexus.tag, at


def overcharges(g: Game) -> list[int]:
    """The results of the Battery Overcharge commands the Computer gives from now on."""
    w = g.world
    results: list[int] = []
    issue = w.command

    def command(player: int, ability: int, *args: Any) -> int:
        res = issue(player, ability, *args)
        if ability == WG.OVERCHARGE:
            results.append(res)
        return res

    w.command = command  # type: ignore[method-assign]
    return results


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, casts", [(L.HARD, True), (L.MEDIUM_HARD, False)])
def test_its_nexus_overcharges_a_shield_battery_in_a_fight_from_hard_up(difficulty: int, casts: bool) -> None:
    g, battery, nexus, at = battery_scene(difficulty)
    w = g.world
    w.abilities._set(nexus, 60.0)  # (enough for one cast: Battery Overcharge goes before Chrono Boost)
    spawn(g, D.MARINE, 1, (at[0] + 4.0, at[1]), 4)
    results = overcharges(g)
    play_until(g, 31)
    assert w.warpgates.overcharged(battery, w.loop) == casts
    assert results == ([SUCCESS] if casts else [])
    if casts:
        assert w.warpgates.overcharge_ready[2] > w.loop
        assert w.abilities.energy_of(nexus) < 60.0 - WG.OVERCHARGE_ENERGY + 2.0
        assert WG.OVERCHARGE_BUFF in unit(g, battery).buff_ids  # (the Marines see it)
    else:  # (MediumHard casts neither)
        assert w.abilities.energy_of(nexus) >= 60.0 and not w.tempo.boosted


@pytest.mark.timeout(300)
def test_no_enemy_near_its_shield_battery_its_nexus_energy_goes_to_chrono_boost() -> None:
    """Marines at its Nexus, out of the Battery's reach: no overcharge, and its Nexus's energy goes
    to Chrono Boost as in the same game without the rule."""
    seen = []
    for rule in (True, False):
        g, battery, nexus, at = battery_scene(L.HARD)
        w = g.world
        if not rule:
            computer(g).rules.overcharge = lambda world: None  # type: ignore[method-assign]
        s = w.construction.structures[nexus]
        marines = spawn(g, D.MARINE, 1, (s.x + 4.0, s.y - 4.0), 4)
        results = overcharges(g)
        play_until(g, 32)
        u = w.u
        r = rows(g, marines)
        assert float(np.hypot(u.x[r] - at[0], u.y[r] - at[1]).min()) > OVERCHARGE_REACH + 1.0
        assert len(computer(g).known) >= 4  # (it sees them)
        assert results == [] and not w.warpgates.overcharged(battery, w.loop)
        assert 2 not in w.warpgates.overcharge_ready
        assert w.abilities.energy_of(nexus) < 100.0 - CHRONO_ENERGY + 5.0 and w.tempo.boosted
        seen.append((w.abilities.energy_of(nexus), sorted(w.tempo.boosted), snapshot(g)))
    assert seen[0] == seen[1]


@pytest.mark.timeout(300)
def test_it_does_not_overcharge_again_during_the_players_cooldown() -> None:
    g, battery, nexus, at = battery_scene(L.HARD)
    w = g.world
    spawn(g, D.MARINE, 1, (at[0] + 4.0, at[1]), 8)
    results = overcharges(g)
    play_until(g, 32)
    assert results == [SUCCESS]
    gates = w.warpgates
    gates.overcharge[battery] = w.loop  # (its overcharge over early: only the cooldown stops it)
    w.abilities._set(nexus, 200.0)
    play_until(g, 35)
    assert not gates.overcharged(battery, w.loop) and gates.overcharge_ready[2] > w.loop
    assert results == [SUCCESS]  # (it did not ask again)
    assert w.abilities.energy_of(nexus) >= 200.0 - 3 * CHRONO_ENERGY  # (Chrono Boost only)
    gates.overcharge_ready[2] = w.loop  # (the cooldown over: the fight goes on, it overcharges again)
    play_until(g, 36)
    assert results == [SUCCESS, SUCCESS] and gates.overcharged(battery, w.loop)
