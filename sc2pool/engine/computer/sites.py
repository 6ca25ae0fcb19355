"""Where the melee Computer builds: expansion sites, the building spots of its bases, and the
ground distances it orders its expansions by.

Everything here is read from what a player knows at game start (the map's grids, which the real
client's ``game_info`` reports, and the neutral mineral fields and geysers, which its first
observation lists as snapshots), computed with whole-grid numpy operations once per map and kept
for the process (:func:`map_plan`), so that a decision never searches the map.

- **Expansion sites**: mineral fields closer than 8 to one another form a cluster (with the
  geysers within 10 of it); a cluster of at least 4 fields has a site, the townhall spot nearest
  to all its resources (the smallest sum of distances) where a Command Center's 5 x 5 footprint
  lies on placeable cells and keeps 6 from every mineral field and 7 from every geyser (the rule
  the engine's placement applies, as burnysc2's ``expansion_locations`` does).  The site of a
  main base is its start location.
- **Ground distances** from each start location to every site over the pathable grid (Dijkstra
  on the 8-connected cells), so that the natural is the nearest site by walking, not across a
  cliff.
- **Building spots** of a base (:func:`base_spots`): footprints that fit on the placeable cells of
  the base's own plateau (the connected area of its cliff level), on a lattice that leaves two
  free cells between structures (m: the engine's choice, so that units keep their ways out), away from the townhall, its mineral line and its geysers, ordered by
  the distance to an anchor point (barracks towards the map's centre, depots behind the
  townhall).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.sim.systems.placement import TOWNHALL_GEYSER_GAP, TOWNHALL_MINERAL_GAP

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

CLUSTER_LINK = 8.0
"""Mineral fields closer than this belong to one base's mineral line."""
GEYSER_LINK = 10.0
MIN_FIELDS = 4
"""Fewer fields than this are a mineral wall or a blocker, not a base."""
SITE_SEARCH = 10.0
"""Townhall spots are searched within this distance of a cluster's centre."""
BASE_RADIUS = 17.0
"""Building spots of a base lie within this distance of its townhall."""
ADDON_BASE_RADIUS = 23.0
"""... and those of production structures with room for an add-on (7 cells a column instead of 5:
fewer fit in the same disc) within this one (m)."""


@dataclass
class MapPlan:
    """What the Computer computes once per map."""

    sites: list[tuple[float, float]]
    """A townhall spot per base (mineral cluster)."""
    resources: list[list[tuple[float, float, bool]]]
    """Per site: its mineral fields and geysers ((x, y, is_mineral))."""
    ground: dict[tuple[float, float], np.ndarray] = field(default_factory=dict)
    """Per start location: the ground distance to each site (inf where it cannot be walked)."""


_PLANS: dict[tuple[str, int], MapPlan] = {}


def fits(ok: np.ndarray, w: int, h: int) -> np.ndarray:
    """bool[H, W]: whether the ``w`` x ``h`` rectangle whose lower-left cell is [y, x] lies on
    ``ok`` cells only (False where it would leave the grid)."""
    H, W = ok.shape
    c = np.zeros((H + 1, W + 1), dtype=np.int32)
    c[1:, 1:] = ok.astype(np.int32).cumsum(0).cumsum(1)
    out = np.zeros((H, W), dtype=bool)
    if H < h or W < w:
        return out
    s = c[h:, w:] - c[:-h, w:] - c[h:, :-w] + c[:-h, :-w]
    out[: H - h + 1, : W - w + 1] = s == w * h
    return out


def static_placeable(world: World, win: tuple[slice, slice] = (slice(None), slice(None))) -> np.ndarray:
    """bool[h, w]: the map's placement grid less obstacles (rocks); ``win``: only its window of
    (rows, columns)."""
    return np.asarray(world.map.placeable, dtype=bool)[win] & ~world.placement.blocked[win]


def clusters(world: World) -> list[list[tuple[float, float, bool]]]:
    """The map's resource clusters (mineral fields linked closer than :data:`CLUSTER_LINK`, then the
    geysers within :data:`GEYSER_LINK` of one of their fields), in the harvest system's order."""
    minerals = [(r.x, r.y) for r in world.harvest.resources.values() if r.is_mineral]
    geysers = [(r.x, r.y) for r in world.harvest.resources.values() if not r.is_mineral]
    groups: list[list[tuple[float, float]]] = []
    for f in minerals:
        near = [g for g in groups if any((f[0] - a) ** 2 + (f[1] - b) ** 2 < CLUSTER_LINK ** 2 for a, b in g)]
        merged = [f]
        for g in near:
            merged.extend(g)
            groups.remove(g)
        groups.append(merged)
    out = []
    for g in groups:
        if len(g) < MIN_FIELDS:
            continue
        c: list[tuple[float, float, bool]] = [(x, y, True) for x, y in g]
        for gx, gy in geysers:
            if any((gx - a) ** 2 + (gy - b) ** 2 < GEYSER_LINK ** 2 for a, b in g):
                c.append((gx, gy, False))
        out.append(c)
    return out


def site_of(ok5: np.ndarray, cluster: list[tuple[float, float, bool]]) -> tuple[float, float] | None:
    """The townhall spot of one cluster (see the module docstring), None when none fits."""
    pts = np.array([(x, y) for x, y, _ in cluster])
    mineral = np.array([m for _, _, m in cluster])
    mx, my = pts[:, 0].mean(), pts[:, 1].mean()
    H, W = ok5.shape
    r = int(SITE_SEARCH) + 1
    xs = np.arange(max(int(mx) - r, 2), min(int(mx) + r + 1, W - 3))
    ys = np.arange(max(int(my) - r, 2), min(int(my) + r + 1, H - 3))
    if not len(xs) or not len(ys):
        return None
    gx, gy = np.meshgrid(xs, ys)
    cx, cy = gx.ravel() + 0.5, gy.ravel() + 0.5  # a 5 x 5 footprint sits on a cell centre
    ok = ok5[gy.ravel() - 2, gx.ravel() - 2] & ((cx - mx) ** 2 + (cy - my) ** 2 <= SITE_SEARCH ** 2)
    d = np.hypot(cx[:, None] - pts[None, :, 0], cy[:, None] - pts[None, :, 1])
    gap = np.where(mineral, TOWNHALL_MINERAL_GAP, TOWNHALL_GEYSER_GAP)
    ok &= (d >= gap[None, :]).all(axis=1)
    if not ok.any():
        return None
    score = np.where(ok, d.sum(axis=1), np.inf)
    k = int(np.argmin(score))
    return (float(cx[k]), float(cy[k]))


def map_plan(world: World) -> MapPlan:
    """The expansion sites and ground distances of the world's map (computed once per map and
    resource layout, then shared)."""
    key = (world.map.name, len(world.harvest.resources))
    plan = _PLANS.get(key)
    if plan is not None:
        return plan
    ok5 = fits(static_placeable(world), 5, 5)
    sites: list[tuple[float, float]] = []
    res: list[list[tuple[float, float, bool]]] = []
    starts = list(world.map.start_locations)
    for c in clusters(world):
        spot = site_of(ok5, c)
        if spot is None:
            continue
        # a main base's site is its start location (the townhall the game placed there)
        mx = float(np.mean([p[0] for p in c]))
        my = float(np.mean([p[1] for p in c]))
        for s in starts:
            if (s[0] - mx) ** 2 + (s[1] - my) ** 2 < 14.0 ** 2:
                spot = (float(s[0]), float(s[1]))
        sites.append(spot)
        res.append(c)
    plan = MapPlan(sites, res)
    grid = np.asarray(world.map.pathable, dtype=bool)
    dist = ground_distances(grid, starts, sites)
    for s, d in zip(starts, dist, strict=True):
        plan.ground[(float(s[0]), float(s[1]))] = d
    _PLANS[key] = plan
    return plan


def ground_distances(pathable: np.ndarray, sources: list[tuple[float, float]],
                     points: list[tuple[float, float]]) -> np.ndarray:
    """float[len(sources), len(points)]: walking distance from each source to each point over the
    8-connected pathable cells (no corner cutting; a point off the grid's pathable cells is taken
    at the nearest pathable cell within 4; inf where it cannot be reached)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    h, w = pathable.shape
    idx = np.arange(h * w).reshape(h, w)
    rows, cols, costs = [], [], []
    for dy, dx, cost in ((0, 1, 1.0), (1, 0, 1.0), (1, 1, math.sqrt(2.0)), (1, -1, math.sqrt(2.0))):
        ys, yd = slice(0, h - dy), slice(dy, h)
        xs, xd = slice(max(0, -dx), w - max(0, dx)), slice(max(0, dx), w + min(0, dx))
        ok = pathable[ys, xs] & pathable[yd, xd]
        if dx and dy:
            ok &= pathable[ys, xd] & pathable[yd, xs]
        a, b = idx[ys, xs][ok], idx[yd, xd][ok]
        rows += [a, b]
        cols += [b, a]
        costs.append(np.full(2 * a.size, cost))
    graph = csr_matrix((np.concatenate(costs), (np.concatenate(rows), np.concatenate(cols))), shape=(h * w, h * w))

    def cell(x: float, y: float) -> int:
        cx, cy = min(max(int(x), 0), w - 1), min(max(int(y), 0), h - 1)
        if pathable[cy, cx]:
            return int(idx[cy, cx])
        near = _disc(h, w, x, y, 4.0) & pathable
        if not near.any():
            return -1
        ny, nx = np.nonzero(near)
        k = int(np.argmin((nx + 0.5 - x) ** 2 + (ny + 0.5 - y) ** 2))
        return int(idx[ny[k], nx[k]])

    src = [cell(*p) for p in sources]
    dst = np.array([cell(*p) for p in points], dtype=np.int64)
    out = np.full((len(sources), len(points)), np.inf)
    have = [k for k, c in enumerate(src) if c >= 0]
    if have and len(dst):
        d = np.atleast_2d(dijkstra(graph, directed=False, indices=[src[k] for k in have]))
        for row, k in enumerate(have):
            out[k] = np.where(dst >= 0, d[row][np.maximum(dst, 0)], np.inf)
    return out


def plateau(world: World, x: float, y: float) -> np.ndarray:
    """bool[h, w]: the pathable cells of the cliff level of (x, y) connected to it (its plateau)."""
    from scipy import ndimage

    m = world.map
    path = np.asarray(m.pathable, dtype=bool)
    ladder = getattr(m, "ladder", None)
    cx, cy = min(max(int(x), 0), m.width - 1), min(max(int(y), 0), m.height - 1)
    if ladder is None:
        return path
    level = np.asarray(ladder.level)
    same = path & (level == level[cy, cx])
    # the townhall's own cells are not pathable: grow the seed from the nearest plateau cell
    labels, _ = ndimage.label(same | _disc(m.height, m.width, x, y, 4.0))
    lab = labels[cy, cx]
    return (labels == lab) & same if lab else same


def _disc(h: int, w: int, x: float, y: float, r: float, y0: int = 0, x0: int = 0) -> np.ndarray:
    """bool[h - y0, w - x0]: the cells of rows y0..h - 1 and columns x0..w - 1 whose centres lie
    within ``r`` of (x, y)."""
    gy, gx = np.ogrid[y0:h, x0:w]
    return (gx + 0.5 - x) ** 2 + (gy + 0.5 - y) ** 2 <= r * r


def base_spots(world: World, home: tuple[float, float], resources: list[tuple[float, float, bool]], size: int,
               anchor: tuple[float, float], gap: int, extra_right: int = 0,
               radius: float = BASE_RADIUS, dense: bool = False, area: np.ndarray | None = None
               ) -> list[tuple[float, float]]:
    """Centres where a ``size`` x ``size`` structure may stand in the base at ``home``, best first
    (see the module docstring): on its plateau within ``radius``, ``gap`` free cells
    between neighbours of the lattice, not within 6 of the townhall's centre, not in front of its
    mineral line (the half-disc of radius 11 towards the line's centre) and 3 clear of every
    resource of the base.  ``extra_right`` more columns on its right are kept placeable and free
    too (2: the add-on of a Barracks, Factory or Starport, level with its bottom rows).  ``dense``:
    every cell is a candidate instead of the lattice's (the caller keeps structures apart).
    ``area``: :func:`plateau` of ``home``, when the caller keeps it for the base's other lists."""
    hx, hy = home
    m = world.map
    # (no cell off the disc is a candidate, and a footprint reaching beyond the disc does not fit:
    # the grids are cut to a window round it, with a margin, whose cells answer as the whole map's)
    xa, xb = max(int(math.floor(hx - radius)) - 2, 0), min(int(math.ceil(hx + radius)) + 2, m.width)
    ya, yb = max(int(math.floor(hy - radius)) - 2, 0), min(int(math.ceil(hy + radius)) + 2, m.height)
    xb, yb = max(xb, xa), max(yb, ya)
    win = (slice(ya, yb), slice(xa, xb))
    if area is None:
        area = plateau(world, hx, hy)
    ok = static_placeable(world, win)
    ok &= area[win]
    ok &= _disc(yb, xb, hx, hy, radius, ya, xa)
    fit = fits(ok, size + extra_right, size)
    step = 1 if dense else size + gap
    xstep = 1 if dense else step + extra_right
    half = size / 2.0
    x0, y0 = int(math.floor(hx)), int(math.floor(hy))
    r = int(radius)
    xs = np.arange(x0 - r - (r % xstep), x0 + r + 1, xstep)
    ys = np.arange(y0 - r - (r % step), y0 + r + 1, step)
    gx, gy = np.meshgrid(xs, ys)
    lx, ly = gx.ravel(), gy.ravel()  # lower-left cells
    inside = (lx >= 0) & (ly >= 0) & (lx < m.width) & (ly < m.height)
    lx, ly = lx[inside], ly[inside]
    in_win = (lx >= xa) & (lx < xb) & (ly >= ya) & (ly < yb)
    good = np.zeros(len(lx), dtype=bool)
    good[in_win] = fit[ly[in_win] - ya, lx[in_win] - xa]
    cx, cy = lx + half, ly + half
    good &= (cx - hx) ** 2 + (cy - hy) ** 2 >= 6.0 ** 2
    pts = np.array([(a, b) for a, b, _ in resources]) if resources else np.zeros((0, 2))
    if len(pts):
        mx, my = pts[:, 0].mean(), pts[:, 1].mean()
        vx, vy = mx - hx, my - hy
        front = ((cx - hx) * vx + (cy - hy) * vy > 0) & ((cx - hx) ** 2 + (cy - hy) ** 2 < 11.0 ** 2)
        good &= ~front
        k = np.flatnonzero(good)  # (the clearance of the candidates left)
        d = np.hypot(cx[k, None] - pts[None, :, 0], cy[k, None] - pts[None, :, 1])
        good[k] = (d >= 3.0 + half + 1.0).all(axis=1)
    cx, cy = cx[good], cy[good]
    order = np.lexsort((cx, cy, (cx - anchor[0]) ** 2 + (cy - anchor[1]) ** 2))
    return [(float(cx[k]), float(cy[k])) for k in order]
