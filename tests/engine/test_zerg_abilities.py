"""Zerg units' abilities in a melee game on a ladder map, through the Game API (and the world for
set-ups): Banelings' explosions, Lurkers burrowing, Roaches tunnelling, crawlers uprooting and
rooting, Corrosive Bile, Fungal Growth, Neural Parasite, the Viper's Abduct, Blinding Cloud,
Parasitic Bomb and Consume, Locusts, Changelings, Adrenal Glands, Chitinous Plating, and Zerg
structures off creep."""

from __future__ import annotations

from typing import Any

import numpy as np
from test_zerg_economy import act, hatchery, own, zerg_game

from sc2pool.engine.game import Game
from sc2pool.engine.sim.systems import zerg_abilities as Z

SUCCESS, TECH, NOT_ENOUGH_ENERGY, COOLDOWN, CANT_TARGET = 1, 79, 17, 6, 36
ZERGLING, BANELING, LURKER, LURKER_BURROWED, MARINE, RAVAGER, INFESTOR, VIPER = 105, 9, 502, 503, 48, 688, 111, 499
EXPLODE, ATTACK = 42, 23


def _spot(g: Game, dy: float = -8.0) -> tuple[float, float]:
    h = hatchery(g)
    return h.pos.x, h.pos.y + dy


def _unit(g: Game, tag: int) -> Any:
    return next((u for u in g.observation(1).observation.raw_data.units if u.tag == tag), None)


def test_a_baneling_explodes_on_command_hurting_enemies_not_its_own() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [bane, lone] = w.spawn(BANELING, 1, [x, x - 20.0], [y, y]).tolist()
    [ling] = w.spawn(ZERGLING, 1, [x - 1.0], [y]).tolist()
    marines = w.spawn(MARINE, 2, [x + 1.0, x + 5.0], [y, y]).tolist()
    assert act(g, EXPLODE, [bane]) == SUCCESS
    assert act(g, EXPLODE, [lone]) == SUCCESS  # (no enemy near: it blows up all the same)
    g.step(8)
    assert w.u.row(bane) < 0 and w.u.row(lone) < 0
    near, far = (w.u.row(t) for t in marines)
    assert near >= 0 and float(w.u.hp[near]) < 45.0  # 16 (+19 vs light) splash, LP:Baneling
    assert far >= 0 and float(w.u.hp[far]) == 45.0
    assert float(w.u.hp[w.u.row(ling)]) == 35.0  # (no friendly fire, LP:Baneling)
    assert act(g, EXPLODE, [ling]) == 3  # (only Banelings explode)


def test_a_baneling_ordered_to_attack_a_structure_blows_up_on_it() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [bane] = w.spawn(BANELING, 1, [x], [y]).tolist()
    [depot] = w.spawn(19, 2, [x + 4.0], [y]).tolist()
    g.step(2)
    hp = float(w.u.hp[w.u.row(depot)])
    assert act(g, ATTACK, [bane], target=depot) == SUCCESS
    g.step(120)
    assert w.u.row(bane) < 0
    assert float(w.u.hp[w.u.row(depot)]) < hp  # 80 vs structures (LP:Baneling)


def test_a_lurker_burrows_without_research_and_then_cannot_move() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [lurker] = w.spawn(LURKER, 1, [x], [y]).tolist()
    g.step(2)
    assert act(g, 2108, [lurker]) == SUCCESS  # BURROWDOWN_LURKER: no research needed (LP:Lurker)
    g.step(Z.LURKER_BURROW_LOOPS)
    lk = _unit(g, lurker)
    assert lk.unit_type == LURKER_BURROWED and lk.is_burrowed
    assert act(g, 1, [lurker], pos=(x + 5.0, y)) in (SUCCESS, 3, 2)
    g.step(40)
    lk = _unit(g, lurker)
    assert (lk.pos.x, lk.pos.y) == (x, y) or abs(lk.pos.x - x) < 0.01
    assert act(g, 2110, [lurker]) == SUCCESS
    g.step(20)
    assert _unit(g, lurker).unit_type == LURKER


def test_a_lurker_burrows_in_2_seconds_and_in_1_07_with_adaptive_talons() -> None:
    from sc2pool.engine.data.units import ADAPTIVE_TALONS, TRANSITION_UPGRADES

    base, fast = Z.LURKER_BURROW_LOOPS, TRANSITION_UPGRADES[Z.LURKER_BURROW][1]
    assert (base, fast) == (round(2 * 22.4), round(1.07 * 22.4))  # faster seconds (KB:LLM-PySC2)
    assert TRANSITION_UPGRADES[Z.LURKER_BURROW] == (ADAPTIVE_TALONS, fast)
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [lk, late, generic] = w.spawn(LURKER, 1, [x, x + 3.0, x - 3.0], [y, y, y]).tolist()
    [enemy] = w.spawn(LURKER, 2, [x], [y - 6.0]).tolist()
    g.step(2)

    def burrowed_after(tag: int, ability: int, loops: int) -> None:
        """``ability`` burrows ``tag`` in exactly ``loops``."""
        assert act(g, ability, [tag]) == SUCCESS
        g.step(loops - 1)
        assert _unit(g, tag).unit_type == LURKER
        g.step(1)
        assert _unit(g, tag).unit_type == LURKER_BURROWED

    burrowed_after(lk, Z.LURKER_BURROW, base)  # without Adaptive Talons: 2 s
    assert act(g, 2110, [lk]) == SUCCESS  # unburrowing: the engine's own time (m)
    g.step(Z.BURROW_LOOPS)
    assert _unit(g, lk).unit_type == LURKER
    assert act(g, Z.LURKER_BURROW, [late]) == SUCCESS  # burrowing when the research finishes: keeps its time (m)
    w.research.grant(1, ADAPTIVE_TALONS)
    assert w.command(2, Z.LURKER_BURROW, [enemy], None, 0, False) == SUCCESS  # (the same loop, another owner)
    burrowed_after(lk, Z.LURKER_BURROW, fast)  # with it: 1.07 s
    assert _unit(g, late).unit_type == LURKER and w.u.unit_id[w.u.row(enemy)] == LURKER
    g.step(base - fast - 1)
    assert _unit(g, late).unit_type == LURKER and w.u.unit_id[w.u.row(enemy)] == LURKER
    g.step(1)
    assert _unit(g, late).unit_type == LURKER_BURROWED  # the 2 s it started with
    assert w.u.unit_id[w.u.row(enemy)] == LURKER_BURROWED  # the other player's Lurker: 2 s
    burrowed_after(generic, Z.BURROW_DOWN, fast)  # the generic BURROWDOWN: 1.07 s too


def test_corrosive_bile_lands_on_the_point_after_its_delay_and_has_a_cooldown() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import BILE_COOLDOWN, BILE_DELAY

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [ravager] = w.spawn(RAVAGER, 1, [x], [y]).tolist()
    [roach] = w.spawn(110, 1, [x + 7.0], [y]).tolist()  # (its own units: bile hits friend and foe)
    [ling] = w.spawn(ZERGLING, 1, [x + 7.0], [y + 2.0]).tolist()
    g.step(2)
    hp = float(w.u.hp[w.u.row(roach)])
    assert act(g, 2338, [ravager], pos=(x + 7.0, y)) == SUCCESS  # within its range 9
    assert act(g, 2338, [ravager], pos=(x + 7.0, y)) == COOLDOWN
    assert 2338 not in [a.ability_id for a in g.query(1, _abilities_query(ravager)).abilities[0].abilities]
    g.step(BILE_DELAY - 2)
    assert float(w.u.hp[w.u.row(roach)]) == hp  # (not landed yet)
    g.step(4)
    assert abs(float(w.u.hp[w.u.row(roach)]) - (hp - 60.0)) < 0.1  # 60 damage (LP:Ravager; + Zerg regeneration)
    assert float(w.u.hp[w.u.row(ling)]) == 35.0  # (0.5 radius: the point only)
    g.step(BILE_COOLDOWN)
    assert 2338 in [a.ability_id for a in g.query(1, _abilities_query(ravager)).abilities[0].abilities]


def _abilities_query(tag: int) -> Any:
    from s2clientprotocol import query_pb2

    q = query_pb2.RequestQuery()
    q.abilities.add(unit_tag=tag)
    return q


def test_fungal_growth_costs_75_energy_damages_enemies_in_its_radius_and_roots_them() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import FUNGAL_LOOPS

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [infestor] = w.spawn(INFESTOR, 1, [x], [y]).tolist()
    g.step(2)
    m = w.spawn(MARINE, 2, [x + 8.0, x + 8.0, x + 8.0], [y, y + 1.0, y + 6.0]).tolist()
    assert act(g, 74, [infestor], pos=(x + 8.0, y)) == NOT_ENOUGH_ENERGY  # (it starts with 50)
    w.abilities.energy[infestor] = (80.0, w.loop, 200.0)
    assert act(g, 74, [infestor], pos=(x + 8.0, y + 0.5)) == SUCCESS
    assert w.abilities.energy_of(infestor) < 6.0
    assert w.commands.issue(2, 1, m[:2], (x + 20.0, y), 0, False) == SUCCESS  # (rooted: they cannot walk away)
    g.step(FUNGAL_LOOPS // 2)
    hit = [w.u.row(t) for t in m[:2]]
    assert all(abs(float(w.u.x[r]) - (x + 8.0)) < 1e-6 for r in hit)
    g.step(FUNGAL_LOOPS // 2 + 4)
    assert all(abs(float(w.u.hp[r]) - 15.0) < 1e-6 for r in [w.u.row(t) for t in m[:2]])  # 45 - 30
    assert float(w.u.hp[w.u.row(m[2])]) == 45.0  # (outside its 2.25 radius)
    g.step(40)
    assert float(w.u.x[w.u.row(m[0])]) > x + 9.0  # (free again: it walks on)


def test_abduct_pulls_the_unit_to_the_viper() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [viper] = w.spawn(VIPER, 1, [x], [y]).tolist()
    [tank] = w.spawn(33, 2, [x + 10.0], [y]).tolist()  # (a Siege Tank 10 away: the Viper flies 1 closer)
    g.step(2)
    assert act(g, 2067, [viper], target=tank) == NOT_ENOUGH_ENERGY  # (it starts with 50; 75 needed)
    w.abilities.energy[viper] = (100.0, w.loop, 200.0)
    assert act(g, 2067, [viper], target=hatchery(g).tag) == CANT_TARGET  # (not a structure)
    assert act(g, 2067, [viper], target=tank) == SUCCESS
    g.step(30)
    vr, tr = w.u.row(viper), w.u.row(tank)
    assert abs(float(w.u.x[tr]) - float(w.u.x[vr])) < 1.5 and abs(float(w.u.y[tr]) - float(w.u.y[vr])) < 1.5
    assert w.abilities.energy_of(viper) < 100.0 - 75.0 + 2.0


def test_parasitic_bomb_hurts_enemy_air_units_around_its_target_over_7_seconds() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import BOMB_LOOPS

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [viper] = w.spawn(VIPER, 1, [x], [y]).tolist()
    vikings = w.spawn(35, 2, [x + 6.0, x + 7.0, x + 6.0], [y, y, y + 8.0]).tolist()  # (Viking Fighters)
    [marine] = w.spawn(MARINE, 2, [x + 6.0], [y + 1.0]).tolist()
    g.step(2)
    w.abilities.energy[viper] = (130.0, w.loop, 200.0)
    assert act(g, 2542, [viper], target=marine) == CANT_TARGET  # (air units only)
    assert act(g, 2542, [viper], target=vikings[0]) == SUCCESS
    g.step(BOMB_LOOPS + 4)
    hp = [float(w.u.hp[w.u.row(t)]) for t in vikings]
    assert abs(hp[0] - (135.0 - 120.0)) < 1e-6 and abs(hp[1] - (135.0 - 120.0)) < 1e-6  # (135: LP:Viking)
    assert hp[2] == 135.0 and float(w.u.hp[w.u.row(marine)]) == 45.0


def test_consume_drains_a_structure_for_the_vipers_energy() -> None:
    from sc2pool.engine.sim.systems.abilities import REGEN_PER_LOOP
    from sc2pool.engine.sim.systems.zerg_spells import CONSUME_LOOPS

    g = zerg_game()
    g.step(4)
    w = g.world
    h = hatchery(g)
    [viper] = w.spawn(VIPER, 1, [h.pos.x], [h.pos.y - 4.0]).tolist()
    g.step(2)
    w.abilities.energy[viper] = (10.0, w.loop, 200.0)
    drone = next(u.tag for u in g.observation(1).observation.raw_data.units if u.unit_type == 104)
    assert act(g, 2073, [viper], target=drone) == CANT_TARGET  # (structures only)
    hp = float(w.u.hp[w.u.row(h.tag)])
    assert act(g, 2073, [viper], target=h.tag) == SUCCESS
    g.step(CONSUME_LOOPS + 4)
    assert abs(float(w.u.hp[w.u.row(h.tag)]) - (hp - 200.0)) < 2.0  # (and the Hatchery regenerates a little)
    regen = (CONSUME_LOOPS + 4) * REGEN_PER_LOOP  # (it regenerates meanwhile too)
    assert abs(w.abilities.energy_of(viper) - (10.0 + 50.0 + regen)) < 0.1


def test_burrowed_roaches_move_only_with_tunneling_claws() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    roaches = w.spawn(110, 1, [x, x], [y, y - 3.0]).tolist()
    w.research.grant(1, 64)  # Burrow
    g.step(2)
    assert act(g, 1386, roaches) == SUCCESS  # BURROWDOWN_ROACH
    g.step(20)
    assert all(_unit(g, t).unit_type == 118 for t in roaches)
    assert act(g, 1, roaches[:1], pos=(x + 6.0, y)) == SUCCESS
    g.step(40)
    assert abs(_unit(g, roaches[0]).pos.x - x) < 0.01  # (no Tunneling Claws: it stays)
    w.research.grant(1, 3)  # Tunneling Claws
    assert act(g, 1, roaches[1:], pos=(x + 6.0, y - 3.0)) == SUCCESS
    g.step(40)
    rr = w.u.row(roaches[1])
    assert _unit(g, roaches[1]).unit_type == 118 and float(w.u.x[rr]) > x + 2.0
    assert abs(float(w.u.speed[rr]) * 16 - 2.25 * 1.3) < 1e-3 or abs(float(w.u.speed[rr]) * 16 - 2.25) < 1e-3


def test_a_spine_crawler_uproots_walks_and_roots_only_on_creep() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    h = hatchery(g)
    spots = [(h.pos.x + dx, h.pos.y + dy) for dx in range(-9, 10) for dy in range(-9, 10)
             if w.placement.fits(98, h.pos.x + dx, h.pos.y + dy, 1) == SUCCESS]
    spot = spots[0]
    w.construction.add_structure(98, 1, *spot)
    g.step(2)
    spine = own(g, 98)[0].tag
    assert act(g, 1725, [spine]) == SUCCESS  # SPINECRAWLERUPROOT
    g.step(20)
    assert _unit(g, spine).unit_type == 139
    assert w.placement.fits(98, *spot, 1) == SUCCESS  # (its old spot is free)
    off = next((x + 0.0, y + 0.0) for x in range(0, w.map.width, 2) for y in range(0, w.map.height, 2)
               if w.map.placeable[y - 1:y + 1, x - 1:x + 1].all() and not w.creep.grid[y - 2:y + 2, x - 2:x + 2].any()
               and abs(x - h.pos.x) < 30 and abs(y - h.pos.y) < 30)
    assert act(g, 1729, [spine], pos=off) == 44  # CantBuildLocationInvalid: no creep there
    target = next(s for s in spots if abs(s[0] - spot[0]) + abs(s[1] - spot[1]) >= 4)
    assert act(g, 1729, [spine], pos=target) == SUCCESS
    g.step(400)
    sp = _unit(g, spine)
    assert sp.unit_type == 98 and abs(sp.pos.x - target[0]) <= 0.5 and abs(sp.pos.y - target[1]) <= 0.5
    rec = w.construction.structures[spine]
    assert (rec.x, rec.y) == (sp.pos.x, sp.pos.y)  # (snapped to the 2x2 footprint's corners)
    assert w.placement.fits(98, *target, 1) != SUCCESS  # (it stands there now)


def test_a_swarm_host_spawns_two_locusts_that_attack_and_expire() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import LOCUST_LOOPS

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [host] = w.spawn(494, 1, [x], [y]).tolist()
    [marine] = w.spawn(MARINE, 2, [x + 12.0], [y]).tolist()
    g.step(2)
    assert act(g, 2704, [host], pos=(x + 12.0, y)) == SUCCESS
    assert act(g, 2704, [host], pos=(x + 12.0, y)) == COOLDOWN
    locusts = own(g, 489)
    assert len(locusts) == 2 and all(lc.orders and lc.orders[0].ability_id == ATTACK for lc in locusts)
    g.step(150)
    assert w.u.row(marine) < 0 or float(w.u.hp[w.u.row(marine)]) < 45.0  # (10 damage each, LP:Swarm_Host)
    g.step(LOCUST_LOOPS - 150 + 2)
    assert own(g, 489) == []  # (their 18 s are over)
    assert _unit(g, host) is not None


def test_neural_parasite_gives_the_infestor_player_the_unit_while_it_channels() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import NEURAL_LOOPS

    g = zerg_game()
    # the tank is the Computer's between the two casts: with no Computer deciding, it stays in reach
    # (its orders, now that a tank can leave its main, walked it out of the Infestor's sight)
    g.scenario.computers.clear()  # type: ignore[attr-defined]
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [infestor] = w.spawn(INFESTOR, 1, [x], [y]).tolist()
    [tank] = w.spawn(33, 2, [x + 9.0], [y]).tolist()
    g.step(2)
    w.abilities.energy[infestor] = (120.0, w.loop, 200.0)
    assert act(g, 249, [infestor], target=tank) == SUCCESS
    g.step(30)
    assert _unit(g, tank).alliance == 1  # (Self: the Zerg player's now)
    assert act(g, 1, [tank], pos=(x + 9.0, y + 4.0)) == SUCCESS  # (and it obeys that player)
    g.step(60)
    assert _unit(g, tank).pos.y > y + 2.0
    assert w.abilities.energy_of(infestor) < 120.0 - 100.0 + 5.0
    g.step(NEURAL_LOOPS)
    t = _unit(g, tank)
    assert int(w.u.owner[w.u.row(tank)]) == 2 and (t is None or t.alliance == 4)  # (the Computer's again)
    w.abilities.energy[infestor] = (120.0, w.loop, 200.0)
    assert act(g, 249, [infestor], target=tank) == SUCCESS
    g.step(30)
    assert _unit(g, tank).alliance == 1
    assert act(g, 250, [infestor]) == SUCCESS  # (cancelled: back at once)
    assert int(w.u.owner[w.u.row(tank)]) == 2


def test_chitinous_plating_gives_ultralisks_2_more_armor() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    ultras = w.spawn(109, 1, [x, x + 20.0], [y, y]).tolist()
    g.step(2)
    rows = w.u.rows(np.array(ultras))
    before = w.combat._armor(rows).tolist()
    w.research.grant(1, 4)  # CHITINOUSPLATING
    after = w.combat._armor(rows).tolist()
    assert after == [before[0] + 2.0, before[1] + 2.0]
    [ling] = w.spawn(ZERGLING, 1, [x], [y - 3.0]).tolist()
    assert w.combat._armor(w.u.rows(np.array([ling]))).tolist() == [0.0]


def test_zerg_structures_off_creep_lose_life_but_a_hatchery() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    h = hatchery(g)
    off = next((x + 0.5, y + 0.5) for x in range(2, w.map.width - 4, 2) for y in range(2, w.map.height - 4, 2)
               if w.map.placeable[y - 2:y + 3, x - 2:x + 3].all() and not w.creep.grid[y - 8:y + 9, x - 8:x + 9].any()
               and 20 < abs(x - h.pos.x) + abs(y - h.pos.y) < 60)
    pool = w.construction.add_structure(89, 1, *off)
    hatch = w.construction.add_structure(86, 1, off[0] - 14.0, off[1])  # (its own creep grows: not to the pool)
    g.step(2)
    hp, hhp = float(w.u.hp[w.u.row(pool)]), float(w.u.hp[w.u.row(hatch)])
    g.step(160)  # (10 normal seconds)
    lost = hp - float(w.u.hp[w.u.row(pool)])
    assert 26.0 < lost < 31.0  # 3 per normal second less the 0.27 regeneration (LP:Zerg_Regeneration)
    assert float(w.u.hp[w.u.row(hatch)]) >= hhp


def test_blinding_cloud_cuts_ground_units_range_to_melee_while_it_lasts() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import CLOUD_LOOPS

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g, -16.0)  # (out of the marines' reach of the Hatchery and Drones)
    [viper] = w.spawn(VIPER, 1, [x - 9.0], [y]).tolist()
    [ling] = w.spawn(ZERGLING, 1, [x + 3.5], [y]).tolist()
    w.u.hp[w.u.row(ling)] = 35.0
    marines = w.spawn(MARINE, 2, [x, x + 6.0], [y, y + 6.0]).tolist()
    w.abilities.energy[viper] = (110.0, w.loop, 200.0)
    assert act(g, 2063, [viper], pos=(x, y)) == SUCCESS
    assert act(g, 18, [ling]) == SUCCESS  # (hold: the ling stays 3.5 from the blinded marine)
    assert w.commands.issue(2, 18, marines, None, 0, False) == SUCCESS  # (the marines hold too)
    g.step(4)
    rng = [float(w.u.range[w.u.row(t)]) for t in marines]
    assert rng == [0.1, 5.0]
    hp = float(w.u.hp[w.u.row(ling)])
    g.step(60)
    assert float(w.u.hp[w.u.row(ling)]) >= hp  # (the marine 3.5 away may not shoot it)
    g.step(CLOUD_LOOPS)
    assert float(w.u.range[w.u.row(marines[0])]) == 5.0
    g.step(30)
    assert w.u.row(ling) < 0 or float(w.u.hp[w.u.row(ling)]) < hp  # (its range back: it fires)


def test_an_overseers_changeling_is_not_attacked_by_enemies_on_their_own() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import CHANGELING_LOOPS

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g, -16.0)
    [overseer] = w.spawn(129, 1, [x], [y]).tolist()
    g.step(2)
    assert act(g, 181, [overseer]) == SUCCESS  # (50 energy: it starts with 50)
    assert act(g, 181, [overseer]) == NOT_ENOUGH_ENERGY
    [changeling] = [u.tag for u in own(g, 12)]
    w.u.x[w.u.row(overseer)] = x - 14.0  # (the Overseer out of the marine's reach: the Changeling alone)
    [marine] = w.spawn(MARINE, 2, [x + 2.0], [y - 3.0]).tolist()
    assert w.commands.issue(2, 18, [marine], None, 0, False) == SUCCESS  # (on hold: it shoots what is in range)
    g.step(60)
    assert float(w.u.hp[w.u.row(changeling)]) == 5.0  # (LP:Changeling: 5 life; not shot)
    assert w.commands.issue(2, 23, [marine], None, changeling, False) == SUCCESS  # (ordered: it does)
    g.step(40)
    assert w.u.row(changeling) < 0
    w.abilities.energy[overseer] = (60.0, w.loop, 200.0)
    assert act(g, 1934, [overseer], pos=(x - 18.0, y)) == SUCCESS
    [second] = [u.tag for u in own(g, 12)]
    g.step(CHANGELING_LOOPS + 2)
    assert w.u.row(second) < 0  # (its 150 s are over)


def test_adrenal_glands_make_zerglings_attack_faster() -> None:
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g, -16.0)
    [ling] = w.spawn(ZERGLING, 1, [x], [y]).tolist()
    [depot] = w.spawn(19, 2, [x + 1.8], [y]).tolist()
    g.step(2)
    assert act(g, ATTACK, [ling], target=depot) == SUCCESS

    def dealt(loops: int) -> float:
        before = float(w.u.hp[w.u.row(depot)])
        g.step(loops)
        return before - float(w.u.hp[w.u.row(depot)])

    dealt(20)
    base = dealt(224)
    w.research.grant(1, 65)  # ZERGLINGATTACKSPEED
    dealt(12)
    fast = dealt(224)
    assert 1.25 < fast / base < 1.6  # 0.497 -> 0.35 faster seconds between attacks (LP:Zergling)


def test_transfusion_heals_75_at_once_then_50_over_time() -> None:
    from sc2pool.engine.sim.systems.zerg_spells import TRANSFUSE_LOOPS

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [queen] = w.spawn(126, 1, [x], [y]).tolist()
    [roach] = w.spawn(110, 1, [x + 2.0], [y]).tolist()
    g.step(2)
    w.abilities.energy[queen] = (60.0, w.loop, 200.0)
    w.u.hp[w.u.row(roach)] = 10.0
    assert act(g, 1664, [queen], target=roach) == SUCCESS
    g.step(1)
    first = float(w.u.hp[w.u.row(roach)])
    assert 85.0 <= first < 87.0  # 10 + 75 (and a loop of its own)
    g.step(TRANSFUSE_LOOPS + 2)
    assert 135.0 <= float(w.u.hp[w.u.row(roach)]) < 140.0  # + 50 over 7.14 s (LP:Queen)


def test_the_queen_waits_out_a_cooldown_between_transfusions_and_between_injects() -> None:
    """KB:LLM-PySC2: Transfusion's cooldown 1 faster second, Spawn Larva's 1.8."""
    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g, dy=-4.0)
    [queen] = w.spawn(126, 1, [x], [y]).tolist()
    roaches = w.spawn(110, 1, [x + 2.0, x - 2.0], [y, y]).tolist()
    g.step(2)
    w.abilities.energy[queen] = (200.0, w.loop, 200.0)
    for r in roaches:
        w.u.hp[w.u.row(r)] = 10.0

    def listed() -> list[int]:
        return [a.ability_id for a in g.query(1, _abilities_query(queen)).abilities[0].abilities]

    assert act(g, Z.TRANSFUSE, [queen], target=roaches[0]) == SUCCESS
    g.step(1)
    assert float(w.u.hp[w.u.row(roaches[0])]) > 80.0
    assert Z.TRANSFUSE not in listed() and Z.INJECT in listed()
    assert act(g, Z.TRANSFUSE, [queen], target=roaches[1]) == COOLDOWN
    g.step(Z.TRANSFUSE_COOLDOWN)
    assert Z.TRANSFUSE in listed()
    assert act(g, Z.TRANSFUSE, [queen], target=roaches[1]) == SUCCESS
    g.step(1)
    assert float(w.u.hp[w.u.row(roaches[1])]) > 80.0
    hatch = hatchery(g).tag
    assert act(g, Z.INJECT, [queen], target=hatch) == SUCCESS
    g.step(24)  # (it walks to the Hatchery and injects)
    assert Z.INJECT not in listed()
    assert act(g, Z.INJECT, [queen], target=hatch) == COOLDOWN
    g.step(Z.INJECT_COOLDOWN)
    assert Z.INJECT in listed()
    assert act(g, Z.INJECT, [queen], target=hatch) == SUCCESS


def test_a_bile_queued_behind_another_is_its_own_cast_and_is_dropped_on_cooldown() -> None:
    """The queued bile is accepted while the Ravager still walks (no cooldown yet) and is kept
    apart from the first; when its order comes up the cooldown runs, so it is dropped and the
    Ravager takes its next order (a move), rather than firing through the cooldown."""
    from sc2pool.engine.sim.systems.zerg_spells import BILE_COOLDOWN

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [ravager] = w.spawn(RAVAGER, 1, [x], [y]).tolist()
    g.step(1)
    first, second = (x + 14.0, y), (x + 14.0, y + 1.0)  # (out of range 9: it walks first)
    assert act(g, 2338, [ravager], pos=first) == SUCCESS
    assert act(g, 2338, [ravager], pos=second, queue=True) == SUCCESS
    assert act(g, 16, [ravager], pos=(x, y + 3.0), queue=True) == SUCCESS  # (MOVE_MOVE, then)
    assert [c.y for c in w.casting.queued[ravager]] == [second[1]]  # (not taken for the current one)
    landed: set[tuple[float, float]] = set()
    for _ in range(BILE_COOLDOWN + 100):
        g.step(1)
        landed |= {(b[1], b[2]) for b in w.zerg.spells.biles}
    assert landed == {first}  # (before: the first was aimed at the second's point, the second lost)
    r = w.u.row(ravager)
    assert abs(float(w.u.x[r]) - x) < 1.0 and abs(float(w.u.y[r]) - (y + 3.0)) < 1.0  # (its next order)


def test_corrosive_bile_destroys_the_force_field_it_lands_on() -> None:
    from sc2pool.engine.sim.systems.protoss_abilities import FIELD_RADIUS, Field
    from sc2pool.engine.sim.systems.zerg_spells import BILE_DELAY, BILE_RADIUS

    g = zerg_game()
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [ravager] = w.spawn(RAVAGER, 1, [x], [y]).tolist()
    hit, grazed, spared = (x + 7.0, y), (x + 7.0, y + FIELD_RADIUS + BILE_RADIUS - 0.1), (x + 7.0, y - FIELD_RADIUS - BILE_RADIUS - 0.1)
    end = w.loop + 1000
    w.protoss.fields += [Field(px, py, end) for px, py in (hit, grazed, spared)]
    g.step(1)
    assert act(g, 2338, [ravager], pos=hit) == SUCCESS
    g.step(BILE_DELAY + 2)
    assert [(f.x, f.y) for f in w.protoss.fields] == [spared]  # (the one the bile's circle misses stands)


def test_a_brood_lord_hit_leaves_broodlings_that_fight_and_expire() -> None:
    """Broodling Strike (LP:Brood_Lord_(Legacy_of_the_Void)): after a pause a Brood Lord shoots
    both Broodlings it carries, two hits of 20 and two Broodlings; firing on, one at a time; each
    Broodling attacks where it landed and dies 127 loops (5.71 faster s) later."""
    g = zerg_game()
    g.scenario.computers.clear()  # type: ignore[attr-defined]
    g.step(4)
    w = g.world
    x, y = _spot(g)
    [bl] = w.spawn(114, 1, [x], [y]).tolist()
    [depot] = w.spawn(19, 2, [x + 9.0], [y]).tolist()  # (a structure: it neither moves nor shoots)
    hp0 = float(w.u.hp[w.u.row(depot)])
    assert act(g, ATTACK, [bl], target=depot) == SUCCESS
    first: list[int] = []
    for _ in range(40):
        g.step(1)
        first = [int(t) for t in w.u.tag[w.u.unit_id == 289].tolist()]
        if first:
            break
    assert len(first) == 2  # (both escorts)
    lost = hp0 - float(w.u.hp[w.u.row(depot)])
    assert lost >= 2 * (20 - 1) - 1e-9  # (two hits of 20 less the depot's armor 1; their bites may add)
    born = w.loop
    for t in first:
        r = w.u.row(t)
        assert int(w.u.owner[r]) == 1 and np.hypot(float(w.u.x[r]) - (x + 9.0), float(w.u.y[r]) - y) < 3.0
    assert all(lc.orders and lc.orders[0].ability_id == ATTACK for lc in own(g, 289))
    g.step(60)  # (one more shot about every 40 loops: one Broodling each)
    later = set(int(t) for t in w.u.tag[w.u.unit_id == 289].tolist()) - set(first)
    assert 1 <= len(later) <= 2
    g.step(born + 127 + 1 - w.loop)
    assert not set(first) & set(int(t) for t in w.u.tag.tolist())  # (their 5.71 s are over)
