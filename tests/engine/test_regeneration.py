"""Regeneration (``sim/systems/regeneration.py``): Zerg life and Protoss shields come back at the
real rates (LP:Zerg 0.2734 life per normal-speed second; LP:Roach, burrowed +7 per faster
second; LP:Shields 2 shields per normal-speed second after 10 normal-speed seconds without
damage; the Reaper's Combat Drugs, 2 life per normal-speed second after a delay without damage,
from the game's balance data), the same whatever the steps the world is advanced by, and not at
all for other Terran units."""

from __future__ import annotations

import numpy as np

from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.sim.systems.regeneration import (
    REAPER_DELAY_LOOPS,
    REAPER_PER_LOOP,
    SHIELD_DELAY_LOOPS,
    SHIELD_PER_LOOP,
    ZERG_LIFE_PER_LOOP,
)
from sc2pool.engine.sim.world import World

ROACH, ROACH_BURROWED, HATCHERY, ZEALOT, GATEWAY, MARINE, ZERGLING, REAPER = 110, 118, 86, 73, 62, 48, 105, 49


def _idle_world(units: list[tuple[int, int, float, float]]) -> tuple[World, list[int]]:
    """Units far enough apart (and of one owner) that nothing fights."""
    w = World(SKIRMISH)
    tags = [int(w.spawn(uid, owner, [x], [y])[0]) for uid, owner, x, y in units]
    return w, tags


def _run(w: World, loops: int, chunk: int) -> None:
    end = w.loop + loops
    while w.loop < end:
        w.advance(min(chunk, end - w.loop))


def test_the_rates_are_the_real_games() -> None:
    assert abs(ZERG_LIFE_PER_LOOP * 16 - 0.2734) < 1e-4  # LP:Zerg, per normal-speed second
    assert ZERG_LIFE_PER_LOOP * 4096 == 70  # (the game's fixed point: exact in binary)
    assert SHIELD_PER_LOOP * 16 == 2.0 and SHIELD_DELAY_LOOPS == 160  # LP:Shields
    assert REAPER_PER_LOOP * 16 == 2.0  # balance data: the Reaper's life.regenRate


def test_zerg_life_regenerates_on_units_and_structures_up_to_the_maximum() -> None:
    w, (roach, hatch, marine) = _idle_world([(ROACH, 1, 10.0, 10.0), (HATCHERY, 1, 30.0, 30.0), (MARINE, 1, 10.0, 30.0)])
    u = w.u
    u.hp[u.row(roach)] = 100.0
    u.hp[u.row(hatch)] = 1000.0
    u.hp[u.row(marine)] = 20.0
    _run(w, 224, 16)  # 10 faster seconds
    assert float(u.hp[u.row(roach)]) == 100.0 + 224 * 70 / 4096
    assert float(u.hp[u.row(hatch)]) == 1000.0 + 224 * 70 / 4096
    assert float(u.hp[u.row(marine)]) == 20.0  # Terran life does not come back
    _run(w, 16 * 200, 64)
    assert float(u.hp[u.row(roach)]) == 145.0  # capped at the maximum


def test_a_burrowed_roach_regenerates_faster() -> None:
    w, (roach, burrowed) = _idle_world([(ROACH, 1, 10.0, 10.0), (ROACH_BURROWED, 1, 20.0, 10.0)])
    u = w.u
    u.hp[u.row(roach)] = u.hp[u.row(burrowed)] = 50.0
    _run(w, 16, 1)  # one normal-speed second
    assert float(u.hp[u.row(burrowed)]) - 50.0 == 5.0  # 7 per faster second (LP:Roach), all told (balance data)
    assert float(u.hp[u.row(roach)]) - 50.0 == 16 * 70 / 4096


def test_regeneration_is_the_same_whatever_the_steps() -> None:
    figures = []
    for chunk in (1, 7, 50, 400):
        w, (roach, zealot) = _idle_world([(ROACH, 1, 10.0, 10.0), (ZEALOT, 1, 20.0, 10.0)])
        u = w.u
        u.hp[u.row(roach)] = 10.0
        u.shield[u.row(zealot)] = 3.0
        _run(w, 400, chunk)
        figures.append((float(u.hp[u.row(roach)]), float(u.shield[u.row(zealot)])))
    assert len(set(figures)) == 1
    assert figures[0] == (10.0 + 400 * 70 / 4096, 3.0 + (400 - 160) * 0.125)


def test_shields_wait_ten_seconds_after_the_last_damage() -> None:
    w, (zealot, gateway) = _idle_world([(ZEALOT, 1, 10.0, 10.0), (GATEWAY, 1, 30.0, 30.0)])
    u = w.u
    _run(w, 20, 20)
    r, g = u.row(zealot), u.row(gateway)
    u.shield[r] = 10.0
    u.shield[g] = 100.0
    w.regeneration.damaged(np.array([r, g]))  # (what combat and spells call)
    _run(w, 100, 100)
    w.regeneration.damaged(g)  # the Gateway is hit again 100 loops later
    _run(w, SHIELD_DELAY_LOOPS - 100, 3)
    assert float(u.shield[u.row(zealot)]) == 10.0
    _run(w, 16, 16)
    assert float(u.shield[u.row(zealot)]) == 12.0  # 2 per normal-speed second
    assert float(u.shield[u.row(gateway)]) == 100.0
    _run(w, 100, 7)
    assert float(u.shield[u.row(zealot)]) == 12.0 + 100 * 0.125
    assert float(u.shield[u.row(gateway)]) == 100.0 + 16 * 0.125
    assert float(u.hp[u.row(zealot)]) == 100.0  # Protoss life does not come back


def test_a_hit_restarts_the_shield_delay() -> None:
    w = World(SKIRMISH)
    [zealot] = w.spawn(ZEALOT, 2, [20.0], [20.0])
    [ling] = w.spawn(ZERGLING, 1, [21.0], [20.0])
    u = w.u
    rows = u.rows(np.array([ling, zealot]))
    w.combat.deal(rows[:1], rows[1:])
    assert float(u.shield[u.row(zealot)]) == 45.0 and int(u.hurt[u.row(zealot)]) == w.loop
    # the Zergling leaves; the Zealot regains its shields 10 s after the hit, to the maximum
    w.remove_tags([ling])
    _run(w, SHIELD_DELAY_LOOPS, 40)
    assert float(u.shield[u.row(zealot)]) == 45.0
    _run(w, 40, 40)
    assert float(u.shield[u.row(zealot)]) == 50.0


def test_a_terran_world_is_left_alone() -> None:
    w, (marine,) = _idle_world([(MARINE, 1, 10.0, 10.0)])
    w.u.hp[w.u.row(marine)] = 1.0
    _run(w, 1000, 100)
    assert float(w.u.hp[w.u.row(marine)]) == 1.0


def test_a_reaper_regains_life_out_of_combat_and_a_hit_restarts_the_delay() -> None:
    w = World(SKIRMISH)
    [reaper] = w.spawn(REAPER, 2, [20.0], [20.0])
    [ling] = w.spawn(ZERGLING, 1, [21.0], [20.0])
    [marine] = w.spawn(MARINE, 2, [40.0], [40.0])
    u = w.u
    u.hp[u.row(marine)] = 10.0
    rows = u.rows(np.array([ling, reaper]))
    w.combat.deal(rows[:1], rows[1:])  # a Zergling's 5
    assert float(u.hp[u.row(reaper)]) == 55.0 and int(u.hurt[u.row(reaper)]) == w.loop
    w.remove_tags([ling])
    _run(w, REAPER_DELAY_LOOPS, 9)
    assert float(u.hp[u.row(reaper)]) == 55.0  # still within the delay
    _run(w, 16, 5)
    assert float(u.hp[u.row(reaper)]) == 57.0  # 2 per normal-speed second
    u.hp[u.row(reaper)] = 30.0
    w.regeneration.damaged(u.row(reaper))  # hit again: the delay starts over
    _run(w, REAPER_DELAY_LOOPS, 32)
    assert float(u.hp[u.row(reaper)]) == 30.0
    _run(w, 16 * 100, 64)
    assert float(u.hp[u.row(reaper)]) == 60.0  # up to the maximum
    assert float(u.hp[u.row(marine)]) == 10.0  # a Marine's life does not come back


def test_a_mutalisk_regenerates_at_its_own_faster_rate() -> None:
    from sc2pool.engine.data.units import LIFE_REGEN

    mutalisk = 108
    assert LIFE_REGEN[mutalisk] == 1.0  # balance data 94137: life.regenRate (1.4 per faster second)
    w, (muta, ling) = _idle_world([(mutalisk, 1, 10.0, 10.0), (ZERGLING, 1, 20.0, 10.0)])
    u = w.u
    u.hp[u.row(muta)] = u.hp[u.row(ling)] = 10.0
    _run(w, 160, 7)  # ten normal-speed seconds, in uneven steps
    assert float(u.hp[u.row(muta)]) == 20.0  # 1 a second, exact (1/16 a loop), not the Zerg 0.2734
    assert float(u.hp[u.row(ling)]) == 10.0 + 160 * 70 / 4096
