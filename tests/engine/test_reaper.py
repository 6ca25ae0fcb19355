"""The Reaper walks up and down cliffs (``sim/systems/pathing.py``: ``JUMPERS``, ``jump_grid``):
on a ladder map it crosses a cliff between two levels that other ground units walk round."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from test_melee import joined

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems.pathing import jump_grid
from sc2pool.engine.sim.units import TYPES

REAPER = 49


def _cliff(g: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """Two points near player 1's start on pathable cells of different levels, a cliff between
    them: a few cells apart in a straight line, much further for a walker."""
    w = g.world
    m = w.map
    path = np.asarray(m.pathable, dtype=bool)
    level = np.asarray(m.ladder.level)
    cliff = jump_grid(m) & ~path
    sx, sy = g.scenario.starts[1]
    ys, xs = np.nonzero(cliff)
    order = np.argsort(np.hypot(xs + 0.5 - sx, ys + 0.5 - sy))
    for k in order[:400].tolist():
        cx, cy = int(xs[k]), int(ys[k])
        win = [(x, y) for x in range(cx - 4, cx + 5) for y in range(cy - 4, cy + 5)
               if 0 <= x < m.width and 0 <= y < m.height and path[y, x]]
        levels = {int(level[y, x]) for x, y in win}
        if len(levels) < 2:
            continue
        hi, lo = max(levels), min(levels)
        a = min((p for p in win if level[p[1], p[0]] == hi), key=lambda p: math.hypot(p[0] - cx, p[1] - cy))
        b = min((p for p in win if level[p[1], p[0]] == lo), key=lambda p: math.hypot(p[0] - cx, p[1] - cy))
        pa, pb = (a[0] + 0.5, a[1] + 0.5), (b[0] + 0.5, b[1] + 0.5)
        walk = w.pathing.distance(pa, pb, 0.375)
        if walk == 0.0 or walk > 4 * math.dist(pa, pb) + 8:
            return pa, pb
    raise AssertionError("no cliff near the start")


def test_a_reaper_crosses_a_cliff_that_a_marine_walks_round() -> None:
    g = joined()
    w = g.world
    a, b = _cliff(g)
    straight = math.dist(a, b)
    [reaper] = w.spawn(REAPER, 1, [a[0]], [a[1]]).tolist()
    [marine] = w.spawn(D.MARINE, 1, [a[0]], [a[1]]).tolist()
    assert w.command(1, D.MOVE_MOVE, [reaper, marine], b, 0, False) == C.SUCCESS
    loops = int(math.ceil((straight + 3.0) / TYPES.speed[TYPES.row(REAPER)]))
    crossed = False
    for _ in range(loops):
        g.step(1)
        r = w.u.row(reaper)
        x, y = float(w.u.x[r]), float(w.u.y[r])
        crossed |= not bool(w.map.pathable[int(y), int(x)])
    r, mr = w.u.row(reaper), w.u.row(marine)
    assert math.dist((float(w.u.x[r]), float(w.u.y[r])), b) < 1.0  # arrived, straight over the cliff
    assert crossed  # (through cells no other ground unit stands on)
    assert math.dist((float(w.u.x[mr]), float(w.u.y[mr])), b) > 2.0  # the Marine walks round
    # back up: the Reaper climbs it again
    assert w.command(1, D.MOVE_MOVE, [reaper], a, 0, False) == C.SUCCESS
    g.step(loops)
    r = w.u.row(reaper)
    assert math.dist((float(w.u.x[r]), float(w.u.y[r])), a) < 1.0


def test_other_ground_units_never_stand_on_a_cliff_and_reapers_only_on_cliffs_between_levels() -> None:
    g = joined()
    m = g.world.map
    grid = jump_grid(m)
    path = np.asarray(m.pathable, dtype=bool)
    assert (grid | ~path).all()  # every pathable cell is a Reaper's too
    extra = grid & ~path
    assert 0 < extra.sum() < 0.2 * (~path).sum()  # the cliff bands, not every unpathable cell
