"""The tech tree: what each production ability does, who can use it, what it makes and requires.

The command path looks an ability up here to know which system carries it out; production,
construction and research systems read the costs, times, producers and requirements.

Format
------
The tables below are entered by hand, one row per ability, and name only ids: an ability, the unit
types that can use it, and what it makes.  Everything the client's ``ResponseData`` knows (costs,
build and research times, supply, the product's tech requirement and add-on requirement, tech
aliases, generic remaps) is read from :mod:`sc2pool.engine.data.client` when the lookups are first
used, so it is the real client's figure by construction.  Requirements the client does not report
are entered here with their source (``_REQUIRES``, ``_RESEARCH``).

Lookups (built lazily, once; each maps an ability id to a frozen spec):

``TRAIN[ability] -> TrainSpec``
    a unit made by a producer: queued in a structure (``how="queue"``), morphed from a larva
    (``"larva"``, the larva becomes an egg), warped in by a warp gate (``"warp"``), or built in a
    carrier's hangar / a ghost academy's silo (``"hangar"``, ``"silo"``).
``BUILD[ability] -> BuildSpec``
    a structure placed by a builder; ``how`` is the race's way: ``"terran"`` (the SCV stays and
    constructs), ``"zerg"`` (the drone is consumed), ``"protoss"`` (the probe starts a warp-in and
    leaves), or a special maker (``"nydus"``, ``"tumor"``, ``"summon"``).
``ADDON[ability] -> AddonSpec``
    a tech lab or reactor built onto a Barracks, Factory or Starport.
``MORPH[ability] -> MorphSpec``
    a type that becomes another: ``kind="upgrade"`` (a structure upgrades in place: CC -> Orbital,
    Hatchery -> Lair, Gateway -> WarpGate), ``"unit"`` (through a cocoon: Zergling -> Baneling,
    Roach -> Ravager, Overlord -> Overseer), ``"merge"`` (two templar -> Archon), ``"mode"``
    (siege, burrow, lower, phasing, uproot, ... both ways), ``"lift"`` / ``"land"``.
``RESEARCH[ability] -> ResearchSpec``
    an upgrade researched in a structure, with the client's cost and time.

Functions: :func:`requirements` (of a unit type or an upgrade), :func:`producers_of` (who makes a
unit type, and with which ability), :func:`satisfies` (the types that count for a requirement: a
Lair or Hive counts as a Hatchery), :func:`generic` and :func:`specific` (the client's ability
remaps, e.g. ``ATTACK_ATTACK`` 23 -> ``ATTACK`` 3674).

Sources: the client's ``ResponseData`` (see above); Liquipedia (``LP:<page>``,
https://liquipedia.net/starcraft2/<page>) for who uses which ability and for the requirements the
client does not report; burnysc2's generated dicts (``sc2.dicts``, from a 5.0.3 real client's
command cards) are compared with these tables by ``tests/engine/data/test_data_tech.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from sc2pool.engine.data import client as _client

# Unit type ids used below (the client's; burnysc2's UnitTypeId spells them).
SCV, DRONE, PROBE, LARVA, QUEEN = 45, 104, 84, 151, 126
CC, ORBITAL, PF, CC_FLY, ORBITAL_FLY = 18, 132, 130, 36, 134
DEPOT, DEPOT_LOWERED, BARRACKS, FACTORY, STARPORT = 19, 47, 21, 27, 28
BARRACKS_FLY, FACTORY_FLY, STARPORT_FLY = 46, 43, 44
EBAY, ARMORY, FUSIONCORE, GHOSTACADEMY, TECHLAB, REACTOR = 22, 29, 30, 26, 5, 6
BARRACKS_TECHLAB, FACTORY_TECHLAB, STARPORT_TECHLAB = 37, 39, 41
HATCHERY, LAIR, HIVE, POOL, EVO, ROACHWARREN, BANENEST = 86, 100, 101, 89, 90, 97, 96
HYDRADEN, LURKERDEN, INFESTPIT, SPIRE, GREATERSPIRE, ULTRACAVERN, NYDUS = 91, 504, 94, 92, 102, 93, 95
NEXUS, GATEWAY, WARPGATE, FORGE, CYBERCORE, TWILIGHT = 59, 62, 133, 63, 72, 65
STARGATE, ROBO, ROBOBAY, FLEETBEACON, TEMPLARARCHIVE, DARKSHRINE = 67, 71, 70, 64, 68, 69

_TRAIN: tuple[tuple[int, int, tuple[int, ...], str], ...] = (
    # (ability, product, producers, how).  Producers: LP:<producer>.
    (524, 45, (CC, ORBITAL, PF), "queue"),
    (560, 48, (BARRACKS,), "queue"), (561, 49, (BARRACKS,), "queue"), (562, 50, (BARRACKS,), "queue"),
    (563, 51, (BARRACKS,), "queue"),
    (591, 33, (FACTORY,), "queue"), (594, 52, (FACTORY,), "queue"), (595, 53, (FACTORY,), "queue"),
    (596, 484, (FACTORY,), "queue"), (597, 692, (FACTORY,), "queue"), (614, 498, (FACTORY,), "queue"),
    (620, 54, (STARPORT,), "queue"), (621, 55, (STARPORT,), "queue"), (622, 56, (STARPORT,), "queue"),
    (623, 57, (STARPORT,), "queue"), (624, 35, (STARPORT,), "queue"), (626, 689, (STARPORT,), "queue"),
    (710, 58, (GHOSTACADEMY,), "silo"),
    (1006, 84, (NEXUS,), "queue"), (110, 10, (NEXUS,), "queue"),
    (916, 73, (GATEWAY,), "queue"), (917, 74, (GATEWAY,), "queue"), (919, 75, (GATEWAY,), "queue"),
    (920, 76, (GATEWAY,), "queue"), (921, 77, (GATEWAY,), "queue"), (922, 311, (GATEWAY,), "queue"),
    (1413, 73, (WARPGATE,), "warp"), (1414, 74, (WARPGATE,), "warp"), (1416, 75, (WARPGATE,), "warp"),
    (1417, 76, (WARPGATE,), "warp"), (1418, 77, (WARPGATE,), "warp"), (1419, 311, (WARPGATE,), "warp"),
    (946, 78, (STARGATE,), "queue"), (948, 79, (STARGATE,), "queue"), (950, 80, (STARGATE,), "queue"),
    (954, 495, (STARGATE,), "queue"), (955, 496, (STARGATE,), "queue"),
    (976, 81, (ROBO,), "queue"), (977, 82, (ROBO,), "queue"), (978, 4, (ROBO,), "queue"),
    (979, 83, (ROBO,), "queue"), (994, 694, (ROBO,), "queue"),
    (1042, 85, (79,), "hangar"),
    (1632, 126, (HATCHERY, LAIR, HIVE), "queue"),
    (1342, 104, (LARVA,), "larva"), (1343, 105, (LARVA,), "larva"), (1344, 106, (LARVA,), "larva"),
    (1345, 107, (LARVA,), "larva"), (1346, 108, (LARVA,), "larva"), (1348, 109, (LARVA,), "larva"),
    (1351, 110, (LARVA,), "larva"), (1352, 111, (LARVA,), "larva"), (1353, 112, (LARVA,), "larva"),
    (1354, 499, (LARVA,), "larva"), (1356, 494, (LARVA,), "larva"),
)
_COUNT = {1343: 2}
"""Units made per order: a larva hatches two Zerglings (LP:Zergling)."""
_TIME = {710: 960.0, 1042: 246.0}
"""Game loops where the client reports a build time of 0: arming a nuke takes 43 faster seconds
(LP:Ghost_Academy, 60 normal seconds); an interceptor 11 faster seconds (LP:Carrier, (m): rounded
to whole loops)."""

_BUILD: tuple[tuple[int, int, tuple[int, ...], str], ...] = (
    # (ability, structure, builders, how).  LP:SCV, LP:Drone, LP:Probe, LP:Nydus_Network, LP:Queen,
    # LP:Creep_Tumor, LP:Oracle.
    (318, 18, (SCV,), "terran"), (319, 19, (SCV,), "terran"), (320, 20, (SCV,), "terran"),
    (321, 21, (SCV,), "terran"), (322, 22, (SCV,), "terran"), (323, 23, (SCV,), "terran"),
    (324, 24, (SCV,), "terran"), (325, 1943, (SCV,), "terran"), (326, 25, (SCV,), "terran"),
    (327, 26, (SCV,), "terran"), (328, 27, (SCV,), "terran"), (329, 28, (SCV,), "terran"),
    (331, 29, (SCV,), "terran"), (333, 30, (SCV,), "terran"),
    (1152, 86, (DRONE,), "zerg"), (1154, 88, (DRONE,), "zerg"), (1155, 89, (DRONE,), "zerg"),
    (1156, 90, (DRONE,), "zerg"), (1157, 91, (DRONE,), "zerg"), (1158, 92, (DRONE,), "zerg"),
    (1159, 93, (DRONE,), "zerg"), (1160, 94, (DRONE,), "zerg"), (1161, 95, (DRONE,), "zerg"),
    (1162, 96, (DRONE,), "zerg"), (1163, 504, (DRONE,), "zerg"), (1165, 97, (DRONE,), "zerg"),
    (1166, 98, (DRONE,), "zerg"), (1167, 99, (DRONE,), "zerg"),
    (880, 59, (PROBE,), "protoss"), (881, 60, (PROBE,), "protoss"), (882, 61, (PROBE,), "protoss"),
    (883, 62, (PROBE,), "protoss"), (884, 63, (PROBE,), "protoss"), (885, 64, (PROBE,), "protoss"),
    (886, 65, (PROBE,), "protoss"), (887, 66, (PROBE,), "protoss"), (889, 67, (PROBE,), "protoss"),
    (890, 68, (PROBE,), "protoss"), (891, 69, (PROBE,), "protoss"), (892, 70, (PROBE,), "protoss"),
    (893, 71, (PROBE,), "protoss"), (894, 72, (PROBE,), "protoss"), (895, 1910, (PROBE,), "protoss"),
    (1768, 142, (NYDUS,), "nydus"),
    (1694, 138, (QUEEN,), "tumor"), (1733, 87, (87, 137), "tumor"),
    (2505, 732, (495,), "summon"),
)
_RICH_GEYSER = {88: 1995, 61: 1994}
"""On a rich vespene geyser the same build ability makes the rich form (LP:Vespene_Gas); Terran
has its own ability for it (325 -> RefineryRich)."""
_BUILDER_CONSUMED = {"zerg"}

_ADDON: tuple[tuple[int, int, int], ...] = (
    # (ability, add-on, structure).  LP:Tech_Lab, LP:Reactor.
    (421, BARRACKS_TECHLAB, BARRACKS), (422, 38, BARRACKS),
    (454, FACTORY_TECHLAB, FACTORY), (455, 40, FACTORY),
    (487, STARPORT_TECHLAB, STARPORT), (488, 42, STARPORT),
)

_MORPH: tuple[tuple[int, tuple[int, ...], int, str], ...] = (
    # (ability, from types, into, kind).  LP:<unit>.
    (1516, (CC,), ORBITAL, "upgrade"), (1450, (CC,), PF, "upgrade"),
    (1216, (HATCHERY,), LAIR, "upgrade"), (1218, (LAIR,), HIVE, "upgrade"),
    (1220, (SPIRE,), GREATERSPIRE, "upgrade"), (1518, (GATEWAY,), WARPGATE, "upgrade"),
    (1520, (WARPGATE,), GATEWAY, "upgrade"),
    (4431, (105,), 9, "unit"), (2330, (110,), 688, "unit"), (2332, (107,), 502, "unit"),
    (1372, (112,), 114, "unit"), (1448, (106, 893), 129, "unit"), (2708, (106,), 893, "unit"),
    (1766, (75, 76), 141, "merge"),
    (388, (33,), 32, "mode"), (390, (32,), 33, "mode"),
    (403, (35,), 34, "mode"), (405, (34,), 35, "mode"),
    (556, (DEPOT,), DEPOT_LOWERED, "mode"), (558, (DEPOT_LOWERED,), DEPOT, "mode"),
    (1528, (81,), 136, "mode"), (1530, (136,), 81, "mode"),
    (2362, (52,), 691, "mode"), (2364, (691,), 52, "mode"),
    (2558, (689,), 734, "mode"), (2560, (734,), 689, "mode"),
    (1998, (53,), 484, "mode"), (1978, (484,), 53, "mode"),
    (3741, (82,), 1911, "mode"), (3739, (1911,), 82, "mode"),
    (3743, (129,), 1912, "mode"), (3745, (1912,), 129, "mode"),
    (1725, (98,), 139, "mode"), (1729, (139,), 98, "mode"),
    (1727, (99,), 140, "mode"), (1731, (140,), 99, "mode"),
    (1374, (9,), 115, "mode"), (1376, (115,), 9, "mode"),
    (1378, (104,), 116, "mode"), (1380, (116,), 104, "mode"),
    (1382, (107,), 117, "mode"), (1384, (117,), 107, "mode"),
    (1386, (110,), 118, "mode"), (1388, (118,), 110, "mode"),
    (1390, (105,), 119, "mode"), (1392, (119,), 105, "mode"),
    (1433, (126,), 125, "mode"), (1435, (125,), 126, "mode"),
    (1444, (111,), 127, "mode"), (1446, (127,), 111, "mode"),
    (1512, (109,), 131, "mode"), (1514, (131,), 109, "mode"),
    (2340, (688,), 690, "mode"), (2342, (690,), 688, "mode"),
    (2108, (502,), 503, "mode"), (2110, (503,), 502, "mode"),
    (2014, (494,), 493, "mode"), (2016, (493,), 494, "mode"),
    (2095, (498,), 500, "mode"), (2097, (500,), 498, "mode"),
    (1662, (87,), 137, "mode"),
    (417, (CC,), CC_FLY, "lift"), (419, (CC_FLY,), CC, "land"),
    (1522, (ORBITAL,), ORBITAL_FLY, "lift"), (1524, (ORBITAL_FLY,), ORBITAL, "land"),
    (452, (BARRACKS,), BARRACKS_FLY, "lift"), (554, (BARRACKS_FLY,), BARRACKS, "land"),
    (485, (FACTORY,), FACTORY_FLY, "lift"), (520, (FACTORY_FLY,), FACTORY, "land"),
    (518, (STARPORT,), STARPORT_FLY, "lift"), (522, (STARPORT_FLY,), STARPORT, "land"),
)
_COCOON = {4431: 8, 2330: 687, 2332: 501, 1372: 113, 1448: 128, 2708: 892}
"""The cocoon a unit morph passes through (LP:Baneling, LP:Ravager, LP:Lurker, LP:Brood_Lord,
LP:Overseer, LP:Overlord)."""
_MORPH_COST = {2708: (25, 25)}
"""Where the product's cost less its source's is not the morph's price: an Overlord becomes a
Transport Overlord for 25/25 (LP:Overlord; patch 4.11 notes), the client's unit costs say 100 vs 100."""
_FREE_MORPHS = {"mode", "lift", "land", "merge"}
"""Kinds that cost nothing (the Archon's cost is its two templar's)."""
_BURROW = 64
_NEEDS_BURROW = {1374, 1378, 1382, 1386, 1390, 1433, 1444, 1512, 2340, 2014}
"""Burrowing needs the Burrow research, but for the Lurker, Swarm Host and Widow Mine, which
burrow without it (LP:Burrow)."""

_RESEARCH: tuple[tuple[int, tuple[int, ...], int, int], ...] = (
    # (upgrade, researchers, required structure, required upgrade).  What is on each structure's
    # command card in the 5.0.11 melee game: LP:<structure>, LP:Upgrades.
    (5, (EBAY,), 0, 0), (6, (EBAY,), 0, 0),
    (7, (EBAY,), 0, 0), (8, (EBAY,), ARMORY, 7), (9, (EBAY,), ARMORY, 8),
    (11, (EBAY,), 0, 0), (12, (EBAY,), ARMORY, 11), (13, (EBAY,), ARMORY, 12),
    (30, (ARMORY,), 0, 0), (31, (ARMORY,), 0, 30), (32, (ARMORY,), 0, 31),
    (36, (ARMORY,), 0, 0), (37, (ARMORY,), 0, 36), (38, (ARMORY,), 0, 37),
    (116, (ARMORY,), 0, 0), (117, (ARMORY,), 0, 116), (118, (ARMORY,), 0, 117),
    (15, (BARRACKS_TECHLAB,), 0, 0), (16, (BARRACKS_TECHLAB,), 0, 0), (17, (BARRACKS_TECHLAB,), 0, 0),
    (19, (FACTORY_TECHLAB,), 0, 0), (122, (FACTORY_TECHLAB,), ARMORY, 0), (144, (FACTORY_TECHLAB,), 0, 0),
    (289, (FACTORY_TECHLAB,), ARMORY, 0),
    (20, (STARPORT_TECHLAB,), 0, 0), (136, (STARPORT_TECHLAB,), 0, 0), (22, (STARPORT_TECHLAB,), 0, 0),
    (76, (FUSIONCORE,), 0, 0), (139, (FUSIONCORE,), 0, 0), (140, (FUSIONCORE,), 0, 0),
    (25, (GHOSTACADEMY,), 0, 0), (297, (GHOSTACADEMY,), 0, 0),
    (62, (HATCHERY, LAIR, HIVE), 0, 0), (64, (HATCHERY, LAIR, HIVE), 0, 0),
    (66, (POOL,), 0, 0), (65, (POOL,), HIVE, 0),
    (53, (EVO,), 0, 0), (54, (EVO,), LAIR, 53), (55, (EVO,), HIVE, 54),
    (56, (EVO,), 0, 0), (57, (EVO,), LAIR, 56), (58, (EVO,), HIVE, 57),
    (59, (EVO,), 0, 0), (60, (EVO,), LAIR, 59), (61, (EVO,), HIVE, 60),
    (2, (ROACHWARREN,), LAIR, 0), (3, (ROACHWARREN,), LAIR, 0),
    (75, (BANENEST,), LAIR, 0),
    (134, (HYDRADEN,), 0, 0), (135, (HYDRADEN,), 0, 0),
    (293, (LURKERDEN,), HIVE, 0), (127, (LURKERDEN,), HIVE, 0),
    (101, (INFESTPIT,), 0, 0),
    (68, (SPIRE, GREATERSPIRE), 0, 0), (69, (SPIRE, GREATERSPIRE), LAIR, 68), (70, (SPIRE, GREATERSPIRE), HIVE, 69),
    (71, (SPIRE, GREATERSPIRE), 0, 0), (72, (SPIRE, GREATERSPIRE), LAIR, 71), (73, (SPIRE, GREATERSPIRE), HIVE, 72),
    (4, (ULTRACAVERN,), 0, 0), (88, (ULTRACAVERN,), 0, 0),
    (39, (FORGE,), 0, 0), (40, (FORGE,), TWILIGHT, 39), (41, (FORGE,), TWILIGHT, 40),
    (42, (FORGE,), 0, 0), (43, (FORGE,), TWILIGHT, 42), (44, (FORGE,), TWILIGHT, 43),
    (45, (FORGE,), 0, 0), (46, (FORGE,), TWILIGHT, 45), (47, (FORGE,), TWILIGHT, 46),
    (78, (CYBERCORE,), 0, 0), (79, (CYBERCORE,), FLEETBEACON, 78), (80, (CYBERCORE,), FLEETBEACON, 79),
    (81, (CYBERCORE,), 0, 0), (82, (CYBERCORE,), FLEETBEACON, 81), (83, (CYBERCORE,), FLEETBEACON, 82),
    (84, (CYBERCORE,), 0, 0),
    (86, (TWILIGHT,), 0, 0), (87, (TWILIGHT,), 0, 0), (130, (TWILIGHT,), 0, 0),
    (52, (TEMPLARARCHIVE,), 0, 0), (141, (DARKSHRINE,), 0, 0),
    (48, (ROBOBAY,), 0, 0), (49, (ROBOBAY,), 0, 0), (50, (ROBOBAY,), 0, 0),
    (99, (FLEETBEACON,), 0, 0), (288, (FLEETBEACON,), 0, 0), (296, (FLEETBEACON,), 0, 0),
)
_RESEARCH_ABILITY = {116: 864, 117: 865, 118: 866}
"""Where the Armory's button is not the ability the client's ``UpgradeData`` names: Vehicle and Ship
Plating is researched with ``ArmoryResearch`` 864-866; ``UpgradeData`` names 2297-2299 of an
unavailable ``ArmoryResearchSwarm`` (LP:Armory; burnysc2's RESEARCH_INFO agrees)."""

_REQUIRES: dict[int, tuple[tuple[int, ...], int]] = {
    # product: (required structures, required add-on) where the client's UnitTypeData reports
    # none.  LP:<unit>.
    50: ((GHOSTACADEMY,), TECHLAB),
    52: ((ARMORY,), TECHLAB),
    57: ((FUSIONCORE,), TECHLAB),
    10: ((FLEETBEACON,), 0),
    58: ((FACTORY,), 0),
}
_MORPH_TIME = {1520: 160.0}
"""Where the product's client build time is not the morph's: a Warp Gate becomes a Gateway again
(``MorphBackToGateway``) in the 160 loops (7 faster seconds) the other way takes (m: the time of
the way back is not known here; the Gateway's build time, 1040, is a new Gateway's)."""
_MORPH_REQUIRES_UPGRADE = {1518: 84}
"""A Gateway becomes a WarpGate once Warp Gate is researched (LP:Warp_Gate)."""
_MODE_REQUIRES = {1998: (ARMORY,)}
"""A Hellion transforms into a Hellbat only with an Armory (LP:Hellbat)."""


@dataclass(frozen=True)
class Requirement:
    """What must exist before something can be made or researched.

    ``structures``: every listed type must exist (complete); each is satisfied by itself or any type
    :func:`satisfies` lists (a Lair for a Hatchery).  ``addon``: the producer must have this add-on
    attached (``TECHLAB``), 0 for none.  ``upgrade``: an upgrade that must be researched, 0 none."""

    structures: tuple[int, ...] = ()
    addon: int = 0
    upgrade: int = 0

    def __bool__(self) -> bool:
        return bool(self.structures or self.addon or self.upgrade)


@dataclass(frozen=True)
class TrainSpec:
    ability_id: int
    unit_id: int
    producers: tuple[int, ...]
    how: str
    count: int
    """Units per order (2 Zerglings per larva)."""
    minerals: int
    vespene: int
    food: float
    """Supply taken per order."""
    time: float
    """Game loops: the client's build time of the unit.  For a warp-in that is the gateway's time;
    the warp gate's cooldown and the warp-in's duration are not entered yet (m)."""
    requires: Requirement


@dataclass(frozen=True)
class BuildSpec:
    ability_id: int
    unit_id: int
    builders: tuple[int, ...]
    how: str
    minerals: int
    """What the order costs: for Zerg the client's figure less the drone it consumes."""
    vespene: int
    time: float
    builder_consumed: bool
    on_geyser: bool
    """Placed on a vespene geyser (a unit target) rather than a point."""
    rich_unit_id: int
    """What the same ability makes on a rich geyser (0: the same type or no geyser)."""
    requires: Requirement


@dataclass(frozen=True)
class AddonSpec:
    ability_id: int
    unit_id: int
    structure: int
    generic_ability: int
    """The client's generic build ability it remaps to (3682 tech lab, 3683 reactor)."""
    minerals: int
    vespene: int
    time: float


@dataclass(frozen=True)
class MorphSpec:
    ability_id: int
    sources: tuple[int, ...]
    unit_id: int
    kind: str
    minerals: int
    """What the morph costs: the product's cost less its source's (0 for modes, lift/land, merges)."""
    vespene: int
    time: float
    """Game loops (the client's build time of the product; modes as the client reports them)."""
    cocoon: int
    """The cocoon a unit morph passes through, 0 for none."""
    requires: Requirement


@dataclass(frozen=True)
class ResearchSpec:
    ability_id: int
    upgrade_id: int
    researchers: tuple[int, ...]
    minerals: int
    vespene: int
    time: float
    """Game loops."""
    requires: Requirement


def _unit_requirement(unit_id: int) -> Requirement:
    if unit_id in _REQUIRES:
        structures, addon = _REQUIRES[unit_id]
        return Requirement(structures, addon)
    ut = _client.unit_type(unit_id)
    if not ut.tech_requirement:
        return Requirement()
    if ut.require_attached:  # the producer's attached add-on (a tech lab), not a structure anywhere
        return Requirement((), int(ut.tech_requirement))
    return Requirement((int(ut.tech_requirement),))


@cache
def _train() -> dict[int, TrainSpec]:
    out = {}
    for ability, product, producers, how in _TRAIN:
        ut = _client.unit_type(product)
        n = _COUNT.get(ability, 1)
        out[ability] = TrainSpec(ability, product, producers, how, n, int(ut.mineral_cost) * n,
                                 int(ut.vespene_cost) * n, ut.food_required * n, _TIME.get(ability, ut.build_time),
                                 _unit_requirement(product))
    return out


@cache
def _build() -> dict[int, BuildSpec]:
    out = {}
    for ability, product, builders, how in _BUILD:
        ut = _client.unit_type(product)
        consumed = how in _BUILDER_CONSUMED
        refund = _client.unit_type(builders[0]).mineral_cost if consumed else 0
        on_geyser = _client.ability(ability).target == 3  # Unit: a geyser
        out[ability] = BuildSpec(ability, product, builders, how, int(ut.mineral_cost - refund), int(ut.vespene_cost),
                                 ut.build_time, consumed, on_geyser, _RICH_GEYSER.get(product, 0),
                                 _unit_requirement(product))
    return out


@cache
def _addon() -> dict[int, AddonSpec]:
    out = {}
    for ability, product, structure in _ADDON:
        ut = _client.unit_type(product)
        out[ability] = AddonSpec(ability, product, structure, generic(ability), int(ut.mineral_cost),
                                 int(ut.vespene_cost), ut.build_time)
    return out


@cache
def _morph() -> dict[int, MorphSpec]:
    out = {}
    for ability, sources, product, kind in _MORPH:
        ut, src = _client.unit_type(product), _client.unit_type(sources[0])
        free = kind in _FREE_MORPHS
        minerals = 0 if free else int(ut.mineral_cost - src.mineral_cost)
        vespene = 0 if free else int(ut.vespene_cost - src.vespene_cost)
        minerals, vespene = _MORPH_COST.get(ability, (minerals, vespene))
        if kind in ("upgrade", "unit"):
            req = _unit_requirement(product)
        else:
            req = Requirement(_MODE_REQUIRES.get(ability, ()))
        upgrade = _MORPH_REQUIRES_UPGRADE.get(ability, _BURROW if ability in _NEEDS_BURROW else 0)
        if upgrade:
            req = Requirement(req.structures, req.addon, upgrade)
        out[ability] = MorphSpec(ability, sources, product, kind, minerals, vespene,
                                 _MORPH_TIME.get(ability, ut.build_time),
                                 _COCOON.get(ability, 0), req)
    return out


@cache
def _research() -> dict[int, ResearchSpec]:
    out = {}
    for upgrade, researchers, structure, previous in _RESEARCH:
        up = _client.upgrade(upgrade)
        ability = _RESEARCH_ABILITY.get(upgrade, int(up.ability_id))
        out[ability] = ResearchSpec(ability, upgrade, researchers, int(up.mineral_cost), int(up.vespene_cost),
                                    up.research_time, Requirement((structure,) if structure else (), 0, previous))
    return out


_LOOKUPS = {"TRAIN": _train, "BUILD": _build, "ADDON": _addon, "MORPH": _morph, "RESEARCH": _research}


def __getattr__(name: str) -> Any:
    """``TRAIN``, ``BUILD``, ``ADDON``, ``MORPH``, ``RESEARCH``: built on first use (they read the
    client data, which importing this module does not load)."""
    try:
        return _LOOKUPS[name]()
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def train(ability_id: int) -> TrainSpec | None:
    return _train().get(ability_id)


def build(ability_id: int) -> BuildSpec | None:
    return _build().get(ability_id)


def addon(ability_id: int) -> AddonSpec | None:
    return _addon().get(ability_id)


def morph(ability_id: int) -> MorphSpec | None:
    return _morph().get(ability_id)


def research(ability_id: int) -> ResearchSpec | None:
    return _research().get(ability_id)


def kind_of(ability_id: int) -> str:
    """``"train"``, ``"build"``, ``"addon"``, ``"morph"``, ``"research"``, or "" when the ability is
    none of these (move, attack, spells: other systems)."""
    for kind, table in (("train", _train()), ("build", _build()), ("addon", _addon()), ("morph", _morph()),
                        ("research", _research())):
        if ability_id in table:
            return kind
    return ""


@cache
def _upgrade_research() -> dict[int, ResearchSpec]:
    return {r.upgrade_id: r for r in _research().values()}


def research_of(upgrade_id: int) -> ResearchSpec | None:
    """How an upgrade is researched in the melee game (None: it is not)."""
    return _upgrade_research().get(upgrade_id)


@cache
def _producers() -> dict[int, tuple[tuple[int, int], ...]]:
    out: dict[int, list[tuple[int, int]]] = {}
    for t in _train().values():
        for p in t.producers:
            out.setdefault(t.unit_id, []).append((p, t.ability_id))
    for b in _build().values():
        for p in b.builders:
            out.setdefault(b.unit_id, []).append((p, b.ability_id))
    for a in _addon().values():
        out.setdefault(a.unit_id, []).append((a.structure, a.ability_id))
    for m in _morph().values():
        for s in m.sources:
            out.setdefault(m.unit_id, []).append((s, m.ability_id))
    return {u: tuple(v) for u, v in out.items()}


def producers_of(unit_id: int) -> tuple[tuple[int, int], ...]:
    """``(producer unit type, ability)`` pairs that make ``unit_id`` (trains, builds, add-ons,
    morphs); empty when nothing makes it."""
    return _producers().get(unit_id, ())


def requirements(item: int, *, upgrade: bool = False) -> Requirement:
    """What a unit type (or, with ``upgrade=True``, an upgrade) requires to be made.

    For a unit type made several ways (a Zealot from a Gateway or a WarpGate) the requirement is
    the product's own (the producer being there is the caller's check)."""
    if upgrade:
        r = research_of(item)
        if r is None:
            raise KeyError(f"upgrade {item} is not researched in the melee game")
        return r.requires
    return _unit_requirement(item)


@cache
def _satisfied_by() -> dict[int, tuple[int, ...]]:
    out: dict[int, list[int]] = {}
    for u in _client.units().values():
        for alias in u.tech_alias:
            out.setdefault(int(alias), []).append(int(u.unit_id))
    # a flying or lowered form counts as what it is when landed/raised (the client's unit_alias)
    for u in _client.units().values():
        if u.HasField("unit_alias") and u.unit_alias and u.unit_id not in out.get(u.unit_alias, []):
            out.setdefault(int(u.unit_alias), []).append(int(u.unit_id))
    return {k: tuple(v) for k, v in out.items()}


def satisfies(structure: int) -> tuple[int, ...]:
    """The unit types that count as ``structure`` for a requirement: itself and the types whose
    ``tech_alias`` (Lair, Hive for a Hatchery; Orbital, PF for a Command Center) or ``unit_alias``
    (a flying Barracks, a lowered depot) names it, as the client reports."""
    return (structure, *_satisfied_by().get(structure, ()))


def generic(ability_id: int) -> int:
    """The generic ability a specific one remaps to, as the client reports (itself when none)."""
    return _client.generic_ability(ability_id)


def specific(ability_id: int) -> tuple[int, ...]:
    """The specific abilities that remap to a generic one (empty when none)."""
    return _client.specific_abilities().get(ability_id, ())
