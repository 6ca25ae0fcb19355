"""The scripted Terran player of the melee speed benchmark (``bench_melee.py --opponent bot``): a
plain burnysc2 ``BotAI`` that builds and fights, written only against burnysc2's public API.

One base, then a second one: SCVs up to :attr:`MarineBot.workers`, supply depots ahead of supply,
barracks up to :attr:`MarineBot.barracks`, marines from every idle barracks.  Its marines wait in
front of its main and fight enemies that come near its structures; from :attr:`MarineBot.attack_at`
(game seconds) on, every marine attacks whenever the army is big enough: the nearest enemy
structure it knows of, else the enemy's start location, else the expansion locations in turn.
What matters for the benchmark is that it keeps the engine busy the way a bot does (an economy,
structures placed, an army walking across the map and fighting), not that it plays well.
"""

from __future__ import annotations

from sc2.bot_ai import BotAI
from sc2.ids.unit_typeid import UnitTypeId
from sc2.position import Point2
from sc2.unit import Unit


class MarineBot(BotAI):
    """Marines from several barracks, an expansion, attack waves (see the module docstring)."""

    def __init__(self, attack_at: float = 300.0, workers: int = 40, barracks: int = 5, game_step: int = 8) -> None:
        super().__init__()
        self.attack_at = attack_at
        self.workers_wanted = workers
        self.barracks_wanted = barracks
        self.game_step = game_step
        self.search = 0
        self.attacking = False
        self.max_marines = 0

    async def on_start(self) -> None:
        self.client.game_step = self.game_step

    async def on_step(self, iteration: int) -> None:
        self.max_marines = max(self.max_marines, self.units(UnitTypeId.MARINE).amount)
        if iteration % 4 == 0:
            await self.distribute_workers()
        ccs = self.townhalls.ready
        if ccs:
            await self.macro(ccs)
        self.army(ccs.first.position if ccs else self.start_location)

    async def macro(self, ccs: object) -> None:
        from sc2.units import Units

        assert isinstance(ccs, Units)
        cc: Unit = ccs.first
        barracks = self.structures(UnitTypeId.BARRACKS)
        producers = ccs.amount + barracks.ready.amount
        if (self.supply_left < 2 + 2 * producers and self.already_pending(UnitTypeId.SUPPLYDEPOT) < 1 + producers // 4
                and self.supply_cap < 200 and self.can_afford(UnitTypeId.SUPPLYDEPOT)):
            await self.build(UnitTypeId.SUPPLYDEPOT, near=cc.position.towards(self.game_info.map_center, -7))
            return
        for th in ccs.idle:
            if (self.supply_workers + self.already_pending(UnitTypeId.SCV) < self.workers_wanted
                    and self.can_afford(UnitTypeId.SCV)):
                th.train(UnitTypeId.SCV)
        if (self.townhalls.amount < 2 and self.supply_workers >= 20 and self.already_pending(UnitTypeId.COMMANDCENTER) == 0
                and self.can_afford(UnitTypeId.COMMANDCENTER)):
            spot = await self.get_next_expansion()
            if spot is not None:
                await self.expand_now(location=spot)
            return
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
        if self.time >= self.attack_at and marines.amount >= 16:
            self.attacking = True
        elif marines.amount < 6:
            self.attacking = False
        if not self.attacking:
            near = self.enemy_units.filter(lambda e: self.structures.closest_distance_to(e) < 15) \
                if self.structures else self.enemy_units.subgroup([])
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


class BaselineBot(BotAI):
    """The Melee task's scripted baseline (``workers/sc2/tasks/melee.py``) as a plain bot, so the
    speed benchmarks can play races other than Terran over the same burnysc2 path: a build order
    that expands, trains its race's army and attacks.  ``max_marines`` counts its army at most."""

    def __init__(self, race: str = "protoss", step_loops: int = 8) -> None:
        super().__init__()
        from workers.sc2.tasks.melee import Melee

        self.task = Melee(scripted=True, race=race, step_loops=step_loops)
        self.max_marines = 0

    async def on_start(self) -> None:
        self.client.game_step = self.task.step_loops
        self.task.episode_start(self)

    async def on_step(self, iteration: int) -> None:
        if iteration:
            self.task.reward(self)
        await self.task.scripted_decode(self)
        self.max_marines = max(self.max_marines, self.task._army(self).amount)


def make_bot(kind: str, race: str) -> BotAI:
    """``kind`` ``"marine"``: :class:`MarineBot` (Terran only); ``"baseline"``: :class:`BaselineBot`."""
    if kind == "marine":
        if race != "terran":
            raise SystemExit(f"--bot marine plays Terran only, not {race}; use --bot baseline")
        return MarineBot()
    return BaselineBot(race)
