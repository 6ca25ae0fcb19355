"""Terran tech beyond the Barracks: structures with their prerequisites, add-ons (Tech Lab,
Reactor), the Orbital Command, the Factory's and Starport's units, their weapons, and what
burnysc2 sees of them.  Costs, times and requirements are the real client's ``ResponseData``
(``data.tech``); the rules are cited in ``sim/systems/addons.py``, ``morph.py`` and
``races/terran.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_economy import act, eco, pc, tags_of, unit

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.units import TYPES
from sc2pool.engine.sim.world import World

BARRACKS, FACTORY, STARPORT, EBAY, ARMORY, FUSIONCORE = 21, 27, 28, 22, 29, 30
ORBITAL = 132
RICH = 10_000


def rich_eco() -> tuple[Any, World]:
    g, w = eco()
    w.supply.minerals[1] = w.supply.vespene[1] = RICH
    for x in (40.0, 42.0, 44.0, 46.0):  # supply for the big units
        w.construction.add_structure(D.SUPPLYDEPOT, 1, x, 50.0)
    return g, w


@pytest.mark.parametrize(("ability", "structure", "prerequisite"), [
    (328, FACTORY, BARRACKS), (329, STARPORT, FACTORY), (331, ARMORY, FACTORY), (333, FUSIONCORE, STARPORT),
    (324, 24, BARRACKS), (323, 23, EBAY),
])
def test_each_structure_needs_its_prerequisite_then_builds(ability: int, structure: int, prerequisite: int) -> None:
    g, w = rich_eco()
    scv = tags_of(g, D.SCV)[0]
    assert act(g, ability, [scv], (40.5, 30.5)) == C.BUILD_TECH_REQUIREMENTS_NOT_MET
    w.construction.add_structure(prerequisite, 1, 30.5, 45.5)
    assert act(g, ability, [scv], (40.5, 30.5)) == C.SUCCESS
    g.step(int(D.unit_spec(structure).build_time) + 200)
    [s] = [x for x in tags_of(g, structure)]
    got = unit(g, s)
    assert got.build_progress == 1.0 and got.health == D.unit_spec(structure).hp
    assert not unit(g, scv).orders  # the SCV went idle


def test_engineering_bay_needs_a_command_center_the_melee_start_has() -> None:
    g, _ = rich_eco()
    assert act(g, 322, [tags_of(g, D.SCV)[0]], (40.5, 30.5)) == C.SUCCESS


def test_add_ons_attach_beside_their_structure_and_a_reactor_trains_two_at_once() -> None:
    g, w = rich_eco()
    rax = w.construction.add_structure(BARRACKS, 1, 30.5, 40.5)
    minerals = pc(g).minerals
    assert act(g, 3683, [rax]) == C.SUCCESS  # the generic BUILD_REACTOR burnysc2 sends
    assert pc(g).minerals == minerals - 50
    r = unit(g, rax)
    [reactor] = tags_of(g, 38)
    assert r.add_on_tag == reactor and [o.ability_id for o in r.orders] == [422]
    assert (unit(g, reactor).pos.x, unit(g, reactor).pos.y) == (33.0, 40.0)  # +2.5, -0.5
    assert act(g, 560, [rax]) == C.ERROR  # busy building its add-on
    g.step(800)
    assert unit(g, reactor).build_progress == 1.0 and not unit(g, rax).orders
    assert act(g, 3682, [rax]) == C.ERROR  # one add-on per structure
    assert [act(g, 560, [rax]) for _ in range(3)] == [C.SUCCESS] * 3
    orders = unit(g, rax).orders
    assert [o.ability_id for o in orders] == [560] * 3
    assert [o.HasField("progress") for o in orders] == [True, True, False]  # two at once
    g.step(int(D.unit_spec(D.MARINE).build_time) + 1)
    assert len(tags_of(g, D.MARINE)) == 2


def test_a_tech_lab_unlocks_what_needs_it_and_an_add_on_needs_room() -> None:
    g, w = rich_eco()
    fac = w.construction.add_structure(FACTORY, 1, 30.5, 40.5)
    assert act(g, 597, [fac]) == C.TECH_REQUIREMENTS_NOT_MET  # Cyclone: Tech Lab attached
    w.construction.add_structure(D.SUPPLYDEPOT, 1, 33.0, 36.0)  # (not on the add-on's spot)
    assert act(g, 3682, [fac]) == C.SUCCESS
    g.step(400)
    assert unit(g, fac).add_on_tag == tags_of(g, 39)[0]
    assert act(g, 597, [fac]) == C.SUCCESS
    blocked = w.construction.add_structure(STARPORT, 1, 20.5, 48.5)
    w.construction.add_structure(D.SUPPLYDEPOT, 1, 23.0, 48.0)  # on the add-on's spot
    assert act(g, 3682, [blocked]) == C.CANT_BUILD_LOCATION_INVALID


TRAINED = [(ab, t.unit_id, t.producers[0]) for ab, t in sorted(tech.TRAIN.items())
           if t.producers[0] in (FACTORY, STARPORT) and t.how == "queue"]


@pytest.mark.parametrize(("ability", "unit_id", "producer"), TRAINED)
def test_each_factory_and_starport_unit_trains_where_it_should(ability: int, unit_id: int, producer: int) -> None:
    g, w = rich_eco()
    s = w.construction.add_structure(producer, 1, 30.5, 40.5)
    other = w.construction.add_structure(STARPORT if producer == FACTORY else FACTORY, 1, 20.5, 48.5)
    assert act(g, ability, [other]) == C.ERROR
    req = tech.TRAIN[ability].requires
    for k, t in enumerate(req.structures):
        w.construction.add_structure(t, 1, 20.5, 30.5 - 4 * k)
    if req.addon:
        assert act(g, ability, [s]) == C.TECH_REQUIREMENTS_NOT_MET
        assert act(g, 3682, [s]) == C.SUCCESS
        g.step(400)
    used = pc(g).food_used
    assert act(g, ability, [s]) == C.SUCCESS
    spec = D.unit_spec(unit_id)
    assert pc(g).food_used == used + spec.food_required
    g.step(int(spec.build_time) + 1)
    [made] = tags_of(g, unit_id)
    r = w.u.row(made)
    assert bool(TYPES.is_flying[w.u.ti[r]]) == (producer == STARPORT)
    assert w.u.speed[r] == pytest.approx(spec.speed / 16)


def test_a_command_center_becomes_an_orbital_command_and_stays_a_townhall() -> None:
    g, w = rich_eco()
    cc = tags_of(g, D.COMMANDCENTER)[0]
    assert act(g, 1516, [cc]) == C.TECH_REQUIREMENTS_NOT_MET  # needs a Barracks
    w.construction.add_structure(BARRACKS, 1, 30.5, 40.5)
    minerals = pc(g).minerals
    assert act(g, 1516, [cc]) == C.SUCCESS
    assert pc(g).minerals == minerals - 150
    assert [o.ability_id for o in unit(g, cc).orders] == [1516]
    assert act(g, 524, [cc]) == C.ERROR  # upgrading: trains nothing
    g.step(560)
    o = unit(g, cc)
    assert o.unit_type == ORBITAL and o.tag == cc and not o.orders and o.health == 1500
    cap = pc(g).food_cap
    assert act(g, 524, [cc]) == C.SUCCESS
    collected = w.supply.collected_minerals[1]
    g.step(400)
    assert w.supply.collected_minerals[1] > collected  # SCVs still return cargo to it
    assert pc(g).food_cap == cap and len(tags_of(g, D.SCV)) == 13


def _duel(attacker: int, target: int, loops: int = 40) -> float:
    """Damage ``attacker`` deals to ``target`` standing 3 apart, in its first shot."""
    w = World(SKIRMISH)
    [t] = w.spawn(target, 2, [20.0], [20.0])
    w.spawn(attacker, 1, [23.0], [20.0])
    hp0 = D.unit_spec(target).hp
    for _ in range(loops):
        w.step_loop()
        r = w.u.row(int(t))
        if r < 0 or w.u.hp[r] < hp0:
            return hp0 - (float(w.u.hp[r]) if r >= 0 else 0.0)
    return 0.0


def test_cyclone_battlecruiser_and_thor_deal_their_weapons_damage() -> None:
    assert _duel(692, D.MARINE) == 18  # Cyclone: 18 (client data), marine armor 0
    assert _duel(57, D.MARINE) == 8  # Battlecruiser ATS Laser Battery
    assert _duel(57, 35) == 5  # ATA Laser Battery against a Viking (armor 0): LP:Battlecruiser
    assert _duel(52, D.MARAUDER) == 2 * (30 - 1)  # Thor's cannons: 2 x 30, armor 1
    assert _duel(52, 35) == 4 * 6  # Javelin missiles 4 x 6 (+6 light: a Viking is armored)
    assert _duel(35, D.MARINE) == 0  # a Viking in fighter mode hits air only


def test_a_battlecruiser_kills_a_marine_with_its_cooldown() -> None:
    w = World(SKIRMISH)
    [m] = w.spawn(D.MARINE, 2, [20.0], [20.0])
    w.spawn(57, 1, [23.0], [20.0])
    loops = 0
    while w.u.row(int(m)) >= 0 and loops < 200:
        w.step_loop()
        loops += 1
    # 6 shots of 8 at 0.2251 normal seconds (3.6 loops, plus the random change)
    assert w.u.row(int(m)) < 0 and 15 <= loops <= 40
    assert np.all(w.u.owner == 1)
