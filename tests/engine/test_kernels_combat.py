"""The compiled kernels of heals, weapons coming ready and burning structures
(``_kernels_combat.c``) against their pure-Python twins (``sim/systems/abilities.py``,
``combat.py``, ``repair.py``): the same answers, bit for bit, on every input, and the same game
either way."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, plays_the_same, skirmish_digest

from sc2pool.engine import data as D
from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems import abilities as A
from sc2pool.engine.sim.systems import combat as C
from sc2pool.engine.sim.systems import construction as K
from sc2pool.engine.sim.systems import repair as R
from sc2pool.engine.sim.units import EXPLODE, TYPES

MEDIVAC = 54


def _gathered(values: np.ndarray) -> np.ndarray:
    """``values`` as the unit store holds a column gathered by type: a row of a block gathered
    column by column (not contiguous)."""
    block = np.stack((values, values, values))
    return block[:, np.arange(len(values))][1]


def _copied(args: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


# ------------------------------------------------------------------ Abilities._heal
# coordinates on cell lines, halves and anywhere: equal distances (ties between hurt units), edges
# exactly at the heal range
_coord = st.one_of(st.integers(0, 8).map(float), st.integers(0, 16).map(lambda k: k / 2),
                   st.floats(0.0, 8.0, allow_nan=False))
_life = st.one_of(st.sampled_from([0.0, -1.0, 1.0, 40.0, 45.0, 55.0, math.nan]), st.floats(-5.0, 60.0))


@st.composite
def _heal_world(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 20))
    floats = st.lists(_coord, min_size=n, max_size=n)
    rows = np.array(draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)), dtype=np.int64)
    medivacs = np.array(draw(st.lists(st.integers(0, n - 1), max_size=5, unique=True)), dtype=np.int64)
    m = len(medivacs)
    return {
        "hp": _gathered(np.array(draw(st.lists(_life, min_size=n, max_size=n)))), "rows": rows,
        "tops": np.array(draw(st.lists(st.sampled_from([45.0, 55.0, 40.0]), min_size=len(rows),
                                       max_size=len(rows)))),
        "x": _gathered(np.array(draw(floats))), "y": _gathered(np.array(draw(floats))),
        "radius": _gathered(np.array(draw(st.lists(st.sampled_from([0.375, 0.5, 0.75]), min_size=n, max_size=n)))),
        "owner": _gathered(np.array(draw(st.lists(st.integers(1, 2), min_size=n, max_size=n)), dtype=np.int64)),
        "medivacs": medivacs,
        "energies": draw(st.lists(st.one_of(st.sampled_from([0.0, -0.5, 0.1, 50.0, 200.0]), st.floats(0.0, 200.0)),
                                  min_size=m, max_size=m)),
        "most": A.HEAL_PER_LOOP * draw(st.integers(1, 8)),
    }


def _heals_both(world: dict[str, Any]) -> list[tuple[list[tuple[int, float]], bytes]]:
    out = []
    for run in (A._heals, A._heals_native):
        args = _copied(world)
        done = run(**args)
        out.append((done, args["hp"].tobytes()))
    return out


@needs_native
@settings(max_examples=500, deadline=None)
@given(world=_heal_world())
def test_heals_are_the_python_heals(world: dict[str, Any]) -> None:
    """Hurt or not, dead, NaN life; several Medivacs on one unit (each sees the life the one
    before left); another player's units; no energy; units beyond the range."""
    py, c = _heals_both(world)
    assert py == c


@needs_native
def test_heals_pick_the_nearest_of_the_owner_and_name_bad_input() -> None:
    # Medivac 0 (player 1) at 0: a full Marine at 1, hurt ones at 2 (player 2's), 3 and 3 (its
    # player's: it heals the first of the two); Medivac 5 (player 2) at 30, beyond the range of
    # its player's Marine at 2
    hp = np.array([150.0, 45.0, 30.0, 20.0, 20.0, 150.0])
    args: dict[str, Any] = {
        "hp": hp, "rows": np.array([1, 2, 3, 4], np.int64), "tops": np.full(4, 45.0),
        "x": np.array([0.0, 1.0, 2.0, 3.0, 3.0, 30.0]), "y": np.zeros(6), "radius": np.full(6, 0.5),
        "owner": np.array([1, 1, 2, 1, 1, 2], np.int64), "medivacs": np.array([0, 5], np.int64),
        "energies": [50.0, 50.0], "most": 10.0}
    py, c = _heals_both(args)
    assert py == c
    assert c[0] == [(0, 50.0 - 10.0 / A.HEAL_PER_ENERGY)]  # (Medivac 5's Marine is 27 - 1 away)
    assert np.frombuffer(c[1])[3] == 30.0 and np.frombuffer(c[1])[4] == 20.0
    k = _native()
    rows, tops, x, med = args["rows"], args["tops"], args["x"], args["medivacs"]
    idx, dxy = np.empty(8, np.int64), np.empty(16)
    with pytest.raises(ValueError, match=r"heal_hurt: rows\[1\] = 9 lies outside \[0, 6\)"):
        k.heal_hurt(hp, np.array([1, 9, 3, 4]), tops, x, x, med, idx, dxy)
    with pytest.raises(ValueError, match="heal_hurt: tops holds 3 items where 4 are needed"):
        k.heal_hurt(hp, rows, tops[:3], x, x, med, idx, dxy)
    with pytest.raises(ValueError, match="heal_hurt: dxy holds 15 items where at least 16 are needed"):
        k.heal_hurt(hp, rows, tops, x, x, med, idx, dxy[:15])
    with pytest.raises(ValueError, match="heal_hurt: idx must be a C-contiguous writable int64 array"):
        k.heal_hurt(hp, rows, tops, x, x, med, np.empty(16, np.int64)[::2], dxy)
    with pytest.raises(ValueError, match="heal_hurt: x must be a one-dimensional float64 array"):
        k.heal_hurt(hp, rows, tops, x.astype(np.float32), x, med, idx, dxy)
    c_hurt = k.heal_hurt(hp, rows, tops, x, x, med, idx, dxy)
    assert c_hurt == 3 and idx[:6].tolist() == [2, 3, 4, 1, 2, 3]
    dist = np.hypot(dxy[:6], dxy[6:12])
    good = (dist, idx, 3, tops, args["radius"], args["owner"], med, [50.0, 50.0], 10.0, 3.0, 4.0, hp.copy())
    with pytest.raises(ValueError, match="heal_apply: c must be at least 1"):
        k.heal_apply(*good[:2], 0, *good[3:])
    with pytest.raises(ValueError, match="heal_apply: dist holds 5 items where 6 are needed"):
        k.heal_apply(dist[:5], *good[1:])
    with pytest.raises(ValueError, match=r"heal_apply: idx\[1\] or idx\[4\] is no hurt unit's row or index"):
        k.heal_apply(dist, np.array([2, 7, 4, 1, 2, 3]), *good[2:])
    with pytest.raises(ValueError, match="heal_apply: energies must be a sequence of floats"):
        k.heal_apply(*good[:7], 5.0, *good[8:])
    with pytest.raises(ValueError, match=r"heal_apply: energies\[1\] is no float"):
        k.heal_apply(*good[:7], [50.0, "x"], *good[8:])
    with pytest.raises(ValueError, match="heal_apply: medivacs holds 2 items where 1 are needed"):
        k.heal_apply(*good[:7], [50.0], *good[8:])
    with pytest.raises(ValueError, match="heal_apply: hp must be a one-dimensional writable float64 array"):
        ro = hp.copy()
        ro.flags.writeable = False
        k.heal_apply(*good[:11], ro)


# ------------------------------------------------------------------ Combat.fire's cooldowns
@st.composite
def _weapons(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(0, 24))
    bools = st.lists(st.booleans(), min_size=n, max_size=n).map(lambda v: np.array(v, dtype=bool))
    cds = st.one_of(st.sampled_from([0.0, 0.25, 1.0, 1.5, 2.0, 20.0, math.nan]), st.floats(0.0, 30.0))
    return {"cd": np.array(draw(st.lists(cds, min_size=n, max_size=n))), "in_range": draw(bools),
            "kind": _gathered(np.array(draw(st.lists(st.sampled_from([0, 3, EXPLODE]), min_size=n, max_size=n)),
                                       dtype=np.int64)),
            "suicide": draw(st.one_of(st.none(), bools.map(_gathered)))}


def _ready_both(weapons: dict[str, Any]) -> list[list[bytes]]:
    out = []
    for run in (C._ready, C._ready_native):
        args = _copied(weapons)
        got = run(**args)
        out.append([a.tobytes() for a in got] + [args["cd"].tobytes()])
    return out


@needs_native
@settings(max_examples=500, deadline=None)
@given(weapons=_weapons())
def test_ready_is_the_python_countdown(weapons: dict[str, Any]) -> None:
    """Cooling, ready and becoming ready part-way through the loop; in range or not; ordered to
    explode; suicide attackers firing, with and without one blasting."""
    py, c = _ready_both(weapons)
    assert py == c


@needs_native
def test_ready_lets_suicide_attackers_blast_and_names_bad_input() -> None:
    weapons: dict[str, Any] = {"cd": np.array([0.5, 3.0, 0.0, 1.0]), "in_range": np.array([True, True, True, False]),
                               "kind": np.array([0, 0, 0, EXPLODE], np.int64),
                               "suicide": np.array([True, False, False, False])}
    py, c = _ready_both(weapons)
    assert py == c
    fire, explode, blast, cooling, cdn = C._ready_native(**_copied(weapons))
    assert fire.tolist() == [False, False, True, False] and blast.tolist() == [True, False, False, True]
    assert explode.tolist() == [False, False, False, True] and cooling.tolist() == [True, True, False, True]
    assert cdn.tolist() == [-0.5, 2.0, -1.0, 0.0]
    k = _native()
    cd, yes, kind = weapons["cd"], weapons["in_range"], weapons["kind"]
    masks, cdn = np.empty((4, 4), dtype=bool), np.empty(4)
    with pytest.raises(ValueError, match="fire_ready: in_range holds 3 items where 4 are needed"):
        k.fire_ready(cd, yes[:3], kind, EXPLODE, None, masks, cdn)
    with pytest.raises(ValueError, match="fire_ready: kind must be a one-dimensional int64 array"):
        k.fire_ready(cd, yes, kind.astype(np.int32), EXPLODE, None, masks, cdn)
    with pytest.raises(ValueError, match="fire_ready: suicide must be a one-dimensional bool array"):
        k.fire_ready(cd, yes, kind, EXPLODE, kind, masks, cdn)
    with pytest.raises(ValueError, match="fire_ready: masks holds 12 items where 16 are needed"):
        k.fire_ready(cd, yes, kind, EXPLODE, None, np.empty((3, 4), dtype=bool), cdn)
    with pytest.raises(ValueError, match="fire_ready: masks must be 4 x 4"):
        k.fire_ready(cd, yes, kind, EXPLODE, None, np.empty(16, dtype=bool), cdn)
    with pytest.raises(ValueError, match="fire_ready: masks must be a C-contiguous writable bool array"):
        k.fire_ready(cd, yes, kind, EXPLODE, None, np.empty((4, 8), dtype=bool)[:, ::2], cdn)
    with pytest.raises(ValueError, match="fire_ready: cd must be a one-dimensional writable float64 array"):
        ro = cd.copy()
        ro.flags.writeable = False
        k.fire_ready(ro, yes, kind, EXPLODE, None, masks, cdn)


# ------------------------------------------------------------------ Repair._burn_rows
@needs_native
@settings(max_examples=300, deadline=None)
@given(lives=st.lists(st.one_of(st.sampled_from([0.0, -2.0, 100.0, 133.0, math.nan]), st.floats(-10.0, 400.0)),
                      min_size=1, max_size=20), data=st.data())
def test_burning_is_the_python_test(lives: list[float], data: st.DataObject) -> None:
    n = len(lives)
    rows = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)), dtype=np.int64)
    below = np.array(data.draw(st.lists(st.sampled_from([100.0, 133.0, 500.0 / 3]), min_size=len(rows),
                                        max_size=len(rows))))
    hp = _gathered(np.array(lives))
    assert R._burning(hp, rows, below) == _native().burn_low(hp, rows, below)


@needs_native
def test_burning_names_bad_input() -> None:
    k = _native()
    hp, rows, below = np.array([10.0, 0.0, 50.0]), np.array([0, 1, 2]), np.full(3, 40.0)
    assert k.burn_low(hp, rows, below) == [0]
    with pytest.raises(ValueError, match=r"burn_low: rows\[0\] = -1 lies outside \[0, 3\)"):
        k.burn_low(hp, np.array([-1, 1, 2]), below)
    with pytest.raises(ValueError, match="burn_low: below holds 2 items where 3 are needed"):
        k.burn_low(hp, rows, below[:2])
    with pytest.raises(ValueError, match="burn_low: hp must be a one-dimensional float64 array"):
        k.burn_low(hp.astype(np.float32), rows, below)


# ------------------------------------------------------------------ Construction.life
_SUPPLY_DEPOT = TYPES.row(D.SUPPLYDEPOT)
_BARRACKS = TYPES.row(21)


@st.composite
def _sites(draw: st.DrawFn) -> dict[str, Any]:
    """Structures under construction, paused, finished (``done`` an int or a float), some without
    a unit; their units alive or at 0, hurt since their life was last set or not."""
    n = draw(st.integers(1, 10))
    lives = st.one_of(st.sampled_from([0.0, -3.0, 40.0, 400.0, math.nan]), st.floats(-10.0, 1000.0))
    hp = _gathered(np.array(draw(st.lists(lives, min_size=n, max_size=n))))
    ti = _gathered(np.array(draw(st.lists(st.sampled_from([_SUPPLY_DEPOT, _BARRACKS]), min_size=n, max_size=n)),
                            dtype=np.int64))
    tags = list(range(100, 100 + n))
    structures = {}
    for tag in draw(st.lists(st.sampled_from([*tags, 999]), max_size=8, unique=True)):
        loops = draw(st.sampled_from([0.0, 1.0, 336.0, 480.0]))
        done = draw(st.one_of(st.sampled_from([0, 10, 480]), st.floats(0.0, 500.0)))
        s = K.Structure(tag, D.SUPPLYDEPOT, 1, 0.0, 0.0, loops, done, since=draw(st.integers(-1, 300)))
        s.life_set = draw(st.one_of(st.just(-1.0), lives))
        s.life_lost = draw(st.one_of(st.sampled_from([0.0, 0, 5.0, -2.5]), st.floats(-50.0, 50.0)))
        structures[tag] = s
    return {"structures": structures, "rows": dict(zip(tags, range(n), strict=True)), "hp": hp, "ti": ti,
            "now": draw(st.integers(300, 900))}


def _grow_both(sites: dict[str, Any]) -> list[tuple[list[tuple[Any, ...]], bytes]]:
    out = []
    for native in (False, True):
        args = _copied(sites)
        args["structures"] = {t: K.Structure(**vars(s)) for t, s in sites["structures"].items()}
        if native:
            _native().grow_life(args["structures"], args["rows"], args["hp"], args["ti"], TYPES.hp_max, args["now"],
                                K.CONSTRUCTION_START_LIFE)
        else:
            K._grow(**args)
        out.append(([(repr(s.life_set), repr(s.life_lost)) for s in args["structures"].values()],
                    args["hp"].tobytes()))
    return out


@needs_native
@settings(max_examples=500, deadline=None)
@given(sites=_sites())
def test_grow_life_is_the_python_growth(sites: dict[str, Any]) -> None:
    py, c = _grow_both(sites)
    assert py == c


@needs_native
def test_grow_life_grows_what_is_left_and_names_bad_input() -> None:
    hp = np.array([100.0, 50.0])
    s = K.Structure(100, D.SUPPLYDEPOT, 1, 0.0, 0.0, 480.0, 240.0, since=0)
    s.life_set, s.life_lost = 60.0, 0.0
    sites: dict[str, Any] = {"structures": {100: s}, "rows": {100: 1}, "hp": hp, "ti": np.full(2, _SUPPLY_DEPOT),
                             "now": 0}
    py, c = _grow_both(sites)
    assert py == c
    top = float(TYPES.hp_max[_SUPPLY_DEPOT])
    assert np.frombuffer(c[1])[1] == top * (0.1 + 0.9 * 0.5) - 10.0 and c[0] == [(repr(top * 0.55 - 10.0), "10.0")]
    k = _native()
    with pytest.raises(TypeError):
        k.grow_life([s], {100: 1}, hp, sites["ti"], TYPES.hp_max, 0, 0.1)
    with pytest.raises(ValueError, match="grow_life: rows gives a structure the row 5 of 2 units"):
        k.grow_life({100: s}, {100: 5}, hp, sites["ti"], TYPES.hp_max, 0, 0.1)
    with pytest.raises(ValueError, match="grow_life: ti holds 1 items where 2 are needed"):
        k.grow_life({100: s}, {100: 1}, hp, sites["ti"][:1], TYPES.hp_max, 0, 0.1)
    with pytest.raises(ValueError, match=r"grow_life: ti\[1\] = -1 is no type row"):
        k.grow_life({100: s}, {100: 1}, hp, np.array([0, -1]), TYPES.hp_max, 0, 0.1)
    bad = K.Structure(100, D.SUPPLYDEPOT, 1, 0.0, 0.0, 480.0, "x", since=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="grow_life: a structure's done must be an int or a float"):
        k.grow_life({100: bad}, {100: 1}, hp, sites["ti"], TYPES.hp_max, 0, 0.1)
    bad = K.Structure(100, D.SUPPLYDEPOT, 1, 0.0, 0.0, 480.0, 240.0, since=0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="grow_life: a structure's since must be an int"):
        k.grow_life({100: bad}, {100: 1}, hp, sites["ti"], TYPES.hp_max, 0, 0.1)


# ------------------------------------------------------------------ a whole game
def _burning_command_center(g: Game) -> None:
    u = g.world.u  # type: ignore[attr-defined]
    cc = int(np.flatnonzero((u.owner == 1) & TYPES.structure[u.ti])[0])
    u.hp[cc] = float(TYPES.hp_max[u.ti[cc]]) / 4


def _game_digest() -> str:
    """Marines, Medivacs healing them, Zerglings and Banelings fighting by player 1's start, whose
    Command Center burns below a third of its life; the Computer builds."""
    return skirmish_digest(((D.MARINE, 1, 4.0, 8), (MEDIVAC, 1, 3.0, 2), (D.ZERGLING, 2, -8.0, 10),
                            (D.BANELING, 2, -9.0, 3), (D.MARINE, 2, -12.0, 6), (MEDIVAC, 2, -12.0, 1)),
                           _burning_command_center)


@needs_native
def test_a_game_plays_the_same_with_and_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = plays_the_same(monkeypatch, (A, C, K, R), _game_digest).calls
    assert calls.get("fire_ready", 0) > 50 and calls.get("burn_low", 0) > 150
    assert calls.get("heal_hurt", 0) > 10 and calls.get("heal_apply", 0) > 10
    assert calls.get("grow_life", 0) > 50
