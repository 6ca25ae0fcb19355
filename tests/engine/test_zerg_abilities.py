"""Zerg units' abilities in a melee game on a ladder map, through the Game API: Banelings'
explosions, Lurkers burrowing, Ravagers' Corrosive Bile, Infestors' Fungal Growth."""

from __future__ import annotations

from typing import Any

from test_zerg_economy import act, hatchery, own, rich, zerg_game

from sc2pool.engine.game import Game

SUCCESS, TECH, NOT_ENOUGH_ENERGY, COOLDOWN = 1, 79, 17, 6
ZERGLING, BANELING, LURKER, LURKER_BURROWED, MARINE, RAVAGER, INFESTOR = 105, 9, 502, 503, 48, 688, 111
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
    g.step(20)
    lk = _unit(g, lurker)
    assert lk.unit_type == LURKER_BURROWED and lk.is_burrowed
    assert act(g, 1, [lurker], pos=(x + 5.0, y)) in (SUCCESS, 3, 2)
    g.step(40)
    lk = _unit(g, lurker)
    assert (lk.pos.x, lk.pos.y) == (x, y) or abs(lk.pos.x - x) < 0.01
    assert act(g, 2110, [lurker]) == SUCCESS
    g.step(20)
    assert _unit(g, lurker).unit_type == LURKER
