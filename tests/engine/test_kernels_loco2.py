"""The movement glue's compiled kernels (sc2pool/engine/_kernels_loco2.c) against their Python
twins: the collidable set's economy key (Collision.collidable), the movers that steer
(Locomotion.steering) and those that arrive by crowding (Locomotion.arrive_by_crowding with
Collision.touching_now), and the walkers' facings.  Bit for bit the same on every input, where a
distance too near its bound to be told without numpy's hypot sends the caller to the numpy code;
and the same games either way."""

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
from kernel_helpers import needs_native, plays_the_same, skirmish_digest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine import kernels as kernels_module
from sc2pool.engine.sim import units as U
from sc2pool.engine.sim.systems import collision as CO
from sc2pool.engine.sim.systems import locomotion as L
from sc2pool.engine.sim.systems.collision import Collision
from sc2pool.engine.sim.systems.locomotion import Locomotion

_TWO_PI = 2.0 * math.pi
_X, _TX = U.FLOAT_FIELDS.index("x"), U.FLOAT_FIELDS.index("tx")


def _strided(a: np.ndarray) -> np.ndarray:
    """``a`` as a row of a Fortran-ordered block: strided, as the unit store's columns may be."""
    return np.asfortranarray(np.stack([a, a]))[0]


# positions on a coarse grid (ties: distances equal to their bounds) or anywhere on a small map
_coord = st.one_of(st.integers(0, 24).map(lambda k: k / 4), st.floats(0.0, 6.0, allow_nan=False))


_offset = st.one_of(st.integers(-6, 6).map(lambda k: k / 4), st.floats(-1.5, 1.5, allow_nan=False))


class _Units:
    """The unit-store columns locomotion's crowd rules read, from the float block ``F`` (x and
    y in their rows; the goal in the rows of ``tx``, ``ty``) and strided int columns."""

    def __init__(self, F: np.ndarray, radius: np.ndarray, owner: np.ndarray, kind: np.ndarray,
                 eng: np.ndarray) -> None:
        self.F = F
        self.xy = F[:2].reshape(-1)
        self.radius, self.owner = _strided(radius), _strided(owner)
        self.kind, self.eng = _strided(kind), _strided(eng)
        self.finished: list[list[int]] = []

    def __len__(self) -> int:
        return len(self.radius)

    def finish_orders(self, rows: np.ndarray) -> None:
        self.finished.append(rows.tolist())


@st.composite
def _crowd(draw: st.DrawFn, max_units: int = 12) -> _Units:
    """A small crowd of two owners: positions, goals, radii, orders (idle or not), targets."""
    n = draw(st.integers(0, max_units))
    F = np.zeros((len(U.FLOAT_FIELDS), n))
    for row in (_X, _X + 1, _TX, _TX + 1):
        F[row] = draw(st.lists(_coord, min_size=n, max_size=n))
    if draw(st.booleans()):  # goals near the movers: within the crowd bound, where they stop
        F[_TX:_TX + 2] = F[_X:_X + 2] + np.array(draw(st.lists(_offset, min_size=2 * n, max_size=2 * n))).reshape(2, n)
    radius = np.array(draw(st.lists(st.sampled_from([0.375, 0.5, 1.0]), min_size=n, max_size=n)), dtype=float)
    owner = np.array(draw(st.lists(st.integers(1, 2), min_size=n, max_size=n)), dtype=np.int64)
    kind = np.array(draw(st.lists(st.sampled_from([U.IDLE, U.MOVE]), min_size=n, max_size=n)), dtype=np.int64)
    eng = np.array(draw(st.lists(st.sampled_from([0, 0, 7]), min_size=n, max_size=n)), dtype=np.int64)
    return _Units(F, radius, owner, kind, eng)


def _locomotion(u: _Units, collidable: np.ndarray, collision: Any = None) -> Locomotion:
    """A flat arena's Locomotion over ``u`` (goals in ``tx``, ``ty``), the collidable set given."""
    loc = Locomotion.__new__(Locomotion)
    loc.u = u  # type: ignore[assignment]
    coll = collision if collision is not None else SimpleNamespace()
    coll.collidable = lambda: collidable
    loc.w = SimpleNamespace(collision=coll)  # type: ignore[assignment]
    loc.terrain, loc.steer, loc.goal, loc._nf = False, _TX, _TX, U.N_FLAT_FLOAT
    loc._crowd_coll, loc._crowd_sqrt_n = None, np.zeros(0)
    return loc


def _both(monkeypatch: pytest.MonkeyPatch, run: Any) -> tuple[Any, Any]:
    """``run()`` with the compiled kernels, then with the Python twins."""
    c = run()
    monkeypatch.setattr(L, "_native", None)
    monkeypatch.setattr(CO, "_native", None)
    py = run()
    monkeypatch.setattr(L, "_native", _native())
    monkeypatch.setattr(CO, "_native", _native())
    return c, py


# ------------------------------------------------------------------ the economy key
@needs_native
@settings(max_examples=300, deadline=None)
@given(kind=st.lists(st.sampled_from([U.IDLE, U.MOVE, U.ECON]), max_size=10),
       stored=st.one_of(st.none(), st.lists(st.booleans(), max_size=10)), strided=st.booleans())
def test_econ_same_is_the_key_comparison(kind: list[int], stored: list[bool] | None, strided: bool) -> None:
    k = np.array(kind, dtype=np.int64)
    econ = k == U.ECON
    # the key's mask as collidable stores it: b"" (nobody on an economy job), or some mask
    mask = econ.tobytes() if stored is None and econ.any() else b"" if stored is None else (
        np.array(stored, dtype=bool).tobytes() if any(stored) else b"")
    want = (econ.tobytes() if econ.any() else b"") == mask
    assert _native().econ_same(_strided(k) if strided else k, U.ECON, mask) is want


@needs_native
def test_econ_same_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="econ_same: kind must be a one-dimensional int64 array"):
        _native().econ_same(np.zeros(3), U.ECON, b"")
    with pytest.raises(ValueError, match="econ_same: mask must be a C-contiguous uint8 array"):
        _native().econ_same(np.zeros(3, np.int64), U.ECON, np.zeros(3, dtype=np.int64))


def _store(kinds: list[int]) -> U.UnitStore:
    u = U.UnitStore()
    u.add(D.MARINE, 1, np.arange(len(kinds), dtype=float), np.zeros(len(kinds)))
    u.kind[:] = kinds
    return u


@pytest.mark.parametrize("kernels", [True, False])
def test_collidable_notices_a_unit_joining_or_leaving_an_economy_job_in_place(
        kernels: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # (the unit-set version stays: the cache must look at the order kinds themselves)
    if kernels and kernels_module.native is None:
        pytest.skip("the compiled kernels were not built here")
    if not kernels:
        monkeypatch.setattr(CO, "_native", None)
    u = _store([U.IDLE, U.ECON, U.MOVE, U.IDLE])
    world = SimpleNamespace(u=u, has_economy=True, pathing=SimpleNamespace(active=False))
    col = Collision(world)  # type: ignore[arg-type]

    def fresh() -> list[int]:
        return Collision(world).collidable().tolist()  # type: ignore[arg-type]

    first = col.collidable()
    assert first.tolist() == fresh() == [0, 2, 3] and col.collidable() is first
    for row, kind in ((3, U.ECON), (1, U.IDLE), (3, U.MOVE), (0, U.ECON)):
        u.kind[row] = kind
        got = col.collidable()
        assert got.tolist() == fresh() and got is not first
        first = got
        assert col.collidable() is got  # (unchanged: the same array, the pair list kept)


# ------------------------------------------------------------------ steering
@needs_native
@settings(max_examples=300, deadline=None)
@given(u=_crowd(), pick=st.lists(st.booleans(), min_size=12, max_size=12))
def test_crowd_steer_matches_steering(u: _Units, pick: list[bool]) -> None:
    n = len(u)
    pg = np.nonzero(np.array(pick[:n], dtype=bool))[0]
    c = np.arange(n)
    xy2 = u.xy.reshape(2, -1)
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _locomotion(u, c).steering(pg, xy2))
    assert got.tobytes() == want.tobytes()


@needs_native
def test_crowd_steer_leaves_a_distance_on_its_bound_to_numpy() -> None:
    # four units of one owner: a bound of 2 * 0.5 * 2 = 2, and a mover exactly 2 from its goal
    F = np.zeros((len(U.FLOAT_FIELDS), 4))
    F[_X] = [0.0, 5.0, 9.0, 13.0]
    F[_TX] = [2.0, 5.0, 9.0, 13.0]
    u = _Units(F, np.full(4, 0.5), np.ones(4, np.int64), np.zeros(4, np.int64), np.zeros(4, np.int64))
    sqrt_n = np.sqrt(np.bincount(u.owner, minlength=U.NEUTRAL_OWNER + 1))
    steer = np.zeros(4, dtype=bool)
    args = (F, _TX, u.xy.reshape(2, -1), u.radius, u.owner, sqrt_n, steer)
    assert not _native().crowd_steer(np.array([0]), *args)
    F[_TX, 0] = 2.5  # (then clearly beyond it)
    assert _native().crowd_steer(np.array([0, 1]), *args) and steer.tolist() == [True, False, False, False]
    with pytest.MonkeyPatch.context() as mp:  # and steering itself decides either way as numpy does
        F[_TX, 0] = 2.0
        got, want = _both(mp, lambda: _locomotion(u, np.arange(4)).steering(np.array([0, 2]), u.xy.reshape(2, -1)))
    assert got.tolist() == want.tolist() == [False] * 4


# ------------------------------------------------------------------ arriving by crowding
def _crowding(u: _Units, pairs: list[tuple[int, int]], m: np.ndarray) -> list[list[int]]:
    """The rows Locomotion.arrive_by_crowding finishes for movers ``m`` over the pair list ``pairs``."""
    n = len(u)
    col = Collision.__new__(Collision)
    col.u = u  # type: ignore[assignment]
    ab = np.array(pairs, dtype=np.int64).reshape(-1, 2).T.copy()
    col._pc_ab, col._pc_a, col._pc_b = ab, ab[0], ab[1]
    r = u.radius
    common = bool(n) and float(r.min()) == float(r.max())
    col._pc_rr = float(r[0] + r[0]) if common else r.take(ab[0]) + r.take(ab[1])
    col._pc_ref_rows = np.arange(n)
    col._index_pairs()
    col.near_pairs = lambda: (col._pc_a, col._pc_b)  # type: ignore[method-assign]
    u.finished = []
    _locomotion(u, np.arange(n), col).arrive_by_crowding(m)
    return u.finished


@needs_native
@settings(max_examples=400, deadline=None)
@given(u=_crowd(), pick=st.lists(st.booleans(), min_size=12, max_size=12),
       pairs=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30))
def test_crowd_stops_matches_arrive_by_crowding(u: _Units, pick: list[bool], pairs: list[tuple[int, int]]) -> None:
    n = len(u)
    m = np.nonzero(np.array(pick[:n], dtype=bool))[0]
    pairs = [(a, b) for a, b in pairs if a < n and b < n and a != b]
    with pytest.MonkeyPatch.context() as mp:
        got, want = _both(mp, lambda: _crowding(u, pairs, m))
    assert got == want


def _ball(goal_x: float) -> _Units:
    """A mover (row 0) at the origin bound for (goal_x, 0), touching an idle ally at (0.75, 0)."""
    F = np.zeros((len(U.FLOAT_FIELDS), 2))
    F[_X] = [0.0, 0.75]
    F[_TX] = [goal_x, 5.0]
    return _Units(F, np.full(2, 0.375), np.ones(2, np.int64), np.array([U.MOVE, U.IDLE]), np.zeros(2, np.int64))


@needs_native
def test_crowd_stops_stops_a_mover_at_an_ally_ahead_and_leaves_ties_to_numpy() -> None:
    def stops(u: _Units, rr: float = 0.75) -> int:
        sqrt_n = np.sqrt(np.bincount(u.owner, minlength=U.NEUTRAL_OWNER + 1))
        done = np.zeros(len(u), dtype=bool)
        k: int = _native().crowd_stops(np.array([0]), np.array([0]), np.array([1]), rr, CO.CONTACT_SLOP, u.F, _X,
                                       _TX, u.kind, u.eng, u.owner, U.IDLE, u.radius, sqrt_n, done)
        assert k < 0 or k == int(done.sum())
        return k

    assert stops(_ball(1.0)) == 1  # the ally is nearer the goal, the mover within 2 * 0.375 * sqrt(2)
    assert stops(_ball(0.3)) == 0  # the ally is farther from the goal than the mover
    assert stops(_ball(2.0 * 0.375 * math.sqrt(2.0))) < 0  # the mover exactly on its bound: numpy tells
    assert stops(_ball(1.0), rr=0.75 - CO.CONTACT_SLOP) < 0  # the pair exactly touching: numpy tells
    with pytest.MonkeyPatch.context() as mp:
        for goal_x in (1.0, 2.0 * 0.375 * math.sqrt(2.0)):
            got, want = _both(mp, lambda: _crowding(_ball(goal_x), [(0, 1)], np.array([0])))  # noqa: B023
            assert got == want


@needs_native
def test_crowd_kernels_reject_bad_input() -> None:
    u = _ball(1.0)
    sqrt_n = np.ones(3)
    done = np.zeros(2, dtype=bool)
    one, two = np.array([0]), np.array([1])
    head = (one, one, two, 0.75, 0.05, u.F, _X, _TX, u.kind, u.eng, u.owner, U.IDLE, u.radius)
    with pytest.raises(ValueError, match="crowd_stops: owner 1 of row 0 lies outside sqrt_n"):
        _native().crowd_stops(*head, np.ones(1), done)
    with pytest.raises(ValueError, match="crowd_stops: done holds 1 items where 2 are needed"):
        _native().crowd_stops(*head, sqrt_n, np.zeros(1, dtype=bool))
    with pytest.raises(ValueError, match="crowd_stops: b holds 2 items where 1 are needed"):
        _native().crowd_stops(one, one, np.array([1, 0]), *head[3:], sqrt_n, done)
    with pytest.raises(ValueError, match=r"crowd_stops: m\[0\] = 5 is not a unit row"):
        _native().crowd_stops(np.array([5]), *head[1:], sqrt_n, done)
    with pytest.raises(ValueError, match="crowd_stops: goal_row must name two rows of F"):
        _native().crowd_stops(*head[:7], len(U.FLOAT_FIELDS) - 1, *head[8:], sqrt_n, done)
    steer = np.zeros(2, dtype=bool)
    xy2 = u.xy.reshape(2, -1)
    with pytest.raises(ValueError, match="crowd_steer: xy2 holds 2 items where 4 are needed"):
        _native().crowd_steer(one, u.F, _TX, xy2[0], u.radius, u.owner, sqrt_n, steer)
    with pytest.raises(ValueError, match="crowd_steer: steer must be a C-contiguous writable bool array"):
        _native().crowd_steer(one, u.F, _TX, xy2, u.radius, u.owner, sqrt_n, np.zeros(2))
    with pytest.raises(ValueError, match="crowd_steer: owner must be a one-dimensional int64 array"):
        _native().crowd_steer(one, u.F, _TX, xy2, u.radius, u.owner.astype(float), sqrt_n, steer)


# ------------------------------------------------------------------ facings
_angle = st.one_of(st.floats(-4.0, 4.0, allow_nan=False), st.sampled_from([0.0, -0.0, math.pi, -math.pi, _TWO_PI]),
                   st.floats(allow_nan=True, allow_infinity=True))


@needs_native
@settings(max_examples=300, deadline=None)
@given(ang=st.lists(_angle, max_size=10), data=st.data())
def test_set_facing_is_the_masked_remainder(ang: list[float], data: st.DataObject) -> None:
    k = len(ang)
    a = np.array(ang, dtype=float)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=k, max_size=k)), dtype=bool)
    rows = np.array(data.draw(st.permutations(range(k + 2)))[:k], dtype=np.int64)
    facing = _strided(np.linspace(0.0, 1.0, k + 2))
    want = facing.copy()
    with np.errstate(invalid="ignore"):
        want[rows] = np.where(mask, a % _TWO_PI, want[rows])
    _native().set_facing(rows, mask, a, _TWO_PI, facing)
    assert facing.tobytes() == want.tobytes()


@needs_native
def test_set_facing_rejects_bad_input() -> None:
    facing = np.zeros(3)
    with pytest.raises(ValueError, match="set_facing: mask holds 1 items where 2 are needed"):
        _native().set_facing(np.array([0, 1]), np.ones(1, dtype=bool), np.zeros(2), _TWO_PI, facing)
    with pytest.raises(ValueError, match=r"set_facing: rows\[1\] = 3 is not a unit row"):
        _native().set_facing(np.array([0, 3]), np.ones(2, dtype=bool), np.zeros(2), _TWO_PI, facing)
    with pytest.raises(ValueError, match="set_facing: facing must be a one-dimensional writable float64 array"):
        _native().set_facing(np.array([0]), np.ones(1, dtype=bool), np.zeros(1), _TWO_PI, np.zeros(3, np.int64))


# ------------------------------------------------------------------ whole games
def _crowd_digest() -> str:
    """Both armies of DefeatRoaches sent back and forth through each other to one point (a ball
    arriving by crowding, allies steering round one another), unit fields to the last bit."""
    g = joined("DefeatRoaches.SC2Map", seed=4)
    digest = hashlib.sha256()
    for i in range(40):
        u = g.world.u
        own = u.tag[u.owner == 1].tolist()
        if own and i % 10 == 0:
            point = (20.0, 20.0) if i % 20 == 0 else (40.0, 25.0)
            g.action(1, command(D.MOVE_MOVE, own, point))
        g.step(8)
        digest.update(g.observation_bytes(1, sc_pb.RequestObservation()))
        digest.update(g.world.u.F.tobytes())
        if g.ended:
            break
    return digest.hexdigest()


@needs_native
def test_a_crowd_and_a_skirmish_play_the_same_with_and_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = plays_the_same(monkeypatch, (L, CO), _crowd_digest).calls
    for name in ("crowd_steer", "crowd_stops", "set_facing"):
        assert calls.get(name, 0) > 20, (name, calls.get(name))
    # a ladder map with workers mining: the collidable set's economy key
    calls = plays_the_same(monkeypatch, (L, CO), lambda: skirmish_digest(
        [(D.MARINE, 1, 0.0, 8), (D.ZERGLING, 2, -8.0, 10)], steps=20)).calls
    assert calls.get("econ_same", 0) > 100
