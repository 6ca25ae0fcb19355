"""Alerts (``sim/systems/alerts.py``): what the real client reports in
``observation.alerts``, each raised where its event happens and observed once, and what
burnysc2's ``BotAI.alert`` makes of them."""

from __future__ import annotations

import numpy as np
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb
from test_economy import eco, tags_of
from test_terran_spells import disarm, place
from test_terran_tech import act, rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.game import Game
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems import abilities as A
from sc2pool.engine.sim.systems import alerts as AL
from sc2pool.engine.sim.systems import protoss_abilities as P

BARRACKS, EBAY, SIEGED_TANK = 21, 22, 32
TRAIN_SCV, TRAIN_MARINE, BUILD_DEPOT, BUILD_REFINERY, BUILD_REACTOR = 524, 560, 319, 320, 3683
INF_WEAPONS_1, STIMPACK = 652, 730
MORPH_ORBITAL, CALLDOWN_MULE, ORBITAL = 1516, 171, 132


def alerts(g: Game, player: int = 1) -> list[int]:
    """The player's observation's alerts (observing takes them)."""
    return list(g.observation(player).observation.alerts)


def row(g: Game, tag: int) -> int:
    return g.world.u.row(tag)


# ---------------------------------------------------------------------- Terran economy
def test_a_structure_finishing_is_building_complete_in_exactly_one_observation() -> None:
    g, w = rich_eco()
    assert alerts(g) == []
    scv = tags_of(g, D.SCV)[0]
    depots = set(tags_of(g, D.SUPPLYDEPOT))
    assert act(g, BUILD_DEPOT, [scv], (40.0, 30.0)) == C.SUCCESS
    seen: list[tuple[list[int], bool]] = []
    for _ in range(100):
        g.step(8)
        new = [t for t in tags_of(g, D.SUPPLYDEPOT) if t not in depots]
        ready = bool(new) and w.construction.structures[new[0]].ready
        seen.append((alerts(g), ready))
    with_alerts = [k for k, (a, _) in enumerate(seen) if a]
    assert len(with_alerts) == 1
    k = with_alerts[0]
    assert seen[k][0] == [AL.BUILDING_COMPLETE]
    assert seen[k][1] and not seen[k - 1][1]  # (in the observation where it is first finished)


def test_trained_units_workers_and_add_ons_have_their_own_alerts() -> None:
    g, w = rich_eco()
    cc = tags_of(g, D.COMMANDCENTER)[0]
    rax = w.construction.add_structure(BARRACKS, 1, 30.5, 40.5)
    assert alerts(g) == []  # (a structure placed finished by a scenario raises nothing)
    assert act(g, TRAIN_SCV, [cc]) == C.SUCCESS
    g.step(int(D.unit_spec(D.SCV).build_time) + 1)
    assert alerts(g) == [AL.TRAIN_WORKER_COMPLETE]
    assert act(g, TRAIN_MARINE, [rax]) == C.SUCCESS
    g.step(int(D.unit_spec(D.MARINE).build_time) + 1)
    assert alerts(g) == [AL.TRAIN_UNIT_COMPLETE]
    assert act(g, BUILD_REACTOR, [rax]) == C.SUCCESS
    g.step(800)
    assert alerts(g) == [AL.ADDON_COMPLETE]  # (not BuildingComplete)


def test_levelled_upgrades_are_upgrade_complete_the_others_research_complete() -> None:
    g, w = rich_eco()
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)
    rax = w.construction.add_structure(BARRACKS, 1, 30.5, 46.5)
    assert act(g, 3682, [rax]) == C.SUCCESS  # a Tech Lab for Stimpack
    g.step(401)
    assert alerts(g) == [AL.ADDON_COMPLETE]
    [lab] = tags_of(g, 37)
    assert act(g, INF_WEAPONS_1, [ebay]) == C.SUCCESS and act(g, STIMPACK, [lab]) == C.SUCCESS
    stim, weapons = int(tech.RESEARCH[STIMPACK].time), int(tech.RESEARCH[INF_WEAPONS_1].time)
    assert stim < weapons
    g.step(stim + 1)
    assert alerts(g) == [AL.RESEARCH_COMPLETE]
    g.step(weapons - stim)
    assert alerts(g) == [AL.UPGRADE_COMPLETE]
    assert {7, 8, 9, 11, 45, 47} <= AL.LEVELLED and not {6, 15, 16, 84} & AL.LEVELLED


def test_an_orbital_command_is_a_morph_and_its_mule_expires() -> None:
    g, w = rich_eco()
    [cc] = tags_of(g, D.COMMANDCENTER)
    w.construction.add_structure(BARRACKS, 1, 30.5, 45.5)
    assert act(g, MORPH_ORBITAL, [cc]) == C.SUCCESS
    g.step(int(tech.MORPH[MORPH_ORBITAL].time) + 1)
    assert alerts(g) == [AL.MORPH_COMPLETE]
    assert int(w.u.unit_id[row(g, cc)]) == ORBITAL
    field = next(r for r in w.harvest.resources.values() if r.is_mineral)
    assert act(g, CALLDOWN_MULE, [cc], target=field.tag) == C.SUCCESS
    g.step(A.MULE_LOOPS - 10)
    assert alerts(g) == []
    g.step(12)
    assert alerts(g) == [AL.MULE_EXPIRED] and not tags_of(g, A.MULE)


def test_a_mined_out_field_is_minerals_exhausted_and_an_empty_geyser_vespene_exhausted() -> None:
    g, w = rich_eco()
    field = next(r for r in w.harvest.resources.values() if r.is_mineral)
    field.contents = 5  # (one trip left)
    got = []
    for _ in range(60):
        g.step(8)
        got.append(alerts(g))
        if field.tag not in w.harvest.resources:
            break
    assert field.tag not in w.harvest.resources
    assert [a for a in got if a] == [[AL.MINERALS_EXHAUSTED]]
    # gas: the refinery finishing, then its geyser's last load
    g, w = eco(keep_scvs=2)
    scv, _ = tags_of(g, D.SCV)
    geyser = next(r for r in w.harvest.resources.values() if not r.is_mineral)
    w.supply.minerals[1] = 500
    assert act(g, BUILD_REFINERY, [scv], target=geyser.tag) == C.SUCCESS
    got = []
    for _ in range(100):
        g.step(8)
        got.append(alerts(g))
        if w.supply.collected_vespene[1]:
            break
    assert [a for a in got if a] == [[AL.BUILDING_COMPLETE]]
    geyser.contents = 4  # one trip left
    got = []
    for _ in range(100):
        g.step(8)
        got.append(alerts(g))
        if geyser.contents <= 0:
            break
    assert geyser.contents == 0 and [a for a in got if a] == [[AL.VESPENE_EXHAUSTED]]


# ---------------------------------------------------------------------- under attack
def test_an_enemys_attack_alerts_the_victim_unit_then_building_and_not_the_attacker() -> None:
    g, w = rich_eco()
    [victim] = w.spawn(D.MARINE, 1, [50.0], [15.0]).tolist()
    [enemy] = w.spawn(D.MARINE, 2, [53.0], [15.0]).tolist()
    disarm(w, victim)
    g.step(1)
    assert alerts(g) == []
    assert w.command(2, D.ATTACK_ATTACK, [enemy], None, victim, False) == C.SUCCESS
    g.step(16)
    assert w.u.hp[row(g, victim)] < 45.0
    assert alerts(g) == [AL.UNIT_UNDER_ATTACK]
    assert w.alerts.take(2) == []  # (its own marine was never hit)
    req = sc_pb.RequestDebug()
    req.debug.add().kill_unit.tag.append(victim)
    g.debug(1, req)
    depot = w.construction.add_structure(D.SUPPLYDEPOT, 1, 50.0, 18.0)
    g.step(1)
    assert alerts(g) == []
    assert w.command(2, D.ATTACK_ATTACK, [enemy], None, depot, False) == C.SUCCESS
    g.step(16)
    assert w.u.hp[row(g, depot)] < D.unit_spec(D.SUPPLYDEPOT).hp
    assert alerts(g) == [AL.BUILDING_UNDER_ATTACK]
    assert w.alerts.take(2) == []


def test_splash_on_the_shooters_own_units_alerts_only_the_enemy() -> None:
    g, w = rich_eco()
    [tank] = w.spawn(SIEGED_TANK, 1, [10.0], [30.0]).tolist()
    [target] = w.spawn(D.MARINE, 2, [20.0], [30.0]).tolist()
    [friend] = w.spawn(D.MARINE, 1, [20.5], [30.0]).tolist()
    place(w, {tank: (10.0, 30.0), target: (20.0, 30.0), friend: (20.5, 30.0)})
    w.alerts.take(1)
    w.alerts.take(2)
    w.combat.deal(np.array([row(g, tank)]), np.array([row(g, target)]), extra=True)
    assert w.u.hp[row(g, friend)] < 45.0  # (the shell's splash hurt the tank's own marine)
    assert w.alerts.take(2) == [AL.UNIT_UNDER_ATTACK]
    assert w.alerts.take(1) == []


# ---------------------------------------------------------------------- warnings to the opponent
def _spot(g: Game, ability: int, x: float, y: float) -> tuple[float, float]:
    w = g.world
    return next((x + dx + 0.5, y + dy + 0.5) for d in range(3, 15) for dx in range(-d, d + 1) for dy in (-d, d)
                if w.placement.check(ability, x + dx + 0.5, y + dy + 0.5, 1) == C.SUCCESS)


def test_a_nuke_armed_is_nuke_complete_and_its_launch_warns_the_opponent() -> None:
    from test_melee import joined

    g = joined()  # Terran against a Terran Computer on a ladder map
    w = g.world
    w.supply.minerals[1] = w.supply.vespene[1] = 5000
    [cc] = tags_of(g, D.COMMANDCENTER, owner=1)
    x, y = float(w.u.x[row(g, cc)]), float(w.u.y[row(g, cc)])
    academy = w.construction.add_structure(A.GHOST_ACADEMY, 1, *_spot(g, 327, x, y))
    w.construction.add_structure(A.FACTORY, 1, *_spot(g, 328, x, y))
    [ghost] = w.spawn(A.GHOST, 1, [x + 4.0], [y + 4.0]).tolist()
    g.step(1)
    assert alerts(g) == []
    assert act(g, A.NUKE_ARM, [academy]) == C.SUCCESS
    g.step(A.NUKE_ARM_LOOPS - 1)
    assert alerts(g) == []
    g.step(1)
    assert alerts(g) == [AL.NUKE_COMPLETE]
    before = alerts(g, 2)
    assert AL.NUCLEAR_LAUNCH_DETECTED not in before
    assert act(g, A.NUKE, [ghost], (x, y)) == C.SUCCESS
    for _ in range(100):
        g.step(1)
        if w.casting.channelling(ghost):
            break
    assert w.casting.channelling(ghost)
    assert AL.NUCLEAR_LAUNCH_DETECTED in alerts(g, 2)
    assert AL.NUCLEAR_LAUNCH_DETECTED not in alerts(g, 1)


def test_a_nydus_worm_summoned_warns_the_opponent_and_is_its_owners_building_when_done() -> None:
    from test_nydus import OVERLORD, SUMMON, _far, _nydus

    g, w, net = _nydus()
    far = _far(g)
    w.spawn(OVERLORD, 1, [far[0]], [far[1]])
    g.step(2)
    assert AL.NYDUS_WORM_DETECTED not in alerts(g, 2)
    assert alerts(g) == []
    assert act(g, SUMMON, [net], pos=far) == C.SUCCESS
    assert AL.NYDUS_WORM_DETECTED in alerts(g, 2)
    assert alerts(g) == []  # (not to the summoner)
    g.step(int(D.unit_spec(142).build_time) + 1)
    assert alerts(g) == [AL.BUILDING_COMPLETE]


# ---------------------------------------------------------------------- Zerg and Protoss
def test_zerg_eggs_hatch_workers_and_units_and_cocoons_and_lairs_are_morphs() -> None:
    from test_zerg_economy import (
        LARVA,
        POOL,
        TRAIN_DRONE,
        TRAIN_OVERLORD,
        ZERGLING,
        _pool_spot,
        own,
        rich,
        zerg_game,
    )

    g = zerg_game()
    g.step(4)
    rich(g)
    w = g.world
    w.construction.add_structure(POOL, 1, *_pool_spot(g))
    larvae = [u.tag for u in own(g, LARVA)]
    assert act(g, TRAIN_DRONE, larvae[:1]) == C.SUCCESS
    g.step(int(D.unit_spec(104).build_time) + 1)
    assert alerts(g) == [AL.TRAIN_WORKER_COMPLETE]
    assert act(g, TRAIN_OVERLORD, larvae[1:2]) == C.SUCCESS and act(g, 1343, larvae[2:3]) == C.SUCCESS
    g.step(int(D.unit_spec(106).build_time) + 1)
    assert alerts(g) == [AL.TRAIN_UNIT_COMPLETE]  # (an Overlord and two Zerglings: once)
    h = [u for u in own(g) if u.unit_type == 86][0]
    nest = next((h.pos.x + dx + 0.5, h.pos.y + dy + 0.5) for dx in range(-9, 10) for dy in range(-9, 10)
                if w.placement.check(1162, h.pos.x + dx + 0.5, h.pos.y + dy + 0.5) == C.SUCCESS)
    w.construction.add_structure(96, 1, *nest)
    a = [u.tag for u in own(g, ZERGLING)][0]
    assert act(g, 1216, [h.tag]) == C.SUCCESS  # Lair
    assert act(g, 80, [a]) == C.SUCCESS  # Baneling
    g.step(int(tech.MORPH[4431].time) + 1)
    assert alerts(g) == [AL.MORPH_COMPLETE]
    g.step(int(tech.MORPH[1216].time))
    assert alerts(g) == [AL.MORPH_COMPLETE]


def test_protoss_research_transformation_warp_in_merge_and_mothership() -> None:
    from protoss_helpers import (
        CYBERCORE,
        GATEWAY,
        MORPH_WARPGATE,
        PYLON,
        RESEARCH_WARPGATE,
        WARP_STALKER,
        away,
        create,
        nexus,
        protoss_game,
        rich,
    )

    from sc2pool.engine.sim.systems.warpgate import WARP_IN_FAST

    g = protoss_game()
    rich(g)
    w = g.world
    x, y = away(g, 8)
    create(g, PYLON, (x, y))
    gw = create(g, GATEWAY, (x + 3.5, y + 0.5))
    core = create(g, CYBERCORE, (x - 3.5, y + 0.5))
    create(g, 64, (x + 0.5, y + 7.5))  # a Fleet Beacon (the Mothership's requirement)
    create(g, PYLON, (x - 4.0, y + 6.0))
    n = nexus(g).tag
    g.step(1)
    assert alerts(g) == []
    assert act(g, RESEARCH_WARPGATE, [core]) == C.SUCCESS
    g.step(int(tech.RESEARCH[RESEARCH_WARPGATE].time) + 2)
    assert alerts(g) == [AL.RESEARCH_COMPLETE]
    g.step(int(tech.MORPH[MORPH_WARPGATE].time) + 1)
    assert alerts(g) == [AL.TRANSFORMATION_COMPLETE]
    assert act(g, WARP_STALKER, [gw], (x + 0.5, y - 3.5)) == C.SUCCESS
    g.step(WARP_IN_FAST + 1)
    assert alerts(g) == [AL.WARP_IN_COMPLETE]
    a, b = (int(t) for t in w.spawn(P.HIGH_TEMPLAR, 1, [x - 8.0, x - 6.0], [y - 8.0, y - 8.0]).tolist())
    g.step(1)
    assert act(g, P.MERGE, [a, b]) == C.SUCCESS
    g.step(P.MERGE_LOOPS + 1)
    assert alerts(g) == [AL.MERGE_COMPLETE]
    assert act(g, 110, [n]) == C.SUCCESS  # the Mothership
    g.step(int(D.unit_spec(10).build_time) + 1)
    assert alerts(g) == [AL.MOTHERSHIP_COMPLETE]  # (not TrainUnitComplete too)


# ---------------------------------------------------------------------- bounds
def test_a_player_that_never_observes_keeps_each_alert_once() -> None:
    from test_zerg_economy import zerg_game

    g = zerg_game()  # player 2: the engine's Computer, which never observes
    for _ in range(40):
        g.step(100)
    computer_scvs = len(tags_of(g, D.SCV, owner=2))
    assert computer_scvs > 14  # (it trained several)
    pending = list(g.world.alerts.pending[2])
    assert AL.TRAIN_WORKER_COMPLETE in pending
    assert len(pending) == len(set(pending)) <= 22


# ---------------------------------------------------------------------- through burnysc2
def test_a_burnysc2_bots_alert_building_complete_when_its_depot_finishes() -> None:
    pytest.importorskip("sc2")
    from engine_harness import play_bot, quiet_loguru

    quiet_loguru()
    from sc2.bot_ai import BotAI
    from sc2.data import Alert
    from sc2.ids.unit_typeid import UnitTypeId

    class DepotBot(BotAI):
        def __init__(self) -> None:
            super().__init__()
            self.first_ready: int | None = None
            self.first_alert: int | None = None

        async def on_step(self, iteration: int) -> None:
            depots = self.structures(UnitTypeId.SUPPLYDEPOT)
            if not depots and not self.already_pending(UnitTypeId.SUPPLYDEPOT) \
                    and self.can_afford(UnitTypeId.SUPPLYDEPOT):
                await self.build(UnitTypeId.SUPPLYDEPOT,
                                 near=self.townhalls.first.position.towards(self.game_info.map_center, 6))
            if depots.ready and self.first_ready is None:
                self.first_ready = iteration
            if self.alert(Alert.BuildingComplete) and self.first_alert is None:
                self.first_alert = iteration
            if self.first_ready is not None and iteration > self.first_ready + 2 or self.time > 200:
                await self.client.leave()

    bot = DepotBot()
    play_bot("TerranEconomy", bot)
    assert bot.first_ready is not None
    assert bot.first_alert == bot.first_ready

