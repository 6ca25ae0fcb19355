"""Harvest: workers' trips to minerals and gas.

Rules (real-game facts; sources in ``docs/economy.md``): a trip is walk to the resource, wait
while another worker occupies it, occupy it for the mining time (minerals 2.786 normal seconds,
rounded up to 45 loops; vespene 1.981 s = 32 loops, inferred), take 5 minerals (4 vespene), pause
0.5 s (8 loops: the next worker may start during the pause), walk to the nearest ready townhall
and drop the cargo there, walk back.  One worker per field or refinery at a time; a worker that
finds its field occupied moves to the nearest free field of the same mineral line
(:data:`BOUNCE_RADIUS`) if there is one, else waits for it.  Fields and geysers deplete; a
depleted mineral field disappears.  A worker inside a refinery is left out of the observation, as
the real client does.  A worker that leaves its job while carrying keeps the cargo (and shows
the carry buff) until it returns it.

A player may have an income bonus (:attr:`Harvest.income_bonus`): each trip it drops off delivers
that many more minerals or vespene.  The Cheat difficulties of the built-in Computer get one: +1
(CheatMoney) and +2 (CheatInsane) a trip (the Arqade answer "StarCraft 2 AI differences",
newbetuts.com/6253: 7 instead of 5 minerals, 6 instead of 4 vespene for the top level); the field
or geyser loses only the normal amount (m: whether the real game takes the bonus from it is not
known).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    CANT_TARGET_EXHAUSTED_RESOURCES,
    CANT_TARGET_THAT_UNIT,
    ERROR,
    MUST_BUILD_REFINERY_FIRST,
    MUST_TARGET_RESOURCES,
    SUCCESS,
)
from sc2pool.engine.sim.encode import varint
from sc2pool.engine.sim.races import GAS_STRUCTURES, TOWNHALLS, of_type
from sc2pool.engine.sim.systems.alerts import MINERALS_EXHAUSTED, VESPENE_EXHAUSTED
from sc2pool.engine.sim.systems.workers import MINE, PAUSE, WAIT, WALK_HOME, WALK_RES, Job, carry_buff_bytes

if TYPE_CHECKING:
    import numpy as np

    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

# Timings in game loops (16 per normal-speed second).
MINERAL_MINE_LOOPS = 45
"""Mineral field occupation: 2.786 normal seconds (Liquipedia, "Resources"), rounded up to a loop."""
GAS_MINE_LOOPS = 32
"""Time inside a refinery: 1.981 normal seconds (inferred from the editor value quoted by players
and from the measured ~114 gas/min of a saturated geyser at normal speed; not confirmed)."""
PAUSE_LOOPS = 8
"""After mining a worker pauses 0.5 normal seconds before it walks back (Liquipedia)."""
MINERALS_PER_TRIP, GAS_PER_TRIP = 5, 4
BOUNCE_RADIUS = 8.0
"""A worker that finds its mineral field occupied moves to the nearest free field within this of it:
the base's mineral line (its fields lie within about 8 of each other; the next base's are 15 or
more away).  Workers sent to one field "automatically arrange themselves to harvest from
unoccupied mineral clusters" (Blizzard, "StarCraft II Game Guide: Resources"); the real search
radius is not known here (m)."""
RICH_MINERALS_PER_TRIP, RICH_GAS_PER_TRIP = 7, 8
"""A rich mineral field gives 7 minerals a trip, a rich geyser 8 vespene (Liquipedia, "Minerals",
"Vespene Gas")."""


def _resource_types(minerals: bool) -> frozenset[int]:
    """Every mineral field (or geyser) variant the client's data knows: the engine facts' resources
    whose ``UnitTypeData`` says they hold minerals (vespene)."""
    from sc2pool.engine.data import units as F

    out = set()
    for f in F.FACTS_TABLE:
        if f.kind != F.RESOURCE:
            continue
        try:
            spec = D.unit_spec(f.unit_id)
        except KeyError:
            continue
        if (spec.has_minerals if minerals else spec.has_vespene):
            out.add(f.unit_id)
    return frozenset(out)


MINERAL_TYPES = _resource_types(True) | {D.MINERALFIELD, D.MINERALFIELD750}
GEYSER_TYPES = _resource_types(False) | {D.VESPENEGEYSER}
RICH_TYPES = frozenset(t for t in MINERAL_TYPES | GEYSER_TYPES if "Rich" in D.unit_spec(t).name)
MINERAL_CONTENTS = {D.MINERALFIELD: 1800, D.MINERALFIELD750: 900}
"""LotV fields: 4 large (1800) and 4 small (900) per base (Liquipedia, "Resources"); every other
variant's default is its engine fact (:func:`default_contents`)."""
GEYSER_CONTENTS = 2250


def default_contents(unit_id: int) -> int:
    """What a mineral field or geyser of ``unit_id`` holds when the map says nothing else."""
    got = MINERAL_CONTENTS.get(unit_id)
    if got is not None:
        return got
    from sc2pool.engine.data import units as F

    f = F.FACTS.get(unit_id)
    if f is not None and f.contents:
        return int(f.contents)
    return GEYSER_CONTENTS if unit_id in GEYSER_TYPES else 1800
NEAR_TOWNHALL = 8.0
"""Mineral fields within this distance of a townhall count for its ideal harvesters (2 each)."""
GAS_HARVESTERS = 3
"""A refinery's ideal harvesters (0 once its geyser is exhausted: as a mined-out base's townhall,
the real client reports a depleted gas structure wanting no workers; bots played on it skip
"ready buildings with ideal_harvesters == 0" as empty, e.g. sharpy-sc2's worker manager)."""
NEUTRAL = 16


@dataclass
class Resource:
    """A mineral field, or a vespene geyser (``refinery`` is the tag of the gas structure on it)."""

    tag: int
    unit_id: int
    x: float
    y: float
    contents: int
    occupant: int = 0
    free_at: int = 0
    waiting: list[int] = field(default_factory=list)
    refinery: int = 0
    is_mineral: bool = field(init=False)
    """A mineral field (else a geyser): fixed by the type, so kept rather than looked up on every
    read (the trips and observations read it hundreds of times a step)."""

    def __post_init__(self) -> None:
        self.is_mineral = self.unit_id in MINERAL_TYPES


class Harvest:
    """Resources, the workers' trips, and cargo kept by workers off their trips."""

    _contents_rows: tuple[int, dict[int, bytes], list[bytes]] | None = None
    """(the unit store's version, the :attr:`_contents_bytes` they were made from, those bytes per
    row of the store) of :meth:`contents_rows` (a class default, so that a state pickled before
    it existed still loads)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.resources: dict[int, Resource] = {}
        self.inside: set[int] = set()
        """Workers inside a refinery: the real client does not report them while they are."""
        self.cargo: dict[int, tuple[int, bool]] = {}
        """Cargo of workers that left their job while carrying (they keep it, and the buff)."""
        self._depleted: list[int] = []
        self._contents_bytes: dict[int, bytes] | None = None
        """Per resource tag (in :attr:`resources`' order): the ``Unit`` field bytes reporting its
        contents; None after a resource came or went (built again on the next observation)."""
        self._contents_dirty: set[int] = set()
        self._near: dict[int, tuple[Resource, list[Resource]]] = {}
        """Per mineral field: (it, the other fields within 3 of it) (:meth:`_neighbours`)."""
        """Resources whose contents changed since those bytes were made (a trip's mining)."""
        self._th: dict[int, tuple[tuple[object, ...], tuple[dict[int, int], dict[int, int]]]] = {}
        """Per player: (key, the townhall map) of :meth:`townhall_map`."""
        self.income_bonus: dict[int, int] = {}
        """Per player: extra minerals or vespene a trip delivers (the Cheat difficulties' income,
        which the melee scenario sets for a Computer; empty for everyone else)."""
        self._halls: dict[int, tuple[tuple[int, int], list[tuple[int, Structure]]]] = {}
        """Per player: (key, :meth:`_townhalls`) (found again when the key changes)."""

    def __setstate__(self, state: dict[str, object]) -> None:
        """A loaded or copied world finds its players' townhalls again when next asked."""
        self.__dict__.update(state)
        self._halls = {}

    # ------------------------------------------------------------------ set-up
    def add_mineral_field(self, unit_id: int, x: float, y: float, contents: int | None = None) -> int:
        tag = int(self.w.spawn(unit_id, NEUTRAL, [x], [y])[0])
        self.resources[tag] = Resource(tag, unit_id, x, y, default_contents(unit_id) if contents is None else contents)
        self._resources_changed()
        return tag

    def add_geyser(self, x: float, y: float, contents: int = GEYSER_CONTENTS, unit_id: int = D.VESPENEGEYSER) -> int:
        tag = int(self.w.spawn(unit_id, NEUTRAL, [x], [y])[0])
        self.resources[tag] = Resource(tag, unit_id, x, y, contents)
        self._resources_changed()
        return tag

    def adopt(self, tag: int, unit_id: int, x: float, y: float) -> bool:
        """A unit created outside the economy (debug create_unit): a mineral field or geyser can
        be mined.  Returns whether it is one."""
        if unit_id in MINERAL_TYPES or unit_id in GEYSER_TYPES:
            self.resources[tag] = Resource(tag, unit_id, x, y, default_contents(unit_id))
            self._resources_changed()
        else:
            return False
        return True

    def gather(self, worker_tag: int, resource_tag: int) -> None:
        """Put a worker to work on a resource now (scenario set-up, rallies)."""
        r = self.w.u.row(worker_tag)
        if r >= 0:
            self.start(r, worker_tag, resource_tag, self.w.events.now)

    def forget(self, alive: set[int]) -> None:
        """Drop resources whose unit is gone."""
        if alive.issuperset(self.resources):  # (the usual case: a look at each resource in C)
            return
        for tag in [t for t in self.resources if t not in alive]:
            del self.resources[tag]
            self._resources_changed()

    # ------------------------------------------------------------------ trips
    def start(self, r: int, tag: int, res_tag: int, loop: int, carry: int = 0, gas: bool = False) -> None:
        """The worker of row ``r`` starts harvesting ``res_tag`` (first returning ``carry``)."""
        workers = self.w.workers
        res = self.resources.get(res_tag)
        target = res_tag
        if res is not None and not res.is_mineral:
            target = res.refinery
        workers.release(tag)
        job = Job(WALK_RES, int(self.w.u.unit_id[r]), resource=res_tag, target=target, carry=carry, carry_gas=gas)
        workers.jobs[tag] = job
        workers.set_order(r, tag, of_type(job.worker).gather_ability)
        if carry:
            self.go_home(r, tag, job, loop, then=res_tag)
            return
        x, y = float(self.w.u.x[r]), float(self.w.u.y[r])
        rad = D.unit_spec(res.unit_id).radius if res is not None else 0.0
        workers.walk(tag, job, x, y, res.x if res else x, res.y if res else y, rad, loop, row=r)

    def go_home(self, r: int, tag: int, job: Job, loop: int, then: int = 0) -> None:
        """The worker of row ``r`` walks its cargo to the nearest ready townhall (then back to
        ``then``)."""
        u = self.w.u
        x, y = float(u.x[r]), float(u.y[r])
        th = self.nearest_townhall(int(u.owner[r]), x, y)
        if th is None:  # nowhere to drop the cargo: stand still, keep it
            self.w.workers.to_idle(tag)
            return
        job.phase = WALK_HOME
        job.target = th.tag
        job.then_gather = then or job.resource
        self.w.workers.set_order(r, tag, of_type(job.worker).return_ability)
        self.w.workers.walk(tag, job, x, y, th.x, th.y, D.unit_spec(th.unit_id).radius, loop, row=r)

    def nearest_townhall(self, player: int, x: float, y: float) -> Structure | None:
        """The player's ready townhall nearest to (x, y) (the first of equally near ones, in
        :attr:`Construction.structures`' order)."""
        best, bd = None, math.inf
        for _, s in self._townhalls(player):
            if s.ready:
                d = (s.x - x) ** 2 + (s.y - y) ** 2
                if d < bd:
                    best, bd = s, d
        return best

    def _townhalls(self, player: int) -> list[tuple[int, Structure]]:
        """(tag, structure) of the player's townhalls, ready or not, in
        :attr:`Construction.structures`' order: every trip asks for the nearest one, and most
        structures are none.  Kept while the unit set and the number of structures stay: a
        structure joins only after its unit is spawned and leaves only from the dict (the count),
        and its type changes only with the unit's (``UnitStore.retype``), each of which changes
        the store's version; readiness and position are read when asked."""
        structures = self.w.construction.structures
        key = (self.w.u.version, len(structures))
        got = self._halls.get(player)
        if got is None or got[0] != key:
            got = self._halls[player] = (key, [(t, s) for t, s in structures.items()
                                               if s.unit_id in TOWNHALLS and s.owner == player])
        return got[1]

    def leave(self, tag: int, job: Job | None) -> None:
        """A worker leaves its job: it no longer occupies or waits for a resource."""
        self.inside.discard(tag)
        if job is None:
            return
        for res in self.resources.values():
            if res.occupant == tag:
                res.occupant = 0
            if tag in res.waiting:
                res.waiting.remove(tag)

    def keep_cargo(self, tag: int, job: Job) -> None:
        """A worker leaving ``job`` keeps the cargo it carries (and the buff)."""
        if job.carry:
            self.cargo[tag] = (job.carry, job.carry_gas)

    def resource_for(self, res_tag: int) -> Resource | None:
        """The resource a trip may work now: a mineral field, or a geyser with a finished gas
        structure on it."""
        res = self.resources.get(res_tag)
        if res is None:
            return None
        if not res.is_mineral:
            s = self.w.construction.structures.get(res.refinery)
            if s is None or not s.ready:
                return None
        return res

    def on_trip(self, r: int, tag: int, job: Job, t: int) -> None:
        """The next phase of a trip at loop ``t`` (the worker stands at its walk's end point)."""
        u = self.w.u
        workers = self.w.workers
        push = self.w.events.push
        if job.phase == WALK_RES or job.phase == WAIT:
            res = self.resource_for(job.resource)
            if res is None:
                res = self._other_field(int(u.owner[r]), job.resource, job.tx, job.ty)
                if res is None:
                    workers.to_idle(tag)
                    return
                job.resource = res.tag
                job.target = res.tag
                job.phase = WALK_RES
                workers.walk(tag, job, job.tx, job.ty, res.x, res.y, D.unit_spec(res.unit_id).radius, t, row=r)
                return
            if res.contents <= 0:
                workers.to_idle(tag)
                return
            if res.occupant == 0 and res.free_at <= t and (not res.waiting or res.waiting[0] == tag):
                if res.waiting and res.waiting[0] == tag:
                    res.waiting.pop(0)
                res.occupant = tag
                res.free_at = t + (MINERAL_MINE_LOOPS if res.is_mineral else GAS_MINE_LOOPS)
                if not res.is_mineral:
                    self.inside.add(tag)
                job.phase = MINE
                job.seq = push(res.free_at, tag)
                return
            if job.phase == WALK_RES and res.is_mineral:
                alt = self._free_field(res, job.tx, job.ty, t)
                if alt is not None:
                    job.resource = job.target = alt.tag
                    workers.walk(tag, job, job.tx, job.ty, alt.x, alt.y, D.unit_spec(alt.unit_id).radius, t, row=r)
                    return
            job.phase = WAIT
            if tag not in res.waiting:
                res.waiting.append(tag)
            job.seq = push(max(res.free_at, t + 1), tag)
            return
        if job.phase == MINE:
            res = self.resources.get(job.resource)
            if res is None:
                workers.to_idle(tag)
                return
            if res.unit_id in RICH_TYPES:
                per_trip = RICH_MINERALS_PER_TRIP if res.is_mineral else RICH_GAS_PER_TRIP
            else:
                per_trip = MINERALS_PER_TRIP if res.is_mineral else GAS_PER_TRIP
            take = min(per_trip, res.contents)
            res.contents -= take
            self._contents_dirty.add(res.tag)
            if take and res.contents <= 0:  # (the worker that emptied it: its player is alerted)
                self.exhausted(int(u.owner[r]), res)
            res.occupant = 0
            self.inside.discard(tag)
            job.carry = take
            job.carry_gas = not res.is_mineral
            if res.waiting:  # the next worker may start during this one's pause
                nxt = res.waiting[0]
                nj = workers.jobs.get(nxt)
                if nj is not None:
                    nj.seq = push(t, nxt)
            if res.contents <= 0 and res.is_mineral:
                self._deplete(res)
            job.phase = PAUSE
            th = self.nearest_townhall(int(u.owner[r]), job.tx, job.ty)
            job.target = th.tag if th is not None else 0
            job.seq = push(t + PAUSE_LOOPS, tag)
            self.w.supply.revision += 1
            return
        if job.phase == PAUSE:
            self.go_home(r, tag, job, t)
            return
        if job.phase == WALK_HOME:
            th = self.w.construction.structures.get(job.target)
            owner = int(u.owner[r])
            if th is None or not th.ready:
                th = self.nearest_townhall(owner, job.tx, job.ty)
                if th is None:
                    workers.to_idle(tag)
                    return
                job.target = th.tag
                workers.walk(tag, job, job.tx, job.ty, th.x, th.y, D.unit_spec(th.unit_id).radius, t, row=r)
                return
            self.w.supply.earn(owner, job.carry + self.income_bonus.get(owner, 0) if job.carry else 0, job.carry_gas)
            job.carry = 0
            self.w.supply.revision += 1
            if job.idle_after or tag in workers.pending:
                workers.to_idle(tag)
                return
            back = self.resource_for(job.then_gather or job.resource)
            if back is None:
                back = self._other_field(owner, job.then_gather or job.resource, th.x, th.y)
            if back is None:
                workers.to_idle(tag)
                return
            job.resource = back.tag
            job.target = back.tag if back.is_mineral else back.refinery
            job.then_gather = 0
            job.phase = WALK_RES
            workers.set_order(r, tag, of_type(job.worker).gather_ability)
            workers.walk(tag, job, job.tx, job.ty, back.x, back.y, D.unit_spec(back.unit_id).radius, t, row=r)
            return

    def _free_field(self, busy: Resource, x: float, y: float, t: int) -> Resource | None:
        """A free mineral field near an occupied one (workers look for another patch)."""
        best, bd = None, math.inf
        for res in self._neighbours(busy):
            if res.contents <= 0 or res.occupant or res.free_at > t or res.waiting:
                continue
            d = (res.x - x) ** 2 + (res.y - y) ** 2
            if d < bd:
                best, bd = res, d
        return best

    def _neighbours(self, busy: Resource) -> list[Resource]:
        """The other mineral fields within :data:`BOUNCE_RADIUS` of ``busy``, in :attr:`resources`'
        order (fields do not move: kept until a resource comes or goes, instead of a look at every
        resource)."""
        got = self._near.get(busy.tag)
        if got is None or got[0] is not busy:
            r2 = BOUNCE_RADIUS * BOUNCE_RADIUS
            near = [res for res in self.resources.values()
                    if res is not busy and res.is_mineral and (res.x - busy.x) ** 2 + (res.y - busy.y) ** 2 <= r2]
            got = self._near[busy.tag] = (busy, near)
        return got[1]

    def _resources_changed(self) -> None:
        """A resource came or went: what is kept about the set of resources is made again."""
        self._contents_bytes = None
        self._near.clear()

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

    def exhausted(self, player: int, res: Resource) -> None:
        """``player``'s worker (or MULE) took the last of ``res``: ``MineralsExhausted`` or
        ``VespeneExhausted`` to that player (m: not to every player mining there;
        ``systems/alerts.py``)."""
        self.w.alerts.add(player, MINERALS_EXHAUSTED if res.is_mineral else VESPENE_EXHAUSTED)

    def _deplete(self, res: Resource) -> None:
        self.w.events.push(self.w.events.now, res.tag, True)
        self._depleted.append(res.tag)

    def flush(self) -> None:
        """Remove depleted fields (after the economy's events; they change the set of units)."""
        if self._depleted:
            gone, self._depleted = self._depleted, []
            for tag in gone:
                self.resources.pop(tag, None)
            self._resources_changed()
            self.w.remove_tags(gone)

    # ------------------------------------------------------------------ commands
    def gather_cmd(self, player: int, workers: np.ndarray, target_tag: int, queue: bool) -> int:
        """Gather from a mineral field, or from a player's finished gas structure (or its geyser)."""
        if len(workers) == 0:
            return ERROR
        res_tag = target_tag
        s = self.w.construction.structures.get(target_tag)
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
        jobs = self.w.workers.jobs
        now = self.w.events.now
        for i in workers.tolist():
            tag = int(u.tag[i])
            job = jobs.get(tag)
            carry, gas = (job.carry, job.carry_gas) if job is not None else self.cargo.pop(tag, (0, False))
            self.cargo.pop(tag, None)
            self.start(i, tag, res_tag, now, carry=carry, gas=gas)
        self.w.supply.revision += 1
        return SUCCESS

    def return_cmd(self, workers: np.ndarray) -> int:
        """Return the cargo now (a worker without a trip then stands idle)."""
        u = self.w.u
        jobs = self.w.workers.jobs
        now = self.w.events.now
        done = False
        for i in workers.tolist():
            tag = int(u.tag[i])
            job = jobs.get(tag)
            if job is not None and job.carry:
                if job.phase != WALK_HOME:
                    self.go_home(i, tag, job, now)
                done = True
            elif tag in self.cargo:
                carry, gas = self.cargo.pop(tag)
                job = Job(WALK_HOME, int(u.unit_id[i]), carry=carry, carry_gas=gas, idle_after=True)
                jobs[tag] = job
                self.go_home(i, tag, job, now)
                done = True
        return SUCCESS if done else ERROR

    def can_return(self, tag: int) -> bool:
        """Whether the worker carries cargo (on a trip or kept off one)."""
        job = self.w.workers.jobs.get(tag)
        return (job is not None and job.carry > 0) or tag in self.cargo

    # ------------------------------------------------------------------ observation
    def townhall_map(self, player: int) -> tuple[dict[int, int], dict[int, int]]:
        """(mineral field -> the townhall it counts for, townhall -> ideal harvesters), cached
        while the player's finished townhalls (and where they stand) and the resources stay the
        same: the answer depends on nothing else (fields do not move), so other units coming and
        going do not recompute it."""
        at = tuple([(t, s.x, s.y) for t, s in self._townhalls(player) if s.ready])
        key = (at, tuple(self.resources))
        hit = self._th.get(player)
        if hit is not None and hit[0] == key:
            return hit[1]
        owner: dict[int, int] = {}
        ideal: dict[int, int] = dict.fromkeys([t for t, _, _ in at], 0)
        for res in self.resources.values():
            if not res.is_mineral:
                continue
            th = self.nearest_townhall(player, res.x, res.y)
            if th is not None and (th.x - res.x) ** 2 + (th.y - res.y) ** 2 <= NEAR_TOWNHALL ** 2 + 1:
                owner[res.tag] = th.tag
                ideal[th.tag] += 2
        self._th[player] = (key, (owner, ideal))
        return owner, ideal

    def contents_rows(self) -> list[bytes]:
        """Per row of the unit store: the ``Unit`` field bytes of a resource's contents (``b""``
        for the other units).  Kept while the set of units stays, with the resources mined since
        written in; the caller copies it before changing it."""
        got = self._contents_bytes
        dirty = self._contents_dirty
        if got is None:
            got = self._contents_bytes = {res.tag: _contents_bytes(res) for res in self.resources.values()}
            dirty.clear()
        u = self.w.u
        kept = self._contents_rows
        rows = kept[2] if kept is not None and kept[0] == u.version and kept[1] is got else None
        if dirty:  # (contents change on a trip's mining only)
            row_of = u.row_index()
            for tag in dirty:
                res = self.resources.get(tag)
                if res is not None:
                    b = got[tag] = _contents_bytes(res)
                    if rows is not None:
                        r = row_of.get(tag)
                        if r is not None:
                            rows[r] = b
            dirty.clear()
        if rows is None:
            row_of = u.row_index()
            rows = [b""] * len(u)
            for tag, b in got.items():
                r = row_of.get(tag)
                if r is not None:  # (a resource no longer in the store shows nothing)
                    rows[r] = b
            self._contents_rows = (u.version, got, rows)
        return rows

    def extras(self, player: int, out: list[bytes]) -> bool:
        """Append to ``out`` (``Unit`` field bytes per row of the unit store) the player's
        townhalls' and gas structures' assigned and ideal harvesters, and gas structures' contents
        (the resources' own contents: :meth:`contents_rows`).  Returns whether any structure has
        something to show (one gone from the store too)."""
        field_owner, ideal = self.townhall_map(player)
        resources = self.resources
        # workers per resource first (a few dozen fields and geysers), then per townhall
        trips = Counter([job.resource for job in self.w.workers.jobs.values() if job.resource and job.phase in _TRIP])
        assigned: dict[int, int] = {}
        for res_tag, n in trips.items():
            th = field_owner.get(res_tag)
            if th is None:
                res = resources.get(res_tag)
                th = res.refinery if res is not None and not res.is_mineral else None
            if th:
                assigned[th] = assigned.get(th, 0) + n
        row_of = self.w.u.row_index()
        shown = bool(ideal)
        for tag, want in ideal.items():  # (the player's finished townhalls)
            r = row_of.get(tag)
            if r is not None:
                out[r] += b"\xe0\x01" + varint(assigned.get(tag, 0)) + b"\xe8\x01" + varint(want)
        for st in self.w.construction.structures.values():
            if st.unit_id not in GAS_STRUCTURES:
                continue
            b = b""
            g = resources.get(st.geyser)
            if st.owner == player and st.ready:
                want = GAS_HARVESTERS if g is not None and g.contents > 0 else 0
                b += b"\xe0\x01" + varint(assigned.get(st.tag, 0)) + b"\xe8\x01" + varint(want)
            if g is not None:
                b += b"\x98\x01" + varint(max(g.contents, 0))
            if b:
                shown = True
                r = row_of.get(st.tag)
                if r is not None:
                    out[r] += b
        return shown

    def cargo_extras(self, out: list[bytes]) -> bool:
        """Append the carry buff of workers keeping cargo off a trip to ``out`` (bytes per row of
        the unit store).  Returns whether any worker keeps cargo (one gone from the store too)."""
        row_of = self.w.u.row_index()
        for tag, (_, gas) in self.cargo.items():
            r = row_of.get(tag)
            if r is not None:
                out[r] += carry_buff_bytes(gas)
        return bool(self.cargo)


_TRIP = frozenset((WALK_RES, WAIT, MINE, PAUSE, WALK_HOME))
"""Job phases of a harvesting trip (the others are construction)."""


def _contents_bytes(res: Resource) -> bytes:
    """The ``Unit`` field of a resource's contents (mineral or vespene)."""
    return (b"\x90\x01" if res.is_mineral else b"\x98\x01") + varint(max(res.contents, 0))
