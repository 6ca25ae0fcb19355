"""Zerg units' targeted spells: the Ravager's Corrosive Bile, the Infestor's Fungal Growth, the
Viper's Abduct, Blinding Cloud, Parasitic Bomb and Consume, the Swarm Host's Locusts, the
Infestor's Neural Parasite, the Overseer's Changeling.

Rules (the real game's; sources per fact, "(m)" where the engine chose):

- *Corrosive Bile* (2338, a point within the client's cast range 9; no energy, a
  :data:`BILE_COOLDOWN` cooldown, LP:Ravager): the Ravager walks into range and spits; the bile
  lands :data:`BILE_DELAY` later and deals :data:`BILE_DAMAGE` to every unit and structure, ground
  or air, friend or foe, whose edge is within :data:`BILE_RADIUS` (the client's effect
  ``RavagerCorrosiveBileCP``) of the point.  A unit that leaves the spot before it lands is not
  hit: the bile is aimed at the point, not the unit.  It destroys every Force Field, anyone's,
  whose disc overlaps that circle (LP:Ravager, "destroys force fields"; the overlap test is (m)).
- *Fungal Growth* (74, a point within the client's cast range 10; :data:`FUNGAL_ENERGY` energy,
  LP:Infestor): the Infestor walks into range and casts; every enemy unit (ground or air, not
  structures) whose edge is within :data:`FUNGAL_RADIUS` of the point takes :data:`FUNGAL_DAMAGE`
  spread evenly over :data:`FUNGAL_LOOPS` and is rooted for as long (it cannot move; it may still
  fire).  A second Fungal on a unit already under one restarts it (m).  The spell reaches its
  targets at once (the real missile's flight is not simulated (m)).
- *Abduct* (2067, a unit within the client's cast range 9; :data:`ABDUCT_ENERGY`, LP:Viper): the
  Viper flies into range and pulls the unit (friend or foe, ground or air, not a structure) to
  where the Viper is (a ground unit to the nearest point it can stand on); the pull is at once (m:
  the real one flies it over about a second).
- *Blinding Cloud* (2063, a point within the client's cast range 10; :data:`CLOUD_ENERGY`,
  LP:Viper): for :data:`CLOUD_LOOPS` every ground unit (friend or foe (m: to check), not
  structures) whose centre is within :data:`CLOUD_RADIUS` (the client's effect
  ``BlindingCloudCP``) of the point has its weapon range cut to :data:`MELEE_RANGE` (the store's
  range column, which targeting reads); it gets its type's range back when it leaves or the cloud
  ends.
- *Parasitic Bomb* (2542, an enemy air unit within the client's cast range 8;
  :data:`BOMB_ENERGY`, LP:Viper; a ground unit: ``CantTargetThatUnit`` (m: the real code is not
  known here)): for :data:`BOMB_LOOPS` every enemy air unit (not structures) whose edge is within
  :data:`BOMB_RADIUS` of the bombed unit, the bombed unit too, takes :data:`BOMB_DAMAGE` in all,
  spread evenly over the time; bombs stack.  It ends early when the bombed unit dies.
- *Consume* (2073, a finished structure of the player within the client's cast range 7; no
  energy, LP:Viper): over :data:`CONSUME_LOOPS` the structure loses :data:`CONSUME_LIFE` life and
  the Viper gains :data:`CONSUME_ENERGY` energy, evenly; it ends early when the structure dies
  or has 1 life left (m), or the Viper is given another order (its order is the ability
  meanwhile (m)).  A unit target: ``CantTargetThatUnit``.
- *Neural Parasite* (249, an enemy unit, not a structure, within the client's cast range 8;
  :data:`NEURAL_ENERGY`, LP:Infestor): the Infestor walks into range and channels (its order the
  ability, it neither moves nor casts) for up to :data:`NEURAL_LOOPS`; meanwhile the target is the
  Infestor's player's unit (its orders dropped; a worker leaves its job).  It ends (the target
  back to its owner, idle) when the time is over, the Infestor dies, 250 cancels it, the target
  dies, or it is farther than :data:`NEURAL_LEASH` (m); orders given the Infestor meanwhile wait
  until it ends (m: as a form change's, ``sim/commands.py``).  The Neural
  Parasite research is not required (m: LP:Infestor, patch 4.7.1 made it innate, to check).
- *Spawn Changeling* (181 in place, or 1934 toward a point within the client's cast range 10;
  an Overseer, either form; :data:`CHANGELING_ENERGY`, LP:Overseer): a Changeling (12) appears at
  the Overseer (1934: it then walks to the point) and dies after :data:`CHANGELING_LOOPS`
  (LP:Changeling).  No unit attacks it on its own (``sim/units.py``: not auto-acquired), an
  explicit attack order still does; its disguise as the nearest enemy's Marine, Zealot or
  Zergling (types 13-17) is not simulated (m).
- *Transfusion*'s life over time (the Queen's cast: ``systems/zerg_abilities.py``): after its 75
  at once the target regains :data:`TRANSFUSE_OVER_TIME` more, evenly over
  :data:`TRANSFUSE_LOOPS`, up to its maximum (LP:Queen).
- *Spawn Locusts* (2704, a point anywhere (the client's cast range 500); a Swarm Host, burrowed or
  not; no energy, a :data:`LOCUST_COOLDOWN` cooldown, LP:Swarm_Host): :data:`LOCUSTS` Locusts
  (LocustMP 489, their client weapon) appear at the Swarm Host at once, attack-move to the point
  and die after :data:`LOCUST_LOOPS`.  Their flying start (LocustMPFlying) and the Enduring Locusts
  research (+5 s) are not simulated (m).

The targeted spells walk into range, pay and start their cooldown by the shared
``systems/casting.py`` (a target that dies, or cloaks undetected, ends the order); this module
gives their data and effects; the Locusts' cooldown is kept in that module's one cooldown table
too, with the Queens' (``systems/zerg_abilities.py``).  Spell damage takes shields first and ignores armor (as the Terran spells of
``systems/abilities.py``, whose damage helpers these use).  A caster without the energy answers
``NotEnoughEnergy``; a cast before the cooldown is over ``Cooldown``.  The casts are Zerg-only
abilities: a game without Zerg units answers them as before (``sim/commands.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data import client
from sc2pool.engine.sim.commands import (
    CANT_TARGET_THAT_UNIT,
    COOLDOWN,
    ERROR,
    MUST_TARGET_UNIT,
    NOT_ENOUGH_ENERGY,
    SUCCESS,
)
from sc2pool.engine.sim.systems.abilities import LOOPS_PER_FASTER_SECOND, Blast
from sc2pool.engine.sim.systems.casting import Cast, CastSpec
from sc2pool.engine.sim.units import FOLLOW, MOVE, NEUTRAL_OWNER, TRANSFORM, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

RAVAGER, INFESTOR, VIPER, SWARM_HOST, SWARM_HOST_BURROWED, LOCUST = 688, 111, 499, 494, 493, 489
CORROSIVE_BILE, FUNGAL_GROWTH, ABDUCT, PARASITIC_BOMB, CONSUME, SPAWN_LOCUSTS = 2338, 74, 2067, 2542, 2073, 2704
ATTACK = 23
TRANSFUSE_OVER_TIME = 50.0
TRANSFUSE_LOOPS = int(7.14 * LOOPS_PER_FASTER_SECOND)
"""Transfusion: +50 life over 7.14 faster seconds = 159 loops after the 75 at once (LP:Queen)."""
SPAWN_CHANGELING, SPAWN_CHANGELING_TARGET, CHANGELING, OVERSEERS = 181, 1934, 12, (129, 1912)
CHANGELING_ENERGY = 50.0
"""LP:Overseer."""
CHANGELING_LOOPS = int(150 * LOOPS_PER_FASTER_SECOND)
"""A Changeling lives 150 faster seconds = 3360 loops (LP:Changeling)."""
BLINDING_CLOUD = 2063
CLOUD_ENERGY = 100.0
CLOUD_LOOPS = int(5.71 * LOOPS_PER_FASTER_SECOND)
"""Blinding Cloud: 100 energy, 5.71 faster seconds = 127 loops (LP:Viper)."""
CLOUD_RADIUS = float(client.effects()[10].radius)
"""2.0: the client's effect 10 ``BlindingCloudCP`` (LP:Viper: 2)."""
MELEE_RANGE = 0.1
"""The client's melee weapons' range (a Zergling's 0.1)."""
NEURAL_PARASITE, NEURAL_CANCEL = 249, 250
NEURAL_ENERGY = 100.0
NEURAL_LOOPS = int(11 * LOOPS_PER_FASTER_SECOND)
"""Neural Parasite: 100 energy, up to 11 faster seconds = 246 loops (LP:Infestor; the duration to
check)."""
NEURAL_LEASH = 9.0
"""(m) How far (edge to edge) the target may get before the channel breaks."""
BILE_DAMAGE = 60.0
"""LP:Ravager."""
BILE_RADIUS = float(client.effects()[11].radius)
"""0.5: the client's effect 11 ``RavagerCorrosiveBileCP`` (LP:Ravager: 0.5)."""
BILE_DELAY = int(2.5 * LOOPS_PER_FASTER_SECOND)
"""The bile lands 2.5 faster seconds = 56 loops after it is spat (LP:Ravager)."""
BILE_COOLDOWN = int(7 * LOOPS_PER_FASTER_SECOND)
"""7 faster seconds = 156 loops (LP:Ravager)."""
FUNGAL_ENERGY = 75.0
FUNGAL_DAMAGE = 30.0
FUNGAL_LOOPS = int(2.85 * LOOPS_PER_FASTER_SECOND)
"""Fungal Growth: 75 energy, 30 damage over 2.85 faster seconds = 63 loops, rooted as long
(LP:Infestor)."""
FUNGAL_RADIUS = 2.25
"""LP:Infestor."""
ABDUCT_ENERGY = 75.0
"""LP:Viper."""
BOMB_ENERGY, BOMB_DAMAGE, BOMB_RADIUS = 125.0, 120.0, 3.0
BOMB_LOOPS = int(7 * LOOPS_PER_FASTER_SECOND)
"""Parasitic Bomb: 125 energy, 120 damage over 7 faster seconds = 156 loops in a radius of 3
(LP:Viper)."""
CONSUME_LIFE, CONSUME_ENERGY = 200.0, 50.0
CONSUME_LOOPS = int(14 * LOOPS_PER_FASTER_SECOND)
"""Consume: 200 life of the structure for 50 energy over 14 faster seconds = 313 loops (LP:Viper)."""


LOCUSTS = 2
LOCUST_LOOPS = int(18 * LOOPS_PER_FASTER_SECOND)
LOCUST_COOLDOWN = int(43 * LOOPS_PER_FASTER_SECOND)
"""Spawn Locusts: 2 Locusts living 18 faster seconds = 403 loops; a cooldown of 43 faster seconds
= 963 loops (LP:Swarm_Host)."""


def _range(ab: int) -> float:
    return float(client.ability(ab).cast_range)


SPELLS: dict[int, tuple[int, float, float, bool]] = {
    CORROSIVE_BILE: (RAVAGER, _range(CORROSIVE_BILE), 0.0, False),
    FUNGAL_GROWTH: (INFESTOR, _range(FUNGAL_GROWTH), FUNGAL_ENERGY, False),
    ABDUCT: (VIPER, _range(ABDUCT), ABDUCT_ENERGY, True),
    PARASITIC_BOMB: (VIPER, _range(PARASITIC_BOMB), BOMB_ENERGY, True),
    CONSUME: (VIPER, _range(CONSUME), 0.0, True),
    NEURAL_PARASITE: (INFESTOR, _range(NEURAL_PARASITE), NEURAL_ENERGY, True),
    BLINDING_CLOUD: (VIPER, _range(BLINDING_CLOUD), CLOUD_ENERGY, False),
}
"""Ability -> (its caster type, the client's cast range (9, 10, 9, 8, 7), energy, on a unit)."""
ABILITIES = frozenset({*SPELLS, SPAWN_LOCUSTS, NEURAL_CANCEL, SPAWN_CHANGELING, SPAWN_CHANGELING_TARGET})


@dataclass
class Drain:
    """A Parasitic Bomb on ``target`` (``owner`` the caster's), or a Viper consuming ``target``."""

    owner: int
    target: int
    end: int
    last: int
    caster: int = 0


@dataclass
class Fungal:
    """A unit under Fungal Growth: rooted at (x, y), damaged up to ``end``."""

    x: float
    y: float
    end: int
    last: int
    """The loop up to which its damage was dealt."""


class ZergSpells:
    """Biles in flight, units under Fungal Growth, drains, clouds, Neural Parasites (the casts on
    their way and the cooldowns are ``systems/casting.py``'s)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.biles: list[tuple[int, float, float, int]] = []
        """(owner, x, y, the loop it lands)."""
        self.fungals: dict[int, Fungal] = {}
        """Tag of a unit under Fungal Growth -> its fungal."""
        self.bombs: list[Drain] = []
        """Parasitic Bombs under way."""
        self.consumes: dict[int, Drain] = {}
        """Viper tag -> its Consume under way."""
        self.clouds: list[tuple[float, float, int, int]] = []
        """Blinding Clouds: (x, y, the loop it ends, owner)."""
        self.blinded: set[int] = set()
        """Tags whose range a cloud cut."""
        self.heals: list[Drain] = []
        """Transfusions' life over time."""
        self.controls: dict[int, Drain] = {}
        """Infestor tag -> its Neural Parasite (``owner``: the target's own player)."""
        # the targeted casts walk into range by systems/casting.py; their effects are here
        effects = {CORROSIVE_BILE: self._bile, FUNGAL_GROWTH: self._fungal_cast, ABDUCT: self._abduct_cast,
                   PARASITIC_BOMB: self._bomb, CONSUME: self._consume, NEURAL_PARASITE: self._control_cast,
                   BLINDING_CLOUD: self._cloud}
        world.casting.add(*(CastSpec(ab, reach, effects[ab], on_unit=on_unit, energy=energy,
                                     cooldown=BILE_COOLDOWN if ab == CORROSIVE_BILE else 0,
                                     keeps_order=ab in (CONSUME, NEURAL_PARASITE))
                            for ab, (_, reach, energy, on_unit) in SPELLS.items()))

    @property
    def active(self) -> bool:
        return bool(self.biles or self.fungals or self.bombs or self.consumes or self.controls
                    or self.clouds or self.blinded or self.heals)

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        """The first commanded caster that may cast now goes into range of the point (a unit
        target is taken as its point) and casts."""
        w = self.w
        u = w.u
        if c.ability == SPAWN_LOCUSTS:
            return self._locusts(c)
        if c.ability in (SPAWN_CHANGELING, SPAWN_CHANGELING_TARGET):
            return self._changeling(c)
        if c.ability == NEURAL_CANCEL:
            n = 0
            for t in u.tag[c.rows].tolist():
                if int(t) in self.controls:
                    self._release(int(t))
                    n += 1
            return SUCCESS if n else ERROR
        caster, _, energy, on_unit = SPELLS[c.ability]
        rows = c.rows[u.unit_id[c.rows] == caster]
        if len(rows) == 0:
            return ERROR
        if c.pos is None and c.trow < 0:
            return ERROR
        if on_unit:
            res = self._target_ok(c)
            if res != SUCCESS:
                return res
        loop = w.loop
        free = [r for r in rows.tolist() if w.casting.ready_to(int(u.tag[r]), c.ability, loop)]
        if not free:
            return COOLDOWN
        w.abilities._register()  # (a new caster starts with its energy)
        if energy:
            free = [r for r in free if w.abilities.energy_of(int(u.tag[r])) >= energy]
            if not free:
                return NOT_ENOUGH_ENERGY
        r = free[0]
        if not c.queue:  # (a new order ends a Consume; a queued one waits for it)
            self.consumes.pop(int(u.tag[r]), None)
        if on_unit:
            return w.casting.order(c, r, Cast(c.ability, c.ttag))
        x, y = c.pos if c.pos is not None else (float(u.x[c.trow]), float(u.y[c.trow]))
        return w.casting.order(c, r, Cast(c.ability, x=x, y=y))

    def _changeling(self, c: Command) -> int:
        """The first commanded Overseer with the energy spawns a Changeling (see the module
        docstring); 1934 needs a point within its cast range."""
        w = self.w
        u = w.u
        rows = c.rows[np.isin(u.unit_id[c.rows], np.array(OVERSEERS))]
        if len(rows) == 0:
            return ERROR
        w.abilities._register()
        rows = rows[[w.abilities.energy_of(int(t)) >= CHANGELING_ENERGY for t in u.tag[rows].tolist()]]
        if len(rows) == 0:
            return NOT_ENOUGH_ENERGY
        r = int(rows[0])
        if c.ability == SPAWN_CHANGELING_TARGET:
            if c.pos is None:
                return ERROR
            if math.hypot(c.pos[0] - float(u.x[r]), c.pos[1] - float(u.y[r])) > _range(SPAWN_CHANGELING_TARGET) \
                    + float(u.radius[r]):
                return ERROR  # (m: out of range; the real client's answer is not known here)
        w.abilities.spend(int(u.tag[r]), CHANGELING_ENERGY)
        x, y = float(u.x[r]), float(u.y[r])
        if w.pathing.active:
            x, y = w.pathing.nearest_point(x, y)
        [tag] = w.spawn(CHANGELING, c.player, [x], [y]).tolist()
        w.abilities.timed[int(tag)] = w.loop + CHANGELING_LOOPS
        if c.ability == SPAWN_CHANGELING_TARGET and c.pos is not None:
            w.commands.issue(c.player, 1, [int(tag)], c.pos, 0, False)  # (MOVE)
        w.touch()
        return SUCCESS

    def _locusts(self, c: Command) -> int:
        """Every commanded Swarm Host off cooldown spawns its Locusts, which attack-move to the
        point (see the module docstring)."""
        w = self.w
        u = w.u
        if c.pos is None and c.trow < 0:
            return ERROR
        x, y = c.pos if c.pos is not None else (float(u.x[c.trow]), float(u.y[c.trow]))
        rows = c.rows[np.isin(u.unit_id[c.rows], np.array([SWARM_HOST, SWARM_HOST_BURROWED]))]
        if len(rows) == 0:
            return ERROR
        loop = w.loop
        hosts = [(int(u.tag[r]), float(u.x[r]), float(u.y[r])) for r in rows.tolist()
                 if w.casting.ready_to(int(u.tag[r]), SPAWN_LOCUSTS, loop)]
        if not hosts:
            return COOLDOWN
        spawned: list[int] = []
        for tag, hx, hy in hosts:
            w.casting.start_cooldown(tag, SPAWN_LOCUSTS, loop + LOCUST_COOLDOWN)
            tags = w.spawn(LOCUST, c.player, [hx] * LOCUSTS, [hy] * LOCUSTS).tolist()
            for t in tags:
                w.abilities.timed[int(t)] = loop + LOCUST_LOOPS
            spawned += [int(t) for t in tags]
        w.commands.issue(c.player, ATTACK, spawned, (x, y), 0, False)
        w.touch()
        return SUCCESS

    def _target_ok(self, c: Command) -> int:
        """What a Viper's spell on a unit may target (see the module docstring)."""
        w = self.w
        u = w.u
        if c.trow < 0:
            return MUST_TARGET_UNIT
        ti = int(u.ti[c.trow])
        owner = int(u.owner[c.trow])
        if c.ability == CONSUME:
            s = w.construction.structures.get(c.ttag)
            return SUCCESS if s is not None and s.ready and owner == c.player else CANT_TARGET_THAT_UNIT
        if owner == NEUTRAL_OWNER or TYPES.structure[ti]:
            return CANT_TARGET_THAT_UNIT
        if w.detection.active() and w.detection.hidden(c.player)[c.trow]:
            return CANT_TARGET_THAT_UNIT
        if c.ability == PARASITIC_BOMB and (owner == c.player or not TYPES.is_flying[ti]):
            return CANT_TARGET_THAT_UNIT
        if c.ability == NEURAL_PARASITE and (owner == c.player or c.ttag in {d.target for d in self.controls.values()}):
            return CANT_TARGET_THAT_UNIT
        return SUCCESS

    # ------------------------------------------------------------------ per step
    # ------------------------------------------------------------------ the casts' effects
    def _bile(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.biles.append((int(self.w.u.owner[r]), cast.x, cast.y, loop + BILE_DELAY))

    def _fungal_cast(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._fungal(int(self.w.u.owner[r]), cast.x, cast.y, loop)

    def _cloud(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.clouds.append((cast.x, cast.y, loop + CLOUD_LOOPS, int(self.w.u.owner[r])))
        self._clouds(loop)

    def _abduct_cast(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._abduct(r, t)

    def _bomb(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.bombs.append(Drain(int(self.w.u.owner[r]), cast.target, loop + BOMB_LOOPS, loop))

    def _consume(self, cast: Cast, r: int, t: int, loop: int) -> None:
        """The Viper keeps its order while it drains."""
        tag = int(self.w.u.tag[r])
        self.consumes[tag] = Drain(int(self.w.u.owner[r]), cast.target, loop + CONSUME_LOOPS, loop, caster=tag)

    def _control_cast(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self._control(r, t, loop)

    def _control(self, r: int, t: int, loop: int) -> None:
        """The Infestor of row ``r`` takes the unit of row ``t`` until the channel ends."""
        w = self.w
        u = w.u
        tag, target = int(u.tag[r]), int(u.tag[t])
        self.controls[tag] = Drain(int(u.owner[t]), target, loop + NEURAL_LOOPS, loop, caster=tag)
        u.kind[r] = TRANSFORM  # (channelling: it neither moves nor casts)
        w.workers.leave_jobs(np.array([t]))
        u.queues.pop(target, None)
        u.owner[t] = u.owner[r]
        u.finish_orders(np.array([t]))
        u.retype([t], int(u.unit_id[t]))  # (the set of units changed: caches keyed on it refresh)
        w.supply.revision += 1
        w.touch()

    def _release(self, tag: int) -> None:
        """The Neural Parasite of the Infestor ``tag`` ends: the target goes back, idle."""
        w = self.w
        u = w.u
        d = self.controls.pop(tag)
        r, t = u.row(tag), u.row(d.target)
        if r >= 0 and u.kind[r] == TRANSFORM:
            u.finish_orders(np.array([r]))
        if t >= 0:
            u.queues.pop(d.target, None)
            u.owner[t] = d.owner
            u.finish_orders(np.array([t]))
            u.retype([t], int(u.unit_id[t]))
        w.supply.revision += 1
        w.touch()

    def _controls(self, loop: int) -> None:
        u = self.w.u
        for tag, d in list(self.controls.items()):
            r, t = u.row(tag), u.row(d.target)
            if r < 0 or t < 0 or u.kind[r] != TRANSFORM or u.ability[r] != NEURAL_PARASITE or loop >= d.end or \
                    math.hypot(float(u.x[t] - u.x[r]), float(u.y[t] - u.y[r])) - float(u.radius[r] + u.radius[t]) \
                    > NEURAL_LEASH:
                self._release(tag)

    def transfuse(self, target: int) -> None:
        """The Transfusion on ``target`` goes on healing (see the module docstring)."""
        loop = self.w.loop
        self.heals.append(Drain(0, target, loop + TRANSFUSE_LOOPS, loop))

    def _heals(self, loop: int) -> None:
        u = self.w.u
        keep: list[Drain] = []
        for h in self.heals:
            t = u.row(h.target)
            if t < 0:
                continue
            upto = min(loop, h.end)
            if upto > h.last:
                top = float(TYPES.hp_max[u.ti[t]])
                u.hp[t] = min(top, float(u.hp[t]) + (upto - h.last) * TRANSFUSE_OVER_TIME / TRANSFUSE_LOOPS)
                h.last = upto
                self.w.touch()
            if upto < h.end:
                keep.append(h)
        self.heals = keep

    def _clouds(self, loop: int) -> None:
        """Ground units inside a cloud have melee range; those that left get theirs back."""
        u = self.w.u
        self.clouds = [c for c in self.clouds if c[2] > loop]
        inside = np.zeros(len(u), dtype=bool)
        for x, y, _, _ in self.clouds:
            inside |= np.hypot(u.x - x, u.y - y) <= CLOUD_RADIUS
        inside &= ~TYPES.is_flying[u.ti] & ~TYPES.structure[u.ti] & (u.owner != NEUTRAL_OWNER)
        rows = np.nonzero(inside)[0]
        now = set(u.tag[rows].tolist())
        left = u.rows(np.array(sorted(self.blinded - now), dtype=np.int64))
        left = left[left >= 0]
        u.range[left] = TYPES.range[u.ti[left]]
        u.range[rows] = np.minimum(TYPES.range[u.ti[rows]], MELEE_RANGE)
        if now != self.blinded:
            self.w.touch()
        self.blinded = now

    def _abduct(self, r: int, t: int) -> None:
        """The target stands where the Viper is (a ground unit: the nearest point it may stand
        on)."""
        w = self.w
        u = w.u
        x, y = float(u.x[r]), float(u.y[r])
        if not TYPES.is_flying[u.ti[t]] and w.pathing.active:
            x, y = w.pathing.nearest_point(x, y)
        u.x[t], u.y[t] = x, y
        if u.kind[t] == MOVE or u.kind[t] == FOLLOW:  # (its path was from where it stood)
            u.seg[t] = -1

    def _bombs(self, loop: int) -> None:
        w = self.w
        u = w.u
        per_loop = BOMB_DAMAGE / BOMB_LOOPS
        keep: list[Drain] = []
        hits: list[tuple[list[int], float]] = []
        for b in self.bombs:
            t = u.row(b.target)
            if t < 0:
                continue
            upto = min(loop, b.end)
            if upto > b.last:
                near = (np.hypot(u.x - u.x[t], u.y - u.y[t]) - u.radius <= BOMB_RADIUS) & TYPES.is_flying[u.ti] \
                    & ~TYPES.structure[u.ti] & (u.owner != b.owner) & (u.owner != NEUTRAL_OWNER)
                near[t] = True
                hits.append((np.nonzero(near)[0].tolist(), (upto - b.last) * per_loop))
                b.last = upto
            if upto < b.end:
                keep.append(b)
        self.bombs = keep
        tags = [(u.tag[rows].tolist(), amount) for rows, amount in hits]
        for tag_list, amount in tags:  # (rows change as units die: found again per bomb)
            rows = u.rows(np.array(tag_list, dtype=np.int64))
            w.abilities.spell_damage(rows[rows >= 0].tolist(), amount)
        if hits:
            w.touch()

    def _consumes(self, loop: int) -> None:
        w = self.w
        u = w.u
        for tag, d in list(self.consumes.items()):
            r, t = u.row(tag), u.row(d.target)
            if r < 0 or t < 0 or u.ability[r] != CONSUME:
                del self.consumes[tag]  # (another order ended it)
                continue
            upto = min(loop, d.end)
            n = upto - d.last
            d.last = upto
            if n > 0:
                u.hp[t] = max(1.0, float(u.hp[t]) - n * CONSUME_LIFE / CONSUME_LOOPS)
                e, _, top = w.abilities.energy[tag]
                w.abilities.energy[tag] = (min(top, w.abilities.energy_of(tag) + n * CONSUME_ENERGY / CONSUME_LOOPS),
                                           loop, top)
                w.touch()
            if upto >= d.end or float(u.hp[t]) <= 1.0:
                del self.consumes[tag]
                u.finish_orders(np.array([r]))

    def _fungal(self, owner: int, x: float, y: float, loop: int) -> None:
        u = self.w.u
        hit = (np.hypot(u.x - x, u.y - y) - u.radius <= FUNGAL_RADIUS) & (u.owner != owner) \
            & (u.owner != NEUTRAL_OWNER) & ~TYPES.structure[u.ti]
        for r in np.nonzero(hit)[0].tolist():
            self.fungals[int(u.tag[r])] = Fungal(float(u.x[r]), float(u.y[r]), loop + FUNGAL_LOOPS, loop)

    def _biles(self, loop: int) -> None:
        due = [b for b in self.biles if b[3] <= loop]
        if not due:
            return
        self.biles = [b for b in self.biles if b[3] > loop]
        for owner, x, y, at in due:
            self.w.abilities._blast(Blast(owner, x, y, at, BILE_DAMAGE, BILE_RADIUS, everything=True))
            self.w.protoss.break_fields(x, y, BILE_RADIUS)
        self.w.touch()

    def _fungals(self, loop: int) -> None:
        """Damage dealt up to ``loop``; rooted units stay where the fungal caught them."""
        w = self.w
        u = w.u
        per_loop = FUNGAL_DAMAGE / FUNGAL_LOOPS
        by_amount: dict[float, list[int]] = {}
        for tag, f in list(self.fungals.items()):
            r = u.row(tag)
            if r < 0:
                del self.fungals[tag]
                continue
            upto = min(loop, f.end)
            if upto > f.last:
                by_amount.setdefault((upto - f.last) * per_loop, []).append(r)
                f.last = upto
            u.x[r], u.y[r] = f.x, f.y
            if upto >= f.end:
                del self.fungals[tag]
        for amount, rows in by_amount.items():
            w.abilities.spell_damage(rows, amount)  # (removes the dead at once)
        if by_amount:
            w.touch()

    def upkeep(self, loop: int) -> None:
        if self.biles:
            self._biles(loop)
        if self.fungals:
            self._fungals(loop)
        if self.bombs:
            self._bombs(loop)
        if self.consumes:
            self._consumes(loop)
        if self.controls:
            self._controls(loop)
        if self.clouds or self.blinded:
            self._clouds(loop)
        if self.heals:
            self._heals(loop)

    def horizon(self, loop: int) -> int:
        if self.fungals or self.bombs or self.consumes or self.controls or self.clouds or self.blinded \
                or self.heals:
            return 1
        if self.biles:
            return max(1, min(b[3] for b in self.biles) - loop)
        return 1 << 30

    def forget(self, alive: set[int]) -> None:
        for d in (self.fungals, self.consumes):
            for t in [t for t in d if t not in alive]:
                del d[t]  # type: ignore[attr-defined]
        for t in [t for t, c in self.controls.items() if t not in alive or c.target not in alive]:
            self._release(t)

    def available(self, r: int, out: list[tuple[int, bool]]) -> None:
        """A Ravager's bile off cooldown; an Infestor's Fungal with the energy for it."""
        u = self.w.u
        uid, tag = int(u.unit_id[r]), int(u.tag[r])
        if uid == RAVAGER and self.w.casting.ready_to(tag, CORROSIVE_BILE):
            out.append((CORROSIVE_BILE, True))
        elif uid in OVERSEERS and self.w.abilities.energy_of(tag) >= CHANGELING_ENERGY:
            out += [(SPAWN_CHANGELING, False), (SPAWN_CHANGELING_TARGET, True)]
        elif uid in (SWARM_HOST, SWARM_HOST_BURROWED) and self.w.casting.ready_to(tag, SPAWN_LOCUSTS):
            out.append((SPAWN_LOCUSTS, True))
        elif uid == INFESTOR:
            e = self.w.abilities.energy_of(tag)
            if e >= FUNGAL_ENERGY:
                out.append((FUNGAL_GROWTH, True))
            if e >= NEURAL_ENERGY:
                out.append((NEURAL_PARASITE, False))
            if tag in self.controls:
                out.append((NEURAL_CANCEL, False))
        elif uid == VIPER:
            e = self.w.abilities.energy_of(tag)
            out.append((CONSUME, False))
            if e >= ABDUCT_ENERGY:
                out.append((ABDUCT, False))
            if e >= CLOUD_ENERGY:
                out.append((BLINDING_CLOUD, True))
            if e >= BOMB_ENERGY:
                out.append((PARASITIC_BOMB, False))
