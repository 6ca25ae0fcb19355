"""The Oracle's Stasis Ward (``sim/systems/stasis.py``) through the command path: the ward is
placed for its energy, cloaked, arms, holds the enemy ground units near it when one comes close,
and they neither act nor can be acted on until the stasis ends (figures: the module's constants,
cited there)."""

from __future__ import annotations

from typing import Any

import pytest
from test_protoss_abilities import MARINE, pos, spawn
from test_terran_abilities import abilities
from test_terran_spells import disarm
from test_terran_tech import act, rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import protoss_abilities as P
from sc2pool.engine.sim.systems import stasis as S

STALKER = 74


def test_the_figures_are_the_sources() -> None:
    assert (S.WARD_ENERGY, S.ARM_LOOPS, S.TRAP_RADIUS) == (50.0, 80, 4.0)  # LP:Oracle, the client's build time
    assert (S.WARD_LOOPS, S.TRAP_LOOPS) == (3808, 482)  # 170 s and 21.5 s at 22.4 loops a second


def ward_of(w: Any) -> int:
    [tag] = w.u.tag[w.u.unit_id == S.WARD].tolist()
    return int(tag)


def placed(x: float = 20.0, y: float = 30.0) -> tuple[Any, Any, int, int]:
    """A world with an Oracle of player 1 that has just placed a ward at (x + 3, y)."""
    g, w = rich_eco()
    o = spawn(w, P.ORACLE, 1, x, y)
    disarm(w, o)
    g.step(1)
    assert S.STASIS_WARD in abilities(g, o)
    assert act(g, S.STASIS_WARD, [o], (x + 3.0, y)) == C.SUCCESS
    g.step(40)  # (it flies there and places it)
    assert w.abilities.energy_of(o) < 2.0  # 50 - 50 (and what it regained since)
    return g, w, o, ward_of(w)


def test_a_ward_is_cloaked_arms_after_its_time_and_then_holds_the_enemies_round_it() -> None:
    g, w, o, ward = placed()
    wx, wy = pos(w, ward)
    assert wx == pytest.approx(23.0, abs=0.6) and wy == pytest.approx(30.0, abs=0.6)
    assert w.detection.hidden(2)[w.u.row(ward)]  # the enemy does not see it
    w.remove_tags([o])  # (in a game without a Protoss player an Oracle's weapon is always on)
    spawn(w, 82, 1, wx, wy)  # (an Observer of player 1 sees what happens)
    near = spawn(w, MARINE, 2, wx + 1.0, wy)  # (already within reach: but the ward is not armed yet)
    inside = spawn(w, MARINE, 2, wx, wy + 3.5)
    outside = spawn(w, MARINE, 2, wx, wy - 6.0)
    w.command(2, D.HOLDPOSITION_HOLD, [near, inside, outside], None, 0, False)
    g.step(S.ARM_LOOPS - 50)
    assert not w.stasis.held and w.u.row(ward) >= 0
    g.step(60)  # armed now: the Marine standing by it triggers it
    assert w.u.row(ward) < 0  # the ward is gone
    assert set(w.stasis.held) == {near, inside}
    seen = {u.tag: u for u in g.observation(1).observation.raw_data.units}
    assert S.BUFF in seen[near].buff_ids and S.BUFF not in seen[outside].buff_ids
    # held: it does not move, and nobody may command it or act on it
    before = pos(w, inside)
    assert w.command(2, D.MOVE_MOVE, [inside], (wx, wy + 12.0), 0, False) == C.ERROR
    assert w.command(2, D.MOVE_MOVE, [inside, outside], (wx, wy - 12.0), 0, False) == C.SUCCESS
    st = spawn(w, STALKER, 1, wx - 2.0, wy + 3.5)
    g.step(1)
    assert act(g, D.HOLDPOSITION_HOLD, [st]) == C.SUCCESS
    assert act(g, D.ATTACK_ATTACK, [st], target=inside) == C.CANT_TARGET_THAT_UNIT
    for _ in range(30):
        g.step(2)
        assert int(w.u.eng[w.u.row(st)]) not in (near, inside)  # it never takes them as targets
    assert pos(w, inside) == before
    r = w.u.row(inside)
    assert float(w.u.hp[r]) == 45.0  # the Stalker beside it never fired at it
    w.abilities.spell_damage([r], 20.0)  # (a spell's damage does not reach it either)
    assert float(w.u.hp[w.u.row(inside)]) == 45.0
    assert pos(w, outside) != (wx, wy - 6.0)  # (the one outside walked off)
    g.step(S.TRAP_LOOPS - 60)
    assert not w.stasis.held  # free again: it takes orders and can be shot
    assert w.command(2, D.MOVE_MOVE, [inside], (wx, wy + 12.0), 0, False) == C.SUCCESS
    assert act(g, D.ATTACK_ATTACK, [st], target=inside) == C.SUCCESS
    g.step(20)
    assert pos(w, inside) != before


def test_an_untriggered_ward_is_gone_after_its_time() -> None:
    g, w, _, ward = placed()
    g.step(S.ARM_LOOPS + S.WARD_LOOPS - 60)
    assert w.u.row(ward) >= 0
    g.step(40)
    assert w.u.row(ward) < 0 and not w.stasis.held


def test_an_oracle_without_the_energy_cannot_place_one_and_air_units_and_allies_are_not_held() -> None:
    g, w, o, ward = placed()
    assert act(g, S.STASIS_WARD, [o], (30.0, 30.0)) == C.NOT_ENOUGH_ENERGY
    wx, wy = pos(w, ward)
    w.remove_tags([o])
    mine = spawn(w, MARINE, 1, wx + 1.0, wy)
    flyer = spawn(w, P.PHOENIX, 2, wx, wy)
    disarm(w, mine, flyer)
    w.command(1, D.HOLDPOSITION_HOLD, [mine], None, 0, False)
    w.command(2, D.HOLDPOSITION_HOLD, [flyer], None, 0, False)
    g.step(S.ARM_LOOPS + 20)
    assert w.u.row(ward) >= 0 and not w.stasis.held  # neither triggers it
    assert act(g, S.ACTIVATE, [ward]) == C.SUCCESS  # (by hand: it fires on nobody)
    assert w.u.row(ward) < 0 and not w.stasis.held


def test_a_held_unit_of_ones_own_drops_its_orders_reports_none_and_walks_on_when_freed() -> None:
    g, w = rich_eco()
    o = spawn(w, P.ORACLE, 2, 20.0, 30.0)
    w.abilities._register()
    assert w.command(2, S.STASIS_WARD, [o], (23.0, 30.0), 0, False) == C.SUCCESS
    g.step(S.ARM_LOOPS + 40)
    [ward] = w.u.tag[w.u.unit_id == S.WARD].tolist()
    assert w.detection.hidden(1)[w.u.row(ward)]
    w.remove_tags([o])
    m = spawn(w, MARINE, 1, 23.0, 24.0)
    assert act(g, D.MOVE_MOVE, [m], (23.0, 36.0)) == C.SUCCESS  # (straight over the ward)
    g.step(60)
    assert int(m) in w.stasis.held
    me = {u.tag: u for u in g.observation(1).observation.raw_data.units}[m]
    assert S.BUFF in me.buff_ids and not me.orders
    held_at, end = pos(w, m), w.stasis.held[m]
    assert end - S.TRAP_LOOPS <= w.loop
    g.step(end - 2 - w.loop)
    assert pos(w, m) == held_at and int(m) in w.stasis.held
    g.step(3)
    assert pos(w, m) == held_at and int(m) not in w.stasis.held  # free, idle where it stood
    assert act(g, D.MOVE_MOVE, [m], (23.0, 36.0)) == C.SUCCESS
    g.step(20)
    assert pos(w, m)[1] > held_at[1]
