"""The Terran Computer uses what its tech gives (``sc2pool.engine.computer.terran``), from Medium
up: Orbital Commands and MULEs; in fights its Siege Tanks siege and unsiege, its bio stims, its
Banshees cloak, and its Orbitals scan a cloaked unit it does not detect."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_computer_defence import DARK_TEMPLAR, visit  # noqa: E402
from test_computer_melee import LOOPS_PER_S, _rush, computer, count, melee, play_until  # noqa: E402
from test_computer_tech import no_attack, quiet  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.computer import terran as TR  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402

MULE = 268
THOR, ULTRALISK, AUTO_TURRET_UNIT = 52, 109, 31
ARMORY, FUSION_CORE, GHOST_ACADEMY, FACTORY = 29, 30, 26, 27


def own(g: Game, unit_id: int, x: float, y: float, n: int = 1) -> list[int]:
    """Units of the Computer (player 2) appear at (x, y)."""
    return [int(t) for t in g.world.spawn(unit_id, 2, np.full(n, x), np.full(n, y), free=True)]


def enemy_at(g: Game, unit_id: int, x: float, y: float, n: int) -> list[int]:
    """The participant's units appear at (x, y) and hold their place."""
    w = g.world
    tags = [int(t) for t in w.spawn(unit_id, 1, np.full(n, x), np.full(n, y), free=True)]
    assert w.command(1, 18, tags, None, 0, False) == 1
    return tags


def staging(g: Game) -> tuple[float, float]:
    return computer(g).staging(g.world)


@pytest.mark.timeout(240)
def test_from_medium_up_command_centers_become_orbitals_that_call_down_mules() -> None:
    got = {}
    for level in (L.EASY, L.MEDIUM):
        g = melee(level, race=D.TERRAN)
        no_attack(g)
        play_until(g, 200)
        got[level] = (count(g, 2, TR.ORBITAL), count(g, 2, MULE))
    assert got[L.EASY] == (0, 0)
    assert got[L.MEDIUM][0] >= 1 and got[L.MEDIUM][1] >= 1, got


@pytest.mark.timeout(240)
def test_a_siege_tank_sieges_against_enemies_in_range_and_unsieges_after() -> None:
    g = quiet(L.HARD, L.MACRO, D.TERRAN, 120)
    sx, sy = staging(g)
    tank = own(g, TR.SIEGE_TANK, sx, sy)[0]
    play_until(g, 123, chunk_s=1)
    w = g.world
    assert int(w.u.unit_id[w.u.row(tank)]) == TR.SIEGE_TANK  # nothing near: it stays mobile
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    d = float(np.hypot(sx - hx, sy - hy))
    enemies = enemy_at(g, D.MARINE, sx + (sx - hx) / d * 11, sy + (sy - hy) / d * 11, 3)
    sieged_at = None
    for _ in range(40):
        play_until(g, w.loop / LOOPS_PER_S + 0.5, chunk_s=0.5)
        if int(w.u.unit_id[w.u.row(tank)]) == TR.SIEGED_TANK:
            sieged_at = w.loop
            break
    assert sieged_at is not None
    play_until(g, w.loop / LOOPS_PER_S + 1, chunk_s=1)
    assert tank in w.u.tag[computer(g).army_rows].tolist()  # sieged, still one of its army (and its wave)
    for _ in range(120):  # (the enemies die: to the tank and the army at home)
        if not (w.u.rows(np.array(enemies)) >= 0).any():
            break
        play_until(g, w.loop / LOOPS_PER_S + 0.5, chunk_s=0.5)
    assert not (w.u.rows(np.array(enemies)) >= 0).any()
    play_until(g, w.loop / LOOPS_PER_S + 8, chunk_s=1)
    assert int(w.u.unit_id[w.u.row(tank)]) == TR.SIEGE_TANK  # unsieged once nothing is near


@pytest.mark.timeout(240)
def test_marines_stim_in_a_fight_once_stimpack_is_researched() -> None:
    g = quiet(L.HARD, L.TIMING, D.TERRAN, 120)
    w = g.world
    sx, sy = staging(g)
    marines = own(g, D.MARINE, sx, sy, 6)
    _rush(g, D.MARINE, 2, 125, dist=10)
    play_until(g, 128, chunk_s=1)
    assert not any(t in w.research.stimmed for t in marines)  # no Stimpack yet
    w.research.done.setdefault(2, []).append(TR.STIMPACK_UPGRADE)
    _rush(g, D.MARINE, 4, 130, dist=10)
    stimmed = False
    for _ in range(20):
        play_until(g, w.loop / LOOPS_PER_S + 0.5, chunk_s=0.5)
        if any(t in w.research.stimmed for t in marines):
            stimmed = True
            break
    assert stimmed


@pytest.mark.timeout(240)
def test_a_banshee_cloaks_near_enemies_with_cloaking_field() -> None:
    g = quiet(L.HARD, L.AIR, D.TERRAN, 120)
    w = g.world
    w.research.done.setdefault(2, []).append(TR.CLOAK_UPGRADE)
    sx, sy = staging(g)
    banshee = own(g, TR.BANSHEE, sx, sy)[0]
    play_until(g, 123, chunk_s=1)
    assert banshee not in w.abilities.cloaked  # nothing near
    enemy_at(g, D.SCV, sx + 4, sy, 1)
    play_until(g, 126, chunk_s=1)
    assert banshee in w.abilities.cloaked


@pytest.mark.timeout(300)
def test_an_orbital_scans_a_cloaked_unit_near_its_base() -> None:
    g = quiet(L.HARD, L.POWER, D.TERRAN, 240)
    assert count(g, 2, TR.ORBITAL) >= 1
    w = g.world
    dt = visit(g, DARK_TEMPLAR, 245)
    scanned = False
    for _ in range(160):  # (its Orbitals spend their energy on MULEs until it has seen cloak)
        play_until(g, w.loop / LOOPS_PER_S + 0.5, chunk_s=0.5)
        if w.abilities.scan_discs(2):
            scanned = True
            break
    assert scanned and computer(g).defence.cloak_seen
    play_until(g, w.loop / LOOPS_PER_S + 10, chunk_s=1)
    assert w.u.row(dt) < 0  # scanned, then killed by its army at home


def _near(g: Game, unit_id: int, n: int, x: float, y: float, away: float) -> list[int]:
    """Enemy units (the participant's) appear ``away`` from (x, y), on the side away from the
    Computer's main, and hold their place."""
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    d = float(np.hypot(x - hx, y - hy))
    return enemy_at(g, unit_id, x + (x - hx) / d * away, y + (y - hy) / d * away, n)


def _until(g: Game, done: Callable[[], bool], seconds: float) -> bool:
    """Step half a second at a time until ``done()`` or ``seconds`` of game time have passed."""
    w = g.world
    end = w.loop / LOOPS_PER_S + seconds
    while w.loop / LOOPS_PER_S < end:
        if done():
            return True
        play_until(g, w.loop / LOOPS_PER_S + 0.5, chunk_s=0.5)
    return done()


def _army_at_home(build: int, *units: tuple[int, float, float],
                  race: int = D.TERRAN) -> tuple[Game, float, float, list[int]]:
    """A quiet Hard game at 2:00 with ``units`` (type, dx, dy) of the Computer's at its staging
    point (+ dx, dy), two seconds later: the game, the staging point and their tags."""
    g = quiet(L.HARD, build, race, 120)
    sx, sy = staging(g)
    tags = [own(g, t, sx + dx, sy + dy)[0] for t, dx, dy in units]
    play_until(g, 122, chunk_s=1)
    return g, sx, sy, tags


@pytest.mark.timeout(240)
def test_widow_mines_burrow_near_enemies_and_liberators_set_their_zone() -> None:
    g, sx, sy, (mine, lib) = _army_at_home(L.MACRO, (TR.WIDOWMINE, 0, 0), (TR.LIBERATOR, 0, 0))
    w = g.world
    uid = lambda t: int(w.u.unit_id[w.u.row(t)])  # noqa: E731
    assert (uid(mine), uid(lib)) == (TR.WIDOWMINE, TR.LIBERATOR)  # nothing near: both stay mobile
    _near(g, D.MARINE, 2, sx, sy, 7)
    assert _until(g, lambda: uid(mine) == TR.WIDOWMINE_BURROWED and uid(lib) == TR.LIBERATOR_AG, 12)
    assert {mine, lib} <= set(w.u.tag[computer(g).army_rows].tolist())  # still its army, counted as such


@pytest.mark.timeout(240)
def test_from_hard_up_vikings_land_on_ground_and_lift_for_air_and_thors_pick_their_payload() -> None:
    """``TerranRules.vikings`` / ``thors``: with only ground enemies near, a Viking lands; an enemy
    Battlecruiser (massive air) near lifts it again and turns the Thor to High Impact Payload;
    Mutalisks (light air) outnumbering it turn the Thor back."""
    g, sx, sy, (viking, thor) = _army_at_home(L.AIR, (TR.VIKING_FIGHTER, 0, 0), (TR.THOR, 2, 0))
    w = g.world
    uid = lambda t: int(w.u.unit_id[w.u.row(t)])  # noqa: E731
    assert (uid(viking), uid(thor)) == (TR.VIKING_FIGHTER, TR.THOR)  # nothing near
    _near(g, D.MARINE, 2, sx, sy, 6)
    assert _until(g, lambda: uid(viking) == R.VIKING_ASSAULT, 8)
    assert uid(thor) == TR.THOR  # (no air: it keeps its payload)
    _near(g, TR.BATTLECRUISER, 1, sx, sy, 8)
    assert _until(g, lambda: uid(viking) == TR.VIKING_FIGHTER and uid(thor) == R.THOR_AP, 8)
    _near(g, 108, 3, sx, sy, 8)  # (three Mutalisks)
    assert _until(g, lambda: uid(thor) == TR.THOR, 8)
    assert {viking, thor} <= set(w.u.tag[computer(g).army_rows].tolist())


@pytest.mark.timeout(240)
def test_from_hard_up_hellions_become_hellbats_once_an_armory_stands() -> None:
    g, sx, sy, (hellion,) = _army_at_home(L.MACRO, (TR.HELLION, 0, 0))
    w = g.world
    uid = lambda: int(w.u.unit_id[w.u.row(hellion)])  # noqa: E731
    _near(g, D.MARINE, 2, sx, sy, 6)
    assert not _until(g, lambda: uid() == R.HELLBAT, 4)  # (no Armory: it cannot)
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    spot = next((x, y) for x, y in ((hx + dx, hy + dy) for dx in range(-12, 13, 3) for dy in range(-12, 13, 3))
                if w.placement.fits(ARMORY, x, y, 2) == 1)
    w.construction.add_structure(ARMORY, 2, *spot)
    assert _until(g, lambda: uid() == R.HELLBAT, 8)


@pytest.mark.timeout(240)
def test_battlecruisers_fire_yamato_ravens_drop_turrets_and_ghosts_snipe() -> None:
    g, sx, sy, (bc, _, ghost) = _army_at_home(L.AIR, (TR.BATTLECRUISER, 0, 0), (TR.RAVEN, -2, 0), (TR.GHOST, 1, 1))
    w = g.world
    assert w.abilities.energy_of(ghost) >= 75 and count(g, 2, AUTO_TURRET_UNIT) == 0
    _near(g, THOR, 1, sx, sy, 8)  # (mechanical: not a snipe's target; 400 life: a Yamato's)
    ultra = _near(g, ULTRALISK, 1, sx, sy, 6)[0]  # (biological, 500 life: Steady Targeting's)
    assert _until(g, lambda: w.abilities.energy_of(ghost) < 50, 4)  # (50 paid as the channel starts)
    assert _until(g, lambda: w.u.row(ultra) < 0 or float(w.u.hp[w.u.row(ultra)]) <= 500 - 170, 3)
    assert _until(g, lambda: count(g, 2, AUTO_TURRET_UNIT) >= 1, 4)
    assert w.casting.cooldown_until(bc, TR.YAMATO) == 0  # no Weapon Refit yet: no Yamato
    w.research.grant(2, TR.WEAPON_REFIT_UPGRADE)
    assert _until(g, lambda: not w.casting.ready_to(bc, TR.YAMATO), 6)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("level", [L.HARD, L.MEDIUM_HARD])
def test_from_hard_up_ravens_cast_interference_matrix_then_anti_armor_missiles(level: int) -> None:
    """``TerranRules.raven_spells``: a Raven with the energy disables the biggest mechanical enemy
    near (a Thor), another shreds a clump of Marines; below Hard neither (an Auto-Turret instead)."""
    g = quiet(level, L.AIR, D.TERRAN, 120)
    sx, sy = staging(g)
    ravens = [own(g, TR.RAVEN, sx + dx, sy)[0] for dx in (-2.0, -3.0)]
    play_until(g, 122, chunk_s=1)
    w = g.world
    for r in ravens:
        w.abilities.energy[r] = (200.0, w.loop, 200.0)
    thor = _near(g, THOR, 1, sx, sy, 8)[0]
    marines = _near(g, D.MARINE, 6, sx, sy, 7)
    matrixed = lambda: w.abilities.disabled.get(thor, 0) > w.loop  # noqa: E731
    shredded = lambda: any(m in w.abilities.shredded for m in marines)  # noqa: E731
    if level >= L.HARD:
        assert _until(g, lambda: matrixed() and shredded(), 6)
        assert w.abilities.energy_of(ravens[0]) < 200 - 70 and w.abilities.energy_of(ravens[1]) < 200 - 70
    else:
        assert not _until(g, lambda: matrixed() or shredded(), 6)
        assert count(g, 2, AUTO_TURRET_UNIT) >= 1


@pytest.mark.timeout(240)
@pytest.mark.parametrize("level", [L.HARD, L.MEDIUM_HARD])
def test_from_hard_up_a_ghost_academy_arms_a_nuke_and_a_ghost_calls_it_down_on_a_clump(level: int) -> None:
    """``TerranRules.arm_nukes`` / ``nuke``: with a Ghost Academy (and a Factory) and the money, the
    Computer arms a nuke; a Ghost then calls it down on six Marines near; below Hard neither."""
    g = quiet(level, L.POWER, D.TERRAN, 120)
    w = g.world
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    spots = [(hx + dx, hy + dy) for dx in range(-14, 15, 4) for dy in range(-14, 15, 4)]
    for kind in (GHOST_ACADEMY, FACTORY):
        spot = next(p for p in spots if w.placement.fits(kind, p[0], p[1], 3) == 1)
        w.construction.add_structure(kind, 2, *spot)
    w.supply.pay(2, -1000, -1000)
    play_until(g, 123, chunk_s=1)
    academy = next(st.tag for st in w.construction.structures.values() if st.owner == 2 and st.unit_id == GHOST_ACADEMY)
    if level < L.HARD:
        assert academy not in w.abilities.silos
        return
    assert academy in w.abilities.silos  # (arming: 43 s)
    w.abilities.silos[academy] = w.loop  # (armed now)
    sx, sy = staging(g)
    ghost = own(g, TR.GHOST, sx, sy)[0]
    marines = _near(g, D.MARINE, 6, sx, sy, 11)
    assert _until(g, lambda: int(w.u.ability[w.u.row(ghost)]) == TR.NUKE, 6)
    assert not w.abilities.armed_silos(2)  # (launched: the Academy's nuke is used)
    assert _until(g, lambda: all(w.u.row(m) < 0 for m in marines), 20)  # (300 damage: every Marine dies)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("level", [L.HARD, L.MEDIUM_HARD])
def test_from_hard_up_medivacs_drop_marines_in_the_enemy_main(level: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``TerranRules.drops``: two Medivacs and ten Marines at home board, fly to the enemy main's
    mineral line and unload; the Marines fight there, out of the army's orders, then rejoin it.
    Below Hard there is no drop."""
    monkeypatch.setattr(TR, "DROP_FROM_S", 0.0)
    monkeypatch.setattr(TR, "DROP_FIGHT_S", 4.0)  # (ten Marines soon end the idle participant's game)
    g = quiet(level, L.POWER, D.TERRAN, 120)
    w = g.world
    c = computer(g)
    c.rules.next_drop = 0  # type: ignore[attr-defined]  # (quiet: no drop until now)
    sx, sy = staging(g)
    medivacs = [own(g, TR.MEDIVAC, sx, sy + k)[0] for k in (0, 1)]
    marines = own(g, D.MARINE, sx + 2, sy, 10)
    ex, ey = g.scenario.starts[1]  # type: ignore[attr-defined]
    c.enemy_main = (ex, ey)
    carried = lambda: sum(len(cg.passengers) for t, cg in w.transport.cargo.items() if t in medivacs)  # noqa: E731
    if level < L.HARD:
        assert not _until(g, lambda: carried() > 0, 15)
        return
    assert _until(g, lambda: carried() >= 8, 15)
    assert set(medivacs) <= c.rules.detached
    there = lambda: sum(1 for m in marines if w.u.row(m) >= 0  # noqa: E731
                        and np.hypot(w.u.x[w.u.row(m)] - ex, w.u.y[w.u.row(m)] - ey) < 14)
    assert _until(g, lambda: there() >= 8, 60)
    assert _until(g, lambda: not c.rules.detached, 6)  # (the fight over, they rejoin the army)
    assert count(g, 1, 45) < 12  # (the participant's SCVs died)


def made(g: Game, unit_id: int) -> int:
    """The Computer's units of ``unit_id`` (either form) and those in its structures' queues."""
    forms = [unit_id, *(f for f, m in computer(g).race.forms.items() if m == unit_id)]
    queued = sum(s.queue.count(unit_id) for s in g.world.construction.structures.values() if s.owner == 2)
    return sum(count(g, 2, f) for f in forms) + queued


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("build", "until", "wanted"), [
    (L.MACRO, 540, (L.THOR, L.CYCLONE, L.WIDOWMINE, ARMORY)),
    (L.AIR, 600, (L.RAVEN, L.LIBERATOR, FUSION_CORE)),
    (L.POWER, 540, (L.WIDOWMINE, L.LIBERATOR, GHOST_ACADEMY)),
])
def test_from_hard_up_the_builds_reach_the_top_of_the_tech_tree(build: int, until: float,
                                                               wanted: tuple[int, ...]) -> None:
    g = quiet(L.HARD, build, D.TERRAN, until)
    got = {t: made(g, t) for t in wanted}
    assert all(got.values()), got


@pytest.mark.timeout(240)
def test_below_hard_the_top_of_the_tech_tree_is_neither_trained_nor_unlocked() -> None:
    g = quiet(L.MEDIUM_HARD, L.AIR, D.TERRAN, 600)
    assert made(g, L.BANSHEE) >= 1  # (its Starports with Tech Labs stand)
    got = {t: made(g, t) for t in (L.RAVEN, L.LIBERATOR, L.BATTLECRUISER, FUSION_CORE)}
    assert not any(got.values()), got


@pytest.mark.timeout(240)
def test_from_hard_up_its_third_base_becomes_a_planetary_fortress() -> None:
    """``TerranRules.train_workers``: from Hard up, the Command Center farthest from its main of
    three becomes a Planetary Fortress (an Engineering Bay built for it), the main and natural
    Orbital Commands; MediumHard makes Orbital Commands only."""
    got = {}
    for level in (L.MEDIUM_HARD, L.HARD):
        g = melee(level, L.MACRO)
        no_attack(g)
        play_until(g, 10 * 60)
        got[level] = (count(g, 2, R.FORTRESS_T), count(g, 2, R.ORBITAL_T), count(g, 2, 22))
        if level == L.HARD:
            w = g.world
            hx, hy = computer(g).home
            th = np.flatnonzero((w.u.owner == 2) & np.isin(w.u.unit_id, [R.FORTRESS_T, R.ORBITAL_T]))
            far = th[np.argmax(np.hypot(w.u.x[th] - hx, w.u.y[th] - hy))]
            assert int(w.u.unit_id[far]) == R.FORTRESS_T
    assert got[L.HARD][0] == 1 and got[L.HARD][1] == 2 and got[L.HARD][2] >= 1, got
    assert got[L.MEDIUM_HARD][0] == 0, got
