"""The compiled kernels of target acquisition and the workers' walks (``_kernels_targeting.c``)
against their pure-Python twins (``sim/systems/targeting.py``, ``sim/systems/workers.py``): the same
answers, bit for bit, on every input, and the same game either way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, plays_the_same, skirmish_digest

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.systems import targeting as T
from sc2pool.engine.sim.systems import workers as W
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import World

MEDIVAC = 54
"""A flying unit that cannot attack: Zerglings cannot hit it, Marines can."""


def _gathered(values: np.ndarray) -> np.ndarray:
    """``values`` as the unit store holds a column gathered by type: a row of a block gathered
    column by column (not contiguous)."""
    block = np.stack((values, values, values))
    return block[:, np.arange(len(values))][1]


# (Targeting.resolve's pass, from _aim to _engage: test_kernels_tgt2.py)


# ------------------------------------------------------------------ Targeting.nearest
_TYPES = [D.MARINE, D.MARAUDER, D.ZERGLING, D.ROACH, D.LARVA, MEDIVAC, D.SCV]


@st.composite
def _world(draw: st.DrawFn) -> tuple[World, np.ndarray]:
    w = World(MapSpec("Test", 64, 64, (0, 0, 64, 64)))
    types = draw(st.lists(st.sampled_from(_TYPES), min_size=1, max_size=4, unique=True))
    for t in types:
        for owner in draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=3, unique=True)):
            k = draw(st.integers(1, 30))
            pts = draw(st.lists(st.tuples(st.integers(2, 60), st.integers(2, 60)), min_size=k, max_size=k))
            w.spawn(t, owner, [float(p[0]) for p in pts], [float(p[1]) for p in pts])  # (ties: equal distances)
    if draw(st.booleans()):
        w.spawn(D.BEACON_TERRAN, NEUTRAL_OWNER, [32.0], [32.0])
    n = len(w.u)
    rows = np.array(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=min(n, 60)))), dtype=np.int64)
    return w, rows


@needs_native
@settings(max_examples=150, deadline=None)
@given(world_rows=_world())
def test_nearest_finds_the_targets_the_python_matrices_find(world_rows: tuple[World, np.ndarray]) -> None:
    """With few units and many (one masked matrix; one per owner), one owner and several, one
    radius and several, types that cannot hit some others and units that cannot attack."""
    w, rows = world_rows
    best_c, dist_c = w.targeting.nearest(rows)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(T, "_native", None)
        best_py, dist_py = w.targeting.nearest(rows)
    assert best_c.tolist() == best_py.tolist()
    assert dist_c.tobytes() == dist_py.tobytes()


@needs_native
def test_nearest_hostile_names_bad_input() -> None:
    x = np.array([1.0, 2.0, 9.0])
    ti = np.array([TYPES.row(D.MARINE)] * 3)
    owner = np.array([1, 2, 2])
    best, dist = np.empty(1, np.int64), np.empty(1)
    f = _native().nearest_hostile
    f(x, x, np.full(3, 0.5), ti, owner, np.array([0]), np.array([0, 1, 2]), 0.5, TYPES.can_hit, best, dist)
    assert best.tolist() == [1] and dist.tolist() == [math.sqrt(2.0) - 1.0]
    with pytest.raises(ValueError, match="cols.2. is no row of a unit of a known type"):
        f(x, x, np.full(3, 0.5), ti, owner, np.array([0]), np.array([0, 1, 3]), 0.5, TYPES.can_hit, best, dist)
    with pytest.raises(ValueError, match="rows.0. is no row of a unit of a known type"):
        f(x, x, np.full(3, 0.5), ti, owner, np.array([-1]), np.array([1]), 0.5, TYPES.can_hit, best, dist)
    with pytest.raises(ValueError, match="can_hit must be a square table"):
        f(x, x, np.full(3, 0.5), ti, owner, np.array([0]), np.array([1]), 0.5, TYPES.can_hit[:5], best, dist)
    with pytest.raises(ValueError, match="best holds 1 items where 2 are needed"):
        f(x, x, np.full(3, 0.5), ti, owner, np.array([0, 1]), np.array([1]), 0.5, TYPES.can_hit, best, dist)
    with pytest.raises(ValueError, match="ti must be a one-dimensional int64 array"):
        f(x, x, np.full(3, 0.5), ti.astype(np.int32), owner, np.array([0]), np.array([1]), 0.5, TYPES.can_hit,
          best, dist)


# ------------------------------------------------------------------ Targeting._unseen
_cell = st.one_of(st.integers(-3, 23).map(float), st.integers(-6, 46).map(lambda k: k / 2),
                  st.floats(-3.0, 23.0, allow_nan=False))


def _unseen_both(xy2: np.ndarray, tgt: np.ndarray, sight: np.ndarray, ground: np.ndarray,
                 level: np.ndarray) -> tuple[list[int], list[int]]:
    dxy = xy2.take(tgt, axis=1) - xy2
    h, w = level.shape
    py = T._unseen_candidates(xy2, tgt, dxy[0], dxy[1], sight, ground, level, np.array(((w - 1,), (h - 1,))))
    out = np.empty(len(tgt), np.int64)
    k = _native().unseen_candidates(xy2, tgt, dxy[0], dxy[1], sight, ground, level, w, h, out)
    return py.tolist(), out[:k].tolist()


@needs_native
@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**16), pts=st.lists(st.tuples(_cell, _cell), min_size=1, max_size=16), data=st.data())
def test_unseen_candidates_are_the_python_ones(seed: int, pts: list[tuple[float, float]],
                                               data: st.DataObject) -> None:
    """Off the map (clipped cells), on cell lines, uphill, downhill and level; near and far."""
    n = len(pts)
    level = np.random.default_rng(seed).integers(0, 3, (17, 20)).astype(np.int8)
    xy2 = np.array([[p[0] for p in pts], [p[1] for p in pts]])
    tgt = np.array(data.draw(st.lists(st.integers(-1, n - 1), min_size=n, max_size=n)), dtype=np.int64)
    sight = _gathered(np.array(data.draw(st.lists(st.sampled_from([0.0, 3.0, 9.0]), min_size=n, max_size=n))))
    ground = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    py, c = _unseen_both(xy2, tgt, sight, ground, level)
    assert py == c


@needs_native
def test_unseen_candidates_finds_uphill_and_far_targets_and_names_bad_input() -> None:
    level = np.zeros((4, 6), dtype=np.int8)
    level[:, 3:] = 1
    xy2 = np.array([[0.5, 4.5, 1.5, 0.5], [0.5, 0.5, 3.5, 3.9]])
    tgt = np.array([1, 0, 3, -1])
    py, c = _unseen_both(xy2, tgt, np.full(4, 9.0), np.ones(4, dtype=bool), level)
    assert py == c == [0]  # (0 looks uphill at 1; 1 looks down at 0; 2 and 3 stand level)
    py, c = _unseen_both(xy2, tgt, np.full(4, 1.0), np.zeros(4, dtype=bool), level)
    assert py == c == [0, 1, 2]  # (flying: uphill does not count; beyond sight does)
    f = _native().unseen_candidates
    dx, sight, ground, out = np.zeros(4), np.full(4, 9.0), np.ones(4, dtype=bool), np.empty(4, np.int64)
    with pytest.raises(ValueError, match="tgt.0. = 4 is no row of 4 units"):
        f(xy2, np.array([4, 0, 0, 0]), dx, dx, sight, ground, level, 6, 4, out)
    with pytest.raises(ValueError, match="level holds 24 items where 28 are needed"):
        f(xy2, tgt, dx, dx, sight, ground, level, 7, 4, out)
    with pytest.raises(ValueError, match="level must be a C-contiguous int8 array"):
        f(xy2, tgt, dx, dx, sight, ground, level.astype(np.int16), 6, 4, out)
    with pytest.raises(ValueError, match="positive"):
        f(xy2, tgt, dx, dx, sight, ground, level, 0, 4, out)
    with pytest.raises(ValueError, match="position of unit 1 is not finite"):
        f(np.array([[0.5, math.nan, 1.5, 0.5], [0.5, 0.5, 3.5, 3.9]]), tgt, dx, dx, sight, ground, level, 6, 4, out)


# ------------------------------------------------------------------ Workers.place_walkers
def _job(ox: float, oy: float, tx: float, ty: float, t0: int, path: list[tuple[float, float]] | None) -> W.Job:
    j = W.Job(phase=W.WALK_RES, worker=D.SCV, ox=ox, oy=oy, tx=tx, ty=ty, t0=t0)
    j.length = math.hypot(tx - ox, ty - oy)
    j.total = W.leg_loops(j.length)
    if path is not None:
        pts = np.array(path)
        seg = pts - np.concatenate(([[ox, oy]], pts[:-1]))
        j.path, j.cum = pts, np.hypot(seg[:, 0], seg[:, 1]).cumsum()
    return j


_spot = st.one_of(st.integers(0, 40).map(float), st.floats(0.0, 40.0, allow_nan=False))


@st.composite
def _walkers(draw: st.DrawFn) -> list[W._Walker]:
    k = draw(st.integers(1, 12))
    rows = draw(st.permutations(range(16)))[:k]
    out = []
    for r in rows:
        ox, oy, tx, ty = (draw(_spot) for _ in range(4))
        path = None
        if draw(st.booleans()):  # (repeated points: legs of length 0)
            path = draw(st.lists(st.tuples(_spot, _spot), min_size=1, max_size=5)) + [(tx, ty)]
        out.append(W._walker(r, _job(ox, oy, tx, ty, draw(st.integers(0, 50)), path)))
    return out


def _place_both(walkers: list[W._Walker], loop: int) -> tuple[bytes, bytes]:
    xs, ys = W._walker_positions(walkers, loop)
    x_py, y_py = np.zeros(16), np.zeros(16)
    idx = [w[0] for w in walkers]
    x_py[idx], y_py[idx] = xs, ys
    x_c, y_c = np.zeros(16), np.zeros(16)
    _native().place_walkers(walkers, float(loop), x_c, y_c, W._HALF_ACC, W._ACC_DIST, W._SCV_SPEED, W._T_ACC)
    return (x_py.tobytes() + y_py.tobytes()), (x_c.tobytes() + y_c.tobytes())


@needs_native
@settings(max_examples=400, deadline=None)
@given(walkers=_walkers(), loop=st.integers(0, 400))
def test_place_walkers_puts_walkers_where_the_python_loop_does(walkers: list[W._Walker], loop: int) -> None:
    """Before the walk, speeding up, at full speed, slowing down, arrived; straight and along paths."""
    py, c = _place_both(walkers, loop)
    assert py == c


@needs_native
def test_place_walkers_at_path_corners_and_names_bad_input() -> None:
    j = _job(0.0, 0.0, 6.0, 4.0, 0, [(3.0, 0.0), (3.0, 0.0), (6.0, 4.0)])
    w = W._walker(2, j)
    for s in (0.0, 1.5, 3.0, 5.0, 8.0, 9.0):  # (each corner exactly, between them, past the end)
        # (a walk of "length" s and no duration: already s along the path)
        done = w[:6] + (s, 0.0) + w[8:]
        py, c = _place_both([done], 10)
        assert py == c
    f = _native().place_walkers
    x = np.zeros(4)
    consts = (W._HALF_ACC, W._ACC_DIST, W._SCV_SPEED, W._T_ACC)
    with pytest.raises(ValueError, match="row 9 is no row of 4 units"):
        f([(9,) + w[1:]], 5.0, x, x.copy(), *consts)
    with pytest.raises(ValueError, match="a walker must be a tuple of 11 items"):
        f([w[:10]], 5.0, x, x.copy(), *consts)
    with pytest.raises(ValueError, match="a path must be"):
        f([w[:10] + (([], []),)], 5.0, x, x.copy(), *consts)
    with pytest.raises(ValueError, match="a path's points must be"):
        f([w[:10] + (([1.0], [[1.0, 2.0]]),)], 5.0, x, x.copy(), *consts)
    with pytest.raises(TypeError):
        f([w[:3] + ("far",) + w[4:]], 5.0, x, x.copy(), *consts)
    with pytest.raises(ValueError, match="place_walkers: x must be a C-contiguous writable float64 array"):
        f([w], 5.0, np.zeros(8)[::2], x, *consts)


# ------------------------------------------------------------------ a whole game
def _game_digest() -> str:
    """Workers mining, and two armies of Marines, Zerglings and Medivacs fighting by player 1's
    start, across its cliff."""
    return skirmish_digest(((D.MARINE, 1, 4.0, 8), (MEDIVAC, 1, 0.0, 2), (D.ZERGLING, 2, -8.0, 10),
                            (D.MARINE, 2, -12.0, 6), (MEDIVAC, 2, -12.0, 1)))


@needs_native
def test_a_game_plays_the_same_with_and_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = plays_the_same(monkeypatch, (T, W), _game_digest).calls
    assert calls.get("resolve_pass", 0) > 300 and calls.get("place_walkers", 0) > 300
    assert calls.get("target_rows", 0) > 300 and calls.get("unseen_of", 0) > 0
