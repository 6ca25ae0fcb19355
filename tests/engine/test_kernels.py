"""The compiled kernels (sc2pool/engine/_kernels.c) against their pure-Python twins: the same
answers on every input, and the same game either way.

Where the kernels were not built (no C compiler at install time) the comparisons skip, unless
``SC2POOL_ENGINE_KERNELS=native`` says they must be there (CI sets it), in which case importing the
engine already fails.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import CountingKernels, needs_native, random_grid
from kernel_helpers import native as _native
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import kernels
from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems import pathing as SP
from sc2pool.engine.terrain import pathing as P


def _both(free: np.ndarray, seg: tuple[float, float, float, float]) -> tuple[bool, bool]:
    h, w = free.shape
    sat = P._sat_cells(P._blocked_sat(free))
    return (P._segment_free(sat, free.tolist(), w, h, *seg),
            _native().segment_free(free, sat, w, h, *seg))


# coordinates on the grid's lines, its cell centres and in between: the corner cases of the walk
_coord = st.one_of(st.integers(-2, 42).map(float), st.integers(-4, 84).map(lambda k: k / 2),
                   st.floats(-2.0, 42.0, allow_nan=False))


@needs_native
@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**16), blocks=st.integers(0, 60), ax=_coord, ay=_coord, bx=_coord, by=_coord)
def test_segment_free_answers_as_the_python_walk_does(seed: int, blocks: int, ax: float, ay: float,
                                                      bx: float, by: float) -> None:
    py, c = _both(random_grid(seed, 40, 36, blocks), (ax, ay, bx, by))
    assert py is c


@needs_native
def test_segment_free_agrees_on_many_segments_through_corners_and_along_lines() -> None:
    free = random_grid(3, 64, 48, 120)
    rng = np.random.default_rng(9)
    ends = np.concatenate([rng.integers(0, 64, (3000, 4)).astype(float),  # cell corners
                           rng.integers(0, 128, (3000, 4)) / 2.0,  # corners and centres
                           rng.uniform(-1.0, 65.0, (3000, 4))])
    ends[:, 1::2] = np.minimum(ends[:, 1::2], 48.5)
    answers = [_both(free, tuple(map(float, e))) for e in ends]  # type: ignore[arg-type]
    assert all(py is c for py, c in answers)
    assert 0 < sum(py for py, _ in answers) < len(answers)  # both kinds of answer were tested


@needs_native
def test_segment_free_names_bad_input() -> None:
    free = random_grid(1, 8, 6, 0)
    sat = P._sat_cells(P._blocked_sat(free))
    with pytest.raises(ValueError, match="finite"):
        _native().segment_free(free, sat, 8, 6, math.nan, 1.0, 2.0, 2.0)
    with pytest.raises(ValueError, match="segment_free: free holds 48 items where 63 are needed"):
        _native().segment_free(free, sat, 9, 7, 1.0, 1.0, 2.0, 2.0)
    with pytest.raises(ValueError, match="positive"):
        _native().segment_free(free, sat, 0, 6, 1.0, 1.0, 2.0, 2.0)


def _windows(grid: np.ndarray, xs: list[float], ys: list[float]) -> tuple[tuple[list[float], list[float], list[int]], ...]:
    h, w = grid.shape
    out = []
    for run in (SP._nearest_in_window, lambda *a: _native().nearest_in_window(*a, SP.INSET, SP.WINDOW)):
        px, py = np.array(xs), np.array(ys)
        todo = run(px, py, grid.ravel(), w, h)
        out.append((px.tolist(), py.tolist(), list(todo)))
    return tuple(out)


@needs_native
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**16), blocks=st.integers(0, 200),
       pts=st.lists(st.tuples(_coord, _coord), min_size=1, max_size=12))
def test_nearest_in_window_moves_points_as_the_python_search_does(seed: int, blocks: int,
                                                                  pts: list[tuple[float, float]]) -> None:
    grid = random_grid(seed, 40, 36, blocks)
    py, c = _windows(grid, [p[0] for p in pts], [p[1] for p in pts])
    assert py == c


@needs_native
def test_nearest_in_window_leaves_points_with_no_free_cell_near_and_names_bad_input() -> None:
    grid = np.zeros((20, 20), dtype=bool)
    grid[0, 0] = True
    py, c = _windows(grid, [0.3, 10.5, 2.5, -3.0], [0.2, 10.5, 2.5, 0.5])
    assert py == c and c[2] == [1, 3]  # (2.5, 2.5) reaches the free cell within the window
    assert c[0][0] == 0.3 and c[0][2] == pytest.approx(0.99)
    xs, ys = np.array([1.0, math.inf]), np.array([1.0, 1.0])
    with pytest.raises(ValueError, match="point 1 is not finite"):
        _native().nearest_in_window(xs, ys, grid.ravel(), 20, 20, SP.INSET, SP.WINDOW)
    with pytest.raises(ValueError, match="nearest_in_window: xs must be a C-contiguous writable float64 array"):
        _native().nearest_in_window(xs.astype(np.float32), ys, grid.ravel(), 20, 20, SP.INSET, SP.WINDOW)
    with pytest.raises(ValueError, match="nearest_in_window: grid holds 400 items where 420 are needed"):
        _native().nearest_in_window(xs, ys, grid.ravel(), 21, 20, SP.INSET, SP.WINDOW)


def _game_digest() -> str:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AbyssalReefLE.SC2Map"), random_seed=3)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=5)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    # a dozen Marines put on blocked cells near player 1's start, some deep in them: the engine
    # puts each back on the nearest free point (the window search, and for some the whole grid)
    marines = sc_pb.RequestDebug()
    create = marines.debug.add().create_unit
    create.unit_type, create.owner, create.quantity = 48, 1, 12
    (sx, sy) = g.scenario.starts[1]  # type: ignore[attr-defined]
    create.pos.x, create.pos.y = sx, sy - 6.0
    g.debug(1, marines)
    g.step(8)
    p, u = g.world.pathing, g.world.u
    ys, xs = np.nonzero(~p.free.reshape(p.height, p.width))
    order = np.argsort((xs - sx) ** 2 + (ys - sy) ** 2, kind="stable")
    rows = np.nonzero(u.unit_id == 48)[0]
    assert len(rows) == 12
    for i, r in enumerate(rows.tolist()):
        k = order[i * 40]
        u.x[r], u.y[r] = xs[k] + 0.25 + 0.04 * i, ys[k] + 0.7
    digest = hashlib.sha256()
    for _ in range(40):
        g.step(64)
        digest.update(g.observation_bytes(2, sc_pb.RequestObservation()))
    return digest.hexdigest()


@needs_native
def test_a_game_plays_the_same_with_and_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = CountingKernels(_native())
    monkeypatch.setattr(P, "_native", counting)
    monkeypatch.setattr(SP, "_native", counting)
    with_c = _game_digest()
    assert counting.calls.get("segment_free", 0) > 100 and counting.calls.get("nearest_in_window", 0) > 0
    monkeypatch.setattr(P, "_native", None)
    monkeypatch.setattr(SP, "_native", None)
    assert _game_digest() == with_c


def test_the_environment_chooses_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(kernels.ENV, "python")
    assert kernels._load() is None
    monkeypatch.setenv(kernels.ENV, "fast")
    with pytest.raises(ValueError, match="SC2POOL_ENGINE_KERNELS='fast'"):
        kernels._load()
    monkeypatch.setenv(kernels.ENV, "native")
    if kernels.native is None:
        with pytest.raises(kernels.KernelsMissingError, match="not built"):
            kernels._load()
    else:
        assert kernels._load() is kernels.native
