"""Collision: ground units keep apart.

Per game loop, after the units moved: candidate pairs of ground units (not flying, not neutral
map objects, not workers on an economy job) come from a sweep along x, kept as a Verlet list
while nobody moved more than half the skin; overlapping pairs are pushed apart along the line
between their centres by damped Jacobi passes, each unit taking a share of the push by its
give-way weight (idle 1, moving 0.25, attacking or on hold 0).  The system also answers who
touches whom (for walkers going round blockers and movers arriving as a ball), the first loop two
units could touch (for fast-forwarding) and where new units fit (free spots).  The rules and the
figures measured on them: ``docs/engine.md``, "Collision".

The loops over pairs (the sweep, the choice of the pairs a loop looks at, the shares, the first
pushes and the passes, the touching pairs) have compiled twins in ``_kernels_collision.c`` that
compute the same bits; the numpy code here is their reference and runs where they were not built
(:mod:`sc2pool.engine.kernels`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.units import ECON, HOLD, POINT_KINDS, TYPES

try:  # the C function behind np.count_nonzero, without its Python dispatch
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

SEPARATION_ITERATIONS = 8
"""Relaxation passes per loop in the first round (see Collision._relax)."""
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
"""Rounds of passes for pairs the first round pushed into overlap (see Collision.separate)."""
_SHADE, _NOVA = 801, 733
"""AdeptPhaseShift (an Adept's shade) and DisruptorPhased (a Purification Nova): they do not
collide (m, ``systems/protoss_abilities.py``)."""
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
_SRC_OTHER = np.array([0, 2, 2, 0])
"""Rows (a, b, b, a) of a pair block (a, a + n, b, b + n): each pair as (source, other) both ways."""
_AB_BA = np.array([0, 1, 1, 0])
"""Rows (a, b, b, a) of an (a, b) pair block: each pair as (source, other) both ways."""


class Collision:
    """Separation of ground units, with its caches: the collidable set, the Verlet pair list, the
    pairs the last separation looked at, the touching pairs of this loop."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.u = world.u
        self._coll_version: tuple[int, bytes] = (-1, b"")
        self._pc_coll: np.ndarray | None = None
        self._coll = np.zeros(0, np.int64)
        self._coll_rmax = 0.0
        self._coll_r_common = np.nan
        """The radius every collidable unit has, or NaN."""
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
        c = self.collidable()
        ox, oy, orr = u.x[c], u.y[c], u.radius[c] + r
        eps = 1e-9
        # fast path: every point is free (the scenarios' formations): nothing moves
        k = len(xs)
        d_old = np.hypot(xs[:, None] - ox[None, :], ys[:, None] - oy[None, :]) < orr[None, :] - eps
        d_new = np.hypot(xs[:, None] - xs[None, :], ys[:, None] - ys[None, :]) < 2 * r - eps
        d_new &= np.tri(k, k, -1, dtype=bool)  # (only against the points placed before)
        pathing = self.w.pathing
        terrain = pathing.active
        if not d_old.any() and not d_new.any() and (not terrain or pathing.free_at(xs, ys).all()):
            return xs, ys
        x0, y0, x1, y1 = self.w.map.playable
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
                    if terrain:  # (on a ladder map only free cells)
                        on = pathing.free_at(cx, cy)
                        cx, cy = cx[on], cy[on]
                else:
                    m = int(np.ceil(2.0 * np.pi * ring))  # candidates about ``step`` apart on the ring
                    ang = np.arange(m) * (2.0 * np.pi / m)
                    cx = xs[i] + ring * step * np.cos(ang)
                    cy = ys[i] + ring * step * np.sin(ang)
                    inside = (cx >= x0 + r) & (cx <= x1 - r) & (cy >= y0 + r) & (cy <= y1 - r)
                    if terrain:
                        inside &= pathing.free_at(cx, cy)
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

    def collidable(self) -> np.ndarray:
        """Rows of units that collide (ground, not neutral; on a ladder map not structures either:
        their footprints block the pathing grid, :mod:`sc2pool.engine.sim.systems.pathing`),
        cached per unit-set version."""
        u = self.u
        # economy hook: workers on an economy job (harvesting, building) pass through units, as
        # harvesting workers do in the real game; the economy places them itself
        if not self.w.has_economy:  # combat only: the set changes with the units alone
            if self._coll_version[0] == u.version and not self._coll_version[1]:
                return self._coll
            econ = np.zeros(len(u), dtype=bool)
            key = (u.version, b"")
        else:
            # (the compiled twin compares the key's mask without making the new key)
            if (_native is not None and self._coll_version[0] == u.version
                    and _native.econ_same(u.kind, ECON, self._coll_version[1])):
                return self._coll
            econ = u.kind == ECON
            key = (u.version, econ.tobytes() if _count(econ) else b"")
        if self._coll_version != key:
            keep = ~TYPES.is_flying[u.ti] & ~u.neutral & ~econ
            if self.w.has_economy:  # (an Adept's shade, a Disruptor's nova pass through units (m))
                keep &= (u.unit_id != _SHADE) & (u.unit_id != _NOVA)
            if self.w.pathing.active:  # structures block their cells on a ladder map instead
                keep &= ~TYPES.structure[u.ti]
            self._coll = np.nonzero(keep)[0]
            rc = u.radius[self._coll]
            self._coll_rmax = float(rc.max()) if len(rc) else 0.0
            self._coll_r_common = self._coll_rmax if len(rc) and float(rc.min()) == self._coll_rmax else np.nan
            self._coll_version = key
        return self._coll

    def active(self) -> bool:
        """Whether at least two units collide (else there is nothing to separate)."""
        return len(self.collidable()) > 1

    def pairs(self, extra: float, c: np.ndarray | None = None) -> np.ndarray:
        """Candidate pairs of collidable units whose edges may be within ``extra``: rows a, b as
        the two rows of one array (``c``: :meth:`collidable` when the caller has it).

        A sweep along x: sort by x, and pair each unit with the following ones whose x lies within
        ``2 * max radius + extra``; then keep those whose y gap fits too.  Linear in the number of
        pairs found, not quadratic in the number of units.
        """
        u = self.u
        if c is None:
            c = self.collidable()
        reach = 2.0 * self._coll_rmax + extra
        if _native is not None:
            return np.frombuffer(_native.sweep_pairs(u.x, u.y, u.radius.take(c), c, reach, self._coll_r_common, extra),
                                 np.int64).reshape(2, -1)
        s = c[u.x[c].argsort(kind="stable")]
        xs = u.x[s]
        k = len(s)
        after = np.arange(1, k + 1)  # (per unit in x order: the units up to it)
        cnt = xs.searchsorted(xs + reach, side="right")
        cnt -= after
        before = cnt.cumsum()
        total = int(before[-1]) if k else 0
        if total == 0:
            return np.zeros((2, 0), np.int64)
        # pair number q of unit i (in x order) is unit i + 1 + q - (pairs of the units before i)
        first = after - before
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
        return s.take(np.concatenate((ii, jj)).reshape(2, -1).take(near, axis=1))

    def near_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs within ``PAIR_SKIN`` of touching, reused across loops (a Verlet list).

        The list stays valid while no collidable unit has moved more than half the skin since it
        was built; deaths only drop pairs (rows are re-found by tag), a spawn rebuilds it.
        """
        u = self.u
        c = self.collidable()
        if self._pc_next_tag == u.next_tag and self._pc_tags is not None and self._pc_coll is c:
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
            # (no coordinate moved by more than half the limit on each axis: within it, exactly)
            if _native is not None:
                if not _native.moved_apart(u.xy, self._pc_ref_idx, self._pc_ref_xy, 0.125 * PAIR_SKIN * PAIR_SKIN,
                                           0.25 * PAIR_SKIN * PAIR_SKIN):
                    return self._pc_a, self._pc_b
            else:
                moved = u.xy.take(self._pc_ref_idx)  # (x..., y...) of the reference units
                moved -= self._pc_ref_xy
                moved *= moved
                if not _count(moved > 0.125 * PAIR_SKIN * PAIR_SKIN) or not _count(
                        moved[:k] + moved[k:] > 0.25 * PAIR_SKIN * PAIR_SKIN):
                    return self._pc_a, self._pc_b
        self._pc_coll = c
        self._pc_ab = self.pairs(PAIR_SKIN, c)
        self._pc_a, self._pc_b = self._pc_ab[0], self._pc_ab[1]
        r = self._coll_r_common
        self._pc_rr_common = r == r
        if self._pc_rr_common:  # one radius: the pairs' summed radii and reach are scalars
            self._pc_rr = r + r
        else:
            rab = u.radius.take(self._pc_ab)
            self._pc_rr = rab[0] + rab[1]
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

    def forget_loop(self) -> None:
        """Something outside the loop moved units: the pairs the last separation looked at no
        longer tell who touches as the next loop starts."""
        self._near_now = (-1, -1, *self._near_now[2:])

    def touching(self, loop: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The pairs of ground units touching as ``loop`` starts (within ``CONTACT_SLOP``), both
        ways round: rows (source, other) and (x, y from the source to the other, half the squared
        length); None when fewer than two units collide.  Computed once per loop (walkers look
        for blockers among them); the last loop's separation already listed the pairs near enough
        to matter."""
        u = self.u
        if len(self.collidable()) < 2:
            return None
        if self._touch_loop != loop or self._touch_version != u.version:
            # touching pairs as the loop starts (shared by this loop's movers and chasers); the
            # last loop's separation already listed the pairs near enough to matter
            self._touch_loop, self._touch_version = loop, u.version
            last, version, idx2, rr = self._near_now
            if last != loop - 1 or version != u.version:
                self.near_pairs()
                idx2, rr = self._pc_idx4.reshape(4, -1), self._pc_rr
            p = idx2.shape[1]
            if _native is not None:
                rows2, vec = np.empty(4 * p, np.int64), np.empty(6 * p)
                q = _native.touching_pairs(u.xy, idx2, rr, CONTACT_SLOP, rows2, vec)
                self._touch = (rows2[:4 * q].reshape(2, -1), vec[:6 * q].reshape(3, -1))
            else:
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
        return self._touch

    def near_list(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | float]:
        """:meth:`near_pairs` (rows a, b) with the pairs' radii summed (one float when every
        collidable unit has the same radius)."""
        a, b = self.near_pairs()
        return a, b, self._pc_rr

    def touching_now(self) -> np.ndarray | None:
        """Rows (source, other) of the pairs of the pair list touching now (within
        ``CONTACT_SLOP``), both ways round; None when the list is empty."""
        u = self.u
        a, b = self.near_pairs()
        if len(a) == 0:
            return None
        p = len(a)
        g = u.xy.take(self._pc_idx4)  # xa, ya, xb, yb
        dd = g[:2 * p] - g[2 * p:]
        d = np.hypot(dd[:p], dd[p:])
        t = (d <= self._pc_rr + CONTACT_SLOP).nonzero()[0]
        so = self._pc_ab.take(t, axis=1).take(_AB_BA, axis=0).reshape(2, -1)  # (source, other) both ways
        return so

    def separate(self, loop: int, walking: np.ndarray, in_range: np.ndarray, mobile: np.ndarray,
                 steer: np.ndarray | None, chasing: np.ndarray) -> bool:
        """Push overlapping ground units apart.  Each unit's give-way weight follows its state:
        ``walking`` units (to a point or a target) move, units with their target ``in_range``
        attack, units on hold or not ``mobile`` are fixed, the others idle.  ``steer``
        marks movers on their way to a point (allies step aside off their path, sideways to their
        heading ``facing``; None: nobody), ``chasing`` the units walking towards a target (they go
        round units that stand their ground).

        Each pass moves both units of every overlapping pair along the line between their centres
        (the first pass so that the pair just touches, later ones by ``RELAXATION`` of what is
        left: :meth:`_relax`), unit ``a`` taking ``w_a / (w_a + w_b)`` of the push.  Pairs that
        the passes pushed into overlap beyond the tolerance join them for ``EXTRA_ROUNDS`` more
        rounds (a crowd pressed from behind).  Idle units only give way more than a moving unit would to allies walking past them (idle
        enemies block, they are not shoved aside).  Units on the same point are split along a
        direction fixed by their rows, so the outcome is deterministic.  Returns whether anything
        moved.
        """
        u = self.u
        wgt = np.empty(len(u))
        if _native is not None:
            _native.give_way(walking, in_range, u.kind, mobile, HOLD, W_IDLE, W_MOVING, W_ATTACKING, W_FIXED, wgt)
        else:
            wgt.fill(W_IDLE)
            wgt[walking] = W_MOVING
            wgt[in_range] = W_ATTACKING
            # (arrivals may have started a queued hold; on booleans ``a >= b`` is ``a | ~b``)
            wgt[(u.kind == HOLD) >= mobile] = W_FIXED
        a, b = self.near_pairs()
        if len(a) == 0:
            return False
        # The passes look at pairs that overlap or nearly touch now (pairs pushed into overlap
        # by the passes join them below).  The next loop's walkers look for blockers among the
        # same pairs (_blocked_ahead).
        act, idx2, dx, dy, d, ov, rr = self._active()
        self._near_now = (loop, u.version, idx2, rr)
        if len(act) == 0 or not _count(ov > SEPARATION_EPS):
            return False
        fa, wa, wb = self._shares(idx2, wgt, steer)
        same = d < 1e-9
        if _count(same):  # units on one point: split them along a direction fixed by their rows
            a, b = idx2[0], idx2[2]
            ang = (a[same] * 0.6180339887 + b[same] * 0.3819660113) * _TWO_PI
            dx[same], dy[same], d[same] = np.cos(ang), np.sin(ang), 1.0
        push = self._first_push(idx2, dx, dy, d, ov, wa, wb, steer, chasing)
        self._relax(idx2, rr, fa, push, SEPARATION_ITERATIONS)
        # A pass can push a unit into a neighbour that was not near it when the loop started (a
        # crowd pressed from behind): every pair of the list that now overlaps beyond the
        # tolerance joins the passes, for a few more of them.
        for _ in range(EXTRA_ROUNDS):
            joined = self._join(act)
            if joined is None:
                break
            act, idx2, rr = joined
            self._relax(idx2, rr, self._shares(idx2, wgt, steer)[0], None, EXTRA_PASSES)
            self._near_now = (loop, u.version, idx2, rr)
        self.w.locomotion.clamp()
        # a straight move restarts from where the push left the unit
        u.seg[idx2[::2]] = -1
        return True

    def _first_push(self, idx2: np.ndarray, dx: np.ndarray, dy: np.ndarray, d: np.ndarray, ov: np.ndarray,
                    wa: np.ndarray, wb: np.ndarray, steer: np.ndarray | None, chasing: np.ndarray) -> np.ndarray:
        """The first pass's pushes (x components, then y) of the pairs ``idx2`` (x and y from b to
        a, distance, overlap; give-way weights as used): each pair's overlap in full, plus the
        sidestep where a mover meets a unit that does not walk (see :meth:`separate`)."""
        u = self.u
        m2 = len(d)
        push = np.empty(2 * m2)  # the pushes of the first pass: x components, then y
        if _native is not None:
            walk = hx = hy = None
            if steer is not None:
                walk = steer | chasing
                mover = np.empty(m2, np.int64)
                if _native.sidestep_movers(idx2, walk, mover):
                    hm = u.facing.take(mover)
                    hx, hy = np.cos(hm), np.sin(hm)
            _native.first_push(dx, dy, d, ov, idx2, wa, wb, walk, steer, hx, hy, W_MOVING, SIDESTEP, push)
            return push
        px, py = push[:m2], push[m2:]
        ovp = np.maximum(ov, 0.0)
        k = ovp / d
        np.multiply(dx, k, out=px)
        np.multiply(dy, k, out=py)
        # (without movers to steer, the sidestep below pushes nobody: skip it)
        if steer is not None:
            ab = idx2[::2]
            a, b = ab[0], ab[1]
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
                # the other's side of the path (+1: left, -1: right), negated when the mover is a
                sign = np.where((hx * oy - hy * ox >= 0.0) ^ ma, 1.0, -1.0)
                w_other = np.where(ma, wb, wa)
                sign *= one & steer[m] & (w_other != W_MOVING)
                sign *= SIDESTEP
                px -= hy * sign * ovp
                py += hx * sign * ovp
        return push

    def _active(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                               np.ndarray | float]:
        """The pairs of the pair list a loop's passes look at: those whose centres are closer than
        their radii and ``ACTIVE_GAP``.  Returns their numbers in the list, their indices
        (a, a + n, b, b + n) into ``u.xy`` as four rows, x and y from b to a, their distance, its
        overlap (radii summed less the distance) and their radii summed."""
        u = self.u
        p = len(self._pc_a)
        rr_all = self._pc_rr
        if _native is not None:
            io = np.empty(5 * p, np.int64)
            fo = np.empty(5 * p)
            m = _native.active_pairs(u.xy, self._pc_idx4, self._pc_reach2, rr_all, io, fo)
            f = fo[:5 * m].reshape(5, m)
            return (io[:m], io[m:5 * m].reshape(4, m), f[0], f[1], f[2], f[3],
                    rr_all if self._pc_rr_common else f[4])
        g = u.xy.take(self._pc_idx4)  # xa, ya, xb, yb
        dd = g[:2 * p] - g[2 * p:]  # dx, dy
        sq = dd * dd
        d2 = sq[:p] + sq[p:]
        act = (d2 < self._pc_reach2).nonzero()[0]
        idx2 = self._pc_idx4.reshape(4, -1).take(act, axis=1)
        dxy = dd.reshape(2, -1).take(act, axis=1)
        rr = rr_all if self._pc_rr_common else rr_all[act]  # type: ignore[index]
        d = np.sqrt(d2[act])
        return act, idx2, dxy[0], dxy[1], d, rr - d, rr

    def _join(self, act: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | float] | None:
        """The pairs of the pair list that now overlap beyond the tolerance join the pairs ``act``
        (numbers in the list): None when none joins, else the pairs now held as :meth:`_active`
        gives them (numbers in the list, index rows, radii summed)."""
        p = len(self._pc_a)
        rr_all = self._pc_rr
        if _native is not None:
            io = np.empty(5 * p, np.int64)
            fo = np.empty(p)
            m = _native.join_overlapping(self.u.xy, self._pc_idx4, self._pc_over2, rr_all, act, io, fo)
            if not m:
                return None
            return io[:m], io[m:5 * m].reshape(4, m), rr_all if self._pc_rr_common else fo[:m]
        g = self.u.xy.take(self._pc_idx4)
        dd = g[:2 * p] - g[2 * p:]
        dd *= dd
        d2 = dd[:p] + dd[p:]
        new = (d2 < self._pc_over2).nonzero()[0]
        if len(new) == 0:
            return None
        held = np.zeros(p, dtype=bool)
        held[act] = True
        if not _count(~held.take(new)):  # (only pairs the passes already hold: nothing to add)
            return None
        held[new] = True
        act = held.nonzero()[0]
        idx2 = self._pc_idx4.reshape(4, -1).take(act, axis=1)
        return act, idx2, rr_all if self._pc_rr_common else rr_all[act]  # type: ignore[index]

    def _shares(self, idx2: np.ndarray, w: np.ndarray,
                steer: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit a's share of each pair's overlap (index rows ``idx2``, rows a and b among them)
        from the give-way weights ``w``, and the two weights as used.

        Idle units yield to allies walking past them; among a crowd arriving at its goal, or
        between enemies, nobody yields more than a moving unit would.
        """
        if _native is not None:
            out = np.empty((3, idx2.shape[1]))
            _native.pair_shares(idx2, w, self.u.owner, steer, W_MOVING, out)
            return out[0], out[1], out[2]
        ab = idx2[::2]
        wab = w.take(ab)
        if steer is not None:
            own = self.u.owner.take(ab)
            firm = own[0] != own[1]
            st = steer.take(ab)
            firm = firm >= (st[0] | st[1])  # (on booleans ``a >= b`` is ``a | ~b``)
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
        if _native is not None:
            return int(_native.relax_pairs(u.xy, idx2, rr, fa, push, iters, SEPARATION_TOL, RELAXATION))
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

    def contact_horizon(self, h: int) -> int:
        """Loops (<= ``h``) before two ground units could touch, moving at full speed; 1 if some
        already overlap or a mover touches another unit."""
        u = self.u
        c = self.collidable()
        if len(c) < 2:
            return h
        moving = POINT_KINDS[u.kind] & (u.speed > 0)
        any_moving = bool(_count(moving[c]))
        if any_moving:
            h = min(h, CONTACT_LOOKAHEAD)
        a, b = self.pairs(2.0 * float(u.speed[c].max()) * h if any_moving else 0.0, c)
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
        st = self.w.locomotion.steer  # (towards the end of the mover's segment)
        ddx = u.F[st][mv] - u.x[mv]
        ddy = u.F[st + 1][mv] - u.y[mv]
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
