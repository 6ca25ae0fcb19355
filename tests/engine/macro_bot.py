"""A Terran macro bot written only against burnysc2's public ``BotAI`` API.

Nothing here knows about the engine: it is the kind of bot that runs on the real game (SCVs up to
a saturated mineral line, supply depots ahead of supply, three barracks, marines).  The economy
conformance test runs it unmodified through ``run_game`` and counts the marines it reaches.
"""

from __future__ import annotations

from sc2.bot_ai import BotAI
from sc2.ids.unit_typeid import UnitTypeId


class MacroBot(BotAI):
    """Builds an army of ``target`` marines, then leaves the game (a Defeat for itself)."""

    def __init__(self, target: int = 20, game_step: int = 8) -> None:
        super().__init__()
        self.target = target
        self.game_step = game_step
        self.reached_at: float | None = None
        self.max_marines = 0
        self.max_barracks = 0
        self.max_depots = 0
        self.max_workers = 0

    async def on_start(self) -> None:
        self.client.game_step = self.game_step

    async def on_step(self, iteration: int) -> None:
        marines = self.units(UnitTypeId.MARINE).amount
        self.max_marines = max(self.max_marines, marines)
        self.max_workers = max(self.max_workers, self.workers.amount)
        self.max_barracks = max(self.max_barracks, self.structures(UnitTypeId.BARRACKS).ready.amount)
        self.max_depots = max(self.max_depots, self.structures(UnitTypeId.SUPPLYDEPOT).ready.amount)
        if marines >= self.target:
            self.reached_at = self.time
            await self.client.leave()
            return
        await self.distribute_workers()
        cc = self.townhalls.ready.first if self.townhalls.ready else None
        if cc is None:
            return
        if (self.supply_left < 4 and self.already_pending(UnitTypeId.SUPPLYDEPOT) == 0
                and self.can_afford(UnitTypeId.SUPPLYDEPOT) and self.supply_cap < 200):
            await self.build(UnitTypeId.SUPPLYDEPOT, near=cc.position.towards(self.game_info.map_center, 6))
            return
        if (self.supply_workers + self.already_pending(UnitTypeId.SCV) < 16 and cc.is_idle
                and self.can_afford(UnitTypeId.SCV)):
            cc.train(UnitTypeId.SCV)
        if self.structures(UnitTypeId.SUPPLYDEPOT).ready:
            barracks = self.structures(UnitTypeId.BARRACKS).amount + self.already_pending(UnitTypeId.BARRACKS)
            if barracks < 3 and self.can_afford(UnitTypeId.BARRACKS):
                await self.build(UnitTypeId.BARRACKS, near=cc.position.towards(self.game_info.map_center, 10))
                return
        for rax in self.structures(UnitTypeId.BARRACKS).ready.idle:
            if self.can_afford(UnitTypeId.MARINE):
                rax.train(UnitTypeId.MARINE)
        for scv in self.workers.idle:
            if self.mineral_field:
                scv.gather(self.mineral_field.closest_to(scv))
        for scv in self.workers:
            if scv.is_carrying_minerals and scv.is_idle:
                scv.return_resource()
