"""The vectorised simulation: orders, target acquisition, movement and combat, one game loop at a time.

Model (documented simplifications of the real game):
- Movement is straight-line at ``movement_speed / 16`` per loop, clamped to the playable area
  (the engine's arenas are open rectangles).
- Ground units collide (:meth:`World._separate`): after moving, overlapping ground units are pushed
  apart along the line between their centres until they touch.  Who gives way follows the real
  game: idle units yield to moving allies, moving units push harder than they are pushed, units
  attacking or on hold position stand their ground.  A group moved to one point therefore ends as
  a ball (a mover stops when it bumps into an idle ally nearer its goal), and melee attackers
  spread around their target instead of stacking.  Flying units and neutral map objects (beacon,
  shards) do not collide.
- A weapon fires once the target's edge is within range and the cooldown is ready; the cooldown is
  ``speed * 16`` loops plus a random change drawn per attack (``data.RANDOM_DELAY``, seeded), with
  the fractional part carried over.  The hit lands after the weapon's damage point, plus the
  missile's flight time for weapons that fire one (roach, stalker, marauder); hits in flight are
  kept in a small queue (:meth:`World._schedule`).
- Damage per attack is ``max(0.5, damage + bonus(target attributes) - armor)``; shields absorb
  damage first (shield armor 0), the overflow is reduced by armor.
- Idle, attack-moving and patrolling units acquire the nearest hostile within sight and chase
  it; units on hold position only acquire within weapon range and never move.  A chasing unit
  looks for a nearer target every ``RESCAN`` loops; a unit that found nothing
  looks again when a hostile could first have come within reach.

Quiet stretches are skipped exactly: :meth:`World.quiet_horizon` bounds how many loops can pass
with only straight-line movement or only cooldowns counting down (a standing fight), and
:meth:`World.fast_forward` advances them in one go.
- Banelings explode on contact (or on ``EXPLODE``): area damage within the splash radius to every
  hostile ground unit, and they die.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

try:  # the C function behind np.count_nonzero, without its Python dispatch (called ~100 times a loop)
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.commands import CommandPath
from sc2pool.engine.sim.events import EventQueue
from sc2pool.engine.sim.systems.collision import Collision
from sc2pool.engine.sim.systems.combat import Combat
from sc2pool.engine.sim.systems.harvest import Harvest
from sc2pool.engine.sim.systems.locomotion import Locomotion
from sc2pool.engine.sim.systems.placement import Placement
from sc2pool.engine.sim.systems.production import Production
from sc2pool.engine.sim.systems.supply import Supply
from sc2pool.engine.sim.systems.targeting import Targeting
from sc2pool.engine.sim.systems.vision import Vision
from sc2pool.engine.sim.systems.workers import Workers
from sc2pool.engine.sim.units import (
    ATTACK_UNIT,
    EXPLODE,
    FLOAT_FIELDS,
    FOLLOW,
    N_KINDS,
    NEUTRAL_OWNER,
    NO_DEATHS,
    PATROL,
    POINT_KINDS,
    TYPES,
    Deaths,
    UnitStore,
)

if TYPE_CHECKING:
    from sc2pool.engine.sim.economy import Economy

_INF = np.inf
_TWO_PI = 2.0 * np.pi
# Lookup tables by order kind (faster than np.isin on small arrays).
_BUSY_LUT = np.zeros(N_KINDS, dtype=bool)
_BUSY_LUT[[ATTACK_UNIT, FOLLOW, EXPLODE]] = True
_F_X, _F_Y, _F_FACING, _F_TX, _F_TY, _F_OX, _F_OY = (
    FLOAT_FIELDS.index(f) for f in ("x", "y", "facing", "tx", "ty", "ox", "oy"))


class World:
    """The units on one map and the rules that move them."""

    def __init__(self, mapspec: MapSpec) -> None:
        self.map = mapspec
        self.u = UnitStore()
        self.loop = 0
        self._static_until = 0
        self._r_all_version = -1
        self._r_all = np.nan
        self._any_suicide = False
        self._any_shields = False
        self.rng = np.random.default_rng(0)
        """Draws the weapons' random cooldown changes (the scenario seeds it per episode)."""
        self.dead_tags: list[int] = []
        """Every tag that ever died or was removed, in order (observations report slices of it)."""
        # --- economy hook: scenarios with workers and production attach one (None: combat only)
        self.economy: Economy | None = None
        self.commands = CommandPath(self)
        self.vision = Vision(self)
        self.targeting = Targeting(self)
        self.combat = Combat(self)
        self.collision = Collision(self)
        self.locomotion = Locomotion(self)
        self.supply = Supply(self)
        self.placement = Placement(self)
        self.events = EventQueue()
        self.workers = Workers(self)
        self.harvest = Harvest(self)
        self.production = Production(self)
        self.construction: Any = None
        """(the economy, until construction is a system of its own)"""

    # ------------------------------------------------------------------ spawning / removal
    def spawn(self, unit_id: int, owner: int, xs: np.ndarray | list[float], ys: np.ndarray | list[float],
              facing: float = 0.0, free: bool = False) -> np.ndarray:
        """Add units of one type at the given points (clamped to the playable area); returns their
        tags.  With ``free`` a ground unit whose point is taken goes to the nearest free spot
        instead (:meth:`free_spots`), as units created by the map's triggers do."""
        xs = np.asarray(xs, dtype=np.float64).copy()
        ys = np.asarray(ys, dtype=np.float64).copy()
        self.map.clamp(xs, ys, float(TYPES.radius[TYPES.row(unit_id)]))
        if free:
            xs, ys = self.collision.free_spots(unit_id, xs, ys)
        tags = self.u.add(unit_id, owner, xs, ys, facing)
        self.touch()
        return tags

    def remove_tags(self, tags: np.ndarray | list[int]) -> Deaths:
        """Remove units without a fight (debug kill, collected shards); returns them as deaths."""
        self.touch()
        rows = self.u.rows(np.asarray(tags, dtype=np.int64))
        rows = np.unique(rows[rows >= 0])
        mask = np.ones(len(self.u), dtype=bool)
        mask[rows] = False
        d = Deaths(self.u.tag[rows].copy(), TYPES.unit_id[self.u.ti[rows]], self.u.owner[rows].copy())
        self.u.keep(mask)
        self.dead_tags.extend(d.tags.tolist())
        return d

    # ------------------------------------------------------------------ commands
    def command(self, player: int, ability: int, tags: list[int], target_pos: tuple[float, float] | None,
                target_tag: int, queue: bool) -> int:
        """Apply one raw unit command (see :mod:`sc2pool.engine.sim.commands`); returns an
        ActionResult value."""
        return self.commands.issue(player, ability, tags, target_pos, target_tag, queue)

    # ------------------------------------------------------------------ the game loop
    def step_loop(self) -> Deaths:
        """Advance one game loop; returns the units that died in it."""
        self.loop += 1
        loop = self.loop
        self._static_until = 0
        u = self.u
        if len(u) == 0:
            return NO_DEATHS

        # --- targets: explicit (attack unit / follow) and automatic, resolved in one pass
        tgt, has_t, in_range, follow, tsafe, xy2, dx, dy = self.targeting.resolve(loop)

        # --- fire: weapons that are ready fire, hits due land
        damage, died, fire, explode = self.combat.fire(loop, in_range, tgt, dx, dy)

        # --- movement: walkers to their points or targets, going round blockers
        moved, walking, point_goal, pg, chase, mobile = self.locomotion.move(loop, has_t, in_range, follow, tsafe,
                                                                             xy2)

        # --- collision: ground units keep apart; a group sent to one point ends as a ball
        if self.collision.active():
            steer = self.locomotion.steering(pg, xy2) if len(pg) else None
            if self.collision.separate(loop, walking, in_range, mobile, steer, chase):
                moved = True
                if len(pg):
                    self.locomotion.arrive_by_crowding((point_goal & (u.kind != PATROL)).nonzero()[0])

        # --- damage and deaths
        if damage is not None:
            d = self.combat.deaths(damage, died)
            if d is not None:
                return d
        if not moved and not _count(explode):
            # Nothing moves and nobody died: until the next weapon is ready (or the next hit in
            # flight lands), loops only count cooldowns down.  Remember that so quiet_horizon()
            # can skip them.
            ready = in_range & ~(fire & u.suicide) if self.unit_set_facts()[1] else in_range
            until = self.loop + (1 << 30)
            if _count(ready):
                nxt = int(np.ceil(float(u.cd[ready].min())))
                until = self.loop + max(nxt - 1, 0)
            if self.combat.p_due.size:
                until = min(until, int(self.combat.p_due.min()) - 1)
            self._static_until = until
        return NO_DEATHS

    # ------------------------------------------------------------------ collision
    def unit_set_facts(self) -> tuple[float, bool, bool]:
        """(the radius every unit has or NaN, whether any unit explodes on attacking, whether any
        unit's type has shields), cached per unit-set version."""
        u = self.u
        if self._r_all_version != u.version:
            r = u.radius
            self._r_all = float(r[0]) if len(r) and not _count(r != r[0]) else np.nan
            self._any_suicide = bool(_count(u.suicide))
            self._any_shields = bool(_count(TYPES.sh_max[u.ti] > 0))
            self._r_all_version = u.version
        return self._r_all, self._any_suicide, self._any_shields

    def touch(self) -> None:
        """Something outside the loop changed units, positions or orders: forget the shortcuts
        (static fight, scheduled target scans)."""
        self._static_until = 0
        self.collision.forget_loop()
        self.u.scan[:] = 0
        self.u.seg[:] = -1

    # ------------------------------------------------------------------ fast-forwarding quiet stretches
    def quiet_horizon(self) -> int:
        """How many loops can pass with nothing but straight-line movement and cooldowns (>= 1).

        Within a standing fight (the last loop moved nobody) it is the number of loops until the
        next weapon is ready.  Otherwise it is 1 while any unit has a target or an explicit
        attack/follow/explode order; else the earliest loop at which a hostile could enter some
        unit's acquisition range (closing at both units' full speed) or a moving unit could reach
        its goal.  Within that bound :meth:`fast_forward` equals stepping loop by loop.
        """
        if self._static_until > self.loop:
            return self._static_until - self.loop
        if self.combat.p_due.size:
            return 1  # hits in flight: step loop by loop until they land
        u = self.u
        n = len(u)
        if n == 0:
            return 1 << 30
        kind = u.kind
        if _count(_BUSY_LUT[kind]) or _count(u.eng):
            return 1
        speed = u.speed
        h = 1 << 30
        moving = POINT_KINDS[kind] & (speed > 0)
        any_moving = bool(_count(moving))
        if any_moving:
            m = moving.nonzero()[0]
            dist = np.hypot(u.tx[m] - u.x[m], u.ty[m] - u.y[m])
            h = min(h, int(np.min(np.ceil(dist / speed[m]))) - 1)
        if h > 1 and self.targeting.has_hostile_pairs():
            # conservative: every hostile closes in at the fastest speed on the map
            a = np.nonzero(u.can_attack & (u.owner != NEUTRAL_OWNER))[0]
            _, dist = self.targeting.nearest(a)
            gap = dist - self.targeting.acquisition_range(a)
            if _count(gap <= 0):
                return 1
            closing = speed[a] + u.max_speed
            moving_rows = closing > 0
            if _count(moving_rows):
                h = min(h, int(min(float((gap[moving_rows] / closing[moving_rows]).min()), float(1 << 30))))
        if h > 1:
            h = self.collision.contact_horizon(h)
        h = max(1, h)
        if not any_moving and h > 1:
            # nobody moves and nobody can see a target: frozen until an order or a spawn
            self._static_until = self.loop + (1 << 30)
        return h

    def fast_forward(self, h: int) -> Deaths:
        """Advance ``h`` loops of a quiet stretch (see :meth:`quiet_horizon`) in one go."""
        self.loop += h
        u = self.u
        if len(u) == 0:
            return NO_DEATHS
        np.maximum(u.cd - h, 0.0, out=u.cd)
        if self._static_until >= self.loop:
            return NO_DEATHS  # a standing fight: only cooldowns change
        moving = POINT_KINDS[u.kind] & (u.speed > 0)
        if _count(moving):
            self.locomotion.move_to_points(moving.nonzero()[0], self.loop, self.loop - h)
        return NO_DEATHS
