"""Transports (``sim/systems/transport.py``): loading into a Bunker and a Medivac, unloading,
Salvage, the Bunker's passengers firing at +1 range, a Medivac's passengers dying with it, and
what the observation (and burnysc2's ``Unit``) reports of the cargo."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_economy import pc, unit
from test_terran_tech import act, rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import transport as T
from sc2pool.engine.sim.units import TYPES

BUNKER, MEDIVAC, HELLBAT, TANK, THOR = 24, 54, 484, 33, 52
SMART, LOAD_BUNKER, UNLOADALL_BUNKER, LOAD_MEDIVAC, UNLOADALLAT_MEDIVAC = 1, 407, 408, 394, 396
LOAD, UNLOADALL, SALVAGE = 3668, 3664, 32


def _tags(g: Any) -> set[int]:
    return {x.tag for x in g.observation(1).observation.raw_data.units}


def _bunker(n_marines: int = 4, at: tuple[float, float] = (30.0, 30.0)) -> tuple[Any, Any, int, list[int]]:
    g, w = rich_eco()
    b = w.construction.add_structure(BUNKER, 1, *at)
    marines = [int(t) for t in w.spawn(D.MARINE, 1, [at[0] - 4.0 - i for i in range(n_marines)], [at[1]] * n_marines)]
    return g, w, b, marines


def _load_all(g: Any, b: int, tags: list[int], loops: int = 120) -> None:
    assert act(g, SMART, tags, target=b) == C.SUCCESS
    g.step(loops)


def test_marines_walk_into_a_bunker_leave_the_map_and_are_reported_as_its_passengers() -> None:
    g, w, b, marines = _bunker(4)
    food = pc(g).food_used
    _load_all(g, b, marines)
    seen = _tags(g)
    assert not seen & set(marines)  # not in the unit list
    got = unit(g, b)
    assert sorted(p.tag for p in got.passengers) == sorted(marines)
    assert {p.unit_type for p in got.passengers} == {D.MARINE}
    assert all(p.health == 45.0 and p.health_max == 45.0 for p in got.passengers)
    assert (got.cargo_space_taken, got.cargo_space_max) == (4, 4)  # LP:Bunker: 4 slots
    assert pc(g).food_used == food  # passengers still use their food
    # full: a fifth Marine is refused; nobody can target the ones inside
    [fifth] = w.spawn(D.MARINE, 1, [25.0], [34.0]).tolist()
    assert act(g, SMART, [fifth], target=b) == C.SUCCESS  # (it follows the Bunker)
    g.step(60)
    assert fifth in _tags(g) and unit(g, b).cargo_space_taken == 4
    assert act(g, LOAD_BUNKER, [b], target=fifth) == C.ERROR
    assert act(g, D.ATTACK_ATTACK, [fifth], target=marines[0]) == C.CANT_TARGET_THAT_UNIT


def test_the_bunker_loads_by_its_ability_counts_cargo_sizes_and_refuses_hellbats() -> None:
    g, w, b, _ = _bunker(0)
    [marauder] = w.spawn(D.MARAUDER, 1, [26.0], [30.0]).tolist()
    [hellbat] = w.spawn(HELLBAT, 1, [26.0], [33.0]).tolist()
    [scv] = w.spawn(D.SCV, 1, [26.0], [27.0]).tolist()
    assert act(g, LOAD_BUNKER, [b], target=hellbat) == C.ERROR  # LP:Bunker: Hellbats cannot enter
    assert act(g, LOAD_BUNKER, [b], target=marauder) == C.SUCCESS
    assert unit(g, marauder).orders[0].ability_id == LOAD_BUNKER  # walking in
    assert act(g, LOAD, [b], target=scv) == C.SUCCESS  # the generic ability
    g.step(120)
    got = unit(g, b)
    assert got.cargo_space_taken == 3 and {p.tag for p in got.passengers} == {marauder, scv}
    assert T.cargo_size(D.MARAUDER) == 2 and T.cargo_size(THOR) == 8  # the client's cargo_size


def test_unload_all_puts_the_same_units_back_round_the_bunker() -> None:
    g, w, b, marines = _bunker(3)
    _load_all(g, b, marines)
    w.u.hp[w.u.row(b)] = 400.0
    cargo = w.transport.cargo[b]
    cargo.passengers[0].F[3, 0] = 20.0  # (a wounded Marine stays wounded)
    hurt = cargo.passengers[0].tag
    assert act(g, UNLOADALL_BUNKER, [b]) == C.SUCCESS
    g.step(1)
    assert set(marines) <= _tags(g)
    assert unit(g, hurt).health == 20.0
    bx, by = 30.0, 30.0
    for m in marines:
        got = unit(g, m)
        assert 1.8 <= np.hypot(got.pos.x - bx, got.pos.y - by) <= 4.0 and not got.orders
    assert not unit(g, b).passengers and unit(g, b).cargo_space_taken == 0
    assert np.all(np.diff(w.u.tag) > 0)  # the store's tags stay sorted


def test_units_in_a_bunker_fire_at_their_range_plus_one_and_it_dies_leaving_them_unharmed() -> None:
    g, w, b, marines = _bunker(1)
    _load_all(g, b, marines)
    r_b, r_m = TYPES.radius[TYPES.row(BUNKER)], TYPES.radius[TYPES.row(D.MARINE)]
    # an enemy Marine on hold 5.5 from the Bunker's edge: beyond a Marine's 5, within 5 + 1
    [enemy] = w.spawn(D.MARINE, 2, [30.0 + r_b + 5.5 + r_m], [30.0]).tolist()
    w.command(2, D.HOLDPOSITION_HOLD, [enemy], None, 0, False)
    g.step(30)
    e = w.u.row(enemy)
    assert e >= 0 and w.u.hp[e] < 45.0 and w.u.hp[e] % 6 == 3  # 45 - k x 6
    assert w.u.hp[w.u.row(b)] == 400.0  # the enemy cannot reach the Bunker
    # a Marine 6.5 from the edge is out of reach
    g2, w2, b2, m2 = _bunker(1)
    _load_all(g2, b2, m2)
    [far] = w2.spawn(D.MARINE, 2, [30.0 + r_b + 6.5 + r_m], [30.0]).tolist()
    w2.command(2, D.HOLDPOSITION_HOLD, [far], None, 0, False)
    g2.step(200)
    assert w2.u.hp[w2.u.row(far)] == 45.0
    # the Bunker destroyed: its Marine comes out unharmed
    w.remove_tags([enemy])
    w.u.hp[w.u.row(b)] = -1.0
    w.u.keep(w.u.tag != b)
    g.step(1)
    assert marines[0] in _tags(g) and unit(g, marines[0]).health == 45.0


def test_salvage_removes_an_empty_bunker_and_refunds_75_percent() -> None:
    g, w, b, marines = _bunker(1)
    _load_all(g, b, marines)
    assert act(g, SALVAGE, [b]) == C.ERROR  # LP:Salvage: not while units are inside
    assert act(g, UNLOADALL, [b]) == C.SUCCESS  # the generic unload all
    g.step(1)
    ledger = w.supply

    def net() -> int:  # (the SCVs keep mining meanwhile)
        return ledger.minerals[1] - ledger.collected_minerals[1]

    minerals = net()
    gone: list[int] = []
    after = g.scenario.after_loop
    g.scenario.after_loop = lambda d: (gone.extend(d.tags.tolist()), after(d))[1]  # type: ignore[method-assign]
    assert act(g, SALVAGE, [b]) == C.SUCCESS
    g.step(T.SALVAGE_LOOPS - 1)
    assert b in _tags(g)
    g.step(1)
    obs = g.observation(1).observation
    assert b not in {x.tag for x in obs.raw_data.units} and b in obs.raw_data.event.dead_units
    assert net() == minerals + 75
    assert gone == [b]  # (the scenario sees a structure go: a melee game may end)


def _medivac(*cargo: int) -> tuple[Any, Any, int, list[int]]:
    g, w = rich_eco()
    [m] = w.spawn(MEDIVAC, 1, [30.0], [30.0]).tolist()
    tags = [int(w.spawn(t, 1, [36.0 + 2 * i], [30.0])[0]) for i, t in enumerate(cargo)]
    return g, w, m, tags


def test_a_medivac_picks_units_up_by_cargo_size_and_unloads_them_one_by_one_at_a_point() -> None:
    g, w, m, tags = _medivac(D.MARINE, D.MARAUDER, TANK, THOR)
    marine, marauder, tank, thor = tags
    for t in (marine, marauder, tank):
        assert act(g, LOAD_MEDIVAC, [m], target=t, queue=False) == C.SUCCESS
        assert unit(g, m).orders[0].ability_id == LOAD_MEDIVAC
        g.step(80)
    got = unit(g, m)
    assert got.cargo_space_taken == 7 and got.cargo_space_max == 8  # 1 + 2 + 4 of 8
    assert act(g, LOAD_MEDIVAC, [m], target=thor) == C.ERROR  # a Thor takes 8
    assert not _tags(g) & {marine, marauder, tank}
    assert act(g, UNLOADALLAT_MEDIVAC, [m], (20.0, 20.0)) == C.SUCCESS
    assert unit(g, m).orders[0].ability_id == UNLOADALLAT_MEDIVAC
    for _ in range(200):
        g.step(1)
        if _tags(g) & {marine, marauder, tank}:
            break
    out = _tags(g) & {marine, marauder, tank}
    assert len(out) == 1
    got = unit(g, m)
    assert np.hypot(got.pos.x - 20.0, got.pos.y - 20.0) < 0.5
    g.step(T.UNLOAD_PERIOD)
    assert len(_tags(g) & {marine, marauder, tank}) == 2
    g.step(T.UNLOAD_PERIOD)
    assert {marine, marauder, tank} <= _tags(g)
    for t in (marine, marauder, tank):
        p = unit(g, t)
        assert np.hypot(p.pos.x - 20.0, p.pos.y - 20.0) < 3.0
    assert unit(g, m).cargo_space_taken == 0 and not unit(g, m).orders


def test_units_smart_onto_a_medivac_board_it_and_die_with_it() -> None:
    g, w, m, tags = _medivac(D.MARINE, D.MARINE)
    assert act(g, SMART, tags, target=m) == C.SUCCESS
    g.step(60)
    assert unit(g, m).cargo_space_taken == 2
    food = pc(g).food_used
    w.u.hp[w.u.row(m)] = 0.0
    [enemy] = w.spawn(D.MARINE, 2, [31.0], [30.0]).tolist()  # (any combat loop removes the dead)
    g.step(2)
    obs = g.observation(1).observation
    assert set(tags) | {m} <= set(obs.raw_data.event.dead_units)
    assert not _tags(g) & set(tags)
    assert obs.player_common.food_used == food - 2 - 2  # the Medivac and both Marines
    assert enemy in _tags(g)


def test_unload_all_at_the_medivac_itself_unloads_where_it_is() -> None:
    g, w, m, tags = _medivac(D.MARINE)
    assert act(g, LOAD, [m], target=tags[0]) == C.SUCCESS
    g.step(80)
    x, y = w.u.x[w.u.row(m)], w.u.y[w.u.row(m)]
    assert act(g, 3669, [m]) == C.ERROR  # neither a point nor a unit
    assert act(g, 3669, [m], target=m) == C.SUCCESS  # generic UNLOADALLAT on itself
    g.step(2)
    got = unit(g, tags[0])
    assert np.hypot(got.pos.x - x, got.pos.y - y) < 1.5


def test_burnysc2_reads_the_cargo() -> None:
    pytest.importorskip("sc2")
    from types import SimpleNamespace

    from sc2.unit import Unit

    bot = SimpleNamespace(state=SimpleNamespace(game_loop=0))  # (what Unit reads of its bot)

    g, w, b, marines = _bunker(2)
    _load_all(g, b, marines)
    bunker = Unit(unit(g, b), bot)
    assert bunker.has_cargo and bunker.cargo_used == 2 and bunker.cargo_max == 4 and bunker.cargo_left == 2
    assert bunker.passengers_tags == set(marines)
    empty = Unit(unit(g, w.construction.add_structure(BUNKER, 1, 40.0, 30.0)), bot)
    assert not empty.has_cargo and empty.cargo_max == 4


def test_the_abilities_query_lists_load_unload_and_salvage() -> None:
    from s2clientprotocol import query_pb2

    g, w, b, marines = _bunker(1)

    def abilities(tag: int) -> set[int]:
        q = query_pb2.RequestQuery()
        q.abilities.add(unit_tag=tag)
        return {a.ability_id for a in g.query(1, q).abilities[0].abilities}

    assert {LOAD_BUNKER, SALVAGE} <= abilities(b) and UNLOADALL_BUNKER not in abilities(b)
    _load_all(g, b, marines)
    assert {LOAD_BUNKER, UNLOADALL_BUNKER} <= abilities(b) and SALVAGE not in abilities(b)


@pytest.mark.timeout(120)
def test_burnysc2_loads_a_bunker_and_a_medivac_and_unloads_them() -> None:
    pytest.importorskip("sc2")
    import sys

    import sc2.main  # noqa: F401  (resets loguru)
    from engine_harness import play_bot
    from loguru import logger
    from sc2.bot_ai import BotAI
    from sc2.ids.ability_id import AbilityId
    from sc2.ids.unit_typeid import UnitTypeId as U
    from sc2.position import Point2

    logger.remove()
    logger.add(sys.stderr, level="WARNING")

    class CargoBot(BotAI):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[str, Any]] = []
            self.phase = 0

        async def on_step(self, iteration: int) -> None:
            home = self.start_location
            if iteration == 0:
                await self.client.debug_create_unit([[U.BUNKER, 1, Point2((home.x + 0.5, home.y + 10.5)), 1],
                                                     [U.MEDIVAC, 1, home.offset(Point2((-6, -6))), 1],
                                                     [U.MARINE, 6, home.offset(Point2((6, -6))), 1]])
                return
            bunker, medivac = self.structures(U.BUNKER), self.units(U.MEDIVAC)
            marines = self.units(U.MARINE)
            if not bunker or not medivac:
                return
            b, m = bunker.first, medivac.first
            if self.phase == 0 and len(marines) == 6:
                for marine in marines[:4]:
                    marine.smart(b)
                m(AbilityId.LOAD_MEDIVAC, marines[4])
                self.phase = 1
            elif self.phase == 1 and b.cargo_used == 4 and m.has_cargo:
                self.seen.append(("bunker", (b.cargo_used, b.cargo_max, len(b.passengers_tags), len(marines))))
                self.seen.append(("medivac", (m.cargo_used, m.cargo_max)))
                b(AbilityId.UNLOADALL_BUNKER)
                m(AbilityId.UNLOADALLAT_MEDIVAC, m.position.offset(Point2((-3, 0))))
                self.phase = 2
            elif self.phase == 2 and len(marines) == 6 and not b.has_cargo and not m.has_cargo:
                self.seen.append(("out", len(marines)))
                await self.client.leave()

    bot = CargoBot()
    play_bot("TerranEconomy", bot, seed=1)
    assert bot.seen == [("bunker", (4, 4, 4, 1)), ("medivac", (1, 8)), ("out", 6)]
