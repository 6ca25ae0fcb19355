"""A user-written task in one file (the README's example): walk the marine to the beacon's
quadrant. Referred to as ``"sc2_user_task:BeaconQuadrant"`` - no sc2pool internals touched."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from workers.sc2.tasks import GameSetup, MapFrame, Task
from workers.sc2.tasks.melee import ACTIONS, Melee


class BeaconQuadrant(Task):
    setup = GameSetup(map_name="mini_games/MoveToBeacon.SC2Map", game_step=16)

    @property
    def observation_space(self) -> gym.Space[Any]:
        return gym.spaces.Box(-1.0, 1.0, (4,), np.float32)

    @property
    def action_space(self) -> gym.Space[Any]:
        return gym.spaces.Discrete(4)  # move to the NE, NW, SW or SE corner region

    def encode(self, bot: Any) -> np.ndarray:
        frame = MapFrame(bot)
        marine = bot.units.first.position
        beacon = [u for u in bot.all_units if u.alliance == 3][0].position
        return np.array([*frame.norm(marine.x, marine.y), *frame.norm(beacon.x, beacon.y)], np.float32)

    def decode(self, bot: Any, action: Any) -> None:
        frame = MapFrame(bot)
        sx, sy = [(1, 1), (-1, 1), (-1, -1), (1, -1)][int(action)]
        cx, cy = frame.x0 + frame.w / 2, frame.y0 + frame.h / 2
        bot.units.first.move(frame.point(cx + sx * frame.w / 4, cy + sy * frame.h / 4))


class FlakyBeacon(BeaconQuadrant):
    """Raises in ``encode`` while ``fail`` is set (to test how task bugs are reported)."""

    fail = False

    def encode(self, bot: Any) -> np.ndarray:
        if self.fail:
            raise ZeroDivisionError("flaky encoder")
        return super().encode(bot)


class SurrenderingMelee(Melee):
    """The Melee task whose last action (``scout``) surrenders instead (a debug ``end_game``), so
    a self-play test can end a game with a result at the step it chooses."""

    SURRENDER = len(ACTIONS) - 1

    async def decode(self, bot: Any, action: Any) -> None:
        if int(action) == self.SURRENDER:
            from s2clientprotocol import debug_pb2
            from s2clientprotocol import sc2api_pb2 as sc_pb

            end = debug_pb2.DebugEndGame(end_result=debug_pb2.DebugEndGame.Surrender)
            await bot.client._execute(debug=sc_pb.RequestDebug(debug=[debug_pb2.DebugCommand(end_game=end)]))
            return
        await super().decode(bot, action)
