"""Unmodified burnysc2 BotAI games against the Game, through the production engine session behind the
in-process transport (no sockets)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

pytest.importorskip("sc2")
import sc2.main  # noqa: E402,F401  (resets loguru; quieten it below)
from engine_harness import play_bot as play  # noqa: E402
from loguru import logger  # noqa: E402
from sc2.bot_ai import BotAI  # noqa: E402
from sc2.data import Difficulty, Race, Result  # noqa: E402
from sc2.ids.unit_typeid import UnitTypeId  # noqa: E402
from sc2.player import Computer  # noqa: E402
from sc2.position import Point2  # noqa: E402

logger.remove()
logger.add(sys.stderr, level="WARNING")


class BeaconBot(BotAI):
    def __init__(self) -> None:
        super().__init__()
        self.ended: Any = None
        self.final_score = 0

    async def on_step(self, iteration: int) -> None:
        beacons = self.all_units.of_type(UnitTypeId.BEACON_TERRAN)
        for m in self.units:
            if beacons:
                m.move(beacons.closest_to(m).position)

    async def on_end(self, game_result: Result) -> None:
        self.ended = game_result
        self.final_score = self.state.score.score
        self.final_time = self.time


def test_move_to_beacon_bot_scores_and_ties_at_the_limit() -> None:
    bot = BeaconBot()
    result, _ = play("MoveToBeacon", bot)
    assert result == Result.Tie and bot.ended == Result.Tie
    assert bot.final_score >= 15
    assert bot.final_time == pytest.approx(1920 / 22.4, abs=0.5)


class CountingMoveBot(BotAI):
    """Re-issues the same move every step: burnysc2 only sends it once if orders use specific ids."""

    async def on_step(self, iteration: int) -> None:
        if iteration == 0:
            # the farthest corner of the arena: more than 10 steps of walking away
            area = self.game_info.playable_area
            corners = [Point2((area.x + 1, area.y + 1)), Point2((area.right - 1, area.top - 1)),
                       Point2((area.x + 1, area.top - 1)), Point2((area.right - 1, area.y + 1))]
            self.target = max(corners, key=lambda c: c.distance_to(self.units.first))
        for m in self.units:
            m.move(self.target)
        if iteration >= 10:
            await self.client.leave()


def test_prevent_double_actions_works_with_reported_orders() -> None:
    result, stats = play("MoveToBeacon", CountingMoveBot())
    assert result == Result.Defeat  # leaving loses
    assert stats.count.get("action", 0) == 1


class FightBot(BotAI):
    def __init__(self) -> None:
        super().__init__()
        self.destroyed: set[int] = set()
        self.seen_enemies = 0

    async def on_step(self, iteration: int) -> None:
        enemies = self.enemy_units
        self.seen_enemies = max(self.seen_enemies, enemies.amount)
        for m in self.units:
            if enemies:
                target = enemies.closest_to(m)
                if m.distance_to(target) < 60:
                    m.attack(target)
            elif self.enemy_start_locations:
                m.attack(self.enemy_start_locations[0])

    async def on_unit_destroyed(self, unit_tag: int) -> None:
        self.destroyed.add(unit_tag)

    async def on_end(self, game_result: Result) -> None:
        self.score = self.state.score.score


def test_defeat_roaches_bot_fights_and_sees_deaths() -> None:
    bot = FightBot()
    result, _ = play("DefeatRoaches", bot)
    assert result in (Result.Defeat, Result.Tie)
    assert bot.seen_enemies == 4 and len(bot.destroyed) >= 4
    assert bot.score != 0


def test_skirmish_vs_computer_victory() -> None:
    bot = FightBot()
    result, _ = play("Skirmish", bot, opponent=Computer(Race.Zerg, Difficulty.VeryEasy))
    assert result == Result.Victory
    assert bot.enemy_race == Race.Zerg


class FogBot(BotAI):
    async def on_step(self, iteration: int) -> None:
        if iteration == 0:
            self.first_enemies = self.enemy_units.amount
            self.sees_self = self.is_visible(self.units.first.position)
            area = self.game_info.playable_area
            self.sees_corner = self.is_visible(Point2((area.x + 1, area.y + 1)))
        if iteration >= 5:
            await self.client.leave()


def test_fog_of_war_through_burnysc2() -> None:
    bot = FogBot()
    result, _ = play("FindAndDefeatZerglings", bot)
    assert result == Result.Defeat
    # the 2 near zerglings stand 7.5-9.5 from the centre and marine sight is 9: one at the far
    # edge of that ring may be just out of sight (the 23 others, >= 10.5 away, always are); the
    # same seed played straight on the engine says how many the marines see
    from test_game_api import joined

    g = joined("FindAndDefeatZerglings.SC2Map", seed=1)
    expected = sum(1 for u in g.observation(1).observation.raw_data.units if u.alliance == 4)
    assert 1 <= expected <= 2
    assert bot.first_enemies == expected and bot.sees_self and not bot.sees_corner
