"""The Terran economy: resources, mining, supply, production queues and construction.

The combat simulation (:mod:`sc2pool.engine.sim.world`) is vectorised over every unit; the economy
concerns a few dozen workers and structures whose state changes at discrete moments (a worker
reaches a mineral field, finishes mining, drops its cargo; a unit finishes training).  So it is
*event driven*: every job keeps the loop of its next event in a heap and :meth:`Economy.advance`
processes the events in loop order, whatever chunks the game steps in.  Between events a walking
worker's position follows its leg's speed profile, written into the unit store when the economy
advances.  Units doing an economy job carry the order kind :data:`ECON`, which the world's movement,
targeting and fast-forwarding leave alone.

Rules (real-game facts; sources in ``docs/economy.md``):

- A trip: walk to the resource, wait while another worker occupies it, occupy it for the mining
  time (minerals 2.786 normal seconds, rounded up to 45 loops; vespene 1.981 s = 32 loops,
  inferred), take 5 minerals (4 vespene), pause 0.5 s (8 loops: the next worker may start during
  the pause), walk to the nearest ready townhall and drop the cargo there, walk back.  One worker per
  field or refinery at a time; a worker that finds its field occupied moves to a free field of the
  same group if there is one, else waits for it.  Fields and geysers deplete; a depleted mineral
  field disappears.  A worker inside a refinery is left out of the observation, as the real
  client does.  Commands shift-queued behind an economy job run when the job ends.
- Walking is straight to the edge of the target, accelerating at 2.5 cells per normal second
  squared up to the SCV's speed (2.8125 per normal second) and decelerating alike before it
  stops (a real SCV measured in the editor, tick by tick); workers do not collide (a documented
  simplification).
- Supply: ``food_cap`` = food provided by the player's finished structures (Command Center 15,
  Supply Depot 8), at most 200; ``food_used`` counts units alive and in production queues.
- Training: cost and supply are paid when the unit is queued, the queue holds 5, only its first
  entry progresses; the trained unit appears at the structure's edge and follows the rally
  (a mineral field makes an SCV mine it).  Cancel-last refunds the last entry.
- Construction: the SCV walks to the site; on arrival placement and cost are checked again and
  paid, the structure appears with build progress 0 and 10% life and grows while its SCV stays;
  a structure left by its SCV pauses until an SCV resumes it (smart on it).  When it completes
  the SCV goes idle, except a refinery's builder, which starts harvesting from it (as in the real
  game).  Placement: the footprint must lie on placeable cells and overlap no structure or
  resource footprint; a townhall must stay 6 from mineral fields and 7 from geysers (the rule
  burnysc2's expansion finder uses; the real game forbids a band around resources).
"""

from __future__ import annotations

import heapq
import math
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import TERRAIN_Z
from sc2pool.engine.sim.encode import varint, wrap
from sc2pool.engine.sim.races import (
    BUILDS,
    CANCEL_LAST,
    CANCEL_LAST_ABILITIES,
    GAS_STRUCTURES,
    GATHER_ABILITIES,
    PRODUCERS,
    RALLY_ABILITIES,
    RETURN_ABILITIES,
    TOWNHALLS,
    TRAINS,
    WORKERS,
    of_type,
)
from sc2pool.engine.sim.systems.placement import FOOTPRINT, snap
from sc2pool.engine.sim.units import ECON, IDLE, MOVE, TYPES, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

# ActionResult values (error_pb2.ActionResult) the economy answers with.
SUCCESS, ERROR = 1, 3
QUEUE_IS_FULL = 7
NOT_ENOUGH_MINERALS, NOT_ENOUGH_VESPENE, NOT_ENOUGH_FOOD = 9, 10, 13
BUILD_TECH_REQUIREMENTS_NOT_MET = 40
CANT_BUILD_ON_THAT = 42
CANT_BUILD_LOCATION_INVALID = 44
CANT_BUILD_TOO_CLOSE_TO_RESOURCES = 47
MUST_BUILD_REFINERY_FIRST = 63
BUILDING_IS_UNDER_CONSTRUCTION = 64
TECH_REQUIREMENTS_NOT_MET = 79
MUST_TARGET_UNIT = 81
MUST_TARGET_RESOURCES = 89
CANT_TARGET_EXHAUSTED_RESOURCES = 200
CANT_TARGET_THAT_UNIT = 36

# Timings in game loops (16 per normal-speed second).
MINERAL_MINE_LOOPS = 45
"""Mineral field occupation: 2.786 normal seconds (Liquipedia, "Resources"), rounded up to a loop."""
GAS_MINE_LOOPS = 32
"""Time inside a refinery: 1.981 normal seconds (inferred from the editor value quoted by players
and from the measured ~114 gas/min of a saturated geyser at normal speed; not confirmed)."""
PAUSE_LOOPS = 8
"""After mining a worker pauses 0.5 normal seconds before it walks back (Liquipedia)."""
MINERALS_PER_TRIP, GAS_PER_TRIP = 5, 4
MINERAL_CONTENTS = {D.MINERALFIELD: 1800, D.MINERALFIELD750: 900}
"""LotV fields: 4 large (1800) and 4 small (900) per base (Liquipedia, "Resources")."""
GEYSER_CONTENTS = 2250
QUEUE_LENGTH = 5
CONSTRUCTION_START_LIFE = 0.1
NEAR_TOWNHALL = 8.0
"""Mineral fields within this distance of a townhall count for its ideal harvesters (2 each)."""

BUFF_CARRY_MINERALS, BUFF_CARRY_GAS = 271, 273
MINERAL_TYPES = {D.MINERALFIELD, D.MINERALFIELD750}
GEYSER_TYPES = {D.VESPENEGEYSER}
_WORKER_ARRAY = np.array(sorted(WORKERS))
_PRODUCER_ARRAY = np.array(sorted(PRODUCERS))

# Worker phases.
WALK_RES, WAIT, MINE, PAUSE, WALK_HOME, WALK_SITE, BUILDING = range(7)
_SCV_SPEED = float(TYPES.speed[TYPES.row(D.SCV)])
_SCV_RADIUS = D.UNIT_BY_ID[D.SCV].radius
SCV_ACCELERATION = 2.5 / 256.0
"""Cells per loop squared: 2.5 per normal second squared, for speeding up and for slowing down
(sc2math.wordpress.com, "SCV Acceleration": an SCV's position measured every game tick)."""
_ACC_DIST = _SCV_SPEED * _SCV_SPEED / (2.0 * SCV_ACCELERATION)


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


@dataclass
class Resource:
    """A mineral field, or a vespene geyser (``refinery`` is the tag of the refinery on it)."""

    tag: int
    unit_id: int
    x: float
    y: float
    contents: int
    occupant: int = 0
    free_at: int = 0
    waiting: list[int] = field(default_factory=list)
    refinery: int = 0

    @property
    def is_mineral(self) -> bool:
        return self.unit_id in MINERAL_TYPES


@dataclass
class Structure:
    tag: int
    unit_id: int
    owner: int
    x: float
    y: float
    build_loops: float
    done: float
    """Loops of construction done (== build_loops when ready)."""
    since: int = -1
    """Loop construction last resumed (-1: paused or finished)."""
    builder: int = 0
    queue: list[int] = field(default_factory=list)
    """Unit types queued (the first is in production)."""
    head_start: int = 0
    rally_pos: tuple[float, float] | None = None
    rally_tag: int = 0
    geyser: int = 0

    def progress(self, loop: int) -> float:
        d = self.done + (loop - self.since if self.since >= 0 else 0)
        return min(1.0, d / self.build_loops) if self.build_loops > 0 else 1.0

    @property
    def ready(self) -> bool:
        return self.done >= self.build_loops


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
    idle_after: bool = False
    """Return cargo, then stand idle (a return order given to an idle carrying worker)."""
    cache_key: tuple[int, ...] = ()
    cache_bytes: bytes = b""


class Economy:
    """Player resources and every economy job in one game.  See the module docstring."""

    def __init__(self, world: World, minerals: int = 50, vespene: int = 0, players: tuple[int, ...] = (1,)) -> None:
        self.w = world
        self.supply = world.supply
        self.supply.open(players, minerals, vespene)
        self.trained: dict[int, dict[int, int]] = {p: {} for p in players}
        """Units finished by production, per player and type (mini-game scores count them)."""
        self.resources: dict[int, Resource] = {}
        self.structures: dict[int, Structure] = {}
        self.jobs: dict[int, Job] = {}
        self._heap: list[tuple[int, int, int, bool]] = []
        self._seq = 0
        self._loop = world.loop
        self._idle_cargo: dict[int, tuple[int, bool]] = {}
        """Cargo of workers that left their job while carrying (they keep it, and the buff)."""
        self._depleted: list[int] = []
        self.inside: set[int] = set()
        """Workers inside a refinery: the real client does not report them while they are."""
        self._pending: dict[int, list[tuple[int, tuple[float, float] | None, int]]] = {}
        """Commands queued (shift) behind a worker's economy job: run when the job ends (a build
        finished, a trip's cargo dropped off)."""
        self._th_key: tuple[object, ...] = ()
        self._th_map: tuple[dict[int, int], dict[int, int]] = ({}, {})
        self._version = -1

    # ------------------------------------------------------------------ set-up helpers
    def add_minerals_field(self, unit_id: int, x: float, y: float, contents: int | None = None) -> int:
        tag = int(self.w.spawn(unit_id, 16, [x], [y])[0])
        self.resources[tag] = Resource(tag, unit_id, x, y, MINERAL_CONTENTS[unit_id] if contents is None else contents)
        return tag

    def add_geyser(self, x: float, y: float, contents: int = GEYSER_CONTENTS) -> int:
        tag = int(self.w.spawn(D.VESPENEGEYSER, 16, [x], [y])[0])
        self.resources[tag] = Resource(tag, D.VESPENEGEYSER, x, y, contents)
        return tag

    def add_structure(self, unit_id: int, owner: int, x: float, y: float, ready: bool = True) -> int:
        tag = int(self.w.spawn(unit_id, owner, [x], [y])[0])
        spec = D.UNIT_BY_ID[unit_id]
        self.structures[tag] = Structure(tag, unit_id, owner, x, y, float(spec.build_time),
                                         float(spec.build_time) if ready else 0.0)
        self.supply.revision += 1
        return tag

    def adopt(self, tags: np.ndarray) -> None:
        """Units created outside the economy (debug create_unit): finished structures produce
        and provide supply, mineral fields and geysers can be mined."""
        u = self.w.u
        for tag, r in zip(tags.tolist(), u.rows(tags).tolist(), strict=True):
            if r < 0:
                continue
            uid = int(u.unit_id[r])
            x, y = float(u.x[r]), float(u.y[r])
            if uid in FOOTPRINT and uid not in MINERAL_TYPES and uid not in GEYSER_TYPES:
                bt = float(D.UNIT_BY_ID[uid].build_time)
                self.structures[tag] = Structure(tag, uid, int(u.owner[r]), x, y, bt, bt)
            elif uid in MINERAL_TYPES:
                self.resources[tag] = Resource(tag, uid, x, y, MINERAL_CONTENTS[uid])
            elif uid in GEYSER_TYPES:
                self.resources[tag] = Resource(tag, uid, x, y, GEYSER_CONTENTS)
        self.supply.revision += 1

    def gather(self, worker_tag: int, resource_tag: int) -> None:
        """Put a worker to work on a resource now (scenario set-up, rallies)."""
        r = self.w.u.row(worker_tag)
        if r >= 0:
            self._start_gather(r, worker_tag, resource_tag, self._loop)

    # ------------------------------------------------------------------ queries
    def idle_workers(self, player: int) -> int:
        u = self.w.u
        workers = np.isin(u.unit_id, _WORKER_ARRAY)
        return int(np.count_nonzero((u.owner == player) & workers & (u.kind == IDLE)))

    def _ready_of(self, player: int, unit_id: int) -> bool:
        return any(s.owner == player and s.unit_id == unit_id and s.ready for s in self.structures.values())

    # ------------------------------------------------------------------ stepping
    def horizon(self) -> int:
        """Loops until the next event that changes the set of units (a unit trained, a structure
        placed, a field depleted): the game must not fast-forward the world past it."""
        best = 1 << 30
        for t, _, _, world_event in self._heap:
            if world_event and t - self._loop < best:
                best = t - self._loop
        return max(1, best)

    def _push(self, loop: int, tag: int, world_event: bool = False) -> int:
        self._seq += 1
        heapq.heappush(self._heap, (loop, self._seq, tag, world_event))
        return self._seq

    def advance(self) -> None:
        """Process every event up to the world's loop, then place walking workers."""
        w = self.w
        to = w.loop
        if w.u.version != self._version:
            self._forget_gone()
        heap = self._heap
        while heap and heap[0][0] <= to:
            t, seq, tag, _ = heapq.heappop(heap)
            job = self.jobs.get(tag)
            if job is not None:
                if job.seq == seq:
                    self._loop = t
                    self._worker_event(tag, job, t)
                continue
            s = self.structures.get(tag)
            if s is not None:
                self._loop = t
                self._structure_event(s, seq, t)
        self._loop = to
        self._place_walkers(to)
        self.construction_life()

    def _forget_gone(self) -> None:
        """Drop jobs, structures and resources whose unit is gone (killed, debug-removed)."""
        u = self.w.u
        self._version = u.version
        alive = set(u.tag.tolist())
        for tag in [t for t in self.jobs if t not in alive]:
            self._drop_job(tag)
        for tag in [t for t in self.structures if t not in alive]:
            s = self.structures.pop(tag)
            if s.builder in self.jobs:  # its construction is gone: the SCV stops
                self._to_idle(s.builder)
            if s.geyser in self.resources:
                self.resources[s.geyser].refinery = 0
            self.supply.revision += 1
        for tag in [t for t in self.resources if t not in alive]:
            del self.resources[tag]

    def _place_walkers(self, loop: int) -> None:
        u = self.w.u
        walking = [(tag, j) for tag, j in self.jobs.items() if j.phase in (WALK_RES, WALK_HOME, WALK_SITE)]
        if not walking:
            return
        rows = u.rows(np.fromiter((t for t, _ in walking), dtype=np.int64, count=len(walking)))
        for (_, j), r in zip(walking, rows.tolist(), strict=True):
            if r < 0:
                continue
            length = math.hypot(j.tx - j.ox, j.ty - j.oy)
            f = 1.0 if length <= 0 else leg_travelled(loop - j.t0, length) / length
            u.x[r] = j.ox + (j.tx - j.ox) * f
            u.y[r] = j.oy + (j.ty - j.oy) * f

    # ------------------------------------------------------------------ worker jobs
    def _set_order(self, r: int, tag: int, ability: int) -> None:
        u = self.w.u
        u.queues.pop(tag, None)
        u.kind[r] = ECON
        u.ability[r] = ability
        u.ttag[r] = 0
        u.eng[r] = 0

    def _walk(self, tag: int, job: Job, x0: float, y0: float, tx: float, ty: float, rad: float, loop: int,
              world_event: bool = False) -> None:
        """Walk from (x0, y0) to the edge of a circle of radius ``rad`` around (tx, ty)."""
        dx, dy = tx - x0, ty - y0
        d = math.hypot(dx, dy)
        stop = rad + _SCV_RADIUS
        if d > stop:
            ex, ey = tx - dx / d * stop, ty - dy / d * stop
            dist = d - stop
        else:
            ex, ey, dist = x0, y0, 0.0
        job.ox, job.oy, job.tx, job.ty = x0, y0, ex, ey
        job.t0 = loop
        job.t1 = loop + int(math.ceil(leg_loops(dist) - 1e-9))
        job.seq = self._push(job.t1, tag, world_event)
        r = self.w.u.row(tag)
        if r >= 0 and d > 1e-9:
            self.w.u.facing[r] = math.atan2(dy, dx) % (2 * math.pi)

    def _pos(self, tag: int) -> tuple[float, float]:
        u = self.w.u
        r = u.row(tag)
        return float(u.x[r]), float(u.y[r])

    def _start_gather(self, r: int, tag: int, res_tag: int, loop: int, carry: int = 0, gas: bool = False) -> None:
        res = self.resources.get(res_tag)
        target = res_tag
        if res is not None and not res.is_mineral:
            target = res.refinery
        self._release(tag)
        job = Job(WALK_RES, int(self.w.u.unit_id[r]), resource=res_tag, target=target, carry=carry, carry_gas=gas)
        self.jobs[tag] = job
        self._set_order(r, tag, of_type(job.worker).gather_ability)
        if carry:
            self._go_home(tag, job, loop, then=res_tag)
            return
        x, y = float(self.w.u.x[r]), float(self.w.u.y[r])
        rad = D.UNIT_BY_ID[res.unit_id].radius if res is not None else 0.0
        self._walk(tag, job, x, y, res.x if res else x, res.y if res else y, rad, loop)

    def _go_home(self, tag: int, job: Job, loop: int, then: int = 0) -> None:
        u = self.w.u
        r = u.row(tag)
        x, y = float(u.x[r]), float(u.y[r])
        th = self._nearest_townhall(int(u.owner[r]), x, y)
        if th is None:  # nowhere to drop the cargo: stand still, keep it
            self._to_idle(tag)
            return
        job.phase = WALK_HOME
        job.target = th.tag
        job.then_gather = then or job.resource
        self._set_order(r, tag, of_type(job.worker).return_ability)
        self._walk(tag, job, x, y, th.x, th.y, D.UNIT_BY_ID[th.unit_id].radius, loop)

    def _nearest_townhall(self, player: int, x: float, y: float) -> Structure | None:
        best, bd = None, math.inf
        for s in self.structures.values():
            if s.owner == player and s.unit_id in TOWNHALLS and s.ready:
                d = (s.x - x) ** 2 + (s.y - y) ** 2
                if d < bd:
                    best, bd = s, d
        return best

    def _to_idle(self, tag: int) -> None:
        job = self.jobs.get(tag)
        if job is not None:
            self._release(tag)
            if job.carry:  # an idle worker keeps its cargo (the buff stays)
                self._idle_cargo[tag] = (job.carry, job.carry_gas)
        u = self.w.u
        r = u.row(tag)
        if r >= 0:
            u.kind[r] = IDLE
            u.ability[r] = 0
        self.supply.revision += 1
        if tag in self._pending and r >= 0:
            self._run_pending(tag, int(u.owner[r]))

    def _run_pending(self, tag: int, player: int) -> None:
        """Start the next queued command of an idle worker (the first one the game accepts)."""
        queue = self._pending.pop(tag, [])
        while queue:
            ability, pos, target = queue.pop(0)
            if self.w.command(player, ability, [tag], pos, target, False) == SUCCESS:
                break
        if queue:
            self._pending[tag] = queue

    def _release(self, tag: int) -> None:
        """Forget the worker's job (occupancy and construction included); the unit keeps its row."""
        job = self.jobs.pop(tag, None)
        self.inside.discard(tag)
        if job is None:
            return
        for res in self.resources.values():
            if res.occupant == tag:
                res.occupant = 0
            if tag in res.waiting:
                res.waiting.remove(tag)
        if job.phase == BUILDING:
            s = self.structures.get(job.target)
            if s is not None and s.builder == tag:
                if s.since >= 0:
                    s.done += self._loop - s.since
                s.since = -1
                s.builder = 0

    def _drop_job(self, tag: int) -> None:
        self._release(tag)
        self._idle_cargo.pop(tag, None)
        self._pending.pop(tag, None)

    def _resource_for(self, res_tag: int) -> Resource | None:
        res = self.resources.get(res_tag)
        if res is None:
            return None
        if not res.is_mineral:
            s = self.structures.get(res.refinery)
            if s is None or not s.ready:
                return None
        return res

    def _worker_event(self, tag: int, job: Job, t: int) -> None:
        u = self.w.u
        r = u.row(tag)
        if r < 0:
            self._drop_job(tag)
            return
        if job.phase in (WALK_RES, WALK_HOME, WALK_SITE):  # arrived: stand exactly at the end point
            u.x[r], u.y[r] = job.tx, job.ty
        if job.phase == WALK_RES or job.phase == WAIT:
            res = self._resource_for(job.resource)
            if res is None:
                res = self._other_field(int(u.owner[r]), job.resource, job.tx, job.ty)
                if res is None:
                    self._to_idle(tag)
                    return
                job.resource = res.tag
                job.target = res.tag
                job.phase = WALK_RES
                self._walk(tag, job, job.tx, job.ty, res.x, res.y, D.UNIT_BY_ID[res.unit_id].radius, t)
                return
            if res.contents <= 0:
                self._to_idle(tag)
                return
            if res.occupant == 0 and res.free_at <= t and (not res.waiting or res.waiting[0] == tag):
                if res.waiting and res.waiting[0] == tag:
                    res.waiting.pop(0)
                res.occupant = tag
                res.free_at = t + (MINERAL_MINE_LOOPS if res.is_mineral else GAS_MINE_LOOPS)
                if not res.is_mineral:
                    self.inside.add(tag)
                job.phase = MINE
                job.seq = self._push(res.free_at, tag)
                return
            if job.phase == WALK_RES and res.is_mineral:
                alt = self._free_field(res, job.tx, job.ty, t)
                if alt is not None:
                    job.resource = job.target = alt.tag
                    self._walk(tag, job, job.tx, job.ty, alt.x, alt.y, D.UNIT_BY_ID[alt.unit_id].radius, t)
                    return
            job.phase = WAIT
            if tag not in res.waiting:
                res.waiting.append(tag)
            job.seq = self._push(max(res.free_at, t + 1), tag)
            return
        if job.phase == MINE:
            res = self.resources.get(job.resource)
            if res is None:
                self._to_idle(tag)
                return
            take = min(MINERALS_PER_TRIP if res.is_mineral else GAS_PER_TRIP, res.contents)
            res.contents -= take
            res.occupant = 0
            self.inside.discard(tag)
            job.carry = take
            job.carry_gas = not res.is_mineral
            if res.waiting:  # the next worker may start during this one's pause
                nxt = res.waiting[0]
                nj = self.jobs.get(nxt)
                if nj is not None:
                    nj.seq = self._push(t, nxt)
            if res.contents <= 0 and res.is_mineral:
                self._deplete(res)
            job.phase = PAUSE
            th = self._nearest_townhall(int(u.owner[r]), job.tx, job.ty)
            job.target = th.tag if th is not None else 0
            job.seq = self._push(t + PAUSE_LOOPS, tag)
            self.supply.revision += 1
            return
        if job.phase == PAUSE:
            self._go_home(tag, job, t)
            return
        if job.phase == WALK_HOME:
            th = self.structures.get(job.target)
            owner = int(u.owner[r])
            if th is None or not th.ready:
                th = self._nearest_townhall(owner, job.tx, job.ty)
                if th is None:
                    self._to_idle(tag)
                    return
                job.target = th.tag
                self._walk(tag, job, job.tx, job.ty, th.x, th.y, D.UNIT_BY_ID[th.unit_id].radius, t)
                return
            self.supply.earn(owner, job.carry, job.carry_gas)
            job.carry = 0
            self.supply.revision += 1
            if job.idle_after or tag in self._pending:
                self._to_idle(tag)
                return
            back = self._resource_for(job.then_gather or job.resource)
            if back is None:
                back = self._other_field(owner, job.then_gather or job.resource, th.x, th.y)
            if back is None:
                self._to_idle(tag)
                return
            job.resource = back.tag
            job.target = back.tag if back.is_mineral else back.refinery
            job.then_gather = 0
            job.phase = WALK_RES
            self._set_order(r, tag, of_type(job.worker).gather_ability)
            self._walk(tag, job, job.tx, job.ty, back.x, back.y, D.UNIT_BY_ID[back.unit_id].radius, t)
            return
        if job.phase == WALK_SITE:
            self._arrive_at_site(r, tag, job, t)
            return

    def _free_field(self, busy: Resource, x: float, y: float, t: int) -> Resource | None:
        """A free mineral field near an occupied one (workers look for another patch)."""
        best, bd = None, math.inf
        for res in self.resources.values():
            if res is busy or not res.is_mineral or res.contents <= 0:
                continue
            if res.occupant or res.free_at > t or res.waiting:
                continue
            if (res.x - busy.x) ** 2 + (res.y - busy.y) ** 2 > 9.0:
                continue
            d = (res.x - x) ** 2 + (res.y - y) ** 2
            if d < bd:
                best, bd = res, d
        return best

    def _other_field(self, player: int, gone: int, x: float, y: float) -> Resource | None:
        """The nearest mineral field within reach of a townhall, when the worked one is gone."""
        best, bd = None, math.inf
        for res in self.resources.values():
            if not res.is_mineral or res.contents <= 0:
                continue
            d = (res.x - x) ** 2 + (res.y - y) ** 2
            if d < bd and d <= 144.0:
                best, bd = res, d
        return best

    def _deplete(self, res: Resource) -> None:
        self._push(self._loop, res.tag, True)
        self._depleted.append(res.tag)

    def flush(self) -> None:
        """Remove depleted fields (after :meth:`advance`; they change the set of units)."""
        if self._depleted:
            gone, self._depleted = self._depleted, []
            for tag in gone:
                self.resources.pop(tag, None)
            self.w.remove_tags(gone)

    # ------------------------------------------------------------------ structures
    def _structure_event(self, s: Structure, seq: int, t: int) -> None:
        if not s.ready and s.since >= 0 and s.done + (t - s.since) >= s.build_loops:
            s.done = s.build_loops
            s.since = -1
            self._complete(s, t)
        if s.ready and s.queue and t >= s.head_start + D.UNIT_BY_ID[s.queue[0]].build_time:
            uid = s.queue.pop(0)
            self._emerge(s, uid, t)
            if s.queue:
                s.head_start = t
                self._push(t + int(D.UNIT_BY_ID[s.queue[0]].build_time), s.tag, True)
            self.supply.revision += 1

    def _complete(self, s: Structure, t: int) -> None:
        u = self.w.u
        r = u.row(s.tag)
        if r >= 0:
            u.hp[r] = TYPES.hp_max[u.ti[r]]
        self.supply.revision += 1
        b = s.builder
        s.builder = 0
        if b in self.jobs:
            self.jobs.pop(b)
            of_type(s.unit_id).on_structure_complete(self.w, s, b, t)

    def _emerge(self, s: Structure, uid: int, t: int) -> None:
        """A trained unit leaves its structure at the edge facing the rally (else below it)."""
        rad = D.UNIT_BY_ID[s.unit_id].radius + D.UNIT_BY_ID[uid].radius
        goal = s.rally_pos
        if s.rally_tag:
            rr = self.w.u.row(s.rally_tag)
            if rr >= 0:
                goal = (float(self.w.u.x[rr]), float(self.w.u.y[rr]))
        if goal is not None and (goal[0] - s.x) ** 2 + (goal[1] - s.y) ** 2 > 1e-6:
            d = math.hypot(goal[0] - s.x, goal[1] - s.y)
            x, y = s.x + (goal[0] - s.x) / d * rad, s.y + (goal[1] - s.y) / d * rad
        else:
            x, y = s.x, s.y - rad
        tag = int(self.w.spawn(uid, s.owner, [x], [y], free=True)[0])  # (beside the last one, if it still stands there)
        self.trained[s.owner][uid] = self.trained[s.owner].get(uid, 0) + 1
        r = self.w.u.row(tag)
        if s.rally_tag and uid in WORKERS and s.rally_tag in self.resources:
            self._start_gather(r, tag, s.rally_tag, t)
        elif goal is not None:
            self.w.u.set_order(r, Order(MOVE, D.MOVE_MOVE, goal[0], goal[1]))

    # ------------------------------------------------------------------ construction
    def _arrive_at_site(self, r: int, tag: int, job: Job, t: int) -> None:
        u = self.w.u
        owner = int(u.owner[r])
        uid = BUILDS[job.build]
        spec = D.UNIT_BY_ID[uid]
        x, y = job.site
        geyser = 0
        if uid in GAS_STRUCTURES:
            geyser = job.geyser
            res = self.resources.get(geyser)
            ok = res is not None and res.refinery == 0
        else:
            ok = self.w.placement.check(job.build, x, y) == SUCCESS
        if not ok or self.supply.afford(owner, spec.minerals, spec.vespene) != SUCCESS:
            self._to_idle(tag)  # the real client shows an error and the SCV stops
            return
        self.supply.pay(owner, spec.minerals, spec.vespene)
        stag = int(self.w.spawn(uid, owner, [x], [y])[0])
        s = Structure(stag, uid, owner, x, y, float(spec.build_time), 0.0, since=t, builder=tag, geyser=geyser)
        self.structures[stag] = s
        if geyser:
            self.resources[geyser].refinery = stag
        sr = u.row(stag)
        u.hp[sr] = spec.hp * CONSTRUCTION_START_LIFE
        self._push(t + int(math.ceil(s.build_loops)), stag)
        job.phase = BUILDING
        job.target = stag
        job.seq = 0
        self.supply.revision += 1

    # ------------------------------------------------------------------ commands
    def command(self, player: int, ability: int, rows: np.ndarray, target_pos: tuple[float, float] | None,
                target_tag: int, queue: bool) -> int | None:
        """Handle an economy command; ``None`` if it is not one (the world then handles it, after
        the economy has released the units' jobs)."""
        u = self.w.u
        types = u.unit_id[rows]
        trow = u.row(target_tag) if target_tag else -1
        tags = [int(t) for t in u.tag[rows]]
        if queue and ability not in TRAINS and all(t in self.jobs for t in tags):
            # shift-queued behind economy jobs: runs when the job ends (see _run_pending)
            for t in tags:
                self._pending.setdefault(t, []).append((ability, target_pos, target_tag))
            return SUCCESS
        if not queue:
            for t in tags:
                self._pending.pop(t, None)
        if ability in TRAINS:
            return self._train(player, ability, rows)
        if ability in RALLY_ABILITIES:
            return self._rally(rows, target_pos, target_tag)
        if ability in CANCEL_LAST_ABILITIES:
            return self._cancel_last(player, rows)
        workers = rows[np.isin(types, _WORKER_ARRAY)]
        if ability in BUILDS:
            if len(workers) == 0:
                return ERROR
            return self._build(player, ability, int(workers[0]), target_pos, target_tag)
        if ability in GATHER_ABILITIES:
            if trow < 0:
                return MUST_TARGET_UNIT
            return self._gather_cmd(player, workers, target_tag, queue)
        if ability in RETURN_ABILITIES:
            return self._return_cmd(workers)
        if ability == D.SMART:
            structs = rows[np.isin(types, _PRODUCER_ARRAY)]
            if len(structs) and len(structs) == len(rows):
                return self._rally(rows, target_pos, target_tag)
            if trow >= 0 and len(workers) == len(rows):
                tt = target_tag
                if tt in self.resources or (tt in self.structures and self.structures[tt].unit_id in GAS_STRUCTURES):
                    return self._gather_cmd(player, workers, tt, queue)
                s = self.structures.get(tt)
                if s is not None and s.owner == player:
                    if s.unit_id in TOWNHALLS and s.ready:
                        return self._return_cmd(workers)
                    if not s.ready and s.builder == 0:
                        return self._resume(int(workers[0]), s)
        # not an economy command: the units leave their economy jobs
        for i in rows.tolist():
            tag = int(u.tag[i])
            if tag in self.jobs:
                job = self.jobs[tag]
                self._release(tag)
                if job.carry:
                    self._idle_cargo[tag] = (job.carry, job.carry_gas)
                u.kind[i] = IDLE
                u.ability[i] = 0
                self.supply.revision += 1
        return None

    def _gather_cmd(self, player: int, workers: np.ndarray, target_tag: int, queue: bool) -> int:
        if len(workers) == 0:
            return ERROR
        res_tag = target_tag
        s = self.structures.get(target_tag)
        if s is not None and s.unit_id in GAS_STRUCTURES:
            if s.owner != player:
                return CANT_TARGET_THAT_UNIT
            if not s.ready:
                return BUILDING_IS_UNDER_CONSTRUCTION
            res_tag = s.geyser
        res = self.resources.get(res_tag)
        if res is None:
            return MUST_TARGET_RESOURCES
        if not res.is_mineral and res.refinery == 0:
            return MUST_BUILD_REFINERY_FIRST
        if res.contents <= 0:
            return CANT_TARGET_EXHAUSTED_RESOURCES
        u = self.w.u
        for i in workers.tolist():
            tag = int(u.tag[i])
            job = self.jobs.get(tag)
            carry, gas = (job.carry, job.carry_gas) if job is not None else self._idle_cargo.pop(tag, (0, False))
            self._idle_cargo.pop(tag, None)
            self._start_gather(i, tag, res_tag, self._loop, carry=carry, gas=gas)
        self.supply.revision += 1
        return SUCCESS

    def _return_cmd(self, workers: np.ndarray) -> int:
        u = self.w.u
        done = False
        for i in workers.tolist():
            tag = int(u.tag[i])
            job = self.jobs.get(tag)
            if job is not None and job.carry:
                if job.phase != WALK_HOME:
                    self._go_home(tag, job, self._loop)
                done = True
            elif tag in self._idle_cargo:
                carry, gas = self._idle_cargo.pop(tag)
                job = Job(WALK_HOME, int(u.unit_id[i]), carry=carry, carry_gas=gas, idle_after=True)
                self.jobs[tag] = job
                self._go_home(tag, job, self._loop)
                done = True
        return SUCCESS if done else ERROR

    def _train(self, player: int, ability: int, rows: np.ndarray) -> int:
        where, uid = TRAINS[ability]
        spec = D.UNIT_BY_ID[uid]
        u = self.w.u
        first_error = 0
        for i in rows.tolist():
            s = self.structures.get(int(u.tag[i]))
            if s is None or s.unit_id != where:
                first_error = first_error or ERROR
                continue
            if not s.ready:
                first_error = first_error or BUILDING_IS_UNDER_CONSTRUCTION
                continue
            if spec.tech_requirement and not self._ready_of(player, spec.tech_requirement) \
                    and spec.tech_requirement != where:
                first_error = first_error or TECH_REQUIREMENTS_NOT_MET
                continue
            if len(s.queue) >= QUEUE_LENGTH:
                first_error = first_error or QUEUE_IS_FULL
                continue
            res = self.supply.afford(player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                return res
            used, cap = self.supply.food(player)
            if used + spec.food_required > cap:
                return NOT_ENOUGH_FOOD
            self.supply.pay(player, spec.minerals, spec.vespene)
            s.queue.append(uid)
            if len(s.queue) == 1:
                s.head_start = self._loop
                self._push(self._loop + int(spec.build_time), s.tag, True)
            self.supply.revision += 1
            return SUCCESS
        return first_error or ERROR

    def _cancel_last(self, player: int, rows: np.ndarray) -> int:
        u = self.w.u
        for i in rows.tolist():
            s = self.structures.get(int(u.tag[i]))
            if s is None or not s.queue:
                continue
            uid = s.queue.pop()
            spec = D.UNIT_BY_ID[uid]
            self.supply.pay(player, -spec.minerals, -spec.vespene)
            self.supply.revision += 1
            return SUCCESS
        return ERROR

    def _rally(self, rows: np.ndarray, target_pos: tuple[float, float] | None, target_tag: int) -> int:
        u = self.w.u
        done = False
        for i in rows.tolist():
            s = self.structures.get(int(u.tag[i]))
            if s is None or s.unit_id not in PRODUCERS:
                continue
            s.rally_pos = target_pos if not target_tag else None
            s.rally_tag = target_tag
            done = True
        return SUCCESS if done else ERROR

    def _build(self, player: int, ability: int, r: int, target_pos: tuple[float, float] | None,
               target_tag: int) -> int:
        uid = BUILDS[ability]
        spec = D.UNIT_BY_ID[uid]
        if spec.tech_requirement and not self._ready_of(player, spec.tech_requirement):
            return BUILD_TECH_REQUIREMENTS_NOT_MET
        if uid in GAS_STRUCTURES:
            if not target_tag:
                return MUST_TARGET_UNIT
            res = self.resources.get(target_tag)
            if res is None or res.unit_id not in GEYSER_TYPES or res.refinery:
                return CANT_BUILD_ON_THAT
            site = (res.x, res.y)
        else:
            if target_pos is None:
                return ERROR
            hx, hy = FOOTPRINT[uid]
            site = (snap(target_pos[0], hx), snap(target_pos[1], hy))
            res_code = self.w.placement.check(ability, *site)
            if res_code != SUCCESS:
                return res_code
        res_code = self.supply.afford(player, spec.minerals, spec.vespene)
        if res_code != SUCCESS:
            return res_code
        u = self.w.u
        tag = int(u.tag[r])
        old = self.jobs.get(tag)
        self._release(tag)
        job = Job(WALK_SITE, int(u.unit_id[r]), target=target_tag, build=ability, site=site, geyser=target_tag)
        if old is not None and old.carry:
            self._idle_cargo[tag] = (old.carry, old.carry_gas)
        self.jobs[tag] = job
        self._set_order(r, tag, ability)
        rad = FOOTPRINT[uid][0] * math.sqrt(2.0) if uid not in GAS_STRUCTURES else D.UNIT_BY_ID[D.VESPENEGEYSER].radius
        self._walk(tag, job, float(u.x[r]), float(u.y[r]), site[0], site[1], rad, self._loop, world_event=True)
        self.supply.revision += 1
        return SUCCESS

    def _resume(self, r: int, s: Structure) -> int:
        u = self.w.u
        tag = int(u.tag[r])
        self._release(tag)
        job = Job(BUILDING, int(u.unit_id[r]), target=s.tag, build=D.UNIT_BY_ID[s.unit_id].creation_ability,
                  site=(s.x, s.y))
        self.jobs[tag] = job
        self._set_order(r, tag, job.build)
        s.builder = tag
        s.since = self._loop
        self._push(self._loop + int(math.ceil(s.build_loops - s.done)), s.tag)
        return SUCCESS

    def available_abilities(self, player: int, r: int) -> list[tuple[int, bool]]:
        """(ability, requires a point) the unit of row ``r`` may use now, as the real client's
        abilities query lists them: what the player can afford and has the tech for."""
        u = self.w.u
        uid = int(u.unit_id[r])
        tag = int(u.tag[r])
        out: list[tuple[int, bool]] = []

        def affordable(t: int) -> bool:
            spec = D.UNIT_BY_ID[t]
            return self.supply.afford(player, spec.minerals, spec.vespene) == SUCCESS

        if uid in WORKERS:
            rules = of_type(uid)
            for ab, t in rules.builds.items():
                spec = D.UNIT_BY_ID[t]
                if affordable(t) and (not spec.tech_requirement or self._ready_of(player, spec.tech_requirement)):
                    out.append((ab, t not in rules.gas_structures))
            out.append((rules.gather_ability, False))
            job = self.jobs.get(tag)
            if (job is not None and job.carry) or tag in self._idle_cargo:
                out.append((rules.return_ability, False))
            return out
        s = self.structures.get(tag)
        if s is None or not s.ready:
            return out
        rules = of_type(uid)
        for ab, (where, t) in rules.trains.items():
            if where == uid and affordable(t) and len(s.queue) < QUEUE_LENGTH:
                out.append((ab, False))
        rally = rules.rally.get(uid)
        if rally:
            out.append((rally, False))
        if s.queue:
            out.append((CANCEL_LAST, False))
        return out

    # ------------------------------------------------------------------ observation
    def construction_life(self) -> None:
        """Structures under construction gain life with their progress (10% to 100%)."""
        u = self.w.u
        for s in self.structures.values():
            if s.since >= 0 and not s.ready:
                r = u.row(s.tag)
                if r >= 0:
                    p = s.progress(self._loop)
                    hp_max = float(TYPES.hp_max[u.ti[r]])
                    u.hp[r] = hp_max * (CONSTRUCTION_START_LIFE + (1 - CONSTRUCTION_START_LIFE) * p)

    def _townhall_map(self, player: int) -> tuple[dict[int, int], dict[int, int]]:
        """(mineral field -> the townhall it counts for, townhall -> ideal harvesters), cached
        while the set of units and of finished townhalls stays the same."""
        ready = tuple(t for t, s in self.structures.items()
                      if s.owner == player and s.unit_id in TOWNHALLS and s.ready)
        key = (player, self.w.u.version, ready)
        if self._th_key != key:
            owner: dict[int, int] = {}
            ideal: dict[int, int] = dict.fromkeys(ready, 0)
            for res in self.resources.values():
                if not res.is_mineral:
                    continue
                th = self._nearest_townhall(player, res.x, res.y)
                if th is not None and (th.x - res.x) ** 2 + (th.y - res.y) ** 2 <= NEAR_TOWNHALL ** 2 + 1:
                    owner[res.tag] = th.tag
                    ideal[th.tag] += 2
            self._th_key = key
            self._th_map = (owner, ideal)
        return self._th_map

    def _job_bytes(self, job: Job) -> bytes:
        """The worker's order (and carry buff) as ``Unit`` field bytes, cached on the job."""
        if job.phase in (WALK_SITE, BUILDING):
            key: tuple[int, ...] = (job.build, job.geyser)
        elif job.phase in (PAUSE, WALK_HOME):
            key = (of_type(job.worker).return_ability, job.target)
        else:
            key = (of_type(job.worker).gather_ability, job.target)
        key += (job.carry > 0, job.carry_gas)
        if job.cache_key != key:
            if job.phase in (WALK_SITE, BUILDING) and not job.geyser:
                b = _order(job.build, pos=job.site)
            else:
                b = _order(key[0], tag=key[1])
            if job.carry:
                b += b"\xd8\x01" + varint(BUFF_CARRY_GAS if job.carry_gas else BUFF_CARRY_MINERALS)
            job.cache_key = key
            job.cache_bytes = b
        return job.cache_bytes

    def unit_extras(self, player: int) -> dict[int, bytes]:
        """Extra ``Unit`` field bytes per row: resources' contents, structures' build progress,
        harvester counts and training orders, workers' orders and carry buffs.  Appended after
        the fixed record (a later scalar field wins, so ``build_progress`` overrides the 1.0)."""
        u = self.w.u
        loop = self._loop
        tags: list[int] = []
        blobs: list[bytes] = []
        field_owner, ideal = self._townhall_map(player)
        assigned: dict[int, int] = {}
        for job in self.jobs.values():
            if job.resource and job.phase != BUILDING and job.phase != WALK_SITE:
                th = field_owner.get(job.resource)
                if th is None:
                    res = self.resources.get(job.resource)
                    th = res.refinery if res is not None and not res.is_mineral else None
                if th:
                    assigned[th] = assigned.get(th, 0) + 1
        for res in self.resources.values():
            tags.append(res.tag)
            blobs.append((b"\x90\x01" if res.is_mineral else b"\x98\x01") + varint(max(res.contents, 0)))
        for st in self.structures.values():
            b = b""
            if not st.ready:
                b += struct.pack("<Bf", 0x4D, st.progress(loop))
            if st.owner == player:
                if st.queue:
                    b += b"\xb8\x02\x01"  # is_active: producing
                for k, uid in enumerate(st.queue):
                    spec = D.UNIT_BY_ID[uid]
                    b += _order(spec.creation_ability,
                                progress=min(1.0, (loop - st.head_start) / spec.build_time) if k == 0 else None)
                if st.ready and st.unit_id in TOWNHALLS:
                    b += b"\xe0\x01" + varint(assigned.get(st.tag, 0)) + b"\xe8\x01" + varint(ideal.get(st.tag, 0))
                elif st.ready and st.unit_id in GAS_STRUCTURES:
                    b += b"\xe0\x01" + varint(assigned.get(st.tag, 0)) + b"\xe8\x01" + varint(3)
            if st.unit_id in GAS_STRUCTURES and st.geyser in self.resources:
                b += b"\x98\x01" + varint(max(self.resources[st.geyser].contents, 0))
            if b:
                tags.append(st.tag)
                blobs.append(b)
        for tag, job in self.jobs.items():
            tags.append(tag)
            blobs.append(self._job_bytes(job))
        for tag, (_, gas) in self._idle_cargo.items():
            tags.append(tag)
            blobs.append(b"\xd8\x01" + varint(BUFF_CARRY_GAS if gas else BUFF_CARRY_MINERALS))
        if not tags:
            return {}
        rows = u.rows(np.asarray(tags, dtype=np.int64)).tolist()
        out: dict[int, bytes] = {}
        for r, b in zip(rows, blobs, strict=True):
            if r >= 0:
                out[r] = out[r] + b if r in out else b
        return out


def _order(ability: int, pos: tuple[float, float] | None = None, tag: int = 0, progress: float | None = None) -> bytes:
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
