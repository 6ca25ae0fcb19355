"""The path system's compiled kernels (sc2pool/engine/_kernels_pf.c) against their Python twins:
the chasers' lengths and followers (``chase_prep``, sim/systems/pathing.py's ``_chase_prep``), the
followers to look at (``chase_pick``, ``_chase_pick``), the headings down their paths
(``chase_heads``, ``_chase_heads``), the ground units on blocked cells (``violators``,
``_violators``) and the summed-area table after a structure (``sat_update``, terrain/pathing.py's
``_blocked_sat``); and a skirmish on a ladder map played both ways.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, plays_the_same, skirmish_digest

from sc2pool.engine.sim.systems import pathing as SP
from sc2pool.engine.sim.units import ECON
from sc2pool.engine.terrain import pathing as P


def _chasers(seed: int, n: int, k: int) -> dict[str, Any]:
    """``k`` chasers among ``n`` units: ways to their targets (some zero, some tiny), rows, tags,
    ``wp`` (some CHASING), waypoints at, near and far from them."""
    rng = np.random.default_rng(seed)
    md = rng.uniform(-20, 20, (2, k)) * rng.choice([0.0, 1e-6, 1.0, 1.0], (1, k))
    x, y = rng.uniform(0, 60, n), rng.uniform(0, 60, n)
    near = rng.choice([0.0, 1e-12, 0.1, 0.25, 1.0, 10.0], n)
    wx, wy = x + near * rng.uniform(-1, 1, n), y + near * rng.choice([-1.0, 0.0, 1.0], n)
    return {"md": md, "m": rng.choice(n, k, replace=False).astype(np.int64), "tm": rng.integers(0, n, k),
            "wp": rng.choice([SP.CHASING, -1, 0, 2], n).astype(np.int64), "tag": rng.permutation(n * 3)[:n] + 1,
            "blocked": rng.random(k) < 0.4, "x": x, "y": y, "wx": wx, "wy": wy}


@needs_native
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 40), frac=st.floats(0.0, 1.0), loop=st.integers(0, 10**6))
def test_the_chase_kernels_give_what_their_python_twins_give(seed: int, n: int, frac: float, loop: int) -> None:
    c = _chasers(seed, n, int(frac * n))
    k = len(c["m"])
    dist, following = np.empty(k), np.empty(k, dtype=bool)
    count = _native().chase_prep(c["md"], c["m"], c["wp"], dist, following)
    py_dist, py_following = SP._chase_prep(c["md"], c["m"], c["wp"])
    assert dist.tobytes() == py_dist.tobytes() and (following == py_following).all()
    assert count == np.count_nonzero(py_following)
    picks = _native().chase_pick(c["m"], c["tm"], c["tag"], c["blocked"], following, loop)
    assert picks == SP._chase_pick(c["m"], c["tm"], c["tag"], c["blocked"], following, loop)
    sel = following | c["blocked"]
    for check in (True, False):
        outs = [(np.full((2, k), 7.0), np.full(k, 7.0)) for _ in range(2)]
        got = [f(c["m"], sel, c["x"], c["y"], c["wx"], c["wy"], dist, c["md"], md_out, cap, check)
               for f, (md_out, cap) in zip((_native().chase_heads, SP._chase_heads), outs, strict=True)]
        assert got[0] == got[1]
        assert outs[0][0].tobytes() == outs[1][0].tobytes() and outs[0][1].tobytes() == outs[1][1].tobytes()


@needs_native
def test_chase_heads_reports_the_chasers_at_their_waypoints_and_scales_the_others() -> None:
    m, x, y = np.array([0, 1, 2]), np.array([1.0, 5.0, 9.0]), np.array([1.0, 5.0, 9.0])
    wx, wy = np.array([1.1, 8.0, 9.0]), np.array([1.0, 9.0, 9.0])
    md, dist = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), np.array([1.0, 2.0, 3.0])
    md_out, cap = np.empty((2, 3)), np.empty(3)
    sel = np.array([True, True, False])
    assert _native().chase_heads(m, sel, x, y, wx, wy, dist, md, md_out, cap, True) == [0]
    assert _native().chase_heads(m, sel, x, y, wx, wy, dist, md, md_out, cap, False) == []
    assert np.allclose(md_out, [[1.0, 1.2, 3.0], [0.0, 1.6, 0.0]]) and md_out[0, 2] == 3.0  # (not chosen: as it came)
    assert cap[1] == 5.0 and cap[2] == np.inf and abs(cap[0] - 0.1) < 1e-12


@needs_native
def test_the_chase_kernels_name_bad_input() -> None:
    c = _chasers(1, 10, 4)
    dist, following = np.empty(4), np.empty(4, dtype=bool)
    with pytest.raises(ValueError, match="chase_prep: md holds 6 items where 8 are needed"):
        _native().chase_prep(c["md"][:, :3].copy(), c["m"], c["wp"], dist, following)
    with pytest.raises(ValueError, match="chase_prep: dist must be a C-contiguous writable float64 array"):
        _native().chase_prep(c["md"], c["m"], c["wp"], dist.astype(np.float32), following)
    with pytest.raises(ValueError, match=r"chase_prep: m\[0\] = 10 is not a unit row"):
        _native().chase_prep(c["md"], np.array([10, 0, 1, 2]), c["wp"], dist, following)
    with pytest.raises(ValueError, match="chase_pick: following must be a C-contiguous bool array"):
        _native().chase_pick(c["m"], c["tm"], c["tag"], c["blocked"], following.view(np.uint8), 3)
    with pytest.raises(ValueError, match=r"chase_pick: tm\[1\] = -1 is not a unit row"):
        _native().chase_pick(c["m"], np.array([0, -1, 0, 0]), c["tag"], c["blocked"], following, 3)
    md_out, cap = np.empty((2, 4)), np.empty(4)
    with pytest.raises(ValueError, match="chase_heads: wy holds 9 items where 10 are needed"):
        _native().chase_heads(c["m"], following, c["x"], c["y"], c["wx"], c["wy"][:9], dist, c["md"], md_out, cap,
                              True)
    with pytest.raises(ValueError, match="chase_heads: cap must be a C-contiguous writable float64 array"):
        _native().chase_heads(c["m"], following, c["x"], c["y"], c["wx"], c["wy"], dist, c["md"], md_out,
                              np.empty(8)[::2], True)


def _units(seed: int, n: int, w: int, h: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    # on cell edges and inside cells, across the whole grid
    xy = np.concatenate((rng.choice([0.0, 0.5, 0.999], n) + rng.integers(0, w, n),
                         rng.choice([0.0, 0.25, 0.75], n) + rng.integers(0, h, n)))
    return {"ground": rng.random(n) < 0.8, "xy": xy, "free": rng.random(w * h) < 0.6,
            "jumpers": rng.random(n) < 0.2, "jump_free": rng.random(w * h) < 0.8,
            "kind": rng.choice([ECON, 0, 1, 2], n).astype(np.int64)}


@needs_native
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(0, 60), w=st.integers(1, 30), h=st.integers(1, 30),
       reapers=st.booleans())
def test_violators_are_the_rows_the_python_masks_pick(seed: int, n: int, w: int, h: int, reapers: bool) -> None:
    a = _units(seed, n, w, h)
    jump_free = a["jump_free"] if reapers else None
    out = np.full(n + 2, -5, dtype=np.int64)
    count = _native().violators(a["ground"], a["xy"], a["free"], a["jumpers"], jump_free, a["kind"], ECON, w, out)
    want = SP._violators(a["ground"], a["xy"], a["free"], a["jumpers"], jump_free, a["kind"], w)
    assert out[:count].tolist() == want.tolist()


@needs_native
def test_violators_names_bad_input() -> None:
    a = _units(2, 5, 4, 4)
    args = (a["ground"], a["xy"], a["free"], a["jumpers"], None, a["kind"], ECON, 4)
    with pytest.raises(ValueError, match="violators: out holds 4 items where at least 5 are needed"):
        _native().violators(*args, np.empty(4, dtype=np.int64))
    with pytest.raises(ValueError, match="violators: xy holds 8 items where 10 are needed"):
        _native().violators(a["ground"], a["xy"][:8].copy(), *args[2:], np.empty(5, dtype=np.int64))
    with pytest.raises(ValueError, match="violators: jump_free holds 3 items where 16 are needed"):
        _native().violators(*args[:4], a["jump_free"][:3], *args[5:], np.empty(5, dtype=np.int64))
    far = a["xy"].copy()
    far[0] = 40.0  # beyond the grid's last cell
    with pytest.raises(ValueError, match="violators: unit 0 stands off the grid"):
        _native().violators(a["ground"], far, *args[2:], np.empty(5, dtype=np.int64))
    far[0] = np.nan
    with pytest.raises(ValueError, match="off the grid"):
        _native().violators(a["ground"], far, *args[2:], np.empty(5, dtype=np.int64))
    with pytest.raises(ValueError, match="violators: the grid's width must be positive"):
        _native().violators(*args[:7], 0, np.empty(5, dtype=np.int64))


@needs_native
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**16), w=st.integers(1, 30), h=st.integers(1, 30), y0=st.integers(0, 32),
       x0=st.integers(0, 32), fill=st.floats(0.0, 1.0))
def test_sat_update_gives_the_table_summed_again(seed: int, w: int, h: int, y0: int, x0: int, fill: float) -> None:
    rng = np.random.default_rng(seed)
    free = rng.random((h, w)) < fill
    sat = P._sat_cells(P._blocked_sat(free))
    free[y0:, x0:] = rng.random((h, w))[y0:, x0:] < 0.5  # cells change only below and right of (x0, y0)
    _native().sat_update(free, sat, w, h, y0, x0)
    assert np.asarray(sat).tolist() == P._blocked_sat(free).ravel().tolist()


@needs_native
def test_sat_update_names_bad_input() -> None:
    free = np.ones((3, 4), dtype=bool)
    sat = P._sat_cells(P._blocked_sat(free))
    with pytest.raises(ValueError, match="sat_update: sat holds 20 items where 16 are needed"):
        _native().sat_update(np.ones(9, dtype=bool), sat, 3, 3, 0, 0)
    with pytest.raises(ValueError, match="sat_update: sat must be a C-contiguous writable int32 array"):
        _native().sat_update(free, np.zeros(20, dtype=np.int64), 4, 3, 0, 0)
    with pytest.raises(ValueError, match="sat_update: free holds 12 items where 9 are needed"):
        _native().sat_update(free, sat, 3, 3, 0, 0)
    with pytest.raises(ValueError, match="not negative"):
        _native().sat_update(free, sat, 4, 3, -1, 0)


@needs_native
def test_a_skirmish_plays_the_same_with_and_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    # Marines and Marauders by player 1's base and cliff, the Computer's army coming at them
    counting = plays_the_same(monkeypatch, (SP, P), lambda: skirmish_digest(
        [(48, 1, 0.0, 8), (51, 1, 3.0, 4), (48, 2, -8.0, 10), (51, 2, 8.0, 4)], steps=40))
    for name in ("chase_prep", "chase_heads", "violators", "sat_update"):
        assert counting.calls.get(name, 0) > 0, name
