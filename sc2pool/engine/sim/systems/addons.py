"""Add-ons: tech labs and reactors a Barracks, Factory or Starport builds beside itself.

Rules (the real game's; the client's ``ResponseData`` for costs, times and ids through
``data.tech.ADDON``):

- *building*: a finished Barracks, Factory or Starport with nothing in production, not upgrading
  and without an add-on builds one with its specific ability (421/422, 454/455, 487/488) or the
  generic one burnysc2 sends (3682 ``BUILD_TECHLAB``, 3683 ``BUILD_REACTOR``, the specific
  abilities' ``remaps_to_ability_id``), paying the client's cost (50/25, 50/50).  The add-on
  appears at once at :data:`ADDON_OFFSET` from its structure's centre, a 2x2 structure under
  construction that grows for the client's time (400 / 800 loops) from 10% life; the spot must be
  free as for any structure (placeable cells, no structure, resource or rock: otherwise
  ``CantBuildLocationInvalid``).  While it grows, the structure's order is the add-on ability
  with its progress and the structure trains nothing.  The structure's ``add_on_tag`` names the
  add-on from the moment it appears (m: the real client may report it only once finished).
- *using*: a finished Reactor lets its structure train two units at once (LP:Reactor); a
  finished Tech Lab lets it train the units whose client data says ``require_attached`` (Marauder,
  Cyclone, Siege Tank, Thor, Banshee, Raven, Battlecruiser: LP:Tech_Lab).
- *losing*: a destroyed add-on leaves its structure without one; a destroyed structure leaves its
  add-on standing (LP:Tech_Lab), unattached.  Lifting off and landing are not simulated.

Sources: LP:Tech_Lab, LP:Reactor (https://liquipedia.net/starcraft2/<page>); the offset is the one
burnysc2's ``Unit.add_on_position`` and its examples use against the real client.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.commands import BUILDING_IS_UNDER_CONSTRUCTION, ERROR, SUCCESS
from sc2pool.engine.sim.encode import varint
from sc2pool.engine.sim.systems.construction import CONSTRUCTION_START_LIFE, Structure
from sc2pool.engine.sim.systems.workers import order_bytes

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

ADDON_OFFSET = (2.5, -0.5)
"""An add-on's centre relative to its structure's: the 3x3 structure's right edge is 1.5 from its
centre, the 2x2 add-on's centre 1 further, their bottom rows level (burnysc2's
``Unit.add_on_position``; python-sc2's ``onebase_battlecruiser`` example checks these cells)."""
BUILD_TECHLAB, BUILD_REACTOR = 3682, 3683
"""The generic add-on build abilities (the specific ones' ``remaps_to_ability_id``)."""
REACTOR_SLOTS = 2
"""Units a structure with a Reactor trains at once (LP:Reactor)."""
TECHLABS = frozenset(tech.satisfies(tech.TECHLAB))
"""The Tech Lab and its attached forms (the client's ``tech_alias``)."""
REACTORS = frozenset(tech.satisfies(tech.REACTOR))
_BY_STRUCTURE: dict[int, dict[int, int]] = {}
"""Structure type -> {generic ability: its specific add-on ability}."""
for _a in tech.ADDON.values():
    _BY_STRUCTURE.setdefault(_a.structure, {})[_a.generic_ability] = _a.ability_id
ABILITIES = frozenset({BUILD_TECHLAB, BUILD_REACTOR, *tech.ADDON})
"""Every ability that builds an add-on."""


def addon_spot(x: float, y: float) -> tuple[float, float]:
    """Centre of the add-on of a structure centred at (x, y)."""
    return x + ADDON_OFFSET[0], y + ADDON_OFFSET[1]


class AddOns:
    """Builds add-ons and answers what a structure's add-on allows; reports ``add_on_tag``."""

    def __init__(self, world: World) -> None:
        self.w = world

    def specific(self, ability: int, unit_id: int) -> int:
        """The specific add-on ability of ``ability`` (specific or generic) for a structure of
        type ``unit_id``; 0 when that structure cannot use it."""
        mine = _BY_STRUCTURE.get(unit_id)
        if not mine:
            return 0
        if ability in mine:
            return mine[ability]
        return ability if ability in mine.values() else 0

    def attached(self, s: Structure) -> Structure | None:
        """The finished add-on attached to ``s``, if any."""
        a = self.w.construction.structures.get(s.addon) if s.addon else None
        return a if a is not None and a.ready else None

    def slots(self, s: Structure) -> int:
        """Units ``s`` trains at once: two with a finished Reactor, else one."""
        a = self.attached(s)
        return REACTOR_SLOTS if a is not None and a.unit_id in REACTORS else 1

    def has(self, s: Structure, addon: int) -> bool:
        """Whether ``s`` has a finished add-on that counts as ``addon`` (``tech.TECHLAB``)."""
        a = self.attached(s)
        return a is not None and a.unit_id in tech.satisfies(addon)

    def building(self, s: Structure) -> Structure | None:
        """The add-on ``s`` is building, if any."""
        a = self.w.construction.structures.get(s.addon) if s.addon else None
        return a if a is not None and not a.ready else None

    # ------------------------------------------------------------------ commands
    def build(self, player: int, ability: int, rows: np.ndarray) -> int:
        """The first of ``rows`` that can starts building the add-on of ``ability``."""
        w = self.w
        u = w.u
        structures = w.construction.structures
        first_error = 0
        for i in rows.tolist():
            s = structures.get(int(u.tag[i]))
            ab = self.specific(ability, s.unit_id) if s is not None else 0
            if s is None or not ab:
                first_error = first_error or ERROR
                continue
            if not s.ready:
                first_error = first_error or BUILDING_IS_UNDER_CONSTRUCTION
                continue
            if s.busy or s.addon:
                first_error = first_error or ERROR
                continue
            spec = tech.ADDON[ab]
            x, y = addon_spot(s.x, s.y)
            res = w.placement.fits(spec.unit_id, x, y)
            if res != SUCCESS:
                first_error = first_error or res
                continue
            res = w.supply.afford(player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                return res
            w.supply.pay(player, spec.minerals, spec.vespene)
            now = w.events.now
            tag = int(w.spawn(spec.unit_id, s.owner, [x], [y])[0])
            a = Structure(tag, spec.unit_id, s.owner, x, y, float(spec.time), 0.0, since=now, host=s.tag)
            structures[tag] = a
            w.u.hp[w.u.row(tag)] = D.unit_spec(spec.unit_id).hp * CONSTRUCTION_START_LIFE
            s.addon = tag
            w.events.push(now + int(math.ceil(spec.time)), tag, True)
            w.supply.revision += 1
            return SUCCESS
        return first_error or ERROR

    def forget(self, alive: set[int]) -> None:
        """Add-ons gone leave their structures without one; structures gone leave their add-ons
        unattached."""
        for s in self.w.construction.structures.values():
            if s.addon and s.addon not in alive:
                s.addon = 0
            if s.host and s.host not in alive:
                s.host = 0

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """``add_on_tag`` (field 23) of every structure with an add-on; a structure building one
        shows the add-on ability with its progress as its order, and is active."""
        structures = self.w.construction.structures
        loop = self.w.events.now
        for s in structures.values():
            if not s.addon or s.owner != player:
                continue
            b = b"\xb8\x01" + varint(s.addon)
            a = structures.get(s.addon)
            if a is not None and not a.ready:
                b += b"\xb8\x02\x01" + order_bytes(D.unit_spec(a.unit_id).creation_ability, progress=a.progress(loop))
            parts[s.tag] = parts.get(s.tag, b"") + b
