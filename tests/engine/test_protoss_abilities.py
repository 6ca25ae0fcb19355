"""The Protoss units' abilities (``sim/systems/protoss_abilities.py``) through the command path:
Blink, Charge, Psionic Transfer, Guardian Shield, Psionic Storm, Feedback, the Archon merge, and
the Dark Templar's permanent cloak; each with the research, energy and cooldown the real game
asks for (figures: the module's constants, cited there)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from test_terran_abilities import abilities
from test_terran_spells import disarm, place
from test_terran_tech import act, rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import protoss_abilities as P

MARINE, MARAUDER, ZERGLING, GHOST = 48, 51, 105, 50


def pos(w: Any, tag: int) -> tuple[float, float]:
    r = w.u.row(tag)
    return float(w.u.x[r]), float(w.u.y[r])


def life(w: Any, tag: int) -> float:
    r = w.u.row(tag)
    return float(w.u.hp[r] + w.u.shield[r])


def spawn(w: Any, uid: int, owner: int, x: float, y: float) -> int:
    [tag] = w.spawn(uid, owner, [x], [y]).tolist()
    place(w, {tag: (x, y)})
    return int(tag)


def test_the_figures_are_the_sources() -> None:
    assert (P.BLINK_RANGE, P.BLINK_COOLDOWN) == (8.0, 157)  # LP:Stalker, 7 s
    assert (P.SHADE_LOOPS, P.SHADE_COOLDOWN) == (157, 246)  # LP:Adept, 7 s and 11 s
    assert (P.GUARD_ENERGY, P.GUARD_RADIUS, P.GUARD_REDUCTION, P.GUARD_LOOPS) == (75.0, 4.5, 2.0, 246)  # LP:Sentry
    assert (P.STORM_ENERGY, P.STORM_RADIUS, P.STORM_DAMAGE, P.STORM_LOOPS) == (75.0, 1.5, 80.0, 64)
    assert (P.FEEDBACK_ENERGY, P.FEEDBACK_PER_ENERGY) == (50.0, 0.5)  # LP:High_Templar
    assert P.MERGE_LOOPS == 269  # LP:Archon, 12 s


def test_blink_needs_its_research_then_teleports_within_8_and_waits_its_cooldown() -> None:
    g, w = rich_eco()
    s = spawn(w, P.STALKER, 1, 20.0, 30.0)
    g.step(1)
    assert act(g, P.BLINK, [s], (27.0, 30.0)) == C.TECH_REQUIREMENTS_NOT_MET
    assert P.BLINK not in abilities(g, s)
    w.research.grant(1, P.BLINK_TECH)
    assert P.BLINK in abilities(g, s)
    assert act(g, P.BLINK, [s], (27.0, 30.0)) == C.SUCCESS
    assert pos(w, s) == pytest.approx((27.0, 30.0))  # at once, no walk
    assert act(g, P.BLINK, [s], (20.0, 30.0)) == C.COOLDOWN
    g.step(P.BLINK_COOLDOWN - 1)
    assert act(g, P.BLINK, [s], (20.0, 30.0)) == C.COOLDOWN
    g.step(1)
    # beyond its range: it walks until within 8 of the point, then blinks
    assert act(g, P.BLINK, [s], (13.0, 30.0)) == C.SUCCESS
    assert pos(w, s)[0] > 26.0
    for _ in range(100):
        g.step(1)
        if pos(w, s)[0] < 14.0:
            break
    assert pos(w, s) == pytest.approx((13.0, 30.0))


def test_charge_speeds_zealots_up_and_lunges_at_a_target_within_4() -> None:
    g, w = rich_eco()
    z = spawn(w, P.ZEALOT, 1, 20.0, 30.0)
    m = spawn(w, MARINE, 2, 23.5, 30.0)
    g.step(1)
    slow = float(w.u.speed[w.u.row(z)])
    assert act(g, P.CHARGE, [z], target=m) == C.TECH_REQUIREMENTS_NOT_MET
    w.research.grant(1, P.CHARGE_TECH)
    assert float(w.u.speed[w.u.row(z)]) == pytest.approx(slow * 4.725 / 3.15)  # LP:Zealot
    assert act(g, P.CHARGE, [z], target=m) == C.SUCCESS
    gap = math.dist(pos(w, z), pos(w, m)) - 0.5 - 0.375
    assert gap == pytest.approx(0.0, abs=1e-6)  # at the Marine's edge at once
    assert act(g, P.CHARGE, [z], target=m) == C.COOLDOWN


def test_an_adept_shade_walks_out_then_the_adept_appears_where_it_is() -> None:
    g, w = rich_eco()
    a = spawn(w, P.ADEPT, 1, 20.0, 30.0)
    g.step(1)
    assert act(g, P.SHADE_CAST, [a], (40.0, 30.0)) == C.SUCCESS
    [(shade, _)] = w.protoss.shades.values()
    assert int(w.u.unit_id[w.u.row(shade)]) == P.SHADE
    assert act(g, P.SHADE_CAST, [a], (40.0, 30.0)) == C.COOLDOWN
    g.step(P.SHADE_LOOPS - 1)
    assert pos(w, a)[0] == pytest.approx(20.0, abs=0.5)
    there = pos(w, shade)
    assert there[0] > 25.0  # the shade walked
    g.step(1)
    assert w.u.row(shade) < 0  # gone
    assert pos(w, a)[0] == pytest.approx(there[0], abs=0.5)
    assert w.protoss.shades == {}


def test_cancelling_the_shade_keeps_the_adept_where_it_stands() -> None:
    g, w = rich_eco()
    a = spawn(w, P.ADEPT, 1, 20.0, 30.0)
    g.step(1)
    assert act(g, P.SHADE_CAST, [a], (40.0, 30.0)) == C.SUCCESS
    [(shade, _)] = w.protoss.shades.values()
    g.step(40)
    assert act(g, P.SHADE_CANCEL, [a]) == C.SUCCESS
    assert w.u.row(shade) < 0
    g.step(P.SHADE_LOOPS)
    assert pos(w, a)[0] == pytest.approx(20.0, abs=0.5)


def fight(w: Any, g: Any, guard: bool) -> float:
    """Shields and life a Zealot loses to a Marine's shots over 100 loops."""
    z = spawn(w, P.ZEALOT, 1, 20.0, 30.0)
    s = spawn(w, P.SENTRY, 1, 19.0, 30.0)
    m = spawn(w, MARINE, 2, 24.0, 30.0)
    disarm(w, z, s)
    g.step(1)
    w.command(1, D.HOLDPOSITION_HOLD, [z, s], None, 0, False)
    w.command(2, D.ATTACK_ATTACK, [m], None, z, False)
    if guard:
        assert act(g, P.GUARDIAN_SHIELD, [s]) == C.NOT_ENOUGH_ENERGY  # (50 energy at the start)
        w.abilities.energy[s] = (P.GUARD_ENERGY, w.loop, 200.0)
        assert P.GUARDIAN_SHIELD in abilities(g, s)
        assert act(g, P.GUARDIAN_SHIELD, [s]) == C.SUCCESS
    before = life(w, z)
    g.step(100)
    return before - life(w, z)


def test_guardian_shield_takes_2_from_each_ranged_attack() -> None:
    g, w = rich_eco()
    bare = fight(w, g, False)
    g2, w2 = rich_eco()
    shielded = fight(w2, g2, True)
    # a Marine's 6 damage per shot becomes 4 (Zealot armor 1 applies to life, not to shields)
    assert bare > 0
    assert shielded == pytest.approx(bare * 4 / 6, rel=0.15)


def test_psionic_storm_hurts_everyone_under_it_80_over_its_duration_without_stacking() -> None:
    g, w = rich_eco()
    ht = spawn(w, P.HIGH_TEMPLAR, 1, 20.0, 30.0)
    ht2 = spawn(w, P.HIGH_TEMPLAR, 1, 20.0, 32.0)
    foe = spawn(w, MARAUDER, 2, 26.0, 30.0)   # 125 life, no shields
    friend = spawn(w, P.ZEALOT, 1, 26.0, 31.0)
    far = spawn(w, MARAUDER, 2, 26.0, 34.0)
    disarm(w, ht, ht2, foe, friend, far)
    g.step(1)
    for t in (foe, friend, far):
        w.command(int(w.u.owner[w.u.row(t)]), D.HOLDPOSITION_HOLD, [t], None, 0, False)
    assert act(g, P.STORM, [ht], (26.0, 30.5)) == C.TECH_REQUIREMENTS_NOT_MET
    w.research.grant(1, P.STORM_TECH)
    assert act(g, P.STORM, [ht], (26.0, 30.5)) == C.NOT_ENOUGH_ENERGY  # (50 at the start)
    for t in (ht, ht2):
        w.abilities.energy[t] = (200.0, w.loop, 200.0)
    before = {t: life(w, t) for t in (foe, friend, far)}
    assert act(g, P.STORM, [ht], (26.0, 30.5)) == C.SUCCESS  # in range 9: at once
    assert act(g, P.STORM, [ht2], (26.0, 30.5)) == C.SUCCESS  # a second storm on the same spot
    assert w.abilities.energy_of(ht) == pytest.approx(125.0, abs=0.5)
    g.step(P.STORM_LOOPS + 5)
    assert before[foe] - life(w, foe) == pytest.approx(P.STORM_DAMAGE)  # once, not twice
    assert before[friend] - life(w, friend) == pytest.approx(P.STORM_DAMAGE)  # friendly fire
    assert life(w, far) == before[far]
    assert w.protoss.storms == []


def test_a_high_templar_waits_its_storm_cooldown_before_its_next_storm() -> None:
    assert P.STORM_COOLDOWN == round(1.43 * P.FASTER)  # "Cooldown: 1.43 seconds" (KB:LLM-PySC2)
    g, w = rich_eco()
    ht = spawn(w, P.HIGH_TEMPLAR, 1, 20.0, 30.0)
    ht2 = spawn(w, P.HIGH_TEMPLAR, 1, 20.0, 32.0)
    disarm(w, ht, ht2)
    w.research.grant(1, P.STORM_TECH)
    for t in (ht, ht2):
        w.abilities.energy[t] = (200.0, w.loop, 200.0)
    g.step(1)
    assert P.STORM in abilities(g, ht)
    assert act(g, P.STORM, [ht], (26.0, 30.5)) == C.SUCCESS  # in range 9: at once
    assert act(g, P.STORM, [ht], (26.0, 26.5)) == C.COOLDOWN  # (the energy is there: 125)
    assert P.STORM not in abilities(g, ht) and P.STORM in abilities(g, ht2)
    assert act(g, P.STORM, [ht, ht2], (26.0, 26.5)) == C.SUCCESS  # the other templar's: its own cooldown
    assert act(g, P.STORM, [ht, ht2], (26.0, 34.5)) == C.COOLDOWN
    g.step(P.STORM_COOLDOWN - 1)
    assert P.STORM not in abilities(g, ht)
    assert act(g, P.STORM, [ht], (26.0, 34.5)) == C.COOLDOWN
    g.step(1)
    assert P.STORM in abilities(g, ht)
    assert act(g, P.STORM, [ht], (26.0, 34.5)) == C.SUCCESS
    assert len(w.protoss.storms) == 3


def test_feedback_drains_energy_and_deals_half_of_it() -> None:
    g, w = rich_eco()
    ht = spawn(w, P.HIGH_TEMPLAR, 1, 20.0, 30.0)
    ghost = spawn(w, GHOST, 2, 26.0, 30.0)
    m = spawn(w, MARINE, 2, 26.0, 33.0)
    disarm(w, ht, ghost, m)
    g.step(1)
    w.abilities._register()
    w.abilities.energy[ghost] = (150.0, w.loop, 200.0)
    assert act(g, P.FEEDBACK, [ht], target=m) == C.CANT_TARGET_THAT_UNIT  # no energy
    before = life(w, ghost)
    assert act(g, P.FEEDBACK, [ht], target=ghost) == C.SUCCESS
    assert w.abilities.energy_of(ghost) == pytest.approx(0.0)
    assert before - life(w, ghost) == pytest.approx(75.0, abs=0.1)
    assert w.abilities.energy_of(ht) == pytest.approx(0.0, abs=0.1)  # 50 - 50


def test_two_templar_merge_into_an_archon_after_12_seconds() -> None:
    g, w = rich_eco()
    a = spawn(w, P.HIGH_TEMPLAR, 1, 20.0, 30.0)
    b = spawn(w, P.DARK_TEMPLAR, 1, 22.0, 30.0)
    g.step(1)
    assert act(g, P.MERGE, [a]) == C.ERROR  # one alone cannot
    assert act(g, P.MERGE, [a, b]) == C.SUCCESS
    g.step(P.MERGE_LOOPS - 1)
    assert w.u.row(a) >= 0 and w.u.row(b) >= 0
    g.step(2)
    assert w.u.row(a) < 0 and w.u.row(b) < 0
    archons = [int(t) for t in w.u.tag[w.u.unit_id == P.ARCHON].tolist()]
    assert len(archons) == 1
    assert pos(w, archons[0])[0] == pytest.approx(21.0, abs=1.0)


def test_dark_templar_are_cloaked_and_cannot_be_attacked_without_detection() -> None:
    g, w = rich_eco()
    dt = spawn(w, P.DARK_TEMPLAR, 2, 24.0, 30.0)
    m = spawn(w, MARINE, 1, 20.0, 30.0)
    g.step(1)
    assert act(g, D.ATTACK_ATTACK, [m], target=dt) == C.CANT_TARGET_THAT_UNIT
    assert all(u.tag != dt for u in g.observation(1).observation.raw_data.units)


def test_a_force_field_keeps_ground_units_out_for_its_duration_and_a_massive_unit_breaks_it() -> None:
    g, w = rich_eco()
    s = spawn(w, P.SENTRY, 1, 20.0, 30.0)
    m = spawn(w, MARINE, 2, 30.0, 30.0)
    disarm(w, s, m)
    g.step(1)
    assert P.FORCE_FIELD in abilities(g, s)  # (50 energy at the start)
    assert act(g, P.FORCE_FIELD, [s], (26.0, 30.0)) == C.SUCCESS
    assert len(w.protoss.fields) == 1
    assert act(g, P.FORCE_FIELD, [s], (26.0, 30.0)) == C.NOT_ENOUGH_ENERGY
    w.command(2, D.MOVE_MOVE, [m], (20.0, 30.0), 0, False)  # straight through the field
    for _ in range(100):
        g.step(1)
        assert math.dist(pos(w, m), (26.0, 30.0)) >= P.FIELD_RADIUS + 0.375 - 1e-6
    g.step(P.FIELD_LOOPS)
    assert w.protoss.fields == []
    assert pos(w, m)[0] < 23.0  # through, once the field is gone
    # a massive unit (a Thor) breaks it
    w.abilities.energy[s] = (50.0, w.loop, 200.0)
    thor = spawn(w, 52, 2, 34.0, 30.0)
    assert act(g, P.FORCE_FIELD, [s], (28.0, 30.0)) == C.SUCCESS
    w.command(2, D.MOVE_MOVE, [thor], (20.0, 30.0), 0, False)
    g.step(60)
    assert w.protoss.fields == []


def test_prismatic_alignment_adds_10_against_armored_targets_for_its_duration() -> None:
    g, w = rich_eco()
    vr = spawn(w, P.VOID_RAY, 1, 20.0, 30.0)
    tank = spawn(w, 52, 2, 24.0, 30.0)  # a Thor: armored, 400 life, armor 1
    disarm(w, tank)
    g.step(1)
    w.command(2, D.HOLDPOSITION_HOLD, [tank], None, 0, False)
    w.command(1, D.ATTACK_ATTACK, [vr], None, tank, False)
    before = life(w, tank)
    g.step(60)
    plain = before - life(w, tank)
    assert P.ALIGN in abilities(g, vr)
    assert act(g, P.ALIGN, [vr]) == C.SUCCESS
    assert act(g, P.ALIGN, [vr]) == C.COOLDOWN
    before = life(w, tank)
    g.step(60)
    aligned = before - life(w, tank)
    assert plain > 0
    # the Void Ray's 6 (+4 armored) per attack, less the Thor's armor 1, becomes 19 per attack
    assert w.u.row(tank) >= 0
    assert plain % 9 == pytest.approx(0.0) and aligned > 0 and aligned % 19 == pytest.approx(0.0)
    g.step(P.ALIGN_LOOPS)
    assert w.protoss.aligned == {}


def test_a_carrier_launches_its_interceptors_at_an_enemy_builds_more_and_docks_them() -> None:
    from protoss_helpers import away, protoss_game

    g = protoss_game()
    w = g.world
    x, y = away(g, 12)
    c = spawn(w, P.CARRIER, 1, x, y)
    w.supply.minerals[1] = 1000
    g.step(2)
    h = w.protoss.hangars[c]
    assert (h.docked, h.out) == (P.HANGAR_START, set())
    assert h.built_at > 0  # the fifth is under way, paid
    assert w.supply.minerals[1] < 1000
    m = spawn(w, MARINE, 2, x + 6.0, y)
    g.step(2)
    assert len(h.out) == P.HANGAR_START and h.docked == 0
    before = life(w, m)
    g.step(60)
    assert w.u.row(m) < 0 or life(w, m) < before  # the Interceptors shoot
    if w.u.row(m) >= 0:
        kill_tag(g, m)
    g.step(120)
    assert h.out == set() and h.docked >= P.HANGAR_START  # back in the hangar
    g.step(P.INTERCEPTOR_LOOPS * 4)
    assert h.docked == P.HANGAR_MAX
    kill_tag(g, c)
    g.step(1)
    assert c not in w.protoss.hangars


def kill_tag(g: Any, tag: int) -> None:
    from protoss_helpers import kill

    kill(g, tag)


def test_revelation_detects_the_cloaked_units_under_it_for_its_duration() -> None:
    g, w = rich_eco()
    o = spawn(w, P.ORACLE, 1, 20.0, 30.0)
    dt = spawn(w, P.DARK_TEMPLAR, 2, 26.0, 30.0)
    m = spawn(w, MARINE, 1, 19.0, 30.0)
    disarm(w, dt, o)
    g.step(1)
    w.command(2, D.HOLDPOSITION_HOLD, [dt], None, 0, False)
    assert act(g, D.ATTACK_ATTACK, [m], target=dt) == C.CANT_TARGET_THAT_UNIT
    assert P.REVELATION in abilities(g, o)
    assert act(g, P.REVELATION, [o], (26.0, 30.0)) == C.SUCCESS
    assert w.abilities.energy_of(o) == pytest.approx(25.0, abs=0.5)  # 50 - 25
    assert any(u.tag == dt for u in g.observation(1).observation.raw_data.units)
    assert act(g, D.HOLDPOSITION_HOLD, [m]) == C.SUCCESS
    w.u.can_attack[w.u.row(m)] = False
    g.step(P.REVEAL_LOOPS - 2)
    assert not w.detection.hidden(1)[w.u.row(dt)]
    g.step(3)
    assert w.detection.hidden(1)[w.u.row(dt)]


def test_an_oracle_attacks_only_with_its_pulsar_beam_on_which_drains_its_energy() -> None:
    from protoss_helpers import away, protoss_game

    g = protoss_game()
    w = g.world
    x, y = away(g, 12)
    o = spawn(w, P.ORACLE, 1, x, y)
    m = spawn(w, MARINE, 2, x + 3.0, y)
    disarm(w, m)
    g.step(2)
    w.command(2, D.HOLDPOSITION_HOLD, [m], None, 0, False)
    w.command(1, D.HOLDPOSITION_HOLD, [o], None, 0, False)
    before = life(w, m)
    g.step(40)
    assert life(w, m) == before  # beam off: no attack
    assert act(g, P.BEAM_ON, [o]) == C.SUCCESS
    assert P.BEAM_OFF in abilities(g, o)
    e0 = w.abilities.energy_of(o)
    g.step(40)
    assert w.u.row(m) < 0 or life(w, m) < before
    assert w.abilities.energy_of(o) < e0  # the drain outruns the regeneration
    assert act(g, P.BEAM_OFF, [o]) == C.SUCCESS
    assert not bool(w.u.can_attack[w.u.row(o)])
    w.abilities.energy[o] = (26.0, w.loop, 200.0)
    assert act(g, P.BEAM_ON, [o]) == C.SUCCESS  # 1 energy left: off within a second or so
    g.step(40)
    assert o not in w.protoss.beams


def test_an_oracle_whose_beam_goes_on_is_the_only_armed_unit_and_still_attacks() -> None:
    """The beam arms the Oracle in place, with no new unit set: the world's "could anybody ever
    hit anybody" answer, kept per unit set to skip quiet loops, must not hold the old no."""
    from protoss_helpers import away, protoss_game

    g = protoss_game()
    w = g.world
    x, y = away(g, 12)
    o = spawn(w, P.ORACLE, 1, x, y)
    m = spawn(w, MARINE, 2, x + 3.0, y)
    disarm(w, *(t for t in w.u.tag[: len(w.u)].tolist() if t != o))
    w.command(2, D.HOLDPOSITION_HOLD, [m], None, 0, False)
    w.command(1, D.HOLDPOSITION_HOLD, [o], None, 0, False)
    g.step(8)
    assert not w.targeting.has_hostile_pairs()  # nobody armed can hit anybody: quiet loops skip
    before = life(w, m)
    assert act(g, P.BEAM_ON, [o]) == C.SUCCESS
    assert w.targeting.has_hostile_pairs()
    g.step(40)
    assert w.u.row(m) < 0 or life(w, m) < before


def test_a_purification_nova_travels_then_detonates_on_ground_units_and_structures_friend_or_foe() -> None:
    g, w = rich_eco()
    d = spawn(w, P.DISRUPTOR, 1, 20.0, 30.0)
    foe = spawn(w, P.ZEALOT, 2, 28.0, 30.0)  # 100 life, 50 shields
    friend = spawn(w, P.ZEALOT, 1, 28.0, 31.0)
    air = spawn(w, P.VOID_RAY, 2, 28.0, 30.0)
    far = spawn(w, MARINE, 2, 28.0, 34.0)
    thor = spawn(w, 52, 2, 29.5, 29.0)  # no shields: 145 of its 400
    # structures, friend and foe, as units (KB:LLM-PySC2): a Pylon (200 life, 200 shields) and a
    # Supply Depot (400 life, no shields) whose edges are within the radius; a flying Barracks is
    # not hurt
    pylon = w.construction.add_structure(60, 1, 28.0, 28.0)
    depot = w.construction.add_structure(D.SUPPLYDEPOT, 2, 29.0, 32.0)
    flying = w.construction.add_structure(46, 2, 27.0, 30.5)
    disarm(w, foe, friend, air, far, thor)
    g.step(1)
    for t in (foe, air, far, thor):
        w.command(2, D.HOLDPOSITION_HOLD, [t], None, 0, False)
    w.command(1, D.HOLDPOSITION_HOLD, [friend], None, 0, False)
    before = {t: life(w, t) for t in (air, far, pylon, depot, flying)}
    assert act(g, P.NOVA, [d], (28.0, 30.5)) == C.SUCCESS
    assert act(g, P.NOVA, [d], (28.0, 30.5)) == C.COOLDOWN
    disarm(w, foe, friend, air, far, thor)  # (again: adding the nova re-derived the columns)
    [nova] = list(w.protoss.novas)
    g.step(P.NOVA_LOOPS - 1)
    assert life(w, foe) == 150.0
    assert pos(w, nova)[0] > 27.0  # it got there
    g.step(1)
    assert w.u.row(nova) < 0
    assert w.u.row(foe) < 0 and w.u.row(friend) < 0  # 145 (+55 vs shields) > 100 life + 50 shields
    assert float(w.u.hp[w.u.row(thor)]) == pytest.approx(400.0 - P.NOVA_DAMAGE)
    assert life(w, air) == before[air] and life(w, far) == before[far]
    assert before[pylon] - life(w, pylon) == pytest.approx(P.NOVA_DAMAGE + P.NOVA_SHIELD_BONUS)  # shields first
    assert before[depot] - life(w, depot) == pytest.approx(P.NOVA_DAMAGE)  # (no armor: 1 would be 144)
    assert life(w, flying) == before[flying]  # (read at once: the dead re-arm the enemies' guns)


def _battery_scene() -> tuple[Any, Any, tuple[float, float], int, int]:
    """A powered Shield Battery beside a holding Stalker whose shields are gone (its own
    regeneration waiting): the game, its world, the Battery's spot, the Battery and the Stalker."""
    from protoss_helpers import PYLON, away, create, protoss_game

    g = protoss_game()
    w = g.world
    x, y = away(g, 12)
    create(g, PYLON, (x, y + 4))
    b = create(g, P.BATTERY, (x, y))
    s = spawn(w, P.STALKER, 1, x + 3.0, y)
    g.step(2)
    w.command(1, D.HOLDPOSITION_HOLD, [s], None, 0, False)
    r = w.u.row(s)
    w.u.shield[r] = 0.0
    w.regeneration.damaged(r)
    return g, w, (x, y), b, s


def test_a_powered_shield_battery_restores_shields_nearby_for_energy() -> None:
    g, w, (x, y), b, s = _battery_scene()
    e0 = w.abilities.energy_of(b)
    assert P.RESTORE in abilities(g, b)
    assert act(g, P.RESTORE, [b], target=s) == C.SUCCESS
    assert act(g, P.RESTORE, [b], (x, y)) == C.MUST_TARGET_UNIT
    g.step(1)  # (the battery notices: from then on the world goes loop by loop)
    g.step(22)  # about a faster second
    got = float(w.u.shield[w.u.row(s)])
    assert got == pytest.approx(P.BATTERY_RATE, abs=P.BATTERY_PER_LOOP * 2)
    assert e0 - w.abilities.energy_of(b) == pytest.approx(got / P.BATTERY_PER_ENERGY, abs=1.0)
    g.step(40)
    assert float(w.u.shield[w.u.row(s)]) == pytest.approx(80.0)  # full, then it stops


def test_battery_overcharge_doubles_a_batterys_restore_without_energy_for_14_s() -> None:
    from protoss_helpers import nexus, unit

    from sc2pool.engine.sim.systems import warpgate as WG

    g, w, _, b, s = _battery_scene()
    w.abilities.spend(b, w.abilities.energy_of(b))  # (an empty battery restores nothing by itself)
    g.step(23)
    assert float(w.u.shield[w.u.row(s)]) < 3.0  # (only what its energy regenerates meanwhile)
    n = nexus(g).tag
    assert WG.OVERCHARGE in abilities(g, n)
    assert act(g, WG.OVERCHARGE, [n], target=s) == C.CANT_TARGET_THAT_UNIT  # a Battery only
    assert act(g, WG.OVERCHARGE, [n], target=b) == C.SUCCESS
    cast = w.loop
    assert w.abilities.energy_of(n) < 50.0 - WG.OVERCHARGE_ENERGY + 1.0
    assert WG.OVERCHARGE_BUFF in unit(g, b).buff_ids
    w.abilities.energy[n] = (200.0, w.loop, 200.0)  # (energy is not what stops the second cast)
    assert act(g, WG.OVERCHARGE, [n], target=b) == C.COOLDOWN
    assert WG.OVERCHARGE not in abilities(g, n)
    g.step(1)
    before = float(w.u.shield[w.u.row(s)])
    g.step(11)  # (half a faster second: the Stalker's 80 shields are not full yet)
    got = float(w.u.shield[w.u.row(s)]) - before
    assert got == pytest.approx(WG.OVERCHARGE_RATE * P.BATTERY_PER_LOOP * 11, abs=P.BATTERY_PER_LOOP)
    assert w.abilities.energy_of(b) < 1.0  # (it spent none: what it has is its own regeneration)
    g.step(WG.OVERCHARGE_LOOPS)
    assert WG.OVERCHARGE_BUFF not in unit(g, b).buff_ids
    w.u.shield[w.u.row(s)] = 0.0
    w.regeneration.damaged(w.u.row(s))
    w.abilities.spend(b, w.abilities.energy_of(b))
    g.step(23)
    assert float(w.u.shield[w.u.row(s)]) < 3.0  # over: empty again, it restores (almost) nothing
    g.step(cast + WG.OVERCHARGE_COOLDOWN - 2 - w.loop)
    assert act(g, WG.OVERCHARGE, [n], target=b) == C.COOLDOWN
    g.step(4)
    assert act(g, WG.OVERCHARGE, [n], target=b) == C.SUCCESS


def test_a_motherships_cloaking_field_cloaks_its_players_units_nearby_but_not_itself() -> None:
    from protoss_helpers import away, protoss_game

    g = protoss_game()
    w = g.world
    x, y = away(g, 12)
    s_near = spawn(w, P.STALKER, 1, x + 3.0, y)
    s_far = spawn(w, P.STALKER, 1, x + 3.0, y + 9.0)
    g.step(2)
    assert not w.detection.hidden(2)[w.u.row(s_near)]
    ms = spawn(w, P.MOTHERSHIP, 1, x, y)
    g.step(2)
    hidden = w.detection.hidden(2)
    assert hidden[w.u.row(s_near)]
    assert not hidden[w.u.row(s_far)] and not hidden[w.u.row(ms)]
    me = {u.tag: u.cloak for u in g.observation(1).observation.raw_data.units}
    assert me[s_near] == 1  # Cloaked, as its own player sees it
    kill_tag(g, ms)
    g.step(2)
    assert not w.detection.hidden(2)[w.u.row(s_near)]


@pytest.mark.parametrize(("ability", "caster", "point"), [
    (P.BLINK, P.STALKER, True), (P.BLINK_GENERIC, P.STALKER, True), (P.CHARGE, P.ZEALOT, False),
    (P.SHADOW_STRIDE, P.DARK_TEMPLAR, True), (154, P.SENTRY, None),
    (P.SHADE_CAST, P.ADEPT, True), (P.GUARDIAN_SHIELD, P.SENTRY, None), (P.FORCE_FIELD, P.SENTRY, True),
    (P.STORM, P.HIGH_TEMPLAR, True), (P.FEEDBACK, P.HIGH_TEMPLAR, False), (P.MERGE, P.HIGH_TEMPLAR, None),
    (P.ALIGN, P.VOID_RAY, None), (P.NOVA, P.DISRUPTOR, True), (P.REVELATION, P.ORACLE, True),
    (P.BEAM_ON, P.ORACLE, None), (P.BUILD_INTERCEPTORS, P.CARRIER, None), (P.GRAVITON, P.PHOENIX, False),
    (P.STASIS_WARD, P.ORACLE, True),
])
def test_these_abilities_are_no_longer_not_supported(ability: int, caster: int, point: bool | None) -> None:
    g, w = rich_eco()
    me = spawn(w, caster, 1, 20.0, 30.0)
    target = spawn(w, GHOST, 2, 24.0, 30.0)
    g.step(1)
    if point is None:
        res = act(g, ability, [me])
    elif point:
        res = act(g, ability, [me], (24.0, 30.0))
    else:
        res = act(g, ability, [me], target=target)
    assert res not in (C.NOT_SUPPORTED, C.ERROR) or ability == P.MERGE
    # without a unit that uses it the command is answered as before these abilities
    m = spawn(w, MARINE, 1, 18.0, 30.0)
    g.step(1)
    res = act(g, ability, [m], (24.0, 30.0)) if point else act(g, ability, [m], target=target)
    assert res == C.NOT_SUPPORTED


def test_graviton_beam_holds_a_ground_unit_and_its_phoenix_for_its_duration() -> None:
    g, w = rich_eco()
    ph = spawn(w, P.PHOENIX, 1, 20.0, 30.0)
    m = spawn(w, MARINE, 2, 26.0, 30.0)
    thor = spawn(w, 52, 2, 26.0, 34.0)
    disarm(w, ph, m, thor)
    g.step(1)
    assert act(g, P.GRAVITON, [ph], target=thor) == C.CANT_TARGET_THAT_UNIT  # massive
    assert act(g, P.GRAVITON, [ph], target=m) == C.SUCCESS
    for _ in range(60):  # it flies into range 4
        g.step(1)
        if ph in w.protoss.lifts:
            break
    assert w.protoss.lifts[ph][0] == m
    assert w.abilities.energy_of(ph) == pytest.approx(0.0, abs=1.0)  # 50 - 50 (and a little regained)
    w.command(2, D.MOVE_MOVE, [m], (40.0, 30.0), 0, False)  # waits: it is lifted
    at = pos(w, m)
    g.step(P.GRAVITON_LOOPS - 5)
    assert pos(w, m) == at
    g.step(10)
    assert ph not in w.protoss.lifts
    g.step(20)
    assert pos(w, m)[0] > at[0]  # its move order after the beam


def test_time_warp_slows_enemies_inside_it_by_half_for_its_duration() -> None:
    g, w = rich_eco()
    ms = spawn(w, P.MOTHERSHIP, 1, 20.0, 30.0)
    m = spawn(w, MARINE, 2, 26.0, 30.0)
    disarm(w, ms, m)
    g.step(1)
    full = float(w.u.speed[w.u.row(m)])
    ms_speed = float(w.u.speed[w.u.row(ms)])
    assert act(g, P.TIME_WARP, [ms], (26.0, 30.0)) == C.NOT_ENOUGH_ENERGY  # (50 at the start)
    w.abilities.energy[ms] = (P.WARP_ENERGY, w.loop, 200.0)
    assert act(g, P.TIME_WARP, [ms], (26.0, 30.0)) == C.SUCCESS
    g.step(1)
    assert float(w.u.speed[w.u.row(m)]) == pytest.approx(full * 0.5)
    w.command(1, D.MOVE_MOVE, [ms], (26.0, 30.0), 0, False)  # into its own Time Warp
    g.step(30)
    assert float(w.u.speed[w.u.row(ms)]) == pytest.approx(ms_speed)  # its own units are not slowed
    assert float(w.u.speed[w.u.row(m)]) == pytest.approx(full * 0.5)
    g.step(P.WARP_LOOPS - 30 + 3)
    assert w.protoss.warps == []
    assert float(w.u.speed[w.u.row(m)]) == pytest.approx(full)


def test_shadow_stride_needs_its_research_and_waits_14_seconds() -> None:
    g, w = rich_eco()
    dt = spawn(w, P.DARK_TEMPLAR, 1, 20.0, 30.0)
    g.step(1)
    assert act(g, P.SHADOW_STRIDE, [dt], (26.0, 30.0)) == C.TECH_REQUIREMENTS_NOT_MET
    w.research.grant(1, P.STRIDE_TECH)
    assert P.SHADOW_STRIDE in abilities(g, dt)
    assert act(g, P.SHADOW_STRIDE, [dt], (26.0, 30.0)) == C.SUCCESS
    assert pos(w, dt) == pytest.approx((26.0, 30.0))
    g.step(P.BLINK_COOLDOWN + 1)
    assert act(g, P.SHADOW_STRIDE, [dt], (20.0, 30.0)) == C.COOLDOWN  # 14 s, not the Stalker's 7
    g.step(P.STRIDE_COOLDOWN - P.BLINK_COOLDOWN)
    assert act(g, P.SHADOW_STRIDE, [dt], (20.0, 30.0)) == C.SUCCESS


def test_hallucination_makes_units_that_use_no_supply_are_reported_as_such_and_vanish_after_43_s() -> None:
    g, w = rich_eco()
    s = spawn(w, P.SENTRY, 1, 20.0, 30.0)
    g.step(1)
    assert act(g, 158, [s]) == C.NOT_ENOUGH_ENERGY  # (50 at the start)
    w.abilities.energy[s] = (P.HALLUCINATION_ENERGY, w.loop, 200.0)
    assert 158 in abilities(g, s)
    food = g.observation(1).observation.player_common.food_used
    assert act(g, 158, [s]) == C.SUCCESS  # two Stalkers
    g.step(1)
    obs = g.observation(1).observation
    fakes = [u for u in obs.raw_data.units if u.unit_type == P.STALKER]
    assert len(fakes) == 2 and all(u.is_hallucination for u in fakes)
    assert obs.player_common.food_used == food
    other: dict[int, bytes] = {}
    w.protoss.extras(2, other)
    assert other == {}  # another player sees them as real
    g.step(P.HALLUCINATION_LOOPS)
    assert not [u for u in g.observation(1).observation.raw_data.units if u.unit_type == P.STALKER]


def test_an_immortals_barrier_absorbs_the_first_100_damage_then_waits_its_cooldown() -> None:
    """systems/barrier.py: the first hit raises the barrier (by itself), which takes up to 100 of
    what reaches the Immortal for 48 loops (the shields stay full), then is ready 720 loops after
    it was raised; spell damage goes through it too."""
    from sc2pool.engine.sim.systems import barrier as B

    assert (B.ABSORB, B.LOOPS, B.COOLDOWN) == (100.0, 48, 720)
    g, w = rich_eco()
    imm = spawn(w, B.IMMORTAL, 1, 20.0, 30.0)
    marines = [spawn(w, MARINE, 2, 24.0, 29.0 + k) for k in range(3)]
    disarm(w, imm)
    g.step(1)
    w.command(1, D.HOLDPOSITION_HOLD, [imm], None, 0, False)
    w.command(2, D.ATTACK_ATTACK, marines, None, imm, False)
    r = w.u.row(imm)
    sh0, hp0 = float(w.u.shield[r]), float(w.u.hp[r])
    g.step(40)  # (three Marines: about 9 shots of 6 in 40 loops, under the 100)
    r = w.u.row(imm)
    assert (float(w.u.shield[r]), float(w.u.hp[r])) == (sh0, hp0)
    raised = w.barrier.state[imm]
    assert raised[2] < B.ABSORB  # (it took them)
    [seen] = [x for x in g.observation(1).observation.raw_data.units if x.tag == imm]
    assert B.BUFF in seen.buff_ids  # (ImmortalOverload, while it is up)
    g.step(B.LOOPS)  # (it is down again: the shots reach the shields)
    r = w.u.row(imm)
    assert float(w.u.shield[r]) < sh0
    [seen] = [x for x in g.observation(1).observation.raw_data.units if x.tag == imm]
    assert B.BUFF not in seen.buff_ids
    for t in marines:  # (the Marines go; the Immortal's shields come back meanwhile)
        w.remove_tags([t])
    start = raised[0] - B.COOLDOWN
    g.step(start + B.COOLDOWN - 10 - w.loop)
    r = w.u.row(imm)
    before = float(w.u.shield[r] + w.u.hp[r])
    w.abilities._damage(r, 30.0)  # (a spell before the cooldown is over: no barrier)
    r = w.u.row(imm)
    assert float(w.u.shield[r] + w.u.hp[r]) == pytest.approx(before - 30.0)
    g.step(20)
    r = w.u.row(imm)
    before = float(w.u.shield[r] + w.u.hp[r])
    w.abilities._damage(r, 30.0)  # (ready again: this raises it, and it takes all 30)
    r = w.u.row(imm)
    assert float(w.u.shield[r] + w.u.hp[r]) == pytest.approx(before)
    assert w.barrier.state[imm][2] == pytest.approx(B.ABSORB - 30.0)
