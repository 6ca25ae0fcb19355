"""Locomotion's compiled kernels (sc2pool/engine/_kernels_locomotion.c) against their Python twins
in sc2pool/engine/sim/systems/locomotion.py: the same arrays written on every input, the same
errors named on bad input, and the same games either way."""

from __future__ import annotations

import hashlib
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native
from s2clientprotocol import sc2api_pb2 as sc_pb
from test_game_api import command, joined

from sc2pool.engine import data as D
from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems import locomotion as L
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    FLOAT_FIELDS,
    HOLD,
    IDLE,
    MOVE,
    N_KINDS,
    NEUTRAL_OWNER,
    POINT_KINDS,
)

_F_X, _F_OX, _F_TX, _F_WX = (FLOAT_FIELDS.index(f) for f in ("x", "ox", "tx", "wx"))


# coordinates on the grid's lines, halves and in between, a few equal (zero-length segments,
# walkers on top of each other)
_coord = st.one_of(st.integers(0, 8).map(float), st.integers(0, 16).map(lambda k: k / 2),
                   st.floats(0.0, 8.0, allow_nan=False))


@st.composite
def _walkers(draw: st.DrawFn) -> dict[str, Any]:
    """Units, the walkers among them heading somewhere, and pairs of touching units."""
    n = draw(st.integers(1, 24))
    k = draw(st.integers(0, n))
    m = np.array(draw(st.permutations(range(n)))[:k], dtype=np.int64)
    hxy = np.array([draw(st.lists(_coord.map(lambda v: v - 4.0), min_size=k, max_size=k)) for _ in range(2)])
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), _coord, _coord), max_size=60))
    rows2 = np.array([[p[0] for p in pairs], [p[1] for p in pairs]], dtype=np.int64).reshape(2, -1)
    v = np.array([[p[2] - 4.0 for p in pairs], [p[3] - 4.0 for p in pairs]]).reshape(2, -1)
    vec = np.concatenate((v, 0.5 * (v[:1] * v[:1] + v[1:] * v[1:])))  # as Collision.touching has it
    ints = st.lists(st.integers(0, 3), min_size=n, max_size=n)
    # the int columns as rows of a column-major block, as the store's int block can be
    block = np.asfortranarray(np.array([draw(st.lists(st.integers(0, N_KINDS - 1), min_size=n, max_size=n)),
                                        np.array(draw(ints)) // 3,  # (mostly 0: not engaged)
                                        np.array(draw(ints)) % 2 + 1], dtype=np.int64))
    return {
        "m": m, "hxy": hxy, "rows2": rows2, "vec": vec,
        "slide": np.array(draw(st.lists(st.sampled_from([0.0, 1.0, -1.0]), min_size=n, max_size=n))),
        "walking": np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool),
        "kind": block[0], "eng": block[1], "owner": block[2],
        "n_yield": draw(st.integers(0, k + 2)),
    }


def _blocked_both(w: dict[str, Any]) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    got = []
    for run in (L._blocked_ahead, _native().blocked_ahead):
        slide, out = w["slide"].copy(), np.zeros(len(w["m"]), dtype=bool)
        run(w["m"], w["hxy"], w["rows2"], w["vec"], slide, w["walking"], w["kind"], w["eng"], w["owner"], IDLE,
            w["n_yield"], out)
        got.append((out, slide))
    return got[0], got[1]


@needs_native
@settings(max_examples=500, deadline=None)
@given(w=_walkers())
def test_blocked_ahead_blocks_and_slides_as_the_python_twin_does(w: dict[str, Any]) -> None:
    (out_py, slide_py), (out_c, slide_c) = _blocked_both(w)
    assert out_c.tolist() == out_py.tolist()
    assert slide_c.tolist() == slide_py.tolist()


@needs_native
def test_blocked_ahead_agrees_on_many_crowds_with_both_answers() -> None:
    rng = np.random.default_rng(5)
    blocked = slid = 0
    for _ in range(300):
        n, k, p = 40, int(rng.integers(1, 40)), int(rng.integers(0, 200))
        v = rng.integers(-4, 5, (2, p)) / 2.0  # (exactly on 45 degrees and square in front, too)
        w = {"m": rng.permutation(n)[:k].astype(np.int64), "hxy": rng.integers(-4, 5, (2, k)) / 2.0,
             "rows2": rng.integers(0, n, (2, p)), "vec": np.concatenate((v, 0.5 * (v[:1] ** 2 + v[1:] ** 2))),
             "slide": rng.choice([0.0, 0.0, 1.0, -1.0], n), "walking": rng.random(n) < 0.5,
             "kind": rng.integers(0, N_KINDS, n), "eng": (rng.random(n) < 0.2).astype(np.int64),
             "owner": rng.integers(1, 3, n), "n_yield": int(rng.integers(0, k + 1))}
        (out_py, slide_py), (out_c, slide_c) = _blocked_both(w)
        assert out_c.tolist() == out_py.tolist() and slide_c.tolist() == slide_py.tolist()
        blocked += int(out_c.sum())
        slid += int((slide_c != w["slide"]).sum())
    assert blocked > 100 and slid > 50  # both answers, and fresh slides both ways, were tested


@st.composite
def _movers(draw: st.DrawFn) -> dict[str, Any]:
    """Units with positions, segments (some not started, some of no length) and speeds."""
    n = draw(st.integers(1, 16))
    k = draw(st.integers(0, n))
    m = np.array(draw(st.permutations(range(n)))[:k], dtype=np.int64)
    f = np.zeros((len(FLOAT_FIELDS), n))
    for row in (_F_X, _F_X + 1, _F_OX, _F_OX + 1, _F_TX, _F_TX + 1, _F_WX, _F_WX + 1):
        f[row] = draw(st.lists(_coord, min_size=n, max_size=n))
    for j in draw(st.lists(st.integers(0, n - 1), max_size=4)):  # segments of no length
        f[_F_TX:_F_TX + 2, j] = f[_F_OX:_F_OX + 2, j]
    loop = draw(st.integers(0, 40))
    speed = np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.1875]) | st.floats(0.0, 1.0),
                                   min_size=n, max_size=n)))
    if draw(st.booleans()):  # a row of a column-major block, as the store's per-type columns are
        speed = np.asfortranarray(np.stack((speed, speed)))[0]
    return {
        "m": m, "loop": loop, "start": loop - draw(st.integers(0, 2)), "f": f,
        "seg": np.array(draw(st.lists(st.integers(-1, loop), min_size=n, max_size=n)), dtype=np.int64),
        "speed": speed,
        "t_row": draw(st.sampled_from([_F_TX, _F_WX])),
    }


def _points_both(w: dict[str, Any]) -> list[tuple[Any, ...]]:
    got = []
    for run in (L._move_to_points, _native().move_to_points):
        f, k = w["f"].copy(), len(w["m"])
        seg = np.asfortranarray(np.stack((w["seg"], w["seg"])))[0]  # (strided, as the store's can be)
        dd, flags = np.full((3, k), np.nan), np.zeros((2, k), dtype=bool)
        moved = run(w["m"], w["loop"], w["start"], seg, f, _F_X, _F_OX, w["t_row"], w["speed"], dd, flags)
        got.append((moved, f.tobytes(), seg.tolist(), dd.tobytes(), flags.tolist()))
    return got


@needs_native
@settings(max_examples=500, deadline=None)
@given(w=_movers())
def test_move_to_points_places_movers_as_the_python_twin_does(w: dict[str, Any]) -> None:
    py, c = _points_both(w)
    assert c == py  # (floats compared bit for bit)


@needs_native
def test_move_to_points_agrees_on_arrivals_exactly_at_the_end() -> None:
    # segments of 3-4-5 and of length 1 walked at speeds that reach the end on a loop exactly
    n = 6
    f = np.zeros((len(FLOAT_FIELDS), n))
    f[_F_TX] = [3.0, 1.0, 0.0, 2.0, 5.5, 0.5]
    f[_F_TX + 1] = [4.0, 0.0, 0.0, 0.0, 1.0, 0.5]
    w = {"m": np.arange(n, dtype=np.int64), "loop": 10, "start": 9, "f": f, "t_row": _F_TX,
         "seg": np.array([0, 0, 0, 5, -1, 9], dtype=np.int64), "speed": np.array([0.5, 0.1, 0.5, 0.25, 0.5, 0.5])}
    py, c = _points_both(w)
    assert c == py
    flags = c[4]
    assert flags[1][:3] == [True, True, True] and flags[0][2] is False  # arrived; one of no length


@needs_native
def test_the_kernels_name_bad_input() -> None:
    nat = _native()
    m, hxy = np.array([0, 1]), np.zeros((2, 2))
    rows2, vec = np.array([[0, 1], [1, 0]]), np.ones((3, 2))
    slide, walking, ints, out = np.zeros(3), np.ones(3, dtype=bool), np.zeros(3, dtype=np.int64), np.zeros(2, bool)

    def blocked(**kw: Any) -> None:
        a = {"m": m, "hxy": hxy, "rows2": rows2, "vec": vec, "slide": slide, "walking": walking, "kind": ints,
             "eng": ints, "owner": ints, "out": out} | kw
        nat.blocked_ahead(a["m"], a["hxy"], a["rows2"], a["vec"], a["slide"], a["walking"], a["kind"], a["eng"],
                          a["owner"], IDLE, 2, a["out"])

    blocked()
    with pytest.raises(ValueError, match="blocked_ahead: m must be a C-contiguous int64 array"):
        blocked(m=m.astype(np.int32))
    with pytest.raises(ValueError, match="hxy holds 3 items where 4 are needed"):
        blocked(hxy=np.zeros(3))
    with pytest.raises(ValueError, match="rows2 must hold two rows"):
        blocked(rows2=np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match=r"rows2\[1\] = 3 is not a unit row \(there are 3\)"):
        blocked(rows2=np.array([[0, 3], [1, 0]]))
    with pytest.raises(ValueError, match=r"m\[0\] = -1 is not a unit row"):
        blocked(m=np.array([-1, 1]))
    with pytest.raises(ValueError, match="vec holds 3 items where 6"):
        blocked(vec=np.ones(3))
    blocked(walking=np.ones(6, dtype=bool)[::2], kind=np.zeros((3, 2), dtype=np.int64).T[0])  # (strided)
    with pytest.raises(ValueError, match="walking must be a one-dimensional bool array"):
        blocked(walking=np.ones((1, 3), dtype=bool))
    with pytest.raises(ValueError, match="owner holds 2 items where 3"):
        blocked(owner=np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="out must be a C-contiguous writable bool array"):
        ro = np.zeros(2, bool)
        ro.flags.writeable = False
        blocked(out=ro)

    f, seg, speed = np.zeros((len(FLOAT_FIELDS), 3)), np.full(3, -1, dtype=np.int64), np.ones(3)
    dd, flags = np.zeros((3, 2)), np.zeros((2, 2), dtype=bool)
    assert nat.move_to_points(m, 4, 3, seg, f, _F_X, _F_OX, _F_TX, speed, dd, flags) is False
    with pytest.raises(ValueError, match="move_to_points: F holds 5 items, not rows of 3 units"):
        nat.move_to_points(m, 4, 3, seg, np.zeros(5), _F_X, _F_OX, _F_TX, speed, dd, flags)
    with pytest.raises(ValueError, match="x_row, o_row and t_row must be rows of F"):
        nat.move_to_points(m, 4, 3, seg, f, _F_X, _F_OX, len(FLOAT_FIELDS) - 1, speed, dd, flags)
    with pytest.raises(ValueError, match="seg must be a one-dimensional writable int64 array"):
        nat.move_to_points(m, 4, 3, seg.astype(float), f, _F_X, _F_OX, _F_TX, speed, dd, flags)
    with pytest.raises(ValueError, match="speed must be a one-dimensional float64 array"):
        nat.move_to_points(m, 4, 3, seg, f, _F_X, _F_OX, _F_TX, np.ones((1, 3)), dd, flags)
    with pytest.raises(ValueError, match="dd holds 4 items where 6"):
        nat.move_to_points(m, 4, 3, seg, f, _F_X, _F_OX, _F_TX, speed, dd[:2], flags)
    with pytest.raises(ValueError, match="flags must be a C-contiguous writable bool array"):
        nat.move_to_points(m, 4, 3, seg, f, _F_X, _F_OX, _F_TX, speed, dd, flags.astype(np.int8))
    with pytest.raises(ValueError, match=r"m\[1\] = 5 is not a unit row"):
        nat.move_to_points(np.array([0, 5]), 4, 3, seg, f, _F_X, _F_OX, _F_TX, speed, dd, flags)


def _strided(a: np.ndarray) -> np.ndarray:
    """``a`` as a row of a column-major block (strided), as the store's columns can be."""
    return np.asfortranarray(np.stack((a, a)))[0]


def _maybe_strided(draw: st.DrawFn, a: np.ndarray) -> np.ndarray:
    return _strided(a) if draw(st.booleans()) else a


@st.composite
def _units(draw: st.DrawFn) -> dict[str, Any]:
    """Units with orders, targets (some in range), speeds (some immobile), segments and slides."""
    n = draw(st.integers(0, 24))
    ints = lambda lo, hi: np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)), dtype=np.int64)  # noqa: E731
    bools = lambda: np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)  # noqa: E731
    return {
        "kind": _maybe_strided(draw, ints(0, N_KINDS - 1)), "has_t": _maybe_strided(draw, bools()),
        "in_range": bools(),
        "speed": _maybe_strided(draw, np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 0.25, 0.5625]),
                                                             min_size=n, max_size=n)))),
        "seg": ints(-1, 9), "slide": np.array(draw(st.lists(st.sampled_from([0.0, 1.0, -1.0]), min_size=n,
                                                               max_size=n))),
    }


def _walkers_both(w: dict[str, Any]) -> list[tuple[Any, ...]]:
    got = []
    for run in (L._walkers, _native().walkers):
        n = len(w["kind"])
        seg, slide = _strided(w["seg"]), w["slide"].copy()
        masks, rows = np.zeros((4, n), dtype=bool), np.full(n, -7, dtype=np.int64)
        counts = run(w["kind"], POINT_KINDS, w["has_t"], w["in_range"], w["speed"], HOLD, seg, slide, masks, rows)
        n_pg, n_ch = counts
        got.append((tuple(counts), masks.tolist(), rows[:n_pg + n_ch].tolist(), seg.tolist(), slide.tolist()))
    return got


@needs_native
@settings(max_examples=400, deadline=None)
@given(w=_units())
def test_walkers_picks_movers_and_chasers_as_the_python_twin_does(w: dict[str, Any]) -> None:
    py, c = _walkers_both(w)
    assert c == py


@needs_native
def test_walkers_finds_both_kinds_of_walker() -> None:
    kind = np.array([IDLE, MOVE, MOVE, ATTACK_UNIT, HOLD, ATTACK_MOVE, MOVE, ATTACK_UNIT], dtype=np.int64)
    w = {"kind": kind, "has_t": np.array([0, 0, 1, 1, 1, 1, 0, 1], dtype=bool),
         "in_range": np.array([0, 0, 0, 0, 0, 1, 0, 0], dtype=bool),
         "speed": np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.5]), "seg": np.arange(8, dtype=np.int64),
         "slide": np.ones(8)}
    py, c = _walkers_both(w)
    assert c == py
    assert c[0] == (1, 3) and c[2] == [1, 2, 3, 7]  # (a held unit does not chase, an immobile one walks not)
    assert c[3] == [-1, 1, -1, -1, -1, -1, -1, -1] and c[4] == [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]


@st.composite
def _heads(draw: st.DrawFn) -> dict[str, Any]:
    """Movers and chasers among units with positions, waypoints, targets, ranges and radii."""
    n = draw(st.integers(1, 16))
    k = draw(st.integers(0, n))
    rows = np.array(draw(st.permutations(range(n)))[:k], dtype=np.int64)
    f = np.zeros((len(FLOAT_FIELDS), n))
    for row in (_F_X, _F_X + 1, _F_TX, _F_TX + 1, _F_WX, _F_WX + 1):
        f[row] = draw(st.lists(_coord, min_size=n, max_size=n))
    floats = lambda vals: np.array(draw(st.lists(st.sampled_from(vals) | st.floats(0.0, 9.0), min_size=n,  # noqa: E731
                                                 max_size=n)))
    return {
        "rows": rows, "n_pg": draw(st.integers(0, k)), "steer": draw(st.sampled_from([_F_TX, _F_WX])), "f": f,
        "tsafe": _maybe_strided(draw, np.array(draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n)))),
        "kind": _maybe_strided(draw, np.array(draw(st.lists(st.integers(0, N_KINDS - 1), min_size=n, max_size=n)))),
        "wp": (np.array(draw(st.lists(st.integers(-2, 3), min_size=n, max_size=n)), dtype=np.int64)
               if draw(st.booleans()) else None),
        "rng": _maybe_strided(draw, floats([0.1, 0.5, 5.0])), "radius": floats([0.375, 0.5, 0.0]),
        "follow": (np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
                   if draw(st.booleans()) else None),
        "stop_t": draw(st.booleans()),
    }


def _heads_both(w: dict[str, Any]) -> list[tuple[Any, ...]]:
    got = []
    for run in (L._headings, _native().headings):
        n_pg, n_ch = w["n_pg"], len(w["rows"]) - w["n_pg"]
        f = w["f"].copy()
        wp = None if w["wp"] is None else _strided(w["wp"])
        hp, md = np.full((4, n_pg), np.nan), np.full((2, n_ch), np.nan)
        tm, stop_t = np.full(n_ch, -7, dtype=np.int64), np.full(n_ch, np.nan) if w["stop_t"] else None
        run(w["rows"], n_pg, w["steer"], f, f[:2], w["tsafe"], POINT_KINDS, w["kind"], wp, w["rng"], w["radius"],
            w["follow"], hp, md, tm, stop_t)
        got.append((f.tobytes(), None if wp is None else wp.tolist(), hp.tobytes(), md.tobytes(), tm.tolist(),
                    None if stop_t is None else stop_t.tobytes()))
    return got


@needs_native
@settings(max_examples=400, deadline=None)
@given(w=_heads())
def test_headings_head_walkers_as_the_python_twin_does(w: dict[str, Any]) -> None:
    py, c = _heads_both(w)
    assert c == py  # (floats compared bit for bit)


def _hb(hp: np.ndarray, blocked: np.ndarray) -> np.ndarray:
    return np.hypot(hp[0][blocked], hp[1][blocked])


@st.composite
def _steps(draw: st.DrawFn) -> dict[str, Any]:
    """Movers or chasers among units, with headings (some of no length), speeds, slides, some
    blocked; for the chasers targets, ranges, radii, caps and distances (or none)."""
    n = draw(st.integers(1, 16))
    k = draw(st.integers(0, n))
    m = np.array(draw(st.permutations(range(n)))[:k], dtype=np.int64)
    head = lambda size: np.array(draw(st.lists(_coord.map(lambda v: v - 4.0), min_size=size, max_size=size)))  # noqa: E731
    per_unit = lambda vals: np.array(draw(st.lists(st.sampled_from(vals) | st.floats(0.0, 6.0),  # noqa: E731
                                                   min_size=n, max_size=n)))
    md = np.stack((head(k), head(k)))
    return {
        "m": m, "tm": np.array(draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=np.int64),
        "hp": np.concatenate((md, np.stack((head(k), head(k))) + 4.0)), "md": md,
        "dist": np.sqrt(md[0] * md[0] + md[1] * md[1]) if draw(st.booleans()) else None,
        "cap": np.array(draw(st.lists(st.sampled_from([0.0, 1e-10, 0.25]) | st.floats(0.0, 3.0), min_size=k,
                                      max_size=k))) if draw(st.booleans()) else None,
        "rng": _maybe_strided(draw, per_unit([0.1, 5.0])), "radius": _maybe_strided(draw, per_unit([0.375, 0.5])),
        "r_all": draw(st.sampled_from([np.nan, 0.375, 0.0])),
        "follow": (np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
                   if draw(st.booleans()) else None),
        "speed": _maybe_strided(draw, per_unit([0.0, 0.25, 0.5625])),
        "slide": np.array(draw(st.lists(st.sampled_from([0.0, 1.0, -1.0]), min_size=n, max_size=n))),
        "blocked": np.array(draw(st.lists(st.booleans(), min_size=k, max_size=k)), dtype=bool),
        "seg": np.array(draw(st.lists(st.integers(-1, 5), min_size=n, max_size=n)), dtype=np.int64),
        "xy2": np.array([draw(st.lists(_coord, min_size=n, max_size=n)) for _ in range(2)]),
    }


def _sidestep_both(w: dict[str, Any]) -> list[tuple[Any, ...]]:
    got = []
    hb = _hb(w["hp"], w["blocked"])
    for run in (L._sidestep, _native().sidestep):
        xy2, seg = w["xy2"].copy(), _strided(w["seg"])
        run(w["m"], w["blocked"], w["hp"], hb, w["speed"], w["slide"], seg, xy2)
        got.append((xy2.tobytes(), seg.tolist()))
    return got


@needs_native
@settings(max_examples=400, deadline=None)
@given(w=_steps())
def test_sidestep_steps_blocked_movers_as_the_python_twin_does(w: dict[str, Any]) -> None:
    py, c = _sidestep_both(w)
    assert c == py


def _chase_both(w: dict[str, Any]) -> list[tuple[Any, ...]]:
    got = []
    for run in (L._chase_step, _native().chase_step):
        k = len(w["m"])
        xy2, hd, go = w["xy2"].copy(), np.full((2, k), np.nan), np.zeros(k, dtype=bool)
        n_go = run(w["m"], w["tm"], w["md"], w["dist"], w["cap"], w["rng"], w["radius"], w["r_all"], w["follow"],
                   w["speed"], w["slide"], w["blocked"], xy2, hd, go)
        got.append((int(n_go), go.tolist(), hd.tobytes(), xy2.tobytes()))
    return got


@needs_native
@settings(max_examples=500, deadline=None)
@given(w=_steps())
def test_chase_step_steps_chasers_as_the_python_twin_does(w: dict[str, Any]) -> None:
    py, c = _chase_both(w)
    assert c == py  # (floats compared bit for bit)


@needs_native
def test_chase_step_agrees_on_many_chases_stepping_some_and_all() -> None:
    rng = np.random.default_rng(7)
    some = every = blocked_steps = 0
    for _ in range(300):
        n, k = 30, int(rng.integers(1, 8))
        md = rng.integers(-12, 13, (2, k)) / 4.0  # (exactly at the stopping distance, on top of the target too)
        w = {"m": rng.permutation(n)[:k].astype(np.int64), "tm": rng.integers(0, n, k), "md": md,
             "dist": None if rng.random() < 0.5 else np.sqrt(md[0] * md[0] + md[1] * md[1]),
             "cap": None if rng.random() < 0.5 else rng.choice([0.0, 0.125, 2.0], k),
             "rng": rng.choice([0.1, 1.0, 0.51], n), "radius": rng.choice([0.375, 0.5], n),
             "r_all": float(rng.choice([np.nan, 0.5])), "follow": None if rng.random() < 0.5 else rng.random(n) < 0.3,
             "speed": rng.choice([0.25, 0.5625, 1e-10], n), "slide": rng.choice([0.0, 1.0, -1.0], n),
             "blocked": rng.random(k) < 0.3, "xy2": rng.random((2, n)) * 8.0}
        py, c = _chase_both(w)
        assert c == py
        n_go = c[0]
        some += 0 < n_go < k
        every += n_go == k
        blocked_steps += int((np.array(c[1]) & w["blocked"]).sum())
    assert some > 30 and every > 30 and blocked_steps > 30  # both ways of stepping, and side-steps, were tested


@needs_native
def test_the_new_kernels_name_bad_input() -> None:
    nat = _native()
    n = 3
    kind, has, speed = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool), np.ones(n)
    seg, slide, masks, rows = np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros((4, n), dtype=bool), np.zeros(n, dtype=np.int64)

    def walkers(**kw: Any) -> Any:
        a = {"kind": kind, "pk": POINT_KINDS, "seg": seg, "masks": masks, "rows": rows} | kw
        return nat.walkers(a["kind"], a["pk"], has, has, speed, HOLD, a["seg"], slide, a["masks"], a["rows"])

    assert walkers() == (0, 0)
    with pytest.raises(ValueError, match=r"walkers: kind\[1\] = 16 lies outside \[0, 16\)"):
        walkers(kind=np.array([0, N_KINDS, 0]))
    with pytest.raises(ValueError, match="walkers: point_kinds must be a C-contiguous bool array"):
        walkers(pk=POINT_KINDS.astype(np.int64))
    with pytest.raises(ValueError, match="walkers: seg must be a one-dimensional writable int64 array"):
        walkers(seg=np.zeros((1, n), dtype=np.int64))
    with pytest.raises(ValueError, match="walkers: masks holds 9 items where 12 are needed"):
        walkers(masks=np.zeros((3, n), dtype=bool))
    with pytest.raises(ValueError, match="walkers: rows must be a C-contiguous writable int64 array"):
        walkers(rows=np.zeros(2 * n, dtype=np.int64)[::2])

    f, ints = np.zeros((len(FLOAT_FIELDS), n)), np.zeros(n, dtype=np.int64)
    hp, md, tm, stop_t = np.zeros((4, 1)), np.zeros((2, 1)), np.zeros(1, dtype=np.int64), np.zeros(1)

    def heads(**kw: Any) -> None:
        a = {"rows": np.array([0, 1]), "n_pg": 1, "steer": _F_TX, "f": f, "xy2": f[:2], "tsafe": ints, "wp": ints,
             "follow": None, "hp": hp, "md": md, "stop_t": stop_t} | kw
        nat.headings(a["rows"], a["n_pg"], a["steer"], a["f"], a["xy2"], a["tsafe"], POINT_KINDS, ints, a["wp"],
                     speed, speed, a["follow"], a["hp"], a["md"], tm, a["stop_t"])

    heads()
    heads(wp=None, stop_t=None, follow=has)
    with pytest.raises(ValueError, match="headings: n_pg = 3 is not a count of rows"):
        heads(n_pg=3)
    with pytest.raises(ValueError, match="headings: steer = 99 is not a row of F"):
        heads(steer=99)
    with pytest.raises(ValueError, match="headings: xy2 holds 3 items where 6"):
        heads(xy2=np.zeros(3))
    with pytest.raises(ValueError, match=r"headings: tsafe\[1\] = 5 is not a unit row"):
        heads(tsafe=np.array([0, 5, 0]))
    with pytest.raises(ValueError, match=r"headings: rows\[1\] = -1 is not a unit row"):
        heads(rows=np.array([0, -1]))
    with pytest.raises(ValueError, match="headings: wp must be a one-dimensional writable int64 array"):
        heads(wp=np.zeros(n))
    with pytest.raises(ValueError, match="headings: follow holds 2 items where 3"):
        heads(follow=np.zeros(2, dtype=bool))
    with pytest.raises(ValueError, match="headings: hp holds 8 items where 4"):
        heads(hp=np.zeros((4, 2)))
    with pytest.raises(ValueError, match="headings: stop_t holds 2 items where 1"):
        heads(stop_t=np.zeros(2))

    xy2 = np.zeros((2, n))

    def side(**kw: Any) -> None:
        a = {"pg": np.array([0, 2]), "blocked": np.array([True, False]), "hp": np.ones((4, 2)), "hb": np.ones(1),
             "xy2": xy2} | kw
        nat.sidestep(a["pg"], a["blocked"], a["hp"], a["hb"], speed, slide, seg, a["xy2"])

    side()
    with pytest.raises(ValueError, match="sidestep: hb holds 2 items where 1 movers are blocked"):
        side(hb=np.ones(2))
    with pytest.raises(ValueError, match=r"sidestep: pg\[1\] = 3 is not a unit row"):
        side(pg=np.array([0, 3]))
    with pytest.raises(ValueError, match="sidestep: hp holds 4 items where 8"):
        side(hp=np.ones(4))
    with pytest.raises(ValueError, match="sidestep: xy2 must be a C-contiguous writable float64 array"):
        side(xy2=np.zeros((n, 2)).T)

    def chase(**kw: Any) -> Any:
        a = {"m": np.array([0, 1]), "tm": np.array([1, 0]), "md": np.ones((2, 2)), "dist": None, "cap": None,
             "r_all": np.nan, "follow": None, "blocked": np.zeros(2, dtype=bool), "xy2": xy2,
             "hd": np.zeros((2, 2)), "go": np.zeros(2, dtype=bool)} | kw
        return nat.chase_step(a["m"], a["tm"], a["md"], a["dist"], a["cap"], speed, speed, a["r_all"], a["follow"],
                              speed, slide, a["blocked"], a["xy2"], a["hd"], a["go"])

    assert chase() == 0 and chase(r_all=0.0, follow=has, cap=np.ones(2), dist=np.full(2, 5.0)) == 2
    with pytest.raises(ValueError, match=r"chase_step: tm\[0\] = 3 is not a unit row"):
        chase(tm=np.array([3, 0]))
    with pytest.raises(ValueError, match="chase_step: dist holds 3 items where 2"):
        chase(dist=np.ones(3))
    with pytest.raises(ValueError, match="chase_step: cap must be a C-contiguous float64 array"):
        chase(cap=np.ones(2, dtype=np.float32))
    with pytest.raises(ValueError, match="chase_step: blocked holds 3 items where 2"):
        chase(blocked=np.zeros(3, dtype=bool))
    with pytest.raises(ValueError, match="chase_step: go must be a C-contiguous writable bool array"):
        chase(go=np.zeros(2, dtype=np.int8))


class _Counting:
    """Delegates to the compiled kernels and counts the calls and the walkers they blocked, placed,
    side-stepped and stepped after their targets."""

    def __init__(self, native: ModuleType) -> None:
        self.native, self.blocked, self.placed, self.sidestepped, self.chased = native, 0, 0, 0, 0
        self.walkers, self.headings = native.walkers, native.headings

    def __getattr__(self, name: str) -> Any:  # (the kernels not counted here)
        return getattr(self.native, name)

    def blocked_ahead(self, *args: Any) -> None:
        self.native.blocked_ahead(*args)
        self.blocked += int(np.count_nonzero(args[-1]))

    def move_to_points(self, *args: Any) -> bool:
        self.placed += len(args[0])
        return bool(self.native.move_to_points(*args))

    def sidestep(self, *args: Any) -> None:
        self.native.sidestep(*args)
        self.sidestepped += len(args[3])

    def chase_step(self, *args: Any) -> int:
        n_go = int(self.native.chase_step(*args))
        self.chased += n_go
        return n_go


def _battle_digest() -> str:
    """A flat arena's battle: every 4 steps one half of player 1's army attack-moves to the first
    enemy and the other half moves through it to the far side (walkers blocked by fighters, idle
    allies passed through, chasers going round)."""
    g = joined("Battle100v100.SC2Map", seed=1)
    digest = hashlib.sha256()
    for i in range(36):
        u = g.world.u
        if i % 4 == 0:
            own = u.tag[u.owner == 1].tolist()
            foes = np.nonzero((u.owner != 1) & (u.owner != NEUTRAL_OWNER))[0]
            if own and len(foes):
                fx, fy = float(u.x[foes[0]]), float(u.y[foes[0]])
                g.action(1, command(D.ATTACK_ATTACK, own[::2], (fx, fy)))
                g.action(1, command(D.MOVE_MOVE, own[1::2], (2 * fx - float(u.x[0]), fy)))
        g.step(8)
        digest.update(g.observation_bytes(1, sc_pb.RequestObservation()))
    return digest.hexdigest()


def _ladder_digest() -> str:
    """A ladder map: Marines and Zerglings created facing each other in the middle fight, and a
    second group of Marines walks its path through the fight."""
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AbyssalReefLE.SC2Map"), random_seed=3)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=2, difficulty=5)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    (sx, sy) = g.scenario.starts[1]  # type: ignore[attr-defined]
    cx, cy = g.world.map.width / 2, g.world.map.height / 2
    debug = sc_pb.RequestDebug()
    for unit, owner, qty, (x, y) in ((48, 1, 16, (cx - 4, cy)), (105, 2, 16, (cx + 4, cy)), (48, 1, 12, (sx, sy - 6))):
        create = debug.debug.add().create_unit
        create.unit_type, create.owner, create.quantity = unit, owner, qty
        create.pos.x, create.pos.y = x, y
    g.debug(1, debug)
    g.step(8)
    u = g.world.u
    marines = u.tag[(u.owner == 1) & (u.unit_id == 48)].tolist()
    g.action(1, command(D.ATTACK_ATTACK, marines[:16], (cx + 6, cy)))
    g.action(1, command(D.MOVE_MOVE, marines[16:], (cx + 10, cy + 2)))
    digest = hashlib.sha256()
    for _ in range(40):
        g.step(16)
        digest.update(g.observation_bytes(1, sc_pb.RequestObservation()))
    return digest.hexdigest()


@needs_native
@pytest.mark.parametrize("play", [_battle_digest, _ladder_digest])
def test_a_game_plays_the_same_with_and_without_the_kernels(play: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _Counting(_native())
    monkeypatch.setattr(L, "_native", counting)
    with_c = play()
    assert counting.blocked > 20 and counting.placed > 500 and counting.sidestepped > 5 and counting.chased > 500
    monkeypatch.setattr(L, "_native", None)
    assert play() == with_c
