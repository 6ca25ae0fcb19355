"""PathFinder: paths never enter blocked cells, go round structures and up ramps, and change when
structures appear and leave."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sc2pool.engine.terrain import PathFinder, find_map, footprint_cells, load_map, start_pathing


def _walk_cells(start, pts: np.ndarray, step: float = 0.1) -> list[tuple[int, int]]:
    cells = []
    cur = np.asarray(start, dtype=float)
    for p in pts:
        n = max(int(np.hypot(*(p - cur)) / step), 1)
        for t in np.linspace(0, 1, n + 1):
            q = cur + (p - cur) * t
            cells.append((int(math.floor(q[0])), int(math.floor(q[1]))))
        cur = p
    return cells


def _assert_walkable(grid: np.ndarray, start, pts: np.ndarray) -> None:
    for x, y in _walk_cells(start, pts)[3:]:  # the first steps leave the start's own cell
        assert grid[y, x], f"path enters blocked cell ({x}, {y})"


def test_wall_is_walked_round_and_removal_opens_it():
    g = np.ones((40, 40), dtype=bool)
    g[0, :] = g[-1, :] = g[:, 0] = g[:, -1] = False
    pf = PathFinder(g)
    assert pf.path((5.5, 20.5), (35.5, 20.5)).tolist() == [[35.5, 20.5]], "open ground: one straight leg"
    pf.set_blocked(1, (slice(5, 39), slice(19, 21)))  # a wall x 19..20, y 5..38
    p = pf.path((5.5, 20.5), (35.5, 20.5))
    assert len(p) >= 2 and p[-1].tolist() == [35.5, 20.5]
    _assert_walkable(pf.pathable, (5.5, 20.5), p)
    assert min(y for _x, y in p[:-1]) < 5.5, "round the wall's open end"
    d = pf.distance((5.5, 20.5), (35.5, 20.5))
    assert d is not None and d > 40
    pf.set_blocked(1, None)
    assert pf.path((5.5, 20.5), (35.5, 20.5)).tolist() == [[35.5, 20.5]]
    assert pf.distance((5.5, 20.5), (35.5, 20.5)) == pytest.approx(30.0)


def test_unreachable_goal_gives_the_nearest_reachable_point():
    g = np.ones((30, 30), dtype=bool)
    g[:, 15] = False  # a closed wall
    pf = PathFinder(g)
    p = pf.path((5.5, 10.5), (25.5, 10.5))
    assert len(p) and p[-1][0] == pytest.approx(14.5) and p[-1][1] == pytest.approx(10.5)
    assert pf.distance((5.5, 10.5), (25.5, 10.5)) is None
    assert pf.nearest_pathable(15.2, 3.3) in ((14.5, 3.5), (16.5, 3.5))


def test_big_units_do_not_fit_through_a_narrow_gap_between_structures():
    g = np.ones((30, 30), dtype=bool)
    wall = np.zeros_like(g)
    wall[:, 15] = True
    wall[14, 15] = False  # a one-cell gap
    pf = PathFinder(g)
    pf.set_blocked(1, wall)
    small = pf.path((5.5, 14.5), (25.5, 14.5), radius=0.375)
    assert small[-1].tolist() == [25.5, 14.5]
    for radius in (0.625, 1.0):
        big = pf.path((5.5, 14.5), (25.5, 14.5), radius=radius)
        assert big[-1][0] < 15, f"a radius-{radius} unit stops on its side of the gap"


def test_terrain_cells_block_from_their_centre_structures_from_their_edge():
    # the grid marks a cell unpathable where a cliff covers part of it: a unit may come to its centre
    g = np.ones((30, 30), dtype=bool)
    g[:, 15] = False
    g[12:15, 15] = True  # a three-cell gap in the terrain
    pf = PathFinder(g)
    assert pf.path((5.5, 13.5), (25.5, 13.5), radius=1.0)[-1].tolist() == [25.5, 13.5]
    wall = np.zeros_like(g)
    wall[12, 15] = wall[14, 15] = True  # structures narrow it to one cell
    pf.set_blocked(1, wall)
    assert pf.path((5.5, 13.5), (25.5, 13.5), radius=1.0)[-1][0] < 15
    assert pf.path((5.5, 13.5), (25.5, 13.5), radius=0.375)[-1].tolist() == [25.5, 13.5]


@pytest.mark.parametrize("name", ["AcidPlantLE", "AbyssalReefLE"])
def test_every_ground_unit_walks_down_the_main_ramp(name):
    # in the real game every ground unit up to radius 1 (Thor, Ultralisk, Archon) uses the main ramp
    lm = load_map(find_map(name))
    pf = PathFinder(lm.pathable)
    (ax, ay), (bx, by) = lm.start_locations[:2]
    for radius in (0.375, 0.625, 0.875, 1.0):  # Probe, Stalker / Hydralisk, Siege Tank, Thor
        d = pf.distance((ax + 4, ay + 4), (bx + 4, by + 4), radius)
        assert d is not None and d > math.hypot(bx - ax, by - ay) * 0.9, (name, radius)


def test_set_blocked_accepts_masks_and_cell_lists():
    g = np.ones((20, 20), dtype=bool)
    pf = PathFinder(g)
    pf.set_blocked(7, np.array([[3, 4], [5, 6]]))
    assert not pf.pathable[4, 3] and not pf.pathable[6, 5]
    mask = np.zeros_like(g)
    mask[10:12, 10:12] = True
    pf.set_blocked(7, mask)  # replaces key 7's cells
    assert pf.pathable[4, 3] and not pf.pathable[11, 11]
    with pytest.raises(ValueError):
        pf.set_blocked(8, np.zeros((3, 3), dtype=bool))


@pytest.mark.parametrize("name", ["AcidPlantLE", "AbyssalReefLE"])
def test_main_to_main_on_a_ladder_map_stays_on_pathable_ground(name: str):
    m = load_map(find_map(name))  # type: ignore[arg-type]
    grid = start_pathing(m, 0)
    pf = PathFinder(grid)
    a, b = m.start_locations
    start = (a[0] + 4.0, a[1])  # beside the townhall
    goal = (b[0] + 4.0, b[1])
    p = pf.path(start, goal)
    assert np.hypot(*(p[-1] - np.array(goal))) < 1.5
    _assert_walkable(grid, start, p)
    d = pf.distance(start, goal)
    straight = math.dist(start, goal)
    assert d is not None and straight < d < 2 * straight
    # the path climbs down from the main: it passes through cells of lower cliff level
    levels = {int(m.level[y, x]) for x, y in _walk_cells(start, p)}
    assert len(levels) >= 2


def test_a_structure_on_a_ladder_map_blocks_its_cells():
    m = load_map(find_map("AcidPlantLE"))  # type: ignore[arg-type]
    pf = PathFinder(m.pathable)
    sx, sy = m.start_locations[0]
    cells = footprint_cells("CommandCenter", sx, sy)
    pf.set_blocked(1, cells)
    assert not pf.pathable[cells[:, 1], cells[:, 0]].any()
    p = pf.path((sx - 5.5, sy), (sx + 5.5, sy))
    _assert_walkable(pf.pathable, (sx - 5.5, sy), p)
    assert len(p) >= 2, "goes round the townhall"


def _inflated(terrain: np.ndarray, built: np.ndarray, radius: float) -> np.ndarray:
    """The cells a unit of ``radius`` may stand on, computed afresh (as PathFinder defines them):
    ``terrain`` cells block from their centre, ``built`` (structure) cells from their edge."""
    from scipy import ndimage

    free = terrain & ~built
    rc = max(0, math.ceil((radius - 0.5) / 0.25 - 1e-9))
    if rc == 0:
        return free
    far = ndimage.distance_transform_edt(terrain)
    if built.any():
        far = np.minimum(far, ndimage.distance_transform_edt(~built) - 0.5)
    return free & (far >= 0.5 + 0.25 * rc)


def _length(start, pts: np.ndarray) -> float:
    a = np.vstack([[start], pts])
    return float(np.hypot(*np.diff(a, axis=0).T).sum())


def test_structures_change_paths_as_a_fresh_pathfinder_would():
    """Structures placed and removed one by one (the grids and fields are updated in place) give
    the paths a PathFinder built afresh on the resulting grid gives."""
    m = load_map(find_map("AcidPlantLE"))  # type: ignore[arg-type]
    grid = start_pathing(m, 0)
    pf = PathFinder(grid)
    rng = np.random.default_rng(3)
    ys, xs = np.nonzero(grid)
    (ax, ay), (bx, by) = m.start_locations[:2]
    queries = [((xs[i] + 0.5, ys[i] + 0.5), (xs[j] + 0.5, ys[j] + 0.5)) for i, j in rng.integers(xs.size, size=(12, 2))]
    queries += [((ax + 4.0, ay), (bx, by)), ((ax + 4.0, ay), (ax - 9.0, ay + 3.0))]
    for r in (0.375, 1.25):  # fields and taut paths exist before the structures come
        for s, g in queries:
            pf.path(s, g, r)
    # depots and barracks round the main and on the way out of it, one taken down again
    built = {}
    for k in range(8):
        x, y = int(ax) + int(rng.integers(-12, 12)), int(ay) + int(rng.integers(-12, 12))
        built[k] = (slice(y, y + 3), slice(x, x + 3))
        pf.set_blocked(k, built[k])
    pf.set_blocked(3, None)
    del built[3]
    fresh = PathFinder(grid)  # the same structures, placed before any path was asked for
    mask = np.zeros_like(grid)
    for k, cells in built.items():
        fresh.set_blocked(k, cells)
        mask[cells] = True
    for r in (0.375, 1.25):
        free = _inflated(grid, mask, r)
        for s, g in queries:
            got, want = pf.path(s, g, r), fresh.path(s, g, r)
            assert got[-1].tolist() == pytest.approx(want[-1].tolist()), (s, g, r)
            assert _length(s, got) == pytest.approx(_length(s, want), rel=0.03), (s, g, r)
            if free[int(s[1]), int(s[0])]:
                _assert_walkable(free, s, got)
                assert all(free[int(y), int(x)] for x, y in got[:-1]), "every waypoint stands where the unit fits"


def test_units_wider_than_half_a_cell_go_down_acid_plants_diagonal_main_ramp():
    """AcidPlantLE's main ramps run diagonally on the pathing grid (the real client's grid: the
    engine's matches the capture's): a step down them passes the corner of two cells a
    Hydralisk's clearance does not cover at their centres, which the real game's Hydralisks,
    Marauders and Stalkers walk down. They used to be walled in (hydralisk_push's Hydralisks
    never left their main)."""
    m = load_map(find_map("AcidPlantLE"))  # type: ignore[arg-type]
    pf = PathFinder(start_pathing(m, 0))
    (ax, ay), (bx, by) = m.start_locations[:2]
    for r in (0.375, 0.5625, 0.625):  # a Zergling, a Marauder, a Hydralisk
        d = pf.distance((ax + 4.0, ay), (bx, by), r)
        assert d is not None and d < 1.35 * math.hypot(bx - ax, by - ay), r
        p = pf.path((ax + 4.0, ay), (bx, by), r)
        assert p[-1].tolist() == [bx, by]


def test_a_structure_in_a_passage_too_narrow_for_a_layer_updates_it_as_a_fresh_pathfinder():
    """A structure in a passage a wide unit's layer has no free cell in: the layer is updated
    (placed and removed) as a fresh PathFinder with the same structures builds it, not broken."""
    g = np.zeros((20, 30), dtype=bool)
    g[2:18, 2:12] = True
    g[2:18, 18:28] = True
    g[9, 12:18] = True  # a one-cell corridor between two rooms
    pf = PathFinder(g)
    start, goal = (6.5, 6.5), (24.5, 14.5)
    for r in (0.375, 0.625):
        pf.path(start, goal, r)
    pf.set_blocked(1, (slice(9, 10), slice(14, 15)))  # in the corridor
    fresh = PathFinder(g)  # the same structure, placed before any path was asked for
    fresh.set_blocked(1, (slice(9, 10), slice(14, 15)))
    for r in (0.375, 0.625):
        assert pf.path(start, goal, r).tolist() == fresh.path(start, goal, r).tolist()
    pf.set_blocked(1, None)
    fresh = PathFinder(g)
    for r in (0.375, 0.625):
        assert pf.path(start, goal, r).tolist() == fresh.path(start, goal, r).tolist()


def test_a_diagonal_gap_is_no_way_through():
    """Units do not cut corners: two free cells touching only at a corner do not connect, so the
    goal beyond is unreachable and the path ends at the nearest cell this side."""
    g = np.zeros((10, 10), dtype=bool)
    g[1:5, 1:5] = True
    g[5:9, 5:9] = True
    pf = PathFinder(g)
    p = pf.path((2.5, 2.5), (7.5, 7.5))
    assert p[-1].tolist() == [4.5, 4.5]
    assert pf.distance((2.5, 2.5), (7.5, 7.5)) is None


def test_short_moves_round_a_wall_and_long_ones_share_a_field():
    g = np.ones((60, 60), dtype=bool)
    g[0, :] = g[-1, :] = g[:, 0] = g[:, -1] = False
    g[20:40, 30] = False  # a wall across the middle
    pf = PathFinder(g)
    short = pf.path((28.5, 30.5), (32.5, 30.5))  # a short move round the wall's end
    assert len(short) >= 2 and short[-1].tolist() == [32.5, 30.5]
    _assert_walkable(pf.pathable, (28.5, 30.5), short)
    # a squad from the same spot: the first unit's taut path serves the others
    paths = [pf.path((10.5 + 0.1 * k, 30.5), (50.5, 30.5)) for k in range(10)]
    for k, p in enumerate(paths):
        _assert_walkable(pf.pathable, (10.5 + 0.1 * k, 30.5), p)
        assert p[-1].tolist() == [50.5, 30.5]
        assert len(p) == len(paths[0])
