"""The Nydus Network and Nydus Worm (``sim/systems/nydus.py``) in a melee game on a ladder map:
summoning a worm (cost, build time, vision, one at a time), the one cargo every Network and Worm
of a player shares (units go in at one and come out at another with their tags and life),
unloading one unit, what may not enter, the passengers' fate when the buildings die, and what
the observation (and burnysc2's ``Unit``) reports of the cargo."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb
from test_zerg_economy import act, hatchery, own, rich, zerg_game

from sc2pool.engine.game import Game
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import nydus as N

NETWORK, WORM, LAIR, ZERGLING, ROACH, ULTRALISK, MUTALISK, OVERLORD = 95, 142, 100, 105, 110, 109, 108, 106
SMART, SUMMON, LOAD_NETWORK, UNLOADALL_NETWORK, UNLOADUNIT_NETWORK = 1, 1768, 1437, 1438, 1440
LOAD_WORM, UNLOADALL_WORM, LOAD, UNLOADALL, UNLOADUNIT = 2370, 2371, 3668, 3664, 3796


def _seen(g: Game) -> dict[int, Any]:
    return {u.tag: u for u in g.observation(1).observation.raw_data.units}


def _unit(g: Game, tag: int) -> Any:
    return _seen(g).get(tag)


def _nydus(ready: bool = True) -> tuple[Game, Any, int]:
    """A Zerg game with a Lair and a Nydus Network on the start's creep (finished or just begun)."""
    g = zerg_game()
    g.step(4)
    rich(g)
    w = g.world
    h = hatchery(g)
    w.construction.add_structure(LAIR, 1, w.map.width - h.pos.x, w.map.height - h.pos.y)
    spot = next((h.pos.x + dx + 0.5, h.pos.y + dy + 0.5) for dx in range(-9, 10) for dy in range(-9, 10)
                if w.placement.check(1161, h.pos.x + dx + 0.5, h.pos.y + dy + 0.5) == C.SUCCESS)
    net = w.construction.add_structure(NETWORK, 1, *spot, ready=ready)
    return g, w, net


def _far(g: Game) -> tuple[float, float]:
    """A spot 30 to 40 from the start towards the map's centre where a worm fits, off creep."""
    w = g.world
    h = hatchery(g)
    cx, cy = w.map.width / 2, w.map.height / 2
    d = float(np.hypot(cx - h.pos.x, cy - h.pos.y))
    for k in np.arange(30.0, 40.0, 0.5):
        x = float(np.floor(h.pos.x + (cx - h.pos.x) * k / d)) + 0.5
        y = float(np.floor(h.pos.y + (cy - h.pos.y) * k / d)) + 0.5
        if w.placement.fits(WORM, x, y, 1) == C.SUCCESS and not w.creep.has(x, y):
            return x, y
    raise AssertionError("no spot for a worm")


def _load(g: Game, tags: list[int], building: int, loops: int = 400) -> Any:
    """Smart the units onto the building and step until they are all inside; returns the building."""
    assert act(g, SMART, tags, target=building) == C.SUCCESS
    for _ in range(loops // 8):
        g.step(8)
        b = _unit(g, building)
        if not set(tags) & set(_seen(g)):
            return b
    raise AssertionError("the units did not enter")


def test_a_finished_network_summons_one_worm_at_a_time_where_the_player_sees() -> None:
    g, w, net = _nydus(ready=False)
    far = _far(g)
    assert act(g, SUMMON, [net], pos=far) == C.BUILDING_IS_UNDER_CONSTRUCTION
    w.construction.structures[net].done = w.construction.structures[net].build_loops  # (finished)
    assert act(g, SUMMON, [net], pos=far) == C.CANT_SEE_BUILD_LOCATION  # (no vision there)
    w.spawn(OVERLORD, 1, [far[0]], [far[1]])
    g.step(2)
    q = query_pb2.RequestQuery()
    p = q.placements.add(ability_id=SUMMON)
    p.target_pos.x, p.target_pos.y = far
    assert g.query(1, q).placements[0].result == C.SUCCESS  # (burnysc2's can_place)
    minerals, gas = w.supply.minerals[1], w.supply.vespene[1]
    assert act(g, SUMMON, [net], pos=far) == C.SUCCESS
    assert (minerals - w.supply.minerals[1], gas - w.supply.vespene[1]) == (75, 75)  # the client's cost
    [worm] = own(g, WORM)
    assert (worm.pos.x, worm.pos.y) == far and not w.creep.has(*far)  # (no creep needed)
    assert worm.build_progress < 0.01 and worm.health < 35.0  # 10% of 300, growing
    assert act(g, SUMMON, [net], pos=(far[0] + 4.0, far[1])) == C.ERROR  # one worm at a time (LP)
    abilities = g.query(1, _abilities(net)).abilities[0].abilities
    assert SUMMON not in [a.ability_id for a in abilities]
    g.step(300)
    got = _unit(g, worm.tag)
    assert 0.9 < got.build_progress < 1.0 and not got.cargo_space_max  # (not a way in yet)
    g.step(30)
    got = _unit(g, worm.tag)
    assert got.build_progress == 1.0 and got.health == 300.0 and got.cargo_space_max == 1020
    g.step(40)
    assert w.creep.has(*far)  # a finished worm spreads creep
    abilities = g.query(1, _abilities(net)).abilities[0].abilities
    assert SUMMON in [a.ability_id for a in abilities] and LOAD_NETWORK in [a.ability_id for a in abilities]
    assert act(g, SUMMON, [net], pos=(far[0] + 4.0, far[1])) == C.SUCCESS  # (the first one is done)


def _abilities(tag: int) -> Any:
    req = query_pb2.RequestQuery()
    req.abilities.add(unit_tag=tag)
    return req


def test_units_enter_the_network_and_come_out_of_a_far_worm_with_their_tags_and_life() -> None:
    g, w, net = _nydus()
    far = _far(g)
    worm = w.construction.add_structure(WORM, 1, *far)
    n = _unit(g, net)
    lings = w.spawn(ZERGLING, 1, [n.pos.x - 5.0, n.pos.x - 5.0, n.pos.x - 6.0], [n.pos.y - 5.0, n.pos.y - 6.0,
                                                                               n.pos.y - 5.0]).tolist()
    [ultra] = w.spawn(ULTRALISK, 1, [n.pos.x + 6.0], [n.pos.y - 6.0]).tolist()
    g.step(2)
    w.u.hp[w.u.row(lings[0])] = 20.0
    food = g.observation(1).observation.player_common.food_used
    got = _load(g, lings + [ultra], net)
    assert sorted(p.tag for p in got.passengers) == sorted(lings + [ultra])
    assert (got.cargo_space_taken, got.cargo_space_max) == (3 + 8, 1020)  # the client's cargo sizes
    other = _unit(g, worm)  # the same cargo, reported on every Network and Worm
    assert sorted(p.tag for p in other.passengers) == sorted(lings + [ultra]) and other.cargo_space_taken == 11
    assert g.observation(1).observation.player_common.food_used == food  # (they still use food)
    assert act(g, UNLOADALL_WORM, [worm]) == C.SUCCESS
    g.step(N.UNLOAD_PERIOD - 1)
    assert not set(lings) & set(_seen(g))
    g.step(1)  # one unit every half second (LP), in the order they entered
    assert len(set(lings + [ultra]) & set(_seen(g))) == 1 and len(_unit(g, worm).passengers) == 3
    g.step(3 * N.UNLOAD_PERIOD)
    seen = _seen(g)
    assert set(lings + [ultra]) <= set(seen)
    assert 20.0 <= seen[lings[0]].health < 22.0 and seen[ultra].health == 500.0  # (+ Zerg regeneration)
    for t in lings + [ultra]:
        assert np.hypot(seen[t].pos.x - far[0], seen[t].pos.y - far[1]) < 5.0 and not seen[t].orders
    assert not _unit(g, net).passengers and _unit(g, net).cargo_space_taken == 0
    assert np.all(np.diff(w.u.tag) > 0)  # the store's tags stay sorted


def test_loading_by_ability_refuses_air_units_and_one_passenger_comes_out_by_its_tag() -> None:
    g, w, net = _nydus()
    n = _unit(g, net)
    [muta] = w.spawn(MUTALISK, 1, [n.pos.x + 4.0], [n.pos.y + 4.0]).tolist()
    [ling] = w.spawn(ZERGLING, 1, [n.pos.x - 5.0], [n.pos.y - 5.0]).tolist()
    [roach] = w.spawn(ROACH, 1, [n.pos.x + 5.0], [n.pos.y - 5.0]).tolist()
    [enemy] = w.spawn(ZERGLING, 2, [n.pos.x - 6.0], [n.pos.y + 6.0]).tolist()
    g.step(2)
    assert act(g, LOAD_NETWORK, [net], target=muta) == C.ERROR  # ground units only (LP)
    assert act(g, LOAD_NETWORK, [net], target=enemy) == C.ERROR
    assert act(g, LOAD_WORM, [net], target=ling) == C.ERROR  # (the worm's own ability)
    assert act(g, LOAD_NETWORK, [net], target=ling) == C.SUCCESS
    assert _unit(g, ling).orders[0].ability_id == LOAD_NETWORK  # walking in
    assert act(g, LOAD, [net], target=roach) == C.SUCCESS  # the generic ability burnysc2 may send
    assert act(g, SMART, [muta], target=net) == C.SUCCESS  # (a Mutalisk follows)
    for _ in range(40):
        g.step(8)
        if len(_unit(g, net).passengers) == 2:
            break
    assert {p.tag for p in _unit(g, net).passengers} == {ling, roach} and muta in _seen(g)
    assert act(g, UNLOADUNIT_NETWORK, [net], target=muta) == C.ERROR  # (not inside)
    assert act(g, UNLOADUNIT_NETWORK, [net], target=roach) == C.SUCCESS
    g.step(N.UNLOAD_PERIOD + 1)
    assert roach in _seen(g) and [p.tag for p in _unit(g, net).passengers] == [ling]
    g.step(4 * N.UNLOAD_PERIOD)
    assert ling not in _seen(g)  # (only that one came out)
    assert act(g, UNLOADUNIT, [net], target=ling) == C.SUCCESS  # the generic one
    g.step(N.UNLOAD_PERIOD + 1)
    assert ling in _seen(g) and not _unit(g, net).passengers


def test_units_inside_outlive_one_opening_and_die_with_the_last() -> None:
    g, w, net = _nydus()
    worm = w.construction.add_structure(WORM, 1, *_far(g))
    n = _unit(g, net)
    lings = w.spawn(ZERGLING, 1, [n.pos.x - 5.0, n.pos.x - 6.0], [n.pos.y - 5.0, n.pos.y - 5.0]).tolist()
    g.step(2)
    _load(g, lings, net)
    food = g.observation(1).observation.player_common.food_used
    kill = sc_pb.RequestDebug()
    kill.debug.add().kill_unit.tag.append(net)
    g.debug(1, kill)
    g.step(8)
    assert sorted(p.tag for p in _unit(g, worm).passengers) == sorted(lings)  # safe in the worm
    kill = sc_pb.RequestDebug()
    kill.debug.add().kill_unit.tag.append(worm)
    g.debug(1, kill)
    g.step(8)
    assert set(lings) <= set(w.dead_tags) and not w.transport.tags()  # the last opening is gone (LP)
    assert g.observation(1).observation.player_common.food_used == food - 1  # (two Zerglings: 0.5 each)
    assert not own(g, ZERGLING)


def test_the_nydus_abilities_are_simulated_and_burnysc2_reads_the_cargo() -> None:
    g, w, net = _nydus()
    far = _far(g)
    worm = w.construction.add_structure(WORM, 1, *far)
    n = _unit(g, net)
    [ling] = w.spawn(ZERGLING, 1, [n.pos.x - 5.0], [n.pos.y - 5.0]).tolist()
    g.step(2)
    # (answers other than NotSupported: the summon where a worm stands, the unloads with no cargo)
    assert act(g, SUMMON, [net], pos=far) == C.CANT_BUILD_LOCATION_INVALID
    for ability, target in ((UNLOADALL_NETWORK, 0), (UNLOADALL_WORM, 0), (UNLOADALL, 0)):
        assert act(g, ability, [worm if ability == UNLOADALL_WORM else net], target=target) == C.ERROR
    assert act(g, LOAD_WORM, [worm], target=ling) == C.SUCCESS
    got = _load(g, [ling], worm)
    assert [p.tag for p in got.passengers] == [ling]
    assert act(g, UNLOADUNIT_NETWORK, [net], target=ling) == C.SUCCESS
    assert act(g, UNLOADALL_NETWORK, [net]) == C.SUCCESS
    pytest.importorskip("sc2")
    from types import SimpleNamespace

    from sc2.unit import Unit

    bot = SimpleNamespace(state=SimpleNamespace(game_loop=0))  # (what Unit reads of its bot)
    b = Unit(_unit(g, worm), bot)
    assert b.has_cargo and b.cargo_used == 1 and b.cargo_max == 1020 and b.passengers_tags == {ling}
