"""Cloak and detection (``sim/systems/detection.py``): a cloaked unit cannot be seen or attacked
by a player without detection; a Missile Turret or a Scanner Sweep detects it; what each player's
observation reports of it."""

from __future__ import annotations

from typing import Any

from test_economy import unit, units
from test_research import burny
from test_terran_abilities import BANSHEE, BANSHEECLOAK, CLOAK_ON, SCAN, orbital
from test_terran_tech import act, rich_eco

from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems.detection import DETECT_RANGE
from sc2pool.engine.sim.units import TYPES

TURRET, VIKING = 23, 35


def cloaked_enemy(g: Any, w: Any, x: float = 30.0, y: float = 30.0) -> tuple[int, int]:
    """Player 2's cloaked Banshee at (x + 4, y), player 1's Viking at (x, y) (an anti-air unit the
    Banshee cannot shoot back at)."""
    [viking] = w.spawn(VIKING, 1, [x], [y]).tolist()
    [b] = w.spawn(BANSHEE, 2, [x + 4.0], [y]).tolist()
    w.research.grant(2, BANSHEECLOAK)
    assert w.command(2, CLOAK_ON, [b], None, 0, False) == C.SUCCESS
    return viking, b


def seen(g: Any, tag: int) -> bool:
    return any(x.tag == tag for x in units(g))


def test_a_cloaked_banshee_is_neither_seen_nor_attacked_without_detection() -> None:
    g, w = rich_eco()
    viking, b = cloaked_enemy(g, w)
    hp = w.u.hp[w.u.row(b)]
    g.step(64)
    assert w.u.hp[w.u.row(b)] == hp  # the Viking does not acquire it
    assert not seen(g, b)  # nor does player 1's observation list it (s2client-proto #21)
    assert act(g, 23, [viking], target=b) == C.CANT_TARGET_THAT_UNIT  # an attack order on it


def test_a_missile_turret_detects_it_and_the_viking_attacks() -> None:
    g, w = rich_eco()
    viking, b = cloaked_enemy(g, w)
    g.step(16)
    assert not seen(g, b)
    assert DETECT_RANGE[TYPES.row(TURRET)] == 11.0  # LP:Missile_Turret
    turret = w.construction.add_structure(TURRET, 1, 24.0, 30.0)  # its centre 10 from the Banshee
    hp = w.u.hp[w.u.row(b)]
    g.step(64)
    got = unit(g, b)
    assert got.cloak == 2  # CloakedDetected
    assert w.u.hp[w.u.row(b)] < hp  # the Viking (and the turret) shoot it
    assert unit(g, turret).detect_range == 11.0
    from sc2.ids.unit_typeid import UnitTypeId

    bot = burny(g)
    enemy = bot.enemy_units(UnitTypeId.BANSHEE).first
    assert enemy.is_cloaked and enemy.is_revealed and enemy.can_be_attacked


def test_a_viking_attacking_a_banshee_loses_it_when_it_cloaks() -> None:
    g, w = rich_eco()
    [viking] = w.spawn(VIKING, 1, [30.0], [30.0]).tolist()
    [b] = w.spawn(BANSHEE, 2, [34.0], [30.0]).tolist()
    g.step(1)
    assert act(g, 23, [viking], target=b) == C.SUCCESS
    g.step(32)
    hp = w.u.hp[w.u.row(b)]
    assert hp < 140.0
    w.research.grant(2, BANSHEECLOAK)
    assert w.command(2, CLOAK_ON, [b], None, 0, False) == C.SUCCESS
    g.step(64)
    assert w.u.hp[w.u.row(b)] == hp
    assert not unit(g, viking).orders  # its attack order is done


def test_a_scanner_sweep_detects_for_its_duration() -> None:
    g, w = rich_eco()
    cc = orbital(g, w)
    viking, b = cloaked_enemy(g, w)
    g.step(16)
    hp = w.u.hp[w.u.row(b)]
    assert act(g, SCAN, [cc], (34.0, 30.0)) == C.SUCCESS
    g.step(32)
    assert unit(g, b).cloak == 2
    assert w.u.hp[w.u.row(b)] < hp
    g.step(300)  # the scan is over (275 loops)
    hp = w.u.hp[w.u.row(b)]
    g.step(64)
    assert not seen(g, b) and w.u.hp[w.u.row(b)] == hp
    del viking


def test_a_burrowed_widow_mine_needs_detection_too() -> None:
    g, w = rich_eco()
    [marine] = w.spawn(48, 1, [30.0], [30.0]).tolist()
    [mine] = w.spawn(500, 2, [33.0], [30.0]).tolist()  # WidowMineBurrowed (data.units: burrowed)
    w.casting.start_cooldown(mine, 2099, 1 << 20)  # (it has just fired and is rearming: the Marine lives)
    g.step(64)
    assert w.u.hp[w.u.row(mine)] == 90.0 and not seen(g, mine)
    w.construction.add_structure(TURRET, 1, 26.0, 30.0)
    g.step(64)
    assert unit(g, mine).cloak == 2 and w.u.hp[w.u.row(mine)] < 90.0
    del marine
