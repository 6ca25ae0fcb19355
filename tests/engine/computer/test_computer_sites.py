"""Where the melee Computer builds (``sc2pool.engine.computer.sites``), and the vision question it
asks every decision (``Vision.sees``)."""

from __future__ import annotations

import numpy as np
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.computer import sites as S
from sc2pool.engine.game import Game
from sc2pool.engine.scenarios.base import COMPUTER, PARTICIPANT
from sc2pool.engine.sim.commands import SUCCESS

EXPANSIONS = {"AcidPlantLE": 16, "BlueshiftLE": 14, "DarknessSanctuaryLE": 16, "EastwatchLE": 20}
"""burnysc2's ``expansion_locations_list`` on the real client's capture of each map (docs/engine.md,
"Per map: the engine against the real client")."""


def game(map_name: str, seed: int = 5) -> Game:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"{map_name}.SC2Map"), random_seed=seed)
    req.player_setup.add(type=PARTICIPANT, race=D.TERRAN)  # type: ignore[arg-type]
    req.player_setup.add(type=COMPUTER, race=D.TERRAN, difficulty=3)  # type: ignore[arg-type]
    g = Game.create(req)
    g.join(sc_pb.RequestJoinGame(race=D.TERRAN))  # type: ignore[arg-type]
    return g


@pytest.mark.parametrize("map_name", sorted(EXPANSIONS))
def test_a_site_per_base_where_a_command_center_fits(map_name: str) -> None:
    g = game(map_name)
    w = g.world
    plan = S.map_plan(w)
    assert len(plan.sites) == EXPANSIONS[map_name]
    starts = {(float(x), float(y)) for x, y in w.map.start_locations}
    assert starts <= set(plan.sites)  # a main's site is its start location
    for x, y in plan.sites:
        if (x, y) not in starts:
            assert w.placement.check(318, x, y) == SUCCESS
    for s in starts:  # the natural is the nearest site by walking, well within reach
        d = np.sort(plan.ground[s])
        assert d[0] == 0.0 and 15 < d[1] < 45


def test_building_spots_fit_and_keep_clear_of_the_mineral_line() -> None:
    g = game("BlueshiftLE")
    w = g.world
    plan = S.map_plan(w)
    home = g.scenario.starts[2]  # type: ignore[attr-defined]
    k = plan.sites.index(home)
    res = plan.resources[k]
    for size, ability in ((2, 319), (3, 321)):
        spots = S.base_spots(w, home, res, size, w.map.center, gap=2)
        assert len(spots) >= 8
        for x, y in spots:
            assert w.placement.check(ability, x, y) == SUCCESS
            assert np.hypot(x - home[0], y - home[1]) <= S.BASE_RADIUS + 2
            assert min(np.hypot(x - a, y - b) for a, b, _ in res) >= 3.0 + size / 2


def test_sees_answers_as_the_visibility_grid() -> None:
    """Vision.sees(player, xs, ys) equals the grid of seen_now at those cells (high ground
    included), for points anywhere on the map."""
    g = game("AcidPlantLE")
    g.step(22 * 60)
    w = g.world
    rng = np.random.default_rng(1)
    x0, y0, x1, y1 = w.map.playable
    xs = rng.uniform(x0, x1, 3000)
    ys = rng.uniform(y0, y1, 3000)
    for player in (1, 2):  # (points near its units too, where the answer is mostly yes)
        u = w.u
        mine = np.nonzero(u.owner == player)[0]
        near_x = u.x[mine][:, None] + rng.uniform(-10, 10, (len(mine), 8))
        near_y = u.y[mine][:, None] + rng.uniform(-10, 10, (len(mine), 8))
        px = np.concatenate([xs, near_x.ravel()])
        py = np.concatenate([ys, near_y.ravel()])
        grid = w.vision.seen_now(player)
        cx = np.clip(px.astype(np.int64), 0, w.map.width - 1)
        cy = np.clip(py.astype(np.int64), 0, w.map.height - 1)
        got = w.vision.sees(player, px, py)
        assert np.array_equal(got, grid[cy, cx])
        assert got.any() and not got.all()


def test_fits_counts_whole_rectangles() -> None:
    ok = np.ones((6, 7), dtype=bool)
    ok[2, 3] = False
    f = S.fits(ok, 2, 2)
    assert f.shape == ok.shape
    assert not f[1, 2] and not f[2, 3] and f[0, 0] and f[3, 3]
    assert not f[5, 0] and not f[0, 6]  # (would leave the grid)
