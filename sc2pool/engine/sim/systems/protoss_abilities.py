"""Protoss unit abilities: Blink, Charge, Psionic Transfer, Guardian Shield, Force Field,
Psionic Storm, Feedback, the Archon merge.

Rules (the real game's; sources in brackets, "(m)" where the engine chose; times in faster
seconds are converted at 22.4 game loops per second):

- *Blink* (1442, or the generic 3687; a point): a Stalker with Blink researched (BLINKTECH 87)
  teleports to the point; one farther than :data:`BLINK_RANGE` (from its centre) is walked to
  until within it (m: the client's ``cast_range`` of 1442 is 500); then :data:`BLINK_COOLDOWN`
  (range 8, cooldown 7 s, LP:Stalker).  It lands on the nearest free cell of a ladder map (m).
  Shadow Stride (2700) is the Dark Templar's blink the same way, with Shadow Stride researched
  (DARKTEMPLARBLINKUPGRADE 141) and :data:`STRIDE_COOLDOWN`.
- *Charge* (LP:Zealot): the research (CHARGE 86) gives Zealots 4.72 movement speed per faster
  second (``systems/research.py``); 1819 on an enemy unit: the Zealot attacks it and, once
  within :data:`CHARGE_RANGE`, lunges to its edge at once (m: the lunge's travel time is not
  simulated), then :data:`CHARGE_COOLDOWN`.  The real game's autocast (charging whatever a Zealot
  attacks) is not simulated (m).
- *Psionic Transfer* (2544, a point; LP:Adept): the Adept projects a shade (AdeptPhaseShift,
  801) that walks to the point at its client speed and cannot be hurt (m: it may still be shot
  at); :data:`SHADE_LOOPS` later the Adept teleports to where the shade is and the shade is gone.
  2594 (on the Adept) or 2596 (on the shade) cancels it: the shade vanishes, the Adept stays.
  Cooldown :data:`SHADE_COOLDOWN` from the cast.
- *Guardian Shield* (76, LP:Sentry): 75 energy; for :data:`GUARD_LOOPS` every unit of the
  Sentry's player whose centre is within :data:`GUARD_RADIUS` of the Sentry (m: centre to centre)
  takes :data:`GUARD_REDUCTION` less damage per attack from ranged weapons (weapon range above 1
  (m): melee weapons have 0.1-1), before armor, never below 0.  ``systems/combat.py`` asks
  :meth:`ProtossAbilities.guard`.
- *Force Field* (1526, a point within the client's cast range 9; LP:Sentry, LP:Force_Field):
  50 energy; a disc of radius :data:`FIELD_RADIUS` stands there for :data:`FIELD_LOOPS`; ground
  units (friend or foe) cannot stand in it: each economy step pushes any whose edge overlaps it
  to its rim (m: the real game's pathing around it is not simulated, a unit walking into it is
  held at its rim); a massive ground unit that touches it destroys it (LP:Force_Field).  It is not
  reported in the observation (m).
- *Prismatic Alignment* (2393; LP:Void_Ray): the Void Ray's attacks deal
  :data:`ALIGN_BONUS` more to armored targets for :data:`ALIGN_LOOPS`; cooldown
  :data:`ALIGN_COOLDOWN` from the cast (``systems/combat.py`` asks :meth:`ProtossAbilities.adjust`).
  Its movement speed penalty is not simulated (m).
- *Hallucination* (146-164 even, 2114, 2389, 2391; LP:Hallucination): 75 energy; the Sentry
  makes hallucinated units of the ability's type beside it (4 Probes; 2 High Templar, Stalkers,
  Zealots or Adepts; else 1), which live :data:`HALLUCINATION_LOOPS`, use no supply and are
  reported ``is_hallucination`` to their owner.  They do not fire (m: the real ones attack for
  no damage); the double damage they take is not simulated (m).
- *Psionic Storm* (1036, a point within the client's cast range 9; LP:Psionic_Storm,
  LP:High_Templar): 75 energy, Psionic Storm researched (PSISTORMTECH 52); every unit (friend or
  foe, air too, not structures) whose centre is within :data:`STORM_RADIUS` takes
  :data:`STORM_DAMAGE` over :data:`STORM_LOOPS` (an equal share each loop, no armor, shields
  first); storms do not stack (a unit in two storms is hurt once per loop).  The High Templar
  may cast the next one :data:`STORM_COOLDOWN` after (KB:LLM-PySC2).
- *Feedback* (140, an enemy unit with energy within the client's cast range 10; LP:High_Templar):
  50 energy; the target loses all its energy and takes :data:`FEEDBACK_PER_ENERGY` damage per
  energy lost (patch 4.7.1), shields first.
- *Archon* (1766, ``data.tech.MORPH`` kind "merge": High and Dark Templar): the commanded
  templar merge by pairs, in the order given; each pair stands still for :data:`MERGE_LOOPS`
  (LP:Archon: 12 s), then an Archon (141) appears at their midpoint with full life and shields
  (m: walking together first is not simulated).  A templar that dies meanwhile ends its pair's
  merge; the other goes idle.

- *Purification Nova* (2346, a point; LP:Disruptor): the Disruptor releases a nova
  (DisruptorPhased, 733) that moves towards the point at its client speed (5.95 per faster
  second), cannot be hurt and passes through units (m); :data:`NOVA_LOOPS` later it detonates:
  every ground unit and ground structure, friend or foe, whose edge is within :data:`NOVA_RADIUS`
  of it takes :data:`NOVA_DAMAGE` (+:data:`NOVA_SHIELD_BONUS` against shields), no armor (m);
  structures are hurt as units are (KB:LLM-PySC2).  Cooldown :data:`NOVA_COOLDOWN` from the cast.
- *Graviton Beam* (173, an enemy ground unit, not massive nor a structure, within the client's
  cast range 4; LP:Phoenix): 50 energy; the Phoenix flies into range, then both it and the target
  channel for :data:`GRAVITON_LOOPS` (their order the beam: they neither move nor fire; commands
  to them wait for its end); 174 on the Phoenix ends it early; it ends when either dies.  That
  the lifted unit becomes a target for anti-air weapons is not simulated (m).
- *Oracle* (LP:Oracle): Stasis Ward (2505, a point; the client's cast range 0: the Oracle flies
  there) places a ward for :data:`~sc2pool.engine.sim.systems.stasis.WARD_ENERGY`; what the ward
  does is ``systems/stasis.py``.  Revelation (2146, a point within the client's cast range 12; 25 energy):
  every unit of another player within :data:`REVEAL_RADIUS` of the point is detected by the
  Oracle's player for :data:`REVEAL_LOOPS` wherever it goes (``systems/detection.py`` asks
  :meth:`ProtossAbilities.revealed`; m: the vision it also gives is not simulated).  Pulsar Beam
  (2375 on, 2376 off): in games with a Protoss player an Oracle attacks only while its beam is
  on; turning it on costs :data:`BEAM_ENERGY`, then it drains :data:`BEAM_DRAIN` per faster
  second (m: the regeneration goes on underneath) and goes off when the energy runs out.
- *Carrier* (LP:Carrier; the client's Carrier has no weapon of its own): each Carrier has a
  hangar of up to :data:`HANGAR_MAX` Interceptors (85) and starts with :data:`HANGAR_START`
  (to check).  It builds the missing ones one at a time by itself (the client's
  ``allow_autocast`` of 1042; 1042 by hand is accepted), each for the client's 15 minerals and
  246 loops (paid at the start; without the minerals it waits).  A Carrier ordered to attack a
  unit within :data:`LAUNCH_RANGE`, or idle, holding or attack-moving with an enemy it may see
  within it, launches its docked Interceptors (units at its position, attacking that target
  with their client weapon); launched ones farther than :data:`LEASH_RANGE` from it, or without
  a target, fly back and dock.  They die with their Carrier.  This runs only in games with a
  Protoss player; the Carrier itself still flies to a unit it is told to attack (m).

- *Shield Battery* (LP:Shield_Battery; the client's ``allow_autocast`` of its Restore): in games
  with a Protoss player every finished, powered Shield Battery with energy restores the shields
  of the nearest unit or structure of its player missing some within :data:`BATTERY_RANGE`
  (edge to edge (m)) at :data:`BATTERY_RATE` shields per faster second, 1 energy per
  :data:`BATTERY_PER_ENERGY` shields.  1980 on a unit of the player is accepted (the autocast
  does it).  Which unit first: the nearest (m: the real one prefers units under attack).  An
  overcharged Battery (the Nexus's Battery Overcharge, ``systems/warpgate.py``) restores
  :data:`~sc2pool.engine.sim.systems.warpgate.OVERCHARGE_RATE` times as fast and spends no energy.

- *Mothership*: Cloaking Field (LP:Mothership): in games with a Protoss player, every unit and
  structure of the Mothership's player whose centre is within :data:`CLOAK_FIELD_RADIUS` of it
  is cloaked (``systems/detection.py`` asks :meth:`ProtossAbilities.field_cloaked`), but for
  Motherships (m: the real one's exact exclusions are not known here).  Time Warp (2244, a point
  within the client's cast range 9): :data:`WARP_ENERGY`; for :data:`WARP_LOOPS` every unit of
  another player within :data:`WARP_RADIUS` of the point moves 50% slower (the slow of
  ``systems/research.py``; m: its attack speed slow is not simulated).

Blink, Shadow Stride, Charge, Psionic Storm, Feedback, Force Field, Revelation, Graviton Beam and
Time Warp walk into range, pay and start their cooldown by the shared ``systems/casting.py``; this
module gives their data and effects.  The cooldowns of the abilities carried out here (Psionic
Transfer, Prismatic Alignment, Purification Nova) are kept in that module's one cooldown table too.
An ability whose caster lacks the energy answers ``NotEnoughEnergy``; its research missing,
``TechRequirementsNotMet``; its cooldown on, ``Cooldown``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.sim.commands import (
    CANT_TARGET_THAT_UNIT,
    COOLDOWN,
    ERROR,
    MUST_TARGET_UNIT,
    NOT_ENOUGH_ENERGY,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
)
from sc2pool.engine.sim.systems.alerts import MERGE_COMPLETE
from sc2pool.engine.sim.systems.casting import Cast, CastSpec
from sc2pool.engine.sim.systems.stasis import ACTIVATE as WARD_ACTIVATE
from sc2pool.engine.sim.systems.stasis import STASIS_WARD, WARD, WARD_ENERGY
from sc2pool.engine.sim.systems.warpgate import OVERCHARGE_RATE
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    FOLLOW,
    HOLD,
    IDLE,
    MOVE,
    NEUTRAL_OWNER,
    TRANSFORM,
    TYPES,
    Order,
)

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

FASTER = 22.4
"""Game loops per faster second (Liquipedia's LotV times)."""

ZEALOT, STALKER, HIGH_TEMPLAR, DARK_TEMPLAR, SENTRY, ARCHON, ADEPT, SHADE = 73, 74, 75, 76, 77, 141, 311, 801
BLINK, BLINK_GENERIC, CHARGE = 1442, 3687, 1819
SHADE_CAST, SHADE_CANCEL, SHADE_CANCEL_SHADE = 2544, 2594, 2596
GUARDIAN_SHIELD, STORM, FEEDBACK, MERGE, FORCE_FIELD, ALIGN = 76, 1036, 140, 1766, 1526, 2393
VOID_RAY = 80
BLINK_TECH, CHARGE_TECH, STORM_TECH = 87, 86, 52
"""Upgrades: BLINKTECH, CHARGE, PSISTORMTECH (burnysc2's ``UpgradeId``)."""

BLINK_RANGE = 8.0
BLINK_COOLDOWN = round(7 * FASTER)
SHADOW_STRIDE, STRIDE_TECH = 2700, 141
STRIDE_COOLDOWN = round(14 * FASTER)
"""Shadow Stride: range 8, cooldown 14 s = 314 loops (LP:Dark_Templar; to check)."""
"""Blink: range 8, cooldown 7 s = 157 loops (LP:Stalker)."""
CHARGE_RANGE = 4.0
CHARGE_COOLDOWN = round(7 * FASTER)
"""Charge: from within 4 of its target, cooldown 7 s (LP:Zealot)."""
SHADE_LOOPS = round(7 * FASTER)
SHADE_COOLDOWN = round(11 * FASTER)
"""Psionic Transfer: the shade lasts 7 s (157 loops), cooldown 11 s (246 loops) (LP:Adept)."""
GUARD_ENERGY, GUARD_RADIUS, GUARD_REDUCTION = 75.0, 4.5, 2.0
GUARD_LOOPS = round(11 * FASTER)
"""Guardian Shield: 75 energy, radius 4.5, -2 ranged damage, 11 s = 246 loops (LP:Sentry)."""
MELEE_RANGE = 1.0
"""Weapons of this range or shorter are melee for Guardian Shield (m: Zealot, Zergling 0.1,
Ultralisk 1; the shortest ranged weapons have 2 or more)."""
FIELD_ENERGY, FIELD_RANGE, FIELD_RADIUS = 50.0, 9.0, 1.5
FIELD_LOOPS = round(11 * FASTER)
"""Force Field: 50 energy, 11 s = 246 loops (LP:Force_Field); radius 1.5: the Force Field unit's
(BD:94137 ``ForceField``; python-sc2's ``FakeEffectRadii`` gives bots the same), where LP:Force_Field
has 1.7; range: the client's ``cast_range`` of 1526."""
ALIGN_BONUS = 10.0
ALIGN_LOOPS = round(14.3 * FASTER)
ALIGN_COOLDOWN = round(43 * FASTER)
"""Prismatic Alignment: +10 damage vs armored for 14.3 s (320 loops), cooldown 43 s (963 loops)
(LP:Void_Ray; to check against the page)."""
DISRUPTOR, NOVA_UNIT, NOVA = 694, 733, 2346
NOVA_DAMAGE, NOVA_SHIELD_BONUS, NOVA_RADIUS = 145.0, 55.0, 1.5
NOVA_LOOPS = round(2.1 * FASTER)
NOVA_COOLDOWN = round(21.4 * FASTER)
"""Purification Nova: 145 (+55 vs shields) in radius 1.5 after 2.1 s (47 loops); cooldown 21.4 s
(479 loops) (LP:Disruptor).  Structures take it as units do: the nova deals "145 splash damage
and an additional 55 shield damage to nearby ground units and structures" (KB:LLM-PySC2, the
DisruptorPhased entry)."""
PHOENIX, GRAVITON, GRAVITON_CANCEL = 78, 173, 174
GRAVITON_ENERGY, GRAVITON_RANGE = 50.0, 4.0
GRAVITON_LOOPS = round(7 * FASTER)
"""Graviton Beam: 50 energy, 7 s = 157 loops (LP:Phoenix; the duration: to check); range: the
client's ``cast_range`` of 173."""
ORACLE, REVELATION, BEAM_ON, BEAM_OFF = 495, 2146, 2375, 2376
REVEAL_ENERGY, REVEAL_RANGE, REVEAL_RADIUS = 25.0, 12.0, 6.0
REVEAL_LOOPS = round(20 * FASTER)
"""Revelation: 25 energy, radius 6, 20 s = 448 loops (LP:Oracle; to check against the page's
current patch); range: the client's ``cast_range`` of 2146."""
BEAM_ENERGY, BEAM_DRAIN = 25.0, 1.96
"""Pulsar Beam: 25 energy to turn on, 1.96 energy per faster second while on (LP:Oracle)."""
BEAM_PER_LOOP = BEAM_DRAIN / FASTER
HELD = float(1 << 30)
"""The weapon cooldown of an Oracle whose beam is off: ``can_attack`` is a column derived from
the type again whenever units are added or removed, the cooldown is kept."""
BATTERY, RESTORE = 1910, 1980
BATTERY_RATE, BATTERY_PER_ENERGY, BATTERY_RANGE = 50.4, 3.0, 6.0
"""Restore: 50.4 shields per faster second, 1 energy per 3 shields, range 6 (LP:Shield_Battery; the
rate: to check against the page's current patch)."""
BATTERY_PER_LOOP = BATTERY_RATE / FASTER
MOTHERSHIP, TIME_WARP = 10, 2244
WARP_ENERGY, WARP_RANGE, WARP_RADIUS = 75.0, 9.0, 3.5
WARP_LOOPS = round(7.1 * FASTER)
"""Time Warp: 75 energy, radius 3.5, 7.1 s = 159 loops, -50% movement speed (LP:Mothership; the
energy and the duration: to check against the current patch); range: the client's ``cast_range``
of 2244."""
CLOAK_FIELD_RADIUS = 5.0
"""The Mothership's Cloaking Field: radius 5 (LP:Mothership; to check)."""
CARRIER, INTERCEPTOR, BUILD_INTERCEPTORS = 79, 85, 1042
HANGAR_MAX, HANGAR_START = 8, 4
"""A Carrier holds 8 Interceptors and comes with 4 (LP:Carrier; the 4: to check)."""
INTERCEPTOR_COST, INTERCEPTOR_LOOPS = 15, 246
"""The client's cost and build time of 1042 (``data.tech.TRAIN``)."""
LAUNCH_RANGE, LEASH_RANGE = 8.0, 14.0
"""Interceptors launch at targets within 8 of the Carrier and return beyond 14 (LP:Carrier)."""
HALLUCINATIONS = {146: (141, 1), 148: (4, 1), 150: (75, 2), 152: (83, 1), 154: (78, 1), 156: (84, 4),
                  158: (74, 2), 160: (80, 1), 162: (81, 1), 164: (73, 2), 2114: (495, 1), 2389: (694, 1),
                  2391: (311, 2)}
"""Hallucination ability -> (the type it makes, how many) (LP:Hallucination)."""
HALLUCINATION_ENERGY = 75.0
HALLUCINATION_LOOPS = round(43 * FASTER)
"""Hallucination: 75 energy, the units live 43 s = 963 loops (LP:Hallucination)."""
STORM_ENERGY, STORM_RANGE, STORM_RADIUS, STORM_DAMAGE = 75.0, 9.0, 1.5, 80.0
STORM_LOOPS = round(2.85 * FASTER)
"""Psionic Storm: 75 energy, radius 1.5, 80 damage over 2.85 s = 64 loops (LP:Psionic_Storm);
range: the client's ``cast_range`` of 1036."""
STORM_COOLDOWN = round(1.43 * FASTER)
"""Psionic Storm's "Cooldown: 1.43 seconds" (KB:LLM-PySC2, the High Templar's entry): 32 loops,
per High Templar, from its cast (when it is in range, as every cooldown of ``systems/casting.py``)."""
FEEDBACK_ENERGY, FEEDBACK_RANGE, FEEDBACK_PER_ENERGY = 50.0, 10.0, 0.5
"""Feedback: 50 energy, 0.5 damage per energy drained (LP:High_Templar, patch 4.7.1); range: the
client's ``cast_range`` of 140."""
MERGE_LOOPS = round(12 * FASTER)
"""The Archon merge: 12 s = 269 loops (LP:Archon)."""
TEMPLAR = frozenset({HIGH_TEMPLAR, DARK_TEMPLAR})
CASTERS = {BLINK: STALKER, BLINK_GENERIC: STALKER, SHADOW_STRIDE: DARK_TEMPLAR, CHARGE: ZEALOT,
           SHADE_CAST: ADEPT, SHADE_CANCEL: ADEPT, SHADE_CANCEL_SHADE: SHADE, GUARDIAN_SHIELD: SENTRY,
           FORCE_FIELD: SENTRY, ALIGN: VOID_RAY, STORM: HIGH_TEMPLAR, FEEDBACK: HIGH_TEMPLAR, MERGE: HIGH_TEMPLAR,
           BUILD_INTERCEPTORS: CARRIER, NOVA: DISRUPTOR, TIME_WARP: MOTHERSHIP, GRAVITON: PHOENIX,
           GRAVITON_CANCEL: PHOENIX, RESTORE: BATTERY, REVELATION: ORACLE, BEAM_ON: ORACLE, BEAM_OFF: ORACLE,
           STASIS_WARD: ORACLE, WARD_ACTIVATE: WARD,
           **{ab: SENTRY for ab in HALLUCINATIONS}}
"""Ability -> the type that uses it (the merge: Dark Templar too)."""
ABILITIES = frozenset(CASTERS)
_RANGED = TYPES.range > MELEE_RANGE
_MASSIVE = np.array([D.MASSIVE in s.attributes for s in TYPES.specs])
"""Per type row: massive (breaks Force Fields)."""
_ARMORED = np.array([D.ARMORED in s.attributes for s in TYPES.specs])
"""Per type row: armored (Prismatic Alignment's bonus)."""
"""Per type row: its weapon is ranged (Guardian Shield reduces its damage)."""


@dataclass
class Hangar:
    owner: int
    docked: int
    out: set[int]
    """Tags of its launched Interceptors."""
    built_at: int = 0
    """The loop the Interceptor under construction is done (0: none)."""


@dataclass
class Field:
    x: float
    y: float
    end: int
    owner: int = 0


@dataclass
class Storm:
    x: float
    y: float
    end: int
    last: int
    """The loop up to which its damage was dealt."""
    owner: int = 0


@dataclass
class Warp:
    x: float
    y: float
    end: int
    owner: int


class ProtossAbilities:
    """Casts under way, shades, Guardian Shields, storms, merges (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.shades: dict[int, tuple[int, int]] = {}
        """Adept tag -> (its shade's tag, the loop it teleports)."""
        self.guards: dict[int, int] = {}
        """Sentry tag -> the loop its Guardian Shield ends."""
        self.storms: list[Storm] = []
        self.fields: list[Field] = []
        """Force Fields standing."""
        self.aligned: dict[int, int] = {}
        """Void Ray tag -> the loop its Prismatic Alignment ends."""
        self.revealed: dict[int, tuple[int, int]] = {}
        """Tag of a unit under Revelation -> (the player that detects it, the loop it ends)."""
        self.beams: dict[int, int] = {}
        """Oracle tag -> the loop up to which its beam's drain was paid."""
        self.hallucinations: dict[int, int] = {}
        """Tag of a hallucinated unit -> the loop it is gone."""
        self.warps: list[Warp] = []
        """Time Warps standing."""
        self.lifts: dict[int, tuple[int, int]] = {}
        """Phoenix tag -> (the tag of the unit it lifts, the loop the beam ends)."""
        self.novas: dict[int, int] = {}
        """Tag of a Purification Nova on its way -> the loop it detonates."""
        self.motherships = False
        """Whether a Mothership lives (in games with a Protoss player)."""
        self.batteries: set[int] = set()
        """Shield Battery tags (in games with a Protoss player)."""
        self._restoring = False
        self._last = 0
        self.hangars: dict[int, Hangar] = {}
        """Carrier tag -> its hangar."""
        self._carriers_version = -1
        self.merges: dict[int, tuple[int, int]] = {}
        """First templar's tag -> (the second's tag, the loop the Archon appears)."""
        # the targeted casts walk into range by systems/casting.py; their effects are here
        world.casting.add(
            CastSpec(BLINK, BLINK_RANGE, self._blink, cooldown=BLINK_COOLDOWN, from_centre=True),
            CastSpec(SHADOW_STRIDE, BLINK_RANGE, self._blink, cooldown=STRIDE_COOLDOWN, from_centre=True),
            CastSpec(CHARGE, CHARGE_RANGE, self._charge, on_unit=True, cooldown=CHARGE_COOLDOWN,
                     approach=ATTACK_UNIT, keeps_order=True),
            CastSpec(STORM, STORM_RANGE, self._storm, energy=STORM_ENERGY, cooldown=STORM_COOLDOWN),
            CastSpec(FEEDBACK, FEEDBACK_RANGE, self._feedback, on_unit=True, energy=FEEDBACK_ENERGY),
            CastSpec(FORCE_FIELD, FIELD_RANGE, self._force_field, energy=FIELD_ENERGY),
            CastSpec(REVELATION, REVEAL_RANGE, self._reveal, energy=REVEAL_ENERGY),
            CastSpec(GRAVITON, GRAVITON_RANGE, self._graviton, on_unit=True, energy=GRAVITON_ENERGY, keeps_order=True),
            CastSpec(TIME_WARP, WARP_RANGE, self._time_warp, energy=WARP_ENERGY),
            CastSpec(STASIS_WARD, 0.0, self._stasis_ward, energy=WARD_ENERGY),  # (range: the client's 0)
        )

    @property
    def busy(self) -> bool:
        """Whether anything here must be looked at by the economy's step."""
        return bool(self.shades or self.guards or self.storms or self.merges or self.fields
                    or self.aligned or self.hangars or self.revealed or self.beams or self.novas or self.batteries
                    or self.lifts or self.warps or self.hallucinations)

    @property
    def modifies(self) -> bool:
        """Whether combat must ask :meth:`adjust` (a Guardian Shield or an alignment is on)."""
        return bool(self.guards or self.aligned)

    # ------------------------------------------------------------------ commands
    def casters(self, c: Command) -> np.ndarray:
        """Rows of the commanded units that use ``c.ability``."""
        u = self.w.u
        types = [CASTERS[c.ability]]
        if c.ability == MERGE:
            types.append(DARK_TEMPLAR)
        return c.rows[np.isin(u.unit_id[c.rows], np.array(types))]

    def command(self, c: Command) -> int:
        rows = self.casters(c)
        if not len(rows):
            return ERROR
        ab = c.ability
        if ab == MERGE:
            return self._merge(rows)
        if ab in (SHADE_CANCEL, SHADE_CANCEL_SHADE):
            return self._cancel_shades(rows)
        if ab == GUARDIAN_SHIELD:
            return self._guard(rows)
        if ab in HALLUCINATIONS:
            return self._hallucinate(rows, ab)
        if ab == ALIGN:
            return self._align(rows)
        if ab in (BEAM_ON, BEAM_OFF):
            return self._beam(rows, ab == BEAM_ON)
        if ab == GRAVITON_CANCEL:
            ended = [int(t) for t in self.w.u.tag[rows].tolist() if int(t) in self.lifts]
            for t in ended:
                self._drop(t)
            return SUCCESS if ended else ERROR
        if ab == RESTORE:
            if c.trow < 0:
                return MUST_TARGET_UNIT
            return SUCCESS if int(self.w.u.owner[c.trow]) == c.player else CANT_TARGET_THAT_UNIT
        if ab == BUILD_INTERCEPTORS:
            return SUCCESS  # (the hangar builds by itself: autocast)
        if ab == WARD_ACTIVATE:
            return SUCCESS if self.w.stasis.activate([int(t) for t in self.w.u.tag[rows].tolist()]) else ERROR
        w = self.w
        u = w.u
        research = {BLINK: BLINK_TECH, BLINK_GENERIC: BLINK_TECH, CHARGE: CHARGE_TECH, STORM: STORM_TECH,
                    SHADOW_STRIDE: STRIDE_TECH}.get(ab)
        if research is not None and not w.research.has(c.player, research):
            return TECH_REQUIREMENTS_NOT_MET
        if ab in (CHARGE, FEEDBACK, GRAVITON):
            if c.trow < 0:
                return MUST_TARGET_UNIT
            if not c.hostile:
                return CANT_TARGET_THAT_UNIT
            if w.detection.active() and w.detection.hidden(c.player)[c.trow]:
                return CANT_TARGET_THAT_UNIT
            if ab == FEEDBACK and c.ttag not in w.abilities.energy:
                return CANT_TARGET_THAT_UNIT  # (a unit without energy (m: the client's error is not known here))
            if ab == CHARGE and not TYPES.can_hit[u.ti[rows[0]], u.ti[c.trow]]:
                return CANT_TARGET_THAT_UNIT
            ti = u.ti[c.trow]
            if ab == GRAVITON and (TYPES.is_flying[ti] or TYPES.structure[ti] or _MASSIVE[ti]):
                return CANT_TARGET_THAT_UNIT
        elif c.pos is None and c.trow < 0:
            return ERROR
        loop = w.loop
        key = BLINK if ab == BLINK_GENERIC else ab
        free = [r for r in rows.tolist() if w.casting.ready_to(int(u.tag[r]), key, loop)]
        if not free:
            return COOLDOWN
        energy = {STORM: STORM_ENERGY, FEEDBACK: FEEDBACK_ENERGY, FORCE_FIELD: FIELD_ENERGY,
                  REVELATION: REVEAL_ENERGY, GRAVITON: GRAVITON_ENERGY, TIME_WARP: WARP_ENERGY,
                  STASIS_WARD: WARD_ENERGY}.get(ab, 0.0)
        if energy:
            w.abilities._register()
            free = [r for r in free if w.abilities.energy_of(int(u.tag[r])) >= energy]
            if not free:
                return NOT_ENOUGH_ENERGY
        r = free[0]
        tag = int(u.tag[r])
        if ab in (CHARGE, FEEDBACK, GRAVITON):
            x, y = float(u.x[c.trow]), float(u.y[c.trow])
        else:
            x, y = c.pos if c.pos is not None else (float(u.x[c.trow]), float(u.y[c.trow]))
        if ab == SHADE_CAST:
            self._shade(r, x, y)
            return SUCCESS
        if ab == NOVA:
            [nova] = w.spawn(NOVA_UNIT, c.player, [float(u.x[r])], [float(u.y[r])]).tolist()
            w.abilities.jumping.add(int(nova))  # (it cannot be hurt: combat and spells skip the set)
            u.set_order(u.row(int(nova)), Order(MOVE, 0, x, y))
            self.novas[int(nova)] = loop + NOVA_LOOPS
            w.casting.start_cooldown(tag, NOVA, loop + NOVA_COOLDOWN)
            return SUCCESS
        if ab in (CHARGE, FEEDBACK, GRAVITON):
            return w.casting.order(c, r, Cast(key, c.ttag))
        return w.casting.order(c, r, Cast(key, x=x, y=y))

    def _guard(self, rows: np.ndarray) -> int:
        w = self.w
        w.abilities._register()
        for tag in w.u.tag[rows].tolist():
            if w.abilities.spend(int(tag), GUARD_ENERGY):
                self.guards[int(tag)] = w.loop + GUARD_LOOPS
                w.touch()
                return SUCCESS
        return NOT_ENOUGH_ENERGY

    def _hallucinate(self, rows: np.ndarray, ab: int) -> int:
        w = self.w
        u = w.u
        w.abilities._register()
        uid, n = HALLUCINATIONS[ab]
        for r in rows.tolist():
            tag = int(u.tag[r])
            if not w.abilities.spend(tag, HALLUCINATION_ENERGY):
                continue
            x, y = float(u.x[r]), float(u.y[r])
            new = w.spawn(uid, int(u.owner[r]), [x] * n, [y] * n, free=True)
            for t in new.tolist():
                self.hallucinations[int(t)] = w.loop + HALLUCINATION_LOOPS
            u.cd[u.rows(new)] = HELD  # (they do not fire)
            w.supply.revision += 1
            return SUCCESS
        return NOT_ENOUGH_ENERGY

    def _beam(self, rows: np.ndarray, on: bool) -> int:
        w = self.w
        u = w.u
        w.abilities._register()
        result = ERROR if on else SUCCESS
        for r, tag in zip(rows.tolist(), u.tag[rows].tolist(), strict=True):
            tag = int(tag)
            if not on:
                if tag in self.beams:  # (the drain up to now is paid first)
                    self._pay_beam(tag, w.loop)
                    del self.beams[tag]
                u.can_attack[r] = False
                u.cd[r] = HELD
                continue
            if tag in self.beams:
                result = SUCCESS
            elif w.abilities.spend(tag, BEAM_ENERGY):
                self.beams[tag] = w.loop
                u.can_attack[r] = True
                u.cd[r] = 0.0
                result = SUCCESS
            elif result != SUCCESS:
                result = NOT_ENOUGH_ENERGY
        w.targeting.armed_changed()
        w.touch()
        return result

    def _pay_beam(self, tag: int, loop: int) -> bool:
        """Drain the beam's energy up to ``loop``; False when the energy ran out."""
        ab = self.w.abilities
        cost = (loop - self.beams.get(tag, loop)) * BEAM_PER_LOOP
        e = ab.energy_of(tag)
        ab.spend(tag, min(e, cost))
        if tag in self.beams:
            self.beams[tag] = loop
        return e > cost

    def _restore(self, dt: int) -> None:
        """Every finished, powered Shield Battery with energy restores the nearest unit or structure
        of its player missing shields within range, for ``dt`` loops."""
        self._restoring = False
        w = self.w
        u = w.u
        if dt <= 0:
            return
        hurt = np.nonzero((u.shield < TYPES.sh_max[u.ti]) & (u.hp > 0))[0]
        if not len(hurt):
            return
        structures = w.construction.structures
        w.abilities._register()
        for tag in sorted(self.batteries):
            r = u.row(tag)
            s = structures.get(tag)
            if r < 0 or s is None or not s.ready or (w.power.active and not w.power.powered(tag)):
                continue
            e = w.abilities.energy_of(tag)
            mine = hurt[(u.owner[hurt] == u.owner[r]) & (hurt != r)]
            over = w.warpgates.overcharged(tag, w.loop)  # (twice as fast, no energy spent)
            if (e <= 0.0 and not over) or not len(mine):
                continue
            d = np.hypot(u.x[mine] - u.x[r], u.y[mine] - u.y[r]) - u.radius[mine] - u.radius[r]
            k = int(np.argmin(d))
            if d[k] > BATTERY_RANGE:
                continue
            t = int(mine[k])
            room = float(TYPES.sh_max[u.ti[t]] - u.shield[t])
            if over:
                amount = min(BATTERY_PER_LOOP * OVERCHARGE_RATE * dt, room)
            else:
                amount = min(BATTERY_PER_LOOP * dt, room, e * BATTERY_PER_ENERGY)
            if amount <= 0:
                continue
            u.shield[t] += amount
            if not over:
                w.abilities.spend(tag, amount / BATTERY_PER_ENERGY)
            self._restoring = True

    def _warps(self, loop: int) -> None:
        """Units of other players inside a Time Warp are slowed until the next loop (again every
        loop while inside)."""
        self.warps = [f for f in self.warps if f.end > loop]
        u = self.w.u
        for f in self.warps:
            rows = np.nonzero((np.hypot(u.x - f.x, u.y - f.y) <= WARP_RADIUS) & (u.owner != f.owner)
                              & (u.owner != NEUTRAL_OWNER) & ~TYPES.structure[u.ti])[0]
            if len(rows):
                self.w.research.slow(rows, loop + 2)

    def _drop(self, phoenix: int) -> None:
        """The beam of ``phoenix`` ends: both units take their next orders."""
        u = self.w.u
        target, _ = self.lifts.pop(phoenix)
        for tag in (phoenix, target):
            r = u.row(tag)
            if r >= 0 and int(u.kind[r]) == TRANSFORM and int(u.ability[r]) == GRAVITON:
                u.finish_orders(np.array([r]))
        self.w.touch()

    def _novas(self, loop: int) -> None:
        w = self.w
        u = w.u
        for tag, at in list(self.novas.items()):
            if at > loop:
                continue
            del self.novas[tag]
            w.abilities.jumping.discard(tag)
            r = u.row(tag)
            if r < 0:
                continue
            x, y, owner = float(u.x[r]), float(u.y[r]), int(u.owner[r])
            self._vanish([tag])
            hit = np.nonzero((np.hypot(u.x - x, u.y - y) - u.radius <= NOVA_RADIUS) & (u.owner != NEUTRAL_OWNER)
                             & ~TYPES.is_flying[u.ti])[0]  # (ground units and structures)
            self.w.abilities.spell_damage(hit.tolist(), NOVA_DAMAGE, NOVA_SHIELD_BONUS, by=owner)

    def _beams(self, loop: int) -> None:
        u = self.w.u
        for tag in list(self.beams):
            if not self._pay_beam(tag, loop):
                del self.beams[tag]
                r = u.row(tag)
                if r >= 0:
                    u.can_attack[r] = False
                    u.cd[r] = HELD
                    self.w.targeting.armed_changed()
                    self.w.touch()

    def _align(self, rows: np.ndarray) -> int:
        w = self.w
        loop = w.loop
        for tag in [int(t) for t in w.u.tag[rows].tolist()]:
            if w.casting.ready_to(tag, ALIGN, loop):
                self.aligned[tag] = loop + ALIGN_LOOPS
                w.casting.start_cooldown(tag, ALIGN, loop + ALIGN_COOLDOWN)
                w.touch()
                return SUCCESS
        return COOLDOWN

    def _shade(self, r: int, x: float, y: float) -> None:
        """The Adept of row ``r`` projects its shade towards (x, y)."""
        w = self.w
        u = w.u
        tag, owner = int(u.tag[r]), int(u.owner[r])
        [shade] = w.spawn(SHADE, owner, [float(u.x[r])], [float(u.y[r])]).tolist()
        w.abilities.jumping.add(int(shade))  # (the shade cannot be hurt: combat and spells skip the set)
        sr = u.row(int(shade))
        u.set_order(sr, Order(MOVE, 0, x, y))
        self.shades[tag] = (int(shade), w.loop + SHADE_LOOPS)
        w.casting.start_cooldown(tag, SHADE_CAST, w.loop + SHADE_COOLDOWN)

    def _cancel_shades(self, rows: np.ndarray) -> int:
        u = self.w.u
        tags = set(u.tag[rows].tolist())
        gone = [a for a, (s, _) in self.shades.items() if a in tags or s in tags]
        for a in gone:
            shade, _ = self.shades.pop(a)
            self.w.abilities.jumping.discard(shade)
            self._vanish([shade])
        return SUCCESS if gone else ERROR

    def _merge(self, rows: np.ndarray) -> int:
        """Pairs of the commanded templar (not merging already) start merging."""
        w = self.w
        u = w.u
        busy = set(self.merges) | {b for b, _ in self.merges.values()}
        free = [r for r in rows.tolist() if int(u.tag[r]) not in busy]
        if len(free) < 2:
            return ERROR
        for a, b in zip(free[0::2], free[1::2], strict=False):
            for r in (a, b):
                u.queues.pop(int(u.tag[r]), None)
                u.set_order(r, Order(TRANSFORM, MERGE))
            self.merges[int(u.tag[a])] = (int(u.tag[b]), w.loop + MERGE_LOOPS)
        w.touch()
        return SUCCESS

    # ------------------------------------------------------------------ per step
    # ------------------------------------------------------------------ the casts' effects
    def _blink(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._teleport(r, cast.x, cast.y)

    def _charge(self, cast: Cast, r: int, t: int, loop: int) -> None:
        """The Zealot lunges to its target's edge and fights on."""
        u = self.w.u
        d = math.hypot(u.x[t] - u.x[r], u.y[t] - u.y[r])
        if d > 0:
            k = (d - float(u.radius[t] + u.radius[r])) / d
            u.x[r] += k * (u.x[t] - u.x[r])
            u.y[r] += k * (u.y[t] - u.y[r])
        u.set_order(r, Order(ATTACK_UNIT, CHARGE, ttag=cast.target))

    def _storm(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.storms.append(Storm(cast.x, cast.y, loop + STORM_LOOPS, loop, int(self.w.u.owner[r])))

    def _graviton(self, cast: Cast, r: int, t: int, loop: int) -> None:
        """The Phoenix and its target channel the beam."""
        u = self.w.u
        for x in (r, t):
            u.queues.pop(int(u.tag[x]), None)
            u.set_order(x, Order(TRANSFORM, GRAVITON))
        self.lifts[int(u.tag[r])] = (cast.target, loop + GRAVITON_LOOPS)

    def _time_warp(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.warps.append(Warp(cast.x, cast.y, loop + WARP_LOOPS, int(self.w.u.owner[r])))
        self._warps(loop)

    def _stasis_ward(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.w.stasis.place(int(self.w.u.owner[r]), cast.x, cast.y)

    def _reveal(self, cast: Cast, r: int, t: int, loop: int) -> None:
        u = self.w.u
        owner = int(u.owner[r])
        hit = np.nonzero((np.hypot(u.x - cast.x, u.y - cast.y) - u.radius <= REVEAL_RADIUS)
                         & (u.owner != owner) & (u.owner != NEUTRAL_OWNER))[0]
        for h in u.tag[hit].tolist():
            self.revealed[int(h)] = (owner, loop + REVEAL_LOOPS)

    def _force_field(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.fields.append(Field(cast.x, cast.y, loop + FIELD_LOOPS, int(self.w.u.owner[r])))
        self._fields(loop)

    def _feedback(self, cast: Cast, r: int, t: int, loop: int) -> None:
        ab = self.w.abilities
        drained = ab.energy_of(cast.target)
        ab.spend(cast.target, drained)
        self.w.abilities.spell_damage([t], FEEDBACK_PER_ENERGY * drained, by=int(self.w.u.owner[r]))

    def _teleport(self, r: int, x: float, y: float) -> None:
        w = self.w
        xs, ys = np.array([x]), np.array([y])
        if w.pathing.active:
            xs, ys = w.pathing.free_points(xs, ys)
        w.map.clamp(xs, ys, float(w.u.radius[r]))
        w.u.x[r], w.u.y[r] = float(xs[0]), float(ys[0])

    def upkeep(self, loop: int) -> None:
        """Casts that came into range, shades that end, shields that fade, storms' damage,
        merges that are done."""
        if self.shades:
            self._shades(loop)
        for d in (self.guards, self.aligned):
            if d:
                for tag in [t for t, end in d.items() if end <= loop]:
                    del d[tag]
        if self.storms:
            self._storms(loop)
        if self.merges:
            self._merges(loop)
        if self.fields:
            self._fields(loop)
        if self.hangars:
            self._hangars(loop)
        if self.beams:
            self._beams(loop)
        if self.novas:
            self._novas(loop)
        if self.warps:
            self._warps(loop)
        if self.hallucinations:
            gone = [t for t, end in self.hallucinations.items() if end <= loop]
            for t in gone:
                del self.hallucinations[t]
            if gone:
                self.w.remove_tags(gone)
                self.w.supply.revision += 1
        if self.lifts:
            u = self.w.u
            for ph, (target, end) in list(self.lifts.items()):
                if end <= loop or u.row(ph) < 0 or u.row(target) < 0:
                    self._drop(ph)
        dt = loop - self._last
        self._last = loop
        if self.batteries:
            # (while nobody was restored the world may have skipped loops: a unit hurt in them is
            # restored from this loop on)
            self._restore(max(dt, 0) if self._restoring else min(dt, 1))
        if self.revealed:
            for tag in [t for t, (_, end) in self.revealed.items() if end <= loop]:
                del self.revealed[tag]

    def carriers(self, loop: int) -> None:
        """New Carriers get their hangar (called in games with a Protoss player)."""
        u = self.w.u
        if u.version == self._carriers_version:
            return
        self._carriers_version = u.version
        oracles = np.nonzero(u.unit_id == ORACLE)[0]
        for r, tag in zip(oracles.tolist(), u.tag[oracles].tolist(), strict=True):
            if tag not in self.beams:  # (an Oracle attacks only with its Pulsar Beam on)
                if u.can_attack[r]:
                    self.w.targeting.armed_changed()
                u.can_attack[r] = False
                u.cd[r] = HELD
        self.batteries = set(u.tag[u.unit_id == BATTERY].tolist())
        self.motherships = bool((u.unit_id == MOTHERSHIP).any())
        rows = np.nonzero(u.unit_id == CARRIER)[0]
        for r, tag in zip(rows.tolist(), u.tag[rows].tolist(), strict=True):
            if tag not in self.hangars:
                self.hangars[tag] = Hangar(int(u.owner[r]), HANGAR_START, set())

    def _shades(self, loop: int) -> None:
        w = self.w
        u = w.u
        for adept, (shade, end) in list(self.shades.items()):
            a, s = u.row(adept), u.row(shade)
            if a >= 0 and s >= 0 and end > loop:
                continue
            del self.shades[adept]
            w.abilities.jumping.discard(shade)
            if a >= 0 and s >= 0:
                self._teleport(a, float(u.x[s]), float(u.y[s]))
            if s >= 0:
                self._vanish([shade])
            w.touch()

    def _storms(self, loop: int) -> None:
        u = self.w.u
        hit = np.zeros(len(u))
        for s in self.storms:
            upto = min(loop, s.end)
            if upto <= s.last:
                continue
            inside = (np.hypot(u.x - s.x, u.y - s.y) <= STORM_RADIUS) & (u.owner != NEUTRAL_OWNER) \
                & ~TYPES.structure[u.ti]
            # (storms do not stack: a unit takes the largest share of the storms over it)
            np.maximum(hit, np.where(inside, STORM_DAMAGE / STORM_LOOPS * (upto - s.last), 0.0), out=hit)
            s.last = upto
        self.storms = [s for s in self.storms if s.end > loop]
        rows = np.nonzero(hit > 0)[0]
        if len(rows):
            amounts = hit[rows].tolist()
            tags = u.tag[rows].copy()
            for tag, amount in zip(tags.tolist(), amounts, strict=True):
                r = u.row(int(tag))
                if r >= 0:
                    self.w.abilities.spell_damage([r], amount)
            self.w.touch()

    def break_fields(self, x: float, y: float, radius: float) -> None:
        """Force Fields whose disc overlaps the circle of ``radius`` round (``x``, ``y``) are gone
        (a Corrosive Bile landing: LP:Ravager, LP:Force_Field)."""
        n = len(self.fields)
        if n:
            self.fields = [f for f in self.fields if math.hypot(f.x - x, f.y - y) >= FIELD_RADIUS + radius]
            if len(self.fields) != n:
                self.w.touch()

    def _fields(self, loop: int) -> None:
        """Force Fields whose time is up or that a massive unit touches are gone; the others push
        the ground units overlapping them to their rim."""
        w = self.w
        u = w.u
        n = len(self.fields)
        self.fields = [f for f in self.fields if f.end > loop]
        ground = ~TYPES.is_flying[u.ti] & ~TYPES.structure[u.ti] & ~u.neutral & (u.unit_id != SHADE)
        keep: list[Field] = []
        moved = False
        for f in self.fields:
            dx, dy = u.x - f.x, u.y - f.y
            d = np.hypot(dx, dy)
            over = np.nonzero(ground & (d < FIELD_RADIUS + u.radius))[0]
            if len(over) and _MASSIVE[u.ti[over]].any():
                continue  # (broken by a massive unit)
            keep.append(f)
            for r in over.tolist():
                rim = FIELD_RADIUS + float(u.radius[r])
                if d[r] > 1e-9:
                    u.x[r] = f.x + dx[r] / d[r] * rim
                    u.y[r] = f.y + dy[r] / d[r] * rim
                else:
                    u.x[r] = f.x + rim
                moved = True
        if moved or len(keep) != n:
            w.touch()
        self.fields = keep

    def _carrier_target(self, r: int) -> int:
        """The row the Carrier of row ``r`` sends its Interceptors at (-1: none)."""
        w = self.w
        u = w.u
        kind = int(u.kind[r])
        icpt = TYPES.row(INTERCEPTOR)
        if kind == ATTACK_UNIT:
            t = u.row(int(u.ttag[r]))
            cand = np.array([t]) if t >= 0 else np.zeros(0, dtype=np.int64)
        elif kind in (IDLE, HOLD, ATTACK_MOVE):
            owner = int(u.owner[r])
            ok = (u.owner != owner) & ~u.no_auto & TYPES.can_hit[icpt, u.ti]
            if w.detection.active():
                ok &= ~w.detection.hidden(owner)
            cand = np.nonzero(ok)[0]
        else:
            return -1
        if not len(cand):
            return -1
        gap = np.hypot(u.x[cand] - u.x[r], u.y[cand] - u.y[r]) - u.radius[cand] - u.radius[r]
        k = int(np.argmin(gap))
        return int(cand[k]) if gap[k] <= LAUNCH_RANGE else -1

    def _hangars(self, loop: int) -> None:
        """Build, launch, recall and dock Interceptors (see the module docstring)."""
        w = self.w
        u = w.u
        gone: list[int] = []
        for tag, h in list(self.hangars.items()):
            r = u.row(tag)
            h.out = {t for t in h.out if u.row(t) >= 0}
            if r < 0:
                del self.hangars[tag]
                gone += sorted(h.out)  # (they die with their Carrier)
                continue
            if h.built_at and h.built_at <= loop:
                h.built_at = 0
                h.docked += 1
            if not h.built_at and h.docked + len(h.out) < HANGAR_MAX \
                    and w.supply.minerals.get(h.owner, 0) >= INTERCEPTOR_COST:
                w.supply.pay(h.owner, INTERCEPTOR_COST, 0)
                h.built_at = loop + INTERCEPTOR_LOOPS
                w.supply.revision += 1
            t = self._carrier_target(r)
            cx, cy = float(u.x[r]), float(u.y[r])
            if t >= 0:
                ttag = int(u.tag[t])
                if h.docked:
                    new = w.spawn(INTERCEPTOR, h.owner, [cx] * h.docked, [cy] * h.docked).tolist()
                    h.docked = 0
                    h.out.update(int(i) for i in new)
                    r = u.row(tag)
                for i in sorted(h.out):
                    ir = u.row(i)
                    far = math.hypot(float(u.x[ir]) - cx, float(u.y[ir]) - cy) > LEASH_RANGE
                    if not far and (int(u.kind[ir]) != ATTACK_UNIT or int(u.ttag[ir]) != ttag):
                        u.set_order(ir, Order(ATTACK_UNIT, 0, ttag=ttag))
                    elif far:
                        u.set_order(ir, Order(FOLLOW, 0, ttag=tag))
                continue
            docked = []
            for i in sorted(h.out):
                ir = u.row(i)
                if math.hypot(float(u.x[ir]) - cx, float(u.y[ir]) - cy) <= float(u.radius[r]) + 0.5:
                    docked.append(i)
                elif int(u.kind[ir]) != FOLLOW or int(u.ttag[ir]) != tag:
                    u.set_order(ir, Order(FOLLOW, 0, ttag=tag))
            if docked:
                h.out.difference_update(docked)
                h.docked += len(docked)
                gone += docked
        if gone:
            self._vanish(gone)

    def _vanish(self, tags: list[int]) -> None:
        """Remove units that are not killed (docking Interceptors, shades and novas at their end,
        merging templar; m: a dead Carrier's Interceptors too): they leave the observation
        without a death report (m: what the real client reports for them is not known here)."""
        u = self.w.u
        rows = u.rows(np.asarray(tags, dtype=np.int64))
        mask = np.ones(len(u), dtype=bool)
        mask[rows[rows >= 0]] = False
        u.keep(mask)
        self.w.touch()

    def _merges(self, loop: int) -> None:
        w = self.w
        u = w.u
        for a, (b, end) in list(self.merges.items()):
            ra, rb = u.row(a), u.row(b)
            if ra >= 0 and rb >= 0 and end > loop:
                continue
            del self.merges[a]
            if ra < 0 or rb < 0:
                for r in (ra, rb):
                    if r >= 0:
                        u.kind[r], u.ability[r] = IDLE, 0
                continue
            x, y, owner = (float(u.x[ra]) + float(u.x[rb])) / 2, (float(u.y[ra]) + float(u.y[rb])) / 2, int(u.owner[ra])
            self._vanish([a, b])
            w.spawn(ARCHON, owner, [x], [y], free=True)
            w.alerts.add(owner, MERGE_COMPLETE)
            w.supply.revision += 1

    def horizon(self, loop: int) -> int:
        """Loops until the next thing here must happen on time (>= 1)."""
        if self.storms or self.fields or self.hangars or self._restoring or self.warps:
            return 1  # (Carriers look for targets every loop; batteries restore loop by loop)
        h = 1 << 30
        for _, end in self.shades.values():
            h = min(h, end - loop)
        for d in (self.guards, self.aligned):
            for end in d.values():
                h = min(h, end - loop)
        for _, end in self.revealed.values():
            h = min(h, end - loop)
        for end in self.novas.values():
            h = min(h, end - loop)
        for _, end in self.lifts.values():
            h = min(h, end - loop)
        for end in self.hallucinations.values():
            h = min(h, end - loop)
        for tag in self.beams:  # (a beam goes off when the energy runs out)
            h = min(h, int(self.w.abilities.energy_of(tag, loop) / BEAM_PER_LOOP))
        for _, end in self.merges.values():
            h = min(h, end - loop)
        return max(1, h)

    def forget(self, alive: set[int]) -> None:
        for d in (self.guards, self.aligned, self.revealed, self.beams, self.hallucinations):
            for t in [t for t in d if t not in alive]:
                del d[t]  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ what others ask
    def adjust(self, raw: np.ndarray, a_ti: np.ndarray, att: np.ndarray | None, trows: np.ndarray) -> np.ndarray:
        """Damage per attack (before armor) of attackers of types ``a_ti`` (rows ``att``, None when
        not known: a hit landing later) on ``trows``, after Prismatic Alignments and Guardian
        Shields."""
        u = self.w.u
        if self.aligned and att is not None and len(att):
            on = np.array([int(t) in self.aligned for t in u.tag[att].tolist()]) & _ARMORED[u.ti[trows]]
            if on.any():
                raw = np.broadcast_to(raw, trows.shape) + np.where(on, ALIGN_BONUS, 0.0)
        if self.guards:
            raw = self._guard_minus(raw, a_ti, trows)
        return raw

    def _guard_minus(self, raw: np.ndarray, a_ti: np.ndarray, trows: np.ndarray) -> np.ndarray:
        """:data:`GUARD_REDUCTION` less from ranged weapons on units under a Guardian Shield of their
        player."""
        u = self.w.u
        sentries = u.rows(np.fromiter(self.guards, dtype=np.int64, count=len(self.guards)))
        sentries = sentries[sentries >= 0]
        if not len(sentries) or not len(trows):
            return raw
        d = np.hypot(u.x[trows][:, None] - u.x[sentries][None, :], u.y[trows][:, None] - u.y[sentries][None, :])
        covered = ((d <= GUARD_RADIUS) & (u.owner[trows][:, None] == u.owner[sentries][None, :])).any(axis=1)
        covered &= _RANGED[a_ti]
        if not covered.any():
            return raw
        return np.maximum(0.0, np.broadcast_to(raw, trows.shape) - np.where(covered, GUARD_REDUCTION, 0.0))

    def hallucination_food(self, player: int) -> float:
        """Food the player's hallucinated units would use (they use none)."""
        u = self.w.u
        rows = u.rows(np.fromiter(self.hallucinations, dtype=np.int64, count=len(self.hallucinations)))
        rows = rows[rows >= 0]
        return float(TYPES.food[u.ti[rows[u.owner[rows] == player]]].sum())

    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """``is_hallucination`` of the player's hallucinated units (others see them as real)."""
        u = self.w.u
        for t in self.hallucinations:
            r = u.row(t)
            if r >= 0 and int(u.owner[r]) == player:
                parts[t] = parts.get(t, b"") + b"\xb0\x02\x01"

    def field_cloaked(self) -> np.ndarray:
        """bool per row of the store: cloaked by a Mothership's Cloaking Field."""
        u = self.w.u
        out = np.zeros(len(u), dtype=bool)
        for r in np.nonzero(u.unit_id == MOTHERSHIP)[0].tolist():
            out |= (np.hypot(u.x - u.x[r], u.y - u.y[r]) <= CLOAK_FIELD_RADIUS) & (u.owner == u.owner[r])
        out &= u.unit_id != MOTHERSHIP
        return out

    def detects(self, player: int, rows: np.ndarray) -> np.ndarray:
        """bool per row of ``rows``: under a Revelation of ``player``."""
        u = self.w.u
        return np.array([(got := self.revealed.get(int(t))) is not None and got[0] == player
                         for t in u.tag[rows].tolist()], dtype=bool)

    def any_caster(self, c: Command) -> bool:
        """Whether a commanded unit uses ``c.ability`` (else the command goes on as one no system
        simulates, as before these abilities)."""
        return bool(len(self.casters(c)))

    def available(self, player: int, r: int, out: list[tuple[int, bool]]) -> None:
        """The casts the unit of row ``r`` may use now (research, cooldown, energy)."""
        w = self.w
        u = w.u
        uid, tag = int(u.unit_id[r]), int(u.tag[r])
        loop = w.loop
        ready = w.casting.ready_to
        if uid == STALKER and w.research.has(player, BLINK_TECH) and ready(tag, BLINK, loop):
            out.append((BLINK, True))
        elif uid == DARK_TEMPLAR and w.research.has(player, STRIDE_TECH) \
                and ready(tag, SHADOW_STRIDE, loop):
            out += [(SHADOW_STRIDE, True), (MERGE, False)]
        elif uid == ZEALOT and w.research.has(player, CHARGE_TECH) and ready(tag, CHARGE, loop):
            out.append((CHARGE, False))
        elif uid == ADEPT:
            if tag in self.shades:
                out.append((SHADE_CANCEL, False))
            elif ready(tag, SHADE_CAST, loop):
                out.append((SHADE_CAST, True))
        elif uid == BATTERY and w.abilities.energy_of(tag) > 0:
            out.append((RESTORE, False))
        elif uid == DISRUPTOR and ready(tag, NOVA, loop):
            out.append((NOVA, True))
        elif uid == MOTHERSHIP and w.abilities.energy_of(tag) >= WARP_ENERGY:
            out.append((TIME_WARP, True))
        elif uid == PHOENIX:
            if tag in self.lifts:
                out.append((GRAVITON_CANCEL, False))
            elif w.abilities.energy_of(tag) >= GRAVITON_ENERGY:
                out.append((GRAVITON, False))
        elif uid == ORACLE:
            e = w.abilities.energy_of(tag)
            if tag in self.beams:
                out.append((BEAM_OFF, False))
            elif e >= BEAM_ENERGY:
                out.append((BEAM_ON, False))
            if e >= REVEAL_ENERGY:
                out.append((REVELATION, True))
            if e >= WARD_ENERGY:
                out.append((STASIS_WARD, True))
        elif uid == VOID_RAY and ready(tag, ALIGN, loop):
            out.append((ALIGN, False))
        elif uid == SENTRY:
            e = w.abilities.energy_of(tag)
            if e >= FIELD_ENERGY:
                out.append((FORCE_FIELD, True))
            if e >= HALLUCINATION_ENERGY:
                out += [(ab, False) for ab in HALLUCINATIONS]
            if e >= GUARD_ENERGY:
                out.append((GUARDIAN_SHIELD, False))
        elif uid in TEMPLAR:
            out.append((MERGE, False))
            if uid == HIGH_TEMPLAR:
                e = w.abilities.energy_of(tag)
                if e >= STORM_ENERGY and w.research.has(player, STORM_TECH) \
                        and ready(tag, STORM, loop):
                    out.append((STORM, True))
                if e >= FEEDBACK_ENERGY:
                    out.append((FEEDBACK, False))
