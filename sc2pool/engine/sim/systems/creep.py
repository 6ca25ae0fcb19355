"""Creep: the Zerg ground cover, a grid of cells spread by Hatcheries and Creep Tumors.

Rules (the real game's; sources in brackets, "(m)" where the engine chose):

- Creep is a terrain feature no player owns (LP:Creep): one grid for the game, on pathable
  cells only (m: the real creep does not climb cliffs it cannot reach; the engine covers every
  pathable cell in the disc).
- *sources*: a finished Hatchery, Lair or Hive spreads creep to :data:`TOWNHALL_RADIUS` round its
  centre (LP:Lair_(Legacy_of_the_Void), LP:Creep: the three have the same creep radius); a
  burrowed Creep Tumor (137) to :data:`TUMOR_RADIUS` (LP:Creep_Tumor); a finished Nydus Worm
  (142) to ``nydus.WORM_CREEP_RADIUS`` (m, ``systems/nydus.py``).  A melee start's Hatchery
  has its creep at once (the real game's first observation shows it).
- *Overlords* (1692 ``BEHAVIOR_GENERATECREEPON`` with a Lair or Hive, LP:Lair; 1693 off): an
  Overlord generating creep is a source of radius :data:`OVERLORD_RADIUS` (m) while it stands
  still (m); when it moves away the old patch recedes and a new one starts where it stops.
- *spreading*: a new source's disc grows from the source's own radius by one cell every
  :data:`SPREAD_LOOPS` (m: the real growth rate is not known here); *receding*: when the source
  dies its disc shrinks by one cell every :data:`RECEDE_LOOPS` (m) and cells no other source covers
  lose their creep.
- *placement*: a Zerg structure other than the Hatchery and the Extractor needs creep under every
  cell of its footprint (LP:Creep); otherwise ``CantBuildLocationInvalid`` (m: the real client's
  code, ``CantBuildNeedsCreep``... is not known here).
- *speed*: a Zerg ground unit on creep moves faster: +30% for most, a Queen 2.67 times as fast
  (166.67% faster), a Hydralisk +50%, an uprooted Spine or Spore Crawler 2.5 times (LP:Creep);
  not Drones, Larvae, Broodlings nor Changelings (LP:Creep).  The bonus follows a unit's cell at
  each economy step (m: the real game applies it as the unit moves).
- *other races*: a Terran or Protoss structure may not be built or landed where any cell of its
  footprint has creep (LP:Creep): ``CantBuildLocationInvalid`` (m: the real code not known here).
- *observation*: ``ObservationRaw.map_state.creep``, one bit per cell, row-major from y = 0, as
  the real client reports it (burnysc2's ``state.creep``); the whole grid (m: the real client
  shows creep under fog as last seen).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.sim.commands import CANT_BUILD_LOCATION_INVALID
from sc2pool.engine.sim.systems.placement import half_size

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

TOWNHALLS = frozenset({86, 100, 101})
TUMOR_BURROWED = 137
NYDUS_WORM = 142
TOWNHALL_RADIUS = 11.0
"""LP:Lair_(Legacy_of_the_Void): "The Lair's vision range (11) is far enough to see to the edge of its
own creep, whereas a Hatchery's vision (10) can't quite see to the edge" (and LP:Creep: a Hatchery's
vision is one less than its creep range, a Lair's and a Hive's creep is the Hatchery's): creep to
11 from the centre (m: the distance measured from the centre).  The client's sight of a Hatchery
is 12, not LP's 10: the page's vision figures may predate a change, its creep extent is taken."""
OVERLORD_RADIUS = 4.0
"""(m) An Overlord generating creep: LP gives no radius here (other wikis: "a small patch")."""
OVERLORDS = frozenset({106, 129, 893, 1912})
"""Overlord, Overseer, Transport Overlord, Overseer (siege mode): the types that may generate creep."""
TUMOR_RADIUS = 10.0
"""LP:Creep_Tumor."""
SPREAD_LOOPS = 8
"""(m) One cell of spread per 8 loops."""
RECEDE_LOOPS = 16
"""(m) One cell of recession per 16 loops."""


CREEP_SPEED = {126: 8 / 3, 107: 1.5, 139: 2.5, 140: 2.5}
"""Speed factors on creep other than the usual 1.3 (LP:Creep): Queen, Hydralisk, uprooted Spine and
Spore Crawlers."""
NO_CREEP_SPEED = frozenset({104, 151, 103, 289, 12, 13, 14, 15, 16, 17})
"""Zerg ground units without the bonus: Drone, Larva, Egg, Broodling, Changelings (LP:Creep)."""
CREEP_FACTOR = 1.3


def _factors() -> np.ndarray:
    """Per type row: the speed factor on creep (1.0 for all but Zerg ground units that move)."""
    from sc2pool.engine import data as D
    from sc2pool.engine.sim.units import TYPES

    out = np.ones(len(TYPES.unit_id))
    for i, s in enumerate(TYPES.specs):
        if s.race == D.ZERG and not s.is_flying and not s.is_structure and s.unit_id not in NO_CREEP_SPEED \
                and TYPES.speed[i] > 0:
            out[i] = CREEP_SPEED.get(int(s.unit_id), CREEP_FACTOR)
    return out


@dataclass
class Source:
    x: float
    y: float
    top: float
    """The radius it spreads to."""
    r: float
    """Its disc's radius now."""
    since: int
    """The loop ``r`` was last updated."""
    alive: bool = True


class Creep:
    """The creep grid and its sources (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.sources: dict[int, Source] = {}
        self.generating: set[int] = set()
        """Overlords with Generate Creep on."""
        self._grid: np.ndarray | None = None
        self._radii: tuple[int, ...] = ()
        self._version: tuple[int, int] = (-1, -1)
        self._last = -1
        self.revision = 0
        """Bumped whenever the grid changes."""
        self._factor: np.ndarray | None = None
        self._applied = np.ones(0)
        """Per row: the creep factor its speed column holds now."""
        self._applied_version = -1

    @property
    def active(self) -> bool:
        return bool(self.sources)

    @property
    def grid(self) -> np.ndarray:
        """bool[height, width]: cells with creep."""
        if self._grid is None:
            m = self.w.map
            self._grid = np.zeros((m.height, m.width), dtype=bool)
        return self._grid

    def add_source(self, tag: int, x: float, y: float, top: float, full: bool = False) -> None:
        """A creep source appears (``full``: its creep is there already, a melee start)."""
        r0 = top if full else 1.0
        self.sources[tag] = Source(x, y, top, r0, self.w.loop)
        self._redraw()

    # ------------------------------------------------------------------ per step
    def upkeep(self, loop: int) -> None:
        """Find new and dead sources, grow and shrink the discs up to ``loop``."""
        if loop == self._last:
            return
        self._last = loop
        w = self.w
        key = (w.u.version, w.supply.revision)
        if key != self._version or self.generating:
            self._version = key
            self._sync(loop)
        changed = False
        for tag, s in list(self.sources.items()):
            if s.alive and s.r < s.top:
                steps = (loop - s.since) // SPREAD_LOOPS
                if steps:
                    s.r = min(s.top, s.r + steps)
                    s.since += steps * SPREAD_LOOPS
                    changed = True
            elif not s.alive:
                steps = (loop - s.since) // RECEDE_LOOPS
                if steps:
                    s.r -= steps
                    s.since += steps * RECEDE_LOOPS
                    changed = True
                    if s.r <= 0:
                        del self.sources[tag]
        if changed:
            self._redraw()

    def _sync(self, loop: int) -> None:
        """Sources from the structures: finished townhalls and burrowed tumors; dead ones recede."""
        w = self.w
        u = w.u
        seen: set[int] = set()
        for tag, s in w.construction.structures.items():
            if s.unit_id in TOWNHALLS and s.ready:
                seen.add(tag)
                if tag not in self.sources:
                    self.sources[tag] = Source(s.x, s.y, TOWNHALL_RADIUS, 1.0, loop)
            elif s.unit_id == NYDUS_WORM and s.ready:
                from sc2pool.engine.sim.systems.nydus import WORM_CREEP_RADIUS

                seen.add(tag)
                if tag not in self.sources:
                    self.sources[tag] = Source(s.x, s.y, WORM_CREEP_RADIUS, 1.0, loop)
        rows = np.nonzero(u.unit_id == TUMOR_BURROWED)[0]
        for r in rows.tolist():
            tag = int(u.tag[r])
            seen.add(tag)
            if tag not in self.sources:
                self.sources[tag] = Source(float(u.x[r]), float(u.y[r]), TUMOR_RADIUS, 1.0, loop)
        for tag, src in self.sources.items():
            if src.alive and tag not in seen and u.row(tag) < 0:
                src.alive = False
                src.since = loop
        if self.generating:
            self._overlords(loop)

    def _overlords(self, loop: int) -> None:
        """Overlords generating creep: a source where each stands still; one that moved leaves its
        patch to recede (under a key of its own) and starts another when it stops."""
        u = self.w.u
        for tag in list(self.generating):
            r = u.row(tag)
            if r < 0 or int(u.unit_id[r]) not in OVERLORDS:
                self.generating.discard(tag)
                continue
            x, y = float(u.x[r]), float(u.y[r])
            src = self.sources.get(tag)
            still = int(u.kind[r]) == 0  # (IDLE)
            if src is not None and (abs(src.x - x) > 0.5 or abs(src.y - y) > 0.5):
                src.alive = False
                src.since = loop
                self.sources[-(tag * 1000 + loop % 1000) - 1] = self.sources.pop(tag)
                src = None
            if src is None and still:
                self.sources[tag] = Source(x, y, OVERLORD_RADIUS, 1.0, loop)

    def generate(self, rows: list[int], on: bool) -> None:
        """Generate Creep on or off for the Overlords of ``rows``."""
        u = self.w.u
        for r in rows:
            tag = int(u.tag[r])
            if on:
                self.generating.add(tag)
            else:
                self.generating.discard(tag)
                src = self.sources.get(tag)
                if src is not None:
                    src.alive = False
                    src.since = self.w.loop
                    self.sources[-(tag * 1000 + self.w.loop % 1000) - 1] = self.sources.pop(tag)
        self._version = (-1, -1)

    def horizon(self, loop: int) -> int:
        """Loops until the creep next changes (>= 1)."""
        h = 1 << 30
        for s in self.sources.values():
            if s.alive and s.r < s.top:
                h = min(h, s.since + SPREAD_LOOPS - loop)
            elif not s.alive:
                h = min(h, s.since + RECEDE_LOOPS - loop)
        return max(1, h)

    def _redraw(self) -> None:
        m = self.w.map
        grid = np.zeros((m.height, m.width), dtype=bool)
        for s in self.sources.values():
            r = s.r
            if r <= 0:
                continue
            x0, x1 = max(0, int(math.floor(s.x - r))), min(m.width, int(math.ceil(s.x + r)) + 1)
            y0, y1 = max(0, int(math.floor(s.y - r))), min(m.height, int(math.ceil(s.y + r)) + 1)
            if x0 >= x1 or y0 >= y1:
                continue
            cx = np.arange(x0, x1) + 0.5 - s.x
            cy = np.arange(y0, y1) + 0.5 - s.y
            grid[y0:y1, x0:x1] |= (cx[None, :] ** 2 + cy[:, None] ** 2) <= r * r
        pathable = getattr(m, "pathable", None)
        if pathable is not None and getattr(pathable, "shape", None) == grid.shape:
            grid &= pathable | self._footprints(grid.shape)
        self._grid = grid
        self.revision += 1

    def _footprints(self, shape: tuple[int, ...]) -> np.ndarray:
        """Cells under the structures (not pathable, but creep lies under Zerg structures)."""
        out = np.zeros(shape, dtype=bool)
        for s in self.w.construction.structures.values():
            hx, hy = half_size(s.unit_id)
            if hx <= 0:
                continue
            out[max(0, int(round(s.y - hy))):int(round(s.y + hy)), max(0, int(round(s.x - hx))):int(round(s.x + hx))] = True
        return out

    def speed_bonus(self) -> bool:
        """Zerg ground units on creep get their creep speed, the others lose it; True when a
        speed changed.  (The store re-derives speeds from the types when units are added or
        removed: the factors applied are forgotten then.)"""
        u = self.w.u
        if self._factor is None:
            self._factor = _factors()
        if self._applied_version != u.version:
            self._applied_version = u.version
            self._applied = np.ones(len(u))
        fac = self._factor[u.ti]
        cand = np.nonzero(fac != 1.0)[0]
        if not len(cand):
            return False
        g = self.grid
        ix = np.clip(u.x[cand].astype(np.int64), 0, g.shape[1] - 1)
        iy = np.clip(u.y[cand].astype(np.int64), 0, g.shape[0] - 1)
        want = np.where(g[iy, ix], fac[cand], 1.0)
        have = self._applied[cand]
        change = want != have
        if not change.any():
            return False
        rows = cand[change]
        u.speed[rows] *= want[change] / have[change]
        self._applied[rows] = want[change]
        u.max_speed = max(u.max_speed, float(u.speed[rows].max()))
        return True

    # ------------------------------------------------------------------ what others ask
    def has(self, x: float, y: float) -> bool:
        """Whether the cell of (x, y) has creep."""
        g = self.grid
        ix, iy = int(x), int(y)
        return 0 <= iy < g.shape[0] and 0 <= ix < g.shape[1] and bool(g[iy, ix])

    def placement(self, unit_id: int, x: float, y: float) -> int | None:
        """A structure that needs creep at (x, y), already snapped: refused unless every cell of
        its footprint has creep."""
        hx, hy = half_size(unit_id)
        g = self.grid
        xa, xb, ya, yb = int(round(x - hx)), int(round(x + hx)), int(round(y - hy)), int(round(y + hy))
        if xa < 0 or ya < 0 or yb > g.shape[0] or xb > g.shape[1] or not g[ya:yb, xa:xb].all():
            return CANT_BUILD_LOCATION_INVALID
        return None

    def forbids(self, unit_id: int, x: float, y: float) -> int | None:
        """A Terran or Protoss structure at (x, y), already snapped: refused when any cell of its
        footprint has creep (LP:Creep: they cannot be built or landed on creep)."""
        from sc2pool.engine import data as D

        if D.unit_spec(unit_id).race == D.ZERG:
            return None
        hx, hy = half_size(unit_id)
        g = self.grid
        xa, xb = max(0, int(round(x - hx))), int(round(x + hx))
        ya, yb = max(0, int(round(y - hy))), int(round(y + hy))
        return CANT_BUILD_LOCATION_INVALID if g[ya:yb, xa:xb].any() else None

    def image_bytes(self) -> bytes:
        """The grid packed one bit per cell, row-major from y = 0 (the client's ``ImageData``)."""
        return np.packbits(self.grid.reshape(-1)).tobytes()
