"""The SC2 API session and websocket server: state machine, error replies, robustness.

These use a stub game (tests/engine/stub_game.py) so they test the protocol layer alone.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from s2clientprotocol import common_pb2, debug_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc

sys.path.insert(0, str(Path(__file__).parent))  # sibling helper modules, with or without tests/engine/__init__.py

from stub_game import StubError, StubGame

from sc2pool.engine.server import EngineServer
from sc2pool.engine.session import (
    ENDED,
    IN_GAME,
    INIT_GAME,
    LAUNCHED,
    QUIT,
    DispatchStats,
    EngineSession,
    RoomRegistry,
)
from sc2pool.engine.transport import InProcessTransport, TransportClosedError

MAP = sc.LocalMap(map_path="mini_games/MoveToBeacon.SC2Map")
END_GAME = sc.RequestDebug(debug=[debug_pb2.DebugCommand(end_game=debug_pb2.DebugEndGame(end_result=debug_pb2.DebugEndGame.DeclareVictory))])


def new_session(**kw) -> EngineSession:
    return EngineSession(game_factory=StubGame.create, game_error=StubError, **kw)


def call(session: EngineSession, raw: bytes | None = None, **kw) -> sc.Response:
    data = raw if raw is not None else sc.Request(**kw).SerializeToString()
    resp = sc.Response()
    resp.ParseFromString(session.handle(data))
    assert resp.status != 0, "every response must carry a status"
    return resp


def start(session: EngineSession) -> None:
    assert call(session, create_game=sc.RequestCreateGame(local_map=MAP)).status == INIT_GAME
    r = call(session, join_game=sc.RequestJoinGame(race=common_pb2.Terran))
    assert r.status == IN_GAME and r.join_game.player_id == 1


def test_ping_identifies_as_sc2_94137():
    r = call(new_session(), ping=sc.RequestPing())
    assert r.status == LAUNCHED and not r.error
    assert r.ping.base_build == 94137 and r.ping.base_build >= 82457
    assert r.ping.game_version == "5.0.14.94137"
    assert r.ping.data_build == 94137 and r.ping.data_version


def test_full_lifecycle_status_machine():
    s = new_session()
    start(s)
    r = call(s, data=sc.RequestData(unit_type_id=True))
    assert r.data.units[0].name == "Marine"
    r = call(s, game_info=sc.RequestGameInfo())
    assert r.game_info.start_raw.map_size.x == 8
    r = call(s, observation=sc.RequestObservation())
    assert r.HasField("observation") and r.observation.observation.game_loop == 0
    r = call(s, action=sc.RequestAction(actions=[sc.Action(), sc.Action()]))
    assert list(r.action.result) == [1, 1] and r.status == IN_GAME
    r = call(s, step=sc.RequestStep(count=8))
    assert r.status == IN_GAME and r.step.simulation_loop == 8
    r = call(s, query=query_pb2.RequestQuery(pathing=[query_pb2.RequestQueryPathing()] * 3))
    assert len(r.query.pathing) == 3
    r = call(s, leave_game=sc.RequestLeaveGame())
    assert r.status == LAUNCHED and r.HasField("leave_game")
    r = call(s, quit=sc.RequestQuit())
    assert r.status == QUIT and r.HasField("quit") and s.quit_requested


def test_ended_only_set_by_step_or_observation():
    """facts pitfall 11: an action/debug reply must not say 'ended' before an observation did."""
    s = new_session()
    start(s)
    end = END_GAME
    r = call(s, debug=end)
    assert not r.error and r.status == IN_GAME
    r = call(s, action=sc.RequestAction(actions=[sc.Action()]))
    assert r.status == IN_GAME
    r = call(s, observation=sc.RequestObservation())
    assert r.status == ENDED and [p.player_id for p in r.observation.player_result] == [1]


def test_game_ends_on_step_then_game_over_errors():
    s = new_session()
    start(s)
    for _ in range(7):
        assert call(s, step=sc.RequestStep(count=8)).status == IN_GAME
    r = call(s, step=sc.RequestStep(count=8))
    assert r.status == ENDED and not r.error
    # burnysc2's ProtocolError.is_game_over_error matches exactly this string
    for kw in ({"step": sc.RequestStep(count=8)}, {"action": sc.RequestAction()}, {"debug": sc.RequestDebug()}):
        r = call(s, **kw)
        assert list(r.error) == ["Game has already ended"] and r.status == ENDED
    # observation and game_info still work after the end
    r = call(s, observation=sc.RequestObservation())
    assert r.observation.player_result[0].result == sc.Victory and not r.error
    assert not call(s, game_info=sc.RequestGameInfo()).error


@pytest.mark.parametrize(
    "kw",
    [
        {"observation": sc.RequestObservation()},
        {"action": sc.RequestAction()},
        {"step": sc.RequestStep(count=1)},
        {"game_info": sc.RequestGameInfo()},
        {"data": sc.RequestData()},
        {"query": query_pb2.RequestQuery()},
        {"debug": sc.RequestDebug()},
        {"join_game": sc.RequestJoinGame(race=common_pb2.Terran)},
        {"leave_game": sc.RequestLeaveGame()},
        {"restart_game": sc.RequestRestartGame()},
        {"save_replay": sc.RequestSaveReplay()},
    ],
)
def test_wrong_state_requests_get_error_and_status(kw):
    s = new_session()
    r = call(s, **kw)
    name = next(iter(kw))
    assert r.error and r.status == LAUNCHED
    assert r.HasField(name), "the requested field is present even in an error reply"
    # and the session keeps working
    start(s)


def test_action_after_leave_is_an_error_not_a_crash():
    """facts pitfall 1: a resigning bot flushes actions after leave_game."""
    s = new_session()
    start(s)
    assert call(s, leave_game=sc.RequestLeaveGame()).status == LAUNCHED
    r = call(s, action=sc.RequestAction(actions=[sc.Action()]))
    assert r.error and r.error[0].startswith("Not in a game") and r.status == LAUNCHED


def test_create_from_ended_and_from_in_game_abandons():
    s = new_session()
    start(s)
    old = s.game
    # an episode burnysc2 cut short (game_time_limit) is followed by create_game, no leave
    r = call(s, create_game=sc.RequestCreateGame(local_map=MAP))
    assert r.status == INIT_GAME and not r.error and s.game is not old
    assert getattr(old, "left", None) == [1]
    start_join = call(s, join_game=sc.RequestJoinGame(race=common_pb2.Terran))
    assert start_join.status == IN_GAME
    call(s, debug=END_GAME)
    assert call(s, observation=sc.RequestObservation()).status == ENDED
    # run_match(close_ws=False) creates the next game straight from 'ended'
    r = call(s, create_game=sc.RequestCreateGame(local_map=MAP))
    assert r.status == INIT_GAME and not r.error


def test_join_twice_refused():
    s = new_session()
    start(s)
    r = call(s, join_game=sc.RequestJoinGame(race=common_pb2.Terran))
    assert r.error and r.status == IN_GAME


def test_typed_create_and_join_errors():
    s = new_session()
    r = call(s, create_game=sc.RequestCreateGame(local_map=sc.LocalMap(map_path="Missing.SC2Map")))
    assert r.create_game.error == sc.ResponseCreateGame.InvalidMapPath
    assert "Missing" in r.create_game.error_details and r.status == LAUNCHED
    call(s, create_game=sc.RequestCreateGame(local_map=MAP))
    r = call(s, join_game=sc.RequestJoinGame(observed_player_id=1))
    assert r.join_game.error == sc.ResponseJoinGame.FeatureUnsupported and r.status == INIT_GAME


def test_engine_bug_becomes_error_reply():
    s = new_session()
    r = call(s, create_game=sc.RequestCreateGame(local_map=sc.LocalMap(map_path="Broken.SC2Map")))
    assert r.error and "RuntimeError" in r.error[0] and r.status == LAUNCHED
    start(s)


@pytest.mark.parametrize("raw", [b"\xff\xff\xff\xff", b"\x0a\x05ab", b"", sc.Request(id=3).SerializeToString(), b"\xba\x01\x00"])
def test_garbage_and_unknown_requests(raw):
    s = new_session()
    start(s)
    r = call(s, raw=raw)
    assert r.error and r.status == IN_GAME
    assert not call(s, observation=sc.RequestObservation()).error


def test_unsupported_request_kinds():
    s = new_session()
    for kw in ({"start_replay": sc.RequestStartReplay()}, {"replay_info": sc.RequestReplayInfo()}, {"obs_action": sc.RequestObserverAction()}):
        r = call(s, **kw)
        assert "not supported" in r.error[0] and r.status == LAUNCHED


def test_request_id_echoed_and_restart():
    s = new_session()
    start(s)
    r = call(s, step=sc.RequestStep(count=8), id=77)
    assert r.id == 77 and r.step.simulation_loop == 8
    r = call(s, restart_game=sc.RequestRestartGame())
    assert r.status == IN_GAME and not r.error
    assert call(s, observation=sc.RequestObservation()).observation.observation.game_loop == 0


def test_data_and_game_info_cached():
    # A factory of its own: the data cache is per process and game factory, so one that earlier
    # tests never used starts it empty.
    def factory(req: sc.RequestCreateGame) -> StubGame:
        return StubGame.create(req)

    everything = sc.RequestData(ability_id=True, unit_type_id=True, upgrade_id=True, buff_id=True, effect_id=True)
    answers = []
    for _ in range(2):
        s = EngineSession(game_factory=factory, game_error=StubError)
        start(s)
        for _ in range(3):
            call(s, game_info=sc.RequestGameInfo())
            answers.append(call(s, data=everything).data)
        assert s.game is not None
        calls = s.game.calls  # type: ignore[attr-defined]
        assert calls.get("game_info") == 1, "asked of the game once per game, then answered from the cache"
        if len(answers) == 3:
            assert calls.get("data") == 1, "asked of the first game once, then answered from the cache"
        else:
            assert calls.get("data") is None, "the data of the same factory is cached for the whole process"
    assert all(a == answers[0] for a in answers)


def test_available_maps_lists_scenarios():
    r = call(new_session(), available_maps=sc.RequestAvailableMaps())
    assert "mini_games/MoveToBeacon.SC2Map" in r.available_maps.local_map_paths


class _TickingClock:
    """``time`` for the session module whose ``perf_counter_ns`` moves 1 ms per reading, so the
    time recorded per request is known exactly."""

    def __init__(self) -> None:
        self.now = 0

    def perf_counter_ns(self) -> int:
        self.now += 1_000_000
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def test_stats_record_engine_time(monkeypatch: pytest.MonkeyPatch):
    import sc2pool.engine.session as session_module

    clock = _TickingClock()
    monkeypatch.setattr(session_module, "time", clock)
    stats = DispatchStats()
    s = new_session(stats=stats)
    start(s)
    call(s, raw=b"\xff")
    d = stats.as_dict()
    assert d["create_game"]["count"] == 1 and d["join_game"]["count"] == 1 and d["malformed"]["count"] == 1
    # each request timed from one clock reading before handling to one after: 1 ms on this clock
    assert {k: v["total_ms"] for k, v in d.items()} == {k: 1.0 * v["count"] for k, v in d.items()}
    assert sum(v["count"] for v in d.values()) * 2 == clock.now // 1_000_000, "two readings per request"


def test_inprocess_transport_semantics():
    async def go() -> None:
        t = InProcessTransport(new_session())
        await t.send_bytes(sc.Request(ping=sc.RequestPing()).SerializeToString())
        r = sc.Response.FromString(await t.receive_bytes())
        assert r.ping.base_build == 94137
        await t.send_bytes(sc.Request(quit=sc.RequestQuit()).SerializeToString())
        assert not t.closed  # the quit reply is still to be read
        assert sc.Response.FromString(await t.receive_bytes()).status == QUIT
        assert t.closed
        with pytest.raises(TypeError):  # burnysc2 maps TypeError to ConnectionAlreadyClosedError
            await t.receive_bytes()
        with pytest.raises(TransportClosedError):
            await t.send_bytes(b"")

    asyncio.run(go())


# ---------------------------------------------------------------- over a real websocket


async def _with_server(fn) -> None:
    server = EngineServer(game_factory=StubGame.create, game_error=StubError)
    port = await server.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as http:
            await fn(http, f"ws://127.0.0.1:{port}/sc2api")
    finally:
        await server.stop()


async def _rpc(ws, raw: bytes) -> sc.Response:
    await ws.send_bytes(raw)
    return sc.Response.FromString(await ws.receive_bytes(timeout=10))


@pytest.mark.timeout(30)
def test_ws_survives_garbage_text_and_wrong_states():
    async def fn(http, url):
        async with http.ws_connect(url) as ws:
            r = await _rpc(ws, b"\x00\x01garbage\xff")
            assert r.error and r.status == LAUNCHED
            await ws.send_str("hello")  # a text frame is not the protocol: error reply, socket stays
            r = sc.Response.FromString(await ws.receive_bytes(timeout=10))
            assert r.error and r.status == LAUNCHED
            r = await _rpc(ws, sc.Request(step=sc.RequestStep(count=1)).SerializeToString())
            assert r.error and r.status == LAUNCHED
            r = await _rpc(ws, sc.Request(ping=sc.RequestPing()).SerializeToString())
            assert r.ping.base_build == 94137 and not ws.closed

    asyncio.run(_with_server(fn))


@pytest.mark.timeout(30)
def test_ws_connections_are_independent_sessions_and_quit_closes_only_one():
    async def fn(http, url):
        async with http.ws_connect(url) as a, http.ws_connect(url) as b:
            r = await _rpc(a, sc.Request(create_game=sc.RequestCreateGame(local_map=MAP)).SerializeToString())
            assert r.status == INIT_GAME
            r = await _rpc(b, sc.Request(ping=sc.RequestPing()).SerializeToString())
            assert r.status == LAUNCHED
            r = await _rpc(b, sc.Request(quit=sc.RequestQuit()).SerializeToString())
            assert r.status == QUIT
            msg = await b.receive(timeout=10)
            assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            r = await _rpc(a, sc.Request(join_game=sc.RequestJoinGame(race=common_pb2.Terran)).SerializeToString())
            assert r.status == IN_GAME and r.join_game.player_id == 1

    asyncio.run(_with_server(fn))


@pytest.mark.timeout(30)
def test_ws_ladder_style_join_from_a_second_connection():
    """A manager creates the game on one connection, the bot joins on another (play_from_websocket(url))."""

    async def fn(http, url):
        async with http.ws_connect(url) as manager:
            r = await _rpc(manager, sc.Request(create_game=sc.RequestCreateGame(local_map=MAP)).SerializeToString())
            assert r.status == INIT_GAME
            async with http.ws_connect(url) as bot:
                r = await _rpc(bot, sc.Request(join_game=sc.RequestJoinGame(race=common_pb2.Terran)).SerializeToString())
                assert r.status == IN_GAME and r.join_game.player_id == 1
                r = await _rpc(bot, sc.Request(observation=sc.RequestObservation()).SerializeToString())
                assert r.HasField("observation") and not r.error
            r = await _rpc(manager, sc.Request(ping=sc.RequestPing()).SerializeToString())
            assert r.status == IN_GAME, "both connections see the same game"

    asyncio.run(_with_server(fn))


def test_realtime_game_advances_on_observation_and_refuses_step():
    s = new_session()
    call(s, create_game=sc.RequestCreateGame(local_map=MAP, realtime=True))
    call(s, join_game=sc.RequestJoinGame(race=common_pb2.Terran))
    r = call(s, observation=sc.RequestObservation(game_loop=16))
    assert r.observation.observation.game_loop >= 16
    assert 0.5 < s.reply_delay <= 16 / 22.4, "the reply is held until the clock reaches loop 16"
    r = call(s, step=sc.RequestStep(count=8))
    assert r.error and "realtime" in r.error[0] and r.status == IN_GAME
    call(s, observation=sc.RequestObservation(game_loop=10**9))
    assert s.reply_delay == 10.0, "waits are bounded"
    call(s, ping=sc.RequestPing())
    assert s.reply_delay == 0.0


def test_non_realtime_observation_ignores_game_loop():
    s = new_session()
    start(s)
    r = call(s, observation=sc.RequestObservation(game_loop=40))
    assert r.observation.observation.game_loop == 0


def test_join_without_game_is_refused_or_forwarded():
    req = sc.RequestJoinGame(race=common_pb2.Terran)
    req.server_ports.game_port = 5001
    s = new_session()
    r = call(s, join_game=req)
    assert r.error and "no game to join" in r.error[0] and r.status == LAUNCHED
    # the websocket server's sessions forward it to the host engine's game port instead
    s = EngineSession(game_factory=StubGame.create, game_error=StubError, allow_proxy=True)
    assert s.handle(sc.Request(join_game=req).SerializeToString()) == b"" and s.proxy_port == 5001


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.binary(max_size=64), min_size=1, max_size=8))
def test_fuzz_random_bytes_never_break_the_session(blobs):
    s = new_session()
    start(s)
    for blob in blobs:
        r = call(s, raw=blob)  # parses, and has a status
        assert r.status in (LAUNCHED, INIT_GAME, IN_GAME, ENDED, QUIT)
    if not s.quit_requested:
        assert call(s, ping=sc.RequestPing()).ping.base_build == 94137


@pytest.mark.parametrize("kind", [f.name for f in sc.Request.DESCRIPTOR.fields if f.name != "id"])
@pytest.mark.parametrize("in_game", [False, True])
def test_every_request_kind_gets_a_well_formed_reply(kind, in_game):
    s = new_session()
    if in_game:
        start(s)
    req = sc.Request()
    getattr(req, kind).SetInParent()  # the empty request of that kind
    r = call(s, raw=req.SerializeToString())
    assert r.HasField(kind), f"reply to {kind} lacks the {kind} field"
    if kind != "quit":
        assert not s.quit_requested
        assert call(s, ping=sc.RequestPing()).ping.base_build == 94137


# ---------------------------------------------------------------- several players (bot vs bot)

TWO_PLAYERS = sc.RequestCreateGame(local_map=MAP, player_setup=[sc.PlayerSetup(type=sc.Participant)] * 2)


async def _send(s: EngineSession, **kw) -> sc.Response:
    out = s.handle(sc.Request(**kw).SerializeToString())
    if s.pending is not None:
        out = await s.take_pending()
    return sc.Response.FromString(out)


@pytest.mark.timeout(30)
def test_lockstep_join_and_steps(monkeypatch: pytest.MonkeyPatch):
    import sc2pool.engine.session as session_mod

    monkeypatch.setattr(session_mod, "STEP_WAIT_TIMEOUT", 5.0)  # a bug fails fast instead of waiting 120 s

    async def go() -> None:
        reg = RoomRegistry()
        a, b = (EngineSession(game_factory=StubGame.create, game_error=StubError, registry=reg) for _ in range(2))
        assert (await _send(a, create_game=TWO_PLAYERS)).status == INIT_GAME
        join_a = asyncio.ensure_future(_send(a, join_game=sc.RequestJoinGame(race=common_pb2.Terran)))
        await asyncio.sleep(0)
        assert not join_a.done(), "join_game returns once every player has joined"
        rb = await _send(b, join_game=sc.RequestJoinGame(race=common_pb2.Zerg))
        ra = await join_a
        assert (ra.join_game.player_id, rb.join_game.player_id) == (1, 2) and ra.status == rb.status == IN_GAME
        step_a = asyncio.ensure_future(_send(a, step=sc.RequestStep(count=8)))
        await asyncio.sleep(0)
        assert not step_a.done(), "a step waits for the other player"
        r = await _send(b, step=sc.RequestStep(count=4))
        assert r.step.simulation_loop == 4 and not step_a.done()
        r = await _send(b, step=sc.RequestStep(count=4))
        assert r.step.simulation_loop == 8 and (await step_a).step.simulation_loop == 8
        # a player who leaves no longer holds the other back
        step_a = asyncio.ensure_future(_send(a, step=sc.RequestStep(count=8)))
        await asyncio.sleep(0)
        assert (await _send(b, leave_game=sc.RequestLeaveGame())).status == LAUNCHED
        assert (await step_a).step.simulation_loop == 16
        assert a.game is not None and getattr(a.game, "left", None) == [2]

    asyncio.run(go())


def test_join_times_out_without_the_other_player(monkeypatch: pytest.MonkeyPatch):
    import sc2pool.engine.session as session_mod

    monkeypatch.setattr(session_mod, "STEP_WAIT_TIMEOUT", 0.05)

    async def go() -> None:
        s = new_session()
        await _send(s, create_game=TWO_PLAYERS)
        r = await _send(s, join_game=sc.RequestJoinGame(race=common_pb2.Terran))
        assert r.error and "timed out" in r.error[0] and r.status == LAUNCHED
        assert (await _send(s, ping=sc.RequestPing())).ping.base_build == 94137

    asyncio.run(go())


def test_single_player_games_never_wait():
    s = new_session()
    start(s)
    assert s.handle(sc.Request(step=sc.RequestStep(count=8)).SerializeToString()) and s.pending is None


@pytest.mark.timeout(30)
def test_concurrent_bot_vs_bot_setups_pair_by_server_ports(monkeypatch: pytest.MonkeyPatch):
    import sc2pool.engine.session as session_mod

    monkeypatch.setattr(session_mod, "STEP_WAIT_TIMEOUT", 5.0)

    async def go() -> None:
        reg = RoomRegistry()
        a1, a2, b1, b2 = (EngineSession(game_factory=StubGame.create, game_error=StubError, registry=reg) for _ in range(4))

        def join(port: int) -> sc.RequestJoinGame:
            req = sc.RequestJoinGame(race=common_pb2.Terran)
            req.server_ports.game_port = port
            return req

        await _send(a1, create_game=TWO_PLAYERS)
        await _send(b1, create_game=TWO_PLAYERS)  # the newest open game
        ja1 = asyncio.ensure_future(_send(a1, join_game=join(100)))
        await asyncio.sleep(0)
        ja2 = asyncio.ensure_future(_send(a2, join_game=join(100)))  # must pair with a1, not b1
        jb2 = asyncio.ensure_future(_send(b2, join_game=join(200)))
        jb1 = asyncio.ensure_future(_send(b1, join_game=join(200)))
        results = await asyncio.gather(ja1, ja2, jb1, jb2)
        assert all(r.status == IN_GAME and not r.error for r in results)
        assert a1.room is a2.room and b1.room is b2.room and a1.room is not b1.room

    asyncio.run(go())
