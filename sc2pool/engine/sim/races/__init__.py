"""Race rules that plug into the systems where the races differ (see :mod:`.base`).

A unit follows the rules of its type's race (:func:`of_type`).  The economy's tables merged over
the races whose economy is simulated (ability ids are unique across races) serve the command path
and the systems that ask about a type without caring about its race (is it a townhall, a worker,
a gas structure?).
"""

from __future__ import annotations

from sc2pool.engine import data as D
from sc2pool.engine.sim.races.base import MeleeStart, NotSimulatedError, RaceRules
from sc2pool.engine.sim.races.protoss import PROTOSS
from sc2pool.engine.sim.races.terran import TERRAN
from sc2pool.engine.sim.races.zerg import ZERG

RACES: dict[int, RaceRules] = {r.race: r for r in (TERRAN, ZERG, PROTOSS)}
SIMULATED: tuple[RaceRules, ...] = tuple(r for r in RACES.values() if r.economy_simulated)

# Generic ability ids every race accepts (the real client's; burnysc2's AbilityId names).
HARVEST_GATHER, HARVEST_RETURN = 3666, 3667
RALLY_UNITS, RALLY_WORKERS = 3673, 3690
CANCEL_LAST = 3671

TRAINS: dict[int, tuple[tuple[int, ...], int]] = {ab: v for r in SIMULATED for ab, v in r.trains.items()}
"""Train ability -> (producing structures, unit), every simulated race."""
BUILDS: dict[int, int] = {ab: v for r in SIMULATED for ab, v in r.builds.items()}
"""Build ability -> structure, every simulated race."""
WORKERS: frozenset[int] = frozenset().union(*(r.workers for r in SIMULATED))
TOWNHALLS: frozenset[int] = frozenset().union(*(r.townhalls for r in SIMULATED))
GAS_STRUCTURES: frozenset[int] = frozenset().union(*(r.gas_structures for r in SIMULATED))
SUPPLY_PROVIDERS: frozenset[int] = frozenset().union(*(r.supply_providers for r in SIMULATED))
PRODUCERS: frozenset[int] = frozenset(t for r in SIMULATED for t in r.rally)
"""Structures that produce units (a smart command on them sets their rally)."""
GATHER_ABILITIES: frozenset[int] = frozenset({HARVEST_GATHER, *(r.gather_ability for r in SIMULATED)})
RETURN_ABILITIES: frozenset[int] = frozenset({HARVEST_RETURN, *(r.return_ability for r in SIMULATED)})
RALLY_ABILITIES: frozenset[int] = frozenset({RALLY_UNITS, RALLY_WORKERS, *(a for r in SIMULATED for a in r.rally.values())})
CANCEL_LAST_ABILITIES: frozenset[int] = frozenset({CANCEL_LAST}).union(*(r.cancel_abilities for r in SIMULATED))


def of_type(unit_id: int) -> RaceRules:
    """The rules a unit of type ``unit_id`` follows (its race's); raises NotSimulatedError for a
    type of no race (resources, map objects)."""
    rules = RACES.get(D.unit_spec(unit_id).race)
    if rules is None:
        raise NotSimulatedError(f"unit type {unit_id} belongs to no race: no race rules apply to it")
    return rules


__all__ = ["BUILDS", "CANCEL_LAST_ABILITIES", "GAS_STRUCTURES", "GATHER_ABILITIES", "PRODUCERS", "PROTOSS",
           "RACES", "RALLY_ABILITIES", "RETURN_ABILITIES", "SIMULATED", "SUPPLY_PROVIDERS", "TERRAN", "TOWNHALLS",
           "TRAINS", "WORKERS", "ZERG", "MeleeStart", "NotSimulatedError", "RaceRules", "of_type"]
