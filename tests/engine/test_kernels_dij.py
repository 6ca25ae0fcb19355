"""The path finder's shortest-path solves by the compiled ``dijkstra_csr``
(sc2pool/engine/_kernels_dij.c) against scipy.sparse.csgraph.dijkstra, which the Python engine
calls: the same distances and the same predecessors, bit for bit, on graphs full of equally short
paths (whose predecessors depend on how the two break ties), with and without a limit; on the
layers of a ladder map; and the path finder's fields both ways.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import CountingKernels, needs_native, random_grid
from kernel_helpers import native as _native
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from sc2pool.engine.terrain import find_map, load_map
from sc2pool.engine.terrain import pathing as P

pytestmark = pytest.mark.skipif(not P._QUEUE_DIJKSTRA, reason="this scipy's dijkstra is not the one twinned")

SQRT2 = math.sqrt(2.0)
# few distinct weights, so that many paths are equally short; inf: an edge a structure closed
WEIGHTS = [1.0, SQRT2, 2.0, 2 * SQRT2, 0.5, 0.0, math.inf]


def _scipy(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, source: int, limit: float | None
           ) -> tuple[np.ndarray, np.ndarray]:
    n = indptr.size - 1
    m = csr_matrix((data, indices, indptr), shape=(n, n))
    if limit is None:
        return dijkstra(m, directed=True, indices=source, return_predecessors=True)  # type: ignore[no-any-return]
    return dijkstra(m, directed=True, indices=source, return_predecessors=True, limit=limit)  # type: ignore[no-any-return]


def _kernel(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, source: int, limit: float | None
            ) -> tuple[np.ndarray, np.ndarray]:
    n = indptr.size - 1
    dist, pred = np.full(n, 7.0), np.full(n, 7, dtype=np.int32)  # (every item is written)
    _native().dijkstra_csr(indptr.astype(np.int64), indices, data, source, math.inf if limit is None else limit,
                           dist, pred)
    return dist, pred


def _same_as_scipy(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, source: int, limit: float | None
                   ) -> np.ndarray:
    """Both solves compared bit for bit; returns scipy's predecessors."""
    d, p = _scipy(indptr, indices, data, source, limit)
    d2, p2 = _kernel(indptr, indices, data, source, limit)
    assert d.tobytes() == d2.tobytes(), "distances"
    assert p.dtype == p2.dtype and p.tobytes() == p2.tobytes(), "predecessors"
    return p


@st.composite
def _graphs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A random directed graph in CSR form (parallel edges and self loops included, rows not
    sorted) with weights from a few values, and a source."""
    n = draw(st.integers(1, 40))
    rows = draw(st.lists(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from(WEIGHTS)), max_size=8),
                         min_size=n, max_size=n))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    indices = np.array([j for r in rows for j, _ in r], dtype=np.int32)
    data = np.array([w for r in rows for _, w in r], dtype=np.float64)
    return indptr, indices, data, draw(st.integers(0, n - 1))


@needs_native
@settings(max_examples=400, deadline=None)
@given(g=_graphs(), limit=st.one_of(st.none(), st.sampled_from([0.0, 1.0, SQRT2, 2.5, 3.0, math.inf]),
                                    st.floats(0.0, 12.0)))
def test_random_graphs_solve_as_scipy_solves_them(g: tuple[np.ndarray, np.ndarray, np.ndarray, int],
                                                   limit: float | None) -> None:
    _same_as_scipy(*g, limit)


def _grid_graph(free: np.ndarray, closed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The path finder's graph of ``free``'s cells with the ``closed`` ones' edges infinite (a layer's)."""
    g = P._Graph(free)
    return g.indptr, g.indices, g.weights((free & ~closed).ravel())


@needs_native
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**16), w=st.integers(1, 30), h=st.integers(1, 30), blocks=st.integers(0, 12),
       limit=st.one_of(st.none(), st.sampled_from([0.0, 1.0, SQRT2, 4 * SQRT2, 30.0]), st.floats(0.0, 40.0)))
def test_grids_of_eight_neighbours_solve_as_scipy_solves_them(seed: int, w: int, h: int, blocks: int,
                                                             limit: float | None) -> None:
    free = random_grid(seed, w, h, blocks)
    if not free.any():
        return
    closed = random_grid(seed + 1, w, h, 2) == 0  # structures: their edges stay, at infinite weight
    indptr, indices, data = _grid_graph(free, closed)
    rng = np.random.default_rng(seed)
    for source in rng.integers(0, indptr.size - 1, 3):
        _same_as_scipy(indptr, indices, data, int(source), limit)


def _heap_dijkstra(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, source: int, greater_first: bool
                   ) -> np.ndarray:
    """Predecessors by a plain heap whose ties go to the greater node (``greater_first``) or the lesser."""
    n = indptr.size - 1
    dist, pred = np.full(n, math.inf), np.full(n, P._UNREACHED, dtype=np.int32)
    dist[source] = 0.0
    sign = -1 if greater_first else 1
    heap = [(0.0, sign * source)]
    while heap:
        d, sv = heapq.heappop(heap)
        v = sign * sv
        if dist[v] < d:
            continue
        for e in range(indptr[v], indptr[v + 1]):
            j, nxt = int(indices[e]), d + float(data[e])
            if dist[j] > nxt:
                dist[j], pred[j] = nxt, v
                heapq.heappush(heap, (nxt, sign * j))
    return pred


@needs_native
def test_the_ties_that_decide_the_predecessors_are_broken_as_scipy_breaks_them() -> None:
    """(the comparisons above are no test unless some graphs' predecessors depend on the tie rule:
    round obstacles they differ between the greater node first, scipy's, and the lesser)"""
    differ = 0
    for seed in range(5):
        free = random_grid(seed, 20, 20, 10)
        indptr, indices, data = _grid_graph(free, np.zeros_like(free))
        source = (indptr.size - 1) // 2
        p = _same_as_scipy(indptr, indices, data, source, None)
        assert p.tobytes() == _heap_dijkstra(indptr, indices, data, source, True).tobytes()
        differ += int((p != _heap_dijkstra(indptr, indices, data, source, False)).sum())
    assert differ >= 3


@pytest.fixture(scope="module")
def acid() -> np.ndarray:
    return load_map(find_map("AcidPlantLE")).pathable


@needs_native
@pytest.mark.parametrize("radius", [0.375, 0.75, 1.0, 1.5])
def test_the_layers_of_a_ladder_map_solve_as_scipy_solves_them(acid: np.ndarray, radius: float) -> None:
    pf = P.PathFinder(acid)
    rng = np.random.default_rng(int(radius * 8))
    for key in range(6):  # structures, so that some edges are infinite
        x, y = (int(v) for v in rng.integers(20, 140, 2))
        pf.set_blocked(key, (slice(y, y + 3), slice(x, x + 3)))
    layer = pf._layer(radius)
    g = pf._graph
    assert np.isinf(layer.matrix.data).any()
    for i in range(60):
        goal = int(rng.integers(g.n))
        limit = [None, P.SHORT_BOUND, float(rng.uniform(0.0, 60.0))][i % 3]
        _same_as_scipy(g.indptr, g.indices, layer.matrix.data, goal, limit)


@needs_native
def test_fields_and_repairs_are_solved_by_the_kernel_and_answer_as_without() -> None:
    counting = CountingKernels(_native())
    rng = np.random.default_rng(5)
    for seed in range(4):
        grid = random_grid(seed, 30, 30, 25)
        goals = [tuple(float(v) for v in rng.uniform(0, 30, 2)) for _ in range(3)]  # fields used again
        moves = [(tuple(float(v) for v in rng.uniform(0, 30, 2)), goals[i % 3]) for i in range(40)]
        builds = [(int(rng.integers(0, 27)), int(rng.integers(0, 27))) for _ in range(40)]
        answers: list[list[object]] = [[], []]
        for out, kernels in zip(answers, (counting, None), strict=True):
            pf = P.PathFinder(grid)
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(P, "_native", kernels)
                for key, ((a, b), (x, y)) in enumerate(zip(moves, builds, strict=True)):
                    out.append(pf.path(a, b, 0.375 + (key % 2) * 0.5).tobytes())
                    if key % 4 == 3:  # a structure, so that kept fields are repaired
                        pf.set_blocked(key, (slice(y, y + 2), slice(x, x + 2)))
                out.extend(f.dist.tobytes() + f.pred.tobytes() for layer in pf._layers.values()
                           for f in (*layer.fields.values(), *layer.local.values()))
        assert answers[0] == answers[1]
    assert counting.calls.get("dijkstra_csr", 0) >= 80 and counting.calls.get("repair_write", 0) >= 30


# ---------------------------------------------------------------- bad input


@needs_native
def test_dijkstra_csr_names_bad_input() -> None:
    n = _native()
    indptr = np.array([0, 1, 2, 2], dtype=np.int64)
    indices = np.array([1, 2], dtype=np.int32)
    data = np.array([1.0, 2.0])

    def call(**kw: object) -> None:
        args: dict[str, object] = dict(indptr=indptr, indices=indices, data=data, source=0, limit=math.inf,
                                       dist=np.empty(3), pred=np.empty(3, dtype=np.int32))
        args.update(kw)
        n.dijkstra_csr(*args.values())

    call()
    for what, kw in [
        ("dist must be a C-contiguous writable float64 array", dict(dist=np.empty(3, dtype=np.float32))),
        ("dist must be a C-contiguous writable float64 array", dict(dist=np.empty(6)[::2])),
        ("pred must be a C-contiguous writable int32 array", dict(pred=np.empty(3, dtype=np.int64))),
        ("pred holds 2 items where 3 are needed", dict(pred=np.empty(2, dtype=np.int32))),
        ("indptr must be a C-contiguous int64 array", dict(indptr=indptr.astype(np.int32))),
        ("indptr holds 3 items where 4 are needed", dict(indptr=indptr[:3])),
        ("indices must be a C-contiguous int32 array", dict(indices=indices.astype(np.int64))),
        ("data holds 1 items where 2 are needed", dict(data=data[:1])),
        ("data must be a C-contiguous float64 array", dict(data=[1.0, 2.0])),
        ("source 3 is not a node", dict(source=3)),
        ("source -1 is not a node", dict(source=-1)),
        ("limit must be >= 0", dict(limit=-1.0)),
        ("limit must be >= 0", dict(limit=math.nan)),
        (r"indices\[1\] = 5 is not a node", dict(indices=np.array([1, 5], dtype=np.int32))),
        (r"indices\[0\] = -2 is not a node", dict(indices=np.array([-2, 1], dtype=np.int32))),
        (r"data\[1\] is negative or NaN", dict(data=np.array([1.0, -1.0]))),
        (r"data\[0\] is negative or NaN", dict(data=np.array([math.nan, 1.0]))),
        (r"indptr\[1:1 \+ 2\] is not a range", dict(indptr=np.array([0, 1, 9, 9], dtype=np.int64))),
        (r"indptr\[0:0 \+ 2\] is not a range", dict(indptr=np.array([1, 0, 2, 2], dtype=np.int64))),
    ]:
        with pytest.raises(ValueError, match="dijkstra_csr: " + what):
            call(**kw)
    with pytest.raises(ValueError, match="dijkstra_csr: source 0 is not a node"):
        n.dijkstra_csr(np.zeros(1, dtype=np.int64), indices[:0], data[:0], 0, 1.0, np.empty(0),
                       np.empty(0, dtype=np.int32))
