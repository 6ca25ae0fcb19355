"""The Game API: create/join errors, game_info, observation fields, actions, queries, debug, results."""

from __future__ import annotations

import math

import numpy as np
import pytest
from game_helpers import command, create, joined, units
from s2clientprotocol import common_pb2, debug_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.game import Game, GameError, scenario_names
from sc2pool.engine.sim import encode

RCG = sc_pb.ResponseCreateGame


def test_scenario_names() -> None:
    assert set(scenario_names()) >= {"MoveToBeacon", "CollectMineralShards", "DefeatRoaches",
                                      "DefeatZerglingsAndBanelings", "Skirmish", "Battle100v100"}


@pytest.mark.parametrize("path", ["MoveToBeacon.SC2Map", "mini_games/MoveToBeacon.SC2Map",
                                  "C:\\maps\\MoveToBeacon.SC2Map", "movetobeacon.sc2map"])
def test_map_path_forms(path: str) -> None:
    assert create(path).scenario.name == "MoveToBeacon"


def test_create_errors_are_typed() -> None:
    with pytest.raises(GameError) as e:
        create("NoSuchMap.SC2Map")
    assert e.value.code == RCG.InvalidMapPath and "NoSuchMap" in str(e.value)
    with pytest.raises(GameError) as e:
        Game.create(sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="MoveToBeacon.SC2Map")))
    assert e.value.code == RCG.MissingPlayerSetup
    with pytest.raises(GameError) as e:
        Game.create(sc_pb.RequestCreateGame())
    assert e.value.code == RCG.MissingMap
    with pytest.raises(GameError) as e:
        create("MoveToBeacon.SC2Map", {"type": 2, "race": 2, "difficulty": 3})
    assert e.value.code == RCG.InvalidPlayerSetup
    with pytest.raises(GameError) as e:
        create("Skirmish.SC2Map")
    assert e.value.code == RCG.InvalidPlayerSetup
    with pytest.raises(GameError) as e:
        create("Skirmish.SC2Map", {"type": 3})
    assert e.value.code == RCG.InvalidPlayerSetup


def test_join_assigns_participants_then_refuses() -> None:
    g = create("Skirmish.SC2Map", {"type": 1, "race": 2})
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    assert g.join(sc_pb.RequestJoinGame(race=2)) == 2  # type: ignore[arg-type]
    with pytest.raises(GameError) as e:
        g.join(sc_pb.RequestJoinGame(race=1))  # type: ignore[arg-type]
    assert e.value.code == sc_pb.ResponseJoinGame.GameFull


def test_game_info_is_what_burnysc2_asserts() -> None:
    g = joined("Skirmish.SC2Map", {"type": 2, "race": 2, "difficulty": 4})
    gi = g.game_info(1)
    sr = gi.start_raw
    w, h = sr.map_size.x, sr.map_size.y
    assert len(sr.pathing_grid.data) * 8 == w * h and sr.pathing_grid.bits_per_pixel == 1
    assert len(sr.placement_grid.data) * 8 == w * h
    assert len(sr.terrain_height.data) == w * h and sr.terrain_height.bits_per_pixel == 8
    assert sr.playable_area.p0.x < sr.playable_area.p1.x and sr.playable_area.p0.y < sr.playable_area.p1.y
    assert len(sr.start_locations) == 1 and sr.start_locations[0].x > w / 2  # the enemy's start only
    p1, p2 = gi.player_info
    assert not p1.HasField("difficulty") and p2.difficulty == 4 and p2.type == 2
    assert p1.race_actual == 1 and p2.race_actual == 2
    # packed MSB-first: cell (x0, y0) of the playable area is pathable, (0, 0) is not
    bits = np.unpackbits(np.frombuffer(sr.pathing_grid.data, np.uint8)).reshape(h, w)
    assert bits[sr.playable_area.p0.y, sr.playable_area.p0.x] == 1 and bits[0, 0] == 0
    assert g.game_info(1) is gi  # cached for the episode


def test_observation_fields_and_orders() -> None:
    g = joined("MoveToBeacon.SC2Map")
    obs = g.observation(1, sc_pb.RequestObservation())
    o = obs.observation
    assert o.game_loop == 0 and o.player_common.player_id == 1 and o.player_common.food_used == 1
    assert o.score.score_type == 1 and o.score.score == 0
    assert len(o.raw_data.map_state.visibility.data) == 64 * 64
    marine = next(u for u in o.raw_data.units if u.unit_type == D.MARINE)
    beacon = next(u for u in o.raw_data.units if u.unit_type == D.BEACON_TERRAN)
    assert marine.alliance == 1 and marine.owner == 1 and marine.tag > 0 and marine.display_type == 1
    assert marine.health == marine.health_max == 45 and marine.radius == 0.375 and marine.cloak == 3
    assert beacon.alliance == 3 and beacon.owner == 16
    assert not marine.orders and not obs.player_result
    g.action(1, command(D.MOVE, [marine.tag], (beacon.pos.x, beacon.pos.y)))
    m2 = next(u for u in units(g, 1))
    assert m2.orders[0].ability_id == D.MOVE_MOVE  # specific id, like the real client
    assert m2.orders[0].target_world_space_pos.x == pytest.approx(beacon.pos.x, abs=1e-4)


def test_action_results_one_per_action() -> None:
    g = joined("DefeatRoaches.SC2Map")
    mine = [u.tag for u in units(g, 1)]
    roach = units(g, 4)[0].tag
    req = command(D.ATTACK_ATTACK, mine, target=roach)
    req.actions.extend(command(D.MOVE_MOVE, [roach], (30, 30)).actions)  # not ours
    req.actions.extend(command(D.EFFECT_STIM_MARINE, mine[:1]).actions)  # no stim research
    req.actions.add().action_chat.message = "gl hf"
    res = g.action(1, req)
    assert list(res.result) == [1, 87, 79, 1]
    assert all(u.orders[0].target_unit_tag == roach for u in units(g, 1))


def test_query_answers_every_entry() -> None:
    g = joined("MoveToBeacon.SC2Map")
    marine = units(g, 1)[0]
    q = query_pb2.RequestQuery()
    q.pathing.add(unit_tag=marine.tag, end_pos=common_pb2.Point2D(x=32, y=32))
    q.pathing.add(start_pos=common_pb2.Point2D(x=20, y=30), end_pos=common_pb2.Point2D(x=1, y=1))  # unpathable
    q.pathing.add(unit_tag=12345, end_pos=common_pb2.Point2D(x=30, y=30))
    q.placements.add(ability_id=321, target_pos=common_pb2.Point2D(x=30.5, y=30.5))
    q.placements.add(ability_id=321, target_pos=common_pb2.Point2D(x=2.5, y=2.5))
    q.placements.add(ability_id=321, target_pos=common_pb2.Point2D(x=marine.pos.x, y=marine.pos.y))
    q.abilities.add(unit_tag=marine.tag)
    r = g.query(1, q)
    expect = float(np.hypot(marine.pos.x - 32, marine.pos.y - 32))
    assert [p.distance for p in r.pathing] == [pytest.approx(expect, abs=1e-3), 0.0, 0.0]
    assert [p.result for p in r.placements] == [1, 44, 44]
    ab = r.abilities[0]
    assert ab.unit_tag == marine.tag and ab.unit_type_id == D.MARINE
    assert {a.ability_id for a in ab.abilities} == set(D.COMMON_UNIT_ABILITIES)


def test_debug_create_kill_value_and_end_game() -> None:
    g = joined("DefeatRoaches.SC2Map")
    req = sc_pb.RequestDebug()
    req.debug.add().create_unit.MergeFrom(debug_pb2.DebugCreateUnit(
        unit_type=D.ZERGLING, owner=2, pos=common_pb2.Point2D(x=30, y=30), quantity=3))
    g.debug(1, req)
    lings = [u for u in units(g, 4) if u.unit_type == D.ZERGLING]
    assert len(lings) == 3
    kill = sc_pb.RequestDebug()
    kill.debug.add().kill_unit.tag.extend([lings[0].tag])
    g.debug(1, kill)
    obs = g.observation(1, sc_pb.RequestObservation())
    assert list(obs.observation.raw_data.event.dead_units) == [lings[0].tag]
    assert obs.observation.score.score == 10  # a killed enemy unit counts as a kill
    assert not g.observation(1, sc_pb.RequestObservation()).observation.raw_data.event.dead_units  # once
    val = sc_pb.RequestDebug()
    val.debug.add().unit_value.MergeFrom(debug_pb2.DebugSetUnitValue(unit_value=2, value=7.0, unit_tag=lings[1].tag))  # type: ignore[arg-type]
    g.debug(1, val)
    assert next(u for u in units(g, 4) if u.tag == lings[1].tag).health == 7.0
    bad = sc_pb.RequestDebug()
    bad.debug.add().create_unit.MergeFrom(debug_pb2.DebugCreateUnit(unit_type=999, owner=1,
                                                                     pos=common_pb2.Point2D(x=1, y=1)))
    with pytest.raises(GameError):
        g.debug(1, bad)
    end = sc_pb.RequestDebug()
    end.debug.add().end_game.end_result = debug_pb2.DebugEndGame.DeclareVictory
    g.debug(1, end)
    assert g.ended
    res = g.observation(1, sc_pb.RequestObservation()).player_result
    assert [(r.player_id, r.result) for r in res] == [(1, 1)]


def test_leave_loses_and_opponent_wins() -> None:
    g = joined("Skirmish.SC2Map", {"type": 2, "race": 3, "difficulty": 1})
    g.leave(1)
    assert g.ended
    res = {r.player_id: r.result for r in g.observation(1, sc_pb.RequestObservation()).player_result}
    assert res == {1: 2, 2: 1}


def test_step_rejects_negative_and_stops_at_the_end() -> None:
    g = joined("MoveToBeacon.SC2Map")
    with pytest.raises(GameError):
        g.step(-1)
    g.step(10_000)
    assert g.ended and g.game_loop == 1920
    g.step(8)
    assert g.game_loop == 1920


def test_unknown_player_is_refused() -> None:
    g = joined("MoveToBeacon.SC2Map")
    with pytest.raises(GameError):
        g.observation(5, sc_pb.RequestObservation())


@pytest.mark.parametrize("map_name", ["DefeatZerglingsAndBanelings.SC2Map", "Battle100v100.SC2Map"])
def test_numpy_and_small_unit_encodings_are_identical(monkeypatch: pytest.MonkeyPatch, map_name: str) -> None:
    from sc2pool.engine import game as game_mod

    g = joined(map_name)
    mine = [u.tag for u in units(g, 1)]
    enemy = units(g, 4)[0].tag
    g.action(1, command(D.ATTACK_ATTACK, mine[:2] + mine[3:], (40, 32)))
    g.action(1, command(D.MOVE_MOVE, mine[:2], (20, 25), queue=True))
    g.action(1, command(D.ATTACK_ATTACK, mine[2:3], target=enemy))
    g.action(1, command(D.HOLDPOSITION, mine[-1:]))
    g.step(60)
    monkeypatch.setattr(game_mod, "SMALL", 10_000)
    small = g.observation_bytes(1)
    g._dead_cursor.clear()
    monkeypatch.setattr(game_mod, "SMALL", 0)
    monkeypatch.setattr(encode, "SMALL", 0)
    assert g.observation_bytes(1) == small
    parsed = sc_pb.ResponseObservation.FromString(small)
    us = parsed.observation.raw_data.units
    assert len(us) == len(g.world.u)
    orders = {u.tag: [(o.ability_id, o.HasField("target_world_space_pos"), o.target_unit_tag) for o in u.orders]
              for u in us if u.alliance == 1}
    assert orders[mine[-1]] == [(D.HOLDPOSITION_HOLD, False, 0)]
    assert any(len(o) == 2 for o in orders.values())  # queued move shown behind the current order
    assert any(o and o[0][0] == D.ATTACK_ATTACK and o[0][2] for o in orders.values())  # unit target
    assert any(o and o[0][0] == D.ATTACK_ATTACK and o[0][1] for o in orders.values())  # attack-move


def test_join_race_picks_the_skirmish_army() -> None:
    """burnysc2 puts a participant's race only in join_game: the army must follow it."""
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="Skirmish.SC2Map"), random_seed=3)
    req.player_setup.add(type=1)  # no race, like burnysc2
    req.player_setup.add(type=2, race=1, difficulty=2)  # type: ignore[arg-type]
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=3)) == 1  # type: ignore[arg-type]
    mine = {u.unit_type for u in units(g, 1)}
    assert mine == {D.ZEALOT, D.STALKER}
    assert {u.unit_type for u in units(g, 4)} == {D.MARINE, D.MARAUDER}
    info = g.game_info(1).player_info
    assert (info[0].race_requested, info[0].race_actual, info[1].race_actual) == (3, 3, 1)


def test_random_race_is_resolved_by_the_seed() -> None:
    def races(seed: int) -> int:
        g = create("Skirmish.SC2Map", {"type": 2, "race": 4, "difficulty": 3}, seed=seed)
        g.join(sc_pb.RequestJoinGame(race=1))  # type: ignore[arg-type]
        return g.game_info(1).player_info[1].race_actual

    assert races(5) == races(5) and races(5) in (1, 2, 3)
    assert len({races(s) for s in range(12)}) > 1


def test_non_finite_and_oversized_input_is_refused_cleanly() -> None:
    g = joined("MoveToBeacon.SC2Map")
    marine = units(g, 1)[0]
    nan = float("nan")
    res = g.action(1, command(D.MOVE_MOVE, [marine.tag], (nan, 30.0)))
    assert list(res.result) == [85]  # MustTargetWalkableLocation
    q = query_pb2.RequestQuery()
    q.pathing.add(start_pos=common_pb2.Point2D(x=nan, y=1), end_pos=common_pb2.Point2D(x=30, y=30))
    q.placements.add(ability_id=321, target_pos=common_pb2.Point2D(x=float("inf"), y=30))
    r = g.query(1, q)
    assert [p.distance for p in r.pathing] == [0.0] and [p.result for p in r.placements] == [44]
    for cu in (debug_pb2.DebugCreateUnit(unit_type=D.MARINE, owner=1, pos=common_pb2.Point2D(x=nan, y=1)),
               debug_pb2.DebugCreateUnit(unit_type=D.MARINE, owner=1, pos=common_pb2.Point2D(x=30, y=30),
                                         quantity=10**6),
               debug_pb2.DebugCreateUnit(unit_type=D.MARINE, owner=7, pos=common_pb2.Point2D(x=30, y=30))):
        req = sc_pb.RequestDebug()
        req.debug.add().create_unit.CopyFrom(cu)
        with pytest.raises(GameError):
            g.debug(1, req)
    val = sc_pb.RequestDebug()
    val.debug.add().unit_value.MergeFrom(debug_pb2.DebugSetUnitValue(unit_value=2, value=nan, unit_tag=marine.tag))  # type: ignore[arg-type]
    with pytest.raises(GameError):
        g.debug(1, val)
    g.step(8)
    assert len(units(g)) == 2 and all(math.isfinite(u.pos.x) for u in units(g))


def test_smart_follows_friends_and_abilities_of_foreign_units_are_empty() -> None:
    g = joined("DefeatZerglingsAndBanelings.SC2Map")
    a, b = [u.tag for u in units(g, 1)][:2]
    g.action(1, command(D.SMART, [a], target=b))
    order = next(u for u in units(g, 1) if u.tag == a).orders[0]
    assert (order.ability_id, order.target_unit_tag) == (D.MOVE_MOVE, b)
    bane = next(u for u in units(g, 4) if u.unit_type == D.BANELING)
    q = query_pb2.RequestQuery()
    q.abilities.add(unit_tag=bane.tag)
    r = g.query(1, q)
    assert r.abilities[0].unit_type_id == D.BANELING and not r.abilities[0].abilities


def test_two_participants_share_the_battle() -> None:
    g = create("Battle100v100.SC2Map", {"type": 1, "race": 1})
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 2  # type: ignore[arg-type]
    assert not g.scenario.computers  # player 2 is a bot, not the map's AI
    o2 = g.observation(2).observation
    assert o2.player_common.player_id == 2
    mine2 = [u for u in o2.raw_data.units if u.alliance == 1]
    assert len(mine2) == 100 and all(u.owner == 2 for u in mine2)
    assert len(g.game_info(2).start_raw.start_locations) == 1
    g.step(80)
    assert all(not u.orders for u in units(g, 1))  # nobody ordered anything, nobody in sight
