"""Random but well-formed request sequences against the real engine: never a crash, never a hang.

Hypothesis drives the session through every request kind in any order (valid and wrong states,
random unit commands with existing and bogus tags, queries, debug commands). Invariants: every
reply parses and carries a status, no engine bug surfaces as "Internal engine error", and the
session still answers afterwards.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from s2clientprotocol import common_pb2, debug_pb2, query_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc

from sc2pool.engine.session import EngineSession

MAPS = ["mini_games/MoveToBeacon.SC2Map", "mini_games/DefeatRoaches.SC2Map", "mini_games/CollectMineralShards.SC2Map",
        "mini_games/DefeatZerglingsAndBanelings.SC2Map", "Skirmish.SC2Map", "NoSuchMap.SC2Map"]
ABILITIES = [16, 23, 3794, 3674, 4, 18, 17, 1, 0, 999999]  # move, attack, generic, stop, hold, patrol, bogus
coords = st.floats(min_value=-10, max_value=100, allow_nan=False)


def _point() -> st.SearchStrategy[common_pb2.Point2D]:
    return st.builds(lambda x, y: common_pb2.Point2D(x=x, y=y), coords, coords)


@st.composite
def requests(draw: st.DrawFn, tags: list[int]) -> sc.Request:
    kind = draw(st.sampled_from(["create", "join", "step", "obs", "info", "action", "query", "debug", "leave",
                                 "restart", "data", "ping"]))
    tag = st.sampled_from(tags + [0, 1, 2**40]) if tags else st.sampled_from([0, 1, 2**40])
    if kind == "create":
        setup = [sc.PlayerSetup(type=sc.Participant)]
        if draw(st.booleans()):
            setup.append(sc.PlayerSetup(type=sc.Computer,
                                        race=draw(st.sampled_from([common_pb2.Terran, common_pb2.Zerg, common_pb2.Protoss, common_pb2.Random])),
                                        difficulty=draw(st.sampled_from([sc.VeryEasy, sc.Easy, sc.Medium, sc.VeryHard]))))
        return sc.Request(create_game=sc.RequestCreateGame(local_map=sc.LocalMap(map_path=draw(st.sampled_from(MAPS))),
                                                           player_setup=setup, random_seed=draw(st.integers(0, 5))))
    if kind == "join":
        return sc.Request(join_game=sc.RequestJoinGame(race=common_pb2.Terran, options=sc.InterfaceOptions(raw=True, score=True)))
    if kind == "step":
        return sc.Request(step=sc.RequestStep(count=draw(st.integers(0, 200))))
    if kind == "obs":
        return sc.Request(observation=sc.RequestObservation())
    if kind == "info":
        return sc.Request(game_info=sc.RequestGameInfo())
    if kind == "data":
        return sc.Request(data=sc.RequestData(ability_id=True, unit_type_id=True))
    if kind == "ping":
        return sc.Request(ping=sc.RequestPing())
    if kind == "leave":
        return sc.Request(leave_game=sc.RequestLeaveGame())
    if kind == "restart":
        return sc.Request(restart_game=sc.RequestRestartGame())
    if kind == "action":
        cmds = []
        for _ in range(draw(st.integers(0, 3))):
            cmd = raw_pb2.ActionRawUnitCommand(ability_id=draw(st.sampled_from(ABILITIES)),
                                               unit_tags=draw(st.lists(tag, max_size=3)),
                                               queue_command=draw(st.booleans()))
            target = draw(st.sampled_from(["pos", "tag", "none"]))
            if target == "pos":
                cmd.target_world_space_pos.CopyFrom(draw(_point()))
            elif target == "tag":
                cmd.target_unit_tag = draw(tag)
            cmds.append(sc.Action(action_raw=raw_pb2.ActionRaw(unit_command=cmd)))
        return sc.Request(action=sc.RequestAction(actions=cmds))
    if kind == "query":
        return sc.Request(query=query_pb2.RequestQuery(
            pathing=[query_pb2.RequestQueryPathing(start_pos=draw(_point()), end_pos=draw(_point()))],
            abilities=[query_pb2.RequestQueryAvailableAbilities(unit_tag=draw(tag))],
            placements=[query_pb2.RequestQueryBuildingPlacement(ability_id=319, target_pos=draw(_point()))]))
    debug_kind = draw(st.sampled_from(["create", "kill", "end", "draw"]))
    if debug_kind == "create":
        dc = debug_pb2.DebugCommand(create_unit=debug_pb2.DebugCreateUnit(
            unit_type=draw(st.sampled_from([48, 110, 105, 9, 999999])), owner=draw(st.sampled_from([1, 2, 16])),
            pos=draw(_point()), quantity=draw(st.integers(0, 3))))
    elif debug_kind == "kill":
        dc = debug_pb2.DebugCommand(kill_unit=debug_pb2.DebugKillUnit(tag=draw(st.lists(tag, max_size=2))))
    elif debug_kind == "end":
        dc = debug_pb2.DebugCommand(end_game=debug_pb2.DebugEndGame(end_result=draw(st.sampled_from([debug_pb2.DebugEndGame.Surrender, debug_pb2.DebugEndGame.DeclareVictory]))))
    else:
        dc = debug_pb2.DebugCommand(draw=debug_pb2.DebugDraw(text=[debug_pb2.DebugText(text="x")]))
    return sc.Request(debug=sc.RequestDebug(debug=[dc]))


@pytest.mark.timeout(120)
@settings(max_examples=200, deadline=None, database=None)
@given(st.data())
def test_random_request_sequences_against_the_real_engine(data: st.DataObject):
    s = EngineSession()
    tags: list[int] = []
    seq: list[sc.Request] = []
    if data.draw(st.integers(0, 9)) < 8:  # mostly start inside a game, so in-game requests are exercised
        setup = [sc.PlayerSetup(type=sc.Participant)]
        if data.draw(st.booleans()):
            setup.append(sc.PlayerSetup(type=sc.Computer, race=common_pb2.Zerg, difficulty=sc.Easy))
        seq.append(sc.Request(create_game=sc.RequestCreateGame(
            local_map=sc.LocalMap(map_path=data.draw(st.sampled_from(MAPS[:5]))), player_setup=setup)))
        seq.append(sc.Request(join_game=sc.RequestJoinGame(race=common_pb2.Terran, options=sc.InterfaceOptions(raw=True))))
        seq.append(sc.Request(observation=sc.RequestObservation()))
    n = data.draw(st.integers(1, 25))
    for i in range(len(seq) + n):
        req = seq[i] if i < len(seq) else data.draw(requests(tags))
        resp = sc.Response.FromString(s.handle(req.SerializeToString()))
        assert resp.status in (1, 2, 3, 5), resp
        internal = [e for e in resp.error if e.startswith("Internal engine error")]
        assert not internal, f"{req.WhichOneof('request')}: {internal}"
        if resp.HasField("observation"):
            tags = [u.tag for u in resp.observation.observation.raw_data.units][:5]
    assert sc.Response.FromString(s.handle(sc.Request(ping=sc.RequestPing()).SerializeToString())).ping.base_build
