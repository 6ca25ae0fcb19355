"""Transports beyond the Bunker and the Medivac (``sim/systems/transport.py``): the Warp Prism (both
modes, its ranged pick-up) and the Transport Overlord (a plain Overlord carries nothing), unloading
one unit by its tag from every transport, passengers dying with a flying transport, and
passengers regenerating energy, shields and Zerg life while inside as they would outside."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from s2clientprotocol import query_pb2
from test_economy import unit
from test_terran_tech import act, rich_eco
from test_transport import _bunker, _load_all, _medivac, _tags
from test_zerg_economy import hatchery, rich, zerg_game

from sc2pool.engine import data as D
from sc2pool.engine.data import units as F
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import regeneration as R
from sc2pool.engine.sim.systems import transport as T
from sc2pool.engine.sim.units import TYPES

PRISM, PHASING, OVERLORD, OVERLORD_TRANSPORT, LAIR = 81, 136, 106, 893, 100
ZEALOT, STALKER, COLOSSUS, HIGH_TEMPLAR, ZERGLING, ROACH, GHOST = 73, 74, 4, 75, 105, 110, 50
SMART, LOAD, UNLOADALL, UNLOADALLAT, UNLOADUNIT = 1, 3668, 3664, 3669, 3796
LOAD_PRISM, UNLOADALL_PRISM, UNLOADALLAT_PRISM, UNLOADUNIT_PRISM = 911, 912, 913, 914
LOAD_OVERLORD, UNLOADALLAT_OVERLORD, UNLOADUNIT_OVERLORD = 1406, 1408, 1409
UNLOADUNIT_BUNKER, UNLOADUNIT_MEDIVAC, LOAD_MEDIVAC = 410, 397, 394
MORPH_TRANSPORT_OVERLORD, MORPH_OVERSEER, PHASING_MODE, TRANSPORT_MODE = 2708, 1448, 1528, 1530


def _abilities(g: Any, tag: int) -> set[int]:
    q = query_pb2.RequestQuery()
    q.abilities.add(unit_tag=tag)
    return {a.ability_id for a in g.query(1, q).abilities[0].abilities}


def _prism(kind: int = PRISM, *cargo: int) -> tuple[Any, Any, int, list[int]]:
    g, w = rich_eco()
    [p] = w.spawn(kind, 1, [30.0], [30.0]).tolist()
    tags = [int(w.spawn(t, 1, [40.0 + 3 * i], [30.0])[0]) for i, t in enumerate(cargo)]
    return g, w, p, tags


def _until_inside(g: Any, tags: list[int], loops: int = 400) -> None:
    for _ in range(loops):
        g.step(1)
        if not _tags(g) & set(tags):
            return
    raise AssertionError("the units did not enter")


def test_the_client_ids_and_capacities_are_the_ones_used() -> None:
    from sc2pool.engine.data import client

    for ab, link in ((LOAD_PRISM, "WarpPrismTransport"), (UNLOADALLAT_PRISM, "WarpPrismTransport"),
                     (UNLOADUNIT_PRISM, "WarpPrismTransport"), (LOAD_OVERLORD, "OverlordTransport"),
                     (UNLOADALLAT_OVERLORD, "OverlordTransport"), (UNLOADUNIT_OVERLORD, "OverlordTransport"),
                     (UNLOADUNIT_BUNKER, "BunkerTransport"), (UNLOADUNIT_MEDIVAC, "MedivacTransport")):
        assert client.ability(ab).link_name == link
    for ab in T.UNLOAD_UNIT:
        assert ab == UNLOADUNIT or client.ability(ab).remaps_to_ability_id == UNLOADUNIT
    assert D.unit_spec(OVERLORD_TRANSPORT).name == "OverlordTransport"
    for tid, slots in T.CAPACITY.items():  # (LP's figures, as data.units has them)
        assert F.FACTS[tid].cargo == slots


def test_a_warp_prism_picks_units_up_from_afar_and_unloads_them_at_a_point() -> None:
    g, w, p, (zealot, stalker, colossus) = _prism(PRISM, ZEALOT, STALKER, COLOSSUS)
    assert act(g, LOAD_PRISM, [p], target=zealot) == C.SUCCESS
    assert unit(g, p).orders[0].ability_id == LOAD_PRISM  # flying to it
    seen = w.u.row(zealot)
    while seen >= 0:
        at = (float(w.u.x[seen]), float(w.u.y[seen]))
        g.step(1)
        seen = w.u.row(zealot)
    prism = w.u.row(p)
    gap = np.hypot(w.u.x[prism] - at[0], w.u.y[prism] - at[1]) - w.u.radius[prism] - TYPES.radius[TYPES.row(ZEALOT)]
    assert gap > 3.0 and gap <= T.PICKUP_RANGE[PRISM] + 0.5  # (m) the ranged pick-up, not the Medivac's 1
    assert act(g, SMART, [stalker], target=p) == C.SUCCESS  # smart onto its own prism: it walks in
    _until_inside(g, [stalker])
    got = unit(g, p)
    assert (got.cargo_space_taken, got.cargo_space_max) == (4, 8)
    assert {x.tag for x in got.passengers} == {zealot, stalker}
    assert act(g, LOAD_PRISM, [p], target=colossus) == C.ERROR  # a Colossus takes 8
    assert act(g, LOAD_MEDIVAC, [p], target=colossus) == C.ERROR  # another transport's ability
    assert {LOAD_PRISM, UNLOADALLAT_PRISM} <= _abilities(g, p)
    assert act(g, UNLOADALLAT_PRISM, [p], (20.0, 20.0)) == C.SUCCESS
    assert unit(g, p).orders[0].ability_id == UNLOADALLAT_PRISM
    for _ in range(300):
        g.step(1)
        if {zealot, stalker} <= _tags(g):
            break
    for t in (zealot, stalker):
        x = unit(g, t)
        assert np.hypot(x.pos.x - 20.0, x.pos.y - 20.0) < 3.0
    assert unit(g, p).cargo_space_taken == 0 and not unit(g, p).orders


def test_a_phasing_prism_loads_units_that_walk_to_it_unloads_where_it_stands_and_keeps_them_across_modes() -> None:
    g, w, p, (zealot, stalker) = _prism(PHASING, ZEALOT, STALKER)
    assert act(g, LOAD, [p], target=zealot) == C.SUCCESS  # (the generic load)
    assert unit(g, zealot).orders[0].ability_id == LOAD_PRISM  # it cannot fly: the Zealot walks
    assert act(g, LOAD_PRISM, [p], target=stalker) == C.SUCCESS
    _until_inside(g, [zealot, stalker])
    assert unit(g, p).cargo_space_taken == 4 and unit(g, p).pos.x == 30.0
    assert act(g, TRANSPORT_MODE, [p]) == C.SUCCESS  # the cargo rides through the mode change
    g.step(40)
    assert w.u.unit_id[w.u.row(p)] == PRISM and unit(g, p).cargo_space_taken == 4
    assert act(g, PHASING_MODE, [p]) == C.SUCCESS
    g.step(40)
    assert w.u.unit_id[w.u.row(p)] == PHASING
    assert act(g, UNLOADALLAT_PRISM, [p], (10.0, 10.0)) == C.SUCCESS  # (m) where it stands
    g.step(2 * T.UNLOAD_PERIOD + 2)
    for t in (zealot, stalker):
        x = unit(g, t)
        assert np.hypot(x.pos.x - 30.0, x.pos.y - 30.0) < 3.0
    assert unit(g, p).cargo_space_taken == 0


def test_a_transport_overlord_carries_zerg_units_and_a_plain_overlord_carries_none() -> None:
    g = zerg_game()
    g.step(4)
    rich(g)
    w = g.world
    h = hatchery(g)
    [lord] = [int(t) for t in w.u.tag[w.u.unit_id == OVERLORD]]
    cx, cy = w.map.width / 2, w.map.height / 2
    d = np.hypot(cx - h.pos.x, cy - h.pos.y)
    x0, y0 = h.pos.x + (cx - h.pos.x) * 8 / d, h.pos.y + (cy - h.pos.y) * 8 / d
    lings = [int(t) for t in w.spawn(ZERGLING, 1, [x0, x0 + 1.0], [y0, y0])]
    [roach] = w.spawn(ROACH, 1, [x0], [y0 + 2.0]).tolist()
    w.u.x[w.u.row(lord)], w.u.y[w.u.row(lord)] = x0 - 3.0, y0
    g.step(2)
    for ab in (LOAD_OVERLORD, LOAD):  # a plain Overlord is no transport
        assert act(g, ab, [lord], target=lings[0]) == C.ERROR
    assert LOAD_OVERLORD not in _abilities(g, lord)
    assert act(g, SMART, [lings[0]], target=lord) == C.SUCCESS  # (it follows)
    g.step(60)
    assert lings[0] in _tags(g) and lord not in w.transport.cargo
    # Morph to Transport Overlord (needs a Lair), then it carries
    w.construction.add_structure(LAIR, 1, w.map.width - h.pos.x, w.map.height - h.pos.y)
    assert act(g, MORPH_TRANSPORT_OVERLORD, [lord]) == C.SUCCESS
    g.step(int(np.ceil(D.unit_spec(OVERLORD_TRANSPORT).build_time)) + 2)
    assert w.u.unit_id[w.u.row(lord)] == OVERLORD_TRANSPORT
    assert LOAD_OVERLORD in _abilities(g, lord)
    assert act(g, SMART, lings, target=lord) == C.SUCCESS
    assert act(g, LOAD_OVERLORD, [lord], target=roach) == C.SUCCESS
    _until_inside(g, [*lings, roach], 800)
    got = unit(g, lord)
    assert (got.cargo_space_taken, got.cargo_space_max) == (4, 8)  # 1 + 1 + 2 of 8 (LP:Overlord)
    assert UNLOADALLAT_OVERLORD in _abilities(g, lord)
    assert act(g, MORPH_OVERSEER, [lord]) == C.ERROR  # (m) not while units are inside
    assert act(g, UNLOADUNIT_OVERLORD, [lord], target=roach) == C.SUCCESS
    assert roach in _tags(g) and not _tags(g) & set(lings)
    assert unit(g, lord).cargo_space_taken == 2
    assert act(g, UNLOADALLAT_OVERLORD, [lord], target=lord) == C.SUCCESS  # where it is
    g.step(3 * T.UNLOAD_PERIOD)
    assert set(lings) <= _tags(g) and unit(g, lord).cargo_space_taken == 0


@pytest.mark.parametrize("carrier", [PRISM, OVERLORD_TRANSPORT])
def test_the_passengers_of_a_prism_or_a_transport_overlord_die_with_it(carrier: int) -> None:
    g, w = rich_eco()
    [t] = w.spawn(carrier, 1, [30.0], [30.0]).tolist()
    kinds = (ZEALOT, STALKER) if carrier == PRISM else (ZERGLING, ROACH)
    tags = [int(w.spawn(k, 1, [32.0 + 2 * i], [30.0])[0]) for i, k in enumerate(kinds)]
    assert act(g, SMART, tags, target=t) == C.SUCCESS
    _until_inside(g, tags)
    food = g.observation(1).observation.player_common.food_used
    w.u.hp[w.u.row(t)] = 0.0
    w.u.shield[w.u.row(t)] = 0.0
    w.spawn(D.MARINE, 2, [45.0], [45.0])  # (any combat loop removes the dead)
    g.step(2)
    obs = g.observation(1).observation
    assert set(tags) | {t} <= set(obs.raw_data.event.dead_units)
    assert not _tags(g) & set(tags) and not w.transport.tags()
    assert food > 12 and obs.player_common.food_used == 12  # (the 12 SCVs are left)


def test_one_marine_leaves_a_bunker_by_its_tag_the_others_stay() -> None:
    g, w, b, marines = _bunker(3)
    _load_all(g, b, marines)
    out = marines[1]
    assert act(g, UNLOADUNIT_MEDIVAC, [b], target=out) == C.ERROR  # the Medivac's ability
    assert act(g, UNLOADUNIT_BUNKER, [b], target=out) == C.SUCCESS  # at once
    seen = _tags(g)
    assert out in seen and not seen & {marines[0], marines[2]}
    got = unit(g, b)
    assert got.cargo_space_taken == 2 and {p.tag for p in got.passengers} == {marines[0], marines[2]}
    m = unit(g, out)
    assert np.hypot(m.pos.x - 30.0, m.pos.y - 30.0) <= 4.0 and not m.orders
    assert act(g, UNLOADUNIT_BUNKER, [b], target=out) == C.ERROR  # no longer inside
    assert act(g, UNLOADUNIT, [b], target=marines[2]) == C.SUCCESS  # the generic one
    assert unit(g, b).cargo_space_taken == 1


def test_one_unit_leaves_a_medivac_beneath_it_and_a_passenger_of_another_transport_is_refused() -> None:
    g, w, m, (marine, marauder) = _medivac(D.MARINE, D.MARAUDER)
    assert act(g, SMART, [marine, marauder], target=m) == C.SUCCESS
    _until_inside(g, [marine, marauder])
    b = w.construction.add_structure(T.BUNKER, 1, 50.0, 30.0)
    [other] = w.spawn(D.MARINE, 1, [46.0], [30.0]).tolist()
    _load_all(g, b, [other])
    assert act(g, UNLOADUNIT_MEDIVAC, [m], target=other) == C.ERROR  # inside the Bunker, not here
    assert act(g, UNLOADUNIT_MEDIVAC, [m], target=m) == C.ERROR  # no passenger
    assert act(g, UNLOADUNIT_MEDIVAC, [m], target=1 << 40) == C.CANT_TARGET_THAT_UNIT  # no such unit
    x, y = float(w.u.x[w.u.row(m)]), float(w.u.y[w.u.row(m)])
    assert act(g, UNLOADUNIT_MEDIVAC, [m], target=marauder) == C.SUCCESS
    got = unit(g, marauder)
    assert np.hypot(got.pos.x - x, got.pos.y - y) < 1.5
    assert marine not in _tags(g)
    med = unit(g, m)
    assert med.cargo_space_taken == 1 and [p.tag for p in med.passengers] == [marine]


def test_one_unit_leaves_a_warp_prism_by_its_tag() -> None:
    g, w, p, (zealot, stalker) = _prism(PRISM, ZEALOT, STALKER)
    assert act(g, SMART, [zealot, stalker], target=p) == C.SUCCESS
    _until_inside(g, [zealot, stalker])
    assert act(g, UNLOADUNIT_OVERLORD, [p], target=stalker) == C.ERROR  # the Overlord's
    assert act(g, UNLOADUNIT_PRISM, [p], target=stalker) == C.SUCCESS
    assert stalker in _tags(g) and zealot not in _tags(g)
    assert unit(g, p).cargo_space_taken == 2


def _twins(g: Any, w: Any, kind: int, carrier: int) -> tuple[int, int, int]:
    """Two units of ``kind`` far apart (one to stay out, one to board) and a carrier by the second."""
    [out] = w.spawn(kind, 1, [20.0], [50.0]).tolist()
    [inside] = w.spawn(kind, 1, [40.0], [30.0]).tolist()
    [t] = w.spawn(carrier, 1, [38.0], [30.0]).tolist()
    g.step(1)
    return out, inside, t


def test_energy_builds_up_inside_a_transport_as_outside() -> None:
    g, w = rich_eco()
    out, inside, m = _twins(g, w, GHOST, T.MEDIVAC)
    ab = w.abilities
    for tag in (out, inside):
        ab.energy[tag] = (5.0, w.loop, ab.energy[tag][2])
    assert act(g, SMART, [inside], target=m) == C.SUCCESS
    _until_inside(g, [inside])
    g.step(400)
    [p] = unit(g, m).passengers
    assert p.energy == pytest.approx(ab.energy_of(out)) and p.energy_max == 200.0  # reported meanwhile
    assert act(g, UNLOADUNIT_MEDIVAC, [m], target=inside) == C.SUCCESS
    g.step(1)
    assert ab.energy_of(inside) == pytest.approx(ab.energy_of(out)) and ab.energy_of(out) > 5.0 + 300 * 0.035


@pytest.mark.parametrize(("kind", "carrier"), [(ZEALOT, PRISM), (HIGH_TEMPLAR, PRISM), (ROACH, OVERLORD_TRANSPORT),
                                               (ZERGLING, "nydus")])
def test_shields_and_zerg_life_regenerate_inside_as_outside(kind: int, carrier: Any) -> None:
    g, w = rich_eco()
    out, inside, t = _twins(g, w, kind, PRISM if carrier == "nydus" else carrier)
    u = w.u
    for tag in (out, inside):
        r = u.row(tag)
        u.hp[r] = 10.0
        u.shield[r] = 0.0
        w.regeneration.damaged(np.array([r]))  # (hurt now: shields wait their delay)
    if carrier == "nydus":  # (the Nydus shares transport's take / drop)
        from sc2pool.engine.sim.systems.transport import Cargo

        pool = w.transport.pools[1] = Cargo(0, 95, 1, 0.0, 0.0)
        pool.passengers.append(w.transport.take(u.row(inside)))
        g.step(R.SHIELD_DELAY_LOOPS + 200)
        w.transport.drop(pool, list(pool.passengers), 40.0, 30.0, 0.0)
    else:
        assert act(g, SMART, [inside], target=t) == C.SUCCESS
        _until_inside(g, [inside])
        g.step(R.SHIELD_DELAY_LOOPS // 2)
        hp, sh = w.transport.life(w.transport.cargo[t].passengers[0])
        [p] = unit(g, t).passengers
        assert (p.health, p.shield) == pytest.approx((hp, sh))  # reported as regenerated so far
        g.step(R.SHIELD_DELAY_LOOPS + 200)
        assert act(g, UNLOADUNIT, [t], target=inside) == C.SUCCESS
    g.step(3)
    a, b = u.row(out), u.row(inside)
    assert (u.hp[b], u.shield[b]) == pytest.approx((u.hp[a], u.shield[a]))
    if TYPES.sh_max[u.ti[a]] > 0:
        assert u.shield[b] > 20.0 and u.hp[b] == 10.0  # shields back after the delay, no life
    else:
        assert u.hp[b] > 10.0  # Zerg life


def test_the_regeneration_credit_is_capped_and_waits_for_the_shield_delay() -> None:
    ti = TYPES.row(ZEALOT)
    top = float(TYPES.sh_max[ti])
    assert R.regenerated(ti, 100.0, 0.0, 0, 0, R.SHIELD_DELAY_LOOPS) == (100.0, 0.0)  # still waiting
    assert R.regenerated(ti, 100.0, 0.0, 0, 0, R.SHIELD_DELAY_LOOPS + 8) == (100.0, 8 * R.SHIELD_PER_LOOP)
    assert R.regenerated(ti, 100.0, 0.0, 0, 100, 10_000) == (100.0, top)
    roach = TYPES.row(ROACH)
    assert R.regenerated(roach, 10.0, 0.0, 0, 0, 16) == (10.0 + 16 * R.ZERG_LIFE_PER_LOOP, 0.0)
    assert R.regenerated(roach, 10.0, 0.0, 0, 0, 1 << 20) == (float(TYPES.hp_max[roach]), 0.0)


@pytest.mark.timeout(120)
def test_burnysc2_unloads_one_unit_from_a_warp_prism_by_its_tag() -> None:
    pytest.importorskip("sc2")
    import sys
    import warnings

    import sc2.main  # noqa: F401  (resets loguru)
    from engine_harness import play_bot
    from loguru import logger
    from sc2.bot_ai import BotAI
    from sc2.ids.ability_id import AbilityId
    from sc2.ids.unit_typeid import UnitTypeId as U
    from sc2.position import Point2

    logger.remove()
    logger.add(sys.stderr, level="WARNING")

    class PrismBot(BotAI):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[str, Any]] = []
            self.phase = 0
            self.out = 0

        async def on_step(self, iteration: int) -> None:
            home = self.start_location
            if iteration == 0:
                await self.client.debug_create_unit([[U.WARPPRISM, 1, home.offset(Point2((-6, -6))), 1],
                                                     [U.ZEALOT, 2, home.offset(Point2((-6, -9))), 1]])
                return
            prisms, zealots = self.units(U.WARPPRISM), self.units(U.ZEALOT)
            if not prisms:
                return
            p = prisms.first
            if self.phase == 0 and len(zealots) == 2:
                p(AbilityId.LOAD_WARPPRISM, zealots[0])
                zealots[1].smart(p)
                self.phase = 1
            elif self.phase == 1 and p.cargo_used == 4:
                self.seen.append(("loaded", (p.cargo_used, p.cargo_max, len(p.passengers), len(zealots))))
                one = min(p.passengers, key=lambda x: x.tag)
                self.out = one.tag
                with warnings.catch_warnings():  # (burnysc2 warns: the client's UnloadUnit takes no target)
                    warnings.simplefilter("ignore", RuntimeWarning)
                    p(AbilityId.UNLOADUNIT_WARPPRISM, one)
                self.phase = 2
            elif self.phase == 2 and zealots:
                self.seen.append(("out", ([z.tag for z in zealots] == [self.out], p.cargo_used,
                                          [e for e in self.state.action_errors])))
                await self.client.leave()

    bot = PrismBot()
    play_bot("TerranEconomy", bot, seed=1)
    assert bot.seen == [("loaded", (4, 8, 2, 0)), ("out", (True, 2, []))]
