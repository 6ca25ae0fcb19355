"""Workers: the economy jobs of workers (harvesting trips, construction), their walks and orders.

A worker on an economy job carries the order kind :data:`~sc2pool.engine.sim.units.ECON`, which
targeting, locomotion, collision and fast-forwarding leave alone: this system places it.  A job
is a chain of events on the economy's clock (:mod:`sc2pool.engine.sim.events`): the harvest
system runs the trips' phases, the construction system the walk to a site and the building.

Rules (real-game facts; sources in ``docs/economy.md``): walking is straight to the edge of the
target, accelerating at 2.5 cells per normal second squared up to the SCV's speed (2.8125 per
normal second) and decelerating alike before it stops (a real SCV measured in the editor, tick by
tick); workers on a job do not collide (a documented simplification).  Commands shift-queued
behind an economy job run when the job ends (a build finished, a trip's cargo dropped off).
"""

from __future__ import annotations

import math
import struct
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.kernels import native as _native
from sc2pool.engine.maps import TERRAIN_Z
from sc2pool.engine.sim.commands import SUCCESS
from sc2pool.engine.sim.encode import varint, wrap
from sc2pool.engine.sim.races import WORKERS, of_type
from sc2pool.engine.sim.units import ECON, IDLE, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

# Job phases.
WALK_RES, WAIT, MINE, PAUSE, WALK_HOME, WALK_SITE, BUILDING = range(7)
BUFF_CARRY_MINERALS, BUFF_CARRY_GAS = 271, 273
"""Buffs a worker carrying cargo shows (the real client's ids)."""
_SCV_SPEED = float(TYPES.speed[TYPES.row(D.SCV)])
_SCV_RADIUS = D.unit_spec(D.SCV).radius
SCV_ACCELERATION = 2.5 / 256.0
"""Cells per loop squared: 2.5 per normal second squared, for speeding up and for slowing down
(sc2math.wordpress.com, "SCV Acceleration": an SCV's position measured every game tick)."""
_ACC_DIST = _SCV_SPEED * _SCV_SPEED / (2.0 * SCV_ACCELERATION)
_WORKER_ARRAY = np.array(sorted(WORKERS))
_IS_WORKER = np.isin(TYPES.unit_id, _WORKER_ARRAY)
"""bool per type row: the type is a worker."""
_WALKING = (WALK_RES, WALK_HOME, WALK_SITE)


def leg_loops(dist: float) -> float:
    """Loops an SCV needs to walk ``dist`` from standing to standing (trapezoidal speed profile;
    triangular when it never reaches full speed)."""
    if dist <= 0.0:
        return 0.0
    if dist >= 2.0 * _ACC_DIST:
        return dist / _SCV_SPEED + _SCV_SPEED / SCV_ACCELERATION
    return 2.0 * math.sqrt(dist / SCV_ACCELERATION)


def leg_travelled(k: float, dist: float) -> float:
    """Distance covered ``k`` loops into a leg of length ``dist`` (see :func:`leg_loops`)."""
    total = leg_loops(dist)
    if k >= total:
        return dist
    if k <= 0.0:
        return 0.0
    a = SCV_ACCELERATION
    if dist >= 2.0 * _ACC_DIST:
        t_acc = _SCV_SPEED / a
        if k < t_acc:
            return 0.5 * a * k * k
        if k < total - t_acc:
            return _ACC_DIST + _SCV_SPEED * (k - t_acc)
    elif k < total / 2.0:
        return 0.5 * a * k * k
    r = total - k
    return dist - 0.5 * a * r * r


_HALF_ACC = 0.5 * SCV_ACCELERATION
_T_ACC = _SCV_SPEED / SCV_ACCELERATION
"""Loops a full-length leg speeds up (and slows down) for."""


_Path = tuple[list[float], list[tuple[float, float]]]
"""A path walk's length up to each point and the points, as Python floats."""


def _on_path(path: _Path, ox: float, oy: float, s: float) -> tuple[float, float]:
    """The point ``s`` along a walk from (ox, oy) along ``path``."""
    cum, pts = path
    i = bisect_left(cum, s)  # (as ``searchsorted``: the first point at or past ``s``)
    if i >= len(cum):
        return pts[-1]
    if i == 0:
        ax, ay, start = ox, oy, 0.0
    else:
        (ax, ay), start = pts[i - 1], cum[i - 1]
    seg = cum[i] - start
    f = (s - start) / seg if seg > 0.0 else 1.0
    bx, by = pts[i]
    return ax + (bx - ax) * f, ay + (by - ay) * f


_Walker = tuple[int, float, float, float, float, float, float, float, float, float, "_Path | None"]
"""What placing a walker reads, fixed when its walk starts: its row, its start (ox, oy),
(tx - ox, ty - oy), its first loop, the walk's length and :func:`leg_loops`, the loops into it
where :func:`leg_travelled` stops speeding up and where it starts slowing down, and a path walk's
:data:`_Path` (None for a straight walk)."""
_ROW = itemgetter(0)
"""A :data:`_Walker`'s row."""


def _walker(r: int, j: Job) -> _Walker:
    """The :data:`_Walker` of the worker of row ``r`` walking ``j``."""
    path: _Path | None = None
    if j.path is not None:
        cum = j.cum
        assert cum is not None
        length = float(cum[-1])
        total = leg_loops(length)
        path = cum.tolist(), [(x, y) for x, y in j.path.tolist()]
    else:
        length, total = j.length, j.total
    if length >= 2.0 * _ACC_DIST:  # (as :func:`leg_travelled`: full speed for a while)
        a_end, c_end = _T_ACC, total - _T_ACC
    else:
        a_end = c_end = total / 2.0
    return r, j.ox, j.oy, j.tx - j.ox, j.ty - j.oy, float(j.t0), length, total, a_end, c_end, path


def _walker_positions(walkers: Iterable[_Walker], loop: int) -> tuple[list[float], list[float]]:
    """The positions of the ``walkers`` at ``loop``, in their order (``native.place_walkers`` is the
    C twin, writing them at their rows)."""
    xs: list[float] = []
    ys: list[float] = []
    now = float(loop)  # (loops are small integers: a float's arithmetic on them is exact)
    half_acc, acc_dist, speed, t_acc = _HALF_ACC, _ACC_DIST, _SCV_SPEED, _T_ACC
    # (the distance walked is :func:`leg_travelled`'s, inline)
    for _, ox, oy, dx, dy, t0, length, total, a_end, c_end, path in walkers:
        k = now - t0
        if k >= total:
            s = length
        elif k <= 0.0:
            s = 0.0
        elif k < a_end:
            s = half_acc * k * k
        elif k < c_end:
            s = acc_dist + speed * (k - t_acc)
        else:
            left = total - k
            s = length - half_acc * left * left
        if path is None:
            f = s / length if length > 0.0 else 1.0
            xs.append(ox + dx * f)
            ys.append(oy + dy * f)
        else:
            px, py = _on_path(path, ox, oy, s)
            xs.append(px)
            ys.append(py)
    return xs, ys


@dataclass
class Job:
    """What a worker is doing for the economy."""

    phase: int
    worker: int
    """The worker's unit type (its race's rules say which abilities its orders show)."""
    resource: int = 0
    """The field or refinery it mines (0 for a construction job)."""
    target: int = 0
    """The unit it walks to or waits at (field, refinery, townhall or structure)."""
    carry: int = 0
    carry_gas: bool = False
    ox: float = 0.0
    oy: float = 0.0
    tx: float = 0.0
    ty: float = 0.0
    t0: int = 0
    t1: int = 0
    seq: int = 0
    build: int = 0
    """Build ability of a construction job."""
    site: tuple[float, float] = (0.0, 0.0)
    then_gather: int = 0
    """After returning cargo, gather here (a gather order given to a carrying worker)."""
    geyser: int = 0
    """The geyser of a refinery construction job."""
    path: np.ndarray | None = None
    """On a ladder map, a walk that cannot go straight: the (k, 2) points after (ox, oy), the
    last one (tx, ty); None for a straight walk."""
    cum: np.ndarray | None = None
    """Length of the walk up to each point of ``path``."""
    length: float = 0.0
    """Length of a straight walk from (ox, oy) to (tx, ty)."""
    total: float = 0.0
    """:func:`leg_loops` of ``length`` (both fixed when the walk starts: placing the walkers every
    loop reads them instead of computing them again)."""
    idle_after: bool = False
    """Return cargo, then stand idle (a return order given to an idle carrying worker)."""
    cache_key: tuple[int, ...] = ()
    cache_src: tuple[int, ...] = ()
    cache_bytes: bytes = b""


def order_bytes(ability: int, pos: tuple[float, float] | None = None, tag: int = 0,
                progress: float | None = None) -> bytes:
    """One ``Unit.orders`` entry (field 22): ability, a point (z on the arena floor) or a unit
    target, and the progress of a production order."""
    body = b"\x08" + varint(ability)
    if pos is not None:
        body += b"\x12\x0f" + struct.pack("<BfBfBf", 0x0D, pos[0], 0x15, pos[1], 0x1D, TERRAIN_Z)
    elif tag:
        body += b"\x18" + varint(tag)
    if progress is not None:
        body += struct.pack("<Bf", 0x25, progress)
    return wrap(22, body)


_CARRY_MINERALS_BYTES = b"\xd8\x01" + varint(BUFF_CARRY_MINERALS)
_CARRY_GAS_BYTES = b"\xd8\x01" + varint(BUFF_CARRY_GAS)


_ORDER_BYTES: dict[tuple[int, ...], bytes] = {}
"""The order bytes of :meth:`Workers.job_bytes` with a unit target, by what they are made of
(ability, target): a worker's job changes phase every few loops, and its order is one of a few
per resource and townhall."""
_ORDER_BYTES_MAX = 4096
"""Entries :data:`_ORDER_BYTES` keeps at most (cleared when full)."""


def carry_buff_bytes(gas: bool) -> bytes:
    """The ``Unit.buff_ids`` entry of a worker carrying minerals or gas."""
    return _CARRY_GAS_BYTES if gas else _CARRY_MINERALS_BYTES


class Workers:
    """Every worker's economy job, keyed by the worker's tag, and the commands queued behind."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.jobs: dict[int, Job] = {}
        self.pending: dict[int, list[tuple[int, tuple[float, float] | None, int]]] = {}
        """Commands queued (shift) behind a worker's economy job: run when the job ends (a build
        finished, a trip's cargo dropped off)."""
        self._walking: dict[int, _Walker] = {}
        """The walking workers, tag -> :data:`_Walker`, as :meth:`place_walkers` last found them."""
        self._walking_rows: np.ndarray | None = None
        """Their rows in :attr:`_walking`'s order (None after a walker came or went)."""
        self._walking_version = -1
        """The unit store's version those rows were read at (rows move only when it changes)."""
        self._touched: set[int] = set()
        """Workers whose job may have changed phase, started, been replaced or ended since
        :meth:`place_walkers` last ran: a phase changes only in the job's own event, a walk or an
        order, and a job starts or ends only with an order or a release (each adds the tag)."""

    def __setstate__(self, state: dict[str, object]) -> None:
        """A loaded or copied world finds its walkers again when next asked."""
        self.__dict__.update(state)
        self._walking, self._walking_version, self._touched = {}, -1, set()
        self._walking_rows = None

    # ------------------------------------------------------------------ orders and walks
    def set_order(self, r: int, tag: int, ability: int) -> None:
        """The worker of row ``r`` is on an economy job whose order shows ``ability``."""
        self._touched.add(tag)
        u = self.w.u
        u.queues.pop(tag, None)
        u.kind[r] = ECON
        u.ability[r] = ability
        u.ttag[r] = 0
        u.eng[r] = 0

    def walk(self, tag: int, job: Job, x0: float, y0: float, tx: float, ty: float, rad: float, loop: int,
             world_event: bool = False, row: int | None = None) -> None:
        """Walk from (x0, y0) to the edge of a circle of radius ``rad`` around (tx, ty); the
        arrival is the job's next event.  On a ladder map a walk the straight line does not
        allow follows a path round what is in the way (:meth:`Pathing.walk`), with the same speed
        profile over the path's length.  ``row``: the worker's row where the caller has it
        (else it is looked up)."""
        dx, dy = tx - x0, ty - y0
        d = math.hypot(dx, dy)
        stop = rad + _SCV_RADIUS
        if d > stop:
            ex, ey = tx - dx / d * stop, ty - dy / d * stop
            dist = d - stop
        else:
            ex, ey, dist = x0, y0, 0.0
        job.path = job.cum = None
        self._touched.add(tag)
        pathing = self.w.pathing
        if pathing.active and dist > 0:
            got = pathing.walk(x0, y0, ex, ey, tx, ty, stop, _SCV_RADIUS)
            if got is not None:
                pts, dist = got
                ex, ey = float(pts[-1, 0]), float(pts[-1, 1])
                seg = pts - np.concatenate(([[x0, y0]], pts[:-1]))  # (each leg: its end less its start)
                job.path, job.cum = pts, np.hypot(seg[:, 0], seg[:, 1]).cumsum()
                dx, dy = float(pts[0, 0]) - x0, float(pts[0, 1]) - y0
                d = math.hypot(dx, dy)
        job.ox, job.oy, job.tx, job.ty = x0, y0, ex, ey
        job.t0 = loop
        job.length = length = math.hypot(ex - x0, ey - y0)
        job.total = leg_loops(length)
        job.t1 = loop + int(math.ceil(leg_loops(dist) - 1e-9))
        job.seq = self.w.events.push(job.t1, tag, world_event)
        r = self.w.u.row(tag) if row is None else row
        if r >= 0 and d > 1e-9:
            self.w.u.facing[r] = math.atan2(dy, dx) % (2 * math.pi)

    def place_walkers(self, loop: int) -> None:
        """Write the walking workers' positions at ``loop`` into the unit store (one write per
        column; a straight walk's length and duration were fixed when it started)."""
        u = self.w.u
        walking = self._walking
        touched = self._touched
        if u.version != self._walking_version:  # units came or went: every row again
            self._walking_version = u.version
            self._walking_rows = None
            jobs = self.jobs
            tags = [tag for tag, j in jobs.items() if j.phase in _WALKING]
            rows = u.rows(np.array(tags, dtype=np.int64)).tolist()
            found: dict[int, _Walker] = {}
            for tag, r in zip(tags, rows, strict=True):
                if r >= 0:
                    w = walking.get(tag)
                    if w is None or tag in touched:
                        found[tag] = _walker(r, jobs[tag])
                    else:  # (an untouched walker's job and walk are the same: only its row moved)
                        found[tag] = w if w[0] == r else (r,) + w[1:]
            walking = self._walking = found
            touched.clear()
        elif touched:
            jobs = self.jobs
            for tag in touched:
                j = jobs.get(tag)
                if j is not None and j.phase in _WALKING and (r := self.w.u.row(tag)) >= 0:
                    if tag not in walking:  # (a walker walking again keeps its place and row)
                        self._walking_rows = None
                    walking[tag] = _walker(r, j)
                elif walking.pop(tag, None) is not None:
                    self._walking_rows = None
            touched.clear()
        if not walking:
            return
        if _native is not None:  # (its row is in each walker: no index array)
            _native.place_walkers(walking.values(), float(loop), u.x, u.y, _HALF_ACC, _ACC_DIST, _SCV_SPEED, _T_ACC)
            return
        idx = self._walking_rows
        if idx is None:  # (an index array: numpy takes a list index by a slower path)
            idx = self._walking_rows = np.fromiter(map(_ROW, walking.values()), np.intp, len(walking))
        xs, ys = _walker_positions(walking.values(), loop)
        u.x[idx] = xs
        u.y[idx] = ys

    # ------------------------------------------------------------------ leaving jobs
    def release(self, tag: int) -> None:
        """Forget the worker's job (the resource it occupied or waited for, the construction it
        was doing); the unit keeps its row."""
        job = self.jobs.pop(tag, None)
        self._touched.add(tag)
        self.w.harvest.leave(tag, job)
        if job is not None and job.phase == BUILDING:
            self.w.construction.builder_left(tag, job)

    def drop(self, tag: int) -> None:
        """Forget everything about a worker that is gone."""
        self.release(tag)
        self.w.harvest.cargo.pop(tag, None)
        self.pending.pop(tag, None)

    def to_idle(self, tag: int) -> None:
        """The worker's job ends: it stands idle (keeping any cargo) or starts the command queued
        behind the job."""
        job = self.jobs.get(tag)
        if job is not None:
            self.release(tag)
            self.w.harvest.keep_cargo(tag, job)
        u = self.w.u
        r = self.w.u.row(tag)
        if r >= 0:
            u.kind[r] = IDLE
            u.ability[r] = 0
        self.w.supply.revision += 1
        if tag in self.pending and r >= 0:
            self.run_pending(tag, int(u.owner[r]))

    def run_pending(self, tag: int, player: int) -> None:
        """Start the next queued command of an idle worker (the first one the game accepts)."""
        queue = self.pending.pop(tag, [])
        while queue:
            ability, pos, target = queue.pop(0)
            if self.w.command(player, ability, [tag], pos, target, False) == SUCCESS:
                break
        if queue:
            self.pending[tag] = queue

    def defer(self, tags: list[int], ability: int, pos: tuple[float, float] | None, target: int) -> None:
        """Queue a command behind the economy jobs of ``tags`` (a shift-queued command)."""
        for t in tags:
            self.pending.setdefault(t, []).append((ability, pos, target))

    def clear_pending(self, tags: list[int]) -> None:
        for t in tags:
            self.pending.pop(t, None)

    def leave_jobs(self, rows: np.ndarray) -> None:
        """The units of ``rows`` got a command that is no economy job: they leave their jobs
        (keeping any cargo) and take it as idle units."""
        u = self.w.u
        for i in rows.tolist():
            tag = int(u.tag[i])
            job = self.jobs.get(tag)
            if job is not None:
                self.release(tag)
                self.w.harvest.keep_cargo(tag, job)
                u.kind[i] = IDLE
                u.ability[i] = 0
                self.w.supply.revision += 1

    def forget(self, alive: set[int]) -> None:
        """Drop the jobs of workers that are gone (killed, debug-removed)."""
        if alive.issuperset(self.jobs):  # (the usual case: a look at each job in C)
            return
        for tag in [t for t in self.jobs if t not in alive]:
            self.drop(tag)

    # ------------------------------------------------------------------ events
    def on_event(self, tag: int, job: Job, t: int) -> None:
        """The job's event at loop ``t``: a walk arrived, a wait or a phase ended."""
        self._touched.add(tag)
        u = self.w.u
        r = self.w.u.row(tag)
        if r < 0:
            self.drop(tag)
            return
        if job.phase in _WALKING:  # arrived: stand exactly at the end point
            u.x[r], u.y[r] = job.tx, job.ty
        if job.phase == WALK_SITE:
            self.w.construction.arrive(r, tag, job, t)
        elif job.phase != BUILDING:
            self.w.harvest.on_trip(r, tag, job, t)

    # ------------------------------------------------------------------ observation
    def idle_workers(self, player: int) -> int:
        u = self.w.u
        workers = _IS_WORKER[u.ti]  # (a per-type table: np.isin sorts on every observation)
        return int(np.count_nonzero((u.owner == player) & workers & (u.kind == IDLE)))

    def job_bytes(self, job: Job) -> bytes:
        """The worker's order (and carry buff) as ``Unit`` field bytes, cached on the job."""
        src = (job.phase, job.target, job.build, job.geyser, job.carry > 0, job.carry_gas, job.worker)
        if job.cache_src == src:  # (everything the key below is made of: the same key)
            return job.cache_bytes
        job.cache_src = src
        if job.phase in (WALK_SITE, BUILDING):
            key: tuple[int, ...] = (job.build, job.geyser)
        elif job.phase in (PAUSE, WALK_HOME):
            key = (of_type(job.worker).return_ability, job.target)
        else:
            key = (of_type(job.worker).gather_ability, job.target)
        key += (job.carry > 0, job.carry_gas)
        if job.cache_key != key:
            if job.phase in (WALK_SITE, BUILDING) and not job.geyser:  # (a construction's point: not shared)
                b = order_bytes(job.build, pos=job.site)
            else:
                got = _ORDER_BYTES.get(key[:2])
                if got is None:
                    if len(_ORDER_BYTES) >= _ORDER_BYTES_MAX:
                        _ORDER_BYTES.clear()
                    got = _ORDER_BYTES[key[:2]] = order_bytes(key[0], tag=key[1])
                b = got
            if job.carry:
                b += carry_buff_bytes(job.carry_gas)
            job.cache_key = key
            job.cache_bytes = b
        return job.cache_bytes

    def extras(self, player: int, out: list[bytes]) -> bool:
        """Append the player's working workers' orders (and carry buffs) to ``out`` (bytes per row
        of the unit store); another player's workers show only what they carry (raw.proto: a
        unit's orders are "not populated for enemies"; its buffs are).  Returns whether any job
        has something to show (a worker gone from the store too)."""
        if not self.jobs:
            return False
        u = self.w.u
        row_of = u.row_index()  # (kept while the set of units stays: cheaper than searching the tags)
        owner_of = u.owner.tolist()
        shown = False
        for tag, job in self.jobs.items():
            r = row_of.get(tag)
            if r is not None and owner_of[r] == player:
                out[r] += self.job_bytes(job)
                shown = True
            elif job.carry:
                if r is not None:
                    out[r] += carry_buff_bytes(job.carry_gas)
                shown = True
        return shown
