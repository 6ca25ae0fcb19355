"""The compiled kernels (sc2pool/engine/_kernels.c) against their pure-Python twins: the same
answers on every input, and the same game either way.

Where the kernels were not built (no C compiler at install time) the comparisons skip, unless
``SC2POOL_ENGINE_KERNELS=native`` says they must be there (CI sets it), in which case importing the
engine already fails.
"""

from __future__ import annotations

import hashlib
import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import kernels
from sc2pool.engine.game import Game
from sc2pool.engine.terrain import pathing as P

needs_native = pytest.mark.skipif(kernels.native is None, reason="the compiled kernels were not built here")


def _native() -> ModuleType:
    assert kernels.native is not None
    return kernels.native


def _grid(seed: int, w: int, h: int, blocks: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    free = np.ones((h, w), dtype=bool)
    for _ in range(blocks):
        x, y = rng.integers(0, w), rng.integers(0, h)
        free[y:y + rng.integers(1, 6), x:x + rng.integers(1, 6)] = False
    return free


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
    py, c = _both(_grid(seed, 40, 36, blocks), (ax, ay, bx, by))
    assert py is c


@needs_native
def test_segment_free_agrees_on_many_segments_through_corners_and_along_lines() -> None:
    free = _grid(3, 64, 48, 120)
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
    free = _grid(1, 8, 6, 0)
    sat = P._sat_cells(P._blocked_sat(free))
    with pytest.raises(ValueError, match="finite"):
        _native().segment_free(free, sat, 8, 6, math.nan, 1.0, 2.0, 2.0)
    with pytest.raises(ValueError, match="free holds 48 bytes where the grid needs 63"):
        _native().segment_free(free, sat, 9, 7, 1.0, 1.0, 2.0, 2.0)
    with pytest.raises(ValueError, match="positive"):
        _native().segment_free(free, sat, 0, 6, 1.0, 1.0, 2.0, 2.0)


class _Counting:
    """Delegates to the compiled kernels and counts the calls, so the game test knows it used them."""

    def __init__(self, native: ModuleType) -> None:
        self.native, self.calls = native, 0

    def segment_free(self, *args: Any) -> bool:
        self.calls += 1
        return bool(self.native.segment_free(*args))


def _game_digest() -> str:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AbyssalReefLE.SC2Map"), random_seed=3)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=5)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    digest = hashlib.sha256()
    for _ in range(40):
        g.step(64)
        digest.update(g.observation_bytes(2, sc_pb.RequestObservation()))
    return digest.hexdigest()


@needs_native
def test_a_game_plays_the_same_with_and_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _Counting(_native())
    monkeypatch.setattr(P, "_native", counting)
    with_c = _game_digest()
    assert counting.calls > 100
    monkeypatch.setattr(P, "_native", None)
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
