"""The compiled vision test of out-of-sight targets (``_kernels_hz.c``: ``unseen_of``) against its
pure-Python twin (``sim/systems/targeting.py``: ``_unseen_of``, which asks :class:`Vision` for each
player's eyes): the same rows, bit for bit, on every input, and the same game either way."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, plays_the_same, skirmish_digest

from sc2pool.engine import data as D
from sc2pool.engine.sim.systems import targeting as T
from sc2pool.engine.sim.systems import vision as V
from sc2pool.engine.sim.systems.abilities import SCAN_RADIUS, Scan
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES

FLYING_TI = int(np.nonzero(TYPES.is_flying)[0][0])
GROUND_TI = int(np.nonzero(~TYPES.is_flying)[0][0])
W, H = 20, 17
"""The test grid's width and height."""


def _world(units: list[tuple[float, float, float, bool, int]], level: np.ndarray,
           scans: list[tuple[float, float, int]]) -> Any:
    """The little of a World that :class:`Vision` reads: units (x, y, sight, flying, owner), the
    cliff levels of a ladder map, and the scans (x, y, owner) of an economy game."""
    n = len(units)
    u = SimpleNamespace(xy=np.array([[p[0] for p in units], [p[1] for p in units]], dtype=np.float64).reshape(-1),
                        owner=np.array([p[4] for p in units], dtype=np.int64),
                        sight=np.array([p[2] for p in units], dtype=np.float64), version=1,
                        ti=np.array([FLYING_TI if p[3] else GROUND_TI for p in units], dtype=np.int64).reshape(n))
    h, w = level.shape
    m = SimpleNamespace(width=w, height=h, has_terrain=True, ladder=SimpleNamespace(level=level), name="test")
    spots = [SimpleNamespace(x=x, y=y, owner=o) for x, y, o in scans]
    abilities = SimpleNamespace(scans=spots, scan_discs=lambda player: [s for s in spots if s.owner == player])
    return SimpleNamespace(u=u, map=m, loop=0, has_economy=bool(scans), abilities=abilities)


def _unseen_both(world: Any, rc: np.ndarray, tgt: np.ndarray, revealed: set[int],
                 sees: Any = None) -> tuple[list[int], list[int]]:
    """(the Python twin's rows, the kernel's) of ``rc`` whose target their player does not see;
    the Python twin's :class:`Vision` tests points with ``sees`` (None: numpy; the module: C)."""
    u = world.u
    xy2 = u.xy.reshape(2, -1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(V, "_native", sees)
        vision = V.Vision(world)
        vision.revealed = set(revealed)
        py = T._unseen_of(vision, rc.copy(), xy2, tgt, u.owner)
    level = world.map.ladder.level
    h, w = level.shape
    spots = world.abilities.scans
    out = rc.copy()
    scans = np.array([[s.x for s in spots], [s.y for s in spots], [s.owner for s in spots]], dtype=np.float64)
    k = _native().unseen_of(out, xy2, tgt, u.sight, u.owner, ~TYPES.is_flying[u.ti], level, w, h,
                            np.array(sorted(revealed), dtype=np.int64), scans, SCAN_RADIUS * SCAN_RADIUS)
    return py.tolist(), out[:k].tolist()


# places on the grid's lines, its cell centres, in between, and off the map
_coord = st.one_of(st.integers(-3, 23).map(float), st.integers(-6, 46).map(lambda k: k / 2),
                   st.floats(-4.0, 24.0, allow_nan=False))


@st.composite
def _case(draw: st.DrawFn) -> tuple[Any, np.ndarray, np.ndarray, set[int]]:
    """A world, the rows with a target (``rc``, ascending), every unit's target (-1: none) and the
    revealed players.  Some sights reach a target's cell centre exactly as rounded, an ulp short of
    it or past it: the edges of a unit's sight."""
    n = draw(st.integers(1, 14))
    pts = [(draw(_coord), draw(_coord)) for _ in range(n)]
    tgt = np.array([draw(st.integers(-1, n - 1)) for _ in range(n)], dtype=np.int64)
    units = []
    for x, y in pts:
        aim = int(draw(st.integers(0, n - 1)))
        if draw(st.booleans()):  # (a sight reaching some unit's cell centre, about exactly)
            tx, ty = pts[aim]
            cx, cy = min(max(int(tx), 0), W - 1), min(max(int(ty), 0), H - 1)
            gx, gy = (cx + 0.5) - x, (cy + 0.5) - y
            s = math.sqrt(gx * gx + gy * gy)
            s = draw(st.sampled_from([s, math.nextafter(s, 0.0), math.nextafter(s, 99.0)]))
        else:
            s = draw(st.sampled_from([0.0, 0.0, 1.0, 3.0, 9.0, 13.0]))
        units.append((x, y, s, draw(st.booleans()), draw(st.sampled_from([1, 1, 2, NEUTRAL_OWNER]))))
    level = np.repeat(np.repeat(np.random.default_rng(draw(st.integers(0, 2**16))).integers(0, 3, (5, 6)), 4, 0),
                      4, 1)[:H, :W].astype(np.int8)
    scans = draw(st.lists(st.tuples(_coord, _coord, st.sampled_from([1, 2])), max_size=2))
    rc = (tgt >= 0).nonzero()[0]
    rc = rc[np.array([draw(st.booleans()) for _ in rc], dtype=bool)] if len(rc) else rc
    revealed = draw(st.sets(st.sampled_from([1, 2]), max_size=1))
    return _world(units, level, scans), rc, tgt, revealed


@needs_native
@settings(max_examples=500, deadline=None)
@given(case=_case())
def test_unseen_of_keeps_the_rows_the_python_twin_keeps(case: tuple[Any, np.ndarray, np.ndarray, set[int]]) -> None:
    world, rc, tgt, revealed = case
    py, c = _unseen_both(world, rc, tgt, revealed)
    assert py == c
    assert _unseen_both(world, rc, tgt, revealed, _native())[0] == c  # (the Vision's compiled test too)


@needs_native
def test_unseen_of_sees_with_units_levels_and_scans_and_names_bad_input() -> None:
    level = np.zeros((H, W), dtype=np.int8)
    level[:, 10:] = 1  # (a cliff: the right half is high ground)
    units = [(2.5, 2.5, 9.0, False, 1), (12.5, 2.5, 1.0, False, 2), (8.5, 2.5, 9.0, False, 1),
             (2.5, 12.5, 9.0, True, 2), (18.5, 15.5, 0.0, False, 2)]
    tgt = np.array([1, 0, 1, 4, -1], dtype=np.int64)
    rc = np.array([0, 1, 2, 3], dtype=np.int64)
    world = _world(units, level, [])
    # 0 and 2 (low ground) see nothing uphill; 1 (sight 1) does not see 0; 3 (flying) is too far from 4,
    # which does not see
    assert _unseen_both(world, rc, tgt, set()) == ([0, 1, 2, 3], [0, 1, 2, 3])
    assert _unseen_both(world, rc, tgt, {2}) == ([0, 2], [0, 2])  # (2's map is revealed)
    world = _world(units + [(13.5, 2.5, 1.0, True, 1)], level, [(18.0, 14.0, 2)])
    tgt = np.append(tgt, -1)
    # a flying unit of 1 beside 1's target shows it; 2's scan shows 4
    assert _unseen_both(world, rc, tgt, set()) == ([1], [1])
    f = _native().unseen_of
    xy2, sight, owner = world.u.xy.reshape(2, -1), world.u.sight, world.u.owner
    ground, none, none_s = np.ones(6, dtype=bool), np.zeros(0, np.int64), np.zeros((3, 0))
    s2 = SCAN_RADIUS * SCAN_RADIUS
    with pytest.raises(ValueError, match=r"rc\[0\] = 6 is not a unit row"):
        f(np.array([6]), xy2, tgt, sight, owner, ground, level, W, H, none, none_s, s2)
    with pytest.raises(ValueError, match=r"tgt\[4\] = -1 is no row of 6 units"):
        f(np.array([4]), xy2, tgt, sight, owner, ground, level, W, H, none, none_s, s2)
    with pytest.raises(ValueError, match="level holds 340 items where 357 are needed"):
        f(rc.copy(), xy2, tgt, sight, owner, ground, level, W + 1, H, none, none_s, s2)
    with pytest.raises(ValueError, match="positive"):
        f(rc.copy(), xy2, tgt, sight, owner, ground, level, 0, H, none, none_s, s2)
    with pytest.raises(ValueError, match="rc must be a C-contiguous writable int64 array"):
        f(rc.astype(np.int32), xy2, tgt, sight, owner, ground, level, W, H, none, none_s, s2)
    with pytest.raises(ValueError, match="scans holds 4 items, not rows of x, y and owner"):
        f(rc.copy(), xy2, tgt, sight, owner, ground, level, W, H, none, np.ones(4), s2)
    with pytest.raises(ValueError, match="scan 1's owner is not a whole number below 32"):
        f(rc.copy(), xy2, tgt, sight, owner, ground, level, W, H, none, np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 1.5]]),
          s2)
    with pytest.raises(ValueError, match="unit 2's owner 40 is not below 32"):
        f(rc.copy(), xy2, tgt, sight, np.array([1, 2, 40, 2, 2, 1]), ground, level, W, H, none, none_s, s2)
    bad = xy2.copy()
    bad[0, 1] = math.inf
    with pytest.raises(ValueError, match="position of unit 1 is not finite"):
        f(rc.copy(), bad, tgt, sight, owner, ~ground, level, W, H, none, none_s, s2)


def test_scans_follow_the_active_scans() -> None:
    """Targeting._scans (what the kernel gets of the scans) changes with the scans: one cast, one
    moved in place, none left."""
    spots = [Scan(2, 5.0, 6.0, 99)]
    world = SimpleNamespace(u=None, has_economy=True, abilities=SimpleNamespace(scans=spots))
    t = T.Targeting(world)  # type: ignore[arg-type]
    assert t._scans().tolist() == [[5.0], [6.0], [2.0]]
    spots.append(Scan(1, 7.5, 1.0, 99))
    assert t._scans().tolist() == [[5.0, 7.5], [6.0, 1.0], [2.0, 1.0]]
    spots[0].x = 4.0
    assert t._scans().tolist() == [[4.0, 7.5], [6.0, 1.0], [2.0, 1.0]]
    spots.clear()
    assert t._scans().shape == (3, 0)


# ------------------------------------------------------------------ a whole game
def _game_digest() -> str:
    """Workers mining, and two armies of Marines and Zerglings fighting by player 1's start,
    across its cliff (targets uphill and beyond sight)."""
    return skirmish_digest(((D.MARINE, 1, 4.0, 8), (D.ZERGLING, 2, -8.0, 10), (D.MARINE, 2, -12.0, 6)))


@needs_native
def test_a_game_plays_the_same_with_and_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = plays_the_same(monkeypatch, (T,), _game_digest).calls
    assert calls.get("unseen_of", 0) > 0
