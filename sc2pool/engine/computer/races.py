"""What the melee Computer does differently by race: one :class:`RaceProfile` per race (data,
no behaviour), and the Protoss and Zerg builds.

:class:`~sc2pool.engine.computer.melee.MeleeComputer` is written once for the three races; where
a race differs it reads its profile's facts, and plays by its race's rules where it behaves
differently (:mod:`.terran`, :mod:`.zerg`, :mod:`.protoss`):

- *the worker* and how it is made: a townhall's queue (SCV 524, Probe 1006) or a larva (Drone
  1342, ``data.tech.TRAIN`` how="larva");
- *supply*: a structure a worker builds (Supply Depot 319, Pylon 881) or a unit from a larva
  (Overlord 1344);
- *the structures* a build names by role (:data:`DEPOT`, :data:`BARRACKS`, :data:`REFINERY`,
  ...): each role's build ability and structure type, what finished structure it needs first
  (the client's tech requirements, ``data.tech.BUILD[...].requires``, and a Pylon's power for a
  Protoss structure), its footprint size;
- *the army*: the units its builds train, each unit's train ability and what produces it: a
  structure's queue (Barracks, Gateway, Robotics Facility, Stargate) or a larva (every Zerg unit
  but the Queen);
- *placement*: Protoss structures but the Nexus, Pylon and Assimilator stand within
  :data:`POWER_RADIUS` of a finished Pylon (Liquipedia "Pylon": a power field of radius 6.5),
  Zerg structures but the Hatchery and Extractor on creep, which the Computer takes as within
  :data:`CREEP_REACH` of its finished Hatcheries (m: a Hatchery's creep reaches further once it
  has spread; the engine's placement refuses a spot off creep in any case);
- *how a build order is carried out* (``RaceProfile.builder``): an SCV stays until the structure is
  finished, a Probe warps it in and leaves (the Computer sends it back to mining), a Drone turns
  into it (it is gone: the Computer counts it among the structures it has ordered);
- Zerg's Queens (one per Hatchery, Spawn Larva 251 when they have the energy) and its Lair
  (``Tech.morphs``).

Ability and unit ids are the real client's (``data.tech``; ``tests/engine/computer/
test_computer_races.py`` checks every id of every profile against it, with the right ``how``).

The Protoss and Zerg builds follow the level knobs of :mod:`.levels` as the Terran ones do
(VeryEasy and Easy play one simple build; Medium up their ``AIBuild``); their openers follow the
standard build orders (Liquipedia "2 Gate Zealot", "4 Gate", "1 Gate Robo", "12 Pool", "Roach
Rush", "Roach-Hydralisk"), the counts, shares and timings are the engine's (m).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sc2pool.engine import data as D
from sc2pool.engine.computer import levels as L
from sc2pool.engine.computer.levels import (
    ARMORY,
    BARRACKS,
    DEPOT,
    ENGBAY,
    FACTORY,
    FUSION,
    GHOST_ACADEMY,
    NO_ADDON,
    REFINERY,
    STARPORT,
    TURRET,
    Build,
    Tech,
    Train,
    UnitMorph,
)
from sc2pool.engine.data import tech as T

QUEUE, LARVA = "queue", "larva"
"""Where a unit is made: a structure's queue, or a larva (Zerg)."""
STAYS, LEAVES, CONSUMED = "stays", "leaves", "consumed"
"""How a worker carries out a build order (Terran, Protoss, Zerg)."""
POWER_RADIUS = 6.5
"""A Pylon powers structures whose centre lies within this distance of its own (Liquipedia
"Pylon")."""
POWER_MARGIN = 0.5
"""The Computer keeps its powered structures this much inside the field (m)."""
CREEP_REACH = 10.0
"""Zerg structures go within this distance of one of its finished Hatcheries (m: see the module
docstring)."""

# Protoss and Zerg structure roles (the Terran ones are in :mod:`.levels`)
GATEWAY, CYBERCORE, ROBO, ROBOBAY, STARGATE = "gateway", "cybercore", "robo", "robobay", "stargate"
FLEET = "fleet"
"""The Fleet Beacon (its Carriers' requirement: :meth:`~.melee.MeleeComputer.unlock`)."""
TWILIGHT, ARCHIVES = "twilight", "archives"
"""The Twilight Council and the Templar Archives (the High Templar's requirement)."""
POOL, WARREN, DEN, SPIRE = "pool", "warren", "den", "spire"
NEST, LURKER_DEN = "nest", "lurkerden"
"""The Baneling Nest and the Lurker Den: built on the way to a unit morph that needs them
(:meth:`~.melee.MeleeComputer.morph_units`)."""
PIT, CAVERN = "pit", "cavern"
"""The Infestation Pit (the Hive's requirement) and the Ultralisk Cavern (the Ultralisk's): built on
the way to a top-tier unit (:meth:`~.melee.MeleeComputer.obtain`)."""
FORGE, EVO = "forge", "evo"
"""The research structures the Protoss and Zerg builds ask for (a Forge, an Evolution Chamber)."""
CANNON, BATTERY, SPORE = "cannon", "battery", "spore"
"""The Protoss and Zerg static defence (:mod:`.defence`): Photon Cannon, Shield Battery, Spore
Crawler (Terran's Missile Turret is :data:`~.levels.TURRET`)."""

# unit type ids (the client's)
PROBE, NEXUS, PYLON, ASSIMILATOR = 84, 59, 60, 61
GATEWAY_T, CYBERCORE_T, ROBO_T, ROBOBAY_T, STARGATE_T = 62, 72, 71, 70, 67
ZEALOT, STALKER, SENTRY, ADEPT, IMMORTAL, COLOSSUS, VOIDRAY, PHOENIX, CARRIER = 73, 74, 77, 311, 83, 4, 80, 78, 79
FLEET_BEACON_T = 64
TWILIGHT_T, ARCHIVES_T = 65, 68
HIGHTEMPLAR, ARCHON = 75, 141
ARCHON_MERGE = 1766
"""Two High Templar merge into an Archon (``data.tech.MORPH``, kind "merge")."""
DRONE, HATCHERY, LAIR, HIVE, EXTRACTOR, OVERLORD, LARVA_T, EGG = 104, 86, 100, 101, 88, 106, 151, 103
POOL_T, WARREN_T, DEN_T, SPIRE_T = 89, 97, 91, 92
FORGE_T, EVO_T, WARPGATE_T = 63, 90, 133
TURRET_T, CANNON_T, BATTERY_T, SPORE_T = 23, 66, 1910, 99
ORBITAL_T, FORTRESS_T = 132, 130
WIDOWMINE_BURROWED, LIBERATOR_AG = 500, 734
VIKING_ASSAULT, THOR_AP, HELLBAT = 34, 691, 484
"""The other forms of Terran army units (landed, High Impact Payload, transformed)."""
OBSERVER, OVERSEER, OVERSEER_COCOON = 82, 129, 128
# research ability ids (the client's; ``data.tech.RESEARCH``)
GROUND_WEAPONS_1, GROUND_ARMOR_1, WARP_GATE = 1062, 1065, 1568
METABOLIC_BOOST, GLIAL, MISSILE_WEAPONS_1, MELEE_WEAPONS_1, CARAPACE_1 = 1253, 216, 1192, 1186, 1189
ZERGLING, ROACH, HYDRALISK, MUTALISK, QUEEN, ULTRALISK = 105, 110, 107, 108, 126, 109
PIT_T, CAVERN_T = 94, 93
NEST_T, LURKER_DEN_T, GREATER_SPIRE_T = 96, 504, 102
CORRUPTOR, BANELING, RAVAGER, LURKER, BROODLORD = 112, 9, 688, 502, 114
INFESTOR, VIPER = 111, 499
"""The Zerg casters its Macro and Air builds train from Hard up (their spells: ``computer/zerg.py``)."""
BANELING_COCOON, RAVAGER_COCOON, LURKER_EGG, BROODLORD_COCOON, LURKER_BURROWED = 8, 687, 501, 113, 503
BANELING_MORPH, RAVAGER_MORPH, LURKER_MORPH, BROODLORD_MORPH = 4431, 2330, 2332, 1372
"""Unit morphs (``data.tech.MORPH``, kind "unit")."""
LURKER_BURROW, LURKER_UNBURROW = 2108, 2110
INJECT_LARVA = 251
"""Effect_InjectLarva (the client's ability id): a Queen's Spawn Larva on a Hatchery."""
GUARDIAN_SHIELD = 76
"""GuardianShield_GuardianShield (the client's ability id): a Sentry's -2 ranged damage aura."""
CHRONO_BOOST = 3755
"""Effect_ChronoBoostEnergyCost (the client's ability id): a Nexus's 50 energy for +50 % speed of a
structure's production for 20 s (Liquipedia "Chrono Boost")."""
LAIR_MORPH = 1216
"""UpgradeToLair (``data.tech.MORPH``)."""


@dataclass(frozen=True)
class Role:
    """A structure a build names: its build ability, its type, the finished structure it needs
    first (0: none), its footprint size (2: 2 x 2, 3: 3 x 3)."""

    ability: int
    unit: int
    needs: int = 0
    size: int = 3
    powered: bool = False
    """Protoss: it must stand in a Pylon's power field."""
    creep: bool = False
    """Zerg: it must stand on creep."""
    also: tuple[int, ...] = ()
    """Types that count as this structure once it has turned into them (a Warp Gate for a
    Gateway)."""

    @property
    def types(self) -> tuple[int, ...]:
        """Its type and the types it turns into."""
        return (self.unit, *self.also)


@dataclass(frozen=True)
class RaceProfile:
    """Everything race-specific the Computer reads (see the module docstring)."""

    race: int
    name: str
    worker: int
    worker_train: int
    """The worker's train ability."""
    worker_from: str
    """:data:`QUEUE` (a townhall's) or :data:`LARVA`."""
    gather: int
    """The worker's gather ability (HARVEST_GATHER_SCV / _PROBE / _DRONE, the client's ids)."""
    townhalls: tuple[int, ...]
    """Types it counts as its townhalls (where workers mine, what it expands with first)."""
    townhall_build: int
    """The build ability of a new townhall (an expansion)."""
    roles: Mapping[str, Role]
    """Role -> the structure (:data:`DEPOT`, :data:`REFINERY` and its builds' production roles);
    Zerg has no :data:`DEPOT` structure (see ``supply_train``)."""
    production: tuple[str, ...]
    """The roles that train its army or open its tech, in the order the tech tree opens them."""
    train: Mapping[int, int]
    """Army unit type -> its train ability."""
    army_from: str
    """:data:`QUEUE` or :data:`LARVA`: what trains its army."""
    builder: str
    """:data:`STAYS`, :data:`LEAVES` or :data:`CONSUMED`."""
    simple: Build
    builds: Mapping[int, Build]
    random_choices: tuple[int, ...]
    supply_train: int = 0
    """Zerg: supply is an Overlord trained from a larva (its ability); 0: a :data:`DEPOT` structure."""
    supply_unit: int = 0
    """The supply structure's or unit's type."""
    addons: bool = False
    """Terran: production structures get Tech Labs and Reactors (the builds' ``Tech.addons``)."""
    supply_front: bool = False
    """Its supply structures go in front of the townhall, towards the enemy, with its production
    (Protoss: Pylons power the Gateways round them); False: behind it (Terran's depots)."""
    queen: int = 0
    """Zerg: the Queen's type (0: none), trained from a townhall's queue, one per townhall."""
    queen_train: int = 0
    inject: int = 0
    """The Queen's Spawn Larva ability."""
    shield: int = 0
    """Protoss: Guardian Shield's ability (its Sentries cast it in a fight at the levels with army
    control; 0: none)."""
    shield_caster: int = 0
    """The unit that casts it (the Sentry)."""
    chrono: int = 0
    """Protoss: Chrono Boost's ability, cast by its townhalls on its production at the levels with
    army control (:meth:`.protoss.ProtossRules.chrono`; 0: none)."""
    warp: Mapping[int, int] = field(default_factory=dict)
    """Protoss: unit -> its warp-in ability at a Warp Gate (``data.tech.TRAIN`` how="warp"), for
    the units its Gateways train once they are Warp Gates."""
    keep_way_out: bool = False
    """Protoss: no structure may shut its army in (:meth:`.protoss.ProtossRules.keeps_way_out`):
    its Pylons and what they power pack in front of the Nexus, towards the enemy."""
    detector: str = ""
    """The role of its detector structure, which also shoots air units (Missile Turret, Photon
    Cannon, Spore Crawler: :mod:`.defence`)."""
    battery: str = ""
    """Protoss: the role of its Shield Battery (:mod:`.defence`; "": none)."""
    forms: Mapping[int, int] = field(default_factory=dict)
    """Other forms of its army's units -> the type it trains or morphs them into (a sieged Siege
    Tank -> the Siege Tank, a Baneling's cocoon -> the Baneling): both commanded as its army, counted
    as the second."""
    scout_detector: int = 0
    """The detector unit that goes with its army once it has seen cloak (an Observer, an
    Overseer; 0: none) (:mod:`.defence`)."""
    scout_detector_ability: int = 0
    """Its train ability (``data.tech.TRAIN``) or morph ability (``data.tech.MORPH``: an
    Overlord into an Overseer)."""

    @property
    def army(self) -> tuple[int, ...]:
        """The units it trains and commands as its army (their other forms, what its builds morph
        them into and its detector unit included), sorted."""
        morphed = {T.MORPH[m.ability].unit_id for b in (self.simple, *self.builds.values())
                   if b.tech is not None for m in b.tech.unit_morphs}
        return tuple(sorted({*self.train, *self.forms, *morphed,
                             *((self.scout_detector,) if self.scout_detector else ())}))

    def role_of(self, unit_id: int) -> str:
        """The role whose structure is of type ``unit_id`` ("" none)."""
        for name, r in self.roles.items():
            if r.unit == unit_id:
                return name
        return ""


TERRAN_PROFILE = RaceProfile(
    race=D.TERRAN, name="Terran", worker=D.SCV, worker_train=524, worker_from=QUEUE, gather=295,
    townhalls=(D.COMMANDCENTER, ORBITAL_T, FORTRESS_T), townhall_build=318,
    roles={DEPOT: Role(319, D.SUPPLYDEPOT, size=2), BARRACKS: Role(321, D.BARRACKS, needs=D.SUPPLYDEPOT),
           REFINERY: Role(320, D.REFINERY), FACTORY: Role(328, 27, needs=D.BARRACKS),
           STARPORT: Role(329, 28, needs=27), ENGBAY: Role(322, 22, needs=D.COMMANDCENTER),
           ARMORY: Role(331, 29, needs=27), TURRET: Role(323, TURRET_T, needs=22, size=2),
           FUSION: Role(333, 30, needs=28), GHOST_ACADEMY: Role(327, 26, needs=D.BARRACKS)},
    production=L.PRODUCTION,
    train={D.MARINE: 560, 49: 561, L.MARAUDER: 563, L.GHOST: 562, L.SIEGETANK: 591, L.HELLION: 595,
           L.WIDOWMINE: 614, L.CYCLONE: 597, L.THOR: 594, L.MEDIVAC: 620, L.BANSHEE: 621, L.VIKING: 624,
           L.LIBERATOR: 626, L.RAVEN: 622, L.BATTLECRUISER: 623},
    army_from=QUEUE, builder=STAYS,
    simple=L.SIMPLE, builds=L.BUILDS, random_choices=L.RANDOM_CHOICES,
    supply_unit=D.SUPPLYDEPOT, addons=True, detector=TURRET,
    forms={32: L.SIEGETANK, WIDOWMINE_BURROWED: L.WIDOWMINE, LIBERATOR_AG: L.LIBERATOR, VIKING_ASSAULT: L.VIKING,
           THOR_AP: L.THOR, HELLBAT: L.HELLION},
)
"""Terran: as the Computer has always played (:mod:`.levels` holds its builds)."""

# ---------------------------------------------------------------------------------- Protoss
_P_GATES = ((GATEWAY, NO_ADDON), (Train(SENTRY, share=0.05, at_least=2), Train(ADEPT, share=0.35),
                                   Train(STALKER, share=0.25), Train(ZEALOT)))
"""Gateways after the Cybernetics Core: two Sentries (Guardian Shield: Liquipedia "Sentry"), then
Adepts (against light units: Liquipedia "Adept"), Stalkers and Zealots; the shares (m: Adepts
before Stalkers since the engine's Adept does 22 to a Marine every 36 loops for 100/25, a Stalker
13 every 30 for 125/50; with Stalkers at 0.4 the gateway army lost to the 6:00 Marine push)."""
_P_GATES_TEMPLAR = (_P_GATES[0], (Train(HIGHTEMPLAR, share=0.06, from_level=L.HARD), *_P_GATES[1]))
"""The Macro build's Gateways: from Hard up High Templar first, some merged into Archons (Liquipedia
"Archon"), the others storming once Psionic Storm is researched (``computer/protoss.py``)."""
_P_ROBO = ((ROBO, NO_ADDON), (Train(COLOSSUS, share=0.08, from_level=L.HARD), Train(IMMORTAL)))
"""A Robotics Facility's Immortals (Liquipedia "1 Gate Robo expand"); from Hard up Colossi first, to
a share of the army (their Robotics Bay: :meth:`~.melee.MeleeComputer.unlock`; Liquipedia
"Colossus")."""
P_MARGIN = 3.0
"""The Protoss builds' :attr:`~.levels.Build.strength_margin` (m)."""
_P_RESEARCH = (WARP_GATE, GROUND_WEAPONS_1, GROUND_ARMOR_1)
"""Warp Gate at the Cybernetics Core, then the Forge's level-1 ground weapons and armor."""
PSIONIC_STORM = 1126
_P_MACRO_RESEARCH = (*_P_RESEARCH, PSIONIC_STORM)
"""The Macro build's research: then Psionic Storm at the Templar Archives (its High Templar storm,
``computer/protoss.py``; the fourth entry: from Hard up, the levels that research that far)."""

P_SIMPLE = Build("Simple", opener=((14, DEPOT), (16, GATEWAY)), barracks_per_base=2, expand_s=(420.0, 840.0),
                 reapers=0, first_attack_s=330.0, first_wave=8, wave_growth=3,
                 tech=Tech(per_base=((GATEWAY, 2.0),), addons=(), trains=(((GATEWAY, NO_ADDON), (Train(ZEALOT),)),),
                           refineries_per_base=0, spill=GATEWAY))
"""VeryEasy and Easy: one Gateway after the first Pylon, a second one per base, Zealots, waves late
(as the Terran Simple)."""
P_BUILDS: dict[int, Build] = {
    L.RUSH: Build("Rush", opener=((14, DEPOT), (15, GATEWAY), (16, GATEWAY), (19, DEPOT), (19, GATEWAY)),
                  barracks_per_base=3, expand_s=(210.0, 420.0), reapers=0, first_attack_s=170.0, first_wave=6,
                  wave_growth=5,
                  tech=Tech(per_base=((GATEWAY, 3.0), (CYBERCORE, 0.01)), addons=(), trains=(_P_GATES,),
                            refineries_per_base=1, spill=GATEWAY, research=(WARP_GATE, GROUND_WEAPONS_1)),
                  strength_margin=P_MARGIN),
    L.TIMING: Build("Timing", opener=((14, DEPOT), (16, GATEWAY), (17, REFINERY), (19, CYBERCORE), (21, DEPOT)),
                    barracks_per_base=3, expand_s=(270.0, 500.0), reapers=0, first_attack_s=360.0, first_wave=18,
                    wave_growth=8,
                    tech=Tech(per_base=((GATEWAY, 3.0), (CYBERCORE, 0.01)), addons=(),
                              trains=(_P_GATES,),
                              refineries_per_base=1, spill=GATEWAY, research=_P_RESEARCH), strength_margin=P_MARGIN),
    L.POWER: Build("Power", opener=((14, DEPOT), (16, GATEWAY), (17, REFINERY), (19, CYBERCORE), (20, DEPOT)),
                   barracks_per_base=3, expand_s=(100.0, 400.0, 700.0), reapers=0, first_attack_s=450.0,
                   first_wave=26, wave_growth=10,
                   tech=Tech(per_base=((GATEWAY, 2.5), (CYBERCORE, 0.01), (ROBO, 0.5)), addons=(),
                             trains=(_P_GATES, _P_ROBO), refineries_per_base=1, spill=GATEWAY,
                             research=_P_RESEARCH),
                   strength_margin=P_MARGIN),
    L.MACRO: Build("Macro", opener=((14, DEPOT), (16, GATEWAY), (16, REFINERY), (17, REFINERY), (19, CYBERCORE)),
                   barracks_per_base=2, expand_s=(80.0, 300.0, 480.0), reapers=0, first_attack_s=500.0,
                   first_wave=34, wave_growth=12,
                   tech=Tech(per_base=((GATEWAY, 2.0), (CYBERCORE, 0.01), (ROBO, 1.0)), addons=(),
                             trains=(_P_GATES_TEMPLAR, _P_ROBO), refineries_per_base=1, spill=GATEWAY,
                             research=_P_MACRO_RESEARCH, more_gas_from=L.HARD,
                             unit_morphs=(UnitMorph(ARCHON_MERGE, share=0.1, from_level=L.HARD),)),
                   strength_margin=P_MARGIN),
    L.AIR: Build("Air", opener=((14, DEPOT), (16, GATEWAY), (16, REFINERY), (17, REFINERY), (19, CYBERCORE)),
                 barracks_per_base=1, expand_s=(240.0, 480.0), reapers=0, first_attack_s=420.0, first_wave=20,
                 wave_growth=10,
                 tech=Tech(per_base=((STARGATE, 1.5), (GATEWAY, 1.0), (CYBERCORE, 0.01)), addons=(),
                           trains=(((STARGATE, NO_ADDON), (Train(CARRIER, share=0.15, from_level=L.HARD),
                                                           Train(VOIDRAY, share=0.7), Train(PHOENIX))),
                                   ((GATEWAY, NO_ADDON), (Train(STALKER, share=0.3, at_least=4), Train(ZEALOT, share=0.2)))),
                           refineries_per_base=2, spill=GATEWAY, research=(WARP_GATE,)), strength_margin=P_MARGIN),
}
"""Rush: "2 Gate Zealot" (three Gateways of Zealots, then a Cybernetics Core for Sentries and
Adepts, an early expansion); Timing: "4 Gate" (Gateways after a Cybernetics Core); Power: the
same Gateways and a Robotics Facility's Immortals on more bases; Macro: an early double gas and
expansions, Gateways and a Robotics Facility per base; Air: Stargates of Void Rays and Phoenixes,
Stalkers at home, from Hard up Carriers first to a share of the army (a Fleet Beacon; Liquipedia
"Carrier").  Liquipedia pages of those names; the numbers (m).  Gateway armies:
:data:`_P_GATES`.  Every build has :data:`P_MARGIN`: at the levels with army
control a wave waits until it is three times as strong as the enemy army it has seen (the
reference bot's 6:00 Marine push is beaten at home, then the wave goes)."""

PROTOSS_PROFILE = RaceProfile(
    race=D.PROTOSS, name="Protoss", worker=PROBE, worker_train=1006, worker_from=QUEUE, gather=298,
    townhalls=(NEXUS,), townhall_build=880,
    roles={DEPOT: Role(881, PYLON, size=2), REFINERY: Role(882, ASSIMILATOR),
           GATEWAY: Role(883, GATEWAY_T, needs=PYLON, powered=True, also=(WARPGATE_T,)),
           CYBERCORE: Role(894, CYBERCORE_T, needs=GATEWAY_T, powered=True),
           ROBO: Role(893, ROBO_T, needs=CYBERCORE_T, powered=True),
           ROBOBAY: Role(892, ROBOBAY_T, needs=ROBO_T, powered=True),
           STARGATE: Role(889, STARGATE_T, needs=CYBERCORE_T, powered=True),
           FORGE: Role(884, FORGE_T, needs=PYLON, powered=True),
           CANNON: Role(887, CANNON_T, needs=FORGE_T, size=2, powered=True),
           BATTERY: Role(895, BATTERY_T, needs=CYBERCORE_T, size=2, powered=True),
           FLEET: Role(885, FLEET_BEACON_T, needs=STARGATE_T, powered=True),
           TWILIGHT: Role(886, TWILIGHT_T, needs=CYBERCORE_T, powered=True),
           ARCHIVES: Role(890, ARCHIVES_T, needs=TWILIGHT_T, powered=True)},
    production=(GATEWAY, CYBERCORE, ROBO, ROBOBAY, STARGATE),
    train={ZEALOT: 916, STALKER: 917, SENTRY: 921, ADEPT: 922, IMMORTAL: 979, COLOSSUS: 978, VOIDRAY: 950,
           PHOENIX: 946, CARRIER: 948, HIGHTEMPLAR: 919},
    army_from=QUEUE, builder=LEAVES,
    simple=P_SIMPLE, builds=P_BUILDS, random_choices=L.RANDOM_CHOICES,
    supply_unit=PYLON, supply_front=True, keep_way_out=True, shield=GUARDIAN_SHIELD, shield_caster=SENTRY,
    chrono=CHRONO_BOOST, warp={ZEALOT: 1413, STALKER: 1414, SENTRY: 1418, ADEPT: 1419, HIGHTEMPLAR: 1416},
    detector=CANNON, battery=BATTERY, scout_detector=OBSERVER, scout_detector_ability=977,
)
"""Protoss: Probes from the Nexus; Pylons for supply and power; Gateway units in the Gateway's
queue until Warp Gate is researched (its builds research it first), then warped in at a Pylon's
power field by the Warp Gates the Gateways turn into (Liquipedia "Warp Gate"; the Computer's rule:
:meth:`.protoss.ProtossRules.warp_in`); Robotics Facility and Stargate units in their queues."""

# ---------------------------------------------------------------------------------- Zerg
DRONES_ALONE = 40
"""Zerg: drones it makes before its army must keep pace with them (m)."""
ARMY_PER_DRONE = 1.0
"""Zerg: beyond :data:`DRONES_ALONE` drones, a larva becomes a drone only while its army (eggs
included) holds at least this much supply per drone beyond them; else the larva goes to the army.
Every larva goes first to a drone otherwise, and the larvae, not the money, bound a Zerg's
production: without it a level whose cap on workers is high (VeryHard's 66) made nothing but
drones until after the enemy's first push (m)."""
HATCH_FIRST_S = 30.0
"""The hatchery-first builds expand from this game second on (after the 13 Overlord)."""
_HATCH_FIRST = ((13, DEPOT), (17, POOL), (18, REFINERY))
"""Hatchery first (Liquipedia "Hatch First": 13 Overlord, 16 Hatchery, 18 gas, 17 pool): the
Hatchery is the expansion due at :data:`HATCH_FIRST_S`."""
Z_SIMPLE = Build("Simple", opener=((13, DEPOT), (17, POOL), (18, REFINERY)), barracks_per_base=1,
                 expand_s=(420.0, 840.0), reapers=0, first_attack_s=330.0, first_wave=8, wave_growth=3,
                 tech=Tech(per_base=((POOL, 0.01), (WARREN, 0.01)), addons=(),
                           trains=(((LARVA, NO_ADDON), (Train(ROACH, share=0.3), Train(ZERGLING))),),
                           refineries_per_base=1, spill=""))
"""VeryEasy and Easy: a Spawning Pool, one Extractor and a Roach Warren, Zerglings and a few
Roaches, waves late (as the Terran Simple)."""
Z_BUILDS: dict[int, Build] = {
    L.RUSH: Build("Rush", opener=((12, POOL), (13, DEPOT)), barracks_per_base=1, expand_s=(300.0, 600.0),
                  reapers=0, first_attack_s=150.0, first_wave=6, wave_growth=5,
                  tech=Tech(per_base=((POOL, 0.01),), addons=(), trains=(((LARVA, NO_ADDON), (Train(ZERGLING),)),),
                            refineries_per_base=0, spill="")),  # (no gas: no research)
    L.TIMING: Build("Timing", opener=_HATCH_FIRST, barracks_per_base=1,
                    expand_s=(HATCH_FIRST_S, 500.0), reapers=0, first_attack_s=330.0, first_wave=18, wave_growth=8,
                    tech=Tech(per_base=((POOL, 0.01), (WARREN, 0.01)), addons=(),
                              trains=(((LARVA, NO_ADDON), (Train(ROACH, share=0.8), Train(ZERGLING))),),
                              refineries_per_base=1, spill="",
                              research=(METABOLIC_BOOST, MISSILE_WEAPONS_1, CARAPACE_1),
                              unit_morphs=(UnitMorph(RAVAGER_MORPH, share=0.15, from_level=L.HARD),))),
    L.POWER: Build("Power", opener=_HATCH_FIRST, barracks_per_base=1,
                   expand_s=(HATCH_FIRST_S, 300.0, 600.0), reapers=0, first_attack_s=450.0, first_wave=26, wave_growth=10,
                   tech=Tech(per_base=((POOL, 0.01), (WARREN, 0.01), (DEN, 0.01)), addons=(),
                             trains=(((LARVA, NO_ADDON), (Train(ULTRALISK, share=0.1, from_level=L.HARD),
                                                          Train(HYDRALISK, share=0.35), Train(ROACH, share=0.5),
                                                          Train(ZERGLING))),),
                             refineries_per_base=1, spill="", morphs=((HATCHERY, LAIR_MORPH),),
                             research=(METABOLIC_BOOST, GLIAL, MISSILE_WEAPONS_1, CARAPACE_1),
                             unit_morphs=(UnitMorph(LURKER_MORPH, share=0.1, from_level=L.HARD),))),
    L.MACRO: Build("Macro", opener=_HATCH_FIRST, barracks_per_base=1,
                   expand_s=(HATCH_FIRST_S, 200.0, 420.0), reapers=0, first_attack_s=500.0, first_wave=34, wave_growth=12,
                   tech=Tech(per_base=((POOL, 0.01), (WARREN, 0.01), (DEN, 0.01)), addons=(),
                             trains=(((LARVA, NO_ADDON), (Train(ULTRALISK, share=0.1, from_level=L.HARD),
                                                          Train(VIPER, share=0.05, from_level=L.HARD),
                                                          Train(INFESTOR, share=0.06, from_level=L.HARD),
                                                          Train(HYDRALISK, share=0.45), Train(ROACH, share=0.45),
                                                          Train(ZERGLING))),),
                             refineries_per_base=1, spill="", morphs=((HATCHERY, LAIR_MORPH),),
                             research=(METABOLIC_BOOST, GLIAL, MISSILE_WEAPONS_1, CARAPACE_1),
                             unit_morphs=(UnitMorph(BANELING_MORPH, share=0.1, from_level=L.HARD),))),
    L.AIR: Build("Air", opener=_HATCH_FIRST, barracks_per_base=1,
                 expand_s=(HATCH_FIRST_S, 400.0), reapers=0, first_attack_s=420.0, first_wave=20, wave_growth=10,
                 tech=Tech(per_base=((POOL, 0.01), (SPIRE, 0.01)), addons=(),
                           trains=(((LARVA, NO_ADDON), (Train(CORRUPTOR, share=0.1, from_level=L.HARD),
                                                        Train(VIPER, share=0.08, from_level=L.HARD),
                                                        Train(MUTALISK, share=0.7), Train(ZERGLING))),),
                           refineries_per_base=2, spill="", morphs=((HATCHERY, LAIR_MORPH),),
                           research=(METABOLIC_BOOST,),
                           unit_morphs=(UnitMorph(BROODLORD_MORPH, share=0.15, from_level=L.HARD),))),
}
"""Rush: "12 Pool" (Zerglings); Timing: hatchery first, a "Roach Rush" off two bases; Power and
Macro: "Roach-Hydralisk" after a Lair, from Hard up Ultralisks first to a tenth of the army (an
Infestation Pit, a Hive, an Ultralisk Cavern on the way: Liquipedia "Ultralisk"); Air: Mutalisks
from a Spire after a Lair.  From Hard up each morphs a share of its army (:class:`~.levels.UnitMorph`):
Timing Roaches into Ravagers (Liquipedia "Roach Ravager All-in"), Power Hydralisks into Lurkers
(a Lurker Den; "Lurker"), Macro Zerglings into Banelings (a Baneling Nest; "Zergling/Baneling"), Air
Corruptors into Brood Lords (a Greater Spire, so a Hive; "Brood Lord").  From Hard up the Macro
build also trains Vipers (a Hive) and Infestors (an Infestation Pit), a few of its army: the casters
of the late-game Zerg army ("Viper": Abduct, Blinding Cloud, Parasitic Bomb; "Infestor": Fungal
Growth roots a clump for the army); the Air build Vipers, whose Parasitic Bomb guards its Mutalisks
and Brood Lords against enemy air ("Viper": bomb against Vikings and Corruptors).  Vipers come
before Infestors in its list: the first gas unit short of vespene keeps it from the others
(:meth:`~.rules.RaceRules._wanted`), and the Infestors, whose Pit stands first, would leave none
for the Vipers.  Their spells: :meth:`.zerg.ZergRules.tactics`.  Liquipedia pages of those names;
the numbers (m)."""

ZERG_PROFILE = RaceProfile(
    race=D.ZERG, name="Zerg", worker=DRONE, worker_train=1342, worker_from=LARVA, gather=1183,
    townhalls=(HATCHERY, LAIR, HIVE), townhall_build=1152,
    roles={REFINERY: Role(1154, EXTRACTOR),
           POOL: Role(1155, POOL_T, needs=HATCHERY, creep=True),
           WARREN: Role(1165, WARREN_T, needs=POOL_T, creep=True),
           DEN: Role(1157, DEN_T, needs=LAIR, creep=True),
           SPIRE: Role(1158, SPIRE_T, needs=LAIR, size=2, creep=True, also=(GREATER_SPIRE_T,)),
           NEST: Role(1162, NEST_T, needs=POOL_T, creep=True),
           LURKER_DEN: Role(1163, LURKER_DEN_T, needs=DEN_T, creep=True),
           EVO: Role(1156, EVO_T, needs=HATCHERY, creep=True),
           SPORE: Role(1167, SPORE_T, needs=POOL_T, size=2, creep=True),
           PIT: Role(1160, PIT_T, needs=LAIR, creep=True),
           CAVERN: Role(1159, CAVERN_T, needs=HIVE, creep=True)},
    production=(POOL, WARREN, DEN, SPIRE),
    train={ZERGLING: 1343, ROACH: 1351, HYDRALISK: 1345, MUTALISK: 1346, ULTRALISK: 1348, CORRUPTOR: 1353,
           INFESTOR: 1352, VIPER: 1354},
    forms={BANELING_COCOON: BANELING, RAVAGER_COCOON: RAVAGER, LURKER_EGG: LURKER, LURKER_BURROWED: LURKER,
           BROODLORD_COCOON: BROODLORD},
    army_from=LARVA, builder=CONSUMED,
    simple=Z_SIMPLE, builds=Z_BUILDS, random_choices=L.RANDOM_CHOICES,
    supply_train=1344, supply_unit=OVERLORD,
    queen=QUEEN, queen_train=1632, inject=INJECT_LARVA, detector=SPORE, scout_detector=OVERSEER,
    scout_detector_ability=1448,
)
"""Zerg: Drones, Overlords and the army from larvae; structures from Drones (consumed); one
Queen per Hatchery for Spawn Larva."""

PROFILES: dict[int, RaceProfile] = {p.race: p for p in (TERRAN_PROFILE, PROTOSS_PROFILE, ZERG_PROFILE)}
"""``common_pb2.Race`` -> its profile."""
PLAYABLE = (D.TERRAN, D.ZERG, D.PROTOSS)
"""The races a Random Computer draws among."""


def pick_race(requested: int, rng: object, simulated: tuple[int, ...] = PLAYABLE) -> int:
    """The race a Computer plays: ``requested``, or for Random (and no race) one of ``simulated``
    drawn by the game's seeded generator (``rng.integers``); with Terran alone simulated, Terran
    without a draw (the scenario's behaviour before Zerg and Protoss)."""
    if requested in PROFILES:
        return requested
    if requested not in (D.RANDOM, D.NO_RACE):
        raise ValueError(f"unknown race {requested}: give Terran (1), Zerg (2), Protoss (3) or Random (4)")
    races = tuple(r for r in PLAYABLE if r in simulated)
    if not races:
        raise ValueError("no simulated race to draw a Random Computer's race from")
    if len(races) == 1:
        return races[0]
    return races[int(rng.integers(len(races)))]  # type: ignore[attr-defined]
