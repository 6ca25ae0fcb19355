"""The shared "walk into range, then cast" order (``sim/systems/casting.py``) through the command
path, for abilities of all three races: the approach and the cast when the caster's edge comes
within range, a target that moves, a target that is lost, energy spent before the cast, queued
casts."""

from __future__ import annotations

import math
from typing import Any

import pytest
from test_terran_spells import disarm, place
from test_terran_tech import act, rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import abilities as A
from sc2pool.engine.sim.systems import protoss_abilities as P
from sc2pool.engine.sim.systems import zerg_abilities as ZA
from sc2pool.engine.sim.systems import zerg_spells as Z

MARINE, ZERGLING, ZEALOT, ROACH = 48, 105, 73, 110
Y = 44.0
"""A row of the TerranEconomy map clear of its structures and minerals."""


def spawn(w: Any, uid: int, owner: int, x: float, y: float = Y) -> int:
    [tag] = w.spawn(uid, owner, [x], [y]).tolist()
    place(w, {tag: (x, y)})
    return int(tag)


def energy(w: Any, tag: int, value: float) -> None:
    w.abilities._register()
    w.abilities.energy[tag] = (value, w.loop, 200.0)


def ready_caster(caster_type: int, research: int) -> tuple[Any, Any, int]:
    """A game with a disarmed caster of player 1 at x 8, its research done and 200 energy."""
    g, w = rich_eco()
    caster = spawn(w, caster_type, 1, 8.0)
    disarm(w, caster)
    if research:
        w.research.grant(1, research)
    g.step(1)
    energy(w, caster, 200.0)
    return g, w, caster


def gap(w: Any, caster: int, target: int | tuple[float, float]) -> float:
    """Edge to edge from the caster to a unit, or from its edge to a point."""
    u = w.u
    r = u.row(caster)
    if isinstance(target, tuple):
        return math.hypot(target[0] - u.x[r], target[1] - u.y[r]) - float(u.radius[r])
    t = u.row(target)
    return math.hypot(u.x[t] - u.x[r], u.y[t] - u.y[r]) - float(u.radius[r] + u.radius[t])


def orders(g: Any, tag: int) -> list[Any]:
    return next(u for u in g.observation(1).observation.raw_data.units if u.tag == tag).orders


def walk_until_paid(g: Any, w: Any, caster: int, cost: float, target: int | tuple[float, float],
                    limit: int = 400) -> list[float]:
    """Step loop by loop until the caster pays ``cost`` (its energy drops by more than half of it,
    regeneration aside); the gaps seen."""
    paid_below = w.abilities.energy_of(caster) - cost / 2
    gaps = [gap(w, caster, target)]
    for _ in range(limit):
        g.step(1)
        gaps.append(gap(w, caster, target) if not isinstance(target, int) or w.u.row(target) >= 0 else -1.0)
        if w.abilities.energy_of(caster) < paid_below:
            return gaps
    raise AssertionError(f"no cast within {limit} loops; gaps {gaps[-3:]}")


# (race, caster type, ability, its range, its energy, the target: "enemy" unit type or a point)
APPROACH = [
    ("terran", A.GHOST, A.SNIPE, 10.0, 50.0, ZERGLING),
    ("protoss", P.HIGH_TEMPLAR, P.FEEDBACK, P.FEEDBACK_RANGE, P.FEEDBACK_ENERGY, A.GHOST),
    ("zerg", Z.INFESTOR, Z.FUNGAL_GROWTH, 10.0, Z.FUNGAL_ENERGY, None),
    ("zerg-queen", ZA.QUEEN, ZA.TRANSFUSE, 7.0, ZA.TRANSFUSE_ENERGY, ROACH),
]


@pytest.mark.parametrize(("race", "caster_type", "ability", "reach", "cost", "target_type"), APPROACH)
def test_a_caster_walks_until_its_edge_is_within_range_then_pays_and_casts(
        race: str, caster_type: int, ability: int, reach: float, cost: float, target_type: int | None) -> None:
    g, w = rich_eco()
    caster = spawn(w, caster_type, 1, 10.0)
    g.step(1)
    energy(w, caster, 150.0)
    target: int | tuple[float, float]
    foe = 0
    if target_type is None:
        target = (10.0 + reach + 12.0, Y)
        foe = spawn(w, ZEALOT, 2, *target)  # (under the Fungal)
        disarm(w, caster, foe)
        w.command(2, D.HOLDPOSITION_HOLD, [foe], None, 0, False)
        assert act(g, ability, [caster], target) == C.SUCCESS
    else:
        owner = 1 if race == "zerg-queen" else 2  # (Transfusion heals the player's own units)
        target = spawn(w, target_type, owner, 10.0 + reach + 12.0)
        disarm(w, caster, target)
        if target_type == A.GHOST:
            energy(w, target, 100.0)
        if race == "zerg-queen":
            w.u.hp[w.u.row(target)] = 10.0
        g.step(1)
        energy(w, caster, 150.0)
        assert act(g, ability, [caster], target=target) == C.SUCCESS
        assert orders(g, caster)[0].target_unit_tag == target  # (it follows the unit)
    assert orders(g, caster)[0].ability_id == ability
    assert w.abilities.energy_of(caster) == pytest.approx(150.0)  # (paid in range, not at the command)
    assert ability in {c.ability for c in w.casting.casts.values()}
    gaps = walk_until_paid(g, w, caster, cost, target)
    assert gaps[-1] <= reach + 1e-9  # in range, edge to edge ...
    assert gaps[-2] > reach  # ... and not a loop before
    assert gaps[0] > reach + 10.0  # (it walked there)
    victim = target if isinstance(target, int) else foe
    if race == "zerg-queen":
        assert float(w.u.hp[w.u.row(victim)]) >= 10.0 + ZA.TRANSFUSE_LIFE  # the effect: 75 at once (of 145)
    elif race == "zerg":
        assert foe in w.zerg.spells.fungals  # the enemy under it is rooted
    elif race == "protoss":
        assert w.abilities.energy_of(victim) == pytest.approx(0.0)  # Feedback drained it
    else:
        assert w.casting.channelling(caster)  # Steady Targeting channels, then hits
        g.step(A.SNIPE_CHANNEL + 1)
        assert w.u.row(victim) < 0
    assert caster not in w.casting.casts or race == "terran"


# (race, caster, ability, energy, a walking enemy target type)
MOVING = [
    ("terran", A.GHOST, A.SNIPE, 50.0, MARINE),
    ("protoss", P.PHOENIX, P.GRAVITON, P.GRAVITON_ENERGY, MARINE),
    ("zerg", Z.VIPER, Z.ABDUCT, Z.ABDUCT_ENERGY, MARINE),
]


@pytest.mark.parametrize(("race", "caster_type", "ability", "cost", "target_type"), MOVING)
def test_a_cast_on_a_unit_follows_it_while_it_moves(race: str, caster_type: int, ability: int, cost: float,
                                                     target_type: int) -> None:
    g, w = rich_eco()
    caster = spawn(w, caster_type, 1, 8.0)
    target = spawn(w, target_type, 2, 26.0)
    disarm(w, caster, target)
    g.step(1)
    energy(w, caster, 150.0)
    w.command(2, D.MOVE_MOVE, [target], (50.0, Y - 6.0), 0, False)  # it walks away
    g.step(2)
    start = (float(w.u.x[w.u.row(target)]), float(w.u.y[w.u.row(target)]))
    assert act(g, ability, [caster], target=target) == C.SUCCESS
    walk_until_paid(g, w, caster, cost, target)
    t = w.u.row(target)
    moved = math.hypot(float(w.u.x[t]) - start[0], float(w.u.y[t]) - start[1])
    assert moved > 3.0  # the target was elsewhere by then ...
    reach = w.casting.specs[ability].range
    assert gap(w, caster, target) <= reach + 1e-9  # ... and the caster came within range of it there


@pytest.mark.parametrize(("race", "caster_type", "ability", "cost"), [
    ("terran", A.GHOST, A.SNIPE, 50.0),
    ("protoss", P.HIGH_TEMPLAR, P.FEEDBACK, P.FEEDBACK_ENERGY),
    ("zerg", Z.VIPER, Z.ABDUCT, Z.ABDUCT_ENERGY),
])
def test_a_target_that_dies_first_ends_the_order_unpaid_and_the_next_order_comes_up(
        race: str, caster_type: int, ability: int, cost: float) -> None:
    g, w = rich_eco()
    caster = spawn(w, caster_type, 1, 8.0)
    target = spawn(w, A.GHOST, 2, 40.0)  # (biological, with energy: every one of these may take it)
    disarm(w, caster, target)
    g.step(1)
    energy(w, caster, 150.0)
    energy(w, target, 100.0)
    assert act(g, ability, [caster], target=target) == C.SUCCESS
    assert act(g, D.MOVE_MOVE, [caster], (8.0, Y - 8.0), queue=True) == C.SUCCESS
    assert [o.ability_id for o in orders(g, caster)] == [ability, D.MOVE_MOVE]
    g.step(4)
    w.remove_tags([target])
    g.step(2)
    assert caster not in w.casting.casts
    assert [o.ability_id for o in orders(g, caster)] == [D.MOVE_MOVE]  # the queued move comes up
    assert w.abilities.energy_of(caster) >= 150.0  # nothing paid


def test_a_target_that_cloaks_undetected_ends_the_order() -> None:
    """(The Zerg spells did not check this before the shared system: now every race's casts do.)"""
    g, w = rich_eco()
    viper = spawn(w, Z.VIPER, 1, 8.0)
    ghost = spawn(w, A.GHOST, 2, 40.0)
    disarm(w, viper, ghost)
    g.step(1)
    energy(w, viper, 150.0)
    energy(w, ghost, 100.0)
    w.research.grant(2, A.CLOAK_RESEARCH[A.GHOST])
    assert act(g, Z.ABDUCT, [viper], target=ghost) == C.SUCCESS
    g.step(4)
    assert w.command(2, 382, [ghost], None, 0, False) == C.SUCCESS  # Personal Cloaking on
    g.step(2)
    assert viper not in w.casting.casts and not orders(g, viper)
    assert w.abilities.energy_of(viper) >= 150.0
    assert act(g, Z.ABDUCT, [viper], target=ghost) == C.CANT_TARGET_THAT_UNIT  # (and it cannot be ordered again)


# (race, caster, ability, energy, research, what the effect leaves)
POINTS = [
    ("terran", A.GHOST, A.EMP, 75.0, 0),
    ("protoss", P.HIGH_TEMPLAR, P.STORM, P.STORM_ENERGY, P.STORM_TECH),
    ("zerg", Z.INFESTOR, Z.FUNGAL_GROWTH, Z.FUNGAL_ENERGY, 0),
]


def _effects(w: Any, zealot: int) -> tuple[int, int, float]:
    """What the point casts above leave: storms, fungals, the Zealot's shields (EMP)."""
    return len(w.protoss.storms), len(w.zerg.spells.fungals), float(w.u.shield[w.u.row(zealot)])


@pytest.mark.parametrize(("race", "caster_type", "ability", "cost", "research"), POINTS)
def test_without_the_energy_the_command_fails_and_energy_spent_meanwhile_ends_the_order(
        race: str, caster_type: int, ability: int, cost: float, research: int) -> None:
    g, w = rich_eco()
    caster = spawn(w, caster_type, 1, 8.0)
    zealot = spawn(w, ZEALOT, 2, 40.0)
    disarm(w, caster, zealot)
    if research:
        w.research.grant(1, research)
    g.step(1)
    w.command(2, D.HOLDPOSITION_HOLD, [zealot], None, 0, False)
    energy(w, caster, cost - 1.0)
    assert act(g, ability, [caster], (40.0, Y)) == C.NOT_ENOUGH_ENERGY
    assert not orders(g, caster)
    energy(w, caster, cost + 1.0)
    before = _effects(w, zealot)
    assert act(g, ability, [caster], (40.0, Y)) == C.SUCCESS
    g.step(4)
    energy(w, caster, 0.0)  # spent meanwhile (m: as by an EMP)
    g.step(200)
    assert caster not in w.casting.casts and not orders(g, caster)
    assert _effects(w, zealot) == before  # no storm, no fungal, no EMP
    r = w.u.row(caster)
    assert gap(w, caster, (40.0, Y)) > w.casting.specs[ability].range - 1.0  # (it stopped where it was)
    assert float(w.u.x[r]) < 40.0


@pytest.mark.parametrize(("race", "caster_type", "ability", "cost", "research"), POINTS)
def test_queued_casts_wait_for_the_orders_before_them_then_cast_in_turn(
        race: str, caster_type: int, ability: int, cost: float, research: int) -> None:
    g, w, caster = ready_caster(caster_type, research)
    # (the second point far enough that the walk to it outlasts a cooldown, Storm's 32 loops: a
    # cast that comes up in range while its cooldown runs is dropped)
    first, second = (30.0, Y), (45.0, Y - 10.0)
    assert act(g, D.MOVE_MOVE, [caster], (8.0, Y - 10.0)) == C.SUCCESS
    assert act(g, ability, [caster], first, queue=True) == C.SUCCESS
    assert act(g, ability, [caster], second, queue=True) == C.SUCCESS
    assert [o.ability_id for o in orders(g, caster)] == [D.MOVE_MOVE, ability, ability]
    assert len(w.casting.queued[caster]) == 2 and caster not in w.casting.casts
    spent: list[tuple[int, tuple[float, float]]] = []
    lowest = Y
    e = w.abilities.energy_of(caster)
    for _ in range(600):
        g.step(1)
        now = w.abilities.energy_of(caster)
        r = w.u.row(caster)
        if now < e - cost / 2:
            spent.append((w.loop, (float(w.u.x[r]), float(w.u.y[r]))))
        elif not spent:
            lowest = min(lowest, float(w.u.y[r]))
        e = now
        if len(spent) == 2:
            break
    assert len(spent) == 2  # both cast, one after the other
    assert lowest < Y - 9.5  # the first waited for the move before it to end
    (_, at1), (_, at2) = spent
    reach = w.casting.specs[ability].range
    r_c = float(w.u.radius[w.u.row(caster)])
    assert math.hypot(first[0] - at1[0], first[1] - at1[1]) - r_c <= reach + 1e-9
    assert math.hypot(second[0] - at2[0], second[1] - at2[1]) - r_c <= reach + 1e-9
    assert not w.casting.active


def test_a_new_order_drops_the_queued_casts() -> None:
    g, w = rich_eco()
    ghost = spawn(w, A.GHOST, 1, 8.0)
    disarm(w, ghost)
    g.step(1)
    energy(w, ghost, 200.0)
    assert act(g, D.MOVE_MOVE, [ghost], (8.0, Y - 10.0)) == C.SUCCESS
    assert act(g, A.EMP, [ghost], (30.0, Y), queue=True) == C.SUCCESS
    assert act(g, D.MOVE_MOVE, [ghost], (12.0, Y)) == C.SUCCESS  # (not queued: replaces them)
    g.step(120)
    assert not w.casting.active
    assert w.abilities.energy_of(ghost) >= 200.0 - 1e-9


@pytest.mark.parametrize(("race", "caster_type", "ability", "cost", "research"), POINTS)
def test_another_order_during_the_approach_replaces_the_cast(race: str, caster_type: int, ability: int, cost: float,
                                                              research: int) -> None:
    g, w, caster = ready_caster(caster_type, research)
    assert act(g, ability, [caster], (40.0, Y)) == C.SUCCESS
    g.step(8)
    assert caster in w.casting.casts
    assert act(g, D.MOVE_MOVE, [caster], (40.0, Y)) == C.SUCCESS  # (the same way, but a plain move)
    g.step(400)
    assert not w.casting.active
    assert w.abilities.energy_of(caster) >= 200.0 - 1e-9  # never cast
    assert gap(w, caster, (40.0, Y)) < 0.0  # it walked all the way


@pytest.mark.parametrize(("race", "caster_type", "ability", "cost", "research"),
                         [*POINTS, ("zerg-queen", ZA.QUEEN, ZA.TRANSFUSE, ZA.TRANSFUSE_ENERGY, 0)])
def test_of_the_commanded_casters_the_first_with_the_energy_casts(race: str, caster_type: int, ability: int,
                                                                  cost: float, research: int) -> None:
    g, w = rich_eco()
    tired = spawn(w, caster_type, 1, 8.0)
    fresh = spawn(w, caster_type, 1, 8.0, Y - 3.0)
    roach = spawn(w, ROACH, 1, 30.0)
    disarm(w, tired, fresh, roach)
    if research:
        w.research.grant(1, research)
    g.step(1)
    energy(w, tired, cost - 1.0)
    energy(w, fresh, cost + 1.0)
    if race == "zerg-queen":
        w.u.hp[w.u.row(roach)] = 10.0
        assert act(g, ability, [tired, fresh], target=roach) == C.SUCCESS
    else:
        assert act(g, ability, [tired, fresh], (30.0, Y)) == C.SUCCESS
    assert fresh in w.casting.casts and tired not in w.casting.casts
    assert not orders(g, tired)


def test_a_cast_queued_behind_a_consume_waits_for_its_end() -> None:
    g, w = rich_eco()
    viper = spawn(w, Z.VIPER, 1, 30.0, 36.0)
    marine = spawn(w, MARINE, 2, 44.0)
    disarm(w, viper, marine)
    depot = w.construction.add_structure(D.SUPPLYDEPOT, 1, 30.0, 38.0)  # (a finished structure of its player)
    g.step(1)
    energy(w, viper, 100.0)
    assert act(g, Z.CONSUME, [viper], target=depot) == C.SUCCESS
    g.step(4)
    assert viper in w.zerg.spells.consumes
    assert act(g, Z.ABDUCT, [viper], target=marine, queue=True) == C.SUCCESS
    g.step(Z.CONSUME_LOOPS // 2)
    assert viper in w.zerg.spells.consumes  # (not ended by the queued cast)
    g.step(Z.CONSUME_LOOPS // 2 + 100)
    assert viper not in w.zerg.spells.consumes and not w.casting.active
    r, t = w.u.row(viper), w.u.row(marine)
    assert math.hypot(w.u.x[t] - w.u.x[r], w.u.y[t] - w.u.y[r]) < 1.5  # then it abducted the marine


def test_one_cooldown_table_answers_per_caster_and_ability_and_forgets_the_dead() -> None:
    _, w = rich_eco()
    c = w.casting
    yamato, blink = 401, 1442  # (a Terran and a Protoss ability: one table holds both)
    assert c.ready_to(7, yamato) and c.cooldown_until(7, yamato) == 0  # (never cast: ready)
    c.start_cooldown(7, yamato, w.loop + 10)
    c.start_cooldown(8, blink, w.loop + 5)
    assert not c.ready_to(7, yamato) and c.cooldown_until(7, yamato) == w.loop + 10
    assert not c.ready_to(7, yamato, w.loop + 9) and c.ready_to(7, yamato, w.loop + 10)  # (over at that loop)
    assert c.ready_to(7, blink) and c.ready_to(8, yamato)  # (the key is the caster and the ability)
    c.forget_cooldowns({8})
    assert c.cooldown_until(7, yamato) == 0 and c.cooldown_until(8, blink) == w.loop + 5


def test_a_cooldown_started_by_a_cast_holds_at_the_command_after_a_unit_died() -> None:
    """The cast's cooldown goes in the table the command checks, also after the dead units' keys
    were dropped (the Ravager's second bile is refused)."""
    g, w = rich_eco()
    ravager = spawn(w, Z.RAVAGER, 1, 8.0)
    other = spawn(w, ZERGLING, 1, 8.0, 36.0)
    disarm(w, ravager, other)
    g.step(1)
    assert act(g, Z.CORROSIVE_BILE, [ravager], (12.0, Y)) == C.SUCCESS
    g.step(4)
    w.remove_tags([other])  # (a unit is gone: the world drops the dead units' records)
    g.step(Z.BILE_COOLDOWN)
    assert w.casting.ready_to(ravager, Z.CORROSIVE_BILE)
    assert act(g, Z.CORROSIVE_BILE, [ravager], (12.0, Y)) == C.SUCCESS
    g.step(4)
    assert not w.casting.ready_to(ravager, Z.CORROSIVE_BILE)
    assert act(g, Z.CORROSIVE_BILE, [ravager], (12.0, Y)) == C.COOLDOWN
