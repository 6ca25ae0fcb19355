"""Protoss: not simulated yet; the interface's answers say so.

What the Protoss rules will hold (real-game facts, Liquipedia, "Probe", "Pylon", "Warp Gate"):
a Probe starts a warp-in and is free to leave, structures other than the Nexus, Pylon and
Assimilator must be placed in a Pylon's power field and stop working without power, Gateways
turn into Warp Gates that warp units in.

Melee start (LotV): a Nexus and 12 Probes, 50 minerals, 12/15 supply (Liquipedia, "Protoss";
the food values are the real client's ResponseData in python-sc2's capture
``test/pickle_data/AltitudeAIE.xz``: a Nexus provides 15, a Probe takes 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.sim.races.base import BUILDER_LEAVES, QUEUE, MeleeStart, NotSimulatedError, RaceRules

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

NEXUS, PROBE = 59, 84
"""Unit type ids (the real client's ResponseData, same capture); not in the engine's data yet."""


class ProtossRules(RaceRules):
    """Protoss's hooks: each names the rule that is not simulated yet."""

    def on_structure_complete(self, world: World, s: Structure, builder: int, loop: int) -> None:
        raise NotSimulatedError("Protoss construction (a Probe warps the structure in) is not simulated yet")

    def placement(self, world: World, unit_id: int, x: float, y: float) -> int | None:
        raise NotSimulatedError("Protoss placement (a Pylon's power field) is not simulated yet")

    def upkeep(self, world: World, player: int, loop: int) -> None:
        raise NotSimulatedError("Protoss upkeep (power, warp-in) is not simulated yet")


PROTOSS = ProtossRules(
    race=D.PROTOSS, name="Protoss", economy_simulated=False,
    start=MeleeStart(townhall=NEXUS, worker=PROBE, workers=12, extras=(), minerals=50, vespene=0,
                     food_used=12, food_cap=15),
    production=QUEUE, construction=BUILDER_LEAVES,
)
