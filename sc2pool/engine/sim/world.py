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
from sc2pool.engine.sim.systems.combat import Combat
from sc2pool.engine.sim.systems.targeting import Targeting
from sc2pool.engine.sim.systems.vision import Vision
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    ECON,
    EXPLODE,
    FLOAT_FIELDS,
    FOLLOW,
    HOLD,
    IDLE,
    MOVE,
    N_KINDS,
    NEUTRAL_OWNER,
    NO_DEATHS,
    PATROL,
    TYPES,
    Deaths,
    UnitStore,
)

if TYPE_CHECKING:
    from sc2pool.engine.sim.economy import Economy

_INF = np.inf
SEPARATION_ITERATIONS = 8
"""Relaxation passes per loop in the first round (see World._relax)."""
SEPARATION_EPS = 0.02
"""Overlaps below this are left alone (so a standing fight stays static and skippable)."""
SEPARATION_TOL = 0.07
"""Extra passes in one loop run only while some pair still overlaps by more than this; what is
left is pushed apart on the next loops."""
RELAXATION = 0.85
"""Share of each remaining overlap the passes after the first push apart.  Full pushes overshoot
where a unit is pressed from several sides (each pair is resolved as if the others stood still)
and the crowd oscillates instead of settling; this damping settles a pressed crowd in fewer
passes.  The first pass resolves the overlaps found as the loop starts in full."""
EXTRA_ROUNDS = 2
"""Rounds of passes for pairs the first round pushed into overlap (see World._separate)."""
EXTRA_PASSES = 4
"""Passes per extra round."""
CONTACT_SLOP = 0.05
"""Units this close (edge to edge) count as touching for the arrive-by-crowding rule."""
CONTACT_LOOKAHEAD = 16
"""Quiet stretches with ground units moving are checked for contacts this many loops ahead."""
SIDESTEP = 0.5
"""A standing unit in a mover's way is passed sideways by this share of the overlap (an idle ally
steps aside, a unit that stands its ground is walked round)."""
ACTIVE_GAP = 0.15
"""The relaxation passes of one loop look at pairs whose gap is below this now."""
PAIR_SKIN = 1.0
"""Candidate collision pairs are listed this far beyond touching and reused while units move less
than half of it."""
# Give-way weights by state (share of a pair's overlap a unit takes = own / (own + other)).
W_IDLE, W_MOVING, W_ATTACKING, W_FIXED = 1.0, 0.25, 0.0, 0.0
_TWO_PI = 2.0 * np.pi
# Lookup tables by order kind (faster than np.isin on small arrays).
_POINT_LUT = np.zeros(N_KINDS, dtype=bool)
_POINT_LUT[[MOVE, ATTACK_MOVE, PATROL]] = True
_BUSY_LUT = np.zeros(N_KINDS, dtype=bool)
_BUSY_LUT[[ATTACK_UNIT, FOLLOW, EXPLODE]] = True
_F_X, _F_Y, _F_FACING, _F_TX, _F_TY, _F_OX, _F_OY = (
    FLOAT_FIELDS.index(f) for f in ("x", "y", "facing", "tx", "ty", "ox", "oy"))
_SRC_OTHER = np.array([0, 2, 2, 0])
_AB_BA = np.array([0, 1, 1, 0])
"""Rows (a, b, b, a) of an (a, b) pair block: each pair as (source, other) both ways."""
"""Rows (a, b, b, a) of a pair block (a, a + n, b, b + n): each pair as (source, other) both ways."""


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
        self._coll_version: tuple[int, bytes] = (-1, b"")
        self._pc_coll: np.ndarray | None = None
        self._coll = np.zeros(0, np.int64)
        self._coll_rmax = 0.0
        self._coll_r_common = np.nan
        """The radius every collidable unit has, or NaN."""
        self._crowd_coll: np.ndarray | None = None
        self._crowd_sqrt_n = np.zeros(0)
        self._pc_next_tag = -1
        self._touch_loop = self._touch_version = -1
        self._near_now: tuple[int, int, np.ndarray, np.ndarray | float] = (
            -1, -1, np.zeros((4, 0), np.int64), np.zeros(0))
        """(loop, unit-set version, indices (a, a + n, b, b + n) into ``u.xy`` as four rows, their
        radii summed) of the pairs the last separation looked at."""
        self._touch: tuple[np.ndarray, np.ndarray] = ()  # type: ignore[assignment]
        """The pairs touching as this loop started, both ways round: rows (source, other) and
        (x, y from the source to the other, half the squared length)."""
        self._pc_version = -1
        self._pc_tags: np.ndarray | None = None
        """The tag column when the pair list's rows were last valid (rows are re-found by tag)."""
        self._pc_a = self._pc_b = np.zeros(0, np.int64)
        self._pc_ab = np.zeros((2, 0), np.int64)
        self._pc_ref_rows = np.zeros(0, np.int64)
        self._pc_idx4 = self._pc_ref_idx = np.zeros(0, np.int64)
        self._pc_ref_xy = np.zeros(0)
        self._pc_rr: np.ndarray | float = np.zeros(0)
        """The pairs' radii summed (one float when every collidable unit has the same radius)."""
        self._pc_reach2: np.ndarray | float = np.zeros(0)
        self._pc_over2: np.ndarray | float = np.zeros(0)
        self._pc_rr_common = False
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
            xs, ys = self.free_spots(unit_id, xs, ys)
        tags = self.u.add(unit_id, owner, xs, ys, facing)
        self.touch()
        return tags

    def free_spots(self, unit_id: int, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The points where new units of ``unit_id`` wanted at (``xs``, ``ys``) fit: each point
        itself when no ground unit (nor a new unit placed before it) overlaps a unit there, else the
        nearest free spot, searched on rings ``radius / 2`` apart round the point (first free one
        by distance, then by angle: deterministic), inside the playable area.

        The real game places units created by a map trigger (Galaxy ``UnitCreate`` without
        ``c_unitCreateIgnorePlacement``) at the nearest spot where they fit; the search pattern it
        uses is not known, this one is the engine's.  Flying units and neutral map objects do not
        collide and keep their points.
        """
        ti = TYPES.row(unit_id)
        if TYPES.is_flying[ti] or TYPES.neutral[ti] or len(xs) == 0:
            return xs, ys
        r = float(TYPES.radius[ti])
        u = self.u
        c = self._collidable()
        ox, oy, orr = u.x[c], u.y[c], u.radius[c] + r
        eps = 1e-9
        # fast path: every point is free (the scenarios' formations): nothing moves
        k = len(xs)
        d_old = np.hypot(xs[:, None] - ox[None, :], ys[:, None] - oy[None, :]) < orr[None, :] - eps
        d_new = np.hypot(xs[:, None] - xs[None, :], ys[:, None] - ys[None, :]) < 2 * r - eps
        d_new &= np.tri(k, k, -1, dtype=bool)  # (only against the points placed before)
        if not d_old.any() and not d_new.any():
            return xs, ys
        x0, y0, x1, y1 = self.map.playable
        px, py = list(ox), list(oy)
        pr = list(orr)
        xs, ys = xs.copy(), ys.copy()
        step = r / 2.0
        rings = int(np.ceil(np.hypot(x1 - x0, y1 - y0) / step))
        for i in range(k):
            qx, qy, qr = np.array(px), np.array(py), np.array(pr)
            for ring in range(rings + 1):
                if ring == 0:
                    cx, cy = xs[i:i + 1], ys[i:i + 1]
                else:
                    m = int(np.ceil(2.0 * np.pi * ring))  # candidates about ``step`` apart on the ring
                    ang = np.arange(m) * (2.0 * np.pi / m)
                    cx = xs[i] + ring * step * np.cos(ang)
                    cy = ys[i] + ring * step * np.sin(ang)
                    inside = (cx >= x0 + r) & (cx <= x1 - r) & (cy >= y0 + r) & (cy <= y1 - r)
                    cx, cy = cx[inside], cy[inside]
                if len(cx) == 0:
                    continue
                ok = ~(np.hypot(cx[:, None] - qx[None, :], cy[:, None] - qy[None, :]) < qr[None, :] - eps).any(axis=1)
                if ok.any():
                    j = int(ok.argmax())
                    xs[i], ys[i] = cx[j], cy[j]
                    break
            px.append(float(xs[i]))
            py.append(float(ys[i]))
            pr.append(2 * r)
        return xs, ys

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
        point_goal = _POINT_LUT[kind] & ~has_t & mobile
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
        if len(self._collidable()) > 1:
            w = np.empty(n)
            w.fill(W_IDLE)
            w[walking] = W_MOVING
            w[in_range] = W_ATTACKING
            w[(kind == HOLD) | ~mobile] = W_FIXED  # (arrivals may have started a queued hold)
            steer = None
            if n_pg:
                steer = np.zeros(n, dtype=bool)
                # movers still on their way (not yet among the crowd at their goal) steer too
                togo = u.F[_F_TX:_F_TY + 1].take(pg, axis=1)
                togo -= xy2.take(pg, axis=1)
                far = np.hypot(togo[0], togo[1]) > self._crowd_bound(pg)
                steer[pg[far]] = True
            if self._separate(w, steer, chase):
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
    def _collidable(self) -> np.ndarray:
        """Rows of units that collide (ground, not neutral), cached per unit-set version."""
        u = self.u
        # economy hook: workers on an economy job (harvesting, building) pass through units, as
        # harvesting workers do in the real game; the economy places them itself
        if self.economy is None:  # combat only: the set changes with the units alone
            if self._coll_version[0] == u.version and not self._coll_version[1]:
                return self._coll
            econ = np.zeros(len(u), dtype=bool)
            key = (u.version, b"")
        else:
            econ = u.kind == ECON
            key = (u.version, econ.tobytes() if _count(econ) else b"")
        if self._coll_version != key:
            self._coll = np.nonzero(~TYPES.is_flying[u.ti] & ~u.neutral & ~econ)[0]
            rc = u.radius[self._coll]
            self._coll_rmax = float(rc.max()) if len(rc) else 0.0
            self._coll_r_common = self._coll_rmax if len(rc) and float(rc.min()) == self._coll_rmax else np.nan
            self._coll_version = key
        return self._coll

    def _pairs(self, extra: float) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs (rows a, b) of collidable units whose edges may be within ``extra``.

        A sweep along x: sort by x, and pair each unit with the following ones whose x lies within
        ``2 * max radius + extra``; then keep those whose y gap fits too.  Linear in the number of
        pairs found, not quadratic in the number of units.
        """
        u = self.u
        c = self._collidable()
        s = c[u.x[c].argsort(kind="stable")]
        xs = u.x[s]
        reach = 2.0 * self._coll_rmax + extra
        k = len(s)
        cnt = xs.searchsorted(xs + reach, side="right") - np.arange(1, k + 1)
        total = int(cnt.sum())
        if total == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        # pair number q of unit i (in x order) is unit i + 1 + q - (pairs of the units before i)
        first = np.arange(1, k + 1)
        first -= cnt.cumsum()
        first += cnt
        jj = first.repeat(cnt)
        jj += np.arange(total)
        ii = np.arange(k).repeat(cnt)
        ys = u.y[s]
        gap_y = ys[ii]
        gap_y -= ys[jj]
        np.abs(gap_y, out=gap_y)
        if self._coll_r_common == self._coll_r_common:  # one radius: one bound for every pair
            near = gap_y <= self._coll_r_common + self._coll_r_common + extra
        else:
            rs = u.radius[s]
            near = gap_y <= rs[ii] + rs[jj] + extra
        near = near.nonzero()[0]
        return s[ii.take(near)], s[jj.take(near)]

    def _near_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs within ``PAIR_SKIN`` of touching, reused across loops (a Verlet list).

        The list stays valid while no collidable unit has moved more than half the skin since it
        was built; deaths only drop pairs (rows are re-found by tag), a spawn rebuilds it.
        """
        u = self.u
        if self._pc_next_tag == u.next_tag and self._pc_tags is not None and self._pc_coll is self._collidable():
            if self._pc_version != u.version:
                # re-find the rows by their tags (the tag column as it was when they were valid)
                old = self._pc_tags
                rab = u.rows(old.take(self._pc_ab))
                ok = rab[0] >= 0
                ok &= rab[1] >= 0
                self._pc_ab = rab.compress(ok, axis=1)
                self._pc_a, self._pc_b = self._pc_ab[0], self._pc_ab[1]
                if not self._pc_rr_common:
                    self._pc_rr, self._pc_reach2 = self._pc_rr[ok], self._pc_reach2[ok]  # type: ignore[index]
                    self._pc_over2 = self._pc_over2[ok]  # type: ignore[index]
                rr = u.rows(old.take(self._pc_ref_rows))
                ok = rr >= 0
                self._pc_ref_rows = rr[ok]
                self._pc_ref_xy = self._pc_ref_xy.reshape(2, -1).compress(ok, axis=1).reshape(-1)
                self._pc_tags = u.tag
                self._pc_version = u.version
                self._index_pairs()
            k = len(self._pc_ref_rows)
            if k == 0:
                return self._pc_a, self._pc_b
            moved = u.xy.take(self._pc_ref_idx)  # (x..., y...) of the reference units
            moved -= self._pc_ref_xy
            moved *= moved
            # (no coordinate moved by more than half the limit on each axis: within it, exactly)
            if not _count(moved > 0.125 * PAIR_SKIN * PAIR_SKIN) or not _count(
                    moved[:k] + moved[k:] > 0.25 * PAIR_SKIN * PAIR_SKIN):
                return self._pc_a, self._pc_b
        a, b = self._pairs(PAIR_SKIN)
        c = self._collidable()
        self._pc_coll = c
        self._pc_ab = np.concatenate((a, b)).reshape(2, -1)
        self._pc_a, self._pc_b = self._pc_ab[0], self._pc_ab[1]
        r = self._coll_r_common
        self._pc_rr_common = r == r
        if self._pc_rr_common:  # one radius: the pairs' summed radii and reach are scalars
            self._pc_rr = r + r
        else:
            self._pc_rr = u.radius[a] + u.radius[b]
        reach = self._pc_rr + ACTIVE_GAP  # the separation passes' reach, squared
        self._pc_reach2 = reach * reach
        over = self._pc_rr - SEPARATION_TOL  # closer than this (squared): overlapping beyond the tolerance
        self._pc_over2 = over * over
        self._pc_tags = u.tag
        self._pc_ref_rows = c
        self._pc_next_tag = u.next_tag
        self._pc_version = u.version
        self._index_pairs()
        self._pc_ref_xy = u.xy.take(self._pc_ref_idx)
        return self._pc_a, self._pc_b

    def _index_pairs(self) -> None:
        """Gather indices into the flat position view ``u.xy`` for the pair list (xa, ya, xb, yb)
        and its reference units (x, y); refreshed with the list."""
        n = len(self.u)
        a, b, r = self._pc_a, self._pc_b, self._pc_ref_rows
        self._pc_idx4 = np.concatenate((a, a + n, b, b + n))
        self._pc_ref_idx = np.concatenate((r, r + n))

    def _separate(self, w: np.ndarray, steer: np.ndarray | None, chasing: np.ndarray) -> bool:
        """Push overlapping ground units apart; ``w`` is each unit's give-way weight.  ``steer``
        marks movers on their way to a point (allies step aside off their path, sideways to their
        heading ``facing``; None: nobody), ``chasing`` the units walking towards a target (they go
        round units that stand their ground).

        Each pass moves both units of every overlapping pair along the line between their centres
        (the first pass so that the pair just touches, later ones by ``RELAXATION`` of what is
        left: :meth:`_relax`), unit ``a`` taking ``w[a] / (w[a] + w[b])`` of the push.  Pairs that
        the passes pushed into overlap beyond the tolerance join them for ``EXTRA_ROUNDS`` more
        rounds (a crowd pressed from behind).  Idle units only give way more than a moving unit would to allies walking past them (idle
        enemies block, they are not shoved aside).  Units on the same point are split along a
        direction fixed by their rows, so the outcome is deterministic.  Returns whether anything
        moved.
        """
        u = self.u
        a, b = self._near_pairs()
        if len(a) == 0:
            return False
        p = len(a)
        g = u.xy.take(self._pc_idx4)  # xa, ya, xb, yb
        dd = g[:2 * p] - g[2 * p:]  # dx, dy
        sq = dd * dd
        d2 = sq[:p] + sq[p:]
        dx, dy = dd[:p], dd[p:]
        # The passes look at pairs that overlap or nearly touch now (pairs pushed into overlap
        # by the passes join them below).  The next loop's walkers look for blockers among the
        # same pairs (_blocked_ahead).
        act = (d2 < self._pc_reach2).nonzero()[0]
        idx2 = self._pc_idx4.reshape(4, -1).take(act, axis=1)  # (a, a + n, b, b + n) of these pairs
        a, b = idx2[0], idx2[2]
        dxy = dd.reshape(2, -1).take(act, axis=1)
        dx, dy = dxy[0], dxy[1]
        rr = self._pc_rr if self._pc_rr_common else self._pc_rr[act]  # type: ignore[index]
        self._near_now = (self.loop, u.version, idx2, rr)
        if len(a) == 0:
            return False
        d = np.sqrt(d2[act])
        ov = rr - d
        if not _count(ov > SEPARATION_EPS):
            return False
        ab = idx2[::2]  # rows a, b
        fa, wa, wb = self._shares(ab, w, steer)
        same = d < 1e-9
        if _count(same):  # units on one point: split them along a direction fixed by their rows
            ang = (a[same] * 0.6180339887 + b[same] * 0.3819660113) * _TWO_PI
            dx[same], dy[same], d[same] = np.cos(ang), np.sin(ang), 1.0
        m2 = len(a)
        push = np.empty(2 * m2)  # the pushes of the first pass: x components, then y
        px, py = push[:m2], push[m2:]
        ovp = np.maximum(ov, 0.0)
        k = ovp / d
        np.multiply(dx, k, out=px)
        np.multiply(dy, k, out=py)
        # (without movers to steer, the sidestep below pushes nobody: skip it)
        if steer is not None:
            mab = (steer | chasing).take(ab)
            ma = mab[0]
            one = ma ^ mab[1]
            if _count(one):
                # Where one unit of a pair walks and the other does not: a standing unit in the way of
                # a mover on its way to a point is passed sideways (perpendicular to the mover's
                # heading: an idle ally steps aside, a unit that stands its ground is walked round).
                m = np.where(ma, a, b)
                hm = u.facing[m]
                hx, hy = np.cos(hm), np.sin(hm)
                ox = np.where(ma, -dx, dx)  # from the mover to the other unit
                oy = np.where(ma, -dy, dy)
                side = np.where(hx * oy - hy * ox >= 0.0, 1.0, -1.0)  # the other's side of the path
                w_other = np.where(ma, wb, wa)
                sign = np.where(ma, -1.0, 1.0) * side * (one & steer[m] & (w_other != W_MOVING)) * SIDESTEP
                px -= hy * sign * ovp
                py += hx * sign * ovp
        xy = u.xy
        self._relax(idx2, rr, fa, push, SEPARATION_ITERATIONS)
        # A pass can push a unit into a neighbour that was not near it when the loop started (a
        # crowd pressed from behind): every pair of the list that now overlaps beyond the
        # tolerance joins the passes, for a few more of them.
        for _ in range(EXTRA_ROUNDS):
            g = xy.take(self._pc_idx4)
            p = len(self._pc_a)
            dd = g[:2 * p] - g[2 * p:]
            dd *= dd
            d2 = dd[:p] + dd[p:]
            new = (d2 < self._pc_over2).nonzero()[0]
            if len(new) == 0:
                break
            held = np.zeros(p, dtype=bool)
            held[act] = True
            if not _count(~held.take(new)):  # (only pairs the passes already hold: nothing to add)
                break
            held[new] = True
            act = held.nonzero()[0]
            idx2 = self._pc_idx4.reshape(4, -1).take(act, axis=1)
            rr = self._pc_rr if self._pc_rr_common else self._pc_rr[act]  # type: ignore[index]
            ab = idx2[::2]
            self._relax(idx2, rr, self._shares(ab, w, steer)[0], None, EXTRA_PASSES)
            self._near_now = (self.loop, u.version, idx2, rr)
        self._clamp()
        # a straight move restarts from where the push left the unit
        u.seg[ab] = -1
        return True

    def _shares(self, ab: np.ndarray, w: np.ndarray,
                steer: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit a's share of each pair's overlap (rows ``ab``) from the give-way weights ``w``, and
        the two weights as used.

        Idle units yield to allies walking past them; among a crowd arriving at its goal, or
        between enemies, nobody yields more than a moving unit would.
        """
        wab = w.take(ab)
        if steer is not None:
            own = self.u.owner.take(ab)
            firm = own[0] != own[1]
            st = steer.take(ab)
            firm |= ~(st[0] | st[1])
            wab = np.where(firm, np.minimum(wab, W_MOVING), wab)
        else:  # every pair is firm
            wab = np.minimum(wab, W_MOVING)
        wa, wb = wab[0], wab[1]
        tot = wa + wb
        some = tot > 0
        fa = np.where(some, wa / np.where(some, tot, 1.0), 0.5)
        return fa, wa, wb

    def _relax(self, idx2: np.ndarray, rr: np.ndarray | float, fa: np.ndarray, push: np.ndarray | None,
               iters: int) -> int:
        """Jacobi passes over the pairs ``idx2`` (rows a, a + n, b, b + n into ``u.xy``; radii
        summed ``rr``; a's share ``fa``): each pass pushes every overlapping pair apart along the
        line between the centres by ``RELAXATION`` of its overlap.  ``push``: the first pass's
        pushes in full (x components, then y), or None to compute them.  Stops once no pair
        overlaps beyond ``SEPARATION_TOL`` or after ``iters`` passes; returns the passes made.

        The passes work on x and y together, in preallocated buffers (each numpy call on these
        small arrays costs more than its arithmetic): one gather of (xa, ya, xb, yb) from the flat
        position view, one (dx, dy) block, and weights laid out (pushes on a, pushes on b), whose
        per-coordinate sums bincount adds in pair order, a's before b's.
        """
        u = self.u
        n = len(u)
        m2 = idx2.shape[1]
        idx = idx2.reshape(-1)
        xy = u.xy
        g = np.empty(4 * m2)
        ga, gb = g[:2 * m2], g[2 * m2:]
        dd = np.empty(2 * m2)
        dd2 = dd.reshape(2, m2)
        sq = np.empty(2 * m2)
        sqx, sqy = sq[:m2], sq[m2:]
        d = np.empty(m2)
        ov = np.empty(m2)
        first = push is not None
        if push is None:
            push = np.empty(2 * m2)
        push2 = push.reshape(2, m2)
        share = np.empty((2, 2 * m2))  # a's share for both coordinates, then b's
        share[0, :m2] = fa
        np.subtract(fa, 1.0, out=share[1, :m2])
        share[:, m2:] = share[:, :m2]
        scaled = False
        wts = np.empty(4 * m2)
        wts2 = wts.reshape(2, 2 * m2)
        over = np.empty(m2, dtype=bool)
        it = 0
        while it < iters:
            if it or not first:
                xy.take(idx, out=g)
                np.subtract(ga, gb, out=dd)
                np.multiply(dd, dd, out=sq)
                np.add(sqx, sqy, out=d)
                np.sqrt(d, out=d)
                np.maximum(d, 1e-9, out=d)
                np.subtract(rr, d, out=ov)
                np.greater(ov, SEPARATION_TOL, out=over)
                if not _count(over):
                    break
                np.maximum(ov, 0.0, out=ov)
                ov /= d
                np.multiply(dd2, ov, out=push2)
            if not scaled and (it or not first):  # (the first pass of a round pushes in full)
                share *= RELAXATION
                scaled = True
            np.multiply(push, share, out=wts2)
            xy += np.bincount(idx, wts, minlength=2 * n)
            it += 1
        return it

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
        if len(self._collidable()) < 2:
            return out
        if self._touch_loop != self.loop or self._touch_version != u.version:
            # touching pairs as the loop starts (shared by this loop's movers and chasers); the
            # last loop's separation already listed the pairs near enough to matter
            self._touch_loop, self._touch_version = self.loop, u.version
            last, version, idx2, rr = self._near_now
            if last != self.loop - 1 or version != u.version:
                self._near_pairs()
                idx2, rr = self._pc_idx4.reshape(4, -1), self._pc_rr
            p = idx2.shape[1]
            g = u.xy.take(idx2.reshape(-1))  # xa, ya, xb, yb
            dd = g[:2 * p] - g[2 * p:]  # from b to a
            sq = dd * dd
            s2 = sq[:p] + sq[p:]
            reach = rr + CONTACT_SLOP
            t = (s2 <= reach * reach).nonzero()[0]
            q = len(t)
            # rows (a, b, b, a) of the touching pairs: (source, other) both ways round
            rows2 = idx2.take(t, axis=1).take(_SRC_OTHER, axis=0).reshape(2, -1)
            vec = np.empty((3, 2 * q))  # x, y from source to other; half the squared length
            ba = dd.reshape(2, -1).take(t, axis=1)  # (from b to a)
            np.negative(ba, out=vec[:2, :q])
            vec[:2, q:] = ba
            np.multiply(s2.take(t), 0.5, out=vec[2, :q])
            vec[2, q:] = vec[2, :q]
            self._touch = (rows2, vec)
        rows2, vec = self._touch
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
        c = self._collidable()
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
        a, b = self._near_pairs()
        if len(a) == 0:
            return
        # touching pairs, both directions
        p = len(a)
        g = u.xy.take(self._pc_idx4)  # xa, ya, xb, yb
        dd = g[:2 * p] - g[2 * p:]
        d = np.hypot(dd[:p], dd[p:])
        t = (d <= self._pc_rr + CONTACT_SLOP).nonzero()[0]
        so = self._pc_ab.take(t, axis=1).take(_AB_BA, axis=0).reshape(2, -1)  # (source, other) both ways
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

    def _contact_horizon(self, h: int) -> int:
        """Loops (<= ``h``) before two ground units could touch, moving at full speed; 1 if some
        already overlap or a mover touches another unit."""
        u = self.u
        c = self._collidable()
        if len(c) < 2:
            return h
        moving = _POINT_LUT[u.kind] & (u.speed > 0)
        any_moving = bool(_count(moving[c]))
        if any_moving:
            h = min(h, CONTACT_LOOKAHEAD)
        a, b = self._pairs(2.0 * float(u.speed[c].max()) * h if any_moving else 0.0)
        if len(a) == 0:
            return h
        xy2 = u.xy.reshape(2, -1)
        dxy = xy2.take(a, axis=1)
        dxy -= xy2.take(b, axis=1)
        dx, dy = dxy[0], dxy[1]
        r = self._coll_r_common
        common = r == r
        rr = r + r if common else u.radius[a] + u.radius[b]
        # Only pairs closer than their radii less half the tolerance can overlap by more than it
        # (a margin far above rounding): the exact gap is needed for those alone.
        sq = dxy * dxy
        lim = rr - 0.5 * SEPARATION_EPS
        close = (sq[0] + sq[1] < lim * lim).nonzero()[0]
        if len(close):
            if common:
                gap = np.hypot(dx[close], dy[close]) - r - r
            else:
                gap = np.hypot(dx[close], dy[close]) - u.radius[a[close]] - u.radius[b[close]]
            if _count(gap < -SEPARATION_EPS):
                return 1
        if not any_moving:
            return h
        # Until the horizon no mover reaches its goal, so velocities are constant: a pair's gap
        # shrinks by at most the norm of its relative velocity per loop.  Pairs of two units
        # that do not move keep their gap.
        k = (moving[a] | moving[b]).nonzero()[0]
        if len(k) == 0:
            return h
        a, b = a[k], b[k]
        if common:
            gap = np.hypot(dx[k], dy[k]) - r - r
        else:
            gap = np.hypot(dx[k], dy[k]) - u.radius[a] - u.radius[b]
        v = np.zeros((2, len(u)))
        mv = moving.nonzero()[0]
        ddx = u.tx[mv] - u.x[mv]
        ddy = u.ty[mv] - u.y[mv]
        dist = np.hypot(ddx, ddy)
        sc = np.where(dist > 0, u.speed[mv] / np.where(dist > 0, dist, 1.0), 0.0)
        v[0, mv] = ddx * sc
        v[1, mv] = ddy * sc
        dv = v.take(a, axis=1)
        dv -= v.take(b, axis=1)
        closing = np.hypot(dv[0], dv[1])
        closing += 1e-12  # (> 0 for every pair with a mover)
        g = gap - CONTACT_SLOP
        if _count(g <= 0):
            return 1
        return max(1, min(h, int(float((g / closing).min()))))

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
        self._near_now = (-1, -1, *self._near_now[2:])
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
        moving = _POINT_LUT[kind] & (speed > 0)
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
            h = self._contact_horizon(h)
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
        moving = _POINT_LUT[u.kind] & (u.speed > 0)
        if _count(moving):
            self._segment_start = self.loop - h
            self._move_to_points(moving.nonzero()[0], self.loop)
        return NO_DEATHS
