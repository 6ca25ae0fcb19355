"""Zerg: not simulated yet; the interface's answers say so.

What the Zerg rules will hold (real-game facts, Liquipedia, "Larva", "Creep", "Drone"): units
hatch from larvae (a Hatchery keeps up to 3, one more every 11 seconds), a Drone turns into the
structure it builds, structures other than the Hatchery and Extractor need creep, Overlords
provide 8 supply and a Hatchery 6.

Melee start (LotV): a Hatchery, 12 Drones, an Overlord and 3 larvae, 50 minerals, 12/14 supply
(Liquipedia, "Zerg"; the food values are the real client's ResponseData in python-sc2's capture
``test/pickle_data/AltitudeAIE.xz``: a Hatchery provides 6, an Overlord 8, a Drone takes 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.sim.races.base import BUILDER_CONSUMED, LARVA, MeleeStart, NotSimulatedError, RaceRules

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

DRONE, OVERLORD = 104, 106
"""Unit type ids (the real client's ResponseData, same capture); not in the engine's data yet."""


class ZergRules(RaceRules):
    """Zerg's hooks: each names the rule that is not simulated yet."""

    def on_structure_complete(self, world: World, s: Structure, builder: int, loop: int) -> None:
        raise NotSimulatedError("Zerg construction (a Drone turns into the structure) is not simulated yet")

    def placement(self, world: World, unit_id: int, x: float, y: float) -> int | None:
        raise NotSimulatedError("Zerg placement (structures on creep) is not simulated yet")

    def upkeep(self, world: World, player: int, loop: int) -> None:
        raise NotSimulatedError("Zerg upkeep (larva spawning, creep spread) is not simulated yet")


ZERG = ZergRules(
    race=D.ZERG, name="Zerg", economy_simulated=False,
    start=MeleeStart(townhall=D.HATCHERY, worker=DRONE, workers=12, extras=((OVERLORD, 1), (D.LARVA, 3)),
                     minerals=50, vespene=0, food_used=12, food_cap=14),
    production=LARVA, construction=BUILDER_CONSUMED,
)
