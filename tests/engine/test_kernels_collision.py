"""The collision system's compiled kernels (sc2pool/engine/_kernels_collision.c) against their
pure-Python twins in sc2pool/engine/sim/systems/collision.py: bit for bit the same pairs, shares
and positions on every input, and the same game either way."""

from __future__ import annotations

import hashlib
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from game_helpers import command, joined
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, plays_the_same
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine import kernels
from sc2pool.engine.sim.systems import collision as CO
from sc2pool.engine.sim.systems.collision import Collision


class _Units:
    """The unit-store columns the collision kernels read: ``xy`` (x of every unit, then y) with
    ``x`` and ``y`` its halves, ``radius`` and ``owner`` strided as the store's columns are."""

    def __init__(self, xy: np.ndarray, radius: np.ndarray, owner: np.ndarray) -> None:
        n = len(radius)
        self.version, self.next_tag = 1, n + 1
        self.tag = np.arange(1, n + 1)
        self.facing = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
        ints = np.asfortranarray(np.stack([np.arange(n) % 8, np.full(n, 7)]))  # (strided, as the int block's rows)
        self.kind, self.seg = ints[0], ints[1]
        self.xy = xy
        self.x, self.y = xy[:n], xy[n:]
        self.radius = np.asfortranarray(np.stack([radius, radius]))[0]  # (strided, as TYPES.fmat[:, ti])
        self.owner = np.asfortranarray(np.stack([owner, owner]))[0]  # (strided, as the int block's rows)

    def __len__(self) -> int:
        return len(self.radius)


def _collision(xy: np.ndarray, radius: np.ndarray, owner: np.ndarray) -> Collision:
    c = Collision.__new__(Collision)
    c.u = _Units(xy, radius, owner)  # type: ignore[assignment]
    return c


def _both(monkeypatch: pytest.MonkeyPatch, run: Any) -> tuple[Any, Any]:
    """``run()`` with the compiled kernels, then with the Python twins."""
    c = run()
    monkeypatch.setattr(CO, "_native", None)
    py = run()
    monkeypatch.setattr(CO, "_native", _native())
    return c, py


def _same(a: Any, b: Any) -> bool:
    """Bit for bit (NaNs and signed zeros included), through tuples and lists."""
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return np.asarray(a).tobytes() == np.asarray(b).tobytes()
    if a is None or b is None:
        return a is b
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# positions on a coarse grid (ties, points on one another) or anywhere on a small map
_coord = st.one_of(st.integers(0, 24).map(lambda k: k / 4), st.floats(0.0, 6.0, allow_nan=False))
_radius = st.sampled_from([0.375, 0.5, 0.625, 1.0])


@st.composite
def _crowd(draw: st.DrawFn, max_units: int = 14) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """xy (x..., y...), radii (one for all or mixed) and owners of a small crowd."""
    n = draw(st.integers(0, max_units))
    xs = draw(st.lists(_coord, min_size=n, max_size=n))
    ys = draw(st.lists(_coord, min_size=n, max_size=n))
    if draw(st.booleans()):
        radius = np.full(n, draw(_radius))
    else:
        radius = np.array(draw(st.lists(_radius, min_size=n, max_size=n)), dtype=float)
    owner = np.array(draw(st.lists(st.integers(1, 2), min_size=n, max_size=n)), dtype=np.int64)
    return np.array(xs + ys, dtype=float), radius, owner


def _sweep(col: Collision, c: np.ndarray, extra: float) -> np.ndarray:
    rc = col.u.radius[c]
    col._coll_rmax = float(rc.max()) if len(rc) else 0.0
    col._coll_r_common = col._coll_rmax if len(rc) and float(rc.min()) == col._coll_rmax else math.nan
    return col.pairs(extra, c)


@needs_native
@settings(max_examples=300, deadline=None)
@given(crowd=_crowd(), keep=st.lists(st.booleans(), min_size=14, max_size=14),
       extra=st.sampled_from([0.0, 0.05, 1.0, 3.5]))
def test_sweep_pairs_lists_the_pairs_in_the_order_the_python_sweep_does(
        crowd: tuple[np.ndarray, np.ndarray, np.ndarray], keep: list[bool], extra: float) -> None:
    xy, radius, owner = crowd
    c = np.nonzero(np.array(keep[:len(radius)], dtype=bool))[0]
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _sweep(_collision(xy, radius, owner), c, extra))
    assert _same(got, want)


@needs_native
def test_sweep_pairs_sorts_ties_as_a_stable_sort_and_finds_every_pair_in_a_big_crowd() -> None:
    rng = np.random.default_rng(5)
    n = 400
    xy = np.concatenate([rng.integers(0, 40, n) / 2.0, rng.uniform(0.0, 20.0, n)])  # many x ties
    radius = rng.choice([0.375, 0.5, 1.0], n)
    c = np.sort(rng.choice(n, 300, replace=False))
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _sweep(_collision(xy, radius, np.ones(n, np.int64)), c, 1.0))
    assert _same(got, want) and got.shape[1] > 1000


def _pair_list(col: Collision, n: int, pairs: list[tuple[int, int]]) -> None:
    """Set ``col``'s pair list to ``pairs`` (rows a, b), as near_pairs leaves it."""
    u = col.u
    ab = np.array(pairs, dtype=np.int64).reshape(-1, 2).T.copy()
    col._pc_ab = ab
    col._pc_a, col._pc_b = ab[0], ab[1]
    r = u.radius
    col._pc_rr_common = bool(n) and float(r.min()) == float(r.max())
    col._pc_rr = float(r[0] + r[0]) if col._pc_rr_common else r.take(ab[0]) + r.take(ab[1])
    reach = col._pc_rr + CO.ACTIVE_GAP
    col._pc_reach2 = reach * reach
    over = col._pc_rr - CO.SEPARATION_TOL
    col._pc_over2 = over * over
    col._pc_ref_rows = np.arange(n)
    col._index_pairs()


def _all_pairs(n: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(n) for b in range(a + 1, n)]


def _separation_steps(crowd: tuple[np.ndarray, np.ndarray, np.ndarray], weights: list[float],
                      steering: list[bool] | None, first: bool, iters: int) -> list[Any]:
    """The pieces of one separation on ``crowd`` (every pair listed): the active pairs, the
    shares, the first pushes (every other unit steering chases), the passes (moving the crowd)
    and one extra round's joining pairs."""
    xy, radius, owner = crowd
    n = len(radius)
    col = _collision(xy.copy(), radius, owner)
    _pair_list(col, n, _all_pairs(n))
    act, idx2, dx, dy, d, ov, rr = col._active()
    w = np.array(weights[:n], dtype=float)
    steer = None if steering is None else np.array(steering[:n], dtype=bool)
    fa, wa, wb = col._shares(idx2, w, steer)
    m = idx2.shape[1]
    np.maximum(d, 1e-9, out=d)
    chasing = np.arange(n) % 2 == 1 if steer is None else steer ^ (np.arange(n) % 3 == 0)
    push = col._first_push(idx2, dx, dy, d, ov, wa, wb, steer, chasing)
    pushed = push.copy()
    passes = col._relax(idx2, rr, fa, push if first else None, iters)
    moved = col.u.xy.copy()
    joined_ = col._join(act[: m // 2])  # (half the pairs held: the others may join)
    return [act, idx2, dx, dy, d, ov, rr, fa, wa, wb, pushed, passes, moved, joined_]


@needs_native
@settings(max_examples=400, deadline=None)
@given(crowd=_crowd(), weights=st.lists(st.sampled_from([0.0, 0.25, 1.0]), min_size=14, max_size=14),
       steering=st.one_of(st.none(), st.lists(st.booleans(), min_size=14, max_size=14)),
       first=st.booleans(), iters=st.integers(0, 9))
def test_the_separation_kernels_give_the_python_pairs_shares_and_positions(
        crowd: tuple[np.ndarray, np.ndarray, np.ndarray], weights: list[float], steering: list[bool] | None,
        first: bool, iters: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _separation_steps(crowd, weights, steering, first, iters))
    assert _same(got, want)


@needs_native
def test_the_passes_settle_a_packed_crowd_as_the_python_passes_do() -> None:
    rng = np.random.default_rng(11)
    n = 120
    crowd = (rng.uniform(0.0, 6.0, 2 * n), rng.choice([0.375, 0.5, 0.75], n), rng.integers(1, 3, n))
    weights, steering = list(rng.choice([0.0, 0.25, 1.0], n)), list(rng.random(n) < 0.3)
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _separation_steps(crowd, weights, steering, True, 8))
    assert _same(got, want)
    assert got[11] == 8 and got[13] is not None  # eight passes made, pairs left to join


def _touching_and_list_kept(crowd: tuple[np.ndarray, np.ndarray, np.ndarray], drift: list[float]) -> list[Any]:
    """The touching pairs of ``crowd`` (every pair listed), and whether the pair list is kept
    once the reference positions are moved by ``drift``."""
    xy, radius, owner = crowd
    n = len(radius)
    col = _collision(xy.copy(), radius, owner)
    c = np.arange(n)
    col.collidable = lambda: c  # type: ignore[method-assign]
    col._coll = c
    col._coll_rmax = float(radius.max()) if n else 0.0
    col._coll_r_common = col._coll_rmax if n and float(radius.min()) == col._coll_rmax else math.nan
    _pair_list(col, n, _all_pairs(n))
    col._touch_loop = col._touch_version = -1
    col._near_now = (4, col.u.version, col._pc_idx4.reshape(4, -1), col._pc_rr)
    touch = col.touching(5) if n > 1 else None
    col._pc_coll, col._pc_tags, col._pc_next_tag, col._pc_version = c, col.u.tag, col.u.next_tag, col.u.version
    col._pc_ref_xy = col.u.xy + np.resize(np.array(drift), 2 * n)
    a = col._pc_a
    return [touch, col.near_pairs()[0] is a]


@needs_native
@settings(max_examples=300, deadline=None)
@given(crowd=_crowd(), drift=st.lists(st.sampled_from([0.0, 0.2, -0.35, 0.36, 0.5, -0.71, 1.5]), min_size=1,
                                      max_size=6))
def test_touching_pairs_and_the_pair_lists_moved_test_answer_as_in_python(
        crowd: tuple[np.ndarray, np.ndarray, np.ndarray], drift: list[float]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _touching_and_list_kept(crowd, drift))
    assert _same(got, want)


def _separate(crowd: tuple[np.ndarray, np.ndarray, np.ndarray], flags: list[int], steering: bool) -> list[Any]:
    """One whole separation of ``crowd`` (every pair listed; units on hold by their row, walking,
    in range, mobile and steering by the bits of ``flags``): whether it moved anybody, the
    positions and straight-move segments after it, and the pairs it looked at last."""
    xy, radius, owner = crowd
    n = len(radius)
    col = _collision(xy.copy(), radius, owner)
    col.w = SimpleNamespace(locomotion=SimpleNamespace(clamp=lambda: None))  # type: ignore[assignment]
    c = np.arange(n)
    col.collidable = lambda: c  # type: ignore[method-assign]
    _pair_list(col, n, _all_pairs(n))
    col._pc_coll, col._pc_tags, col._pc_next_tag, col._pc_version = c, col.u.tag, col.u.next_tag, col.u.version
    col._pc_ref_xy = col.u.xy.copy()
    col._near_now = (-1, -1, np.zeros((4, 0), np.int64), 0.0)
    bits = np.array(flags[:n], dtype=np.int64)
    walking, in_range, immobile, steer = ((bits >> k) & 1 == 1 for k in range(4))
    moved = col.separate(3, walking, in_range, ~immobile, steer if steering else None, walking & ~steer)
    return [moved, col.u.xy, col.u.seg, col._near_now[2], col._near_now[3]]


@needs_native
@settings(max_examples=300, deadline=None)
@given(crowd=_crowd(), flags=st.lists(st.integers(0, 15), min_size=14, max_size=14), steering=st.booleans())
def test_a_whole_separation_moves_the_crowd_as_the_python_one_does(
        crowd: tuple[np.ndarray, np.ndarray, np.ndarray], flags: list[int], steering: bool) -> None:
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _separate(crowd, flags, steering))
    assert _same(got, want)


def test_with_no_overlap_nobody_joins_and_the_passes_stop_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    crowd = (np.array([0.0, 3.0, 0.0, 0.0]), np.array([0.5, 0.5]), np.array([1, 2], dtype=np.int64))
    for mode in ([None] if kernels.native is None else [None, kernels.native]):
        monkeypatch.setattr(CO, "_native", mode)
        steps = _separation_steps(crowd, [1.0, 1.0], None, False, 8)
        assert steps[11] == 0 and steps[13] is None and len(steps[0]) == 0


@needs_native
def test_the_collision_kernels_name_bad_input() -> None:
    k = _native()
    xy = np.zeros(8)
    idx = np.array([0, 4, 1, 5], dtype=np.int64)
    fa = np.array([0.5])
    with pytest.raises(ValueError, match="relax_pairs: xy must be a C-contiguous writable float64"):
        k.relax_pairs(xy.astype(np.float32), idx, 1.0, fa, None, 8, 0.07, 0.85)
    with pytest.raises(ValueError, match="relax_pairs: xy must be a C-contiguous writable"):
        k.relax_pairs(np.zeros(16)[::2], idx, 1.0, fa, None, 8, 0.07, 0.85)
    with pytest.raises(ValueError, match=r"relax_pairs: idx2\[2\] = 9 lies outside \[0, 8\)"):
        k.relax_pairs(xy, np.array([0, 4, 9, 5], dtype=np.int64), 1.0, fa, None, 8, 0.07, 0.85)
    with pytest.raises(ValueError, match="relax_pairs: idx2 must hold four rows"):
        k.relax_pairs(xy, idx[:3], 1.0, fa, None, 8, 0.07, 0.85)
    with pytest.raises(ValueError, match="relax_pairs: fa holds 2 items where 1 are needed"):
        k.relax_pairs(xy, idx, 1.0, np.zeros(2), None, 8, 0.07, 0.85)
    with pytest.raises(ValueError, match="relax_pairs: rr must be a C-contiguous float64"):
        k.relax_pairs(xy, idx, "1.0", fa, None, 8, 0.07, 0.85)
    with pytest.raises(ValueError, match="relax_pairs: push holds 3 items where 2"):
        k.relax_pairs(xy, idx, 1.0, fa, np.zeros(3), 8, 0.07, 0.85)
    with pytest.raises(ValueError, match="sweep_pairs: reach must not be negative"):
        k.sweep_pairs(xy[:4], xy[4:], np.ones(2), np.arange(2), -1.0, math.nan, 0.0)
    with pytest.raises(ValueError, match="sweep_pairs: y holds 3 items where 4"):
        k.sweep_pairs(xy[:4], xy[5:], np.ones(2), np.arange(2), 1.0, math.nan, 0.0)
    with pytest.raises(ValueError, match=r"sweep_pairs: c\[1\] = 4 lies outside \[0, 4\)"):
        k.sweep_pairs(xy[:4], xy[4:], np.ones(2), np.array([0, 4]), 1.0, math.nan, 0.0)
    with pytest.raises(ValueError, match="sweep_pairs: c must be a C-contiguous int64"):
        k.sweep_pairs(xy[:4], xy[4:], np.ones(2), np.array([0.0, 1.0]), 1.0, math.nan, 0.0)
    io, fo = np.empty(5, np.int64), np.empty(5)
    with pytest.raises(ValueError, match="active_pairs: io must be a C-contiguous writable int64"):
        k.active_pairs(xy, idx, 1.0, 1.0, io.astype(np.int32), fo)
    with pytest.raises(ValueError, match="active_pairs: reach2 holds 2 items where 1"):
        k.active_pairs(xy, idx, np.ones(2), 1.0, io, fo)
    with pytest.raises(ValueError, match=r"join_overlapping: act\[0\] = 1 lies outside \[0, 1\)"):
        k.join_overlapping(xy, idx, 1.0, 1.0, np.array([1]), io, fo[:1])
    with pytest.raises(ValueError, match="join_overlapping: fo holds 5 items where 1"):
        k.join_overlapping(xy, idx, 1.0, 1.0, np.array([0]), io, fo)
    with pytest.raises(ValueError, match="moved_apart: ref_xy holds 3 items where 4"):
        k.moved_apart(xy, idx, np.zeros(3), 0.125, 0.25)
    with pytest.raises(ValueError, match="moved_apart: ref_idx must hold two rows"):
        k.moved_apart(xy, idx[:3], np.zeros(3), 0.125, 0.25)
    with pytest.raises(ValueError, match="touching_pairs: vec holds 5 items where 6"):
        k.touching_pairs(xy, idx, 1.0, 0.05, np.empty(4, np.int64), np.empty(5))
    with pytest.raises(ValueError, match=r"sidestep_movers: b\[0\] = 9 lies outside \[0, 4\)"):
        k.sidestep_movers(np.array([0, 4, 9, 5]), np.zeros(4, bool), np.empty(1, np.int64))
    with pytest.raises(ValueError, match="sidestep_movers: mover holds 2 items where 1"):
        k.sidestep_movers(idx, np.zeros(4, bool), np.empty(2, np.int64))
    one = np.ones(1)
    with pytest.raises(ValueError, match="first_push: push holds 1 items where 2"):
        k.first_push(one, one, one, one, idx, one, one, None, None, None, None, 0.25, 0.5, one)
    with pytest.raises(ValueError, match="first_push: steer holds 3 items where 4"):
        k.first_push(one, one, one, one, idx, one, one, np.zeros(4, bool), np.zeros(3, bool), one, one, 0.25,
                     0.5, np.empty(2))
    out = np.empty(3)
    with pytest.raises(ValueError, match=r"pair_shares: b\[0\] = 5 lies outside \[0, 4\)"):
        k.pair_shares(np.array([0, 4, 5, 9]), np.ones(4), np.ones(4, np.int64), None, 0.25, out)
    with pytest.raises(ValueError, match="pair_shares: owner must be a one-dimensional int64"):
        k.pair_shares(idx, np.ones(4), np.ones((2, 2), np.int64), np.zeros(4, bool), 0.25, out)
    with pytest.raises(ValueError, match="pair_shares: steer must be a C-contiguous bool"):
        k.pair_shares(idx, np.ones(4), np.ones(4, np.int64), np.zeros(4), 0.25, out)
    with pytest.raises(ValueError, match="pair_shares: out must be a C-contiguous writable float64"):
        k.pair_shares(idx, np.ones(4), np.ones(4, np.int64), None, 0.25, out.view(np.int64))


def _fight_digest() -> str:
    """Observations and unit fields of a pressed fight (both armies attack-moved into each other, Marines and
    Roaches: radii mixed) and a crowd sent through it."""
    g = joined("DefeatRoaches.SC2Map", seed=2)
    digest = hashlib.sha256()
    for i in range(60):
        u = g.world.u
        own = u.tag[u.owner == 1].tolist()
        foes = np.nonzero(u.owner == 2)[0]
        if own and len(foes) and i % 6 == 0:
            ability = D.ATTACK_ATTACK if i % 12 == 0 else D.MOVE_MOVE
            g.action(1, command(ability, own, (float(u.x[foes[-1]]), float(u.y[foes[-1]]))))
        g.step(8)
        digest.update(g.observation_bytes(1, sc_pb.RequestObservation()))
        digest.update(g.world.u.F.tobytes())  # (positions to the last bit: observations round them)
        if g.ended:
            break
    return digest.hexdigest()


@needs_native
def test_a_fight_plays_the_same_with_and_without_the_collision_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    assert sum(plays_the_same(monkeypatch, (CO,), _fight_digest).calls.values()) > 200
