"""The Zerg Computer's own rules: everything it trains comes from larvae (its Drones, Overlords and
army, as eggs it remembers until they hatch); its Queens (one per Hatchery, more while minerals
pile up) inject larvae and, at the levels that defend better, fight at its bases; a larva becomes
a Drone only while its army keeps pace (:meth:`ZergRules.drones_wanted`).  In a fight its Lurkers
burrow and its Ravagers spit Corrosive Bile; from Hard up its Infestors cast Fungal Growth
(:meth:`ZergRules.fungals`) and, those that did not, Neural Parasite on a high-value enemy unit
(:meth:`ZergRules.neurals`), and its Vipers Parasitic Bomb, Abduct and Blinding Cloud
(:meth:`ZergRules.vipers`), and an idle Viper at home Consumes a structure for energy
(:meth:`ZergRules.consume`); the spells' rules are the engine's (``sim/systems/zerg_spells.py``),
the choices of where and when the Computer's (m).

Where each hook is called: :class:`~.rules.RaceRules`; the Zerg facts (ids, builds):
:data:`~.races.ZERG_PROFILE`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.computer import levels as L
from sc2pool.engine.computer.levels import NO_ADDON, Tech
from sc2pool.engine.computer.races import (
    ARCHON,
    ARMY_PER_DRONE,
    BROODLORD,
    CARRIER,
    COLOSSUS,
    CREEP_REACH,
    DRONES_ALONE,
    IMMORTAL,
    LARVA,
    LARVA_T,
    LIBERATOR_AG,
    LURKER,
    LURKER_BURROW,
    LURKER_BURROWED,
    LURKER_UNBURROW,
    RAVAGER,
    THOR_AP,
    ULTRALISK,
    Role,
)
from sc2pool.engine.computer.rules import Mode, RaceRules, reached
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.races.zerg import NO_CREEP_NEEDED
from sc2pool.engine.sim.systems.placement import half_size, snap
from sc2pool.engine.sim.systems.zerg_spells import (
    ABDUCT,
    ABDUCT_ENERGY,
    BLINDING_CLOUD,
    BOMB_ENERGY,
    BOMB_RADIUS,
    CLOUD_ENERGY,
    CLOUD_RADIUS,
    CONSUME,
    CORROSIVE_BILE,
    FUNGAL_ENERGY,
    FUNGAL_GROWTH,
    FUNGAL_RADIUS,
    INFESTOR,
    NEURAL_ENERGY,
    NEURAL_PARASITE,
    PARASITIC_BOMB,
    SPELLS,
    VIPER,
)
from sc2pool.engine.sim.units import IDLE, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.computer.melee import MeleeComputer
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

LARVA_SUPPLY_MARGIN = 6
"""Supply kept ahead per finished Hatchery (m)."""
RICH_EXPAND = 600
"""With more minerals than this it expands (within its level's bases) whatever its build's
timing, and keeps more Queens per Hatchery (two; :data:`RICH_QUEENS`) instead of one (m)."""
QUEEN_DEFENCE = 25.0
"""Queens this close to the enemies at its bases join the defence (m)."""
QUEEN_HOME = 10.0
"""A Queen this close to a Hatchery is that Hatchery's (m)."""
RICH_QUEENS = 4
"""Queens per Hatchery while minerals pile up beyond :data:`RICH_EXPAND`, at the levels whose
Queens defend (they cost no larva: the money the larvae leave buys defence) (m)."""
INJECT_ENERGY = 25
"""A Queen's Spawn Larva costs 25 energy (Liquipedia "Queen")."""
LURKER_REACH = 8.0
"""A Lurker burrows with an enemy ground unit this close, edge to edge (its burrowed range: the
client's weapon)."""
LURKER_LEAVE = 10.0
"""A burrowed Lurker unburrows once no enemy ground unit has been this close for
:data:`~.rules.UNSIEGE_LOOPS` (m)."""
LURKER_MODE = Mode(LURKER, LURKER_BURROWED, LURKER_BURROW, LURKER_UNBURROW, LURKER_REACH, LURKER_LEAVE, air=False)
"""Lurkers attack only burrowed (Liquipedia "Lurker"): they burrow as Siege Tanks siege."""
BILE_REACH = SPELLS[CORROSIVE_BILE][1]
"""A Ravager spits Corrosive Bile at an enemy whose centre is this close: the client's cast range
(the ability walks a Ravager farther away into range first, which the Computer does not want)."""
BILES_PER_TARGET = 2
"""At most this many Ravagers of one decision aim at the same enemy (m)."""
FUNGAL_REACH = SPELLS[FUNGAL_GROWTH][1] + 1.0
"""An Infestor fungals an enemy whose centre is this close (its cast range 10 and a step) (m)."""
FUNGAL_MIN = 3
"""... where the enemy units within the spell's radius (2.25, LP:Infestor), none already rooted by
a fungal or under one on its way, are at least this many (m)."""
BOMB_REACH = SPELLS[PARASITIC_BOMB][1] + 1.0
"""A Viper bombs an enemy air unit whose centre is this close (its cast range 8 and a step) (m)."""
BOMB_MIN = 3
"""... whose bomb (radius 3, LP:Viper) would hit at least this many enemy air units, itself
included, none bombed already (m: a bomb on a lone unit is 125 energy for 120 damage)."""
ABDUCT_REACH = SPELLS[ABDUCT][1] + 1.0
"""A Viper abducts an enemy whose centre is this close (its cast range 9 and a step) (m) ..."""
ABDUCT_PULL = 4.0
"""... and at least this far from it: a pull shorter than this is not worth the 75 energy (m)."""
SIEGED_TANK = 32
"""SiegeTankSieged (the client's unit type id)."""
ABDUCT_ALSO = (SIEGED_TANK, LIBERATOR_AG)
"""Besides the massive units (a Thor, a Colossus, a Battlecruiser, a Carrier: the client's
attribute), the enemies a Viper abducts: a sieged Siege Tank and a Liberator in Defender Mode, out
of their fixed spot and into its army (Liquipedia "Viper": Abduct against siege units and capital
ships)."""
TEMPEST, DISRUPTOR, ULTRALISK_BURROWED = 496, 694, 131
NEURAL_REACH = SPELLS[NEURAL_PARASITE][1] + 1.0
"""An Infestor takes control of an enemy unit whose centre is this close (its cast range 8 and a
step) (m) ..."""
NEURAL_TARGETS = (L.THOR, THOR_AP, L.SIEGETANK, SIEGED_TANK, L.BATTLECRUISER, LIBERATOR_AG, COLOSSUS, CARRIER, TEMPEST,
                  IMMORTAL, DISRUPTOR, ARCHON, ULTRALISK, ULTRALISK_BURROWED, BROODLORD, LURKER, LURKER_BURROWED)
"""... of these types (the client's unit type ids: Thor in either mode, Siege Tank in either mode,
Battlecruiser, Liberator in Defender Mode, Colossus, Carrier, Tempest, Immortal, Disruptor, Archon,
Ultralisk, burrowed or not, Brood Lord, Lurker, burrowed or not), the one with the
most life and shields: the costly units whose taking turns a fight (LP:Infestor: Neural Parasite
on the opponent's high-value units) (m: the list; the Mothership, Heroic, is left out: the real
game's answer on it to check)."""
CLOUD_REACH = SPELLS[BLINDING_CLOUD][1] + 1.0
"""A Viper clouds an enemy whose centre is this close (its cast range 10 and a step) (m) ..."""
CLOUD_MIN = 4
"""... where the enemy ranged ground units under the cloud (radius 2, the client's effect), less
twice its own ground units there (the engine's cloud blinds them too), are at least this many (m)."""
CLOUD_RANGED = 2.0
"""A ground unit whose weapon reaches farther than this is ranged: a cloud cuts it to melee (m)."""
CONSUME_BELOW = CLOUD_ENERGY
"""An idle Viper at home with less energy than a Blinding Cloud's consumes ... (m)"""
CONSUME_SEEK = 15.0
"""... its finished structure with the most life within this distance (m) ..."""
CONSUME_MIN_LIFE = 600.0
"""... that has at least this much life (m: a Consume takes 200, LP:Viper)."""
_MASSIVE = np.array([D.MASSIVE in spec.attributes for spec in TYPES.specs])
"""Per type row: massive."""
VIPER_SPELLS = (ABDUCT, PARASITIC_BOMB, BLINDING_CLOUD, CONSUME)


class ZergRules(RaceRules):
    """Larvae, eggs and Queens (see the module docstring)."""

    def __init__(self, computer: MeleeComputer) -> None:
        super().__init__(computer)
        self.larvae: list[int] = []
        """Tags of its larvae not used yet at this decision."""
        self.hatching: list[tuple[int, int, int]] = []
        """(loop it hatches, unit type, count) of the larvae it has morphed (its eggs)."""

    def observe(self, world: World, own: np.ndarray) -> None:
        u = world.u
        self.larvae = [int(t) for t in u.tag[own & (u.unit_id == LARVA_T)].tolist()]

    def upkeep(self, world: World) -> None:
        if self.hatching:
            self.hatching = [h for h in self.hatching if h[0] > world.loop]

    def eggs(self, unit: int) -> int:
        return sum(n for _, t, n in self.hatching if t == unit)

    def supply_under_way(self, building: dict[int, int], ready_th: list[Structure], ready_rax: int,
                         producers: int) -> tuple[int, int, int]:
        """Overlords in their eggs; larvae spend in bursts, every Hatchery's three and a Spawn
        Larva's at once: the margin and how many at once grow with its Hatcheries (m)."""
        under_way = sum(n for _, t, n in self.hatching if t == self.c.race.supply_unit)
        return under_way, 2 + LARVA_SUPPLY_MARGIN * len(ready_th), 1 + len(ready_th)

    def add_supply(self, world: World) -> bool:
        """An Overlord from a larva."""
        rp = self.c.race
        t = T.TRAIN[rp.supply_train]
        return self.c.can_spend(world, t.minerals, t.vespene) and self.from_larva(world, rp.supply_train,
                                                                                  rp.supply_unit)

    def waits_for_supply(self) -> bool:
        """An Overlord short of a larva waits without keeping the money."""
        return bool(self.larvae)

    def expand_at(self, world: World, at: float, t_s: float) -> float:
        """Minerals pile up for want of larvae beyond :data:`RICH_EXPAND`: another Hatchery now."""
        if world.supply.minerals.get(self.c.player_id, 0) > RICH_EXPAND:
            return min(at, t_s)
        return at

    def train_workers(self, world: World, ready_th: list[Structure], n_workers: int, want: int, used: int,
                      cap: int) -> int:
        """Drones from larvae, at most one per finished Hatchery and one more each decision (the
        other larvae are left for the army and supply), none while :meth:`drones_wanted` says no."""
        c = self.c
        rp = c.race
        per_decision = len(ready_th) + 1
        if not self.drones_wanted(world, n_workers):
            per_decision = 0
        while n_workers < want and used < cap and per_decision > 0 and c.can_spend(world, 50, 0):
            if not self.from_larva(world, rp.worker_train, rp.worker):
                break
            n_workers += 1
            used += 1
            per_decision -= 1
        return used

    def tend_bases(self, world: World, ready_th: list[Structure], prod: dict[str, list[Structure]]) -> None:
        self.queens(world, ready_th, prod)

    def train_army(self, world: World, tech: Tech, prod: dict[str, list[Structure]], counts: dict[int, int]) -> None:
        """The eggs count among its army; then its larvae (:meth:`produce_larva`)."""
        rp = self.c.race
        for _, t, k in self.hatching:
            if t in rp.train:
                counts[t] = counts.get(t, 0) + k
        n_army = sum(counts.values())
        self.produce_larva(world, tech.choices(LARVA, NO_ADDON), counts, n_army)

    def site_bound(self, role: Role) -> tuple[np.ndarray, float] | None:
        """A structure on creep within :data:`~.races.CREEP_REACH` of a finished Hatchery (the
        engine's placement refuses a spot off creep in any case)."""
        if not role.creep:
            return None
        c = self.c
        kinds = c.townhall_types
        sources = np.array([(s.x, s.y) for s in c.structs if s.unit_id in kinds and s.ready]).reshape(-1, 2)
        return sources, CREEP_REACH

    def tactics(self, world: World, army: np.ndarray) -> None:
        """Lurkers burrow near enemy ground units and come up once none is near (:data:`LURKER_MODE`);
        Ravagers spit Corrosive Bile (:meth:`bile`); from Hard up Infestors fungal clumps of enemy
        units (:meth:`fungals`) and, those that did not, take control of a high-value enemy unit
        (:meth:`neurals`); Vipers cast (:meth:`vipers`)."""
        c = self.c
        u = world.u
        uid = u.unit_id[army]
        rows = army[(uid == LURKER) | (uid == LURKER_BURROWED)]
        known = c.known
        ground = known[~TYPES.is_flying[u.ti[known]]] if len(known) else known
        self.modes(world, LURKER_MODE, rows, ground)
        if len(known):
            self.bile(world, army[uid == RAVAGER], known)
        if c.difficulty < L.HARD:
            return
        vipers = army[uid == VIPER]
        if len(vipers) and c.threat_at is None:
            self.consume(world, vipers[~c.members(world, c.wave)[vipers]])
        if not len(known):
            return
        enemy = known[~TYPES.structure[u.ti[known]]]
        if not len(enemy):
            return
        infestors = army[uid == INFESTOR]
        fungaled: set[int] = set()
        if FUNGAL_GROWTH not in c.refused:
            fungaled = self.fungals(world, infestors, enemy)
        if NEURAL_PARASITE not in c.refused:
            self.neurals(world, infestors, enemy, fungaled)
        if len(vipers):
            self.vipers(world, vipers, enemy, army)

    def fungals(self, world: World, infestors: np.ndarray, enemy: np.ndarray) -> set[int]:
        """Each Infestor with the energy and no fungal under way casts Fungal Growth, within
        :data:`FUNGAL_REACH`, on the enemy unit whose fungal would catch the most enemy units not
        caught yet (:data:`FUNGAL_MIN` at least): those under a fungal, or within reach of one on
        its way or cast this decision, are caught; so one Infestor a clump (LP:Infestor: Fungal
        Growth roots a clump for the army to catch).  The tags of the Infestors it ordered."""
        ordered: set[int] = set()
        if not len(infestors):
            return ordered
        c = self.c
        u = world.u
        under = world.zerg.spells.fungals
        free = ~np.isin(u.tag[enemy], np.fromiter(under, dtype=np.int64, count=len(under))) if under else \
            np.ones(len(enemy), dtype=bool)
        ex, ey = u.x[enemy], u.y[enemy]
        casting = world.casting.casts
        for tag in u.tag[infestors].tolist():
            cast = casting.get(int(tag))
            if cast is not None and cast.ability == FUNGAL_GROWTH:
                free &= (ex - cast.x) ** 2 + (ey - cast.y) ** 2 > FUNGAL_RADIUS ** 2
        close = reached(ex, ey, ex, ey, FUNGAL_RADIUS)
        for r in infestors.tolist():
            tag = int(u.tag[r])
            if int(u.ability[r]) == FUNGAL_GROWTH or world.abilities.energy_of(tag) < FUNGAL_ENERGY:
                continue
            score = (close & free[None, :]).sum(axis=1)
            ok = ((ex - u.x[r]) ** 2 + (ey - u.y[r]) ** 2 <= FUNGAL_REACH ** 2) & (score >= FUNGAL_MIN)
            if not ok.any():
                continue
            k = int(np.argmax(np.where(ok, score, -1)))
            at = (float(ex[k]), float(ey[k]))
            if not c.answer(world.command(c.player_id, FUNGAL_GROWTH, [tag], at, 0, False), FUNGAL_GROWTH):
                return ordered
            ordered.add(tag)
            free &= ~close[k]
        return ordered

    def neurals(self, world: World, infestors: np.ndarray, enemy: np.ndarray, fungaled: set[int]) -> None:
        """Each Infestor with the energy (100, LP:Infestor), no spell under way or channelling and
        no fungal of this decision (``fungaled``: Fungal Growth comes first) takes control of
        (Neural Parasite) the enemy unit with the most life and shields among
        :data:`NEURAL_TARGETS` within :data:`NEURAL_REACH`, none under a Neural Parasite already or
        one on its way; so one Infestor a target."""
        if not len(infestors):
            return
        c = self.c
        u = world.u
        pid = c.player_id
        casting = world.casting
        controls = world.zerg.spells.controls
        taken = {d.target for d in controls.values()}
        taken.update(cast.target for cast in casting.casts.values() if cast.ability == NEURAL_PARASITE)
        taken.update(cast.target for q in casting.queued.values() for cast in q if cast.ability == NEURAL_PARASITE)
        tags = u.tag[enemy]
        worth = np.isin(u.unit_id[enemy], np.array(NEURAL_TARGETS)) & \
            ~np.isin(tags, np.array(sorted(taken), dtype=np.int64))
        if not worth.any():
            return
        ex, ey = u.x[enemy], u.y[enemy]
        life = (u.hp + u.shield)[enemy]
        for r in infestors.tolist():
            tag = int(u.tag[r])
            if tag in fungaled or tag in controls or tag in casting.casts or \
                    int(u.ability[r]) in (FUNGAL_GROWTH, NEURAL_PARASITE) or \
                    world.abilities.energy_of(tag) < NEURAL_ENERGY:
                continue
            ok = worth & (u.owner[enemy] != pid) & ((ex - u.x[r]) ** 2 + (ey - u.y[r]) ** 2 <= NEURAL_REACH ** 2)
            if not ok.any():
                continue
            k = int(np.argmax(np.where(ok, life, -1.0)))
            worth[k] = False
            if not c.answer(world.command(pid, NEURAL_PARASITE, [tag], None, int(tags[k]), False), NEURAL_PARASITE) \
                    and NEURAL_PARASITE in c.refused:
                return

    def vipers(self, world: World, vipers: np.ndarray, enemy: np.ndarray, army: np.ndarray) -> None:
        """Each Viper with no spell under way casts the first that fits (LP:Viper): Parasitic Bomb
        on an enemy air unit in a flock (:data:`BOMB_MIN`), else Abduct on the enemy with the most
        life among the massive ones and :data:`ABDUCT_ALSO`, else Blinding Cloud on a clump of
        enemy ranged ground units (:data:`CLOUD_MIN`); one Viper a target (a cloud's units count as
        its target)."""
        c = self.c
        u = world.u
        pid = c.player_id
        ti = u.ti[enemy]
        ex, ey = u.x[enemy], u.y[enemy]
        tags = u.tag[enemy]
        air = TYPES.is_flying[ti]
        bombed = {b.target for b in world.zerg.spells.bombs}
        bombed.update(cast.target for cast in world.casting.casts.values() if cast.ability == PARASITIC_BOMB)
        d2 = (ex[:, None] - ex[None, :]) ** 2 + (ey[:, None] - ey[None, :]) ** 2
        flock = (air[None, :] & (d2 <= BOMB_RADIUS ** 2)).sum(axis=1)
        bomb_ok = air & (flock >= BOMB_MIN) & ~np.isin(tags, np.array(sorted(bombed), dtype=np.int64))
        big = _MASSIVE[ti] | np.isin(u.unit_id[enemy], np.array(ABDUCT_ALSO))
        life = (u.hp + u.shield)[enemy]
        ranged = ~air & TYPES.can_attack[ti] & (TYPES.range[ti] > CLOUD_RANGED)
        own_ground = army[~TYPES.is_flying[u.ti[army]]]
        r2 = CLOUD_RADIUS ** 2
        hit = (ranged[None, :] & (d2 <= r2)).sum(axis=1)
        mine = reached(ex, ey, u.x[own_ground], u.y[own_ground], CLOUD_RADIUS).sum(axis=1)
        cloud_score = np.where(ranged, hit - 2 * mine, -1)
        clouded = np.zeros(len(enemy), dtype=bool)
        for cx, cy, end, _ in world.zerg.spells.clouds:
            if end > world.loop:
                clouded |= (ex - cx) ** 2 + (ey - cy) ** 2 <= r2
        for cast in world.casting.casts.values():
            if cast.ability == BLINDING_CLOUD:
                clouded |= (ex - cast.x) ** 2 + (ey - cast.y) ** 2 <= r2
        for r in vipers.tolist():
            tag = int(u.tag[r])
            if int(u.ability[r]) in VIPER_SPELLS:
                continue
            e = world.abilities.energy_of(tag)
            dv = (ex - u.x[r]) ** 2 + (ey - u.y[r]) ** 2
            ok = bomb_ok & (dv <= BOMB_REACH ** 2)
            if e >= BOMB_ENERGY and ok.any() and PARASITIC_BOMB not in c.refused:
                k = int(np.argmax(np.where(ok, flock, -1)))
                if c.answer(world.command(pid, PARASITIC_BOMB, [tag], None, int(tags[k]), False), PARASITIC_BOMB):
                    bomb_ok[k] = False
                    continue
            ok = big & (dv <= ABDUCT_REACH ** 2) & (dv >= ABDUCT_PULL ** 2)
            if e >= ABDUCT_ENERGY and ok.any() and ABDUCT not in c.refused:
                k = int(np.argmax(np.where(ok, life, -1.0)))
                if c.answer(world.command(pid, ABDUCT, [tag], None, int(tags[k]), False), ABDUCT):
                    big[k] = False
                    continue
            ok = (dv <= CLOUD_REACH ** 2) & ~clouded & (cloud_score >= CLOUD_MIN)
            if e >= CLOUD_ENERGY and ok.any() and BLINDING_CLOUD not in c.refused:
                k = int(np.argmax(np.where(ok, cloud_score, -1)))
                at = (float(ex[k]), float(ey[k]))
                if c.answer(world.command(pid, BLINDING_CLOUD, [tag], at, 0, False), BLINDING_CLOUD):
                    clouded |= (ex - at[0]) ** 2 + (ey - at[1]) ** 2 <= r2

    def consume(self, world: World, vipers: np.ndarray) -> None:
        """Each idle Viper at home (no wave, no threat) short of :data:`CONSUME_BELOW` energy
        consumes its finished structure with the most life (:data:`CONSUME_MIN_LIFE` at least)
        within :data:`CONSUME_SEEK` (LP:Viper: Consume, 200 of a structure's life for 50 energy)."""
        c = self.c
        if not len(vipers) or CONSUME in c.refused:
            return
        u = world.u
        sites = [(s.tag, s.x, s.y, float(u.hp[u.row(s.tag)])) for s in c.structs if s.ready and u.row(s.tag) >= 0]
        sites = [p for p in sites if p[3] >= CONSUME_MIN_LIFE]
        for r in vipers[u.kind[vipers] == IDLE].tolist():
            tag = int(u.tag[r])
            if world.abilities.energy_of(tag) >= CONSUME_BELOW:
                continue
            x, y = float(u.x[r]), float(u.y[r])
            near = [p for p in sites if (p[1] - x) ** 2 + (p[2] - y) ** 2 <= CONSUME_SEEK ** 2]
            if not near:
                continue
            target = max(near, key=lambda p: p[3])
            if not c.answer(world.command(c.player_id, CONSUME, [tag], None, target[0], False), CONSUME):
                return
            sites.remove(target)

    def bile(self, world: World, ravagers: np.ndarray, known: np.ndarray) -> None:
        """Each Ravager whose bile is ready spits it at an enemy within :data:`BILE_REACH`: the
        slowest first (a structure, a sieged tank or a burrowed Lurker cannot step out of the
        2.5 seconds the bile takes to land), then the nearest; at most :data:`BILES_PER_TARGET`
        on one enemy."""
        if not len(ravagers):
            return
        u = world.u
        ready = world.casting.ready_to
        loop = world.loop
        speed = TYPES.speed[u.ti[known]]
        aimed: dict[int, int] = {}
        for r in ravagers.tolist():
            tag = int(u.tag[r])
            if int(u.ability[r]) == CORROSIVE_BILE or not ready(tag, CORROSIVE_BILE, loop):
                continue
            d = np.hypot(u.x[known] - u.x[r], u.y[known] - u.y[r])
            near = np.flatnonzero(d <= BILE_REACH)
            if not len(near):
                continue
            for k in near[np.lexsort((d[near], speed[near]))].tolist():
                if aimed.get(k, 0) < BILES_PER_TARGET:
                    aimed[k] = aimed.get(k, 0) + 1
                    t = known[k]
                    world.command(self.c.player_id, CORROSIVE_BILE, [tag], (float(u.x[t]), float(u.y[t])), 0, False)
                    break

    def not_yet(self, world: World, ability: int, x: float, y: float) -> bool:
        """A structure that needs creep, on a spot the creep has not reached yet (it spreads from a
        new Hatchery for a while: the spot is tried again later)."""
        unit = T.BUILD[ability].unit_id
        if unit in NO_CREEP_NEEDED or not world.creep.active:
            return False
        hx, hy = half_size(unit)
        return world.creep.placement(unit, snap(x, hx), snap(y, hy)) is not None

    # ------------------------------------------------------------------ larvae
    def from_larva(self, world: World, ability: int, unit: int) -> bool:
        """Morph one of its larvae into ``unit`` with ``ability`` (``data.tech.TRAIN``, how="larva");
        False when no larva is left or the engine refuses.  The egg is remembered until it hatches
        (its unit then counts among the units it has)."""
        c = self.c
        while self.larvae:
            tag = self.larvae.pop()
            if c.answer(world.command(c.player_id, ability, [tag], None, 0, False), ability):
                spec = T.TRAIN[ability]
                self.hatching.append((world.loop + int(spec.time), unit, spec.count))
                return True
            if ability in c.refused:
                return False
        return False

    def produce_larva(self, world: World, choices: tuple[L.Train, ...], counts: dict[int, int], n_army: int) -> None:
        """Every larva left after its drones and overlords becomes the first army unit of the
        build's list it has fewer of than it wants, can make and can pay for, as a structure's slot
        takes it (:meth:`RaceRules._wanted`: a top-tier unit short of vespene keeps it from the gas
        units after it, one short of minerals only keeps them)."""
        c = self.c
        rp = c.race
        used, cap = world.supply.food(c.player_id)
        self.gas_kept = 0
        while self.larvae and used < cap:
            made = False
            for ch in choices:
                wanted = self._wanted(world, ch, counts, n_army, True)
                if wanted < 0:
                    return  # (short of minerals only: keep them for the tech unit)
                if not wanted:
                    continue
                spec = T.TRAIN[rp.train[ch.unit]]
                if self.from_larva(world, rp.train[ch.unit], ch.unit):
                    counts[ch.unit] = counts.get(ch.unit, 0) + spec.count
                    n_army += spec.count
                    used += int(math.ceil(spec.food))
                    made = True
                    break
            if not made:
                break

    def drones_wanted(self, world: World, n_workers: int) -> bool:
        """Whether a larva may become a drone now rather than an army unit: not while enemies
        attack its structures (the levels that defend better, :attr:`Level.pull_workers`), and
        beyond :data:`DRONES_ALONE` drones only while its army keeps :data:`ARMY_PER_DRONE` supply
        per drone beyond them."""
        c = self.c
        if c.threat_at is not None and c.level.pull_workers:
            return False
        if n_workers < DRONES_ALONE:
            return True
        u = world.u
        army = float(TYPES.food[u.ti[c.army_rows]].sum()) + \
            sum(n * D.unit_spec(t).food_required for _, t, n in self.hatching if t in c.race.train)
        return army >= ARMY_PER_DRONE * (n_workers - DRONES_ALONE)

    # ------------------------------------------------------------------ Queens
    def queens(self, world: World, ready_th: list[Structure], prod: dict[str, list[Structure]]) -> None:
        """One Queen per finished Hatchery (from the queue of the one with the fewest Queens near
        it, once a Spawning Pool stands; more when minerals pile up), and Spawn Larva on each
        Hatchery with none under way by an idle Queen with the energy: one near it, else (none
        near) the nearest.  At the levels that defend better the Queens near enemies at its bases
        fight them."""
        c = self.c
        rp = c.race
        u = world.u
        pid = c.player_id
        own_queens = ((u.owner == pid) & (u.unit_id == rp.queen)).nonzero()[0]
        qx, qy = u.x[own_queens], u.y[own_queens]

        def near(s: Structure, rows: np.ndarray | None = None) -> np.ndarray:
            x, y = (qx, qy) if rows is None else (u.x[rows], u.y[rows])
            return (x - s.x) ** 2 + (y - s.y) ** 2 < QUEEN_HOME ** 2

        n = len(own_queens) + sum(s.queue.count(rp.queen) for s in ready_th)
        rich = world.supply.minerals.get(pid, 0) > RICH_EXPAND
        per_th = (RICH_QUEENS if c.level.pull_workers else 2) if rich else 1
        if rp.queen_train not in c.refused and self.can_make_queen():
            for th in sorted(ready_th, key=lambda s: int(np.count_nonzero(near(s)))):
                if n >= len(ready_th) * per_th:
                    break
                if not th.busy and c.can_spend(world, 150, 0):
                    if c.answer(world.command(pid, rp.queen_train, [th.tag], None, 0, False), rp.queen_train):
                        n += 1
        if c.threat_at is not None and c.level.pull_workers and len(own_queens):
            tx, ty = c.threat_at
            fight = (qx - tx) ** 2 + (qy - ty) ** 2 < QUEEN_DEFENCE ** 2
            c.attack_move(world, own_queens[fight], (tx, ty))
            own_queens = own_queens[~fight]
        if rp.inject in c.refused or not ready_th or not len(own_queens):
            return
        # (injects on one Hatchery queue up one after the other: each Hatchery gets one at a time,
        # from a Queen of its own, so that every Hatchery's larvae grow and no Queen walks far)
        casting = world.casting  # (an inject under way is a cast order on its Hatchery)
        on_way = {cast.target for cast in casting.casts.values() if cast.ability == rp.inject}
        on_way.update(cast.target for q in casting.queued.values() for cast in q if cast.ability == rp.inject)
        energy = np.array([world.abilities.energy_of(int(t)) for t in u.tag[own_queens].tolist()])
        ready = own_queens[(u.kind[own_queens] == IDLE) & (energy >= INJECT_ENERGY)]
        for th in ready_th:
            if not len(ready):
                break
            if world.larva.injects.get(th.tag) or th.tag in on_way:
                continue
            home = ready[near(th, ready)]
            if not len(home) and near(th).any():
                continue  # (its own Queen is busy or short of energy: it will come)
            pick = home if len(home) else ready
            r = int(pick[int(np.argmin((u.x[pick] - th.x) ** 2 + (u.y[pick] - th.y) ** 2))])
            if not c.answer(world.command(pid, rp.inject, [int(u.tag[r])], None, th.tag, False), rp.inject):
                break
            ready = ready[ready != r]

    def can_make_queen(self) -> bool:
        """Whether the structures a Queen requires stand finished (a Spawning Pool)."""
        return all(self.c.have_ready(r) for r in T.TRAIN[self.c.race.queen_train].requires.structures)
