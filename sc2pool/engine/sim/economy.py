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

import math
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.sim.races import (
    BUILDS,
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
from sc2pool.engine.sim.systems.harvest import GEYSER_TYPES, MINERAL_TYPES
from sc2pool.engine.sim.systems.placement import FOOTPRINT, snap
from sc2pool.engine.sim.systems.workers import BUILDING, WALK_SITE, Job
from sc2pool.engine.sim.units import TYPES

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

CONSTRUCTION_START_LIFE = 0.1
_WORKER_ARRAY = np.array(sorted(WORKERS))
_PRODUCER_ARRAY = np.array(sorted(PRODUCERS))


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


class Economy:
    """Player resources and every economy job in one game.  See the module docstring."""

    def __init__(self, world: World, minerals: int = 50, vespene: int = 0, players: tuple[int, ...] = (1,)) -> None:
        self.w = world
        self.supply = world.supply
        self.supply.open(players, minerals, vespene)
        world.production.open(players)
        self.structures: dict[int, Structure] = {}
        self._version = -1
        world.economy = self
        world.construction = self  # (until construction is a system of its own)

    # ------------------------------------------------------------------ set-up helpers
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
            else:
                self.w.harvest.adopt(tag, uid, x, y)
        self.supply.revision += 1

    # ------------------------------------------------------------------ queries
    def builder_left(self, tag: int, job: Job) -> None:
        """The worker ``tag`` left the structure it was building: construction pauses."""
        s = self.structures.get(job.target)
        if s is not None and s.builder == tag:
            if s.since >= 0:
                s.done += self.w.events.now - s.since
            s.since = -1
            s.builder = 0

    def ready_of(self, player: int, unit_id: int) -> bool:
        return any(s.owner == player and s.unit_id == unit_id and s.ready for s in self.structures.values())

    # ------------------------------------------------------------------ stepping
    def advance(self) -> None:
        """Process every event up to the world's loop, then place walking workers."""
        w = self.w
        to = w.loop
        if w.u.version != self._version:
            self._forget_gone()
        while (e := w.events.pop_due(to)) is not None:
            t, seq, tag, _ = e
            job = self.w.workers.jobs.get(tag)
            if job is not None:
                if job.seq == seq:
                    self.w.events.now = t
                    self.w.workers.on_event(tag, job, t)
                continue
            s = self.structures.get(tag)
            if s is not None:
                self.w.events.now = t
                self._structure_event(s, seq, t)
        self.w.events.now = to
        self.w.workers.place_walkers(to)
        self.construction_life()
        self.w.harvest.flush()

    def _forget_gone(self) -> None:
        """Drop jobs, structures and resources whose unit is gone (killed, debug-removed)."""
        u = self.w.u
        self._version = u.version
        alive = set(u.tag.tolist())
        self.w.workers.forget(alive)
        for tag in [t for t in self.structures if t not in alive]:
            s = self.structures.pop(tag)
            if s.builder in self.w.workers.jobs:  # its construction is gone: the SCV stops
                self.w.workers.to_idle(s.builder)
            if s.geyser in self.w.harvest.resources:
                self.w.harvest.resources[s.geyser].refinery = 0
            self.supply.revision += 1
        self.w.harvest.forget(alive)

    # ------------------------------------------------------------------ worker jobs
    # ------------------------------------------------------------------ structures
    def _structure_event(self, s: Structure, seq: int, t: int) -> None:
        if not s.ready and s.since >= 0 and s.done + (t - s.since) >= s.build_loops:
            s.done = s.build_loops
            s.since = -1
            self._complete(s, t)
        self.w.production.on_event(s, t)

    def _complete(self, s: Structure, t: int) -> None:
        u = self.w.u
        r = u.row(s.tag)
        if r >= 0:
            u.hp[r] = TYPES.hp_max[u.ti[r]]
        self.supply.revision += 1
        b = s.builder
        s.builder = 0
        if b in self.w.workers.jobs:
            self.w.workers.jobs.pop(b)
            of_type(s.unit_id).on_structure_complete(self.w, s, b, t)

    # ------------------------------------------------------------------ construction
    def arrive(self, r: int, tag: int, job: Job, t: int) -> None:
        u = self.w.u
        owner = int(u.owner[r])
        uid = BUILDS[job.build]
        spec = D.UNIT_BY_ID[uid]
        x, y = job.site
        geyser = 0
        if uid in GAS_STRUCTURES:
            geyser = job.geyser
            res = self.w.harvest.resources.get(geyser)
            ok = res is not None and res.refinery == 0
        else:
            ok = self.w.placement.check(job.build, x, y) == SUCCESS
        if not ok or self.supply.afford(owner, spec.minerals, spec.vespene) != SUCCESS:
            self.w.workers.to_idle(tag)  # the real client shows an error and the SCV stops
            return
        self.supply.pay(owner, spec.minerals, spec.vespene)
        stag = int(self.w.spawn(uid, owner, [x], [y])[0])
        s = Structure(stag, uid, owner, x, y, float(spec.build_time), 0.0, since=t, builder=tag, geyser=geyser)
        self.structures[stag] = s
        if geyser:
            self.w.harvest.resources[geyser].refinery = stag
        sr = u.row(stag)
        u.hp[sr] = spec.hp * CONSTRUCTION_START_LIFE
        self.w.events.push(t + int(math.ceil(s.build_loops)), stag)
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
        if queue and ability not in TRAINS and all(t in self.w.workers.jobs for t in tags):
            # shift-queued behind economy jobs: runs when the job ends (see _run_pending)
            for t in tags:
                self.w.workers.pending.setdefault(t, []).append((ability, target_pos, target_tag))
            return SUCCESS
        if not queue:
            for t in tags:
                self.w.workers.pending.pop(t, None)
        if ability in TRAINS:
            return self.w.production.train(player, ability, rows)
        if ability in RALLY_ABILITIES:
            return self.w.production.rally(rows, target_pos, target_tag)
        if ability in CANCEL_LAST_ABILITIES:
            return self.w.production.cancel_last(player, rows)
        workers = rows[np.isin(types, _WORKER_ARRAY)]
        if ability in BUILDS:
            if len(workers) == 0:
                return ERROR
            return self._build(player, ability, int(workers[0]), target_pos, target_tag)
        if ability in GATHER_ABILITIES:
            if trow < 0:
                return MUST_TARGET_UNIT
            return self.w.harvest.gather_cmd(player, workers, target_tag, queue)
        if ability in RETURN_ABILITIES:
            return self.w.harvest.return_cmd(workers)
        if ability == D.SMART:
            structs = rows[np.isin(types, _PRODUCER_ARRAY)]
            if len(structs) and len(structs) == len(rows):
                return self.w.production.rally(rows, target_pos, target_tag)
            if trow >= 0 and len(workers) == len(rows):
                tt = target_tag
                if tt in self.w.harvest.resources or (tt in self.structures and self.structures[tt].unit_id in GAS_STRUCTURES):
                    return self.w.harvest.gather_cmd(player, workers, tt, queue)
                s = self.structures.get(tt)
                if s is not None and s.owner == player:
                    if s.unit_id in TOWNHALLS and s.ready:
                        return self.w.harvest.return_cmd(workers)
                    if not s.ready and s.builder == 0:
                        return self._resume(int(workers[0]), s)
        # not an economy command: the units leave their economy jobs
        self.w.workers.leave_jobs(rows)
        return None

    def _build(self, player: int, ability: int, r: int, target_pos: tuple[float, float] | None,
               target_tag: int) -> int:
        uid = BUILDS[ability]
        spec = D.UNIT_BY_ID[uid]
        if spec.tech_requirement and not self.ready_of(player, spec.tech_requirement):
            return BUILD_TECH_REQUIREMENTS_NOT_MET
        if uid in GAS_STRUCTURES:
            if not target_tag:
                return MUST_TARGET_UNIT
            res = self.w.harvest.resources.get(target_tag)
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
        old = self.w.workers.jobs.get(tag)
        self.w.workers.release(tag)
        job = Job(WALK_SITE, int(u.unit_id[r]), target=target_tag, build=ability, site=site, geyser=target_tag)
        if old is not None:
            self.w.harvest.keep_cargo(tag, old)
        self.w.workers.jobs[tag] = job
        self.w.workers.set_order(r, tag, ability)
        rad = FOOTPRINT[uid][0] * math.sqrt(2.0) if uid not in GAS_STRUCTURES else D.UNIT_BY_ID[D.VESPENEGEYSER].radius
        self.w.workers.walk(tag, job, float(u.x[r]), float(u.y[r]), site[0], site[1], rad, self.w.events.now, world_event=True)
        self.supply.revision += 1
        return SUCCESS

    def _resume(self, r: int, s: Structure) -> int:
        u = self.w.u
        tag = int(u.tag[r])
        self.w.workers.release(tag)
        job = Job(BUILDING, int(u.unit_id[r]), target=s.tag, build=D.UNIT_BY_ID[s.unit_id].creation_ability,
                  site=(s.x, s.y))
        self.w.workers.jobs[tag] = job
        self.w.workers.set_order(r, tag, job.build)
        s.builder = tag
        s.since = self.w.events.now
        self.w.events.push(self.w.events.now + int(math.ceil(s.build_loops - s.done)), s.tag)
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
                if affordable(t) and (not spec.tech_requirement or self.ready_of(player, spec.tech_requirement)):
                    out.append((ab, t not in rules.gas_structures))
            out.append((rules.gather_ability, False))
            if self.w.harvest.can_return(tag):
                out.append((rules.return_ability, False))
            return out
        s = self.structures.get(tag)
        if s is None or not s.ready:
            return out
        self.w.production.available(player, s, out)
        return out

    # ------------------------------------------------------------------ observation
    def construction_life(self) -> None:
        """Structures under construction gain life with their progress (10% to 100%)."""
        u = self.w.u
        for s in self.structures.values():
            if s.since >= 0 and not s.ready:
                r = u.row(s.tag)
                if r >= 0:
                    p = s.progress(self.w.events.now)
                    hp_max = float(TYPES.hp_max[u.ti[r]])
                    u.hp[r] = hp_max * (CONSTRUCTION_START_LIFE + (1 - CONSTRUCTION_START_LIFE) * p)

    def unit_extras(self, player: int) -> dict[int, bytes]:
        """Extra ``Unit`` field bytes per row: resources' contents, structures' build progress,
        harvester counts and training orders, workers' orders and carry buffs.  Appended after
        the fixed record (a later scalar field wins, so ``build_progress`` overrides the 1.0)."""
        u = self.w.u
        loop = self.w.events.now
        parts: dict[int, bytes] = {}
        for st in self.structures.values():
            b = b""
            if not st.ready:
                b += struct.pack("<Bf", 0x4D, st.progress(loop))
            if b:
                parts[st.tag] = b
        self.w.production.extras(player, parts)
        self.w.harvest.extras(player, parts)
        self.w.workers.extras(player, parts)
        self.w.harvest.cargo_extras(parts)
        if not parts:
            return {}
        rows = u.rows(np.fromiter(parts, dtype=np.int64, count=len(parts))).tolist()
        return {r: b for r, b in zip(rows, parts.values(), strict=True) if r >= 0}
