"""The seams where the melee Computer's races play differently: :class:`RaceRules`.

:class:`~sc2pool.engine.computer.melee.MeleeComputer` holds the flow the three races share (its
decisions, what it knows, where it builds, its army); at each point where a race differs it calls
its race's rules, one subclass per race (:mod:`.terran`, :mod:`.zerg`, :mod:`.protoss`), chosen
once per game by the race it plays.  The facts those rules read (ids, roles, builds) are the race's
:class:`~.races.RaceProfile`; the rules hold the behaviour, and the state only one race needs (a
Zerg's larvae and eggs, a Protoss's ways out of its bases).

The defaults here are what two races of the three share, so that each race's module holds only
what is its own: a townhall's queue trains the worker (Terran, Protoss; not Zerg's larvae), a
structure gives supply (not Zerg's Overlords), the army trains in its structures' queues (not
Zerg's), a spot refused for power or creep is kept for later (Protoss, Zerg; Terran's spots are
footprints only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.computer import levels as L
from sc2pool.engine.computer.levels import DEPOT, NO_ADDON, REACTOR, TECHLAB, Tech, Train
from sc2pool.engine.computer.races import Role
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.commands import (
    CANT_BUILD_LOCATION_INVALID,
    CANT_BUILD_TOO_CLOSE_TO_RESOURCES,
    SUCCESS,
)
from sc2pool.engine.sim.races import WORKERS
from sc2pool.engine.sim.systems.addons import REACTORS, TECHLABS
from sc2pool.engine.sim.units import TRANSFORM, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.computer.melee import MeleeComputer
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.units import UnitStore
    from sc2pool.engine.sim.world import World

MELEE_SHARE = 0.5
"""The share of its melee units' damage its launch check (and a Protoss's defence check) counts
(m: Zealots without Charge against Marines lose about even Lanchester strengths in the engine's
fights)."""
TECH_STRUCTURES = 2
"""A build with a tech path may have this many production structures beyond the level's cap on
barracks (its Factory and Starport) (m)."""
LANE = 0.8
"""Room it leaves between its structures' collision circles (a marine is 0.75 across) (m)."""
WIDE_LANE = 1.9
"""... with a tech path: a Siege Tank is 1.75 across (m); its building lattice leaves 3 free cells
between structures instead of 2 (a 3 x 3 structure's circle reaches 0.31 beyond its cells)."""
SMALL_STRUCTURE_RADIUS = 1.5
"""Structures with a smaller radius are 2 x 2 (a Pylon, a Spire)."""
FOOTPRINT_REFUSALS = frozenset({CANT_BUILD_LOCATION_INVALID, CANT_BUILD_TOO_CLOSE_TO_RESOURCES})
"""Placement answers that a spot will not change (a structure or a resource is in the way); a spot
refused for another reason (no power, no creep yet) is kept for later (Protoss, Zerg)."""


def reached(x: np.ndarray, y: np.ndarray, tx: np.ndarray, ty: np.ndarray, reach: float,
            radius: np.ndarray | None = None) -> np.ndarray:
    """bool (len(x), len(tx)): which of the points (``tx``, ``ty``) lie within ``reach`` of each
    point (``x``, ``y``): their centres, or their edges given their ``radius`` (a spell's area
    round a spot, counted by the Computer's casts)."""
    if radius is None:
        return (x[:, None] - tx[None, :]) ** 2 + (y[:, None] - ty[None, :]) ** 2 <= reach ** 2
    return np.hypot(x[:, None] - tx[None, :], y[:, None] - ty[None, :]) - radius[None, :] <= reach


def scouting(rows: np.ndarray, u: UnitStore) -> bool:
    """Whether the enemy units ``rows`` near something of the Computer's are one worker alone: a
    scout, no threat (its army's defence, a Protoss Battery's overcharge)."""
    return len(rows) == 1 and int(u.unit_id[rows[0]]) in WORKERS


def strength(rows: np.ndarray, u: object, melee: float = 1.0) -> float:
    """Fighting strength of a group (Lanchester's square law for ranged units: the sum of life times
    the sum of damage per loop); ``melee``: the share of a melee unit's damage that counts (it
    walks into its targets' fire and not all of a group reaches them)."""
    if not len(rows):
        return 0.0
    ti = u.ti[rows]  # type: ignore[attr-defined]
    hp = float((u.hp[rows] + u.shield[rows]).sum())  # type: ignore[attr-defined]
    per = TYPES.dmg[ti, ti] * TYPES.attacks[ti] / np.maximum(TYPES.cd_loops[ti], 1.0)
    if melee != 1.0:
        per = np.where(TYPES.range[ti] < 1.0, per * melee, per)
    dps = float(per[TYPES.can_attack[ti]].sum())
    return hp * dps
UNSIEGE_LOOPS = 67
"""A unit in a fixed form (a sieged tank) changes back once no enemy has been within its
:attr:`Mode.leave` for this long (3 faster seconds) (m)."""


@dataclass(frozen=True)
class Mode:
    """A unit that fights in a form that cannot move: it changes into it (``on``) with an enemy
    within ``reach`` and back (``off``) once none has been within ``leave`` for
    :data:`UNSIEGE_LOOPS`; ``air``: enemy air units count (a Widow Mine's missiles hit them).  Terran's
    Siege Tanks and Widow Mines, Zerg's Lurkers."""

    mobile: int
    fixed: int
    on: int
    off: int
    reach: float
    leave: float
    air: bool


class RaceRules:
    """What the Computer does where its race matters (see the module docstring); each hook is
    called by :class:`~.melee.MeleeComputer` at one point of its decisions."""

    checks_requirements = True
    """Whether a unit's required structures are checked before its producer is asked to train it."""

    def __init__(self, computer: MeleeComputer) -> None:
        self.c = computer
        self.gas_kept = 0
        """Vespene kept this decision for a top-tier unit (:attr:`~.levels.Train.from_level`) that
        could not be paid yet (:meth:`train_army`)."""
        self.enemy_near: dict[int, dict[int, int]] = {}
        """Mobile type of a :class:`Mode` (a Liberator's too) -> tag of a unit in its fixed form ->
        the last loop an enemy was within its ``leave`` distance."""
        self.detached: set[int] = set()
        """Tags of army units on an errand of the race's own (Terran: a drop), which the army's
        orders leave alone (:meth:`~.melee.MeleeComputer.observe` takes them out of its army)."""

    # ------------------------------------------------------------------ each decision
    def observe(self, world: World, own: np.ndarray) -> None:
        """What it notes of its own units (``own``: bool per row) at each decision beyond its
        workers and army (Zerg: its larvae)."""

    # ------------------------------------------------------------------ economy
    def defending(self, world: World) -> bool:
        """Whether this economy decision defends first (Protoss: :meth:`.protoss.ProtossRules.defending`)."""
        return False

    def defend_first(self, world: World, prod: dict[str, list[Structure]], building: dict[int, int]) -> bool:
        """While it defends, what goes before its workers and structures; False: it keeps its money
        for what it could not order yet (the decision ends)."""
        return True

    def speed_up(self, world: World, ready_th: list[Structure], prod: dict[str, list[Structure]]) -> None:
        """Before its workers: speed up its production (Protoss: Chrono Boost)."""

    def upkeep(self, world: World) -> None:
        """First thing of each economy decision (Zerg: forget the eggs that have hatched; Protoss,
        from Hard up: Battery Overcharge in a fight)."""

    def eggs(self, unit: int) -> int:
        """Units of type ``unit`` on their way outside any structure's queue (Zerg: in their eggs)."""
        return 0

    def supply_under_way(self, building: dict[int, int], ready_th: list[Structure], ready_rax: int,
                         producers: int) -> tuple[int, int, int]:
        """(supply providers under way, the free supply it keeps ahead, how many may be under way
        at once): depots not finished or a worker's on its way; the margin grows with its
        producers (m)."""
        c = self.c
        rp = c.race
        under_way = sum(1 for s in c.structs if s.unit_id == rp.supply_unit and not s.ready) + \
            building.get(rp.roles[DEPOT].ability, 0)
        return under_way, 2 + len(ready_th) + 2 * ready_rax, 1 + producers // 5

    def add_supply(self, world: World) -> bool:
        """Order more supply (a depot, a Pylon); False while it cannot yet (the caller then keeps
        the money for it)."""
        return self.c.construct(world, DEPOT)

    def waits_for_supply(self) -> bool:
        """Whether the economy keeps its money for the supply :meth:`add_supply` could not order."""
        return True

    def expand_at(self, world: World, at: float, t_s: float) -> float:
        """The game second from which it may start its next townhall (``at``: its build's)."""
        return at

    def train_workers(self, world: World, ready_th: list[Structure], n_workers: int, want: int, used: int,
                      cap: int) -> int:
        """Train workers towards ``want`` (``n_workers`` it has or has on their way); returns the
        supply used after them.  Each idle finished townhall trains one."""
        c = self.c
        pid = c.player_id
        ability = c.race.worker_train
        for th in ready_th:
            if n_workers < want and not th.queue and used < cap and c.can_spend(world, 50, 0):
                if world.command(pid, ability, [th.tag], None, 0, False) == SUCCESS:
                    n_workers += 1
                    used += 1
        return used

    def tend_bases(self, world: World, ready_th: list[Structure], prod: dict[str, list[Structure]]) -> None:
        """After its workers: the units that serve its bases (Zerg: Queens and Spawn Larva)."""

    def may_start(self, need: int) -> bool:
        """Whether a structure whose requirement is ``need`` may be ordered: one counting as ``need``
        stands finished (a Gateway's Pylon, a Roach Warren's Spawning Pool)."""
        return self.c.have_ready(need)

    def produce_basic(self, world: World) -> None:
        """Its army, for a build without a tech path (Terran's Simple and Rush)."""
        raise NotImplementedError(f"{self.c.race.name}: every build of the race has a tech path")

    def economy_basic(self, world: World, ready_th: list[Structure], refineries: list[Structure],
                      building: dict[int, int]) -> None:
        """After the opener of a build without a tech path: its structures and army."""
        raise NotImplementedError(f"{self.c.race.name}: every build of the race has a tech path")

    def add_ons(self, world: World, tech: Tech, prod: dict[str, list[Structure]]) -> None:
        """Before its army, after the opener of a build with a tech path: its production structures'
        add-ons (Terran: Tech Labs and Reactors)."""

    def train_army(self, world: World, tech: Tech, prod: dict[str, list[Structure]], counts: dict[int, int]) -> None:
        """Every finished production structure not building its add-on fills its slots (two with a
        Reactor): each slot takes the first unit of the build's list for that structure and add-on
        that it has fewer of than it wants and can pay for; the last producers of its tech chain
        first (Starports, Factories), and a unit that needs vespene and lacks only minerals keeps
        them (nothing more is trained this decision), so that the gas goes to the tech units rather
        than piling up; a top-tier unit (:attr:`~.levels.Train.from_level`) that lacks vespene keeps
        it from the units after it that need vespene (:attr:`gas_kept`).  ``counts``: unit type ->
        how many it has and has queued."""
        c = self.c
        pid = c.player_id
        addons = world.addons
        rp = c.race
        n_army = sum(counts.values())
        self.gas_kept = 0
        check_requirements = self.checks_requirements
        for w in reversed(rp.production):
            for s in prod[w]:
                if not s.ready or s.morph is not None or (s.addon and addons.building(s) is not None):
                    continue
                choices = tech.choices(w, self.addon_kind(world, s))
                if s.unit_id in self.warp_gates:  # (a Gateway turned Warp Gate: a unit at a time, warped in)
                    if not self.producing(world, s):
                        for ch in choices:
                            wanted = self._wanted(world, ch, counts, n_army, check_requirements)
                            if wanted < 0:
                                return
                            if wanted and self.warp_in(world, s, ch.unit):
                                counts[ch.unit] = counts.get(ch.unit, 0) + 1
                                n_army += 1
                                break
                    continue
                slots = addons.slots(s)
                while len(s.queue) < slots:
                    made = False
                    for ch in choices:
                        wanted = self._wanted(world, ch, counts, n_army, check_requirements)
                        if wanted < 0:
                            return  # (short of minerals only: keep them for the tech unit)
                        if not wanted:
                            continue
                        if world.command(pid, rp.train[ch.unit], [s.tag], None, 0, False) == SUCCESS:
                            counts[ch.unit] = counts.get(ch.unit, 0) + 1
                            n_army += 1
                            made = True
                            break
                    if not made:
                        break

    @staticmethod
    def addon_kind(world: World, s: Structure) -> str:
        """The add-on attached to ``s``: :data:`~.levels.TECHLAB`, :data:`~.levels.REACTOR` or
        :data:`~.levels.NO_ADDON`."""
        a = world.addons.attached(s)
        return NO_ADDON if a is None else TECHLAB if a.unit_id in TECHLABS else \
            REACTOR if a.unit_id in REACTORS else NO_ADDON

    def _wanted(self, world: World, ch: Train, counts: dict[int, int], n_army: int, check_requirements: bool) -> int:
        """Whether a producer's slot (or a Zerg's larva) takes ``ch`` now (:meth:`train_army`): 1 yes;
        0 no, the next choice; -1 no, and nothing more this decision (it lacks only minerals for a
        unit that needs vespene: it keeps them)."""
        c = self.c
        if ch.from_level > c.difficulty:
            return 0
        want = max(float(ch.at_least), ch.share * (n_army + 1))
        if ch.unit == L.VIKING and c.enemy_air:
            want = max(want, c.enemy_air + 1.0)
        if counts.get(ch.unit, 0) >= want:
            return 0
        if (check_requirements or ch.from_level) and not c.can_make(ch.unit):
            return 0
        spec = T.TRAIN[c.race.train[ch.unit]]  # (what one order costs: a larva's pair of Zerglings)
        gas = spec.vespene + (self.gas_kept if spec.vespene else 0)
        if not c.can_spend(world, spec.minerals, gas):
            if ch.from_level and spec.vespene and not c.can_spend(world, 0, gas):
                self.gas_kept = gas  # (the gas units after it wait for it: the cheaper ones would take it first)
            return -1 if spec.vespene and c.can_spend(world, 0, gas) else 0
        return 1

    @property
    def warp_gates(self) -> frozenset[int]:
        """The structure types whose units are warped in (none but for Protoss)."""
        return frozenset()

    def producing(self, world: World, s: Structure) -> bool:
        """Whether a production structure is at work (its queue; a Warp Gate's cooldown)."""
        return bool(s.queue)

    def warp_in(self, world: World, gate: Structure, unit: int) -> bool:
        """Warp ``unit`` in with the Warp Gate ``gate`` (Protoss); False: it could not."""
        return False

    # ------------------------------------------------------------------ placement
    def site_bound(self, role: Role) -> tuple[np.ndarray, float] | None:
        """Where ``role``'s structure may stand: (centres of the finished structures it must be near,
        how near), as a Pylon's power field or a Hatchery's creep; None: anywhere."""
        return None

    def check_ability(self, role: Role) -> int:
        """The build ability whose placement check a spot for ``role``'s structure must pass."""
        return role.ability

    def spot_in(self, world: World, k: int, spots: list[tuple[float, float]], ability: int, size: int, addon: bool,
                sources: np.ndarray, reach: float) -> tuple[float, float] | None:
        """The first of base ``k``'s ``spots`` (best first) where the structure may stand now (within
        ``reach`` of one of ``sources`` when there are any, off :meth:`in_the_way`, placement's
        check of ``ability`` and :meth:`~.melee.MeleeComputer.clear_of_structures`); spots taken
        for good are dropped from ``spots``, one refused for power or creep is kept for later."""
        c = self.c
        i = 0
        while i < len(spots):
            x, y = spots[i]
            if len(sources) and not (((sources[:, 0] - x) ** 2 + (sources[:, 1] - y) ** 2) <= reach * reach).any():
                i += 1
                continue
            if self.in_the_way(world, k, x, y, size):
                spots.pop(i)  # (on its army's way out)
                continue
            if self.not_yet(world, ability, x, y):
                i += 1
                continue
            r = world.placement.check(ability, x, y)
            if r == SUCCESS and c.clear_of_structures(x, y, size, addon):
                return (x, y)
            if r == SUCCESS or r in FOOTPRINT_REFUSALS:
                spots.pop(i)  # (taken for good: a structure or a resource in the way, or no lane)
            else:
                i += 1  # (no power or creep there yet)
        return None

    def not_yet(self, world: World, ability: int, x: float, y: float) -> bool:
        """Whether a spot is refused now for what may change (Zerg: no creep there yet, which the
        engine answers as an invalid location, as it answers a footprint that is taken for good)."""
        return False

    def in_the_way(self, world: World, k: int, x: float, y: float, size: int) -> bool:
        """Whether a structure of ``size`` at (x, y) in base ``k`` would stand in its army's way
        (Protoss: :meth:`.protoss.ProtossRules.keeps_way_out`)."""
        return False

    def add_on_room(self, others: list[tuple[float, float, int]], mine: list[tuple[float, float, float]],
                    x: float, y: float, addon: bool) -> None:
        """With a tech path: the spots :meth:`~.melee.MeleeComputer.clear_of_structures` keeps free
        beyond the structures (``others``: x, y, type) and round the new one (``mine``: x, y, radius;
        Terran: the add-ons' spots)."""

    def lane(self, uid: int, rs: float, wide: bool, tech: bool) -> float:
        """The room between a new structure and one of type ``uid`` (radius ``rs``); ``wide``: the
        new one is a production structure of a build with a tech path.  The wide lane between two
        big structures; a small one's side (a Pylon's) is walked round."""
        return WIDE_LANE if wide and rs >= SMALL_STRUCTURE_RADIUS else LANE

    def no_spot(self, world: World, role: Role) -> bool:
        """No spot for ``role``'s structure: whether the caller may go on (True: it gives up on it
        rather than stall) or keeps its money for it (Protoss: a Pylon for power first)."""
        return True

    # ------------------------------------------------------------------ army
    def tactics(self, world: World, army: np.ndarray) -> None:
        """Once per army decision, after its orders: what its race's units do by themselves round
        a fight (``army``: rows of its army; Terran: siege, stim, cloak, scans)."""

    def modes(self, world: World, mode: Mode, rows: np.ndarray, targets: np.ndarray) -> None:
        """``rows`` (its units of ``mode``'s two forms) change form as :class:`Mode` says."""
        near_of = self.enemy_near.setdefault(mode.mobile, {})
        if not len(rows):
            near_of.clear()
            return
        u = world.u
        nearest = self.nearest(world, rows, targets)
        fixed = u.unit_id[rows] == mode.fixed
        changing = u.kind[rows] == TRANSFORM  # (a change under way is not ordered again)
        go = rows[~fixed & ~changing & (nearest <= mode.reach)]
        if len(go):
            world.command(self.c.player_id, mode.on, [int(t) for t in u.tag[go].tolist()], None, 0, False)
        self.settle(world, near_of, rows[fixed & ~changing], nearest[fixed & ~changing], mode.leave, mode.off)

    @staticmethod
    def nearest(world: World, rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """Per row of ``rows``, the distance, edge to edge, to the nearest of ``targets`` (inf: none)."""
        u = world.u
        if not len(targets):
            return np.full(len(rows), np.inf)
        d = np.hypot(u.x[rows][:, None] - u.x[targets][None, :], u.y[rows][:, None] - u.y[targets][None, :]) \
            - u.radius[rows][:, None] - u.radius[targets][None, :]
        return d.min(axis=1)

    def settle(self, world: World, near_of: dict[int, int], fixed: np.ndarray, nearest: np.ndarray, leave: float,
               off: int) -> None:
        """Units in their fixed form (``fixed``, not changing) change back with ``off`` once no enemy
        has been within ``leave`` for :data:`UNSIEGE_LOOPS`; ``near_of`` keeps when one last was."""
        u = world.u
        loop = world.loop
        back = []
        alive = set()
        for r, near in zip(fixed.tolist(), nearest.tolist(), strict=True):
            tag = int(u.tag[r])
            alive.add(tag)
            if near <= leave:
                near_of[tag] = loop
            elif loop - near_of.setdefault(tag, loop) > UNSIEGE_LOOPS:
                back.append(tag)
        if back:
            world.command(self.c.player_id, off, back, None, 0, False)
        for tag in [t for t in near_of if t not in alive or t in back]:
            del near_of[tag]

    def shields(self, world: World, rows: np.ndarray, enemy: np.ndarray) -> None:
        """``rows`` of its army fight ``enemy``: their spells (Protoss: Guardian Shield)."""
