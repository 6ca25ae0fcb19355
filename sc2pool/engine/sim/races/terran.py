"""Terran: everything Terran the economy does.

- Production: the Command Center and the Orbital Command train SCVs (ability 524), the Barracks,
  Factory and Starport their units (every ``data.tech.TRAIN`` entry they produce), each in its
  queue, two at once with a Reactor attached (:mod:`..systems.addons`); a unit whose client data
  names a tech requirement needs it: a Tech Lab attached to the producer (``require_attached``:
  Marauder, Cyclone, Siege Tank, Banshee, Raven), a finished structure of the player (Thor:
  Armory, Battlecruiser: Fusion Core, Ghost: Ghost Academy; ``data.tech.requirements``).  The
  Reaper needs no add-on (LotV, Liquipedia "Reaper"; the client's ``UnitTypeData`` gives it no
  tech requirement).  Rallies: 203 (townhalls), 195 (the others).
- Construction: the SCV walks to the site and builds while it stays there (progress pauses when
  it leaves and resumes when an SCV is sent to the structure); once finished the SCV goes idle,
  except a refinery's builder, which starts harvesting from it (as in the real game).  Every
  Terran structure an SCV builds (``data.tech.BUILD``), each with the client's tech requirement
  (Factory: Barracks, Starport: Factory, Armory: Factory, Fusion Core: Starport, ...).  Add-ons
  are built by their structure (:mod:`..systems.addons`); the Command Center becomes an Orbital
  Command in place (:mod:`..systems.morph`).
- Workers: SCVs; cargo is dropped at a Command Center or an Orbital Command; an SCV's trips show
  ability 295 (HARVEST_GATHER_SCV) and 296 (HARVEST_RETURN_SCV); supply comes from the townhalls
  and Supply Depots; gas from refineries.  No creep, no power, no per-loop upkeep.
- Melee start: a Command Center and 12 SCVs, 50 minerals, 12/15 supply (the real client's first
  observation in python-sc2's capture ``test/pickle_data/AltitudeAIE.xz``).

Ability and unit ids are the real client's (its ResponseData in the same capture).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.races.base import BUILDER_STAYS, QUEUE, MeleeStart, RaceRules

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

GATHER_SCV, RETURN_SCV = 295, 296
SUPPLYDEPOTLOWERED = 47
"""A lowered Supply Depot: it still provides supply; ground units walk over it (Liquipedia,
"Supply Depot")."""
WALKABLE_STRUCTURES = frozenset({SUPPLYDEPOTLOWERED})
"""Structures that do not block ground units."""
RALLY_BUILDING, RALLY_COMMANDCENTER, CANCEL_QUEUE5 = 195, 203, 306
REAPER = 49
ORBITAL = tech.ORBITAL
PRODUCTION_STRUCTURES = (tech.BARRACKS, tech.FACTORY, tech.STARPORT)
_TOWNHALLS = (D.COMMANDCENTER, ORBITAL, tech.PF)
RICH_REFINERY_BUILD = 325
"""Builds a RefineryRich on a rich geyser: not simulated (the economy's gas rules know the plain
refinery only)."""


def _trains() -> dict[int, tuple[tuple[int, ...], int]]:
    producers = frozenset((*_TOWNHALLS, *PRODUCTION_STRUCTURES))
    out = {}
    for ab, t in tech.TRAIN.items():
        if t.how == "queue" and set(t.producers) & producers:
            out[ab] = (tuple(p for p in t.producers if p in producers), t.unit_id)
    return out


def _builds() -> dict[int, int]:
    return {ab: b.unit_id for ab, b in tech.BUILD.items() if b.how == "terran" and ab != RICH_REFINERY_BUILD}


class TerranRules(RaceRules):
    """Terran's hooks (the tables are the instance's fields, see :data:`TERRAN`)."""

    def on_structure_complete(self, world: World, s: Structure, builder: int, loop: int) -> None:
        """The SCV that finished a structure goes idle; a refinery's builder starts harvesting
        from it."""
        if not builder:
            return
        r = world.u.row(builder)
        if r < 0:
            return
        if s.unit_id in self.gas_structures and s.geyser in world.harvest.resources:
            world.harvest.start(r, builder, s.geyser, loop)
        else:
            world.workers.to_idle(builder)

    def placement(self, world: World, unit_id: int, x: float, y: float) -> int | None:
        return None  # no creep, no power

    def upkeep(self, world: World, player: int, loop: int) -> None:
        return None  # nothing Terran happens every loop in the simulated subset


TERRAN = TerranRules(
    race=D.TERRAN, name="Terran", economy_simulated=True,
    start=MeleeStart(townhall=D.COMMANDCENTER, worker=D.SCV, workers=12, extras=(), minerals=50, vespene=0,
                     food_used=12, food_cap=15),
    production=QUEUE, construction=BUILDER_STAYS,
    workers=frozenset({D.SCV}),
    townhalls=frozenset(_TOWNHALLS),
    supply_providers=frozenset({*_TOWNHALLS, D.SUPPLYDEPOT, SUPPLYDEPOTLOWERED}),
    gas_structures=frozenset({D.REFINERY}),
    trains=_trains(),
    builds=_builds(),
    rally={**dict.fromkeys(_TOWNHALLS, RALLY_COMMANDCENTER),
           **dict.fromkeys(PRODUCTION_STRUCTURES, RALLY_BUILDING)},
    gather_ability=GATHER_SCV, return_ability=RETURN_SCV,
    cancel_abilities=frozenset({CANCEL_QUEUE5}),
)
