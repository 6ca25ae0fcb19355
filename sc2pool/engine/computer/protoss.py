"""The Protoss Computer's own rules: its structures stand in a finished Pylon's power field (a
Pylon first when none has room) and off its army's way out of each base; at the levels with army
control it defends first while the enemy army it reckons is stronger than its army at home
(:meth:`ProtossRules.defending`), its Nexuses cast Chrono Boost (:meth:`ProtossRules.chrono`) and
its Sentries Guardian Shield in a fight (:meth:`ProtossRules.shields`); from Hard up its Nexuses
overcharge a Shield Battery in a fight, before Chrono Boost spends their energy (Battery
Overcharge, :meth:`ProtossRules.overcharge`), and once Psionic Storm is researched (the Macro
build's last research, from Hard up) its High Templar storm clumps of enemy units
(:meth:`ProtossRules.storms`), and drain the casters they meet with Feedback
(:meth:`ProtossRules.feedbacks`).  Once Warp Gate is researched (its builds' first research, from
Medium up) its Gateways turn into Warp Gates (the engine's autocast) and it warps their units in
at its Pylons (:meth:`ProtossRules.warp_in`).

Where each hook is called: :class:`~.rules.RaceRules`; the Protoss facts (ids, builds):
:data:`~.races.PROTOSS_PROFILE`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.computer import levels as L
from sc2pool.engine.computer.levels import DEPOT, Tech
from sc2pool.engine.computer.races import BATTERY_T, NEXUS, POWER_MARGIN, POWER_RADIUS, WARPGATE_T, Role
from sc2pool.engine.computer.rules import MELEE_SHARE, TECH_STRUCTURES, RaceRules, reached, scouting, strength
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.commands import NOT_SUPPORTED, SUCCESS
from sc2pool.engine.sim.systems.protoss_abilities import (
    BATTERY_RANGE,
    FEEDBACK,
    FEEDBACK_ENERGY,
    FEEDBACK_RANGE,
    HIGH_TEMPLAR,
    STORM,
    STORM_ENERGY,
    STORM_RADIUS,
    STORM_RANGE,
    STORM_TECH,
)
from sc2pool.engine.sim.systems.warpgate import OVERCHARGE, OVERCHARGE_ENERGY
from sc2pool.engine.sim.units import TYPES

if TYPE_CHECKING:
    from sc2pool.engine.computer.melee import MeleeComputer
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

STORM_UPGRADE = STORM_TECH
STORM_REACH = STORM_RANGE + 1.0
"""A High Templar storms an enemy whose centre is this close (its cast range 9 and a step) (m)."""
STORM_MIN_SCORE = 3
"""... where the enemy units under the storm, less twice its own there, are at least this many (m)."""
STORM_SPACING = 3.0
"""... and no storm of its own is up (or cast this decision) this close (m: two storms do not stack)."""
FEEDBACK_REACH = FEEDBACK_RANGE + 1.0
"""A High Templar feeds back an enemy whose centre is this close (its cast range 10 and a step) (m)."""
FEEDBACK_MIN = 50.0
"""... that has at least this much energy (m: enough for a spell of its own, or 25 damage)."""
SHIELD_ENERGY = 75.0
"""Guardian Shield costs 75 energy (Liquipedia "Sentry")."""
CHRONO_ENERGY = 50.0
"""Chrono Boost costs 50 of a Nexus's energy (Liquipedia "Chrono Boost")."""
OVERCHARGE_REACH = BATTERY_RANGE + 1.0
"""From Hard up a finished Shield Battery is in a fight, and overcharged, with an enemy unit that can
attack (not a structure) whose centre is this close (m: its restore range 6, edge to edge, and a
step); a lone enemy worker near its Batteries is a scout, no fight (:func:`~.rules.scouting`)."""
SHIELD_REACH = 8.0
"""A Sentry casts it with an enemy this close (m: a Marine's range 5 and a step)."""
SHIELD_SPACING = 6.0
"""... and no shield of its player's up this close (m: a shield covers 4.5 round its Sentry)."""
WAY_OUT_RADIUS = 0.5
"""The way out of a base is planned for a unit this big (a Zealot); :data:`WAY_OUT_ROOM` either
side of it leaves room for the wider ones (m)."""
WAY_OUT_ROOM = 1.5
"""Its structures keep this far from the way out of each base (m)."""
DEFEND_MARGIN = 2.0
"""A build with a ``strength_margin`` (Protoss), at the levels with army control, defends first
while its army at home is weaker than this many times the enemy army it reckons (m: the reckoning
is short of what it has not seen; at 6:00 it counted about 27 of the reference bot's 40 Marines)."""
DEFEND_UNDER_WAY = 2
"""... with at most this many of them on their way or warping in at once (m)."""
_WARP_GATES = frozenset({WARPGATE_T})
WARP_RINGS = ((2.5, 8), (4.0, 12), (5.5, 16))
"""Where a unit is warped in round a Pylon (its power field: 6.5): (distance from its centre, spots
on that ring), the first free spot (m)."""
WARP_PYLONS = 3
"""... round at most this many Pylons, the nearest to where the army waits first (m)."""


class ProtossRules(RaceRules):
    """Power, the way out, defending first, Chrono Boost, Battery Overcharge (from Hard up),
    Guardian Shield, Psionic Storm, Feedback and warp-ins (see the module docstring)."""

    def __init__(self, computer: MeleeComputer) -> None:
        super().__init__(computer)
        self.ways: dict[int, np.ndarray] = {}
        """Base index -> points along its army's way out (:meth:`keeps_way_out`)."""

    # ------------------------------------------------------------------ economy
    def defending(self, world: World) -> bool:
        """Whether it defends first: a build with a ``strength_margin`` (Protoss), at the levels with
        army control, that has seen enemy army units and whose army at home is weaker than
        :data:`DEFEND_MARGIN` times the enemy army it reckons (:meth:`~.melee.MeleeComputer.enemy_strength`).
        Meanwhile it fills its production's queues first, trains no worker while a producer is idle
        and none beyond what its finished bases mine, starts no townhall, adds production
        (:meth:`more_production`, and from :data:`~.melee.DEFEND_SPILL` minerals) (the harder
        levels "defend better against rushes": :mod:`.levels`; the rules (m))."""
        c = self.c
        if not (c.build.strength_margin and c.level.focus_fire and c.enemy_army):
            return False  # (a Barracks seen is no reason to stop expanding: an army seen is)
        army = c.army_rows
        home = army[~c.members(world, c.wave)[army]]
        return strength(home, world.u, MELEE_SHARE) < DEFEND_MARGIN * c.enemy_strength()

    def defend_first(self, world: World, prod: dict[str, list[Structure]], building: dict[int, int]) -> bool:
        """Its army before more workers and structures: the production's queues, then (after the
        opener) :meth:`more_production`."""
        c = self.c
        tech = c.tech
        if tech is None:
            return True
        c.produce_tech(world, prod)
        return c.step < len(c.build.opener) or self.more_production(world, tech, prod, building)

    def more_production(self, world: World, tech: Tech, prod: dict[str, list[Structure]],
                        building: dict[int, int]) -> bool:
        """While it defends: one more of its build's ``spill`` structure (a Gateway) once every
        finished one is busy and fewer than :data:`DEFEND_UNDER_WAY` are on their way, within the
        level's cap on production, before more workers; False while it waits for the money (the
        caller keeps it)."""
        c = self.c
        rp = c.race
        w = tech.spill
        if not w or any(s.ready and not self.producing(world, s) for s in prod[w]) or \
                building.get(rp.roles[w].ability, 0) + sum(not s.ready for s in prod[w]) >= DEFEND_UNDER_WAY:
            return True
        total = sum(len(prod[p]) + building.get(rp.roles[p].ability, 0) for p in rp.production)
        if total >= c.level.max_barracks + TECH_STRUCTURES or not c.have_ready(rp.roles[w].needs):
            return True
        return c.place(world, w)

    def upkeep(self, world: World) -> None:
        """From Hard up, Battery Overcharge (:meth:`overcharge`) first thing of each economy decision:
        before its early returns (waiting for supply, defending first), and before Chrono Boost
        (:meth:`chrono`) spends its Nexuses' energy."""
        if self.c.difficulty >= L.HARD:
            self.overcharge(world)

    def overcharge(self, world: World) -> None:
        """In a fight, the finished Nexus with the most energy (:data:`~.warpgate.OVERCHARGE_ENERGY`
        at least) overcharges the finished Shield Battery with the most enemy units within
        :data:`OVERCHARGE_REACH`, while its player's cooldown allows it and none of its Batteries is
        overcharged already (m: the rule; Battery Overcharge, :mod:`~.sim.systems.warpgate`)."""
        c = self.c
        if OVERCHARGE in c.refused:
            return
        loop = world.loop
        gates = world.warpgates
        if not gates.may_overcharge(c.player_id, loop):
            return
        known = c.known
        batteries = [s for s in c.structs if s.unit_id == BATTERY_T and s.ready]
        if not batteries or not len(known) or any(gates.overcharged(s.tag, loop) for s in batteries):
            return
        u = world.u
        ti = u.ti[known]
        enemy = known[TYPES.can_attack[ti] & ~TYPES.structure[ti]]
        if not len(enemy):
            return
        near = reached(np.array([s.x for s in batteries]), np.array([s.y for s in batteries]),
                       u.x[enemy], u.y[enemy], OVERCHARGE_REACH)
        fighting = enemy[near.any(axis=0)]
        if not len(fighting) or scouting(fighting, u):
            return
        nexuses = [s for s in c.structs if s.unit_id == NEXUS and s.ready]
        energy = [world.abilities.energy_of(s.tag) for s in nexuses]
        if not nexuses or max(energy) < OVERCHARGE_ENERGY:
            return
        nexus = nexuses[int(np.argmax(energy))]
        battery = batteries[int(np.argmax(near.sum(axis=1)))]
        c.answer(world.command(c.player_id, OVERCHARGE, [nexus.tag], None, battery.tag, False), OVERCHARGE)

    def speed_up(self, world: World, ready_th: list[Structure], prod: dict[str, list[Structure]]) -> None:
        if self.c.race.chrono and self.c.level.focus_fire:
            self.chrono(world, ready_th, prod)

    def chrono(self, world: World, ready_th: list[Structure], prod: dict[str, list[Structure]]) -> None:
        """Each finished townhall with the energy boosts a busy structure not boosted yet: while it
        defends one of its army's producers, else a townhall training a worker, else a producer
        (Chrono Boost, Liquipedia "Chrono Boost")."""
        c = self.c
        rp = c.race
        if rp.chrono in c.refused:
            return
        boosted = world.tempo.boosted
        army = [s for w in rp.production for s in prod[w]
                if s.ready and self.producing(world, s) and s.tag not in boosted]
        workers = [s for s in ready_th if s.queue and s.tag not in boosted]
        targets = army + workers if c.defend else workers + army
        for th in ready_th:
            if not targets:
                return
            if world.abilities.energy_of(th.tag) < CHRONO_ENERGY:
                continue
            if not c.answer(world.command(c.player_id, rp.chrono, [th.tag], None, targets[0].tag, False),
                            rp.chrono):
                return
            targets.pop(0)

    # ------------------------------------------------------------------ Warp Gates
    @property
    def warp_gates(self) -> frozenset[int]:
        return _WARP_GATES

    def producing(self, world: World, s: Structure) -> bool:
        return bool(s.queue) or (s.unit_id in _WARP_GATES and world.warpgates.cooling(s.tag, world.loop))

    def warp_in(self, world: World, gate: Structure, unit: int) -> bool:
        """Warp ``unit`` in beside the finished Pylon nearest to where its army waits
        (:meth:`~.melee.MeleeComputer.staging`), else the next nearest: the first free spot of
        :data:`WARP_RINGS` round it (m: where the real AI warps in is not known here)."""
        c = self.c
        ability = c.race.warp.get(unit)
        if ability is None or ability in c.refused:
            return False
        used, cap = world.supply.food(c.player_id)
        if used + T.TRAIN[ability].food > cap:
            return False
        kinds = T.satisfies(c.race.supply_unit)
        pylons = [(s.x, s.y) for s in c.structs if s.unit_id in kinds and s.ready]
        sx, sy = c.staging(world)
        pylons.sort(key=lambda p: (p[0] - sx) ** 2 + (p[1] - sy) ** 2)
        gates = world.warpgates
        for px, py in pylons[:WARP_PYLONS]:
            for radius, n in WARP_RINGS:
                for k in range(n):
                    a = 2.0 * math.pi * k / n
                    spot = (px + radius * math.cos(a), py + radius * math.sin(a))
                    if gates.placement(c.player_id, ability, spot[0], spot[1]) != SUCCESS:
                        continue
                    res = world.command(c.player_id, ability, [gate.tag], spot, 0, False)
                    if res == NOT_SUPPORTED:
                        c.refused.add(ability)
                    return res == SUCCESS
        return False

    # ------------------------------------------------------------------ placement
    def site_bound(self, role: Role) -> tuple[np.ndarray, float] | None:
        """A powered structure's centre within :data:`~.races.POWER_RADIUS` (less
        :data:`~.races.POWER_MARGIN`) of a finished Pylon."""
        if not role.powered:
            return None
        c = self.c
        kinds = T.satisfies(c.race.supply_unit)
        sources = np.array([(s.x, s.y) for s in c.structs if s.unit_id in kinds and s.ready]).reshape(-1, 2)
        return sources, POWER_RADIUS - POWER_MARGIN

    def in_the_way(self, world: World, k: int, x: float, y: float, size: int) -> bool:
        """Off the way out of base ``k`` and of its main (whose army walks out past the other
        bases: a natural's Shield Battery must not stand on it)."""
        c = self.c
        if not c.race.keep_way_out:
            return False
        main = c.site_index(c.home)
        return not self.keeps_way_out(world, k, x, y, size) or \
            (k != main and not self.keeps_way_out(world, main, x, y, size))

    def no_spot(self, world: World, role: Role) -> bool:
        """No power yet, or no powered spot left: a Pylon, unless one is on its way; it waits for
        the Pylon it orders or for the money for it; with no room for one it gives up."""
        if not role.powered:
            return True
        c = self.c
        rp = c.race
        if any(s.unit_id == rp.supply_unit and not s.ready for s in c.structs) or \
                any(p[2] == rp.supply_unit for p in c.pending):
            return False
        n = len(c.pending)
        return c.place(world, DEPOT) and len(c.pending) == n

    def keeps_way_out(self, world: World, k: int, x: float, y: float, size: int) -> bool:
        """Whether a structure of ``size`` at (x, y) in base ``k`` stands clear of the way its
        ground army (:data:`WAY_OUT_RADIUS`) walks out of that base towards the enemy's
        possible starts (:data:`WAY_OUT_ROOM` either side of it).  The lanes of
        :meth:`~.melee.MeleeComputer.clear_of_structures` are kept pair by pair; a row of Pylons and
        Gateways across a ramp would still shut its army in (they go in front of the Nexus, towards
        the enemy)."""
        pts = self.ways.get(k)
        if pts is None:
            pts = self.ways[k] = self.way_out(world, k)
        if not len(pts):
            return True
        h = size / 2
        dx = np.maximum(np.abs(pts[:, 0] - x) - h, 0.0)
        dy = np.maximum(np.abs(pts[:, 1] - y) - h, 0.0)
        return bool((dx * dx + dy * dy >= WAY_OUT_ROOM * WAY_OUT_ROOM).all())

    def way_out(self, world: World, k: int) -> np.ndarray:
        """(n, 2) points every half cell along the paths from base ``k`` to each start location the
        enemy may have (planned once, on the structures standing then)."""
        c = self.c
        plan = c.plan
        assert plan is not None
        pathing = world.pathing
        if not pathing.active or not c.candidates:
            return np.zeros((0, 2))
        finder = pathing.finder
        hx, hy = plan.sites[k]
        out = []
        for cand in c.candidates:
            d = math.hypot(cand[0] - hx, cand[1] - hy) or 1.0
            start = finder.nearest_pathable(hx + 6 * (cand[0] - hx) / d, hy + 6 * (cand[1] - hy) / d, WAY_OUT_RADIUS)
            poly = np.vstack([np.array([start]), finder.path(start, cand, WAY_OUT_RADIUS).reshape(-1, 2)])
            for (ax, ay), (bx, by) in zip(poly[:-1].tolist(), poly[1:].tolist(), strict=True):
                n = max(1, int(math.hypot(bx - ax, by - ay) * 2))
                t = np.linspace(0.0, 1.0, n + 1)
                out.append(np.stack((ax + (bx - ax) * t, ay + (by - ay) * t), axis=1))
        return np.concatenate(out) if out else np.zeros((0, 2))

    # ------------------------------------------------------------------ army
    def tactics(self, world: World, army: np.ndarray) -> None:
        """Its High Templar storm (:meth:`storms`), then feed back (:meth:`feedbacks`)."""
        c = self.c
        if not c.level.own_build:
            return
        u = world.u
        hts = army[u.unit_id[army] == HIGH_TEMPLAR]
        known = c.known
        if not len(hts) or not len(known):
            return
        enemy = known[~TYPES.structure[u.ti[known]]]
        if world.research.has(c.player_id, STORM_UPGRADE) and STORM not in c.refused:
            self.storms(world, hts, enemy, army)
        if FEEDBACK not in c.refused:
            self.feedbacks(world, hts, enemy)

    def feedbacks(self, world: World, hts: np.ndarray, enemy: np.ndarray) -> None:
        """Each High Templar with the energy and no cast under way feeds back, within
        :data:`FEEDBACK_REACH`, the enemy unit with the most energy (:data:`FEEDBACK_MIN` at least),
        one High Templar a target."""
        energy = world.abilities.energy
        if not energy or not len(enemy):
            return
        c = self.c
        u = world.u
        tags = u.tag[enemy]
        has = np.isin(tags, np.fromiter(energy, dtype=np.int64, count=len(energy)))
        enemy, tags = enemy[has], tags[has]
        if not len(enemy):
            return
        e = np.array([world.abilities.energy_of(int(t)) for t in tags.tolist()])
        ok = e >= FEEDBACK_MIN
        for r in hts.tolist():
            tag = int(u.tag[r])
            if int(u.ability[r]) in (STORM, FEEDBACK) or world.abilities.energy_of(tag) < FEEDBACK_ENERGY:
                continue
            near = ok & ((u.x[enemy] - u.x[r]) ** 2 + (u.y[enemy] - u.y[r]) ** 2 <= FEEDBACK_REACH ** 2)
            if not near.any():
                continue
            k = int(np.argmax(np.where(near, e, -1.0)))
            if not c.answer(world.command(c.player_id, FEEDBACK, [tag], None, int(tags[k]), False), FEEDBACK):
                return
            ok[k] = False

    def storms(self, world: World, hts: np.ndarray, enemy: np.ndarray, own: np.ndarray) -> None:
        """Each High Templar with the energy storms, within :data:`STORM_REACH`, the enemy unit
        whose storm would hit the most enemy units less twice its own units
        (:data:`STORM_MIN_SCORE` at least), away from its storms (:data:`STORM_SPACING`)."""
        if not len(enemy):
            return
        c = self.c
        u = world.u
        ex, ey = u.x[enemy], u.y[enemy]
        hit = reached(ex, ey, ex, ey, STORM_RADIUS).sum(axis=1)
        mine = reached(ex, ey, u.x[own], u.y[own], STORM_RADIUS).sum(axis=1)
        score = hit - 2 * mine
        up = [(s.x, s.y) for s in world.protoss.storms if s.end > world.loop]
        for r in hts.tolist():
            tag = int(u.tag[r])
            if int(u.ability[r]) == STORM or world.abilities.energy_of(tag) < STORM_ENERGY:
                continue
            ok = ((ex - u.x[r]) ** 2 + (ey - u.y[r]) ** 2 <= STORM_REACH ** 2) & (score >= STORM_MIN_SCORE)
            for x, y in up:
                ok &= (ex - x) ** 2 + (ey - y) ** 2 > STORM_SPACING ** 2
            if not ok.any():
                continue
            k = int(np.argmax(np.where(ok, score, -1)))
            at = (float(ex[k]), float(ey[k]))
            if not c.answer(world.command(c.player_id, STORM, [tag], at, 0, False), STORM):
                return
            up.append(at)

    def shields(self, world: World, rows: np.ndarray, enemy: np.ndarray) -> None:
        """At the levels with army control, each Sentry among ``rows`` within :data:`SHIELD_REACH`
        of an enemy that can shoot casts Guardian Shield when it has the energy and no shield of its
        player's is up within :data:`SHIELD_SPACING` of it."""
        c = self.c
        rp = c.race
        if not rp.shield or not c.level.focus_fire or not len(rows) or not len(enemy) or rp.shield in c.refused:
            return
        u = world.u
        sentries = rows[u.unit_id[rows] == rp.shield_caster]
        enemy = enemy[TYPES.can_attack[u.ti[enemy]] & ~TYPES.structure[u.ti[enemy]]]
        if not len(sentries) or not len(enemy):
            return
        up = [t for t, end in world.protoss.guards.items() if end > world.loop]
        casters = u.rows(np.array(up, dtype=np.int64)) if up else np.zeros(0, dtype=np.int64)
        shielded = [(float(u.x[r]), float(u.y[r])) for r in casters[casters >= 0].tolist()]
        ex, ey = u.x[enemy], u.y[enemy]
        for r in sentries.tolist():
            x, y = float(u.x[r]), float(u.y[r])
            if float(((ex - x) ** 2 + (ey - y) ** 2).min()) > SHIELD_REACH ** 2 or \
                    any((x - sx) ** 2 + (y - sy) ** 2 < SHIELD_SPACING ** 2 for sx, sy in shielded):
                continue
            tag = int(u.tag[r])
            if world.abilities.energy_of(tag) < SHIELD_ENERGY:
                continue
            if not c.answer(world.command(c.player_id, rp.shield, [tag], None, 0, False), rp.shield):
                return
            shielded.append((x, y))
