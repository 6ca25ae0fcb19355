"""Protoss: every Protoss rule the economy simulates.

- Production: the Nexus trains Probes (1006) and Mothership (110, needs a Fleet Beacon); the
  Gateway, Stargate and Robotics Facility train their units in a queue (every ``data.tech.TRAIN``
  entry of ``how="queue"`` they produce) with the client's tech requirements (a Cybernetics Core
  for Stalker, Sentry, Adept; Templar Archives, Dark Shrine, Fleet Beacon, Robotics Bay where the
  client's ``UnitTypeData`` names them).  A Warp Gate warps its units in at a power field instead
  (:mod:`..systems.warpgate`).  Rallies: 207 (Nexus, RallyNexus), 195 (the others); the client's
  ``AbilityData`` in python-sc2's capture.
- Construction: a Probe walks to the site; there the structure starts warping in (progress 0, 10%
  life and shields, growing to full with its progress over the client's build time) and the Probe
  is free at once: it stands idle or takes the command shift-queued behind the build (LP:Probe,
  "the Probe is free to do other tasks while the structure warps in").  Cancelling a structure
  that warps in refunds 75% of its cost (LP:Cancel, "a building under construction ... 75% of its
  cost is returned"), :mod:`..systems.warpgate`.
- Power: every Protoss structure but the Nexus, Pylon and Assimilator must be placed in a power
  field of its player and stops working while it has none (:mod:`..systems.power`).
- Workers: Probes; cargo is dropped at a Nexus; a Probe's trips show 298 (HARVEST_GATHER_PROBE)
  and 299 (HARVEST_RETURN_PROBE) (the client's ``AbilityData``: ``ProbeHarvest`` Gather/Return,
  remapped to 3666/3667); supply comes from the Nexus (15) and Pylons (8) (the client's
  ``food_provided``); gas from Assimilators.
- Melee start (LotV): a Nexus and 12 Probes, 50 minerals, 12/15 supply (LP:Protoss; the food
  values are the real client's ResponseData in python-sc2's capture
  ``test/pickle_data/AltitudeAIE.xz``: a Nexus provides 15, a Probe takes 1).  The Nexus starts
  with 50 energy (``data.units``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.races.base import BUILDER_LEAVES, QUEUE, MeleeStart, RaceRules

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

NEXUS, PYLON, ASSIMILATOR, PROBE = tech.NEXUS, 60, 61, tech.PROBE
ASSIMILATOR_RICH = 1994
GATEWAY, WARPGATE, STARGATE, ROBO = tech.GATEWAY, tech.WARPGATE, tech.STARGATE, tech.ROBO
GATHER_PROBE, RETURN_PROBE = 298, 299
RALLY_BUILDING, RALLY_NEXUS, CANCEL_QUEUE5 = 195, 207, 306
QUEUE_PRODUCERS = (NEXUS, GATEWAY, STARGATE, ROBO)
"""Structures that train units in a queue."""
UNPOWERED_OK = frozenset({NEXUS, PYLON, ASSIMILATOR, ASSIMILATOR_RICH})
"""Protoss structures that need no power field (LP:Pylon: "all Protoss structures except the
Nexus, Pylon and Assimilator must be placed within a power field")."""


def _trains() -> dict[int, tuple[tuple[int, ...], int]]:
    producers = frozenset(QUEUE_PRODUCERS)
    out = {}
    for ab, t in tech.TRAIN.items():
        if t.how == "queue" and set(t.producers) & producers:
            out[ab] = (tuple(p for p in t.producers if p in producers), t.unit_id)
    return out


def _builds() -> dict[int, int]:
    return {ab: b.unit_id for ab, b in tech.BUILD.items() if b.how == "protoss"}


class ProtossRules(RaceRules):
    """Protoss's hooks (the tables are the instance's fields, see :data:`PROTOSS`)."""

    def on_structure_complete(self, world: World, s: Structure, builder: int, loop: int) -> None:
        return None  # (the Probe left when the warp-in started)

    def placement(self, world: World, unit_id: int, x: float, y: float) -> int | None:
        """A structure that needs power must stand in a power field of the player placing it."""
        if unit_id in UNPOWERED_OK:
            return None
        return world.power.refuse(world.placement.asking, x, y)

    def upkeep(self, world: World, player: int, loop: int) -> None:
        """Power fields come and go with Pylons; Gateways become Warp Gates once researched."""
        world.power.update(loop)
        world.warpgates.upkeep(player, loop)


PROTOSS = ProtossRules(
    race=D.PROTOSS, name="Protoss", economy_simulated=True,
    start=MeleeStart(townhall=NEXUS, worker=PROBE, workers=12, extras=(), minerals=50, vespene=0,
                     food_used=12, food_cap=15),
    production=QUEUE, construction=BUILDER_LEAVES,
    workers=frozenset({PROBE}),
    townhalls=frozenset({NEXUS}),
    supply_providers=frozenset({NEXUS, PYLON}),
    gas_structures=frozenset({ASSIMILATOR, ASSIMILATOR_RICH}),
    trains=_trains(),
    builds=_builds(),
    rally={NEXUS: RALLY_NEXUS, GATEWAY: RALLY_BUILDING, WARPGATE: RALLY_BUILDING, STARGATE: RALLY_BUILDING,
           ROBO: RALLY_BUILDING},
    gather_ability=GATHER_PROBE, return_ability=RETURN_PROBE,
    cancel_abilities=frozenset({CANCEL_QUEUE5}),
)
