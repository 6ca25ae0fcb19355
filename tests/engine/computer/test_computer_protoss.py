"""The Protoss Computer's army control at the higher levels (``sc2pool.engine.computer.melee``):
its structures keep the way out of its bases free, its waves wait while the enemy army it has seen
is stronger, its Sentries cast Guardian Shield in a fight.  Real games in process (the participant
idle), as ``test_computer_race_games.py`` plays them."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_computer_melee import computer, melee, play_until  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.computer.melee import SHIELD_ENERGY, WAY_OUT_RADIUS, WAY_OUT_ROOM  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402


def no_attack(g: Game) -> None:
    c = computer(g)
    c.build = dataclasses.replace(c.build, first_attack_s=math.inf)


def spawn(g: Game, unit_id: int, owner: int, at: tuple[float, float], n: int) -> np.ndarray:
    """Tags of ``n`` new units round ``at`` (in the store once the game has stepped)."""
    return g.world.spawn(unit_id, owner, np.full(n, at[0]) + np.arange(n) % 4 * 0.8,
                         np.full(n, at[1]) + np.arange(n) // 4 * 0.8, free=True)


def rows(g: Game, tags: np.ndarray) -> np.ndarray:
    r = g.world.u.rows(np.asarray(tags, dtype=np.int64))
    assert (r >= 0).all()
    return r


@pytest.mark.timeout(300)
def test_protoss_structures_leave_the_way_out_of_its_main_free() -> None:
    g = melee(L.HARD, L.MACRO, race=D.PROTOSS)
    no_attack(g)
    play_until(g, 360)
    c = computer(g)
    main = c.site_index(c.home)
    way = c.ways[main]
    assert len(way) > 20  # (planned down the ramp, not stopped at its top)
    structures = [s for s in g.world.construction.structures.values()
                  if s.owner == 2 and s.unit_id not in (R.NEXUS, R.ASSIMILATOR)]
    assert len(structures) >= 8
    for s in structures:
        h = 1.0 if s.unit_id == R.PYLON else 1.5
        dx = np.maximum(np.abs(way[:, 0] - s.x) - h, 0.0)
        dy = np.maximum(np.abs(way[:, 1] - s.y) - h, 0.0)
        assert float(np.sqrt(dx * dx + dy * dy).min()) >= WAY_OUT_ROOM - 1e-6, (s.unit_id, s.x, s.y)
    # a Zealot walks out of the main to the enemy's start
    finder = g.world.pathing.finder
    goal = c.candidates[0]
    hx, hy = c.home
    d = math.hypot(goal[0] - hx, goal[1] - hy)
    start = finder.nearest_pathable(hx + 6 * (goal[0] - hx) / d, hy + 6 * (goal[1] - hy) / d, WAY_OUT_RADIUS)
    end = finder.path(start, goal, WAY_OUT_RADIUS)[-1]
    assert math.hypot(end[0] - goal[0], end[1] - goal[1]) < 12.0


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, waits", [(L.HARD, True), (L.MEDIUM, False)])
def test_a_wave_waits_while_the_enemy_army_it_remembers_is_stronger(difficulty: int, waits: bool) -> None:
    g = melee(difficulty, L.RUSH, race=D.PROTOSS)
    c = computer(g)
    no_attack(g)  # (its own decisions launch nothing meanwhile)
    play_until(g, 30)
    zealots = spawn(g, R.ZEALOT, 2, c.staging(g.world), 8)
    marine_tags = spawn(g, D.MARINE, 1, c.candidates[0], 40)
    play_until(g, 31)
    c.now = g.world.loop
    home, marines = rows(g, zealots), rows(g, marine_tags)
    c.remember_army(g.world, marines)
    assert len(c.enemy_army) == 40
    c.build = dataclasses.replace(c.build, first_attack_s=0.0)
    c.launch(g.world, home)
    assert bool(c.wave) != waits
    if waits:  # (the enemy army it knew of is gone: the wave goes)
        c.enemy_army.clear()
        c.launch(g.world, home)
        assert c.wave


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, casts", [(L.HARD, True), (L.MEDIUM, False)])
def test_a_sentry_casts_guardian_shield_near_enemies(difficulty: int, casts: bool) -> None:
    g = melee(difficulty, L.TIMING, race=D.PROTOSS)
    no_attack(g)
    c = computer(g)
    at = c.staging(g.world)
    tag = int(spawn(g, R.SENTRY, 2, at, 1)[0])
    play_until(g, 40)  # (its energy grows from 50 to 75)
    w = g.world
    assert w.abilities.energy_of(tag) >= SHIELD_ENERGY
    marine_tags = spawn(g, D.MARINE, 1, (at[0] + 5.0, at[1]), 4)
    other = int(spawn(g, R.SENTRY, 2, at, 1)[0])
    play_until(g, 40.5)
    c.now = w.loop
    sentry, marines = rows(g, np.array([tag])), rows(g, marine_tags)
    c.shields(w, sentry, marines)
    assert (tag in w.protoss.guards) == casts
    assert (w.abilities.energy_of(tag) < SHIELD_ENERGY) == casts
    if casts:  # (a second Sentry beside it does not cast while its shield is up)
        w.abilities._set(other, 100.0)
        c.shields(w, rows(g, np.array([tag, other])), marines)
        assert other not in w.protoss.guards and w.abilities.energy_of(other) == 100.0
