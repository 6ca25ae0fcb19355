"""The Zerg Computer's own rules: everything it trains comes from larvae (its Drones, Overlords and
army, as eggs it remembers until they hatch); its Queens (one per Hatchery, more while minerals
pile up) inject larvae and, at the levels that defend better, fight at its bases; a larva becomes
a Drone only while its army keeps pace (:meth:`ZergRules.drones_wanted`).

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
    ARMY_PER_DRONE,
    CREEP_REACH,
    DRONES_ALONE,
    LARVA,
    LARVA_T,
    LURKER,
    LURKER_BURROW,
    LURKER_BURROWED,
    LURKER_UNBURROW,
    RAVAGER,
    Role,
)
from sc2pool.engine.computer.rules import Mode, RaceRules
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.races.zerg import NO_CREEP_NEEDED
from sc2pool.engine.sim.systems.placement import half_size, snap
from sc2pool.engine.sim.systems.zerg_spells import CORROSIVE_BILE, SPELLS
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
        Ravagers spit Corrosive Bile (:meth:`bile`)."""
        u = world.u
        uid = u.unit_id[army]
        rows = army[(uid == LURKER) | (uid == LURKER_BURROWED)]
        known = self.c.known
        ground = known[~TYPES.is_flying[u.ti[known]]] if len(known) else known
        self.modes(world, LURKER_MODE, rows, ground)
        if len(known):
            self.bile(world, army[uid == RAVAGER], known)

    def bile(self, world: World, ravagers: np.ndarray, known: np.ndarray) -> None:
        """Each Ravager whose bile is ready spits it at an enemy within :data:`BILE_REACH`: the
        slowest first (a structure, a sieged tank or a burrowed Lurker cannot step out of the
        2.5 seconds the bile takes to land), then the nearest; at most :data:`BILES_PER_TARGET`
        on one enemy."""
        if not len(ravagers):
            return
        u = world.u
        ready = world.zerg.spells.ready
        loop = world.loop
        speed = TYPES.speed[u.ti[known]]
        aimed: dict[int, int] = {}
        for r in ravagers.tolist():
            tag = int(u.tag[r])
            if int(u.ability[r]) == CORROSIVE_BILE or ready.get((tag, CORROSIVE_BILE), 0) > loop:
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
