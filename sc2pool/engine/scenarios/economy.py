"""Economy scenarios: pysc2's CollectMineralsAndGas and BuildMarines, and a Terran start for bots.

All three start like a real Terran game: a Command Center, 12 SCVs already mining, 50 minerals,
12/15 supply.  The bases follow the real layout (mineral fields 6-8 cells from the townhall centre,
staggered; geysers 7-8 away), which burnysc2's expansion finder accepts.  The mini-game rules are
pysc2's documented ones (``../shared/design/minigame-facts.md``):

- CollectMineralsAndGas: 16 mineral fields, 4 vespene geysers; score = minerals + vespene
  collected (spending does not lower it); 6720 loops, then a Tie.  pysc2's documentation says
  300 s and its code 420 s: the same 6720 loops, counted at faster speed (22.4 loops/s) and at
  normal speed (16 loops/s).  (The 120 s mini-games agree in both places: 1920 loops.)
- BuildMarines: 8 mineral fields; score = marines trained; 900 game seconds (14400 loops).
- TerranEconomy (for bots): 8 mineral fields and 2 geysers on an open 64 x 64 map, no time limit
  beyond 30 game minutes; score = minerals + vespene collected.

Whether pysc2's maps start the SCVs mining or idle is not documented; here they mine, as on a
ladder map's first loop (the real client reports every SCV with a gather order at loop 0).
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.scenarios.base import GAME_SECOND, Scenario
from sc2pool.engine.sim.races import TERRAN
from sc2pool.engine.sim.world import Deaths, World

ECONOMY_MAP = MapSpec("Economy", 64, 64, (4, 4, 60, 60))
"""An open 64 x 64 map: one base in the west half, room for a dozen structures."""

MINERAL_LINE: tuple[tuple[float, float, int], ...] = (
    (-5.5, -4.0, D.MINERALFIELD750), (-6.5, -3.0, D.MINERALFIELD), (-7.5, -2.0, D.MINERALFIELD750),
    (-6.5, -1.0, D.MINERALFIELD), (-7.5, 0.0, D.MINERALFIELD), (-6.5, 1.0, D.MINERALFIELD750),
    (-7.5, 2.0, D.MINERALFIELD), (-5.5, 3.0, D.MINERALFIELD750),
)
"""Offsets of a west-facing mineral line from the townhall centre: 2 x 1 fields on the cell grid
(x integer, y on a cell centre), 6.8-7.8 from the centre; 4 large (1800) and 4 small (900) fields."""
GEYSERS: tuple[tuple[float, float], ...] = ((-3.0, 7.0), (-3.0, -7.0))
"""Offsets of the two geysers (3 x 3, 7.6 from the townhall centre)."""


def spawn_base(world: World, owner: int, cx: float, cy: float, side: float = -1.0, geysers: bool = True,
               workers: int = TERRAN.start.workers) -> int:
    """A Terran melee start's Command Center at (cx, cy) with its mineral line on ``side``
    (-1 west, +1 east), its geysers, and ``workers`` SCVs mining; returns the Command Center's
    tag."""
    start = TERRAN.start
    cc = world.construction.add_structure(start.townhall, owner, cx, cy)
    fields = []
    for dx, dy, uid in MINERAL_LINE:
        fields.append(world.harvest.add_mineral_field(uid, cx + (dx if side < 0 else -dx), cy + dy))
    if geysers:
        for dx, dy in GEYSERS:
            world.harvest.add_geyser(cx + (dx if side < 0 else -dx), cy + dy)
    if workers:
        edge = D.UNIT_BY_ID[start.townhall].radius + D.UNIT_BY_ID[start.worker].radius
        ys = cy + (np.arange(workers) - (workers - 1) / 2.0) * 0.75
        xs = np.full(workers, cx + side * edge)
        tags = world.spawn(start.worker, owner, xs, ys, facing=0.0 if side > 0 else float(np.pi))
        for k, tag in enumerate(tags.tolist()):
            world.harvest.gather(int(tag), fields[k % len(fields)])
    return cc


class EconomyScenario(Scenario):
    """Shared set-up and scoring; subclasses pick the base layout and the score."""

    map = ECONOMY_MAP
    centre: tuple[float, float] = (20.5, 32.5)

    def setup(self) -> None:
        self.world.start_economy({1: TERRAN}, minerals=TERRAN.start.minerals)
        self.build_bases()

    def build_bases(self) -> None:
        spawn_base(self.world, 1, *self.centre)

    def points(self) -> int:
        ledger = self.world.supply
        return ledger.collected_minerals[1] + ledger.collected_vespene[1]

    def horizon(self) -> int:
        return 1 << 30

    def after_loop(self, deaths: Deaths) -> None:
        self.score[1] = self.points()


class CollectMineralsAndGas(EconomyScenario):
    name = "CollectMineralsAndGas"
    time_limit = 420 * GAME_SECOND
    centre = (32.5, 32.5)

    def build_bases(self) -> None:
        cx, cy = self.centre
        spawn_base(self.world, 1, cx, cy, side=-1.0)
        # the second mineral line and geyser pair mirror the first, east of the Command Center
        for dx, dy, uid in MINERAL_LINE:
            self.world.harvest.add_mineral_field(uid, cx - dx, cy + dy)
        for dx, dy in GEYSERS:
            self.world.harvest.add_geyser(cx - dx, cy + dy)


class BuildMarines(EconomyScenario):
    name = "BuildMarines"
    time_limit = 900 * GAME_SECOND

    def build_bases(self) -> None:
        spawn_base(self.world, 1, *self.centre, geysers=False)

    def points(self) -> int:
        return self.world.production.trained[1].get(D.MARINE, 0)


class TerranEconomy(EconomyScenario):
    name = "TerranEconomy"
    time_limit = 1800 * GAME_SECOND
