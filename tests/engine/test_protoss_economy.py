"""Protoss economy and construction in the melee game: the start, Probes mining, supply, the
Nexus and Gateway queues with their tech requirements, Probes warping structures in and being free
at once, the structure's warp-in time, cancelling a warp-in (sim/races/protoss.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from protoss_helpers import (
    ASSIMILATOR,
    BUILD_ASSIMILATOR,
    BUILD_GATEWAY,
    BUILD_PYLON,
    CANCEL_BUILD,
    CYBERCORE,
    GATEWAY,
    NEXUS,
    PROBE,
    PYLON,
    STALKER,
    TRAIN_PROBE,
    TRAIN_STALKER,
    TRAIN_ZEALOT,
    ZEALOT,
    act,
    away,
    create,
    mine,
    nexus,
    protoss_game,
    rich,
    unit,
)

from sc2pool.engine import data as D

SUCCESS, TECH_REQUIREMENTS_NOT_MET, NOT_ENOUGH_FOOD = 1, 79, 13
STARGATE, VOIDRAY, TRAIN_VOIDRAY = 67, 80, 950


def test_a_protoss_player_starts_with_a_nexus_and_12_probes_mining() -> None:
    g = protoss_game()
    pc = g.observation(1).observation.player_common
    assert (pc.minerals, pc.vespene, pc.food_used, pc.food_cap, pc.food_workers) == (50, 0, 12, 15, 12)
    assert Counter(u.unit_type for u in mine(g)) == {NEXUS: 1, PROBE: 12}
    for p in mine(g, PROBE):
        assert [o.ability_id for o in p.orders] == [298]  # HARVEST_GATHER_PROBE
    for _ in range(60):
        g.step(16)
    pc = g.observation(1).observation.player_common
    assert pc.minerals > 400  # twelve Probes mine as twelve SCVs (same speed, same trips)
    carrying = [p for p in mine(g, PROBE) if p.orders and p.orders[0].ability_id == 299]
    assert carrying  # HARVEST_RETURN_PROBE on the way home


def test_the_nexus_trains_probes_and_pylons_add_8_supply() -> None:
    g = protoss_game()
    rich(g)
    n = nexus(g)
    assert act(g, TRAIN_PROBE, [n.tag]) == SUCCESS
    assert [o.ability_id for o in nexus(g).orders] == [TRAIN_PROBE]
    g.step(int(D.unit_spec(PROBE).build_time) + 1)
    assert len(mine(g, PROBE)) == 13
    create(g, PYLON, away(g, 8))
    pc = g.observation(1).observation.player_common
    assert (pc.food_used, pc.food_cap) == (13, 23)  # Nexus 15 + Pylon 8 (the client's food_provided)


def test_gateway_units_need_the_clients_tech_requirement() -> None:
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    gw = create(g, GATEWAY, (x + 2.5, y + 0.5))
    assert act(g, TRAIN_STALKER, [gw]) == TECH_REQUIREMENTS_NOT_MET  # a Cybernetics Core first
    assert act(g, TRAIN_ZEALOT, [gw]) == SUCCESS
    create(g, CYBERCORE, (x - 2.5, y + 0.5))
    assert act(g, TRAIN_STALKER, [gw]) == SUCCESS
    g.step(int(D.unit_spec(ZEALOT).build_time) + 1)
    assert len(mine(g, ZEALOT)) == 1 and not mine(g, STALKER)
    g.step(int(D.unit_spec(STALKER).build_time) + 1)
    assert len(mine(g, STALKER)) == 1


def test_a_probe_is_free_as_soon_as_the_structure_starts_warping_in() -> None:
    g = protoss_game()
    rich(g)
    probe = mine(g, PROBE)[0]
    site = away(g, 7)
    assert act(g, BUILD_PYLON, [probe.tag], site) == SUCCESS
    # a second build queued behind the first: the Probe starts it as soon as the Pylon is placed
    site2 = (site[0] + 3, site[1])
    assert act(g, BUILD_PYLON, [probe.tag], site2, queue=True) == SUCCESS
    placed = None
    for _ in range(400):
        g.step(1)
        pylons = mine(g, PYLON)
        if pylons:
            placed = g.game_loop
            break
    assert placed is not None
    # the loop it appears, the Probe is off to the next site (the Terran SCV would stay)
    assert [o.ability_id for o in unit(g, probe.tag).orders] == [BUILD_PYLON]
    for _ in range(400):
        g.step(1)
        if len(mine(g, PYLON)) == 2:
            break
    assert len(mine(g, PYLON)) == 2
    g.step(2)
    assert not unit(g, probe.tag).orders  # idle after its last build


def test_a_structure_warps_in_over_its_build_time_and_gives_supply_when_done() -> None:
    g = protoss_game()
    rich(g)
    probe = mine(g, PROBE)[0]
    assert act(g, BUILD_PYLON, [probe.tag], away(g, 7)) == SUCCESS
    while not mine(g, PYLON):
        g.step(1)
    start = g.game_loop
    bt = int(D.unit_spec(PYLON).build_time)  # 400 loops = 18 faster seconds (the client's)
    g.step(bt // 2)
    pylon = mine(g, PYLON)[0]
    assert pylon.build_progress == pytest.approx(0.5, abs=0.01)
    assert g.observation(1).observation.player_common.food_cap == 15
    g.step(start + bt - g.game_loop)
    assert mine(g, PYLON)[0].build_progress == 1.0
    assert g.observation(1).observation.player_common.food_cap == 23


def test_cancelling_a_warp_in_refunds_75_percent() -> None:
    g = protoss_game()
    rich(g, 1000, 0)
    probe = mine(g, PROBE)[0]
    assert act(g, BUILD_PYLON, [probe.tag], away(g, 7)) == SUCCESS
    while not mine(g, PYLON):
        g.step(1)
    minerals = g.observation(1).observation.player_common.minerals
    pylon = mine(g, PYLON)[0]
    assert act(g, CANCEL_BUILD, [pylon.tag]) == SUCCESS
    g.step(1)
    assert not mine(g, PYLON)
    assert g.observation(1).observation.player_common.minerals >= minerals + 75  # 75% of 100


def test_an_assimilator_is_warped_in_on_a_geyser_and_probes_mine_gas() -> None:
    g = protoss_game()
    rich(g, 1000, 0)
    n = nexus(g)
    geysers = [u for u in g.observation(1).observation.raw_data.units if u.alliance == 3
               and u.vespene_contents > 0]
    gy = min(geysers, key=lambda u: (u.pos.x - n.pos.x) ** 2 + (u.pos.y - n.pos.y) ** 2)
    probes = mine(g, PROBE)
    assert act(g, BUILD_ASSIMILATOR, [probes[0].tag], target=gy.tag) == SUCCESS
    for _ in range(60):
        g.step(16)
    assim = mine(g, ASSIMILATOR)
    assert assim and assim[0].build_progress == 1.0
    assert act(g, 298, [p.tag for p in probes[1:4]], target=assim[0].tag) == SUCCESS
    for _ in range(40):
        g.step(16)
    assert g.observation(1).observation.player_common.vespene > 0


def test_a_gateway_is_placed_by_a_probe_in_power() -> None:
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    probe = mine(g, PROBE)[0]
    assert act(g, BUILD_GATEWAY, [probe.tag], (x + 3.5, y + 0.5)) == SUCCESS
    for _ in range(40):
        g.step(8)
    assert mine(g, GATEWAY)


def test_a_unit_whose_build_time_is_not_whole_loops_leaves_the_queue() -> None:
    """The client's Void Ray takes 963.2 loops: it is done at the first whole loop after that."""
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    sg = create(g, STARGATE, (x + 2.5, y + 0.5))
    build_time = D.unit_spec(VOIDRAY).build_time
    assert build_time != int(build_time)
    assert act(g, TRAIN_VOIDRAY, [sg]) == SUCCESS
    g.step(int(build_time))
    assert not mine(g, VOIDRAY)
    g.step(2)
    assert len(mine(g, VOIDRAY)) == 1
