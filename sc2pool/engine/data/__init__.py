"""The engine's game data: facts, no behaviour.

The package has five parts:

* this module: the tables of the unit types, abilities and upgrades the engine *simulates* today
  (:data:`UNITS`, :data:`ABILITIES`, :data:`UPGRADES`, their ``*_BY_ID`` indexes and id constants),
  which the simulation reads (``sim.units.TypeTable`` builds its per-type columns from
  :data:`UNITS`), plus :func:`response_data` / :func:`response_data_for` and :func:`unit_spec`;
* :mod:`~sc2pool.engine.data.client`: the real client's whole ``ResponseData`` (every unit type,
  ability, upgrade, buff and effect of all races), which the engine serves as its own answer;
* :mod:`~sc2pool.engine.data.units`: engine facts ``ResponseData`` does not carry (hit points,
  shields, energy, radius, footprint, flying, detection, cloak, cargo, upgrades), for every unit type
  of the three races and the map's neutral objects;
* :mod:`~sc2pool.engine.data.tech`: the tech tree (what each ability trains, builds, researches or
  morphs into, who can use it and what it requires).
* :mod:`~sc2pool.engine.data.recall`: the figures of the Nexus's and the Mothership's Strategic
  Recall (radius, energy, delay, cooldown), with their source.

The simulated subset's reported fields (costs, build times, supply, sight, speed, armor, weapons,
tech requirements, cargo, ability names, links and hotkeys) are the real client's
(``tests/engine/client_facts.py`` holds them in this project's form; ``tests/engine/data`` checks
the subset against the client data and the engine facts, and lists where they differ on purpose).
To simulate more unit types, widen :data:`UNITS` with :func:`unit_spec`, which builds a
:class:`UnitSpec` for any type from the client data and the engine facts.  Ids and names are the
ones burnysc2's enums use (``tests/engine/test_data.py`` checks the subset against ``sc2.ids``);
the engine itself never imports burnysc2.

Units of measure follow the real ``ResponseData``: ``movement_speed`` and weapon ``speed``
(cooldown) are per *normal*-speed game second (16 game loops), ``build_time`` is in game loops.
The simulation therefore moves a unit ``movement_speed / 16`` per loop and re-arms a weapon
``speed * 16`` loops after firing (burnysc2's ``Unit.movement_speed`` and
``weapon_cooldown`` read them the same way).

Shards: pysc2's CollectMineralShards map uses unit type 1680 (``NaturalMinerals``), which real
ladder data marks unavailable.  The engine keeps the pysc2 id (so agents that key on 1680 see the
same type) and reports it named and available (:data:`client.DELIBERATE`), so burnysc2 can resolve
``_type_data``.  A neutral non-mineral-field unit lands in burnysc2's ``self.destructables``, as on
the real map; the same holds for the beacon (317, ``Beacon_Terran``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.data import client as _client
from sc2pool.engine.data import units as _units

# Attribute values (data_pb2.Attribute).
LIGHT, ARMORED, BIOLOGICAL, MECHANICAL, ROBOTIC, PSIONIC, MASSIVE, STRUCTURE = 1, 2, 3, 4, 5, 6, 7, 8
# Race values (common_pb2.Race).
NO_RACE, TERRAN, ZERG, PROTOSS, RANDOM = 0, 1, 2, 3, 4
# Weapon target types (data_pb2.Weapon.TargetType).
GROUND, AIR, ANY = 1, 2, 3
# Ability target kinds (data_pb2.AbilityData.Target).
T_NONE, T_POINT, T_UNIT, T_POINT_OR_UNIT, T_POINT_OR_NONE = 1, 2, 3, 4, 5

RANDOM_DELAY = (-0.0625, 0.125)
"""Random change of every weapon cooldown (normal-speed seconds, uniform, drawn per attack).

Not known from a source here: the range is the weapon default of the game's editor data as
commonly quoted; the README's scenario table marks it (m)."""
NORMAL_LOOPS_PER_SECOND = 16.0
"""Game loops per *normal*-speed game second: the unit of every speed and cooldown in the data."""
FASTER_LOOPS_PER_SECOND = 22.4
"""Game loops per real second at "faster" speed (what burnysc2's ``self.time`` counts)."""


@dataclass(frozen=True)
class WeaponSpec:
    """One weapon.  ``cooldown`` is in normal-speed seconds, like ``Weapon.speed`` in the API."""

    target: int
    damage: float
    range: float
    cooldown: float
    attacks: int = 1
    bonus: tuple[tuple[int, float], ...] = ()
    splash: float = 0.0
    """Engine-only: radius of area damage around the attacker (banelings), 0 for single target."""
    suicide: bool = False
    """Engine-only: the attacker dies when it fires (banelings)."""
    damage_point: float = 0.0
    """Engine-only: normal-speed seconds from the start of an attack to the hit (or the launch)."""
    projectile_speed: float = 0.0
    """Engine-only: distance per normal-speed second of the weapon's missile; 0: it hits at once."""
    reported: bool = True
    """Whether ``ResponseData`` lists it: the real client reports no weapon for the baneling (its
    explosion is an ability), so the engine keeps that attack to itself."""


@dataclass(frozen=True)
class UnitSpec:
    """Statistics of one unit type (public game facts, LotV)."""

    unit_id: int
    name: str
    race: int
    hp: float
    radius: float
    speed: float = 0.0
    sight: float = 0.0
    armor: float = 0.0
    shield: float = 0.0
    attributes: tuple[int, ...] = ()
    weapons: tuple[WeaponSpec, ...] = ()
    minerals: int = 0
    vespene: int = 0
    food_required: float = 0.0
    food_provided: float = 0.0
    build_time: float = 0.0
    creation_ability: int = 0
    is_flying: bool = False
    neutral: bool = False
    """Engine-only: a neutral map object (beacon, shard): never attacks, never targeted."""
    tech_requirement: int = 0
    require_attached: bool = False
    cargo_size: int = -1
    """Transport slots; -1: none reported (structures, larva, map objects)."""
    has_minerals: bool = False
    has_vespene: bool = False

    @property
    def is_structure(self) -> bool:
        return STRUCTURE in self.attributes


@dataclass(frozen=True)
class AbilitySpec:
    """One ability.  ``name`` is burnysc2's ``AbilityId`` member name (checked by the tests)."""

    ability_id: int
    name: str
    button_name: str
    target: int
    remaps_to: int = 0
    is_building: bool = False
    footprint_radius: float = 0.0
    cast_range: float = 0.0
    link_name: str = ""
    link_index: int = 0
    hotkey: str = ""
    allow_autocast: bool = False
    friendly_name: str = field(default="")
    available: bool = True


# --------------------------------------------------------------------------------------------
# Abilities.  Specific ids are what the real client reports in unit orders; the generic ids are
# what burnysc2's ``AbilityData.id`` returns through ``remaps_to_ability_id``.
SMART = 1
STOP_STOP = 4
MOVE_MOVE = 16
PATROL_PATROL = 17
HOLDPOSITION_HOLD = 18
SCAN_MOVE = 19
ATTACK_ATTACK = 23
EXPLODE_EXPLODE = 42
EFFECT_STIM_MARINE = 380
STOP = 3665
ATTACK = 3674
EFFECT_STIM = 3675
HOLDPOSITION = 3793
MOVE = 3794
PATROL = 3795

ABILITIES: tuple[AbilitySpec, ...] = (
    # Entered from the real client's ResponseData (see the module docstring); the creation
    # abilities let burnysc2's can_afford/train/calculate_cost resolve a unit's cost.
    AbilitySpec(SMART, "SMART", "Smart", T_POINT_OR_UNIT, link_name="", link_index=255, friendly_name="Smart"),
    AbilitySpec(STOP_STOP, "STOP_STOP", "Stop", T_NONE, remaps_to=STOP, link_name="stop", hotkey="P", friendly_name="Stop Stop"),
    AbilitySpec(MOVE_MOVE, "MOVE_MOVE", "Move", T_POINT_OR_UNIT, remaps_to=MOVE, link_name="move", hotkey="M", friendly_name="Move Move"),
    AbilitySpec(PATROL_PATROL, "PATROL_PATROL", "MovePatrol", T_POINT_OR_UNIT, remaps_to=PATROL, link_name="move", link_index=1, hotkey="S", friendly_name="Patrol Patrol"),
    AbilitySpec(HOLDPOSITION_HOLD, "HOLDPOSITION_HOLD", "MoveHoldPosition", T_NONE, remaps_to=HOLDPOSITION, link_name="move", link_index=2, hotkey="H", friendly_name="HoldPosition Hold"),
    AbilitySpec(SCAN_MOVE, "SCAN_MOVE", "AcquireMove", T_POINT_OR_UNIT, remaps_to=ATTACK, link_name="move", link_index=3, hotkey="A", friendly_name="Scan Move"),
    AbilitySpec(ATTACK_ATTACK, "ATTACK_ATTACK", "Attack", T_POINT_OR_UNIT, remaps_to=ATTACK, link_name="attack", hotkey="A", friendly_name="Attack Attack"),
    AbilitySpec(EXPLODE_EXPLODE, "EXPLODE_EXPLODE", "Explode", T_NONE, link_name="Explode", hotkey="X", friendly_name="Effect Explode"),
    AbilitySpec(EFFECT_STIM_MARINE, "EFFECT_STIM_MARINE", "Stim", T_NONE, remaps_to=EFFECT_STIM, link_name="Stimpack", hotkey="F", friendly_name="Effect Stim Marine"),
    AbilitySpec(STOP, "STOP", "Stop", T_NONE, link_name="Stop", friendly_name="Stop"),
    AbilitySpec(ATTACK, "ATTACK", "Attack", T_POINT_OR_UNIT, link_name="GeneralAttack", friendly_name="Attack"),
    AbilitySpec(EFFECT_STIM, "EFFECT_STIM", "Stim", T_NONE, link_name="GeneralStimpack", friendly_name="Effect Stim"),
    AbilitySpec(HOLDPOSITION, "HOLDPOSITION", "HoldPosition", T_NONE, link_name="GeneralHoldPosition", friendly_name="HoldPosition"),
    AbilitySpec(MOVE, "MOVE", "Move", T_POINT_OR_UNIT, link_name="GeneralMove", friendly_name="Move"),
    AbilitySpec(PATROL, "PATROL", "Patrol", T_POINT_OR_UNIT, link_name="GeneralPatrol", friendly_name="Patrol"),
    AbilitySpec(318, "TERRANBUILD_COMMANDCENTER", "CommandCenter", T_POINT, is_building=True, footprint_radius=2.5, link_name="TerranBuild", hotkey="BC", friendly_name="Build CommandCenter"),
    AbilitySpec(321, "TERRANBUILD_BARRACKS", "Barracks", T_POINT, is_building=True, footprint_radius=1.5, link_name="TerranBuild", link_index=3, hotkey="BB", friendly_name="Build Barracks"),
    AbilitySpec(524, "COMMANDCENTERTRAIN_SCV", "SCV", T_NONE, link_name="CommandCenterTrain", hotkey="S", friendly_name="Train SCV"),
    AbilitySpec(560, "BARRACKSTRAIN_MARINE", "Marine", T_NONE, link_name="BarracksTrain", hotkey="A", friendly_name="Train Marine"),
    AbilitySpec(563, "BARRACKSTRAIN_MARAUDER", "Marauder", T_NONE, link_name="BarracksTrain", link_index=3, hotkey="D", friendly_name="Train Marauder"),
    AbilitySpec(1152, "ZERGBUILD_HATCHERY", "Hatchery", T_POINT, is_building=True, footprint_radius=2.5, link_name="ZergBuild", hotkey="BB", friendly_name="Build Hatchery"),
    AbilitySpec(1343, "LARVATRAIN_ZERGLING", "Zergling", T_NONE, link_name="LarvaTrain", link_index=1, hotkey="Z", friendly_name="Train Zergling"),
    AbilitySpec(1351, "LARVATRAIN_ROACH", "Roach", T_NONE, link_name="LarvaTrain", link_index=9, hotkey="R", friendly_name="Train Roach"),
    AbilitySpec(80, "MORPHZERGLINGTOBANELING_BANELING", "Baneling", T_NONE, link_name="MorphZerglingToBaneling", friendly_name="Train Baneling", available=False),
    AbilitySpec(883, "PROTOSSBUILD_GATEWAY", "Gateway", T_POINT, is_building=True, footprint_radius=1.5, link_name="ProtossBuild", link_index=3, hotkey="BG", friendly_name="Build Gateway"),
    AbilitySpec(916, "GATEWAYTRAIN_ZEALOT", "Zealot", T_NONE, link_name="GatewayTrain", hotkey="Z", friendly_name="Train Zealot"),
    AbilitySpec(917, "GATEWAYTRAIN_STALKER", "Stalker", T_NONE, link_name="GatewayTrain", link_index=1, hotkey="S", friendly_name="Train Stalker"),
    # --- Economy (sc2pool.engine.sim.economy): the real client's ResponseData
    AbilitySpec(295, "HARVEST_GATHER_SCV", "Gather", T_UNIT, remaps_to=3666, link_name="SCVHarvest", hotkey="G", friendly_name="Harvest Gather SCV"),
    AbilitySpec(296, "HARVEST_RETURN_SCV", "ReturnCargo", T_NONE, remaps_to=3667, link_name="SCVHarvest", link_index=1, hotkey="C", friendly_name="Harvest Return SCV"),
    AbilitySpec(3666, "HARVEST_GATHER", "HarvestGather", T_UNIT, link_name="HarvestGather", friendly_name="Harvest Gather"),
    AbilitySpec(3667, "HARVEST_RETURN", "HarvestReturn", T_NONE, link_name="HarvestReturn", friendly_name="Harvest Return"),
    AbilitySpec(319, "TERRANBUILD_SUPPLYDEPOT", "SupplyDepot", T_POINT, is_building=True, footprint_radius=1.0, link_name="TerranBuild", link_index=1, hotkey="BS", friendly_name="Build SupplyDepot"),
    AbilitySpec(320, "TERRANBUILD_REFINERY", "Refinery", T_UNIT, is_building=True, footprint_radius=1.5, link_name="TerranBuild", link_index=2, hotkey="BR", friendly_name="Build Refinery"),
    AbilitySpec(195, "RALLY_BUILDING", "Rally", T_POINT_OR_UNIT, remaps_to=3673, link_name="Rally", hotkey="Y", friendly_name="Rally Building"),
    AbilitySpec(203, "RALLY_COMMANDCENTER", "Rally", T_POINT_OR_UNIT, remaps_to=3690, link_name="RallyCommand", hotkey="Y", friendly_name="Rally CommandCenter"),
    AbilitySpec(3673, "RALLY_UNITS", "Rally Units", T_POINT_OR_UNIT, link_name="GeneralRallyUnits", friendly_name="Rally Units"),
    AbilitySpec(3690, "RALLY_WORKERS", "Rally Workers", T_POINT_OR_UNIT, link_name="GeneralRallyWorkers", friendly_name="Rally Workers"),
    AbilitySpec(3671, "CANCEL_LAST", "CancelLast", T_NONE, link_name="CancelLast", friendly_name="Cancel Last"),
    AbilitySpec(306, "CANCEL_QUEUE5", "Cancel", T_NONE, remaps_to=3671, link_name="que5", friendly_name="Cancel Queue5"),
)
ABILITY_BY_ID: dict[int, AbilitySpec] = {a.ability_id: a for a in ABILITIES}


@dataclass(frozen=True)
class UpgradeSpec:
    """One upgrade as ``ResponseData`` reports it.  ``enum_name`` is burnysc2's ``UpgradeId`` member
    name (checked by the tests); ``name`` is the client's own spelling."""

    upgrade_id: int
    enum_name: str
    name: str
    minerals: int
    vespene: int
    research_time: float
    """Game loops."""
    research_ability: int


# The upgrades of the unit types the engine simulates (infantry weapons/armor, the Barracks tech
# lab's, the Zerg ground and speed upgrades, the Forge's and the Twilight Council's), from the real
# client's ResponseData like the rest (the tests check them against it and burnysc2's ids).  The
# engine serves the whole client data; research itself (the melee game's Terran structures) is
# ``sim/systems/research.py``, which reads ``data.tech.RESEARCH``, not this table.
UPGRADES: tuple[UpgradeSpec, ...] = (
    UpgradeSpec(7, "TERRANINFANTRYWEAPONSLEVEL1", "TerranInfantryWeaponsLevel1", 100, 100, 2560, 652),
    UpgradeSpec(8, "TERRANINFANTRYWEAPONSLEVEL2", "TerranInfantryWeaponsLevel2", 175, 175, 3040, 653),
    UpgradeSpec(9, "TERRANINFANTRYWEAPONSLEVEL3", "TerranInfantryWeaponsLevel3", 250, 250, 3520, 654),
    UpgradeSpec(11, "TERRANINFANTRYARMORSLEVEL1", "TerranInfantryArmorsLevel1", 100, 100, 2560, 656),
    UpgradeSpec(12, "TERRANINFANTRYARMORSLEVEL2", "TerranInfantryArmorsLevel2", 175, 175, 3040, 657),
    UpgradeSpec(13, "TERRANINFANTRYARMORSLEVEL3", "TerranInfantryArmorsLevel3", 250, 250, 3520, 658),
    UpgradeSpec(15, "STIMPACK", "Stimpack", 100, 100, 2240, 730),
    UpgradeSpec(16, "SHIELDWALL", "ShieldWall", 100, 100, 1760, 731),
    UpgradeSpec(17, "PUNISHERGRENADES", "PunisherGrenades", 50, 50, 960, 732),
    UpgradeSpec(2, "GLIALRECONSTITUTION", "GlialReconstitution", 100, 100, 1760, 216),
    UpgradeSpec(53, "ZERGMELEEWEAPONSLEVEL1", "ZergMeleeWeaponsLevel1", 100, 100, 2560, 1186),
    UpgradeSpec(54, "ZERGMELEEWEAPONSLEVEL2", "ZergMeleeWeaponsLevel2", 150, 150, 3040, 1187),
    UpgradeSpec(55, "ZERGMELEEWEAPONSLEVEL3", "ZergMeleeWeaponsLevel3", 200, 200, 3520, 1188),
    UpgradeSpec(56, "ZERGGROUNDARMORSLEVEL1", "ZergGroundArmorsLevel1", 150, 150, 2560, 1189),
    UpgradeSpec(57, "ZERGGROUNDARMORSLEVEL2", "ZergGroundArmorsLevel2", 225, 225, 3040, 1190),
    UpgradeSpec(58, "ZERGGROUNDARMORSLEVEL3", "ZergGroundArmorsLevel3", 300, 300, 3520, 1191),
    UpgradeSpec(59, "ZERGMISSILEWEAPONSLEVEL1", "ZergMissileWeaponsLevel1", 100, 100, 2560, 1192),
    UpgradeSpec(60, "ZERGMISSILEWEAPONSLEVEL2", "ZergMissileWeaponsLevel2", 150, 150, 3040, 1193),
    UpgradeSpec(61, "ZERGMISSILEWEAPONSLEVEL3", "ZergMissileWeaponsLevel3", 200, 200, 3520, 1194),
    UpgradeSpec(66, "ZERGLINGMOVEMENTSPEED", "zerglingmovementspeed", 100, 100, 1760, 1253),
    UpgradeSpec(75, "CENTRIFICALHOOKS", "CentrificalHooks", 150, 150, 1760, 1482),
    UpgradeSpec(39, "PROTOSSGROUNDWEAPONSLEVEL1", "ProtossGroundWeaponsLevel1", 100, 100, 2720, 1062),
    UpgradeSpec(40, "PROTOSSGROUNDWEAPONSLEVEL2", "ProtossGroundWeaponsLevel2", 150, 150, 3240, 1063),
    UpgradeSpec(41, "PROTOSSGROUNDWEAPONSLEVEL3", "ProtossGroundWeaponsLevel3", 200, 200, 3760, 1064),
    UpgradeSpec(42, "PROTOSSGROUNDARMORSLEVEL1", "ProtossGroundArmorsLevel1", 100, 100, 2720, 1065),
    UpgradeSpec(43, "PROTOSSGROUNDARMORSLEVEL2", "ProtossGroundArmorsLevel2", 150, 150, 3240, 1066),
    UpgradeSpec(44, "PROTOSSGROUNDARMORSLEVEL3", "ProtossGroundArmorsLevel3", 200, 200, 3760, 1067),
    UpgradeSpec(45, "PROTOSSSHIELDSLEVEL1", "ProtossShieldsLevel1", 150, 150, 2720, 1068),
    UpgradeSpec(46, "PROTOSSSHIELDSLEVEL2", "ProtossShieldsLevel2", 225, 225, 3240, 1069),
    UpgradeSpec(47, "PROTOSSSHIELDSLEVEL3", "ProtossShieldsLevel3", 300, 300, 3760, 1070),
    UpgradeSpec(86, "CHARGE", "Charge", 100, 100, 2240, 1592),
    UpgradeSpec(87, "BLINKTECH", "BlinkTech", 150, 150, 2720, 1593),
)

# --------------------------------------------------------------------------------------------
# Unit types.  Weapon timing (damage_point, projectile_speed) is engine-only and not known from a
# source here: the values are the game's as commonly quoted (README scenario table, (m)).
# Reported fields (costs, build times in loops, supply, sight, speed, armor, weapons,
# creation abilities, tech requirements, cargo) are the real client's ResponseData; hit points,
# shields and radii are public game facts the API does not report.
MELEE = 0.100098
"""Range of melee weapons as the client reports it (0.1 in float32)."""
MARINE, MARAUDER, SCV = 48, 51, 45
ZERGLING, BANELING, ROACH, LARVA, HATCHERY = 105, 9, 110, 151, 86
ZEALOT, STALKER, GATEWAY = 73, 74, 62
BARRACKS, COMMANDCENTER = 21, 18
BEACON_TERRAN = 317
NATURALMINERALS = 1680
# economy (sc2pool.engine.sim.economy)
SUPPLYDEPOT, REFINERY = 19, 20
MINERALFIELD, MINERALFIELD750, VESPENEGEYSER = 341, 483, 342

UNITS: tuple[UnitSpec, ...] = (
    # --- Terran
    UnitSpec(MARINE, "Marine", TERRAN, hp=45, radius=0.375, speed=2.25, sight=9, armor=0,
             attributes=(LIGHT, BIOLOGICAL),
             weapons=(WeaponSpec(ANY, damage=6, range=5, cooldown=0.860840, damage_point=0.05),),
             minerals=50, food_required=1, build_time=400, creation_ability=560, cargo_size=1),
    UnitSpec(MARAUDER, "Marauder", TERRAN, hp=125, radius=0.5625, speed=2.25, sight=10, armor=1,
             attributes=(ARMORED, BIOLOGICAL),
             weapons=(WeaponSpec(GROUND, damage=10, range=6, cooldown=1.5, bonus=((ARMORED, 10),), damage_point=0.0,
                                 projectile_speed=15.0),),
             minerals=100, vespene=25, food_required=2, build_time=480, creation_ability=563,
             tech_requirement=5, require_attached=True, cargo_size=2),
    UnitSpec(SCV, "SCV", TERRAN, hp=45, radius=0.375, speed=2.8125, sight=8, armor=0,
             attributes=(LIGHT, BIOLOGICAL, MECHANICAL),
             weapons=(WeaponSpec(GROUND, damage=5, range=MELEE, cooldown=1.5),),
             minerals=50, food_required=1, build_time=272, creation_ability=524, cargo_size=1),
    UnitSpec(BARRACKS, "Barracks", TERRAN, hp=1000, radius=1.8125, sight=9, armor=1,
             attributes=(ARMORED, MECHANICAL, STRUCTURE), minerals=150, build_time=1040,
             creation_ability=321, tech_requirement=19),
    UnitSpec(COMMANDCENTER, "CommandCenter", TERRAN, hp=1500, radius=2.75, sight=11, armor=1,
             attributes=(ARMORED, MECHANICAL, STRUCTURE), minerals=400, food_provided=15,
             build_time=1600, creation_ability=318),
    # --- Zerg
    UnitSpec(ZERGLING, "Zergling", ZERG, hp=35, radius=0.375, speed=2.9531, sight=8, armor=0,
             attributes=(LIGHT, BIOLOGICAL),
             weapons=(WeaponSpec(GROUND, damage=5, range=MELEE, cooldown=0.696045, damage_point=0.1193),),
             minerals=25, food_required=0.5, build_time=384, creation_ability=1343, tech_requirement=89,
             cargo_size=1),
    UnitSpec(BANELING, "Baneling", ZERG, hp=30, radius=0.375, speed=2.5, sight=8, armor=0,
             attributes=(BIOLOGICAL,),
             weapons=(WeaponSpec(GROUND, damage=16, range=0.25, cooldown=0.833, bonus=((LIGHT, 19), (STRUCTURE, 64)),
                                 splash=2.2, suicide=True, reported=False),),
             minerals=50, vespene=25, food_required=0.5, build_time=320, creation_ability=80,
             tech_requirement=96, cargo_size=2),
    UnitSpec(ROACH, "Roach", ZERG, hp=145, radius=0.625, speed=2.25, sight=9, armor=1,
             attributes=(ARMORED, BIOLOGICAL),
             weapons=(WeaponSpec(GROUND, damage=16, range=4, cooldown=2.0, damage_point=0.1, projectile_speed=11.0),),
             minerals=75, vespene=25, food_required=2, build_time=432, creation_ability=1351,
             tech_requirement=97, cargo_size=2),
    UnitSpec(LARVA, "Larva", ZERG, hp=25, radius=0.25, speed=0.5625, sight=5, armor=10, attributes=(LIGHT, BIOLOGICAL)),
    UnitSpec(HATCHERY, "Hatchery", ZERG, hp=1500, radius=2.75, sight=12, armor=1,
             attributes=(ARMORED, BIOLOGICAL, STRUCTURE), minerals=350, food_provided=6,
             build_time=1600, creation_ability=1152),
    # --- Protoss
    UnitSpec(ZEALOT, "Zealot", PROTOSS, hp=100, shield=50, radius=0.5, speed=2.25, sight=9, armor=1,
             attributes=(LIGHT, BIOLOGICAL),
             weapons=(WeaponSpec(GROUND, damage=8, attacks=2, range=MELEE, cooldown=1.199951, damage_point=0.0),),
             minerals=100, food_required=2, build_time=608, creation_ability=916, cargo_size=2),
    UnitSpec(STALKER, "Stalker", PROTOSS, hp=80, shield=80, radius=0.625, speed=2.9531, sight=10, armor=1,
             attributes=(ARMORED, MECHANICAL),
             weapons=(WeaponSpec(ANY, damage=13, range=6, cooldown=1.870117, bonus=((ARMORED, 5),), damage_point=0.1433,
                                 projectile_speed=10.0),),
             minerals=125, vespene=50, food_required=2, build_time=672, creation_ability=917,
             tech_requirement=72, cargo_size=2),
    UnitSpec(GATEWAY, "Gateway", PROTOSS, hp=500, shield=500, radius=1.8125, sight=9, armor=1,
             attributes=(ARMORED, STRUCTURE), minerals=150, build_time=1040, creation_ability=883,
             tech_requirement=59),
    # --- Economy (sc2pool.engine.sim.economy).  Costs, supply, build times (game loops), armor, sight
    # and the resources' radii are the real client's ResponseData / raw observation (python-sc2's
    # test/pickle_data real-game dumps); hit points are public game facts; the radii of the supply
    # depot and the refinery are not in those dumps (no such structure at a game's start): inferred.
    UnitSpec(SUPPLYDEPOT, "SupplyDepot", TERRAN, hp=400, radius=1.375, sight=9, armor=1,
             attributes=(ARMORED, MECHANICAL, STRUCTURE), minerals=100, food_provided=8, build_time=480,
             creation_ability=319),
    UnitSpec(REFINERY, "Refinery", TERRAN, hp=500, radius=1.75, sight=9, armor=1,
             attributes=(ARMORED, MECHANICAL, STRUCTURE), minerals=75, build_time=480, creation_ability=320,
             has_vespene=True),
    UnitSpec(MINERALFIELD, "MineralField", NO_RACE, hp=0, radius=1.125, armor=10, attributes=(STRUCTURE,),
             neutral=True, has_minerals=True),
    UnitSpec(MINERALFIELD750, "MineralField750", NO_RACE, hp=0, radius=1.125, armor=10, attributes=(STRUCTURE,),
             neutral=True, has_minerals=True),
    UnitSpec(VESPENEGEYSER, "VespeneGeyser", NO_RACE, hp=0, radius=1.5, armor=10, attributes=(STRUCTURE,),
             neutral=True, has_vespene=True),
    # --- Neutral map objects
    UnitSpec(BEACON_TERRAN, "Beacon_Terran", NO_RACE, hp=0, radius=1.0, neutral=True),
    UnitSpec(NATURALMINERALS, "NaturalMinerals", NO_RACE, hp=0, radius=0.5, neutral=True),
)
UNIT_BY_ID: dict[int, UnitSpec] = {u.unit_id: u for u in UNITS}

# Orders a mobile combat unit accepts (reported by the available-abilities query).
COMMON_UNIT_ABILITIES: tuple[int, ...] = (STOP_STOP, MOVE_MOVE, PATROL_PATROL, HOLDPOSITION_HOLD, ATTACK_ATTACK)


def response_data() -> sc_pb.ResponseData:
    """The whole ``ResponseData`` (all flags): the real client's, every race and id
    (:mod:`sc2pool.engine.data.client`).  Constant for the process lifetime and shared: callers must
    treat it as read-only; the server caches its serialized bytes."""
    return _client.response_data()


def response_data_for(ability_id: bool, unit_type_id: bool, upgrade_id: bool, buff_id: bool,
                      effect_id: bool) -> sc_pb.ResponseData:
    """``ResponseData`` restricted to the requested sections (the real client honours the flags)."""
    return _client.response_data_for(ability_id, unit_type_id, upgrade_id, buff_id, effect_id)


def unit_spec(unit_id: int) -> UnitSpec:
    """A :class:`UnitSpec` for ANY unit type with engine facts: the simulated subset's own spec from
    :data:`UNIT_BY_ID` (so the mini-games stay bit-exact), else one built by
    :func:`unit_spec_from_data`.  Widening :data:`UNITS` is then ``tuple(unit_spec(i) for i in ids)``.

    ``KeyError`` naming the type when the client does not know it or the engine has no facts for it.
    """
    spec = UNIT_BY_ID.get(unit_id)
    return spec if spec is not None else unit_spec_from_data(unit_id)


_NEUTRAL_KINDS = frozenset({_units.RESOURCE, _units.TOWER, _units.ZONE, _units.BEACON})


@cache
def unit_spec_from_data(unit_id: int) -> UnitSpec:
    """A :class:`UnitSpec` built from the client's ``UnitTypeData`` (costs, speed, sight, armor,
    attributes, weapons, supply, requirements, cargo size) and the engine facts of
    :mod:`sc2pool.engine.data.units` (hit points, shields, radius, flying, weapon timing).

    Where a fact is unknown the spec says so by a documented choice (m): hit points ``None`` (an
    object that cannot be attacked) become 0 and the type is ``neutral`` (never targeted); a
    radius ``None`` becomes half the footprint's longer side, or 0.5; unknown weapon timing is 0
    (the hit lands when the weapon fires).
    """
    ut = _client.unit_type(unit_id)
    f = _units.facts(unit_id)
    timing = _units.WEAPON_FACTS.get(unit_id, ())
    weapons = []
    for i, w in enumerate(() if unit_id in _units.UNARMED else ut.weapons):
        wf = timing[i] if i < len(timing) else None
        weapons.append(WeaponSpec(
            target=int(w.type), damage=w.damage, range=w.range, cooldown=w.speed, attacks=int(w.attacks),
            bonus=tuple((int(b.attribute), b.bonus) for b in w.damage_bonus),
            damage_point=(wf.damage_point or 0.0) if wf else 0.0,
            projectile_speed=(wf.projectile_speed or 0.0) if wf else 0.0,
        ))
    for target, damage, rng, cooldown, attacks in _units.ENGINE_WEAPONS.get(unit_id, ()):
        weapons.append(WeaponSpec(target=target, damage=damage, range=rng, cooldown=cooldown, attacks=attacks,
                                  bonus=_units.ENGINE_WEAPON_BONUS.get(unit_id, ()), reported=False))
    radius = f.radius if f.radius is not None else (max(f.fp) / 2.0 if f.fp else 0.5)
    return UnitSpec(
        unit_id=unit_id, name=ut.name, race=int(ut.race), hp=f.hp or 0.0, radius=radius,
        speed=ut.movement_speed, sight=ut.sight_range, armor=ut.armor, shield=f.sh,
        attributes=tuple(int(a) for a in ut.attributes), weapons=tuple(weapons),
        minerals=ut.mineral_cost, vespene=ut.vespene_cost, food_required=ut.food_required,
        food_provided=ut.food_provided, build_time=ut.build_time, creation_ability=ut.ability_id,
        is_flying=f.flying, neutral=f.kind in _NEUTRAL_KINDS or f.hp is None,
        tech_requirement=ut.tech_requirement, require_attached=ut.require_attached,
        cargo_size=ut.cargo_size if ut.HasField("cargo_size") else -1,
        has_minerals=ut.has_minerals, has_vespene=ut.has_vespene,
    )
