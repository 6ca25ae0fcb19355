"""Locomotion: how units walk.

Movement is straight at ``movement_speed / 16`` per loop, clamped to the playable area.  On the
scenarios' flat arenas a move to a point is one straight segment to it; on a ladder map a ground
unit walks its path (:mod:`sc2pool.engine.sim.systems.pathing`) one straight segment per
waypoint, and a chaser whose straight way to its target is blocked heads down a path too.  A
straight segment is computed from where it started (``ox``, ``oy`` at loop ``seg``), so a
position after k loops does not depend on how the loops were stepped
(:meth:`Locomotion.move_to_points` serves the world's fast-forward too).  Chasers walk to weapon range of their target, followers to touching.  A walker touching,
within 45 degrees ahead, a unit that will not make way side-steps round it (``slide``), and a
mover finishes its move when it bumps into an idle ally nearer its goal while within the radius
of a loose ball of its owner's ground units: a group sent to one point ends as a ball.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.systems.collision import CONTACT_SLOP
from sc2pool.engine.sim.units import (
    FLOAT_FIELDS,
    HOLD,
    IDLE,
    N_FLAT_FLOAT,
    NEUTRAL_OWNER,
    PATROL,
    POINT_KINDS,
)

try:  # the C function behind np.count_nonzero, without its Python dispatch
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

_TWO_PI = 2.0 * np.pi
_F_X, _F_Y, _F_FACING, _F_TX, _F_TY, _F_OX, _F_OY, _F_WX, _F_EX = (
    FLOAT_FIELDS.index(f) for f in ("x", "y", "facing", "tx", "ty", "ox", "oy", "wx", "ex"))
_NO_ROWS = np.zeros(0, np.int64)


class Locomotion:
    """Walking, going round blockers and arriving as a ball, with their caches (the playable
    bounds per unit set, the crowd bound's square roots per collidable set)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.u = world.u
        self._bounds_version = -1
        self._bounds: tuple[np.ndarray, np.ndarray] = ()  # type: ignore[assignment]
        self._crowd_coll: np.ndarray | None = None
        self._crowd_sqrt_n = np.zeros(0)
        self.terrain = bool(world.map.has_terrain)
        """On a ladder map movers walk their paths (:mod:`sc2pool.engine.sim.systems.pathing`)."""
        # The float rows movers read: a segment ends at ``steer`` (x, y rows), a walk ends at
        # ``goal``: the order's point on the flat arenas, a path's waypoint and end on a ladder map
        # (which also has more float columns to gather).
        self.steer = _F_WX if self.terrain else _F_TX
        self.goal = _F_EX if self.terrain else _F_TX
        self._nf = len(FLOAT_FIELDS) if self.terrain else N_FLAT_FLOAT

    def move(self, loop: int, has_t: np.ndarray, in_range: np.ndarray, follow: np.ndarray | None, tsafe: np.ndarray,
             xy2: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Move this loop's walkers: units with a point goal and no target walk their straight
        segment (finishing orders on arrival), units with a target out of range chase it (to
        weapon range, followers to touching); a walker blocked by a unit that will not make way
        side-steps round it.  ``has_t``, ``in_range``, ``follow``, ``tsafe``, ``xy2``: what
        targeting resolved this loop (``xy2``: the (2, n) position view).

        Returns (whether anything moved, walkers, point-goal movers (mask and rows: empty
        when nobody walks), chasers, mobile units).
        """
        u = self.u
        n = len(u)
        masks = np.empty((4, n), dtype=bool)
        rows = np.empty(n, dtype=np.int64)
        walkers = _walkers if _native is None else _native.walkers
        n_pg, n_ch = walkers(u.kind, POINT_KINDS, has_t, in_range, u.speed, HOLD, u.seg, u.slide, masks, rows)
        point_goal, chase, walking, mobile = masks
        terrain = self.terrain
        if terrain:  # new orders get their paths (attack-movers that chase plan again afterwards)
            self.w.pathing.plan()
        if not (n_pg or n_ch):
            return False, walking, point_goal, _NO_ROWS, chase, mobile
        # headings of every walker as the loop starts: movers to their goals, chasers to their
        # targets; who is blocked is decided for all of them at once (one look at the touching
        # pairs), before anybody moves
        walkers_rows = rows[:n_pg + n_ch]
        pg, m = walkers_rows[:n_pg], walkers_rows[n_pg:]
        hp = np.empty((4, n_pg))  # per mover: the way to the end of its segment (x, y), where it stands
        hxy = hp[:2]
        md = np.empty((2, n_ch))  # per chaser: the way to its target
        tm = np.empty(n_ch, dtype=np.int64)
        stop_t = np.empty(n_ch) if terrain and n_ch else None
        heads = _headings if _native is None else _native.headings
        heads(walkers_rows, n_pg, self.steer, u.F, xy2, tsafe, POINT_KINDS, u.kind, u.wp if terrain else None,
              u.range, u.radius, follow, hp, md, tm, stop_t)
        cap: np.ndarray | None = None
        dist: np.ndarray | None = None
        if terrain:
            self.w.pathing.skip_ahead(pg, hxy)
            if stop_t is not None:  # a chaser whose straight way is blocked heads down a path instead
                md, cap, dist = self.w.pathing.chase(loop, m, tm, md, stop_t)
        if n_pg and n_ch:
            blocked_all = self._blocked_ahead(loop, walkers_rows, np.concatenate((hxy, md), axis=1), walking, n_pg)
            blocked, blocked_ch = blocked_all[:n_pg], blocked_all[n_pg:]
        elif n_ch:
            blocked_ch = self._blocked_ahead(loop, m, md, walking, 0)
        else:
            blocked = self._blocked_ahead(loop, pg, hxy, walking, n_pg)
        moved = False
        if n_pg:
            moved = self.move_to_points(pg, loop, loop - 1, clamp=False)
            if _count(blocked):  # side-step round the blocker instead of walking into it
                hb = np.hypot(hxy[0][blocked], hxy[1][blocked])
                side = _sidestep if _native is None else _native.sidestep
                side(pg, blocked, hp, hb, u.speed, u.slide, u.seg, xy2)
        if n_ch:
            hd = np.empty((2, n_ch))  # the chasers' headings, round their blockers
            go = np.empty(n_ch, dtype=bool)
            step = _chase_step if _native is None else _native.chase_step
            n_go = step(m, tm, md, dist, cap, u.range, u.radius, self.w.unit_set_facts()[0], follow, u.speed, u.slide,
                        blocked_ch, xy2, hd, go)
            if n_go:
                moved = True
                if _native is not None:
                    _native.set_facing(m, go, np.arctan2(hd[1], hd[0]), _TWO_PI, u.facing)
                else:
                    heading = np.arctan2(hd[1], hd[0]) % _TWO_PI
                    u.facing[m] = heading if n_go == n_ch else np.where(go, heading, u.facing[m])
        if moved or n_pg:  # (movers and chasers at once: neither step reads the other's positions)
            self.clamp()
        return moved, walking, point_goal, pg, chase, mobile

    def move_to_points(self, m: np.ndarray, loop: int, start: int, clamp: bool = True) -> bool:
        """Place point-goal movers ``m`` where their straight segment puts them at ``loop``
        (a segment not yet started starts at loop ``start``, where the mover stands);
        finish the orders of those that arrive.  Returns whether anything moved.

        Position = origin + (target - origin) * min(k * speed / length, 1) with k the loops since
        the segment started: the same whether loops are stepped one by one or skipped.  With
        ``clamp`` false the caller clamps the positions to the playable area itself.
        """
        u = self.u
        k = len(m)
        dd = np.empty((3, k))  # per mover: the segment's x and y, how far past its end it went
        flags = np.empty((2, k), dtype=bool)  # per mover: the segment has a length, it arrived
        f = u.F[:self._nf]
        if _native is not None:
            moved = bool(_native.move_to_points(m, loop, start, u.seg, f, _F_X, _F_OX, self.steer, u.speed, dd, flags))
            _native.set_facing(m, flags[0], np.arctan2(dd[1], dd[0]), _TWO_PI, u.facing)
        else:
            moved = _move_to_points(m, loop, start, u.seg, f, _F_X, _F_OX, self.steer, u.speed, dd, flags)
            u.facing[m] = np.where(flags[0], np.arctan2(dd[1], dd[0]) % _TWO_PI, u.facing[m])
        arrived = flags[1]
        if clamp:
            self.clamp()
        if _count(arrived):
            moved = True
            ar = m[arrived]
            if self.terrain:  # a waypoint reached: on to the next one, unless the walk ends here
                ar = self.w.pathing.next_waypoints(ar, dd[2][arrived], loop)
            kind = u.kind
            pat = ar[kind[ar] == PATROL]
            if len(pat):  # patrol: turn around
                o_x, o_y = u.px[pat].copy(), u.py[pat].copy()
                u.px[pat], u.py[pat] = u.tx[pat], u.ty[pat]
                u.tx[pat], u.ty[pat] = o_x, o_y
                u.seg[pat] = -1
                if self.terrain:
                    u.wp[pat] = -1
            u.finish_orders(ar[kind[ar] != PATROL])
        return moved

    def _blocked_ahead(self, loop: int, m: np.ndarray, hxy: np.ndarray, walking: np.ndarray, n_yield: int) -> np.ndarray:
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
        out = np.zeros(len(m), dtype=bool)
        touching = self.w.collision.touching(loop)
        if touching is None:
            return out
        rows2, vec = touching
        if rows2.shape[1] == 0:
            return out
        blocked = _native.blocked_ahead if _native is not None else _blocked_ahead
        blocked(m, hxy, rows2, vec, u.slide, walking, u.kind, u.eng, u.owner, IDLE, n_yield, out)
        return out

    def steering(self, pg: np.ndarray, xy2: np.ndarray) -> np.ndarray:
        """Per row: a mover (of the rows ``pg``) still on its way to its goal, not yet among the
        crowd there (:meth:`_crowd_bound`); allies step aside off its path."""
        u = self.u
        steer = np.zeros(len(u), dtype=bool)
        g = self.goal
        if _native is not None:  # (False: a distance too near its bound for the kernel to tell)
            if _native.crowd_steer(pg, u.F, g, xy2, u.radius, u.owner, self._crowd_sqrt(), steer):
                return steer
            steer = np.zeros(len(u), dtype=bool)
        togo = u.F[g:g + 2].take(pg, axis=1)
        togo -= xy2.take(pg, axis=1)
        far = np.hypot(togo[0], togo[1]) > self._crowd_bound(pg)
        steer[pg[far]] = True
        return steer

    def _crowd_bound(self, rows: np.ndarray) -> np.ndarray:
        """How far from its goal a mover may stop against allies already there: the radius of a
        loose ball of all its owner's ground units (``2 r sqrt(n)``: packing density 1/4)."""
        u = self.u
        return 2.0 * u.radius[rows] * self._crowd_sqrt()[u.owner[rows]]

    def _crowd_sqrt(self) -> np.ndarray:
        """Per owner: the square root of the number of its collidable units (cached per
        collidable set)."""
        c = self.w.collision.collidable()
        if self._crowd_coll is not c:
            self._crowd_coll = c
            self._crowd_sqrt_n = np.sqrt(np.bincount(self.u.owner[c], minlength=NEUTRAL_OWNER + 1))
        return self._crowd_sqrt_n

    def arrive_by_crowding(self, m: np.ndarray) -> None:
        """Movers ``m`` whose goal is taken by idle allies stop on bumping into them.

        A mover finishes its order when it touches an idle ally ahead of it that is nearer its goal
        than itself while within :meth:`_crowd_bound` of the goal: a group sent to one point ends
        as a ball around it instead of pressing into one spot.
        """
        u = self.u
        if len(m) == 0:
            return
        if _native is not None:  # (-1: a distance too near a bound for the kernel to tell)
            a, b, rr = self.w.collision.near_list()
            done = np.empty(len(u), dtype=bool)
            k = _native.crowd_stops(m, a, b, rr, CONTACT_SLOP, u.F, _F_X, self.goal, u.kind, u.eng, u.owner, IDLE,
                                    u.radius, self._crowd_sqrt(), done)
            if k >= 0:
                if k:
                    u.finish_orders(done.nonzero()[0])
                return
        so = self.w.collision.touching_now()  # (source, other) rows of the touching pairs, both ways
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
        nf = self._nf
        fs, fo = u.F[:nf].take(src, axis=1), u.F[:nf].take(oth, axis=1)
        g = self.goal
        gx, gy = fs[g], fs[g + 1]
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

    def clamp(self) -> None:
        """Keep unit centres inside the playable area (in place; bounds cached per unit set)."""
        u = self.u
        if self._bounds_version != u.version:
            x0, y0, x1, y1 = self.w.map.playable
            r = u.radius
            # laid out like the flat position view ``u.xy`` (x..., y...): two operations clamp both
            self._bounds = (np.concatenate((x0 + r, y0 + r)), np.concatenate((x1 - r, y1 - r)))
            self._bounds_version = u.version
        lo, hi = self._bounds
        xy = u.xy
        np.maximum(xy, lo, out=xy)
        np.minimum(xy, hi, out=xy)


def _move_to_points(m: np.ndarray, loop: int, start: int, seg_all: np.ndarray, f: np.ndarray, x_row: int,
                    o_row: int, t_row: int, speed: np.ndarray, dd: np.ndarray, flags: np.ndarray) -> bool:
    """The per-mover arithmetic of :meth:`Locomotion.move_to_points`, the Python twin of the
    compiled ``move_to_points`` (:mod:`sc2pool.engine.kernels`): movers ``m`` (distinct rows) not
    yet on a segment (``seg_all`` < 0) start one at loop ``start`` from where they stand; each
    is placed where its straight segment puts it at ``loop``.  ``f``: the float block (written in
    place), with the position in rows ``x_row``, ``x_row + 1``, the segment's start in
    ``o_row``, ``o_row + 1``, its end in ``t_row``, ``t_row + 1``.  Writes per mover ``dd`` (the
    segment's x and y; how far past its end the mover travelled) and ``flags`` (the segment has
    a length; the mover arrived).  Returns whether any mover's position changed."""
    seg = seg_all[m]
    new = seg < 0
    if _count(new):
        mn = m[new]
        f[o_row][mn] = f[x_row][mn]
        f[o_row + 1][mn] = f[x_row + 1][mn]
        seg_all[mn] = start
        seg[new] = start
    fm = f.take(m, axis=1)  # every float column of the movers in one gather
    oxy = fm[o_row:o_row + 2]
    txy = fm[t_row:t_row + 2]
    d = np.subtract(txy, oxy, out=dd[:2])  # x and y as two rows
    sq = d * d
    length = np.sqrt(sq[0] + sq[1])
    travel = (loop - seg) * speed[m]  # (loops since the start, as floats)
    some, arrived = flags
    np.greater_equal(travel, length, out=arrived)
    np.greater(length, 0, out=some)
    np.subtract(travel, length, out=dd[2])
    # (a mover that has not arrived has a length > 0: the arrived ones take their target)
    frac = travel / np.where(some, length, 1.0)
    nxy = d * frac
    nxy += oxy
    nxy = np.where(arrived, txy, nxy)
    moved = bool(_count(nxy != fm[x_row:x_row + 2]))
    f[x_row][m] = nxy[0]
    f[x_row + 1][m] = nxy[1]
    return moved


def _blocked_ahead(m: np.ndarray, hxy: np.ndarray, rows2: np.ndarray, vec: np.ndarray, slide: np.ndarray,
                   walking: np.ndarray, kind: np.ndarray, eng: np.ndarray, owner: np.ndarray, idle_kind: int,
                   n_yield: int, out: np.ndarray) -> None:
    """The per-pair work of :meth:`Locomotion._blocked_ahead`, the Python twin of the compiled
    ``blocked_ahead`` (:mod:`sc2pool.engine.kernels`): sets ``out`` (cleared by the caller) for
    the walkers ``m`` (distinct rows) heading ``hxy`` that a unit that will not make way touches
    within 45 degrees ahead, and gives the newly blocked their ``slide`` (in place).  ``rows2``,
    ``vec``: the touching pairs (:meth:`Collision.touching`); ``slide``, ``walking``, ``kind``,
    ``eng``, ``owner``: per unit row; ``idle_kind``: the order kind of idle units; the first
    ``n_yield`` walkers pass through idle allies."""
    pos = np.empty(len(slide), dtype=np.int64)
    pos.fill(-1)
    pos[m] = np.arange(len(m))
    i = pos.take(rows2[0])
    k = (i >= 0).nonzero()[0]
    if len(k) == 0:
        return
    so = rows2.take(k, axis=1)
    oth = so[1]
    vk = vec.take(k, axis=1)
    vx, vy, hv2 = vk[0], vk[1], vk[2]
    i = i.take(k)
    hi = hxy.take(i, axis=1)
    sq = hi * hi
    h2 = sq[0] + sq[1]
    pr = vk[:2] * hi
    dot = pr[0] + pr[1]
    # per unit first (one pass over the units), then per touching pair
    stays = (slide != 0.0) >= walking  # (on booleans ``a >= b`` is ``a | ~b``)
    firm = stays[oth]
    if n_yield:
        idle = kind == idle_kind
        idle &= eng == 0
        own = owner.take(so)
        yields = idle[oth]
        yields &= own[0] == own[1]
        if n_yield < len(m):
            yields &= i < n_yield
        firm = firm > yields  # (on booleans ``a > b`` is ``a & ~b``)
    # within 45 degrees ahead: cos^2 >= 1/2, and in front
    hv2 *= h2
    ahead = firm & (dot * dot >= hv2) & (dot > 0)
    ahead = ahead.nonzero()[0]
    if len(ahead) == 0:
        return
    i = i[ahead]
    hxi, hyi = hi.take(ahead, axis=1)
    vx, vy = vk[:2].take(ahead, axis=1)
    out[i] = True
    # the blocker's side of the heading; go round the other way (once per chase)
    away = np.where(hxi * vy - hyi * vx >= 0.0, -1.0, 1.0)
    pull = np.bincount(i, away, minlength=len(m))
    fresh = out & (slide[m] == 0.0)
    slide[m[fresh]] = np.where(pull[fresh] >= 0.0, 1.0, -1.0)


def _walkers(kind: np.ndarray, point_kinds: np.ndarray, has_t: np.ndarray, in_range: np.ndarray, speed: np.ndarray,
             hold_kind: int, seg: np.ndarray, slide: np.ndarray, masks: np.ndarray, rows: np.ndarray) -> tuple[int, int]:
    """Who walks this loop, the Python twin of the compiled ``walkers``
    (:mod:`sc2pool.engine.kernels`): writes per unit row ``masks`` (the point-goal movers:
    a point order, no target; the chasers: a target out of range, not holding; the walkers:
    either; the mobile units) and ``rows`` (the movers' rows, then the chasers', each
    ascending); a straight move to a point restarts (``seg`` -1) from wherever it resumes and
    going round a blocker (``slide``) lasts while the walk does.  Returns the numbers of
    movers and chasers."""
    mobile = np.greater(speed, 0, out=masks[3])
    # (on booleans ``a > b`` is ``a & ~b``, in one operation)
    point_goal = np.greater(point_kinds[kind], has_t, out=masks[0])
    point_goal &= mobile
    chase = np.greater(has_t, in_range, out=masks[1])
    chase &= kind != hold_kind
    chase &= mobile
    walking = np.bitwise_or(point_goal, chase, out=masks[2])
    seg[~point_goal] = -1
    slide[~walking] = 0.0
    pg, m = point_goal.nonzero()[0], chase.nonzero()[0]
    n_pg, n_ch = len(pg), len(m)
    rows[:n_pg] = pg
    rows[n_pg:n_pg + n_ch] = m
    return n_pg, n_ch


def _headings(rows: np.ndarray, n_pg: int, steer: int, f: np.ndarray, xy2: np.ndarray, tsafe: np.ndarray,
              point_kinds: np.ndarray, kind: np.ndarray, wp: np.ndarray | None, rng: np.ndarray, radius: np.ndarray,
              follow: np.ndarray | None, hp: np.ndarray, md: np.ndarray, tm: np.ndarray,
              stop_t: np.ndarray | None) -> None:
    """The walkers' headings as the loop starts, the Python twin of the compiled ``headings``
    (:mod:`sc2pool.engine.kernels`): ``rows`` holds the first ``n_pg`` walkers, movers to a
    point, then chasers.  Writes per mover ``hp`` (the way from it to the end of its segment,
    rows ``steer`` and ``steer + 1`` of the float block ``f``, then where it stands), per
    chaser its target ``tm`` (``tsafe``) and ``md`` (the way to it); a chaser with a point order
    (``point_kinds`` of its ``kind``) on a path (``wp`` >= 0, when given) leaves the path.
    ``stop_t``, when given: per chaser the distance at which it stops (weapon range, touching
    for ``follow``ers)."""
    pg, m = rows[:n_pg], rows[n_pg:]
    pxy = xy2.take(pg, axis=1)
    np.subtract(f[steer:steer + 2].take(pg, axis=1), pxy, out=hp[:2])
    hp[2:] = pxy
    tm[:] = tsafe[m]
    np.subtract(xy2.take(tm, axis=1), xy2.take(m, axis=1), out=md)
    if wp is not None:
        back = point_kinds[kind[m]]
        back &= wp[m] >= 0
        wp[m[back]] = -1
    if stop_t is not None:
        r_m, r_tm = radius[m], radius[tm]
        stop = rng[m] + r_m + r_tm - 0.01
        if follow is not None:
            stop = np.where(follow[m], r_m + r_tm, stop)
        stop_t[:] = stop


def _sidestep(pg: np.ndarray, blocked: np.ndarray, hp: np.ndarray, hb: np.ndarray, speed: np.ndarray,
              slide: np.ndarray, seg: np.ndarray, xy2: np.ndarray) -> None:
    """Blocked movers side-step round their blockers, the Python twin of the compiled
    ``sidestep`` (:mod:`sc2pool.engine.kernels`): the movers ``pg`` marked ``blocked`` step
    ``speed`` to their ``slide`` side of their heading (``hp``, with the lengths ``hb`` of the
    blocked ones' headings) from where they stood (``hp``), into ``xy2``; their segments
    restart."""
    b = pg[blocked]
    hx, hy, bx, by = hp[:, blocked]
    step = np.where(hb > 0, speed[b] / np.where(hb > 0, hb, 1.0), 0.0) * slide[b]
    xy2[0][b] = bx - hy * step
    xy2[1][b] = by + hx * step
    seg[b] = -1


def _chase_step(m: np.ndarray, tm: np.ndarray, md: np.ndarray, dist: np.ndarray | None, cap: np.ndarray | None,
                rng: np.ndarray, radius: np.ndarray, r_all: float, follow: np.ndarray | None, speed: np.ndarray,
                slide: np.ndarray, blocked: np.ndarray, xy2: np.ndarray, hd: np.ndarray, go: np.ndarray) -> int:
    """The chasers' step, the Python twin of the compiled ``chase_step``
    (:mod:`sc2pool.engine.kernels`): chasers ``m`` heading ``md`` (of lengths ``dist``, found
    here when None) for their targets ``tm`` step up to ``speed`` (and ``cap``, when given)
    towards where they stop: weapon range (``rng``) plus both radii (``r_all`` twice when every
    unit has that radius, not NaN), touching for ``follow``ers.  The ``blocked`` ones step to
    their ``slide`` side instead.  Writes ``go`` (whether each steps), and when any does, each
    one's heading ``hd`` and position (``xy2``, the non-steppers' unchanged).  Returns how many
    step."""
    mdx, mdy = md[0], md[1]
    if dist is None:
        dist = np.sqrt(mdx * mdx + mdy * mdy)
    # chasers stop once in range, followers once touching
    rr = r_all + r_all if r_all == r_all else radius[m] + radius[tm]
    stop_at = rng[m] + rr - 0.01
    if follow is not None:
        follow_m = follow[m]
        if _count(follow_m):
            stop_at = np.where(follow_m, rr, stop_at)
    stepd = np.minimum(speed[m], np.maximum(dist - stop_at, 0.0))
    if cap is not None:  # (no further than the path's next waypoint)
        stepd = np.minimum(stepd, cap)
    np.greater(stepd, 1e-9, out=go)
    n_go = int(_count(go))
    if n_go:
        scale = stepd / dist if n_go == len(m) else np.where(go, stepd / np.where(go, dist, 1.0), 0.0)
        if _count(blocked):  # blocked chasers side-step round the blocker instead
            turn = md[::-1] * slide[m]  # (-slide * mdy, slide * mdx)
            np.negative(turn[0], out=turn[0])
            md = np.where(blocked, turn, md)
        hd[:] = md
        to = md * scale
        to += xy2.take(m, axis=1)
        xy2[0][m] = to[0]
        xy2[1][m] = to[1]
    return n_go
