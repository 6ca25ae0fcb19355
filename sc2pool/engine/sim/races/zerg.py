"""Zerg: the economy's Zerg rules (sources in ``docs/engine.md``, "Zerg").

- Production: units hatch from larvae (:mod:`..systems.larva`): a larva told to train (the
  ``data.tech.TRAIN`` abilities with ``how="larva"``: Drone 1342, Zergling 1343, Overlord 1344,
  ...) becomes an Egg that hatches the unit (two Zerglings); a Hatchery, Lair or Hive trains
  Queens in its queue (1632, needs a Spawning Pool: the client's tech requirement) and keeps up
  to 3 larvae, one more every 11 faster seconds (LP:Larva).  Rallies: 211 (units), 212 (workers),
  as the real client's ``RALLY_HATCHERY_*``.
- Construction: the Drone walks to the site and turns into the structure: it is removed (reported
  dead, s2client-api#180) and the structure starts growing at once, alone (LP:Drone); cancelling
  it gives the Drone back and 75% of the structure's cost (LP:Drone, LP:Zerg_Structures).  Every
  Zerg structure a Drone builds (``data.tech.BUILD`` ``how="zerg"``), each with the client's tech
  requirement.  Structures other than the Hatchery and the Extractor need creep under their whole
  footprint (LP:Creep; :mod:`..systems.creep`).
- Workers: Drones; cargo is dropped at a Hatchery, Lair or Hive; a Drone's trips show 1183
  (HARVEST_GATHER_DRONE) and 1184 (HARVEST_RETURN_DRONE); supply: Hatchery/Lair/Hive 6, Overlord
  and Overseer 8 (the client's ``food_provided``; an Overlord is a unit, not a structure); gas
  from Extractors.
- Upkeep every economy step: larva spawning and eggs hatching (:mod:`..systems.larva`), creep
  spreading and receding (:mod:`..systems.creep`).
- Melee start (LotV): a Hatchery, 12 Drones, an Overlord and 3 larvae, 50 minerals, 12/14 supply
  (Liquipedia, "Zerg"; the food values are the real client's ResponseData in python-sc2's capture
  ``test/pickle_data/AltitudeAIE.xz``: a Hatchery provides 6, an Overlord 8, a Drone takes 1).

Ability and unit ids are the real client's (its ResponseData in the same capture).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.races.base import BUILDER_CONSUMED, LARVA, MeleeStart, RaceRules

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

DRONE, OVERLORD, OVERSEER, OVERLORD_TRANSPORT, OVERSEER_SIEGE = 104, 106, 129, 893, 1912
EGG = 103
HATCHERY, LAIR, HIVE = tech.HATCHERY, tech.LAIR, tech.HIVE
EXTRACTOR = 88
GATHER_DRONE, RETURN_DRONE = 1183, 1184
RALLY_HATCHERY_UNITS, RALLY_HATCHERY_WORKERS = 211, 212
_TOWNHALLS = (HATCHERY, LAIR, HIVE)
UNIT_SUPPLY = frozenset({OVERLORD, OVERSEER, OVERLORD_TRANSPORT, OVERSEER_SIEGE})
"""Units (not structures) that provide supply: Overlords and Overseers, 8 each (the client's
``food_provided``)."""
NO_CREEP_NEEDED = frozenset({HATCHERY, EXTRACTOR, 1995, 142})
"""Zerg structures placed off creep: the Hatchery and the Extractor (LP:Creep); the Nydus Worm
(LP:Nydus_Network_(Legacy_of_the_Void), ``systems/nydus.py``)."""


def _trains() -> dict[int, tuple[tuple[int, ...], int]]:
    out: dict[int, tuple[tuple[int, ...], int]] = {}
    for ab, t in tech.TRAIN.items():
        if t.how == "larva" or (t.how == "queue" and set(t.producers) & set(_TOWNHALLS)):
            out[ab] = (t.producers, t.unit_id)
    return out


def _builds() -> dict[int, int]:
    return {ab: b.unit_id for ab, b in tech.BUILD.items() if b.how == "zerg"}


class ZergRules(RaceRules):
    """Zerg's hooks (the tables are the instance's fields, see :data:`ZERG`)."""

    def on_structure_complete(self, world: World, s: Structure, builder: int, loop: int) -> None:
        return None  # the Drone is gone already (it became the structure)

    def placement(self, world: World, unit_id: int, x: float, y: float) -> int | None:
        if unit_id in NO_CREEP_NEEDED:
            return None
        return world.creep.placement(unit_id, x, y)

    def upkeep(self, world: World, player: int, loop: int) -> None:
        world.larva.upkeep(player, loop)
        world.creep.upkeep(loop)


ZERG = ZergRules(
    race=D.ZERG, name="Zerg", economy_simulated=True,
    start=MeleeStart(townhall=D.HATCHERY, worker=DRONE, workers=12, extras=((OVERLORD, 1), (D.LARVA, 3)),
                     minerals=50, vespene=0, food_used=12, food_cap=14),
    production=LARVA, construction=BUILDER_CONSUMED,
    workers=frozenset({DRONE}),
    townhalls=frozenset(_TOWNHALLS),
    supply_providers=frozenset(_TOWNHALLS),
    gas_structures=frozenset({EXTRACTOR}),
    trains=_trains(),
    builds=_builds(),
    rally=dict.fromkeys(_TOWNHALLS, RALLY_HATCHERY_UNITS),
    gather_ability=GATHER_DRONE, return_ability=RETURN_DRONE,
)
