"""Vision (``sim/systems/vision.py``): the cells a player sees are exactly those of its rule, cell by
cell, wherever the units stand (map edges, cell corners, cell centres), on a ladder map's cliff
levels (ground and flying units) and on a flat arena."""

from __future__ import annotations

import numpy as np
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.game import Game
from sc2pool.engine.sim.units import TYPES
from sc2pool.engine.sim.world import World

MEDIVAC = 54


def rule(w: World, player: int) -> np.ndarray:
    """The module's rule written out unit by unit: a cell is seen when its centre is within a
    unit's sight and, for a ground unit, its cliff level is not above the level of the unit's own
    cell."""
    u = w.u
    m = w.map
    level = w.vision._levels()
    seen = np.zeros((m.height, m.width), dtype=bool)
    for i in np.nonzero((u.owner == player) & (u.sight > 0))[0].tolist():
        s, x, y = float(u.sight[i]), float(u.x[i]), float(u.y[i])
        for cy in range(m.height):
            gy = (cy + 0.5) - y
            if gy * gy > s * s:
                continue
            gx = (np.arange(m.width) + 0.5) - x
            row = gx ** 2 + gy * gy <= s * s
            if level is not None and not TYPES.is_flying[u.ti[i]]:
                own = level[min(max(int(y), 0), m.height - 1), min(max(int(x), 0), m.width - 1)]
                row &= level[cy] <= own
            seen[cy] |= row
    return seen


def melee_game() -> Game:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="AcidPlantLE.SC2Map"), random_seed=3)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=3)
    g = Game.create(req)
    g.join(sc_pb.RequestJoinGame(race=1))
    return g


@pytest.mark.parametrize("layout", ["anywhere", "cell centres", "cell corners", "tenths", "edges", "one band"])
def test_seen_cells_are_exactly_the_rule_on_cliff_levels(layout: str) -> None:
    g = melee_game()
    w = g.world
    m = w.map
    w.spawn(MEDIVAC, 1, [40.0, 100.0], [40.0, 120.0])  # flying units see every level
    rng = np.random.default_rng(len(layout))
    rows = np.nonzero(w.u.owner == 1)[0]
    for trial in range(8):
        k = len(rows)
        if layout == "anywhere":
            xs, ys = rng.uniform(0, m.width, k), rng.uniform(0, m.height, k)
        elif layout == "cell centres":
            xs, ys = rng.integers(0, m.width, k) + 0.5, rng.integers(0, m.height, k) + 0.5
        elif layout == "cell corners":
            xs, ys = rng.integers(0, m.width, k) * 1.0, rng.integers(0, m.height, k) * 1.0
        elif layout == "one band":  # (rows above and below every disc: only the band is summed)
            xs, ys = rng.uniform(0, m.width, k), rng.uniform(70.0, 80.0, k)
        elif layout == "tenths":  # (where rounding decides the cells at a disc's rim)
            xs, ys = rng.integers(0, 10 * m.width, k) / 10, rng.integers(0, 10 * m.height, k) / 10
        else:
            xs = rng.choice([0.0, 0.25, m.width - 1e-9, m.width - 0.5], k)
            ys = rng.choice([0.0, 0.5, m.height - 1e-9, 7.125], k)
        w.u.x[rows], w.u.y[rows] = xs, ys
        if trial % 2:
            w.u.sight[rows] = rng.choice([1.0, 0.5, 8.0, 9.0, 10.5, 11.0, 13.75, 0.7, 3.3, 9.3], k)
        w.loop += 1
        seen = w.vision.seen_now(1)
        assert np.array_equal(seen, rule(w, 1)), f"trial {trial}"
        assert seen.any()


def test_seen_cells_follow_the_units_in_a_game_and_explored_cells_stay() -> None:
    g = melee_game()
    w = g.world
    explored_before = 0
    for step in range(40):
        g.step(16)
        assert np.array_equal(w.vision.seen_now(1), rule(w, 1)), f"step {step}"
        vis = w.vision.visibility(1)
        assert set(np.unique(vis).tolist()) <= {0, 1, 2}
        assert np.array_equal(vis == 2, w.vision.seen_now(1))
        explored = int(np.count_nonzero(vis))
        assert explored >= explored_before
        explored_before = explored


def test_a_flat_arena_with_fog_sees_by_the_same_rule() -> None:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="FindAndDefeatZerglings.SC2Map"), random_seed=1)
    req.player_setup.add(type=sc_pb.Participant)
    g = Game.create(req)
    g.join(sc_pb.RequestJoinGame(race=1))
    w = g.world
    assert w.vision._levels() is None
    marines = np.nonzero(w.u.unit_id == D.MARINE)[0]
    assert len(marines)
    w.u.x[marines] = np.linspace(0.0, w.map.width - 1e-6, len(marines))
    w.loop += 1
    assert np.array_equal(w.vision.seen_now(1), rule(w, 1))
