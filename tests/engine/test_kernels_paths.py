"""Path following's compiled kernels (sc2pool/engine/_kernels_paths.c) against their Python twins:
the chasers' look ahead (``look_ahead``, sim/systems/pathing.py's ``_look_ahead``), the point
movers that plan and that may skip a waypoint (``pending_movers``, ``skip_candidates``), where a
mover joins a path planned before (``resume_waypoint``, ``_resume_at``), the nearest free cell's
window search (``nearest_cell``, terrain/pathing.py's ``_nearest_cell``) and the nodes a distance
field repairs (``below_roots``, ``_below_roots`` there); and a game of chasers on a ladder map
played both ways.
"""

from __future__ import annotations

import hashlib
import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, random_grid
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems import pathing as SP
from sc2pool.engine.terrain import pathing as P

# coordinates on the grid's lines, its cell centres and in between, and off the grid
_coord = st.one_of(st.integers(-3, 43).map(float), st.integers(-6, 86).map(lambda k: k / 2),
                   st.floats(-3.0, 43.0, allow_nan=False))

# ---------------------------------------------------------------- nearest_cell


def _cells(free: np.ndarray, x: float, y: float) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    h, w = free.shape
    cx = min(max(math.floor(x), 0), w - 1)
    cy = min(max(math.floor(y), 0), h - 1)
    return (P._nearest_cell(free.tolist(), w, h, x, y, cx, cy),
            _native().nearest_cell(free, w, h, x, y, P.NEAR_WINDOW))


@needs_native
@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**16), blocks=st.integers(0, 300), x=_coord, y=_coord)
def test_nearest_cell_finds_the_cell_the_python_search_finds(seed: int, blocks: int, x: float, y: float) -> None:
    py, c = _cells(random_grid(seed, 40, 36, blocks), x, y)
    assert py == c


@needs_native
def test_nearest_cell_on_ties_far_points_and_tiny_grids() -> None:
    free = np.zeros((12, 12), dtype=bool)
    free[5, 3] = free[5, 7] = free[3, 5] = free[7, 5] = True  # four cells equally near (5.5, 5.5)
    assert _cells(free, 5.5, 5.5) == ((5, 3), (5, 3))  # the first row by row
    assert _cells(free, 11.9, 0.1) == (None, None)  # nothing within the window
    assert _cells(free, 1e300, -1e300) == (None, None)  # (clamped into the grid)
    one = np.ones((1, 1), dtype=bool)
    assert _cells(one, -0.2, 3.25) == ((0, 0), (0, 0))
    assert _cells(one, -7.0, 3.25) == (None, None)
    assert _cells(np.zeros((3, 2), dtype=bool), 1.0, 1.0) == (None, None)


@needs_native
def test_nearest_cell_names_bad_input() -> None:
    free = random_grid(1, 8, 6, 0)
    with pytest.raises(ValueError, match="finite"):
        _native().nearest_cell(free, 8, 6, math.nan, 1.0, 4)
    with pytest.raises(ValueError, match="nearest_cell: free holds 48 items where 63 are needed"):
        _native().nearest_cell(free, 9, 7, 1.0, 1.0, 4)
    with pytest.raises(ValueError, match="positive"):
        _native().nearest_cell(free, 8, 6, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="positive"):
        _native().nearest_cell(free, 8, 0, 1.0, 1.0, 4)


# ---------------------------------------------------------------- look_ahead


def _scene(seed: int, n: int, k: int, blocks: int, reapers: bool, w: int = 40, h: int = 36) -> dict[str, Any]:
    """Units scattered on and off a grid with blockers (each blocked cell some unit's), ``k``
    chasers among them with targets, ranges and headings of every kind."""
    rng = np.random.default_rng(seed)
    free = random_grid(seed, w, h, blocks).ravel()
    tags = np.arange(1, n + 1, dtype=np.int64) * 7
    cell_tag = np.where(free, 0, tags[rng.integers(0, n, w * h)])
    xy = np.concatenate([rng.uniform(-2.0, w + 2.0, n), rng.uniform(-2.0, h + 2.0, n)])
    snap = rng.random(2 * n) < 0.3  # on grid lines and cell centres too
    xy[snap] = np.round(xy[snap] * 2) / 2
    m = rng.choice(n, size=k, replace=False).astype(np.int64)
    tm = rng.integers(0, n, k).astype(np.int64)
    xy2 = xy.reshape(2, n)
    md = xy2[:, tm] - xy2[:, m]
    zero = rng.random(k) < 0.05  # a chaser on its target's point
    md[:, zero] = 0.0
    md = np.ascontiguousarray(md)
    dist = np.sqrt(md[0] * md[0] + md[1] * md[1])
    stop_at = rng.choice(np.array([-0.2, 0.0, 0.5, 1.0, 3.0, 6.0, 40.0]), k) + rng.uniform(0.0, 0.3, k)
    flying = np.array([False, True, False])
    ti = rng.integers(0, 3, n).astype(np.int64)
    jumpers = (rng.random(n) < 0.2) if reapers else np.zeros(n, dtype=bool)
    jump_free = (free | (rng.random(w * h) < 0.5)) if reapers else None
    return {"m": m, "tm": tm, "md": md, "dist": dist, "stop_at": stop_at, "ti": ti, "flying": flying, "xy": xy,
            "tags": tags, "jumpers": jumpers, "free": free, "jump_free": jump_free, "cell_tag": cell_tag,
            "w": w, "h": h}


def _look(run: Any, s: dict[str, Any], jump_free: np.ndarray | None) -> tuple[bool, list[bool]]:
    out = np.zeros(len(s["m"]), dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):  # (a chaser on its target's point)
        done = run(s["m"], s["tm"], s["md"], s["dist"], s["stop_at"], s["ti"], s["flying"], s["xy"], s["tags"],
                   s["jumpers"], s["free"], jump_free, s["cell_tag"], s["w"], s["h"], out)
    return bool(done), out.tolist()


def _looks(s: dict[str, Any]) -> tuple[tuple[bool, list[bool]], tuple[bool, list[bool]]]:
    py, c = _look(SP._look_ahead, s, None), _look(_native().look_ahead, s, None)
    assert py[0] == c[0]
    if py[0]:  # without the Reapers' grid a look that needs it stops early (its ``out`` unfinished)
        assert py == c
    if s["jump_free"] is None:
        return py, c
    return _look(SP._look_ahead, s, s["jump_free"]), _look(_native().look_ahead, s, s["jump_free"])


@needs_native
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 40), frac=st.floats(0.0, 1.0), blocks=st.integers(0, 150),
       reapers=st.booleans())
def test_look_ahead_blocks_the_chasers_the_python_look_blocks(seed: int, n: int, frac: float, blocks: int,
                                                               reapers: bool) -> None:
    s = _scene(seed, n, int(round(frac * n)), blocks, reapers)
    py, c = _looks(s)
    assert py == c and py[0]


@needs_native
def test_look_ahead_sees_blocked_and_free_lines_and_the_targets_own_cells() -> None:
    answers = [_looks(_scene(seed, 30, 30, 60, seed % 2 == 0)) for seed in range(60)]
    assert all(py == c for py, c in answers)
    marks = [b for py, _ in answers for b in py[1]]
    assert 0 < sum(marks) < len(marks)  # both kinds of answer were tested
    # a chaser walking into a structure it attacks is not blocked by that structure's cells
    w = h = 10
    free = np.ones(w * h, dtype=bool)
    free[5 * w + 5] = False  # (the look ends 0.55 short of the target, at x = 5.95)
    cell_tag = np.zeros(w * h, dtype=np.int64)
    cell_tag[5 * w + 5] = 22
    s = {"m": np.array([0], np.int64), "tm": np.array([1], np.int64), "md": np.array([[3.0], [0.0]]),
         "dist": np.array([3.0]), "stop_at": np.array([0.5]), "ti": np.zeros(2, np.int64),
         "flying": np.zeros(1, dtype=bool), "xy": np.array([3.5, 6.5, 5.5, 5.5]), "tags": np.array([11, 22]),
         "jumpers": np.zeros(2, dtype=bool), "free": free, "jump_free": None, "cell_tag": cell_tag, "w": w, "h": h}
    assert _looks(s) == ((True, [False]), (True, [False]))
    s["tags"] = np.array([11, 33])  # another unit's target: the structure blocks
    assert _looks(s) == ((True, [True]), (True, [True]))


@needs_native
def test_look_ahead_asks_for_the_reapers_grid_only_when_a_reaper_looks() -> None:
    s = _scene(5, 20, 20, 40, True)
    s["stop_at"] = np.full(20, 50.0)  # nobody looks
    assert _looks(s)[1] == (True, [False] * 20)
    assert _look(_native().look_ahead, s, None)[0]
    s = _scene(5, 20, 20, 40, True)
    s["stop_at"] = np.zeros(20)
    s["ti"][:] = 0  # on the ground
    s["jumpers"][:] = s["md"][0] * s["md"][0] + s["md"][1] * s["md"][1] > 0.01  # a Reaper that looks
    assert not _look(_native().look_ahead, s, None)[0] and not _look(SP._look_ahead, s, None)[0]


@needs_native
def test_look_ahead_names_bad_input() -> None:
    s = _scene(2, 10, 5, 20, False)

    def call(**change: Any) -> None:
        t = {**s, **change}
        _look(_native().look_ahead, t, t["jump_free"])

    with pytest.raises(ValueError, match="look_ahead: md holds 8 items where 10 are needed"):
        call(md=s["md"][:, :4].copy())
    with pytest.raises(ValueError, match="look_ahead: md must be a C-contiguous"):
        call(md=np.zeros((5, 2)).T)
    with pytest.raises(ValueError, match="look_ahead: m must be a C-contiguous int64 array"):
        call(m=s["m"].astype(np.int32))
    with pytest.raises(ValueError, match="look_ahead: free must be a C-contiguous bool array"):
        call(free=s["free"].astype(np.uint8))
    with pytest.raises(ValueError, match="look_ahead: jump_free holds 10 items"):
        call(jump_free=np.zeros(10, dtype=bool))
    with pytest.raises(ValueError, match="look_ahead: xy holds 10 items"):
        call(xy=s["xy"][:10].copy())
    with pytest.raises(ValueError, match="chaser 0's row or its target's is not a unit row"):
        call(m=np.concatenate([[10], s["m"][1:]]).astype(np.int64))
    with pytest.raises(ValueError, match="type row is not in flying"):
        call(flying=np.zeros(0, dtype=bool))
    with pytest.raises(ValueError, match="positive"):
        call(w=0)
    out = np.zeros(5, dtype=bool)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="look_ahead: out must be a C-contiguous writable bool array"):
        _native().look_ahead(s["m"], s["tm"], s["md"], s["dist"], s["stop_at"], s["ti"], s["flying"], s["xy"],
                             s["tags"], s["jumpers"], s["free"], None, s["cell_tag"], s["w"], s["h"], out)


# ---------------------------------------------------------------- pending_movers, skip_candidates


def _store(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """An int block (kind, wp, eng rows) and a float block (speed, wx, wy, ex, ey rows), the int
    one Fortran-ordered as the unit store's may be (its rows strided)."""
    rng = np.random.default_rng(seed)
    ints = np.asfortranarray(np.stack([rng.integers(0, len(SP.POINT_KINDS), n), rng.integers(-3, 3, n),
                                       rng.choice(np.array([0, 0, 5]), n)]).astype(np.int64))
    pts = rng.choice(np.array([0.0, 0.5, 1.0, 2.25, math.nan]), (2, n))
    flo = np.stack([rng.choice(np.array([0.0, 2.5, -1.0, math.nan]), n), *pts,
                    *np.where(rng.random((2, n)) < 0.5, pts, rng.uniform(0.0, 3.0, (2, n)))])
    return ints, flo


@needs_native
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(0, 60))
def test_pending_movers_marks_the_rows_the_python_masks_mark(seed: int, n: int) -> None:
    ints, flo = _store(seed, n)
    kind, wp, eng = ints
    assert not kind.flags.c_contiguous or n <= 1
    py = SP._pending_movers(kind, SP.POINT_KINDS, wp, flo[0], eng)
    out = np.ones(n, dtype=bool)
    assert _native().pending_movers(kind, SP.POINT_KINDS, wp, flo[0], eng, out) is None
    assert out.tolist() == py.tolist()


@needs_native
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 60), k=st.integers(0, 60))
def test_skip_candidates_are_the_rows_the_python_masks_pick(seed: int, n: int, k: int) -> None:
    ints, flo = _store(seed, n)
    rng = np.random.default_rng(seed + 1)
    rows = rng.integers(0, n, k).astype(np.int64)
    hxy = np.ascontiguousarray(rng.choice(np.array([0.0, 0.5, -0.7, 0.70710678, 1.0, math.nan]), (2, k)))
    we = np.ascontiguousarray(flo[1:])
    assert SP._skip_candidates(rows, hxy, ints[1], we) == _native().skip_candidates(rows, hxy, ints[1], we)


@needs_native
def test_pending_movers_and_skip_candidates_name_bad_input() -> None:
    ints, flo = _store(3, 8)
    kind, wp, eng = ints
    out = np.zeros(8, dtype=bool)
    with pytest.raises(ValueError, match="pending_movers: speed holds 7 items where 8 are needed"):
        _native().pending_movers(kind, SP.POINT_KINDS, wp, flo[0][:7], eng, out)
    with pytest.raises(ValueError, match="pending_movers: out must be a one-dimensional writable bool array"):
        _native().pending_movers(kind, SP.POINT_KINDS, wp, flo[0], eng, b"12345678")
    with pytest.raises(ValueError, match="pending_movers: eng must be a one-dimensional int64 array"):
        _native().pending_movers(kind, SP.POINT_KINDS, wp, flo[0], eng.astype(np.int32), out)
    with pytest.raises(ValueError, match=r"pending_movers: kind\[0\] = 99 lies outside \[0, 16\)"):
        _native().pending_movers(np.full(8, 99), SP.POINT_KINDS, wp, flo[0], eng, out)
    rows, hxy, we = np.arange(3), np.zeros((2, 3)), np.ascontiguousarray(flo[1:])
    with pytest.raises(ValueError, match="skip_candidates: hxy holds 8 items where 6 are needed"):
        _native().skip_candidates(rows, np.zeros((2, 4)), wp, we)
    with pytest.raises(ValueError, match="skip_candidates: we holds 24 items where 32 are needed"):
        _native().skip_candidates(rows, hxy, wp, we[:, :6].copy())
    with pytest.raises(ValueError, match="skip_candidates: hxy must be a C-contiguous float64 array"):
        _native().skip_candidates(rows, np.zeros((3, 2)).T, wp, we)
    with pytest.raises(ValueError, match=r"skip_candidates: rows\[2\] = 8 lies outside \[0, 8\)"):
        _native().skip_candidates(np.array([0, 1, 8]), hxy, wp, we)


# ---------------------------------------------------------------- resume_waypoint


class _PyLayer:
    """A radius class's grid as ``_resume_at`` reads it, with the Python segment test."""

    def __init__(self, free: np.ndarray) -> None:
        self.free = free
        h, w = free.shape
        self.pf = type("_Size", (), {"width": w, "height": h})()
        self.sat = P._sat_cells(P._blocked_sat(free))
        self.rows = free.tolist()

    def segment_free(self, ax: float, ay: float, bx: float, by: float) -> bool:
        return P._segment_free(self.sat, self.rows, self.pf.width, self.pf.height, ax, ay, bx, by)


def _resumes(free: np.ndarray, pts: np.ndarray, x: float, y: float) -> tuple[int | None, int | None]:
    """``_resume_at``'s answer and the compiled one's, asked as ``Pathing._resume`` asks it."""
    layer = _PyLayer(free)
    py = SP._resume_at(pts, x, y, layer)  # type: ignore[arg-type]
    grid = (layer.free, layer.sat, layer.pf.width, layer.pf.height)
    c = _native().resume_waypoint(pts, x, y, *grid, -1)
    if c == -2:
        c = _native().resume_waypoint(pts, x, y, *grid, SP._nearest_waypoint(pts, x, y))
    return py, None if c < 0 else c


_path = st.lists(st.tuples(_coord, _coord), min_size=1, max_size=12)


@needs_native
@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**16), blocks=st.integers(0, 200), pts=_path, x=_coord, y=_coord)
def test_resume_waypoint_picks_the_waypoint_the_python_picks(seed: int, blocks: int, pts: list[tuple[float, float]],
                                                             x: float, y: float) -> None:
    py, c = _resumes(random_grid(seed, 40, 36, blocks), np.array(pts, dtype=float), x, y)
    assert py == c


@needs_native
def test_resume_waypoint_on_ties_and_near_ties() -> None:
    free = np.ones((12, 12), dtype=bool)
    free[6, 4:8] = False  # a wall under the unit
    # four waypoints equally near (5.5, 5.5): the first one; a copy of the nearest one; one a hair nearer
    square = np.array([[5.5, 3.5], [7.5, 5.5], [3.5, 5.5], [5.5, 7.5]])
    assert _resumes(free, square, 5.5, 5.5) == (1, 1)  # (the one after the first is seen)
    assert _resumes(free, square[::-1].copy(), 5.5, 5.5) == (1, 1)
    twice = np.array([[1.0, 1.0], [9.0, 9.0], [9.0, 9.0], [2.0, 2.0]])
    assert _resumes(free, twice, 9.25, 9.0) == (2, 2)
    hair = np.array([[5.5, 7.5], [5.5, 3.5 + 1e-15], [1.5, 1.5]])  # (index 0's next one is seen too)
    assert _resumes(free, hair, 5.5, 5.5) == (2, 2)
    assert _resumes(free, np.array([[5.5, 5.5]]), 5.5, 5.5) == (0, 0)  # on its only waypoint
    blocked = np.array([[5.5, 8.5], [5.5, 10.5]])  # behind the wall: seen neither
    assert _resumes(free, blocked, 5.5, 5.2) == (None, None)
    assert _resumes(free, np.array([[5.5, 3.5], [30.0, 3.5]]), 5.5, 5.5) == (0, 0)  # the next one off the grid
    assert _resumes(free, np.array([[5.5, 3.5]]), -1.0, 5.5) == (None, None)  # the unit off the grid


@needs_native
def test_resume_waypoint_names_bad_input() -> None:
    layer = _PyLayer(random_grid(1, 8, 6, 0))
    pts = np.array([[1.0, 1.0], [2.0, 2.0]])
    grid = (layer.free, layer.sat, 8, 6)
    with pytest.raises(ValueError, match=r"pts must hold \(k, 2\) points"):
        _native().resume_waypoint(np.zeros((0, 2)), 1.0, 1.0, *grid, -1)
    with pytest.raises(ValueError, match=r"pts must hold \(k, 2\) points"):
        _native().resume_waypoint(np.zeros(4), 1.0, 1.0, *grid, -1)
    with pytest.raises(ValueError, match="pts must be a C-contiguous float64 array"):
        _native().resume_waypoint(np.zeros((2, 4))[:, ::2], 1.0, 1.0, *grid, -1)
    with pytest.raises(ValueError, match="resume_waypoint: pts must be a C-contiguous float64 array"):
        _native().resume_waypoint(pts.astype(np.float32), 1.0, 1.0, *grid, -1)
    with pytest.raises(ValueError, match="nearest 2 is not one of the 2 waypoints"):
        _native().resume_waypoint(pts, 1.0, 1.0, *grid, 2)
    with pytest.raises(ValueError, match="resume_waypoint: free holds 48 items where 63 are needed"):
        _native().resume_waypoint(pts, 1.0, 1.0, layer.free, layer.sat, 9, 7, -1)
    with pytest.raises(ValueError, match="resume_waypoint: sat holds 5 items where 63 are needed"):
        _native().resume_waypoint(pts, 1.0, 1.0, layer.free, np.zeros(5, np.int32), 8, 6, -1)
    with pytest.raises(ValueError, match="positive"):
        _native().resume_waypoint(pts, 1.0, 1.0, layer.free, layer.sat, 0, 6, -1)
    with pytest.raises(ValueError, match="finite"):
        _native().resume_waypoint(pts, math.nan, 1.0, *grid, 0)


# ---------------------------------------------------------------- below_roots


def _forest(seed: int, n: int, trees: int) -> np.ndarray:
    """int32 per node: the next node down a random shortest-path forest (scipy's -9999 at each
    tree's root and at nodes it did not reach)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    pred = np.full(n, P._UNREACHED, dtype=np.int32)
    for k in range(min(trees, n), n):  # (each node hangs below one earlier in the order)
        pred[order[k]] = order[rng.integers(0, k)]
    return pred


def _below(pred: np.ndarray, roots: np.ndarray) -> tuple[list[bool], list[bool]]:
    out = np.zeros(len(pred), dtype=bool)
    _native().below_roots(pred, roots, out)
    return P._below_roots(pred, roots).tolist(), out.tolist()


@needs_native
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 300), trees=st.integers(1, 20), k=st.integers(0, 12))
def test_below_roots_marks_the_nodes_the_pointer_jumping_marks(seed: int, n: int, trees: int, k: int) -> None:
    pred = _forest(seed, n, trees)
    roots = np.random.default_rng(seed + 1).integers(0, n, k).astype(np.int64)  # (repeats too)
    py, c = _below(pred, roots)
    assert py == c


@needs_native
def test_below_roots_on_a_chain_and_without_roots() -> None:
    chain = np.array([-9999, 0, 1, 2, 3, -1, 5], dtype=np.int32)  # 4 -> 3 -> 2 -> 1 -> 0; 6 -> 5
    assert _below(chain, np.array([2]))[1] == [False, False, True, True, True, False, False]
    assert _below(chain, np.array([6, 0]))[1] == [True, True, True, True, True, False, True]
    assert _below(chain, np.zeros(0, np.int64)) == ([False] * 7, [False] * 7)
    assert _below(np.zeros(0, np.int32), np.zeros(0, np.int64)) == ([], [])


@needs_native
def test_below_roots_names_bad_input() -> None:
    pred, out = np.array([-1, 0, 1], dtype=np.int32), np.zeros(3, dtype=bool)
    with pytest.raises(ValueError, match="below_roots: pred must be a C-contiguous int32 array"):
        _native().below_roots(pred.astype(np.int64), np.array([1]), out)
    with pytest.raises(ValueError, match="below_roots: roots must be a C-contiguous int64 array"):
        _native().below_roots(pred, np.array([1], dtype=np.int32), out)
    with pytest.raises(ValueError, match="below_roots: out holds 2 items where 3 are needed"):
        _native().below_roots(pred, np.array([1]), out[:2])
    with pytest.raises(ValueError, match="below_roots: out must be a C-contiguous writable bool array"):
        _native().below_roots(pred, np.array([1]), np.zeros(6, dtype=bool)[::2])
    with pytest.raises(ValueError, match=r"below_roots: roots\[1\] = 3 lies outside \[0, 3\)"):
        _native().below_roots(pred, np.array([1, 3]), out)
    with pytest.raises(ValueError, match=r"below_roots: pred\[2\] = 7 is not a node"):
        _native().below_roots(np.array([-1, 0, 7], dtype=np.int32), np.array([0]), out)


# ---------------------------------------------------------------- a game both ways


class _Counting:
    """Delegates to the compiled kernels and counts the calls of this file's (and the waypoints
    skipped), so the game test knows it used them."""

    def __init__(self, native: ModuleType) -> None:
        self.native, self.looks, self.blocked, self.nearest, self.pending, self.skips = native, 0, 0, 0, 0, 0
        self.resumes, self.repairs = 0, 0

    def look_ahead(self, *args: Any) -> bool:
        self.looks += 1
        done = bool(self.native.look_ahead(*args))
        self.blocked += int(np.count_nonzero(args[-1]))
        return done

    def nearest_cell(self, *args: Any) -> tuple[int, int] | None:
        self.nearest += 1
        got = self.native.nearest_cell(*args)
        return None if got is None else (int(got[0]), int(got[1]))

    def pending_movers(self, *args: Any) -> None:
        self.pending += 1
        self.native.pending_movers(*args)

    def skip_candidates(self, *args: Any) -> list[int]:
        got = list(self.native.skip_candidates(*args))
        self.skips += len(got)
        return got

    def resume_waypoint(self, *args: Any) -> int:
        got = int(self.native.resume_waypoint(*args))
        self.resumes += got >= 0
        return got

    def below_roots(self, *args: Any) -> None:
        self.repairs += 1
        self.native.below_roots(*args)

    def __getattr__(self, name: str) -> Any:  # the other kernels
        return getattr(self.native, name)


def _game_digest() -> str:
    """A squad of Marines sent up the enemy's ramp into its main (the ramp's cliffs and the
    structures in the way: chasers go round), some of them ordered onto blocked cells (a goal's
    nearest free cell)."""
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AbyssalReefLE.SC2Map"), random_seed=5)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=5)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    (ax, ay), (bx, by) = g.scenario.starts[1], g.scenario.starts[2]  # type: ignore[attr-defined]
    debug = sc_pb.RequestDebug()
    for owner, (sx, sy) in ((1, (bx + (ax - bx) * 0.25, by + (ay - by) * 0.25)), (2, (bx, by - 6.0))):
        create = debug.debug.add().create_unit
        create.unit_type, create.owner, create.quantity = 48, owner, 10
        create.pos.x, create.pos.y = sx, sy
    g.debug(1, debug)
    g.step(8)
    u, p = g.world.u, g.world.pathing
    mine = np.nonzero((u.unit_id == 48) & (u.owner == 1))[0]
    blocked = np.nonzero(~p.free)[0]
    cc = int(u.tag[np.nonzero((u.unit_id == 18) & (u.owner == 2))[0][0]])
    rng = np.random.default_rng(1)
    act = sc_pb.RequestAction()
    for i, r in enumerate(mine.tolist()):
        cmd = act.actions.add().action_raw.unit_command
        cmd.unit_tags.append(int(u.tag[r]))
        if i % 3 == 1:
            cmd.ability_id = 23  # attack-move up the ramp into the enemy's main
            cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = bx, by
        elif i % 3 == 2:
            cmd.ability_id = 23  # attack the enemy's Command Center: the cliff is in the straight way
            cmd.target_unit_tag = cc
        else:
            cell = int(blocked[rng.integers(len(blocked))])  # a move onto a blocked cell
            cmd.ability_id = 16
            cmd.target_world_space_pos.x = cell % p.width + 0.5
            cmd.target_world_space_pos.y = cell // p.width + 0.5
    g.action(1, act)
    digest = hashlib.sha256()
    for _ in range(60):
        g.step(16)
        digest.update(g.observation_bytes(1, sc_pb.RequestObservation()))
        digest.update(g.observation_bytes(2, sc_pb.RequestObservation()))
    return digest.hexdigest()


@needs_native
def test_a_game_of_chasers_plays_the_same_with_and_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _Counting(_native())
    monkeypatch.setattr(P, "_native", counting)
    monkeypatch.setattr(SP, "_native", counting)
    with_c = _game_digest()
    assert counting.looks > 100 and counting.blocked > 0 and counting.nearest > 0
    assert counting.pending > 100 and counting.skips > 0 and counting.resumes > 0 and counting.repairs > 0
    monkeypatch.setattr(P, "_native", None)
    monkeypatch.setattr(SP, "_native", None)
    assert _game_digest() == with_c
