"""Terran: everything Terran the economy does.

- Production: the Command Center trains SCVs (ability 524), the Barracks marines (560) and reapers
  (561: no add-on or other structure needed in LotV, Liquipedia "Reaper"; the client's
  ``UnitTypeData`` gives it no tech requirement), each in its queue; the Command Center's rally is
  ability 203, the Barracks' 195.
- Construction: the SCV walks to the site and builds while it stays there (progress pauses when
  it leaves and resumes when an SCV is sent to the structure); once finished the SCV goes idle,
  except a refinery's builder, which starts harvesting from it (as in the real game).
- Workers: SCVs; cargo is dropped at a Command Center; an SCV's trips show ability 295
  (HARVEST_GATHER_SCV) and 296 (HARVEST_RETURN_SCV); supply comes from the Command Center and
  Supply Depots; gas from refineries.  No creep, no power, no per-loop upkeep.
- Melee start: a Command Center and 12 SCVs, 50 minerals, 12/15 supply (the real client's first
  observation in python-sc2's capture ``test/pickle_data/AltitudeAIE.xz``).

Ability and unit ids are the real client's (its ResponseData in the same capture).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sc2pool.engine import data as D
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
    townhalls=frozenset({D.COMMANDCENTER}),
    supply_providers=frozenset({D.COMMANDCENTER, D.SUPPLYDEPOT, SUPPLYDEPOTLOWERED}),
    gas_structures=frozenset({D.REFINERY}),
    trains={524: (D.COMMANDCENTER, D.SCV), 560: (D.BARRACKS, D.MARINE), 561: (D.BARRACKS, REAPER)},
    builds={318: D.COMMANDCENTER, 319: D.SUPPLYDEPOT, 320: D.REFINERY, 321: D.BARRACKS},
    rally={D.COMMANDCENTER: RALLY_COMMANDCENTER, D.BARRACKS: RALLY_BUILDING},
    gather_ability=GATHER_SCV, return_ability=RETURN_SCV,
    cancel_abilities=frozenset({CANCEL_QUEUE5}),
)
