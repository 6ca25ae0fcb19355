"""Built-in macro tasks: pysc2's CollectMineralsAndGas and BuildMarines mini-games.

Observation: 17 numbers in ``[0, 1]`` that summarise the economy a player looks at (minerals,
vespene, supply, workers, idle workers, the Command Center's queue, depots, refineries and the
workers in them, barracks, marines, time).  Action: ``Discrete``, one macro decision per step
(no-op, train an SCV, build a supply depot, ...), decoded to burnysc2 commands with build sites
chosen from slots on the far side of the Command Center from its minerals.  Every step idle SCVs
are sent back to the minerals (a player does that without thinking; it is not a decision).
The reward is the map's score delta.  Both tasks use only burnysc2's public API, so they run on
the real maps of the same names too.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from workers.sc2.tasks.base import GameSetup, Task, register_task

if TYPE_CHECKING:
    from sc2.bot_ai import BotAI
    from sc2.position import Point2
    from sc2.unit import Unit

N_OBS = 17
HALF = {"SUPPLYDEPOT": 1.0, "BARRACKS": 1.5, "COMMANDCENTER": 2.5, "REFINERY": 1.5}
"""Footprint half sizes (cells) of the structures the tasks build or meet."""


class MacroTask(Task):
    """Shared encoder, decoder helpers and build-site slots (see the module docstring)."""

    actions: tuple[str, ...] = ()
    time_limit_loops = 6720

    def __init__(self, scripted: bool = False) -> None:
        super().__init__(scripted=scripted)
        self._slots: dict[float, list[tuple[float, float]]] = {}

    @property
    def observation_space(self) -> gym.Space[Any]:
        return gym.spaces.Box(0.0, 1.0, (N_OBS,), np.float32)

    @property
    def action_space(self) -> gym.Space[Any]:
        return gym.spaces.Discrete(len(self.actions))

    def episode_start(self, bot: BotAI) -> None:
        super().episode_start(bot)
        self._slots = {}

    # -- reading the state -------------------------------------------------------------------------
    @staticmethod
    def _count(bot: BotAI, name: str, ready: bool = False) -> int:
        from sc2.ids.unit_typeid import UnitTypeId

        s = bot.structures(UnitTypeId[name])
        return s.ready.amount if ready else s.amount

    def encode(self, bot: BotAI) -> np.ndarray:
        from sc2.ids.unit_typeid import UnitTypeId as U

        cc = bot.townhalls.first if bot.townhalls else None
        refineries = bot.gas_buildings
        gas_workers = sum(r.assigned_harvesters for r in refineries.ready)
        v = [
            bot.minerals / 1000.0,
            bot.vespene / 1000.0,
            bot.supply_used / 200.0,
            bot.supply_cap / 200.0,
            bot.supply_left / 16.0,
            bot.workers.amount / 50.0,
            bot.idle_worker_count / 12.0,
            (len(cc.orders) / 5.0) if cc is not None else 0.0,
            self._count(bot, "SUPPLYDEPOT") / 12.0,
            bot.already_pending(U.SUPPLYDEPOT) / 2.0,
            refineries.ready.amount / 4.0,
            bot.already_pending(U.REFINERY) / 4.0,
            gas_workers / 12.0,
            self._count(bot, "BARRACKS") / 8.0,
            bot.already_pending(U.BARRACKS) / 4.0,
            bot.units(U.MARINE).amount / 100.0,
            bot.state.game_loop / float(self.time_limit_loops),
        ]
        return np.clip(np.asarray(v, np.float32), 0.0, 1.0)

    # -- commands ----------------------------------------------------------------------------------
    def _idle_to_minerals(self, bot: BotAI) -> None:
        if not bot.mineral_field or not bot.townhalls:
            return
        cc = bot.townhalls.first
        for w in bot.workers.idle:
            w.gather(bot.mineral_field.closest_to(cc))

    def _builder(self, bot: BotAI, near: Point2) -> Unit | None:
        ws = bot.workers.filter(lambda w: w.is_gathering and not w.is_carrying_resource)
        if not ws:
            ws = bot.workers.filter(lambda w: w.is_gathering or w.is_idle)
        return ws.closest_to(near) if ws else None

    def _site(self, bot: BotAI, name: str) -> Point2 | None:
        """The first free slot for a structure of ``name``: slots fill a band beside the Command
        Center on the side away from its minerals (odd sizes on cell centres, even on corners)."""
        from sc2.position import Point2

        if not bot.townhalls:
            return None
        cc = bot.townhalls.first
        half = HALF[name]
        if half not in self._slots:
            mx = (sum(m.position.x for m in bot.mineral_field) / bot.mineral_field.amount
                  if bot.mineral_field else cc.position.x - 1)
            away = 1.0 if cc.position.x >= mx else -1.0
            off = 0.5 if half % 1 else 0.0
            step = 2 * half + 1
            area = bot.game_info.playable_area
            slots = []
            for i in range(1, 8):
                for j in range(-4, 5):
                    x = math.floor(cc.position.x + away * (4 + i * step)) + off
                    y = math.floor(cc.position.y + j * step) + off
                    if area.x + half + 1 <= x <= area.x + area.width - half - 1 and \
                            area.y + half + 1 <= y <= area.y + area.height - half - 1:
                        slots.append((x, y))
            slots.sort(key=lambda p: (p[0] - cc.position.x) ** 2 + (p[1] - cc.position.y) ** 2)
            self._slots[half] = slots
        taken: list[tuple[float, float, float, float]] = []
        for s in bot.structures:
            h = HALF.get(s.type_id.name, s.radius)
            taken.append((s.position.x, s.position.y, h, h))
        for w in bot.workers:
            for o in w.orders:
                if isinstance(o.target, Point2):
                    taken.append((o.target.x, o.target.y, 1.5, 1.5))
        for m in bot.mineral_field:  # 2 x 1 fields
            taken.append((m.position.x, m.position.y, 1.0, 0.5))
        for g in bot.vespene_geyser:
            taken.append((g.position.x, g.position.y, 1.5, 1.5))
        # a townhall keeps its distance from resources (6 from fields, 7 from geysers)
        gaps = [(r.position.x, r.position.y, 6.0 if r.is_mineral_field else 7.0) for r in bot.resources] \
            if name == "COMMANDCENTER" else []
        for x, y in self._slots[half]:
            if all(abs(x - tx) >= half + hx or abs(y - ty) >= half + hy for tx, ty, hx, hy in taken) and \
                    all((x - rx) ** 2 + (y - ry) ** 2 >= g * g for rx, ry, g in gaps):
                return Point2((x, y))
        return None

    def train_scv(self, bot: BotAI) -> None:
        from sc2.ids.unit_typeid import UnitTypeId as U

        for cc in bot.townhalls.ready:
            if len(cc.orders) < 2 and bot.can_afford(U.SCV):
                cc.train(U.SCV)

    def build(self, bot: BotAI, name: str) -> None:
        from sc2.ids.unit_typeid import UnitTypeId

        t = UnitTypeId[name]
        if not bot.can_afford(t) or bot.tech_requirement_progress(t) < 1:
            return
        site = self._site(bot, name)
        if site is None:
            return
        w = self._builder(bot, site)
        if w is not None:
            w.build(t, site)

    def build_refinery(self, bot: BotAI) -> None:
        from sc2.ids.unit_typeid import UnitTypeId as U

        if not bot.can_afford(U.REFINERY) or not bot.townhalls:
            return
        used_at = {r.position for r in bot.gas_buildings}
        used_tags = {o.target for w in bot.workers for o in w.orders if isinstance(o.target, int)}
        free = [g for g in bot.vespene_geyser if g.position not in used_at and g.tag not in used_tags]
        if not free:
            return
        geyser = min(free, key=lambda g: g.distance_to(bot.townhalls.first))
        builder = self._builder(bot, geyser.position)
        if builder is not None:
            builder.build_gas(geyser)

    def fill_gas(self, bot: BotAI) -> None:
        for r in bot.gas_buildings.ready:
            need = 3 - r.assigned_harvesters
            if need <= 0:
                continue
            ws = bot.workers.filter(lambda w: w.is_gathering and not w.is_carrying_resource
                                    and w.order_target not in {x.tag for x in bot.gas_buildings})
            for w in ws.sorted_by_distance_to(r)[:need]:
                w.gather(r)

    def train_marines(self, bot: BotAI) -> None:
        from sc2.ids.unit_typeid import UnitTypeId as U

        for rax in bot.structures(U.BARRACKS).ready:
            if len(rax.orders) < 1 and bot.can_afford(U.MARINE):
                rax.train(U.MARINE)

    def decode(self, bot: BotAI, action: Any) -> None:
        self._idle_to_minerals(bot)
        name = self.actions[int(action) % len(self.actions)]
        if name != "noop":
            getattr(self, name)(bot)

    def build_depot(self, bot: BotAI) -> None:
        self.build(bot, "SUPPLYDEPOT")

    def build_barracks(self, bot: BotAI) -> None:
        self.build(bot, "BARRACKS")


@register_task("CollectMineralsAndGas")
class CollectMineralsAndGas(MacroTask):
    """12 SCVs, a Command Center, 16 mineral fields, 4 geysers; score = minerals + gas collected.

    Actions: no-op, train an SCV, build a supply depot, build a refinery, send workers to fill the
    refineries (3 each).
    """

    setup = GameSetup(map_name="mini_games/CollectMineralsAndGas.SC2Map", game_step=8)
    actions = ("noop", "train_scv", "build_depot", "build_refinery", "fill_gas")
    time_limit_loops = 6720

    def scripted_decode(self, bot: BotAI) -> None:
        """Constant SCV production, a depot ahead of supply, from 16 workers on refineries with
        3 workers in each and a second Command Center (more SCV production, shorter trips for
        the far mineral line)."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        self._idle_to_minerals(bot)
        if bot.supply_left < 3 and not bot.already_pending(U.SUPPLYDEPOT) and bot.supply_cap < 200:
            self.build_depot(bot)
            return
        if bot.workers.amount < 16 + 2 * 16 + 12:
            self.train_scv(bot)
        if bot.workers.amount >= 16 and bot.gas_buildings.amount < 4 and not bot.already_pending(U.REFINERY):
            self.build_refinery(bot)
        if (bot.workers.amount >= 16 and bot.townhalls.amount < 2 and not bot.already_pending(U.COMMANDCENTER)
                and bot.can_afford(U.COMMANDCENTER)):
            self.build(bot, "COMMANDCENTER")
        self.fill_gas(bot)


@register_task("BuildMarines")
class BuildMarines(MacroTask):
    """12 SCVs, a Command Center, 8 mineral fields; score = marines trained (900 s).

    Actions: no-op, train an SCV, build a supply depot, build a barracks, train a marine at every
    barracks with an empty queue.
    """

    setup = GameSetup(map_name="mini_games/BuildMarines.SC2Map", game_step=8)
    actions = ("noop", "train_scv", "build_depot", "build_barracks", "train_marines")
    time_limit_loops = 14400

    def scripted_decode(self, bot: BotAI) -> None:
        """SCVs to a saturated line (20), a depot ahead of supply (two at a time once production
        is up), barracks while minerals float, marines from every idle barracks."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        self._idle_to_minerals(bot)
        rax = self._count(bot, "BARRACKS")
        want_ahead = 2 if rax >= 3 else 1
        if (bot.supply_left < 2 + 2 * rax and bot.already_pending(U.SUPPLYDEPOT) < want_ahead
                and bot.supply_cap < 200):
            self.build_depot(bot)
        if bot.workers.amount < 20:
            self.train_scv(bot)
        self.train_marines(bot)
        if bot.minerals >= 150 + 50 * rax and rax < 8:
            self.build_barracks(bot)


@register_task("TerranEconomy")
class TerranEconomy(MacroTask):
    """A Terran start for bots (Command Center, 12 SCVs, 8 mineral fields, 2 geysers); score =
    minerals + gas collected; 30 game minutes.

    Actions: no-op, train an SCV, build a supply depot, build a refinery, fill the refineries,
    build a barracks, train marines.
    """

    setup = GameSetup(map_name="TerranEconomy.SC2Map", game_step=8)
    actions = ("noop", "train_scv", "build_depot", "build_refinery", "fill_gas", "build_barracks", "train_marines")
    time_limit_loops = 28800

    def scripted_decode(self, bot: BotAI) -> None:
        """The CollectMineralsAndGas baseline: income first."""
        CollectMineralsAndGas.scripted_decode(self, bot)  # type: ignore[arg-type]
