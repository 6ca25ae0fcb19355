"""A minimal in-process request dispatcher around :class:`sc2pool.engine.game.Game`, for engine tests.

The production dispatcher is ``sc2pool.engine.server``; this one only exists so that the game tests
can drive the Game with unmodified burnysc2 without sockets.  burnysc2's ``Protocol`` only needs an
object with ``send_bytes``/``receive_bytes``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game, GameError

BASE_BUILD = 94137
LAUNCHED, INIT_GAME, IN_GAME, ENDED, QUIT = 1, 2, 3, 5, 6


class Dispatcher:
    def __init__(self) -> None:
        self.game: Game | None = None
        self.status = LAUNCHED
        self.player_id = 0
        self.counts: dict[str, int] = {}

    def handle(self, req: sc_pb.Request) -> sc_pb.Response:
        resp = sc_pb.Response()
        if req.HasField("id"):
            resp.id = req.id
        kind = req.WhichOneof("request")
        self.counts[str(kind)] = self.counts.get(str(kind), 0) + 1
        try:
            getattr(self, "_" + str(kind))(req, resp)
        except GameError as e:
            resp.error.append(str(e))
        except AttributeError as e:
            resp.error.append(f"unsupported request {kind}: {e}")
        resp.status = self.status  # type: ignore[assignment]
        return resp

    def _ping(self, req: Any, resp: Any) -> None:
        resp.ping.game_version = "5.0.14.94137"
        resp.ping.data_version = "0"
        resp.ping.data_build = BASE_BUILD
        resp.ping.base_build = BASE_BUILD

    def _create_game(self, req: Any, resp: Any) -> None:
        try:
            self.game = Game.create(req.create_game)
        except GameError as e:
            resp.create_game.error = e.code or 1  # type: ignore[assignment]
            resp.create_game.error_details = str(e)
            return
        resp.create_game.SetInParent()
        self.status = INIT_GAME

    def _join_game(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        self.player_id = self.game.join(req.join_game)
        resp.join_game.player_id = self.player_id
        self.status = IN_GAME

    def _restart_game(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        self.game.restart()
        resp.restart_game.SetInParent()
        self.status = IN_GAME

    def _data(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        resp.data.CopyFrom(self.game.data(req.data))

    def _game_info(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        resp.game_info.CopyFrom(self.game.game_info(self.player_id))

    def _observation(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        resp.observation.CopyFrom(self.game.observation(self.player_id, req.observation))
        if self.game.ended:
            self.status = ENDED

    def _action(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        resp.action.CopyFrom(self.game.action(self.player_id, req.action))

    def _step(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        self.game.step(req.step.count)
        resp.step.simulation_loop = self.game.game_loop
        if self.game.ended:
            self.status = ENDED

    def _query(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        resp.query.CopyFrom(self.game.query(self.player_id, req.query))

    def _debug(self, req: Any, resp: Any) -> None:
        assert self.game is not None
        self.game.debug(self.player_id, req.debug)
        resp.debug.SetInParent()

    def _leave_game(self, req: Any, resp: Any) -> None:
        if self.game is not None:
            self.game.leave(self.player_id)
        resp.leave_game.SetInParent()
        self.status = LAUNCHED

    def _quit(self, req: Any, resp: Any) -> None:
        resp.quit.SetInParent()
        self.status = QUIT

    def _save_replay(self, req: Any, resp: Any) -> None:
        resp.save_replay.data = b""


class InProcessWS:
    """Looks like an aiohttp websocket to burnysc2's ``Protocol``."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.d = dispatcher
        self._out: asyncio.Queue[bytes] = asyncio.Queue()
        self.closed = False

    async def send_bytes(self, b: bytes) -> None:
        req = sc_pb.Request()
        req.ParseFromString(b)
        self._out.put_nowait(self.d.handle(req).SerializeToString())

    async def receive_bytes(self) -> bytes:
        return await self._out.get()

    async def close(self) -> None:
        self.closed = True


def play(map_name: str, bot: Any, opponent: Any = None, race: Any = None, game_step: int = 8,
         seed: int | None = 1) -> tuple[Any, Dispatcher]:
    """Play one game of ``bot`` (a BotAI) on ``map_name``; returns (burnysc2 Result, dispatcher)."""
    from pathlib import Path

    from sc2.client import Client
    from sc2.controller import Controller
    from sc2.data import Race
    from sc2.main import _play_game
    from sc2.player import Bot

    d = Dispatcher()
    ws = InProcessWS(d)

    async def run() -> Any:
        client = Client(ws)  # type: ignore[arg-type]
        ctrl = Controller(ws, None)  # type: ignore[arg-type]
        players = [Bot(race or Race.Terran, bot)]
        if opponent is not None:
            players.append(opponent)
        from sc2.maps import Map

        await ctrl.create_game(Map(Path(f"{map_name}.SC2Map")), players, realtime=False, random_seed=seed)
        client.game_step = game_step
        return await _play_game(players[0], client, realtime=False, portconfig=None, game_time_limit=None)

    return asyncio.run(run()), d
