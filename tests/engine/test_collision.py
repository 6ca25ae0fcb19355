"""Ground-unit collision: units keep apart by their radii, groups form balls, splash is local."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_game_api import command, joined

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.scenarios import SCENARIOS
from sc2pool.engine.sim.systems.collision import SEPARATION_EPS
from sc2pool.engine.sim.units import ECON, HOLD, IDLE, NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import World

ARENA = MapSpec("Test", 64, 64, (0, 0, 64, 64))
OVERLAP_TOL = 0.15
"""Largest overlap (world units, edge to edge) tolerated after a step, a fifth of a marine's
diameter: the separation passes resolve overlaps to 0.07 per loop, but a crowd of a hundred pressed
against units holding their ground keeps up to about 0.12 for a loop or two."""
TRAIN_MARINE = 560  # BARRACKSTRAIN_MARINE
EXTRA_PLAYERS: dict[str, tuple[dict[str, int], ...]] = {"Skirmish": ({"type": 2, "race": 2, "difficulty": 3},)}


def worst_overlap(w: World) -> float:
    """Largest overlap between two ground units (0 when all are apart).  Workers on an economy job
    are left out: harvesting workers pass through other units in the real game too."""
    u = w.u
    g = np.nonzero(~TYPES.is_flying[u.ti] & ~u.neutral & (u.kind != ECON))[0]
    if len(g) < 2:
        return 0.0
    d = np.hypot(u.x[g][:, None] - u.x[g][None, :], u.y[g][:, None] - u.y[g][None, :])
    gap = d - u.radius[g][:, None] - u.radius[g][None, :]
    gap[np.arange(len(g)), np.arange(len(g))] = np.inf
    return float(max(0.0, -gap.min()))


def settle(w: World, loops: int) -> None:
    for _ in range(loops):
        h = w.quiet_horizon()
        if h > 1:
            w.fast_forward(h)
        else:
            w.step_loop()


cmd = st.tuples(
    st.sampled_from([D.MOVE_MOVE, D.ATTACK_ATTACK, D.HOLDPOSITION_HOLD, D.STOP_STOP, D.ATTACK_ATTACK]),
    st.floats(0.0, 1.0),  # share of own units commanded
    st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)),  # target point, relative to the arena
    st.integers(1, 24),  # loops to step afterwards
)


@pytest.mark.timeout(180)
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SCENARIOS)), seed=st.integers(0, 2**31), cmds=st.lists(cmd, max_size=10))
def test_no_ground_units_overlap_after_any_step(name: str, seed: int, cmds: list) -> None:  # type: ignore[type-arg]
    g = joined(f"{name}.SC2Map", *EXTRA_PLAYERS.get(name, ()), seed=seed)
    x0, y0, x1, y1 = g.scenario.map.playable
    for ability, share, (fx, fy), loops in cmds:
        u = g.world.u
        own = u.tag[u.owner == 1].tolist()
        pick = own[: max(1, int(round(share * len(own))))] if own else []
        if pick:
            pos = None if ability in (D.HOLDPOSITION_HOLD, D.STOP_STOP) else (x0 + fx * (x1 - x0), y0 + fy * (y1 - y0))
            g.action(1, command(ability, pick, pos))
        g.step(loops)
        assert worst_overlap(g.world) <= OVERLAP_TOL, (name, g.world.loop)
        if g.ended:
            break


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("name", "steps"), [
    ("DefeatZerglingsAndBanelings", 240),  # a whole episode: the scripted attack clears several waves
    ("DefeatRoaches", 240),
    ("FindAndDefeatZerglings", 120),
    ("Skirmish", 120),
    ("Battle100v100", 80),  # the armies meet at about loop 200 and fight it out
])
def test_no_ground_units_overlap_in_a_scenarios_own_play(name: str, steps: int) -> None:
    """A scripted agent (every 4 steps: attack-move every own unit to the first enemy unit, as
    ``benchmarks/bench_sim.py`` does) plays each combat scenario through waves, respawns and a full
    engagement; after every ``step(8)`` no two ground units overlap beyond the tolerance."""
    g = joined(f"{name}.SC2Map", *EXTRA_PLAYERS.get(name, ()), seed=1)
    worst = 0.0
    for i in range(steps):
        if g.ended:
            g.restart()
        u = g.world.u
        if i % 4 == 0:
            own = u.tag[u.owner == 1].tolist()
            foes = np.nonzero((u.owner != 1) & (u.owner != NEUTRAL_OWNER))[0]
            if own and len(foes):
                g.action(1, command(D.ATTACK_ATTACK, own, (float(u.x[foes[0]]), float(u.y[foes[0]]))))
        g.step(8)
        worst = max(worst, worst_overlap(g.world))
        assert worst <= OVERLAP_TOL, (name, i, g.world.loop, worst)


def test_trained_units_leave_their_structure_side_by_side() -> None:
    g = joined("TerranEconomy.SC2Map", seed=1)
    world = g.world
    assert world.has_economy
    barracks = world.construction.add_structure(D.BARRACKS, 1, 32.5, 26.5)
    for k in range(3):
        world.construction.add_structure(D.SUPPLYDEPOT, 1, 40.0, 20.0 + 3 * k)
    world.supply.minerals[1] = 10_000
    worst = 0.0
    for _ in range(40):  # no rally: every marine leaves at the same edge of the barracks
        if len(world.construction.structures[barracks].queue) < 2:
            g.action(1, command(TRAIN_MARINE, [barracks]))
        g.step(64)
        worst = max(worst, worst_overlap(g.world))
    assert int(np.count_nonzero(g.world.u.unit_id == D.MARINE)) >= 5
    assert worst <= 1e-9  # each one beside the last, not on it


def test_units_created_on_a_taken_spot_go_to_the_nearest_free_one() -> None:
    w = World(ARENA)
    w.spawn(D.ROACH, 2, [20.0], [20.0])
    tags = w.spawn(D.MARINE, 1, np.full(6, 20.0), np.full(6, 20.0), free=True)
    assert worst_overlap(w) <= 1e-9  # nobody on top of anybody
    u = w.u
    rows = u.rows(tags)
    d = np.hypot(u.x[rows] - 20.0, u.y[rows] - 20.0)
    # the nearest free spots: right next to the roach (0.625 + 0.375), on its edge or the next ring
    assert np.all(d >= 1.0 - 1e-9) and np.all(d <= 1.0 + 2 * 0.375)
    assert np.unique(np.round(u.x[rows], 6)).size == 6
    free = w.spawn(D.MARINE, 1, [40.0], [40.0], free=True)  # a free point is kept as it is
    assert (u.x[u.row(int(free[0]))], u.y[u.row(int(free[0]))]) == (40.0, 40.0)


def test_nine_marines_moved_to_one_point_end_as_a_ball() -> None:
    w = World(ARENA)
    r = float(TYPES.radius[TYPES.row(D.MARINE)])
    tags = w.spawn(D.MARINE, 1, 10 + np.arange(9) % 3 * 2.0, 10 + np.arange(9) // 3 * 2.0)
    w.command(1, D.MOVE_MOVE, tags.tolist(), (30.0, 30.0), 0, False)
    settle(w, 400)
    u = w.u
    assert np.all(u.kind == IDLE)  # everybody arrived (at the point or against the ball)
    assert worst_overlap(w) <= SEPARATION_EPS  # resting overlaps below it are left alone
    cx, cy = float(u.x.mean()), float(u.y.mean())
    assert np.hypot(cx - 30.0, cy - 30.0) < 1.5  # the ball sits at the goal
    spread = float(np.hypot(u.x - cx, u.y - cy).max())
    # nine discs of radius r fill at least a disc of area 9 pi r^2 / 0.9069 (hexagonal packing,
    # the densest); a ball as units leave it when they stop against each other is looser, but
    # its packing density stays above 0.45 (stacked on one point: spread 0, a line: 3 units)
    tightest = r * np.sqrt(9 / 0.9069) - r
    loosest = r * np.sqrt(9 / 0.45) - r
    assert tightest <= spread <= loosest, spread
    # they did not stack: no two centres closer than two radii (less the tolerance)
    d = np.hypot(u.x[:, None] - u.x[None, :], u.y[:, None] - u.y[None, :]) + np.eye(9) * 99
    assert d.min() >= 2 * r - SEPARATION_EPS
    assert d.min(axis=1).max() <= 2 * r + 0.1  # one ball: every marine touches another


def test_baneling_on_a_separated_ball_hits_only_the_marines_its_radius_covers() -> None:
    w = World(ARENA)
    n = 40
    tags = w.spawn(D.MARINE, 1, 10 + np.arange(n) % 8 * 1.0, 10 + np.arange(n) // 8 * 1.0)
    w.command(1, D.MOVE_MOVE, tags.tolist(), (30.0, 30.0), 0, False)
    settle(w, 600)
    w.command(1, D.HOLDPOSITION_HOLD, tags.tolist(), None, 0, False)
    u = w.u
    # the baneling appears touching the marine furthest east and explodes at once
    east = int(np.argmax(u.x))
    bx = float(u.x[east]) + 2 * float(TYPES.radius[TYPES.row(D.BANELING)])
    by = float(u.y[east])
    bane = int(w.spawn(D.BANELING, 2, [bx], [by])[0])
    w.command(2, D.EXPLODE_EXPLODE, [bane], None, 0, False)
    splash = D.UNIT_BY_ID[D.BANELING].weapons[0].splash
    m = np.nonzero(u.owner == 1)[0]  # marine rows (before the baneling's row, so they stay put)
    covered = int(np.count_nonzero(np.hypot(u.x[m] - bx, u.y[m] - by) - u.radius[m] <= splash))
    hp0 = u.hp[m].copy()
    w.step_loop()
    assert w.u.row(bane) < 0 and len(w.u) == n  # the baneling is gone, every marine survived 35 damage
    hit = int(np.count_nonzero(w.u.hp[m] < hp0))
    assert 2 <= covered < n // 2  # the ball is wider than the splash
    assert hit == covered


def test_idle_units_yield_to_a_moving_ally() -> None:
    w = World(ARENA)
    wall = w.spawn(D.MARINE, 1, np.full(7, 20.0), 17.0 + np.arange(7) * 0.75)  # a touching line
    mover = int(w.spawn(D.MARINE, 1, [15.0], [19.25])[0])
    w.command(1, D.MOVE_MOVE, [mover], (25.0, 19.25), 0, False)
    settle(w, 200)
    i = w.u.row(mover)
    assert (w.u.x[i], w.u.y[i]) == pytest.approx((25.0, 19.25))  # walked through the line
    rows = w.u.rows(wall)
    assert np.abs(w.u.y[rows] - (17.0 + np.arange(7) * 0.75)).max() > 0.3  # someone stepped aside
    assert worst_overlap(w) <= SEPARATION_EPS


def test_units_on_hold_are_not_pushed_by_allies() -> None:
    w = World(ARENA)
    holder = int(w.spawn(D.MARINE, 1, [20.0], [20.0])[0])
    w.command(1, D.HOLDPOSITION_HOLD, [holder], None, 0, False)
    mover = int(w.spawn(D.MARINE, 1, [15.0], [20.0])[0])
    w.command(1, D.MOVE_MOVE, [mover], (25.0, 20.0), 0, False)
    settle(w, 200)
    h = w.u.row(holder)
    assert w.u.kind[h] == HOLD
    assert np.hypot(w.u.x[h] - 20.0, w.u.y[h] - 20.0) < 0.05
    assert worst_overlap(w) <= SEPARATION_EPS


def test_zerglings_surround_their_target_instead_of_stacking() -> None:
    w = World(ARENA)
    roach = int(w.spawn(D.ROACH, 2, [30.0], [30.0])[0])
    w.command(2, D.HOLDPOSITION_HOLD, [roach], None, 0, False)
    w.u.hp[w.u.row(roach)] = 1e6  # a target that outlives the test
    lings = w.spawn(D.ZERGLING, 1, np.full(12, 22.0), 27.0 + np.arange(12) * 0.5)
    w.command(1, D.ATTACK_ATTACK, lings.tolist(), None, roach, False)
    settle(w, 160)
    u = w.u
    r = w.u.row(roach)
    lr = w.u.rows(lings)
    gap = np.hypot(u.x[lr] - u.x[r], u.y[lr] - u.y[r]) - u.radius[lr] - u.radius[r]
    biting = gap <= D.UNIT_BY_ID[D.ZERGLING].weapons[0].range + 0.05
    # a ring of zerglings around the roach: as many as fit on its circumference, not all twelve
    ring = 2 * np.pi * (u.radius[r] + u.radius[lr[0]]) / (2 * u.radius[lr[0]])
    assert 5 <= int(biting.sum()) <= int(ring) + 1
    ang = np.sort(np.arctan2(u.y[lr][biting] - u.y[r], u.x[lr][biting] - u.x[r]))
    widest_gap = float(np.max(np.diff(np.concatenate((ang, ang[:1] + 2 * np.pi)))))
    assert widest_gap < np.pi  # they reached round the far side, not only the near one
    assert worst_overlap(w) <= OVERLAP_TOL


def test_flying_units_do_not_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    flying = TYPES.is_flying.copy()
    flying[TYPES.row(D.STALKER)] = True  # no flyer in the data yet: make one
    monkeypatch.setattr(TYPES, "is_flying", flying)
    w = World(ARENA)
    w.spawn(D.MARINE, 1, [20.0], [20.0])
    w.spawn(D.STALKER, 1, [20.0], [20.0])
    settle(w, 16)
    u = w.u
    assert np.hypot(u.x[0] - u.x[1], u.y[0] - u.y[1]) == 0.0
    w.spawn(D.MARINE, 1, [20.0], [20.0])  # two ground units on one point are pushed apart
    settle(w, 16)
    g = np.nonzero(w.u.unit_id == D.MARINE)[0]
    assert np.hypot(*(w.u.x[g[0]] - w.u.x[g[1]], w.u.y[g[0]] - w.u.y[g[1]])) >= 0.75 - SEPARATION_EPS


def test_collision_is_deterministic() -> None:
    def play() -> np.ndarray:
        w = World(ARENA)
        tags = w.spawn(D.MARINE, 1, np.full(20, 20.0), np.full(20, 20.0))  # all on one point
        w.command(1, D.MOVE_MOVE, tags[:10].tolist(), (30.0, 20.0), 0, False)
        settle(w, 200)
        return np.concatenate((w.u.x, w.u.y))

    a, b = play(), play()
    assert np.array_equal(a, b)
    assert np.unique(np.round(a[:20], 6)).size > 1
