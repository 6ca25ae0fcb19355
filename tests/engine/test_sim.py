"""Simulation rules on a bare World: movement speed, orders, acquisition, damage, splash, events."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.commands import CANT_TARGET_THAT_UNIT, SUCCESS, YOU_CANT_CONTROL_THAT_UNIT
from sc2pool.engine.sim.units import ATTACK_MOVE, HOLD, IDLE, MOVE, TYPES
from sc2pool.engine.sim.world import World

ARENA = MapSpec("Test", 64, 64, (0, 0, 64, 64))


def world() -> World:
    return World(ARENA)


def one(w: World, unit_id: int, owner: int, x: float, y: float) -> int:
    return int(w.spawn(unit_id, owner, [x], [y])[0])


def row(w: World, tag: int) -> int:
    return w.u.row(tag)


def run(w: World, loops: int) -> list[int]:
    dead: list[int] = []
    for _ in range(loops):
        dead.extend(w.step_loop().tags.tolist())
    return dead


def test_marine_moves_at_data_speed_and_stops_at_target() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    assert w.command(1, D.MOVE_MOVE, [m], (30.0, 10.0), 0, False) == SUCCESS
    run(w, 16)
    assert w.u.x[row(w, m)] == pytest.approx(10 + 2.25)  # one normal-speed second
    run(w, 200)
    i = row(w, m)
    assert (w.u.x[i], w.u.y[i]) == pytest.approx((30.0, 10.0))
    assert w.u.kind[i] == IDLE  # order finished


def test_generic_move_id_is_accepted_and_reported_as_specific() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    assert w.command(1, D.MOVE, [m], (20.0, 10.0), 0, False) == SUCCESS
    assert w.u.ability[row(w, m)] == D.MOVE_MOVE


def test_queued_orders_run_in_sequence() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    w.command(1, D.MOVE_MOVE, [m], (12.0, 10.0), 0, False)
    w.command(1, D.MOVE_MOVE, [m], (12.0, 14.0), 0, True)
    assert w.u.queues[m][0].ty == 14.0
    run(w, 60)
    i = row(w, m)
    assert (w.u.x[i], w.u.y[i]) == pytest.approx((12.0, 14.0))
    assert m not in w.u.queues and w.u.kind[i] == IDLE


def test_stop_clears_orders_and_queue() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    w.command(1, D.MOVE_MOVE, [m], (40.0, 10.0), 0, False)
    w.command(1, D.MOVE_MOVE, [m], (40.0, 40.0), 0, True)
    w.command(1, D.STOP_STOP, [m], None, 0, False)
    x = w.u.x[row(w, m)]
    run(w, 10)
    assert w.u.x[row(w, m)] == x and w.u.kind[row(w, m)] == IDLE and m not in w.u.queues


def test_commands_refuse_foreign_units_and_bad_targets() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    r = one(w, D.ROACH, 2, 20, 10)
    b = one(w, D.BEACON_TERRAN, 16, 30, 30)
    assert w.command(1, D.MOVE_MOVE, [r], (1.0, 1.0), 0, False) == YOU_CANT_CONTROL_THAT_UNIT
    assert w.command(1, D.ATTACK_ATTACK, [m], None, 999, False) == CANT_TARGET_THAT_UNIT
    assert w.command(1, D.ATTACK_ATTACK, [m], None, b, False) == CANT_TARGET_THAT_UNIT
    # roach cannot hit air, marine is ground: still hittable; smart on an enemy means attack
    assert w.command(1, D.SMART, [m], None, r, False) == SUCCESS
    assert w.u.ability[row(w, m)] == D.ATTACK_ATTACK


def hit_loops(w: World, tag: int, loops: int) -> list[tuple[int, float]]:
    """(loop, hit points after) for every loop in which the unit ``tag`` lost hit points."""
    out = []
    hp = float(w.u.hp[row(w, tag)])
    for _ in range(loops):
        w.step_loop()
        i = row(w, tag)
        if i < 0:
            break
        if float(w.u.hp[i]) != hp:
            hp = float(w.u.hp[i])
            out.append((w.loop, hp))
    return out


def test_marine_vs_roach_damage_armor_and_cooldown() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    r = one(w, D.ROACH, 2, 10 + 0.375 + 0.625 + 4.5, 10)  # in marine range (5), outside roach range (4)
    w.command(2, D.HOLDPOSITION_HOLD, [r], None, 0, False)
    w.command(1, D.ATTACK_ATTACK, [m], None, r, False)
    hits = hit_loops(w, r, 200)
    assert [hp for _, hp in hits[:3]] == [140, 135, 130]  # 6 damage - armor 1
    dp = math.ceil(D.UNIT_BY_ID[D.MARINE].weapons[0].damage_point * 16)
    assert hits[0][0] == 1 + dp  # fired on loop 1, the hit lands after the damage point
    cd = TYPES.cd_loops[TYPES.row(D.MARINE)]  # 0.8608 * 16 = 13.77 loops, plus the random delay
    lo, hi = cd + D.RANDOM_DELAY[0] * 16, cd + D.RANDOM_DELAY[1] * 16
    gaps = np.diff([loop for loop, _ in hits])
    assert np.all((gaps >= math.floor(lo)) & (gaps <= math.ceil(hi) + 1)), gaps
    assert len(set(gaps.tolist())) > 1  # the cooldown varies
    assert abs(float(gaps.mean()) - (cd + 16 * sum(D.RANDOM_DELAY) / 2)) < 1.0
    assert w.u.hp[row(w, m)] == 45  # roach on hold, out of its range: never fired


def test_cooldown_variance_is_seeded() -> None:
    def gaps(seed: int) -> list[int]:
        w = world()
        w.rng = np.random.default_rng(seed)
        m = one(w, D.MARINE, 1, 10, 10)
        r = one(w, D.ROACH, 2, 15.5, 10)
        w.command(2, D.HOLDPOSITION_HOLD, [r], None, 0, False)
        w.command(1, D.ATTACK_ATTACK, [m], None, r, False)
        return np.diff([loop for loop, _ in hit_loops(w, r, 150)]).tolist()

    assert gaps(1) == gaps(1)
    assert gaps(1) != gaps(2)


def test_roach_and_stalker_missiles_take_time_to_fly() -> None:
    for shooter in (D.ROACH, D.STALKER):
        spec = D.UNIT_BY_ID[shooter]
        wpn = spec.weapons[0]
        w = world()
        s = one(w, shooter, 1, 10, 10)
        centre = spec.radius + D.UNIT_BY_ID[D.MARAUDER].radius + wpn.range - 0.05  # just in range
        t = one(w, D.MARAUDER, 2, 10 + centre, 10)
        w.command(2, D.HOLDPOSITION_HOLD, [t], None, 0, False)
        w.command(1, D.ATTACK_ATTACK, [s], None, t, False)
        hits = hit_loops(w, t, 60)
        flight = math.ceil(centre / (wpn.projectile_speed / 16))
        assert hits[0][0] == 1 + math.ceil(wpn.damage_point * 16) + flight, shooter
        assert wpn.projectile_speed > 0


def test_a_missile_in_flight_lands_after_its_shooter_dies_a_swing_does_not() -> None:
    w = world()
    r = one(w, D.ROACH, 1, 10, 10)
    t = one(w, D.MARAUDER, 2, 14.5, 10)
    w.command(2, D.HOLDPOSITION_HOLD, [t], None, 0, False)
    w.command(1, D.ATTACK_ATTACK, [r], None, t, False)
    dp = math.ceil(D.UNIT_BY_ID[D.ROACH].weapons[0].damage_point * 16)
    for _ in range(dp + 1):
        w.step_loop()  # fired on loop 1, the missile left after the damage point
    w.remove_tags([r])
    assert [hp for _, hp in hit_loops(w, t, 30)] == [125 - (16 - 1)]
    w = world()
    z = one(w, D.ZERGLING, 1, 10, 10)
    t = one(w, D.MARAUDER, 2, 10.95, 10)
    w.command(2, D.HOLDPOSITION_HOLD, [t], None, 0, False)
    w.command(1, D.ATTACK_ATTACK, [z], None, t, False)
    w.step_loop()  # the zergling starts its swing ...
    w.remove_tags([z])  # ... and dies before the damage point
    assert hit_loops(w, t, 30) == []


def test_bonus_damage_vs_armored_and_minimum_damage() -> None:
    w = world()
    a = one(w, D.MARAUDER, 1, 10, 10)
    r = one(w, D.ROACH, 2, 12, 10)
    w.command(1, D.ATTACK_ATTACK, [a], None, r, False)
    w.command(2, D.STOP_STOP, [r], None, 0, False)
    assert hit_loops(w, r, 10)[0][1] == 145 - (10 + 10 - 1)
    w2 = world()
    z = one(w2, D.ZERGLING, 1, 10, 10)
    lv = one(w2, D.LARVA, 2, 10.7, 10)
    w2.command(1, D.ATTACK_ATTACK, [z], None, lv, False)
    assert hit_loops(w2, lv, 10)[0][1] == 25 - 0.5  # 5 damage vs 10 armor: 0.5 minimum


def test_shields_absorb_first_then_armor_applies() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    z = one(w, D.ZEALOT, 2, 14, 10)
    w.command(2, D.HOLDPOSITION_HOLD, [z], None, 0, False)
    w.command(1, D.ATTACK_ATTACK, [m], None, z, False)
    hit_loops(w, z, 3)
    i = row(w, z)
    assert (w.u.shield[i], w.u.hp[i]) == (44, 100)  # shields take full damage (shield armor 0)
    w.u.shield[i] = 2.0
    hit_loops(w, z, 18)
    assert (w.u.shield[i], w.u.hp[i]) == (0, 100 - (4 - 1))


def test_range_is_edge_to_edge() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    r = one(w, D.ROACH, 2, 10 + 0.375 + 0.625 + 5.05, 10)
    w.command(2, D.HOLDPOSITION_HOLD, [r], None, 0, False)
    w.command(1, D.HOLDPOSITION_HOLD, [m], None, 0, False)
    run(w, 20)
    assert w.u.hp[row(w, r)] == 145  # 5.05 > range 5: hold never fires nor moves
    w.u.x[row(w, r)] -= 0.1
    assert hit_loops(w, r, 3)[0][1] == 140


def test_idle_units_acquire_within_sight_and_chase_hold_does_not() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    held = one(w, D.MARINE, 1, 10, 20)
    w.command(1, D.HOLDPOSITION_HOLD, [held], None, 0, False)
    r = one(w, D.ROACH, 2, 18, 10)  # 8 away: inside marine sight (9), outside its range
    r2 = one(w, D.ROACH, 2, 17, 20)
    w.command(2, D.HOLDPOSITION_HOLD, [r, r2], None, 0, False)
    run(w, 40)
    assert w.u.x[row(w, m)] > 10.5  # chased into range
    assert w.u.hp[row(w, r)] < 145
    assert w.u.x[row(w, held)] == 10 and w.u.hp[row(w, r2)] == 145


def test_attack_move_engages_on_the_way_then_continues() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    z = one(w, D.ZERGLING, 2, 20, 12)
    w.command(2, D.HOLDPOSITION_HOLD, [z], None, 0, False)
    w.command(1, D.ATTACK_ATTACK, [m], (40.0, 10.0), 0, False)
    dead = run(w, 400)
    assert z in dead
    i = row(w, m)
    assert w.u.x[i] == pytest.approx(40.0) and w.u.kind[i] == IDLE


def test_baneling_splash_hits_marines_in_radius_and_dies() -> None:
    w = world()
    near = w.spawn(D.MARINE, 1, [10.0, 10.0, 11.0], [10.0, 11.5, 10.0])
    far = one(w, D.MARINE, 1, 10, 16)
    for t in [*near.tolist(), far]:
        w.command(1, D.HOLDPOSITION_HOLD, [t], None, 0, False)
    w.u.cd[:] = 1000  # marines do not shoot back
    b = one(w, D.BANELING, 2, 10.8, 10.8)
    w.command(2, D.ATTACK_ATTACK, [b], None, int(near[0]), False)
    dead = run(w, 10)
    assert b in dead
    for t in near.tolist():
        assert w.u.hp[row(w, t)] == 45 - 35  # 16 + 19 vs Light, armor 0
    assert w.u.hp[row(w, far)] == 45


def test_explode_order_detonates_immediately() -> None:
    w = world()
    b = one(w, D.BANELING, 2, 10, 10)
    m = one(w, D.MARINE, 1, 11, 10)
    w.u.cd[:] = 1000
    assert w.command(2, D.EXPLODE_EXPLODE, [b], None, 0, False) == SUCCESS
    dead = run(w, 1)
    assert dead == [b] and w.u.hp[row(w, m)] == 10


def test_deaths_are_logged_once_with_tags() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    z = one(w, D.ZERGLING, 2, 12, 10)
    w.command(2, D.HOLDPOSITION_HOLD, [z], None, 0, False)
    w.command(1, D.ATTACK_ATTACK, [m], None, z, False)
    dead = run(w, 200)
    assert dead == [z] and w.dead_tags == [z]
    assert row(w, z) == -1 and w.u.kind[row(w, m)] == IDLE  # attack order done once the target died


def test_patrol_turns_around() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    w.command(1, D.PATROL_PATROL, [m], (14.0, 10.0), 0, False)
    xs = []
    for _ in range(120):
        w.step_loop()
        xs.append(float(w.u.x[row(w, m)]))
    assert max(xs) == pytest.approx(14.0) and xs[-1] < 14.0 and min(xs[40:]) == pytest.approx(10.0, abs=0.2)


def test_fast_forward_matches_loop_by_loop() -> None:
    """Quiet-stretch and standing-fight shortcuts must not change the outcome."""

    def battle(shortcut: bool) -> tuple[np.ndarray, np.ndarray, list[int]]:
        w = world()
        w.spawn(D.MARINE, 1, np.full(6, 10.0), np.arange(6) + 20.0)
        w.spawn(D.ROACH, 2, np.full(3, 40.0), np.arange(3) * 2 + 20.0)
        tags = w.u.tag[w.u.owner == 1].tolist()
        w.command(1, D.ATTACK_ATTACK, tags, (45.0, 22.0), 0, False)
        while w.loop < 600:
            h = w.quiet_horizon() if shortcut else 1
            h = min(h, 600 - w.loop)
            if h > 1:
                w.fast_forward(h)
            else:
                w.step_loop()
        return w.u.hp.copy(), w.u.x.copy(), list(w.dead_tags)

    hp_a, x_a, d_a = battle(False)
    hp_b, x_b, d_b = battle(True)
    assert d_a == d_b and len(d_a) > 0
    np.testing.assert_allclose(hp_a, hp_b)
    np.testing.assert_allclose(x_a, x_b, atol=1e-6)


def test_units_stay_inside_the_playable_area() -> None:
    w = World(MapSpec("Small", 64, 64, (16, 16, 48, 48)))
    m = one(w, D.MARINE, 1, 20, 20)
    w.command(1, D.MOVE_MOVE, [m], (100.0, 20.0), 0, False)
    run(w, 400)
    assert w.u.x[row(w, m)] <= 48 - 0.375


def test_order_kinds_after_commands() -> None:
    w = world()
    m = one(w, D.MARINE, 1, 10, 10)
    w.command(1, D.ATTACK_ATTACK, [m], (20.0, 10.0), 0, False)
    assert w.u.kind[row(w, m)] == ATTACK_MOVE
    w.command(1, D.MOVE_MOVE, [m], (20.0, 10.0), 0, False)
    assert w.u.kind[row(w, m)] == MOVE
    w.command(1, D.HOLDPOSITION, [m], None, 0, False)
    assert w.u.kind[row(w, m)] == HOLD


def test_computer_focus_fires_the_weakest_in_range_from_medium_hard() -> None:
    from sc2pool.engine.computer import PERIOD, ComputerAI

    for difficulty, focus in ((3, False), (4, True)):
        w = world()
        mine = w.spawn(D.MARINE, 2, [20.0, 20.0, 20.0], [20.0, 21.0, 22.0])
        weak = one(w, D.MARINE, 1, 24, 21)
        strong = one(w, D.MARINE, 1, 24, 20)
        w.u.hp[row(w, weak)] = 5
        ai = ComputerAI(2, difficulty)
        assert ai.attack_delay <= 96
        w.loop = ai.attack_delay
        ai.act(w)
        targets = {int(w.u.ttag[row(w, t)]) for t in mine.tolist()}
        if focus:
            assert targets == {weak}
        else:
            assert all(w.u.kind[row(w, t)] == ATTACK_MOVE for t in mine.tolist())
        assert ai.horizon(w.loop) == PERIOD
        del strong


def test_position_view_writes_through_to_x_and_y() -> None:
    """The separation passes push units through ``UnitStore.xy``; it must stay a view of the
    ``x`` and ``y`` columns after units are added or removed and after a pickle round trip."""
    import pickle

    w = world()
    tags = w.spawn(D.MARINE, 1, [1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    w.remove_tags([int(tags[1])])
    u = w.u
    u.xy += 1.0
    assert u.x.tolist() == [2.0, 4.0] and u.y.tolist() == [5.0, 7.0]
    u2 = pickle.loads(pickle.dumps(u))
    u2.xy[1] = 9.0
    u2.xy[2] = 8.0
    assert u2.x.tolist() == [2.0, 9.0] and u2.y.tolist() == [8.0, 7.0]


@pytest.mark.parametrize("types", [(D.MARINE,), (D.MARINE, D.MARAUDER, D.ROACH, D.ZERGLING, D.LARVA)])
def test_target_search_per_owner_equals_one_masked_matrix(types: tuple[int, ...],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """From many units on, the nearest-target search splits the rows by owner (or, for a few rows,
    masks each row's own side in one matrix over the non-neutral units); both must find the same
    targets at the same distances as one masked matrix over all units (one radius or mixed radii;
    with a type that cannot attack, whose rows find nothing)."""
    from sc2pool.engine.sim.systems import targeting as targeting_module
    from sc2pool.engine.sim.units import NEUTRAL_OWNER

    rng = np.random.default_rng(5)
    w = world()
    per = max(8, targeting_module._SUBSET_MIN_UNITS // (3 * len(types)) + 1)
    for owner in (1, 2, 3):
        for t in types:
            w.spawn(t, owner, rng.uniform(1, 63, per), rng.uniform(1, 63, per))
    w.spawn(D.BEACON_TERRAN, NEUTRAL_OWNER, [32.0], [32.0])
    assert len(w.u) >= targeting_module._SUBSET_MIN_UNITS
    rows = (~w.u.neutral).nonzero()[0]
    monkeypatch.setattr(targeting_module, "_MIXED_MAX_ROWS", 0)
    best, dist = w.targeting.nearest(rows)  # one matrix per owner
    monkeypatch.setattr(targeting_module, "_MIXED_MAX_ROWS", 1 << 30)
    best_mixed, dist_mixed = w.targeting.nearest(rows)  # one matrix, own sides masked
    monkeypatch.setattr(targeting_module, "_SUBSET_MIN_UNITS", 1 << 30)
    best_all, dist_all = w.targeting.nearest(rows)
    assert best.tolist() == best_all.tolist() == best_mixed.tolist()
    assert dist.tobytes() == dist_all.tobytes() == dist_mixed.tobytes()
    assert np.isfinite(dist).sum() >= len(rows) - (per * 3 if D.LARVA in types else 0)
