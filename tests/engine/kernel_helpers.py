"""What the compiled kernels' tests (``tests/engine/test_kernels*.py``) share: the mark for tests
that need the built module, random free-cell grids, a stand-in for the module that counts each kernel's calls (so a game
test knows the kernels it compares actually ran), a ladder-map skirmish to play, and the check
that a game plays the same with the kernels and with their Python twins."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import kernels
from sc2pool.engine.game import Game

needs_native = pytest.mark.skipif(kernels.native is None, reason="the compiled kernels were not built here")


def random_grid(seed: int, w: int, h: int, blocks: int) -> np.ndarray:
    """A free-cell grid (bool, h x w) with ``blocks`` random rectangles of 1 to 5 cells a side
    blocked, the same for the same seed."""
    rng = np.random.default_rng(seed)
    free = np.ones((h, w), dtype=bool)
    for _ in range(blocks):
        x, y = rng.integers(0, w), rng.integers(0, h)
        free[y:y + rng.integers(1, 6), x:x + rng.integers(1, 6)] = False
    return free


def native() -> ModuleType:
    """The compiled module (tests that call it carry :data:`needs_native`)."""
    assert kernels.native is not None
    return kernels.native


class CountingKernels:
    """The compiled module, every kernel of it counted in :attr:`calls` by name."""

    def __init__(self, module: ModuleType) -> None:
        self.native = module
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        f = getattr(self.native, name)

        def counted(*args: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            return f(*args)
        return counted


def skirmish_digest(units: Sequence[tuple[int, int, float, int]], prepare: Callable[[Game], None] | None = None,
                    steps: int = 30) -> str:
    """Player 1 (Terran) against ``Computer(Terran, Hard)`` on AbyssalReefLE (seed 3), its workers
    mining; ``units``: (unit type, owner, y offset from player 1's start, how many) created 2 to the
    right of that start, so the fight is by player 1's base and its cliff. ``prepare`` changes the
    game before it runs. Returns the hash of player 1's observation after each of ``steps`` steps
    of 16 loops."""
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AbyssalReefLE.SC2Map"), random_seed=3)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=5)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    (sx, sy) = g.scenario.starts[1]  # type: ignore[attr-defined]
    debug = sc_pb.RequestDebug()
    for unit_type, owner, dy, quantity in units:
        create = debug.debug.add().create_unit
        create.unit_type, create.owner, create.quantity = unit_type, owner, quantity
        create.pos.x, create.pos.y = sx + 2.0, sy + dy
    g.debug(1, debug)
    if prepare is not None:
        prepare(g)
    digest = hashlib.sha256()
    for _ in range(steps):
        g.step(16)
        digest.update(g.observation_bytes(1, sc_pb.RequestObservation()))
    return digest.hexdigest()


def plays_the_same(monkeypatch: pytest.MonkeyPatch, modules: Iterable[ModuleType], play: Callable[[], str]
                   ) -> CountingKernels:
    """Plays ``play`` with the ``_native`` of each of ``modules`` counted, then with their Python
    twins (``_native`` None), and asserts the two digests are the same. Returns the counts, for the
    caller to assert its kernels ran."""
    modules = list(modules)
    counting = CountingKernels(native())
    for module in modules:
        monkeypatch.setattr(module, "_native", counting)
    with_c = play()
    for module in modules:
        monkeypatch.setattr(module, "_native", None)
    assert play() == with_c
    return counting
