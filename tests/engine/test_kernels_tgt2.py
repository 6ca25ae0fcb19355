"""The compiled kernels of target resolution in one pass (``_kernels_tgt2.c``) against their
pure-Python twins (``sim/systems/targeting.py``): ``target_rows`` (the rows of
``Targeting._rows_of``, with its cache) and ``resolve_pass`` (``_aim``, ``acquire``, ``_engage``,
the vision candidates of ``_unseen`` and who is in range), bit for bit, on random worlds."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.systems import targeting as T
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    FOLLOW,
    HOLD,
    IDLE,
    MOVE,
    NEUTRAL_OWNER,
    PATROL,
    TYPES,
)
from sc2pool.engine.sim.world import World

MEDIVAC = 54
SIEGED_TANK = 32
"""A weapon with a minimum range: the rule after the pass runs (and who is in range is found again)."""
"""A flying unit that cannot attack: Zerglings cannot hit it, Marines can."""
_TYPES = [D.MARINE, D.MARAUDER, D.ZERGLING, D.ROACH, D.LARVA, MEDIVAC, D.SCV, SIEGED_TANK]
_KINDS = [IDLE, MOVE, FOLLOW, ATTACK_UNIT, ATTACK_MOVE, HOLD, PATROL]


@st.composite
def _world(draw: st.DrawFn) -> tuple[World, int, int | None]:
    """A world of a few types and owners (points on whole cells: equal distances, ties), each unit
    with a random order, target tag (alive, dead or none), engaged tag and scan loop; a loop
    (every RESCAN loops one rescans); a unit whose can-attack flag flips in place (as Pulsar Beam
    flips it), or None."""
    w = World(MapSpec("Test", 64, 64, (0, 0, 64, 64)))
    for t in draw(st.lists(st.sampled_from(_TYPES), min_size=1, max_size=4, unique=True)):
        for owner in draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=2, unique=True)):
            k = draw(st.integers(1, 12))
            pts = draw(st.lists(st.tuples(st.integers(2, 60), st.integers(2, 60)), min_size=k, max_size=k))
            w.spawn(t, owner, [float(p[0]) for p in pts], [float(p[1]) for p in pts])
    if draw(st.booleans()):
        w.spawn(D.BEACON_TERRAN, NEUTRAL_OWNER, [32.0], [32.0])
    u = w.u
    n = len(u)
    tags = u.tag.tolist() + [0, 0, 12345]  # (none, and a tag nobody has)
    u.kind[:] = draw(st.lists(st.sampled_from(_KINDS), min_size=n, max_size=n))
    u.ttag[:] = draw(st.lists(st.sampled_from(tags), min_size=n, max_size=n))
    u.eng[:] = draw(st.lists(st.sampled_from(tags), min_size=n, max_size=n))
    u.scan[:] = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    return w, draw(st.integers(1, 40)), draw(st.one_of(st.none(), st.integers(0, n - 1)))


def _resolved(w: World, loop: int) -> list[Any]:
    out = w.targeting.resolve(loop)
    u = w.u
    return [a.tobytes() if isinstance(a, np.ndarray) else a for a in out] + [
        u.eng.tobytes(), u.scan.tobytes(), u.kind.tobytes(), u.ttag.tobytes()]


@needs_native
@settings(max_examples=300, deadline=None)
@given(world_loop=_world())
def test_resolve_finds_the_targets_the_python_pass_finds(world_loop: tuple[World, int, int | None]) -> None:
    """Orders kept, lost (done), followed; targets kept, dropped and acquired (by one radius and
    several, hittable or not), scans waiting; twice, so that the second call reads the cache of
    the first."""
    w, loop, flip = world_loop
    twin = copy.deepcopy(w)  # (a copy rebuilds the derived columns: flip them after it)
    if flip is not None:
        for world in (w, twin):
            world.u.can_attack[flip] ^= True
    for step in (0, 1):
        c = _resolved(w, loop + step)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(T, "_native", None)
            py = _resolved(twin, loop + step)
        assert c == py


@needs_native
def test_target_rows_cache_follows_the_unit_set() -> None:
    """Rows of the targets as a fresh lookup finds them, loop after loop, while targets change and
    units die and are born (the rows of the others shift: the cache must not keep them)."""
    w = World(MapSpec("Test", 64, 64, (0, 0, 64, 64)))
    w.spawn(D.MARINE, 1, [10.0, 11.0, 12.0, 13.0], [10.0] * 4)
    w.spawn(D.ZERGLING, 2, [20.0, 21.0, 22.0], [10.0] * 3)
    u = w.u
    rng = np.random.default_rng(5)
    for step in range(40):
        if step % 7 == 3:  # (the first unit dies: every other row moves up by one)
            u.keep(np.arange(len(u)) != 0)
        if step % 11 == 5 or step % 7 == 3:  # (with the death: as many units as before)
            w.spawn(D.ZERGLING, 2, [30.0], [12.0])
        tags = np.concatenate((u.tag, [0, 999]))
        u.eng[:] = rng.choice(tags, len(u))
        if step % 7 in (2, 3):  # (every unit engaged with the last unit before the death, then after it)
            u.eng[:] = u.tag[-1] if step % 7 == 2 else u.tag[-2]
        u.ttag[:] = rng.choice(tags, len(u))
        explicit = rng.random(len(u)) < 0.5 if step % 2 else None
        cur = np.empty(len(u), np.int64)
        lost = w.targeting._target_rows(explicit, cur)
        want = u.rows(np.where(explicit, u.ttag, u.eng) if explicit is not None else u.eng)
        assert cur.tolist() == want.tolist()
        assert lost == int(np.count_nonzero(explicit & (want < 0))) if explicit is not None else lost == 0


def _pass_args(seed: int, n: int, vision: bool) -> dict[str, Any]:
    """Arguments of resolve_pass for ``n`` random units on a 20 x 17 grid of cliff levels."""
    g = np.random.default_rng(seed)
    level = g.integers(0, 3, (17, 20)).astype(np.int8)
    types = np.array([TYPES.row(t) for t in _TYPES])
    return {
        "xy": np.concatenate((g.integers(-2, 22, n) + g.choice([0.0, 0.5, 0.25], n),
                              g.integers(-2, 19, n) + g.choice([0.0, 0.5], n))),
        "cur": g.integers(-1, n, n), "radius": g.choice([0.375, 0.5, 1.0], n), "r_all": math.nan,
        "rng": g.choice([0.1, 1.0, 5.0, 7.0], n), "can_attack": g.random(n) < 0.8, "auto_kind": g.random(n) < 0.7,
        "explicit": g.random(n) < 0.2, "unheld": None, "follow": g.random(n) < 0.1,
        "eng": g.integers(0, 3, n), "scan": g.integers(0, 20, n), "loop": 10, "ti": g.choice(types, n),
        "owner": g.integers(1, 3, n), "kind": g.choice(_KINDS, n), "hold": HOLD, "sight": g.choice([0.0, 3.0, 9.0], n),
        "cols": np.arange(n), "common": math.nan, "can_hit": TYPES.can_hit, "speed": g.choice([0.0, 2.25], n),
        "max_speed": 2.25, "tag": np.arange(100, 100 + n), "level": level if vision else None, "w": 20, "h": 17,
        "ground": g.random(n) < 0.7 if vision else None, "dde": np.empty((3, n)), "ts": np.empty((2, n), np.int64),
        "flags": np.empty((2, n), dtype=bool)}


@needs_native
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 24))
def test_resolve_pass_finds_the_candidates_unseen_candidates_finds(seed: int, n: int) -> None:
    """Off the grid (clipped cells), uphill, downhill, beyond sight: the candidates of the pass's
    final targets, as _unseen_candidates finds them."""
    a = _pass_args(seed, n, True)
    k = _native().resolve_pass(*a.values())
    tgt = a["ts"][0]
    dx, dy = a["dde"][:2]
    xy2 = a["xy"].reshape(2, -1)
    want = T._unseen_candidates(xy2, tgt, dx, dy, a["sight"], a["ground"], a["level"], np.array(((19,), (16,))))
    assert a["ts"][1][:k].tolist() == want.tolist()
    has_t = tgt >= 0
    assert a["flags"][0].tolist() == has_t.tolist()
    assert a["flags"][1].tolist() == ((a["dde"][2] <= a["rng"]) & (has_t > a["follow"])).tolist()


@needs_native
def test_resolve_pass_and_target_rows_name_bad_input() -> None:
    f = _native().resolve_pass
    a = _pass_args(1, 4, True)

    def call(**change: Any) -> int:
        return int(f(*{**a, **change}.values()))
    call()
    with pytest.raises(ValueError, match=r"cur\[1\] = 5 is no row of 4 units"):
        call(cur=np.array([0, 5, 1, -1]))
    with pytest.raises(ValueError, match="xy holds 6 items where 8 are needed"):
        call(xy=np.zeros(6))
    with pytest.raises(ValueError, match="rng must be a one-dimensional float64 array"):
        call(rng=a["rng"].astype(np.float32))
    with pytest.raises(ValueError, match="unheld holds 2 items where 4 are needed"):
        call(unheld=np.ones(2, dtype=bool))
    with pytest.raises(ValueError, match="eng must be a one-dimensional writable int64 array"):
        ro = a["eng"].copy()
        ro.flags.writeable = False
        call(eng=ro)
    with pytest.raises(ValueError, match="can_hit must be a square table"):
        call(can_hit=TYPES.can_hit[:5])
    with pytest.raises(ValueError, match=r"cols\[0\] is no row of a unit of a known type"):
        call(cols=np.array([4]))
    with pytest.raises(ValueError, match="level holds 340 items where 360 are needed"):
        call(h=18)
    with pytest.raises(ValueError, match="positive"):
        call(w=0)
    with pytest.raises(ValueError, match="dde holds 8 items where 12 are needed"):
        call(dde=np.empty((2, 4)))
    with pytest.raises(ValueError, match="flags must be a C-contiguous writable bool array"):
        call(flags=np.empty((2, 4), np.int8))
    def looking(**change: Any) -> int:  # (everyone looks: no target, a scan loop come)
        return call(cur=np.full(4, -1), can_attack=np.ones(4, dtype=bool), auto_kind=np.ones(4, dtype=bool),
                    explicit=None, scan=np.zeros(4, np.int64), kind=np.full(4, IDLE), **change)
    looking()
    with pytest.raises(ValueError, match="acquisition gap of unit 0 is NaN"):
        looking(sight=np.full(4, math.nan))
    with pytest.raises(ValueError, match="unit 0 is of no known type"):
        looking(ti=np.array([-1, 0, 0, 0]), cols=np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="position of unit 1 is not finite"):
        call(xy=np.array([0.5, math.nan, 1.5, 0.5, 0.5, 0.5, 3.5, 3.9]), cur=np.array([1, -1, -1, -1]),
             explicit=np.array([True, False, False, False]), can_attack=np.zeros(4, dtype=bool),
             sight=np.full(4, 9.0), ground=np.ones(4, dtype=bool))
    rows = _native().target_rows
    i4 = np.zeros(4, np.int64)
    tag = np.array([5, 6, 7, 8])
    cur = np.empty(4, np.int64)
    assert rows(np.array([True, False, True, True]), np.array([6, 0, 9, 5]), i4, tag, np.empty((2, 4), np.int64),
                True, cur) == 1
    assert cur.tolist() == [1, -1, -1, 0]
    with pytest.raises(ValueError, match="prev holds 4 items where 8 are needed"):
        rows(None, i4, i4, tag, np.empty(4, np.int64), True, cur)
    with pytest.raises(ValueError, match="explicit holds 3 items where 4 are needed"):
        rows(np.ones(3, dtype=bool), i4, i4, tag, np.empty((2, 4), np.int64), True, cur)
    with pytest.raises(ValueError, match="cur must be a C-contiguous writable int64 array"):
        rows(None, i4, i4, tag, np.empty((2, 4), np.int64), True, np.empty(8, np.int64)[::2])
