"""The economy: mining timings, one worker per field, depletion, supply, production queues,
construction, placement and the protocol fields a bot reads (player_common, orders, buffs)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from game_helpers import command, joined, play_random_commands, units
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from s2clientprotocol import common_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.game import Game
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.races.terran import GATHER_SCV, RETURN_SCV
from sc2pool.engine.sim.systems import harvest as H
from sc2pool.engine.sim.systems import workers as W
from sc2pool.engine.sim.world import World

SCV_SPEED = D.UNIT_BY_ID[D.SCV].speed / 16.0


def eco(keep_scvs: int = 12, path: str = "TerranEconomy.SC2Map") -> tuple[Game, World]:
    g = joined(path)
    assert g.world.has_economy
    scvs = tags_of(g, D.SCV)
    if keep_scvs < len(scvs):
        req = sc_pb.RequestDebug()
        req.debug.add().kill_unit.tag.extend(scvs[keep_scvs:])
        g.debug(1, req)
        g.step(1)
    return g, g.world


def tags_of(g: Game, unit_id: int, owner: int | None = None) -> list[int]:
    u = g.world.u
    m = u.unit_id == unit_id
    if owner is not None:
        m &= u.owner == owner
    return [int(t) for t in u.tag[m]]


def pos(g: Game, tag: int) -> tuple[float, float]:
    u = g.world.u
    r = u.row(tag)
    return float(u.x[r]), float(u.y[r])


def pc(g: Game) -> sc_pb.PlayerCommon:
    return g.observation(1).observation.player_common


def unit(g: Game, tag: int):  # type: ignore[no-untyped-def]
    return next(x for x in units(g) if x.tag == tag)


def act(g: Game, *args, **kw) -> int:  # type: ignore[no-untyped-def]
    return g.action(1, command(*args, **kw)).result[0]


def walk_loops(a: tuple[float, float], b: tuple[float, float], stop: float) -> int:
    return math.ceil(W.leg_loops(math.hypot(b[0] - a[0], b[1] - a[1]) - stop) - 1e-9)


def test_scv_legs_accelerate_like_the_measured_real_scv() -> None:
    # a real SCV covers 4 cells from standing to standing in ~37 game ticks (editor measurement);
    # at constant full speed it would take 23
    assert 36 <= W.leg_loops(4.0) <= 42
    assert abs(W.leg_loops(20.0) - (20.0 / SCV_SPEED + 18.0)) < 1e-9
    assert W.leg_travelled(0, 4.0) == 0.0 and W.leg_travelled(50, 4.0) == 4.0
    xs = [W.leg_travelled(k, 4.0) for k in range(45)]
    assert all(b >= a for a, b in zip(xs, xs[1:], strict=False))


def test_start_state_as_the_real_client() -> None:
    g, _ = eco()
    p = pc(g)
    assert (p.minerals, p.vespene, p.food_used, p.food_cap, p.food_workers, p.idle_worker_count) == (50, 0, 12, 15, 12, 0)
    obs = units(g)
    assert sum(1 for x in obs if x.unit_type == D.SCV and x.orders[0].ability_id == GATHER_SCV) == 12
    fields = [x for x in obs if x.unit_type in (D.MINERALFIELD, D.MINERALFIELD750)]
    assert len(fields) == 8 and {x.mineral_contents for x in fields} == {1800, 900}
    assert all(x.alliance == 3 for x in fields)
    geysers = [x for x in obs if x.unit_type == D.VESPENEGEYSER]
    assert len(geysers) == 2 and {x.vespene_contents for x in geysers} == {2250}
    cc = next(x for x in obs if x.unit_type == D.COMMANDCENTER)
    assert (cc.build_progress, cc.assigned_harvesters, cc.ideal_harvesters) == (1.0, 12, 16)


def test_one_trip_takes_walk_mine_pause_walk_and_brings_5() -> None:
    g, world = eco(keep_scvs=1)
    scv = tags_of(g, D.SCV)[0]
    field = min(world.harvest.resources.values(), key=lambda r: r.y if r.is_mineral else 1e9)
    cc = tags_of(g, D.COMMANDCENTER)[0]
    assert act(g, GATHER_SCV, [scv], target=field.tag) == 1
    start = pos(g, scv)
    w1 = walk_loops(start, (field.x, field.y), 1.125 + 0.375)
    d = math.hypot(field.x - start[0], field.y - start[1])
    stand = (field.x - (field.x - start[0]) / d * 1.5, field.y - (field.y - start[1]) / d * 1.5)
    w2 = walk_loops(stand, pos(g, cc), 2.75 + 0.375)
    deposit = w1 + H.MINERAL_MINE_LOOPS + H.PAUSE_LOOPS + w2
    g.step(w1 + H.MINERAL_MINE_LOOPS + 1)
    x = unit(g, scv)
    assert x.orders[0].ability_id == RETURN_SCV and x.orders[0].target_unit_tag == cc
    assert list(x.buff_ids) == [W.BUFF_CARRY_MINERALS]
    assert unit(g, field.tag).mineral_contents == field.contents == (1800 if field.unit_id == D.MINERALFIELD else 900) - 5
    g.step(deposit - (w1 + H.MINERAL_MINE_LOOPS + 1) - 1)
    assert pc(g).minerals == 50
    g.step(1)
    assert pc(g).minerals == 55
    x = unit(g, scv)
    assert x.orders[0].ability_id == GATHER_SCV and x.orders[0].target_unit_tag == field.tag and not x.buff_ids


def test_one_worker_per_field_the_second_waits_or_moves_on() -> None:
    g, world = eco(keep_scvs=3)
    scvs = tags_of(g, D.SCV)
    fields = [r for r in world.harvest.resources.values() if r.is_mineral]
    for f in fields[1:]:  # leave a single field: the workers must take turns on it
        f.contents = 0
    only = fields[0]
    for t in scvs:
        act(g, GATHER_SCV, [t], target=only.tag)
    occupied = 0
    for _ in range(400):
        g.step(1)
        occupied = max(occupied, sum(1 for j in world.workers.jobs.values() if j.phase == W.MINE))
    assert occupied == 1
    # one field, one worker at a time: at most 5 minerals per 45 loops, and it was the bottleneck
    got = world.supply.collected_minerals[1]
    assert 5 * (400 // (H.MINERAL_MINE_LOOPS + 8)) <= got + 15 and got <= 5 * (400 // H.MINERAL_MINE_LOOPS + 1)


def test_depleted_field_disappears_and_its_worker_moves_on() -> None:
    g, world = eco(keep_scvs=1)
    scv = tags_of(g, D.SCV)[0]
    field = next(r for r in world.harvest.resources.values() if r.is_mineral)
    field.contents = 10
    act(g, GATHER_SCV, [scv], target=field.tag)
    for _ in range(100):
        g.step(8)
        if field.tag not in world.harvest.resources:
            break
    assert field.tag not in tags_of(g, field.unit_id) and field.tag not in world.harvest.resources
    g.step(200)
    assert world.supply.collected_minerals[1] >= 15  # the two trips, then another field
    assert unit(g, scv).orders[0].target_unit_tag != field.tag


def test_train_scv_costs_supply_queue_and_time() -> None:
    g, world = eco()
    cc = tags_of(g, D.COMMANDCENTER)[0]
    assert act(g, 524, [cc]) == 1
    p = pc(g)
    assert (p.minerals, p.food_used) == (0, 13)
    assert act(g, 524, [cc]) == C.NOT_ENOUGH_MINERALS
    x = unit(g, cc)
    assert [o.ability_id for o in x.orders] == [524] and x.orders[0].progress == 0.0 and x.is_active
    sd = g.observation(1).observation.score.score_details
    assert (sd.spent_minerals, sd.collected_minerals) == (50, world.supply.collected_minerals[1])
    g.step(136)
    assert abs(unit(g, cc).orders[0].progress - 0.5) < 1e-6
    n = len(tags_of(g, D.SCV))
    g.step(135)
    assert len(tags_of(g, D.SCV)) == n
    g.step(1)
    assert len(tags_of(g, D.SCV)) == n + 1 and not unit(g, cc).orders
    assert world.production.trained[1][D.SCV] == 1


def test_queue_five_deep_and_supply_cap_and_tech_requirement() -> None:
    g, world = eco()
    cc = tags_of(g, D.COMMANDCENTER)[0]
    world.supply.minerals[1] = 10_000
    world.construction.add_structure(D.SUPPLYDEPOT, 1, 40.0, 40.0)
    assert pc(g).food_cap == 23
    assert [act(g, 524, [cc]) for _ in range(6)] == [1, 1, 1, 1, 1, C.QUEUE_IS_FULL]
    assert len(unit(g, cc).orders) == 5 and pc(g).food_used == 17
    assert act(g, 3671, [cc]) == 1
    assert len(unit(g, cc).orders) == 4 and pc(g).minerals == 10_000 - 200
    g2, world2 = eco()
    world2.supply.minerals[1] = 10_000
    cc2 = tags_of(g2, D.COMMANDCENTER)[0]
    assert [act(g2, 524, [cc2]) for _ in range(4)] == [1, 1, 1, C.NOT_ENOUGH_FOOD]
    assert act(g2, 560, [cc2]) == C.ERROR  # marines come from barracks
    scv = tags_of(g2, D.SCV)[0]
    assert act(g2, 321, [scv], (40.5, 40.5)) == C.BUILD_TECH_REQUIREMENTS_NOT_MET


def test_construction_placement_progress_and_supply() -> None:
    g, world = eco()
    scv = tags_of(g, D.SCV)[0]
    cc = tags_of(g, D.COMMANDCENTER)[0]
    world.supply.minerals[1] = 1000
    q = query_pb2.RequestQuery()
    for x, y in ((20.5, 32.5), (30.0, 30.0), (2.0, 2.0), (61.0, 30.0)):
        q.placements.add(ability_id=319, target_pos=common_pb2.Point2D(x=x, y=y))
    resp = g.query(1, q)
    assert [r.result for r in resp.placements] == [C.CANT_BUILD_LOCATION_INVALID, 1, C.CANT_BUILD_LOCATION_INVALID,
                                                   C.CANT_BUILD_LOCATION_INVALID]
    assert act(g, 319, [scv], (20.5, 32.5)) == C.CANT_BUILD_LOCATION_INVALID  # on the Command Center
    assert act(g, 318, [scv], (13.0, 32.5)) == C.CANT_BUILD_LOCATION_INVALID  # on the minerals
    assert act(g, 319, [scv], (30.0, 30.0)) == 1
    assert unit(g, scv).orders[0].ability_id == 319
    assert pc(g).minerals == 1000  # paid when the SCV arrives and places it
    for _ in range(40):
        g.step(4)
        if tags_of(g, D.SUPPLYDEPOT):
            break
    depot = tags_of(g, D.SUPPLYDEPOT)[0]
    assert pc(g).minerals < 1000  # paid on arrival (mining adds less than 100 meanwhile)
    assert pos(g, depot) == (30.0, 30.0)
    d = unit(g, depot)
    assert d.build_progress < 0.05 and d.health < 60 and pc(g).food_cap == 15
    # the query now refuses the spot
    assert g.query(1, q).placements[1].result == C.CANT_BUILD_LOCATION_INVALID
    g.step(240)
    d = unit(g, depot)
    assert 0.45 < d.build_progress < 0.55 and 200 < d.health < 260
    assert unit(g, scv).orders[0].ability_id == 319  # busy building
    g.step(245)
    d = unit(g, depot)
    assert d.build_progress == 1.0 and d.health == 400 and pc(g).food_cap == 23
    assert not unit(g, scv).orders  # idle after building
    assert unit(g, cc).ideal_harvesters == 16


def test_an_enemy_ground_unit_on_the_footprint_stops_the_placement_when_the_scv_arrives() -> None:
    """The order is accepted (the footprint shows green) and refused on arrival: the SCV stops and
    pays nothing (the Arqade answer "Do burrowed units block building construction?"; the rule
    does not look at whether the player sees the unit, so burrowed and cloaked ones block too);
    the player's own unit there does not block it, and an enemy air unit neither."""
    g, world = eco()
    scv = tags_of(g, D.SCV)[0]
    world.supply.minerals[1] = 1000
    world.spawn(104, 2, [30.0], [30.0])  # a Drone (a worker: it does not attack the SCV)
    world.spawn(D.MARINE, 1, [25.0], [25.0])
    world.spawn(35, 2, [25.0], [25.0])  # a Viking (fighter: air) of player 2 above it
    assert act(g, 319, [scv], (30.0, 30.0)) == C.SUCCESS
    for _ in range(40):
        g.step(4)
        if not unit(g, scv).orders:
            break
    assert not unit(g, scv).orders and not tags_of(g, D.SUPPLYDEPOT)
    assert pc(g).minerals >= 1000  # nothing paid
    assert act(g, 319, [scv], (25.0, 25.0)) == C.SUCCESS  # its own Marine and an enemy in the air
    for _ in range(40):
        g.step(4)
        if tags_of(g, D.SUPPLYDEPOT):
            break
    x, y = pos(g, tags_of(g, D.SUPPLYDEPOT)[0])  # (the Marine pushes it a little on the flat arena)
    assert math.hypot(x - 25.0, y - 25.0) < 1.0


def test_damage_taken_under_construction_stays_as_the_structure_grows_and_completes() -> None:
    # (the real game: a structure under construction starts at 10% life and gains the rest as it
    # is built; life it loses meanwhile comes back only by repair; LP:Buildings, starcraft.fandom
    # Hit_point). Before the fix the growth reset the life to the progress's, so 6 Zerglings never
    # hurt a Command Center an SCV was building.
    g, world = eco()
    scv = tags_of(g, D.SCV)[0]
    world.supply.minerals[1] = 1000
    assert act(g, 319, [scv], (30.0, 30.0)) == 1
    for _ in range(40):
        g.step(4)
        if tags_of(g, D.SUPPLYDEPOT):
            break
    depot = tags_of(g, D.SUPPLYDEPOT)[0]
    g.step(100)
    before = unit(g, depot).health
    world.u.hp[world.u.row(depot)] -= 30.0  # as combat deals damage
    g.step(140)
    mid = unit(g, depot)
    grown = 400 * 0.9 * mid.build_progress + 40
    assert 0.45 < mid.build_progress < 0.6 and mid.health == pytest.approx(grown - 30.0, abs=0.5) and mid.health > before
    g.step(245)
    d = unit(g, depot)
    assert d.build_progress == 1.0 and d.health == pytest.approx(370.0, abs=1e-3)


def test_refinery_then_gas_4_per_trip() -> None:
    g, world = eco(keep_scvs=2)
    scv, other = tags_of(g, D.SCV)
    geyser = next(r for r in world.harvest.resources.values() if not r.is_mineral)
    world.supply.minerals[1] = 500
    assert act(g, 320, [scv], (geyser.x, geyser.y)) == C.MUST_TARGET_UNIT
    assert act(g, 320, [scv], target=geyser.tag) == 1
    assert act(g, GATHER_SCV, [other], target=geyser.tag) == C.MUST_BUILD_REFINERY_FIRST
    for _ in range(100):
        g.step(8)
        if world.supply.collected_vespene[1]:
            break
    assert world.supply.collected_vespene[1] == 4 and pc(g).vespene == 4
    # while inside the refinery a worker is not in the observation (as with the real client)
    seen_inside = False
    for _ in range(60):
        g.step(1)
        if world.harvest.inside:
            seen_inside = True
            assert scv in world.harvest.inside and all(x.tag != scv for x in units(g)) and pc(g).food_workers == 2
            break
    assert seen_inside
    ref = tags_of(g, D.REFINERY)[0]
    x = unit(g, ref)
    assert x.vespene_contents == 2250 - 4 or x.vespene_contents == 2250 - 8
    assert x.assigned_harvesters == 1 and x.ideal_harvesters == 3


def test_exhausted_refinery_wants_no_harvesters() -> None:
    # (a mined-out gas structure reports ideal_harvesters 0, as a mined-out townhall does: bots
    # that fill "assigned < ideal" then stop sending workers it refuses as exhausted)
    g, world = eco(keep_scvs=2)
    scv, _ = tags_of(g, D.SCV)
    geyser = next(r for r in world.harvest.resources.values() if not r.is_mineral)
    world.supply.minerals[1] = 500
    assert act(g, 320, [scv], target=geyser.tag) == 1
    for _ in range(100):
        g.step(8)
        if world.supply.collected_vespene[1]:
            break
    ref = tags_of(g, D.REFINERY)[0]
    assert unit(g, ref).ideal_harvesters == 3
    geyser.contents = 4  # one trip left
    for _ in range(100):
        g.step(8)
        if geyser.contents <= 0:
            break
    g.step(1)
    x = unit(g, ref)
    assert geyser.contents == 0 and x.vespene_contents == 0 and x.ideal_harvesters == 0
    assert act(g, GATHER_SCV, [scv], target=ref) == C.CANT_TARGET_EXHAUSTED_RESOURCES


def test_rally_to_minerals_makes_new_scvs_mine() -> None:
    g, world = eco()
    cc = tags_of(g, D.COMMANDCENTER)[0]
    field = next(r for r in world.harvest.resources.values() if r.is_mineral)
    assert act(g, 203, [cc], target=field.tag) == 1
    act(g, 524, [cc])
    g.step(273)
    new = max(tags_of(g, D.SCV))
    o = unit(g, new).orders
    assert o and o[0].ability_id == GATHER_SCV and o[0].target_unit_tag == field.tag


def test_move_command_takes_a_worker_off_mining_and_keeps_its_cargo() -> None:
    g, world = eco(keep_scvs=1)
    scv = tags_of(g, D.SCV)[0]
    for _ in range(40):
        g.step(4)
        if world.workers.jobs[scv].carry:
            break
    assert act(g, D.MOVE_MOVE, [scv], (40.0, 40.0)) == 1
    g.step(8)
    x = unit(g, scv)
    assert x.orders[0].ability_id == D.MOVE_MOVE and list(x.buff_ids) == [W.BUFF_CARRY_MINERALS]
    assert pc(g).idle_worker_count == 0
    assert act(g, RETURN_SCV, [scv]) == 1
    g.step(200)
    assert pc(g).minerals == 55 and not unit(g, scv).orders and pc(g).idle_worker_count == 1


def test_economy_is_deterministic_whatever_the_step_size() -> None:
    a, _ = eco()
    b, _ = eco()
    for _ in range(50):
        a.step(8)
    for _ in range(25):
        b.step(16)
    ua = sorted((x.tag, round(x.pos.x, 4), round(x.pos.y, 4), x.mineral_contents) for x in units(a))
    ub = sorted((x.tag, round(x.pos.x, 4), round(x.pos.y, 4), x.mineral_contents) for x in units(b))
    assert ua == ub and pc(a).minerals == pc(b).minerals


def test_mini_game_scores_and_limits() -> None:
    g = joined("CollectMineralsAndGas.SC2Map")
    obs = units(g)
    assert sum(1 for x in obs if x.unit_type in (D.MINERALFIELD, D.MINERALFIELD750)) == 16
    assert sum(1 for x in obs if x.unit_type == D.VESPENEGEYSER) == 4
    assert g.scenario.time_limit == 6720
    g.step(800)
    assert g.observation(1).observation.score.score == g.world.supply.collected_minerals[1] > 0
    b = joined("BuildMarines.SC2Map")
    assert b.scenario.time_limit == 14400
    assert sum(1 for x in units(b) if x.unit_type in (D.MINERALFIELD, D.MINERALFIELD750)) == 8
    assert not any(x.unit_type == D.VESPENEGEYSER for x in units(b))


def test_income_of_16_scvs_on_8_fields_matches_the_real_game() -> None:
    # measured in the real game at normal speed: ~672 minerals per minute with 16 SCVs on an
    # 8-field base (TL.net, "SCV mining rates"); Liquipedia's faster-speed table gives ~857/1.4
    g, world = eco()
    fields = [r.tag for r in world.harvest.resources.values() if r.is_mineral]
    new = g.world.spawn(D.SCV, 1, [17.0] * 4, [30.0, 31.0, 34.0, 35.0])
    for k, t in enumerate(new.tolist()):
        world.harvest.gather(int(t), fields[2 * k])
    g.step(960)
    before = world.supply.collected_minerals[1]
    g.step(3 * 960)
    per_minute = (world.supply.collected_minerals[1] - before) / 3.0
    assert 600 <= per_minute <= 740, per_minute


def test_abilities_query_lists_what_can_be_afforded() -> None:
    g, world = eco()
    cc = tags_of(g, D.COMMANDCENTER)[0]
    scv = tags_of(g, D.SCV)[0]

    def abilities(tag: int) -> set[int]:
        q = query_pb2.RequestQuery()
        q.abilities.add(unit_tag=tag)
        return {a.ability_id for a in g.query(1, q).abilities[0].abilities}

    assert 524 in abilities(cc) and 319 not in abilities(scv) and GATHER_SCV in abilities(scv)
    world.supply.minerals[1] = 0
    assert 524 not in abilities(cc)
    world.supply.minerals[1] = 500
    assert {319, 320, 318} <= abilities(scv) and 321 not in abilities(scv)  # barracks needs a depot


def test_shift_queued_gather_after_a_build_runs_when_the_structure_is_done() -> None:
    g, world = eco()
    scv = tags_of(g, D.SCV)[0]
    field = next(r for r in world.harvest.resources.values() if r.is_mineral)
    world.supply.minerals[1] = 500
    assert act(g, 319, [scv], (30.0, 30.0)) == 1
    assert act(g, GATHER_SCV, [scv], target=field.tag, queue=True) == 1
    assert unit(g, scv).orders[0].ability_id == 319  # the build goes first
    g.step(620)
    assert tags_of(g, D.SUPPLYDEPOT) and unit(g, tags_of(g, D.SUPPLYDEPOT)[0]).build_progress == 1.0
    o = unit(g, scv).orders
    assert o and o[0].ability_id == GATHER_SCV and o[0].target_unit_tag == field.tag


def test_hidden_workers_leave_every_other_unit_record_intact() -> None:
    # > 24 units: the vectorised encoder, whose row remapping must drop the hidden rows' extras
    g, world = eco()
    geyser = next(r for r in world.harvest.resources.values() if not r.is_mineral)
    ref = world.construction.add_structure(D.REFINERY, 1, geyser.x, geyser.y)
    world.construction.structures[ref].geyser = geyser.tag
    geyser.refinery = ref
    for k in range(2):
        world.construction.add_structure(D.SUPPLYDEPOT, 1, 40.0, 40.0 + 3 * k)
    # the gas worker's row comes right after a depot's (rows are in creation order)
    gas = int(g.world.spawn(D.SCV, 1, [geyser.x + 3.0], [geyser.y])[0])
    act(g, GATHER_SCV, [gas], target=ref)
    for _ in range(200):
        g.step(1)
        if world.harvest.inside:
            break
    assert world.harvest.inside and len(g.world.u) - len(world.harvest.inside) > 24
    obs = units(g)
    assert not any(x.tag in world.harvest.inside for x in obs)
    for x in obs:
        if x.tag in world.harvest.resources:
            assert x.mineral_contents + x.vespene_contents == world.harvest.resources[x.tag].contents and not x.orders
        if x.unit_type == D.SUPPLYDEPOT:
            assert not x.orders and not x.buff_ids
        if x.unit_type == D.SCV:  # its own order and cargo, not a hidden neighbour's
            job = world.workers.jobs[x.tag]
            assert len(x.orders) == 1 and x.orders[0].target_unit_tag == job.target
            assert bool(x.buff_ids) == bool(job.carry)


def test_debug_created_structures_and_fields_join_the_economy() -> None:
    g, world = eco()
    req = sc_pb.RequestDebug()
    cu = req.debug.add().create_unit
    cu.unit_type, cu.owner, cu.quantity = D.SUPPLYDEPOT, 1, 1
    cu.pos.x, cu.pos.y = 40.0, 40.0
    g.debug(1, req)
    assert pc(g).food_cap == 23
    req = sc_pb.RequestDebug()
    cu = req.debug.add().create_unit
    cu.unit_type, cu.owner, cu.quantity = D.MINERALFIELD, 16, 1
    cu.pos.x, cu.pos.y = 50.0, 50.5
    g.debug(1, req)
    field = max(tags_of(g, D.MINERALFIELD))
    assert unit(g, field).mineral_contents == 1800
    assert act(g, GATHER_SCV, [tags_of(g, D.SCV)[0]], target=field) == 1


ECON_ABILITIES = [295, 296, 3666, 3667, 318, 319, 320, 321, 524, 560, 195, 203, 3673, 3690, 3671, 306,
                  D.SMART, D.MOVE_MOVE, D.STOP_STOP, D.ATTACK_ATTACK, 0]


@pytest.mark.timeout(120)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(map_name=st.sampled_from(["TerranEconomy.SC2Map", "CollectMineralsAndGas.SC2Map"]),
       minerals=st.sampled_from([0, 50, 400, 5000]),
       actions=st.lists(st.tuples(st.sampled_from(ECON_ABILITIES), st.lists(st.integers(0, 40), max_size=3),
                                  st.one_of(st.none(), st.tuples(st.floats(-5, 70), st.floats(-5, 70))),
                                  st.integers(-1, 40), st.booleans(), st.integers(1, 64)), max_size=12))
def test_random_economy_commands_keep_invariants(map_name: str, minerals: int, actions: list) -> None:  # type: ignore[type-arg]
    g = joined(map_name)
    world = g.world
    assert world.has_economy
    world.supply.minerals[1] = minerals
    for _ in play_random_commands(g, actions):
        p = pc(g)
        assert p.minerals >= 0 and p.vespene >= 0 and p.food_used <= max(p.food_cap, 12)
        u = g.world.u
        assert len(units(g)) == len(u) - len(world.harvest.inside)
        x0, y0, x1, y1 = g.scenario.map.playable
        assert np.all((u.x >= x0) & (u.x <= x1) & (u.y >= y0) & (u.y <= y1)) and np.all(np.isfinite(u.x))
        assert all(0 <= r.contents <= 2250 for r in world.harvest.resources.values())


def test_the_idle_worker_count_follows_a_worker_that_arrives_from_a_move() -> None:
    """The observation keeps ``player_common``'s bytes while the unit set and the ledger stay the
    same; a worker that arrives from a move order goes idle with neither changing."""
    g, world = eco(keep_scvs=1)
    scv = tags_of(g, D.SCV)[0]
    x, y = pos(g, scv)

    def sent() -> sc_pb.PlayerCommon:  # (what a client gets: the cached bytes)
        return sc_pb.ResponseObservation.FromString(g.observation_bytes(1)).observation.player_common

    assert act(g, D.MOVE_MOVE, [scv], (x + 4.0, y)) == 1
    g.step(4)
    assert unit(g, scv).orders and sent().idle_worker_count == 0
    g.step(200)
    assert not unit(g, scv).orders
    assert sent().idle_worker_count == pc(g).idle_worker_count == 1
