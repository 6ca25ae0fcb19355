"""The Zerg Computer's economy and defence (``sc2pool.engine.computer.zerg``): its larvae go to
the army as well as to drones, its Queens spread their injects over its hatcheries and defend its
bases, a wave that walked back does not walk out again into the same army.  Real games in process
(the participant idle), as ``test_computer_race_games.py`` plays them."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_computer_melee import computer, count, melee, play_until  # noqa: E402
from test_computer_protoss import no_attack, rows, spawn  # noqa: E402
from test_computer_tech import quiet  # noqa: E402
from test_computer_terran import _near, _until, enemy_at, own, staging  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.computer.melee import RETREAT_RATIO  # noqa: E402
from sc2pool.engine.computer.rules import strength  # noqa: E402
from sc2pool.engine.computer.zerg import ZergRules  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402
from sc2pool.engine.sim.units import ATTACK_MOVE, ATTACK_UNIT, TYPES  # noqa: E402

MEDIVAC, HELLION = 54, 53


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


# ------------------------------------------------------------------ Infestors and Vipers (Hard up)
def _larva_made(g: Game, unit_id: int) -> int:
    """The Computer's units of ``unit_id`` and those in its eggs."""
    z = computer(g).rules
    assert isinstance(z, ZergRules)
    return count(g, 2, unit_id) + sum(k for _, t, k in z.hatching if t == unit_id)


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("build", "until", "units"), [
    pytest.param(L.MACRO, 600, (R.INFESTOR, R.VIPER), id="Macro"),
    pytest.param(L.AIR, 600, (R.VIPER,), id="Air")])
def test_from_hard_up_the_zerg_builds_train_infestors_and_vipers(build: int, until: float,
                                                                 units: tuple[int, ...]) -> None:
    """``Z_BUILDS``: the Macro build's Infestors (an Infestation Pit) and Vipers (a Hive), the Air
    build's Vipers, from Hard up; MediumHard plays the builds without them."""
    got = {}
    for level in (L.MEDIUM_HARD, L.HARD):
        g = quiet(level, build, D.ZERG, until)
        got[level] = {t: _larva_made(g, t) for t in units}
    assert all(got[L.HARD].values()), got
    assert not any(got[L.MEDIUM_HARD].values()), got


def _caster_at_home(level: int, unit_id: int, energy: float, at_s: float = 120) -> tuple[Game, float, float, int]:
    """A quiet Zerg Macro game of ``level`` at ``at_s`` (2:00) with one ``unit_id`` of the Computer's
    at its staging point with ``energy``, two seconds later: the game, the staging point, its tag."""
    g = quiet(level, L.MACRO, D.ZERG, at_s)
    sx, sy = staging(g)
    [tag] = own(g, unit_id, sx, sy)
    play_until(g, at_s + 2, chunk_s=1)
    w = g.world
    w.abilities._register()
    w.abilities.energy[tag] = (energy, w.loop, 200.0)
    return g, sx, sy, tag


@pytest.mark.timeout(240)
@pytest.mark.parametrize("level", [L.MEDIUM_HARD, L.HARD])
def test_from_hard_up_an_infestor_fungals_the_clump_not_the_lone_unit(level: int) -> None:
    """``ZergRules.fungals``: an Infestor with the energy roots the clump of five SCVs, not the
    lone one nearer to it, once (one Infestor a clump); below Hard it casts nothing.  (SCVs holding
    their place: nothing shoots the Infestor, which lives through the test at either level.)"""
    g, sx, sy, infestor = _caster_at_home(level, R.INFESTOR, 200.0)
    w = g.world
    [lone] = _near(g, D.SCV, 1, sx, sy, -4.0)  # (behind it, towards its main)
    clump = _near(g, D.SCV, 5, sx, sy, 8)
    fungals = w.zerg.spells.fungals
    cast = _until(g, lambda: bool(fungals), 4)
    assert w.u.row(infestor) >= 0
    if level < L.HARD:
        assert not cast and w.abilities.energy_of(infestor) > 190.0
        return
    assert cast
    assert set(fungals) <= set(clump) and lone not in fungals, (set(fungals), clump, lone)
    assert w.abilities.energy_of(infestor) < 200.0 - 75.0 + 5.0  # (one fungal, and no second on it)


def _viper_casts(level: int, spell: str) -> bool:
    """Whether a Viper with 200 energy at its staging point casts ``spell`` on the enemies that
    appear in front of it within four seconds (see the test below)."""
    from sc2pool.engine.computer.zerg import SIEGED_TANK

    g, sx, sy, viper = _caster_at_home(level, R.VIPER, 200.0)
    w = g.world
    spells = w.zerg.spells
    if spell == "abduct":
        [tank] = _near(g, SIEGED_TANK, 1, sx, sy, 8)
        r = w.u.row(tank)
        at = (float(w.u.x[r]), float(w.u.y[r]))

        def done() -> bool:
            r = w.u.row(tank)
            return r >= 0 and float(np.hypot(w.u.x[r] - at[0], w.u.y[r] - at[1])) > 3.0
    elif spell == "bomb":
        medivacs = _near(g, MEDIVAC, 4, sx, sy, 6)

        def done() -> bool:
            return any(b.target in medivacs for b in spells.bombs)
    else:
        _near(g, HELLION, 6, sx, sy, 8)

        def done() -> bool:
            return bool(spells.clouds)
    cast = _until(g, done, 4)
    assert w.u.row(viper) >= 0
    if cast:  # (one spell of 75 to 125 energy: the Viper cast once)
        assert 200.0 - 125.0 <= w.abilities.energy_of(viper) < 200.0 - 75.0 + 5.0
    return cast


@pytest.mark.timeout(240)
@pytest.mark.parametrize("level", [L.MEDIUM_HARD, L.HARD])
@pytest.mark.parametrize("spell", ["abduct", "bomb", "cloud"])
def test_from_hard_up_a_viper_abducts_bombs_and_clouds(spell: str, level: int) -> None:
    """``ZergRules.vipers``: a sieged Siege Tank is pulled to the Viper (Abduct), a flock of four
    Medivacs bombed (Parasitic Bomb), a clump of six Hellions clouded (Blinding Cloud); a MediumHard
    Viper casts nothing.  (None of them shoots up: the Viper lives through the test.)"""
    assert _viper_casts(level, spell) == (level >= L.HARD)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("level", [L.MEDIUM_HARD, L.HARD])
def test_from_hard_up_an_idle_viper_at_home_consumes_a_hatchery_for_energy(level: int) -> None:
    """``ZergRules.consume``: a Viper with 10 energy waiting at the staging point drains its finished
    Hatchery beside it (200 life for 50 energy over 14 s); below Hard it only regains energy."""
    g, sx, sy, viper = _caster_at_home(level, R.VIPER, 10.0, 170)
    w = g.world
    c = computer(g)
    hatch = min((s for s in c.structs if s.unit_id == R.HATCHERY and s.ready),
                key=lambda s: (s.x - sx) ** 2 + (s.y - sy) ** 2)
    life = float(w.u.hp[w.u.row(hatch.tag)])
    play_until(g, 172 + 15, chunk_s=1)
    lost = life - float(w.u.hp[w.u.row(hatch.tag)])
    energy = w.abilities.energy_of(viper)
    if level < L.HARD:
        assert lost == 0.0 and energy < 10.0 + 16 * 0.8, (lost, energy)
    else:
        assert 150.0 <= lost <= 260.0 and energy >= 10.0 + 40.0, (lost, energy)  # (a second may begin)


# ------------------------------------------------------------------ Neural Parasite (Hard up)
THOR = 52


def _infestors_ahead(level: int, energies: list[float]) -> tuple[Game, list[int], Callable[..., list[int]]]:
    """A quiet Zerg Macro game of ``level`` at 2:00 with the Computer's Infestors side by side (1.5
    apart) across its staging point, with ``energies``, two seconds later: the game, their tags,
    and ``place(unit_id, n, back, side)``, which puts ``n`` of the participant's units holding
    their place ``back`` from the Infestors' middle towards the Computer's main (open ground on
    this map, where a unit appears where it is put) and ``side`` across."""
    g = quiet(level, L.MACRO, D.ZERG, 120)
    sx, sy = staging(g)
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    d = float(np.hypot(sx - hx, sy - hy))
    ax, ay = (sx - hx) / d, (sy - hy) / d
    n = len(energies)
    tags = [own(g, R.INFESTOR, sx - ay * 1.5 * (k - (n - 1) / 2), sy + ax * 1.5 * (k - (n - 1) / 2))[0]
            for k in range(n)]
    play_until(g, 122, chunk_s=1)
    w = g.world
    w.abilities._register()
    for tag, e in zip(tags, energies, strict=True):
        w.abilities.energy[tag] = (e, w.loop, 200.0)
    r = rows(g, np.array(tags))
    mx, my = float(w.u.x[r].mean()), float(w.u.y[r].mean())

    def place(unit_id: int, k: int, back: float, side: float = 0.0) -> list[int]:
        x, y = mx - ax * back - ay * side, my - ay * back + ax * side
        tags = enemy_at(g, unit_id, x, y, k)
        r = rows(g, np.array(tags))
        assert np.hypot(w.u.x[r] - x, w.u.y[r] - y).max() < 1.0  # (not moved aside on placement)
        return tags

    return g, tags, place


def _gap(g: Game, a: int, b: int) -> float:
    u = g.world.u
    ra, rb = u.row(a), u.row(b)
    return float(np.hypot(u.x[ra] - u.x[rb], u.y[ra] - u.y[rb]))


@pytest.mark.timeout(240)
@pytest.mark.parametrize("level", [L.MEDIUM_HARD, L.HARD])
def test_from_hard_up_an_infestor_takes_control_of_the_thor_not_the_marine(level: int) -> None:
    """``ZergRules.neurals``: an Infestor with 150 energy takes the Thor 8.8 away (beyond the Thor's
    range: it does not shoot first) by Neural Parasite, not the Marine nearer to it; the Thor is
    then the Computer's and the Infestor channels (order 249).  A MediumHard Infestor casts
    nothing."""
    g, [infestor], place = _infestors_ahead(level, [150.0])
    w = g.world
    [marine] = place(D.MARINE, 1, 6.5)
    [thor] = place(THOR, 1, 8.8)
    assert _gap(g, infestor, thor) <= 9.0  # (within the reach: the cast range 8 and a step)
    controls = w.zerg.spells.controls
    ordered = []

    def done() -> bool:
        ordered.append(int(w.u.ability[w.u.row(infestor)]))
        return bool(controls)

    cast = _until(g, done, 4)
    u = w.u
    assert u.row(infestor) >= 0
    if level < L.HARD:
        assert not cast and 249 not in ordered and int(u.owner[u.row(thor)]) == 1
        assert w.abilities.energy_of(infestor) > 150.0
        return
    assert cast and [d.target for d in controls.values()] == [thor], controls
    assert infestor in controls and int(u.ability[u.row(infestor)]) == 249
    assert int(u.owner[u.row(thor)]) == 2 and int(u.owner[u.row(marine)]) == 1
    assert w.abilities.energy_of(infestor) < 150.0 - 100.0 + 5.0


@pytest.mark.timeout(240)
def test_one_infestor_a_neural_parasite_target() -> None:
    """Two Infestors with the energy, one Thor within reach of both: one takes it, the other casts
    nothing (keeps its energy, no order 249)."""
    g, infestors, place = _infestors_ahead(L.HARD, [150.0, 150.0])
    w = g.world
    [thor] = place(THOR, 1, 8.8)
    assert all(_gap(g, i, thor) <= 9.0 for i in infestors)
    controls = w.zerg.spells.controls
    assert _until(g, lambda: bool(controls), 4)
    play_until(g, w.loop / 22.4 + 2, chunk_s=0.5)  # (later decisions: no second cast)
    u = w.u
    assert [d.target for d in controls.values()] == [thor] and int(u.owner[u.row(thor)]) == 2
    [channel] = list(controls)
    [other] = [i for i in infestors if i != channel]
    assert int(u.ability[u.row(other)]) != 249 and other not in w.casting.casts
    assert w.abilities.energy_of(other) > 150.0 and w.abilities.energy_of(channel) < 150.0 - 100.0 + 5.0


@pytest.mark.timeout(240)
def test_an_infestor_fungals_the_clump_first_then_takes_the_thor() -> None:
    """One Infestor with 175 energy, a clump of five SCVs and a Thor within reach: it fungals the
    clump first (a Neural Parasite first would keep it channelling: no fungal), and takes the Thor
    with the 100 left at a later decision."""
    g, [infestor], place = _infestors_ahead(L.HARD, [175.0])
    w = g.world
    clump = place(D.SCV, 5, 6.0, -3.0)
    [thor] = place(THOR, 1, 8.5, 2.0)
    assert _gap(g, infestor, thor) <= 9.0
    spells = w.zerg.spells
    seen: list[tuple[bool, bool]] = []

    def done() -> bool:
        seen.append((bool(spells.fungals), bool(spells.controls)))
        return bool(spells.controls)

    assert _until(g, done, 4)
    assert seen.index((True, False)) < len(seen) - 1, seen  # (the fungal came at an earlier step)
    u = w.u
    assert [d.target for d in spells.controls.values()] == [thor] and int(u.owner[u.row(thor)]) == 2
    assert set(spells.fungals) <= set(clump) or not spells.fungals  # (its roots may be over already)
    assert w.abilities.energy_of(infestor) < 175.0 - 75.0 - 100.0 + 5.0


@pytest.mark.timeout(240)
def test_an_infestor_takes_no_marine() -> None:
    """Only the high-value units (``NEURAL_TARGETS``) are worth 100 energy: with two Marines within
    reach (beyond their range), a Hard Infestor casts nothing."""
    g, [infestor], place = _infestors_ahead(L.HARD, [150.0])
    w = g.world
    place(D.MARINE, 2, 6.5)
    assert not _until(g, lambda: bool(w.zerg.spells.controls) or infestor in w.casting.casts, 3)
    assert w.abilities.energy_of(infestor) > 150.0
