"""Targeting: who attacks whom.

Each loop every unit's target is resolved in one pass over the whole store
(:meth:`Targeting.resolve`): an explicit order (attack unit, follow) keeps its target while it
lives; idle, attack-moving and patrolling units acquire the nearest hostile within sight, units
on hold position only within weapon range.  A chased target is kept, except every ``RESCAN``
loops where a nearer hostile may replace it; a unit that found nothing looks again when a hostile
could first have come within reach (its ``scan`` loop).  The nearest-target search builds one
distance matrix per owner against that owner's hostile units (or one masked matrix for a few
rows): see :meth:`Targeting.nearest`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.races import WORKERS
from sc2pool.engine.sim.systems.abilities import SCAN_RADIUS
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    FOLLOW,
    HOLD,
    IDLE,
    N_KINDS,
    NEUTRAL_OWNER,
    PATROL,
    TYPES,
)

try:  # the C function behind np.count_nonzero, without its Python dispatch
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.vision import Eyes, Vision
    from sc2pool.engine.sim.world import World


def _min_range(unit_id: int) -> float:
    from sc2pool.engine.data.units import MIN_RANGE

    return MIN_RANGE.get(unit_id, 0.0)


RESCAN = 8
"""A unit chasing a target looks for a nearer one every RESCAN loops."""
_SUBSET_MIN_UNITS = 64
"""From this many units on, target acquisition builds its distance matrix over the hostile units
only (see Targeting.nearest); below it one masked matrix over all units is cheaper."""
_MIXED_MAX_ROWS = 48
"""Up to this many rows of several owners, target acquisition builds one masked matrix over the
non-neutral units instead of one matrix per owner (fewer calls beat less arithmetic)."""
_MIN_RANGE = np.array([_min_range(int(t)) for t in TYPES.unit_id])
"""Per type row: its weapon's minimum range (0: none; ``data.units.MIN_RANGE``)."""
# Lookup tables by order kind (faster than np.isin on small arrays).
_AUTO_LUT = np.zeros(N_KINDS, dtype=bool)
_AUTO_LUT[[IDLE, ATTACK_MOVE, HOLD, PATROL]] = True
_WORKER_TI = np.isin(TYPES.unit_id, sorted(WORKERS))
"""SCV, Probe, Drone by type index: idle, they do not acquire targets of their own (a builder
Probe left beside an enemy Nexus does not start hitting it, as cannon rushes on the real game show
and python-sc2's CI requires of its cannon_rush: a Tie with the Easy AI for 240 s); ordered to
attack or attack-move they fight like any unit. Answering a hit is not modelled (m)."""
_AUTO_BY_WORKER = np.concatenate((_AUTO_LUT, _AUTO_LUT & (np.arange(N_KINDS) != IDLE)))
""":data:`_AUTO_LUT` for any unit (the first ``N_KINDS``), then for a worker (no IDLE): indexed by
a unit's kind plus its :data:`_WORKER_OFFSET`, one lookup gives both rules."""
_WORKER_OFFSET = np.where(_WORKER_TI, N_KINDS, 0)
"""By type index: where the type's half of :data:`_AUTO_BY_WORKER` starts."""
_EXPLICIT_LUT = np.zeros(N_KINDS, dtype=bool)
_EXPLICIT_LUT[[ATTACK_UNIT, FOLLOW]] = True
_NONE = np.zeros(0, dtype=bool)
"""No units' flags: the class defaults of the cached masks below."""
_NO_ROWS = np.zeros(0, np.int64)
"""No rows: :func:`_aim`'s lookers when no unit needs a target, the players revealed when none is."""
_NO_SCANS = np.zeros((3, 0))
""":meth:`Targeting._scans` when there are none."""


def _aim(xy2: np.ndarray, cur: np.ndarray, has: np.ndarray, radius: np.ndarray, r_all: float,
         rng: np.ndarray, can_attack: np.ndarray, auto_kind: np.ndarray, explicit: np.ndarray | None,
         unheld: np.ndarray | None, eng: np.ndarray, scan: np.ndarray,
         loop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The per-unit pass of :meth:`Targeting.resolve` (``native.aim`` is its C twin).  Per unit
    (``xy2``: the (2, n) positions), ``cur`` the row of its current target or -1 (``has``:
    ``cur >= 0``; rows without one index the last unit, their offsets are never read): the
    offset and the edge-to-edge distance to it (``r_all``: the radius every unit has, or NaN),
    whether it keeps it (in range, or chased and ``unheld``: None on rescan loops), its target
    this loop (an ``explicit`` order's, None when there are none, or a kept automatic one).
    Armed units acquiring targets (``can_attack``, ``auto_kind``) that keep none are engaged with
    nothing (``eng`` zeroed); those whose ``scan`` loop has come or that just dropped a target
    look now.

    Returns (``tgt``, ``dx``, ``dy``, ``d_edge``, the rows that look)."""
    dxy = xy2.take(cur, axis=1)
    dxy -= xy2
    dx, dy = dxy[0], dxy[1]
    sq = dxy * dxy
    d_edge = sq[0] + sq[1]  # dx * dx + dy * dy
    np.sqrt(d_edge, out=d_edge)
    if r_all == r_all:  # one radius for every unit
        d_edge -= r_all
        d_edge -= r_all
    else:
        d_edge -= radius
        d_edge -= radius[cur]
    keep = d_edge <= rng
    if unheld is not None:
        keep |= unheld
    keep &= has
    auto = can_attack & auto_kind
    need_mask = auto > keep  # (automatic, target not kept)
    tgt = np.where((explicit | (auto & keep)) if explicit is not None else auto & keep, cur, -1)
    sc = _NO_ROWS
    if _count(need_mask):
        np.putmask(eng, need_mask, 0)  # (they are engaged with nothing)
        # Units that had no target only look again once a hostile could have come within
        # reach (their scan loop); units that just dropped one look now.
        look = scan <= loop
        look |= has
        look &= need_mask
        sc = look.nonzero()[0]
    return tgt, dx, dy, d_edge, sc


def _engage(sc: np.ndarray, found: np.ndarray, gap: np.ndarray, loop: int, xy2: np.ndarray, radius: np.ndarray,
            speed: np.ndarray, max_speed: float, tag: np.ndarray, eng: np.ndarray, scan: np.ndarray, tgt: np.ndarray,
            tsafe: np.ndarray, dx: np.ndarray, dy: np.ndarray, d_edge: np.ndarray) -> None:
    """What :meth:`Targeting.resolve`'s lookers ``sc`` found (:meth:`Targeting.acquire`: ``found``,
    ``gap``), written in place (``native.engage`` is the C twin): a unit that found a target is
    engaged with it (``eng``, and :func:`_aim`'s arrays); one that found none looks again when a
    hostile could first have come within reach (its ``scan`` loop: every hostile closing in at
    ``max_speed``, the fastest speed on the map)."""
    tgt[sc] = found
    ok = found >= 0
    x, y = xy2[0], xy2[1]
    if _count(ok):
        fr, ft = sc[ok], found[ok]
        eng[fr] = tag[ft]
        tsafe[fr] = ft
        dx[fr] = x[ft] - x[fr]
        dy[fr] = y[ft] - y[fr]
        d_edge[fr] = np.sqrt(dx[fr] * dx[fr] + dy[fr] * dy[fr]) - radius[fr] - radius[ft]
    if _count(ok) < len(ok):
        miss = ~ok
        sm = sc[miss]
        closing = speed[sm] + max_speed
        closes = closing > 0
        wait = np.where(closes, gap[miss] / np.where(closes, closing, 1.0), np.inf)
        np.maximum(wait, 1, out=wait)
        np.minimum(wait, 1 << 30, out=wait)
        scan[sm] = loop + wait.astype(np.int64)


def _unseen_candidates(xy2: np.ndarray, tgt: np.ndarray, dx: np.ndarray, dy: np.ndarray, sight: np.ndarray,
                       ground: np.ndarray, level: np.ndarray, last: np.ndarray) -> np.ndarray:
    """The rows (ascending) whose target (``tgt``, -1 for none) a ground attacker (``ground``)
    sees uphill (a higher level on the cliff-level grid ``level``, whose last column and row are
    ``last``, than its own), or any attacker beyond its ``sight`` (``xy2``: the (2, n) positions;
    ``dx``, ``dy``: from each unit to its target): those :meth:`Targeting._unseen` checks against
    the player's vision (``native.unseen_candidates`` is the C twin)."""
    rc = (tgt >= 0).nonzero()[0]
    if not len(rc):
        return rc
    # the cell levels of the attackers, then of their targets
    t = tgt[rc]
    cell = xy2.take(np.concatenate((rc, t)), axis=1).astype(np.int64)
    np.maximum(cell, 0, out=cell)
    np.minimum(cell, last, out=cell)
    lv = level[cell[1], cell[0]]
    cand = lv[len(rc):] > lv[:len(rc)]
    cand &= ground[rc]
    cand |= (dx * dx + dy * dy > sight * sight)[rc]
    return rc[cand]


def _unseen_of(vision: Vision, rc: np.ndarray, xy2: np.ndarray, tgt: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """The rows of ``rc`` (units with a target, ``tgt``; ``xy2``: the (2, n) positions), in order,
    whose player (``owner``), unless its map is revealed (:attr:`Vision.revealed`), does not see the
    target's cell (:meth:`Vision.sees_from` with the player's :meth:`Vision.eyes`): one vision test
    per player for all its rows, as a point's answer does not depend on the others' and nothing
    moves in between (``native.unseen_of`` is the C twin)."""
    t = tgt[rc]
    owners = owner[rc]
    seen = np.ones(len(rc), dtype=bool)
    players = set(owners.tolist())
    for player in players - vision.revealed:
        if len(players) == 1:  # (the usual case: one player's units chase)
            seen = vision.sees_from(vision.eyes(player), xy2[0][t], xy2[1][t])
            continue
        k = (owners == player).nonzero()[0]
        tk = t[k]
        seen[k] = vision.sees_from(vision.eyes(player), xy2[0][tk], xy2[1][tk])
    return rc[~seen]


class Targeting:
    """Target resolution and the nearest-hostile search, with their caches (per unit-set version:
    which types can hit every type present, the common radius, each owner's hostile columns,
    whether any hostile pair exists)."""

    _kinds_version = -1
    _kinds_of = np.zeros(0, np.int64)
    _kind_masks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] = (_NONE, _NONE, _NONE, None)
    """:meth:`_kinds` for the order kinds ``_kinds_of`` at the unit-set version ``_kinds_version``
    (class defaults, so that a state pickled before these fields existed still loads)."""
    _ground_version = -1
    _ground_rows = _NONE
    """:meth:`_ground` for the unit-set version ``_ground_version`` (class defaults, as above)."""
    _last: np.ndarray | None = None
    """:meth:`_last_cell` (class defaults, as above)."""
    _prev_version = -1
    _prev_tags = np.zeros(0, np.int64)
    _prev_rows = np.zeros(0, np.int64)
    _prev_found = _NONE
    """The tags :meth:`_rows_of` last looked up, at the unit-set version ``_prev_version``, their
    rows and which were found (class defaults, as above)."""
    _nt_version = -1
    _nt_prev = np.zeros((2, 0), np.int64)
    """:meth:`_target_rows`' tags of the last call and their rows, at the unit-set version
    ``_nt_version`` (class defaults, as above; replaced, never written, while they are these)."""
    _scans_of: list[tuple[float, float, int]] = []
    _scan_rows = _NO_SCANS
    """The scans (x, y, owner) :meth:`_scans` last saw, and its answer for them (class defaults, as
    above)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.u = world.u
        self._targeting_version = -1
        self._targeting_by_types: dict[bytes, tuple[np.ndarray, float]] = {}
        self._hits_all = np.zeros(0, dtype=bool)
        self._common_radius = np.nan
        self._every_hits_all = False
        """Whether every unit can hit every targetable type present (cached with _targeting)."""
        self._hc_version = -1
        self._hc: dict[int, np.ndarray] = {}
        self._hostile_version = -1
        self._hostile_pairs = False
        self._minr_version = -1
        self._minr_rows = np.zeros(0, np.int64)

    def resolve(self, loop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray,
                                          np.ndarray, np.ndarray, np.ndarray]:
        """This loop's target of every unit: explicit ones (attack unit, follow; an order whose
        target is gone is done) and automatic ones (kept while in range, replaced on rescan loops,
        acquired by the units that need one and may look now).

        Returns (``tgt``: row of each unit's target or -1, ``tgt >= 0``, ``in_range``: the target
        is within weapon range (never for a follow order), ``follow``: follow orders, None when
        there are no explicit orders, ``tsafe``: the target rows with rows without one pointing
        anywhere, ``xy2``: the (2, n) position view, ``dx``, ``dy``: from each unit to its target).
        """
        u = self.u
        radius = u.radius
        rng = u.range
        explicit, auto_kind, unheld, follow = self._kinds()
        any_explicit = follow is not None  # (none: the explicit-order steps below are no-ops)
        if _native is not None:
            cur = np.empty(len(u), np.int64)
            lost_any = self._target_rows(explicit if any_explicit else None, cur)
            has = _NONE  # (the pass below finds it from cur)
        elif any_explicit:
            cur, has = self._rows_of(np.where(explicit, u.ttag, u.eng))
            lost_any = int(_count(explicit > has))
        else:
            cur, has = self._rows_of(u.eng.copy())
            lost_any = 0
        if lost_any:  # the attacked / followed unit is gone: that order is done
            u.finish_orders((explicit > (cur >= 0)).nonzero()[0])
            explicit, auto_kind, unheld, follow = self._kinds()
            cur = np.where(explicit | (u.eng != 0), cur, -1)
            has = cur >= 0
        # A target in range is kept.  A chased one is kept too, except on rescan loops (every
        # RESCAN loops) where a nearer hostile may replace it; units on hold drop targets that left
        # their range.
        tsafe = cur
        xy2 = u.xy.reshape(2, -1)
        r_all = self.w.unit_set_facts()[0]
        ordered = explicit if any_explicit else None
        held = unheld if loop % RESCAN != 0 else None
        # the rules applied after the pass (minimum range, Liberator zones, cloak, sight)
        min_range, zones, cloak = self._any_min_range(), bool(self.w.modes.zones), self.w.detection.active()
        sight = self.w.map.has_terrain
        cand: np.ndarray | None = None
        if _native is None:
            tgt, dx, dy, d_edge, sc = _aim(xy2, cur, has, radius, r_all, rng, u.can_attack, auto_kind, ordered, held,
                                           u.eng, u.scan, loop)
            if len(sc):
                found, gap = self.acquire(sc)
                _engage(sc, found, gap, loop, xy2, radius, u.speed, u.max_speed, u.tag, u.eng, u.scan, tgt, tsafe,
                        dx, dy, d_edge)
        else:
            n = len(u)
            dde = np.empty((3, n))
            ts = np.empty((2, n), np.int64)
            flags = np.empty((2, n), dtype=bool)
            # (the vision candidates too when no rule comes between: they are of the final targets)
            level = self.w.vision.level_grid() if sight and not (min_range or zones or cloak) else None
            h, w = level.shape if level is not None else (0, 0)
            k = _native.resolve_pass(
                u.xy, cur, radius, r_all, rng, u.can_attack, auto_kind, ordered, held, follow, u.eng, u.scan, loop,
                u.ti, u.owner, u.kind, HOLD, u.sight, u.targetable_rows, self._targeting()[1], TYPES.can_hit,
                u.speed, u.max_speed, u.tag, level, w, h, self._ground() if level is not None else None, dde, ts,
                flags)
            dx, dy, d_edge = dde
            tgt = ts[0]
            has_t, in_range = flags
            if level is not None:
                cand = ts[1][:k]
        if min_range:
            self._outside_min_range(tgt, tsafe, dx, dy, d_edge, explicit)
        if zones:
            self._in_zone(tgt, tsafe, dx, dy, d_edge, explicit)
        if cloak:
            self._undetected(tgt, tsafe, dx, dy, d_edge, explicit)
            follow = self._kinds()[3]  # (orders it finished are no longer followed)
        changed = min_range or zones or cloak
        if sight:
            changed |= self._unseen(tgt, tsafe, dx, dy, d_edge, explicit, cand)
        if _native is None or changed:
            has_t = tgt >= 0
            in_range = d_edge <= rng
            in_range &= has_t if follow is None else has_t > follow  # (never a followed unit)
        return tgt, has_t, in_range, follow, tsafe, xy2, dx, dy

    def _kinds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Per unit, from the kind of its order (and, for workers, their type): (an explicit order:
        attack unit or follow; an order under which it acquires targets (:data:`_AUTO_BY_WORKER`);
        not on hold; a follow order, None when no unit has an explicit order).  Orders change far
        less often than every loop: the arrays are kept while the kinds and the unit set are those
        of the last call, and are not to be changed."""
        u = self.u
        kind = u.kind
        if self._kinds_version != u.version or _count(kind != self._kinds_of):
            self._kinds_version = u.version
            self._kinds_of = kind.copy()
            explicit = _EXPLICIT_LUT[kind]
            self._kind_masks = (explicit, _AUTO_BY_WORKER[kind + _WORKER_OFFSET[u.ti]], kind != HOLD,
                                (kind == FOLLOW) if _count(explicit) else None)
        return self._kind_masks

    def _rows_of(self, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`UnitStore.rows` of ``tags``, a new array; whether each row is >= 0, shared, not
        to be changed), for ``tags`` per unit: the tag of its target, 0 for none (an array the
        caller gives up).  While the unit set is the one of the last call (its version) every tag
        keeps its row, alive or not, so only the entries whose tag changed since that call are
        looked up."""
        u = self.u
        if self._prev_version == u.version:
            changed = tags != self._prev_tags
            if _count(changed):
                ch = changed.nonzero()[0]
                self._prev_rows[ch] = u.rows(tags[ch])
                self._prev_found = self._prev_rows >= 0
        else:
            self._prev_version = u.version
            self._prev_rows = u.rows(tags)
            self._prev_found = self._prev_rows >= 0
        self._prev_tags = tags
        return self._prev_rows.copy(), self._prev_found

    def _target_rows(self, explicit: np.ndarray | None, cur: np.ndarray) -> int:
        """:meth:`_rows_of` by its C twin (``native.target_rows``): into ``cur`` the row of each
        unit's target (the target tag of an ``explicit`` order, None when there are none, else the
        engaged tag), -1 where it is not alive; returns how many explicit orders lost theirs.  The
        tags and rows of the last call are kept while the unit set is that of the last call (its
        version: every tag keeps its row, alive or not; :attr:`UnitStore.tag` changes only with
        it), so only the tags that changed since are looked up."""
        assert _native is not None
        u = self.u
        fresh = self._nt_version != u.version
        if fresh:
            self._nt_version = u.version
            self._nt_prev = np.empty((2, len(u)), np.int64)
        return _native.target_rows(explicit, u.ttag, u.eng, u.tag, self._nt_prev, fresh, cur)

    # ------------------------------------------------------------------ replacing a target
    def _edges_from(self, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Offsets and edge-to-edge distances from row ``r`` to every row."""
        u = self.u
        ddx = u.x - u.x[r]
        ddy = u.y - u.y[r]
        return ddx, ddy, np.sqrt(ddx * ddx + ddy * ddy) - u.radius - u.radius[r]

    def _retarget(self, r: int, allowed: np.ndarray, ddx: np.ndarray, ddy: np.ndarray, d: np.ndarray,
                  tgt: np.ndarray, tsafe: np.ndarray, dx: np.ndarray, dy: np.ndarray, d_edge: np.ndarray) -> None:
        """Row ``r``'s target becomes the nearest hittable hostile among the ``allowed`` rows
        (distances ``d`` from :meth:`_edges_from`), or none: the rule the minimum range,
        Liberator zones and cloak share.  Changes the arrays of :meth:`resolve` in place."""
        u = self.u
        ok = allowed & (u.owner != u.owner[r]) & ~u.no_auto & TYPES.can_hit[u.ti[r], u.ti]
        if _count(ok):
            c = int(np.flatnonzero(ok)[np.argmin(d[ok])])
            tgt[r] = tsafe[r] = c
            u.eng[r] = u.tag[c]
            dx[r], dy[r], d_edge[r] = ddx[c], ddy[c], d[c]
        else:
            tgt[r] = -1
            u.eng[r] = 0

    # ------------------------------------------------------------------ minimum range
    def _any_min_range(self) -> bool:
        """Whether any unit's weapon has a minimum range (cached per unit-set version)."""
        u = self.u
        if self._minr_version != u.version:
            self._minr_version = u.version
            self._minr_rows = np.nonzero(_MIN_RANGE[u.ti] > 0)[0]
        return len(self._minr_rows) > 0

    def _outside_min_range(self, tgt: np.ndarray, tsafe: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                           d_edge: np.ndarray, explicit: np.ndarray) -> None:
        """Units with a minimum range (a sieged tank) cannot hit a target closer than it: an
        ordered target that close is out of range (the unit waits); an acquired one is replaced
        by the nearest hittable hostile between the minimum and the acquisition range, if any.
        Changes the arrays of :meth:`resolve` in place."""
        u = self.u
        rows = self._minr_rows
        minr = _MIN_RANGE[u.ti[rows]]
        close = (tgt[rows] >= 0) & (d_edge[rows] < minr)
        if not _count(close):
            return
        for r, mr in zip(rows[close].tolist(), minr[close].tolist(), strict=True):
            if explicit[r]:
                d_edge[r] = np.inf
                continue
            ddx, ddy, d = self._edges_from(r)
            allowed = (d >= mr) & (d <= self._acquisition_range_of(r))
            self._retarget(r, allowed, ddx, ddy, d, tgt, tsafe, dx, dy, d_edge)

    # ------------------------------------------------------------------ Liberator zones
    def _in_zone(self, tgt: np.ndarray, tsafe: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                 d_edge: np.ndarray, explicit: np.ndarray) -> None:
        """A Liberator in Defender Mode attacks only ground units whose edge is inside its zone
        (``Modes.zones``, LP:Liberator): an ordered target outside it is out of range (it waits);
        an acquired one is replaced by the nearest hostile inside the zone within its range, if
        any.  Changes the arrays of :meth:`resolve` in place."""
        from sc2pool.engine.sim.systems.modes import ZONE_RADIUS

        u = self.u
        zones = self.w.modes.zones
        for tag, (zx, zy) in list(zones.items()):
            r = u.row(tag)
            if r < 0:
                del zones[tag]
                continue
            inside = np.hypot(u.x - zx, u.y - zy) - u.radius <= ZONE_RADIUS
            t = int(tgt[r])
            if t >= 0 and inside[t]:
                continue
            if t >= 0 and explicit[r]:
                d_edge[r] = np.inf
                continue
            ddx, ddy, d = self._edges_from(r)
            self._retarget(r, inside & (d <= u.range[r]), ddx, ddy, d, tgt, tsafe, dx, dy, d_edge)

    # ------------------------------------------------------------------ cloaked targets
    def _undetected(self, tgt: np.ndarray, tsafe: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                    d_edge: np.ndarray, explicit: np.ndarray) -> None:
        """Units cannot attack a cloaked unit their player does not detect
        (``systems/detection.py``): an ordered one is lost (the order is done); an acquired one is
        replaced by the nearest hittable hostile the player may target within acquisition range,
        if any.  Changes the arrays of :meth:`resolve` in place."""
        u = self.u
        det = self.w.detection
        cloaked = det.cloaked_rows()
        has = tgt >= 0
        if not len(cloaked) or not _count(has):
            return
        suspect = np.nonzero(has & np.isin(tgt, cloaked))[0]
        done: list[int] = []
        for r in suspect.tolist():
            hidden = det.hidden(int(u.owner[r]))
            if not hidden[tgt[r]]:
                continue
            if explicit[r]:
                tgt[r] = -1
                d_edge[r] = np.inf
                done.append(r)
                continue
            ddx, ddy, d = self._edges_from(r)
            allowed = ~hidden & (d <= self._acquisition_range_of(r))
            if _MIN_RANGE[u.ti[r]] > 0:
                allowed &= d >= _MIN_RANGE[u.ti[r]]
            self._retarget(r, allowed, ddx, ddy, d, tgt, tsafe, dx, dy, d_edge)
        if done:
            u.finish_orders(np.array(done, dtype=np.int64))

    # ------------------------------------------------------------------ targets out of sight
    def _unseen(self, tgt: np.ndarray, tsafe: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                d_edge: np.ndarray, explicit: np.ndarray, cand: np.ndarray | None = None) -> bool:
        """A unit attacks only what its player sees (LP:High_ground: "units on low ground cannot
        see, and therefore cannot attack, units on high ground without a spotter"): on a ladder
        map, a target on a higher cliff level than a ground attacker, or farther than the
        attacker's own sight, is checked against the player's vision (:meth:`Vision.sees`, the
        rule the observation uses).  An unseen ordered target is out of range (the attacker keeps
        closing in, as it walks to where it last saw it); an unseen acquired one is replaced by
        the nearest hittable hostile the player sees within acquisition range, if any.  Players
        whose map is revealed (:attr:`Vision.revealed`) see everything, and every player sees the
        buildings of an exposed one (:attr:`Vision.exposed`).  Changes the arrays of
        :meth:`resolve` in place; ``cand``: the candidates when ``native.resolve_pass`` found them
        (a new array).  Returns whether it changed any unit's target or distance."""
        u = self.u
        vision = self.w.vision
        level = vision.level_grid()
        if level is None:
            return False
        # the units whose target is uphill of a ground attacker, or beyond the attacker's sight
        xy2 = u.xy.reshape(2, -1)
        ground = self._ground()
        h, w = level.shape
        if cand is not None:
            rows = cand
        elif _native is None:
            rows = _unseen_candidates(xy2, tgt, dx, dy, u.sight, ground, level, self._last_cell(level))
        else:
            rows = np.empty(len(tgt), np.int64)
            rows = rows[:_native.unseen_candidates(xy2, tgt, dx, dy, u.sight, ground, level, w, h, rows)]
        if len(rows):
            if _native is None:
                rows = _unseen_of(vision, rows, xy2, tgt, u.owner)
            else:
                revealed = np.fromiter(vision.revealed, np.int64, len(vision.revealed)) if vision.revealed else _NO_ROWS
                rows = rows[:_native.unseen_of(rows, xy2, tgt, u.sight, u.owner, ground, level, w, h, revealed,
                                               self._scans(), SCAN_RADIUS * SCAN_RADIUS)]
        if len(rows) and vision.exposed:  # the buildings of a player revealed by the melee rule are seen
            t = tgt[rows]
            rows = rows[~(vision.exposed_buildings()[t] & (u.owner[t] != u.owner[rows]))]
        eyes: dict[int, Eyes | None] = {}
        for r in rows.tolist():
            owner = int(u.owner[r])
            if explicit[r]:
                d_edge[r] = np.inf
                continue
            ddx, ddy, d = self._edges_from(r)
            # (only the units it may target on its own are asked about: the others are not allowed)
            near = self._hostile_cols(owner)
            near = near[d[near] <= self._acquisition_range_of(r)]
            allowed = np.zeros(len(d), dtype=bool)
            if len(near):
                if owner not in eyes:  # (the same eyes for all its rows: nothing moves in between)
                    eyes[owner] = vision.eyes(owner)
                allowed[near] = vision.sees_units_from(owner, eyes[owner], near)
            if _MIN_RANGE[u.ti[r]] > 0:
                allowed &= d >= _MIN_RANGE[u.ti[r]]
            self._retarget(r, allowed, ddx, ddy, d, tgt, tsafe, dx, dy, d_edge)
        return len(rows) > 0

    def _scans(self) -> np.ndarray:
        """(3, scans): the x, y and owner of the active scans (:meth:`Abilities.scan_discs` of every
        player), kept while they are those of the last call."""
        scans = self.w.abilities.scans if self.w.has_economy else []
        if not scans:
            return _NO_SCANS
        key = [(s.x, s.y, s.owner) for s in scans]
        if key != self._scans_of:
            self._scans_of = key
            self._scan_rows = np.array(key, dtype=np.float64).T.copy()
        return self._scan_rows

    def _last_cell(self, level: np.ndarray) -> np.ndarray:
        """((last column,), (last row,)) of the cliff-level grid ``level``, made on first use."""
        if self._last is None:
            h, w = level.shape
            self._last = np.array(((w - 1,), (h - 1,)))
        return self._last

    def _ground(self) -> np.ndarray:
        """bool per row: not a flying unit, cached per unit-set version."""
        u = self.u
        if self._ground_version != u.version:
            self._ground_version = u.version
            self._ground_rows = ~TYPES.is_flying[u.ti]
        return self._ground_rows

    def acquisition_range(self, rows: np.ndarray) -> np.ndarray:
        u = self.u
        rng = u.range[rows]
        return np.where(u.kind[rows] == HOLD, rng, np.maximum(u.sight[rows], rng))

    def _acquisition_range_of(self, r: int) -> float:
        """:meth:`acquisition_range` of the one row ``r`` (the same value, without arrays)."""
        u = self.u
        rng = float(u.range[r])
        return rng if u.kind[r] == HOLD else max(float(u.sight[r]), rng)

    def acquire(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest hittable hostile within acquisition range (weapon range on hold, sight
        otherwise) for each of ``rows``: (row or -1, distance beyond the range to the nearest
        hittable hostile, inf if there is none).  Distances are edge to edge."""
        best, dist = self.nearest(rows)
        gap = dist - self.acquisition_range(rows)
        return np.where(gap <= 0, best, -1), gap

    def nearest(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each of ``rows``: the row of the nearest unit it may attack (hostile, targetable,
        hittable by its weapon; edge-to-edge distance) and that distance (inf if none; the row is
        then 0).

        From ``_SUBSET_MIN_UNITS`` units on, the rows of each owner get one matrix of squared
        centre distances to that owner's hostile units only (about half the units in a
        two-player fight, no masking); with fewer units (where the extra bookkeeping costs more
        than the matrix) all rows get one matrix over all units with the others masked out.  When
        every targetable unit has the same radius the nearest centre is the nearest edge, so only
        the minima need a square root.  Candidates are scanned in ascending row order, so ties go
        to the lowest row either way.  The compiled twin (``native.nearest_hostile``) scans the
        targetable units for every row, skipping its own side and what it cannot hit.
        """
        u = self.u
        if len(rows) == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        if _native is not None:
            best = np.empty(len(rows), np.int64)
            dist = np.empty(len(rows))
            _native.nearest_hostile(u.x, u.y, u.radius, u.ti, u.owner, rows, u.targetable_rows,
                                    self._targeting()[1], TYPES.can_hit, best, dist)
            return best, dist
        own_r = u.owner[rows]
        if len(u) >= _SUBSET_MIN_UNITS:
            if not _count(own_r != own_r[0]):
                return self._nearest_of(rows, int(own_r[0]))
            if len(rows) <= _MIXED_MAX_ROWS:
                return self._nearest_mixed(rows, own_r)
            # several owners (acquisition by both sides, the quiet-horizon check): one smaller
            # matrix per owner; each row's candidates and their order are the same as in the
            # masked matrix over all units, so are the results
            best = np.zeros(len(rows), np.int64)
            dist = np.empty(len(rows))
            for owner in np.bincount(own_r).nonzero()[0].tolist():
                sel = (own_r == owner).nonzero()[0]
                best[sel], dist[sel] = self._nearest_of(rows[sel], owner)
            return best, dist
        # few units: one matrix over all units, the others masked out
        x, y, ti = u.x, u.y, u.ti
        dx = x[None, :] - x[rows][:, None]
        dy = y[None, :] - y[rows][:, None]
        d2 = dx * dx
        d2 += dy * dy
        valid = (own_r[:, None] != u.owner[None, :]) & ~u.no_auto[None, :]
        hits_all, common = self._targeting()
        if not hits_all[ti[rows]].all():
            valid &= TYPES.can_hit[ti[rows]][:, ti]
        d2[~valid] = np.inf
        return self._closest(rows, d2, None, common)

    def _nearest_mixed(self, rows: np.ndarray, own_r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`nearest` for a few rows of several owners: one matrix over the non-neutral
        units with each row's own side masked out.  Each row's candidates, their order and their
        distances are those of :meth:`_nearest_of` (which needs a matrix per owner), so are the
        results."""
        u = self.u
        cols = u.targetable_rows  # every non-neutral unit
        x, y, ti = u.x, u.y, u.ti
        dx = np.subtract(x[cols], x[rows][:, None])
        dy = np.subtract(y[cols], y[rows][:, None])
        d2 = dx * dx
        d2 += dy * dy
        hidden = np.equal(u.owner[cols], own_r[:, None])  # (same side: not a candidate)
        hits_all, common = self._targeting()
        if not self._every_hits_all and _count(hits_all[ti[rows]]) < len(rows):
            hidden |= ~TYPES.can_hit[ti[rows]][:, ti[cols]]
        d2[hidden] = np.inf
        best, dist = self._closest(rows, d2, cols, common)
        if _count(dist == np.inf):
            best[dist == np.inf] = 0  # nothing to attack: row 0, as documented
        return best, dist

    def _nearest_of(self, rows: np.ndarray, owner: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`nearest` for rows that all belong to ``owner``."""
        u = self.u
        cols = self._hostile_cols(owner)
        if len(cols) == 0:
            return np.zeros(len(rows), np.int64), np.full(len(rows), np.inf)
        x, y, ti = u.x, u.y, u.ti
        dx = np.subtract(x[cols], x[rows][:, None])  # (rows x cols; cheaper than two new axes)
        dy = np.subtract(y[cols], y[rows][:, None])
        d2 = dx * dx
        d2 += dy * dy
        hits_all, common = self._targeting()
        masked = not self._every_hits_all and _count(hits_all[ti[rows]]) < len(rows)
        if masked:
            d2[~TYPES.can_hit[ti[rows]][:, ti[cols]]] = np.inf
        best, dist = self._closest(rows, d2, cols, common)
        if masked:
            best[dist == np.inf] = 0  # nothing hittable: row 0, as documented
        return best, dist

    def _closest(self, rows: np.ndarray, d2: np.ndarray, cols: np.ndarray | None,
                 common: float) -> tuple[np.ndarray, np.ndarray]:
        """Per row of the squared centre distances ``d2`` (to the units ``cols``, or to every
        unit when None; excluded ones inf): the nearest by edge distance, and that distance."""
        u = self.u
        k = np.arange(len(rows))
        if common == common:  # not NaN: one radius for every candidate
            bi = d2.argmin(axis=1)
            dist = np.sqrt(d2[k, bi]) - common
        else:
            d = np.sqrt(d2)
            d -= (u.radius if cols is None else u.radius[cols])[None, :]
            bi = d.argmin(axis=1)
            dist = d[k, bi]
        dist -= u.radius[rows]
        return (bi if cols is None else cols[bi]), dist

    def _targeting(self) -> tuple[np.ndarray, float]:
        """(per type: "can hit every targetable unit type present", the common radius of all
        targetable units or NaN).  Cached per unit-set version."""
        u = self.u
        if self._targeting_version != u.version:
            # both depend only on which types are present (radius is a type column), which
            # changes far less often than the unit set: keep them per set of types
            present = np.bincount(u.ti[u.targetable_rows], minlength=len(TYPES.unit_id)) > 0
            key = present.tobytes()
            hit = self._targeting_by_types.get(key)
            if hit is None:
                cols = present.nonzero()[0]
                rc = TYPES.radius[cols]
                common = float(rc[0]) if len(rc) and float(rc.min()) == float(rc.max()) else np.nan
                hit = (np.asarray(TYPES.can_hit[:, cols].all(axis=1)), common)
                self._targeting_by_types[key] = hit
            self._hits_all, self._common_radius = hit
            self._every_hits_all = _count(self._hits_all[u.ti]) == len(u)
            self._targeting_version = u.version
        return self._hits_all, self._common_radius

    def _hostile_cols(self, owner: int) -> np.ndarray:
        """Rows of the units an ``owner``'s unit may target on its own (other owner, not a neutral
        type, not the map's destructible rocks: ``TYPES.destructible``), ascending; cached per unit-set
        version."""
        u = self.u
        if self._hc_version != u.version:
            self._hc = {}
            self._hc_version = u.version
        cols = self._hc.get(owner)
        if cols is None:
            cols = np.nonzero((u.owner != owner) & ~u.no_auto)[0]
            self._hc[owner] = cols
        return cols

    def armed_changed(self) -> None:
        """A unit's ``can_attack`` flipped in place, with no new unit set (an Oracle's Pulsar
        Beam): :meth:`has_hostile_pairs` finds its answer anew."""
        self._hostile_version = -1

    def has_hostile_pairs(self) -> bool:
        """Whether some armed unit could ever target another unit (cached per unit-set version
        and until :meth:`armed_changed`)."""
        u = self.u
        if self._hostile_version != u.version:
            att = np.nonzero(u.can_attack & (u.owner != NEUTRAL_OWNER))[0]
            cand = u.targetable_rows
            own = u.owner
            valid = (own[att][:, None] != own[cand][None, :]) & TYPES.can_hit[u.ti[att]][:, u.ti[cand]]
            self._hostile_pairs = bool(_count(valid))
            self._hostile_version = u.version
        return self._hostile_pairs
