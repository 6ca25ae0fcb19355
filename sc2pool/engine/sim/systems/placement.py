"""Placement: where a structure may be built.

A structure's footprint (a rectangle of whole cells, centred as the real client centres it: odd
sizes on cell centres, even sizes on cell corners) must lie on placeable cells and overlap no
structure or resource footprint; a townhall must stay 6 from mineral fields and 7 from geysers
(the rule burnysc2's expansion finder uses; the real game forbids a band around resources); a gas
structure goes on a free geyser; then the structure's race adds its own rules (creep, power:
:meth:`sc2pool.engine.sim.races.base.RaceRules.placement`).  The engine's arenas are flat: the
placement grid is the pathable grid.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.sim.commands import (
    CANT_BUILD_LOCATION_INVALID,
    CANT_BUILD_ON_THAT,
    CANT_BUILD_TOO_CLOSE_TO_RESOURCES,
    ERROR,
    NOT_SUPPORTED,
    SUCCESS,
)
from sc2pool.engine.sim.races import BUILDS, GAS_STRUCTURES, TOWNHALLS, of_type
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.harvest import Resource
    from sc2pool.engine.sim.world import World

FOOTPRINT: dict[int, tuple[float, float]] = {
    D.COMMANDCENTER: (2.5, 2.5), D.SUPPLYDEPOT: (1.0, 1.0), D.BARRACKS: (1.5, 1.5), D.REFINERY: (1.5, 1.5),
    D.MINERALFIELD: (1.0, 0.5), D.MINERALFIELD750: (1.0, 0.5), D.VESPENEGEYSER: (1.5, 1.5),
}
"""Half sizes (x, y) of the footprints, in cells: a mineral field is 2 x 1, a geyser 3 x 3.  Other
types: :func:`half_size` (their placement footprint in the engine facts)."""
TOWNHALL_MINERAL_GAP, TOWNHALL_GEYSER_GAP = 6.0, 7.0


def half_size(unit_id: int) -> tuple[float, float]:
    """Half sizes (x, y) of a structure's or resource's footprint: :data:`FOOTPRINT`, else the
    engine facts' placement footprint (``KeyError`` for a type that is not placed on the grid)."""
    hs = FOOTPRINT.get(unit_id)
    if hs is None:
        from sc2pool.engine.data import units as F

        fp = F.facts(unit_id).fp
        if fp is None:
            raise KeyError(f"unit type {unit_id} has no placement footprint")
        hs = FOOTPRINT[unit_id] = (fp[0] / 2.0, fp[1] / 2.0)
    return hs


def has_footprint(unit_id: int) -> bool:
    try:
        half_size(unit_id)
    except KeyError:
        return False
    return True


def snap(v: float, half: float) -> float:
    """Centre of a footprint of half size ``half`` on the cell grid: odd sizes (half = k + 0.5)
    sit on cell centres, even sizes on cell corners."""
    if abs(half - round(half)) < 1e-6:
        return float(round(v))
    return math.floor(v) + 0.5


class Placement:
    """Placement checks; holds nothing between them."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.obstacles: dict[int, np.ndarray] = {}
        """Neutral obstacles that are neither structures nor resources (rocks, debris): tag ->
        the flat indices of the cells they cover."""
        self._blocked: np.ndarray | None = None
        self.asking = 0
        """The player whose placement is checked now (0: not known), for the race rules that
        depend on the player (a Protoss power field)."""

    def add_obstacle(self, tag: int, cells: np.ndarray) -> None:
        """A neutral obstacle (destructible rocks) covering ``cells`` (flat indices into the map's
        grid): nothing may be built there while it stands."""
        self.obstacles[tag] = cells
        self._blocked = None

    def forget(self, alive: set[int]) -> None:
        """Obstacles whose unit is gone (destroyed rocks) free their cells."""
        gone = [t for t in self.obstacles if t not in alive]
        for t in gone:
            del self.obstacles[t]
        if gone:
            self._blocked = None

    @property
    def blocked(self) -> np.ndarray:
        """bool[height, width]: cells covered by an obstacle."""
        if self._blocked is None:
            m = self.w.map
            grid = np.zeros(m.width * m.height, dtype=bool)
            for cells in self.obstacles.values():
                grid[cells] = True
            self._blocked = grid.reshape(m.height, m.width)
        return self._blocked

    def query(self, ability: int, x: float, y: float, player: int = 0) -> int:
        """The answer to a ``RequestQuery.placements`` entry: :meth:`check` in a world with an
        economy, else :meth:`open_arena`."""
        if self.w.has_economy:
            from sc2pool.engine.sim.systems.modes import LAND_PRODUCT
            from sc2pool.engine.sim.systems.warpgate import WARPS

            landed = LAND_PRODUCT.get(ability)
            if landed is not None:  # where a flying structure may land
                return self.fits(landed, x, y)
            if ability in WARPS:  # where a Warp Gate may warp a unit in
                return self.w.warpgates.placement(player, ability, x, y)
            if ability == 1768:  # where a Nydus Network may summon a worm (systems/nydus.py)
                return self.w.nydus.placement(player, x, y)
            return self.check(ability, x, y, player)
        return self.open_arena(ability, x, y)

    def check(self, ability: int, x: float, y: float, player: int = 0) -> int:
        """ActionResult of placing the building of ``ability`` centred at (x, y) in a world with
        an economy (snapped to the grid like the real client: odd sizes on cell centres, even
        sizes on cell corners): footprints against the placement grid, structures and
        resources, townhalls kept away from resources, a gas structure on a free geyser, then
        the race's own rules."""
        uid = BUILDS.get(ability)
        if uid is None:
            return ERROR
        return self.fits(uid, x, y, player)

    def fits(self, uid: int, x: float, y: float, player: int = 0) -> int:
        """ActionResult of placing a structure of type ``uid`` centred at (x, y) (see
        :meth:`check`; add-ons are placed by type, beside their structure)."""
        if not (math.isfinite(x) and math.isfinite(y)):
            return CANT_BUILD_LOCATION_INVALID
        if uid in GAS_STRUCTURES:
            g = self.geyser_at(x, y)
            return SUCCESS if g is not None and g.refinery == 0 else CANT_BUILD_ON_THAT
        hx, hy = half_size(uid)
        x, y = snap(x, hx), snap(y, hy)
        m = self.w.map
        xa, xb, ya, yb = int(round(x - hx)), int(round(x + hx)), int(round(y - hy)), int(round(y + hy))
        if xa < 0 or ya < 0 or xb > m.width or yb > m.height or not m.placeable[ya:yb, xa:xb].all():
            return CANT_BUILD_LOCATION_INVALID
        if self.obstacles and self.blocked[ya:yb, xa:xb].any():
            return CANT_BUILD_LOCATION_INVALID
        for s in self.w.construction.structures.values():
            if not has_footprint(s.unit_id):
                continue  # a flying structure (lifted off) stands on no cell
            fx, fy = half_size(s.unit_id)
            if abs(s.x - x) < fx + hx - 1e-6 and abs(s.y - y) < fy + hy - 1e-6:
                return CANT_BUILD_LOCATION_INVALID
        for res in self.w.harvest.resources.values():
            fx, fy = half_size(res.unit_id)
            if abs(res.x - x) < fx + hx - 1e-6 and abs(res.y - y) < fy + hy - 1e-6:
                return CANT_BUILD_LOCATION_INVALID
        for res in self.w.harvest.resources.values():
            if uid in TOWNHALLS:
                gap = TOWNHALL_MINERAL_GAP if res.is_mineral else TOWNHALL_GEYSER_GAP
                if (res.x - x) ** 2 + (res.y - y) ** 2 < gap * gap:
                    return CANT_BUILD_TOO_CLOSE_TO_RESOURCES
        self.asking = player
        refused = of_type(uid).placement(self.w, uid, x, y)
        if refused is None and self.w.creep.active:  # (Terran and Protoss structures: not on creep)
            refused = self.w.creep.forbids(uid, x, y)
        return SUCCESS if refused is None else refused

    def enemy_in_the_way(self, uid: int, x: float, y: float, owner: int) -> bool:
        """Whether a ground unit of another player (not neutral; burrowed and cloaked ones too)
        stands on the footprint of a structure of type ``uid`` centred at (x, y).  The real game
        lets such a placement be ordered (the footprint shows green) and refuses it when the
        structure is placed or lands (the Arqade answer "Do burrowed units block building
        construction?"); the player's own units are pushed aside (``systems/collision.py``)."""
        if uid in GAS_STRUCTURES:
            return False
        u = self.w.u
        if not len(u):
            return False
        hx, hy = half_size(uid)
        x, y = snap(x, hx), snap(y, hy)
        ti = u.ti
        others = (u.owner != owner) & (u.owner != NEUTRAL_OWNER) & ~TYPES.is_flying[ti] & ~TYPES.structure[ti]
        if not others.any():
            return False
        rows = np.nonzero(others)[0]
        dx = np.maximum(np.abs(u.x[rows] - x) - hx, 0.0)
        dy = np.maximum(np.abs(u.y[rows] - y) - hy, 0.0)
        return bool((dx * dx + dy * dy < u.radius[rows] ** 2).any())

    def geyser_at(self, x: float, y: float) -> Resource | None:
        """The geyser whose footprint centre is within a cell and a half of (x, y), if any."""
        for res in self.w.harvest.resources.values():
            if not res.is_mineral and abs(res.x - x) <= 1.5 and abs(res.y - y) <= 1.5:
                return res
        return None

    def open_arena(self, ability: int, x: float, y: float) -> int:
        """Placement in a world without an economy (the mini-games): the ability's footprint
        (a square of its footprint radius) must lie on pathable cells and touch no ground unit."""
        spec = D.ABILITY_BY_ID.get(ability)
        if spec is None:
            return NOT_SUPPORTED
        if not spec.is_building:
            return ERROR
        if not (math.isfinite(x) and math.isfinite(y)):
            return CANT_BUILD_LOCATION_INVALID
        r = spec.footprint_radius
        m = self.w.map
        xa, xb = int(math.floor(x - r + 1e-6)), int(math.ceil(x + r - 1e-6))
        ya, yb = int(math.floor(y - r + 1e-6)), int(math.ceil(y + r - 1e-6))
        if xa < 0 or ya < 0 or xb > m.width or yb > m.height or not m.pathable[ya:yb, xa:xb].all():
            return CANT_BUILD_LOCATION_INVALID
        u = self.w.u
        if len(u):
            ur = TYPES.radius[u.ti]
            ground = ~TYPES.is_flying[u.ti]
            overlap = ground & (u.x + ur > xa) & (u.x - ur < xb) & (u.y + ur > ya) & (u.y - ur < yb)
            if overlap.any():
                return CANT_BUILD_LOCATION_INVALID
        return SUCCESS
