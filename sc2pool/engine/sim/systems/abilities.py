"""Abilities: energy, the spells that spend it, and what they leave behind (calldowns, scans).

Rules (the real game's; sources per fact below, "(m)" where the engine chose):

- *energy*: a unit whose type has energy (``data.units`` ``energy``: Orbital Command 50/200, Ghost
  75/200, Medivac, Banshee, Raven 50/200, ...) starts with its type's starting energy when it
  appears (a Command Center becoming an Orbital Command: when the morph is done) and regains
  :data:`~sc2pool.engine.data.units.ENERGY_REGEN` (0.5625 per normal second = 0.7875 per faster
  second, LP:Energy) up to its maximum.  Energy is kept per unit as (value, loop) and evaluated
  when read, so nothing runs per loop for it.  It is reported as ``energy`` / ``energy_max``.
- *calldowns* of the Orbital Command, 50 energy each (LP:Orbital_Command), anywhere on the map
  (the client's ``cast_range`` 500):
  MULE (171, a point or a unit): a MULE (type 268) lands at the point, or beside the mineral
  field it was cast on and mines it at once; it lives :data:`MULE_LOOPS` and returns 25 minerals
  9 times (225 in all) from the same field, which an SCV may mine at the same time
  (LP:MULE_(Legacy_of_the_Void)).  Its walks are not simulated (m): it stands by the field and
  each return is credited every :data:`MULE_TRIP_LOOPS`; a MULE told to gather (166 or the
  generic 3666) a field mines that one.
  Scanner Sweep (399, a point): the player sees a disc of radius :data:`SCAN_RADIUS` for
  :data:`SCAN_LOOPS` and detects cloaked units in it (LP:Scanner_Sweep; the detection is
  ``systems/detection.py``'s).
  Extra Supplies (255, a Supply Depot): the depot provides 8 more supply from then on
  (LP:Calldown:_Extra_Supplies), once per depot (a second: ``Error`` (m)); the drop pod's delay
  is not simulated (m).
- *Medivac heal* (386, autocast as in the real game, the client's ``allow_autocast``): a Medivac
  with energy heals the nearest hurt biological ground unit of its player within the client's
  cast range 4 (edge to edge) at :data:`HEAL_PER_LOOP` life per loop (12.6 per faster second),
  1 energy for every 3 life (LP:Medivac).  It does not fly to a hurt unit (m).
- *Yamato Cannon* (401, a unit; the Battlecruiser with Weapon Refit researched): the
  Battlecruiser flies to within :data:`YAMATO_RANGE` (the client's cast range, edge to edge) of the
  target, channels for :data:`YAMATO_CHANNEL` loops (its order the Yamato on the target, it neither
  moves nor fires) and deals :data:`YAMATO_DAMAGE` (shields first, armor ignored (m)); the
  cooldown of :data:`YAMATO_COOLDOWN` starts with the channel (LP:Battlecruiser).  A target that
  dies, leaves or cloaks undetected first ends it; another order given before the channel
  replaces it.
- *Ghost*: Steady Targeting (2714, a biological unit; ``MustTargetBiologicalUnits`` otherwise):
  50 energy, a 1.43 faster second channel (:data:`SNIPE_CHANNEL`), 170 damage; EMP Round (1628,
  a point): 75 energy, every unit (friend or foe) within :data:`EMP_RADIUS` of the point loses up
  to 100 shields and 100 energy (LP:Ghost), at once when the Ghost is in range (the missile's
  flight is not simulated (m)).  Both as the Yamato: the Ghost walks into range 10 (the client's
  cast range) first; the energy is paid when the cast starts (m).
- *Raven*: Auto-Turret (1764, a point within the client's cast range 2): 50 energy, an
  Auto-Turret (type 31, its client weapon: 18 damage, range 6) stands there for
  :data:`AUTO_TURRET_LOOPS` (LP:Raven); its placement is not checked (m).
- *Reaper*: KD8 Charge (2588, a point or a unit's point, within the client's cast range 5; no
  energy, a :data:`KD8_COOLDOWN` cooldown, LP:Reaper): the Reaper walks into range and throws; the
  grenade blasts :data:`KD8_DELAY` later for :data:`KD8_DAMAGE` to the enemy ground units (not
  structures) within :data:`KD8_RADIUS` of the point (delay, radius and "enemies only" are (m));
  its knock-back is not simulated (m).
- *Widow Mine*: Sentinel Missiles (2099, autocast as the client's ``allow_autocast``): every
  loop, a burrowed mine whose missile is loaded fires at the closest enemy (ground or air, one it
  may see: detection) within the client's cast range 5: 125 (+35 vs shields) to it and 40 (+25
  vs shields) to every other unit, friend or foe, within :data:`MINE_SPLASH_RADIUS` of it, but not
  structures nor Widow Mines; then it reloads for :data:`MINE_REARM`
  (LP:Widow_Mine_(Legacy_of_the_Void)).  The missile hits at once (m).  2099 on a unit fires an
  armed mine at it when in range.  Burrowed mines are cloaked (``systems/detection.py``).
- *Cyclone*: Lock On (2350, a unit within the client's cast range 7; the 5.0.11 client's Cyclone,
  LP:Cyclone of patches 4.11-5.0.11): the Cyclone drives into range, then deals
  :data:`LOCK_ON_DAMAGE` over :data:`LOCK_ON_LOOPS` (equal parts each loop, no armor (m)) while it
  moves as it likes; its weapon does not fire meanwhile (LP: Lock On "locks the Cyclone's weapons
  on the target unit").  The lock breaks when the target is farther than :data:`LOCK_ON_BREAK`,
  dies, or cloaks undetected; 2354 cancels it; then :data:`LOCK_ON_COOLDOWN`.  One lock at a time
  (a second Lock On: ``Error`` (m)).  Lock On is autocast, as the real game sets it by default
  (LP:Cyclone): a Cyclone that is not on a move order, has no lock and is off cooldown locks on
  the closest enemy unit (not a structure; one it may see: detection) within range 7 (which one
  the real autocast picks is (m)); toggling the autocast is accepted and ignored (m).  A client
  of releases 3.8 to 4.7 (``sc2_version``: :mod:`sc2pool.engine.data.versions`) locks on air
  units only, by hand or by autocast (LP:Cyclone; a ground target by hand: ``CantTargetThatUnit``
  (m)).
- *Tactical Jump* (2358, a point anywhere): the Battlecruiser channels :data:`JUMP_DELAY` in place,
  vulnerable for its first :data:`JUMP_VULNERABLE` loops (1 s, KB:LLM-PySC2), then invulnerable
  for the rest (:attr:`Abilities.jumping`: combat and spells drop damage to it), then stands at
  the point; :data:`JUMP_COOLDOWN` (LP:Battlecruiser).
- *Raven*, 75 energy each (LP:Raven): Interference Matrix (3747, a mechanical or psionic unit):
  it does not fire nor cast for :data:`MATRIX_LOOPS`; Anti-Armor Missile (3753, a unit): every
  unit within :data:`SHRED_RADIUS` of it has :data:`SHRED_ARMOR` less armor for
  :data:`SHRED_LOOPS` (friend or foe (m)).  The missiles hit at once (m).
- *Tactical Nuke* (LP:Ghost, LP:Ghost_Academy): a finished Ghost Academy arms one nuke (710,
  100/100, :data:`NUKE_ARM_LOOPS`, needs a Factory); a Ghost of a player with an armed nuke (1622,
  a point within the client's cast range 12; else ``Error`` (m)) walks into range, launches it
  (the Academy's nuke is used) and paints the point for :data:`NUKE_CHANNEL`; then every unit,
  friend or foe, structures and air units too, within :data:`NUKE_RADIUS` takes
  :data:`NUKE_DAMAGE` (+ :data:`NUKE_STRUCTURE_BONUS` vs structures).  A Ghost that dies while
  painting loses the nuke; the Ghost is not cloaked by it and the red dot is not reported (m).
- *cloak* (Banshee 392 / 393 with Cloaking Field researched, Ghost 382 / 383 with Personal
  Cloaking, or the generic 3676 / 3677): 25 energy to turn on, then :data:`CLOAK_DRAIN` energy per
  normal second instead of the regeneration (LP:Banshee, LP:Ghost; that the drain replaces the
  regeneration is (m)); it turns off when the energy runs out.  Who sees and targets a cloaked
  unit: ``systems/detection.py``.

The targeted casts (:data:`SPELLS`) walk into range, pay, start their cooldown and channel by the
shared ``systems/casting.py`` (the rules every race's casts share); this module gives their data and
effects.  Every cooldown here (a Widow Mine's rearming, Lock On's) is kept in that module's one
cooldown table of all races' units (``Casting.ready_to``, ``Casting.start_cooldown``).  An ability whose caster lacks the energy answers ``NotEnoughEnergy`` (17); a cloak without its
research ``TechRequirementsNotMet``; a calldown on a target it does not take ``CantTargetThatUnit``.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data import units as F
from sc2pool.engine.data import versions
from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.commands import (
    CANT_TARGET_THAT_UNIT,
    COOLDOWN,
    ERROR,
    MUST_TARGET_BIOLOGICAL_UNITS,
    MUST_TARGET_MECHANICAL_UNITS,
    MUST_TARGET_UNIT,
    NOT_ENOUGH_ENERGY,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
)
from sc2pool.engine.sim.systems.alerts import MULE_EXPIRED, NUCLEAR_LAUNCH_DETECTED, NUKE_COMPLETE
from sc2pool.engine.sim.systems.casting import Cast, CastSpec
from sc2pool.engine.sim.systems.effects import KD8_CHARGE_UNIT
from sc2pool.engine.sim.systems.workers import order_bytes
from sc2pool.engine.sim.units import FOLLOW as FOLLOW_KIND
from sc2pool.engine.sim.units import HOLD as HOLD_KIND
from sc2pool.engine.sim.units import MOVE as MOVE_KIND
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

LOOPS_PER_FASTER_SECOND = 22.4
"""Game loops per second at the Faster speed Liquipedia's LotV times are given in (16 x 1.4)."""
REGEN_PER_LOOP = F.ENERGY_REGEN / D.NORMAL_LOOPS_PER_SECOND
"""Energy a unit regains per game loop (LP:Energy)."""

CALLDOWN_MULE, SCANNER_SWEEP, SUPPLY_DROP = 171, 399, 255
MEDIVAC_HEAL = 386
GATHER_MULE, GATHER = 166, 3666
CLOAK_ON = {392: 55, 382: 50, 3676: 0}
"""Cloak-on abilities -> the type that uses them (0: the generic one, Banshee or Ghost)."""
CLOAK_OFF = {393: 55, 383: 50, 3677: 0}
CLOAK_RESEARCH = {55: 20, 50: 25}
"""Type -> the upgrade its cloak needs: Cloaking Field (BANSHEECLOAK 20), Personal Cloaking (25)."""
ORBITALS = frozenset({132})
"""What calls down: the landed Orbital Command (the flying one keeps its energy but has no
calldowns on its command card (m))."""
SUPPLY_DEPOTS = frozenset({19, 47})
MULE = 268
MEDIVAC, BANSHEE = 54, 55

CALLDOWN_ENERGY = 50.0
"""MULE, Scanner Sweep, Extra Supplies (LP:Orbital_Command)."""
MULE_LOOPS = int(64 * LOOPS_PER_FASTER_SECOND)
"""A MULE lives 64 faster seconds = 1433.6 loops (LP:MULE_(Legacy_of_the_Void))."""
MULE_TRIPS, MULE_CARRY = 9, 25
"""A MULE returns 25 minerals 9 times, 225 in all (LP:MULE_(Legacy_of_the_Void))."""
MULE_TRIP_LOOPS = MULE_LOOPS // MULE_TRIPS
"""Loops between a MULE's returns: its life shared evenly by its 9 trips (m)."""
SCAN_RADIUS = 13.0
SCAN_LOOPS = int(12.3 * LOOPS_PER_FASTER_SECOND)
"""Scanner Sweep: radius 13 for 12.3 faster seconds = 275 loops (LP:Scanner_Sweep)."""
EXTRA_SUPPLY = 8
"""Extra Supplies: +8 supply to a Supply Depot (LP:Calldown:_Extra_Supplies)."""
HEAL_RANGE = 4.0
"""Medivac heal: the client's ``cast_range`` of 386."""
HEAL_PER_LOOP = 12.6 / LOOPS_PER_FASTER_SECOND
"""12.6 life per faster second (LP:Medivac)."""
HEAL_PER_ENERGY = 3.0
"""Life healed per energy (LP:Medivac)."""
CLOAK_ENERGY = 25.0
CLOAK_DRAIN = 0.9
"""Cloak: 25 energy to turn on, then 0.9 energy per normal second (1.26 per faster second;
LP:Banshee, LP:Ghost)."""
CLOAK_PER_LOOP = CLOAK_DRAIN / D.NORMAL_LOOPS_PER_SECOND
YAMATO, WEAPON_REFIT, BATTLECRUISER = 401, 76, 57
SNIPE, EMP, GHOST = 2714, 1628, 50
AUTO_TURRET, RAVEN, AUTO_TURRET_UNIT = 1764, 56, 31
AUTO_TURRET_LOOPS = int(10 * LOOPS_PER_FASTER_SECOND)
"""An Auto-Turret lasts 10 faster seconds = 224 loops (LP:Raven)."""
SNIPE_CHANNEL = int(1.43 * LOOPS_PER_FASTER_SECOND)
"""Steady Targeting channels 1.43 faster seconds = 32 loops (LP:Ghost)."""
EMP_RADIUS, EMP_DRAIN = 1.5, 100.0
SHOCKWAVES, SHOCKWAVES_RADIUS = 297, 2.0
"""Enhanced Shockwaves (upgrade 297, the client's): the EMP's radius 2 instead of 1.5 (LP:Ghost)."""
CORVID, CORVID_ENERGY, RAVEN_T = 22, 25.0, 56
"""Corvid Reactor (upgrade 22, the client's): a new Raven starts with 25 more energy (LP:Raven)."""
"""EMP Round: radius 1.5, up to 100 shields and 100 energy (LP:Ghost)."""
YAMATO_DAMAGE = 240.0
YAMATO_RANGE = 10.0
"""The client's ``cast_range`` of 401."""
YAMATO_COOLDOWN = int(71 * LOOPS_PER_FASTER_SECOND)
"""71 faster seconds = 1590 loops (LP:Battlecruiser)."""
YAMATO_CHANNEL = int(2 * LOOPS_PER_FASTER_SECOND)
"""The 2 faster seconds (44 loops) the Battlecruiser channels before the shot (LP:Battlecruiser)."""
REAPER, KD8 = 49, 2588
KD8_RANGE = 5.0
"""The client's ``cast_range`` of 2588."""
KD8_COOLDOWN = int(14 * LOOPS_PER_FASTER_SECOND)
"""14 faster seconds = 313 loops (LP:Reaper)."""
KD8_DAMAGE = 5.0
"""LP:Reaper."""
KD8_DELAY = int(1 * LOOPS_PER_FASTER_SECOND)
"""Loops from the throw to the blast: 1 faster second (m: LP gives "after a short delay")."""
KD8_RADIUS = 1.0
"""The blast's radius (m: not known here)."""
MINE, MINE_BURROWED, MINE_ATTACK = 498, 500, 2099
MINE_TYPES = frozenset({MINE, MINE_BURROWED})
MINE_RANGE = 5.0
"""The client's ``cast_range`` of 2099 (LP:Widow_Mine_(Legacy_of_the_Void): range 5)."""
MINE_DAMAGE, MINE_SHIELD_BONUS = 125.0, 35.0
MINE_SPLASH, MINE_SPLASH_SHIELD_BONUS = 40.0, 25.0
"""Sentinel Missiles: 125 (+35 vs shields) to the target, 40 (+25 vs shields) splash
(LP:Widow_Mine_(Legacy_of_the_Void))."""
MINE_SPLASH_RADIUS = 1.75
"""The splash's radius around the target (the task's figure: to check against LP)."""
MINE_REARM = int(29 * LOOPS_PER_FASTER_SECOND)
"""29 faster seconds = 649 loops to load the next missile (LP:Widow_Mine_(Legacy_of_the_Void))."""
CYCLONE, LOCK_ON, LOCK_ON_CANCEL = 692, 2350, 2354
LOCK_ON_RANGE = 7.0
"""The client's ``cast_range`` of 2350 (the 5.0.11 client's Lock On; LP:Cyclone, patch 4.11-5.0.11)."""
LOCK_ON_DAMAGE = 400.0
LOCK_ON_LOOPS = int(14 * LOOPS_PER_FASTER_SECOND)
"""Lock On: 400 damage over 14 faster seconds = 313 loops (LP:Cyclone, patch 4.11-5.0.11)."""
LOCK_ON_BREAK = 15.0
"""The lock breaks when the target is farther than 15 (edge to edge (m); LP:Cyclone)."""
LOCK_ON_PER_LOOP = LOCK_ON_DAMAGE / LOCK_ON_LOOPS
LOCK_ON_COOLDOWN = int(4.3 * LOOPS_PER_FASTER_SECOND)
"""4.3 faster seconds = 96 loops before the next lock, from the end of the last one (LP:Cyclone)."""
TACTICAL_JUMP = 2358
JUMP_DELAY = int(4 * LOOPS_PER_FASTER_SECOND)
"""Tactical Jump: the Battlecruiser leaves 4 faster seconds (89 loops) after the cast
(LP:Battlecruiser; the page could not be opened here: to check)."""
JUMP_COOLDOWN = int(71 * LOOPS_PER_FASTER_SECOND)
"""71 faster seconds = 1590 loops (LP:Battlecruiser)."""
JUMP_VULNERABLE = int(1 * LOOPS_PER_FASTER_SECOND)
"""Tactical Jump "has a 1 second vulnerable phase before warping" (KB:LLM-PySC2, the
Battlecruiser's entry): the Battlecruiser may be hurt for the first 22 loops of
:data:`JUMP_DELAY` (22.4, whole loops as the delay), and is invulnerable for the rest."""
INTERFERENCE_MATRIX, ANTI_ARMOR_MISSILE = 3747, 3753
MATRIX_LOOPS = int(11 * LOOPS_PER_FASTER_SECOND)
"""Interference Matrix: the target cannot attack or cast for 11 faster seconds = 246 loops (LP:Raven)."""
SHRED_ARMOR, SHRED_LOOPS = 3.0, int(21 * LOOPS_PER_FASTER_SECOND)
"""Anti-Armor Missile: -3 armor for 21 faster seconds = 470 loops (LP:Raven)."""
NUKE_ARM, NUKE, GHOST_ACADEMY, FACTORY = 710, 1622, 26, 27
NUKE_ARM_LOOPS = 960
"""Arming a nuke at a Ghost Academy: the client's build time of 710 (60 normal = 43 faster
seconds), 100/100, a Factory required (the client's ``data.tech.TRAIN``; LP:Ghost_Academy)."""
NUKE_COST = (100, 100)
NUKE_RANGE = 12.0
"""The client's ``cast_range`` of 1622."""
NUKE_CHANNEL = int(14 * LOOPS_PER_FASTER_SECOND)
"""The Ghost paints the target 14 faster seconds = 313 loops (LP:Tactical_Nuke)."""
NUKE_DAMAGE, NUKE_STRUCTURE_BONUS, NUKE_RADIUS = 300.0, 200.0, 8.0
"""300 (+200 vs structures) in radius 8 (LP:Tactical_Nuke; its fall-off over three radii is not simulated (m))."""
SHRED_RADIUS = 2.88
"""The missile's blast radius (LP:Raven as we know it: to check)."""


def _energy_columns() -> tuple[np.ndarray, np.ndarray]:
    start = np.zeros(len(TYPES.unit_id))
    top = np.zeros(len(TYPES.unit_id))
    for i, uid in enumerate(TYPES.unit_id.tolist()):
        f = F.FACTS.get(uid)
        if f is not None:
            start[i], top[i] = f.energy
    return start, top


E_START, E_MAX = _energy_columns()
"""Per type row: starting and maximum energy (``data.units``)."""
_MECH_PSI = np.array([D.MECHANICAL in s.attributes or D.PSIONIC in s.attributes for s in TYPES.specs])
"""Per type row: mechanical or psionic (Interference Matrix's targets, LP:Raven)."""
_BIO_ANY = np.array([D.BIOLOGICAL in s.attributes for s in TYPES.specs])
"""Per type row: biological (Steady Targeting's targets)."""
_BIO = np.array([D.BIOLOGICAL in s.attributes and not s.is_structure and not s.is_flying for s in TYPES.specs])
"""Per type row: a biological ground unit (what a Medivac heals, LP:Medivac)."""


@dataclass
class Mule:
    owner: int
    field: int
    """The mineral field it mines (0: none)."""
    next_trip: int
    trips: int
    """Returns left."""
    end: int


@dataclass(frozen=True)
class Spell:
    """A cast on a unit or a point that its caster walks (flies) into range for."""

    caster: int
    range: float
    energy: float = 0.0
    cooldown: int = 0
    channel: int = 0
    """Loops from the start of the cast (in range) to its effect."""
    damage: float = 0.0
    research: int = 0
    point: bool = False
    biological: bool = False
    """Only biological targets (``MustTargetBiologicalUnits`` otherwise)."""


SPELLS = {
    YAMATO: Spell(BATTLECRUISER, YAMATO_RANGE, cooldown=YAMATO_COOLDOWN, channel=YAMATO_CHANNEL,
                  damage=YAMATO_DAMAGE, research=WEAPON_REFIT),
    SNIPE: Spell(GHOST, 10.0, energy=50.0, channel=SNIPE_CHANNEL, damage=170.0, biological=True),
    EMP: Spell(GHOST, 10.0, energy=75.0, point=True),
    AUTO_TURRET: Spell(RAVEN, 2.0, energy=50.0, point=True),
    KD8: Spell(REAPER, KD8_RANGE, cooldown=KD8_COOLDOWN, point=True),
    LOCK_ON: Spell(CYCLONE, LOCK_ON_RANGE),
    TACTICAL_JUMP: Spell(BATTLECRUISER, 500.0, cooldown=JUMP_COOLDOWN, channel=JUMP_DELAY, point=True),
    INTERFERENCE_MATRIX: Spell(RAVEN, 9.0, energy=75.0),
    NUKE: Spell(GHOST, NUKE_RANGE, channel=NUKE_CHANNEL, point=True),
    ANTI_ARMOR_MISSILE: Spell(RAVEN, 10.0, energy=75.0),
}
"""The targeted casts, with their facts: Yamato Cannon (LP:Battlecruiser), Steady Targeting (2714:
50 energy, 170 damage to a biological unit after a 1.43 faster second channel) and EMP Round
(1628: 75 energy) (LP:Ghost), Auto-Turret (1764: 50 energy, LP:Raven), KD8 Charge (2588: 14 s
cooldown, LP:Reaper), Lock On (2350, LP:Cyclone), Tactical Jump (2358, LP:Battlecruiser),
Interference Matrix (3747) and Anti-Armor Missile (3753) (75 energy each, LP:Raven); ranges are
the client's ``cast_range``."""


@dataclass(frozen=True)
class Blast:
    """Damage in a disc at a loop (a KD8 Charge's grenade, a Sentinel Missile's splash)."""

    owner: int
    x: float
    y: float
    at: int
    damage: float
    radius: float
    shield_bonus: float = 0.0
    enemies_only: bool = False
    ground_only: bool = False
    skip: int = 0
    """A tag the blast leaves alone (the missile's primary target, hit on its own)."""
    everything: bool = False
    """Structures and Widow Mines too (a nuke), structures taking ``structure_bonus`` more."""
    structure_bonus: float = 0.0
    shows: int = 0
    """The unit type the observation shows until it blasts (a KD8 Charge: ``systems/effects.py``); 0 none."""


@dataclass
class Lock:
    """A Cyclone's Lock On: damage per loop to its target until ``end``."""

    target: int
    end: int
    last: int
    """The loop up to which its damage was dealt."""


def _heals(hp: np.ndarray, rows: np.ndarray, tops: np.ndarray, x: np.ndarray, y: np.ndarray,
           radius: np.ndarray, owner: np.ndarray, medivacs: np.ndarray, energies: list[float],
           most: float) -> list[tuple[int, float]]:
    """The heals of :meth:`Abilities._heal` (``native.heal_hurt`` and ``native.heal_apply`` are
    the C twins, :func:`_heals_native`): each Medivac (rows ``medivacs``, their ``energies``)
    with energy heals the nearest (edge to edge, the first of equals) unit of its player among
    ``rows`` that is alive and below its maximum life ``tops``, if within ``HEAL_RANGE``: by
    ``most``, what its life lacks or what its energy pays, whichever is least, into ``hp``,
    Medivac by Medivac.  Returns (index in ``medivacs``, energy left) per heal done."""
    life = hp[rows]
    k = (life < tops).nonzero()[0]
    if len(k):
        k = k[life[k] > 0]
    if not len(k):
        return []
    hurt = rows[k]
    # every Medivac's distances to the hurt units, another player's left out (positions stay
    # as they are while the heals below change life only); the nearest is the first at the
    # least distance
    d = (np.hypot(x[hurt] - x[medivacs][:, None], y[hurt] - y[medivacs][:, None])
         - radius[hurt] - radius[medivacs][:, None])
    d[owner[hurt] != owner[medivacs][:, None]] = np.inf
    near = d.argmin(axis=1).tolist()
    far = (d.min(axis=1) > HEAL_RANGE).tolist()
    hurt_rows, hurt_tops = hurt.tolist(), tops[k].tolist()
    done: list[tuple[int, float]] = []
    for i, (e, j, out) in enumerate(zip(energies, near, far, strict=True)):
        if e <= 0.0 or out:
            continue
        t = hurt_rows[j]
        amount = min(most, hurt_tops[j] - float(hp[t]), e * HEAL_PER_ENERGY)
        if amount <= 0:
            continue
        hp[t] += amount
        done.append((i, e - amount / HEAL_PER_ENERGY))
    return done


def _heals_native(hp: np.ndarray, rows: np.ndarray, tops: np.ndarray, x: np.ndarray, y: np.ndarray,
                  radius: np.ndarray, owner: np.ndarray, medivacs: np.ndarray, energies: list[float],
                  most: float) -> list[tuple[int, float]]:
    """:func:`_heals` by its C twins: the hurt units and the offsets to them, their lengths by
    numpy's ``hypot`` (as :func:`_heals` takes them), then the heals."""
    assert _native is not None
    m, r = len(medivacs), len(rows)
    idx = np.empty(2 * r, np.int64)
    dxy = np.empty(2 * m * r)
    c = _native.heal_hurt(hp, rows, tops, x, y, medivacs, idx, dxy)
    if not c:
        return []
    mc = m * c
    dist = np.hypot(dxy[:mc], dxy[mc:2 * mc])
    return _native.heal_apply(dist, idx, c, tops, radius, owner, medivacs, energies, most, HEAL_PER_ENERGY,
                              HEAL_RANGE, hp)


@dataclass
class Scan:
    owner: int
    x: float
    y: float
    end: int


class Abilities:
    """Energy per unit, the spells that spend it, MULEs, scans, extra supplies, heals (see the
    module docstring)."""

    _medivacs_of: tuple[tuple[int, int], np.ndarray, list[tuple[int, int]]] = \
        ((0, -1), np.zeros(0, np.int64), [])
    """The unit store and its version, and for them the Medivacs' rows and (row, tag) pairs (a
    class default, so that a state pickled before it existed still loads)."""
    _tops_key: tuple[int, int, int] = (0, -1, -1)
    _tops: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0))
    """:meth:`_heal_tops` and the unit store, its version and the shielded Marines' revision it
    was found for (class defaults, as above)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.energy: dict[int, tuple[float, int, float]] = {}
        """Tag -> (energy, the loop it had it, its maximum)."""
        self.cloaked: dict[int, int] = {}
        """Tag of a unit with its cloak on -> its owner."""
        self.mules: dict[int, Mule] = {}
        self.scans: list[Scan] = []
        self.supplied: set[int] = set()
        """Supply Depots that got Extra Supplies."""
        self._healing = False
        self._last = 0
        # (the unit store and its version when the energy units were last registered: they
        # cannot change while the set of units stays the same)
        self._registered: tuple[int, int] = (0, -1)
        self.timed: dict[int, int] = {}
        """Tag of a unit with a timed life (Auto-Turret) -> the loop it is gone."""
        self.blasts: list[Blast] = []
        """Blasts to come (KD8 Charges in flight)."""
        self.locks: dict[int, Lock] = {}
        """Cyclone tag -> its Lock On."""
        self._by_type: dict[int, tuple[int, list[int]]] = {}
        """Unit type -> (unit-set version, its units' tags): :meth:`_tags_of`'s cache."""
        self.lock_air_only = versions.rule("lock_on_air_only")
        """The served release's Lock On hits air units only (:mod:`sc2pool.engine.data.versions`)."""
        self.jumping: set[int] = set()
        """Battlecruisers warping out (Tactical Jump): invulnerable (combat and spells skip them)."""
        self.warming: dict[int, int] = {}
        """Tag of a Battlecruiser in its Tactical Jump's vulnerable phase -> the loop it becomes
        invulnerable (joins :attr:`jumping`)."""
        self.disabled: dict[int, int] = {}
        """Tag -> the loop its Interference Matrix ends (it cannot attack or cast until then)."""
        self.shredded: dict[int, int] = {}
        """Tag -> the loop its Anti-Armor Missile's -3 armor ends."""
        self.silos: dict[int, int] = {}
        """Ghost Academy tag -> the loop its nuke is (or was) armed."""
        # the targeted casts walk into range by systems/casting.py; their effects are here
        effects = {EMP: self._emp_cast, AUTO_TURRET: self._turret_cast, KD8: self._kd8, LOCK_ON: self._lock_on,
                   NUKE: self._nuke, TACTICAL_JUMP: self._jump, INTERFERENCE_MATRIX: self._matrix,
                   ANTI_ARMOR_MISSILE: self._shred}
        starts = {TACTICAL_JUMP: self._jump_start, NUKE: self._nuke_start}
        world.casting.add(*(CastSpec(ab, s.range, effects.get(ab, self._spell_damage), on_unit=not s.point,
                                     energy=s.energy, cooldown=s.cooldown, channel=s.channel,
                                     start=starts.get(ab))
                            for ab, s in SPELLS.items()))

    # ------------------------------------------------------------------ energy
    def energy_of(self, tag: int, loop: int | None = None) -> float:
        """A unit's energy now (0 for a unit without energy)."""
        got = self.energy.get(tag)
        if got is None:
            return 0.0
        e, t, top = got
        now = self.w.loop if loop is None else loop
        rate = -CLOAK_PER_LOOP if tag in self.cloaked else REGEN_PER_LOOP
        return min(top, max(0.0, e + (now - t) * rate))

    def _set(self, tag: int, value: float) -> None:
        top = self.energy[tag][2]
        self.energy[tag] = (value, self.w.loop, top)

    def spend(self, tag: int, cost: float) -> bool:
        """Take ``cost`` energy from the unit; False (nothing taken) when it has less."""
        e = self.energy_of(tag)
        if tag not in self.energy or e < cost:
            return False
        self._set(tag, e - cost)
        return True

    def _register(self) -> None:
        """Units with energy that appeared (or became a type with energy) start with their type's
        starting energy; a type change between two types with energy keeps it."""
        u = self.w.u
        key = (id(u), u.version)
        if key == self._registered:
            return
        self._registered = key
        rows = np.nonzero(E_MAX[u.ti] > 0)[0]
        for r, tag in zip(rows.tolist(), u.tag[rows].tolist(), strict=True):
            if tag not in self.energy:
                ti = int(u.ti[r])
                start = float(E_START[ti])
                if int(u.unit_id[r]) == RAVEN_T and self.w.research.has(int(u.owner[r]), CORVID):
                    start = min(start + CORVID_ENERGY, float(E_MAX[ti]))
                self.energy[tag] = (start, self.w.loop, float(E_MAX[ti]))

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        """Carry out a cast (see :data:`ABILITIES`)."""
        ab = c.ability
        if ab in (CALLDOWN_MULE, SCANNER_SWEEP, SUPPLY_DROP):
            return self._calldown(c)
        if ab in CLOAK_ON or ab in CLOAK_OFF:
            return self._cloak(c)
        if ab == MEDIVAC_HEAL:
            return self._heal_cmd(c)
        if ab in (GATHER_MULE, GATHER):
            return self.mule_gather(c)
        if ab == LOCK_ON and any(int(t) in self.locks for t in self.w.u.tag[c.rows]):
            return ERROR  # (one lock at a time (m))
        if ab == LOCK_ON and self.lock_air_only and c.trow >= 0 and not TYPES.is_flying[self.w.u.ti[c.trow]]:
            return CANT_TARGET_THAT_UNIT  # (releases 3.8-4.7: air targets only; the code is (m))
        if ab == NUKE and not self.armed_silos(c.player):
            return ERROR  # (no armed nuke (m: the real client's code is not known here))
        if ab in SPELLS:
            return self._spell(c)
        if ab == LOCK_ON_CANCEL:
            n = 0
            for t in self.w.u.tag[c.rows].tolist():
                n += self._unlock(int(t))
            return SUCCESS if n else ERROR
        if ab == MINE_ATTACK:
            return self._mine_cmd(c)
        if ab == NUKE_ARM:
            return self._arm(c)
        return ERROR

    def _casters(self, c: Command, types: frozenset[int]) -> np.ndarray:
        u = self.w.u
        return c.rows[np.isin(u.unit_id[c.rows], np.array(sorted(types)))]

    def _calldown(self, c: Command) -> int:
        w = self.w
        u = w.u
        casters = self._casters(c, ORBITALS)
        if len(casters) == 0:
            return ERROR
        # the real client casts with the first selected caster that has the energy (m)
        tags = [int(t) for t in u.tag[casters]]
        self._register()
        ready = [t for t in tags if self.energy_of(t) >= CALLDOWN_ENERGY]
        if c.ability == SUPPLY_DROP:
            if c.trow < 0:
                return MUST_TARGET_UNIT
            s = w.construction.structures.get(c.ttag)
            if s is None or s.unit_id not in SUPPLY_DEPOTS or s.owner != c.player or not s.ready:
                return CANT_TARGET_THAT_UNIT
            if c.ttag in self.supplied:
                return ERROR
        if c.ability == SCANNER_SWEEP and c.pos is None:
            if c.trow < 0:
                return ERROR
        if c.ability == CALLDOWN_MULE and c.pos is None and c.ttag not in w.harvest.resources:
            return CANT_TARGET_THAT_UNIT
        if not ready:
            return NOT_ENOUGH_ENERGY
        self.spend(ready[0], CALLDOWN_ENERGY)
        if c.ability == SUPPLY_DROP:
            self.supplied.add(c.ttag)
            w.supply.revision += 1
        elif c.ability == SCANNER_SWEEP:
            x, y = c.pos if c.pos is not None else (float(u.x[c.trow]), float(u.y[c.trow]))
            self.scans.append(Scan(c.player, x, y, w.loop + SCAN_LOOPS))
            w.touch()
        else:
            self._mule(c)
        return SUCCESS

    def _mule(self, c: Command) -> None:
        w = self.w
        field = 0
        if c.ttag in w.harvest.resources and w.harvest.resources[c.ttag].is_mineral:
            field = c.ttag
            res = w.harvest.resources[field]
            x, y = res.x, res.y - 1.0  # beside the field (m: the real MULE lands at its target)
        else:
            assert c.pos is not None or c.trow >= 0
            x, y = c.pos if c.pos is not None else (float(w.u.x[c.trow]), float(w.u.y[c.trow]))
        tag = int(w.spawn(MULE, c.player, [x], [y], free=True)[0])
        loop = w.loop
        self.mules[tag] = Mule(c.player, field, loop + MULE_TRIP_LOOPS, MULE_TRIPS, loop + MULE_LOOPS)

    def mule_gather(self, c: Command) -> int:
        """MULEs told to gather a mineral field mine it (their trips keep counting)."""
        res = self.w.harvest.resources.get(c.ttag)
        if res is None or not res.is_mineral:
            return CANT_TARGET_THAT_UNIT
        n = 0
        for tag in self.w.u.tag[c.rows].tolist():
            m = self.mules.get(int(tag))
            if m is not None:
                m.field = c.ttag
                n += 1
        return SUCCESS if n else ERROR

    def _cloak(self, c: Command) -> int:
        u = self.w.u
        on = c.ability in CLOAK_ON
        want = (CLOAK_ON if on else CLOAK_OFF)[c.ability]
        types = frozenset({want}) if want else frozenset(CLOAK_RESEARCH)
        rows = self._casters(c, types)
        if len(rows) == 0:
            return ERROR
        self._register()
        if not on:
            for tag in u.tag[rows].tolist():
                if tag in self.cloaked:
                    e = self.energy_of(tag)
                    del self.cloaked[tag]
                    self._set(tag, e)
            self.w.touch()
            return SUCCESS
        research = self.w.research
        result = TECH_REQUIREMENTS_NOT_MET
        for r, tag in zip(rows.tolist(), u.tag[rows].tolist(), strict=True):
            if not research.has(c.player, CLOAK_RESEARCH[int(u.unit_id[r])]):
                continue
            if tag in self.cloaked:
                result = SUCCESS
                continue
            if not self.spend(tag, CLOAK_ENERGY):
                result = NOT_ENOUGH_ENERGY if result != SUCCESS else result
                continue
            e = self.energy_of(tag)
            self.cloaked[tag] = c.player
            self._set(tag, e)
            result = SUCCESS
        self.w.touch()
        return result

    def _spell(self, c: Command) -> int:
        """The first caster among the commanded units that can cast ``c.ability`` now (research,
        cooldown, energy) goes to within its range of the target and casts it (see the module
        docstring and :data:`SPELLS`)."""
        w = self.w
        u = w.u
        spell = SPELLS[c.ability]
        rows = self._casters(c, frozenset({spell.caster}))
        if len(rows) == 0:
            return ERROR
        if spell.point:
            if c.pos is None and c.trow < 0:
                return ERROR
        else:
            if c.trow < 0:
                return MUST_TARGET_UNIT
            if int(u.owner[c.trow]) == c.player or (int(u.owner[c.trow]) == NEUTRAL_OWNER
                                                    and not TYPES.destructible[u.ti[c.trow]]):
                return CANT_TARGET_THAT_UNIT
            if w.detection.active() and w.detection.hidden(c.player)[c.trow]:
                return CANT_TARGET_THAT_UNIT
            if spell.biological and not _BIO_ANY[u.ti[c.trow]]:
                return MUST_TARGET_BIOLOGICAL_UNITS
            if c.ability == INTERFERENCE_MATRIX and not _MECH_PSI[u.ti[c.trow]]:
                return MUST_TARGET_MECHANICAL_UNITS
        if spell.research and not w.research.has(c.player, spell.research):
            return TECH_REQUIREMENTS_NOT_MET
        loop = w.loop
        if self.disabled:  # (a unit under an Interference Matrix casts nothing)
            rows = rows[[self.disabled.get(int(t), 0) <= loop for t in u.tag[rows].tolist()]]
            if not len(rows):
                return ERROR
        free = [r for r in rows.tolist() if w.casting.ready_to(int(u.tag[r]), c.ability, loop)]
        if not free:
            return COOLDOWN
        self._register()
        if spell.energy:
            free = [r for r in free if self.energy_of(int(u.tag[r])) >= spell.energy]
            if not free:
                return NOT_ENOUGH_ENERGY
        r = free[0]
        if spell.point:
            x, y = c.pos if c.pos is not None else (float(u.x[c.trow]), float(u.y[c.trow]))
            return w.casting.order(c, r, Cast(c.ability, x=x, y=y))
        return w.casting.order(c, r, Cast(c.ability, c.ttag))

    # ------------------------------------------------------------------ the casts' effects
    def _jump_start(self, cast: Cast, r: int, t: int, loop: int) -> bool:
        """The jump's channel begins: vulnerable for :data:`JUMP_VULNERABLE`, then invulnerable
        while it warps out (:meth:`_warm`)."""
        self.warming[int(self.w.u.tag[r])] = loop + JUMP_VULNERABLE
        return True

    def _warm(self, loop: int) -> None:
        """Battlecruisers whose jump's vulnerable phase is over become invulnerable (while the
        jump still channels)."""
        for tag in [t for t, end in self.warming.items() if end <= loop]:
            del self.warming[tag]
            if self.w.casting.casting(tag, TACTICAL_JUMP):
                self.jumping.add(tag)

    def _nuke_start(self, cast: Cast, r: int, t: int, loop: int) -> bool:
        """The Academy's nuke is launched: used even if the Ghost dies painting."""
        owner = int(self.w.u.owner[r])
        silos = self.armed_silos(owner)
        if not silos:
            return False
        del self.silos[silos[0]]
        self.w.alerts.others(owner, NUCLEAR_LAUNCH_DETECTED)  # (every opponent is warned)
        return True

    def _spell_damage(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._damage(t, SPELLS[cast.ability].damage, by=int(self.w.u.owner[r]))

    def _emp_cast(self, cast: Cast, r: int, t: int, loop: int) -> None:
        wide = self.w.research.has(int(self.w.u.owner[r]), SHOCKWAVES)
        self._emp(cast.x, cast.y, SHOCKWAVES_RADIUS if wide else EMP_RADIUS)

    def _turret_cast(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._turret(int(self.w.u.owner[r]), cast.x, cast.y)

    def _kd8(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.blasts.append(Blast(int(self.w.u.owner[r]), cast.x, cast.y, loop + KD8_DELAY, KD8_DAMAGE, KD8_RADIUS,
                                 enemies_only=True, ground_only=True, shows=KD8_CHARGE_UNIT))

    def _lock_on(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._lock(r, cast.target, loop)

    def _nuke(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._blast(Blast(int(self.w.u.owner[r]), cast.x, cast.y, loop, NUKE_DAMAGE, NUKE_RADIUS, everything=True,
                          structure_bonus=NUKE_STRUCTURE_BONUS))

    def _jump(self, cast: Cast, r: int, t: int, loop: int) -> None:
        u = self.w.u
        self.jumping.discard(int(u.tag[r]))
        x, y = np.array([cast.x]), np.array([cast.y])
        self.w.map.clamp(x, y, float(u.radius[r]))
        u.x[r], u.y[r] = float(x[0]), float(y[0])

    def _matrix(self, cast: Cast, r: int, t: int, loop: int) -> None:
        u = self.w.u
        self._unlock(cast.target)  # (a Cyclone's lock ends (m))
        self.disabled[cast.target] = loop + MATRIX_LOOPS
        u.cd[t] = max(float(u.cd[t]), float(MATRIX_LOOPS))  # (its weapon waits it out)

    def _shred(self, cast: Cast, r: int, t: int, loop: int) -> None:
        u = self.w.u
        tx, ty = float(u.x[t]), float(u.y[t])
        hit = np.nonzero((np.hypot(u.x - tx, u.y - ty) - u.radius <= SHRED_RADIUS) & (u.owner != NEUTRAL_OWNER))[0]
        for h in u.tag[hit].tolist():
            self.shredded[int(h)] = loop + SHRED_LOOPS

    def _turret(self, owner: int, x: float, y: float) -> None:
        """An Auto-Turret (a 2 x 2 structure, its centre on the grid's corners (m)) that shoots
        with its client weapon and is gone after :data:`AUTO_TURRET_LOOPS`."""
        tag = int(self.w.spawn(AUTO_TURRET_UNIT, owner, [float(round(x))], [float(round(y))])[0])
        self.timed[tag] = self.w.loop + AUTO_TURRET_LOOPS

    def _emp(self, x: float, y: float, radius: float = EMP_RADIUS) -> None:
        """EMP Round: every unit (friend or foe) whose edge is within ``radius`` (:data:`EMP_RADIUS`,
        or :data:`SHOCKWAVES_RADIUS` with Enhanced Shockwaves) of the point loses up to 100 shields
        and 100 energy (LP:Ghost)."""
        u = self.w.u
        hit = np.nonzero(np.hypot(u.x - x, u.y - y) - u.radius <= radius)[0]
        for r in hit.tolist():
            u.shield[r] = max(0.0, float(u.shield[r]) - EMP_DRAIN)
            self.w.regeneration.damaged(r)  # (shields regenerate only a while after)
            tag = int(u.tag[r])
            if tag in self.energy:
                self._set(tag, max(0.0, self.energy_of(tag) - EMP_DRAIN))

    def _damage(self, r: int, amount: float, by: int | None = None) -> None:
        """Spell damage to row ``r``: shields first, no armor (m); removes it when it dies.  ``by``:
        the caster's player when known (its own units hit raise no alert, ``systems/alerts.py``)."""
        u = self.w.u
        self.w.alerts.struck([(np.array([r], dtype=np.int64), by)])
        amount = self.w.barrier.absorb(r, amount)
        take = min(float(u.shield[r]), amount)
        u.shield[r] -= take
        self.w.regeneration.damaged(r)
        u.hp[r] -= amount - take
        if u.hp[r] <= 0.0:
            self.w.remove_tags([int(u.tag[r])])

    def spell_damage(self, rows: list[int], amount: float, shield_bonus: float = 0.0, by: int | None = None) -> None:
        """Spell damage to ``rows`` (shields first, ``shield_bonus`` more against shields only, no
        armor (m)); removes those that die, all at once (rows stay valid until then).  ``by``: the
        caster's player when known (its own units hit raise no alert, ``systems/alerts.py``).
        Every race's spells deal their damage here (Protoss and Zerg spell systems included), so
        the barrier, warp-out invulnerability and alerts apply to all of them alike."""
        u = self.w.u
        if rows:
            self.w.alerts.struck([(np.array(rows, dtype=np.int64), by)])
        dead: list[int] = []
        for r in rows:
            if self.jumping and int(u.tag[r]) in self.jumping:
                continue  # (invulnerable while warping)
            left = self.w.barrier.absorb(r, amount)  # (an Immortal's barrier first)
            if left <= 0.0:
                continue
            s = float(u.shield[r])
            self.w.regeneration.damaged(r)
            take = min(s, left + shield_bonus)
            u.shield[r] = s - take
            u.hp[r] -= left - max(0.0, take - shield_bonus)
            if u.hp[r] <= 0.0:
                dead.append(int(u.tag[r]))
        if dead:
            self.w.remove_tags(dead)

    def _blast(self, b: Blast) -> None:
        """Every unit whose edge is within the blast's radius takes its damage (friend or foe
        unless ``enemies_only``)."""
        u = self.w.u
        hit = np.hypot(u.x - b.x, u.y - b.y) - u.radius <= b.radius
        hit &= (u.owner != NEUTRAL_OWNER) & (u.tag != b.skip)
        if b.everything:
            rows = np.nonzero(hit)[0]
            st = TYPES.structure[u.ti[rows]]
            st_tags = u.tag[rows[st]].copy()  # (the first spell_damage may remove rows)
            self.spell_damage(rows[~st].tolist(), b.damage, by=b.owner)
            st_rows = u.rows(st_tags)
            self.spell_damage(st_rows[st_rows >= 0].tolist(), b.damage + b.structure_bonus, by=b.owner)
            return
        hit &= ~TYPES.structure[u.ti]
        if b.enemies_only:
            hit &= u.owner != b.owner
        if b.ground_only:
            hit &= ~TYPES.is_flying[u.ti]
        else:  # (a Sentinel Missile's splash: Widow Mines are not hurt by it, LP:Widow_Mine)
            hit &= ~np.isin(u.unit_id, np.array(sorted(MINE_TYPES)))
        self.spell_damage(np.nonzero(hit)[0].tolist(), b.damage, b.shield_bonus, by=b.owner)

    def _blasts(self, loop: int) -> None:
        due = [b for b in self.blasts if b.at <= loop]
        if not due:
            return
        self.blasts = [b for b in self.blasts if b.at > loop]
        for b in due:
            self._blast(b)
        self.w.touch()

    # ------------------------------------------------------------------ nukes
    def armed_silos(self, player: int) -> list[int]:
        """The player's Ghost Academies with an armed nuke (tags)."""
        structures = self.w.construction.structures
        return [t for t, at in self.silos.items() if at <= self.w.loop
                and (s := structures.get(t)) is not None and s.owner == player]

    def _armed(self, loop: int) -> None:
        """The owners of the Ghost Academies whose nuke was armed after the previous economy step,
        by ``loop``, get ``NukeComplete`` (``systems/alerts.py``)."""
        structures = self.w.construction.structures
        for tag, at in self.silos.items():
            s = structures.get(tag)
            if self._last < at <= loop and s is not None:
                self.w.alerts.add(s.owner, NUKE_COMPLETE)

    def _arm(self, c: Command) -> int:
        """710 at a finished Ghost Academy without a nuke: paid now, armed :data:`NUKE_ARM_LOOPS`
        later; one nuke per Academy (another: ``Error`` (m))."""
        w = self.w
        structures = w.construction.structures
        result = ERROR
        for tag in w.u.tag[c.rows].tolist():
            s = structures.get(int(tag))
            if s is None or s.unit_id != GHOST_ACADEMY or not s.ready or int(tag) in self.silos:
                continue
            if not w.construction.ready_of(c.player, FACTORY):
                return TECH_REQUIREMENTS_NOT_MET
            res = w.supply.afford(c.player, *NUKE_COST)
            if res != SUCCESS:
                return res
            w.supply.pay(c.player, *NUKE_COST)
            self.silos[int(tag)] = w.loop + NUKE_ARM_LOOPS
            return SUCCESS
        return result

    # ------------------------------------------------------------------ Widow Mines
    def _tags_of(self, unit_id: int) -> list[int]:
        """Tags of the units of one type (cached per unit-set version: the systems ask each loop)."""
        u = self.w.u
        got = self._by_type.get(unit_id)
        if got is None or got[0] != u.version:
            got = self._by_type[unit_id] = (u.version, u.tag[u.unit_id == unit_id].tolist())
        return got[1]

    def mine_tags(self) -> list[int]:
        """Tags of the burrowed Widow Mines."""
        return self._tags_of(MINE_BURROWED)

    def _closest_enemy(self, r: int, reach: float, ok: np.ndarray | None = None) -> int:
        """The row of the closest enemy of the unit of row ``r`` that it may see (detection),
        among ``ok`` when given, whose edge is within ``reach`` of its edge (-1: none)."""
        w = self.w
        u = w.u
        owner = int(u.owner[r])
        mask = (u.owner != owner) & (u.owner != NEUTRAL_OWNER) & (u.hp > 0)
        if ok is not None:
            mask &= ok
        if w.detection.active():
            mask &= ~w.detection.hidden(owner)
        cand = np.nonzero(mask)[0]
        if not len(cand):
            return -1
        gap = np.hypot(u.x[cand] - u.x[r], u.y[cand] - u.y[r]) - u.radius[cand] - u.radius[r]
        k = int(np.argmin(gap))
        return int(cand[k]) if gap[k] <= reach else -1

    def _mine_target(self, r: int) -> int:
        """The row of the closest enemy within the mine's range it can see (-1: none)."""
        return self._closest_enemy(r, MINE_RANGE)

    def _mine_fire(self, mine: int, target: int) -> None:
        """A Sentinel Missile from the mine (tag) at the target (tag): 125 (+35 shields) to it,
        40 (+25 shields) to every other unit within the splash radius of it, friend or foe (not
        structures, not Widow Mines); the mine rearms (LP:Widow_Mine_(Legacy_of_the_Void)).  The
        missile hits at once (m: its short delay is not simulated)."""
        u = self.w.u
        r, t = u.row(mine), u.row(target)
        if r < 0 or t < 0:
            return
        self.w.casting.start_cooldown(mine, MINE_ATTACK, self.w.loop + MINE_REARM)
        x, y, owner = float(u.x[t]), float(u.y[t]), int(u.owner[r])
        splash = Blast(owner, x, y, self.w.loop, MINE_SPLASH, MINE_SPLASH_RADIUS, MINE_SPLASH_SHIELD_BONUS,
                       skip=target)
        self.spell_damage([t], MINE_DAMAGE, MINE_SHIELD_BONUS, by=owner)
        self._blast(splash)
        self.w.touch()

    def _mines_fire(self, loop: int) -> None:
        """Every armed burrowed mine fires at the closest enemy in range (autocast, as the real
        client's ``allow_autocast`` of 2099)."""
        u = self.w.u
        shots: list[tuple[int, int]] = []
        casting = self.w.casting
        for tag in self.mine_tags():
            if not casting.ready_to(tag, MINE_ATTACK, loop):
                continue
            r = u.row(tag)
            if r < 0:
                continue
            t = self._mine_target(r)
            if t >= 0:
                shots.append((tag, int(u.tag[t])))
        for mine, target in shots:
            self._mine_fire(mine, target)

    def _mine_cmd(self, c: Command) -> int:
        """2099 on a unit: an armed burrowed mine fires at it now, if it is in range."""
        w = self.w
        u = w.u
        if c.trow < 0:
            return MUST_TARGET_UNIT
        if not c.hostile:
            return CANT_TARGET_THAT_UNIT
        rows = c.rows[u.unit_id[c.rows] == MINE_BURROWED]
        if not len(rows):
            return ERROR
        armed = [r for r in rows.tolist() if w.casting.ready_to(int(u.tag[r]), MINE_ATTACK)]
        if not armed:
            return COOLDOWN
        for r in armed:
            gap = math.hypot(u.x[c.trow] - u.x[r], u.y[c.trow] - u.y[r]) - u.radius[c.trow] - u.radius[r]
            if gap <= MINE_RANGE:
                self._mine_fire(int(u.tag[r]), c.ttag)
                return SUCCESS
        return ERROR  # (out of range: a burrowed mine cannot move to it (m))

    # ------------------------------------------------------------------ Cyclone Lock On
    def _locks(self, loop: int) -> None:
        """Locks deal their damage up to this loop; a lock whose Cyclone or target is gone, whose
        target is beyond :data:`LOCK_ON_BREAK` or cloaked undetected, or whose time is up ends."""
        w = self.w
        u = w.u
        done: list[int] = []
        for tag, lock in self.locks.items():
            r, t = u.row(tag), u.row(lock.target)
            if r < 0 or t < 0:
                done.append(tag)
                continue
            gap = math.hypot(u.x[t] - u.x[r], u.y[t] - u.y[r]) - u.radius[t] - u.radius[r]
            if gap > LOCK_ON_BREAK or (w.detection.active() and w.detection.hidden(int(u.owner[r]))[t]):
                done.append(tag)
                continue
            upto = min(loop, lock.end)
            if upto > lock.last:
                self.spell_damage([t], LOCK_ON_PER_LOOP * (upto - lock.last), by=int(u.owner[r]))
                lock.last = upto
            if upto >= lock.end:
                done.append(tag)
        for tag in done:
            self._unlock(tag)

    def _lock(self, r: int, target: int, loop: int) -> None:
        """The Cyclone of row ``r`` locks on ``target`` (a tag); its weapon waits for the lock."""
        u = self.w.u
        self.locks[int(u.tag[r])] = Lock(target, loop + LOCK_ON_LOOPS, loop)
        u.cd[r] = max(float(u.cd[r]), float(LOCK_ON_LOOPS))

    def _unlock(self, tag: int) -> bool:
        """End the Cyclone's lock (False: it had none): its weapon is free again and Lock On
        cools down."""
        if self.locks.pop(tag, None) is None:
            return False
        self.w.casting.start_cooldown(tag, LOCK_ON, self.w.loop + LOCK_ON_COOLDOWN)
        r = self.w.u.row(tag)
        if r >= 0:
            self.w.u.cd[r] = 0.0
            self.w.wake(r)  # (its target scans are scheduled: it fires again now)
        return True

    def cyclone_tags(self) -> list[int]:
        """Tags of the Cyclones."""
        return self._tags_of(CYCLONE)

    def _free_to_lock(self, r: int, loop: int) -> bool:
        """Whether the Cyclone of row ``r`` may lock on by autocast now: not on a move order, no
        lock, off cooldown, not disabled."""
        tag = int(self.w.u.tag[r])
        return tag not in self.locks and self.w.casting.ready_to(tag, LOCK_ON, loop) \
            and self.disabled.get(tag, 0) <= loop and int(self.w.u.kind[r]) not in (MOVE_KIND, FOLLOW_KIND)

    def _autolocks(self, loop: int) -> None:
        """Every Cyclone free to lock on (:meth:`_free_to_lock`) locks on the closest enemy unit it
        may see within :data:`LOCK_ON_RANGE`: not a structure; air only for releases 3.8-4.7."""
        u = self.w.u
        ok: np.ndarray | None = None  # (what may be locked on: built once, when a Cyclone is free)
        for tag in self.cyclone_tags():
            r = u.row(tag)
            if r < 0 or not self._free_to_lock(r, loop):
                continue
            if ok is None:
                ok = ~TYPES.structure[u.ti]
                if self.lock_air_only:
                    ok &= TYPES.is_flying[u.ti]
            t = self._closest_enemy(r, LOCK_ON_RANGE, ok)
            if t >= 0:
                self._lock(r, int(u.tag[t]), loop)

    def _heal_cmd(self, c: Command) -> int:
        """An explicit heal: the target must be a biological unit of the player (the heal itself
        is the autocast's, which every Medivac does)."""
        u = self.w.u
        if c.trow < 0:
            return MUST_TARGET_UNIT
        if not _BIO[u.ti[c.trow]] or int(u.owner[c.trow]) != c.player:
            return CANT_TARGET_THAT_UNIT
        return SUCCESS if len(self._casters(c, frozenset({MEDIVAC}))) else ERROR

    # ------------------------------------------------------------------ the economy's step
    def upkeep(self, loop: int) -> None:
        """Per economy step: register new units with energy, jumping Battlecruisers that become
        invulnerable, cloaks that ran out of energy, MULE returns and MULEs at the end of their
        life, scans that ended, Medivac heals."""
        self._register()
        if self.cloaked:
            out = [t for t in self.cloaked if self.energy_of(t, loop) <= 0.0]
            for t in out:
                del self.cloaked[t]
                self._set(t, 0.0)
            if out:
                self.w.touch()
        if self.warming:
            self._warm(loop)
        if self.mules:
            self._mules(loop)
        if self.locks:
            self._locks(loop)
        if self.cyclone_tags():
            self._autolocks(loop)
        for d in (self.disabled, self.shredded):
            if d:
                for tag in [t for t, end in d.items() if end <= loop]:
                    del d[tag]
        if self.blasts:
            self._blasts(loop)
        if self.mine_tags():
            self._mines_fire(loop)
        if self.timed:
            gone = [t for t, end in self.timed.items() if end <= loop]
            for t in gone:
                del self.timed[t]
            if gone:
                self.w.remove_tags(gone)
        if self.scans:
            n = len(self.scans)
            self.scans = [s for s in self.scans if s.end > loop]
            if len(self.scans) != n:
                self.w.touch()
        if self.silos:  # (nukes armed since the last step: NukeComplete)
            self._armed(loop)
        dt = loop - self._last
        self._last = loop
        # (while nobody was healed the world may have skipped loops; a unit hurt in them is healed
        # from this loop on)
        self._heal(max(dt, 0) if self._healing else min(dt, 1))

    def _mules(self, loop: int) -> None:
        w = self.w
        gone: list[int] = []
        for tag, m in self.mules.items():
            while m.trips and m.next_trip <= loop:
                m.trips -= 1
                m.next_trip += MULE_TRIP_LOOPS
                res = w.harvest.resources.get(m.field) if m.field else None
                if res is None or res.contents <= 0:
                    continue
                take = min(MULE_CARRY, res.contents)
                res.contents -= take
                w.harvest._contents_dirty.add(res.tag)
                if res.contents <= 0:
                    w.harvest.exhausted(m.owner, res)
                    w.harvest._deplete(res)
                w.supply.earn(m.owner, take, False)
                w.supply.revision += 1
            if m.end <= loop:
                gone.append(tag)
        for tag in gone:
            w.alerts.add(self.mules.pop(tag).owner, MULE_EXPIRED)
        if gone:
            w.remove_tags(gone)

    def _heal(self, dt: int) -> None:
        """Every Medivac with energy heals the nearest hurt biological unit of its player within
        range for ``dt`` loops (the horizon keeps ``dt`` at 1 while any heals)."""
        self._healing = False
        u = self.w.u
        key = (id(u), u.version)
        if self._medivacs_of[0] != key:  # (types and tags change only with the set of units)
            rows = (u.unit_id == MEDIVAC).nonzero()[0]
            self._medivacs_of = (key, rows, list(zip(rows.tolist(), u.tag[rows].tolist(), strict=True)))
        _, medivacs, pairs = self._medivacs_of
        if not pairs or dt <= 0:
            return
        # (a heal changes only its own Medivac's energy: each one's is read before any heals)
        energies = [self.energy_of(tag) for _, tag in pairs]
        if not any(e > 0.0 for e in energies):
            return
        rows, tops = self._heal_tops()
        for i, left in (_heals if _native is None else _heals_native)(
                u.hp, rows, tops, u.x, u.y, u.radius, u.owner, medivacs, energies, HEAL_PER_LOOP * dt):
            self._set(pairs[i][1], left)
            self._healing = True

    def _heal_tops(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the biological ground units and each one's maximum life (its type's plus
        Combat Shield's), kept while the set of units and the shielded Marines stay the same."""
        u = self.w.u
        research = self.w.research
        key = (id(u), u.version, research.shield_revision)
        if self._tops_key != key:
            rows = _BIO[u.ti].nonzero()[0]
            self._tops_key = key
            self._tops = (rows, (TYPES.hp_max[u.ti] + research.life_bonus())[rows])
        return self._tops

    def forget(self, alive: set[int]) -> None:
        self.jumping &= alive
        for d in (self.energy, self.cloaked, self.mules, self.timed, self.locks, self.disabled,
                  self.shredded, self.silos, self.warming):
            for tag in [t for t in d if t not in alive]:
                del d[tag]  # type: ignore[attr-defined]
        self.supplied &= alive
        # (the cooldowns of every race's units are casting's; this forget runs whenever units
        # are gone, the casts' own only while a cast is under way)
        self.w.casting.forget_cooldowns(alive)

    def horizon(self, loop: int) -> int:
        """Loops until the next thing this system must do on time (>= 1): a MULE's return or
        end, a scan's end, a cloak running out of energy; 1 while a Medivac heals."""
        if self._healing or self.locks:
            return 1
        h = 1 << 30
        for b in self.blasts:
            h = min(h, b.at - loop)
        for d in (self.disabled, self.shredded):
            for end in d.values():
                h = min(h, end - loop)
        casting = self.w.casting
        for tag in self.mine_tags():  # (an armed mine looks for a target every loop)
            h = min(h, casting.cooldown_until(tag, MINE_ATTACK) - loop)
        u = self.w.u
        for tag in self.cyclone_tags():
            # (a Cyclone acquires enemies within its sight, 11, beyond Lock On's 7: the world's quiet
            # horizon steps loop by loop once one is that near; on hold it acquires within its
            # weapon's 5 only, so a Cyclone on hold looks every loop)
            r = u.row(tag)
            if r >= 0 and int(u.kind[r]) == HOLD_KIND:
                h = min(h, casting.cooldown_until(tag, LOCK_ON) - loop)
        for m in self.mules.values():
            h = min(h, (m.next_trip if m.trips else m.end) - loop, m.end - loop)
        for s in self.scans:
            h = min(h, s.end - loop)
        for end in self.timed.values():
            h = min(h, end - loop)
        for tag in self.cloaked:
            h = min(h, math.ceil(self.energy_of(tag, loop) / CLOAK_PER_LOOP))
        return max(1, h)

    # ------------------------------------------------------------------ what others ask
    def armor_minus(self, rows: np.ndarray) -> np.ndarray:
        """Armor the units of ``rows`` lose to Anti-Armor Missiles (combat asks while any is on)."""
        u = self.w.u
        return np.array([SHRED_ARMOR if int(t) in self.shredded else 0.0 for t in u.tag[rows].tolist()])

    def invulnerable_rows(self) -> np.ndarray:
        """Rows of the units no damage may hurt now (Battlecruisers warping out)."""
        rows = self.w.u.rows(np.fromiter(self.jumping, dtype=np.int64, count=len(self.jumping)))
        return rows[rows >= 0]

    def extra_supply(self, tag: int) -> int:
        """Supply a depot gets beyond its type's (Extra Supplies)."""
        return EXTRA_SUPPLY if tag in self.supplied else 0

    def scan_discs(self, player: int) -> list[Scan]:
        """The player's active scans (vision sees them; detection detects in them)."""
        return [s for s in self.scans if s.owner == player]

    def available(self, player: int, r: int, out: list[tuple[int, bool]]) -> None:
        """Append the casts the unit of row ``r`` may use now (the real client's command card
        lists a spell once its caster has the energy and the research): (ability, requires a
        point) (m: the flag as the ability's target kind)."""
        u = self.w.u
        casting = self.w.casting
        tag, uid = int(u.tag[r]), int(u.unit_id[r])
        if uid == BATTLECRUISER and self.w.research.has(player, WEAPON_REFIT) and casting.ready_to(tag, YAMATO):
            out.append((YAMATO, False))
        if uid == BATTLECRUISER and casting.ready_to(tag, TACTICAL_JUMP):
            out.append((TACTICAL_JUMP, True))
        if uid == GHOST and self.armed_silos(player):
            out.append((NUKE, True))
        if uid == GHOST_ACADEMY and tag not in self.silos and self.w.construction.ready_of(player, FACTORY):
            out.append((NUKE_ARM, False))
        if uid in (REAPER, CYCLONE):
            ab = KD8 if uid == REAPER else LOCK_ON
            if casting.ready_to(tag, ab) and tag not in self.locks:
                out.append((ab, ab == KD8))
        if tag not in self.energy:
            return
        e = self.energy_of(tag)
        if uid == 132 and e >= CALLDOWN_ENERGY:
            out += [(CALLDOWN_MULE, True), (SUPPLY_DROP, False), (SCANNER_SWEEP, True)]
        elif uid == MEDIVAC:
            out.append((MEDIVAC_HEAL, False))
        elif uid == RAVEN:
            out += [(ab, SPELLS[ab].point) for ab in (AUTO_TURRET, INTERFERENCE_MATRIX, ANTI_ARMOR_MISSILE)
                    if e >= SPELLS[ab].energy]
        elif uid in CLOAK_RESEARCH:
            if uid == GHOST:
                out += [(ab, SPELLS[ab].point) for ab in (SNIPE, EMP) if e >= SPELLS[ab].energy]
            on = 392 if uid == BANSHEE else 382
            if tag in self.cloaked:
                out.append((on + 1, False))
            elif e >= CLOAK_ENERGY and self.w.research.has(player, CLOAK_RESEARCH[uid]):
                out.append((on, False))

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """``energy`` and ``energy_max`` of every unit with energy (an enemy's too, as the real
        client); the player's MULEs mining: their gather order on their field, and its Ghost
        Academies arming a nuke (orders are "not populated for enemies", raw.proto)."""
        loop = self.w.loop
        for tag, (_, _, top) in self.energy.items():
            parts[tag] = parts.get(tag, b"") + struct.pack("<HfHf", 0x018D, self.energy_of(tag, loop), 0x02AD, top)
        u = self.w.u

        def mine(tag: int) -> bool:
            r = u.row(tag)
            return r >= 0 and int(u.owner[r]) == player

        for tag, m in self.mules.items():
            if m.field and mine(tag):
                parts[tag] = parts.get(tag, b"") + order_bytes(GATHER_MULE, tag=m.field)
        for tag, at in self.silos.items():  # (a nuke being armed: the Academy's order, with progress)
            if at > loop and mine(tag):
                done = 1.0 - (at - loop) / NUKE_ARM_LOOPS
                parts[tag] = parts.get(tag, b"") + order_bytes(NUKE_ARM, progress=done)


ABILITIES = frozenset({CALLDOWN_MULE, SCANNER_SWEEP, SUPPLY_DROP, MEDIVAC_HEAL, GATHER_MULE, *SPELLS,
                       *CLOAK_ON, *CLOAK_OFF, LOCK_ON_CANCEL, MINE_ATTACK, NUKE_ARM})
"""Every ability this system carries out (the generic gather 3666 reaches it for MULEs through
the economy's gather)."""
