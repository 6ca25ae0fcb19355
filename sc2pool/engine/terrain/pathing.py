"""Grid pathfinding for ground units: any-angle paths on a pathable grid that structures change.

How a query is answered (measured in docs/engine.md, "Ladder maps", pathfinding):

1. The grid a unit of radius ``r`` may stand on: cells whose centre is at least ``r`` from every
   blocked cell (a distance transform, per radius class of a quarter cell, recomputed lazily
   after structures change).
2. A straight line the unit fits along (sampled every half cell) is the whole path: the common
   case in open ground, and the cheapest.
3. Otherwise a distance field to the goal cell (Dijkstra over the 8-connected cell graph, in C via
   ``scipy.sparse.csgraph``) is computed once and cached, so every unit sent to the same goal (an
   attack point, a rally, a mineral line) reuses it; the cell path down the field is then pulled
   taut (each waypoint is the farthest one still in a straight line), which makes it any-angle.
4. A goal the unit cannot reach (blocked, or walled off) is replaced by the reachable cell nearest
   to it, so a path always ends somewhere sensible.

Structures: :meth:`PathFinder.set_blocked` adds (cells) or removes (None) one structure's cells by
a key; the grids and caches it touches are rebuilt on the next query.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

SQRT2 = math.sqrt(2.0)
RADIUS_STEP = 0.25
FIELD_CACHE = 64
PATH_CACHE = 4096


class _Layer:
    """One radius class on one version of the blocked grid: free cells, graph, components, fields."""

    def __init__(self, free: np.ndarray) -> None:
        from scipy import ndimage
        from scipy.sparse import csr_matrix

        self.free = free
        h, w = free.shape
        self.shape = (h, w)
        self.labels, _ = ndimage.label(free, structure=np.ones((3, 3), dtype=bool))
        idx = np.arange(h * w).reshape(h, w)
        rows, cols, costs = [], [], []
        # edges between 8-neighbours, both free; diagonals only when both side cells are free (no corner cutting)
        for dy, dx, cost in ((0, 1, 1.0), (1, 0, 1.0), (1, 1, SQRT2), (1, -1, SQRT2)):
            ys = slice(0, h - dy)
            yd = slice(dy, h)
            xs = slice(max(0, -dx), w - max(0, dx))
            xd = slice(max(0, dx), w + min(0, dx))
            ok = free[ys, xs] & free[yd, xd]
            if dx and dy:
                ok &= free[ys, xd] & free[yd, xs]
            a = idx[ys, xs][ok]
            b = idx[yd, xd][ok]
            rows += [a, b]
            cols += [b, a]
            costs.append(np.full(2 * a.size, cost))
        r = np.concatenate(rows)
        c = np.concatenate(cols)
        self.graph = csr_matrix((np.concatenate(costs), (r, c)), shape=(h * w, h * w))
        self.fields: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        # pulled paths by (start cell, goal cell): units re-path from the same cells to the same goals
        self.paths: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()

    def field(self, goal: int) -> tuple[np.ndarray, np.ndarray]:
        """(distance, predecessor) arrays of the shortest paths from every cell to ``goal``."""
        hit = self.fields.get(goal)
        if hit is not None:
            self.fields.move_to_end(goal)
            return hit
        from scipy.sparse.csgraph import dijkstra

        dist, pred = dijkstra(self.graph, directed=False, indices=goal, return_predecessors=True)
        self.fields[goal] = (dist, pred)
        if len(self.fields) > FIELD_CACHE:
            self.fields.popitem(last=False)
        return dist, pred


class PathFinder:
    """Paths for ground units of any radius on ``pathable`` (bool[h, w], [y, x]) plus structures."""

    def __init__(self, pathable: np.ndarray) -> None:
        if pathable.ndim != 2:
            raise ValueError(f"pathable must be a 2-D grid, got shape {pathable.shape}")
        self.base = np.array(pathable, dtype=bool, copy=True)
        self.height, self.width = self.base.shape
        self._blocks: dict[int, np.ndarray] = {}  # key -> flat cell indices
        self._blocked_count = np.zeros(self.base.size, dtype=np.int32)
        self._version = 0
        self._layers: dict[tuple[int, int], _Layer] = {}
        self._clearance: tuple[int, np.ndarray] | None = None

    # ---- structures --------------------------------------------------------------------------

    def set_blocked(self, key: int, cells: tuple[slice, slice] | np.ndarray | None) -> None:
        """Block ``cells`` for structure ``key`` (replacing its earlier cells), or unblock it (None).

        ``cells`` is a ``(rows, cols)`` pair of slices of the grid, a bool[h, w] mask, or an (n, 2)
        array of (x, y) cells.
        """
        old = self._blocks.pop(key, None)
        if old is not None:
            np.subtract.at(self._blocked_count, old, 1)
        if cells is not None:
            flat = self._flat(cells)
            if flat.size:
                self._blocks[key] = flat
                np.add.at(self._blocked_count, flat, 1)
        if old is not None or cells is not None:
            self._version += 1
            self._layers.clear()
            self._clearance = None

    def _flat(self, cells: tuple[slice, slice] | np.ndarray) -> np.ndarray:
        idx = np.arange(self.base.size).reshape(self.base.shape)
        if isinstance(cells, tuple):
            return np.unique(idx[cells].ravel())
        arr = np.asarray(cells)
        if arr.dtype == bool:
            if arr.shape != self.base.shape:
                raise ValueError(f"mask shape {arr.shape} is not the grid's {self.base.shape}")
            return np.nonzero(arr.ravel())[0]
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValueError("cells must be slices, a bool mask or an (n, 2) array of (x, y)")
        xs, ys = arr[:, 0].astype(int), arr[:, 1].astype(int)
        ok = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        return np.unique(ys[ok] * self.width + xs[ok])

    @property
    def pathable(self) -> np.ndarray:
        """bool[h, w]: the base grid less every structure's cells (what the client's pathing_grid shows)."""
        return self.base & (self._blocked_count.reshape(self.base.shape) == 0)

    # ---- grids per radius ----------------------------------------------------------------------

    def _clear(self) -> np.ndarray:
        """float[h, w]: distance from each cell centre to the nearest blocked cell's edge."""
        if self._clearance is None or self._clearance[0] != self._version:
            from scipy import ndimage

            free = self.pathable
            d = ndimage.distance_transform_edt(free) - 0.5
            self._clearance = (self._version, np.where(free, d, -1.0))
        return self._clearance[1]

    def _layer(self, radius: float) -> _Layer:
        rc = max(0, int(math.ceil((radius - 0.5) / RADIUS_STEP - 1e-9)))  # radius <= 0.5 fits any free cell
        key = (self._version, rc)
        layer = self._layers.get(key)
        if layer is None:
            need = 0.5 + rc * RADIUS_STEP if rc else 0.0
            layer = _Layer(self._clear() >= need)
            self._layers[key] = layer
        return layer

    # ---- queries -------------------------------------------------------------------------------

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"point ({x}, {y}) is not finite")
        return (min(max(int(math.floor(x)), 0), self.width - 1), min(max(int(math.floor(y)), 0), self.height - 1))

    def _line_free(self, free: np.ndarray, ax: float, ay: float, bx: float, by: float) -> bool:
        """True when every cell the segment touches is free (corners it passes exactly included)."""
        dx, dy = bx - ax, by - ay
        ts = [np.array([0.0, 1.0])]
        if dx:
            xs = np.arange(math.ceil(min(ax, bx)), math.floor(max(ax, bx)) + 1)
            ts.append((xs - ax) / dx)
        if dy:
            ys = np.arange(math.ceil(min(ay, by)), math.floor(max(ay, by)) + 1)
            ts.append((ys - ay) / dy)
        t = np.unique(np.clip(np.concatenate(ts), 0.0, 1.0))
        # the crossings themselves (a corner lands on the cell above-right of it) and the middles between
        t = np.concatenate([t, (t[:-1] + t[1:]) / 2])
        px = np.floor(ax + dx * t).astype(np.intp)
        py = np.floor(ay + dy * t).astype(np.intp)
        if px.min() < 0 or py.min() < 0 or px.max() >= self.width or py.max() >= self.height:
            return False
        return bool(free[py, px].all())

    def _nearest_in(self, mask: np.ndarray, x: float, y: float) -> tuple[int, int] | None:
        ys, xs = np.nonzero(mask)
        if xs.size == 0:
            return None
        i = int(np.argmin((xs + 0.5 - x) ** 2 + (ys + 0.5 - y) ** 2))
        return int(xs[i]), int(ys[i])

    def nearest_pathable(self, x: float, y: float, radius: float = 0.0) -> tuple[float, float]:
        """The centre of the free cell nearest to (x, y) ((x, y) itself when its cell is free)."""
        layer = self._layer(radius)
        cx, cy = self._cell(x, y)
        if layer.free[cy, cx] and 0 <= x < self.width and 0 <= y < self.height:
            return (float(x), float(y))
        near = self._nearest_in(layer.free, x, y)
        if near is None:
            raise ValueError("the grid has no pathable cell")
        return (near[0] + 0.5, near[1] + 0.5)

    def path(self, start: tuple[float, float], goal: tuple[float, float], radius: float = 0.375) -> np.ndarray:
        """(k, 2) float waypoints from ``start`` (excluded) to ``goal`` or the nearest reachable point.

        An empty array means the unit cannot move at all (its own cell is enclosed).
        """
        layer = self._layer(radius)
        free = layer.free
        sx, sy = float(start[0]), float(start[1])
        gx, gy = float(goal[0]), float(goal[1])
        scx, scy = self._cell(sx, sy)
        if not free[scy, scx]:
            near = self._nearest_in(free, sx, sy)
            if near is None:
                return np.zeros((0, 2))
            scx, scy = near
        comp = layer.labels[scy, scx]
        gcx, gcy = self._cell(gx, gy)
        inside = 0 <= gx < self.width and 0 <= gy < self.height
        if not (inside and free[gcy, gcx] and layer.labels[gcy, gcx] == comp):
            near = self._nearest_in(layer.labels == comp, gx, gy)
            if near is None:
                return np.zeros((0, 2))
            gcx, gcy = near
            gx, gy = gcx + 0.5, gcy + 0.5
        if self._line_free(free, sx, sy, gx, gy):
            return np.array([[gx, gy]])
        key = (scy * self.width + scx, gcy * self.width + gcx)
        cached = layer.paths.get(key)
        if cached is not None and self._line_free(free, sx, sy, cached[0][0], cached[0][1]):
            layer.paths.move_to_end(key)
            out_c = cached.copy()
            out_c[-1] = (gx, gy)
            return out_c
        result = self._pull(layer, free, sx, sy, scx, scy, gcx, gcy, gx, gy)
        layer.paths[key] = result
        if len(layer.paths) > PATH_CACHE:
            layer.paths.popitem(last=False)
        return result.copy()

    def _pull(self, layer: _Layer, free: np.ndarray, sx: float, sy: float, scx: int, scy: int,
              gcx: int, gcy: int, gx: float, gy: float) -> np.ndarray:
        """The cell path down the goal's distance field, pulled taut from (sx, sy)."""
        _, pred = layer.field(gcy * self.width + gcx)
        cells = []
        node = scy * self.width + scx
        goal_node = gcy * self.width + gcx
        while node != goal_node and node >= 0:
            node = int(pred[node])
            cells.append(node)
        if not cells or cells[-1] != goal_node:
            return np.zeros((0, 2))
        pts = [(c % self.width + 0.5, c // self.width + 0.5) for c in cells[:-1]] + [(gx, gy)]
        # pull the string: from the current point jump to the farthest waypoint in straight sight
        out: list[tuple[float, float]] = []
        cur = (sx, sy)
        i = 0
        n = len(pts)
        while i < n:
            j = n - 1
            lo = i
            # binary search on the farthest visible waypoint, then walk down if the search overshot
            hi = n - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self._line_free(free, cur[0], cur[1], pts[mid][0], pts[mid][1]):
                    lo = mid
                else:
                    hi = mid - 1
            j = lo
            out.append(pts[j])
            cur = pts[j]
            i = j + 1
        return np.array(out, dtype=float)

    def distance(self, start: tuple[float, float], goal: tuple[float, float], radius: float = 0.375) -> float | None:
        """Length of the path from ``start`` to ``goal``; None when the goal's cell cannot be reached.

        A start inside a blocked cell (a unit beside its own structure) starts from the nearest free cell.
        """
        layer = self._layer(radius)
        gcx, gcy = self._cell(float(goal[0]), float(goal[1]))
        if not layer.free[gcy, gcx]:
            return None
        sx, sy = float(start[0]), float(start[1])
        scx, scy = self._cell(sx, sy)
        if not layer.free[scy, scx]:
            near = self._nearest_in(layer.free, sx, sy)
            if near is None:
                return None
            scx, scy = near
        if layer.labels[gcy, gcx] != layer.labels[scy, scx]:
            return None
        pts = self.path((sx, sy), goal, radius)
        seg = np.diff(np.vstack([[[sx, sy]], pts]), axis=0)
        return float(np.hypot(seg[:, 0], seg[:, 1]).sum())
