"""Unmodified burnysc2 against the engine on persistent connections (issue 3, item 5).

Many episodes go through ``sc2.main.run_match(..., close_ws=False)`` on ONE connection: the
in-process transport (fast, most cases) and the websocket of ``sc2pool engine serve`` in a
subprocess; plus ``play_from_websocket`` with a URL (ladder style). Every test that starts a process
checks that none is left.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # sibling helper modules, with or without tests/engine/__init__.py

from conformance_bots import ApiProbeBot, BeaconBot, EndGameBot, FightBot, IdleBot, ResignBot, ShardBot
from engine_harness import ServeProcess, play, quiet_loguru, scenario_map
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.session import DispatchStats
from sc2pool.engine.transport import connect_inprocess

quiet_loguru("ERROR")

from sc2.controller import Controller  # noqa: E402
from sc2.data import Difficulty, Race, Result  # noqa: E402
from sc2.main import GameMatch, play_from_websocket  # noqa: E402
from sc2.player import Bot, Computer  # noqa: E402


def match(scenario: str, bot: Any, *opponent: Any, **kw: Any) -> GameMatch:
    return GameMatch(scenario_map(scenario), [Bot(Race.Terran, bot), *opponent], **kw)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.timeout(60)
def test_move_to_beacon_full_episode_inprocess():
    bot = BeaconBot()
    [result] = run(play(connect_inprocess(), [match("MoveToBeacon", bot)]))
    assert isinstance(result, Result) and result in (Result.Victory, Result.Defeat, Result.Tie)
    log = bot.log
    assert log["result"] == result, "on_end got the same result"
    # pysc2's 120 s limit is in normal-speed game seconds: 1920 loops, 240 agent steps;
    # burnysc2's self.time counts 22.4 loops per second.
    assert 1920 - 8 <= log["game_loop"] <= 1920, log["game_loop"]
    assert log["steps"] >= 238, "the episode ran to the scenario's time limit"
    assert abs(log["time"] - log["game_loop"] / 22.4) < 1e-9
    assert log["scores"][-1] >= 1, "walking to the beacon scores"
    assert log["map_size"][0] > 0 and log["map_name"]


@pytest.mark.timeout(60)
def test_many_episodes_one_connection_mixed_results():
    """Victory, Defeat (surrender and resign) and Tie on one connection, states reset between."""
    bots = [
        EndGameBot(at=2, victory=True),
        EndGameBot(at=2, victory=False),
        ResignBot(at=2),
        IdleBot(),
        EndGameBot(at=1, victory=True),
    ]
    matches = [match("MoveToBeacon", b) for b in bots]
    matches[3] = match("MoveToBeacon", bots[3], game_time_limit=2)  # burnysc2's own Tie
    results = run(play(connect_inprocess(), matches))
    assert results == [Result.Victory, Result.Defeat, Result.Defeat, Result.Tie, Result.Victory]
    assert [b.log["result"] for b in bots] == [Result.Victory, Result.Defeat, Result.Defeat, Result.Tie, Result.Victory]
    assert bots[0].log["steps"] == 3 and bots[4].log["steps"] == 2


@pytest.mark.timeout(90)
def test_defeat_roaches_fight_reports_deaths_and_score():
    bot = FightBot()
    [result] = run(play(connect_inprocess(), [match("DefeatRoaches", bot)]))
    assert result in (Result.Victory, Result.Defeat, Result.Tie)
    assert bot.log["destroyed"], "on_unit_destroyed fired"
    assert len(set(bot.log["destroyed"])) == len(bot.log["destroyed"]), "each death reported once"
    assert any(s != 0 for s in bot.log["scores"]), "score moves with kills and losses"


@pytest.mark.timeout(90)
@pytest.mark.parametrize("race", [Race.Zerg, Race.Terran, Race.Protoss])
def test_skirmish_against_computer(race):
    bot = FightBot()
    stats = DispatchStats()
    [result] = run(play(connect_inprocess(stats=stats), [match("Skirmish", bot, Computer(race, Difficulty.Easy))]))
    assert result in (Result.Victory, Result.Defeat, Result.Tie)
    assert bot.log["result"] == result
    assert bot.log["steps"] > 5
    assert stats.count.get("action", 0) > 0


@pytest.mark.timeout(60)
def test_queries_and_debug_commands():
    bot = ApiProbeBot()
    [result] = run(play(connect_inprocess(), [match("MoveToBeacon", bot)]))
    log = bot.log
    assert result == Result.Defeat  # debug_leave = surrender
    assert log["pathing"] is not None and log["pathing"] > 0
    assert len(log["pathings"]) == 2 and all(d > 0 for d in log["pathings"])
    assert len(log["placement"]) == 2 and all(isinstance(x, bool) for x in log["placement"])
    assert len(log["abilities"]) == 1
    assert log["units_after_create"] == log["units_before"] + 2
    assert log["units_after_kill"] == log["units_after_create"] - 1
    assert log["killed_tag"] in log["destroyed"]


@pytest.mark.timeout(120)
def test_serve_persistent_ws_many_episodes_and_ladder_style():
    """`sc2pool engine serve`: run_match on one ws across episodes, then play_from_websocket(url)."""
    with ServeProcess() as server:

        async def go() -> list[Any]:
            async with aiohttp.ClientSession() as http:
                ws = await server.connect(http)
                bots = [EndGameBot(at=1), BeaconBot(), EndGameBot(at=1, victory=False)]
                ms = [match("MoveToBeacon", bots[0]), match("MoveToBeacon", bots[1], game_time_limit=3),
                      match("Skirmish", bots[2], Computer(Race.Zerg, Difficulty.Easy))]
                results = await play(ws, ms)
                assert not ws.closed
                # ladder style: the manager creates the game, the bot joins on its own connection
                manager = Controller(ws, None)  # type: ignore[arg-type]
                await manager._execute(leave_game=sc_pb.RequestLeaveGame())
                await manager.create_game(scenario_map("MoveToBeacon"), [Bot(Race.Terran, IdleBot())], realtime=False)
                ladder_bot = EndGameBot(at=2)
                res = await play_from_websocket(server.url, Bot(Race.Terran, ladder_bot), realtime=False, portconfig=None)  # type: ignore[arg-type]
                results.append(res)
                await ws.close()
                return results

        results = run(go())
        assert results == [Result.Victory, Result.Tie, Result.Defeat, Result.Victory]
        assert server.proc.poll() is None, "the shared server keeps running"
        assert [p.pid for p in server.session()] == [server.proc.pid], "serve plays its games in its own process"
    assert not server.session(), "the server's session outlived close()"


@pytest.mark.timeout(90)
def test_other_minigames_full_episodes():
    shards, banes = ShardBot(), FightBot()
    results = run(play(connect_inprocess(), [match("CollectMineralShards", shards),
                                             match("DefeatZerglingsAndBanelings", banes)]))
    assert all(r in (Result.Victory, Result.Defeat, Result.Tie) for r in results)
    assert shards.log["scores"][-1] >= 5, "walking to shards collects them"
    assert banes.log["destroyed"], "the fight killed something"


@pytest.mark.timeout(60)
def test_seeded_episodes_are_reproducible_through_burnysc2():
    def episode(seed: int) -> dict[str, Any]:
        bot = FightBot()
        run(play(connect_inprocess(), [match("DefeatRoaches", bot, random_seed=seed)]))
        return {k: bot.log[k] for k in ("scores", "destroyed", "final_loop", "result")}

    a, b = episode(7), episode(7)
    assert a == b


@pytest.mark.timeout(60)
def test_game_info_is_consistent_for_bots():
    class InfoBot(IdleBot):
        async def on_start(self) -> None:
            await super().on_start()
            gi = self.game_info
            area = gi.playable_area
            self.log["area"] = (area.x, area.y, area.width, area.height)
            self.log["center_pathable"] = bool(self.in_pathing_grid(gi.map_center))
            self.log["start_locations"] = list(self.enemy_start_locations)
            self.log["own_start"] = self.start_location
            self.log["races"] = dict(gi.player_races)
            await self.client.debug_leave()

    bot = InfoBot()
    run(play(connect_inprocess(), [match("Skirmish", bot, Computer(Race.Zerg, Difficulty.Easy))]))
    x, y, w, h = bot.log["area"]
    assert w > 0 and h > 0 and x >= 0 and y >= 0
    assert bot.log["center_pathable"]
    assert len(bot.log["start_locations"]) == 1 and bot.log["start_locations"][0] != bot.log["own_start"]
    assert set(bot.log["races"]) == {1, 2}


@pytest.mark.timeout(120)
def test_serve_runs_concurrent_independent_games_and_survives_disconnects():
    with ServeProcess() as server:

        async def go() -> list[Any]:
            async with aiohttp.ClientSession() as http:
                # a client that vanishes mid-game must not disturb the server
                dropped = await server.connect(http)
                await dropped.send_bytes(sc_pb.Request(create_game=sc_pb.RequestCreateGame(
                    local_map=sc_pb.LocalMap(map_path="mini_games/DefeatRoaches.SC2Map"),
                    player_setup=[sc_pb.PlayerSetup(type=sc_pb.Participant)])).SerializeToString())
                await dropped.receive_bytes()
                await dropped.close()
                a, b = await server.connect(http), await server.connect(http)
                bots_a = [EndGameBot(at=3), FightBot()]
                bots_b = [EndGameBot(at=5, victory=False), BeaconBot()]
                ra, rb = await asyncio.gather(
                    play(a, [match("MoveToBeacon", bots_a[0]), match("DefeatRoaches", bots_a[1])]),
                    play(b, [match("MoveToBeacon", bots_b[0]), match("MoveToBeacon", bots_b[1], game_time_limit=4)]),
                )
                await a.close()
                await b.close()
                return [ra, rb, bots_a, bots_b]

        ra, rb, bots_a, bots_b = run(go())
        assert ra[0] == Result.Victory and rb[0] == Result.Defeat and rb[1] == Result.Tie
        assert ra[1] in (Result.Victory, Result.Defeat, Result.Tie)
        assert bots_a[0].log["steps"] == 4 and bots_b[0].log["steps"] == 6
        assert server.proc.poll() is None
        assert [p.pid for p in server.session()] == [server.proc.pid], "serve plays its games in its own process"
    assert not server.session(), "the server's session outlived close()"


@pytest.mark.timeout(60)
def test_realtime_game_and_save_replay(tmp_path):
    """realtime=True (no step requests; the engine advances on observation) and save_replay_as."""

    class LoopBot(EndGameBot):
        async def act(self, iteration: int) -> None:
            self.log.setdefault("loops", []).append(self.state.game_loop)
            await super().act(iteration)

    bot = LoopBot(at=5)
    bot.game_step_size = 4
    replay = tmp_path / "episode.SC2Replay"
    ws = connect_inprocess()

    async def go() -> Any:
        await Controller(ws, None).create_game(scenario_map("MoveToBeacon"), [Bot(Race.Terran, bot)], realtime=True)  # type: ignore[arg-type]
        return await play_from_websocket(ws, Bot(Race.Terran, bot), realtime=True, portconfig=None,  # type: ignore[arg-type]
                                         save_replay_as=str(replay), should_close=False)

    t0 = time.perf_counter()
    assert run(go()) == Result.Victory
    wall = time.perf_counter() - t0
    loops = bot.log["loops"]
    assert len(loops) == 6 and all(b - a >= 4 for a, b in zip(loops, loops[1:], strict=False)), loops
    assert wall >= (loops[-1] - 4) / 22.4, "the game is paced by the wall clock (22.4 loops/s)"
    assert replay.exists()


async def _bot_vs_bot(ws1: Any, ws2: Any, pairs: list[tuple[Any, Any]], scenario: str = "Skirmish") -> list[list[Any]]:
    from sc2.main import run_match

    controllers = [Controller(ws1, None), Controller(ws2, None)]  # type: ignore[arg-type]
    out = []
    for a, b in pairs:
        m = GameMatch(scenario_map(scenario), [Bot(Race.Terran, a), Bot(Race.Zerg, b)])
        res = await run_match(controllers, m, close_ws=False)
        out.append([res[p] for p in m.players])
    return out


@pytest.mark.timeout(90)
def test_bot_vs_bot_inprocess_lockstep_and_resignation():
    """Two bots in one process through two transports sharing a registry: lockstep, results, resign."""
    from sc2pool.engine.session import RoomRegistry

    reg = RoomRegistry()
    t1, t2 = connect_inprocess(registry=reg), connect_inprocess(registry=reg)
    fights = (FightBot(), FightBot())
    resign = (ResignBot(at=4), FightBot())
    slow = (EndGameBot(at=6, victory=True), IdleBot())
    slow[1].game_step_size = 2  # different step sizes still advance in lockstep
    results = run(_bot_vs_bot(t1, t2, [fights, resign, slow]))
    assert sorted(results[0], key=str) in ([Result.Victory, Result.Defeat], [Result.Defeat, Result.Victory],
                                           [Result.Tie, Result.Tie])
    assert [fights[0].log["result"], fights[1].log["result"]] == results[0]
    assert fights[0].log["final_loop"] == fights[1].log["final_loop"], "both players saw the same end"
    assert fights[0].log["destroyed"] and fights[1].log["destroyed"]
    assert results[1] == [Result.Defeat, Result.Victory], "a resigning player loses, the other wins"
    assert results[2] == [Result.Victory, Result.Defeat]
    loops = slow[1].log["game_loop"]
    assert loops >= 6 * 8 - 8, "the game advanced by the host's 8-loop steps"


@pytest.mark.timeout(120)
def test_bot_vs_bot_on_one_serve_server():
    with ServeProcess() as server:

        async def go() -> list[Any]:
            async with aiohttp.ClientSession() as http:
                a, b = await server.connect(http), await server.connect(http)
                res = await _bot_vs_bot(a, b, [(FightBot(), FightBot()), (EndGameBot(at=3, victory=False), IdleBot())])
                await a.close()
                await b.close()
                return res

        results = run(go())
        assert sorted(map(str, results[0])) in (sorted(["Result.Victory", "Result.Defeat"]), ["Result.Tie", "Result.Tie"])
        assert results[1] == [Result.Defeat, Result.Victory]
        assert [p.pid for p in server.session()] == [server.proc.pid], "serve plays its games in its own process"
    assert not server.session(), "the server's session outlived close()"
