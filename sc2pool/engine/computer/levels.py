"""The melee Computer's difficulty levels and builds: data, no behaviour.

**Difficulty** (``sc2api_pb2.Difficulty``: 1 VeryEasy, 2 Easy, 3 Medium, 4 MediumHard, 5 Hard,
6 Harder, 7 VeryHard, 8 CheatVision, 9 CheatMoney, 10 CheatInsane; the game's menu calls 4-7
Hard, Harder, Very Hard and Elite).  What changes with it is what the real AI's levels change:

- *economy efficiency*: the lower levels "cancel buildings, researches, etc. to simulate" an
  income of 1, 2 and 3 less per trip than a player's 5 minerals (Medium, Easy, VeryEasy; the
  Arqade answer "StarCraft 2 AI differences", newbetuts.com/6253); the engine's Computer spends
  only that share of what it collects (:attr:`Level.income`: 4/5, 3/5, 2/5; vespene 3/4, 2/4,
  1/4 of a trip's 4);
- *income*: the resource cheats get 1 and 2 more per trip (ibid.: 6 and 7 minerals; read as
  CheatMoney and CheatInsane, the two levels that cheat on resources today (m: the answer names
  the levels of the game's first release)): :attr:`Level.extra_income`, given by the harvest
  system (:attr:`sc2pool.engine.sim.systems.harvest.Harvest.income_bonus`);
- *vision*: CheatVision and CheatInsane see the whole map (the levels' names; Liquipedia, "AI");
- *reaction and APM*: "the difficulty level also has different APM caps" (ibid.); the numbers
  are not published: :attr:`Level.period` (m);
- *behaviour*: "harder AIs scout more aggressively, defend better against rushes (pulling workers
  off the mineral line to defend)" (ibid.): :attr:`Level.scout`, :attr:`Level.pull_workers`; army
  control (focus fire, grouping before an attack, retreating when outnumbered), how many
  workers, barracks and bases it takes and how big its waves are: the engine's choices (m),
  meant to make strength grow with the level (measured by ``benchmarks/computer_strength.py``;
  the results: docs/engine.md, "The Computer");
- *upgrades*: the real AI researches upgrades as players do (seen in play: no written source
  found here); from Medium up the engine's Computer researches its build's list (its race's
  movement upgrade, level-1 weapons and armor of its army's family: :attr:`Tech.research`), the
  lower of those levels only its first entries (:attr:`Level.research`); which upgrades and when
  are the engine's (m).  The bio builds research Stimpack and the Air build Cloaking Field,
  which its units use in fights (:mod:`.terran`).

**Builds** (``sc2api_pb2.AIBuild``: 1 RandomBuild, 2 Rush, 3 Timing, 4 Power, 5 Macro, 6 Air),
openers after the standard Terran build orders (Liquipedia, "2 Rax (vs. Zerg)", "Reaper
Expand", "CC First"), then the tech paths of the standard TvT styles (:class:`Tech`): Rush stays on
barracks of marines; Timing and Power play bio (Barracks with Tech Labs and Reactors: Marines,
Marauders; a Factory, then a Starport for Medivacs), Macro plays mech (Factories with Tech Labs for
Siege Tanks and Reactors for Hellions and Widow Mines, a Starport for Vikings), Air plays
Starports (Banshees from Tech Labs, Vikings, Marines at home).  From Hard up they reach the top of
the tech tree: Widow Mines, Thors and Cyclones (mech), Widow Mines, Ghosts and Liberators (Power), a
Raven, Liberators and Battlecruisers (Air) (:attr:`Train.from_level`).  Timings, wave sizes, counts and the unit shares
are the engine's (m).  VeryEasy and Easy play one simple build whatever they are
given (m).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

VERY_EASY, EASY, MEDIUM, MEDIUM_HARD, HARD, HARDER, VERY_HARD, CHEAT_VISION, CHEAT_MONEY, CHEAT_INSANE = range(1, 11)
DIFFICULTY_NAMES = {VERY_EASY: "VeryEasy", EASY: "Easy", MEDIUM: "Medium", MEDIUM_HARD: "MediumHard", HARD: "Hard",
                    HARDER: "Harder", VERY_HARD: "VeryHard", CHEAT_VISION: "CheatVision",
                    CHEAT_MONEY: "CheatMoney", CHEAT_INSANE: "CheatInsane"}
RANDOM_BUILD, RUSH, TIMING, POWER, MACRO, AIR = range(1, 7)
BUILD_NAMES = {RANDOM_BUILD: "RandomBuild", RUSH: "Rush", TIMING: "Timing", POWER: "Power", MACRO: "Macro",
               AIR: "Air"}

DEPOT, BARRACKS, REFINERY, FACTORY, STARPORT = "depot", "barracks", "refinery", "factory", "starport"
ENGBAY, ARMORY = "engbay", "armory"
"""The Terran research structures the builds ask for (:attr:`Tech.research`)."""
FUSION, GHOST_ACADEMY = "fusion", "ghostacademy"
"""The Terran structures its units need beyond their producer (a Fusion Core for Battlecruisers, a
Ghost Academy for Ghosts; the Armory, :data:`ARMORY`, for Thors): built once a unit that needs one
is wanted (:meth:`~.melee.MeleeComputer.unlock`)."""
TURRET = "turret"
"""Terran's detector structure (a Missile Turret: :mod:`.defence`)."""
NO_ADDON, TECHLAB, REACTOR = "", "techlab", "reactor"
PRODUCTION = (BARRACKS, FACTORY, STARPORT)
"""The structures that train an army, in the order the tech tree opens them."""

# unit type ids (the client's)
MARINE, REAPER, MARAUDER = 48, 49, 51
HELLION, WIDOWMINE, SIEGETANK, CYCLONE, THOR = 53, 498, 33, 692, 52
VIKING, MEDIVAC, BANSHEE, LIBERATOR, RAVEN, BATTLECRUISER = 35, 54, 55, 689, 56, 57
GHOST = 50
# research ability ids (the client's; ``data.tech.RESEARCH``)
COMBAT_SHIELD, INFANTRY_WEAPONS_1, INFANTRY_ARMOR_1 = 731, 652, 656
STIMPACK, CLOAKING_FIELD = 730, 790
VEHICLE_WEAPONS_1, SHIP_WEAPONS_1, PLATING_1 = 855, 861, 864
WEAPON_REFIT = 1532
"""The Fusion Core's research that lets Battlecruisers fire the Yamato Cannon."""


@dataclass(frozen=True)
class Train:
    """One entry of what a producer trains: ``unit`` while the Computer has fewer of it (queued ones
    included) than ``max(at_least, share x (its army units + 1))`` (share 1: always)."""

    unit: int
    share: float = 1.0
    at_least: int = 0
    from_level: int = 0
    """The lowest difficulty that trains it (0: every level that plays the build): the units of the
    top of the tech tree come from Hard up (m)."""


@dataclass(frozen=True)
class UnitMorph:
    """Units of its army morphed into another (``ability``: ``data.tech.MORPH``, kind "unit": a
    Zergling into a Baneling, a Corruptor into a Brood Lord) while it has fewer of the product
    (cocoons included) than ``share`` x (its army units + 1), from ``from_level`` up."""

    ability: int
    share: float
    from_level: int = 0


@dataclass(frozen=True)
class Tech:
    """A build's tech path beyond the barracks: production structures with their add-ons, the gas
    that pays for them, and what each producer trains (the engine's choices (m), after the builds
    cited in the module docstring)."""

    per_base: tuple[tuple[str, float], ...]
    """(structure, how many per finished townhall): the production it wants (at least one each,
    capped in total by :attr:`Level.max_barracks` + 2, its Factory and Starport)."""
    addons: tuple[tuple[str, tuple[str, ...]], ...]
    """(structure, add-on of its 1st, 2nd, ... one; the last repeats)."""
    trains: tuple[tuple[tuple[str, str], tuple[Train, ...]], ...]
    """((structure, its add-on), what it trains, first choice first): each slot takes the first
    entry it has fewer of than it wants and can pay for."""
    refineries_per_base: int
    """Refineries per finished townhall (each base has two geysers)."""
    spill: str
    """The structure it adds one more of while minerals pile up beyond 400 and every structure of
    :attr:`per_base` it wants stands ("": none)."""
    morphs: tuple[tuple[int, int], ...] = ()
    """(structure type, morph ability): one structure of that type is upgraded in place once the
    morph's requirement is met (a Zerg Hatchery into a Lair, for the tech that needs it)."""
    more_gas_from: int = 0
    """From this difficulty up, one refinery more per base (two at most): what its top-tier units
    (:attr:`Train.from_level`) need (0: never)."""
    research: tuple[int, ...] = ()
    """Research abilities (``data.tech.RESEARCH``), in the order it researches them, as far as its
    level goes (:attr:`Level.research`); a research structure it lacks (an Engineering Bay, an
    Evolution Chamber, a Forge, an Armory) it builds first."""
    unit_morphs: tuple[UnitMorph, ...] = ()
    """Its army's units morphed into the build's other forms (:meth:`~.melee.MeleeComputer.morph_units`)."""

    def addon_of(self, what: str, index: int) -> str:
        """The add-on the ``index``-th structure of kind ``what`` gets."""
        for w, order in self.addons:
            if w == what and order:
                return order[min(index, len(order) - 1)]
        return NO_ADDON

    def choices(self, what: str, addon: str) -> tuple[Train, ...]:
        for key, units in self.trains:
            if key == (what, addon):
                return units
        return ()

    def wanted(self, what: str, bases: int) -> int:
        for w, n in self.per_base:
            if w == what:
                return max(1, int(n * max(1, bases)))
        return 0


@dataclass(frozen=True)
class Level:
    """What one difficulty level changes (see the module docstring for the sources)."""

    period: int
    """Loops between two decisions (reaction time, APM) (m)."""
    income: float
    """Share of its collected minerals it lets itself spend (1.0: all)."""
    gas_income: float
    """Share of its collected vespene it lets itself spend."""
    max_workers: int
    max_barracks: int
    max_bases: int
    own_build: bool
    """Plays its ``ai_build``; False: the simple build whatever it was given."""
    scout: int
    """0: no scouting; 1: an SCV scouts the enemy's start; 2: also re-scouts the enemy's bases."""
    pull_workers: bool
    """Defends its bases with workers when its army is not enough (a worker rush, an early attack)."""
    focus_fire: bool
    """Each unit with an enemy in range attacks the best target (what can shoot back, then the
    weakest) instead of the nearest."""
    group_up: bool
    """Gathers a wave before it attacks."""
    retreat: bool
    """A wave that meets a stronger army walks back home; lower levels fight to the last unit."""
    wave_scale: float
    """Multiplies its build's wave sizes: the lower levels attack with smaller waves, which the
    enemy's army at home beats, so that fewer units are left to defend (m)."""
    attack_scale: float
    """Multiplies its build's first attack time (the lower levels attack sooner, with less) (m)."""
    extra_income: int = 0
    """Minerals or vespene more per trip (the resource cheats)."""
    research: int = 0
    """How many entries of its build's research (:attr:`Tech.research`) it goes through: the
    lower levels research less (m)."""
    sees_all: bool = False
    """Knows every unit on the map (the vision cheats)."""
    static_defence: int = 0
    """0: none; 1: a detector structure at each base once it has seen a cloaked enemy unit it
    does not detect; 2: also once it has seen enemy air units, and a Protoss's Shield Battery at
    each base (:mod:`.defence`) (m)."""
    answers_worker_rush: bool = True
    """Pulls workers against enemy workers alone (a worker rush) even without :attr:`pull_workers`:
    python-sc2's CI (``test/run_example_bots_vs_computer.py``) requires its 12-worker rush to tie
    with the real Easy AI for 240 game seconds, which has no army at 1:00 and whose mining workers
    would not fight on their own; VeryEasy does not (m: no source either way)."""


_CHEAT = dict(period=10, income=1.0, gas_income=1.0, max_workers=66, max_barracks=10, max_bases=4, own_build=True,
              scout=2, pull_workers=True, focus_fire=True, group_up=True, retreat=True, wave_scale=1.0,
              attack_scale=1.0, research=9, static_defence=2)

LEVELS: dict[int, Level] = {
    VERY_EASY: Level(period=96, income=2 / 5, gas_income=1 / 4, max_workers=16, max_barracks=1, max_bases=1,
                     own_build=False, scout=0, pull_workers=False, focus_fire=False, group_up=False, retreat=False,
                     wave_scale=0.7, attack_scale=0.75, answers_worker_rush=False),
    EASY: Level(period=64, income=3 / 5, gas_income=2 / 4, max_workers=22, max_barracks=2, max_bases=2,
                own_build=False, scout=1, pull_workers=False, focus_fire=False, group_up=False, retreat=False,
                wave_scale=0.85, attack_scale=0.85),
    MEDIUM: Level(period=40, income=4 / 5, gas_income=3 / 4, max_workers=32, max_barracks=4, max_bases=2,
                  own_build=True, scout=1, pull_workers=False, focus_fire=False, group_up=True, retreat=False,
                  wave_scale=0.5, attack_scale=0.8, research=1, static_defence=1),
    MEDIUM_HARD: Level(period=28, income=1.0, gas_income=1.0, max_workers=40, max_barracks=4, max_bases=2,
                       own_build=True, scout=1, pull_workers=False, focus_fire=False, group_up=True, retreat=False,
                       wave_scale=0.75, attack_scale=0.9, research=2, static_defence=1),
    HARD: Level(period=20, income=1.0, gas_income=1.0, max_workers=50, max_barracks=6, max_bases=3, own_build=True,
                scout=2, pull_workers=True, focus_fire=True, group_up=True, retreat=False, wave_scale=1.0, attack_scale=1.0,
                research=9, static_defence=2),
    HARDER: Level(period=14, income=1.0, gas_income=1.0, max_workers=60, max_barracks=8, max_bases=3,
                  own_build=True, scout=2, pull_workers=True, focus_fire=True, group_up=True, retreat=True,
                  wave_scale=1.0, attack_scale=1.0, research=9, static_defence=2),
    VERY_HARD: Level(**_CHEAT),  # type: ignore[arg-type]
    CHEAT_VISION: Level(**_CHEAT, sees_all=True),  # type: ignore[arg-type]
    CHEAT_MONEY: Level(**_CHEAT, extra_income=1),  # type: ignore[arg-type]
    CHEAT_INSANE: Level(**_CHEAT, extra_income=2, sees_all=True),  # type: ignore[arg-type]
}
"""Difficulty -> its level."""


@dataclass(frozen=True)
class Build:
    """One build: an opener, then the rules the Computer keeps to (supply ahead, workers, barracks
    per base, expansions at their timings, waves that grow)."""

    name: str
    opener: tuple[tuple[int, str], ...]
    """(food used, structure) in order: each step waits for its supply (and the money)."""
    barracks_per_base: int
    expand_s: tuple[float, ...]
    """Game seconds (faster speed, as burnysc2's ``time``) from which the 2nd, 3rd, ... townhall
    may be started."""
    reapers: int
    """Reapers it keeps (they need a refinery and 50 vespene each)."""
    first_attack_s: float
    first_wave: int
    """Army supply of its first attack wave."""
    wave_growth: int
    """Supply each later wave adds."""
    tech: Tech | None = None
    """Its tech path (None: barracks of marines and reapers only, as Simple and Rush)."""
    strength_margin: float = 0.0
    """At the levels with army control (:attr:`Level.focus_fire`) a wave also waits until the army
    at home is this many times as strong as the enemy army it reckons (what it has seen, grown by
    the enemy's production since; 0: it does not compare;
    the Terran and Zerg builds) (m)."""


SIMPLE = Build("Simple", opener=((14, DEPOT), (16, BARRACKS)), barracks_per_base=2, expand_s=(420.0, 840.0),
               reapers=0, first_attack_s=330.0, first_wave=8, wave_growth=3)
"""The VeryEasy and Easy build: one barracks after the first depot, marines, waves late."""

_BIO_BARRACKS = ((BARRACKS, TECHLAB), (Train(MARAUDER, share=0.3), Train(MARINE))), \
    ((BARRACKS, REACTOR), (Train(MARINE),))
TIMING_TECH = Tech(
    per_base=((BARRACKS, 3.0), (FACTORY, 0.5), (STARPORT, 0.5)),
    addons=((BARRACKS, (TECHLAB, REACTOR, REACTOR)), (FACTORY, (NO_ADDON,)), (STARPORT, (NO_ADDON,))),
    trains=(((BARRACKS, NO_ADDON), (Train(REAPER, share=0.0, at_least=2), Train(MARINE))), *_BIO_BARRACKS,
            ((FACTORY, NO_ADDON), (Train(HELLION, share=0.1),)),
            ((STARPORT, NO_ADDON), (Train(MEDIVAC, share=0.08, at_least=1),))),
    refineries_per_base=2, spill=BARRACKS, research=(COMBAT_SHIELD, STIMPACK, INFANTRY_WEAPONS_1, INFANTRY_ARMOR_1))
"""Bio (Timing): Reaper expand, three barracks (a Tech Lab, two Reactors) of Marines and Marauders,
a Factory (a few Hellions) that opens the Starport, whose Medivacs come with the waves
(Liquipedia "Reaper Expand"; the 1-1-1 / 3-1-1 bio of lotv.spawningtool.com/build/22497 and the
HotS "3-1-1" build orders: Tech Lab for Marauders, Reactors for Marines, Starport Reactor for
Medivacs)."""
POWER_TECH = dataclasses.replace(
    TIMING_TECH, per_base=((BARRACKS, 2.5), (FACTORY, 0.5), (STARPORT, 0.5)),
    addons=((BARRACKS, (TECHLAB, REACTOR, REACTOR)), (FACTORY, (TECHLAB,)), (STARPORT, (REACTOR,))),
    trains=(((BARRACKS, NO_ADDON), (Train(REAPER, share=0.0, at_least=1), Train(MARINE))),
            ((BARRACKS, TECHLAB), (Train(MARAUDER, share=0.08), Train(GHOST, share=0.04, from_level=HARD),
                                   Train(MARAUDER, share=0.3), Train(MARINE))),
            ((BARRACKS, REACTOR), (Train(MARINE),)),
            ((FACTORY, TECHLAB), (Train(SIEGETANK, share=0.06), Train(WIDOWMINE, share=0.04, from_level=HARD))),
            ((STARPORT, REACTOR), (Train(MEDIVAC, share=0.0, at_least=2), Train(LIBERATOR, share=0.04, from_level=HARD),
                                   Train(MEDIVAC, share=0.08))),
            ((STARPORT, NO_ADDON), (Train(MEDIVAC, share=0.08, at_least=1),))),
    refineries_per_base=1, more_gas_from=HARD)
"""Bio (Power): as Timing on more bases and gas, a Factory Tech Lab for a few Siege Tanks, two
Medivacs at once from a Starport Reactor; from Hard up a few Widow Mines from the Factory Tech Lab
when no tank is due, Ghosts (a Ghost Academy) and Liberators (Liquipedia "Ghost", "Liberator":
Ghosts against high-life biological units and Protoss shields, Liberators' zones).  The shares of
Medivacs and tanks are small (m: tuned
when the engine's Medivacs did not heal and its tanks could not siege, so that they added little to
the marines that carry the fights; a first version with 0.2 Medivacs lost or tied at Hard to the
reference bot's marine push).  Its tanks siege in fights (:mod:`.terran`)."""
MECH_TECH = Tech(
    per_base=((BARRACKS, 1.5), (FACTORY, 1.0), (STARPORT, 0.34)),
    addons=((FACTORY, (TECHLAB, REACTOR, TECHLAB)), (BARRACKS, (REACTOR,)), (STARPORT, (NO_ADDON,))),
    trains=(((BARRACKS, REACTOR), (Train(MARINE),)),
            ((BARRACKS, NO_ADDON), (Train(MARINE),)),
            ((FACTORY, TECHLAB), (Train(SIEGETANK, share=0.08), Train(THOR, share=0.05, from_level=HARD),
                                  Train(CYCLONE, share=0.04, from_level=HARD), Train(SIEGETANK))),
            ((FACTORY, REACTOR), (Train(WIDOWMINE, share=0.1, at_least=2, from_level=HARD), Train(HELLION))),
            ((FACTORY, NO_ADDON), (Train(WIDOWMINE, share=0.1, at_least=2, from_level=HARD), Train(HELLION, share=0.3))),
            ((STARPORT, NO_ADDON), (Train(VIKING, share=0.0, at_least=1),))),
    refineries_per_base=1, spill=BARRACKS, research=(VEHICLE_WEAPONS_1, PLATING_1), more_gas_from=HARD)
"""Mech (Macro): double gas (from Hard up two refineries a base), Factories with a Tech Lab (Siege Tanks) and a Reactor (Hellions),
Reactor Barracks of Marines, a Starport for Vikings against air (one, then one more than the most
enemy air units it has seen) (terrancraft.com, "Gas first Reaper opening for Mech" (2014): two
Factories, Tech Lab and Reactor, a Starport for Vikings; Liquipedia "Siege Tank", "Hellion").
From Hard up Widow Mines from the Reactor Factories (two, then a tenth of the army), Thors (its
Armory: the research's) and Cyclones from the Tech Lab Factories (Liquipedia "Mech": Siege Tanks,
Thors, Hellbats, Widow Mines, Cyclones).  Its tanks siege and its mines burrow in fights
(:mod:`.terran`)."""
AIR_TECH = Tech(
    per_base=((STARPORT, 2.0), (BARRACKS, 0.5), (FACTORY, 0.34)),
    addons=((BARRACKS, (REACTOR,)), (STARPORT, (TECHLAB, REACTOR, TECHLAB))),
    trains=(((BARRACKS, REACTOR), (Train(MARINE, share=0.5, at_least=4),)),
            ((BARRACKS, NO_ADDON), (Train(MARINE, share=0.5, at_least=4),)),
            ((FACTORY, NO_ADDON), (Train(HELLION, share=0.1),)),
            ((STARPORT, TECHLAB), (Train(RAVEN, share=0.0, at_least=1, from_level=HARD),
                                   Train(BATTLECRUISER, share=0.15, from_level=HARD), Train(BANSHEE))),
            ((STARPORT, REACTOR), (Train(LIBERATOR, share=0.12, from_level=HARD), Train(VIKING, share=0.3, at_least=2))),
            ((STARPORT, NO_ADDON), (Train(LIBERATOR, share=0.12, from_level=HARD), Train(VIKING, share=0.3, at_least=1)))),
    refineries_per_base=2, spill=BARRACKS, research=(CLOAKING_FIELD, SHIP_WEAPONS_1, PLATING_1, WEAPON_REFIT))
"""Air: double gas, a barracks Reactor of Marines for defence, a Factory to open the Starports,
Starports with Tech Labs (Banshees) and one with a Reactor (Vikings: the second) (Liquipedia "2
Port Banshee": two Starports, Banshees, Marines at home); from Hard up a Raven, Liberators and
Battlecruisers (a Fusion Core, Weapon Refit last of its research) (Liquipedia "Battlecruiser",
"Sky Terran")."""

_GAS_OPENER = ((14, DEPOT), (16, BARRACKS), (16, REFINERY), (17, REFINERY), (19, DEPOT))
"""Double gas after the first barracks (the mech and air openings cited above)."""

BUILDS: dict[int, Build] = {
    RUSH: Build("Rush", opener=((14, DEPOT), (15, BARRACKS), (16, BARRACKS), (19, DEPOT), (19, BARRACKS)),
                barracks_per_base=3, expand_s=(300.0, 600.0), reapers=0, first_attack_s=170.0, first_wave=6,
                wave_growth=5),
    TIMING: Build("Timing", opener=((14, DEPOT), (16, BARRACKS), (16, REFINERY), (19, DEPOT)),
                  barracks_per_base=3, expand_s=(270.0, 500.0), reapers=2, first_attack_s=360.0, first_wave=18,
                  wave_growth=8, tech=TIMING_TECH),
    POWER: Build("Power", opener=((14, DEPOT), (16, BARRACKS), (16, REFINERY), (20, DEPOT)),
                 barracks_per_base=3, expand_s=(100.0, 400.0, 700.0), reapers=1, first_attack_s=450.0,
                 first_wave=26, wave_growth=10, tech=POWER_TECH),
    MACRO: Build("Macro", opener=_GAS_OPENER, barracks_per_base=1, expand_s=(80.0, 300.0, 480.0), reapers=0,
                 first_attack_s=500.0, first_wave=34, wave_growth=12, tech=MECH_TECH),
    AIR: Build("Air", opener=_GAS_OPENER, barracks_per_base=1, expand_s=(240.0, 480.0), reapers=0,
               first_attack_s=420.0, first_wave=20, wave_growth=10, tech=AIR_TECH),
}
"""The builds the Medium and harder levels play, by ``AIBuild``."""
RANDOM_CHOICES = (RUSH, TIMING, POWER, MACRO)
"""What RandomBuild draws among (seeded per game)."""
