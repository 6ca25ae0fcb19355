"""Protoss power fields, Chrono Boost, Warp Gates and warping units in (sim/systems/power.py,
tempo.py, warpgate.py)."""

from __future__ import annotations

import numpy as np
import pytest
from protoss_helpers import (
    BUILD_GATEWAY,
    CHRONO,
    CYBERCORE,
    GATEWAY,
    MORPH_WARPGATE,
    PROBE,
    PYLON,
    RESEARCH_WARPGATE,
    STALKER,
    TRAIN_PROBE,
    TRAIN_ZEALOT,
    WARP_STALKER,
    WARP_ZEALOT,
    WARPGATE,
    ZEALOT,
    act,
    away,
    create,
    kill,
    mine,
    nexus,
    protoss_game,
    rich,
    unit,
)
from s2clientprotocol import query_pb2

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.systems.warpgate import CHRONO_LOOPS, COOLDOWN, WARP_IN_FAST, WARP_IN_SLOW

SUCCESS, COOLDOWN_RESULT, NOT_ENOUGH_ENERGY = 1, 6, 17
CANT_BUILD_TOO_FAR_FROM_BUILD_POWER_SOURCE = 50
CANT_TRAIN_TOO_FAR_FROM_TRAIN_POWER_SOURCE = 52


def placement(g, ability: int, pos: tuple[float, float]) -> int:  # type: ignore[no-untyped-def]
    req = query_pb2.RequestQuery()
    p = req.placements.add(ability_id=ability)
    p.target_pos.x, p.target_pos.y = pos
    return int(g.query(1, req).placements[0].result)


def test_structures_that_need_power_are_refused_outside_a_power_field() -> None:
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    probe = mine(g, PROBE)[0]
    # no Pylon yet: the real client's CantBuildTooFarFromBuildPowerSource
    assert placement(g, BUILD_GATEWAY, (x + 3.5, y + 0.5)) == CANT_BUILD_TOO_FAR_FROM_BUILD_POWER_SOURCE
    assert act(g, BUILD_GATEWAY, [probe.tag], (x + 3.5, y + 0.5)) == CANT_BUILD_TOO_FAR_FROM_BUILD_POWER_SOURCE
    assert placement(g, 881, (x, y)) == SUCCESS  # a Pylon needs no power
    create(g, PYLON, away(g, 18))  # a field 10 from the site: too far (6.5, LP:Pylon)
    assert placement(g, BUILD_GATEWAY, (x + 3.5, y + 0.5)) == CANT_BUILD_TOO_FAR_FROM_BUILD_POWER_SOURCE
    create(g, PYLON, (x, y))
    assert placement(g, BUILD_GATEWAY, (x + 3.5, y + 0.5)) == SUCCESS  # centre 3.5 from the Pylon: in its 6.5


def test_power_sources_are_in_the_raw_observation_as_the_client_reports_them() -> None:
    g = protoss_game()
    assert not list(g.observation(1).observation.raw_data.player.power_sources)
    x, y = away(g, 8)
    pylon = create(g, PYLON, (x, y))
    g.step(1)
    srcs = list(g.observation(1).observation.raw_data.player.power_sources)
    assert [(s.pos.x, s.pos.y, s.radius, s.tag) for s in srcs] == [(x, y, 6.5, pylon)]
    assert not list(g.observation(2).observation.raw_data.player.power_sources)  # another player's field
    kill(g, pylon)
    g.step(1)
    assert not list(g.observation(1).observation.raw_data.player.power_sources)


def test_an_unpowered_gateway_pauses_its_production_and_resumes_with_power() -> None:
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    pylon = create(g, PYLON, (x, y))
    gw = create(g, GATEWAY, (x + 3.5, y + 0.5))
    g.step(1)
    assert unit(g, gw).is_powered
    assert act(g, TRAIN_ZEALOT, [gw]) == SUCCESS
    bt = int(D.unit_spec(ZEALOT).build_time)
    g.step(100)
    kill(g, pylon)
    g.step(1)
    assert not unit(g, gw).is_powered
    p0 = unit(g, gw).orders[0].progress
    g.step(bt)  # long enough to have finished with power
    assert not mine(g, ZEALOT)
    assert unit(g, gw).orders[0].progress == pytest.approx(p0, abs=1e-6)
    create(g, PYLON, (x, y))
    g.step(1)
    assert unit(g, gw).is_powered
    left = bt - 101
    g.step(left - 5)
    assert not mine(g, ZEALOT)
    g.step(10)
    assert len(mine(g, ZEALOT)) == 1


def test_chrono_boost_speeds_a_queue_by_half_for_its_duration_and_costs_50_energy() -> None:
    g = protoss_game()
    rich(g)
    g.step(1)
    n = nexus(g)
    assert n.energy == pytest.approx(50.0, abs=1.0)  # a Nexus starts with 50 (LP:Nexus)
    assert act(g, TRAIN_PROBE, [n.tag]) == SUCCESS
    assert act(g, CHRONO, [n.tag], target=n.tag) == SUCCESS
    n = nexus(g)
    assert 281 in n.buff_ids  # CHRONOBOOSTENERGYCOST
    assert n.energy < 2.0
    assert act(g, CHRONO, [n.tag], target=n.tag) == NOT_ENOUGH_ENERGY
    bt = int(D.unit_spec(PROBE).build_time)  # 272 loops: done in 272 / 1.5 = 182 boosted loops
    start = g.game_loop
    probes = len(mine(g, PROBE))
    while len(mine(g, PROBE)) == probes:
        g.step(1)
    assert g.game_loop - start == pytest.approx(bt / 1.5, abs=2)
    g.step(start + CHRONO_LOOPS + 1 - g.game_loop)
    assert 281 not in nexus(g).buff_ids


def test_chrono_boost_speeds_research() -> None:
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    core = create(g, CYBERCORE, (x + 3.5, y + 0.5))
    g.step(1)
    assert act(g, RESEARCH_WARPGATE, [core]) == SUCCESS
    assert act(g, CHRONO, [nexus(g).tag], target=core) == SUCCESS
    g.step(CHRONO_LOOPS)
    p = unit(g, core).orders[0].progress
    assert p == pytest.approx(1.5 * CHRONO_LOOPS / tech.RESEARCH[RESEARCH_WARPGATE].time, abs=0.01)


def gateway_and_core():  # type: ignore[no-untyped-def]
    """A rich Protoss game with a Pylon at (x, y), a Gateway and a Cybernetics Core in its field:
    ``(game, (x, y), gateway tag, core tag)``."""
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    gw = create(g, GATEWAY, (x + 3.5, y + 0.5))
    core = create(g, CYBERCORE, (x - 3.5, y + 0.5))
    g.step(1)
    return g, (x, y), gw, core


def test_warp_gate_research_turns_gateways_into_warp_gates_that_warp_units_in_at_a_power_field() -> None:
    g, (x, y), gw, core = gateway_and_core()
    assert act(g, MORPH_WARPGATE, [gw]) != SUCCESS  # not researched yet
    assert act(g, RESEARCH_WARPGATE, [core]) == SUCCESS
    g.step(int(tech.RESEARCH[RESEARCH_WARPGATE].time) + 2)
    assert 84 in g.observation(1).observation.raw_data.player.upgrade_ids
    # the Gateway transforms on its own (autocast), in the client's 160 loops
    assert [o.ability_id for o in unit(g, gw).orders] == [MORPH_WARPGATE]
    g.step(int(tech.MORPH[MORPH_WARPGATE].time) + 1)
    assert unit(g, gw).unit_type == WARPGATE
    # warp a Stalker in at the Pylon's field (a Pylon covering a Warp Gate: the fast warp-in)
    far = (x + 20.0, y + 20.0)
    assert act(g, WARP_STALKER, [gw], far) == CANT_TRAIN_TOO_FAR_FROM_TRAIN_POWER_SOURCE
    spot = (x + 0.5, y - 3.5)
    assert act(g, WARP_STALKER, [gw], spot) == SUCCESS
    st = mine(g, STALKER)
    assert len(st) == 1 and st[0].build_progress < 0.05
    assert (st[0].pos.x, st[0].pos.y) == pytest.approx(spot)
    assert act(g, WARP_ZEALOT, [gw], (x - 1.5, y - 3.5)) == COOLDOWN_RESULT  # the cooldown runs
    g.step(WARP_IN_FAST // 2)
    assert mine(g, STALKER)[0].build_progress == pytest.approx(0.5, abs=0.05)
    g.step(WARP_IN_FAST // 2 + 1)
    assert mine(g, STALKER)[0].build_progress == 1.0
    cd = round(COOLDOWN[STALKER] * 22.4)
    g.step(cd - WARP_IN_FAST - 10)
    assert act(g, WARP_ZEALOT, [gw], (x - 1.5, y - 3.5)) == COOLDOWN_RESULT
    g.step(12)
    assert act(g, WARP_ZEALOT, [gw], (x - 1.5, y - 3.5)) == SUCCESS
    assert len(mine(g, ZEALOT)) == 1


def test_a_warp_gate_turns_back_into_a_gateway_that_then_stays_one() -> None:
    from sc2pool.engine.sim.systems.warpgate import MORPH_GATEWAY

    def abilities(tag: int) -> set[int]:
        q = query_pb2.RequestQuery()
        q.abilities.add(unit_tag=tag)
        return {a.ability_id for a in g.query(1, q).abilities[0].abilities}

    g, (x, y), gw, core = gateway_and_core()
    assert act(g, MORPH_GATEWAY, [gw]) != SUCCESS  # a Gateway has no way back
    assert tech.MORPH[MORPH_GATEWAY].time == tech.MORPH[MORPH_WARPGATE].time  # back as fast (m)
    assert MORPH_GATEWAY not in abilities(gw)
    assert act(g, RESEARCH_WARPGATE, [core]) == SUCCESS
    g.step(int(tech.RESEARCH[RESEARCH_WARPGATE].time) + 2 + int(tech.MORPH[MORPH_WARPGATE].time) + 1)
    assert unit(g, gw).unit_type == WARPGATE
    assert MORPH_GATEWAY in abilities(gw) and WARP_ZEALOT in abilities(gw)
    minerals = g.observation(1).observation.player_common.minerals
    assert act(g, MORPH_GATEWAY, [gw]) == SUCCESS
    g.step(1)
    assert [o.ability_id for o in unit(g, gw).orders] == [MORPH_GATEWAY]
    assert g.observation(1).observation.player_common.minerals >= minerals  # free
    # changing form, it warps nothing in and lists neither its warp-ins nor the way back
    assert act(g, WARP_ZEALOT, [gw], (x + 0.5, y - 3.5)) != SUCCESS
    assert not {MORPH_GATEWAY, WARP_ZEALOT} & abilities(gw)
    g.step(int(tech.MORPH[MORPH_GATEWAY].time))
    assert unit(g, gw).unit_type == GATEWAY and not unit(g, gw).orders
    # it stays a Gateway (the autocast is off for it) and trains as one ...
    g.step(200)
    assert unit(g, gw).unit_type == GATEWAY
    assert act(g, TRAIN_ZEALOT, [gw]) == SUCCESS
    # ... until it is told to transform again
    g.step(int(tech.TRAIN[TRAIN_ZEALOT].time) + 2)
    assert act(g, MORPH_WARPGATE, [gw]) == SUCCESS
    g.step(int(tech.MORPH[MORPH_WARPGATE].time) + 1)
    assert unit(g, gw).unit_type == WARPGATE


def test_a_unit_warped_in_far_from_nexus_and_warp_gates_takes_the_slow_warp_in() -> None:
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    wg = create(g, WARPGATE, (x + 3.5, y + 0.5))
    fx, fy = away(g, 17)  # a field that covers neither the Nexus nor the Warp Gate
    create(g, PYLON, (fx, fy))
    g.step(1)
    spot = next((fx + dx, fy + dy) for dx, dy in ((2.5, 0.5), (-2.5, 0.5), (0.5, 2.5), (0.5, -2.5))
                if placement(g, WARP_ZEALOT, (fx + dx, fy + dy)) == SUCCESS)
    assert act(g, WARP_ZEALOT, [wg], spot) == SUCCESS
    g.step(WARP_IN_FAST + 1)
    assert mine(g, ZEALOT)[0].build_progress < 1.0
    g.step(WARP_IN_SLOW - WARP_IN_FAST)
    assert mine(g, ZEALOT)[0].build_progress == 1.0


def test_a_phasing_warp_prism_is_a_power_source_units_warp_in_at() -> None:
    g = protoss_game()
    rich(g)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    wg = create(g, WARPGATE, (x + 3.5, y + 0.5))
    free = g.world.pathing.free_at
    px, py = next(p for p in (away(g, d) for d in range(16, 30))  # open ground, far from the Pylon
                  if free(np.array([p[0] - 1.5, p[0] + 1.5]), np.array([p[1], p[1]])).all())
    prism = create(g, 81, (px, py))  # a Warp Prism
    g.step(1)
    assert act(g, WARP_ZEALOT, [wg], (px, py + 1.5)) == CANT_TRAIN_TOO_FAR_FROM_TRAIN_POWER_SOURCE
    assert act(g, 1528, [prism]) == SUCCESS  # phasing mode
    g.step(30)
    assert unit(g, prism).unit_type == 136
    srcs = {s.tag: s.radius for s in g.observation(1).observation.raw_data.player.power_sources}
    assert srcs[prism] == 3.75  # LP:Warp_Prism
    spot = next((px + dx, py + dy) for dx, dy in ((0.0, 1.5), (1.5, 0.0), (0.0, -1.5), (-1.5, 0.0))
                if placement(g, WARP_ZEALOT, (px + dx, py + dy)) == SUCCESS)
    assert act(g, WARP_ZEALOT, [wg], spot) == SUCCESS
    assert act(g, 1530, [prism]) == SUCCESS  # transport mode: the field is gone
    g.step(30)
    assert prism not in {s.tag for s in g.observation(1).observation.raw_data.player.power_sources}


def test_a_warp_in_whose_field_dies_fails_with_a_full_refund_and_no_cooldown() -> None:
    g = protoss_game()
    rich(g, 1000, 1000)
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    wg = create(g, WARPGATE, (x + 3.5, y + 0.5))
    fx, fy = away(g, 17)
    far = create(g, PYLON, (fx, fy))
    create(g, CYBERCORE, (x - 3.5, y + 0.5))
    g.step(1)
    spot = next((fx + dx, fy + dy) for dx, dy in ((2.5, 0.5), (-2.5, 0.5), (0.5, 2.5), (0.5, -2.5))
                if placement(g, WARP_STALKER, (fx + dx, fy + dy)) == SUCCESS)
    assert act(g, WARP_STALKER, [wg], spot) == SUCCESS
    pc = g.observation(1).observation.player_common
    assert (pc.minerals, pc.vespene) == (875, 950)
    g.step(20)
    kill(g, far)
    g.step(2)
    assert not mine(g, STALKER)
    pc = g.observation(1).observation.player_common
    assert (pc.minerals, pc.vespene) == (1000, 1000)
    assert WARP_STALKER in [a.ability_id for a in g.query(1, _abilities(wg)).abilities[0].abilities]


def _abilities(tag: int) -> query_pb2.RequestQuery:
    req = query_pb2.RequestQuery()
    req.abilities.add(unit_tag=tag)
    return req


def test_an_unpowered_photon_cannon_does_not_fire() -> None:
    g = protoss_game()
    x, y = away(g, 8)
    pylon = create(g, PYLON, (x, y))
    cannon = create(g, 66, (x + 3.0, y))
    g.step(1)
    kill(g, pylon)
    g.step(1)
    marine = create(g, 48, (x + 6.0, y), owner=2)  # an enemy Marine in the cannon's range (7)
    hp = unit(g, marine).health
    g.step(64)
    assert unit(g, marine).health == hp  # unpowered: no shot
    create(g, PYLON, (x, y))
    g.step(64)
    assert not [u for u in g.observation(1).observation.raw_data.units if u.tag == marine] \
        or unit(g, marine).health < hp
    assert unit(g, cannon).is_powered
