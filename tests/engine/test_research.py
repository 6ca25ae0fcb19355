"""Research (``sim/systems/research.py``): Terran upgrades researched in their structures, paid,
queued, cancelled, reported (the structure's order with its progress, ``upgrade_ids``) as
burnysc2 reads them, and their effects on combat (weapon and armor levels, Combat Shield,
Stimpack).  Costs and times are the real client's ``ResponseData`` (``data.tech.RESEARCH``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_economy import act, pc, tags_of, unit
from test_terran_tech import rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems.research import STIM_LOOPS
from sc2pool.engine.sim.units import TYPES
from sc2pool.engine.sim.world import World

EBAY, ARMORY, BARRACKS, BARRACKS_TECHLAB = 22, 29, 21, 37
INF_WEAPONS_1, INF_WEAPONS_2, INF_ARMOR_1 = 652, 653, 656
UP_INF_WEAPONS_1, UP_INF_WEAPONS_2, UP_STIM, UP_COMBAT_SHIELD = 7, 8, 15, 16


def burny(g: Any) -> Any:
    """A burnysc2 BotAI prepared on the engine's current answers (as python-sc2's tests build one),
    to read ``already_pending_upgrade`` and ``state.upgrades`` as a bot would."""
    from s2clientprotocol import sc2api_pb2 as sc
    from sc2.bot_ai import BotAI
    from sc2.client import Client
    from sc2.game_data import GameData
    from sc2.game_info import GameInfo
    from sc2.game_state import GameState

    bot = BotAI()
    bot._initialize_variables()
    info = g.game_info(1)
    bot._prepare_start(client=Client(True), player_id=1, game_info=GameInfo(info),
                       game_data=GameData(g.data(sc.RequestData(ability_id=True, upgrade_id=True, unit_type_id=True))))
    bot._prepare_step(state=GameState(g.observation(1)), proto_game_info=sc.Response(game_info=info))
    return bot


def upgrade_ids(g: Any) -> list[int]:
    return list(g.observation(1).observation.raw_data.player.upgrade_ids)


def test_an_engineering_bay_researches_infantry_weapons_as_burnysc2_sees_it() -> None:
    from sc2.ids.upgrade_id import UpgradeId

    g, w = rich_eco()
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)
    spec = tech.RESEARCH[INF_WEAPONS_1]
    assert (spec.minerals, spec.vespene, spec.time) == (100, 100, 2560.0)  # the client's UpgradeData
    bot = burny(g)
    assert bot.already_pending_upgrade(UpgradeId.TERRANINFANTRYWEAPONSLEVEL1) == 0
    ability = bot.game_data.upgrades[UP_INF_WEAPONS_1].research_ability.exact_id  # what Unit.research sends
    before = pc(g)
    assert act(g, ability.value, [ebay]) == C.SUCCESS
    after = pc(g)
    assert (before.minerals - after.minerals, before.vespene - after.vespene) == (100, 100)  # paid at once
    assert act(g, INF_WEAPONS_1, [ebay]) == C.ERROR  # already under way
    g.step(640)
    [order] = unit(g, ebay).orders
    assert order.ability_id == INF_WEAPONS_1 and order.progress == pytest.approx(0.25, abs=0.01)
    assert burny(g).already_pending_upgrade(UpgradeId.TERRANINFANTRYWEAPONSLEVEL1) == pytest.approx(0.25, abs=0.01)
    assert upgrade_ids(g) == []
    g.step(1920)
    assert not unit(g, ebay).orders
    assert upgrade_ids(g) == [UP_INF_WEAPONS_1]
    bot = burny(g)
    assert UpgradeId.TERRANINFANTRYWEAPONSLEVEL1 in bot.state.upgrades
    assert bot.already_pending_upgrade(UpgradeId.TERRANINFANTRYWEAPONSLEVEL1) == 1
    assert act(g, INF_WEAPONS_1, [ebay]) == C.ERROR  # researched: never again
    # level 2 needs an Armory (LP:Engineering_Bay); the generic 3698 is the next level
    assert act(g, 3698, [ebay]) == C.TECH_REQUIREMENTS_NOT_MET
    w.construction.add_structure(ARMORY, 1, 30.5, 46.5)
    assert act(g, 3698, [ebay]) == C.SUCCESS
    assert [o.ability_id for o in unit(g, ebay).orders] == [INF_WEAPONS_2]


def test_a_level_needs_the_previous_one_and_a_structure_researches_only_its_own() -> None:
    g, w = rich_eco()
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)
    w.construction.add_structure(ARMORY, 1, 30.5, 46.5)
    assert act(g, INF_WEAPONS_2, [ebay]) == C.TECH_REQUIREMENTS_NOT_MET  # level 1 first
    assert act(g, 730, [ebay]) == C.ERROR  # Stimpack is the Barracks Tech Lab's
    unfinished = w.construction.add_structure(EBAY, 1, 36.5, 40.5, ready=False)
    assert act(g, INF_ARMOR_1, [unfinished]) == C.BUILDING_IS_UNDER_CONSTRUCTION


def test_queue_cancel_refunds_and_the_next_research_starts() -> None:
    g, w = rich_eco()
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)
    m0 = pc(g).minerals
    assert act(g, INF_WEAPONS_1, [ebay]) == C.SUCCESS
    assert act(g, INF_ARMOR_1, [ebay]) == C.SUCCESS  # queued behind
    assert act(g, 650, [ebay]) == C.SUCCESS
    assert pc(g).minerals == m0 - 300
    orders = unit(g, ebay).orders
    assert [o.ability_id for o in orders] == [INF_WEAPONS_1, INF_ARMOR_1, 650]
    assert [o.HasField("progress") for o in orders] == [True, False, False]
    assert act(g, 3671, [ebay]) == C.SUCCESS  # CANCEL_LAST
    assert pc(g).minerals == m0 - 200 and [o.ability_id for o in unit(g, ebay).orders] == [INF_WEAPONS_1,
                                                                                         INF_ARMOR_1]
    g.step(2561)
    assert upgrade_ids(g) == [UP_INF_WEAPONS_1]
    [o] = unit(g, ebay).orders
    assert o.ability_id == INF_ARMOR_1 and o.progress < 0.01


def test_the_swarm_plating_ids_are_refused_and_the_armory_researches_plating() -> None:
    g, w = rich_eco()
    armory = w.construction.add_structure(ARMORY, 1, 30.5, 40.5)
    assert act(g, 2297, [armory]) == C.ERROR  # python-sc2 PR #232: the real client refuses it
    assert act(g, 3700, [armory]) == C.SUCCESS  # generic plating: level 1, 864
    assert [o.ability_id for o in unit(g, armory).orders] == [864]
    g.step(int(tech.RESEARCH[864].time) + 1)
    assert upgrade_ids(g) == [116]


def test_tech_lab_research_is_the_tech_labs_order_and_stimpack_enables_stim() -> None:
    g, w = rich_eco()
    rax = w.construction.add_structure(BARRACKS, 1, 30.5, 40.5)
    assert act(g, 3682, [rax]) == C.SUCCESS
    g.step(401)
    [lab] = tags_of(g, BARRACKS_TECHLAB)
    assert act(g, 730, [rax]) == C.ERROR  # the Tech Lab researches, not the Barracks
    assert act(g, 730, [lab]) == C.SUCCESS
    assert [o.ability_id for o in unit(g, lab).orders] == [730] and not unit(g, rax).orders
    assert act(g, 560, [rax]) == C.SUCCESS  # the Barracks still trains
    [m] = w.spawn(D.MARINE, 1, [30.0], [30.0])
    assert act(g, D.EFFECT_STIM_MARINE, [int(m)]) == C.TECH_REQUIREMENTS_NOT_MET
    g.step(int(tech.RESEARCH[730].time))
    assert UP_STIM in upgrade_ids(g)
    r = w.u.row(int(m))
    speed = float(w.u.speed[r])
    assert act(g, D.EFFECT_STIM, [int(m)]) == C.SUCCESS  # the generic 3675 burnysc2 may send
    r = w.u.row(int(m))
    assert w.u.hp[r] == 35.0 and w.u.speed[r] == pytest.approx(1.5 * speed)  # LP:Stimpack
    g.step(STIM_LOOPS - 10)
    assert w.u.speed[w.u.row(int(m))] == pytest.approx(1.5 * speed)
    g.step(20)
    assert w.u.speed[w.u.row(int(m))] == pytest.approx(speed)
    w.u.hp[w.u.row(int(m))] = 10.0
    assert act(g, D.EFFECT_STIM, [int(m)]) == C.NOT_ENOUGH_LIFE


def test_combat_shield_gives_marines_ten_life() -> None:
    g, w = rich_eco()
    rax = w.construction.add_structure(BARRACKS, 1, 30.5, 40.5)
    act(g, 3682, [rax])
    g.step(401)
    [lab] = tags_of(g, BARRACKS_TECHLAB)
    [old] = w.spawn(D.MARINE, 1, [30.0], [30.0])
    assert act(g, 731, [lab]) == C.SUCCESS
    g.step(int(tech.RESEARCH[731].time) + 1)
    assert UP_COMBAT_SHIELD in upgrade_ids(g)
    assert act(g, 560, [rax]) == C.SUCCESS
    g.step(int(D.unit_spec(D.MARINE).build_time) + 1)
    marines = tags_of(g, D.MARINE)
    assert len(marines) == 2 and int(old) in marines
    for t in marines:  # LP:Combat_Shield: 55 life
        got = unit(g, t)
        assert (got.health, got.health_max) == (55.0, 55.0)


def test_a_destroyed_structure_loses_its_research() -> None:
    g, w = rich_eco()
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)
    assert act(g, INF_WEAPONS_1, [ebay]) == C.SUCCESS
    g.step(100)
    w.remove_tags([ebay])
    g.step(2600)
    assert upgrade_ids(g) == [] and not w.research.queues


def _fight(weapon_level: int, armor_level: int) -> float:
    """Damage one Marine shot (player 1) deals to a Marine (player 2), with player 1's infantry
    weapons and player 2's infantry armor at these levels."""
    w = World(SKIRMISH)
    [a] = w.spawn(D.MARINE, 1, [20.0], [20.0])
    [t] = w.spawn(D.MARINE, 2, [23.0], [20.0])
    for up in (7, 8, 9)[:weapon_level]:
        w.research.grant(1, up)
    for up in (11, 12, 13)[:armor_level]:
        w.research.grant(2, up)
    hp0 = float(w.u.hp[w.u.row(int(t))])
    for _ in range(20):  # the marine's damage point: the hit lands a loop or two after firing
        w.step_loop()
        if w.u.hp[w.u.row(int(t))] < hp0:
            break
    return hp0 - float(w.u.hp[w.u.row(int(t))])


def test_weapon_and_armor_levels_change_what_a_fight_deals() -> None:
    assert _fight(0, 0) == 6.0
    assert _fight(1, 0) == 7.0  # LP:Marine: 6 (+1)
    assert _fight(3, 0) == 9.0
    assert _fight(1, 1) == 6.0  # +1 armor per level (LP:Upgrades)
    assert _fight(0, 3) == 3.0
    w = World(SKIRMISH)
    assert not w.research.upgraded  # no research: the damage formula is untouched
    assert np.all(TYPES.dmg >= 0)


def test_concussive_shells_slow_what_a_marauder_hits_but_massive_units() -> None:
    g, w = rich_eco()
    w.research.grant(1, 17)  # Concussive Shells
    [mrd] = w.spawn(D.MARAUDER, 1, [30.0], [30.0])
    [m] = w.spawn(D.MARINE, 2, [34.0], [30.0])
    [thor] = w.spawn(52, 2, [30.0], [35.0])
    base = float(TYPES.speed[TYPES.row(D.MARINE)])
    thor_speed = float(TYPES.speed[TYPES.row(52)])
    assert act(g, D.ATTACK_ATTACK, [int(mrd)], target=int(m)) == C.SUCCESS
    for _ in range(60):
        g.step(1)
        r = w.u.row(int(m))
        if w.u.hp[r] < 45:
            break
    assert w.u.hp[w.u.row(int(m))] == 35.0
    assert w.u.speed[w.u.row(int(m))] == pytest.approx(base / 2)  # LP:Concussive_Shells: -50%
    w.remove_tags([int(mrd)])
    g.step(24)
    assert w.u.speed[w.u.row(int(m))] == pytest.approx(base)  # 1.07 faster seconds later
    [mrd] = w.spawn(D.MARAUDER, 1, [30.0], [38.0])
    assert act(g, D.ATTACK_ATTACK, [int(mrd)], target=int(thor)) == C.SUCCESS
    hp0 = float(w.u.hp[w.u.row(int(thor))])
    for _ in range(60):
        g.step(1)
        if w.u.hp[w.u.row(int(thor))] < hp0:
            break
    assert w.u.hp[w.u.row(int(thor))] < hp0 and w.u.speed[w.u.row(int(thor))] == pytest.approx(thor_speed)


def test_hisec_auto_tracking_and_hyperflight_rotors() -> None:
    g, w = rich_eco()
    [turret] = w.spawn(23, 1, [30.0], [30.0])
    [banshee] = w.spawn(55, 1, [30.0], [36.0])
    [other] = w.spawn(23, 2, [40.0], [40.0])
    w.research.grant(1, 5)  # Hi-Sec Auto Tracking: +1 range (LP:Hi-Sec_Auto_Tracking)
    w.research.grant(1, 136)  # Hyperflight Rotors: 3.85 -> 5.25 faster = 3.75 per normal second (LP:Banshee)
    w.spawn(D.MARINE, 1, [20.0], [20.0])  # (the store re-derives its columns)
    g.step(1)
    u = w.u
    assert u.range[u.row(int(turret))] == 8.0 and u.range[u.row(int(other))] == 7.0
    assert u.speed[u.row(int(banshee))] * 16 == pytest.approx(3.75)


def test_pneumatized_carapace_speeds_up_every_overlord_transport_overlords_too() -> None:
    from sc2pool.engine.sim.systems.research import (
        _FASTER,
        OVERLORD,
        OVERLORD_TRANSPORT,
        OVERSEER,
        PNEUMATIZED_CARAPACE,
    )

    # the client gives the Transport Overlord the Overlord's speed; the upgrade gives it the Overlord's
    assert TYPES.speed[TYPES.row(OVERLORD_TRANSPORT)] == TYPES.speed[TYPES.row(OVERLORD)]
    assert _FASTER[OVERLORD_TRANSPORT] == _FASTER[OVERLORD] and _FASTER[OVERSEER][0] == PNEUMATIZED_CARAPACE
    fast = _FASTER[OVERLORD][1] / D.NORMAL_LOOPS_PER_SECOND
    g, w = rich_eco()
    u = w.u
    [lord] = w.spawn(OVERLORD, 1, [20.0], [20.0]).tolist()
    [transport] = w.spawn(OVERLORD_TRANSPORT, 1, [20.0], [30.0]).tolist()
    [theirs] = w.spawn(OVERLORD_TRANSPORT, 2, [20.0], [50.0]).tolist()
    slow = float(TYPES.speed[TYPES.row(OVERLORD_TRANSPORT)])
    assert float(u.speed[u.row(transport)]) == slow
    w.research.grant(1, PNEUMATIZED_CARAPACE)
    assert float(u.speed[u.row(transport)]) == float(u.speed[u.row(lord)]) == pytest.approx(fast)
    assert float(u.speed[u.row(theirs)]) == slow  # (the other player's)
    [late] = w.spawn(OVERLORD_TRANSPORT, 1, [20.0], [60.0]).tolist()  # (the store re-derives its columns)
    g.step(1)
    assert float(u.speed[u.row(late)]) == pytest.approx(fast)
    # it flies that fast: 40 loops towards a far point
    for t in (transport, theirs):
        w.command(int(u.owner[u.row(t)]), D.MOVE_MOVE, [t], (120.0, float(u.y[u.row(t)])), 0, False)
    g.step(40)
    ours, slower = (float(u.x[u.row(t)]) - 20.0 for t in (transport, theirs))
    assert ours == pytest.approx(40 * fast, rel=0.05) and slower == pytest.approx(40 * slow, rel=0.05)


def test_advanced_ballistics_gives_the_liberatorag_range_12() -> None:
    from sc2pool.engine.sim.systems import modes as M
    from sc2pool.engine.sim.systems.research import ADVANCED_BALLISTICS, BALLISTICS_RANGE, LIBERATOR_AG

    ag = TYPES.row(LIBERATOR_AG)
    assert TYPES.range[ag] == 10.0 and TYPES.range[ag] + BALLISTICS_RANGE == 12.0  # the client's 10 -> 12
    g, w = rich_eco()
    u = w.u
    # a LiberatorAG without a zone (as a debug command makes one: a zone's units are within 10)
    [lib] = w.spawn(LIBERATOR_AG, 1, [40.0], [20.0]).tolist()
    [other] = w.spawn(LIBERATOR_AG, 2, [10.0], [10.0]).tolist()
    gap = 11.5  # edge to edge: beyond 10, within 12
    [marine] = w.spawn(D.MARINE, 2, [40.0 + 0.75 + 0.375 + gap], [20.0]).tolist()
    w.command(2, D.HOLDPOSITION_HOLD, [marine], None, 0, False)

    def shot(loops: int) -> bool:
        """Whether the marine is hit (75 a shot: it dies) within ``loops``."""
        for _ in range(loops):
            g.step(1)
            if u.row(marine) < 0 or u.hp[u.row(marine)] < 45.0:
                return True
        return False

    assert not shot(100) and u.range[u.row(lib)] == 10.0
    w.research.grant(1, ADVANCED_BALLISTICS)
    assert u.range[u.row(lib)] == 12.0 and u.range[u.row(other)] == 10.0  # the owner's LiberatorAGs
    assert shot(60)
    # a Liberator going into Defender Mode after the research: the new form has the range too
    [fighter] = w.spawn(M.LIBERATOR, 1, [20.0], [50.0]).tolist()
    assert act(g, M.LIBERATOR_AG, [fighter], (22.0, 50.0)) == C.SUCCESS
    g.step(M.TRANSITION_LOOPS[M.LIBERATOR_AG])
    r = u.row(fighter)
    assert u.unit_id[r] == LIBERATOR_AG and u.range[r] == 12.0
    # the zone may be cast 2 further: a Liberator 6.5 from the point changes form where it is
    # (player 2's, without the upgrade, flies until the point is within 5 first)
    assert w.modes.zone_cast_range(1) == M.ZONE_CAST_RANGE + BALLISTICS_RANGE
    assert w.modes.zone_cast_range(2) == M.ZONE_CAST_RANGE
    [far] = w.spawn(M.LIBERATOR, 1, [10.0], [35.0]).tolist()
    [far2] = w.spawn(M.LIBERATOR, 2, [30.0], [35.0]).tolist()
    assert act(g, M.LIBERATOR_AG, [far], (16.5, 35.0)) == C.SUCCESS
    assert w.command(2, M.LIBERATOR_AG, [far2], (36.5, 35.0), 0, False) == C.SUCCESS
    g.step(M.TRANSITION_LOOPS[M.LIBERATOR_AG] + 2)
    assert u.unit_id[u.row(far)] == LIBERATOR_AG and float(u.x[u.row(far)]) == 10.0
    assert u.unit_id[u.row(far2)] != LIBERATOR_AG and float(u.x[u.row(far2)]) > 31.0


@pytest.mark.timeout(120)
def test_a_burnysc2_bot_researches_infantry_weapons_on_a_ladder_map() -> None:
    """Unmodified burnysc2 end to end: ``BotAI.research`` at a finished Engineering Bay, then
    ``already_pending_upgrade`` goes 0 -> fractions -> 1 and ``state.upgrades`` lists it."""
    import sc2.main  # noqa: F401  (resets loguru; quieted below)
    from engine_harness import play_bot, quiet_loguru
    from sc2.bot_ai import BotAI
    from sc2.data import Difficulty, Race
    from sc2.ids.unit_typeid import UnitTypeId as U
    from sc2.ids.upgrade_id import UpgradeId
    from sc2.player import Computer

    up = UpgradeId.TERRANINFANTRYWEAPONSLEVEL1

    class ResearchBot(BotAI):
        def __init__(self) -> None:
            super().__init__()
            self.pending: list[tuple[int, float]] = []
            self.facts: dict[str, Any] = {}

        async def on_step(self, iteration: int) -> None:
            await self.distribute_workers()
            cc = self.townhalls.first
            p = self.already_pending_upgrade(up)
            self.pending.append((self.state.game_loop, p))
            if p == 1 or self.time > 420:
                self.facts["upgrades"] = set(self.state.upgrades)
                await self.client.leave()
                return
            if self.can_afford(U.SCV) and cc.is_idle and self.supply_workers < 22:
                cc.train(U.SCV)
            if self.supply_left < 3 and self.can_afford(U.SUPPLYDEPOT) and not self.already_pending(U.SUPPLYDEPOT):
                await self.build(U.SUPPLYDEPOT, near=cc.position.towards(self.game_info.map_center, 6))
            if self.structures(U.SUPPLYDEPOT) and not self.gas_buildings and self.can_afford(U.REFINERY) \
                    and not self.already_pending(U.REFINERY):
                geyser = self.vespene_geyser.closest_to(cc)
                worker = self.select_build_worker(geyser.position)
                if worker:
                    worker.build_gas(geyser)
            if self.structures(U.SUPPLYDEPOT).ready and not self.structures(U.ENGINEERINGBAY) \
                    and self.can_afford(U.ENGINEERINGBAY) and not self.already_pending(U.ENGINEERINGBAY):
                await self.build(U.ENGINEERINGBAY, near=cc.position.towards(self.game_info.map_center, 9))
            if p == 0 and self.structures(U.ENGINEERINGBAY).ready and self.can_afford(up):
                self.facts["started_at"] = self.state.game_loop
                assert self.research(up)

    quiet_loguru("ERROR")
    bot = ResearchBot()
    play_bot("AbyssalReefLE", bot, opponent=Computer(Race.Terran, Difficulty.VeryEasy))
    assert bot.facts["upgrades"] == {up}
    values = [p for _, p in bot.pending]
    assert values[0] == 0 and values[-1] == 1
    fractions = [(loop, p) for loop, p in bot.pending if 0 < p < 1]
    assert len(fractions) > 100 and all(b[1] > a[1] for a, b in zip(fractions, fractions[1:], strict=False))
    start = bot.facts["started_at"]
    loop, p = fractions[len(fractions) // 2]
    assert p == pytest.approx((loop - start) / 2560, abs=0.01)  # the client's research time


def test_the_abilities_query_lists_what_the_structure_can_research_now() -> None:
    g, w = rich_eco()
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)

    def listed() -> set[int]:
        return {ab for ab, _ in w.commands.available(1, w.u.row(ebay))}

    assert {650, 651, INF_WEAPONS_1, INF_ARMOR_1} <= listed() and INF_WEAPONS_2 not in listed()
    assert act(g, INF_WEAPONS_1, [ebay]) == C.SUCCESS
    assert INF_WEAPONS_1 not in listed()  # under way
    w.construction.add_structure(ARMORY, 1, 30.5, 46.5)
    g.step(2561)
    assert INF_WEAPONS_1 not in listed() and INF_WEAPONS_2 in listed()
    w.supply.minerals[1] = 0
    assert not listed() & {650, 651, INF_WEAPONS_2, INF_ARMOR_1}  # nothing affordable


def test_an_unaffordable_research_costs_nothing_and_one_under_way_elsewhere_is_refused() -> None:
    g, w = rich_eco()
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)
    w.supply.minerals[1] = 50
    assert act(g, INF_WEAPONS_1, [ebay]) == C.NOT_ENOUGH_MINERALS
    assert not unit(g, ebay).orders and pc(g).minerals == 50
    w.remove_tags([ebay])  # (a structure that never researched leaves no record behind)
    g.step(1)
    assert not w.research.queues and not w.research.starts
    w.supply.minerals[1] = w.supply.vespene[1] = 10_000
    ebay = w.construction.add_structure(EBAY, 1, 30.5, 40.5)
    w.construction.add_structure(ARMORY, 1, 30.5, 46.5)
    for ab in (INF_WEAPONS_1, INF_ARMOR_1, 650, 651):
        assert act(g, ab, [ebay]) == C.SUCCESS
    ebay2 = w.construction.add_structure(EBAY, 1, 36.5, 40.5)
    assert act(g, INF_WEAPONS_1, [ebay2]) == C.ERROR  # under way in the other one
    assert len(unit(g, ebay).orders) == 4


def _first_hit(attacker: int, target: int, grants: tuple[int, ...]) -> float:
    """Damage the first attack of an ``attacker`` (player 1, with ``grants`` researched) deals to a
    lone ``target`` (player 2) beside it."""
    w = World(SKIRMISH)
    for up in grants:
        w.research.grant(1, up)
    [a] = w.spawn(attacker, 1, [20.0], [20.0])
    [t] = w.spawn(target, 2, [21.5], [20.0])
    hp0 = float(w.u.hp[w.u.row(int(t))])
    for _ in range(40):
        w.step_loop()
        if w.u.hp[w.u.row(int(t))] < hp0:
            break
    return hp0 - float(w.u.hp[w.u.row(int(t))])


def test_infernal_pre_igniter_adds_5_and_12_against_light_to_hellions_and_hellbats() -> None:
    hellion, hellbat, zergling, roach = 53, 484, 105, 110
    assert _first_hit(hellbat, zergling, ()) == 18.0  # LP:Hellbat
    assert _first_hit(hellbat, zergling, (19,)) == 18.0 + 12.0  # light: +12 (LP:Hellbat)
    assert _first_hit(hellbat, roach, (19,)) == 18.0 - 1.0  # armored: nothing more (Roach armor 1)
    assert _first_hit(hellion, zergling, (19,)) - _first_hit(hellion, zergling, ()) == 5.0  # LP:Hellion


def test_corvid_reactor_and_enhanced_shockwaves() -> None:
    from test_terran_abilities import EMP, GHOST, MEDIVAC

    g, w = rich_eco()
    w.research.grant(1, 22)  # Corvid Reactor: a new Raven starts with 25 more energy (LP:Raven)
    [mine] = w.spawn(56, 1, [20.0], [40.0]).tolist()
    [theirs] = w.spawn(56, 2, [60.0], [40.0]).tolist()
    g.step(1)
    assert w.abilities.energy_of(mine) - w.abilities.energy_of(theirs) == pytest.approx(25.0)
    for shockwaves in (False, True):
        if shockwaves:
            w.research.grant(1, 297)  # Enhanced Shockwaves: the EMP's radius 2, not 1.5 (LP:Ghost)
        [ghost] = w.spawn(GHOST, 1, [31.0], [30.0]).tolist()
        [med] = w.spawn(MEDIVAC, 2, [40.0], [30.0 + 1.75 + float(TYPES.radius[TYPES.row(MEDIVAC)])]).tolist()
        g.step(1)
        assert act(g, EMP, [ghost], (40.0, 30.0)) == C.SUCCESS
        for _ in range(100):
            g.step(1)
            if ghost not in w.casting.casts:
                break
        drained = w.abilities.energy_of(med) < 1.0  # (its edge 1.75 from the point)
        assert drained == shockwaves
        w.remove_tags([ghost, med])


def test_neosteel_armor_gives_bunkers_two_more_slots() -> None:
    g, w = rich_eco()
    from sc2pool.engine.sim.systems import transport as TP

    assert w.transport.capacity(TP.BUNKER, 1) == 4
    w.research.grant(1, 6)  # Neosteel Armor (TerranBuildingArmor): +2 Bunker slots (LP:Bunker)
    assert w.transport.capacity(TP.BUNKER, 1) == 6 and w.transport.capacity(TP.BUNKER, 2) == 4
    assert w.transport.capacity(TP.MEDIVAC, 1) == 8
    bunker = w.construction.add_structure(TP.BUNKER, 1, 30.5, 30.5)
    marines = w.spawn(D.MARINE, 1, [34.0] * 7, [28.0 + k for k in range(7)]).tolist()
    g.step(1)
    assert w.command(1, 1, marines, None, bunker, False) == C.SUCCESS  # (smart: they walk in)
    g.step(200)
    assert len(w.transport.cargo[bunker].passengers) == 6  # (the seventh does not fit)
