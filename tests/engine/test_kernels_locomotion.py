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
from s2clientprotocol import sc2api_pb2 as sc_pb
from test_game_api import command, joined

from sc2pool.engine import data as D
from sc2pool.engine import kernels
from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems import locomotion as L
from sc2pool.engine.sim.units import FLOAT_FIELDS, IDLE, N_KINDS, NEUTRAL_OWNER

needs_native = pytest.mark.skipif(kernels.native is None, reason="the compiled kernels were not built here")

_F_X, _F_OX, _F_TX, _F_WX = (FLOAT_FIELDS.index(f) for f in ("x", "ox", "tx", "wx"))


def _native() -> ModuleType:
    assert kernels.native is not None
    return kernels.native


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


class _Counting:
    """Delegates to the compiled kernels and counts the calls and the walkers they blocked."""

    def __init__(self, native: ModuleType) -> None:
        self.native, self.blocked, self.placed = native, 0, 0

    def blocked_ahead(self, *args: Any) -> None:
        self.native.blocked_ahead(*args)
        self.blocked += int(np.count_nonzero(args[-1]))

    def move_to_points(self, *args: Any) -> bool:
        self.placed += len(args[0])
        return bool(self.native.move_to_points(*args))


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
    assert counting.blocked > 20 and counting.placed > 500
    monkeypatch.setattr(L, "_native", None)
    assert play() == with_c
