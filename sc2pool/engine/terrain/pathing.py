"""Grid pathfinding for ground units: any-angle paths on a pathable grid that structures change.

How a query is answered (measured in docs/engine.md, "Ladder maps", pathfinding):

1. The cells a unit of radius ``r`` may stand on: those whose centre is at least ``r`` from every
   blocked cell (a capped distance transform, one layer per radius class of a quarter cell).
2. A straight segment the unit fits along is the whole path: the common case in open ground.
   Segments are tested against a summed-area table of the blocked cells, so a long segment
   through open ground costs a few table lookups.
3. Otherwise a distance field to the goal (Dijkstra over the 8-connected free cells, in C:
   ``scipy.sparse.csgraph``'s, or the compiled kernels' twin of it) is computed once and kept,
   so every unit sent to the same goal (an attack point, a rally, a mineral line) shares it; a
   short move gets a field searched only around its goal.  The cell path down the field is
   pulled taut (each waypoint is the farthest one still in a straight line), and the taut path is
   kept per start cell and per waypoint: the next unit from the same cell, or whose cell path runs
   into an already pulled one, pays for a few segment tests.
4. A goal the unit cannot reach (blocked, or walled off) is replaced by the reachable cell nearest
   to it, so a path always ends somewhere sensible.

Structures (:meth:`PathFinder.set_blocked`) change only what they touch: the distance transform,
the free cells and the graph's edge weights are updated in a window around the structure (every
layer's graph is built once).  A kept field is repaired when next used: only the cells whose
shortest path ran through the structure are solved again, from the cells around them, and only
the taut paths that pass it are pulled again.  A structure that leaves makes the fields stale
(paths may be shorter anywhere); they are solved again when next used.
"""

from __future__ import annotations

import copy
import math
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import numpy as np
import scipy

from sc2pool.engine.kernels import native as _native

SQRT2 = math.sqrt(2.0)
RADIUS_STEP = 0.25
FIELD_CACHE = 16  # full distance fields kept per radius class (about 200 kB each on a ladder map)
LOCAL_CACHE = 24  # bounded (short-move) fields kept per radius class
CLEAR_CAP = 6.0  # clearance is exact up to here: radius classes above it rebuild the whole grid on changes
SHORT_MOVE = 12.0  # a move shorter than this searches a bounded neighbourhood of its goal first,
SHORT_BOUND = 30.0  # this far along the grid (a detour of 2.5 times the longest such move)
MAX_PENDING = 32  # structures a kept field is repaired for at its next use; more and it is solved again
SEEN_SEGMENTS = 4096  # segment answers kept per radius class (forgotten all at once beyond this)
_UNREACHED = -9999  # scipy's predecessor of a node it did not reach
NEAR_WINDOW = 4  # the nearest free cell to a point is searched this many cells round its own first
# scipy's dijkstra from 1.16 on (a priority queue; a Fibonacci heap before, which breaks ties
# between equally short paths otherwise) is the one the compiled dijkstra_csr twins, ties included
_QUEUE_DIJKSTRA = tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 16)


def _supercover_free(rows: list[list[bool]], w: int, h: int, ax: float, ay: float, bx: float, by: float) -> bool:
    """True when every cell the segment touches is free (plain Python; for short pieces).

    The cells are those under the points where the segment crosses a grid line and halfway
    between consecutive crossings; where it passes exactly through a grid corner, all four cells
    round the corner, so nothing squeezes between two blocked cells that touch at a corner (as
    the real game's walls of diagonal depots hold).
    """
    floor = math.floor
    x, y = floor(ax), floor(ay)
    if x < 0 or y < 0 or x >= w or y >= h or not rows[y][x]:
        return False
    dx, dy = bx - ax, by - ay
    # the crossings' t (each in [0, 1]: k lies between the ends, and rounding keeps it there) and
    # the end's; one at t = 0 is the start again, whose cell is tested above
    ts = [1.0]
    if dx:
        lo, hi = (ax, bx) if ax < bx else (bx, ax)
        for k in range(math.ceil(lo), floor(hi) + 1):
            ts.append((k - ax) / dx)
    if dy:
        lo, hi = (ay, by) if ay < by else (by, ay)
        for k in range(math.ceil(lo), floor(hi) + 1):
            ts.append((k - ay) / dy)
    ts.sort()
    prev = 0.0
    for t in ts:
        if t == prev:
            continue
        m = (prev + t) * 0.5
        x, y = floor(ax + dx * m), floor(ay + dy * m)
        if x < 0 or y < 0 or x >= w or y >= h or not rows[y][x]:
            return False
        px, py = ax + dx * t, ay + dy * t
        x, y = floor(px), floor(py)
        if x < 0 or y < 0 or x >= w or y >= h or not rows[y][x]:
            return False
        if t < 1.0:
            kx, ky = round(px), round(py)
            if abs(px - kx) < 1e-9 and abs(py - ky) < 1e-9:  # through a corner: the cells beside it too
                if kx < 1 or ky < 1 or kx >= w or ky >= h or not (rows[ky - 1][kx - 1] and rows[ky - 1][kx] and rows[ky][kx - 1] and rows[ky][kx]):
                    return False
        prev = t
    return True


def _segment_free(sat: memoryview, rows: list[list[bool]], w: int, h: int, ax: float, ay: float, bx: float, by: float) -> bool:
    """True when every cell the segment touches is free (see :func:`_supercover_free`).

    ``sat`` is the summed-area table of the blocked cells, flat (rows of ``w + 1``): a piece of
    the segment whose bounding box holds no blocked cell is free at once, one that does is halved
    until it is a few cells long and then tested cell by cell.  In open ground a long segment
    costs a handful of table lookups instead of a walk over every cell it crosses.
    """
    floor = math.floor
    stride = w + 1
    stack = [(ax, ay, bx, by)]
    pop, push = stack.pop, stack.append
    while stack:
        ax, ay, bx, by = pop()
        x0, x1 = (floor(ax), floor(bx)) if ax < bx else (floor(bx), floor(ax))
        y0, y1 = (floor(ay), floor(by)) if ay < by else (floor(by), floor(ay))
        if x0 < 0 or y0 < 0 or x1 >= w or y1 >= h:
            return False
        top, bottom = y0 * stride, (y1 + 1) * stride
        if sat[bottom + x1 + 1] - sat[top + x1 + 1] - sat[bottom + x0] + sat[top + x0] == 0:
            continue
        if x1 - x0 + y1 - y0 <= 3:
            if not _supercover_free(rows, w, h, ax, ay, bx, by):
                return False
            continue
        mx, my = (ax + bx) * 0.5, (ay + by) * 0.5
        if abs(mx - round(mx)) < 1e-9 and abs(my - round(my)) < 1e-9:  # not on a corner: a piece's ends
            mx, my = ax + (bx - ax) * 0.515625, ay + (by - ay) * 0.515625  # are not tested for it
        push((mx, my, bx, by))
        push((ax, ay, mx, my))
    return True


def _nearest_cell(rows: list[list[bool]], w: int, h: int, x: float, y: float, cx: int, cy: int
                  ) -> tuple[int, int] | None:
    """The free cell (of ``rows``) whose centre is nearest to (x, y) among the cells within
    ``NEAR_WINDOW`` of (x, y)'s own, (``cx``, ``cy``) (the first of equally near ones, row by row),
    when nothing outside the window can be nearer; else None.  (Plain Python over a few dozen
    cells: the Python twin of the compiled ``nearest_cell``, :mod:`sc2pool.engine.kernels`.)"""
    r = NEAR_WINDOW
    y0, y1, x0, x1 = max(cy - r, 0), min(cy + r + 1, h), max(cx - r, 0), min(cx + r + 1, w)
    best, bx, by = math.inf, 0, 0
    for yy in range(y0, y1):
        row = rows[yy]
        ey = yy + 0.5 - y
        ey *= ey
        for xx in range(x0, x1):
            if row[xx]:
                ex = xx + 0.5 - x
                d2 = ex * ex + ey
                if d2 < best:
                    best, bx, by = d2, xx, yy
    if best <= (r - 0.5) ** 2:  # nothing outside the window can be nearer
        return bx, by
    return None


def _sat_cells(sat: np.ndarray) -> memoryview:
    """A summed-area table as a flat view whose items are Python ints (cheaper to read one at a time)."""
    return np.ascontiguousarray(sat).ravel().data


def _blocked_sat(free: np.ndarray) -> np.ndarray:
    """int32[h+1, w+1]: sat[y, x] = number of blocked cells in [0:y, 0:x]."""
    h, w = free.shape
    sat = np.zeros((h + 1, w + 1), dtype=np.int32)
    np.cumsum(np.cumsum(~free, axis=0, dtype=np.int32), axis=1, out=sat[1:, 1:])
    return sat


class _Graph:
    """The 8-neighbour edges between the base grid's pathable cells, shared by every radius class.

    Nodes are the pathable cells (row-major order); each radius class gives the edges its own
    weights (infinite where a cell is not free for it), so a structure changes weights in place and
    never rebuilds the sparse structure.  A diagonal edge needs both cells beside it free (no
    corner cutting).
    """

    def __init__(self, base: np.ndarray) -> None:
        h, w = base.shape
        self.shape = (h, w)
        cells = np.flatnonzero(base)
        self.n = int(cells.size)
        self.cells = cells  # node -> flat cell
        self.node = np.full(h * w, -1, dtype=np.int64)
        self.node[cells] = np.arange(self.n)
        node2 = self.node.reshape(h, w)
        flat = np.arange(h * w).reshape(h, w)
        src, dst, cost, side_a, side_b = [], [], [], [], []
        for dy, dx, c in ((0, 1, 1.0), (1, 0, 1.0), (1, 1, SQRT2), (1, -1, SQRT2), (0, -1, 1.0), (-1, 0, 1.0), (-1, -1, SQRT2), (-1, 1, SQRT2)):
            ys, yd = slice(max(0, -dy), h - max(0, dy)), slice(max(0, dy), h + min(0, dy))
            xs, xd = slice(max(0, -dx), w - max(0, dx)), slice(max(0, dx), w + min(0, dx))
            ok = base[ys, xs] & base[yd, xd]
            src.append(node2[ys, xs][ok])
            dst.append(node2[yd, xd][ok])
            cost.append(np.full(int(ok.sum()), c))
            if dx and dy:  # the two cells beside a diagonal step: (x+dx, y) and (x, y+dy)
                side_a.append(flat[ys, xd][ok])
                side_b.append(flat[yd, xs][ok])
            else:
                side_a.append(np.full(int(ok.sum()), -1))
                side_b.append(np.full(int(ok.sum()), -1))
        s, d = np.concatenate(src), np.concatenate(dst)
        order = np.lexsort((d, s))
        self.src, self.dst = s[order], d[order]
        self.cost = np.concatenate(cost)[order]
        self.side_a, self.side_b = np.concatenate(side_a)[order], np.concatenate(side_b)[order]
        self.indptr = np.searchsorted(self.src, np.arange(self.n + 1)).astype(np.int64)
        self.degree = np.diff(self.indptr)
        self.indices = self.dst.astype(np.int32)

    def weights(self, free_flat: np.ndarray, edges: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Edge weights for a radius class whose free cells are ``free_flat`` (bool[h*w])."""
        s, d = self.cells[self.src[edges]], self.cells[self.dst[edges]]
        ok = free_flat[s] & free_flat[d]
        sa, sb = self.side_a[edges], self.side_b[edges]
        diag = sa >= 0
        ok[diag] &= free_flat[sa[diag]] & free_flat[sb[diag]]
        return np.where(ok, self.cost[edges], np.inf)

    def edges_of(self, nodes: np.ndarray) -> np.ndarray:
        """The edge positions (in CSR order) of the edges leaving ``nodes``."""
        starts, ends = self.indptr[nodes], self.indptr[nodes + 1]
        counts = ends - starts
        if counts.sum() == 0:
            return np.zeros(0, dtype=np.int64)
        return np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))


class _Field:
    """Shortest paths from every node to one goal node, and the taut paths pulled from it so far."""

    def __init__(self, dist: np.ndarray, pred: np.ndarray, limit: float, epoch: int) -> None:
        self.dist = dist
        self.pred = pred
        self.limit = limit
        self.epoch = epoch  # the layer's change count when it was solved
        # node -> waypoints from its centre to the goal; tuples, which the cyclic garbage collector
        # stops tracking, so thousands of kept paths do not lengthen its pauses
        self.taut: dict[int, tuple[tuple[float, float], ...]] = {}
        self.box: dict[int, tuple[float, float, float, float]] = {}  # node -> bounding box of that path
        # structures placed since the field was solved, repaired on its next use: (closed nodes,
        # nodes around them, their box)
        self.pending: list[tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]] = []


class _Layer:
    """One radius class: its free cells, edge weights, components and distance fields."""

    def __init__(self, pf: PathFinder, need: float) -> None:
        from scipy.sparse import csr_matrix

        self.pf = pf
        self.need = need
        self.free = pf._free_for(need)
        self.rows: list[list[bool]] = self.free.tolist()
        self.sat = _sat_cells(_blocked_sat(self.free))
        g = pf._graph
        self.matrix = csr_matrix((g.weights(self.free.ravel()), g.indices, g.indptr), shape=(g.n, g.n))
        self._labels: np.ndarray | None = None
        self.fields: OrderedDict[int, _Field] = OrderedDict()
        self.local: OrderedDict[int, _Field] = OrderedDict()
        # changes to the free cells so far, and the last one that opened cells: a field solved
        # before an opening is stale (shorter paths may exist anywhere), a bounded one before any
        # change is stale; both are found out when next used, so a change frees nothing at once
        self.epoch = 0
        self.opened_at = 0
        self.near_goal: dict[tuple[int, int], int] = {}  # (component, goal cell) -> reachable cell
        # (ax, ay, bx, by) -> whether the segment is free on these free cells: units standing
        # still ask the same segment loop after loop (kept until the free cells change)
        self.seen: dict[tuple[float, float, float, float], bool] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["sat"] = np.asarray(self.sat)  # (a memoryview neither pickles nor copies)
        del state["seen"]  # (answers, found again when asked)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["sat"] = _sat_cells(state["sat"])
        self.__dict__.update(state)
        self.seen = {}

    def copy(self, pf: PathFinder) -> _Layer:
        """This layer for ``pf``, a copy of its finder (:meth:`PathFinder.copy`): what a deep copy
        gives (through :meth:`__getstate__`), with ``rows`` made again from the free cells instead
        of copied item by item."""
        new = _Layer.__new__(_Layer)
        new.__dict__.update(self.__dict__)
        new.pf = pf
        new.free = self.free.copy()
        new.rows = new.free.tolist()
        new.sat = _sat_cells(np.array(self.sat))
        new.matrix = self.matrix.copy()
        new._labels = None if self._labels is None else self._labels.copy()
        new.fields = copy.deepcopy(self.fields)
        new.local = copy.deepcopy(self.local)
        new.near_goal = dict(self.near_goal)
        new.seen = {}
        return new

    @property
    def labels(self) -> np.ndarray:
        """int[h, w]: the connected component of each free cell as the graph connects them (-1 elsewhere)."""
        if self._labels is None:
            from scipy.sparse.csgraph import connected_components

            m = self.matrix.copy()
            m.data[~np.isfinite(m.data)] = 0
            m.eliminate_zeros()
            _, comp = connected_components(m, directed=False)
            g = self.pf._graph
            lab = np.full(self.free.size, -1, dtype=np.int64)
            lab[g.cells] = comp
            lab[~self.free.ravel()] = -1
            self._labels = lab.reshape(self.free.shape)
        return self._labels

    def segment_free(self, ax: float, ay: float, bx: float, by: float) -> bool:
        """Whether a unit of this class fits along the segment (:func:`_segment_free`; the Python
        twin's answers are kept in :attr:`seen`, the compiled one is cheaper than the look-up)."""
        if _native is not None:
            return _native.segment_free(self.free, self.sat, self.pf.width, self.pf.height, ax, ay, bx, by)  # type: ignore[no-any-return]
        key = (ax, ay, bx, by)
        free = self.seen.get(key)
        if free is None:
            if len(self.seen) >= SEEN_SEGMENTS:
                self.seen.clear()
            free = self.seen[key] = _segment_free(self.sat, self.rows, self.pf.width, self.pf.height, ax, ay, bx, by)
        return free

    def update(self, y0: int, y1: int, x0: int, x1: int) -> None:
        """Re-derive the free cells of the window [y0:y1, x0:x1] after the clearance changed there."""
        pf = self.pf
        new = pf._free_for(self.need, (slice(y0, y1), slice(x0, x1)))
        old = self.free[y0:y1, x0:x1]
        closed, opened = old & ~new, new & ~old
        if not (closed.any() or opened.any()):
            return
        self.free[y0:y1, x0:x1] = new
        for y in range(y0, y1):
            self.rows[y][x0:x1] = new[y - y0].tolist()
        if _native is not None:  # (only the table's entries below and right of the window change)
            _native.sat_update(self.free, self.sat, pf.width, pf.height, y0, x0)
        else:
            self.sat = _sat_cells(_blocked_sat(self.free))
        self.seen.clear()
        # the weights of every edge touching a changed cell or passing beside one
        g = pf._graph
        ty0, tx0 = max(y0 - 1, 0), max(x0 - 1, 0)
        ty1, tx1 = min(y1 + 1, pf.height), min(x1 + 1, pf.width)
        changed = np.zeros((ty1 - ty0, tx1 - tx0), dtype=bool)
        changed[y0 - ty0:y1 - ty0, x0 - tx0:x1 - tx0] = closed | opened
        touched = changed.copy()  # the changed cells and their 8 neighbours
        touched[1:] |= changed[:-1]
        touched[:-1] |= changed[1:]
        grown = touched.copy()
        touched[:, 1:] |= grown[:, :-1]
        touched[:, :-1] |= grown[:, 1:]
        ty, tx = np.nonzero(touched)
        near = g.node[(ty + ty0) * pf.width + tx + tx0]
        near = near[near >= 0]
        edges = g.edges_of(near)
        self.matrix.data[edges] = g.weights(self.free.ravel(), edges)
        self._labels = None
        self.near_goal.clear()
        self.epoch += 1
        if opened.any():
            self.opened_at = self.epoch
            return
        cy, cx = np.nonzero(closed)
        blocked = g.node[(cy + y0) * pf.width + (cx + x0)]
        blocked = blocked[blocked >= 0]
        box = (x0 + int(cx.min()) - 1, y0 + int(cy.min()) - 1, x0 + int(cx.max()) + 2, y0 + int(cy.max()) + 2)
        for f in (*self.fields.values(), *self.local.values()):  # repaired when next used: a goal no
            if len(f.pending) < MAX_PENDING:  # unit asks for again costs nothing
                f.pending.append((blocked, near, box))
            else:  # long unused: solving it again will be cheaper than the repairs
                f.epoch = -1

    def _repair(self, f: _Field) -> bool:
        """Bring ``f`` up to date with the structures placed since; False when recomputing it is cheaper.

        Only the nodes whose shortest path ran through a closed cell or a closed step (the subtrees
        below them) can change; they are solved again from the unchanged nodes around them.
        """
        g = self.pf._graph
        n, w = g.n, self.pf.width
        blocked = np.concatenate([b for b, _, _ in f.pending])
        near = np.concatenate([nb for _, nb, _ in f.pending])
        boxes = [box for _, _, box in f.pending]
        f.pending = []
        if _native is not None:
            roots = np.empty(blocked.size + near.size, dtype=np.int64)
            roots = roots[:_native.repair_roots(f.pred, blocked, near, g.cells, self.free, w, roots)]
        else:
            roots = np.concatenate([blocked, _bad_steps(f.pred, near, g.cells, self.free.ravel(), w)])
        if roots.size == 0:
            return True
        # every node below a root in the shortest-path forest
        if _native is not None:
            affected = np.empty(n, dtype=bool)
            _native.below_roots(f.pred, roots, affected)
        else:
            affected = _below_roots(f.pred, roots)
        count = int(affected.sum())
        if count > n // 4:
            return False
        f.dist[blocked] = np.inf
        f.pred[blocked] = _UNREACHED
        if _native is not None:
            todo, via_of, indptr, data, indices = _native_sub_graph(affected, self.free, g, self.matrix.data, f.dist, count)
        else:
            todo, via_of, indptr, data, indices = _sub_graph(affected, self.free.ravel(), g, self.matrix.data, f.dist)
        if todo.size:
            k = todo.size
            d, p = _shortest(indptr, indices, data, k, math.inf)
            (_repair_write if _native is None else _native.repair_write)(todo, d, p, via_of, f.limit, f.dist, f.pred)
        # taut paths from changed nodes, or passing by a new structure, are pulled again
        drop = []
        for v, (ax0, ay0, ax1, ay1) in f.box.items():
            if affected[v] or any(ax0 < bx1 and ax1 >= bx0 and ay0 < by1 and ay1 >= by0 and _crosses(f.taut[v], int(g.cells[v]), w, (bx0, by0, bx1, by1))
                                  for bx0, by0, bx1, by1 in boxes):
                drop.append(v)
        for v in drop:
            del f.taut[v], f.box[v]
        return True

    def _solve(self, goal: int, bound: float | None) -> tuple[np.ndarray, np.ndarray]:
        """:func:`_shortest` to ``goal`` on this layer (from the goal: the graph's steps cost the
        same both ways; the layer's matrix shares the graph's structure)."""
        g = self.pf._graph
        return _shortest(g.indptr, g.indices, self.matrix.data, goal, math.inf if bound is None else bound)

    def _valid(self, f: _Field | None) -> bool:
        """True when ``f`` is up to date (repaired now if structures were placed since)."""
        return f is not None and f.epoch >= self.opened_at and f.epoch >= 0 and (not f.pending or self._repair(f))

    def field(self, goal: int, start: int, bound: float | None = None) -> _Field:
        """The distance field to ``goal``, reaching ``start`` if anything does.

        With ``bound`` (a short move), a field searched only that far from the goal is tried first;
        bounded fields are kept apart from the full ones, so many one-off short moves do not push
        out the fields of the goals whole armies are walking to.
        """
        f = self.fields.get(goal)
        if self._valid(f):
            assert f is not None
            self.fields.move_to_end(goal)
            return f
        if bound is not None:
            lf = self.local.get(goal)
            if not (self._valid(lf) and lf is not None and (lf.limit >= bound or math.isfinite(lf.dist[start]))):
                lf = _Field(*self._solve(goal, bound), bound, self.epoch)
                self.local[goal] = lf
                if len(self.local) > LOCAL_CACHE:
                    self.local.popitem(last=False)
            self.local.move_to_end(goal)
            if math.isfinite(lf.dist[start]):
                return lf
        f = _Field(*self._solve(goal, None), math.inf, self.epoch)
        self.fields[goal] = f
        self.fields.move_to_end(goal)
        if len(self.fields) > FIELD_CACHE:
            self.fields.popitem(last=False)
        return f


def _shortest(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, source: int,
              limit: float) -> tuple[np.ndarray, np.ndarray]:
    """Dijkstra from ``source`` over the CSR graph (``indptr``, ``indices``, ``data``), searched no
    farther than ``limit``: the distances (float64 per node) and each node's predecessor (int32;
    ``_UNREACHED`` where none).  The compiled twin where it breaks ties as the installed scipy
    does (:data:`_QUEUE_DIJKSTRA`), else scipy's own (imported where a field is solved)."""
    n = len(indptr) - 1
    if _native is not None and _QUEUE_DIJKSTRA:
        dist, pred = np.empty(n), np.empty(n, dtype=np.int32)
        _native.dijkstra_csr(indptr, indices, data, source, limit, dist, pred)
        return dist, pred
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    graph = csr_matrix((data, indices, indptr), shape=(n, n))
    return dijkstra(graph, directed=True, indices=source, return_predecessors=True, limit=limit)  # type: ignore[no-any-return]


def _bad_steps(pred: np.ndarray, nodes: np.ndarray, cells: np.ndarray, free: np.ndarray, w: int) -> np.ndarray:
    """The nodes among ``nodes`` whose step to ``pred`` is no longer an edge (a cell closed, a
    corner cut): ``cells``, each node's cell; ``free``, bool per cell of a grid ``w`` wide.  The
    Python twin of the compiled ``repair_roots`` (with the closed nodes before them)."""
    p = pred[nodes]
    has = p >= 0
    a, b = cells[nodes[has]], cells[p[has]]
    ay, ax, by, bx = a // w, a % w, b // w, b % w
    ok = free[a] & free[b] & free[ay * w + bx] & free[by * w + ax]  # the two cells beside a diagonal step
    return nodes[has][~ok]


def _sub_graph(affected: np.ndarray, free: np.ndarray, g: _Graph, weights: np.ndarray, dist: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The nodes a repair solves again and their sub-graph: (todo, via_of, indptr, data, indices).

    ``todo``: the ``affected`` nodes whose cell is ``free`` (bool per cell; ``weights``: the
    layer's edge weights, in ``g``'s CSR order).  The sub-graph in CSR form (rows are already
    grouped by node): each one's finite edges to affected nodes, as indices into ``todo``, then a
    virtual source (row k) with an edge to each entry point, the node an unchanged neighbour of
    finite ``dist`` enters most cheaply (that neighbour's distance plus the step; the first edge
    of equal ones), whose neighbour is its ``via_of`` (``_UNREACHED`` where none).  The Python
    twin of the compiled ``sub_graph`` (:func:`_native_sub_graph`).
    """
    n = g.n
    todo = np.flatnonzero(affected & free[g.cells])
    k = todo.size
    if not k:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, np.zeros(0), np.zeros(0, dtype=np.int32)
    local = np.full(n, -1, dtype=np.int64)
    local[todo] = np.arange(k)
    e = g.edges_of(todo)
    src, dst, wt = np.repeat(np.arange(k), g.degree[todo]), g.indices[e], weights[e]
    keep = np.isfinite(wt)
    src, dst, wt = src[keep], dst[keep], wt[keep]
    inside = affected[dst]
    out = ~inside & np.isfinite(dist[dst])
    cand, s_loc, via = dist[dst[out]] + wt[out], src[out], dst[out]
    order = np.lexsort((cand, s_loc))
    first = np.ones(order.size, dtype=bool)
    first[1:] = s_loc[order][1:] != s_loc[order][:-1]
    entry_loc, entry_cost, entry_via = s_loc[order][first], cand[order][first], via[order][first]
    counts = np.bincount(src[inside], minlength=k)
    indptr = np.zeros(k + 2, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:k + 1])
    indptr[k + 1] = indptr[k] + entry_loc.size
    via_of = np.full(k, _UNREACHED, dtype=np.int64)
    via_of[entry_loc] = entry_via
    return (todo, via_of, indptr, np.concatenate([wt[inside], entry_cost]),
            np.concatenate([local[dst[inside]], entry_loc]).astype(np.int32))


def _native_sub_graph(affected: np.ndarray, free: np.ndarray, g: _Graph, weights: np.ndarray, dist: np.ndarray,
                      count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_sub_graph` by the compiled ``sub_graph``, into arrays sized for the ``count``
    affected nodes (at most 8 edges each, and one from the virtual source)."""
    assert _native is not None
    todo, via_of = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
    indptr = np.empty(count + 2, dtype=np.int64)
    data, indices = np.empty(9 * count), np.empty(9 * count, dtype=np.int32)
    k, m = _native.sub_graph(affected, free, g.cells, g.indptr, g.indices, weights, dist, todo, via_of, indptr, data,
                             indices)
    return todo[:k], via_of[:k], indptr[:k + 2 if k else 0], data[:m], indices[:m]


def _repair_write(todo: np.ndarray, d: np.ndarray, p: np.ndarray, via_of: np.ndarray, limit: float,
                  dist: np.ndarray, pred: np.ndarray) -> None:
    """The sub-graph's distances ``d`` and predecessors ``p`` (the virtual source's row k: through
    ``via_of``) of the nodes ``todo`` into the field's ``dist`` and ``pred``.  The Python twin of
    the compiled ``repair_write``."""
    k = todo.size
    pl = p[:k].astype(np.int64)
    dist[todo] = d[:k]
    pred[todo] = np.where(pl == k, via_of, np.where(pl >= 0, todo[np.clip(pl, 0, k - 1)], _UNREACHED))
    if math.isfinite(limit):  # beyond its bound a path may have left the searched area: unknown
        over = todo[d[:k] > limit]
        dist[over] = np.inf
        pred[over] = _UNREACHED


def _below_roots(pred: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """bool per node: whether the node's way down the shortest-path forest ``pred`` (the next node,
    negative at a tree's root) passes a node of ``roots``, itself included (pointer jumping).  The
    Python twin of the compiled ``below_roots`` (:mod:`sc2pool.engine.kernels`)."""
    n = len(pred)
    jump = np.append(np.where(pred >= 0, pred, n), n)
    hit = np.zeros(n + 1, dtype=bool)
    hit[roots] = True
    while True:
        hit |= hit[jump]
        nxt = jump[jump]
        if np.array_equal(nxt, jump):
            break
        jump = nxt
    return hit[:n]


def _crosses(pts: tuple[tuple[float, float], ...], cell: int, width: int, box: tuple[int, int, int, int]) -> bool:
    """True when the polyline from ``cell``'s centre through ``pts`` may touch the cells of ``box``."""
    x0, y0, x1, y1 = box
    px, py = cell % width + 0.5, cell // width + 0.5
    for qx, qy in pts:
        if min(px, qx) < x1 and max(px, qx) >= x0 and min(py, qy) < y1 and max(py, qy) >= y0:
            return True
        px, py = qx, qy
    return False


@lru_cache(maxsize=256)
def _radius_class(radius: float) -> int:
    """The radius class of a unit of ``radius`` (kept per radius: units come in a few dozen radii)."""
    if not math.isfinite(radius):
        raise ValueError(f"radius {radius} is not finite")
    return max(0, int(math.ceil((radius - 0.5) / RADIUS_STEP - 1e-9)))  # radius <= 0.5 fits any free cell


def _edge_distance(unbuilt: np.ndarray, ndimage: Any) -> np.ndarray:
    """Distance from each cell's centre to the nearest edge of a cell not ``unbuilt`` (inf if none)."""
    if unbuilt.all():
        return np.full(unbuilt.shape, np.inf)
    return ndimage.distance_transform_edt(unbuilt) - 0.5


class PathFinder:
    """Paths for ground units of any radius on ``pathable`` (bool[h, w], [y, x]) plus structures."""

    def __init__(self, pathable: np.ndarray) -> None:
        if pathable.ndim != 2:
            raise ValueError(f"pathable must be a 2-D grid, got shape {pathable.shape}")
        # scipy's modules are imported here, with the map, not by a game's first move order
        import scipy.sparse.csgraph  # noqa: F401
        from scipy import ndimage

        self.base = np.array(pathable, dtype=bool, copy=True)
        self.height, self.width = self.base.shape
        self._blocks: dict[int, np.ndarray] = {}  # key -> flat cell indices
        self._blocked_count = np.zeros(self.base.size, dtype=np.int32)
        self._pathable = self.base.copy()
        self._terrain_clearance = self._terrain_clear(self.base, ndimage)
        self._clearance = self._clear(self._pathable, self._blocked_count.reshape(self.base.shape) == 0,
                                      self._terrain_clearance, ndimage)
        self._graph = _Graph(self.base)
        self._layers: dict[int, _Layer] = {}
        self._layer(0.375)  # the small units' layer: the first query does not pay for building it

    def copy(self) -> PathFinder:
        """An independent copy, as ``copy.deepcopy`` makes it but without walking every cell's
        list item: what a structure changes is copied; the terrain's grids and the edge graph,
        which nothing changes after they are built, are shared."""
        new = PathFinder.__new__(PathFinder)
        new.__dict__.update(self.__dict__)
        new._blocks = dict(self._blocks)  # (a structure's cells are replaced, never changed in place)
        new._blocked_count = self._blocked_count.copy()
        new._pathable = self._pathable.copy()
        new._clearance = self._clearance.copy()
        new._layers = {rc: layer.copy(new) for rc, layer in self._layers.items()}
        return new

    # ---- structures --------------------------------------------------------------------------

    def set_blocked_many(self, items: Iterable[tuple[int, tuple[slice, slice] | np.ndarray | None]]) -> None:
        """:meth:`set_blocked` for each ``(key, cells)`` in turn, the clearance and the layers
        refreshed once for them all (a game's first blockers: minerals, geysers, rocks): the same
        grids and weights as the calls one by one.  A finder that keeps distance fields takes them
        one by one, since its fields are repaired structure by structure."""
        if any(layer.fields or layer.local for layer in self._layers.values()):
            for key, cells in items:
                self.set_blocked(key, cells)
            return
        touched: list[np.ndarray] = []
        for key, cells in items:
            self._count_blocks(key, cells, touched)
        if touched:
            self._flip(np.unique(np.concatenate(touched)))

    def set_blocked(self, key: int, cells: tuple[slice, slice] | np.ndarray | None) -> None:
        """Block ``cells`` for structure ``key`` (replacing its earlier cells), or unblock it (None).

        ``cells`` is a ``(rows, cols)`` pair of slices of the grid, a bool[h, w] mask, or an (n, 2)
        array of (x, y) cells.
        """
        touched: list[np.ndarray] = []
        self._count_blocks(key, cells, touched)
        if touched:
            self._flip(np.unique(np.concatenate(touched)))

    def _count_blocks(self, key: int, cells: tuple[slice, slice] | np.ndarray | None, touched: list[np.ndarray]) -> None:
        """Move structure ``key``'s blocked counts from its earlier cells to ``cells``; the cells
        whose counts changed are appended to ``touched``."""
        old = self._blocks.pop(key, None)
        if old is not None:
            np.subtract.at(self._blocked_count, old, 1)
            touched.append(old)
        if cells is not None:
            flat = self._flat(cells)
            if flat.size:
                self._blocks[key] = flat
                np.add.at(self._blocked_count, flat, 1)
                touched.append(flat)

    def _flip(self, cand: np.ndarray) -> None:
        """Make the cells ``cand`` (sorted, unique) pathable or not as their blocked counts now say."""
        now = self.base.ravel()[cand] & (self._blocked_count[cand] == 0)
        flips = now != self._pathable.ravel()[cand]
        if flips.any():
            self._pathable.ravel()[cand[flips]] = now[flips]
            self._refresh(cand[flips])

    def _refresh(self, flip: np.ndarray) -> None:
        """Update the clearance and every layer around the cells whose pathability flipped."""
        from scipy import ndimage

        ys, xs = flip // self.width, flip % self.width
        pad = int(math.ceil(CLEAR_CAP)) + 2
        iy0, iy1 = max(int(ys.min()) - pad, 0), min(int(ys.max()) + pad + 1, self.height)
        ix0, ix1 = max(int(xs.min()) - pad, 0), min(int(xs.max()) + pad + 1, self.width)
        wy0, wy1, wx0, wx1 = max(iy0 - pad, 0), min(iy1 + pad, self.height), max(ix0 - pad, 0), min(ix1 + pad, self.width)
        win = (slice(wy0, wy1), slice(wx0, wx1))
        window = self._clear(self._pathable[win], self._blocked_count.reshape(self.base.shape)[win] == 0,
                             self._terrain_clearance[win], ndimage)
        # the window's border sees no blocked cell beyond it; inside by `pad` the capped value is exact
        self._clearance[iy0:iy1, ix0:ix1] = window[iy0 - wy0:iy1 - wy0, ix0 - wx0:ix1 - wx0]
        for rc, layer in list(self._layers.items()):
            if layer.need > CLEAR_CAP:  # beyond the exact cap: rebuilt on its next use
                del self._layers[rc]
            else:
                layer.update(iy0, iy1, ix0, ix1)

    def _free_for(self, need: float, window: tuple[slice, slice] = (slice(None), slice(None))) -> np.ndarray:
        """bool: the cells (of ``window``) whose centre is at least ``need`` from every blocked cell's edge."""
        if need <= 0:
            return self._pathable[window].copy()
        if need <= CLEAR_CAP:
            return self._clearance[window] >= need
        from scipy import ndimage  # a radius beyond the capped clearance: measure it on the whole grid

        unbuilt = self._blocked_count.reshape(self.base.shape) == 0
        far = np.minimum(ndimage.distance_transform_edt(self.base), _edge_distance(unbuilt, ndimage))
        return ((far >= need) & self._pathable)[window]

    @staticmethod
    def _terrain_clear(base: np.ndarray, ndimage: Any) -> np.ndarray:
        """float32: distance from each cell's centre to the nearest centre of a cell the terrain
        blocks, capped.

        The grid marks a cell unpathable when a cliff or doodad covers part of it, so the real edge
        lies inside that cell: measured to its centre (half a cell in), every main ramp of the 24
        ladder maps lets units of radius 1 (Thor, Ultralisk, Archon) through, as the real game does;
        measured to the cell's edge, 23 of 24 mains were closed to every unit above radius 0.5
        (Stalkers, Hydralisks, Marauders). docs/engine.md, "Pathfinding".
        """
        return np.minimum(ndimage.distance_transform_edt(base), CLEAR_CAP + 1.0).astype(np.float32)

    @staticmethod
    def _clear(free: np.ndarray, unbuilt: np.ndarray, terrain: np.ndarray, ndimage: Any) -> np.ndarray:
        """float32: each free cell's clearance, capped; -1 if blocked: the lesser of the terrain's
        (:meth:`_terrain_clear`) and the distance to the nearest edge of a cell a structure, rock or
        resource blocks (``~unbuilt``: their footprints are whole cells)."""
        d = np.minimum(terrain, _edge_distance(unbuilt, ndimage))
        return np.where(free, np.minimum(d, CLEAR_CAP + 1.0), -1.0).astype(np.float32)

    def _flat(self, cells: tuple[slice, slice] | np.ndarray) -> np.ndarray:
        if isinstance(cells, tuple):
            ys = np.arange(self.height)[cells[0]]
            xs = np.arange(self.width)[cells[1]]
            return (ys[:, None] * self.width + xs[None, :]).ravel()
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
        return self._pathable.copy()

    # ---- grids per radius ----------------------------------------------------------------------

    def _layer(self, radius: float) -> _Layer:
        rc = _radius_class(radius)
        layer = self._layers.get(rc)
        if layer is None:
            layer = _Layer(self, 0.5 + rc * RADIUS_STEP if rc else 0.0)
            self._layers[rc] = layer
        return layer

    # ---- queries -------------------------------------------------------------------------------

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"point ({x}, {y}) is not finite")
        cx, cy = int(math.floor(x)), int(math.floor(y))
        w1, h1 = self.width - 1, self.height - 1  # (clamped without min/max calls)
        return (0 if cx < 0 else w1 if cx > w1 else cx, 0 if cy < 0 else h1 if cy > h1 else cy)

    def _nearest_free(self, layer: _Layer, x: float, y: float) -> tuple[int, int] | None:
        """The free cell of ``layer`` whose centre is nearest to (x, y) (the first of equally near
        ones, row by row): a small window first (:func:`_nearest_cell`), else the whole grid."""
        if _native is not None:
            near = _native.nearest_cell(layer.free, self.width, self.height, x, y, NEAR_WINDOW)
        else:
            near = _nearest_cell(layer.rows, self.width, self.height, x, y, *self._cell(x, y))
        return near if near is not None else self._nearest_in(layer.free, x, y)

    @staticmethod
    def _nearest_in(mask: np.ndarray, x: float, y: float) -> tuple[int, int] | None:
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
        near = self._nearest_free(layer, x, y)
        if near is None:
            raise ValueError("the grid has no pathable cell")
        return (near[0] + 0.5, near[1] + 0.5)

    def path(self, start: tuple[float, float], goal: tuple[float, float], radius: float = 0.375) -> np.ndarray:
        """(k, 2) float waypoints from ``start`` (excluded) to ``goal`` or the nearest reachable point.

        An empty array means the unit cannot move at all (its own cell is enclosed).
        """
        pts = self._waypoints(self._layer(radius), float(start[0]), float(start[1]), float(goal[0]), float(goal[1]))
        return np.array(pts, dtype=float).reshape(-1, 2)

    def _waypoints(self, layer: _Layer, sx: float, sy: float, gx: float, gy: float,
                   start: tuple[int, int] | None = None) -> list[tuple[float, float]]:
        """The waypoints of :meth:`path` on ``layer``; ``start``: the start's free cell when the
        caller found it already."""
        free, w = layer.free, self.width
        if start is None:
            scx, scy = self._cell(sx, sy)
            if not free[scy, scx]:
                near = self._nearest_free(layer, sx, sy)
                if near is None:
                    return []
                scx, scy = near
        else:
            scx, scy = start
        gcx, gcy = self._cell(gx, gy)
        if not (0 <= gx < w and 0 <= gy < self.height and free[gcy, gcx]):
            near = self._nearest_free(layer, gx, gy)
            if near is None:
                return []
            gcx, gcy = near
            gx, gy = gcx + 0.5, gcy + 0.5
        if (scx, scy) == (gcx, gcy) or layer.segment_free(sx, sy, gx, gy):
            return [(gx, gy)]
        g = self._graph
        snode, gnode = int(g.node[scy * w + scx]), int(g.node[gcy * w + gcx])
        straight = math.hypot(gx - sx, gy - sy)
        f = layer.field(gnode, snode, SHORT_BOUND if straight < SHORT_MOVE else None)
        if not math.isfinite(f.dist[snode]):
            # walled off from the goal: go to the reachable cell nearest to it
            comp = int(layer.labels[scy, scx])
            near_cell = layer.near_goal.get((comp, gcy * w + gcx))
            if near_cell is None:
                near = self._nearest_in(layer.labels == comp, gx, gy)
                if near is None:
                    return []
                near_cell = near[1] * w + near[0]
                layer.near_goal[(comp, gcy * w + gcx)] = near_cell
            return self._waypoints(layer, sx, sy, near_cell % w + 0.5, near_cell // w + 0.5, (scx, scy))
        pts = list(self._taut(layer, f, snode, gnode))
        if not pts:
            return []
        # end on the goal point itself rather than its cell's centre, straight if the last leg allows
        before = pts[-2] if len(pts) > 1 else (scx + 0.5, scy + 0.5)
        if layer.segment_free(before[0], before[1], gx, gy):
            pts[-1] = (gx, gy)
        elif pts[-1] != (gx, gy):
            pts.append((gx, gy))
        # from the unit's own point the pulled path may skip its first waypoints
        for i in range(len(pts) - 2, -1, -1):
            if layer.segment_free(sx, sy, pts[i][0], pts[i][1]):
                return pts[i:]
        return [(scx + 0.5, scy + 0.5), *pts]  # via its cell's centre, which sees the first waypoint

    def _taut(self, layer: _Layer, f: _Field, node: int, goal: int) -> tuple[tuple[float, float], ...]:
        """Waypoints from ``node``'s centre to the goal's centre, pulled taut; kept per node."""
        hit = f.taut.get(node)
        if hit is not None:
            return hit
        g, w = self._graph, self.width
        pred = f.pred.item  # one node at a time: the walk stops at the first cell already pulled
        chain = [node]
        cur = node
        while cur != goal and cur not in f.taut:
            cur = pred(cur)
            if cur < 0:
                return ()
            chain.append(cur)
        tail = list(f.taut.get(cur, ())) if cur != goal else []
        cells = g.cells[chain].tolist()  # (one gather for the whole chain)
        pts = [(c % w + 0.5, c // w + 0.5) for c in cells[1:]] + tail
        m = len(chain) - 1  # pts[:m] are cell centres down the field, pts[m:] an already taut path
        out: list[tuple[float, float]] = []
        at: list[int] = []  # for each waypoint, its index in pts
        cx, cy = cx0, cy0 = cells[0] % w + 0.5, cells[0] // w + 0.5
        segment_free = layer.segment_free
        i, n = 0, len(pts)
        while i < n:
            lo, hi = i, n - 1
            while lo < hi:  # the farthest waypoint still in a straight line
                mid = (lo + hi + 1) // 2
                if segment_free(cx, cy, pts[mid][0], pts[mid][1]):
                    lo = mid
                else:
                    hi = mid - 1
            out.append(pts[lo])
            at.append(lo)
            if lo >= m:  # reached the taut tail: the rest is already pulled
                out.extend(pts[lo + 1:])
                break
            cx, cy = pts[lo]
            i = lo + 1
        xs = [p[0] for p in out]
        ys = [p[1] for p in out]
        box = (min(xs + [cx0]), min(ys + [cy0]), max(xs + [cx0]), max(ys + [cy0]))
        kept = tuple(out)
        f.taut[node] = kept
        f.box[node] = box
        for k, j in enumerate(at):  # every waypoint on the field's cells starts a taut path too
            if j < m - 1 and chain[j + 1] not in f.taut:
                f.taut[chain[j + 1]] = kept[k + 1:]
                f.box[chain[j + 1]] = box  # the whole path's box holds its tail's
        return kept

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
            near = self._nearest_free(layer, sx, sy)
            if near is None:
                return None
            scx, scy = near
        if layer.labels[gcy, gcx] != layer.labels[scy, scx]:
            return None
        pts = self.path((sx, sy), goal, radius)
        seg = np.diff(np.vstack([[[sx, sy]], pts]), axis=0)
        return float(np.hypot(seg[:, 0], seg[:, 1]).sum())
