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
        self.pending_seen: dict[str, float] = {}
        """Highest ``already_pending`` seen per structure (counted as the real game counts)."""
        self.unready_seen = False
        """A structure was seen under construction (``build_progress`` < 1, not ``is_ready``)."""

    async def on_start(self) -> None:
        self.client.game_step = self.game_step

    async def on_step(self, iteration: int) -> None:
        marines = self.units(UnitTypeId.MARINE).amount
        self.max_marines = max(self.max_marines, marines)
        self.max_workers = max(self.max_workers, self.workers.amount)
        self.max_barracks = max(self.max_barracks, self.structures(UnitTypeId.BARRACKS).ready.amount)
        self.max_depots = max(self.max_depots, self.structures(UnitTypeId.SUPPLYDEPOT).ready.amount)
        for t in (UnitTypeId.SUPPLYDEPOT, UnitTypeId.BARRACKS, UnitTypeId.SCV, UnitTypeId.MARINE):
            self.pending_seen[t.name] = max(self.pending_seen.get(t.name, 0), self.already_pending(t))
        if any(0 < s.build_progress < 1 and not s.is_ready for s in self.structures):
            self.unready_seen = True
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


def main() -> int:
    """``SC2PATH=<fake install> python macro_bot.py [MAP]``: one ``run_game``, one JSON line."""
    import json
    import sys
    import time

    from sc2 import maps
    from sc2.data import Race
    from sc2.main import run_game
    from sc2.player import Bot

    bot = MacroBot()
    t0 = time.perf_counter()
    result = run_game(maps.get(sys.argv[1] if len(sys.argv) > 1 else "TerranEconomy"), [Bot(Race.Terran, bot)],
                      realtime=False)
    print(json.dumps({"result": getattr(result, "name", str(result)), "wall_s": time.perf_counter() - t0,
                      "reached_at": bot.reached_at, "max_marines": bot.max_marines, "barracks": bot.max_barracks,
                      "depots": bot.max_depots, "workers": bot.max_workers, "pending_seen": bot.pending_seen,
                      "unready_seen": bot.unready_seen}), flush=True)
    return 0


if __name__ == "__main__":
    import logging

    from loguru import logger

    logger.remove()
    logger.add(lambda m: None, level="ERROR")
    logging.disable(logging.WARNING)
    raise SystemExit(main())
