"""The Terran spells that answered ``NotSupported`` before (``sim/systems/abilities.py``): the
Reaper's KD8 Charge, the Widow Mine's Sentinel Missiles, the Cyclone's Lock On, through the
command path, with their cooldowns and friendly fire where the real game has it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_terran_abilities import abilities
from test_terran_tech import act, rich_eco, tags_of

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import abilities as A

MARINE, ZEALOT, ZERGLING = 48, 73, 105


def hp(w: Any, tag: int) -> float:
    return float(w.u.hp[w.u.row(tag)])


def test_the_figures_are_the_sources() -> None:
    # LP:Reaper; LP:Widow_Mine_(Legacy_of_the_Void); LP:Cyclone (patch 4.11-5.0.11)
    assert (A.KD8_DAMAGE, A.KD8_COOLDOWN, A.KD8_RANGE) == (5.0, 313, 5.0)
    assert (A.MINE_DAMAGE, A.MINE_SHIELD_BONUS, A.MINE_SPLASH, A.MINE_RANGE) == (125.0, 35.0, 40.0, 5.0)
    assert A.MINE_REARM == 649  # 29 faster seconds
    assert (A.LOCK_ON_DAMAGE, A.LOCK_ON_LOOPS, A.LOCK_ON_RANGE, A.LOCK_ON_BREAK) == (400.0, 313, 7.0, 15.0)
    assert A.LOCK_ON_COOLDOWN == 96  # 4.3 faster seconds


@pytest.mark.parametrize(("ability", "caster", "point"), [
    (A.KD8, A.REAPER, True), (A.MINE_ATTACK, A.MINE_BURROWED, False), (A.LOCK_ON, A.CYCLONE, False),
    (A.LOCK_ON_CANCEL, A.CYCLONE, None), (2558, 689, True), (2560, 734, None), (A.TACTICAL_JUMP, 57, True),
    (A.INTERFERENCE_MATRIX, A.RAVEN, False), (A.ANTI_ARMOR_MISSILE, A.RAVEN, False), (A.NUKE, A.GHOST, True),
    (A.NUKE_ARM, A.GHOST_ACADEMY, None),
])
def test_these_abilities_are_no_longer_not_supported(ability: int, caster: int, point: bool | None) -> None:
    g, w = rich_eco()
    if caster == A.GHOST_ACADEMY:
        tag = w.construction.add_structure(caster, 1, 30.5, 45.5)
    else:
        [tag] = w.spawn(caster, 1, [20.0], [30.0]).tolist()
    [target] = w.spawn(33, 2, [24.0], [30.0]).tolist()  # a Siege Tank: mechanical
    g.step(1)
    if point is None:
        res = act(g, ability, [tag])
    elif point:
        res = act(g, ability, [tag], (24.0, 30.0))
    else:
        res = act(g, ability, [tag], target=target)
    assert res != C.NOT_SUPPORTED


def place(w: Any, where: dict[int, tuple[float, float]]) -> None:
    """Put units exactly there (spawning moves a ground unit to a free cell)."""
    u = w.u
    for tag, (x, y) in where.items():
        u.x[u.row(tag)], u.y[u.row(tag)] = x, y
    w.touch()


def disarm(w: Any, *tags: int) -> None:
    """Their guns stay silent (only the spell under test hurts anybody)."""
    for tag in tags:
        w.u.can_attack[w.u.row(tag)] = False


def test_a_reaper_throws_a_kd8_charge_that_hurts_enemies_after_its_delay_then_waits_14_seconds() -> None:
    g, w = rich_eco()
    [reaper] = w.spawn(A.REAPER, 1, [20.0], [30.0]).tolist()
    # a friendly unit without a weapon in the blast (an unburrowed Widow Mine), enemies beyond the
    # Reaper's gun (range 5) but within the grenade's radius of its point, and one outside
    [friend] = w.spawn(A.MINE, 1, [25.3], [31.0]).tolist()
    [z1, z2] = w.spawn(ZERGLING, 2, [25.9, 25.9], [30.0, 34.0]).tolist()
    place(w, {reaper: (20.0, 30.0), friend: (25.3, 31.0), z1: (26.0, 30.0), z2: (26.0, 34.0)})
    w.command(2, D.HOLDPOSITION_HOLD, [z1, z2], None, 0, False)
    disarm(w, reaper)
    assert A.KD8 in abilities(g, reaper)
    assert act(g, D.HOLDPOSITION_HOLD, [reaper]) == C.SUCCESS
    before = {t: hp(w, t) for t in (friend, z1, z2)}
    assert act(g, A.KD8, [reaper], (25.3, 30.0)) == C.SUCCESS  # (within its range 5: thrown at once)
    assert A.KD8 not in abilities(g, reaper)
    assert act(g, A.KD8, [reaper], (25.3, 30.0)) == C.COOLDOWN
    assert len(w.abilities.blasts) == 1  # the grenade is in flight
    g.step(A.KD8_DELAY - 1)
    assert hp(w, z1) == before[z1]
    g.step(1)
    assert w.abilities.blasts == []
    assert hp(w, z1) == before[z1] - A.KD8_DAMAGE  # LP:Reaper
    assert hp(w, friend) == before[friend]  # no friendly fire (m)
    assert hp(w, z2) == before[z2]  # outside the blast
    g.step(A.KD8_COOLDOWN - A.KD8_DELAY - 1)
    assert act(g, A.KD8, [reaper], (25.3, 30.0)) == C.COOLDOWN
    g.step(1)
    assert act(g, A.KD8, [reaper], (25.3, 30.0)) == C.SUCCESS


def test_kd8_on_a_unit_walks_into_range_and_lands_at_its_point() -> None:
    g, w = rich_eco()
    [reaper] = w.spawn(A.REAPER, 1, [20.0], [30.0]).tolist()
    [z] = w.spawn(ZERGLING, 2, [36.0], [30.0]).tolist()
    g.step(1)
    w.command(2, D.HOLDPOSITION_HOLD, [z], None, 0, False)
    assert act(g, A.KD8, [reaper], target=z) == C.SUCCESS
    assert [o.ability_id for o in unit_orders(g, reaper)] == [A.KD8]
    for _ in range(200):
        g.step(1)
        if w.abilities.blasts:
            break
    [b] = w.abilities.blasts
    assert (b.x, b.y) == (36.0, 30.0) and b.at == w.loop + A.KD8_DELAY - 1 or b.at == w.loop + A.KD8_DELAY
    u = w.u
    assert float(u.x[u.row(reaper)]) > 20.0  # it walked to within 5 first


def unit_orders(g: Any, tag: int) -> list[Any]:
    from test_economy import unit

    return list(unit(g, tag).orders)


def mine_setup() -> tuple[Any, Any, int]:
    g, w = rich_eco()
    [mine] = w.spawn(A.MINE_BURROWED, 1, [30.0], [30.0]).tolist()
    g.step(1)
    return g, w, mine


def test_a_burrowed_widow_mine_fires_at_the_first_enemy_in_range_with_splash_and_rearms() -> None:
    g, w, mine = mine_setup()
    [marine, other_mine] = [w.spawn(t, 1, [x], [30.0]).tolist()[0] for t, x in ((MARINE, 34.0), (A.MINE, 34.0))]
    [depot] = w.spawn(D.SUPPLYDEPOT, 1, [36.0], [32.0]).tolist()
    w.command(1, D.HOLDPOSITION_HOLD, [marine], None, 0, False)
    g.step(2)
    assert (mine, A.MINE_ATTACK) not in w.casting.cooldowns  # nobody to fire at
    # a Zealot appears next to the Marine and the unburrowed mine, within 5 of the mine
    [zealot] = w.spawn(ZEALOT, 2, [34.5], [30.5]).tolist()
    w.u.hp[w.u.row(zealot)] = 1000.0  # (to see the whole 125)
    disarm(w, zealot, marine)
    g.step(1)
    fired = w.loop
    # 125 (+35 vs shields): 50 shields and 110 life
    assert (float(w.u.shield[w.u.row(zealot)]), hp(w, zealot)) == (0.0, 1000.0 - 110.0)
    assert hp(w, depot) == 400.0  # structures are not hurt (LP)
    assert hp(w, marine) == 45.0 - A.MINE_SPLASH  # friendly fire of the splash (LP)
    assert hp(w, other_mine) == 90.0  # Widow Mines are not hurt by it (LP)
    assert w.casting.cooldown_until(mine, A.MINE_ATTACK) in (fired + A.MINE_REARM, fired - 1 + A.MINE_REARM)
    assert A.MINE_REARM == int(29 * 22.4)


def test_a_rearming_mine_waits_29_seconds_then_fires_again() -> None:
    g, w, mine = mine_setup()
    lings = w.spawn(ZERGLING, 2, [33.0, 40.0], [30.0, 40.0]).tolist()
    for t in lings:
        w.command(2, D.HOLDPOSITION_HOLD, [t], None, 0, False)
    g.step(1)
    assert w.u.row(lings[0]) < 0  # the first, in range, is dead
    fired = w.casting.cooldown_until(mine, A.MINE_ATTACK) - A.MINE_REARM
    w.u.x[w.u.row(lings[1])], w.u.y[w.u.row(lings[1])] = 33.0, 30.0  # the second comes in range
    w.touch()
    g.step(fired + A.MINE_REARM - w.loop - 1)
    assert w.u.row(lings[1]) >= 0 and hp(w, lings[1]) == 35.0
    g.step(1)
    assert w.u.row(lings[1]) < 0


def test_a_mine_does_not_fire_at_an_enemy_it_cannot_see_cloaked() -> None:
    g, w, mine = mine_setup()
    [b] = w.spawn(A.BANSHEE, 2, [33.0], [30.0]).tolist()
    w.research.grant(2, 20)
    assert w.command(2, 392, [b], None, 0, False) == C.SUCCESS
    w.command(2, D.HOLDPOSITION_HOLD, [b], None, 0, False)
    g.step(8)
    assert (mine, A.MINE_ATTACK) not in w.casting.cooldowns
    assert hp(w, b) == 140.0


def test_the_mine_attack_command_fires_an_armed_mine_at_a_target_in_range() -> None:
    g, w, mine = mine_setup()
    w.casting.start_cooldown(mine, A.MINE_ATTACK, w.loop + 10_000)  # rearming: it waits
    [z] = w.spawn(ZERGLING, 2, [33.0], [30.0]).tolist()
    g.step(1)
    assert act(g, A.MINE_ATTACK, [mine], target=z) == C.COOLDOWN
    w.casting.start_cooldown(mine, A.MINE_ATTACK, 0)
    w.u.x[w.u.row(z)] = 40.0
    assert act(g, A.MINE_ATTACK, [mine], target=z) == C.ERROR  # out of range
    w.u.x[w.u.row(z)] = 33.0
    assert act(g, A.MINE_ATTACK, [mine], target=z) == C.SUCCESS
    assert w.u.row(z) < 0


def test_a_cyclone_locks_on_for_400_damage_over_14_seconds() -> None:
    g, w = rich_eco()
    [cyc] = w.spawn(A.CYCLONE, 1, [20.0], [30.0]).tolist()
    [depot] = w.spawn(D.SUPPLYDEPOT, 2, [34.0], [30.0]).tolist()  # 400 life, cannot shoot back
    g.step(1)
    u = w.u
    u.hp[u.row(depot)] = 1000.0  # (to see the whole 400)
    assert A.LOCK_ON in abilities(g, cyc)
    assert act(g, A.LOCK_ON, [cyc], target=cyc) == C.CANT_TARGET_THAT_UNIT
    assert act(g, A.LOCK_ON, [cyc], target=depot) == C.SUCCESS
    for _ in range(200):
        g.step(1)
        if cyc in w.abilities.locks:
            break
    start = w.abilities.locks[cyc].last
    assert u.x[u.row(cyc)] > 20.0  # it drove into range 7 first
    assert act(g, D.HOLDPOSITION_HOLD, [cyc]) == C.SUCCESS  # (its own missiles stay out of it)
    u.cd[u.row(cyc)] = 1e9
    assert act(g, A.LOCK_ON, [cyc], target=depot) == C.ERROR  # one lock at a time (m)
    g.step(A.LOCK_ON_LOOPS // 2)
    assert hp(w, depot) == pytest.approx(1000.0 - A.LOCK_ON_PER_LOOP * (w.loop - start), abs=1e-6)
    g.step(A.LOCK_ON_LOOPS)
    assert cyc not in w.abilities.locks
    assert hp(w, depot) == pytest.approx(1000.0 - 400.0, abs=1e-6)


def test_a_lock_breaks_beyond_15_and_can_be_cancelled() -> None:
    g, w = rich_eco()
    [cyc] = w.spawn(A.CYCLONE, 1, [20.0], [30.0]).tolist()
    [d1, d2] = w.spawn(D.SUPPLYDEPOT, 2, [25.0, 20.0], [30.0, 35.0]).tolist()
    g.step(1)
    u = w.u
    assert act(g, A.LOCK_ON, [cyc], target=d1) == C.SUCCESS
    assert cyc in w.abilities.locks
    u.x[u.row(d1)] = 50.0  # (moved away: beyond 15)
    w.touch()
    g.step(2)
    assert cyc not in w.abilities.locks
    assert act(g, A.LOCK_ON, [cyc], target=d2) == C.COOLDOWN  # 4.3 s from the lock's end
    g.step(A.LOCK_ON_COOLDOWN)
    assert act(g, A.LOCK_ON, [cyc], target=d2) == C.SUCCESS
    assert act(g, A.LOCK_ON_CANCEL, [cyc]) == C.SUCCESS
    assert cyc not in w.abilities.locks
    assert act(g, A.LOCK_ON_CANCEL, [cyc]) == C.ERROR
    assert tags_of(g, A.CYCLONE) == [cyc]


def test_lock_on_is_autocast_on_the_closest_enemy_unit_unless_the_cyclone_is_moving() -> None:
    g, w = rich_eco()
    [cyc] = w.spawn(A.CYCLONE, 1, [20.0], [30.0]).tolist()
    [depot] = w.spawn(D.SUPPLYDEPOT, 2, [27.0], [30.0]).tolist()  # a structure within 7: never locked on
    [near, far] = w.spawn(ZERGLING, 2, [20.0, 20.0], [33.5, 34.5]).tolist()
    place(w, {cyc: (20.0, 30.0), near: (20.0, 33.5), far: (20.0, 34.5)})
    for z in (near, far):
        w.command(2, D.HOLDPOSITION_HOLD, [z], None, 0, False)
    u = w.u
    u.hp[u.row(near)] = u.hp[u.row(far)] = 1000.0  # (to watch the damage)
    assert act(g, D.MOVE_MOVE, [cyc], (20.0, 20.0)) == C.SUCCESS
    g.step(1)
    assert cyc not in w.abilities.locks  # on a move order: no autocast
    assert act(g, D.HOLDPOSITION_HOLD, [cyc]) == C.SUCCESS
    g.step(1)
    assert w.abilities.locks[cyc].target == near  # the closest enemy unit, not the structure
    before = hp(w, near), hp(w, far)
    # its weapon is locked on the target too: the other Zergling, in its range 5, takes nothing
    g.step(A.LOCK_ON_LOOPS + 1)
    assert hp(w, far) == before[1]
    # (missiles fired just before the lock still land: two at most)
    assert before[0] - A.LOCK_ON_DAMAGE - 2 * 18.0 - 1e-6 <= hp(w, near) <= before[0] - A.LOCK_ON_DAMAGE + 1e-6
    assert hp(w, depot) == 400.0
    assert cyc not in w.abilities.locks
    # after the lock, its weapon fires again while Lock On cools down for 4.3 s
    g.step(A.LOCK_ON_COOLDOWN - 2)
    assert cyc not in w.abilities.locks
    assert hp(w, near) + hp(w, far) < sum(before) - A.LOCK_ON_DAMAGE
    g.step(2)
    assert cyc in w.abilities.locks


def test_a_release_3_8_to_4_7_cyclone_locks_on_air_units_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from sc2pool.engine.data import versions

    monkeypatch.setattr(versions, "_selected", "4.7")
    assert versions.rule("lock_on_air_only")
    g, w = rich_eco()
    [cyc] = w.spawn(A.CYCLONE, 1, [20.0], [30.0]).tolist()
    [ling] = w.spawn(ZERGLING, 2, [20.0], [34.0]).tolist()
    place(w, {cyc: (20.0, 30.0), ling: (20.0, 34.0)})
    w.command(2, D.HOLDPOSITION_HOLD, [ling], None, 0, False)
    assert act(g, D.HOLDPOSITION_HOLD, [cyc]) == C.SUCCESS
    g.step(2)
    assert cyc not in w.abilities.locks  # a ground unit: not by autocast
    assert act(g, A.LOCK_ON, [cyc], target=ling) == C.CANT_TARGET_THAT_UNIT  # nor by hand
    [viking] = w.spawn(35, 2, [22.0], [30.0]).tolist()  # a Viking (fighter mode): air
    g.step(1)
    assert w.abilities.locks[cyc].target == viking
    monkeypatch.setattr(versions, "_selected", None)
    assert not versions.rule("lock_on_air_only")


def test_a_liberator_flies_to_put_its_zone_at_the_point_and_shoots_only_inside_it() -> None:
    from sc2pool.engine.sim.systems import modes as M
    from sc2pool.engine.sim.units import TYPES

    g, w = rich_eco()
    [lib] = w.spawn(M.LIBERATOR, 1, [20.0], [30.0]).tolist()
    [inside, outside] = w.spawn(D.SUPPLYDEPOT, 2, [34.0, 34.0], [30.0, 37.0]).tolist()
    [ling] = w.spawn(ZERGLING, 2, [20.0], [40.0]).tolist()  # within range 10 of the zone's Liberator, outside
    g.step(1)
    w.command(2, D.HOLDPOSITION_HOLD, [ling], None, 0, False)
    assert act(g, M.LIBERATOR_AG, [lib]) == C.ERROR  # (a point is needed)
    assert act(g, M.LIBERATOR_AG, [lib], (34.0, 30.0)) == C.SUCCESS
    u = w.u
    for _ in range(300):
        g.step(1)
        if int(u.unit_id[u.row(lib)]) == 734:
            break
    assert int(u.unit_id[u.row(lib)]) == 734  # LiberatorAG
    r = u.row(lib)
    assert abs(float(np.hypot(u.x[r] - 34.0, u.y[r] - 30.0)) - M.ZONE_CAST_RANGE) < 0.05
    assert w.modes.zones[lib] == (34.0, 30.0)
    assert TYPES.range[u.ti[r]] == 10.0 and TYPES.speed[u.ti[r]] == 0.0  # the client's LiberatorAG
    u.x[u.row(ling)], u.y[u.row(ling)] = float(u.x[r]), float(u.y[r]) - 3.0  # (right under it)
    w.touch()
    g.step(200)
    assert hp(w, ling) == 35.0  # outside the zone: left alone
    assert hp(w, outside) == 400.0  # its edge 5.9 from the zone's centre: outside
    assert hp(w, inside) <= 400.0 - 70.0  # 75 a shot less armor (LP:Liberator)
    assert act(g, D.MOVE_MOVE, [lib], (20.0, 30.0)) == C.ERROR  # (it cannot move in Defender Mode)
    assert act(g, M.LIBERATOR_AA, [lib]) == C.SUCCESS
    assert lib not in w.modes.zones
    g.step(M.TRANSITION_LOOPS[M.LIBERATOR_AA])
    assert int(u.unit_id[u.row(lib)]) == M.LIBERATOR


def test_a_battlecruiser_jumps_after_4_seconds_vulnerable_for_the_first_then_waits_71() -> None:
    assert A.JUMP_VULNERABLE == int(1 * 22.4)  # "a 1 second vulnerable phase before warping" (KB:LLM-PySC2)
    g, w = rich_eco()
    [bc] = w.spawn(A.BATTLECRUISER, 1, [20.0], [30.0]).tolist()
    marines = w.spawn(MARINE, 2, [24.0] * 4, [28.5, 29.5, 30.5, 31.5]).tolist()
    g.step(1)
    assert w.command(2, D.ATTACK_ATTACK, marines, None, bc, False) == C.SUCCESS  # they shoot the Battlecruiser
    assert A.TACTICAL_JUMP in abilities(g, bc)
    u = w.u
    assert act(g, A.TACTICAL_JUMP, [bc], (50.0, 50.0)) == C.SUCCESS
    life = float(u.hp[u.row(bc)])
    g.step(A.JUMP_VULNERABLE - 1)
    assert bc not in w.abilities.jumping
    g.step(1)
    hurt = float(u.hp[u.row(bc)])
    assert hurt < life and float(u.x[u.row(bc)]) == 20.0  # hit in its first second, still there
    assert bc in w.abilities.jumping
    g.step(A.JUMP_DELAY - A.JUMP_VULNERABLE - 1)
    assert (float(u.x[u.row(bc)]), float(u.hp[u.row(bc)])) == (20.0, hurt)  # then unhurt
    assert bc in w.abilities.jumping
    g.step(1)
    r = u.row(bc)
    assert (float(u.x[r]), float(u.y[r])) == (50.0, 50.0)
    assert bc not in w.abilities.jumping
    assert A.TACTICAL_JUMP not in abilities(g, bc)
    assert act(g, A.TACTICAL_JUMP, [bc], (20.0, 30.0)) == C.COOLDOWN
    assert (A.JUMP_DELAY, A.JUMP_COOLDOWN) == (89, 1590)  # 4 and 71 faster seconds
    g.step(A.JUMP_COOLDOWN - A.JUMP_DELAY)
    assert act(g, A.TACTICAL_JUMP, [bc], (20.0, 30.0)) == C.SUCCESS
    del marines


def raven(w: Any, energy: float = 200.0) -> int:
    [r] = w.spawn(A.RAVEN, 1, [20.0], [30.0]).tolist()
    w.abilities._register()
    w.abilities._set(r, energy)
    return int(r)


def test_interference_matrix_silences_a_mechanical_unit_for_11_seconds_for_75_energy() -> None:
    g, w = rich_eco()
    rv = raven(w, 100.0)
    [tank, marine] = [w.spawn(t, 2, [26.0], [y]).tolist()[0] for t, y in ((33, 30.0), (MARINE, 34.0))]
    [depot] = w.spawn(D.SUPPLYDEPOT, 1, [30.0], [30.0]).tolist()  # the tank's target
    disarm(w, marine)
    g.step(1)
    assert A.INTERFERENCE_MATRIX in abilities(g, rv)
    assert act(g, A.INTERFERENCE_MATRIX, [rv], target=marine) == C.MUST_TARGET_MECHANICAL_UNITS
    assert act(g, A.INTERFERENCE_MATRIX, [rv], target=tank) == C.SUCCESS
    assert w.abilities.energy_of(rv) == pytest.approx(25.0, abs=0.1)
    life = hp(w, depot)
    g.step(A.MATRIX_LOOPS - 2)
    assert hp(w, depot) == life  # the tank does not fire
    g.step(40)
    assert hp(w, depot) < life  # then it does
    assert act(g, A.INTERFERENCE_MATRIX, [rv], target=tank) == C.NOT_ENOUGH_ENERGY
    assert C.MUST_TARGET_MECHANICAL_UNITS == 127


def test_anti_armor_missile_takes_3_armor_for_21_seconds_round_its_target() -> None:
    g, w = rich_eco()
    rv = raven(w, 75.0)
    [a, b, far] = w.spawn(MARINE, 2, [26.0, 27.0, 40.0], [30.0, 30.0, 40.0]).tolist()
    disarm(w, a, b, far)
    g.step(1)
    assert act(g, A.ANTI_ARMOR_MISSILE, [rv], target=a) == C.SUCCESS
    assert a in w.abilities.shredded and b in w.abilities.shredded and far not in w.abilities.shredded
    u = w.u
    assert list(w.combat._armor(u.rows(np.array([a, far])))) == [0.0 - 3.0, 0.0]
    assert w.abilities.energy_of(rv) == pytest.approx(0.0, abs=0.1)
    g.step(A.SHRED_LOOPS)
    assert a not in w.abilities.shredded
    assert A.SHRED_LOOPS == 470  # 21 faster seconds


def test_a_ghost_academy_arms_a_nuke_that_a_ghost_drops_after_14_seconds() -> None:
    g, w = rich_eco()
    academy = w.construction.add_structure(A.GHOST_ACADEMY, 1, 30.5, 45.5)
    [ghost] = w.spawn(A.GHOST, 1, [20.0], [30.0]).tolist()
    g.step(1)
    assert act(g, A.NUKE, [ghost], (38.0, 30.0)) == C.ERROR  # no nuke armed
    assert act(g, A.NUKE_ARM, [academy]) == C.TECH_REQUIREMENTS_NOT_MET  # (a Factory first)
    w.construction.add_structure(A.FACTORY, 1, 40.5, 45.5)
    minerals, gas = w.supply.minerals[1], w.supply.vespene[1]
    assert A.NUKE_ARM in abilities(g, academy)
    assert act(g, A.NUKE_ARM, [academy]) == C.SUCCESS
    assert (w.supply.minerals[1], w.supply.vespene[1]) == (minerals - 100, gas - 100)
    assert act(g, A.NUKE_ARM, [academy]) == C.ERROR  # one nuke per Academy (m)
    assert act(g, A.NUKE, [ghost], (38.0, 30.0)) == C.ERROR  # not armed yet
    g.step(A.NUKE_ARM_LOOPS)
    # units without weapons round the point: the player's own, the enemy's, a flying one, a
    # structure, and one beyond the radius
    [own] = w.spawn(A.MINE, 1, [40.0], [36.0]).tolist()
    [enemy, raven, far] = [w.spawn(t, 2, [x], [y]).tolist()[0]
                           for t, x, y in ((A.MINE, 38.0, 30.0), (A.RAVEN, 38.0, 26.0), (A.MINE, 50.0, 30.0))]
    [depot] = w.spawn(D.SUPPLYDEPOT, 2, [36.0], [30.0]).tolist()
    g.step(1)
    disarm(w, ghost)
    assert A.NUKE in abilities(g, ghost)
    assert act(g, A.NUKE, [ghost], (38.0, 30.0)) == C.SUCCESS
    for _ in range(300):
        g.step(1)
        if w.casting.channelling(ghost):
            break
    start = w.loop
    assert w.abilities.silos == {}  # launched
    u = w.u
    assert float(np.hypot(u.x[u.row(ghost)] - 38.0, u.y[u.row(ghost)] - 30.0)) <= 12.0 + 0.5
    life = {t: hp(w, t) for t in (own, enemy, raven, depot, far)}
    g.step(A.NUKE_CHANNEL - 1)
    assert {t: hp(w, t) for t in life} == life
    assert w.loop == start + A.NUKE_CHANNEL - 1
    g.step(1)
    assert u.row(enemy) < 0 and u.row(own) < 0  # friend and foe (LP:Ghost)
    assert u.row(raven) < 0  # an air unit too
    assert u.row(depot) < 0  # 400 life: 300 + 200 vs structures
    assert hp(w, far) == life[far]  # beyond radius 8
    assert A.NUKE_CHANNEL == 313
