"""SCV repair and Terran structures burning down (``sim/systems/repair.py``): the rate (a full
repair takes the target's build time), the cost (25% of the target's cost, paid as it goes), the
stops (full, out of money), what may be repaired, and the burn below a third of a structure's
life (LP:Repair)."""

from __future__ import annotations

from typing import Any

import pytest
from test_economy import unit
from test_terran_tech import act, rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import repair as R

TANK, BUNKER, BARRACKS = 33, 24, 21
REPAIR_SCV, REPAIR, SMART = 316, 3685, 1


def _tank_and_scv(hp: float = 87.5) -> tuple[Any, Any, int, int]:
    g, w = rich_eco()
    [tank] = w.spawn(TANK, 1, [30.0], [30.0]).tolist()
    [scv] = w.spawn(D.SCV, 1, [31.5], [30.0]).tolist()  # touching the tank
    w.u.hp[w.u.row(tank)] = hp
    return g, w, tank, scv


def test_an_scv_repairs_at_the_rate_of_the_targets_build_time_and_pays_a_quarter_of_its_cost() -> None:
    g, w, tank, scv = _tank_and_scv()
    spec = D.unit_spec(TANK)
    assert (spec.hp, spec.build_time, spec.minerals, spec.vespene) == (175, 720, 150, 125)
    spent = w.supply.spent_minerals[1], w.supply.spent_vespene[1]
    assert act(g, REPAIR_SCV, [scv], target=tank) == C.SUCCESS
    assert [o.ability_id for o in unit(g, scv).orders] == [REPAIR_SCV]
    g.step(180)  # a quarter of the build time: a quarter of the life
    hp = unit(g, tank).health
    per_loop = 175 / 720
    assert 87.5 + 178 * per_loop <= hp <= 87.5 + 180 * per_loop
    g.step(200)
    assert unit(g, tank).health == 175.0 and not unit(g, scv).orders  # full: done
    # half the life back: 25% x half of 150 / 125 = 18.75 / 15.625, paid by whole units
    paid = w.supply.spent_minerals[1] - spent[0], w.supply.spent_vespene[1] - spent[1]
    assert paid in ((18, 15), (19, 16))
    assert R.repair_terms(TANK) == (37.5, 31.25, 720.0)


def test_several_scvs_repair_faster_and_the_generic_ability_works() -> None:
    g, w, tank, scv = _tank_and_scv()
    [scv2] = w.spawn(D.SCV, 1, [28.5], [30.0]).tolist()
    assert act(g, REPAIR, [scv, scv2], target=tank) == C.SUCCESS
    g.step(90)
    assert unit(g, tank).health >= 87.5 + 2 * 88 * 175 / 720


def test_repair_stops_when_the_player_cannot_pay() -> None:
    g, w, tank, scv = _tank_and_scv()
    w.supply.minerals[1] = 3
    for t in w.u.tag[w.u.unit_id == D.SCV].tolist():  # (no mining meanwhile)
        if t != scv:
            w.remove_tags([t])
    assert act(g, REPAIR_SCV, [scv], target=tank) == C.SUCCESS
    g.step(400)
    assert not unit(g, scv).orders
    assert w.supply.minerals[1] >= 0
    assert 87.5 < unit(g, tank).health < 87.5 + 5 * 175 / 37.5  # what 3-4 minerals buy


def test_what_an_scv_may_repair() -> None:
    g, w, tank, scv = _tank_and_scv()
    [marine] = w.spawn(D.MARINE, 1, [33.0], [30.0]).tolist()
    w.u.hp[w.u.row(marine)] = 10.0
    assert act(g, REPAIR_SCV, [scv], target=marine) == C.CANT_TARGET_THAT_UNIT  # not mechanical
    [enemy] = w.spawn(TANK, 2, [40.0], [40.0]).tolist()
    w.u.hp[w.u.row(enemy)] = 10.0
    assert act(g, REPAIR_SCV, [scv], target=enemy) == C.CANT_TARGET_THAT_UNIT
    assert act(g, REPAIR_SCV, [scv]) == C.MUST_TARGET_UNIT
    w.u.hp[w.u.row(tank)] = 175.0
    assert act(g, REPAIR_SCV, [scv], target=tank) == C.ERROR  # full


def _melee_spots(g: Any, unit_id: int, n: int) -> list[int]:
    """``n`` finished structures of player 1 on open spots near its start (a ladder map)."""
    w = g.world
    sx, sy = g.scenario.starts[1]
    out: list[int] = []
    for dx in (-9.5, 9.5, 0.5, -5.5, 5.5):
        for dy in (-9.5, 9.5, 0.5, -5.5, 5.5):
            if len(out) < n and w.placement.fits(unit_id, sx + dx, sy + dy) == C.SUCCESS:
                out.append(w.construction.add_structure(unit_id, 1, sx + dx, sy + dy))
    assert len(out) == n
    return out


def _melee() -> Any:
    from test_melee import joined

    g = joined()
    g.world.supply.minerals[1] = g.world.supply.vespene[1] = 10_000
    return g


def test_smart_of_an_scv_on_a_damaged_bunker_repairs_it_on_a_ladder_map() -> None:
    g = _melee()
    w = g.world
    [b] = _melee_spots(g, BUNKER, 1)
    w.u.hp[w.u.row(b)] = 300.0
    bx, by = float(w.u.x[w.u.row(b)]), float(w.u.y[w.u.row(b)])
    [scv] = w.spawn(D.SCV, 1, [bx + 2.5], [by]).tolist()
    assert act(g, SMART, [scv], target=b) == C.SUCCESS
    assert [o.ability_id for o in unit(g, scv).orders] == [REPAIR_SCV]
    g.step(200)
    assert unit(g, b).health > 300.0


def test_burnysc2_sees_the_scv_repairing_its_target() -> None:
    pytest.importorskip("sc2")
    from sc2.constants import IS_REPAIRING
    from sc2.ids.ability_id import AbilityId

    g, w, tank, scv = _tank_and_scv()
    act(g, REPAIR_SCV, [scv], target=tank)
    g.step(1)
    [order] = unit(g, scv).orders
    assert AbilityId(order.ability_id) in IS_REPAIRING and order.target_unit_tag == tank


def test_a_structure_below_a_third_of_its_life_burns_down_unless_repaired_above_it() -> None:
    g = _melee()
    w = g.world
    rax, ok = _melee_spots(g, BARRACKS, 2)
    [depot] = _melee_spots(g, D.SUPPLYDEPOT, 1)
    w.u.hp[w.u.row(rax)] = 300.0  # below 1000 / 3
    w.u.hp[w.u.row(ok)] = 340.0  # above
    w.u.hp[w.u.row(depot)] = 1.0
    g.step(160)
    assert unit(g, rax).health == pytest.approx(300.0 - 160 * R.BURN_PER_LOOP)
    assert unit(g, ok).health == 340.0
    assert depot in w.dead_tags  # (reported in dead_units; the observation above consumed it)
    assert depot not in {x.tag for x in g.observation(1).observation.raw_data.units}
    # repaired above the third: the fire stops
    r = w.u.row(rax)
    [scv] = w.spawn(D.SCV, 1, [float(w.u.x[r]) + 2.5], [float(w.u.y[r])]).tolist()
    assert act(g, REPAIR_SCV, [scv], target=rax) == C.SUCCESS
    g.step(1200)
    hp = unit(g, rax).health
    assert hp > 1000 / 3
    g.step(100)
    assert unit(g, rax).health >= hp


def test_the_flat_arenas_structures_do_not_burn() -> None:
    g, w = rich_eco()  # (their games stay as recorded)
    rax = w.construction.add_structure(BARRACKS, 1, 30.0, 30.0)
    w.u.hp[w.u.row(rax)] = 300.0
    g.step(100)
    assert unit(g, rax).health == 300.0
