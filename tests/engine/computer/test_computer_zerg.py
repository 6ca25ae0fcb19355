"""The Zerg Computer's economy and defence (``sc2pool.engine.computer.zerg``): its larvae go to
the army as well as to drones, its Queens spread their injects over its hatcheries and defend its
bases, a wave that walked back does not walk out again into the same army.  Real games in process
(the participant idle), as ``test_computer_race_games.py`` plays them."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_computer_melee import computer, count, melee, play_until  # noqa: E402
from test_computer_protoss import no_attack, rows, spawn  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.computer.melee import RETREAT_RATIO  # noqa: E402
from sc2pool.engine.computer.rules import strength  # noqa: E402
from sc2pool.engine.computer.zerg import ZergRules  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402
from sc2pool.engine.sim.units import ATTACK_MOVE, ATTACK_UNIT, TYPES  # noqa: E402


def army_supply(g: Game) -> float:
    u = g.world.u
    mine = (u.owner == 2) & np.isin(u.unit_id, R.ZERG_PROFILE.army)
    return float(TYPES.food[u.ti[mine]].sum())


@pytest.mark.timeout(300)
def test_very_hard_keeps_an_army_beside_its_drones_and_spreads_its_injects() -> None:
    """VeryHard's cap of 66 workers: it used to put every larva into drones until it had them all
    (no army at 6:00), and all its Queens queued their injects on its main."""
    g = melee(L.VERY_HARD, L.RUSH, seed=5, race=D.ZERG)
    no_attack(g)
    play_until(g, 360)
    drones = count(g, 2, R.DRONE)
    assert drones >= R.DRONES_ALONE
    assert army_supply(g) >= R.ARMY_PER_DRONE * (drones - R.DRONES_ALONE) - 4, (drones, army_supply(g))
    c = computer(g)
    hatcheries = [s for s in c.structs if s.unit_id in c.townhall_types and s.ready]
    injects = [len(g.world.larva.injects.get(s.tag, [])) for s in hatcheries]
    assert len(hatcheries) >= 3 and max(injects) <= 1 and sum(injects) >= 2, injects


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty, defend", [(L.VERY_HARD, True), (L.MEDIUM, False)])
def test_queens_defend_and_larvae_go_to_the_army_under_attack(difficulty: int, defend: bool) -> None:
    g = melee(difficulty, L.RUSH, seed=5, race=D.ZERG)
    no_attack(g)
    c = computer(g)
    z = c.rules
    assert isinstance(z, ZergRules)
    play_until(g, 240)
    assert count(g, 2, R.QUEEN) >= 1
    hatch = min((s for s in c.structs if s.unit_id == R.HATCHERY),
                key=lambda s: (s.x - c.home[0]) ** 2 + (s.y - c.home[1]) ** 2)
    spawn(g, D.MARINE, 1, (hatch.x + 6.0, hatch.y + 6.0), 8)
    # (drones already in their eggs hatch meanwhile: counted with the drones)
    drones_before = count(g, 2, R.DRONE) + sum(n for _, t, n in z.hatching if t == R.DRONE)
    fought = False
    for k in range(1, 9):
        play_until(g, 240 + k)
        u = g.world.u
        queens = (u.owner == 2) & (u.unit_id == R.QUEEN)
        fought |= bool((queens & ((u.kind == ATTACK_MOVE) | (u.kind == ATTACK_UNIT))).any())
    assert fought == defend
    if defend:  # (no new drone from a larva while the enemy is at its base: they go to the army)
        assert not any(t == R.DRONE and hatch_loop > 240 * 22.4 + 22
                       for hatch_loop, t, _ in z.hatching), z.hatching
        assert count(g, 2, R.DRONE) <= drones_before


@pytest.mark.timeout(300)
@pytest.mark.parametrize("difficulty", [L.HARDER, L.VERY_HARD])
def test_no_wave_back_into_the_army_it_walked_back_from(difficulty: int) -> None:
    g = melee(difficulty, L.RUSH, seed=5, race=D.ZERG)
    c = computer(g)
    no_attack(g)
    play_until(g, 30)
    tags = spawn(g, R.ZERGLING, 2, c.staging(g.world), 16)
    play_until(g, 31)
    home = rows(g, tags)
    c.build = dataclasses.replace(c.build, first_attack_s=0.0, first_wave=4)
    c.fled = strength(home, g.world.u) * 2 / RETREAT_RATIO  # (it walked back from twice its strength)
    c.launch(g.world, home)
    assert not c.wave
    c.fled = 0.0  # (the enemy came to its base, or its next wave went)
    c.launch(g.world, home)
    assert c.wave
