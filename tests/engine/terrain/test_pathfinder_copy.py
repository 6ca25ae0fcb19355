"""``PathFinder.copy`` and ``set_blocked_many``: a game starts from a copy of the map's pristine
finder and blocks its first structures in one go; both must leave the finder exactly as a deep
copy and the structures one by one would (the game's paths depend on every grid and weight)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from sc2pool.engine.terrain import PathFinder, find_map, footprint_cells, load_map
from sc2pool.engine.terrain.pathing import _Graph, _Layer

#: What an epoch is a count of differs between one refresh and many (only its order matters).
COUNTERS = {"epoch", "opened_at"}


def _same(a: Any, b: Any, where: str, seen: set[int]) -> None:
    """``a`` and ``b`` hold equal state, recursively (the finder, its layers, fields, arrays)."""
    if isinstance(a, PathFinder | _Layer):
        assert type(a) is type(b), where
        if id(a) in seen:
            return
        seen.add(id(a))
        va, vb = vars(a), vars(b)
        assert sorted(va) == sorted(vb), where
        for k in va:
            if k not in COUNTERS and k != "seen":  # (``seen``: answers, found again when asked)
                _same(va[k], vb[k], f"{where}.{k}", seen)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b), where
    elif isinstance(a, memoryview):
        assert np.array_equal(np.asarray(a), np.asarray(b)), where
    elif isinstance(a, csr_matrix):
        for k in ("data", "indices", "indptr"):
            _same(getattr(a, k), getattr(b, k), f"{where}.{k}", seen)
    elif isinstance(a, _Graph):
        for k in vars(a):
            _same(getattr(a, k), getattr(b, k), f"{where}.{k}", seen)
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]", seen)
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]", seen)
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        _same(vars(a), vars(b), where, seen)
    else:
        assert a == b, where


def same(a: Any, b: Any) -> None:
    _same(a, b, "finder", set())


@pytest.fixture(scope="module")
def acid() -> Any:
    return load_map(find_map("AcidPlantLE"))  # type: ignore[arg-type]


def _blockers(m: Any, n: int, seed: int) -> list[tuple[int, Any]]:
    """Depot-sized (2x2) and mineral-sized (2x1) blocks spread over the map's pathable cells."""
    rng = np.random.default_rng(seed)
    ys, xs = np.nonzero(m.pathable)
    out: list[tuple[int, Any]] = []
    for k in range(n):
        i = int(rng.integers(xs.size))
        y, x = int(ys[i]), int(xs[i])
        out.append((100 + k, (slice(y, y + 2), slice(x, x + 2 - k % 2))))
    return out


def test_a_copy_is_what_a_deep_copy_is_and_changes_apart_from_its_original(acid: Any) -> None:
    pf = PathFinder(acid.pathable)
    pf.set_blocked(1, footprint_cells("CommandCenter", *acid.start_locations[0]))
    pf.path((30.5, 30.5), (120.5, 120.5), 0.375)  # a field and a taut path to copy
    pf.path((30.5, 30.5), (120.5, 120.5), 1.25)
    deep = copy.deepcopy(pf)
    mine = pf.copy()
    same(mine, deep)
    before = copy.deepcopy(pf)
    for f in (mine, deep):
        f.set_blocked(2, footprint_cells("CommandCenter", *acid.start_locations[1]))
        f.set_blocked(1, None)
    same(pf, before)  # the original did not move
    same(mine, deep)
    rng = np.random.default_rng(5)
    ys, xs = np.nonzero(acid.pathable)
    for i, j in rng.integers(xs.size, size=(20, 2)):
        s, g = (xs[i] + 0.5, ys[i] + 0.5), (xs[j] + 0.5, ys[j] + 0.5)
        for r in (0.375, 0.75):
            assert mine.path(s, g, r).tolist() == deep.path(s, g, r).tolist()


@pytest.mark.parametrize("seed", [1, 2])
def test_blocking_many_at_once_leaves_the_grids_of_blocking_them_one_by_one(acid: Any, seed: int) -> None:
    pristine = PathFinder(acid.pathable)
    items = _blockers(acid, 40, seed)
    items += [(100, None), (101, items[5][1])]  # one taken away again, one moved
    one, many = pristine.copy(), pristine.copy()
    for key, cells in items:
        one.set_blocked(key, cells)
    many.set_blocked_many(items)
    same(many, one)
    assert many.pathable.sum() < pristine.pathable.sum()
    rng = np.random.default_rng(seed)
    ys, xs = np.nonzero(many.pathable)
    for i, j in rng.integers(xs.size, size=(20, 2)):
        s, g = (xs[i] + 0.5, ys[i] + 0.5), (xs[j] + 0.5, ys[j] + 0.5)
        for r in (0.375, 1.25):
            assert many.path(s, g, r).tolist() == one.path(s, g, r).tolist()


def test_a_finder_with_fields_blocks_many_one_by_one_so_its_fields_are_repaired_alike(acid: Any) -> None:
    items = _blockers(acid, 12, 3)
    one, many = PathFinder(acid.pathable), PathFinder(acid.pathable)
    for f in (one, many):
        f.path((30.5, 30.5), (120.5, 120.5), 0.375)
    for key, cells in items:
        one.set_blocked(key, cells)
    many.set_blocked_many(items)
    same(many, one)
    for f in (one, many):  # (the pending repairs are made here)
        f.path((40.5, 30.5), (120.5, 120.5), 0.375)
    same(many, one)

