"""The World: the unit store of one game and the loop that runs the systems over it.

The World owns the unit store (:mod:`sc2pool.engine.sim.units`), constructs every system
(:mod:`sc2pool.engine.sim.systems`), and runs them in a fixed order:

- :meth:`World.step_loop`, one game loop of the combat systems: targeting (who attacks whom),
  combat (weapons fire, hits land), locomotion (walkers move, go round blockers), collision
  (ground units keep apart; a group sent to a point ends as a ball), then combat's damage and
  deaths;
- :meth:`World.quiet_horizon` / :meth:`World.fast_forward`: quiet stretches (only straight-line
  movement, or a standing fight where only cooldowns count down) are skipped exactly;
- after either, regeneration (Zerg life, Protoss shields) over the loops advanced
  (:mod:`sc2pool.engine.sim.systems.regeneration`);
- :meth:`World.advance_economy`: the event-driven economy systems (workers, harvest, production,
  construction) process their events up to the world's loop, in loop order, on one clock
  (:mod:`sc2pool.engine.sim.events`), then each player's race upkeep runs.

:meth:`World.horizon` and :meth:`World.advance` are what the game calls: a chunk of loops
bounded by both.  Commands enter through :meth:`World.command` (:mod:`sc2pool.engine.sim.commands`).
The rules each system simulates are in its own module; the layout and how a command travels
through it: ``docs/engine.md``, "How the engine is laid out".
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

try:  # the C function behind np.count_nonzero, without its Python dispatch (called ~100 times a loop)
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

from sc2pool.engine.maps import MapSpec
from sc2pool.engine.sim.commands import CommandPath
from sc2pool.engine.sim.events import EventQueue
from sc2pool.engine.sim.races import PROTOSS, ZERG, NotSimulatedError, RaceRules
from sc2pool.engine.sim.systems.abilities import Abilities
from sc2pool.engine.sim.systems.addons import AddOns
from sc2pool.engine.sim.systems.alerts import Alerts
from sc2pool.engine.sim.systems.barrier import Barrier
from sc2pool.engine.sim.systems.casting import Casting
from sc2pool.engine.sim.systems.collision import Collision
from sc2pool.engine.sim.systems.combat import Combat
from sc2pool.engine.sim.systems.construction import Construction
from sc2pool.engine.sim.systems.creep import Creep
from sc2pool.engine.sim.systems.detection import Detection
from sc2pool.engine.sim.systems.effects import Effects
from sc2pool.engine.sim.systems.harvest import Harvest
from sc2pool.engine.sim.systems.larva import Larva
from sc2pool.engine.sim.systems.locomotion import Locomotion
from sc2pool.engine.sim.systems.modes import Modes
from sc2pool.engine.sim.systems.morph import Morph
from sc2pool.engine.sim.systems.nydus import Nydus
from sc2pool.engine.sim.systems.pathing import SKIP, Pathing
from sc2pool.engine.sim.systems.placement import Placement
from sc2pool.engine.sim.systems.power import Power
from sc2pool.engine.sim.systems.production import Production
from sc2pool.engine.sim.systems.protoss_abilities import ProtossAbilities
from sc2pool.engine.sim.systems.recall import Recall
from sc2pool.engine.sim.systems.regeneration import Regeneration
from sc2pool.engine.sim.systems.repair import Repair
from sc2pool.engine.sim.systems.research import Research
from sc2pool.engine.sim.systems.stasis import Stasis
from sc2pool.engine.sim.systems.supply import Supply
from sc2pool.engine.sim.systems.targeting import Targeting
from sc2pool.engine.sim.systems.tempo import Tempo
from sc2pool.engine.sim.systems.transport import Transport
from sc2pool.engine.sim.systems.vision import Vision
from sc2pool.engine.sim.systems.warpgate import WarpGates
from sc2pool.engine.sim.systems.workers import Workers
from sc2pool.engine.sim.systems.zerg_abilities import ZergAbilities
from sc2pool.engine.sim.units import (
    ATTACK_UNIT,
    EXPLODE,
    FOLLOW,
    N_KINDS,
    NEUTRAL_OWNER,
    NO_DEATHS,
    PATROL,
    POINT_KINDS,
    TYPES,
    Deaths,
    UnitStore,
)

# Order kinds that keep a unit busy every loop (the world steps loop by loop while any has one).
_BUSY_LUT = np.zeros(N_KINDS, dtype=bool)
_BUSY_LUT[[ATTACK_UNIT, FOLLOW, EXPLODE]] = True



class World:
    """The units on one map and the systems that move them (see the module docstring)."""

    def __init__(self, mapspec: MapSpec) -> None:
        self.map = mapspec
        self.u = UnitStore()
        self.loop = 0
        self._static_until = 0
        self._r_all_version = -1
        self._r_all = np.nan
        self._any_suicide = False
        self._any_shields = False
        self.rng = np.random.default_rng(0)
        """Draws the weapons' random cooldown changes (the scenario seeds it per episode)."""
        self.dead_tags: list[int] = []
        """Every tag that ever died or was removed, in order (observations report slices of it)."""
        self.alerts = Alerts(self)
        """Each player's alerts not observed yet (output only: the systems raise them where the
        events happen)."""
        # the systems, each holding its own caches over the shared store
        self.commands = CommandPath(self)
        self.pathing = Pathing(self)
        self.vision = Vision(self)
        self.targeting = Targeting(self)
        self.combat = Combat(self)
        self.barrier = Barrier(self)
        self.collision = Collision(self)
        self.locomotion = Locomotion(self)
        self.placement = Placement(self)
        self.morph = Morph(self)
        self.modes = Modes(self)
        self.transport = Transport(self)
        self.nydus = Nydus(self)
        """The Zerg Nydus Networks and Worms: one shared cargo per player (in ``transport.pools``)."""
        self.regeneration = Regeneration(self)
        # the economy (scenarios with workers and production start it: start_economy)
        self.has_economy = False
        self.races: dict[int, RaceRules] = {}
        """The race of each player with an economy (its per-loop upkeep; a unit itself follows
        its own type's race rules)."""
        self.events = EventQueue()
        self.supply = Supply(self)
        self.workers = Workers(self)
        self.harvest = Harvest(self)
        self.production = Production(self)
        self.construction = Construction(self)
        self.addons = AddOns(self)
        self.research = Research(self)
        self.casting = Casting(self)
        """Every race's "walk into range, then cast" orders (the race modules register their casts)."""
        self.abilities = Abilities(self)
        self.detection = Detection(self)
        self.repair = Repair(self)
        # Protoss: power fields, the speed of structures (Chrono Boost, no power), Warp Gates
        self.power = Power(self)
        self.tempo = Tempo(self)
        self.warpgates = WarpGates(self)
        self.protoss = ProtossAbilities(self)
        """Protoss units' casts: Blink, Charge, shades, Guardian Shield, Psionic Storm, Feedback, Archons."""
        self.recall = Recall(self)
        """The Nexus's and the Mothership's Strategic Recall (their casts go through ``casting``)."""
        self.stasis = Stasis(self)
        """The Oracles' Stasis Wards and the units they hold."""
        # Zerg: larvae and eggs, creep, the Queens' casts (run by the Zerg race's upkeep)
        self.larva = Larva(self)
        self.creep = Creep(self)
        self.zerg = ZergAbilities(self)
        self.has_zerg = False
        """Whether a player of the economy plays Zerg (its systems then run)."""
        self.effects = Effects(self)
        """The spells on the map as the observation reports them (reads the race modules' state)."""
        self._econ_version = -1

    # ------------------------------------------------------------------ spawning / removal
    def spawn(self, unit_id: int, owner: int, xs: np.ndarray | list[float], ys: np.ndarray | list[float],
              facing: float = 0.0, free: bool = False) -> np.ndarray:
        """Add units of one type at the given points (clamped to the playable area); returns their
        tags.  With ``free`` a ground unit whose point is taken goes to the nearest free spot
        instead (:meth:`Collision.free_spots`), as units created by the map's triggers do; on a
        ladder map a ground unit always appears on a free cell (the nearest one to its point)."""
        xs = np.asarray(xs, dtype=np.float64).copy()
        ys = np.asarray(ys, dtype=np.float64).copy()
        ti = TYPES.row(unit_id)
        self.map.clamp(xs, ys, float(TYPES.radius[ti]))
        if self.pathing.active and TYPES.speed[ti] > 0 and not (TYPES.is_flying[ti] or TYPES.structure[ti]
                                                                or TYPES.neutral[ti]):
            xs, ys = self.pathing.free_points(xs, ys)  # ground units stand on free cells
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
        loop = self.loop
        self._static_until = 0
        u = self.u
        if len(u) == 0:
            return NO_DEATHS

        # --- targets: explicit (attack unit / follow) and automatic, resolved in one pass
        tgt, has_t, in_range, follow, tsafe, xy2, dx, dy = self.targeting.resolve(loop)

        # --- fire: weapons that are ready fire, hits due land
        damage, died, fire, explode = self.combat.fire(loop, in_range, tgt, dx, dy)
        if self.transport.armed:  # units inside Bunkers fire from them
            damage = self.transport.fire(loop, damage)

        # --- movement: walkers to their points or targets, going round blockers
        moved, walking, point_goal, pg, chase, mobile = self.locomotion.move(loop, has_t, in_range, follow, tsafe,
                                                                             xy2)

        # --- collision: ground units keep apart; a group sent to one point ends as a ball
        if self.collision.active():
            steer = self.locomotion.steering(pg, xy2) if len(pg) else None
            if self.collision.separate(loop, walking, in_range, mobile, steer, chase):
                moved = True
                if len(pg):
                    self.locomotion.arrive_by_crowding((point_goal & (u.kind != PATROL)).nonzero()[0])

        # --- terrain: nobody ends the loop on a blocked cell (pushed, gone round, built over)
        if self.pathing.active and self.pathing.project():
            moved = True

        # --- damage and deaths
        if damage is not None:
            d = self.combat.deaths(damage, died)
            if self.combat.spawns:  # (Broodlings where the Brood Lords' hits landed: new rows)
                self.combat.spawn_pending()
                return d if d is not None else NO_DEATHS
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

    # ------------------------------------------------------------------ shared by the systems
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

    def wake(self, row: int) -> None:
        """One unit's weapon or orders changed outside the loop: it looks for a target at the next
        loop and the world no longer skips loops as static (cheaper than :meth:`touch`, which
        also drops every unit's path segments and the collision cache)."""
        self._static_until = 0
        self.u.scan[row] = 0

    def touch(self) -> None:
        """Something outside the loop changed units, positions or orders: forget the shortcuts
        (static fight, scheduled target scans)."""
        self._static_until = 0
        self.collision.forget_loop()
        self.u.scan[:] = 0
        self.u.seg[:] = -1

    # ------------------------------------------------------------------ the economy
    def start_economy(self, races: Mapping[int, RaceRules], minerals: int = 50, vespene: int = 0) -> None:
        """Give the players of ``races`` (player id -> race) an economy with these resources:
        ledgers, production, construction, harvesting.  Raises NotSimulatedError for a race whose
        economy the engine does not simulate yet."""
        for player, rules in races.items():
            if not rules.economy_simulated:
                raise NotSimulatedError(f"player {player}: the {rules.name} economy is not simulated yet")
        players = tuple(races)
        self.races.update(races)
        if any(r is PROTOSS for r in races.values()):  # (power fields, Chrono Boost, Warp Gates)
            self.power.active = True
        self.has_zerg = any(r.race == ZERG.race for r in self.races.values())
        self.supply.open(players, minerals, vespene)
        self.production.open(players)
        self.events.now = self.loop
        self.has_economy = True

    def advance_economy(self) -> None:
        """Process the economy's events up to the world's loop in loop order (a worker's job
        event goes to the workers, a structure's to construction then production), place the
        walking workers, grow structures, run each player's race upkeep, then remove depleted
        fields."""
        u = self.u
        if u.version != self._econ_version:  # units were killed or removed: forget their records
            self._econ_version = u.version
            alive = set(u.tag.tolist())
            if self.transport.cargo or self.transport.pools:  # (units inside transports live on)
                alive |= self.transport.tags()
            self.workers.forget(alive)
            self.construction.forget(alive)
            self.addons.forget(alive)
            self.research.forget(alive)
            self.abilities.forget(alive)
            if self.casting.active:
                self.casting.forget(alive)
            self.harvest.forget(alive)
            self.placement.forget(alive)
            self._forget_protoss(alive)
            self._forget_zerg(alive)
        events = self.events
        jobs = self.workers.jobs
        structures = self.construction.structures
        to = self.loop
        while (e := events.pop_due(to)) is not None:
            t, seq, tag, _ = e
            job = jobs.get(tag)
            if job is not None:
                if job.seq == seq:  # (a job's earlier events are stale)
                    events.now = t
                    self.workers.on_event(tag, job, t)
                continue
            s = structures.get(tag)
            if s is not None:
                events.now = t
                if self.tempo.synced:  # (a boosted or unpowered structure's progress first)
                    self.tempo.sync(tag, t)
                self.construction.on_event(s, t)
                if s.morph is not None:
                    self.morph.on_event(s, t)
                self.production.on_event(s, t)
                self.research.on_event(tag, t)
        events.now = to
        self.workers.place_walkers(to)
        self.construction.life()
        for player, rules in self.races.items():
            rules.upkeep(self, player, to)
        if self.tempo.synced or self.tempo.boosted:
            self.tempo.upkeep(to)
        self.research.upkeep(to)
        self.abilities.upkeep(to)
        if self.casting.active:
            self.casting.upkeep(to)
        if self.zerg.burrowing or self.has_zerg or self.zerg.spells.active:
            self.zerg.upkeep(to)
        if self.power.active:  # (a Protoss player: new Carriers get their hangar)
            self.protoss.carriers(to)
        if self.protoss.busy:
            self.protoss.upkeep(to)
        if self.stasis.active:
            self.stasis.upkeep(to)
        self.harvest.flush()

    def _forget_protoss(self, alive: set[int]) -> None:
        # (the units' cooldowns, a dead Mothership's recall too, are the casting table's:
        # ``Abilities.forget`` has it drop the dead units' keys)
        if self.power.active or self.tempo.synced or self.tempo.boosted or self.warpgates.warping \
                or self.warpgates.cooldown:
            self.power.forget(alive)
            self.tempo.forget(alive)
            self.warpgates.forget(alive)
        if self.protoss.busy:
            self.protoss.forget(alive)

    def _forget_zerg(self, alive: set[int]) -> None:
        if self.larva.active or self.zerg.builders or self.zerg.spent or self.zerg.burrowing \
                or self.zerg.spells.active:
            self.larva.forget(alive)
            self.zerg.forget(alive)

    def _zerg_horizon(self) -> int:
        """Loops until the next larva, hatch, inject, creep change or Queen's cast."""
        h = 1 << 30
        if self.larva.active:
            h = min(h, self.larva.horizon(self.loop))
        if self.creep.active:
            h = min(h, self.creep.horizon(self.loop))
        if self.zerg.burrowing or self.zerg.spells.active:
            h = min(h, self.zerg.horizon(self.loop))
        return h

    def adopt(self, tags: np.ndarray) -> None:
        """Units created outside the economy (debug create_unit): a structure the economy knows
        joins it finished (it produces and provides supply), mineral fields and geysers can be
        mined."""
        u = self.u
        for tag, r in zip(tags.tolist(), u.rows(tags).tolist(), strict=True):
            if r < 0:
                continue
            uid = int(u.unit_id[r])
            x, y = float(u.x[r]), float(u.y[r])
            if not self.construction.adopt(tag, uid, int(u.owner[r]), x, y):
                self.harvest.adopt(tag, uid, x, y)
        self.supply.revision += 1

    def unit_extras(self, player: int) -> list[bytes] | None:
        """Extra ``Unit`` field bytes per row (``b""`` where a unit has none; None when no unit
        has any), from the economy systems: structures' build progress, production queues,
        harvester counts, resources' contents, workers' orders and carry buffs.  Appended after
        the fixed record (a later scalar field wins, so ``build_progress`` overrides the 1.0);
        each unit's fields in this order.  The resources' contents come per row, kept between
        observations (:meth:`Harvest.contents_rows`): the fields of the systems before them go
        in front of a unit's contents, the systems after them append theirs to the rows."""
        parts: dict[int, bytes] = {}
        self.construction.extras(player, parts)
        self.production.extras(player, parts)
        self.addons.extras(player, parts)
        self.morph.extras(player, parts)
        self.research.extras(player, parts)
        self.modes.extras(parts)
        self.abilities.extras(player, parts)
        if self.power.active:
            self.power.extras(player, parts)
            self.warpgates.extras(player, parts)
        if self.larva.active:
            self.larva.extras(player, parts)
        if self.has_zerg:
            self.zerg.extras(parts)
        if self.protoss.hallucinations:
            self.protoss.extras(player, parts)
        if self.stasis.held:
            self.stasis.extras(parts)
        if self.barrier.state:
            self.barrier.extras(parts)
        self.detection.extras(player, parts)
        self.transport.extras(player, parts)
        self.nydus.extras(player, parts)
        out = self.harvest.contents_rows().copy()
        row_of = self.u.row_index()
        for tag, b in parts.items():
            r = row_of.get(tag)
            if r is not None:  # (the parts of units gone since are dropped)
                out[r] = b + out[r]
        shown = self.harvest.extras(player, out)
        shown = self.workers.extras(player, out) or shown
        shown = self.harvest.cargo_extras(out) or shown
        if not shown and not parts and not self.harvest.resources:
            return None
        return out

    # ------------------------------------------------------------------ what the game calls
    def horizon(self) -> int:
        """Loops the world may advance in one go (>= 1): the combat systems' quiet stretch,
        bounded by the economy's next event that changes the set of units."""
        h = self.quiet_horizon()
        if h == 1:
            return 1  # (every bound below is >= 1: none can lower it)
        if self.has_economy:
            h = min(h, self.events.horizon(), self.research.horizon(self.loop), self.abilities.horizon(self.loop),
                    self._zerg_horizon())
            if self.tempo.synced or self.tempo.boosted:  # (Protoss: a boost ends, a boosted entry is done)
                h = min(h, self.tempo.horizon(self.loop))
            if self.warpgates.warping:  # (a unit warping in is ready)
                h = min(h, self.warpgates.horizon(self.loop))
            if self.casting.active:  # (a cast coming into range, a channel's end)
                h = min(h, self.casting.horizon(self.loop))
            if self.protoss.busy:  # (a Protoss cast in range, a shade's end, a storm's damage)
                h = min(h, self.protoss.horizon(self.loop))
            if self.stasis.active:  # (a ward arms, ends or may be reached; a stasis ends)
                h = min(h, self.stasis.horizon(self.loop))
        if self.modes.pending:  # (a form change ends at its loop)
            h = min(h, self.modes.horizon())
        if self.transport.active:  # (a Medivac's next drop, a salvage's end)
            h = min(h, self.transport.horizon())
        if self.nydus.active:  # (a unit coming out of a Nydus)
            h = min(h, self.nydus.horizon())
        return min(h, self.repair.horizon())  # (a burning structure's death; 1 << 30 when none burns)

    def advance(self, h: int) -> Deaths:
        """Advance ``h`` loops (within :meth:`horizon`): one loop of the combat systems, or a
        quiet stretch in one go, then the economy up to the new loop.  Returns the units that
        died in combat."""
        deaths = self.fast_forward(h) if h > 1 else self.step_loop()
        if self.modes.active:
            self.modes.update()
        if self.transport.active:
            deaths = deaths + self.transport.update()
        if self.nydus.active:
            deaths = deaths + self.nydus.update()
        if self.repair.active:
            deaths = deaths + self.repair.update(h)
        self.regeneration.update(h)  # (Zerg life, Protoss shields: after this chunk's damage)
        if self.has_economy:
            self.advance_economy()
        return deaths

    # ------------------------------------------------------------------ fast-forwarding quiet stretches
    def quiet_horizon(self) -> int:
        """How many loops can pass with nothing but straight-line movement and cooldowns (>= 1).

        Within a standing fight (the last loop moved nobody) it is the number of loops until the
        next weapon is ready.  Otherwise it is 1 while any unit has a target or an explicit
        attack/follow/explode order; else the earliest loop at which a hostile could enter some
        unit's acquisition range (closing at both units' full speed) or a moving unit could reach
        its goal.  Within that bound :meth:`fast_forward` equals stepping loop by loop.
        """
        terrain = self.pathing.active
        if terrain and _count(self.pathing.pending()):
            return 1  # new orders' paths are planned by the next loop's walkers (locomotion)
        bunkers = self.transport.quiet_bound() if self.transport.armed else 1 << 30
        if bunkers <= 1:
            return 1  # a Bunker fires (or may) now
        if self._static_until > self.loop:
            return min(self._static_until - self.loop, bunkers)
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
            st = self.locomotion.steer  # (a segment ends at the mover's waypoint on a ladder map)
            dist = np.hypot(u.F[st][m] - u.x[m], u.F[st + 1][m] - u.y[m])
            if terrain:  # (and before it comes near enough to head for the next one)
                dist = np.maximum(dist - SKIP, 0.0)
            h = min(h, int(np.min(np.ceil(dist / speed[m]))) - 1)
        if h > 1 and self.targeting.has_hostile_pairs():
            # conservative: every hostile closes in at the fastest speed on the map
            # (found anew each time: an Oracle's Pulsar Beam arms it without a new unit-set version)
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
        if h > 1 and terrain and (len(self.pathing.violators()) or
                                  (any_moving and not self.pathing.segments_free(m))):
            h = 1  # somebody stands on a blocked cell or walks into one: loop by loop
        h = max(1, min(h, bunkers))
        if not any_moving and h > 1 and bunkers == 1 << 30:
            # nobody moves and nobody can see a target: frozen until an order or a spawn
            self._static_until = self.loop + (1 << 30)
        return h

    def pathing_point(self, x: float, y: float) -> tuple[float, float]:
        """(x, y), or on a ladder map the nearest point a ground unit can stand on (a rally
        point on a cliff)."""
        if self.pathing.active:
            return self.pathing.nearest_point(x, y)
        return (x, y)

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
            self.locomotion.move_to_points(moving.nonzero()[0], self.loop, self.loop - h)
        return NO_DEATHS
