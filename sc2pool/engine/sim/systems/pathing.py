"""Pathing: where ground units may stand and walk on a ladder map, and the paths they follow.

The single owner of "which cells are blocked now": the map's pathable grid (terrain, doodads)
less the footprints of every standing structure (every player's, finished or not; a lowered
supply depot and a flying structure block nothing), mineral field, geyser (and the gas structure
on it) and destructible rock.  The set follows the unit store: a blocker blocks from the loop it
appears and stops when it dies, depletes or is removed (:meth:`Pathing.sync`).  One
:class:`~sc2pool.engine.terrain.PathFinder` per game answers the paths on that grid.

What the other systems ask of it (every step is skipped on the scenarios' flat arenas, which
have no terrain: ``active`` is false there and nothing here runs):

- *point movers* (move, attack-move, patrol) walk their path one straight segment at a time:
  the store's ``wx``/``wy`` is the waypoint the segment ends at, ``ex``/``ey`` where the walk ends
  (the order's point, or the reachable point nearest to it), ``wp`` the waypoint's index in
  :attr:`Pathing.paths` (-1: a new order, planned at the start of the next loop: :meth:`plan`);
- *chasers* (attack unit, acquired targets, follow) walk straight at their target while the way
  ahead is free, and down a path to it where it is not (:meth:`chase`);
- *every ground unit* ends each loop on a free cell: one pushed into a blocked cell (collision,
  going round, a structure placed on it) is put back on the nearest free point (:meth:`project`);
  new units appear on free cells (:meth:`free_points`, :meth:`free_at`);
- *workers on an economy walk* follow a polyline whose length gives the walk's duration
  (:meth:`walk`);
- *fast-forwarding* stays exact: a quiet stretch needs every mover's current segment free
  (:meth:`segments_free`) and nobody on a blocked cell (:meth:`violators`), so stepping the same
  loops one by one would project nobody either;
- ``RequestQuery.pathing`` distances and game_info's pathing grid (:meth:`distance`,
  :meth:`blocked_cells`).

*Reapers* (``JUMPERS``) walk up and down cliffs (LP:Reaper): they stand, walk and plan their paths
on a second grid, the pathable cells plus the cliff cells between two levels (``jump_grid``),
less the same blockers, with its own PathFinder (made when the first Reaper walks).

Rules and measurements: ``docs/engine.md``, "Terrain in the simulation".
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.units import ECON, FLOAT_FIELDS, POINT_KINDS, TYPES

try:  # the C function behind np.count_nonzero, without its Python dispatch
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

if TYPE_CHECKING:
    from sc2pool.engine.maps import MapSpec
    from sc2pool.engine.sim.world import World
    from sc2pool.engine.terrain import PathFinder
    from sc2pool.engine.terrain.pathing import _Layer

_F_WX = FLOAT_FIELDS.index("wx")
"""The store's float row of ``wx`` (``wy``, ``ex``, ``ey`` follow it)."""
SUPPLYDEPOTLOWERED = 47
"""A lowered supply depot lets units walk over it (Liquipedia, "Supply Depot")."""
LOOKAHEAD = 4.0
"""A chaser looks this far ahead along its straight line to its target for a blocked cell."""
SAMPLE = 0.25
"""Spacing of the points the look-ahead tests (a quarter cell: a unit crossing a blocked cell's
corner by less than this is not caught, and no unit stands there at the end of a loop:
:meth:`Pathing.project`)."""
_SAMPLES = np.arange(int(math.ceil(LOOKAHEAD / SAMPLE)) + 1) * SAMPLE
"""The look-ahead's distances along the line (as many as the longest look needs)."""
CHASE_REPLAN = 16
"""A chaser following a path plans it again after this many loops (its target moves), or when it
reached the path's end and its way is still blocked."""
DROP_EVERY = 4
"""A chaser following a path looks whether its straight way is free again every this many loops."""
CHASING = -3
"""``wp`` of a chaser following a path (``wx``, ``wy``: its waypoint; an attack-mover among them
plans its own path again once it walks on)."""
WAYPOINT_REACHED = 0.25
"""A chaser this close to its waypoint heads for the next one."""
SHARED_PER_GOAL = 4
SHARED_GOALS = 64
"""Paths kept per point units were sent to lately (for other units sent there: a group's order),
and points kept."""
MOVED_GOAL = 4.0
"""A unit sent again to a point this close (in x plus y) to its path's point keeps its path and
changes only the last leg, when that leg is free (a defender sent at an enemy that moved)."""
SKIP = 1.0
"""A mover this close to its waypoint walks on to the next one as soon as it sees it (a group
rounding a corner does not have to squeeze through the corner's one point)."""
INSET = 0.01
"""A unit put back on a free cell stands this far inside it."""
WINDOW = 3
"""The nearest free point of a unit on a blocked cell is searched within this many cells first."""
_OFF = tuple((dx, dy) for dy in range(-WINDOW, WINDOW + 1) for dx in range(-WINDOW, WINDOW + 1))
_OFF1 = tuple((dx, dy) for dy in range(-1, 2) for dx in range(-1, 2))
JUMPERS = frozenset({49})
"""Types that walk up and down cliffs: the Reaper (LP:Reaper)."""
_JUMPER_LUT = np.isin(TYPES.unit_id, np.array(sorted(JUMPERS)))
JUMP_REACH = 3
"""An unpathable cell is a cliff a Reaper crosses when pathable cells of two different levels lie
within this many cells of it (m: cliff faces are 1-3 cells wide)."""
_PRISTINE: dict[tuple[str, int, int], PathFinder] = {}
"""One PathFinder per ladder map without any blocker (a game copies it: building one takes about
a second, a copy a few ms)."""


def _pristine(m: MapSpec) -> PathFinder:
    from sc2pool.engine.terrain import PathFinder

    key = (m.name, m.width, m.height)
    pf = _PRISTINE.get(key)
    if pf is None:
        pf = _PRISTINE[key] = PathFinder(m.pathable)
    return pf


_PRISTINE_JUMP: dict[tuple[str, int, int], PathFinder] = {}


def jump_grid(m: MapSpec) -> np.ndarray:
    """bool[h, w]: where a Reaper may stand and walk without units: the pathable cells, plus the
    unpathable cells with pathable cells of two different cliff levels within ``JUMP_REACH``
    cells (the cliff faces between levels; a doodad that close to a cliff counts too (m))."""
    from scipy import ndimage

    path = np.asarray(m.pathable, dtype=bool)
    level = np.asarray(m.ladder.level, dtype=np.int16)  # type: ignore[attr-defined]
    size = 2 * JUMP_REACH + 1
    hi = ndimage.maximum_filter(np.where(path, level, -1), size=size, mode="constant", cval=-1)
    lo = ndimage.minimum_filter(np.where(path, level, 99), size=size, mode="constant", cval=99)
    return path | ((hi >= 0) & (lo < 99) & (hi > lo))


def _pristine_jump(m: MapSpec) -> PathFinder:
    from sc2pool.engine.terrain import PathFinder

    key = (m.name, m.width, m.height)
    pf = _PRISTINE_JUMP.get(key)
    if pf is None:
        pf = _PRISTINE_JUMP[key] = PathFinder(jump_grid(m))
    return pf


UPROOTED_CRAWLERS = (139, 140)
"""SpineCrawlerUprooted, SporeCrawlerUprooted: client structures that walk (LP:Spine_Crawler)."""


@cache
def _blocker_types() -> np.ndarray:
    """bool per type row: units of the type block cells while they stand (structures on the
    ground; resources, towers, rocks and debris with a measured or a placement footprint)."""
    from sc2pool.engine.sim.systems.placement import has_footprint as placed
    from sc2pool.engine.terrain import has_footprint

    out = np.zeros(len(TYPES.specs), dtype=bool)
    for i, s in enumerate(TYPES.specs):
        if s.unit_id in (SUPPLYDEPOTLOWERED, *UPROOTED_CRAWLERS) or TYPES.is_flying[i]:
            continue  # (an uprooted Spine / Spore Crawler walks like a unit)
        if TYPES.structure[i] or has_footprint(s.name) or \
                ((TYPES.neutral[i] or TYPES.destructible[i]) and placed(s.unit_id)):
            out[i] = True
    return out


def blocker_cells(type_row: int, x: float, y: float, width: int, height: int) -> np.ndarray:
    """Flat indices (y * width + x) of the cells a unit of ``type_row`` at (x, y) blocks: its
    measured footprint (:mod:`sc2pool.engine.terrain.footprints`: townhalls, resources, rocks),
    else its placement footprint (a rectangle of whole cells, centred as the client centres it)."""
    from sc2pool.engine.sim.systems.placement import half_size
    from sc2pool.engine.terrain import footprint_cells, has_footprint

    name = TYPES.specs[type_row].name
    if has_footprint(name):
        c = footprint_cells(name, x, y)
        xs, ys = c[:, 0], c[:, 1]
    else:
        try:
            hx, hy = half_size(int(TYPES.unit_id[type_row]))
        except KeyError:
            return np.zeros(0, np.int64)
        xa, xb = max(int(round(x - hx)), 0), min(int(round(x + hx)), width)
        ya, yb = max(int(round(y - hy)), 0), min(int(round(y + hy)), height)
        if xb <= xa or yb <= ya:
            return np.zeros(0, np.int64)
        gy, gx = np.mgrid[ya:yb, xa:xb]
        xs, ys = gx.ravel(), gy.ravel()
    ok = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    return (ys[ok] * width + xs[ok]).astype(np.int64)


@cache
def _grid_size(width: int, height: int) -> np.ndarray:
    """uint64[2, 1, 1]: a grid's width and height, to test the x and y planes of cells against."""
    return np.array((width, height), dtype=np.uint64)[:, None, None]


def _sees(finder: PathFinder, radius: float, ax: float, ay: float, bx: float, by: float) -> bool:
    """Whether a unit of ``radius`` fits along the straight segment from (ax, ay) to (bx, by) on
    the finder's grid (its exact cell test, the one its paths are pulled with)."""
    return finder._layer(radius).segment_free(ax, ay, bx, by)


def _nearest_in(x: float, y: float, off: tuple[tuple[int, int], ...], reach: float, grid: np.ndarray, w: int, h: int
                ) -> tuple[float, float] | None:
    """The nearest point of a free cell to (x, y) among its cell's offsets ``off`` (the cells
    within ``reach`` - 1 of its own, row by row: the first of equally near ones), when it is
    the nearest of the whole grid (found within ``reach``: every cell further off is further
    away); else None.  (Plain Python: a handful of points, nine cells each, at a time.)"""
    ix, iy = int(x), int(y)
    best, bx, by = math.inf, 0.0, 0.0
    far = 1 - INSET
    for dx, dy in off:
        cx, cy = ix + dx, iy + dy
        if 0 <= cx < w and 0 <= cy < h and grid[cy * w + cx]:
            # (x, y) clamped into the cell's inset square (as min(max(x, lo), hi), without the calls)
            lo, hi = cx + INSET, cx + far
            qx = lo if lo > x else x
            qx = hi if hi < qx else qx
            lo, hi = cy + INSET, cy + far
            qy = lo if lo > y else y
            qy = hi if hi < qy else qy
            d2 = (qx - x) * (qx - x) + (qy - y) * (qy - y)
            if d2 < best:
                best, bx, by = d2, qx, qy
    return (bx, by) if best <= reach * reach else None


def _nearest_in_window(xs: np.ndarray, ys: np.ndarray, grid: np.ndarray, w: int, h: int) -> list[int]:
    """Moves each point (``xs[i]``, ``ys[i]``) to the nearest point of a free cell found among
    the 8 cells round its own, else within ``WINDOW`` cells (:func:`_nearest_in`), and returns
    the indices of the points with no free cell that near (left as they were).  The Python twin
    of the compiled ``nearest_in_window`` (:mod:`sc2pool.engine.kernels`)."""
    todo = []
    for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist(), strict=True)):
        got = _nearest_in(x, y, _OFF1, 1.0, grid, w, h) or _nearest_in(x, y, _OFF, float(WINDOW), grid, w, h)
        if got is None:
            todo.append(i)
        else:
            xs[i], ys[i] = got
    return todo


def _look_ahead(m: np.ndarray, tm: np.ndarray, md: np.ndarray, dist: np.ndarray, stop_at: np.ndarray,
                ti: np.ndarray, flying: np.ndarray, xy: np.ndarray, tags: np.ndarray, jumpers: np.ndarray,
                free: np.ndarray, jump_free: np.ndarray | None, cell_tag: np.ndarray, w: int, h: int,
                out: np.ndarray) -> bool:
    """Marks in ``out`` the chasers ``m`` (targets ``tm``, ``md`` from each to its target, x and
    y as two rows, ``dist`` its length, ``stop_at`` the distance each stops at) whose straight line
    is blocked: a point of the next ``LOOKAHEAD`` cells of it (short of where the chaser stops,
    ``SAMPLE`` apart) off the map or on a cell not ``free`` and not the target's own (``cell_tag``
    against ``tags``).  Flyers (``flying`` per type row ``ti``) are never blocked; ``jumpers``
    (per unit row) look on ``jump_free``: False, with ``out`` unfinished, when one looks and it
    is None.  ``xy``: the units' x then y (flat).  The Python twin of the compiled
    ``look_ahead`` (:mod:`sc2pool.engine.kernels`)."""
    look = np.minimum(np.maximum(dist - stop_at, 0.0), LOOKAHEAD) - 0.05
    test = look > 0
    test &= ~flying[ti[m]]
    if not _count(test):
        return True
    tc = test.nonzero()[0]  # the chasers that look
    mt, lt = m.take(tc), look.take(tc)
    jump = jumpers[mt]
    if jump_free is None and _count(jump):
        return False
    n_s = int(math.ceil(float(lt.max()) / SAMPLE)) + 1
    s = np.minimum(_SAMPLES[None, :n_s], lt[:, None])  # (rows, samples)
    # the sample points, x and y as the two planes of one (2, rows, samples) block
    pxy = (md.take(tc, axis=1) / dist.take(tc))[:, :, None] * s
    pxy += xy.reshape(2, -1).take(mt, axis=1)[:, :, None]
    cxy = pxy.astype(np.int64)
    # (as unsigned, a negative cell is beyond the far edge: one test per coordinate)
    within = cxy.view(np.uint64) < _grid_size(w, h)
    inside = within[0] & within[1]
    idx = cxy[1] * w
    idx += cxy[0]
    idx = np.where(inside, idx, 0)
    ok = free[idx]
    ok &= inside
    if _count(jump):  # (a Reaper's way is on its own grid)
        assert jump_free is not None
        ok[jump] = inside[jump] & jump_free[idx[jump]]
    if not ok.all():  # (a structure or rock chased: its own cells do not count)
        bad = (cell_tag[idx] != tags[tm[tc]][:, None]) > ok  # (on booleans ``a > b`` is ``a & ~b``)
        out[tc] = bad.any(axis=1)
    return True


def _pending_movers(kind: np.ndarray, point_kinds: np.ndarray, wp: np.ndarray, speed: np.ndarray, eng: np.ndarray
                    ) -> np.ndarray:
    """bool per unit row: ``point_kinds[kind]`` (an order to a point), no path yet (``wp`` < 0),
    mobile and no target (``eng`` 0).  The Python twin of the compiled ``pending_movers``
    (:mod:`sc2pool.engine.kernels`), which fills a given array instead."""
    need = point_kinds[kind]
    need &= wp < 0
    need &= speed > 0
    need &= eng == 0
    return need


def _nearest_waypoint(pts: np.ndarray, x: float, y: float) -> int:
    """The index of the waypoint of ``pts`` nearest to (x, y) (the first of equally near ones)."""
    return int(np.hypot(pts[:, 0] - x, pts[:, 1] - y).argmin())


def _resume_at(pts: np.ndarray, x: float, y: float, layer: _Layer) -> int | None:
    """The index of the waypoint of ``pts`` nearest to (x, y), or the one after it, that (x, y)
    sees along a free line on ``layer`` (the later one first); None when it sees neither.  The
    Python twin of the compiled ``resume_waypoint`` (:mod:`sc2pool.engine.kernels`)."""
    i = _nearest_waypoint(pts, x, y)
    for j in (i + 1, i):
        if j < len(pts) and layer.segment_free(x, y, float(pts[j, 0]), float(pts[j, 1])):
            return j
    return None


def _skip_candidates(rows: np.ndarray, hxy: np.ndarray, wp: np.ndarray, we: np.ndarray) -> list[int]:
    """The indices of the point movers ``rows`` within ``SKIP`` of their waypoint (``hxy``: from
    each to it, x and y as two rows) that walk a path (``wp`` >= 0) and whose waypoint is not the
    walk's end (``we``: the store's wx, wy, ex, ey rows).  The Python twin of the compiled
    ``skip_candidates`` (:mod:`sc2pool.engine.kernels`)."""
    sq = hxy * hxy
    near = sq[0] + sq[1] < SKIP * SKIP
    near &= wp.take(rows) >= 0
    we = we.take(rows, axis=1)
    other = we[:2] != we[2:]  # (the waypoint is not the walk's end)
    near &= other[0] | other[1]
    if not _count(near):
        return []
    return near.nonzero()[0].tolist()  # type: ignore[no-any-return]


def _chase_prep(md: np.ndarray, m: np.ndarray, wp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lengths of the chasers' ways to their targets (``md``, x and y as two rows) and which
    chasers ``m`` follow a path (``wp`` ``CHASING``).  The Python twin of the compiled
    ``chase_prep`` (:mod:`sc2pool.engine.kernels`), which fills given arrays and counts the
    followers."""
    return np.sqrt(md[0] * md[0] + md[1] * md[1]), wp[m] == CHASING


def _chase_pick(m: np.ndarray, tm: np.ndarray, tag: np.ndarray, blocked: np.ndarray, following: np.ndarray,
                loop: int) -> list[tuple[int, int, int, bool]]:
    """(index, tag, target's tag, whether it looks whether its straight way is free again) of each
    chaser of ``m`` (targets ``tm``) that ``following`` a path, in order: one that is not
    ``blocked`` looks every ``DROP_EVERY`` loops.  The Python twin of the compiled ``chase_pick``
    (:mod:`sc2pool.engine.kernels`)."""
    fi = following.nonzero()[0]
    tags = tag.take(m.take(fi))
    again = ((tags + loop) % DROP_EVERY == 0) > blocked.take(fi)  # (on booleans ``a > b`` is ``a & ~b``)
    return list(zip(fi.tolist(), tags.tolist(), tag.take(tm.take(fi)).tolist(), again.tolist(), strict=True))


def _chase_heads(m: np.ndarray, sel: np.ndarray, x: np.ndarray, y: np.ndarray, wx: np.ndarray, wy: np.ndarray,
                 dist: np.ndarray, md: np.ndarray, md_out: np.ndarray, cap: np.ndarray, check_near: bool) -> list[int]:
    """Headings of the chasers ``sel`` of ``m`` towards their waypoints (``wx``, ``wy``) from where
    they stand (``x``, ``y``).  With ``check_near``, the rows of those within ``WAYPOINT_REACHED``
    of it, when there are any (nothing written); else ``md_out`` is ``md`` (the ways to the
    targets, x and y as two rows) with each such chaser's column its heading at the length of
    ``dist``, ``cap`` its waypoint's distance (inf for the others), and [].  The Python twin of
    the compiled ``chase_heads`` (:mod:`sc2pool.engine.kernels`)."""
    oi = sel.nonzero()[0]
    rows = m[oi]
    hx = wx[rows] - x[rows]
    hy = wy[rows] - y[rows]
    hd = np.sqrt(hx * hx + hy * hy)
    if check_near:
        near = hd < WAYPOINT_REACHED
        if _count(near):
            return rows[near].tolist()  # type: ignore[no-any-return]
    md_out[...] = md
    cap.fill(np.inf)
    some = hd > 1e-9
    scale = np.where(some, dist[oi] / np.where(some, hd, 1.0), 0.0)
    md_out[0, oi] = hx * scale
    md_out[1, oi] = hy * scale
    cap[oi] = hd
    return []


def _violators(ground: np.ndarray, xy: np.ndarray, free: np.ndarray, jumpers: np.ndarray, jump_free: np.ndarray | None,
               kind: np.ndarray, w: int) -> np.ndarray:
    """Rows of the ``ground`` units whose centre (``xy``: x then y, flat) is on a cell not ``free``
    (flat, rows ``w`` wide; the ``jumpers``' on ``jump_free`` when it is not None), less those on
    an economy job (``kind``).  The Python twin of the compiled ``violators``
    (:mod:`sc2pool.engine.kernels`), which fills a given array and returns the count."""
    n = len(ground)
    cell = xy.astype(np.int64)  # (positions are inside the map: truncation is the floor)
    idx = cell[n:] * w
    idx += cell[:n]
    ok = free.take(idx)
    if jump_free is not None:  # (Reapers stand on their own grid)
        j = jumpers.nonzero()[0]
        ok[j] = jump_free.take(idx[j])
    bad = ground > ok  # (on booleans ``a > b`` is ``a & ~b``)
    if not _count(bad):
        return np.zeros(0, np.int64)
    bad &= kind != ECON  # workers on a job walk their own paths (:meth:`Pathing.walk`)
    return bad.nonzero()[0]


@dataclass
class _Jump:
    """The Reapers' grid: where they may stand without units (flat), less the blockers, and its
    PathFinder."""

    base: np.ndarray
    free: np.ndarray
    finder: PathFinder


@dataclass
class _Chase:
    """A chaser's path to its target (kept while the straight way is blocked)."""

    target: int
    """The target's tag."""
    pts: np.ndarray
    i: int
    """The waypoint it heads for (the store's ``wx``, ``wy``)."""
    loop: int
    """When the path was planned."""


class Pathing:
    """The blocked cells of one game, its PathFinder and the paths its units follow."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.u = world.u
        m = world.map
        self.active = bool(m.has_terrain)
        """Whether the map has terrain (a ladder map); on the flat arenas nothing here runs."""
        self.width, self.height = m.width, m.height
        self._finder: PathFinder | None = None
        self.blockers: dict[int, np.ndarray] = {}
        """Tag -> flat indices of the cells the unit blocks, for every blocker standing."""
        self._blocker_tags = np.zeros(0, np.int64)
        self.blockers_version = 0
        """Changes whenever a blocker appears or goes (after :meth:`sync`): game_info's pathing
        grid is cached per version."""
        self._version = -1
        self._count = np.zeros(0, np.int32)
        self.free = np.zeros(0, dtype=bool)
        """bool[height * width]: cells a ground unit may stand on now (flat, row y * width + x)."""
        self.paths: dict[int, np.ndarray] = {}
        """Tag -> (k, 2) waypoints of a point mover's walk (the store's ``wp`` indexes it)."""
        self.chases: dict[int, _Chase] = {}
        """Tag -> a chaser's path to its target, while it follows one (``wp`` ``CHASING``)."""
        self._targets: dict[int, tuple[float, float]] = {}
        """Tag -> the order's point a mover's path in ``paths`` was planned for."""
        self._verified: dict[int, tuple[float, float, float, float]] = {}
        """Tag -> (origin, waypoint) of the last segment found free (quiet stretches ask again)."""
        self._shared: OrderedDict[tuple[float, float, float, bool], list[np.ndarray]] = OrderedDict()
        """(point, radius) -> the paths planned to it lately (forgotten when a blocker appears or
        goes)."""
        self._straight: dict[tuple[float, float, float, float, float], bool] = {}
        """(start, end, radius) -> whether an economy walk's straight line is free: workers walk
        the same legs trip after trip (the grid's test is exact, so kept while no blocker
        appears or goes)."""
        self._straight_version = -1
        self._ground_version = -1
        self._ground = np.zeros(0, dtype=bool)
        self._jump: _Jump | None = None
        """The Reapers' grid and PathFinder (made when the first Reaper needs them)."""
        self._jumpers_version = -1
        self._jumpers = np.zeros(0, dtype=bool)
        if self.active:
            base = np.asarray(m.pathable, dtype=bool)
            self._base = base.ravel().copy()
            self._count = np.zeros(base.size, np.int32)
            self.free = self._base.copy()
            self._cell_tag = np.zeros(base.size, np.int64)
            """Per cell: the tag of the (last) blocker standing on it, 0 for none."""

    # ------------------------------------------------------------------ the blocked cells
    @property
    def finder(self) -> PathFinder:
        """The game's PathFinder (a copy of the map's, made on first use), kept in step with the
        blockers."""
        if self._finder is None:
            self._finder = _pristine(self.w.map).copy()
            self._finder.set_blocked_many((tag, self._xy(cells)) for tag, cells in self.blockers.items() if len(cells))
        return self._finder

    def jump(self) -> _Jump:
        """The Reapers' grid (free cells flat, as :attr:`free`) and PathFinder, in step with the
        blockers."""
        if self._jump is None:
            self.sync()
            base = jump_grid(self.w.map).ravel()
            finder = _pristine_jump(self.w.map).copy()
            finder.set_blocked_many((tag, self._xy(cells)) for tag, cells in self.blockers.items() if len(cells))
            self._jump = _Jump(base, base & (self._count == 0), finder)
        return self._jump

    def jumpers(self) -> np.ndarray:
        """bool per row: a unit that walks up and down cliffs (cached per unit set)."""
        u = self.u
        if self._jumpers_version != u.version:
            self._jumpers_version = u.version
            self._jumpers = _JUMPER_LUT[u.ti]
        return self._jumpers

    def finder_of(self, r: int) -> PathFinder:
        """The PathFinder row ``r`` walks by (a Reaper's own, else the game's)."""
        return self.jump().finder if _JUMPER_LUT[self.u.ti[r]] else self.finder

    def sync(self) -> None:
        """Bring the blocked cells in line with the units standing (after spawns and deaths):
        a new blocker blocks its cells, a gone one frees them."""
        u = self.u
        if self._version == u.version:
            return
        self._version = u.version
        if len(self.paths) + len(self.chases) + len(self._verified) > 3 * len(u) + 64:
            live = set(u.tag.tolist())  # (tags are never reused: stale records only cost memory)
            for d in (self.paths, self.chases, self._verified, self._targets):
                for t in [t for t in d if t not in live]:
                    del d[t]  # type: ignore[attr-defined]
        tags = u.tag[_blocker_types()[u.ti]]
        if len(tags) == len(self._blocker_tags) and not _count(tags != self._blocker_tags):
            return
        old = self._blocker_tags
        self._blocker_tags = tags.copy()
        gone = np.setdiff1d(old, tags, assume_unique=True)
        new = np.setdiff1d(tags, old, assume_unique=True)
        touched = []
        for t in gone.tolist():
            cells = self.blockers.pop(t)
            self._count[cells] -= 1
            mine = cells[self._cell_tag[cells] == t]
            self._cell_tag[mine] = 0
            touched.append(cells)
            if self._finder is not None:
                self._finder.set_blocked(t, None)
            if self._jump is not None:
                self._jump.finder.set_blocked(t, None)
        if len(new):
            rows = u.rows(new)
            for t, r in zip(new.tolist(), rows.tolist(), strict=True):
                cells = blocker_cells(int(u.ti[r]), float(u.x[r]), float(u.y[r]), self.width, self.height)
                self.blockers[t] = cells
                self._count[cells] += 1
                self._cell_tag[cells] = t
                touched.append(cells)
                if self._finder is not None and len(cells):
                    self._finder.set_blocked(t, self._xy(cells))
                if self._jump is not None and len(cells):
                    self._jump.finder.set_blocked(t, self._xy(cells))
        if touched:
            self.blockers_version += 1
            self._shared.clear()
            c = np.concatenate(touched)
            self.free[c] = self._base[c] & (self._count[c] == 0)
            if self._jump is not None:
                self._jump.free[c] = self._jump.base[c] & (self._count[c] == 0)

    def _xy(self, cells: np.ndarray) -> np.ndarray:
        """(n, 2) (x, y) cells of flat indices (the PathFinder's form)."""
        return np.stack((cells % self.width, cells // self.width), axis=1)

    def blocked_cells(self) -> dict[int, np.ndarray]:
        """Tag -> flat cells of every blocker standing now (game_info's pathing grid filters them
        by what each player knows)."""
        self.sync()
        return self.blockers

    def free_at(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """bool per point: its cell is free (inside the map, pathable, no blocker on it)."""
        self.sync()
        xi = np.floor(x).astype(np.int64)
        yi = np.floor(y).astype(np.int64)
        inside = (xi >= 0) & (xi < self.width) & (yi >= 0) & (yi < self.height)
        idx = np.where(inside, yi * self.width + xi, 0)
        return inside & self.free[idx]

    def free_points(self, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The points themselves where their cell is free, else the nearest point of a free cell."""
        ok = self.free_at(xs, ys)
        if _count(ok) == len(ok):
            return xs, ys
        xs, ys = xs.copy(), ys.copy()
        bad = (~ok).nonzero()[0]
        xs[bad], ys[bad] = self._nearest_free(xs[bad], ys[bad])
        return xs, ys

    def _nearest_free(self, px: np.ndarray, py: np.ndarray, grid: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """The nearest point inside a free cell to each point (``INSET`` inside the cell's edge):
        among the 8 cells round its own first (a unit pushed a little into a blocked cell), then
        within ``WINDOW`` cells, then anywhere.  ``grid``: the free cells (flat) to use instead of
        :attr:`free` (a Reaper's)."""
        grid = self.free if grid is None else grid
        ox, oy = px.copy(), py.copy()
        if _native is not None:
            todo = _native.nearest_in_window(ox, oy, grid, self.width, self.height, INSET, WINDOW)
        else:
            todo = _nearest_in_window(ox, oy, grid, self.width, self.height)
        if not todo:
            return ox, oy
        free = grid.reshape(self.height, self.width)
        ys, xs = np.nonzero(free)
        if len(xs) == 0:
            raise ValueError("the map has no pathable cell")
        for i in todo:  # nothing free within the window: search the whole grid
            bx = np.clip(px[i], xs + INSET, xs + 1 - INSET)
            by = np.clip(py[i], ys + INSET, ys + 1 - INSET)
            b = int(((bx - px[i]) ** 2 + (by - py[i]) ** 2).argmin())
            ox[i], oy[i] = bx[b], by[b]
        return ox, oy

    def nearest_point(self, x: float, y: float) -> tuple[float, float]:
        """(x, y) where its cell is free, else the nearest point of a free cell (a rally point
        on a cliff becomes the nearest point a unit can stand on)."""
        xs, ys = self.free_points(np.array([float(x)]), np.array([float(y)]))
        return float(xs[0]), float(ys[0])

    # ------------------------------------------------------------------ standing on free cells
    def _ground_rows(self) -> np.ndarray:
        """bool per row: mobile ground units (not structures, not neutral, not flying), cached per
        unit set."""
        u = self.u
        if self._ground_version != u.version:
            ti = u.ti
            self._ground = ~TYPES.is_flying[ti] & ~TYPES.structure[ti] & ~u.neutral & (u.speed > 0)
            self._ground_version = u.version
        return self._ground

    def violators(self) -> np.ndarray:
        """Rows of the ground units (off economy jobs) whose centre is on a blocked cell."""
        self.sync()
        u = self.u
        g = self._ground_rows()
        if not len(g):
            return np.zeros(0, np.int64)
        jumpers = self.jumpers()
        jump_free = self.jump().free if _count(jumpers) else None  # (Reapers stand on their own grid)
        if _native is None:
            return _violators(g, u.xy, self.free, jumpers, jump_free, u.kind, self.width)
        out = np.empty(len(g), np.int64)
        return out[:_native.violators(g, u.xy, self.free, jumpers, jump_free, u.kind, ECON, self.width, out)]

    def project(self) -> bool:
        """Put every ground unit standing on a blocked cell back on the nearest free point; returns
        whether anybody moved.  A point mover whose way to its waypoint is no longer free plans
        its path again on the next loop."""
        rows = self.violators()
        if not len(rows):
            return False
        u = self.u
        jump = self.jumpers()[rows]
        if _count(jump):
            jr, rows_n = rows[jump], rows[~jump]
            u.x[jr], u.y[jr] = self._nearest_free(u.x[jr], u.y[jr], self.jump().free)
        else:
            rows_n = rows
        if len(rows_n):
            nx, ny = self._nearest_free(u.x[rows_n], u.y[rows_n])
            u.x[rows_n] = nx
            u.y[rows_n] = ny
        u.seg[rows] = -1
        for r in rows.tolist():
            if u.wp[r] >= 0 and not _sees(self.finder_of(r), 0.0, float(u.x[r]), float(u.y[r]), float(u.wx[r]),
                                          float(u.wy[r])):
                u.wp[r] = -1
        return True

    # ------------------------------------------------------------------ point movers
    def pending(self) -> np.ndarray:
        """bool per row: point movers walking (no target) whose order has no path yet (``wp``
        -1: a new order, or an attack-move that chased a target)."""
        u = self.u
        if _native is None:
            return _pending_movers(u.kind, POINT_KINDS, u.wp, u.speed, u.eng)
        need = np.empty(len(u), dtype=bool)
        _native.pending_movers(u.kind, POINT_KINDS, u.wp, u.speed, u.eng, need)
        return need

    def plan(self) -> None:
        """Give every point mover with a new order (``wp`` -1) its path: ``wx``/``wy`` the first
        waypoint, ``ex``/``ey`` the end (the reachable point nearest to the order's point).

        A unit sent to the point of its last path again resumes it where it sees the waypoint
        nearest to it (or the one after); else it joins a path another unit was given to the same
        point lately, where it sees one of its waypoints (a group given one order plans once);
        else the PathFinder plans its own.  Flying units fly straight."""
        u = self.u
        need = self.pending()
        if not _count(need):
            return
        rows = need.nonzero()[0]
        self.sync()
        flying = TYPES.is_flying[u.ti[rows]]
        shared = self._shared
        for r, fly in zip(rows.tolist(), flying.tolist(), strict=True):
            tag = int(u.tag[r])
            x, y, tx, ty = float(u.x[r]), float(u.y[r]), float(u.tx[r]), float(u.ty[r])
            i = 0
            if fly:
                pts = np.array([[tx, ty]])
            else:
                rad = float(u.radius[r])
                finder = self.finder_of(r)
                layer = finder._layer(rad)
                key = (tx, ty, rad, bool(_JUMPER_LUT[u.ti[r]]))  # (Reapers share only Reapers' paths)
                got = None
                old = self.paths.get(tag)
                was = self._targets.get(tag)
                if old is not None and was is not None and abs(was[0] - tx) + abs(was[1] - ty) <= MOVED_GOAL:
                    j = self._resume(old, x, y, layer)
                    if j is not None:
                        if was != (tx, ty):  # the point moved a little: its last leg goes there instead
                            old = self._retarget(old, j, x, y, tx, ty, rad, finder)
                        if old is not None:
                            got = (old, j)
                if got is None:
                    for other in reversed(shared.get(key, ())):
                        j = self._resume(other, x, y, layer)
                        if j is not None:
                            got = (other, j)
                            break
                if got is not None:
                    pts, i = got
                else:
                    pts = finder.path((x, y), (tx, ty), rad)
                    if len(pts) == 0:  # enclosed: stays where it is
                        pts = np.array([[x, y]])
                    kept = shared.setdefault(key, [])
                    shared.move_to_end(key)
                    kept.append(pts)
                    if len(kept) > SHARED_PER_GOAL:
                        del kept[0]
                    if len(shared) > SHARED_GOALS:
                        shared.popitem(last=False)
            self.paths[tag] = pts
            self._targets[tag] = (tx, ty)
            u.wp[r] = i
            u.wx[r], u.wy[r] = pts[i]
            u.ex[r], u.ey[r] = pts[-1]
            u.seg[r] = -1

    def _retarget(self, pts: np.ndarray, j: int, x: float, y: float, tx: float, ty: float, radius: float,
                  finder: PathFinder) -> np.ndarray | None:
        """``pts`` (walked from index ``j``, at (x, y)) with its last point moved to (tx, ty),
        where the leg to it from the waypoint before (or from (x, y)) is free; else None."""
        before = (float(pts[-2, 0]), float(pts[-2, 1])) if len(pts) - 1 > j else (x, y)
        if not _sees(finder, radius, before[0], before[1], tx, ty):
            return None
        out = pts.copy()
        out[-1] = (tx, ty)
        return out

    @staticmethod
    def _resume(pts: np.ndarray, x: float, y: float, layer: _Layer) -> int | None:
        """The index of the waypoint of ``pts`` nearest to (x, y), or the one after it, that
        (x, y) sees along a free line of ``layer`` (the later one first); None when it sees
        neither (:func:`_resume_at`)."""
        if _native is None:
            return _resume_at(pts, x, y, layer)
        grid = (layer.free, layer.sat, layer.pf.width, layer.pf.height)
        j: int = _native.resume_waypoint(pts, x, y, *grid, -1)
        if j == -2:  # (waypoints too near equally near: numpy's hypot tells them apart)
            j = _native.resume_waypoint(pts, x, y, *grid, _nearest_waypoint(pts, x, y))
        return None if j < 0 else j

    def skip_ahead(self, rows: np.ndarray, hxy: np.ndarray) -> None:
        """Point movers ``rows`` within ``SKIP`` of a waypoint that is not their last head for the
        next one where the straight way to it is free (for their radius).  ``hxy``: from each
        mover to its waypoint (x and y as two rows), updated for those that head for the next."""
        u = self.u
        if not len(rows):
            return
        we = u.F[_F_WX:_F_WX + 4]  # wx, wy, ex, ey
        near = _skip_candidates(rows, hxy, u.wp, we) if _native is None else _native.skip_candidates(rows, hxy, u.wp, we)
        for j in near:
            r = int(rows[j])
            finder = self.finder_of(r)
            pts = self.paths.get(int(u.tag[r]))
            i = int(u.wp[r]) + 1
            if pts is None or i >= len(pts):
                continue
            nx, ny = float(pts[i, 0]), float(pts[i, 1])
            x, y = float(u.x[r]), float(u.y[r])
            if _sees(finder, float(u.radius[r]), x, y, nx, ny):
                u.wp[r] = i
                u.wx[r], u.wy[r] = nx, ny
                u.seg[r] = -1
                hxy[0, j], hxy[1, j] = nx - x, ny - y

    def next_waypoints(self, rows: np.ndarray, extra: np.ndarray, loop: int) -> np.ndarray:
        """Point movers ``rows`` reached their waypoint at ``loop`` with ``extra`` distance of this
        loop's step left: those with another waypoint walk on towards it (the rest of the step
        taken along the new segment, which starts at this loop); returns the rows that reached
        the end of their walk."""
        u = self.u
        done = []
        for r, e in zip(rows.tolist(), extra.tolist(), strict=True):
            pts = self.paths.get(int(u.tag[r]))
            i = int(u.wp[r]) + 1
            if pts is None or u.wp[r] < 0 or i >= len(pts):
                done.append(r)
                continue
            wx, wy = float(u.wx[r]), float(u.wy[r])
            nx, ny = float(pts[i, 0]), float(pts[i, 1])
            dx, dy = nx - wx, ny - wy
            length = math.hypot(dx, dy)
            f = min(e, length) / length if length > 0 else 0.0
            u.wp[r] = i
            u.wx[r], u.wy[r] = nx, ny
            u.x[r] = u.ox[r] = wx + dx * f
            u.y[r] = u.oy[r] = wy + dy * f
            u.seg[r] = loop
            if length > 0:
                u.facing[r] = math.atan2(dy, dx) % (2.0 * math.pi)
        return np.array(done, dtype=np.int64)

    def segments_free(self, rows: np.ndarray) -> bool:
        """Whether every mover of ``rows`` walks a free segment to its waypoint (from where its
        current segment started, or from where it stands when none has): then a quiet stretch
        puts nobody on a blocked cell.  Found-free segments are remembered per unit."""
        u = self.u
        if not len(rows):
            return True
        finder = self.finder
        jump = self.jumpers()[rows]
        fly = TYPES.is_flying[u.ti[rows]]
        started = u.seg[rows] >= 0
        ox = np.where(started, u.ox[rows], u.x[rows]).tolist()
        oy = np.where(started, u.oy[rows], u.y[rows]).tolist()
        wx, wy = u.wx[rows].tolist(), u.wy[rows].tolist()
        tags = u.tag[rows].tolist()
        verified = self._verified
        for k, t in enumerate(tags):
            if fly[k]:
                continue
            key = (ox[k], oy[k], wx[k], wy[k])
            if verified.get(t) == key:
                continue
            if not _sees(self.jump().finder if jump[k] else finder, 0.0, *key):
                return False
            verified[t] = key
        return True

    # ------------------------------------------------------------------ chasers
    def chase(self, loop: int, m: np.ndarray, tm: np.ndarray, md: np.ndarray, stop_at: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """Headings of chasers ``m`` (targets ``tm``, ``md`` from each to its target, x and y as
        two rows, ``stop_at`` the distance each stops at): straight at the target while the next
        ``LOOKAHEAD`` cells of that line are free (the target's own cells do not count; flyers
        always go straight), else towards the next waypoint of a path to the target (``wp`` is
        ``CHASING``, ``wx``/``wy`` the waypoint), planned again every ``CHASE_REPLAN`` loops, for
        a new target, or at the path's end, and left once the straight line to where the chaser
        stops is free (looked at every ``DROP_EVERY`` loops).

        Returns the headings (same length as the line to the target, so that the caller's step
        towards the target's range is kept), the most each chaser may step this loop (its
        waypoint's distance; None when every chaser goes straight) and, when every chaser goes
        straight (``md`` returned as it came), the lengths of ``md`` (else None).
        """
        u = self.u
        self.sync()
        k = len(m)
        if _native is None:
            dist, following = _chase_prep(md, m, u.wp)
        else:
            dist, following = np.empty(k), np.empty(k, dtype=bool)
            _native.chase_prep(md, m, u.wp, dist, following)
        blocked = np.zeros(k, dtype=bool)
        look = _look_ahead if _native is None else _native.look_ahead
        # (the Reapers' grid is made only when a Reaper looks)
        head = (m, tm, md, dist, stop_at, u.ti, TYPES.is_flying, u.xy, u.tag, self.jumpers(), self.free)
        tail = (self._cell_tag, self.width, self.height, blocked)
        if not look(*head, None if self._jump is None else self._jump.free, *tail):
            look(*head, self.jump().free, *tail)
        if not _count(blocked) and not _count(following):
            return md, None, dist
        chases = self.chases
        # plan: newly blocked, another target, the plan's age, the path's end reached (a follower
        # that looks whether its way is free again is not blocked: it is not planned either way)
        plan = blocked > following  # (on booleans ``a > b`` is ``a & ~b``)
        pick = _chase_pick if _native is None else _native.chase_pick
        for i, t, tt, again in pick(m, tm, u.tag, blocked, following, loop):
            if again:  # a follower whose way is free again goes straight (looked at every DROP_EVERY loops)
                r = int(m[i])
                x, y = float(u.x[r]), float(u.y[r])
                reach = min(max(float(dist[i] - stop_at[i]), 0.0), 3.0 * LOOKAHEAD) - 0.05
                f = reach / float(dist[i]) if dist[i] > 0 else 0.0
                if reach <= 0 or _sees(self.finder_of(r), float(u.radius[r]), x, y, x + float(md[0, i]) * f,
                                       y + float(md[1, i]) * f):
                    following[i] = False
                    u.wp[r] = -1
                    chases.pop(t, None)
                    continue
            c = chases.get(t)
            if c is None or c.target != tt or loop - c.loop >= CHASE_REPLAN:
                plan[i] = True
        wx, wy = u.wx, u.wy
        for i in plan.nonzero()[0].tolist():
            r, t = int(m[i]), int(tm[i])
            pts = self.finder_of(r).path((float(u.x[r]), float(u.y[r])), (float(u.x[t]), float(u.y[t])),
                                         float(u.radius[r]))
            if len(pts) == 0:
                pts = np.array([[float(u.x[r]), float(u.y[r])]])
            chases[int(u.tag[r])] = _Chase(int(u.tag[t]), pts, 0, loop)
            u.wp[r] = CHASING
            wx[r], wy[r] = pts[0]
        sel = following | plan
        md_out, cap = np.empty((2, k)), np.empty(k)
        heads = _chase_heads if _native is None else _native.chase_heads
        near = heads(m, sel, u.x, u.y, wx, wy, dist, md, md_out, cap, True)
        if near:  # on to the next waypoint (planned again at the path's end)
            for r in near:
                c = chases.get(int(u.tag[r]))
                if c is None:
                    continue
                if c.i < len(c.pts) - 1:
                    c.i += 1
                else:
                    c.loop = -CHASE_REPLAN  # (planned again next loop)
                wx[r], wy[r] = c.pts[c.i]
            heads(m, sel, u.x, u.y, wx, wy, dist, md, md_out, cap, False)
        return md_out, cap, None

    # ------------------------------------------------------------------ economy walks and queries
    def walk(self, x0: float, y0: float, ex: float, ey: float, cx: float, cy: float, stop: float,
             radius: float) -> tuple[np.ndarray, float] | None:
        """An economy walk from (x0, y0) to (ex, ey), the point ``stop`` from its target's centre
        (cx, cy) on the straight line: None when that line is free (the walk stays straight),
        else (the polyline's points after the start, its length): the path towards (ex, ey), cut
        where it first comes within ``stop`` of the centre."""
        self.sync()
        finder = self.finder
        if self._straight_version != self.blockers_version or len(self._straight) > 4096:
            self._straight.clear()
            self._straight_version = self.blockers_version
        key = (x0, y0, ex, ey, radius)
        free = self._straight.get(key)
        if free is None:
            free = self._straight[key] = _sees(finder, radius, x0, y0, ex, ey)
        if free:
            return None
        pts = finder.path((x0, y0), (ex, ey), radius)
        if len(pts) == 0:
            return np.array([[x0, y0]]), 0.0
        out = []
        px, py = x0, y0
        total = 0.0
        for qx, qy in pts.tolist():
            # the first point of this leg within ``stop`` of the centre ends the walk
            dx, dy = qx - px, qy - py
            a = dx * dx + dy * dy
            b = 2.0 * (dx * (px - cx) + dy * (py - cy))
            c = (px - cx) ** 2 + (py - cy) ** 2 - stop * stop
            disc = b * b - 4 * a * c
            if a > 0 and disc >= 0 and c > 0:
                t = (-b - math.sqrt(disc)) / (2 * a)
                if 0.0 <= t <= 1.0:
                    qx, qy = px + dx * t, py + dy * t
                    total += math.hypot(qx - px, qy - py)
                    out.append((qx, qy))
                    return np.array(out), total
            total += math.hypot(dx, dy)
            out.append((qx, qy))
            px, py = qx, qy
        return np.array(out), total

    def distance(self, start: tuple[float, float], goal: tuple[float, float], radius: float) -> float:
        """Length of the shortest path from ``start`` to ``goal`` for a unit of ``radius``; 0 when
        the goal cannot be reached (the real client's answer to ``RequestQuery.pathing``)."""
        self.sync()
        d = self.finder.distance(start, goal, radius)
        return 0.0 if d is None else float(d)

