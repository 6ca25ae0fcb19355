"""The reference bot the melee Computer's strength is measured against: a plain Terran build
written only against burnysc2's public ``BotAI`` API (nothing here knows about the engine).

One base: SCVs up to :attr:`ReferenceBot.workers`, supply depots ahead of supply, three barracks,
marines from every idle barracks.  Until :attr:`ReferenceBot.attack_at` (game seconds, burnysc2's
``time``) its marines wait in front of its base and fight enemies that come near its structures;
from then on every marine attacks: the nearest enemy structure it knows of (burnysc2 keeps the
ones it saw as snapshots), else the enemy's start location, else the expansion locations in turn.
It never expands, never retreats and never micros: a fixed opponent, so that its win rate falls
as the Computer gets stronger (``benchmarks/computer_strength.py``).
"""

from __future__ import annotations

from sc2.bot_ai import BotAI
from sc2.ids.unit_typeid import UnitTypeId
from sc2.position import Point2

ATTACK_AT = 360.0
"""Game seconds (faster speed) at which the marines attack."""


class ReferenceBot(BotAI):
    """Three barracks of marines on one base, attacking at a fixed time (see the module docstring)."""

    def __init__(self, attack_at: float = ATTACK_AT, workers: int = 20, barracks: int = 3, game_step: int = 8) -> None:
        super().__init__()
        self.attack_at = attack_at
        self.workers_wanted = workers
        self.barracks_wanted = barracks
        self.game_step = game_step
        self.search = 0
        self.max_marines = 0

    async def on_start(self) -> None:
        self.client.game_step = self.game_step

    async def on_step(self, iteration: int) -> None:
        marines = self.units(UnitTypeId.MARINE)
        self.max_marines = max(self.max_marines, marines.amount)
        await self.distribute_workers()
        cc = self.townhalls.ready.first if self.townhalls.ready else None
        if cc is not None:
            await self.macro(cc)
        self.army(cc.position if cc is not None else self.start_location)

    async def macro(self, cc: object) -> None:
        from sc2.unit import Unit

        assert isinstance(cc, Unit)
        barracks = self.structures(UnitTypeId.BARRACKS)
        producers = 1 + barracks.ready.amount
        if (self.supply_left < 2 + 2 * producers and self.already_pending(UnitTypeId.SUPPLYDEPOT) == 0
                and self.supply_cap < 200 and self.can_afford(UnitTypeId.SUPPLYDEPOT)):
            await self.build(UnitTypeId.SUPPLYDEPOT, near=cc.position.towards(self.game_info.map_center, -7))
            return
        if (self.supply_workers + self.already_pending(UnitTypeId.SCV) < self.workers_wanted and cc.is_idle
                and self.can_afford(UnitTypeId.SCV)):
            cc.train(UnitTypeId.SCV)
        if (self.structures(UnitTypeId.SUPPLYDEPOT).ready
                and barracks.amount + self.already_pending(UnitTypeId.BARRACKS) < self.barracks_wanted
                and self.can_afford(UnitTypeId.BARRACKS)):
            await self.build(UnitTypeId.BARRACKS, near=cc.position.towards(self.game_info.map_center, 9))
            return
        for rax in barracks.ready.idle:
            if self.can_afford(UnitTypeId.MARINE):
                rax.train(UnitTypeId.MARINE)

    def army(self, home: Point2) -> None:
        marines = self.units(UnitTypeId.MARINE)
        if not marines:
            return
        if self.time < self.attack_at:
            near = self.enemy_units.filter(lambda e: self.structures and self.structures.closest_distance_to(e) < 15)
            if near:
                for m in marines:
                    m.attack(near.closest_to(m).position)
                return
            rally = home.towards(self.game_info.map_center, 10)
            for m in marines.idle:
                if m.distance_to(rally) > 5:
                    m.move(rally)
            return
        target = self.target(marines.center)
        for m in marines:
            if m.is_idle or (m.order_target != target and not self.enemy_units.closer_than(10, m)):
                m.attack(target)

    def target(self, at: Point2) -> Point2:
        """The nearest enemy structure it knows of, else the enemy's start locations, else the
        expansion locations in turn (the next one once the current one is in sight and empty)."""
        if self.enemy_structures:
            return self.enemy_structures.closest_to(at).position
        spots = [*self.enemy_start_locations, *self.expansion_locations_list]
        for _ in range(len(spots)):
            spot = spots[self.search % len(spots)]
            if not self.is_visible(spot):
                return spot
            self.search += 1
        return spots[self.search % len(spots)]
