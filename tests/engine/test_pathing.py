"""Terrain in the simulation (sc2pool/engine/sim/systems/pathing.py): on real ladder maps ground
units walk paths round cliffs, ramps, structures, resources and rocks, never stand on a blocked
cell, and the game reports the blocked cells and path distances; flying units fly straight."""

from __future__ import annotations

import math

import numpy as np
import pytest
from s2clientprotocol import common_pb2, debug_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.game import Game
from sc2pool.engine.sim.units import IDLE, NEUTRAL_OWNER, TYPES
from tests.engine.game_helpers import command, joined

MAPS = ["AbyssalReefLE", "AcidPlantLE", "BlackpinkLE"]
BUILD_BARRACKS, BUILD_DEPOT = 321, 319
MEDIVAC = 54


def melee(name: str, seed: int = 3) -> Game:
    """A melee game on the map with one Terran participant (its SCVs mining, nobody else)."""
    return joined(f"{name}.SC2Map", seed=seed)


def spawn(g: Game, unit_id: int, x: float, y: float, n: int = 1, owner: int = 1) -> list[int]:
    """Debug-create ``n`` units (the API a bot uses); returns their tags."""
    req = sc_pb.RequestDebug()
    for _ in range(n):
        req.debug.add().create_unit.CopyFrom(debug_pb2.DebugCreateUnit(
            unit_type=unit_id, owner=owner, pos=common_pb2.Point2D(x=x, y=y), quantity=1))
    before = set(g.world.u.tag.tolist())
    g.debug(1, req)
    return sorted(set(g.world.u.tag.tolist()) - before)


def starts(g: Game) -> tuple[tuple[float, float], tuple[float, float]]:
    own = g.scenario.starts[1]  # type: ignore[attr-defined]
    other = max(g.scenario.map.start_locations, key=lambda p: math.hypot(p[0] - own[0], p[1] - own[1]))
    return own, other


def free_grid(g: Game) -> np.ndarray:
    w = g.world
    return w.pathing.free.reshape(w.map.height, w.map.width)


def cell_free(g: Game, x: float, y: float) -> bool:
    return bool(free_grid(g)[int(math.floor(y)), int(math.floor(x))])


def ground_positions(g: Game, tags: list[int]) -> list[tuple[float, float]]:
    u = g.world.u
    rows = u.rows(np.array(tags))
    return [(float(u.x[r]), float(u.y[r])) for r in rows.tolist() if r >= 0]


def beside(g: Game, x: float, y: float, r: float = 6.0) -> tuple[float, float]:
    """A free point about ``r`` from (x, y), towards the map's centre (a start location's main)."""
    cx, cy = g.world.map.center
    d = math.hypot(cx - x, cy - y)
    return g.world.pathing_point(x + (cx - x) / d * r, y + (cy - y) / d * r)


# ---------------------------------------------------------------------------- walking on terrain
@pytest.mark.parametrize("name", MAPS)
def test_a_marine_walks_from_one_main_to_the_other_down_and_up_the_ramps(name: str) -> None:
    g = melee(name)
    w = g.world
    own, other = starts(g)
    a, b = beside(g, *own), beside(g, *other)
    (m,) = spawn(g, D.MARINE, *a)
    assert g.action(1, command(D.MOVE_MOVE, [m], b)).result[0] == 1
    base = np.asarray(w.map.pathable, dtype=bool)
    zs = []
    for _ in range(3000):
        g.step(1)
        r = w.u.row(m)
        x, y = float(w.u.x[r]), float(w.u.y[r])
        assert base[int(y), int(x)] and cell_free(g, x, y), (w.loop, x, y)
        zs.append(float(w.map.z(x, y)))
        if w.u.kind[r] == IDLE:
            break
    assert w.u.kind[r] == IDLE, "the marine did not arrive"
    assert math.hypot(x - b[0], y - b[1]) < 0.5
    # down the main's ramp, up the other's (both mains are high ground)
    assert min(zs) < zs[0] - 1.0 and abs(zs[-1] - zs[0]) < 1.0
    # a path, not the straight line: longer than it, and the walk took as long as its length
    straight = math.hypot(b[0] - a[0], b[1] - a[1])
    assert w.loop * float(TYPES.speed[TYPES.row(D.MARINE)]) > straight * 1.02


def _unpathable_point(g: Game, near: tuple[float, float]) -> tuple[float, float]:
    """The centre of an unpathable cell inside the playable area, 3 to 12 from ``near``, whose four
    side neighbours are unpathable too (a cliff, not a doodad's single cell)."""
    w = g.world
    base = np.asarray(w.map.pathable, dtype=bool)
    x0, y0, x1, y1 = w.map.playable
    best = None
    for dy in range(-12, 13):
        for dx in range(-12, 13):
            cx, cy = int(near[0]) + dx, int(near[1]) + dy
            if not (x0 + 1 <= cx < x1 - 1 and y0 + 1 <= cy < y1 - 1) or not 3 <= math.hypot(dx, dy) <= 12:
                continue
            if not (base[cy, cx] or base[cy - 1, cx] or base[cy + 1, cx] or base[cy, cx - 1] or base[cy, cx + 1]):
                d = math.hypot(dx, dy)
                if best is None or d < best[0]:
                    best = (d, (cx + 0.5, cy + 0.5))
    assert best is not None
    return best[1]


@pytest.mark.parametrize("name", MAPS)
def test_a_unit_ordered_onto_a_cliff_stops_at_the_nearest_reachable_point(name: str) -> None:
    g = melee(name)
    w = g.world
    own, _ = starts(g)
    a = beside(g, *own)
    (m,) = spawn(g, D.MARINE, *a)
    goal = _unpathable_point(g, a)
    assert not cell_free(g, *goal)
    g.action(1, command(D.MOVE_MOVE, [m], goal))
    g.step(1)
    r = w.u.row(m)
    # the order reports the point it was given
    assert (float(w.u.tx[r]), float(w.u.ty[r])) == pytest.approx(goal)
    for _ in range(600):
        g.step(4)
        r = w.u.row(m)
        if w.u.kind[r] == IDLE:
            break
    assert w.u.kind[r] == IDLE
    x, y = float(w.u.x[r]), float(w.u.y[r])
    assert cell_free(g, x, y)
    # the nearest cell it can reach (from its own component) is where it stands
    lay = w.pathing.finder._layer(float(w.u.radius[r]))
    comp = lay.labels[int(a[1]), int(a[0])]
    ys, xs = np.nonzero(lay.labels == comp)
    nearest = float(np.min(np.hypot(xs + 0.5 - goal[0], ys + 0.5 - goal[1])))
    assert math.hypot(x - goal[0], y - goal[1]) <= nearest + 0.75


def test_twelve_marines_attack_moving_across_the_map_arrive_never_on_a_blocked_cell() -> None:
    g = melee("AbyssalReefLE")
    w = g.world
    own, other = starts(g)
    a, b = beside(g, *own), beside(g, *other)
    tags = spawn(g, D.MARINE, *a, n=12)
    assert len(tags) == 12
    g.action(1, command(D.ATTACK_ATTACK, tags, b))
    for _ in range(4000):
        g.step(1)
        for x, y in ground_positions(g, tags):
            assert cell_free(g, x, y), (w.loop, x, y)
        u = w.u
        if not np.count_nonzero(u.kind[u.rows(np.array(tags))] != IDLE):
            break
    pos = np.array(ground_positions(g, tags))
    assert len(pos) == 12
    assert np.all(u.kind[u.rows(np.array(tags))] == IDLE), "not every marine arrived"
    assert np.max(np.hypot(pos[:, 0] - b[0], pos[:, 1] - b[1])) < 4.0  # a ball round the point


def test_flying_units_ignore_terrain() -> None:
    g = melee("AbyssalReefLE")
    w = g.world
    own, _ = starts(g)
    a = beside(g, *own)
    goal = _unpathable_point(g, a)
    tag = int(w.spawn(MEDIVAC, 1, [a[0]], [a[1]])[0])
    g.action(1, command(D.MOVE_MOVE, [tag], goal))
    off_grid = 0
    for _ in range(400):
        g.step(1)
        r = w.u.row(tag)
        x, y = float(w.u.x[r]), float(w.u.y[r])
        # always on the straight line from a to the goal
        cross = (goal[0] - a[0]) * (y - a[1]) - (goal[1] - a[1]) * (x - a[0])
        assert abs(cross) / math.hypot(goal[0] - a[0], goal[1] - a[1]) < 1e-6
        off_grid += not cell_free(g, x, y)
        if w.u.kind[r] == IDLE:
            break
    assert (x, y) == pytest.approx(goal)
    assert off_grid > 0  # it flew over the cliff


def test_new_units_appear_on_free_cells() -> None:
    g = melee("AbyssalReefLE")
    own, _ = starts(g)
    goal = _unpathable_point(g, beside(g, *own))
    tags = spawn(g, D.MARINE, *goal, n=3)
    for x, y in ground_positions(g, tags):
        assert cell_free(g, x, y)
    # on top of the Command Center: beside it
    tags = spawn(g, D.MARINE, *own, n=2)
    for x, y in ground_positions(g, tags):
        assert cell_free(g, x, y)


# ---------------------------------------------------------------------------- structures, rocks
def _ramp_top(g: Game, own: tuple[float, float]) -> tuple[float, float]:
    """The ramp cell (pathable, not placeable) within 30 of the start whose height is the highest
    below the main's: the top of the main's ramp."""
    m = g.world.map
    base = np.asarray(m.pathable, dtype=bool)
    place = np.asarray(m.placeable, dtype=bool)
    ys, xs = np.nonzero(base & ~place)
    d = np.hypot(xs + 0.5 - own[0], ys + 0.5 - own[1])
    ok = d < 30
    xs, ys, d = xs[ok], ys[ok], d[ok]
    main_z = m.z(own[0], own[1])
    zs = np.array([m.z(x + 0.5, y + 0.5) for x, y in zip(xs, ys, strict=True)])
    below = zs < main_z - 0.2
    i = int(np.argmax(np.where(below, zs - 0.01 * d, -np.inf)))
    return float(xs[i]) + 0.5, float(ys[i]) + 0.5


def _site(g: Game, ability: int, near: tuple[float, float], lo: float, hi: float) -> tuple[float, float]:
    w = g.world
    best = None
    for dy in np.arange(-hi, hi + 0.5, 0.5):
        for dx in np.arange(-hi, hi + 0.5, 0.5):
            d = math.hypot(dx, dy)
            if lo <= d <= hi and w.placement.check(ability, near[0] + dx, near[1] + dy) == 1:
                if best is None or d < best[0]:
                    best = (d, (float(near[0] + dx), float(near[1] + dy)))
    assert best is not None
    return best[1]


def test_structures_block_the_pathing_grid_and_units_walk_round_them() -> None:
    g = melee("AbyssalReefLE")
    w = g.world
    own, _ = starts(g)
    w.supply.minerals[1] = 1000
    scvs = w.u.tag[w.u.unit_id == D.SCV].tolist()
    top = _ramp_top(g, own)
    depot = _site(g, BUILD_DEPOT, top, 1.5, 4.0)
    rax = _site(g, BUILD_BARRACKS, (own[0] + (top[0] - own[0]) * 0.5, own[1] + (top[1] - own[1]) * 0.5), 0.0, 8.0)
    assert g.action(1, command(BUILD_DEPOT, [scvs[0]], depot)).result[0] == 1
    for _ in range(150):  # (the Barracks needs a finished Supply Depot)
        g.step(8)
        if w.construction.ready_of(1, D.SUPPLYDEPOT):
            break
    assert g.action(1, command(BUILD_BARRACKS, [scvs[1]], rax)).result[0] == 1
    for _ in range(100):
        g.step(8)
        if D.BARRACKS in w.u.unit_id.tolist():
            break
    assert {D.SUPPLYDEPOT, D.BARRACKS} <= set(w.u.unit_id.tolist())
    gi = g.game_info(1)
    grid = np.unpackbits(np.frombuffer(gi.start_raw.pathing_grid.data, dtype=np.uint8)).reshape(
        w.map.height, w.map.width).astype(bool)
    for uid, half in ((D.SUPPLYDEPOT, 1.0), (D.BARRACKS, 1.5)):
        r = int(np.nonzero(w.u.unit_id == uid)[0][0])
        x, y = float(w.u.x[r]), float(w.u.y[r])
        cells = grid[int(y - half + 0.5):int(y + half + 0.5), int(x - half + 0.5):int(x + half + 0.5)]
        assert cells.size and not cells.any(), uid
        assert not free_grid(g)[int(y), int(x)]
    # a marine sent from one side of the barracks to the other walks round it
    r = int(np.nonzero(w.u.unit_id == D.BARRACKS)[0][0])
    bx, by = float(w.u.x[r]), float(w.u.y[r])
    a = w.pathing_point(bx - 3.2, by)
    b = w.pathing_point(bx + 3.2, by)
    (m,) = spawn(g, D.MARINE, *a)
    g.action(1, command(D.MOVE_MOVE, [m], b))
    for _ in range(400):
        g.step(1)
        (p,) = ground_positions(g, [m])
        assert cell_free(g, *p)
        assert not (abs(p[0] - bx) < 1.5 and abs(p[1] - by) < 1.5)
        if w.u.kind[w.u.row(m)] == IDLE:
            break
    assert math.hypot(p[0] - b[0], p[1] - b[1]) < 0.5


def test_a_destroyed_rock_frees_its_cells() -> None:
    g = melee("AbyssalReefLE")
    w = g.world
    u = w.u
    rocks = [int(t) for t, r in zip(u.tag.tolist(), range(len(u)), strict=True)
             if u.owner[r] == NEUTRAL_OWNER and t in w.pathing.blocked_cells() and t not in w.harvest.resources]
    assert rocks
    tag = rocks[0]
    cells = w.pathing.blocked_cells()[tag].copy()
    assert not w.pathing.free[cells].any()
    assert np.asarray(w.map.pathable, dtype=bool).reshape(-1)[cells].any()
    g.step(8)
    req = sc_pb.RequestDebug()
    req.debug.add().kill_unit.tag.append(tag)
    g.debug(1, req)
    g.step(8)
    base = np.asarray(w.map.pathable, dtype=bool).reshape(-1)
    assert (w.pathing.free[cells] == base[cells]).all()
    grid = np.unpackbits(np.frombuffer(g.game_info(1).start_raw.pathing_grid.data, dtype=np.uint8)).astype(bool)
    assert (grid[cells] == base[cells]).all()
    # and paths go through: a point inside the rock's footprint is reachable now
    c = int(cells[base[cells]][len(cells[base[cells]]) // 2])
    goal = (c % w.map.width + 0.5, c // w.map.width + 0.5)
    assert w.pathing.finder.distance(beside(g, *starts(g)[0]), goal, 0.375) is not None


def test_workers_mining_never_enter_mineral_or_townhall_footprints() -> None:
    g = melee("AbyssalReefLE")
    w = g.world
    u = w.u
    res = [t for t in w.harvest.resources]
    th = [t for t, s in w.construction.structures.items()]
    blocked = np.zeros(w.map.width * w.map.height, dtype=bool)
    for t in res + th:
        blocked[w.pathing.blocked_cells()[t]] = True
    blocked = blocked.reshape(w.map.height, w.map.width)
    scvs = u.tag[u.unit_id == D.SCV].tolist()
    start = dict(w.supply.collected_minerals)
    for _ in range(900):
        g.step(1)
        for x, y in ground_positions(g, scvs):
            assert not blocked[int(y), int(x)], (w.loop, x, y)
    assert w.supply.collected_minerals[1] > start.get(1, 0) + 100


# ---------------------------------------------------------------------------- queries
def test_query_pathing_distances() -> None:
    g = melee("AbyssalReefLE")
    own, other = starts(g)
    a, b = beside(g, *own), beside(g, *other)
    (m,) = spawn(g, D.MARINE, *a)
    cliff = _unpathable_point(g, a)
    req = query_pb2.RequestQuery()
    req.pathing.add(start_pos=common_pb2.Point2D(x=a[0], y=a[1]), end_pos=common_pb2.Point2D(x=b[0], y=b[1]))
    req.pathing.add(unit_tag=m, end_pos=common_pb2.Point2D(x=b[0], y=b[1]))
    req.pathing.add(start_pos=common_pb2.Point2D(x=a[0], y=a[1]), end_pos=common_pb2.Point2D(x=cliff[0], y=cliff[1]))
    near = (a[0] + 1.0, a[1])
    req.pathing.add(start_pos=common_pb2.Point2D(x=a[0], y=a[1]), end_pos=common_pb2.Point2D(x=near[0], y=near[1]))
    d = [p.distance for p in g.query(1, req).pathing]
    straight = math.hypot(b[0] - a[0], b[1] - a[1])
    assert d[0] > straight * 1.02 and d[1] == pytest.approx(d[0], rel=1e-6)
    assert d[2] == 0.0  # unreachable, as the real client answers
    assert d[3] == pytest.approx(1.0) if cell_free(g, *near) else d[3] >= 1.0
    # every reachable point: at least the straight line
    rng = np.random.default_rng(0)
    ys, xs = np.nonzero(free_grid(g))
    for i in rng.choice(len(xs), 20, replace=False).tolist():
        q = query_pb2.RequestQuery()
        p = (xs[i] + 0.5, ys[i] + 0.5)
        q.pathing.add(start_pos=common_pb2.Point2D(x=a[0], y=a[1]), end_pos=common_pb2.Point2D(x=p[0], y=p[1]))
        dist = g.query(1, q).pathing[0].distance
        assert dist == 0.0 or dist >= math.hypot(p[0] - a[0], p[1] - a[1]) - 1e-4


# ---------------------------------------------------------------------------- exact fast-forwarding
def test_shortcuts_do_not_change_a_game_on_terrain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Marines sent across a ladder map (paths, waypoints, ramps, collisions, SCVs mining) end the
    same with the world's fast-forwarding disabled."""
    from sc2pool.engine.sim.world import World

    def play() -> tuple[list[tuple[float, float]], int]:
        g = melee("AbyssalReefLE", seed=5)
        own, other = starts(g)
        tags = spawn(g, D.MARINE, *beside(g, *own), n=6)
        far = beside(g, *other)
        for i in range(90):
            if i % 30 == 0:
                goal = far if i % 60 == 0 else beside(g, *own, r=9.0)
                g.action(1, command(D.MOVE_MOVE if i % 60 else D.ATTACK_ATTACK, tags, goal))
            g.step(8)
        return ground_positions(g, tags + g.world.u.tag[g.world.u.unit_id == D.SCV].tolist()), g.game_loop

    fast = play()
    monkeypatch.setattr(World, "quiet_horizon", lambda self: 1)
    slow = play()
    assert fast == slow
