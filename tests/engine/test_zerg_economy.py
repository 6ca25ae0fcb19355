"""Zerg rules in a melee game on a ladder map, through the Game API: the start, larvae, eggs,
drones turning into structures, creep, the Queen's inject, supply."""

from __future__ import annotations

from typing import Any

import numpy as np
from game_helpers import command
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems.larva import INJECT_LOOPS, LARVA_LOOPS

MAP = "AcidPlantLE.SC2Map"
TERRAN, ZERG = 1, 2
SELF = 1
HATCHERY, DRONE, OVERLORD, LARVA, EGG, ZERGLING, QUEEN, POOL = 86, 104, 106, 151, 103, 105, 126, 89
TRAIN_DRONE, TRAIN_ZERGLING, TRAIN_OVERLORD, BUILD_POOL, BUILD_EXTRACTOR = 1342, 1343, 1344, 1155, 1154
TRAIN_QUEEN, INJECT, CANCEL_LAST, CANCEL_BUILD, BUILD_EVO, CANCEL = 1632, 251, 3671, 314, 1156, 3659
SUCCESS, NOT_ENOUGH_MINERALS, NOT_ENOUGH_FOOD, TECH = 1, 9, 13, 79
CANT_BUILD_LOCATION_INVALID = 44


def zerg_game(seed: int = 5) -> Game:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=MAP), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=TERRAN, difficulty=1)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=ZERG)) == 1
    return g


def own(g: Game, unit_type: int | None = None) -> list[Any]:
    return [u for u in g.observation(1).observation.raw_data.units
            if u.alliance == SELF and (unit_type is None or u.unit_type == unit_type)]


def act(g: Game, *args: Any, **kw: Any) -> int:
    return int(g.action(1, command(*args, **kw)).result[0])


def common(g: Game) -> Any:
    return g.observation(1).observation.player_common


def rich(g: Game, minerals: int = 5000, vespene: int = 5000) -> None:
    g.world.supply.minerals[1] = minerals
    g.world.supply.vespene[1] = vespene


def hatchery(g: Game) -> Any:
    return own(g, HATCHERY)[0]


def test_the_zerg_start_is_a_hatchery_12_drones_mining_an_overlord_and_3_larvae() -> None:
    g = zerg_game()
    g.step(16)
    types = sorted(u.unit_type for u in own(g))
    assert types.count(HATCHERY) == 1 and types.count(DRONE) == 12
    assert types.count(OVERLORD) == 1 and types.count(LARVA) == 3
    pc = common(g)
    assert (pc.food_used, pc.food_cap, pc.food_workers, pc.food_army, pc.larva_count) == (12, 14, 12, 0, 3)
    assert all(d.orders and d.orders[0].ability_id in (1183, 1184) for d in own(g, DRONE))
    g.step(22 * 60)
    assert g.world.supply.collected_minerals[1] > 500  # drones mine like SCVs


def test_a_hatchery_makes_a_larva_every_11_seconds_while_it_has_fewer_than_3() -> None:
    g = zerg_game()
    g.step(4)
    larvae = [u.tag for u in own(g, LARVA)]
    rich(g)
    assert act(g, TRAIN_DRONE, larvae[:2]) == SUCCESS  # (every larva of the command trains)
    assert act(g, TRAIN_OVERLORD, larvae[2:]) == SUCCESS
    assert len(own(g, LARVA)) == 0 and len(own(g, EGG)) == 3
    g.step(LARVA_LOOPS - 2)
    assert len(own(g, LARVA)) == 0
    g.step(4)
    assert len(own(g, LARVA)) == 1
    g.step(3 * LARVA_LOOPS)
    assert len(own(g, LARVA)) == 3  # the cap: no fourth
    g.step(2 * LARVA_LOOPS)
    assert len(own(g, LARVA)) == 3


def test_an_egg_shows_its_order_with_progress_and_hatches_the_unit() -> None:
    g = zerg_game()
    g.step(4)
    larva = own(g, LARVA)[0].tag
    minerals = common(g).minerals
    assert act(g, TRAIN_DRONE, [larva]) == SUCCESS
    assert common(g).minerals == minerals - 50
    assert common(g).food_used == 13  # the egg's drone counts at once
    g.step(100)
    egg = next(u for u in own(g, EGG) if u.tag == larva)
    assert egg.orders[0].ability_id == TRAIN_DRONE and 0.3 < egg.orders[0].progress < 0.45
    g.step(272 - 100)
    assert not own(g, EGG)
    assert any(u.tag == larva for u in own(g, DRONE)) and len(own(g, DRONE)) == 13


def test_a_zergling_egg_needs_a_spawning_pool_and_hatches_a_pair() -> None:
    g = zerg_game()
    g.step(4)
    rich(g)
    larva = own(g, LARVA)[0].tag
    assert act(g, TRAIN_ZERGLING, [larva]) == TECH
    w = g.world
    w.construction.add_structure(POOL, 1, *_pool_spot(g))
    assert act(g, TRAIN_ZERGLING, [larva]) == SUCCESS
    assert common(g).food_used == 13  # two half-supply zerglings
    g.step(400)
    assert len(own(g, ZERGLING)) == 2


def _pool_spot(g: Game) -> tuple[float, float]:
    h = hatchery(g)
    w = g.world
    for dx in range(-9, 10):
        for dy in range(-9, 10):
            x, y = h.pos.x + dx + 0.5, h.pos.y + dy + 0.5
            if w.placement.check(BUILD_POOL, x, y) == SUCCESS:
                return x, y
    raise AssertionError("no spot for a pool on the start's creep")


def test_larvae_need_supply_and_money() -> None:
    g = zerg_game()
    g.step(4)
    larvae = [u.tag for u in own(g, LARVA)]
    rich(g, minerals=40)
    assert act(g, TRAIN_DRONE, larvae[:1]) == NOT_ENOUGH_MINERALS
    rich(g)
    assert act(g, TRAIN_DRONE, larvae[:2]) == SUCCESS  # 14/14
    assert act(g, TRAIN_DRONE, larvae[2:]) == NOT_ENOUGH_FOOD
    assert act(g, TRAIN_OVERLORD, larvae[2:]) == SUCCESS  # an Overlord needs no supply
    g.step(401)
    pc = common(g)
    assert (pc.food_used, pc.food_cap) == (14, 22)  # Overlords provide 8 each


def test_cancelling_an_egg_refunds_it_and_gives_the_larva_back() -> None:
    g = zerg_game()
    g.step(4)
    larva = own(g, LARVA)[0].tag
    before = common(g).minerals
    assert act(g, TRAIN_DRONE, [larva]) == SUCCESS
    g.step(50)
    assert act(g, CANCEL_LAST, [larva]) == SUCCESS
    pc = common(g)
    assert pc.minerals >= before and pc.food_used == 12
    assert any(u.tag == larva for u in own(g, LARVA))


def test_a_drone_becomes_the_structure_and_a_cancel_gives_it_back_with_75_percent() -> None:
    g = zerg_game()
    g.step(4)
    rich(g, minerals=1000, vespene=0)
    drone = own(g, DRONE)[0]
    spot = _pool_spot(g)
    assert act(g, BUILD_POOL, [drone.tag], pos=spot) == SUCCESS
    for _ in range(40):
        g.step(16)
        if own(g, POOL):
            break
    pool = own(g, POOL)[0]
    assert pool.build_progress < 0.1
    assert all(u.tag != drone.tag for u in own(g))  # consumed
    assert drone.tag in g.observation(1).observation.raw_data.event.dead_units or \
        drone.tag in g.world.dead_tags
    assert len(own(g, DRONE)) == 11
    spent = g.world.supply.spent_minerals
    assert spent[1] == 200  # the pool's 200 (the client's 250 less the Drone)
    g.step(100)
    assert 0.05 < own(g, POOL)[0].build_progress < 0.2  # it grows alone
    assert act(g, CANCEL_BUILD, [pool.tag]) == SUCCESS
    assert not own(g, POOL) and len(own(g, DRONE)) == 12
    assert spent[1] == 200 - 150  # 75% back


def test_structures_other_than_hatchery_and_extractor_need_creep() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    h = hatchery(g)
    creep = w.creep.grid
    # a spot off creep but placeable
    off = next((x + 0.5, y + 0.5) for x in range(int(h.pos.x) - 25, int(h.pos.x) + 25)
               for y in range(int(h.pos.y) - 25, int(h.pos.y) + 25)
               if 0 <= x < creep.shape[1] and 0 <= y < creep.shape[0] and not creep[y - 2:y + 3, x - 2:x + 3].any()
               and w.map.placeable[y - 2:y + 3, x - 2:x + 3].all() and w.placement.check(1152, x + 0.5, y + 0.5) == SUCCESS)
    assert w.placement.check(BUILD_EVO, *off) == CANT_BUILD_LOCATION_INVALID
    assert w.placement.check(BUILD_POOL, *_pool_spot(g)) == SUCCESS
    req = query_pb2.RequestQuery()
    p = req.placements.add(ability_id=BUILD_EVO)
    p.target_pos.x, p.target_pos.y = off
    resp = g.query(1, req)
    assert resp.placements[0].result == CANT_BUILD_LOCATION_INVALID


def test_creep_is_reported_spreads_from_a_new_hatchery_and_recedes_when_it_dies() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    img = g.observation(1).observation.raw_data.map_state.creep
    bits = np.unpackbits(np.frombuffer(img.data, dtype=np.uint8)).reshape(img.size.y, img.size.x)
    h = hatchery(g)
    assert img.bits_per_pixel == 1 and bits[int(h.pos.y) + 5, int(h.pos.x)] == 1
    assert bits.sum() == w.creep.grid.sum() > 300  # radius 11 round the hatchery, pathable cells
    # a second hatchery: finished, it spreads creep outwards over time
    ex = (w.map.width - h.pos.x, w.map.height - h.pos.y)
    tag = w.construction.add_structure(HATCHERY, 1, *ex)
    g.step(2)
    small = int(w.creep.grid.sum())
    g.step(8 * 6)
    grown = int(w.creep.grid.sum())
    g.step(8 * 20)
    full = int(w.creep.grid.sum())
    assert small < grown < full
    # the hatchery dies: its creep recedes, the start's stays
    kill = sc_pb.RequestDebug()
    kill.debug.add().kill_unit.tag.append(tag)
    g.debug(1, kill)
    g.step(16 * 5)
    assert int(w.creep.grid.sum()) < full
    g.step(16 * 20)
    assert abs(int(w.creep.grid.sum()) - bits.sum()) < 5


def test_a_queen_injects_larva_three_more_after_29_seconds() -> None:
    g = zerg_game()
    g.step(4)
    rich(g)
    w = g.world
    w.construction.add_structure(POOL, 1, *_pool_spot(g))
    h = hatchery(g)
    assert act(g, TRAIN_QUEEN, [h.tag]) == SUCCESS
    g.step(801)
    queen = own(g, QUEEN)[0]
    assert queen.energy >= 25
    assert act(g, INJECT, [queen.tag], target=h.tag) == SUCCESS
    g.step(60)
    h2 = hatchery(g)
    assert 11 in h2.buff_ids  # QUEENSPAWNLARVATIMER
    n = len(own(g, LARVA))
    assert n == 3
    queen = next(u for u in own(g, QUEEN) if u.tag == queen.tag)
    g.world.abilities.energy[queen.tag] = (50.0, g.world.loop, 200.0)
    assert act(g, INJECT, [queen.tag], target=h.tag) == SUCCESS  # a second one queues up
    g.step(INJECT_LOOPS)
    assert len(own(g, LARVA)) == 6
    assert 11 in hatchery(g).buff_ids
    g.step(INJECT_LOOPS)
    assert len(own(g, LARVA)) == 9
    assert 11 not in hatchery(g).buff_ids


def test_a_hatchery_becomes_a_lair_with_a_pool() -> None:
    g = zerg_game()
    g.step(4)
    rich(g)
    h = hatchery(g)
    assert act(g, 1216, [h.tag]) == TECH
    g.world.construction.add_structure(POOL, 1, *_pool_spot(g))
    assert act(g, 1216, [h.tag]) == SUCCESS
    g.step(1281)
    assert own(g, 100) and not own(g, HATCHERY)


def test_a_zergling_morphs_into_a_baneling_through_a_cocoon_and_a_cancel_gives_it_back() -> None:
    g = zerg_game()
    g.step(4)
    rich(g)
    w = g.world
    w.construction.add_structure(POOL, 1, *_pool_spot(g))
    assert act(g, TRAIN_ZERGLING, [own(g, LARVA)[0].tag]) == SUCCESS
    g.step(400)
    a, b = (u.tag for u in own(g, ZERGLING))
    assert act(g, 80, [a]) == TECH  # needs a Baneling Nest
    h = hatchery(g)
    nest = next((h.pos.x + dx + 0.5, h.pos.y + dy + 0.5) for dx in range(-9, 10) for dy in range(-9, 10)
                if w.placement.check(1162, h.pos.x + dx + 0.5, h.pos.y + dy + 0.5) == SUCCESS)
    w.construction.add_structure(96, 1, *nest)
    spent = w.supply.spent_minerals[1], w.supply.spent_vespene[1]
    assert act(g, 80, [a]) == SUCCESS and act(g, 4431, [b]) == SUCCESS
    assert (w.supply.spent_minerals[1] - spent[0], w.supply.spent_vespene[1] - spent[1]) == (50, 50)
    cocoons = own(g, 8)
    assert len(cocoons) == 2 and cocoons[0].orders[0].ability_id in (80, 4431)
    assert act(g, CANCEL, [b]) == SUCCESS
    assert any(u.tag == b for u in own(g, ZERGLING))
    g.step(321)
    assert [u.tag for u in own(g, 9)] == [a]


def test_a_morph_needing_more_supply_takes_it_at_the_start_and_is_refused_without_room() -> None:
    """Roach (2) -> Ravager (3): the extra supply is checked and taken when the morph starts (the
    cocoon's client food is the Roach's), not when the Ravager appears."""
    g = zerg_game()
    g.step(4)
    rich(g)
    w = g.world
    h = hatchery(g)
    w.construction.add_structure(97, 1, *_pool_spot(g))  # (a Roach Warren)
    roach = int(w.spawn(110, 1, [h.pos.x], [h.pos.y - 6.0])[0])
    g.step(2)
    used, cap = w.supply.food(1)
    assert used == cap  # 12 Drones + a Roach = 14 of 14
    assert act(g, 2330, [roach]) == NOT_ENOUGH_FOOD
    w.spawn(OVERLORD, 1, [h.pos.x], [h.pos.y + 6.0])
    g.step(2)
    assert act(g, 2330, [roach]) == SUCCESS
    assert w.supply.food(1)[0] == used + 1  # (taken at once)
    g.step(400)
    assert [u.tag for u in own(g, 688)] == [roach] and w.supply.food(1)[0] == used + 1


def test_zerg_ground_units_are_faster_on_creep_but_drones() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    h = hatchery(g)
    on = (h.pos.x, h.pos.y - 6.0)
    off = next((x + 0.5, y + 0.5) for x in range(0, w.map.width) for y in range(0, w.map.height)
               if w.map.pathable[y, x] and not w.creep.grid[max(0, y - 3):y + 4, max(0, x - 3):x + 4].any()
               and abs(x - h.pos.x) < 40 and abs(y - h.pos.y) < 40)
    tags = {}
    for name, uid, pos in (("ling_on", ZERGLING, on), ("ling_off", ZERGLING, off), ("queen_on", QUEEN, on)):
        tags[name] = int(w.spawn(uid, 1, [pos[0]], [pos[1]])[0])
    g.step(2)
    u = w.u
    speed = {k: float(u.speed[u.row(t)]) * 16 for k, t in tags.items()}  # (per normal second)
    base = {ZERGLING: 2.9531, QUEEN: 0.9375}
    assert abs(speed["ling_on"] / 2.9531 - 1.3) < 1e-3 and abs(speed["ling_off"] / base[ZERGLING] - 1.0) < 1e-3
    assert abs(speed["queen_on"] / base[QUEEN] - 8 / 3) < 1e-3
    drone = own(g, DRONE)[0]
    assert abs(float(u.speed[u.row(drone.tag)]) * 16 - 2.8125) < 1e-6  # on creep, no bonus


def test_terran_structures_are_not_built_on_creep() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    pool = _pool_spot(g)
    assert w.placement.check(1155, *pool) == SUCCESS
    assert w.placement.check(321, *pool) == CANT_BUILD_LOCATION_INVALID  # a Barracks on the creep


def test_burrow_needs_its_research_and_hides_the_unit() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    rich(g)
    drone = own(g, DRONE)[0].tag
    assert act(g, 1378, [drone]) == TECH  # Burrow (64) not researched
    w.research.done.setdefault(1, []).append(64)
    assert act(g, 3661, [drone]) == SUCCESS  # the generic BURROWDOWN
    g.step(20)
    d = next(u for u in own(g) if u.tag == drone)
    assert d.unit_type == 116 and d.is_burrowed and d.cloak == 1
    assert act(g, 3662, [drone]) == SUCCESS
    g.step(20)
    d = next(u for u in own(g) if u.tag == drone)
    assert d.unit_type == DRONE and not d.is_burrowed


def test_the_abilities_query_lists_a_larvas_trains() -> None:
    g = zerg_game()
    g.step(4)
    larva = own(g, LARVA)[0].tag
    req = query_pb2.RequestQuery()
    req.abilities.add(unit_tag=larva)
    got = {a.ability_id for a in g.query(1, req).abilities[0].abilities}
    assert TRAIN_DRONE in got and TRAIN_ZERGLING not in got  # no Spawning Pool yet


def test_an_overlord_generates_creep_with_a_lair_where_it_stands() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    ov = own(g, OVERLORD)[0]
    h = hatchery(g)
    assert act(g, 1692, [ov.tag]) == TECH  # needs a Lair
    w.construction.add_structure(100, 1, w.map.width - h.pos.x, w.map.height - h.pos.y)
    spot = (h.pos.x + (25 if h.pos.x < w.map.width / 2 else -25), h.pos.y)
    assert act(g, 1, [ov.tag], pos=spot) == SUCCESS  # (smart: move)
    g.step(22 * 60)
    assert not w.creep.has(*spot)
    assert act(g, 1692, [ov.tag]) == SUCCESS
    g.step(80)
    o = next(u for u in own(g, OVERLORD) if u.tag == ov.tag)
    assert w.creep.has(o.pos.x, o.pos.y)
    assert act(g, 1693, [ov.tag]) == SUCCESS
    g.step(200)
    assert not w.creep.has(o.pos.x, o.pos.y)  # receded


def test_a_queens_creep_tumor_burrows_spreads_creep_and_spawns_one_more() -> None:
    g = zerg_game()
    g.step(4)
    rich(g)
    w = g.world
    w.construction.add_structure(POOL, 1, *_pool_spot(g))
    h = hatchery(g)
    assert act(g, TRAIN_QUEEN, [h.tag]) == SUCCESS
    g.step(801)
    queen = own(g, QUEEN)[0]
    # the creep's edge towards the map's centre
    cx, cy = w.map.width / 2, w.map.height / 2
    d = np.hypot(cx - h.pos.x, cy - h.pos.y)
    ux, uy = (cx - h.pos.x) / d, (cy - h.pos.y) / d
    edge = next(k for k in np.arange(20.0, 5.0, -0.5)
                if w.creep.has(h.pos.x + ux * k, h.pos.y + uy * k) and w.map.pathable[int(h.pos.y + uy * k), int(h.pos.x + ux * k)])
    spot = (h.pos.x + ux * edge, h.pos.y + uy * edge)
    outside = (h.pos.x + ux * (edge + 5), h.pos.y + uy * (edge + 5))
    assert not w.creep.has(*outside)
    assert act(g, 1694, [queen.tag], pos=outside) == CANT_BUILD_LOCATION_INVALID  # not on creep
    assert act(g, 1694, [queen.tag], pos=spot) == SUCCESS
    for _ in range(60):
        g.step(16)
        if own(g, 137):
            break
    tumor = own(g, 137)[0]
    g.step(8 * 12)
    assert w.creep.has(*outside)  # the tumor's creep reaches beyond the hatchery's
    far = (tumor.pos.x + ux * 5, tumor.pos.y + uy * 5)
    assert w.creep.has(*far)
    assert act(g, 1733, [tumor.tag], pos=far) == SUCCESS
    assert act(g, 1733, [tumor.tag], pos=spot) != SUCCESS  # once per tumor


def test_transfusion_heals_a_biological_unit_of_the_player() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    h = hatchery(g)
    [queen] = w.spawn(QUEEN, 1, [h.pos.x], [h.pos.y - 5.0]).tolist()
    drone = own(g, DRONE)[0].tag
    g.step(2)
    w.abilities.energy[queen] = (60.0, w.loop, 200.0)
    w.u.hp[w.u.row(drone)] = 5.0
    mineral = next(u.tag for u in g.observation(1).observation.raw_data.units if u.alliance == 3)
    assert act(g, 1664, [queen], target=mineral) == 121  # MustTargetBiologicalUnits
    assert act(g, 1664, [queen], target=drone) == SUCCESS
    g.step(200)
    assert float(w.u.hp[w.u.row(drone)]) == 40.0  # +75, up to its 40
    assert w.abilities.energy_of(queen) < 60.0 - 50.0 + 8.0  # 50 spent (and 200 loops of regeneration)


def test_zerg_abilities_without_a_zerg_unit_are_answered_as_not_simulated() -> None:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=MAP), random_seed=5)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=TERRAN, difficulty=1)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 1
    scv = next(u for u in own(g) if u.unit_type == 45)
    assert act(g, BUILD_POOL, [scv.tag], pos=(scv.pos.x + 5, scv.pos.y)) == 2  # NotSupported, as before Zerg
    assert act(g, TRAIN_DRONE, [scv.tag]) == 3  # (no target: Error, as before)
    assert not g.world.has_zerg
