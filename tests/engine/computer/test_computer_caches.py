"""What the melee Computer keeps between its decisions, and the building spots it cuts to a window
round a base: each answers as a fresh computation (``MeleeComputer.site_index``, its plateaus, and
``sites.base_spots`` against the whole-map search it replaces)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.computer import sites as S
from sc2pool.engine.computer.levels import BARRACKS, DEPOT
from sc2pool.engine.game import Game
from sc2pool.engine.scenarios.base import COMPUTER, PARTICIPANT
from sc2pool.engine.sim.world import World


def game(map_name: str = "AcidPlantLE", seed: int = 5) -> Game:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"{map_name}.SC2Map"), random_seed=seed)
    req.player_setup.add(type=PARTICIPANT, race=D.TERRAN)  # type: ignore[arg-type]
    req.player_setup.add(type=COMPUTER, race=D.TERRAN, difficulty=5)  # type: ignore[arg-type]
    g = Game.create(req)
    g.join(sc_pb.RequestJoinGame(race=D.TERRAN))  # type: ignore[arg-type]
    return g


def whole_map_spots(world: World, home: tuple[float, float], resources: list[tuple[float, float, bool]], size: int,
                    anchor: tuple[float, float], gap: int, extra_right: int = 0, radius: float = S.BASE_RADIUS,
                    dense: bool = False) -> list[tuple[float, float]]:
    """``base_spots`` as it searched the whole map (the reference of its window)."""
    hx, hy = home
    m = world.map
    ok = S.static_placeable(world) & S.plateau(world, hx, hy) & S._disc(m.height, m.width, hx, hy, radius)
    fit = S.fits(ok, size + extra_right, size)
    step = 1 if dense else size + gap
    xstep = 1 if dense else step + extra_right
    half = size / 2.0
    x0, y0 = int(math.floor(hx)), int(math.floor(hy))
    r = int(radius)
    gx, gy = np.meshgrid(np.arange(x0 - r - (r % xstep), x0 + r + 1, xstep),
                         np.arange(y0 - r - (r % step), y0 + r + 1, step))
    lx, ly = gx.ravel(), gy.ravel()
    inside = (lx >= 0) & (ly >= 0) & (lx < m.width) & (ly < m.height)
    lx, ly = lx[inside], ly[inside]
    good = fit[ly, lx]
    cx, cy = lx + half, ly + half
    good &= (cx - hx) ** 2 + (cy - hy) ** 2 >= 6.0 ** 2
    pts = np.array([(a, b) for a, b, _ in resources]) if resources else np.zeros((0, 2))
    if len(pts):
        mx, my = pts[:, 0].mean(), pts[:, 1].mean()
        front = ((cx - hx) * (mx - hx) + (cy - hy) * (my - hy) > 0) & ((cx - hx) ** 2 + (cy - hy) ** 2 < 11.0 ** 2)
        good &= ~front
        d = np.hypot(cx[:, None] - pts[None, :, 0], cy[:, None] - pts[None, :, 1])
        good &= (d >= 3.0 + half + 1.0).all(axis=1)
    cx, cy = cx[good], cy[good]
    order = np.lexsort((cx, cy, (cx - anchor[0]) ** 2 + (cy - anchor[1]) ** 2))
    return [(float(cx[k]), float(cy[k])) for k in order]


@pytest.mark.parametrize("map_name", ["AcidPlantLE", "BlueshiftLE"])
def test_base_spots_in_their_window_are_the_whole_maps(map_name: str) -> None:
    """Every base of the map, every kind of list the Computer asks for, and homes by the map's
    edges and corners (where the window is cut by the map) give the same spots in the same order."""
    w = game(map_name).world
    plan = S.map_plan(w)
    m = w.map
    homes = [(k, plan.sites[k]) for k in range(len(plan.sites))]
    homes += [(0, (1.5, 1.5)), (0, (m.width - 2.0, m.height - 0.5)), (0, (m.width / 2, 3.0)), (0, (4.5, m.height / 2))]
    kinds = [(2, 2, 0, S.BASE_RADIUS, False), (3, 3, 0, S.BASE_RADIUS, False), (3, 3, 2, S.ADDON_BASE_RADIUS, True),
             (2, 2, 0, S.ADDON_BASE_RADIUS, True), (3, 2, 2, S.ADDON_BASE_RADIUS, False)]
    some = 0
    for k, home in homes:
        res = plan.resources[k] if home == plan.sites[k] else []
        anchor = (home[0] + 8.0, home[1] - 3.0)
        area = S.plateau(w, *home)
        for size, gap, extra, radius, dense in kinds:
            want = whole_map_spots(w, home, res, size, anchor, gap, extra, radius, dense)
            assert S.base_spots(w, home, res, size, anchor, gap, extra, radius, dense) == want
            assert S.base_spots(w, home, res, size, anchor, gap, extra, radius, dense, area=area) == want
            some += len(want)
    assert some > 1000  # (the bases have spots: the comparison is not of empty lists)


def test_site_index_kept_per_point_answers_as_a_fresh_search() -> None:
    g = game()
    g.step(8)
    c = next(iter(g.scenario.computers))  # type: ignore[attr-defined]
    plan = c.plan
    assert plan is not None
    rng = np.random.default_rng(3)
    m = g.world.map
    pts = [(float(x), float(y)) for x, y in zip(rng.uniform(0, m.width, 300), rng.uniform(0, m.height, 300),
                                                 strict=True)]
    pts += list(plan.sites) + pts[:50]  # (the sites themselves, and points asked again)
    for p in pts:
        fresh = int(np.argmin([(a - p[0]) ** 2 + (b - p[1]) ** 2 for a, b in plan.sites]))
        assert c.site_index(p) == fresh
        assert c.site_index(p) == fresh
    assert c._site_of is not None and set(c._site_of) == set(pts)


def test_plateaus_kept_per_site_are_the_sites_plateaus() -> None:
    """The plateau free_spot keeps per base (asked here for every site of the map, depots and
    barracks) is plateau() of that base's site."""
    g = game()
    g.step(22 * 30)
    c = next(iter(g.scenario.computers))  # type: ignore[attr-defined]
    plan = c.plan
    assert plan is not None
    for k in range(len(plan.sites)):
        for what in (DEPOT, BARRACKS):
            c.free_spot(g.world, c.race.roles[what], bases=[k])
    assert c._plateaus is not None and set(c._plateaus) == set(range(len(plan.sites)))
    for k, area in c._plateaus.items():
        assert np.array_equal(area, S.plateau(g.world, *plan.sites[k]))
