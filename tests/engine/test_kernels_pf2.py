"""A distance field's repair by the compiled kernels (sc2pool/engine/_kernels_pf2.c) against their
Python twins in terrain/pathing.py: the roots of the changed subtrees (``repair_roots``,
``_bad_steps``), the sub-graph solved again (``sub_graph``, ``_sub_graph``), the solved nodes
written back (``repair_write``, ``_repair_write``); and path finders on random grids with
structures placed between queries, answered both ways.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import CountingKernels, needs_native
from kernel_helpers import native as _native
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from sc2pool.engine.terrain import pathing as P


def _finder(seed: int, size: int) -> tuple[P.PathFinder, np.random.Generator]:
    """A path finder on a ``size`` square grid with random rocks (a few walls among them)."""
    rng = np.random.default_rng(seed)
    grid = rng.random((size, size)) > 0.12
    for _ in range(int(rng.integers(0, 3))):  # a wall with a gap
        x = int(rng.integers(2, size - 2))
        grid[:, x] = False
        gap = int(rng.integers(0, size - 3))
        grid[gap:gap + 3, x] = True
    return P.PathFinder(grid), rng


def _point(rng: np.random.Generator, size: int) -> tuple[float, float]:
    # cell centres, cell edges and corners, and points in between
    x, y = rng.integers(0, size, 2) + rng.choice([0.5, 0.0, 0.25, 0.999], 2)
    return float(x), float(y)


def _queries(pf: P.PathFinder, rng: np.random.Generator, size: int, count: int) -> list[Any]:
    """Paths and distances of units of three radii from random points to one of three goals (the
    same ones each time, so that kept fields are used again; long moves solve whole fields, short
    ones bounded fields)."""
    goals = [_point(np.random.default_rng(size), size) for _ in range(3)]
    out: list[Any] = []
    for _ in range(count):
        r = float(rng.choice([0.375, 0.75, 1.0]))
        b = goals[int(rng.integers(0, 3))]
        a = _point(rng, size)
        if rng.random() < 0.4:  # a short move
            a = (min(max(b[0] + float(rng.uniform(-6, 6)), 0.0), size - 0.01),
                 min(max(b[1] + float(rng.uniform(-6, 6)), 0.0), size - 0.01))
        out.append(pf.path(a, b, r).tobytes())
        out.append(pf.distance(a, b, r))
    return out


def _build(pf: P.PathFinder, rng: np.random.Generator, size: int, key: int) -> None:
    """A structure of 1 to 3 cells a side somewhere (sometimes one that leaves, opening cells)."""
    if key > 0 and rng.random() < 0.15:
        pf.set_blocked(int(rng.integers(0, key)), None)
        return
    x, y = (int(v) for v in rng.integers(0, size - 1, 2))
    wd, ht = (int(v) for v in rng.integers(1, 4, 2))
    pf.set_blocked(key, (slice(y, y + ht), slice(x, x + wd)))


def _pending_fields(pf: P.PathFinder) -> list[tuple[P._Layer, P._Field]]:
    return [(layer, f) for layer in pf._layers.values() for f in (*layer.fields.values(), *layer.local.values())
            if f.pending]


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes())


def _steps_of_a_repair(layer: P._Layer, f: P._Field) -> int:
    """Each step of ``f``'s repair by both twins, compared; returns how many nodes it solved."""
    g, w = layer.pf._graph, layer.pf.width
    blocked = np.concatenate([b for b, _, _ in f.pending])
    near = np.concatenate([nb for _, nb, _ in f.pending])
    roots = np.full(blocked.size + near.size + 3, 7, dtype=np.int64)
    c = _native().repair_roots(f.pred, blocked, near, g.cells, layer.free, w, roots)
    py_roots = np.concatenate([blocked, P._bad_steps(f.pred, near, g.cells, layer.free.ravel(), w)])
    assert _same(roots[:c], py_roots)
    if not c:
        return 0
    affected = P._below_roots(f.pred, py_roots)
    dist = f.dist.copy()
    dist[blocked] = np.inf
    py = P._sub_graph(affected, layer.free.ravel(), g, layer.matrix.data, dist)
    got = P._native_sub_graph(affected, layer.free, g, layer.matrix.data, dist, int(affected.sum()))
    for x, y in zip(got, py, strict=True):
        assert _same(x, y)
    todo, via_of, indptr, data, indices = py
    k = todo.size
    if not k:
        return 0
    d, p = dijkstra(csr_matrix((data, indices, indptr), shape=(k + 1, k + 1)), directed=True, indices=k,
                    return_predecessors=True)
    for limit in (f.limit, np.inf, 3.5):
        outs = [(dist.copy(), f.pred.copy()) for _ in range(2)]
        _native().repair_write(todo, d, p, via_of, limit, *outs[0])
        P._repair_write(todo, d, p, via_of, limit, *outs[1])
        assert _same(outs[0][0], outs[1][0]) and _same(outs[0][1], outs[1][1])
    return k


@needs_native
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), size=st.integers(6, 28), builds=st.integers(1, 6))
def test_each_step_of_a_repair_gives_what_its_python_twin_gives(seed: int, size: int, builds: int) -> None:
    pf, rng = _finder(seed, size)
    _queries(pf, rng, size, 6)
    for key in range(builds):
        _build(pf, rng, size, key)
    for layer, f in _pending_fields(pf):
        _steps_of_a_repair(layer, f)


@needs_native
def test_the_steps_are_compared_on_repairs_that_solve_nodes_again() -> None:
    """(the hypothesis test above is no test unless some of its repairs solve nodes again)"""
    solved = 0
    for seed in range(12):
        pf, rng = _finder(seed, 20)
        _queries(pf, rng, 20, 6)
        for key in range(3):
            _build(pf, rng, 20, key)
        solved += sum(_steps_of_a_repair(layer, f) > 0 for layer, f in _pending_fields(pf))
    assert solved >= 20


def _answers(pf: P.PathFinder, seed: int, size: int, rounds: int) -> tuple[list[Any], list[bytes]]:
    """Queries with structures placed between them; the answers and every kept field's state."""
    rng = np.random.default_rng(seed + 1)
    out = _queries(pf, rng, size, 4)
    for key in range(rounds):
        _build(pf, rng, size, key)
        out += _queries(pf, rng, size, 4)
    fields = [f.dist.tobytes() + f.pred.tobytes() + repr(sorted(f.taut.items())).encode()
              for layer in pf._layers.values() for f in (*layer.fields.values(), *layer.local.values())]
    return out, fields


@needs_native
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), size=st.integers(8, 30), rounds=st.integers(1, 6))
def test_path_finders_answer_the_same_with_the_kernels_and_without(seed: int, size: int, rounds: int) -> None:
    pf, _ = _finder(seed, size)
    twin = copy.deepcopy(pf)
    with pytest.MonkeyPatch.context() as mp:
        counting = CountingKernels(_native())
        mp.setattr(P, "_native", counting)
        got = _answers(pf, seed, size, rounds)
        mp.setattr(P, "_native", None)
        assert _answers(twin, seed, size, rounds) == got


@needs_native
def test_the_finders_compared_repaired_fields_with_the_kernels() -> None:
    counting = CountingKernels(_native())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P, "_native", counting)
        for seed in range(6):
            pf, _ = _finder(seed, 24)
            _answers(pf, seed, 24, 5)
    assert counting.calls.get("repair_roots", 0) >= 20 and counting.calls.get("repair_write", 0) >= 15


# ---------------------------------------------------------------- bad input


@needs_native
def test_the_repair_kernels_name_bad_input() -> None:
    n = _native()
    pred = np.array([-9999, 0, 1], dtype=np.int32)
    cells = np.array([0, 1, 2], dtype=np.int64)
    free = np.ones(4, dtype=bool)
    one, out = np.array([1]), np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match="repair_roots: pred must be a C-contiguous int32 array"):
        n.repair_roots(pred.astype(np.int64), one, one, cells, free, 2, out)
    with pytest.raises(ValueError, match="repair_roots: cells holds 2 items where 3 are needed"):
        n.repair_roots(pred, one, one, cells[:2], free, 2, out)
    with pytest.raises(ValueError, match="repair_roots: out holds 1 items where at least 2 are needed"):
        n.repair_roots(pred, one, one, cells, free, 2, out[:1])
    with pytest.raises(ValueError, match="repair_roots: free holds 4 cells, no whole number of rows 3 wide"):
        n.repair_roots(pred, one, one, cells, free, 3, out)
    with pytest.raises(ValueError, match=r"repair_roots: near\[0\] = 3 is not a node"):
        n.repair_roots(pred, one, np.array([3]), cells, free, 2, out)
    with pytest.raises(ValueError, match=r"repair_roots: pred\[1\] = 5 is not a node"):
        n.repair_roots(np.array([-1, 5, 1], dtype=np.int32), one, one, cells, free, 2, out)
    with pytest.raises(ValueError, match="repair_roots: cells of nodes 1 and 0 are not cells of free"):
        n.repair_roots(pred, one, one, np.array([0, 9, 2]), free, 2, out)

    affected = np.array([False, True, True])
    indptr = np.array([0, 1, 3, 4], dtype=np.int64)
    indices = np.array([1, 0, 2, 1], dtype=np.int32)
    weights = np.ones(4)
    dist = np.array([0.0, 1.0, 2.0])

    def sub(**kw: Any) -> Any:
        a = {"affected": affected, "free": free, "cells": cells, "indptr": indptr, "indices": indices,
             "weights": weights, "dist": dist, "todo": np.empty(3, np.int64), "via_of": np.empty(3, np.int64),
             "sub_indptr": np.empty(5, np.int64), "sub_data": np.empty(9), "sub_indices": np.empty(9, np.int32)}
        a.update(kw)
        return n.sub_graph(*a.values())

    assert sub() == (2, 3)
    with pytest.raises(ValueError, match="sub_graph: indptr holds 3 items where 4 are needed"):
        sub(indptr=indptr[:3])
    with pytest.raises(ValueError, match="sub_graph: weights holds 3 items where 4 are needed"):
        sub(weights=weights[:3])
    with pytest.raises(ValueError, match="sub_graph: sub_indices must be a C-contiguous writable int32 array"):
        sub(sub_indices=np.empty(9, np.int64))
    with pytest.raises(ValueError, match="sub_graph: todo and via_of hold too few items"):
        sub(todo=np.empty(1, np.int64))
    with pytest.raises(ValueError, match="sub_graph: sub_indptr holds 3 items where 4 are needed"):
        sub(sub_indptr=np.empty(3, np.int64))
    with pytest.raises(ValueError, match="sub_graph: sub_data and sub_indices hold too few items"):
        sub(sub_data=np.empty(2))
    with pytest.raises(ValueError, match=r"sub_graph: cells\[1\] = 4 is not a cell of free"):
        sub(cells=np.array([0, 4, 2]))
    with pytest.raises(ValueError, match=r"sub_graph: indices\[1\] = 3 is not a node"):
        sub(indices=np.array([1, 3, 2, 1], dtype=np.int32))
    with pytest.raises(ValueError, match=r"sub_graph: indptr\[1:1 \+ 2\] is not a range of indices"):
        sub(indptr=np.array([0, 3, 1, 4], dtype=np.int64))

    todo, via = np.array([1, 2]), np.array([0, -9999])
    d, p = np.array([1.0, 2.0, 0.0]), np.array([2, 0, -9999], dtype=np.int32)
    with pytest.raises(ValueError, match="repair_write: p holds 1 items where at least 2 are needed"):
        n.repair_write(todo, d, p[:1], via, np.inf, dist.copy(), pred.copy())
    with pytest.raises(ValueError, match="repair_write: pred holds 2 items where 3 are needed"):
        n.repair_write(todo, d, p, via, np.inf, dist.copy(), pred[:2].copy())
    with pytest.raises(ValueError, match="repair_write: dist must be a C-contiguous writable float64 array"):
        n.repair_write(todo, d, p, via, np.inf, dist.copy()[::2], pred.copy())
    with pytest.raises(ValueError, match=r"repair_write: todo\[1\] = 3 is not a node"):
        n.repair_write(np.array([1, 3]), d, p, via, np.inf, dist.copy(), pred.copy())
    out_d, out_p = dist.copy(), pred.copy()
    n.repair_write(todo, d, p, via, 1.5, out_d, out_p)
    assert out_d.tolist() == [0.0, 1.0, np.inf] and out_p.tolist() == [-9999, 0, -9999]
