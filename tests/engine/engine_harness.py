"""Helpers for engine tests and benchmarks: run unmodified burnysc2 against the engine.

* :func:`play` runs GameMatches through ``sc2.main.run_match(..., close_ws=False)`` on ONE
  connection (in-process transport or a websocket), i.e. many episodes without relaunching.
* :class:`ServeProcess` starts ``sc2pool engine serve`` in a subprocess and always kills it.
  Its :meth:`ServeProcess.session` lists the live processes of the server's session (found by
  session id, whatever their command line), for the no-leftover checks.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp
import portpicker
import psutil

MINI = "mini_games/{}.SC2Map"


def quiet_loguru(level: str = "WARNING") -> None:
    """``import sc2.main`` resets loguru to stdout at INFO; tests and benchmarks want quiet."""
    import sc2.main  # noqa: F401  (the import itself reconfigures loguru)
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level=level)


def scenario_map(name: str) -> Any:
    """A burnysc2 Map for a scenario, by relative path: needs no SC2PATH."""
    from sc2.maps import Map

    mini = ("MoveToBeacon", "CollectMineralShards", "DefeatRoaches", "DefeatZerglingsAndBanelings")
    return Map(Path(MINI.format(name) if name in mini else f"{name}.SC2Map"))


async def play(ws: Any, matches: Sequence[Any]) -> list[Any]:
    """Play ``matches`` (sc2.main.GameMatch) one after another on one connection; results per match."""
    from sc2.controller import Controller
    from sc2.main import run_match

    controller = Controller(ws, None)  # type: ignore[arg-type]
    results = []
    for match in matches:
        res = await run_match([controller], match, close_ws=False)
        results.append(res[match.players[0]])
    return results


def session_processes(sid: int) -> list[psutil.Process]:
    """Live (non-zombie) processes of session ``sid`` (a process started with
    ``start_new_session=True`` leads the session named by its pid), whatever their command line."""
    found = []
    for p in psutil.process_iter():
        try:
            if os.getsid(p.pid) == sid and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except (psutil.Error, OSError):
            continue
    return found


class ServeProcess:
    """``python -m sc2pool.engine`` style server in a subprocess (``sc2pool engine serve``)."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.port = portpicker.pick_unused_port()
        self.url = f"ws://127.0.0.1:{self.port}/sc2api"
        cmd = [sys.executable, "-c", "from sc2pool.cli import main; main()", "engine", "serve", "--port", str(self.port)]
        self.proc = subprocess.Popen(
            cmd, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, start_new_session=True
        )

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)

    def session(self) -> list[psutil.Process]:
        """Live (non-zombie) processes in the server's session: the server itself while it runs,
        and anything it started that is still there."""
        return session_processes(self.proc.pid)

    async def connect(self, http: aiohttp.ClientSession, timeout: float = 30.0) -> aiohttp.ClientWebSocketResponse:
        deadline = time.monotonic() + timeout
        while True:
            try:
                return await http.ws_connect(self.url, max_msg_size=0)
            except aiohttp.ClientConnectorError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise
                await asyncio.sleep(0.05)


def play_bot(
    map_name: str, bot: Any, opponent: Any = None, race: Any = None, game_step: int = 8, seed: int | None = 1
) -> tuple[Any, Any]:
    """Play one game of ``bot`` (a BotAI) on ``map_name`` through the production engine session
    behind the in-process transport (no sockets); returns ``(burnysc2 Result, DispatchStats)``,
    whose ``count`` says how many requests of each kind the engine answered."""
    from sc2.client import Client
    from sc2.controller import Controller
    from sc2.data import Race
    from sc2.main import _play_game
    from sc2.player import Bot

    from sc2pool.engine.session import DispatchStats
    from sc2pool.engine.transport import connect_inprocess

    stats = DispatchStats()
    ws = connect_inprocess(stats=stats)

    async def run() -> Any:
        client = Client(ws)  # type: ignore[arg-type]
        ctrl = Controller(ws, None)  # type: ignore[arg-type]
        players = [Bot(race or Race.Terran, bot)]
        if opponent is not None:
            players.append(opponent)
        await ctrl.create_game(scenario_map(map_name), players, realtime=False, random_seed=seed)
        client.game_step = game_step
        return await _play_game(players[0], client, realtime=False, portconfig=None, game_time_limit=None)

    return asyncio.run(run()), stats
