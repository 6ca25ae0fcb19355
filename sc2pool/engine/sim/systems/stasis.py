"""The Oracle's Stasis Ward: a cloaked ward that holds the enemy ground units near it in stasis.

One job: the wards standing and the units they hold.  ``systems/protoss_abilities.py`` takes the
command (2505 on an Oracle: its energy, the flight to the point, through ``systems/casting.py``)
and calls :meth:`Stasis.place`.

Rules (the real game's; sources per fact, "(m)" where the engine chose):

- *The ward* (OracleStasisTrap, 732): the Oracle places it at the point for :data:`WARD_ENERGY`
  energy; it is permanently cloaked (``data.units``), arms :data:`ARM_LOOPS` after it is placed,
  and is gone :data:`WARD_LOOPS` after that if nothing triggered it (LP:Stasis_Ward,
  LP:Oracle_(Legacy_of_the_Void): 50 energy, "lasts 170 seconds"; the arming time is the
  client's build time of 732, 80 loops, the page's 3.58 s).  It may be attacked where detected
  (its 30 life and 30 shields are the client's).
- *The trap*: an armed ward is triggered by an enemy ground unit (not a structure) whose edge
  comes within :data:`TRIGGER_RANGE` of the ward's centre (m: the real search radius is not known
  here); it then holds every enemy ground unit (not structures) whose centre is within
  :data:`TRAP_RADIUS` (LP:Oracle_(Legacy_of_the_Void): radius 4) in stasis for :data:`TRAP_LOOPS`
  (the same page: 21.5 s; LP:Stasis_Ward says 21) and is gone (reported dead (m)).  2536
  (ActivateStasisWard, the ward's own autocast) given by hand triggers an armed ward at once (m).
- *In stasis* a unit neither moves, fires nor casts, and cannot be targeted or hurt by anyone
  ("Trapped units cannot move, attack or use abilities, nor be attacked or be affected by
  abilities", LP:Stasis_Ward): its orders are dropped and it reports none (m: what the real
  client reports is not known here); commands to it answer ``Error`` (m) and commands on it
  ``CantTargetThatUnit``; no unit acquires it, damage and splash skip it; units attacking it stop.
  It carries the buff ORACLESTASISTRAPTARGET (129, the client's).  Units already invulnerable
  (an Adept's shade, a Purification Nova, a Battlecruiser jumping) are not trapped (m).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.sim.encode import varint
from sc2pool.engine.sim.units import ATTACK_UNIT, FOLLOW, IDLE, NEUTRAL_OWNER, TRANSFORM, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

FASTER = 22.4
"""Game loops per faster second (Liquipedia's LotV times)."""
WARD, STASIS_WARD, ACTIVATE = 732, 2505, 2536
WARD_ENERGY = 50.0
ARM_LOOPS = 80
WARD_LOOPS = round(170 * FASTER)
TRAP_RADIUS = 4.0
TRAP_LOOPS = round(21.5 * FASTER)
TRIGGER_RANGE = 1.5
BUFF = 129
"""ORACLESTASISTRAPTARGET (the client's buff id)."""
_BUFF_BYTES = b"\xd8\x01" + varint(BUFF)


@dataclass
class Ward:
    owner: int
    armed_at: int
    ends_at: int


class Stasis:
    """Every Stasis Ward and every unit held in stasis (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.wards: dict[int, Ward] = {}
        """Ward tag -> its owner, the loop it arms, the loop it is gone."""
        self.held: dict[int, int] = {}
        """Tag of a unit in stasis -> the loop it is free again."""

    @property
    def active(self) -> bool:
        return bool(self.wards or self.held)

    # ------------------------------------------------------------------ what the Oracle does
    def place(self, owner: int, x: float, y: float) -> int:
        """A ward of ``owner`` at (x, y); returns its tag."""
        w = self.w
        [tag] = w.spawn(WARD, owner, [x], [y]).tolist()
        self.wards[int(tag)] = Ward(owner, w.loop + ARM_LOOPS, w.loop + ARM_LOOPS + WARD_LOOPS)
        return int(tag)

    def activate(self, tags: list[int]) -> bool:
        """2536 by hand: the armed wards among ``tags`` trigger now; whether any did."""
        fired = [t for t in tags if (wd := self.wards.get(t)) is not None and wd.armed_at <= self.w.loop]
        for t in fired:
            self._trigger(t)
        return bool(fired)

    # ------------------------------------------------------------------ the economy's step
    def upkeep(self, loop: int) -> None:
        """Wards that are gone or triggered, units whose stasis is over."""
        u = self.w.u
        for tag, wd in list(self.wards.items()):
            r = u.row(tag)
            if r < 0:
                del self.wards[tag]
            elif wd.ends_at <= loop:
                del self.wards[tag]
                self.w.remove_tags([tag])
            elif wd.armed_at <= loop and self._intruder(r, wd.owner):
                self._trigger(tag)
        if self.held:
            free = [t for t, end in self.held.items() if end <= loop or u.row(t) < 0]
            if free:
                self._release(free)

    def _enemies(self, owner: int) -> np.ndarray:
        """bool per row: a ground unit (not a structure) of another player that may be held."""
        u = self.w.u
        ti = u.ti
        ok = (u.owner != owner) & (u.owner != NEUTRAL_OWNER) & ~TYPES.is_flying[ti] & ~TYPES.structure[ti]
        jumping = self.w.abilities.jumping
        if jumping:
            ok &= ~np.isin(u.tag, np.fromiter(jumping, dtype=np.int64, count=len(jumping)))
        return ok

    def _intruder(self, r: int, owner: int) -> bool:
        u = self.w.u
        gap = np.hypot(u.x - u.x[r], u.y - u.y[r]) - u.radius
        return bool((self._enemies(owner) & (gap <= TRIGGER_RANGE)).any())

    def _trigger(self, tag: int) -> None:
        """The ward at ``tag`` holds the enemies round it and is gone."""
        w = self.w
        u = w.u
        wd = self.wards.pop(tag)
        r = u.row(tag)
        inside = self._enemies(wd.owner) & (np.hypot(u.x - u.x[r], u.y - u.y[r]) <= TRAP_RADIUS)
        rows = np.flatnonzero(inside)
        end = w.loop + TRAP_LOOPS
        for i in rows.tolist():
            t = int(u.tag[i])
            self.held[t] = end
            u.queues.pop(t, None)
            u.kind[i], u.ability[i], u.ttag[i], u.eng[i] = TRANSFORM, 0, 0, 0
            w.abilities.jumping.add(t)  # (no damage reaches it: combat and spells skip the set)
        if len(rows):
            u.hold(np.fromiter(self.held, dtype=np.int64, count=len(self.held)))
            chasing = np.flatnonzero(((u.kind == ATTACK_UNIT) | (u.kind == FOLLOW)) & np.isin(u.ttag, u.held))
            if len(chasing):
                u.finish_orders(chasing)
        w.remove_tags([tag])

    def _release(self, tags: list[int]) -> None:
        w = self.w
        u = w.u
        for t in tags:
            del self.held[t]
            w.abilities.jumping.discard(t)
            r = u.row(t)
            if r >= 0 and int(u.kind[r]) == TRANSFORM and int(u.ability[r]) == 0:
                u.kind[r] = IDLE
        u.hold(np.fromiter(self.held, dtype=np.int64, count=len(self.held)))
        w.touch()

    def horizon(self, loop: int) -> int:
        """Loops until a ward arms or ends, a stasis ends, or an enemy could reach an armed ward."""
        u = self.w.u
        h = 1 << 30
        for end in self.held.values():
            h = min(h, end - loop)
        speed = max(2.0 * float(u.max_speed), 1e-9)  # (twice the fastest type's: stim, creep, boosts)
        for tag, wd in self.wards.items():
            h = min(h, wd.ends_at - loop)
            if wd.armed_at > loop:
                h = min(h, wd.armed_at - loop)
                continue
            r = u.row(tag)
            if r < 0:
                return 1
            ok = self._enemies(wd.owner)
            if ok.any():
                gap = float((np.hypot(u.x[ok] - u.x[r], u.y[ok] - u.y[r]) - u.radius[ok]).min()) - TRIGGER_RANGE
                h = min(h, math.floor(gap / speed))
        return max(1, h)

    # ------------------------------------------------------------------ what others ask
    def extras(self, parts: dict[int, bytes]) -> None:
        """The stasis buff on every unit held (every player sees it (m))."""
        for t in self.held:
            parts[t] = parts.get(t, b"") + _BUFF_BYTES

