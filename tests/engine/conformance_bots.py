"""Ordinary burnysc2 bots used by the engine's conformance tests and benchmark.

They use only the public BotAI API a bot author would (``self.units``, ``self.enemy_units``,
``closest_to``, ``distance_to``, ``attack``, ``move``, ``self.time``, ``self.state.score``,
``self.game_info``, ``on_unit_destroyed``, ``on_end``, ``self.client`` queries and debug calls) and
record what they saw in ``self.log`` so tests can assert on it.
"""

from __future__ import annotations

import time
from typing import Any

from s2clientprotocol import debug_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb
from sc2.bot_ai import BotAI
from sc2.data import Result
from sc2.ids.ability_id import AbilityId
from sc2.ids.unit_typeid import UnitTypeId
from sc2.position import Point2
from sc2.unit import Unit


class RecordingBot(BotAI):
    """Base: game_step 8, per-step timing, records the episode."""

    def __init__(self, game_step: int = 8) -> None:
        super().__init__()
        self.game_step_size = game_step
        self.log: dict[str, Any] = {"steps": 0, "destroyed": [], "result": None, "scores": []}
        self.step_times: list[float] = []
        self._t_last: float | None = None

    async def on_start(self) -> None:
        self.client.game_step = self.game_step_size
        gi = self.game_info
        self.log["map_size"] = (gi.map_size.width, gi.map_size.height)
        self.log["map_name"] = gi.map_name
        self.log["player_id"] = self.player_id
        self.log["start_time"] = time.perf_counter()

    async def on_step(self, iteration: int) -> None:
        now = time.perf_counter()
        if self._t_last is not None:
            self.step_times.append(now - self._t_last)
        self._t_last = now
        self.log["steps"] += 1
        self.log["time"] = self.time
        self.log["game_loop"] = self.state.game_loop
        self.log["scores"].append(self.state.score.score)
        await self.act(iteration)

    async def act(self, iteration: int) -> None:
        pass

    async def on_unit_destroyed(self, unit_tag: int) -> None:
        self.log["destroyed"].append(unit_tag)

    async def on_end(self, game_result: Result) -> None:
        self.log["end_time"] = time.perf_counter()
        self.log["result"] = game_result
        self.log["final_loop"] = self.state.game_loop if self.state is not None else None


class BeaconBot(RecordingBot):
    """MoveToBeacon: walk the marine to the beacon (a neutral unit)."""

    async def act(self, iteration: int) -> None:
        marines = self.units(UnitTypeId.MARINE)
        beacons = self.all_units.filter(lambda u: u.alliance == 3)  # Alliance.Neutral
        if not marines or not beacons:
            return
        marine = marines.first
        beacon = beacons.closest_to(marine)
        if marine.distance_to(beacon) > 0.5:
            marine.move(beacon.position)


class ShardBot(RecordingBot):
    """CollectMineralShards: each marine walks to its nearest shard."""

    async def act(self, iteration: int) -> None:
        shards = self.all_units.filter(lambda u: u.alliance == 3)
        for marine in self.units:
            if shards:
                marine.move(shards.closest_to(marine).position)


class FightBot(RecordingBot):
    """Attack the closest enemy; attack-move to the enemy start when none is visible."""

    async def act(self, iteration: int) -> None:
        for unit in self.units.filter(lambda u: u.can_attack):
            if self.enemy_units:
                target = self.enemy_units.closest_to(unit)
                unit.attack(target)
            elif self.enemy_start_locations:
                unit.attack(self.enemy_start_locations[0])


class IdleBot(RecordingBot):
    """Does nothing (the Computer or the timer decides)."""


class ResignBot(RecordingBot):
    """Leaves the game at ``at`` iterations and then issues an order anyway (facts pitfall 1)."""

    def __init__(self, at: int = 3) -> None:
        super().__init__()
        self.at = at

    async def act(self, iteration: int) -> None:
        if iteration == self.at:
            await self.client.leave()
            for unit in self.units:  # flushed after leave_game: must not kill the connection
                unit.move(unit.position)


class EndGameBot(RecordingBot):
    """Ends the game by debug command (DeclareVictory or Surrender) at ``at`` iterations."""

    def __init__(self, at: int = 3, victory: bool = True) -> None:
        super().__init__()
        self.at = at
        self.victory = victory

    async def act(self, iteration: int) -> None:
        if iteration == self.at:
            result = debug_pb2.DebugEndGame.DeclareVictory if self.victory else debug_pb2.DebugEndGame.Surrender
            await self.client._execute(
                debug=sc_pb.RequestDebug(debug=[debug_pb2.DebugCommand(end_game=debug_pb2.DebugEndGame(end_result=result))])
            )


class ApiProbeBot(RecordingBot):
    """Exercises queries and debug commands once, records the answers, then surrenders."""

    async def act(self, iteration: int) -> None:
        if iteration == 0:
            marine: Unit = self.units.first
            center: Point2 = self.game_info.map_center
            self.log["pathing"] = await self.client.query_pathing(marine, center)
            self.log["pathings"] = await self.client.query_pathings([(marine, center), (marine.position, center)])
            self.log["placement"] = await self.client._query_building_placement_fast(
                AbilityId.TERRANBUILD_SUPPLYDEPOT, [center, Point2((0.5, 0.5))]
            )
            self.log["abilities"] = await self.client.query_available_abilities([marine])
            self.log["units_before"] = len(self.units)
            await self.client.debug_create_unit([(UnitTypeId.MARINE, 2, center, 1)])
        elif iteration == 1:
            self.log["units_after_create"] = len(self.units)
            self.log["killed_tag"] = self.units.first.tag
            await self.client.debug_kill_unit([self.units.first.tag])
        elif iteration == 2:
            self.log["units_after_kill"] = len(self.units)
            await self.client.debug_leave()
