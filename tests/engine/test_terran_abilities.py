"""Energy and cast abilities (``sim/systems/abilities.py``): energy at the start and its
regeneration, the Orbital Command's calldowns (MULE, Scanner Sweep, Extra Supplies), the Medivac's
heal, cloaking and its energy, as the observation and burnysc2 report them."""

from __future__ import annotations

from typing import Any

import pytest
from test_economy import pc, unit
from test_research import burny
from test_terran_tech import act, rich_eco, tags_of

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import abilities as A

ORBITAL, MEDIVAC, BANSHEE, GHOST, MULE, MARINE = 132, 54, 55, 50, 268, 48
MORPH_ORBITAL, CALLDOWN_MULE, SCAN, SUPPLY_DROP, CLOAK_ON, CLOAK_OFF = 1516, 171, 399, 255, 392, 393
SNIPE, EMP, AUTO_TURRET = 2714, 1628, 1764
BANSHEECLOAK = 20
REGEN = 0.7875 / 22.4
"""Energy per game loop: 0.7875 per faster second (LP:Energy)."""


def orbital(g: Any, w: Any) -> int:
    """The player's Command Center made an Orbital Command (needs a Barracks)."""
    [cc] = tags_of(g, D.COMMANDCENTER)
    w.construction.add_structure(21, 1, 30.5, 45.5)
    assert act(g, MORPH_ORBITAL, [cc]) == C.SUCCESS
    g.step(560)
    assert unit(g, cc).unit_type == ORBITAL
    return cc


def test_an_orbital_command_starts_with_50_energy_and_regains_0_7875_per_faster_second() -> None:
    g, w = rich_eco()
    cc = orbital(g, w)
    got = unit(g, cc)
    assert (got.energy, got.energy_max) == (50.0, 200.0)  # LP:Orbital_Command
    g.step(224)  # 10 faster seconds
    assert unit(g, cc).energy == pytest.approx(50.0 + 7.875, abs=1e-4)
    g.step(224 * 30)
    assert unit(g, cc).energy == 200.0  # the maximum
    from sc2.ids.unit_typeid import UnitTypeId

    assert burny(g).structures(UnitTypeId.ORBITALCOMMAND).first.energy == 200.0


def test_units_with_energy_start_with_their_starting_energy() -> None:
    g, w = rich_eco()
    tags = {t: w.spawn(t, 1, [30.0], [30.0]).tolist()[0] for t in (MEDIVAC, BANSHEE, GHOST)}
    g.step(1)
    for t, start in ((MEDIVAC, 50.0), (BANSHEE, 50.0), (GHOST, 75.0)):
        got = unit(g, tags[t])
        assert (got.energy, got.energy_max) == (pytest.approx(start, abs=0.05), 200.0)
    [marine] = w.spawn(MARINE, 1, [32.0], [30.0]).tolist()
    g.step(1)
    assert not unit(g, marine).HasField("energy")


def test_a_mule_mines_225_minerals_beside_an_scv_in_its_64_seconds_then_is_gone() -> None:
    g, w = rich_eco()
    cc = orbital(g, w)
    field = min(w.harvest.resources.values(), key=lambda r: (r.x - 30) ** 2 + (r.y - 30) ** 2 if r.is_mineral
                else 1e9)
    before_contents = field.contents
    before = w.supply.collected_minerals[1]
    mined_by_scvs = before_contents  # (SCVs may mine this field too: counted from their trips)
    assert act(g, CALLDOWN_MULE, [cc], target=field.tag) == C.SUCCESS
    assert unit(g, cc).energy == pytest.approx(0.0, abs=0.05)  # 50 energy (LP:Orbital_Command)
    [mule] = tags_of(g, MULE)
    assert [o.ability_id for o in unit(g, mule).orders] == [A.GATHER_MULE]
    assert act(g, CALLDOWN_MULE, [cc], (30.0, 30.0)) == C.NOT_ENOUGH_ENERGY
    g.step(A.MULE_TRIP_LOOPS)
    assert w.supply.collected_minerals[1] - before >= 25
    g.step(A.MULE_LOOPS - A.MULE_TRIP_LOOPS - 1)
    assert tags_of(g, MULE) == [mule]
    g.step(2)
    assert tags_of(g, MULE) == []  # 1433.6 loops = 64 faster seconds (LP:MULE_(Legacy_of_the_Void))
    assert A.MULE_TRIPS * A.MULE_CARRY == 225
    scv_mined = w.supply.collected_minerals[1] - before - 225
    assert scv_mined >= 0
    assert before_contents - field.contents <= 225 + scv_mined
    del mined_by_scvs


def test_the_mule_credits_exactly_225_when_no_scv_mines() -> None:
    g, w = rich_eco()
    for scv in tags_of(g, D.SCV):
        w.command(1, D.STOP_STOP, [scv], None, 0, False)
    cc = orbital(g, w)
    field = next(r for r in w.harvest.resources.values() if r.is_mineral)
    contents = field.contents
    start = pc(g).minerals
    before = w.supply.collected_minerals[1]
    assert act(g, CALLDOWN_MULE, [cc], target=field.tag) == C.SUCCESS
    g.step(A.MULE_LOOPS + 1)
    assert w.supply.collected_minerals[1] - before == 225
    assert contents - field.contents == 225
    assert pc(g).minerals - start == 225


def test_a_mule_called_on_a_point_stands_there_and_mines_once_told_to_gather() -> None:
    g, w = rich_eco()
    for scv in tags_of(g, D.SCV):
        w.command(1, D.STOP_STOP, [scv], None, 0, False)
    cc = orbital(g, w)
    assert act(g, CALLDOWN_MULE, [cc], (30.0, 30.0)) == C.SUCCESS
    [mule] = tags_of(g, MULE)
    before = w.supply.collected_minerals[1]
    g.step(A.MULE_TRIP_LOOPS + 1)
    assert w.supply.collected_minerals[1] == before  # not mining
    field = next(r for r in w.harvest.resources.values() if r.is_mineral)
    assert act(g, 3666, [mule], target=field.tag) == C.SUCCESS  # burnysc2's mule.gather(field)
    g.step(A.MULE_TRIP_LOOPS)
    assert w.supply.collected_minerals[1] - before == 25


def test_a_scanner_sweep_reveals_a_radius_13_disc_for_12_3_seconds() -> None:
    g, w = rich_eco()
    cc = orbital(g, w)
    far = (32.0, 5.0)  # (the base sees nothing below y = 20 on this 64 x 64 map)
    assert not w.vision.sees(1, [far[0], far[0] - 12.0, far[0] - 14.0], [far[1]] * 3).any()
    assert act(g, SCAN, [cc], far) == C.SUCCESS
    g.step(1)
    assert w.vision.sees(1, [far[0], far[0] - 12.0], [far[1], far[1]]).tolist() == [True, True]
    assert not w.vision.sees(1, [far[0] - 14.0], [far[1]])[0]
    assert w.vision.seen_now(1)[int(far[1]), int(far[0])]
    g.step(A.SCAN_LOOPS - 1)
    assert not w.vision.sees(1, [far[0]], [far[1]])[0]  # 275 loops = 12.3 faster seconds (LP)
    assert A.SCAN_LOOPS == 275 and A.SCAN_RADIUS == 13.0


def test_extra_supplies_add_8_supply_to_a_depot_once() -> None:
    g, w = rich_eco()
    cc = orbital(g, w)
    g.step(224 * 65)  # energy for two calldowns
    depot = next(s.tag for s in w.construction.structures.values() if s.unit_id == D.SUPPLYDEPOT)
    cap = pc(g).food_cap
    assert act(g, SUPPLY_DROP, [cc], target=cc) == C.CANT_TARGET_THAT_UNIT
    assert act(g, SUPPLY_DROP, [cc], target=depot) == C.SUCCESS
    assert pc(g).food_cap == cap + 8  # LP:Calldown:_Extra_Supplies
    assert act(g, SUPPLY_DROP, [cc], target=depot) == C.ERROR
    assert unit(g, cc).energy == pytest.approx(200.0 - 50.0, abs=0.1)


def test_a_medivac_heals_a_hurt_marine_12_6_life_per_second_for_1_energy_per_3_life() -> None:
    g, w = rich_eco()
    [med] = w.spawn(MEDIVAC, 1, [30.0], [30.0]).tolist()
    [marine, far] = [w.spawn(MARINE, 1, [x], [30.0]).tolist()[0] for x in (32.0, 40.0)]
    u = w.u
    u.hp[u.row(marine)] = 20.0
    u.hp[u.row(far)] = 20.0
    g.step(1)
    e0, h0 = unit(g, med).energy, unit(g, marine).health
    g.step(32)
    healed = unit(g, marine).health - h0
    assert healed == pytest.approx(12.6 / 22.4 * 32)  # LP:Medivac
    # 1 energy per 3 life, while the energy regenerates as always
    assert e0 - unit(g, med).energy == pytest.approx(healed / 3.0 - 32 * REGEN)
    assert unit(g, far).health == 20.0  # beyond its range 4
    g.step(224 * 3)
    assert unit(g, marine).health == 45.0  # healed to full, then no more


def test_cloaking_needs_its_research_and_25_energy_then_drains_until_it_runs_out() -> None:
    g, w = rich_eco()
    [b] = w.spawn(BANSHEE, 1, [30.0], [30.0]).tolist()
    g.step(1)
    assert act(g, CLOAK_ON, [b]) == C.TECH_REQUIREMENTS_NOT_MET
    w.research.grant(1, BANSHEECLOAK)
    e = unit(g, b).energy
    assert act(g, CLOAK_ON, [b]) == C.SUCCESS
    got = unit(g, b)
    assert got.cloak == 1 and got.energy == pytest.approx(e - 25.0, abs=0.05)  # LP:Banshee
    from sc2.ids.unit_typeid import UnitTypeId

    assert burny(g).units(UnitTypeId.BANSHEE).first.is_cloaked
    g.step(160)  # 10 normal seconds: 0.9 energy each
    assert unit(g, b).energy == pytest.approx(e - 25.0 - 9.0, abs=0.1)
    g.step(16 * 40)  # the 16 left last 284.4 loops; then it regenerates
    got = unit(g, b)
    assert got.cloak == 3  # ran out: not cloaked
    assert got.energy == pytest.approx((160 + 16 * 40 - (e - 25.0) / (0.9 / 16)) * REGEN, abs=0.05)
    g.step(160)
    assert act(g, CLOAK_ON, [b]) == C.NOT_ENOUGH_ENERGY
    assert act(g, CLOAK_OFF, [b]) == C.SUCCESS


def abilities(g: Any, tag: int) -> set[int]:
    from s2clientprotocol import query_pb2

    q = query_pb2.RequestQuery()
    q.abilities.add(unit_tag=tag)
    return {a.ability_id for a in g.query(1, q).abilities[0].abilities}


def test_the_abilities_query_lists_the_casts_the_energy_and_research_allow() -> None:
    g, w = rich_eco()
    cc = orbital(g, w)
    assert {CALLDOWN_MULE, SCAN, SUPPLY_DROP} <= abilities(g, cc)
    assert act(g, SCAN, [cc], (30.0, 30.0)) == C.SUCCESS
    assert not {CALLDOWN_MULE, SCAN, SUPPLY_DROP} & abilities(g, cc)  # (no energy left)
    [b] = w.spawn(BANSHEE, 1, [30.0], [30.0]).tolist()
    g.step(1)
    assert CLOAK_ON not in abilities(g, b)
    w.research.grant(1, BANSHEECLOAK)
    assert CLOAK_ON in abilities(g, b)
    assert act(g, CLOAK_ON, [b]) == C.SUCCESS
    assert CLOAK_OFF in abilities(g, b) and CLOAK_ON not in abilities(g, b)


def test_the_result_codes_are_the_clients() -> None:
    from s2clientprotocol import error_pb2

    assert C.NOT_ENOUGH_ENERGY == error_pb2.ActionResult.Value("NotEnoughEnergy")
    assert C.COOLDOWN == error_pb2.ActionResult.Value("Cooldown")


def test_yamato_needs_weapon_refit_channels_then_deals_240_and_waits_its_cooldown() -> None:
    g, w = rich_eco()
    [bc] = w.spawn(A.BATTLECRUISER, 1, [20.0], [30.0]).tolist()
    # targets that do not fight back: player 2's Supply Depots (400 life)
    [far, near] = w.spawn(D.SUPPLYDEPOT, 2, [44.0, 20.0], [30.0, 50.0]).tolist()
    u = w.u
    assert act(g, A.YAMATO, [bc], target=far) == C.TECH_REQUIREMENTS_NOT_MET
    w.research.grant(1, A.WEAPON_REFIT)
    assert A.YAMATO in abilities(g, bc)
    assert act(g, A.YAMATO, [bc], target=bc) == C.CANT_TARGET_THAT_UNIT
    assert act(g, A.YAMATO, [bc], target=far) == C.SUCCESS
    [o] = unit(g, bc).orders
    assert (o.ability_id, o.target_unit_tag) == (A.YAMATO, far)
    hp = float(u.hp[u.row(far)])
    g.step(16)
    assert u.x[u.row(bc)] > 20.0  # flies to within range 10 of it
    for _ in range(400):
        g.step(1)
        if w.casting.channelling(bc):
            break
    start = w.loop
    x = float(u.x[u.row(bc)])
    assert float(u.hp[u.row(far)]) == hp
    g.step(A.YAMATO_CHANNEL - 1)
    assert float(u.x[u.row(bc)]) == x and [o.ability_id for o in unit(g, bc).orders] == [A.YAMATO]
    g.step(1)
    assert w.loop == start + A.YAMATO_CHANNEL
    assert float(u.hp[u.row(far)]) == hp - 240.0  # LP:Battlecruiser (no armor)
    assert act(g, D.HOLDPOSITION_HOLD, [bc]) == C.SUCCESS  # (its guns would finish the depot)
    assert A.YAMATO not in abilities(g, bc)
    assert act(g, A.YAMATO, [bc], target=near) == C.COOLDOWN
    assert (A.YAMATO_COOLDOWN, A.YAMATO_CHANNEL) == (1590, 44)  # 71 and 2 faster seconds
    g.step(A.YAMATO_COOLDOWN - A.YAMATO_CHANNEL)
    assert act(g, A.YAMATO, [bc], target=near) == C.SUCCESS


def test_yamato_kills_a_medivac_at_once() -> None:
    g, w = rich_eco()
    [bc] = w.spawn(A.BATTLECRUISER, 1, [20.0], [30.0]).tolist()
    [med] = w.spawn(MEDIVAC, 2, [26.0], [30.0]).tolist()
    w.research.grant(1, A.WEAPON_REFIT)
    assert act(g, A.YAMATO, [bc], target=med) == C.SUCCESS
    g.step(A.YAMATO_CHANNEL)
    assert tags_of(g, MEDIVAC) == []
    assert not unit(g, bc).orders or unit(g, bc).orders[0].ability_id != A.YAMATO


def test_a_ghost_snipes_a_biological_unit_for_170_after_its_channel() -> None:
    g, w = rich_eco()
    [ghost] = w.spawn(GHOST, 1, [20.0], [30.0]).tolist()
    [marauder, depot] = [w.spawn(t, 2, [x], [y]).tolist()[0] for t, x, y in ((51, 28.0, 30.0),
                                                                            (D.SUPPLYDEPOT, 20.0, 22.0))]
    g.step(1)
    u = w.u
    u.hp[u.row(marauder)] = 300.0  # (more life than it has: to see the whole 170)
    assert SNIPE in abilities(g, ghost) and EMP in abilities(g, ghost)  # 75 energy
    assert act(g, SNIPE, [ghost], target=depot) == C.MUST_TARGET_BIOLOGICAL_UNITS
    e = unit(g, ghost).energy
    assert act(g, SNIPE, [ghost], target=marauder) == C.SUCCESS  # in range: the channel starts
    assert unit(g, ghost).energy == pytest.approx(e - 50.0, abs=0.05)
    g.step(A.SNIPE_CHANNEL - 1)
    assert float(u.hp[u.row(marauder)]) == 300.0  # (the Ghost channels: it does not shoot)
    g.step(1)
    assert float(u.hp[u.row(marauder)]) == 300.0 - 170.0  # LP:Ghost
    assert A.SNIPE_CHANNEL == 32
    assert act(g, SNIPE, [ghost], target=marauder) == C.NOT_ENOUGH_ENERGY


def test_an_emp_takes_100_shields_and_energy_around_its_point() -> None:
    g, w = rich_eco()
    [ghost] = w.spawn(GHOST, 1, [20.0], [30.0]).tolist()
    [gateway, med_in, med_out] = [w.spawn(t, 2, [x], [y]).tolist()[0]
                                  for t, x, y in ((62, 40.0, 30.0), (MEDIVAC, 40.0, 32.5), (MEDIVAC, 44.0, 34.0))]
    g.step(1)
    u = w.u
    assert act(g, EMP, [ghost], (40.0, 31.5)) == C.SUCCESS
    assert [o.ability_id for o in unit(g, ghost).orders] == [EMP]
    for _ in range(400):
        g.step(1)
        if ghost not in w.casting.casts:
            break
    assert u.x[u.row(ghost)] > 20.0  # it walked into range 10 first
    assert float(u.shield[u.row(gateway)]) == 500.0 - 100.0  # LP:Ghost
    assert unit(g, med_in).energy < 1.0
    assert unit(g, med_out).energy > 50.0
    assert unit(g, ghost).energy < 5.0  # 75 paid


def test_a_raven_puts_down_an_auto_turret_that_shoots_and_is_gone_after_10_seconds() -> None:
    g, w = rich_eco()
    [raven] = w.spawn(56, 1, [20.0], [30.0]).tolist()
    [depot] = w.spawn(D.SUPPLYDEPOT, 2, [30.0], [30.0]).tolist()
    g.step(1)
    assert AUTO_TURRET in abilities(g, raven)
    assert act(g, AUTO_TURRET, [raven], (26.0, 30.0)) == C.SUCCESS
    for _ in range(200):
        g.step(1)
        if tags_of(g, A.AUTO_TURRET_UNIT):
            break
    [turret] = tags_of(g, A.AUTO_TURRET_UNIT)
    assert unit(g, raven).energy < 2.0  # 50 paid
    u = w.u
    hp = float(u.hp[u.row(depot)])
    g.step(48)
    assert float(u.hp[u.row(depot)]) < hp  # it shoots (18 a shot, range 6)
    g.step(A.AUTO_TURRET_LOOPS - 49)
    assert tags_of(g, A.AUTO_TURRET_UNIT) == [turret]
    g.step(1)
    assert tags_of(g, A.AUTO_TURRET_UNIT) == []  # 224 loops = 10 faster seconds (LP:Raven)
