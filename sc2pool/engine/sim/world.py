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

from typing import TYPE_CHECKING

import numpy as np

try:  # the C function behind np.count_nonzero, without its Python dispatch (called ~100 times a loop)
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.commands import CommandPath
from sc2pool.engine.sim.systems.collision import Collision
from sc2pool.engine.sim.systems.combat import Combat
from sc2pool.engine.sim.systems.targeting import Targeting
from sc2pool.engine.sim.systems.vision import Vision
from sc2pool.engine.sim.units import (
    ATTACK_UNIT,
    EXPLODE,
    FLOAT_FIELDS,
    FOLLOW,
    HOLD,
    IDLE,
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
        self._segment_start = 0
        self._bounds_version = -1
        self._r_all_version = -1
        self._r_all = np.nan
        self._any_suicide = False
        self._any_shields = False
        self._bounds: tuple[np.ndarray, np.ndarray] = ()  # type: ignore[assignment]
        self._crowd_coll: np.ndarray | None = None
        self._crowd_sqrt_n = np.zeros(0)
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
        self._static_until = 0
        self._segment_start = self.loop - 1
        u = self.u
        n = len(u)
        if n == 0:
            return NO_DEATHS
        x, y = u.x, u.y
        radius = u.radius
        rng = u.range

        # --- targets: explicit (attack unit / follow) and automatic, resolved in one pass
        tgt, has_t, in_range, follow, tsafe, xy2, dx, dy = self.targeting.resolve(self.loop)
        kind = u.kind

        # --- fire: weapons that are ready fire, hits due land
        damage, died, fire, explode = self.combat.fire(self.loop, in_range, tgt, dx, dy)

        # --- movement
        r_all = self.unit_set_facts()[0]
        speed = u.speed
        mobile = speed > 0
        hold = kind == HOLD
        point_goal = POINT_KINDS[kind] & ~has_t & mobile
        chase = has_t & ~in_range & ~hold & mobile
        walking = point_goal | chase
        u.seg[~point_goal] = -1  # a straight move to a point restarts from wherever it resumes
        u.slide[~walking] = 0.0  # going round a blocker lasts while the walk does
        moved = False
        n_pg = _count(point_goal)
        n_ch = _count(chase)
        if n_pg or n_ch:
            # headings of every walker as the loop starts: movers to their goals, chasers to their
            # targets; who is blocked is decided for all of them at once (one look at the touching
            # pairs), before anybody moves
            pg = point_goal.nonzero()[0]
            hxy = u.F[_F_TX:_F_TY + 1].take(pg, axis=1)  # from each mover to its goal
            hxy -= xy2.take(pg, axis=1)
            if n_ch:
                m = chase.nonzero()[0]
                tm = tsafe[m]
                pm = xy2.take(m, axis=1)
                md = xy2.take(tm, axis=1)
                md -= pm
                if n_pg:
                    blocked_all = self._blocked_ahead(np.concatenate((pg, m)), np.concatenate((hxy, md), axis=1),
                                                      walking, int(n_pg))
                    blocked, blocked_ch = blocked_all[:n_pg], blocked_all[n_pg:]
                else:
                    blocked_ch = self._blocked_ahead(m, md, walking, 0)
            else:
                blocked = self._blocked_ahead(pg, hxy, walking, int(n_pg))
        if n_pg:
            hx, hy = hxy[0], hxy[1]
            n_blocked = _count(blocked)
            if n_blocked:
                b = pg[blocked]
                bx, by = x[b], y[b]
            moved |= self._move_to_points(pg, self.loop, clamp=False)
            if n_blocked:  # side-step round the blocker instead of walking into it
                hb = np.hypot(hx[blocked], hy[blocked])
                step = np.where(hb > 0, speed[b] / np.where(hb > 0, hb, 1.0), 0.0) * u.slide[b]
                x[b] = bx - hy[blocked] * step
                y[b] = by + hx[blocked] * step
                u.seg[b] = -1
            self._clamp()
        if n_ch:
            mdx, mdy = md[0], md[1]
            dist = np.sqrt(mdx * mdx + mdy * mdy)
            # chasers stop once in range, followers once touching
            rr = r_all + r_all if r_all == r_all else radius[m] + radius[tm]
            stop_at = rng[m] + rr - 0.01
            if follow is not None and _count(follow[m]):
                stop_at = np.where(follow[m], rr, stop_at)
            stepd = np.minimum(speed[m], np.maximum(dist - stop_at, 0.0))
            go = stepd > 1e-9
            n_go = _count(go)
            if n_go:
                moved = True
                every = n_go == len(m)  # (the common case: no masking needed)
                scale = stepd / dist if every else np.where(go, stepd / np.where(go, dist, 1.0), 0.0)
                if _count(blocked_ch):  # blocked chasers side-step round the blocker instead
                    sl = u.slide[m]
                    mdx, mdy = np.where(blocked_ch, -sl * mdy, mdx), np.where(blocked_ch, sl * mdx, mdy)
                x[m] = pm[0] + mdx * scale
                y[m] = pm[1] + mdy * scale
                heading = np.arctan2(mdy, mdx) % _TWO_PI
                u.facing[m] = heading if every else np.where(go, heading, u.facing[m])
                self._clamp()
        if self.collision.active():
            steer = None
            if n_pg:
                steer = np.zeros(n, dtype=bool)
                # movers still on their way (not yet among the crowd at their goal) steer too
                togo = u.F[_F_TX:_F_TY + 1].take(pg, axis=1)
                togo -= xy2.take(pg, axis=1)
                far = np.hypot(togo[0], togo[1]) > self._crowd_bound(pg)
                steer[pg[far]] = True
            if self.collision.separate(self.loop, walking, in_range, mobile, steer, chase):
                moved = True
                if n_pg:
                    self._arrive_by_crowding((point_goal & (u.kind != PATROL)).nonzero()[0])

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

    def _move_to_points(self, m: np.ndarray, loop: int, clamp: bool = True) -> bool:
        """Place point-goal movers ``m`` where their straight segment puts them at ``loop``;
        finish the orders of those that arrive.  Returns whether anything moved.

        Position = origin + (target - origin) * min(k * speed / length, 1) with k the loops since
        the segment started: the same whether loops are stepped one by one or skipped.  With
        ``clamp`` false the caller clamps the positions to the playable area itself.
        """
        u = self.u
        seg = u.seg[m]
        new = seg < 0
        if _count(new):
            mn = m[new]
            u.ox[mn] = u.x[mn]
            u.oy[mn] = u.y[mn]
            u.seg[mn] = self._segment_start
            seg[new] = self._segment_start
        k = (loop - seg).astype(np.float64)
        fm = u.F.take(m, axis=1)  # every float column of the movers in one gather
        ox, oy = fm[_F_OX], fm[_F_OY]
        tx, ty = fm[_F_TX], fm[_F_TY]
        ddx = tx - ox
        ddy = ty - oy
        length = np.sqrt(ddx * ddx + ddy * ddy)
        travel = k * u.speed[m]
        arrived = travel >= length
        frac = np.where(arrived, 1.0, travel / np.where(length > 0, length, 1.0))
        nx = np.where(arrived, tx, ox + ddx * frac)
        ny = np.where(arrived, ty, oy + ddy * frac)
        moved = bool(_count((nx != fm[_F_X]) | (ny != fm[_F_Y])))
        u.x[m] = nx
        u.y[m] = ny
        u.facing[m] = np.where(length > 0, np.arctan2(ddy, ddx) % _TWO_PI, fm[_F_FACING])
        if clamp:
            self._clamp()
        if _count(arrived):
            moved = True
            ar = m[arrived]
            kind = u.kind
            pat = ar[kind[ar] == PATROL]
            if len(pat):  # patrol: turn around
                o_x, o_y = u.px[pat].copy(), u.py[pat].copy()
                u.px[pat], u.py[pat] = u.tx[pat], u.ty[pat]
                u.tx[pat], u.ty[pat] = o_x, o_y
                u.seg[pat] = -1
            u.finish_orders(ar[kind[ar] != PATROL])
        return moved

    # ------------------------------------------------------------------ collision
    def _blocked_ahead(self, m: np.ndarray, hxy: np.ndarray, walking: np.ndarray, n_yield: int) -> np.ndarray:
        """For walkers ``m`` (distinct rows) heading ``hxy`` (x and y as two rows): whether a unit
        that will not move out of the way touches it within 45 degrees ahead.  Units walking
        themselves (and not blocked in turn) move on; for the first ``n_yield`` walkers (movers to
        a point) idle allies step aside too (a move passes through them), for the others they
        block (a chaser goes round them).

        A blocked walker side-steps (``slide``: +1 to the left of its heading, -1 to the right,
        chosen once, away from the blockers) instead of pressing into the crowd, so pressure does
        not build up through a queue of walkers and a unit standing its ground is walked round.
        """
        u = self.u
        n = len(u)
        out = np.zeros(len(m), dtype=bool)
        touching = self.collision.touching(self.loop)
        if touching is None:
            return out
        rows2, vec = touching
        if rows2.shape[1] == 0:
            return out
        pos = np.empty(n, dtype=np.int64)
        pos.fill(-1)
        pos[m] = np.arange(len(m))
        i = pos.take(rows2[0])
        k = (i >= 0).nonzero()[0]
        if len(k) == 0:
            return out
        so = rows2.take(k, axis=1)
        src, oth = so[0], so[1]
        vk = vec.take(k, axis=1)
        vx, vy, hv2 = vk[0], vk[1], vk[2]
        i = i.take(k)
        hi = hxy.take(i, axis=1)
        sq = hi * hi
        h2 = sq[0] + sq[1]
        pr = vk[:2] * hi
        dot = pr[0] + pr[1]
        # per unit first (one pass over the units), then per touching pair
        stays = u.slide != 0.0
        stays |= ~walking
        firm = stays[oth]
        if n_yield:
            idle = u.kind == IDLE
            idle &= u.eng == 0
            yields = idle[oth] & (u.owner[oth] == u.owner[src])
            if n_yield < len(m):
                yields &= i < n_yield
            firm &= ~yields
        # within 45 degrees ahead: cos^2 >= 1/2, and in front
        hv2 *= h2
        ahead = firm & (dot * dot >= hv2) & (dot > 0)
        ahead = ahead.nonzero()[0]
        if len(ahead) == 0:
            return out
        i = i[ahead]
        hxi, hyi = hi.take(ahead, axis=1)
        vx, vy = vk[:2].take(ahead, axis=1)
        out[i] = True
        # the blocker's side of the heading; go round the other way (once per chase)
        away = np.where(hxi * vy - hyi * vx >= 0.0, -1.0, 1.0)
        pull = np.bincount(i, away, minlength=len(m))
        fresh = out & (u.slide[m] == 0.0)
        u.slide[m[fresh]] = np.where(pull[fresh] >= 0.0, 1.0, -1.0)
        return out

    def _crowd_bound(self, rows: np.ndarray) -> np.ndarray:
        """How far from its goal a mover may stop against allies already there: the radius of a
        loose ball of all its owner's ground units (``2 r sqrt(n)``: packing density 1/4)."""
        u = self.u
        c = self.collision.collidable()
        if self._crowd_coll is not c:  # per collidable set: the square roots of the counts
            self._crowd_coll = c
            self._crowd_sqrt_n = np.sqrt(np.bincount(u.owner[c], minlength=NEUTRAL_OWNER + 1))
        return 2.0 * u.radius[rows] * self._crowd_sqrt_n[u.owner[rows]]

    def _arrive_by_crowding(self, m: np.ndarray) -> None:
        """Movers ``m`` whose goal is taken by idle allies stop on bumping into them.

        A mover finishes its order when it touches an idle ally ahead of it that is nearer its goal
        than itself while within :meth:`_crowd_bound` of the goal: a group sent to one point ends
        as a ball around it instead of pressing into one spot.
        """
        u = self.u
        if len(m) == 0:
            return
        so = self.collision.touching_now()  # (source, other) rows of the touching pairs, both ways
        if so is None:
            return
        src, oth = so[0], so[1]
        is_mover = np.zeros(len(u), dtype=bool)
        is_mover[m] = True
        idle = u.kind == IDLE
        idle &= u.eng == 0
        own = u.owner.take(so)
        k = is_mover.take(src)
        k &= idle.take(oth)
        k &= own[0] == own[1]
        if not _count(k):
            return
        src, oth = src[k], oth[k]
        fs, fo = u.F.take(src, axis=1), u.F.take(oth, axis=1)
        gx, gy = fs[_F_TX], fs[_F_TY]
        xs, ys, xo, yo = fs[_F_X], fs[_F_Y], fo[_F_X], fo[_F_Y]
        mine = np.hypot(xs - gx, ys - gy)
        theirs = np.hypot(xo - gx, yo - gy)
        # only an ally ahead blocks (within 60 degrees of the way to the goal); one alongside is
        # slid past, so the ball fills in instead of growing branches
        ahead = (xo - xs) * (gx - xs) + (yo - ys) * (gy - ys)
        dist_o = np.hypot(xo - xs, yo - ys)
        front = ahead >= 0.5 * dist_o * mine
        stop = front & (theirs < mine) & (mine <= self._crowd_bound(src))
        if _count(stop):
            done = np.zeros(len(u), dtype=bool)  # (ascending and unique, without np.unique's sort)
            done[src[stop]] = True
            u.finish_orders(done.nonzero()[0])

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

    def _clamp(self) -> None:
        """Keep unit centres inside the playable area (in place; bounds cached per unit set)."""
        u = self.u
        if self._bounds_version != u.version:
            x0, y0, x1, y1 = self.map.playable
            r = u.radius
            # laid out like the flat position view ``u.xy`` (x..., y...): two operations clamp both
            self._bounds = (np.concatenate((x0 + r, y0 + r)), np.concatenate((x1 - r, y1 - r)))
            self._bounds_version = u.version
        lo, hi = self._bounds
        xy = u.xy
        np.maximum(xy, lo, out=xy)
        np.minimum(xy, hi, out=xy)

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
            self._segment_start = self.loop - h
            self._move_to_points(moving.nonzero()[0], self.loop)
        return NO_DEATHS
