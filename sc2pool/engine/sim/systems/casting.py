"""Casting: one "walk into range, then cast" order for every race's targeted abilities.

A unit ordered to use an ability on a unit or a point that is out of the ability's range walks
(flies) until it is in range, then casts: the energy is paid, the cooldown starts, a channel
begins if the ability has one, and the effect happens.  This module owns that order's state for
all three races (the OpenRA activity / SMAClite split of ``docs/engine.md``); the race modules
(``systems/abilities.py``, ``protoss_abilities.py``, ``zerg_spells.py``, ``zerg_abilities.py``,
``recall.py``) supply only data: a :class:`CastSpec` per ability (range, energy, cooldown,
channel) and the effect callback, and they choose the caster and check the target when the
command is given.

It also owns the one cooldown table of every unit's abilities, of all races: ``(caster tag,
ability) -> the loop the cooldown is over`` (:meth:`Casting.ready_to`,
:meth:`Casting.cooldown_until`, :meth:`Casting.start_cooldown`), whether the cooldown starts with a
cast here or with an ability a race module carries out itself (a Widow Mine's missile, Lock On's
end, Prismatic Alignment, Psionic Transfer, Locusts, a Mothership's recall).  One table serves all:
a key names the caster, and an ability id is one race's own, so no two abilities share a key.  A
cooldown of a whole player (a Nexus's Strategic Recall, Battery Overcharge) is not a caster's and
stays in its module (``recall.py``, ``warpgate.py``).

Rules (the real game's; "(m)" where the engine chose):

- *range* is measured edge to edge: from the caster's edge to the target unit's edge, or to the
  target point (burnysc2 7.3.0's ``Unit.in_ability_cast_range``, written against the real client:
  ``cast_range + self.radius + target.radius`` to a unit, ``cast_range + self.radius`` to a point);
  the range is the client's ``cast_range`` unless the race module cites another figure.  Blink and
  Shadow Stride measure their teleport from the caster's centre (m, :attr:`CastSpec.from_centre`).
- *approach*: a cast on a unit follows it (``FOLLOW``, re-aimed every loop as it moves); a cast on
  a point walks to the point (``MOVE``); Charge attacks its target meanwhile (``ATTACK_UNIT``).
  The order shows the ability, as the real client's ``UnitOrder``.
- *in range*: the energy is paid now (not at the command, which only checks that the caster has
  it: energy spent meanwhile ends the order), then the cooldown starts, then a channel of
  :attr:`CastSpec.channel` loops begins (the caster's order stays the ability; it neither moves
  nor fires; orders given meanwhile wait for its end, as a form change's, ``sim/commands.py``),
  after which the effect happens.
- *lost target*: a target unit that dies, leaves or becomes cloaked and undetected for the caster's
  player ends the order (the caster takes its next queued order); the command itself answered
  ``CantTargetThatUnit`` for such a target (the race modules check it), later there is no
  ActionResult to give.
- *another order* given (not queued) replaces the cast; a shift-queued cast (``queue_command``)
  waits behind the caster's orders and starts when its order comes up; in range while the
  ability's cooldown runs (a cast queued behind one of its own), it is dropped and the caster
  takes its next order, as the real game's queued Blinks fail (m: seen in play, no written source).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.sim.commands import SUCCESS
from sc2pool.engine.sim.units import FOLLOW, HOLD, IDLE, MOVE, TRANSFORM, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World


@dataclass
class Cast:
    """One cast order: approaching (``fire_at`` -1) or channelling until ``fire_at``."""

    ability: int
    target: int = 0
    """The target unit's tag (0: a point cast)."""
    x: float = 0.0
    y: float = 0.0
    """The target point (a point cast)."""
    fire_at: int = -1


Effect = Callable[[Cast, int, int, int], None]
"""What a cast does when it takes effect: ``(cast, caster row, target row or -1, loop)``."""
Start = Callable[[Cast, int, int, int], bool]
"""A check when the cast begins (after the energy is paid): ``(cast, caster row, target row,
loop)``; False ends the order without the effect."""


@dataclass(frozen=True)
class CastSpec:
    """The data a race module gives for one targeted ability."""

    ability: int
    range: float
    """Edge to edge (see the module docstring)."""
    effect: Effect
    on_unit: bool = False
    """The target is a unit (followed); else a point."""
    energy: float = 0.0
    cooldown: int = 0
    """Loops the caster may not cast it again, from the start of the cast (in :class:`Casting`'s
    cooldown table)."""
    channel: int = 0
    """Loops from the start of the cast to its effect."""
    start: Start | None = None
    approach: int = -1
    """The order kind while approaching (-1: ``FOLLOW`` on a unit, ``MOVE`` to a point)."""
    from_centre: bool = False
    """The range counts from the caster's centre (a teleport's distance)."""
    keeps_order: bool = False
    """The effect sets the caster's next order itself (a lunge that fights on, a drain that goes
    on, a channel of its own); else the order is done when the effect happens."""

    @property
    def kind(self) -> int:
        if self.approach >= 0:
            return self.approach
        return FOLLOW if self.on_unit else MOVE


class Casting:
    """Every cast order under way (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.specs: dict[int, CastSpec] = {}
        """Ability -> its spec (registered by the race modules)."""
        self.casts: dict[int, Cast] = {}
        """Caster tag -> its current cast (approaching or channelling)."""
        self.queued: dict[int, list[Cast]] = {}
        """Caster tag -> its shift-queued casts, in order."""
        self.cooldowns: dict[tuple[int, int], int] = {}
        """(caster tag, ability) -> the loop its cooldown is over: every race's (see the module
        docstring)."""

    @property
    def active(self) -> bool:
        return bool(self.casts or self.queued)

    def add(self, *specs: CastSpec) -> None:
        for s in specs:
            self.specs[s.ability] = s

    # ------------------------------------------------------------------ the command
    def order(self, c: Command, r: int, cast: Cast) -> int:
        """The caster of row ``r`` (chosen and checked by its race module) is ordered to cast:
        now, replacing its orders, or behind them when the command is queued or the caster is
        channelling or changing form."""
        w = self.w
        u = w.u
        spec = self.specs[cast.ability]
        tag = int(u.tag[r])
        kind = int(u.kind[r])
        behind = (c.queue and kind not in (IDLE, HOLD)) or kind == TRANSFORM  # (as commands.give queues)
        w.commands.give(np.array([r]), self._order(spec, cast), c.queue)
        # (a cast queued behind one of the same ability also matches the current order)
        if not behind and self._current(r, spec, cast):
            self.queued.pop(tag, None)  # (the queue was replaced)
            self.casts[tag] = cast
            self._try(tag, cast, w.loop)  # (in range already: it casts now)
        else:
            self.queued.setdefault(tag, []).append(cast)
        w.touch()
        return SUCCESS

    @staticmethod
    def _order(spec: CastSpec, cast: Cast) -> Order:
        if spec.on_unit:
            return Order(spec.kind, cast.ability, ttag=cast.target)
        return Order(spec.kind, cast.ability, cast.x, cast.y)

    def _current(self, r: int, spec: CastSpec, cast: Cast) -> bool:
        """Whether the caster's current order is this cast's approach (a point order's point is
        not compared: the walk may aim at the nearest point it can reach)."""
        u = self.w.u
        if int(u.kind[r]) != spec.kind or int(u.ability[r]) != cast.ability:
            return False
        return not spec.on_unit or int(u.ttag[r]) == cast.target

    # ------------------------------------------------------------------ per step
    def upkeep(self, loop: int) -> None:
        """Queued casts whose order came up start; casts in range take place; channels end."""
        for tag in list(self.queued):
            self._next(tag, loop)
        for tag, cast in list(self.casts.items()):
            if self.casts.get(tag) is cast:
                self._try(tag, cast, loop)

    def _next(self, tag: int, loop: int) -> None:
        """The caster's next queued cast starts if its order is the caster's current one; queued
        casts whose orders are gone (replaced by a new order) are forgotten."""
        u = self.w.u
        q = self.queued.get(tag)
        r = u.row(tag)
        if q is None:
            return
        if r < 0:
            del self.queued[tag]
            return
        if tag not in self.casts and self._current(r, self.specs[q[0].ability], q[0]):
            cast = q.pop(0)
            if not q:
                del self.queued[tag]
            self.casts[tag] = cast
            self._try(tag, cast, loop)
            return
        waiting = u.queues.get(tag, [])
        keep = [c for c in q if any(self._same(o, self.specs[c.ability], c) for o in waiting)]
        if keep:
            self.queued[tag] = keep
        else:
            del self.queued[tag]

    def _same(self, o: Order, spec: CastSpec, cast: Cast) -> bool:
        if o.kind != spec.kind or o.ability != cast.ability:
            return False
        return o.ttag == cast.target if spec.on_unit else (o.tx == cast.x and o.ty == cast.y)

    def _lost(self, r: int, t: int) -> bool:
        """The target is dead or gone, or cloaked and undetected by the caster's player."""
        w = self.w
        return t < 0 or (w.detection.active() and bool(w.detection.hidden(int(w.u.owner[r]))[t]))

    def _try(self, tag: int, cast: Cast, loop: int) -> None:
        w = self.w
        u = w.u
        spec = self.specs[cast.ability]
        r = u.row(tag)
        if r < 0:
            self._drop(tag)
            return
        t = u.row(cast.target) if spec.on_unit else -1
        lost = spec.on_unit and self._lost(r, t)
        if cast.fire_at < 0:
            if not self._current(r, spec, cast):
                self._drop(tag)  # (another order replaced it)
                return
            if lost:
                self._end(tag, r, loop)
                return
            if spec.on_unit:
                gap = math.hypot(u.x[t] - u.x[r], u.y[t] - u.y[r]) - u.radius[t] - u.radius[r]
            else:
                gap = math.hypot(cast.x - u.x[r], cast.y - u.y[r]) - (0.0 if spec.from_centre else u.radius[r])
            if gap > spec.range:
                return
            if spec.cooldown and not self.ready_to(tag, cast.ability, loop):
                self._end(tag, r, loop)  # (a cast queued behind one of its own: not ready, dropped)
                return
            if spec.energy and not w.abilities.spend(tag, spec.energy):
                self._end(tag, r, loop)  # (spent meanwhile)
                return
            if spec.start is not None and not spec.start(cast, r, t, loop):
                self._end(tag, r, loop)
                return
            if spec.cooldown:
                self.start_cooldown(tag, cast.ability, loop + spec.cooldown)
            cast.fire_at = loop + spec.channel
            if spec.channel:
                u.kind[r] = TRANSFORM  # (channelling: neither moves nor fires)
                u.eng[r] = 0
                w.touch()
                return
        if loop < cast.fire_at:
            return
        self._drop(tag)
        if not spec.keeps_order:
            u.finish_orders(np.array([r]))
        if not lost:
            spec.effect(cast, r, t, loop)
        w.touch()
        if not spec.keeps_order:
            self._next(tag, loop)

    def _drop(self, tag: int) -> None:
        self.casts.pop(tag, None)

    def _end(self, tag: int, r: int, loop: int) -> None:
        """The cast ends without its effect: the caster takes its next order."""
        self._drop(tag)
        self.w.u.finish_orders(np.array([r]))
        self.w.touch()
        self._next(tag, loop)

    def horizon(self, loop: int) -> int:
        """1 while a cast approaches (its range is checked every loop) or waits in a queue; else
        the loops until the next channel ends."""
        if self.queued:
            return 1
        h = 1 << 30
        for cast in self.casts.values():
            h = min(h, cast.fire_at - loop if cast.fire_at >= 0 else 1)
        return max(1, h)

    def forget(self, alive: set[int]) -> None:
        """Drop the casts and queued casts of casters that are gone (the world asks while
        :attr:`active`; the cooldowns: :meth:`forget_cooldowns`)."""
        for d in (self.casts, self.queued):
            for t in [t for t in d if t not in alive]:
                del d[t]  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ cooldowns
    def ready_to(self, tag: int, ability: int, loop: int | None = None) -> bool:
        """Whether the unit ``tag``'s cooldown of ``ability`` is over at ``loop`` (default: now)."""
        return self.cooldowns.get((tag, ability), 0) <= (self.w.loop if loop is None else loop)

    def cooldown_until(self, tag: int, ability: int) -> int:
        """The loop the unit ``tag``'s cooldown of ``ability`` is over (0: it never had one)."""
        return self.cooldowns.get((tag, ability), 0)

    def start_cooldown(self, tag: int, ability: int, until: int) -> None:
        """The unit ``tag`` may not use ``ability`` again before the loop ``until``."""
        self.cooldowns[(tag, ability)] = until

    def forget_cooldowns(self, alive: set[int]) -> None:
        """Drop the cooldowns of units that are gone (``Abilities.forget`` asks, whenever units
        were removed: the table outlives the casts, so :meth:`forget`'s call while
        :attr:`active` would not do).  A tag is never reused, so this only frees memory."""
        if self.cooldowns:
            for key in [k for k in self.cooldowns if k[0] not in alive]:
                del self.cooldowns[key]

    # ------------------------------------------------------------------ what others ask
    def channelling(self, tag: int) -> bool:
        """Whether the unit is channelling a cast (in range, before its effect)."""
        cast = self.casts.get(tag)
        return cast is not None and cast.fire_at >= 0

    def casting(self, tag: int, ability: int) -> bool:
        """Whether the unit's current cast is ``ability`` (approaching or channelling)."""
        cast = self.casts.get(tag)
        return cast is not None and cast.ability == ability
