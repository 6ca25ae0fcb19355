"""Damage of every Zerg and Protoss weapon against each armor class and attribute (Light, Armored,
Biological, Mechanical, Massive, Structure; with shields and without, on the ground and in the
air) at weapon levels 0-3 and armor (and Protoss Shields) levels 0-3, as the real game computes it.

Against a target without shields, per shot::

    max(0.5, base + level * per_level + [bonus + level * bonus_per_level if the target has the
        bonus attribute] - (armor + armor_level)) * attacks

Against a shielded target every attack goes through the shields first (LP:Shields, LP:Damage):
it loses the shield armor (+1 per Protoss Shields level, at least 0.5 is left), the shields
absorb it, and what breaks through is reduced by the unit's armor (no minimum, as the attack
already did damage); once the shields are gone an attack hits life as above.  :func:`through`
is that rule written out attack by attack, independently of the engine.

The figures are entered here with their source: ``LP:<page>`` is the Liquipedia unit page
(https://liquipedia.net/starcraft2/<page>), whose weapon line "13 (+1) (+5 (+1) vs Armored)" gives
base, per level, bonus and bonus per level, "x2" the attacks; "client" is the real client's
``UnitTypeData`` (python-sc2's capture, ``data/client_data.json.gz``), which agrees on every base
figure (checked by the first test).  Armor levels: LP:Upgrades (+1 per level of Zerg Ground /
Flyer Carapace, Protoss Ground / Air Armor; Protoss Shields +1 shield armor per level, for units
and structures; Zerg and Protoss structures gain no armor).  The engine's answer is
``Combat.deal`` (one shot through the whole damage path) with the levels granted by
``systems/research.py``, and ``Combat.hit_damage`` for unshielded targets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from sc2pool.engine import data as D
from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.sim.units import TYPES
from sc2pool.engine.sim.world import World
from tests.engine.damage_table import duel, hit_damage, targets_for

LIGHT, ARMORED, BIOLOGICAL, MECHANICAL, MASSIVE, STRUCTURE = (D.LIGHT, D.ARMORED, D.BIOLOGICAL, D.MECHANICAL,
                                                             D.MASSIVE, D.STRUCTURE)
MELEE, MISSILE, FLYER = (53, 54, 55), (59, 60, 61), (68, 69, 70)
P_GROUND, P_AIR = (39, 40, 41), (78, 79, 80)
Z_GROUND_ARMOR, Z_FLYER_ARMOR = (56, 57, 58), (71, 72, 73)
P_GROUND_ARMOR, P_AIR_ARMOR, P_SHIELDS = (42, 43, 44), (81, 82, 83), (45, 46, 47)


@dataclass(frozen=True)
class Weapon:
    unit_id: int
    name: str
    hits: str
    """"ground", "air" or "both": the targets this weapon is fired at."""
    base: float
    attacks: int = 1
    bonus: tuple[tuple[int, float, float], ...] = ()
    """(attribute, bonus, bonus per level)."""
    per_level: float = 0.0
    family: tuple[int, ...] = ()
    """The weapon upgrades that raise it (empty: none do)."""
    src: str = ""


WEAPONS: tuple[Weapon, ...] = (
    # --- Zerg
    Weapon(104, "Drone", "ground", 5, src="LP:Drone 5 (no weapon upgrades); client"),
    Weapon(105, "Zergling", "ground", 5, per_level=1, family=MELEE, src="LP:Zergling 5 (+1); client"),
    Weapon(9, "Baneling", "ground", 16, bonus=((LIGHT, 19, 2), (STRUCTURE, 64, 3)), per_level=2, family=MELEE,
           src="LP:Baneling 16 (+2) (+19 (+2) vs Light), 80 (+5) vs structures (the client reports no weapon)"),
    Weapon(110, "Roach", "ground", 16, per_level=2, family=MISSILE, src="LP:Roach 16 (+2); client"),
    Weapon(688, "Ravager", "ground", 16, per_level=2, family=MISSILE, src="LP:Ravager 16 (+2); client"),
    Weapon(107, "Hydralisk", "both", 12, per_level=1, family=MISSILE, src="LP:Hydralisk 12 (+1); client"),
    Weapon(503, "Lurker (burrowed)", "ground", 20, bonus=((ARMORED, 10, 1),), per_level=2, family=MISSILE,
           src="LP:Lurker 20 (+2) (+10 (+1) vs Armored); client"),
    Weapon(109, "Ultralisk", "ground", 35, per_level=3, family=MELEE, src="LP:Ultralisk 35 (+3); client"),
    Weapon(126, "Queen (Talons, ground)", "ground", 4, attacks=2, per_level=1, family=MISSILE,
           src="LP:Queen 4 (+1) x2; client"),
    Weapon(126, "Queen (Acid Spines, air)", "air", 9, per_level=1, family=MISSILE, src="LP:Queen 9 (+1); client"),
    Weapon(108, "Mutalisk", "both", 9, per_level=1, family=FLYER, src="LP:Mutalisk 9 (+1) (first target); client"),
    Weapon(112, "Corruptor", "air", 14, bonus=((MASSIVE, 6, 1),), per_level=1, family=FLYER,
           src="LP:Corruptor 14 (+1) (+6 (+1) vs Massive); client"),
    Weapon(114, "Brood Lord", "ground", 20, per_level=2, family=FLYER, src="LP:Brood_Lord 20 (+2); client"),
    Weapon(289, "Broodling", "ground", 4, per_level=1, family=MELEE, src="LP:Broodling 4 (+1); client"),
    Weapon(489, "Locust", "ground", 10, per_level=1, family=MISSILE, src="LP:Locust 10 (+1); client"),
    Weapon(98, "Spine Crawler", "ground", 25, bonus=((ARMORED, 5, 0),), src="LP:Spine_Crawler 25 (+5 vs Armored); client"),
    Weapon(99, "Spore Crawler", "air", 15, bonus=((BIOLOGICAL, 15, 0),),
           src="LP:Spore_Crawler 15 (+15 vs Biological); client"),
    # --- Protoss
    Weapon(84, "Probe", "ground", 5, src="LP:Probe 5 (no weapon upgrades); client"),
    Weapon(73, "Zealot", "ground", 8, attacks=2, per_level=1, family=P_GROUND, src="LP:Zealot 8 (+1) x2; client"),
    Weapon(74, "Stalker", "both", 13, bonus=((ARMORED, 5, 1),), per_level=1, family=P_GROUND,
           src="LP:Stalker 13 (+1) (+5 (+1) vs Armored); client"),
    Weapon(311, "Adept", "ground", 10, bonus=((LIGHT, 12, 1),), per_level=1, family=P_GROUND,
           src="LP:Adept 10 (+1) (+12 (+1) vs Light); client"),
    Weapon(76, "Dark Templar", "ground", 45, per_level=5, family=P_GROUND, src="LP:Dark_Templar 45 (+5); client"),
    Weapon(141, "Archon", "both", 25, bonus=((BIOLOGICAL, 10, 1),), per_level=3, family=P_GROUND,
           src="LP:Archon 25 (+3) (+10 (+1) vs Biological); client"),
    Weapon(83, "Immortal", "ground", 20, bonus=((ARMORED, 30, 3),), per_level=2, family=P_GROUND,
           src="LP:Immortal 20 (+2) (+30 (+3) vs Armored); client"),
    Weapon(4, "Colossus", "ground", 10, attacks=2, bonus=((LIGHT, 5, 1),), per_level=1, family=P_GROUND,
           src="LP:Colossus 10 (+1) (+5 (+1) vs Light) x2; client"),
    Weapon(77, "Sentry", "ground", 6, per_level=1, family=P_GROUND,
           src="LP:Sentry 6 (+1) (the client reports no weapon)"),
    Weapon(78, "Phoenix", "air", 5, attacks=2, bonus=((LIGHT, 5, 0),), per_level=1, family=P_AIR,
           src="LP:Phoenix 5 (+1) (+5 vs Light) x2; client"),
    Weapon(80, "Void Ray", "both", 6, bonus=((ARMORED, 4, 0),), per_level=1, family=P_AIR,
           src="LP:Void_Ray 6 (+1) (+4 vs Armored) (the client reports no weapon)"),
    Weapon(496, "Tempest (Kinetic Overload, air)", "air", 30, bonus=((MASSIVE, 22, 2),), per_level=3, family=P_AIR,
           src="LP:Tempest 30 (+3) (+22 (+2) vs Massive); client"),
    Weapon(496, "Tempest (Resonance Coil, ground)", "ground", 40, per_level=4, family=P_AIR,
           src="LP:Tempest 40 (+4); client"),
    Weapon(85, "Interceptor", "both", 5, attacks=2, per_level=1, family=P_AIR, src="LP:Carrier 5 (+1) x2; client"),
    Weapon(10, "Mothership", "both", 6, attacks=6, per_level=1, family=P_AIR, src="LP:Mothership 6 (+1) x6; client"),
    Weapon(66, "Photon Cannon", "both", 20, src="LP:Photon_Cannon 20; client"),
)
"""Every Zerg and Protoss weapon (the client's, the Baneling's, the Void Ray's and the Sentry's
beams) but those whose upgrade steps the project has not entered (:data:`LEVEL_0_ONLY`)."""

LEVEL_0_ONLY: tuple[Weapon, ...] = (
    Weapon(75, "High Templar", "ground", 4, src="client (per level not known here)"),
    Weapon(495, "Oracle", "ground", 15, bonus=((LIGHT, 7, 0),), src="client (per level not known here)"),
)
"""Weapons the engine does not upgrade (``data.units`` enters no weapon family for them, (m));
checked unupgraded only."""


@dataclass(frozen=True)
class Target:
    unit_id: int
    name: str
    attributes: tuple[int, ...]
    armor: float
    shields: float
    armor_family: tuple[int, ...]
    src: str


TARGETS: tuple[Target, ...] = (
    Target(105, "Zergling", (LIGHT, BIOLOGICAL), 0, 0, Z_GROUND_ARMOR, "LP:Zergling; client"),
    Target(110, "Roach", (ARMORED, BIOLOGICAL), 1, 0, Z_GROUND_ARMOR, "LP:Roach; client"),
    Target(109, "Ultralisk", (ARMORED, BIOLOGICAL, MASSIVE), 2, 0, Z_GROUND_ARMOR,
           "LP:Ultralisk (without Chitinous Plating); client"),
    Target(86, "Hatchery", (ARMORED, BIOLOGICAL, STRUCTURE), 1, 0, (), "LP:Hatchery; client"),
    Target(48, "Marine", (LIGHT, BIOLOGICAL), 0, 0, (11, 12, 13), "LP:Marine; client"),
    Target(33, "Siege Tank", (ARMORED, MECHANICAL), 1, 0, (116, 117, 118), "LP:Siege_Tank; client"),
    Target(73, "Zealot", (LIGHT, BIOLOGICAL), 1, 50, P_GROUND_ARMOR, "LP:Zealot; client"),
    Target(74, "Stalker", (ARMORED, MECHANICAL), 1, 80, P_GROUND_ARMOR, "LP:Stalker; client"),
    Target(4, "Colossus", (ARMORED, MECHANICAL, MASSIVE), 1, 150, P_GROUND_ARMOR, "LP:Colossus; client"),
    Target(62, "Gateway", (ARMORED, STRUCTURE), 1, 500, (), "LP:Gateway; client"),
    Target(108, "Mutalisk", (LIGHT, BIOLOGICAL), 0, 0, Z_FLYER_ARMOR, "LP:Mutalisk; client"),
    Target(114, "Brood Lord", (ARMORED, BIOLOGICAL, MASSIVE), 1, 0, Z_FLYER_ARMOR, "LP:Brood_Lord; client"),
    Target(78, "Phoenix", (LIGHT, MECHANICAL), 0, 60, P_AIR_ARMOR, "LP:Phoenix; client"),
    Target(496, "Tempest", (ARMORED, MECHANICAL, MASSIVE), 2, 100, P_AIR_ARMOR, "LP:Tempest; client"),
    Target(55, "Banshee", (LIGHT, MECHANICAL), 0, 0, (116, 117, 118), "LP:Banshee; client"),
)
"""A target of every armor class (Zerg ground and air carapace, Protoss ground and air armor,
Terran infantry and vehicle plating, structures) and every attribute a Zerg or Protoss bonus
names, with shields and without, on the ground and in the air."""


def raw(wp: Weapon, t: Target, level: int) -> float:
    """Damage of one attack before armor."""
    dmg = wp.base + level * wp.per_level
    for attr, b, per in wp.bonus:
        if attr in t.attributes:
            dmg += b + level * per
    return dmg


def expected(wp: Weapon, t: Target, level: int, armor_level: int) -> float:
    """Life damage of one shot on the unshielded target."""
    return max(0.5, raw(wp, t, level) - (t.armor + armor_level)) * wp.attacks


def through(wp: Weapon, t: Target, level: int, armor_level: int, shields: float) -> tuple[float, float]:
    """(shields, life) one shot leaves the target with, starting at ``shields`` and full life;
    ``armor_level`` counts for both its armor and its Protoss Shields level (LP:Shields)."""
    life = float(D.unit_spec(t.unit_id).hp)
    armor = t.armor + (armor_level if t.armor_family else 0)
    shield_armor = armor_level
    dmg = raw(wp, t, level)
    for _ in range(wp.attacks):
        if shields > 0:
            d = max(0.5, dmg - shield_armor)
            absorbed = min(shields, d)
            shields -= absorbed
            if d > absorbed:
                life -= max(0.0, d - absorbed - armor)
        else:
            life -= max(0.5, dmg - armor)
    return shields, life


def _world(wp: Weapon, t: Target, level: int, armor_level: int) -> tuple[World, np.ndarray]:
    shields = P_SHIELDS[:armor_level] if t.shields else ()
    return duel(wp.unit_id, t.unit_id, wp.family[:level], (*t.armor_family[:armor_level], *shields),
                (wp.name, t.name))


def engine(wp: Weapon, t: Target, level: int, armor_level: int) -> float:
    """The engine's life damage of one shot on the target without its shields."""
    return hit_damage(*_world(wp, t, level, armor_level))


def engine_shot(wp: Weapon, t: Target, level: int, armor_level: int, shields: float) -> tuple[float, float]:
    """(shields, life) after one shot dealt through the engine's damage path."""
    w, rows = _world(wp, t, level, armor_level)
    tag = int(w.u.tag[rows[1]])
    w.u.shield[rows[1]] = shields
    w.combat.deal(rows[:1], rows[1:])
    r = w.u.row(tag)
    assert r >= 0, (wp.name, t.name, "died")
    return float(w.u.shield[r]), float(w.u.hp[r])


def _targets(wp: Weapon) -> list[Target]:
    return targets_for(wp.hits, TARGETS)


def test_the_tables_agree_with_the_client_on_every_base_figure() -> None:
    for wp in WEAPONS + LEVEL_0_ONLY:
        for t in _targets(wp):
            assert engine(wp, t, 0, 0) == expected(wp, t, 0, 0), (wp.name, t.name, wp.src)
    for t in TARGETS:
        s = D.unit_spec(t.unit_id)
        assert s.armor == t.armor and s.shield == t.shields and set(t.attributes) <= set(s.attributes), (t.name, t.src)


def test_every_zerg_and_protoss_weapon_is_in_the_table() -> None:
    # every Zerg and Protoss type whose weapon the engine fires (but modes that share a weapon)
    have = {wp.unit_id for wp in WEAPONS + LEVEL_0_ONLY}
    armed = {s.unit_id for s in TYPES.specs if s.race in (D.ZERG, D.PROTOSS) and s.weapons}
    assert armed - have == set()


@pytest.mark.parametrize("wp", WEAPONS, ids=[f"{w.unit_id}-{w.name}" for w in WEAPONS])
def test_damage_per_shot_at_every_weapon_and_armor_level(wp: Weapon) -> None:
    for t in _targets(wp):
        for level in range(4):
            for armor_level in range(len(t.armor_family) + 1):
                got = engine(wp, t, level, armor_level)
                assert got == expected(wp, t, level, armor_level), (wp.name, t.name, level, armor_level, wp.src, t.src)


@pytest.mark.parametrize("wp", WEAPONS, ids=[f"{w.unit_id}-{w.name}" for w in WEAPONS])
def test_shielded_targets_at_every_weapon_armor_and_shield_level(wp: Weapon) -> None:
    # full shields (the shot stays in them), a sliver (it breaks through), none (life only)
    for t in _targets(wp):
        if not t.shields:
            continue
        for level in range(4):
            for armor_level in range(4):
                for shields in (t.shields, 1.0, 0.0):
                    got = engine_shot(wp, t, level, armor_level, shields)
                    want = through(wp, t, level, armor_level, shields)
                    assert got == pytest.approx(want, abs=1e-9), (wp.name, t.name, level, armor_level, shields)


def test_shield_figures_worked_by_hand() -> None:
    # LP:Shields: a Zealot's two 8-damage blades on a Zealot with 5 shields and 1 armor: the
    # first blade loses 5 to the shields and 3 - 1 = 2 to life, the second 8 - 1 = 7 to life
    zealot = next(w for w in WEAPONS if w.unit_id == 73)
    tz = next(t for t in TARGETS if t.unit_id == 73)
    assert through(zealot, tz, 0, 0, 5.0) == (0.0, 100.0 - 2 - 7)
    assert engine_shot(zealot, tz, 0, 0, 5.0) == (0.0, 91.0)
    # Protoss Shields 3: a Zergling's 5 loses 3 to shield armor: 2 per hit
    ling = next(w for w in WEAPONS if w.unit_id == 105)
    assert engine_shot(ling, tz, 0, 3, 50.0) == (48.0, 100.0)
    # a Zergling vs Shields 3 and a sliver of 1 shield: 2 after shield armor, 1 absorbed, the 1
    # through is less than the Zealot's armor 1 + 3: no life lost
    assert engine_shot(ling, tz, 0, 3, 1.0) == (0.0, 100.0)


def test_the_minimum_is_half_a_point_per_attack() -> None:
    queen = next(w for w in WEAPONS if w.name.startswith("Queen (Talons"))
    ultra = next(t for t in TARGETS if t.unit_id == 109)
    assert expected(queen, ultra, 0, 3) == 0.5 * 2  # 4 - 5 armor: 0.5 per attack
    assert engine(queen, ultra, 0, 3) == 1.0


def _splash_damage(attacker: int, target_xy: tuple[float, float],
                   others: list[tuple[int, int, float, float]]) -> dict[int, float]:
    """Life damage each unit takes from one shot of ``attacker`` (player 1 at (20, 20)) at a
    Zergling of player 2 at ``target_xy``; ``others``: (type, owner, x, y) around."""
    w = World(SKIRMISH)
    [a] = w.spawn(attacker, 1, [20.0], [20.0])
    [t] = w.spawn(105, 2, [target_xy[0]], [target_xy[1]])
    tags = [int(w.spawn(uid, owner, [x], [y])[0]) for uid, owner, x, y in others]
    before = {int(tag): float(w.u.hp[w.u.row(tag)]) for tag in [t, *tags]}
    rows = w.u.rows(np.array([a, t]))
    w.combat.deal(rows[:1], rows[1:], extra=True)
    out = {}
    for i, tag in enumerate([t, *tags]):
        r = w.u.row(tag)
        out[i] = before[tag] - (float(w.u.hp[r]) if r >= 0 else 0.0)
    return out


def test_mutalisk_glaives_bounce_twice_a_third_each() -> None:
    # LP:Mutalisk: 9, then 3, then 1 (armor 0 Marines); the fourth Marine is not hit
    got = _splash_damage(108, (22.0, 20.0), [(48, 2, 23.0, 20.0), (48, 2, 24.0, 20.0), (48, 2, 25.0, 20.0)])
    assert got == {0: 9.0, 1: 3.0, 2: 1.0, 3: 0.0}


def test_archon_splash_rings_spare_friends() -> None:
    # LP:Archon: 100% within 0.25, 50% to 0.5, 25% to 1 (edge distance); 25 + 10 vs Biological
    got = _splash_damage(141, (22.0, 20.0), [(105, 2, 22.5, 20.0), (105, 2, 22.8, 20.0), (105, 2, 23.3, 20.0),
                                              (105, 2, 24.0, 20.0), (105, 1, 22.0, 20.6)])
    assert got == {0: 35.0, 1: 35.0, 2: 17.5, 3: 8.75, 4: 0.0, 5: 0.0}


def test_lurker_spines_hit_the_enemies_in_a_line() -> None:
    got = _splash_damage(503, (24.0, 20.0), [(105, 2, 26.0, 20.2), (105, 2, 28.5, 20.0), (105, 2, 30.0, 20.0),
                                              (105, 2, 26.0, 22.0), (105, 1, 27.0, 20.0)])
    assert got == {0: 20.0, 1: 20.0, 2: 20.0, 3: 0.0, 4: 0.0, 5: 0.0}


def test_colossus_lances_sweep_across_the_target() -> None:
    got = _splash_damage(4, (26.0, 20.0), [(105, 2, 26.0, 20.9), (105, 2, 26.5, 19.2), (105, 2, 27.0, 20.0)])
    assert got == {0: 30.0, 1: 30.0, 2: 30.0, 3: 0.0}


def test_baneling_blast_hurts_structures_and_not_friends() -> None:
    w = World(SKIRMISH)
    [b] = w.spawn(9, 1, [20.0], [20.0])
    [h] = w.spawn(86, 2, [22.5], [20.0])
    [ling] = w.spawn(105, 2, [20.5], [20.0])
    [friend] = w.spawn(105, 1, [19.5], [20.0])
    damage = np.zeros(len(w.u))
    died = np.zeros(len(w.u), dtype=bool)
    w.combat._explode(w.u.rows(np.array([b])), damage, died)
    w.combat.deaths(damage, died)
    assert w.u.row(b) < 0 and w.u.row(ling) < 0  # 16 + 19 vs Light kills a Zergling
    assert float(w.u.hp[w.u.row(h)]) == 1500 - (80 - 1)  # LP:Baneling: 80 vs structures, armor 1
    assert float(w.u.hp[w.u.row(friend)]) == 35.0


def _fight(w: World, loops: int) -> None:
    end = w.loop + loops
    while w.loop < end:
        w.advance(1)


def test_in_a_fight_the_glaives_bounce_and_the_shields_go_first() -> None:
    # the whole loop (targeting, fire, deaths): a Mutalisk's first shot hits three Marines 9/3/1
    w = World(SKIRMISH)
    [muta] = w.spawn(108, 1, [20.0], [20.0])
    marines = [int(t) for t in w.spawn(48, 2, [22.0, 22.6, 23.2], [20.0, 20.0, 20.0])]
    lost = []
    for _ in range(20):
        _fight(w, 1)
        lost = sorted(45.0 - float(w.u.hp[w.u.row(t)]) for t in marines)
        if any(lost):
            break
    assert lost == [1.0, 3.0, 9.0]
    assert w.u.row(muta) >= 0
    # Zerglings on a Zealot: its shields go before its life, 5 a bite (armor does not apply to shields)
    w = World(SKIRMISH)
    [zealot] = w.spawn(73, 2, [20.0], [20.0])
    w.spawn(105, 1, [21.0, 21.0], [19.6, 20.4])
    seen = []
    for _ in range(200):
        _fight(w, 1)
        r = w.u.row(zealot)
        if r < 0:
            break
        seen.append((float(w.u.shield[r]), float(w.u.hp[r])))
    shields = [s for s, _ in seen]
    assert shields[0] <= 50.0 and min(shields) == 0.0
    assert all(hp == 100.0 for s, hp in seen if s > 0)  # no life lost while shields stand
    assert all((50.0 - s) % 5 == 0 for s in shields if s > 0)
