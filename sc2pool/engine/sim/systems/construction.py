"""Construction: placing structures and growing them.

Rules (real-game facts; sources in ``docs/economy.md``): the worker walks to the site; on arrival
placement and cost are checked again and paid, the structure appears with build progress 0 and
10% life and grows to full life with its progress.  How the builder behaves is its race's rule
(:attr:`sc2pool.engine.sim.races.base.RaceRules.construction`); the simulated one is Terran's:
the structure grows while its SCV stays, pauses when the SCV leaves until an SCV resumes it
(smart on it), and on completion the race decides what the builder does next
(:meth:`~sc2pool.engine.sim.races.base.RaceRules.on_structure_complete`).  Where a structure may
stand is the placement system's answer.  This system also keeps the registry of the economy's
structures (their construction and production state).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.commands import (
    BUILD_TECH_REQUIREMENTS_NOT_MET,
    CANT_BUILD_ON_THAT,
    ERROR,
    MUST_TARGET_UNIT,
    SUCCESS,
)
from sc2pool.engine.sim.races import BUILDS, GAS_STRUCTURES, of_type
from sc2pool.engine.sim.races.base import BUILDER_CONSUMED, BUILDER_LEAVES
from sc2pool.engine.sim.systems.alerts import ADDON_COMPLETE, BUILDING_COMPLETE
from sc2pool.engine.sim.systems.harvest import GEYSER_TYPES, MINERAL_TYPES
from sc2pool.engine.sim.systems.placement import half_size, has_footprint, snap
from sc2pool.engine.sim.systems.workers import BUILDING, WALK_SITE, Job
from sc2pool.engine.sim.units import TYPES

if TYPE_CHECKING:
    import numpy as np

    from sc2pool.engine.sim.races import RaceRules
    from sc2pool.engine.sim.world import World

CONSTRUCTION_START_LIFE = 0.1
"""A structure appears with 10% of its life and gains the rest with its build progress."""
ADDON_TYPES = frozenset(tech.satisfies(tech.TECHLAB)) | frozenset(tech.satisfies(tech.REACTOR))
"""Tech Labs and Reactors, free or attached (the client's ``tech_alias``): finishing one is
``AddOnComplete`` rather than ``BuildingComplete`` (``systems/alerts.py``)."""


@dataclass
class Structure:
    """A structure of the economy: its construction and its production queue."""

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
    starts: list[int] = field(default_factory=list)
    """The loop each entry in production started, for the first ``len(starts)`` entries of
    ``queue`` (one at a time; two with a Reactor)."""
    rally_pos: tuple[float, float] | None = None
    rally_tag: int = 0
    geyser: int = 0
    addon: int = 0
    """Tag of the add-on attached to it (or being built for it), 0: none."""
    host: int = 0
    """An add-on: the tag of the structure it belongs to, 0: none."""
    morph: tuple[int, int, int, int] | None = None
    """An upgrade in place under way: (ability, product type, start loop, end loop)."""
    mode: int = 0
    """The ability of a form change under way (lifting off, landing: ``systems/modes.py``), 0: none."""
    life_set: float = -1.0
    """The life :meth:`Construction.life` last gave it under construction (-1: none yet)."""
    life_lost: float = 0.0
    """Life it lost under construction (damage less healing): its progress's life does not restore it."""

    @property
    def busy(self) -> bool:
        """Producing, upgrading in place, lifting off or landing: it can start nothing else but
        queue more units."""
        return bool(self.queue) or self.morph is not None or self.mode != 0

    def progress(self, loop: int) -> float:
        d = self.done + (loop - self.since if self.since >= 0 else 0)
        return min(1.0, d / self.build_loops) if self.build_loops > 0 else 1.0

    @property
    def ready(self) -> bool:
        return self.done >= self.build_loops


@cache
def _counts_as(unit_id: int) -> frozenset[int]:
    return frozenset(tech.satisfies(unit_id))


@cache
def price(ability: int) -> tuple[int, int]:
    """(minerals, vespene) a build order costs: the structure's client cost, less the Drone a
    Zerg structure consumes (``data.tech.BUILD``; LP:Spawning_Pool: 200, the client's 250 counts
    the Drone)."""
    b = tech.BUILD.get(ability)
    if b is not None and b.builder_consumed:
        return b.minerals, b.vespene
    spec = D.unit_spec(BUILDS[ability])
    return spec.minerals, spec.vespene


def _note_loss(s: Structure, life: float) -> None:
    """Add what the structure's life changed by since :meth:`Construction.life` last set it
    (damage, healing; ``life``: its life now) to its ``life_lost``."""
    if s.life_set >= 0:
        s.life_lost += s.life_set - life


def _grow(structures: dict[int, Structure], rows: dict[int, int], hp: np.ndarray, ti: np.ndarray,
          now: int) -> None:
    """The life of :meth:`Construction.life` (``native.grow_life`` is the C twin): every structure
    under construction whose unit (row ``rows[tag]``) is alive gets the life of its progress at
    loop ``now``, less what it lost meanwhile, into ``hp`` (``ti``: the units' type rows)."""
    for s in structures.values():
        if s.since >= 0 and not s.ready:
            r = rows.get(s.tag, -1)
            if r >= 0 and hp[r] > 0:  # (one at 0 dies with this loop's deaths)
                _note_loss(s, float(hp[r]))
                p = s.progress(now)
                hp_max = float(TYPES.hp_max[ti[r]])
                life = hp_max * (CONSTRUCTION_START_LIFE + (1 - CONSTRUCTION_START_LIFE) * p)
                hp[r] = min(life - s.life_lost, hp_max) if s.life_lost else life
                s.life_set = float(hp[r])


class Construction:
    """The economy's structures, keyed by tag; building them."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.structures: dict[int, Structure] = {}

    # ------------------------------------------------------------------ set-up
    def add_structure(self, unit_id: int, owner: int, x: float, y: float, ready: bool = True) -> int:
        """A structure placed by a scenario (finished, or with no progress yet)."""
        tag = int(self.w.spawn(unit_id, owner, [x], [y])[0])
        spec = D.unit_spec(unit_id)
        self.structures[tag] = Structure(tag, unit_id, owner, x, y, float(spec.build_time),
                                         float(spec.build_time) if ready else 0.0)
        self.w.supply.revision += 1
        return tag

    def adopt(self, tag: int, unit_id: int, owner: int, x: float, y: float) -> bool:
        """A unit created outside the economy (debug create_unit): a structure the economy knows
        (one with a footprint) joins it finished.  Returns whether it did."""
        if has_footprint(unit_id) and unit_id not in MINERAL_TYPES and unit_id not in GEYSER_TYPES:
            bt = float(D.unit_spec(unit_id).build_time)
            self.structures[tag] = Structure(tag, unit_id, owner, x, y, bt, bt)
            return True
        return False

    def forget(self, alive: set[int]) -> None:
        """Drop structures whose unit is gone (their builder stops, their geyser is free)."""
        workers, resources = self.w.workers, self.w.harvest.resources
        for tag in [t for t in self.structures if t not in alive]:
            s = self.structures.pop(tag)
            if s.builder in workers.jobs:  # its construction is gone: the SCV stops
                workers.to_idle(s.builder)
            if s.geyser in resources:
                resources[s.geyser].refinery = 0
            self.w.supply.revision += 1

    def ready_of(self, player: int, unit_id: int) -> bool:
        """Whether the player has a finished structure that counts as ``unit_id`` for a tech
        requirement: one of that type, or of a type the client says stands for it (a lowered
        supply depot for a depot, an Orbital Command for a Command Center)."""
        counts = _counts_as(unit_id)
        return any(s.owner == player and s.unit_id in counts and s.ready for s in self.structures.values())

    # ------------------------------------------------------------------ commands
    def available(self, player: int, rules: RaceRules, out: list[tuple[int, bool]]) -> None:
        """Append the build abilities of a worker of ``rules``' race the player can afford and
        has the tech for (a gas structure targets a geyser, the others a point)."""
        supply = self.w.supply
        for ab, t in rules.builds.items():
            spec = D.unit_spec(t)
            if supply.afford(player, *price(ab)) == SUCCESS and \
                    (not spec.tech_requirement or self.ready_of(player, spec.tech_requirement)):
                out.append((ab, t not in rules.gas_structures))

    def build(self, player: int, ability: int, r: int, target_pos: tuple[float, float] | None,
              target_tag: int) -> int:
        """The worker of row ``r`` goes to build the structure of ``ability`` at ``target_pos``
        (a gas structure: on the geyser ``target_tag``)."""
        uid = BUILDS[ability]
        spec = D.unit_spec(uid)
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
            hx, hy = half_size(uid)
            site = (snap(target_pos[0], hx), snap(target_pos[1], hy))
            res_code = self.w.placement.check(ability, *site, player)
            if res_code != SUCCESS:
                return res_code
        res_code = self.w.supply.afford(player, *price(ability))
        if res_code != SUCCESS:
            return res_code
        u = self.w.u
        workers = self.w.workers
        tag = int(u.tag[r])
        old = workers.jobs.get(tag)
        workers.release(tag)
        job = Job(WALK_SITE, int(u.unit_id[r]), target=target_tag, build=ability, site=site, geyser=target_tag)
        if old is not None:
            self.w.harvest.keep_cargo(tag, old)
        workers.jobs[tag] = job
        workers.set_order(r, tag, ability)
        rad = half_size(uid)[0] * math.sqrt(2.0) if uid not in GAS_STRUCTURES else D.unit_spec(D.VESPENEGEYSER).radius
        workers.walk(tag, job, float(u.x[r]), float(u.y[r]), site[0], site[1], rad, self.w.events.now,
                     world_event=True)
        self.w.supply.revision += 1
        return SUCCESS

    def resume(self, r: int, s: Structure) -> int:
        """The worker of row ``r`` resumes building ``s`` (left by its builder)."""
        u = self.w.u
        workers = self.w.workers
        now = self.w.events.now
        tag = int(u.tag[r])
        workers.release(tag)
        job = Job(BUILDING, int(u.unit_id[r]), target=s.tag, build=D.unit_spec(s.unit_id).creation_ability,
                  site=(s.x, s.y))
        workers.jobs[tag] = job
        workers.set_order(r, tag, job.build)
        s.builder = tag
        s.since = now
        self.w.events.push(now + int(math.ceil(s.build_loops - s.done)), s.tag)
        return SUCCESS

    # ------------------------------------------------------------------ events
    def arrive(self, r: int, tag: int, job: Job, t: int) -> None:
        """The builder of row ``r`` reached its site at loop ``t``: placement (an enemy ground unit on
        the footprint too: :meth:`Placement.enemy_in_the_way`) and cost are checked again and paid,
        the structure appears and starts growing (else the builder stops)."""
        w = self.w
        u = w.u
        owner = int(u.owner[r])
        uid = BUILDS[job.build]
        spec = D.unit_spec(uid)
        x, y = job.site
        geyser = 0
        if uid in GAS_STRUCTURES:
            geyser = job.geyser
            res = w.harvest.resources.get(geyser)
            ok = res is not None and res.refinery == 0
        else:
            ok = w.placement.check(job.build, x, y, owner) == SUCCESS and \
                not w.placement.enemy_in_the_way(uid, x, y, owner)
        if not ok or w.supply.afford(owner, *price(job.build)) != SUCCESS:
            w.workers.to_idle(tag)  # the real client shows an error and the SCV stops
            return
        w.supply.pay(owner, *price(job.build))
        stag = int(w.spawn(uid, owner, [x], [y])[0])
        s = Structure(stag, uid, owner, x, y, float(spec.build_time), 0.0, since=t, builder=tag, geyser=geyser)
        self.structures[stag] = s
        if geyser:
            w.harvest.resources[geyser].refinery = stag
        sr = u.row(stag)
        u.hp[sr] = spec.hp * CONSTRUCTION_START_LIFE
        s.life_set = float(u.hp[sr])
        w.events.push(t + int(math.ceil(s.build_loops)), stag)
        if of_type(uid).construction == BUILDER_LEAVES:
            self._builder_leaves(s, tag)
            return
        job.phase = BUILDING
        job.target = stag
        job.seq = 0
        w.supply.revision += 1
        if of_type(uid).construction == BUILDER_CONSUMED:
            self._consume_builder(tag, s)

    def _consume_builder(self, tag: int, s: Structure) -> None:
        """A Zerg Drone turns into the structure it started: it is removed (reported dead, as
        the real client does since s2client-api#180) and the structure grows alone; the Drone's
        type is kept for a cancel (``systems/zerg_abilities.py``)."""
        w = self.w
        w.workers.jobs.pop(tag, None)
        s.builder = 0
        r = w.u.row(tag)
        if r >= 0:
            w.zerg.builders[s.tag] = int(w.u.unit_id[r])
        w.remove_tags([tag])

    def _builder_leaves(self, s: Structure, tag: int) -> None:
        """A Protoss structure started warping in: it grows on its own and the Probe is free at
        once (idle, or on the command queued behind the build), LP:Probe."""
        s.builder = 0  # (its shields start full (m); its life grows as every structure's)
        self.w.workers.to_idle(tag)
        self.w.supply.revision += 1

    def builder_left(self, tag: int, job: Job) -> None:
        """The worker ``tag`` left the structure it was building: construction pauses."""
        s = self.structures.get(job.target)
        if s is not None and s.builder == tag:
            if s.since >= 0:
                s.done += self.w.events.now - s.since
            s.since = -1
            s.builder = 0

    def on_event(self, s: Structure, t: int) -> None:
        """The structure's event at loop ``t``: its construction may be complete."""
        if not s.ready and s.since >= 0 and s.done + (t - s.since) >= s.build_loops:
            s.done = s.build_loops
            s.since = -1
            self._complete(s, t)

    def _complete(self, s: Structure, t: int) -> None:
        u = self.w.u
        r = u.row(s.tag)
        if r >= 0 and u.hp[r] > 0:
            _note_loss(s, float(u.hp[r]))
            hp_max = float(TYPES.hp_max[u.ti[r]])
            u.hp[r] = hp_max - max(s.life_lost, 0.0) if s.life_lost else hp_max
            self.w.alerts.add(s.owner, ADDON_COMPLETE if s.unit_id in ADDON_TYPES else BUILDING_COMPLETE)
        self.w.supply.revision += 1
        b = s.builder
        s.builder = 0
        jobs = self.w.workers.jobs
        if b in jobs:
            jobs.pop(b)
            of_type(s.unit_id).on_structure_complete(self.w, s, b, t)

    def life(self) -> None:
        """Structures under construction gain life with their progress (10% to 100%); the life
        they lost meanwhile (attacked while being built) stays lost, as in the real game, where
        only repair, regeneration or healing give it back: the growth adds to what is left
        rather than resetting it (else an SCV building a Command Center outheals any attack)."""
        u = self.w.u
        if _native is None:
            _grow(self.structures, u.row_index(), u.hp, u.ti, self.w.events.now)
        else:
            _native.grow_life(self.structures, u.row_index(), u.hp, u.ti, TYPES.hp_max, self.w.events.now,
                              CONSTRUCTION_START_LIFE)

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """Append the build progress of unfinished structures to ``parts`` (a later scalar field
        wins, so it overrides the fixed record's 1.0)."""
        loop = self.w.events.now
        for st in self.structures.values():
            if not st.done >= st.build_loops:  # (not ``ready``, without a property call per structure)
                parts[st.tag] = parts.get(st.tag, b"") + struct.pack("<Bf", 0x4D, st.progress(loop))
