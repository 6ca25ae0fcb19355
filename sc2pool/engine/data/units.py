"""Engine facts per unit type that ``ResponseData`` does not carry, for all three races and the map's
neutral objects.

``ResponseData`` (:mod:`sc2pool.engine.data.client`) gives costs, build times, supply, speed, sight,
armor, attributes and weapons.  A simulation also needs hit points, shields, energy, the collision
radius, the placement footprint, whether a type flies, detects, is cloaked or burrowed, carries
cargo, powers Protoss structures, which upgrades raise its armor and weapons, and how fast it
regenerates.  This module holds those facts in the project's own table, one row per unit type,
each row naming its sources.

Sources (the ``src`` of a row, most specific first)
---------------------------------------------------
``CAP``
    python-sc2's real-client captures (``test/pickle_data/*.xz``, 96 maps): the raw observation's
    ``radius`` (and ``health_max``, resource contents) of the units present at a game's start.  Where
    a type appears there its radius is the captured one (``tests/engine/data`` checks it).
``TT``
    ``BurnySc2/sc2-techtree`` ``data/data.json`` (patch 5.0.3): what a real client's observation
    reported for each unit type spawned in a game (``health_max``, ``shield_max``, ``energy``,
    ``energy_max``, ``radius``, ``detect_range``, ``cargo_space_max``, ``is_flying``).  Read to learn
    the values; the table is ours.  The captured ``ResponseData`` is patch 5.0.11 balance (its
    Void Ray costs 250/150 and its Cyclone is the pre-5.0.12 one); we know of no change to the hit
    points, shields, energy or radii listed here between 5.0.3 and 5.0.11.
``AB``
    the footprint of a structure: twice its build ability's ``footprint_radius`` in the captured
    ``ResponseData`` (square); a structure made by a morph (Lair, Orbital, WarpGate, ...) keeps the
    footprint of what it morphs from.
``LP:<page>``
    Liquipedia StarCraft 2 wiki, https://liquipedia.net/starcraft2/<page>.
``TL:395769``
    TeamLiquid forum thread 395769 "Collapsible Rock Towers" (tower 500 hp; standard rocks and
    debris 2000 hp, 3 armor, which the captured ``ResponseData`` confirms for the armor).
``ENGINE``
    a mini-game object whose value the engine chose (the shard 1680, the beacon 317).
``BD:94137``
    the game's balance data for build 94137 (5.0.14, the build the engine reports), as exported in
    sebosp's s2protocol-rs (``assets/BalanceData/94137/<Unit>.json``): life and its regeneration
    rate.  Used where no capture gives the figure (the captures show rocks at ``health_max`` 0)
    and for regeneration rates; its costs, sights, speeds and weapons are 5.0.14's balance, which
    the engine does not serve (it serves the 5.0.11 capture's ``ResponseData``), and its
    ``radius`` is not the API's for structures, so those are not taken from it
    (``docs/engine.md``, "The game's balance data").
``KB:LLM-PySC2``
    LLM-PySC2 knowledge base (NKAI-Decision-Team/LLM-PySC2, ``llm_pysc2/lib/knowledge/terran.py``,
    ``protoss.py``, ``zerg.py``, Liquipedia-derived): what some researches and abilities do, in
    faster-speed seconds (22.4 game loops each) where it gives times.

``m`` lists the fields of a row that are not known from a source and were chosen by us: "(m)" in
the project's terms.  ``None`` means not known and not chosen (e.g. the hit points of an object that
cannot be attacked).

Units of measure are the API's: distances in cells, speeds and rates per *normal*-speed game second
(16 game loops; multiply by 1.4 for "faster" seconds), energy and life in points.
"""

from __future__ import annotations

from dataclasses import dataclass

UNIT = "unit"
"""A unit a player trains or warps in and controls."""
STRUCTURE = "structure"
ADDON = "addon"
"""A Terran add-on (tech lab, reactor) attached to a production structure."""
MODE = "mode"
"""Another form of a unit or structure (sieged, burrowed, flying, lowered, phasing, ...): ``form_of``
names the ordinary form."""
COCOON = "cocoon"
"""An egg or cocoon a Zerg unit morphs in."""
SUMMON = "summon"
"""A unit made by an ability, not by production (MULE, broodling, interceptor, changeling, creep
tumor, auto-turret, force field, ...)."""
LEGACY = "legacy"
"""In the client's data but not part of the 5.0.11 melee game (campaign, removed or Brood War units)."""
RESOURCE = "resource"
"""A mineral field or vespene geyser (``contents`` is its default amount; a map may set another)."""
DESTRUCTIBLE = "destructible"
"""Rocks, debris, collapsible towers and other neutral structures units can destroy."""
TOWER = "tower"
"""A Xel'Naga watchtower: gives vision to a unit next to it; cannot be attacked."""
ZONE = "zone"
"""An inhibitor or acceleration zone generator (changes the speed of units inside)."""
BEACON = "beacon"
"""A map marker (the mini-games' beacon)."""
KINDS = (UNIT, STRUCTURE, ADDON, MODE, COCOON, SUMMON, LEGACY, RESOURCE, DESTRUCTIBLE, TOWER, ZONE, BEACON)

# Race-wide rates (per normal-speed second).
ZERG_LIFE_REGEN = 0.2734
"""Hit points a Zerg unit or structure regains per second (0.38 per faster second). LP:Zerg."""
LIFE_REGEN: dict[int, float] = {
    108: 1.0,  # Mutalisk
    118: 5.0,  # RoachBurrowed (LP:Roach, "7 per second" faster)
}
"""Unit types whose life regenerates at a rate of their own (per second, all the time, as the Zerg
rate it replaces): the game's balance data, build 94137 (``life.regenRate``, as exported in
sebosp's s2protocol-rs, ``assets/BalanceData/94137/<Unit>.json``); the Mutalisk's 1.0 is the
"1.4 HP/second" (faster) of KB:LLM-PySC2."""
PROTOSS_SHIELD_REGEN = 2.0
"""Shield points a Protoss unit or structure regains per second once regenerating (2.8 per faster
second). LP:Shields."""
PROTOSS_SHIELD_REGEN_DELAY = 10.0
"""Seconds without damage before shields regenerate (7.1 faster seconds). LP:Shields."""
REAPER_LIFE_REGEN = 2.0
"""Hit points a Reaper regains per second out of combat (Combat Drugs; 2.8 per faster second): the
game's balance data, build 94137 (``Reaper``: ``life.regenRate`` 2.0, as exported in sebosp's
s2protocol-rs, ``assets/BalanceData/94137/Reaper.json``; its Zerg units have LP's 0.2734)."""
REAPER_LIFE_REGEN_DELAY = 10.0
"""Seconds without damage before a Reaper regenerates: not in the source read (the export has no
delays); taken as the shields' delay (m)."""
ENERGY_REGEN = 0.5625
"""Energy every caster regains per second (0.7875 per faster second). LP:Energy."""
TERRAN_BURN_FRACTION = 1.0 / 3.0
"""A Terran structure below this fraction of its hit points burns down (LP:Terran); the burn rate
is not known here (m)."""

ARMOR_UPGRADES: dict[str, tuple[tuple[int, ...], float]] = {
    # family: (the client's upgrade ids, level 1..3), armor per level.  LP:Upgrades.
    "TerranInfantryArmor": ((11, 12, 13), 1.0),
    "TerranVehicleAndShipArmor": ((116, 117, 118), 1.0),
    "TerranBuildingArmor": ((6,), 2.0),
    "ZergGroundArmor": ((56, 57, 58), 1.0),
    "ZergFlyerArmor": ((71, 72, 73), 1.0),
    "ProtossGroundArmor": ((42, 43, 44), 1.0),
    "ProtossAirArmor": ((81, 82, 83), 1.0),
}
"""Upgrade families that raise a unit's armor.  Every Protoss unit and structure with shields also
gains ``PROTOSS_SHIELDS`` shield armor per level."""
NEOSTEEL_EXCLUDED = frozenset({31})
"""Terran structures whose armor Neosteel Armor (``TerranBuildingArmor``) does not raise: the
Auto-Turret.  Neosteel Armor "upgrades the armor of structures by 2 (excluding auto-turrets)"
(KB:LLM-PySC2, the Command Center's and the Planetary Fortress's entries): the Auto-Turret's
row has no ``armor_up``."""
PROTOSS_SHIELDS: tuple[tuple[int, ...], float] = ((45, 46, 47), 1.0)
"""Protoss shield upgrades: +1 armor of shields per level, for every Protoss type. LP:Upgrades."""
WEAPON_UPGRADES: dict[str, tuple[int, ...]] = {
    # family: the client's upgrade ids, level 1..3.  LP:Upgrades.  What a level adds is per weapon:
    # WEAPON_FACTS below.
    "TerranInfantryWeapons": (7, 8, 9),
    "TerranVehicleWeapons": (30, 31, 32),
    "TerranShipWeapons": (36, 37, 38),
    "ZergMeleeWeapons": (53, 54, 55),
    "ZergMissileWeapons": (59, 60, 61),
    "ZergFlyerWeapons": (68, 69, 70),
    "ProtossGroundWeapons": (39, 40, 41),
    "ProtossAirWeapons": (78, 79, 80),
}


@dataclass(frozen=True)
class UnitFacts:
    """What the engine needs to know about a unit type beyond ``ResponseData``."""

    unit_id: int
    name: str
    """The client's name (``UnitTypeData.name``)."""
    kind: str
    """One of :data:`KINDS`."""
    hp: float | None
    """Maximum hit points; ``None`` for an object that cannot be attacked."""
    radius: float | None
    """Radius as the observation reports it (``Unit.radius``)."""
    sh: float = 0.0
    """Maximum shields."""
    energy: tuple[float, float] = (0.0, 0.0)
    """(starting energy, maximum energy)."""
    fp: tuple[int, int] | None = None
    """Placement footprint (width, height) in cells, for what is placed on the grid; ``None`` when
    the type is not placed (units) or its shape is not a rectangle (the terrain's masks have it)."""
    flying: bool = False
    detect: float = 0.0
    """Detection range (0: not a detector)."""
    cloaked: bool = False
    """Permanently cloaked (needs detection to be seen or targeted)."""
    burrowed: bool = False
    """A burrowed form: seen and targeted only with detection."""
    cargo: int = 0
    """Transport capacity in cargo slots (``cargo_space_max``)."""
    power: float = 0.0
    """Radius of the power field it projects for Protoss structures."""
    needs: str = ""
    """Where it may be placed beyond free ground: ``"power"``, ``"creep"`` or ``"geyser"``."""
    form_of: int = 0
    """For a :data:`MODE` (and some summons), the ordinary form's unit id."""
    armor_up: str = ""
    """Key of :data:`ARMOR_UPGRADES` that raises its armor ("" none)."""
    weapon_up: str = ""
    """Key of :data:`WEAPON_UPGRADES` that raises its weapons ("" none)."""
    contents: int = 0
    """Default minerals or vespene of a resource."""
    src: str = ""
    """Sources, see the module docstring."""
    m: tuple[str, ...] = ()
    """Fields chosen by us, not known from a source ("(m)")."""


_F = UnitFacts

FACTS_TABLE: tuple[UnitFacts, ...] = (
    # --- Terran
    _F(5, "TechLab", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(6, "Reactor", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(11, "PointDefenseDrone", LEGACY, hp=50, radius=0.625, energy=(200, 200), flying=True, src="TT"),
    _F(18, "CommandCenter", STRUCTURE, hp=1500, radius=2.75, fp=(5, 5), cargo=5, armor_up="TerranBuildingArmor", src="CAP; TT; AB"),
    _F(19, "SupplyDepot", STRUCTURE, hp=400, radius=1.25, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(20, "Refinery", STRUCTURE, hp=500, radius=1.6875, fp=(3, 3), needs="geyser", armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(21, "Barracks", STRUCTURE, hp=1000, radius=1.8125, fp=(3, 3), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(22, "EngineeringBay", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(23, "MissileTurret", STRUCTURE, hp=250, radius=1.125, fp=(2, 2), detect=11, armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(24, "Bunker", STRUCTURE, hp=400, radius=1.8125, fp=(3, 3), cargo=4, armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(25, "SensorTower", STRUCTURE, hp=200, radius=0.75, fp=(1, 1), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(26, "GhostAcademy", STRUCTURE, hp=1250, radius=1.8125, fp=(3, 3), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(27, "Factory", STRUCTURE, hp=1250, radius=1.8125, fp=(3, 3), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(28, "Starport", STRUCTURE, hp=1300, radius=1.8125, fp=(3, 3), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(29, "Armory", STRUCTURE, hp=750, radius=1.8125, fp=(3, 3), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(30, "FusionCore", STRUCTURE, hp=750, radius=1.8125, fp=(3, 3), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(31, "AutoTurret", SUMMON, hp=150, radius=1, fp=(2, 2), src="TT; AB; KB:LLM-PySC2"),  # (NEOSTEEL_EXCLUDED)
    _F(32, "SiegeTankSieged", MODE, hp=175, radius=0.875, form_of=33, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(33, "SiegeTank", UNIT, hp=175, radius=0.875, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(34, "VikingAssault", MODE, hp=135, radius=0.75, form_of=35, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(35, "VikingFighter", UNIT, hp=135, radius=0.75, flying=True, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranShipWeapons", src="TT"),
    _F(36, "CommandCenterFlying", MODE, hp=1500, radius=2.5, flying=True, cargo=5, form_of=18, armor_up="TerranBuildingArmor", src="TT"),
    _F(37, "BarracksTechLab", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(38, "BarracksReactor", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(39, "FactoryTechLab", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(40, "FactoryReactor", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(41, "StarportTechLab", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(42, "StarportReactor", ADDON, hp=400, radius=1.125, fp=(2, 2), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(43, "FactoryFlying", MODE, hp=1250, radius=1.625, flying=True, form_of=27, armor_up="TerranBuildingArmor", src="TT"),
    _F(44, "StarportFlying", MODE, hp=1300, radius=1.625, flying=True, form_of=28, armor_up="TerranBuildingArmor", src="TT"),
    _F(45, "SCV", UNIT, hp=45, radius=0.375, armor_up="TerranInfantryArmor", src="CAP; TT"),
    _F(46, "BarracksFlying", MODE, hp=1000, radius=1.75, flying=True, form_of=21, armor_up="TerranBuildingArmor", src="TT"),
    _F(47, "SupplyDepotLowered", MODE, hp=400, radius=1.25, fp=(2, 2), form_of=19, armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(48, "Marine", UNIT, hp=45, radius=0.375, armor_up="TerranInfantryArmor", weapon_up="TerranInfantryWeapons", src="TT"),
    _F(49, "Reaper", UNIT, hp=60, radius=0.375, armor_up="TerranInfantryArmor", weapon_up="TerranInfantryWeapons", src="TT"),
    _F(50, "Ghost", UNIT, hp=100, radius=0.375, energy=(75, 200), armor_up="TerranInfantryArmor", weapon_up="TerranInfantryWeapons", src="TT"),
    _F(51, "Marauder", UNIT, hp=125, radius=0.5625, armor_up="TerranInfantryArmor", weapon_up="TerranInfantryWeapons", src="TT"),
    _F(52, "Thor", UNIT, hp=400, radius=1, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(53, "Hellion", UNIT, hp=90, radius=0.625, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(54, "Medivac", UNIT, hp=150, radius=0.75, energy=(50, 200), flying=True, cargo=8, armor_up="TerranVehicleAndShipArmor", src="TT"),
    _F(55, "Banshee", UNIT, hp=140, radius=0.75, energy=(50, 200), flying=True, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranShipWeapons", src="TT"),
    _F(56, "Raven", UNIT, hp=140, radius=0.625, energy=(50, 200), flying=True, detect=11, armor_up="TerranVehicleAndShipArmor", src="TT"),
    _F(57, "Battlecruiser", UNIT, hp=550, radius=1.25, flying=True, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranShipWeapons", src="TT"),
    _F(58, "Nuke", SUMMON, hp=100, radius=0.5, flying=True, src="TT"),
    _F(130, "PlanetaryFortress", STRUCTURE, hp=1500, radius=2.75, fp=(5, 5), cargo=5, armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(132, "OrbitalCommand", STRUCTURE, hp=1500, radius=2.75, energy=(50, 200), fp=(5, 5), armor_up="TerranBuildingArmor", src="TT; AB"),
    _F(134, "OrbitalCommandFlying", MODE, hp=1500, radius=2.5, energy=(50, 200), flying=True, form_of=132, armor_up="TerranBuildingArmor", src="TT"),
    _F(144, "GhostAlternate", LEGACY, hp=None, radius=None, armor_up="TerranInfantryArmor", src="not known"),
    _F(145, "GhostNova", LEGACY, hp=100, radius=0.375, energy=(75, 200), armor_up="TerranInfantryArmor", src="TT"),
    _F(152, "ReaperPlaceholder", LEGACY, hp=None, radius=None, src="not known"),
    _F(268, "MULE", SUMMON, hp=60, radius=0.375, armor_up="TerranInfantryArmor", src="TT"),
    _F(484, "HellionTank", UNIT, hp=135, radius=0.625, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(497, "WarHound", LEGACY, hp=220, radius=0.8125, src="TT"),
    _F(498, "WidowMine", UNIT, hp=90, radius=0.5, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(500, "WidowMineBurrowed", MODE, hp=90, radius=0.5, burrowed=True, form_of=498, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(595, "TowerMine", LEGACY, hp=100, radius=0.5, flying=True, src="TT"),
    _F(689, "Liberator", UNIT, hp=180, radius=0.75, flying=True, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranShipWeapons", src="TT"),
    _F(691, "ThorAP", MODE, hp=400, radius=1, form_of=52, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(692, "Cyclone", UNIT, hp=120, radius=0.75, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranVehicleWeapons", src="TT"),
    _F(734, "LiberatorAG", MODE, hp=180, radius=0.75, flying=True, form_of=689, armor_up="TerranVehicleAndShipArmor", weapon_up="TerranShipWeapons", src="TT"),
    _F(807, "ThorAALance", LEGACY, hp=10, radius=None, src="TT"),
    _F(820, "HERCPlacement", LEGACY, hp=80, radius=0.6875, src="TT"),
    _F(830, "KD8Charge", SUMMON, hp=None, radius=None, src="LP:Reaper (a grenade: cannot be attacked)"),
    _F(838, "HERC", LEGACY, hp=80, radius=0.6875, src="TT"),
    _F(891, "Elsecaro_Colonist_Hut", LEGACY, hp=200, radius=2.125, src="TT"),
    _F(895, "BypassArmorDrone", LEGACY, hp=80, radius=0.625, flying=True, src="TT"),
    _F(1913, "RavenRepairDrone", LEGACY, hp=50, radius=0.625, energy=(200, 200), flying=True, src="TT"),
    _F(1940, "Viking", LEGACY, hp=1, radius=0.5, src="TT"),
    _F(1943, "RefineryRich", STRUCTURE, hp=500, radius=1.6875, fp=(3, 3), needs="geyser", armor_up="TerranBuildingArmor", src="TT; AB"),
    # --- Zerg
    _F(7, "InfestorTerran", LEGACY, hp=75, radius=0.375, src="TT"),
    _F(8, "BanelingCocoon", COCOON, hp=50, radius=0.375, src="TT"),
    _F(9, "Baneling", UNIT, hp=30, radius=0.375, armor_up="ZergGroundArmor", weapon_up="ZergMeleeWeapons", src="TT"),
    _F(12, "Changeling", SUMMON, hp=5, radius=0.375, armor_up="ZergGroundArmor", src="TT"),
    _F(13, "ChangelingZealot", SUMMON, hp=100, radius=0.5, sh=50, armor_up="ZergGroundArmor", src="TT"),
    _F(14, "ChangelingMarineShield", SUMMON, hp=55, radius=0.375, armor_up="ZergGroundArmor", src="TT"),
    _F(15, "ChangelingMarine", SUMMON, hp=45, radius=0.375, armor_up="ZergGroundArmor", src="TT"),
    _F(16, "ChangelingZerglingWings", SUMMON, hp=35, radius=0.375, armor_up="ZergGroundArmor", src="TT"),
    _F(17, "ChangelingZergling", SUMMON, hp=35, radius=0.375, armor_up="ZergGroundArmor", src="TT"),
    _F(86, "Hatchery", STRUCTURE, hp=1500, radius=2.75, fp=(5, 5), src="TT; AB"),
    _F(87, "CreepTumor", SUMMON, hp=50, radius=1, fp=(1, 1), needs="creep", src="TT; AB"),
    _F(88, "Extractor", STRUCTURE, hp=500, radius=1.6875, fp=(3, 3), needs="geyser", src="TT; AB"),
    _F(89, "SpawningPool", STRUCTURE, hp=1000, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(90, "EvolutionChamber", STRUCTURE, hp=750, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(91, "HydraliskDen", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(92, "Spire", STRUCTURE, hp=850, radius=1.125, fp=(2, 2), needs="creep", src="TT; AB"),
    _F(93, "UltraliskCavern", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(94, "InfestationPit", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(95, "NydusNetwork", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), cargo=1020, needs="creep", src="TT; AB"),
    _F(96, "BanelingNest", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(97, "RoachWarren", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(98, "SpineCrawler", STRUCTURE, hp=300, radius=1.125, fp=(2, 2), needs="creep", src="TT; AB"),
    _F(99, "SporeCrawler", STRUCTURE, hp=400, radius=0.875, fp=(2, 2), detect=11, needs="creep", src="TT; AB"),
    _F(100, "Lair", STRUCTURE, hp=2000, radius=2.75, fp=(5, 5), src="TT; AB"),
    _F(101, "Hive", STRUCTURE, hp=2500, radius=2.75, fp=(5, 5), src="TT; AB"),
    _F(102, "GreaterSpire", STRUCTURE, hp=1000, radius=1.125, fp=(2, 2), needs="creep", src="TT; AB"),
    _F(103, "Egg", COCOON, hp=200, radius=0.125, src="TT"),
    _F(104, "Drone", UNIT, hp=40, radius=0.375, armor_up="ZergGroundArmor", src="TT"),
    _F(105, "Zergling", UNIT, hp=35, radius=0.375, armor_up="ZergGroundArmor", weapon_up="ZergMeleeWeapons", src="TT"),
    _F(106, "Overlord", UNIT, hp=200, radius=1, flying=True, armor_up="ZergFlyerArmor", src="TT"),
    _F(107, "Hydralisk", UNIT, hp=90, radius=0.625, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(108, "Mutalisk", UNIT, hp=120, radius=0.5, flying=True, armor_up="ZergFlyerArmor", weapon_up="ZergFlyerWeapons", src="TT"),
    _F(109, "Ultralisk", UNIT, hp=500, radius=1, armor_up="ZergGroundArmor", weapon_up="ZergMeleeWeapons", src="TT"),
    _F(110, "Roach", UNIT, hp=145, radius=0.5, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(111, "Infestor", UNIT, hp=90, radius=0.625, energy=(50, 200), armor_up="ZergGroundArmor", src="TT"),
    _F(112, "Corruptor", UNIT, hp=200, radius=0.625, flying=True, armor_up="ZergFlyerArmor", weapon_up="ZergFlyerWeapons", src="TT"),
    _F(113, "BroodLordCocoon", COCOON, hp=200, radius=0.625, flying=True, src="TT"),
    _F(114, "BroodLord", UNIT, hp=225, radius=1, flying=True, armor_up="ZergFlyerArmor", weapon_up="ZergFlyerWeapons", src="TT"),
    _F(115, "BanelingBurrowed", MODE, hp=30, radius=0.375, burrowed=True, form_of=9, armor_up="ZergGroundArmor", weapon_up="ZergMeleeWeapons", src="TT"),
    _F(116, "DroneBurrowed", MODE, hp=40, radius=0.375, burrowed=True, form_of=104, armor_up="ZergGroundArmor", src="TT"),
    _F(117, "HydraliskBurrowed", MODE, hp=90, radius=0.625, burrowed=True, form_of=107, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(118, "RoachBurrowed", MODE, hp=145, radius=0.5, burrowed=True, form_of=110, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(119, "ZerglingBurrowed", MODE, hp=35, radius=0.375, burrowed=True, form_of=105, armor_up="ZergGroundArmor", weapon_up="ZergMeleeWeapons", src="TT"),
    _F(120, "InfestorTerranBurrowed", LEGACY, hp=75, radius=0.375, burrowed=True, form_of=7, src="TT"),
    _F(125, "QueenBurrowed", MODE, hp=175, radius=0.875, energy=(60, 200), burrowed=True, form_of=126, armor_up="ZergGroundArmor", src="TT"),
    _F(126, "Queen", UNIT, hp=175, radius=0.875, energy=(25, 200), armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(127, "InfestorBurrowed", MODE, hp=90, radius=0.625, energy=(50, 200), burrowed=True, form_of=111, armor_up="ZergGroundArmor", src="TT"),
    _F(128, "OverlordCocoon", COCOON, hp=200, radius=0.625, flying=True, src="TT"),
    _F(129, "Overseer", UNIT, hp=200, radius=1, energy=(50, 200), flying=True, detect=11, armor_up="ZergFlyerArmor", src="TT"),
    _F(131, "UltraliskBurrowed", MODE, hp=500, radius=1, burrowed=True, form_of=109, armor_up="ZergGroundArmor", src="TT"),
    _F(137, "CreepTumorBurrowed", MODE, hp=50, radius=1, fp=(1, 1), burrowed=True, form_of=87, src="TT; AB"),
    _F(138, "CreepTumorQueen", SUMMON, hp=50, radius=1, fp=(1, 1), needs="creep", src="TT; AB"),
    _F(139, "SpineCrawlerUprooted", MODE, hp=300, radius=0.5, form_of=98, src="TT"),
    _F(140, "SporeCrawlerUprooted", MODE, hp=400, radius=0.5, form_of=99, src="TT"),
    _F(142, "NydusCanal", STRUCTURE, hp=300, radius=1.125, fp=(3, 3), cargo=1020, src="TT; AB"),
    _F(143, "BroodlingEscort", SUMMON, hp=None, radius=None, flying=True, src="LP:Brood_Lord (rides with its Brood Lord: cannot be attacked)"),
    _F(150, "InfestedTerransEgg", LEGACY, hp=75, radius=0.375, src="TT"),
    _F(151, "Larva", UNIT, hp=25, radius=0.125, armor_up="ZergGroundArmor", src="TT"),
    _F(289, "Broodling", SUMMON, hp=30, radius=0.375, armor_up="ZergGroundArmor", weapon_up="ZergMeleeWeapons", src="TT"),
    _F(339, "InfestedTerransEggPlacement", LEGACY, hp=1, radius=0.375, src="TT"),
    _F(489, "LocustMP", SUMMON, hp=50, radius=0.375, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(491, "NydusCanalAttacker", LEGACY, hp=200, radius=1.125, fp=(2, 2), src="TT; AB"),
    _F(492, "NydusCanalCreeper", LEGACY, hp=200, radius=1.125, src="TT"),
    _F(493, "SwarmHostBurrowedMP", MODE, hp=160, radius=0.8125, burrowed=True, form_of=494, armor_up="ZergGroundArmor", src="TT"),
    _F(494, "SwarmHostMP", UNIT, hp=160, radius=0.8125, armor_up="ZergGroundArmor", src="TT"),
    _F(499, "Viper", UNIT, hp=150, radius=1, energy=(50, 200), flying=True, armor_up="ZergFlyerArmor", src="TT"),
    _F(501, "LurkerMPEgg", COCOON, hp=100, radius=0.5, src="TT"),
    _F(502, "LurkerMP", UNIT, hp=200, radius=0.9375, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(503, "LurkerMPBurrowed", MODE, hp=200, radius=0.75, burrowed=True, form_of=502, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(504, "LurkerDenMP", STRUCTURE, hp=850, radius=1.8125, fp=(3, 3), needs="creep", src="TT; AB"),
    _F(687, "RavagerCocoon", COCOON, hp=100, radius=0.75, src="TT"),
    _F(688, "Ravager", UNIT, hp=120, radius=0.75, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(690, "RavagerBurrowed", MODE, hp=120, radius=0.75, burrowed=True, form_of=688, armor_up="ZergGroundArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(693, "LocustMPFlying", SUMMON, hp=50, radius=0.375, flying=True, armor_up="ZergFlyerArmor", weapon_up="ZergMissileWeapons", src="TT"),
    _F(726, "GuardianCocoonMP", LEGACY, hp=200, radius=0.625, flying=True, src="TT"),
    _F(727, "GuardianMP", LEGACY, hp=150, radius=1, flying=True, src="TT"),
    _F(728, "DevourerCocoonMP", LEGACY, hp=200, radius=0.625, flying=True, src="TT"),
    _F(729, "DevourerMP", LEGACY, hp=250, radius=0.875, flying=True, src="TT"),
    _F(730, "DefilerMPBurrowed", LEGACY, hp=80, radius=0.75, energy=(50, 200), burrowed=True, src="TT"),
    _F(731, "DefilerMP", LEGACY, hp=80, radius=0.75, energy=(50, 200), src="TT"),
    _F(824, "ParasiticBombDummy", LEGACY, hp=None, radius=None, src="not known"),
    _F(858, "ScourgeMP", LEGACY, hp=25, radius=0.5, flying=True, src="TT"),
    _F(860, "QueenMP", LEGACY, hp=150, radius=0.75, energy=(50, 200), flying=True, src="TT"),
    _F(892, "TransportOverlordCocoon", COCOON, hp=200, radius=0.625, flying=True, src="TT"),
    _F(893, "OverlordTransport", UNIT, hp=200, radius=1, flying=True, cargo=8, armor_up="ZergFlyerArmor", src="TT"),
    _F(1912, "OverseerSiegeMode", MODE, hp=200, radius=1, energy=(50, 200), flying=True, detect=13.75, form_of=129, armor_up="ZergFlyerArmor", src="TT"),
    _F(1995, "ExtractorRich", STRUCTURE, hp=500, radius=1.6875, fp=(3, 3), needs="geyser", src="TT; AB"),
    # --- Protoss
    _F(4, "Colossus", UNIT, hp=200, radius=1, sh=150, armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(10, "Mothership", UNIT, hp=350, radius=1.375, sh=350, energy=(50, 200), flying=True, armor_up="ProtossAirArmor", weapon_up="ProtossAirWeapons", src="TT"),
    _F(59, "Nexus", STRUCTURE, hp=1000, radius=2.75, sh=1000, energy=(50, 200), fp=(5, 5), src="TT; AB"),
    _F(60, "Pylon", STRUCTURE, hp=200, radius=1.125, sh=200, fp=(2, 2), power=6.5, src="TT; AB"),
    _F(61, "Assimilator", STRUCTURE, hp=300, radius=1.6875, sh=300, fp=(3, 3), needs="geyser", src="TT; AB"),
    _F(62, "Gateway", STRUCTURE, hp=500, radius=1.8125, sh=500, fp=(3, 3), needs="power", src="TT; AB"),
    _F(63, "Forge", STRUCTURE, hp=400, radius=1.8125, sh=400, fp=(3, 3), needs="power", src="TT; AB"),
    _F(64, "FleetBeacon", STRUCTURE, hp=500, radius=1.8125, sh=500, fp=(3, 3), needs="power", src="TT; AB"),
    _F(65, "TwilightCouncil", STRUCTURE, hp=500, radius=1.8125, sh=500, fp=(3, 3), needs="power", src="TT; AB"),
    _F(66, "PhotonCannon", STRUCTURE, hp=150, radius=1.125, sh=150, fp=(2, 2), detect=11, needs="power", src="TT; AB"),
    _F(67, "Stargate", STRUCTURE, hp=600, radius=1.8125, sh=600, fp=(3, 3), needs="power", src="TT; AB"),
    _F(68, "TemplarArchive", STRUCTURE, hp=500, radius=1.8125, sh=500, fp=(3, 3), needs="power", src="TT; AB"),
    _F(69, "DarkShrine", STRUCTURE, hp=500, radius=1.5, sh=500, fp=(2, 2), needs="power", src="TT; AB"),
    _F(70, "RoboticsBay", STRUCTURE, hp=500, radius=1.8125, sh=500, fp=(3, 3), needs="power", src="TT; AB"),
    _F(71, "RoboticsFacility", STRUCTURE, hp=450, radius=1.8125, sh=450, fp=(3, 3), needs="power", src="TT; AB"),
    _F(72, "CyberneticsCore", STRUCTURE, hp=550, radius=1.8125, sh=550, fp=(3, 3), needs="power", src="TT; AB"),
    _F(73, "Zealot", UNIT, hp=100, radius=0.5, sh=50, armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(74, "Stalker", UNIT, hp=80, radius=0.625, sh=80, armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(75, "HighTemplar", UNIT, hp=40, radius=0.375, sh=40, energy=(50, 200), armor_up="ProtossGroundArmor", src="TT"),
    _F(76, "DarkTemplar", UNIT, hp=40, radius=0.375, sh=80, cloaked=True, armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(77, "Sentry", UNIT, hp=40, radius=0.5, sh=40, energy=(50, 200), armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(78, "Phoenix", UNIT, hp=120, radius=0.75, sh=60, energy=(50, 200), flying=True, armor_up="ProtossAirArmor", weapon_up="ProtossAirWeapons", src="TT"),
    _F(79, "Carrier", UNIT, hp=300, radius=1.25, sh=150, flying=True, armor_up="ProtossAirArmor", weapon_up="ProtossAirWeapons", src="TT"),
    _F(80, "VoidRay", UNIT, hp=150, radius=1, sh=100, flying=True, armor_up="ProtossAirArmor", weapon_up="ProtossAirWeapons", src="TT"),
    _F(81, "WarpPrism", UNIT, hp=80, radius=0.875, sh=100, flying=True, cargo=8, armor_up="ProtossAirArmor", src="TT"),
    _F(82, "Observer", UNIT, hp=40, radius=0.5, sh=20, flying=True, detect=11, cloaked=True, armor_up="ProtossAirArmor", src="TT"),
    _F(83, "Immortal", UNIT, hp=200, radius=0.75, sh=100, armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(84, "Probe", UNIT, hp=20, radius=0.375, sh=20, armor_up="ProtossGroundArmor", src="TT"),
    _F(85, "Interceptor", SUMMON, hp=40, radius=0.25, sh=40, flying=True, armor_up="ProtossAirArmor", weapon_up="ProtossAirWeapons", src="TT"),
    _F(133, "WarpGate", STRUCTURE, hp=500, radius=1.8125, sh=500, fp=(3, 3), needs="power", src="TT; AB"),
    _F(135, "ForceField", SUMMON, hp=None, radius=None, src="LP:Sentry (cannot be attacked; its radius is not known here)"),
    _F(136, "WarpPrismPhasing", MODE, hp=80, radius=0.875, sh=100, flying=True, cargo=8, power=3.75, form_of=81, armor_up="ProtossAirArmor", src="TT"),
    _F(141, "Archon", UNIT, hp=10, radius=1, sh=350, armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(311, "Adept", UNIT, hp=70, radius=0.5, sh=70, armor_up="ProtossGroundArmor", weapon_up="ProtossGroundWeapons", src="TT"),
    _F(488, "MothershipCore", LEGACY, hp=130, radius=1, sh=60, energy=(50, 200), flying=True, src="TT"),
    _F(495, "Oracle", UNIT, hp=100, radius=0.75, sh=60, energy=(50, 200), flying=True, armor_up="ProtossAirArmor", src="TT"),
    _F(496, "Tempest", UNIT, hp=200, radius=1.25, sh=100, flying=True, armor_up="ProtossAirArmor", weapon_up="ProtossAirWeapons", src="TT"),
    _F(593, "IceProtossCrates", LEGACY, hp=10, radius=0.75, src="TT"),
    _F(594, "ProtossCrates", LEGACY, hp=10, radius=0.75, src="TT"),
    _F(694, "Disruptor", UNIT, hp=100, radius=0.5, sh=100, armor_up="ProtossGroundArmor", src="TT"),
    _F(725, "VoidMPImmortalReviveCorpse", LEGACY, hp=200, radius=0.75, src="TT"),
    _F(732, "OracleStasisTrap", SUMMON, hp=30, radius=0.4375, sh=30, fp=(1, 1), cloaked=True, src="TT; AB; LP:Stasis_Ward"),
    _F(733, "DisruptorPhased", SUMMON, hp=100, radius=0.5, sh=100, src="TT"),
    _F(800, "ReleaseInterceptorsBeacon", SUMMON, hp=1, radius=1.5, flying=True, src="TT"),
    _F(801, "AdeptPhaseShift", SUMMON, hp=90, radius=0.5, sh=50, src="TT"),
    _F(840, "Replicant", LEGACY, hp=100, radius=0.5, sh=150, src="TT"),
    _F(855, "CorsairMP", LEGACY, hp=120, radius=0.75, sh=60, flying=True, src="TT"),
    _F(856, "ScoutMP", LEGACY, hp=150, radius=0.75, sh=100, flying=True, src="TT"),
    _F(857, "ArbiterMP", LEGACY, hp=200, radius=1, sh=150, energy=(50, 200), flying=True, src="TT"),
    _F(894, "PylonOvercharged", LEGACY, hp=200, radius=1.125, sh=200, fp=(2, 2), power=6.5, src="TT; AB"),
    _F(1910, "ShieldBattery", STRUCTURE, hp=150, radius=1.125, sh=150, energy=(100, 100), fp=(2, 2), needs="power", src="TT; AB"),
    _F(1911, "ObserverSiegeMode", MODE, hp=40, radius=0.5, sh=20, flying=True, detect=13.75, cloaked=True, form_of=82, armor_up="ProtossAirArmor", src="TT"),
    _F(1994, "AssimilatorRich", STRUCTURE, hp=300, radius=1.6875, sh=300, fp=(3, 3), needs="geyser", src="TT; AB"),
    # --- Neutral map objects
    _F(146, "RichMineralField", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=1800, src="CAP; LP:Minerals", m=("hp", "contents")),
    _F(147, "RichMineralField750", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=900, src="CAP; LP:Minerals", m=("hp", "contents")),
    _F(341, "MineralField", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=1800, src="CAP; LP:Minerals"),
    _F(342, "VespeneGeyser", RESOURCE, hp=10000, radius=1.5, fp=(3, 3), contents=2250, src="CAP; LP:Vespene_Gas"),
    _F(343, "SpacePlatformGeyser", RESOURCE, hp=10000, radius=1.5, fp=(3, 3), contents=2250, src="CAP; LP:Vespene_Gas"),
    _F(344, "RichVespeneGeyser", RESOURCE, hp=10000, radius=1.5, fp=(3, 3), contents=2250, src="CAP; LP:Vespene_Gas", m=("hp", "contents")),
    _F(483, "MineralField750", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=900, src="CAP; LP:Minerals"),
    _F(608, "ProtossVespeneGeyser", RESOURCE, hp=10000, radius=1.5, fp=(3, 3), contents=2250, src="CAP; LP:Vespene_Gas"),
    _F(665, "LabMineralField", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=1800, src="CAP; LP:Minerals"),
    _F(666, "LabMineralField750", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=900, src="CAP; LP:Minerals"),
    _F(796, "PurifierRichMineralField", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=1800, src="CAP; LP:Minerals", m=("hp", "contents")),
    _F(797, "PurifierRichMineralField750", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=900, src="CAP; LP:Minerals", m=("hp", "contents")),
    _F(880, "PurifierVespeneGeyser", RESOURCE, hp=10000, radius=1.5, fp=(3, 3), contents=2250, src="CAP; LP:Vespene_Gas"),
    _F(881, "ShakurasVespeneGeyser", RESOURCE, hp=10000, radius=1.5, fp=(3, 3), contents=2250, src="CAP; LP:Vespene_Gas"),
    _F(884, "PurifierMineralField", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=1800, src="CAP; LP:Minerals"),
    _F(885, "PurifierMineralField750", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=900, src="CAP; LP:Minerals"),
    _F(886, "BattleStationMineralField", RESOURCE, hp=10000, radius=None, fp=(2, 1), contents=1800, src="LP:Minerals", m=("hp", "contents")),
    _F(887, "BattleStationMineralField750", RESOURCE, hp=10000, radius=None, fp=(2, 1), contents=900, src="LP:Minerals", m=("hp", "contents")),
    _F(1996, "MineralField450", RESOURCE, hp=10000, radius=1.125, fp=(2, 1), contents=450, src="CAP; LP:Minerals", m=("hp", "contents")),
    _F(1997, "MineralFieldOpaque", RESOURCE, hp=10000, radius=None, fp=(2, 1), contents=1800, src="LP:Minerals", m=("hp", "contents")),
    _F(1998, "MineralFieldOpaque900", RESOURCE, hp=10000, radius=None, fp=(2, 1), contents=900, src="LP:Minerals", m=("hp", "contents")),
    _F(1680, "NaturalMinerals", RESOURCE, hp=None, radius=0.5, src="ENGINE", m=("radius",)),
    _F(149, "XelNagaTower", TOWER, hp=None, radius=1.125, fp=(2, 2), src="CAP; LP:Xel%27Naga_Tower", m=("fp",)),
    _F(1982, "InhibitorZoneSmall", ZONE, hp=None, radius=0, src="CAP"),
    _F(1983, "InhibitorZoneMedium", ZONE, hp=None, radius=0, src="CAP"),
    _F(1984, "InhibitorZoneLarge", ZONE, hp=None, radius=None, src="(m)"),
    _F(1985, "AccelerationZoneSmall", ZONE, hp=None, radius=0, src="CAP"),
    _F(1986, "AccelerationZoneMedium", ZONE, hp=None, radius=None, src="(m)"),
    _F(1987, "AccelerationZoneLarge", ZONE, hp=None, radius=0, src="CAP"),
    _F(1988, "AccelerationZoneFlyingSmall", ZONE, hp=None, radius=None, src="(m)"),
    _F(1989, "AccelerationZoneFlyingMedium", ZONE, hp=None, radius=None, src="(m)"),
    _F(1990, "AccelerationZoneFlyingLarge", ZONE, hp=None, radius=None, src="(m)"),
    _F(1991, "InhibitorZoneFlyingSmall", ZONE, hp=None, radius=None, src="(m)"),
    _F(1992, "InhibitorZoneFlyingMedium", ZONE, hp=None, radius=None, src="(m)"),
    _F(1993, "InhibitorZoneFlyingLarge", ZONE, hp=None, radius=None, src="(m)"),
    _F(317, "Beacon_Terran", BEACON, hp=None, radius=1, src="ENGINE", m=("radius",)),
    _F(312, "Rocks2x2NonConjoined", DESTRUCTIBLE, hp=400, radius=1.4375, fp=(2, 2), src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(358, "DestructibleGarage", DESTRUCTIBLE, hp=400, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(359, "DestructibleGarageLarge", DESTRUCTIBLE, hp=600, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(362, "BraxisAlphaDestructible1x1", DESTRUCTIBLE, hp=1500, radius=None, fp=(1, 1), src="LP:Destructible_Rocks; BD:94137"),
    _F(363, "BraxisAlphaDestructible2x2", DESTRUCTIBLE, hp=1500, radius=None, fp=(2, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(364, "DestructibleDebris4x4", DESTRUCTIBLE, hp=2000, radius=2.25, fp=(4, 4), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(365, "DestructibleDebris6x6", DESTRUCTIBLE, hp=2000, radius=3.1875, fp=(6, 6), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(366, "DestructibleRock2x4Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 4), src="LP:Destructible_Rocks; BD:94137"),
    _F(367, "DestructibleRock2x4Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(4, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(368, "DestructibleRock2x6Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 6), src="LP:Destructible_Rocks; BD:94137"),
    _F(369, "DestructibleRock2x6Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(6, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(370, "DestructibleRock4x4", DESTRUCTIBLE, hp=2000, radius=2.25, fp=(4, 4), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(371, "DestructibleRock6x6", DESTRUCTIBLE, hp=2000, radius=3.1875, fp=(6, 6), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(372, "DestructibleRampDiagonalHugeULBR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(373, "DestructibleRampDiagonalHugeBLUR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(374, "DestructibleRampVerticalHuge", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(375, "DestructibleRampHorizontalHuge", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(376, "DestructibleDebrisRampDiagonalHugeULBR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(377, "DestructibleDebrisRampDiagonalHugeBLUR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(379, "MengskStatueAlone", DESTRUCTIBLE, hp=150, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(380, "MengskStatue", DESTRUCTIBLE, hp=200, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(381, "WolfStatue", DESTRUCTIBLE, hp=150, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(382, "GlobeStatue", DESTRUCTIBLE, hp=150, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(472, "UnbuildableRocksDestructible", DESTRUCTIBLE, hp=400, radius=1.125, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(473, "UnbuildableBricksDestructible", DESTRUCTIBLE, hp=400, radius=1.125, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(474, "UnbuildablePlatesDestructible", DESTRUCTIBLE, hp=400, radius=1.125, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(475, "Debris2x2NonConjoined", DESTRUCTIBLE, hp=400, radius=1.4375, fp=(2, 2), src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(485, "CollapsibleTerranTowerDebris", DESTRUCTIBLE, hp=2000, radius=2.9375, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(486, "DebrisRampLeft", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(487, "DebrisRampRight", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(490, "CollapsibleRockTowerDebris", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(517, "CollapsibleRockTowerDebrisRampRight", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(518, "CollapsibleRockTowerDebrisRampLeft", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(588, "CollapsibleRockTowerDiagonal", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(589, "CollapsibleTerranTowerDiagonal", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(590, "CollapsibleTerranTowerRampLeft", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(591, "CollapsibleTerranTowerRampRight", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(592, "Ice2x2NonConjoined", DESTRUCTIBLE, hp=400, radius=None, fp=(2, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(609, "CollapsibleRockTower", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(610, "CollapsibleTerranTower", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(613, "DestructibleRock6x6Weak", DESTRUCTIBLE, hp=100, radius=None, fp=(6, 6), src="TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(624, "DestructibleCityDebris2x4Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 4), src="LP:Destructible_Rocks; BD:94137"),
    _F(625, "DestructibleCityDebris2x4Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(4, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(626, "DestructibleCityDebris2x6Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 6), src="LP:Destructible_Rocks; BD:94137"),
    _F(627, "DestructibleCityDebris2x6Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(6, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(628, "DestructibleCityDebris4x4", DESTRUCTIBLE, hp=2000, radius=2.25, fp=(4, 4), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(629, "DestructibleCityDebris6x6", DESTRUCTIBLE, hp=2000, radius=3.1875, fp=(6, 6), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(630, "DestructibleCityDebrisHugeDiagonalBLUR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(631, "DestructibleCityDebrisHugeDiagonalULBR", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(634, "DestructibleRockEx12x4Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 4), src="LP:Destructible_Rocks; BD:94137"),
    _F(635, "DestructibleRockEx12x4Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(4, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(636, "DestructibleRockEx12x6Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 6), src="LP:Destructible_Rocks; BD:94137"),
    _F(637, "DestructibleRockEx12x6Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(6, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(638, "DestructibleRockEx14x4", DESTRUCTIBLE, hp=2000, radius=2.25, fp=(4, 4), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(639, "DestructibleRockEx16x6", DESTRUCTIBLE, hp=2000, radius=3.1875, fp=(6, 6), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(640, "DestructibleRockEx1DiagonalHugeULBR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(641, "DestructibleRockEx1DiagonalHugeBLUR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(642, "DestructibleRockEx1VerticalHuge", DESTRUCTIBLE, hp=2000, radius=6.125, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(643, "DestructibleRockEx1HorizontalHuge", DESTRUCTIBLE, hp=2000, radius=6.125, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(644, "DestructibleIce2x4Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 4), src="LP:Destructible_Rocks; BD:94137"),
    _F(645, "DestructibleIce2x4Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(4, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(646, "DestructibleIce2x6Vertical", DESTRUCTIBLE, hp=2000, radius=None, fp=(2, 6), src="LP:Destructible_Rocks; BD:94137"),
    _F(647, "DestructibleIce2x6Horizontal", DESTRUCTIBLE, hp=2000, radius=None, fp=(6, 2), src="LP:Destructible_Rocks; BD:94137"),
    _F(648, "DestructibleIce4x4", DESTRUCTIBLE, hp=2000, radius=2.25, fp=(4, 4), src="CAP; TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(649, "DestructibleIce6x6", DESTRUCTIBLE, hp=2000, radius=None, fp=(6, 6), src="TL:395769; LP:Destructible_Rocks; BD:94137"),
    _F(650, "DestructibleIceDiagonalHugeULBR", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(651, "DestructibleIceDiagonalHugeBLUR", DESTRUCTIBLE, hp=2000, radius=5.875, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(652, "DestructibleIceVerticalHuge", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(653, "DestructibleIceHorizontalHuge", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(658, "ZerusDestructibleArch", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(663, "CollapsibleRockTowerRampRight", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(664, "CollapsibleRockTowerRampLeft", DESTRUCTIBLE, hp=500, radius=2.9375, src="CAP; TL:395769; BD:94137"),
    _F(747, "CollapsiblePurifierTowerDebris", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(836, "DestructibleExpeditionGate6x6", DESTRUCTIBLE, hp=2000, radius=None, fp=(6, 6), src="LP:Destructible_Rocks; BD:94137"),
    _F(837, "DestructibleZergInfestation3x3", DESTRUCTIBLE, hp=2000, radius=None, fp=(3, 3), src="LP:Destructible_Rocks; BD:94137"),
    _F(861, "XelNagaDestructibleRampBlocker6S", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(862, "XelNagaDestructibleRampBlocker6SE", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(863, "XelNagaDestructibleRampBlocker6E", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(864, "XelNagaDestructibleRampBlocker6NE", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(865, "XelNagaDestructibleRampBlocker6N", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(866, "XelNagaDestructibleRampBlocker6NW", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(867, "XelNagaDestructibleRampBlocker6W", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(868, "XelNagaDestructibleRampBlocker6SW", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(869, "XelNagaDestructibleRampBlocker8S", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(870, "XelNagaDestructibleRampBlocker8SE", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(871, "XelNagaDestructibleRampBlocker8E", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(872, "XelNagaDestructibleRampBlocker8NE", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(873, "XelNagaDestructibleRampBlocker8N", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(874, "XelNagaDestructibleRampBlocker8NW", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(875, "XelNagaDestructibleRampBlocker8W", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(876, "XelNagaDestructibleRampBlocker8SW", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(882, "CollapsiblePurifierTowerDiagonal", DESTRUCTIBLE, hp=500, radius=None, src="TL:395769; BD:94137"),
    _F(1893, "XelNagaDestructibleBlocker6S", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1894, "XelNagaDestructibleBlocker6SE", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1895, "XelNagaDestructibleBlocker6E", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1896, "XelNagaDestructibleBlocker6NE", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1897, "XelNagaDestructibleBlocker6N", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1898, "XelNagaDestructibleBlocker6NW", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1899, "XelNagaDestructibleBlocker6W", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1900, "XelNagaDestructibleBlocker6SW", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1901, "XelNagaDestructibleBlocker8S", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1902, "XelNagaDestructibleBlocker8SE", DESTRUCTIBLE, hp=2000, radius=4.5, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(1903, "XelNagaDestructibleBlocker8E", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1904, "XelNagaDestructibleBlocker8NE", DESTRUCTIBLE, hp=2000, radius=4.5, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(1905, "XelNagaDestructibleBlocker8N", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1906, "XelNagaDestructibleBlocker8NW", DESTRUCTIBLE, hp=2000, radius=4.5, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(1907, "XelNagaDestructibleBlocker8W", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(1908, "XelNagaDestructibleBlocker8SW", DESTRUCTIBLE, hp=2000, radius=4.5, src="CAP; LP:Destructible_Rocks; BD:94137"),
    _F(2036, "CollapsibleRockTowerDebrisRampLeftGreen", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(2037, "CollapsibleRockTowerDebrisRampRightGreen", DESTRUCTIBLE, hp=2000, radius=None, src="LP:Destructible_Rocks; BD:94137"),
    _F(2040, "CollapsibleRockTowerRampLeftGreen", DESTRUCTIBLE, hp=500, radius=None, src="TL:395769; BD:94137"),
    _F(2041, "CollapsibleRockTowerRampRightGreen", DESTRUCTIBLE, hp=500, radius=None, src="TL:395769; BD:94137"),
)
FACTS: dict[int, UnitFacts] = {f.unit_id: f for f in FACTS_TABLE}


@dataclass(frozen=True)
class WeaponFacts:
    """Engine facts of one weapon (in the order ``UnitTypeData.weapons`` lists them)."""

    per_level: tuple[float, float] | None
    """(damage, attribute bonus) each weapon upgrade level adds; ``None`` when not known."""
    damage_point: float | None = None
    """Normal-speed seconds from the start of an attack to the hit (or the launch)."""
    projectile_speed: float | None = None
    """Distance per normal-speed second of the missile; 0 hits at once."""
    src: str = ""
    m: tuple[str, ...] = ()
    bonus_per_level: tuple[tuple[int, float], ...] = ()
    """For a weapon with several attribute bonuses: (attribute, what a level adds to that bonus),
    where it differs from ``per_level``'s bonus."""


_W = WeaponFacts
_TIMING_M = ("damage_point", "projectile_speed")
WEAPON_FACTS: dict[int, tuple[WeaponFacts, ...]] = {
    # Upgrade steps: LP:<unit> ("13 (+1) (+5 (+1) vs Armored)" is (1, 1)).  Weapon timing is known
    # for the mini-games' units only, as commonly quoted (m); elsewhere None.
    # --- Terran
    48: (_W((1, 0), 0.05, 0.0, "LP:Marine", _TIMING_M),),
    49: (_W((1, 0), src="LP:Reaper"),),
    50: (_W((1, 1), src="LP:Ghost"),),
    51: (_W((1, 1), 0.0, 15.0, "LP:Marauder", _TIMING_M),),
    52: (_W((1, 1), src="LP:Thor"), _W((3, 0), src="LP:Thor")),
    691: (_W(None, src="LP:Thor", m=("per_level",)), _W((3, 0), src="LP:Thor")),
    53: (_W((1, 1), src="LP:Hellion"),),
    484: (_W((2, 0), src="LP:Hellbat"),),
    33: (_W((2, 1), src="LP:Siege_Tank"),),
    32: (_W((4, 1), src="LP:Siege_Tank"),),
    692: (_W(None, src="LP:Cyclone", m=("per_level",)),),
    35: (_W((1, 0), src="LP:Viking"),),
    34: (_W((1, 0), src="LP:Viking"),),
    55: (_W((1, 0), src="LP:Banshee"),),
    57: (_W((1, 0), src="LP:Battlecruiser"),),
    689: (_W((1, 0), src="LP:Liberator"),),
    734: (_W((5, 0), src="LP:Liberator"),),
    45: (_W((0, 0), src="LP:SCV"),),
    # --- Zerg
    105: (_W((1, 0), 0.1193, 0.0, "LP:Zergling", _TIMING_M),),
    # the engine's own explosion weapon: 16 (+2) (+19 (+2) vs Light), 80 (+5) vs Structure (64 (+3) more)
    9: (_W((2, 2), 0.0, 0.0, "LP:Baneling", _TIMING_M, bonus_per_level=((8, 3.0),)),),
    110: (_W((2, 0), 0.1, 11.0, "LP:Roach", _TIMING_M),),
    688: (_W((2, 0), src="LP:Ravager"),),
    107: (_W((1, 0), src="LP:Hydralisk"),),
    503: (_W((2, 1), src="LP:Lurker"),),
    109: (_W((3, 0), src="LP:Ultralisk"),),
    126: (_W((1, 0), src="LP:Queen"), _W((1, 0), src="LP:Queen")),
    108: (_W((1, 0), src="LP:Mutalisk"),),
    112: (_W((1, 1), src="LP:Corruptor"),),
    114: (_W((2, 0), src="LP:Brood_Lord"),),
    289: (_W((1, 0), src="LP:Broodling"),),
    489: (_W((1, 0), src="LP:Locust"),),
    104: (_W((0, 0), src="LP:Drone"),),
    # --- Protoss
    73: (_W((1, 0), 0.0, 0.0, "LP:Zealot", _TIMING_M),),
    74: (_W((1, 1), 0.1433, 10.0, "LP:Stalker", _TIMING_M),),
    311: (_W((1, 1), src="LP:Adept"),),
    75: (_W(None, src="LP:High_Templar", m=("per_level",)),),
    76: (_W((5, 0), src="LP:Dark_Templar"),),
    141: (_W((3, 1), src="LP:Archon"),),
    83: (_W((2, 3), src="LP:Immortal"),),
    4: (_W((1, 1), src="LP:Colossus"),),
    78: (_W((1, 0), src="LP:Phoenix"),),
    495: (_W(None, src="LP:Oracle", m=("per_level",)), _W(None, src="LP:Oracle", m=("per_level",))),
    496: (_W((3, 2), src="LP:Tempest"), _W((4, 0), src="LP:Tempest")),
    85: (_W((1, 0), src="LP:Carrier"),),
    10: (_W((1, 0), src="LP:Mothership"),),
    84: (_W((0, 0), src="LP:Probe"),),
}
"""Per unit type, one entry per weapon of ``UnitTypeData.weapons`` (the Baneling's is the engine's
own explosion weapon, which the client does not report)."""


def facts(unit_id: int) -> UnitFacts:
    """The facts of ``unit_id``; ``KeyError`` saying what the type is when the engine has none."""
    f = FACTS.get(unit_id)
    if f is not None:
        return f
    what = not_game_piece(unit_id)
    raise KeyError(f"unit type {unit_id} has no engine facts" + (f" (a {what}, not a game piece)" if what else ""))


def _ids(*parts: int | range) -> frozenset[int]:
    out: set[int] = set()
    for p in parts:
        out.update(p if isinstance(p, range) else (p,))
    return frozenset(out)


NOT_GAME_PIECES: dict[str, frozenset[int]] = {
    # Race unit types the client marks available that are not pieces of a game: the engine has no
    # facts for them and never creates them.
    "weapon or missile": _ids(263, 264, 265, 266, 267, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280,
                              281, 282, 283, 284, 285, 286, 287, 288, 290, 291, 292, 293, 294, 295, 313, 314, 340,
                              383, 384, 385, 386, range(567, 569), range(570, 588), range(802, 807), range(808, 820),
                              821, 822, 823, range(825, 830), 831, 841, 859, 896, 897, range(1914, 1920), 1939, 1941),
    "bridge": _ids(range(505, 517), range(535, 559), range(667, 671), range(695, 725), range(735, 747),
                   range(748, 796), range(842, 854)),
    "skin preview": _ids(range(1887, 1891), 1981),
    "test unit": _ids(391, 392, 393, 481, 632),
    "resource blocker": _ids(569),
}
"""Why a race unit type the client reports as available has no facts, by category (the client's
names say it: ``...Weapon``, ``...Missile``, ``...Bridge...``, ``...SkinPreview``, ``AutoTest...``)."""


def not_game_piece(unit_id: int) -> str:
    """The :data:`NOT_GAME_PIECES` category of ``unit_id``, or "" when it is not in one."""
    for what, ids in NOT_GAME_PIECES.items():
        if unit_id in ids:
            return what
    return ""

ENGINE_WEAPONS: dict[int, tuple[tuple[int, float, float, float, int], ...]] = {
    # (target: 1 ground / 2 air / 3 both, damage, range, cooldown in normal-speed seconds, attacks)
    57: ((2, 5.0, 6.0, 0.22509765625, 1),),
    80: ((3, 6.0, 6.0, 0.36 * 1.4, 1),),
    77: ((1, 6.0, 5.0, 0.71 * 1.4, 1),),
}
"""Weapons the client folds into one entry of ``UnitTypeData.weapons``, entered as the engine's
own (against a target of their kind they are chosen before a reported weapon that hits both): the
Battlecruiser's ATA Laser Battery deals 5 to air units where its ATS Laser Battery deals 8 to
ground units (LP:Battlecruiser); the client reports a single weapon hitting both (8 damage, range
6, cooldown 0.2251), whose range and cooldown the engine keeps for the air battery.  Beams the
client reports no weapon for: the Void Ray's Prismatic Beam, 6 (+4 vs Armored) to air and ground,
range 6, cooldown 0.36 faster seconds (LP:Void_Ray; Prismatic Alignment not simulated), and the
Sentry's Disruption Beam, 6 to ground, range 5, cooldown 0.71 faster seconds (LP:Sentry); a
faster second is 1.4 normal-speed seconds."""
UNARMED: frozenset[int] = frozenset({12, 13, 14, 15, 16, 17})
"""Types the engine gives no weapon although the client reports one: the Changelings carry their
disguise's weapon in the client data but never attack (LP:Changeling, "cannot attack")."""
ENGINE_WEAPON_BONUS: dict[int, tuple[tuple[int, float], ...]] = {
    80: ((2, 4.0),),
}
"""Attribute bonuses of :data:`ENGINE_WEAPONS` (attribute, damage), per type: the Void Ray's +4 vs
Armored (LP:Void_Ray)."""
ENGINE_WEAPON_FACTS: dict[int, tuple[WeaponFacts, ...]] = {
    57: (_W((1, 0), src="LP:Battlecruiser"),),
    80: (_W((1, 0), src="LP:Void_Ray"),),
    77: (_W((1, 0), src="LP:Sentry"),),
}
"""The :data:`ENGINE_WEAPONS`' facts, one entry per weapon there (as :data:`WEAPON_FACTS` for the
client's): the Battlecruiser's ATA Laser Battery deals 5 (+1) per level (LP:Battlecruiser)."""

MIN_RANGE: dict[int, float] = {
    32: 2.0,
}
"""Weapons that cannot hit a target closer than this (edge to edge, like range): the sieged Siege
Tank's Crucio Shock Cannon, minimum range 2 (LP:Siege_Tank, "cannot attack targets within close
range"; the client's ``Weapon`` has no minimum range field)."""

SPLASH_RINGS: dict[int, tuple[tuple[float, float], ...]] = {
    32: ((0.4687, 1.0), (0.7812, 0.5), (1.25, 0.25)),
    141: ((0.25, 1.0), (0.5, 0.5), (1.0, 0.25)),
    109: ((1.0, 0.33),),
}
"""Area damage around a weapon's target, as (radius, fraction of the attack's damage) from the
inside out: every ground unit, friend or foe, whose edge is within a radius takes that fraction of
what the attack deals to its type.  The sieged Siege Tank: 100% within 0.4687, 50% to 0.7812, 25%
to 1.25 (LP:Siege_Tank, "units (whether hostile or friendly) within .4687 ... take full damage";
the client data reports no splash).  The Archon's Psionic Shockwave: 100% within 0.25, 50% to 0.5,
25% to 1 (LP:Archon), enemies only.  The Ultralisk's Kaiser Blades: 33% of its damage to the
enemy ground units near its target (LP:Ultralisk, "33% splash"); the real splash is an arc in
front of the Ultralisk whose size is not known here: a ring of 1 round the target (m)."""
SPLASH_ENEMIES_ONLY: frozenset[int] = frozenset({141, 109})
"""Ring splashes that spare the attacker's own units (the Archon's and the Ultralisk's: LP:Archon,
LP:Ultralisk; a sieged Siege Tank's hurts friends too); they hit units of the target's layer
(an Archon's shot at a Mutalisk splashes onto air units), where the tank's shell hits ground."""

LINE_SPLASH: dict[int, tuple[str, float, float, float]] = {
    # type: (shape, length, half-width, fraction)
    503: ("spine", 9.0, 0.5, 1.0),
    4: ("sweep", 2.0, 0.5, 1.0),
}
"""Weapons that hit every enemy ground unit along a line (the target itself once), with full
damage: the burrowed Lurker's spines run from the Lurker toward its target, 9 long (range 8
plus its reach: LP:Lurker "damages all enemy ground units in a line"; length and half-width 0.5
(m)); the Colossus's Thermal Lances sweep a line across its target, perpendicular to its aim,
2 long (LP:Colossus "damages all ground units in a line"; length and half-width (m)).  Friends
are spared (LP:Lurker, LP:Colossus)."""

BOUNCE: dict[int, tuple[int, float, float]] = {
    108: (2, 1.0 / 3.0, 3.0),
}
"""Weapons whose shot bounces on: (extra targets, damage factor per bounce, bounce range).  The
Mutalisk's Glaive Wurm hits up to two more enemies near the last one, each bounce dealing a
third of the one before, its weapon levels included (9 (+1), 3 (+0.33), 1 (+0.11): LP:Mutalisk);
armor applies to every hit.  The bounce range 3 is (m); a bounce skips units already hit and
prefers the nearest."""

SPAWN_ON_HIT: dict[int, tuple[int, int, int, int]] = {
    # type: (the unit spawned, its life in loops, escorts at most, loops to grow one)
    114: (289, 127, 2, 40),
}
"""Weapons whose hit leaves a unit where it lands.  The Brood Lord's Broodling Strike: each
Broodling it shoots deals the weapon's damage on impact and becomes a Broodling (289) that dies
5.71 faster seconds (127 loops) after landing; a Brood Lord carries up to two Broodlings and
shoots every one it carries, one growing back per weapon cooldown, 1.79 faster seconds (40
loops), so it fires two after a pause and one at a time while it keeps firing
(LP:Brood_Lord_(Legacy_of_the_Void), read here from the stored page).  A new Brood Lord starts
with two (m)."""

MODE_TRANSITION_LOOPS: dict[int, int] = {
    388: 61,   # siege: 2.71 s (LP:Siege_Tank)
    390: 48,   # unsiege: 2.14 s (LP:Siege_Tank)
    1998: 48, 1978: 48,   # Hellion <-> Hellbat (m)
    403: 48, 405: 48,     # Viking assault / fighter (m)
    2095: 67, 2097: 67,   # Widow Mine burrow / unburrow: 3 s (KB:LLM-PySC2; TRANSITION_UPGRADES)
    2362: 48, 2364: 48,   # Thor High Impact / Explosive Payload (m)
    2558: 48, 2560: 48,   # Liberator Defender Mode / Fighter Mode (m)
    417: 32, 1522: 32, 452: 32, 485: 32, 518: 32,   # lift off (m: the client's flying types' build time is 32)
    419: 32, 1524: 32, 554: 32, 520: 32, 522: 32,   # land (m)
    1528: 24, 1530: 24,   # Warp Prism phasing / transport mode (m: the client's WarpPrismPhasing build time)
    1725: 16, 1727: 16,   # Spine / Spore Crawler uproot: the client's morph time 16
    1729: 134, 1731: 134,  # Spine / Spore Crawler root: 6 faster s (m: LP:Spine_Crawler's root time, to check)
}
"""Game loops a form change takes, by its (specific) ability: Liquipedia gives times in real
seconds at Faster speed, 22.4 game loops each (rounded); "(m)" where not known (the client's data
has no transition times).  An upgrade may shorten one: :data:`TRANSITION_UPGRADES`."""

DRILLING_CLAWS = 122
"""The client's ``DrillClaws`` upgrade (burnysc2 ``UpgradeId.DRILLCLAWS``), researched at a Factory
Tech Lab."""
ADAPTIVE_TALONS = 293
"""The client's ``DiggingClaws`` upgrade (Adaptive Talons, burnysc2 ``UpgradeId.DIGGINGCLAWS``),
researched at a Lurker Den."""
TRANSITION_UPGRADES: dict[int, tuple[int, int]] = {
    2095: (DRILLING_CLAWS, 24), 2097: (DRILLING_CLAWS, 24),   # Widow Mine burrow / unburrow: 1.07 s
    2108: (ADAPTIVE_TALONS, round(1.07 * 22.4)),              # Lurker burrow: 1.07 s
}
"""Form changes and burrows an upgrade of the unit's owner shortens: ability (specific) ->
(upgrade, game loops the change takes with it, instead of its :data:`MODE_TRANSITION_LOOPS` or
its burrow time in ``sim/systems/zerg_abilities.py``); ``Research.transition`` answers it.
Adaptive Talons "reduces Lurker burrow time from 2 to 1.07 seconds" (KB:LLM-PySC2, the Lurker's
and the burrowed Lurker's entries): 24 loops.  Drilling Claws "reduces the time
Activate Mine takes to burrow and unburrow the WidowMine from 3 seconds to 1.07 seconds"
(KB:LLM-PySC2, the Widow Mine's entry): 3 faster seconds = 67.2 loops, 67 without it; 1.07 = 24
loops with it.  The time is fixed when the change starts: a mine already changing form when the
research finishes keeps its time (m: not known).  The same text's "Concealment" (a reloading mine
is not revealed) changes nothing here: the engine never reveals a burrowed mine that reloads."""
