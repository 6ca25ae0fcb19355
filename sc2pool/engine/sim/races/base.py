"""The interface race rules implement (:class:`RaceRules`), and each race's melee start.

The systems ask the race rules wherever the races differ, and only there:

- *what produces a unit*: ``trains`` (ability -> producing structure, unit) for units trained in
  a structure's queue; larva (Zerg) and warp-in (Protoss) are other sources (``production``);
- *how a build order is carried out*: ``builds`` (ability -> structure) and ``construction``:
  Terran's worker walks to the site and builds while it stays there; Protoss's warps the
  structure in and leaves; Zerg's drone turns into the structure;
- what happens when a structure is finished (:meth:`RaceRules.on_structure_complete`: Terran's
  refinery builder starts harvesting from it);
- placement constraints beyond footprints (:meth:`RaceRules.placement`: creep, power);
- per-loop upkeep (:meth:`RaceRules.upkeep`: larva, creep, power);
- unit roles the economy needs: workers, townhalls (where cargo is dropped), supply providers,
  gas structures, which ability a producer's rally is, which abilities a worker's trips show;
- each race's melee start (:class:`MeleeStart`).

Rules belong to a race, not to a player: a unit follows the rules of its own type's race
(:func:`sc2pool.engine.sim.races.of_type`), as in the real game, where a player may own units of
another race.  A race whose economy is not simulated yet says so (``economy_simulated``) and
lists no abilities, so a command for it is answered as not simulated by the command path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

BUILDER_STAYS, BUILDER_LEAVES, BUILDER_CONSUMED = "stays", "leaves", "consumed"
"""How a race's worker carries out a build order (Terran, Protoss, Zerg)."""
QUEUE, LARVA, WARP_IN = "queue", "larva", "warp-in"
"""What produces a race's units: a structure's queue (Terran, most Protoss), larva (Zerg)."""


class NotSimulatedError(NotImplementedError):
    """A rule the engine does not simulate yet was asked for; the message names it."""


@dataclass(frozen=True)
class MeleeStart:
    """What a player of the race has on a melee map's first loop (LotV)."""

    townhall: int
    worker: int
    workers: int
    extras: tuple[tuple[int, int], ...]
    """(unit type, count) besides the townhall and the workers."""
    minerals: int
    vespene: int
    food_used: int
    food_cap: int
    """Supply as the first observation reports it (used / provided by the townhall and extras)."""


@dataclass(frozen=True)
class RaceRules:
    """One race's rules; the systems read the tables and call the hooks (see the module
    docstring).  Subclasses override the hooks; the base answers "not simulated"."""

    race: int
    """``common_pb2.Race`` value."""
    name: str
    economy_simulated: bool
    start: MeleeStart
    production: str = QUEUE
    construction: str = BUILDER_STAYS
    workers: frozenset[int] = frozenset()
    townhalls: frozenset[int] = frozenset()
    """Structures a worker drops its cargo at."""
    supply_providers: frozenset[int] = frozenset()
    gas_structures: frozenset[int] = frozenset()
    """Structures built on a vespene geyser that workers harvest gas from."""
    trains: Mapping[int, tuple[tuple[int, ...], int]] = field(default_factory=dict)
    """Train ability -> (the structures that produce it, unit)."""
    builds: Mapping[int, int] = field(default_factory=dict)
    """Build ability of a worker -> structure."""
    rally: Mapping[int, int] = field(default_factory=dict)
    """Producing structure -> the rally ability its abilities query lists."""
    gather_ability: int = 0
    """The ability a worker's order shows while it walks to, waits at or mines a resource."""
    return_ability: int = 0
    """The ability a worker's order shows while it carries cargo home."""
    cancel_abilities: frozenset[int] = frozenset()
    """Race-specific abilities that cancel the last entry of a structure's queue (besides the
    generic CANCEL_LAST every race accepts)."""

    def on_structure_complete(self, world: World, s: Structure, builder: int, loop: int) -> None:
        """A structure of this race finished at ``loop``; ``builder`` is the tag of the worker
        that was building it (0: none)."""
        raise NotSimulatedError(f"{self.name} construction is not simulated yet")

    def placement(self, world: World, unit_id: int, x: float, y: float) -> int | None:
        """The race's own placement rules (creep, power) at (x, y), checked after the footprint
        rules every race shares: an ActionResult refusing the spot, or None."""
        raise NotSimulatedError(f"{self.name} placement rules (creep, power) are not simulated yet")

    def upkeep(self, world: World, player: int, loop: int) -> None:
        """Rules that run every economy step for a player of this race (larva, creep, power)."""
        raise NotSimulatedError(f"{self.name} upkeep (larva, creep, power) is not simulated yet")
