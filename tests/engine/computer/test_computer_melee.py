"""The melee Computer (``sc2pool.engine.computer.melee``) plays the whole game as Terran.

Every game here runs in process through the Game API (the calls the server makes), the
participant (player 1) idle or scripted by the test, fast-forwarded in chunks of game seconds.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.computer import levels as L
from sc2pool.engine.computer.melee import MeleeComputer
from sc2pool.engine.computer.races import TERRAN_PROFILE
from sc2pool.engine.computer.terran import REAPER
from sc2pool.engine.game import Game
from sc2pool.engine.scenarios.base import COMPUTER, PARTICIPANT, VICTORY
from sc2pool.engine.sim.units import ATTACK_MOVE, ATTACK_UNIT

MAP = "AcidPlantLE"
LOOPS_PER_S = 22.4
TOWNHALLS = TERRAN_PROFILE.townhalls
"""Command Center, Orbital Command, Planetary Fortress (the Computer morphs its Command Centers
into Orbitals from Medium up)."""


def melee(difficulty: int, build: int = L.RANDOM_BUILD, map_name: str = MAP, seed: int = 7,
          race: int = D.TERRAN) -> Game:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"{map_name}.SC2Map"), random_seed=seed)
    req.player_setup.add(type=PARTICIPANT, race=D.TERRAN)  # type: ignore[arg-type]
    req.player_setup.add(type=COMPUTER, race=race, difficulty=difficulty, ai_build=build)  # type: ignore[arg-type]
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=D.TERRAN)) == 1  # type: ignore[arg-type]
    return g


def play_until(g: Game, seconds: float, chunk_s: float = 10.0) -> None:
    """Step the game (the participant idle) to ``seconds`` of game time (faster speed) or its end."""
    target = int(seconds * LOOPS_PER_S)
    while g.world.loop < target and not g.ended:
        g.step(min(int(chunk_s * LOOPS_PER_S), target - g.world.loop))


def count(g: Game, player: int, unit_id: int) -> int:
    u = g.world.u
    return int(np.count_nonzero((u.owner == player) & (u.unit_id == unit_id)))


def townhalls(g: Game, player: int) -> int:
    """Command Centers, Orbital Commands and Planetary Fortresses of ``player``."""
    u = g.world.u
    return int(np.count_nonzero((u.owner == player) & np.isin(u.unit_id, TOWNHALLS)))


def computer(g: Game) -> MeleeComputer:
    c = g.scenario.computers[0]
    assert isinstance(c, MeleeComputer)
    return c


def snapshot(g: Game) -> tuple[bytes, ...]:
    u = g.world.u
    return (u.tag.tobytes(), u.unit_id.tobytes(), u.x.tobytes(), u.y.tobytes(), u.hp.tobytes(),
            repr(sorted(g.world.supply.minerals.items())).encode())


def test_a_game_is_deterministic_for_a_seed() -> None:
    a, b, c = melee(L.HARD, seed=3), melee(L.HARD, seed=3), melee(L.HARD, seed=4)
    for g in (a, b, c):
        play_until(g, 240)
    assert snapshot(a) == snapshot(b)
    assert snapshot(a) != snapshot(c)


@pytest.mark.parametrize("difficulty", range(1, 11))
def test_every_level_builds_an_economy_and_an_army(difficulty: int) -> None:
    """Six game minutes without an error at every level: more workers, supply depots, barracks and
    an army (the game over only if it has won: the quicker levels' first wave may finish the idle
    player by then)."""
    g = melee(difficulty, seed=difficulty)
    play_until(g, 360)
    assert not g.ended or g.results == {1: 2, 2: VICTORY}
    assert count(g, 2, D.SCV) > 14
    assert count(g, 2, D.SUPPLYDEPOT) >= 1
    assert count(g, 2, D.BARRACKS) >= 1
    aboard = sum(1 for cg in g.world.transport.cargo.values() if cg.owner == 2  # (a Hard drop's)
                 for p in cg.passengers if p.unit_id in (D.MARINE, REAPER))
    assert count(g, 2, D.MARINE) + count(g, 2, REAPER) + aboard >= 3
    used, cap = g.world.supply.food(2)
    assert used <= cap


def test_strength_knobs_are_ordered() -> None:
    """At six minutes the harder levels have collected more and hold more workers and army (the
    lower levels spend only a share of their income: 2/5, 3/5, 4/5)."""
    got = []
    for difficulty in (L.VERY_EASY, L.MEDIUM, L.VERY_HARD):
        g = melee(difficulty, build=L.POWER, seed=11)
        play_until(g, 360)
        s = g.world.supply
        got.append((s.spent_minerals[2], count(g, 2, D.SCV), count(g, 2, D.MARINE) + count(g, 2, REAPER)))
    assert got[0][0] < got[1][0] < got[2][0], got
    assert got[0][1] < got[1][1] <= got[2][1], got
    s_ve = melee(L.VERY_EASY, seed=11)
    play_until(s_ve, 360)
    ledger = s_ve.world.supply
    assert ledger.spent_minerals[2] <= 50 + 0.4 * ledger.collected_minerals[2]


@pytest.mark.parametrize(("difficulty", "build", "by_s"), [(L.EASY, L.RANDOM_BUILD, 540), (L.MEDIUM, L.MACRO, 240),
                                                          (L.HARD, L.POWER, 200)])
def test_it_expands(difficulty: int, build: int, by_s: float) -> None:
    g = melee(difficulty, build)
    c = computer(g)
    c.build = dataclasses.replace(c.build, first_attack_s=math.inf)  # (the idle player must last till then)
    play_until(g, by_s)
    assert townhalls(g, 2) >= 2


def test_very_easy_stays_on_one_base() -> None:
    g = melee(L.VERY_EASY)
    play_until(g, 600)
    assert townhalls(g, 2) == 1


def test_the_timing_build_trains_reapers_from_a_refinery() -> None:
    g = melee(L.HARD, L.TIMING)
    play_until(g, 300)
    assert count(g, 2, D.REFINERY) >= 1
    assert count(g, 2, REAPER) >= 1


def test_a_worker_scouts_the_enemy_start() -> None:
    g = melee(L.MEDIUM, map_name="DarknessSanctuaryLE")
    c = computer(g)
    assert len(c.candidates) == 3 and c.enemy_main is None  # four spawns: it has to look
    play_until(g, 240)
    assert c.enemy_main == g.scenario.starts[1]  # type: ignore[attr-defined]


def _rush(g: Game, unit_id: int, n: int, at_s: float, dist: float = 25.0) -> np.ndarray:
    """``n`` units of the participant appear ``dist`` from the Computer's main and attack-move into
    it."""
    play_until(g, at_s)
    w = g.world
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    cx, cy = w.map.center
    d = float(np.hypot(cx - hx, cy - hy))
    x, y = hx + (cx - hx) / d * dist, hy + (cy - hy) / d * dist
    tags = w.spawn(unit_id, 1, np.full(n, x), np.full(n, y), free=True)
    assert w.command(1, 3674, [int(t) for t in tags], (hx, hy), 0, False) == 1
    return tags


def test_it_defends_its_base_against_an_early_rush() -> None:
    g = melee(L.HARD, L.MACRO)
    tags = _rush(g, D.MARINE, 6, 240)
    play_until(g, 300, chunk_s=1)
    assert not (g.world.u.rows(tags) >= 0).any()  # every rushing marine died
    assert townhalls(g, 2) >= 1 and not g.ended


def test_every_level_from_easy_pulls_workers_against_a_worker_rush() -> None:
    """Easy has no army at 0:25 and does not pull workers against an army (``Level.pull_workers``),
    but answers workers alone with its own (``Level.answers_worker_rush``); VeryEasy does not."""
    pulled_max = {}
    for difficulty in (L.VERY_EASY, L.EASY, L.HARD):
        g = melee(difficulty)
        tags = _rush(g, D.SCV, 12, 25, dist=12.0)  # (before its scout leaves: they would chase it)
        most = 0
        for _ in range(40):
            play_until(g, g.world.loop / LOOPS_PER_S + 1, chunk_s=1)
            u = g.world.u
            mine = (u.owner == 2) & (u.unit_id == D.SCV)
            most = max(most, int(np.count_nonzero(mine & ((u.kind == ATTACK_MOVE) | (u.kind == ATTACK_UNIT)))))
        pulled_max[difficulty] = most
        if difficulty != L.VERY_EASY:
            assert int((g.world.u.rows(tags) >= 0).sum()) <= 1  # the worker rush is beaten (a lone worker is no threat)
            assert townhalls(g, 2) == 1
    assert pulled_max[L.VERY_EASY] == 0 and pulled_max[L.EASY] >= 6 and pulled_max[L.HARD] >= 6, pulled_max


def test_cheat_vision_knows_enemy_units_outside_its_vision() -> None:
    known = {}
    for difficulty in (L.VERY_HARD, L.CHEAT_VISION):
        g = melee(difficulty)
        play_until(g, 30)
        w = g.world
        tag = int(w.spawn(D.MARINE, 1, [w.map.center[0]], [w.map.center[1]], free=True)[0])
        play_until(g, 35)
        r = w.u.row(tag)
        assert not w.vision.seen_now(2)[int(w.u.y[r]), int(w.u.x[r])]  # its units do not see it
        known[difficulty] = r in computer(g).known.tolist()
    assert known == {L.VERY_HARD: False, L.CHEAT_VISION: True}


def test_the_resource_cheats_get_more_per_trip() -> None:
    for difficulty, per_trip in ((L.VERY_HARD, 5), (L.CHEAT_MONEY, 6), (L.CHEAT_INSANE, 7)):
        g = melee(difficulty)
        s = g.world.supply
        while s.collected_minerals[2] == 0:
            g.step(1)
        assert s.collected_minerals[2] == per_trip
        assert s.collected_minerals[1] == 5  # (the participant collects as players do)


@pytest.mark.parametrize("difficulty", [L.MEDIUM, L.MEDIUM_HARD, L.HARD, L.HARDER, L.VERY_HARD, L.CHEAT_INSANE])
def test_it_defeats_an_idle_player_within_20_minutes(difficulty: int) -> None:
    """Elimination: a player with no structures left loses."""
    g = melee(difficulty, seed=difficulty)
    play_until(g, 20 * 60, chunk_s=30)
    assert g.ended and g.results == {1: 2, 2: VICTORY}


def test_bad_levels_and_builds_are_refused() -> None:
    g = melee(L.MEDIUM)
    with pytest.raises(ValueError, match="difficulty 11"):
        MeleeComputer(2, 11, L.RUSH, g.scenario)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="build 7"):
        MeleeComputer(2, L.MEDIUM, 7, g.scenario)  # type: ignore[arg-type]


def test_the_levels_follow_their_sources() -> None:
    """The lower levels spend as if a trip gave 3, 2, 1 less (of 5 minerals, 4 vespene); the
    resource cheats get 1 and 2 more; the vision cheats see everything."""
    lv = L.LEVELS
    assert [lv[d].income for d in (L.VERY_EASY, L.EASY, L.MEDIUM, L.MEDIUM_HARD)] == [2 / 5, 3 / 5, 4 / 5, 1.0]
    assert [lv[d].gas_income for d in (L.VERY_EASY, L.EASY, L.MEDIUM, L.MEDIUM_HARD)] == [1 / 4, 2 / 4, 3 / 4, 1.0]
    assert [lv[d].extra_income for d in range(1, 11)] == [0] * 8 + [1, 2]
    assert [d for d in range(1, 11) if lv[d].sees_all] == [L.CHEAT_VISION, L.CHEAT_INSANE]
    periods = [lv[d].period for d in range(1, 8)]
    assert periods == sorted(periods, reverse=True)  # quicker with every level


def test_random_build_draws_per_game() -> None:
    names = {computer(melee(L.HARD, seed=s)).build.name for s in range(12)}
    assert names == {"Rush", "Timing", "Power", "Macro"}
    assert computer(melee(L.HARD, L.AIR)).build.name == "Air"
    assert computer(melee(L.EASY, L.RUSH)).build.name == "Simple"
