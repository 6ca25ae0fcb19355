"""Zerg units' targeted spells: the Ravager's Corrosive Bile, the Infestor's Fungal Growth.

Rules (the real game's; sources per fact, "(m)" where the engine chose):

- *Corrosive Bile* (2338, a point within the client's cast range 9; no energy, a
  :data:`BILE_COOLDOWN` cooldown, LP:Ravager): the Ravager walks into range and spits; the bile
  lands :data:`BILE_DELAY` later and deals :data:`BILE_DAMAGE` to every unit and structure, ground
  or air, friend or foe, whose edge is within :data:`BILE_RADIUS` (the client's effect
  ``RavagerCorrosiveBileCP``) of the point.  A unit that leaves the spot before it lands is not
  hit: the bile is aimed at the point, not the unit.  Its destroying Force Fields is not simulated.
- *Fungal Growth* (74, a point within the client's cast range 10; :data:`FUNGAL_ENERGY` energy,
  LP:Infestor): the Infestor walks into range and casts; every enemy unit (ground or air, not
  structures) whose edge is within :data:`FUNGAL_RADIUS` of the point takes :data:`FUNGAL_DAMAGE`
  spread evenly over :data:`FUNGAL_LOOPS` and is rooted for as long (it cannot move; it may still
  fire).  A second Fungal on a unit already under one restarts it (m).  The spell reaches its
  targets at once (the real missile's flight is not simulated (m)).

Spell damage takes shields first and ignores armor (as the Terran spells of
``systems/abilities.py``, whose damage helpers these use).  A caster without the energy answers
``NotEnoughEnergy``; a cast before the cooldown is over ``Cooldown``.  The casts are Zerg-only
abilities: a game without Zerg units answers them as before (``sim/commands.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data import client
from sc2pool.engine.sim.commands import COOLDOWN, ERROR, NOT_ENOUGH_ENERGY, SUCCESS
from sc2pool.engine.sim.systems.abilities import LOOPS_PER_FASTER_SECOND, Blast
from sc2pool.engine.sim.units import MOVE, NEUTRAL_OWNER, TYPES, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

RAVAGER, INFESTOR = 688, 111
CORROSIVE_BILE, FUNGAL_GROWTH = 2338, 74
BILE_DAMAGE = 60.0
"""LP:Ravager."""
BILE_RADIUS = float(client.effects()[11].radius)
"""0.5: the client's effect 11 ``RavagerCorrosiveBileCP`` (LP:Ravager: 0.5)."""
BILE_DELAY = int(2.5 * LOOPS_PER_FASTER_SECOND)
"""The bile lands 2.5 faster seconds = 56 loops after it is spat (LP:Ravager)."""
BILE_COOLDOWN = int(7 * LOOPS_PER_FASTER_SECOND)
"""7 faster seconds = 156 loops (LP:Ravager)."""
FUNGAL_ENERGY = 75.0
FUNGAL_DAMAGE = 30.0
FUNGAL_LOOPS = int(2.85 * LOOPS_PER_FASTER_SECOND)
"""Fungal Growth: 75 energy, 30 damage over 2.85 faster seconds = 63 loops, rooted as long
(LP:Infestor)."""
FUNGAL_RADIUS = 2.25
"""LP:Infestor."""
SPELLS: dict[int, tuple[int, float]] = {CORROSIVE_BILE: (RAVAGER, float(client.ability(CORROSIVE_BILE).cast_range)),
                                        FUNGAL_GROWTH: (INFESTOR, float(client.ability(FUNGAL_GROWTH).cast_range))}
"""Ability -> (its caster type, the client's cast range: 9 and 10)."""
ABILITIES = frozenset(SPELLS)


@dataclass
class Cast:
    """A cast on its way into range."""

    ability: int
    x: float
    y: float


@dataclass
class Fungal:
    """A unit under Fungal Growth: rooted at (x, y), damaged up to ``end``."""

    x: float
    y: float
    end: int
    last: int
    """The loop up to which its damage was dealt."""


class ZergSpells:
    """Casts on their way, biles in flight, units under Fungal Growth, cooldowns."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.casts: dict[int, Cast] = {}
        """Caster tag -> its cast on its way into range."""
        self.biles: list[tuple[int, float, float, int]] = []
        """(owner, x, y, the loop it lands)."""
        self.fungals: dict[int, Fungal] = {}
        """Tag of a unit under Fungal Growth -> its fungal."""
        self.ready: dict[tuple[int, int], int] = {}
        """(tag, ability) -> the loop its cooldown is over."""

    @property
    def active(self) -> bool:
        return bool(self.casts or self.biles or self.fungals)

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        """The first commanded caster that may cast now goes into range of the point (a unit
        target is taken as its point) and casts."""
        w = self.w
        u = w.u
        caster, _ = SPELLS[c.ability]
        rows = c.rows[u.unit_id[c.rows] == caster]
        if len(rows) == 0:
            return ERROR
        if c.pos is None and c.trow < 0:
            return ERROR
        loop = w.loop
        free = [r for r in rows.tolist() if self.ready.get((int(u.tag[r]), c.ability), 0) <= loop]
        if not free:
            return COOLDOWN
        if c.ability == FUNGAL_GROWTH:
            w.abilities._register()  # (a new Infestor starts with its energy)
            free = [r for r in free if w.abilities.energy_of(int(u.tag[r])) >= FUNGAL_ENERGY]
            if not free:
                return NOT_ENOUGH_ENERGY
        r = free[0]
        x, y = c.pos if c.pos is not None else (float(u.x[c.trow]), float(u.y[c.trow]))
        tag = int(u.tag[r])
        self.casts[tag] = Cast(c.ability, x, y)
        w.commands.give(np.array([r]), Order(MOVE, c.ability, x, y), False)
        w.touch()
        self._casts(loop)  # (in range already: it casts now)
        return SUCCESS

    # ------------------------------------------------------------------ per step
    def _casts(self, loop: int) -> None:
        w = self.w
        u = w.u
        for tag, cast in list(self.casts.items()):
            r = u.row(tag)
            if r < 0 or u.kind[r] != MOVE or u.ability[r] != cast.ability:
                del self.casts[tag]  # (dead, or another order replaced it)
                continue
            _, reach = SPELLS[cast.ability]
            if math.hypot(cast.x - float(u.x[r]), cast.y - float(u.y[r])) - float(u.radius[r]) > reach:
                continue
            del self.casts[tag]
            owner = int(u.owner[r])
            if cast.ability == FUNGAL_GROWTH:
                if not w.abilities.spend(tag, FUNGAL_ENERGY):
                    u.finish_orders(np.array([r]))
                    continue
                self._fungal(owner, cast.x, cast.y, loop)
            else:
                self.ready[(tag, cast.ability)] = loop + BILE_COOLDOWN
                self.biles.append((owner, cast.x, cast.y, loop + BILE_DELAY))
            u.finish_orders(np.array([r]))
            w.touch()

    def _fungal(self, owner: int, x: float, y: float, loop: int) -> None:
        u = self.w.u
        hit = (np.hypot(u.x - x, u.y - y) - u.radius <= FUNGAL_RADIUS) & (u.owner != owner) \
            & (u.owner != NEUTRAL_OWNER) & ~TYPES.structure[u.ti]
        for r in np.nonzero(hit)[0].tolist():
            self.fungals[int(u.tag[r])] = Fungal(float(u.x[r]), float(u.y[r]), loop + FUNGAL_LOOPS, loop)

    def _biles(self, loop: int) -> None:
        due = [b for b in self.biles if b[3] <= loop]
        if not due:
            return
        self.biles = [b for b in self.biles if b[3] > loop]
        for owner, x, y, at in due:
            self.w.abilities._blast(Blast(owner, x, y, at, BILE_DAMAGE, BILE_RADIUS, everything=True))
        self.w.touch()

    def _fungals(self, loop: int) -> None:
        """Damage dealt up to ``loop``; rooted units stay where the fungal caught them."""
        w = self.w
        u = w.u
        per_loop = FUNGAL_DAMAGE / FUNGAL_LOOPS
        by_amount: dict[float, list[int]] = {}
        for tag, f in list(self.fungals.items()):
            r = u.row(tag)
            if r < 0:
                del self.fungals[tag]
                continue
            upto = min(loop, f.end)
            if upto > f.last:
                by_amount.setdefault((upto - f.last) * per_loop, []).append(r)
                f.last = upto
            u.x[r], u.y[r] = f.x, f.y
            if upto >= f.end:
                del self.fungals[tag]
        for amount, rows in by_amount.items():
            w.abilities._hurt(rows, amount)  # (removes the dead at once)
        if by_amount:
            w.touch()

    def upkeep(self, loop: int) -> None:
        if self.casts:
            self._casts(loop)
        if self.biles:
            self._biles(loop)
        if self.fungals:
            self._fungals(loop)

    def horizon(self, loop: int) -> int:
        if self.casts or self.fungals:
            return 1
        if self.biles:
            return max(1, min(b[3] for b in self.biles) - loop)
        return 1 << 30

    def forget(self, alive: set[int]) -> None:
        for d in (self.casts, self.fungals):
            for t in [t for t in d if t not in alive]:
                del d[t]  # type: ignore[attr-defined]
        if self.ready:
            self.ready = {k: v for k, v in self.ready.items() if k[0] in alive}

    def available(self, r: int, out: list[tuple[int, bool]]) -> None:
        """A Ravager's bile off cooldown; an Infestor's Fungal with the energy for it."""
        u = self.w.u
        uid, tag = int(u.unit_id[r]), int(u.tag[r])
        if uid == RAVAGER and self.ready.get((tag, CORROSIVE_BILE), 0) <= self.w.loop:
            out.append((CORROSIVE_BILE, True))
        elif uid == INFESTOR and self.w.abilities.energy_of(tag) >= FUNGAL_ENERGY:
            out.append((FUNGAL_GROWTH, True))
