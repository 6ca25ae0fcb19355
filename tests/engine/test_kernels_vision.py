"""The compiled vision kernel (sc2pool/engine/_kernels_vision.c) against its pure-Python twin,
:meth:`Vision.seen_now`'s difference array: the same cells on every input, and the same game
either way."""

from __future__ import annotations

import hashlib
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, plays_the_same
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems import vision as V
from sc2pool.engine.sim.systems.abilities import SCAN_RADIUS
from sc2pool.engine.sim.units import TYPES

FLYING_TI = int(np.nonzero(TYPES.is_flying)[0][0])
GROUND_TI = int(np.nonzero(~TYPES.is_flying)[0][0])


def _world(xs: list[float], ys: list[float], sights: list[float], flying: list[bool], owners: list[int],
           level: np.ndarray | None, w: int, h: int, scans: list[tuple[float, float]]) -> Any:
    """The little of a World that :class:`Vision` reads: units, the map (cliff levels or a flat
    arena), the loop, and the scans (an economy game's)."""
    n = len(xs)
    u = SimpleNamespace(xy=np.array([xs, ys], dtype=np.float64).reshape(-1), owner=np.array(owners, dtype=np.int64),
                        sight=np.array(sights, dtype=np.float64), version=1,
                        ti=np.where(np.array(flying, dtype=bool), FLYING_TI, GROUND_TI).astype(np.int64).reshape(n))
    ladder = SimpleNamespace(level=level)
    m = SimpleNamespace(width=w, height=h, has_terrain=level is not None, ladder=ladder, name="test")
    spots = [SimpleNamespace(x=x, y=y) for x, y in scans]
    abilities = SimpleNamespace(scan_discs=lambda player: spots if player == 1 else [])
    return SimpleNamespace(u=u, map=m, loop=0, has_economy=bool(scans), abilities=abilities)


def _seen_both(world: Any, player: int) -> tuple[np.ndarray, np.ndarray]:
    """(the Python twin's grid, the kernel's) of what the player sees."""
    out = []
    for run in (None, _native()):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(V, "_native", run)
            out.append(V.Vision(world).seen_now(player))
    return out[0], out[1]


def _rule(world: Any, player: int) -> np.ndarray:
    """The module's rule cell by cell (as tests/engine/test_vision.py writes it out)."""
    u, m = world.u, world.map
    level = m.ladder.level if m.has_terrain else None
    xy = u.xy.reshape(2, -1)
    eyes = [(float(xy[0, i]), float(xy[1, i]), float(u.sight[i]), bool(TYPES.is_flying[u.ti[i]]))
            for i in np.nonzero((u.owner == player) & (u.sight > 0))[0].tolist()]
    eyes += [(sc.x, sc.y, SCAN_RADIUS, True) for sc in world.abilities.scan_discs(player)]
    seen = np.zeros((m.height, m.width), dtype=bool)
    gx = np.arange(m.width) + 0.5
    for x, y, s, fly in eyes:
        for cy in range(m.height):
            gy = (cy + 0.5) - y
            row = (gx - x) ** 2 + gy * gy <= s * s
            if level is not None and not fly:
                row &= level[cy] <= level[min(max(int(y), 0), m.height - 1), min(max(int(x), 0), m.width - 1)]
            seen[cy] |= row
    return seen


# places on the grid's lines, its cell centres, in between, and off the map
_coord = st.one_of(st.integers(-3, 43).map(float), st.integers(-6, 86).map(lambda k: k / 2),
                   st.integers(-30, 430).map(lambda k: k / 10), st.floats(-14.0, 54.0, allow_nan=False))
_sight = st.one_of(st.sampled_from([1.0, 2.0, 7.0, 9.0, 11.0, 13.0]), st.floats(0.25, 14.0))


@st.composite
def _eye(draw: st.DrawFn) -> tuple[float, float, float, bool, int]:
    """(x, y, sight, flying, owner); some sights reach a cell centre exactly as rounded, an ulp
    short of it or past it: the ends of a row's span the first guess may get wrong."""
    x, y = draw(_coord), draw(_coord)
    if draw(st.booleans()):
        dx, dy = draw(st.integers(-12, 12)), draw(st.integers(-12, 12))
        gx, gy = (math.floor(x) + dx + 0.5) - x, (math.floor(y) + dy + 0.5) - y
        s = max(math.sqrt(gx * gx + gy * gy), 0.25)
        s = draw(st.sampled_from([s, math.nextafter(s, 0.0), math.nextafter(s, 99.0)]))
    else:
        s = draw(_sight)
    return x, y, s, draw(st.booleans()), draw(st.sampled_from([1, 1, 2]))


@needs_native
@settings(max_examples=300, deadline=None)
@given(eyes=st.lists(_eye(), max_size=12), levels=st.integers(0, 4), seed=st.integers(0, 2**16),
       w=st.integers(1, 40), h=st.integers(1, 36), scans=st.lists(st.tuples(_coord, _coord), max_size=2))
def test_seen_cells_are_the_python_twins_cells(eyes: list[tuple[float, float, float, bool, int]],
                                               levels: int, seed: int, w: int, h: int,
                                               scans: list[tuple[float, float]]) -> None:
    level = None
    if levels:  # blocks of cliff levels (as a ladder map's plateaus), or a flat arena
        rng = np.random.default_rng(seed)
        level = np.repeat(np.repeat(rng.integers(0, levels, (h // 4 + 1, w // 4 + 1)), 4, 0), 4, 1)[:h, :w]
        level = (level * 2 + 1).astype(np.int8)
    world = _world([e[0] for e in eyes], [e[1] for e in eyes], [e[2] for e in eyes], [e[3] for e in eyes],
                   [e[4] for e in eyes], level, w, h, scans)
    py, c = _seen_both(world, 1)
    assert c.dtype == bool and c.shape == (h, w) and c.view(np.uint8).max(initial=0) <= 1  # (visibility adds the bytes)
    assert np.array_equal(py, c)
    assert np.array_equal(c, _rule(world, 1))


@needs_native
def test_seen_cells_agree_on_many_eyes_on_a_ladder_maps_levels() -> None:
    rng = np.random.default_rng(5)
    w, h = 176, 160
    level = np.repeat(np.repeat(rng.integers(0, 3, (20, 22)), 8, 0), 8, 1)[:h, :w].astype(np.int8)
    n = 40
    xs = np.concatenate([rng.integers(0, 2 * w, n) / 2.0, rng.uniform(-5.0, w + 5.0, n)])
    ys = np.concatenate([rng.integers(0, 2 * h, n) / 2.0, rng.uniform(-5.0, h + 5.0, n)])
    sights = rng.choice([5.0, 8.0, 9.0, 10.0, 11.0, 12.5], 2 * n)
    world = _world(xs.tolist(), ys.tolist(), sights.tolist(), (rng.random(2 * n) < 0.2).tolist(),
                   rng.integers(1, 3, 2 * n).tolist(), level, w, h, [(20.5, 30.25)])
    for player in (1, 2):
        py, c = _seen_both(world, player)
        assert np.array_equal(py, c)
        assert 0 < np.count_nonzero(c) < c.size  # (both kinds of cell were tested)


@needs_native
def test_seen_cells_names_bad_input() -> None:
    seen = np.zeros((6, 8), dtype=bool)
    level = np.zeros((6, 8), dtype=np.int8)
    xs, ys, s2, top = np.array([1.0, 2.0]), np.array([1.0, 3.0]), np.array([4.0, 9.0]), np.zeros(2, dtype=np.int8)
    seen_cells = _native().seen_cells
    seen_cells(seen, level, 8, 6, xs, ys, s2, top)
    assert np.count_nonzero(seen) and seen[1, 1] and not seen[5, 7]
    with pytest.raises(ValueError, match="seen_cells: seen must be a C-contiguous writable bool array"):
        seen_cells(seen.view(np.uint8), level, 8, 6, xs, ys, s2, top)
    with pytest.raises(ValueError, match="seen_cells: seen holds 48 items where 63 are needed"):
        seen_cells(seen, level, 9, 7, xs, ys, s2, top)
    with pytest.raises(ValueError, match="positive"):
        seen_cells(seen, level, 0, 6, xs, ys, s2, top)
    with pytest.raises(ValueError, match="both be None"):
        seen_cells(seen, None, 8, 6, xs, ys, s2, top)
    with pytest.raises(ValueError, match="seen_cells: level must be a C-contiguous int8 array"):
        seen_cells(seen, level.astype(np.int64), 8, 6, xs, ys, s2, top)
    with pytest.raises(ValueError, match="seen_cells: top holds 1 items where 2 are needed"):
        seen_cells(seen, level, 8, 6, xs, ys, s2, top[:1])
    with pytest.raises(ValueError, match="seen_cells: ys holds 1 items where 2 are needed"):
        seen_cells(seen, level, 8, 6, xs, ys[:1], s2, top)
    with pytest.raises(ValueError, match="seen_cells: xs must be a C-contiguous float64 array"):
        seen_cells(seen, level, 8, 6, xs.astype(np.float32), ys, s2, top)
    with pytest.raises(ValueError, match="seen_cells: xs must be a C-contiguous float64 array"):
        seen_cells(seen, level, 8, 6, np.array([1.0, 0.0, 2.0, 0.0])[::2], ys, s2, top)
    with pytest.raises(ValueError, match="eye 1 is not finite"):
        seen_cells(seen, level, 8, 6, xs, np.array([1.0, np.nan]), s2, top)
    with pytest.raises(ValueError, match="eye 0 is not finite or its s2 is negative"):
        seen_cells(seen, level, 8, 6, xs, ys, np.array([-1.0, 9.0]), top)


def _sees_both(world: Any, player: int, xs: Any, ys: Any) -> tuple[np.ndarray, np.ndarray]:
    """(the Python twin's answers, the kernel's) of whether the player sees the points' cells."""
    out = []
    for run in (None, _native()):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(V, "_native", run)
            out.append(V.Vision(world).sees(player, xs, ys))
    return out[0], out[1]


@needs_native
@settings(max_examples=300, deadline=None)
@given(eyes=st.lists(_eye(), max_size=8), levels=st.integers(0, 4), seed=st.integers(0, 2**16),
       w=st.integers(1, 40), h=st.integers(1, 36), scans=st.lists(st.tuples(_coord, _coord), max_size=2),
       points=st.lists(st.tuples(_coord, _coord), max_size=10))
def test_sees_points_answers_as_the_python_twin_and_the_grid(eyes: list[tuple[float, float, float, bool, int]],
                                                             levels: int, seed: int, w: int, h: int,
                                                             scans: list[tuple[float, float]],
                                                             points: list[tuple[float, float]]) -> None:
    level = None
    if levels:
        rng = np.random.default_rng(seed)
        level = np.repeat(np.repeat(rng.integers(0, levels, (h // 4 + 1, w // 4 + 1)), 4, 0), 4, 1)[:h, :w]
        level = (level * 2 + 1).astype(np.int8)
    world = _world([e[0] for e in eyes], [e[1] for e in eyes], [e[2] for e in eyes], [e[3] for e in eyes],
                   [e[4] for e in eyes], level, w, h, scans)
    pts = np.array(points, dtype=np.float64).reshape(-1, 2)
    py, c = _sees_both(world, 1, pts[:, 0], pts[:, 1])  # (columns: strided views)
    assert c.dtype == bool and np.array_equal(py, c)
    grid = _seen_both(world, 1)[1]
    cx = np.minimum(np.maximum(pts[:, 0].astype(np.int64), 0), w - 1)
    cy = np.minimum(np.maximum(pts[:, 1].astype(np.int64), 0), h - 1)
    assert np.array_equal(c, grid[cy, cx])


@needs_native
def test_sees_points_takes_lists_and_names_bad_input() -> None:
    world = _world([2.5, 30.0], [2.5, 20.0], [4.0, 9.0], [False, True], [1, 1], None, 40, 36, [])
    # (the last point's cell centre is exactly the first eye's sight away: seen)
    py, c = _sees_both(world, 1, [2.0, 10.0, -3.0, 2.7], [5.9, 5.0, 1.0, 6.2])
    assert py.tolist() == c.tolist() == [True, False, True, True]
    assert _sees_both(world, 2, [2.0], [3.0])[1].tolist() == [False]  # (no eyes)
    sees_points = _native().sees_points
    seen = np.zeros(2, dtype=bool)
    level = np.zeros((36, 40), dtype=np.int8)
    xs, ys = np.array([1.0, 2.0]), np.array([1.0, 3.0])
    eyes = (np.array([1.0]), np.array([1.0]), np.array([4.0]), np.zeros(1, dtype=np.int8))
    sees_points(seen, xs, ys, level, 40, 36, *eyes)
    assert seen.tolist() == [True, False]
    with pytest.raises(ValueError, match="sees_points: seen holds 1 items where 2 are needed"):
        sees_points(seen[:1], xs, ys, level, 40, 36, *eyes)
    with pytest.raises(ValueError, match="sees_points: ys holds 1 items where 2 are needed"):
        sees_points(seen, xs, ys[:1], level, 40, 36, *eyes)
    with pytest.raises(ValueError, match="positive"):
        sees_points(seen, xs, ys, level, 40, -1, *eyes)
    with pytest.raises(ValueError, match="both be None"):
        sees_points(seen, xs, ys, level, 40, 36, *eyes[:3], None)
    with pytest.raises(ValueError, match="sees_points: level holds 1400 items where 1440 are needed"):
        sees_points(seen, xs, ys, level[1:], 40, 36, *eyes)
    with pytest.raises(ValueError, match="sees_points: s2 holds 2 items where 1 are needed"):
        sees_points(seen, xs, ys, level, 40, 36, *eyes[:2], np.array([4.0, 1.0]), eyes[3])
    with pytest.raises(ValueError, match="point 1 is not finite"):
        sees_points(seen, xs, np.array([1.0, np.inf]), level, 40, 36, *eyes)


def _game_digest() -> str:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AcidPlantLE.SC2Map"), random_seed=4)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=2, difficulty=5)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    # a Medivac over the map's middle (a flying eye sees every level), and the fog in the digest
    medivac = sc_pb.RequestDebug()
    create = medivac.debug.add().create_unit
    create.unit_type, create.owner, create.quantity = 54, 1, 1
    create.pos.x, create.pos.y = g.world.map.width / 2, g.world.map.height / 2
    g.debug(1, medivac)
    digest = hashlib.sha256()
    for _ in range(30):
        g.step(64)
        for player in (1, 2):
            digest.update(g.observation_bytes(player, sc_pb.RequestObservation()))
    return digest.hexdigest()


@needs_native
def test_a_game_sees_the_same_with_and_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = plays_the_same(monkeypatch, (V,), _game_digest).calls
    assert calls.get("seen_cells", 0) >= 60 and calls.get("sees_points", 0) > 0
