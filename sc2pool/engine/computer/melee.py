"""The built-in AI of the melee game: a ``Computer(race, difficulty, build)`` player on a ladder map.

One class plays the three races.  This module holds the flow they share (the decisions below,
what it knows of the enemy, where it builds, its army); the facts that differ by race (the worker
and what makes it, supply, the structures its builds name and what each needs, the army's
producers, how a build order is carried out) it reads from its race's profile (:mod:`.races`),
and where a race plays differently it calls its race's rules (:class:`~.rules.RaceRules`, chosen
once per game from :data:`RULES`): :mod:`.terran` (barracks of Marines and Reapers, add-ons,
footprint placement), :mod:`.zerg` (larvae, eggs, Queens), :mod:`.protoss` (power, the way out,
defending first, Chrono Boost, Guardian Shield).  The text below says "depot", "barracks", "SCV"
for the role each race fills with its own (a Pylon or an Overlord, a Gateway or a Spawning Pool,
a Probe or a Drone).

It plays through the same command path as a bot (:meth:`World.command`: every rule a bot meets
binds it too), reads the world's columns instead of an observation, and knows of the enemy only
what its vision shows (:meth:`MeleeComputer.look`: the units on cells its units see now, and the
structures it has seen, remembered where they stood until it sees them gone), except at the
levels that see the whole map.  Its choices depend only on the game's state and its own seeded
generator: a game is deterministic for a seed.

One decision every ``Level.period`` loops (its reaction time; :mod:`.levels` has every level's
knobs and their sources):

- **economy**: idle workers mine at the base that needs them most, each townhall trains workers
  up to the level's cap, a supply depot goes up before supply runs short, the build's opener is
  followed, then barracks as the build has per base, a refinery where it wants reapers,
  expansions from the build's timings on (money is kept for a structure that is due); at the
  lower levels it spends only a share of what it collects (:attr:`Level.income`);
- **tech** (the builds with a :class:`~.levels.Tech` path: bio, mech, air): Factories and
  Starports after the barracks, Tech Labs and Reactors, and the units each producer trains by the
  build's shares of the army, the tech units first (:meth:`MeleeComputer.economy_tech`);
- **scouting**: an SCV walks to the enemy's possible start locations; at the higher levels an
  army unit later looks at the sites next to the enemy's known bases;
- **defence**: an enemy near any of its structures draws every unit not in an attack; when the
  army is not enough, the higher levels pull workers (a worker rush, an early attack) and send
  them back to mining once the threat is gone; a wave whose home is lost returns;
- **attack waves**: units gather at a staging point in front of its forward base; once the wave
  is big enough and the build's first attack time has passed (the higher levels first gather the
  wave), it attack-moves to the nearest enemy structure it knows of, else to the enemy start
  locations it has not seen, else it searches the expansion sites; each wave is bigger than the
  last; the higher levels walk back when they meet a stronger army (and go out again once they
  are stronger than it); units that cannot fight ground units (Medivacs, Vikings) follow the
  wave, Vikings go for enemy air units near it;
- **army control** at the higher levels: every unit with an enemy in range attacks the best
  target in range (units that can shoot back first, then the one with the least life left); a
  build with a ``strength_margin`` (Protoss) launches a wave only when it is that much stronger
  than the enemy army it reckons (:meth:`MeleeComputer.enemy_strength`), defends first while that
  army is stronger than its own (:meth:`.protoss.ProtossRules.defending`), casts Chrono Boost
  (:meth:`.protoss.ProtossRules.chrono`), and its Sentries cast Guardian Shield in a fight
  (:meth:`.protoss.ProtossRules.shields`);
- **defence against cloak and air** (from Medium up): detectors at its bases and one with its
  army once it has seen a cloaked unit it does not detect, from Hard up anti-air structures
  against air, and a Protoss's Shield Batteries (:mod:`.defence`);
- **placement** (Protoss): no structure on the way out of a base
  (:meth:`.protoss.ProtossRules.keeps_way_out`).

Where the Computer builds and expands: :mod:`.sites`.  Its cost is kept small (numpy over the
store's columns, commands only when an order changes); ``benchmarks/computer_strength.py``
measures it and its strength.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.computer.defence import Defence
from sc2pool.engine.computer.levels import (
    DEPOT,
    LEVELS,
    NO_ADDON,
    RANDOM_BUILD,
    REFINERY,
    Build,
    Level,
    Tech,
)
from sc2pool.engine.computer.protoss import ProtossRules
from sc2pool.engine.computer.races import PROFILES, STAYS, RaceProfile, Role
from sc2pool.engine.computer.rules import MELEE_SHARE, TECH_STRUCTURES, RaceRules, scouting, strength
from sc2pool.engine.computer.sites import (
    ADDON_BASE_RADIUS,
    BASE_RADIUS,
    MapPlan,
    base_spots,
    map_plan,
    plateau,
)
from sc2pool.engine.computer.terran import TerranRules
from sc2pool.engine.computer.zerg import ZergRules
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.commands import NOT_SUPPORTED, SUCCESS
from sc2pool.engine.sim.races import WORKERS
from sc2pool.engine.sim.systems.workers import WALK_HOME, WALK_SITE
from sc2pool.engine.sim.units import ATTACK_MOVE, ATTACK_UNIT, FOLLOW, IDLE, NEUTRAL_OWNER, TRANSFORM, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.scenarios.melee import Melee
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

# the real client's ability ids (the race-specific ones are in the race profiles, .races, and the
# races' rules)
ATTACK, MOVE_CMD, ATTACK_UNIT_CMD, STOP = 3674, 16, 23, 4
LOOPS_PER_SECOND = 22.4
"""Game loops per game second at faster speed (the unit of the builds' timings)."""
ALL_WORKERS = WORKERS
"""SCV, Probe, Drone: a lone one near its structures is a scout, no threat."""
ALL_WORKER_IDS = np.array(sorted(ALL_WORKERS), dtype=np.int64)
_WORKER_ROWS = np.isin(TYPES.unit_id, ALL_WORKER_IDS)
"""bool per type row: a worker's (indexed with the units' type rows, it answers ``np.isin`` on their
unit ids without sorting them every time)."""
ORDER_TIMEOUT = int(60 * LOOPS_PER_SECOND)
"""A Probe's or Drone's build order not seen carried out this long after it was given is forgotten
(m: the longest walk to a site in a base and back)."""
ESCORT_AIR_RADIUS = 14.0
"""Vikings with a wave go after enemy air units this close to the wave (m)."""

THREAT_RADIUS = 14.0
"""An enemy this close to one of its structures is attacking it (m)."""
FIGHT_RADIUS = 12.0
"""Enemies this close to a wave's centre count for the wave's fight (m)."""
RETREAT_RATIO = 1.3
"""The higher levels walk back when the enemy's strength near the wave is this much above the
wave's (m)."""
GROUP_RADIUS = 8.0
GROUP_TIMEOUT = 20 * LOOPS_PER_SECOND
STUCK_LOOPS = int(45 * LOOPS_PER_SECOND)
"""With a tech path, a wave whose centre has not moved 4 in this long, with no enemy near, is
over (its units rejoin the army at home, which launches the next one) (m)."""
STAGING = 8.0
"""The staging point lies this far from the forward townhall towards the enemy (m)."""
MINERALS_PER_BASE, GAS_PER_REFINERY = 16, 3
"""Two workers per mineral field, three per refinery (the harvest system's ideal counts)."""
RESCOUT_S = 150.0
LOOK_FAR = 48
"""Loops between two looks at what changes slowly (remembered structures, expansion sites seen)."""
ENEMY_TRAIN_S = 25.0
"""Game seconds it reckons an enemy production structure takes per unit (m: a Marine is 18, a
Zealot 27)."""
ENEMY_PRODUCTION = {21: 48, 27: 53, 28: 35, 62: 73, 133: 73, 71: 83, 67: 80, 86: 105, 100: 105, 101: 105}
"""Barracks, Factory, Starport, Gateway, Warp Gate, Robotics Facility, Stargate, Hatchery, Lair,
Hive (the client's unit ids) -> the unit it reckons each trains before it has seen the enemy's
army: Marine, Hellion, Viking, Zealot, Immortal, Void Ray, Zergling (m)."""
FULL_ARMY = 120
"""Army supply from which a wave goes whatever the enemy's strength (m)."""
ECONOMY_PERIOD = 20
"""Loops between two economy decisions at least (the quickest levels decide on their army more
often) (m)."""
DEFEND_SPILL = 150
"""While it defends first (:meth:`.protoss.ProtossRules.defending`) it adds a production structure
(its build's ``spill``, a Gateway) from this many minerals left after its army's queues, instead
of 400 (m)."""


RULES: dict[int, type[RaceRules]] = {D.TERRAN: TerranRules, D.ZERG: ZergRules, D.PROTOSS: ProtossRules}
"""``common_pb2.Race`` -> the class of its rules (the behaviour where the race plays differently)."""


class MeleeComputer:
    """Acts for ``player_id`` inside :meth:`Game.step` (see the module docstring)."""

    _army_lut: np.ndarray | None = None
    """bool per type row: whether units of the row are of :attr:`army_types` (made at the first
    act; indexed with the units' type rows it answers ``np.isin`` without sorting every act)."""
    _site_of: dict[tuple[float, float], int] | None = None
    """Point -> :meth:`site_index` of the points asked (made at the first; the sites are the map
    plan's, fixed for the game)."""
    _plateaus: dict[int, np.ndarray] | None = None
    """Site index -> :func:`~.sites.plateau` of the site (made at the first :meth:`free_spot` of the
    site: every spot list of the base stands on it, and the map's grids never change)."""

    def __init__(self, player_id: int, difficulty: int, build: int, scenario: Melee, race: int | None = None) -> None:
        """``race``: the race it plays (``common_pb2.Race``, not Random); None: the one the scenario
        gave its player (``scenario.race_actual``), whose start it finds on the map."""
        if difficulty not in LEVELS:
            raise ValueError(f"unknown Computer difficulty {difficulty}: give 1 (VeryEasy) to 10 (CheatInsane)")
        if build not in (0, *range(1, 7)):
            raise ValueError(f"unknown Computer build {build}: give 1 (RandomBuild) to 6 (Air)")
        race_id = scenario.race_actual(player_id) if race is None else race
        if race_id not in PROFILES:
            raise ValueError(f"unknown Computer race {race_id}: give 1 (Terran), 2 (Zerg) or 3 (Protoss)")
        self.race: RaceProfile = PROFILES[race_id]
        self.player_id = player_id
        self.difficulty = difficulty
        self.ai_build = build or RANDOM_BUILD
        self.level: Level = LEVELS[difficulty]
        self.scenario = scenario
        self.rng = np.random.default_rng(int(scenario.rng.integers(1 << 62)))
        rp = self.race
        if not self.level.own_build:
            self.build: Build = rp.simple
        elif self.ai_build == RANDOM_BUILD:
            self.build = rp.builds[rp.random_choices[int(self.rng.integers(len(rp.random_choices)))]]
        else:
            self.build = rp.builds[self.ai_build]
        self.army_types = np.array(rp.army, dtype=np.int64)
        """The unit types of its army (those it trains and commands)."""
        self.types_of = {w: frozenset(rp.roles[w].types) for w in rp.production}
        """Production role -> the structure types that count as it (a Warp Gate for a Gateway)."""
        self.production_types = frozenset().union(*self.types_of.values())
        self.townhall_types = frozenset(rp.townhalls)
        self.ordered: dict[int, tuple[int, float, float, int]] = {}
        """Protoss and Zerg: worker tag -> (build ability, x, y, loop) of the build orders it gave,
        until the structure stands there (a Probe leaves at once, a Drone is gone)."""
        self.refused: set[int] = set()
        """Abilities the engine answered as not simulated (not asked again: Spawn Larva)."""
        self.now = 0
        """The loop of this decision."""
        self.building: dict[int, int] = {}
        """Build ability -> its orders under way (this decision's economy)."""
        self.home = (float(scenario.starts[player_id][0]), float(scenario.starts[player_id][1]))
        self.candidates = [(float(x), float(y)) for x, y in scenario.map.start_locations
                           if (float(x), float(y)) != self.home]
        """Where the enemy may have started (what game_info's start locations tell a player)."""
        self.next_loop = 0
        self.plan: MapPlan | None = None
        self.step = 0
        """Opener steps done."""
        # what it knows of the enemy
        self.enemy_structures: dict[int, tuple[float, float, int]] = {}
        self.seen_sites: dict[int, int] = {}
        """Site index -> the loop it was last seen."""
        self.enemy_main: tuple[float, float] | None = self.candidates[0] if len(self.candidates) == 1 else None
        # jobs of its units
        self.scout = 0
        self.scout_targets: list[tuple[float, float]] = []
        self.rescout_at = 0
        self.pulled: set[int] = set()
        self.threat_at: tuple[float, float] | None = None
        """Where the enemies near its structures stood at its last army decision (None: none)."""
        self.fled = 0.0
        """The strength of the enemy its last wave walked back from (0: none since its last wave)."""
        self.wave: set[int] = set()
        self.waves = 0
        self.wave_target: tuple[float, float] | None = None
        self.gather_since = -1
        self.wave_moved = (0, 0.0, 0.0)
        """(loop, x, y): where the wave's centre was when it last moved 4 (tech builds)."""
        self.spots: dict[tuple[int, int, bool, bool], list[tuple[float, float]]] = {}
        """(base index, structure size, dense, by the mineral line) -> building spots left (best
        first; :meth:`free_spot`)."""
        self.tech: Tech | None = self.build.tech
        self.no_addon: set[int] = set()
        """Production structures whose add-on could not be placed (they train without one)."""
        self.enemy_air = 0
        """The most enemy air units (not structures) it has seen at once (its Vikings answer them)."""
        self.enemy_army: dict[int, tuple[int, int]] = {}
        """Builds with a ``strength_margin``: enemy army unit tag -> (its type's row, the loop it was
        last seen), until it dies."""
        self.enemy_extra = 0.0
        """Enemy army units it reckons trained and has not seen yet (:meth:`remember_army`)."""
        self.enemy_extra_at = 0
        """The loop :attr:`enemy_extra` was last grown."""
        self.known = np.zeros(0, dtype=np.int64)
        """Rows of the enemy units it knows of at this decision."""
        self.reserved = (0, 0)
        """Minerals and vespene its workers on their way to build will pay on arrival."""
        self.pending: list[tuple[float, float, int]] = []
        """(x, y, unit type) of the structures its workers are on their way to build (their spots are
        taken: a second worker sent there would find it occupied on arrival)."""
        self.economy_at = 0
        self.look_far_at = 0
        self.site_array = np.zeros((0, 2))
        # this decision's view of its own units
        self.workers = np.zeros(0, dtype=np.int64)
        self.army_rows = np.zeros(0, dtype=np.int64)
        self.structs: list[Structure] = []
        self.defend = False
        """This economy decision defends first (:meth:`RaceRules.defending`)."""
        self.rules: RaceRules = RULES[race_id](self)
        """Its race's behaviour where the races differ."""
        self.defence = Defence(self)
        """Its detectors, anti-air and Shield Batteries (:mod:`.defence`)."""

    # ------------------------------------------------------------------ the game's hooks
    def horizon(self, loop: int) -> int:
        """Loops until the next decision."""
        return max(1, self.next_loop - loop)

    def act(self, world: World) -> None:
        if world.loop < self.next_loop:
            return
        self.next_loop = world.loop + self.level.period
        if not world.has_economy:
            return
        self.now = world.loop
        if self.plan is None:
            self.plan = map_plan(world)
            self.site_array = np.array(self.plan.sites)
        u = world.u
        own = u.owner == self.player_id
        uid = u.unit_id
        self.workers = (own & (uid == self.race.worker)).nonzero()[0]
        if self._army_lut is None:
            self._army_lut = np.isin(TYPES.unit_id, self.army_types)
        self.army_rows = (own & self._army_lut[u.ti]).nonzero()[0]
        detached = self.rules.detached
        if detached:
            self.army_rows = self.army_rows[[t not in detached for t in u.tag[self.army_rows].tolist()]]
        self.rules.observe(world, own)
        self.structs = [s for s in world.construction.structures.values() if s.owner == self.player_id]
        self.look(world)
        if world.loop >= self.economy_at:  # (the economy needs no quicker hand than ECONOMY_PERIOD)
            self.economy_at = world.loop + ECONOMY_PERIOD
            self.economy(world)
        self.army(world)

    # ------------------------------------------------------------------ what it knows
    def look(self, world: World) -> None:
        """Update what it knows: the enemy units its units see now (every one at the levels that
        see the map), the enemy structures it has seen (forgotten once it sees their place empty),
        the expansion sites it has looked at."""
        u = world.u
        pid = self.player_id
        enemy = np.nonzero((u.owner != pid) & (u.owner != NEUTRAL_OWNER))[0]
        plan = self.plan
        assert plan is not None
        vision = world.vision
        # (what its units see from, taken once: nothing moves during the look)
        eyes = None if self.level.sees_all else vision.eyes(pid)
        if self.level.sees_all:
            vision.revealed.add(pid)  # its units may target what none of them sees
            known = enemy
        elif len(enemy):
            known = enemy[vision.sees_units_from(pid, eyes, enemy)]
        else:
            known = enemy
        self.known = known
        self.defence.look(world, known)
        st = TYPES.structure[u.ti[known]]
        if len(known):
            self.enemy_air = max(self.enemy_air, int(np.count_nonzero(TYPES.is_flying[u.ti[known]] & ~st)))
            seen = known[st]
            for t, x, y, uid in zip(u.tag[seen].tolist(), u.x[seen].tolist(), u.y[seen].tolist(),
                                    u.unit_id[seen].tolist(), strict=True):
                self.enemy_structures[t] = (x, y, uid)
        if self.build.strength_margin:
            self.remember_army(world, known[~st])
        if self.enemy_structures and world.loop >= self.look_far_at:
            if self.level.sees_all:
                gone = [t for t in self.enemy_structures if u.row(t) < 0]
            else:  # remembered structures not seen now: forgotten once their place is seen empty
                seen_tags = set(u.tag[known].tolist())
                away = [t for t in self.enemy_structures if t not in seen_tags]
                gone = []
                if away:
                    pos = np.array([self.enemy_structures[t][:2] for t in away])
                    gone = [t for t, g in zip(away, vision.sees_from(eyes, pos[:, 0], pos[:, 1]).tolist(), strict=True)
                            if g]
            for t in gone:
                del self.enemy_structures[t]
        if world.loop >= self.look_far_at:  # (what changes slowly: every LOOK_FAR loops)
            self.look_far_at = world.loop + LOOK_FAR
            sites = self.site_array
            looked = np.ones(len(sites), dtype=bool) if self.level.sees_all else \
                vision.sees_from(eyes, sites[:, 0], sites[:, 1])
            for k in np.nonzero(looked)[0].tolist():
                self.seen_sites[k] = world.loop
        if self.enemy_main is None:
            for x, y, _ in self.enemy_structures.values():
                for c in self.candidates:
                    if (x - c[0]) ** 2 + (y - c[1]) ** 2 < 20 ** 2:
                        self.enemy_main = c
                        break

    def remember_army(self, world: World, units: np.ndarray) -> None:
        """Remember the enemy's fighting units it sees (workers apart) until they die (m: a death
        out of its sight counts too).  Meanwhile it reckons that each enemy production structure it
        knows of trains one more every :data:`ENEMY_TRAIN_S`; a unit it sees for the first time is
        one of those (m)."""
        u = world.u
        ti = u.ti[units]
        fighters = units[TYPES.can_attack[ti] & ~_WORKER_ROWS[ti]]
        loop = world.loop
        producers = sum(1 for _, _, uid in self.enemy_structures.values() if uid in ENEMY_PRODUCTION)
        self.enemy_extra += producers * (loop - self.enemy_extra_at) / (ENEMY_TRAIN_S * LOOPS_PER_SECOND)
        self.enemy_extra_at = loop
        new = 0
        for t, k in zip(u.tag[fighters].tolist(), u.ti[fighters].tolist(), strict=True):
            new += int(t) not in self.enemy_army
            self.enemy_army[int(t)] = (int(k), loop)
        self.enemy_extra = max(0.0, self.enemy_extra - new)
        if self.enemy_army and loop >= self.look_far_at:
            for t in [t for t in self.enemy_army if u.row(t) < 0]:
                del self.enemy_army[t]

    def enemy_strength(self) -> float:
        """:func:`~.rules.strength` of the enemy army it remembers, at full life, grown by what the enemy's
        production structures it knows of may have trained that it has not seen yet (units of the
        army's average: :meth:`remember_army`; before it has seen any, the units of
        :data:`ENEMY_PRODUCTION`) (m).  (A new sighting of a few units does not undo the reckoning
        of those it has not seen again.)"""
        if not self.enemy_army:  # (none seen yet: the units its production structures train)
            kinds = [TYPES.row(ENEMY_PRODUCTION[uid]) for _, _, uid in self.enemy_structures.values()
                     if uid in ENEMY_PRODUCTION]
            if not kinds or not self.enemy_extra:
                return 0.0
            k = np.array(kinds, dtype=np.int64)
            hp = float((TYPES.hp_max[k] + TYPES.sh_max[k]).mean())
            dps = float((TYPES.dmg[k, k] * TYPES.attacks[k] / np.maximum(TYPES.cd_loops[k], 1.0)).mean())
            return (self.enemy_extra * hp) * (self.enemy_extra * dps)
        n = len(self.enemy_army)
        ti = np.fromiter((k for k, _ in self.enemy_army.values()), dtype=np.int64, count=n)
        hp = float((TYPES.hp_max[ti] + TYPES.sh_max[ti]).sum())
        dps = float((TYPES.dmg[ti, ti] * TYPES.attacks[ti] / np.maximum(TYPES.cd_loops[ti], 1.0)).sum())
        grown = 1.0 + self.enemy_extra / n
        return hp * dps * grown * grown

    # ------------------------------------------------------------------ economy
    def can_spend(self, world: World, minerals: int, vespene: int) -> bool:
        """Whether it has the money, and (the lower levels) whether spending it stays within the
        share of its income the level lets it use."""
        pid = self.player_id
        s = world.supply
        if s.minerals.get(pid, 0) - self.reserved[0] < minerals or s.vespene.get(pid, 0) - self.reserved[1] < vespene:
            return False
        lv = self.level  # (what its builders will pay on arrival counts as spent)
        if lv.income < 1.0 and s.spent_minerals.get(pid, 0) + self.reserved[0] + minerals > \
                50 + lv.income * s.collected_minerals.get(pid, 0):
            return False
        return not (lv.gas_income < 1.0 and vespene and s.spent_vespene.get(pid, 0) + self.reserved[1] + vespene >
                    lv.gas_income * s.collected_vespene.get(pid, 0))

    def economy(self, world: World) -> None:
        u = world.u
        pid = self.player_id
        structures = self.structs
        rp = self.race
        townhalls = [s for s in structures if s.unit_id in self.townhall_types]
        ready_th = [s for s in townhalls if s.ready]
        prod = {w: [s for s in structures if s.unit_id in types] for w, types in self.types_of.items()}
        refineries = [s for s in structures if s.unit_id == rp.roles[REFINERY].unit]
        workers = self.workers
        jobs = world.workers.jobs
        building: dict[int, int] = {}
        """Build ability -> workers on their way to build (or building) it."""
        reserved = [0, 0]
        self.pending = []
        for t in u.tag[workers].tolist():
            job = jobs.get(t)
            if job is not None and job.build and job.phase != WALK_HOME:
                building[job.build] = building.get(job.build, 0) + 1
                if job.phase == WALK_SITE:  # (paid when the worker gets there: keep the money for it)
                    spec = T.BUILD[job.build]
                    reserved[0] += spec.minerals
                    reserved[1] += spec.vespene
                    self.pending.append((job.site[0], job.site[1], spec.unit_id))
        if rp.builder != STAYS:
            self.orders_under_way(world, building, reserved)
        self.building = building
        self.reserved = (reserved[0], reserved[1])
        rules = self.rules
        rules.upkeep(world)
        self.gather_idle(world, workers, ready_th, refineries)
        # --- what it wants, most urgent first; a structure that is due keeps the money for itself
        used, cap = world.supply.food(pid)
        bases = len(townhalls)
        ready_rax = sum(1 for w in rp.production for b in prod[w] if b.ready)  # (its army producers)
        producers = len(ready_th) + ready_rax
        depots_building, margin, at_once = rules.supply_under_way(building, ready_th, ready_rax, producers)
        if self.step and cap < 200 and cap - used <= margin and depots_building < at_once:
            if not self.place(world, DEPOT) and rules.waits_for_supply():
                return  # (keep the money for it)
        self.defend = rules.defending(world)
        if self.defend and not rules.defend_first(world, prod, building):
            return  # (keep the money for it)
        rules.speed_up(world, ready_th, prod)
        n_workers = len(workers) + sum(s.queue.count(rp.worker) for s in townhalls) + rules.eggs(rp.worker)
        t_s = world.loop / LOOPS_PER_SECOND
        expand = self.build.expand_s
        # (from when it may start its next townhall; none left: at once)
        expand_at = expand[bases - 1] if 0 < bases <= len(expand) else (0.0 if bases == 0 else math.inf)
        expand_at = rules.expand_at(world, expand_at, t_s)
        soon = bases < self.level.max_bases and t_s >= expand_at - 60.0
        want_workers = min(self.level.max_workers, MINERALS_PER_BASE * bases + GAS_PER_REFINERY * len(refineries) + 2
                           + (4 if soon else 0))
        if self.defend:  # (no more than its finished bases mine, none while a producer waits for money)
            want_workers = min(want_workers, MINERALS_PER_BASE * len(ready_th) + GAS_PER_REFINERY * len(refineries))
            tech = self.tech
            if tech is not None and any(s.ready and not rules.producing(world, s) for w in rp.production
                                        if tech.choices(w, NO_ADDON)
                                        for s in prod[w]):
                want_workers = 0
        used = rules.train_workers(world, ready_th, n_workers, want_workers, used, cap)
        rules.tend_bases(world, ready_th, prod)
        if self.scout == 0 and self.level.scout and len(workers) >= 15 and self.candidates:
            self.send_scout(world, workers)
        # expansions, once due, before the rest of the opener (the builds' timings: "Reaper Expand",
        # "CC First")
        if bases < self.level.max_bases and t_s >= expand_at and not building.get(rp.townhall_build) \
                and all(s.ready for s in townhalls) and not self.defend:
            if not self.expand(world):
                return
        # the opener
        opener = self.build.opener
        while self.step < len(opener):
            food, what = opener[self.step]
            if used < min(food, self.level.max_workers):  # (a step beyond its workers' supply comes with them:
                break  # a Zerg army waits for the Spawning Pool it would wait for)
            if what == DEPOT and depots_building and cap - used > 4:
                self.step += 1  # (supply is already being taken care of)
                continue
            need = rp.roles[what].needs if what in rp.roles else 0
            if need and not rules.may_start(need):
                break  # (a barracks needs a supply depot, a gateway a pylon, ...)
            if self.place(world, what):
                self.step += 1
                continue
            return  # keep the money for it
        if self.step < len(opener):
            # (the opener waits for its supply: marines keep supply growing, so that a build whose
            # next step needs more food than its worker cap gives still reaches it)
            if self.tech is not None:
                self.produce_tech(world, prod)
            else:
                rules.produce_basic(world)
            return
        if not self.defence.build(world):
            return  # (keep the money for its detector)
        if self.tech is not None:
            self.economy_tech(world, self.tech, prod, ready_th, refineries, building)
        else:
            rules.economy_basic(world, ready_th, refineries, building)

    def economy_tech(self, world: World, tech: Tech, prod: dict[str, list[Structure]], ready_th: list[Structure],
                     refineries: list[Structure], building: dict[int, int]) -> None:
        """After the opener of a build with a tech path: refineries for its gas, the production
        structures it wants (the tech chain first: a Barracks, a Factory, a Starport, each once its
        requirement is finished, then as many per base as the build has, then, while minerals pile
        up, one more of its ``spill``, within the level's cap on barracks + :data:`TECH_STRUCTURES`),
        their add-ons, then units."""
        pid = self.player_id
        rp = self.race
        n_th = max(1, len(ready_th))
        any_rax = bool(prod[rp.production[0]])
        gas_ability = rp.roles[REFINERY].ability
        per_base = tech.refineries_per_base
        if tech.more_gas_from and self.difficulty >= tech.more_gas_from:
            per_base = min(2, per_base + 1)
        if any_rax and ready_th and not building.get(gas_ability) and len(refineries) < per_base * n_th:
            if not self.place(world, REFINERY):
                return
        rich = world.supply.minerals.get(pid, 0) > (DEFEND_SPILL if self.defend else 400)
        if sum(building.get(rp.roles[w].ability, 0) for w in rp.production) < (2 if rich else 1):
            total = sum(len(prod[w]) + building.get(rp.roles[w].ability, 0) for w in rp.production)
            nxt = ""
            if total < self.level.max_barracks + TECH_STRUCTURES:
                for w in rp.production:  # (the tech chain: one of each it wants)
                    if tech.wanted(w, n_th) and not prod[w] and not building.get(rp.roles[w].ability):
                        nxt = w
                        break
                else:
                    for w, _ in tech.per_base:
                        if len(prod[w]) + building.get(rp.roles[w].ability, 0) < tech.wanted(w, n_th):
                            nxt = w
                            break
                    else:  # (all it wants stand: money piling up buys one more of its spill)
                        if rich and tech.spill:
                            nxt = tech.spill
            if nxt:
                need = rp.roles[nxt].needs
                if self.have_ready(need) and not self.place(world, nxt):
                    spec = T.BUILD[rp.roles[nxt].ability]
                    if not self.can_spend(world, spec.minerals, spec.vespene):
                        return  # keep the money for it
                    # (it could pay but found no spot or worker yet: the army does not wait for it)
        if tech.morphs:
            self.morph(world, tech)
        self.unlock(world, tech, prod)
        self.rules.add_ons(world, tech, prod)
        if tech.research and self.level.research and not self.defend:
            self.research(world, tech)
        self.produce_tech(world, prod)

    def has_any(self, unit_type: int) -> bool:
        """Whether it has a structure that counts as ``unit_type``, finished or not."""
        ok = T.satisfies(unit_type)
        return any(s.unit_id in ok for s in self.structs)

    def have_ready(self, need: int) -> bool:
        """Whether it has a finished structure that counts as ``need`` (a Lair for a Hatchery)."""
        ok = T.satisfies(need)
        return any(s.unit_id in ok and s.ready for s in self.structs)

    def morph(self, world: World, tech: Tech) -> None:
        """The build's upgrades in place (a Hatchery into a Lair): one idle finished structure of
        the source type starts it once none of the product exists and its requirement is met."""
        for src, ability in tech.morphs:
            if ability in self.refused:
                continue
            spec = T.MORPH[ability]
            made = T.satisfies(spec.unit_id)
            if any(s.unit_id in made or (s.morph is not None and s.morph[0] == ability) for s in self.structs):
                continue
            if not all(self.have_ready(r) for r in spec.requires.structures):
                continue
            if not self.can_spend(world, spec.minerals, spec.vespene):
                continue
            for s in self.structs:
                if s.unit_id == src and s.ready and not s.busy:
                    self.answer(world.command(self.player_id, ability, [s.tag], None, 0, False), ability)
                    break

    def unlock(self, world: World, tech: Tech, prod: dict[str, list[Structure]]) -> None:
        """A structure that a top-tier unit of the build (:attr:`~.levels.Train.from_level`) needs
        beyond its producer (an Armory for Thors, a Fusion Core for Battlecruisers, a Ghost Academy
        for Ghosts, a Robotics Bay for Colossi, a Fleet Beacon for Carriers: the client's tech
        requirements, ``data.tech.TRAIN``) is built once a finished producer of that unit (with the
        add-on the build trains it from) stands, its level trains the unit and wants one by its
        share of the army: one at a time, when the structure's own requirement stands."""
        rp = self.race
        kind = self.rules.addon_kind
        n_army = len(self.army_rows)
        for (w, addon), units in tech.trains:
            if w in prod and not any(s.ready and kind(world, s) == addon for s in prod[w]):
                continue  # (a Zerg's larvae are always there)
            for ch in units:
                if not ch.from_level or ch.from_level > self.difficulty or \
                        max(ch.at_least, ch.share * (n_army + 1)) < 1.0:
                    continue
                for need in T.TRAIN[rp.train[ch.unit]].requires.structures:
                    if self.has_any(need):
                        continue
                    self.obtain(world, need)
                    return

    def obtain(self, world: World, unit_type: int, depth: int = 0) -> None:
        """One step towards a structure of ``unit_type`` (:meth:`unlock`): its role's structure is
        placed once the structure that role needs is finished; a townhall morph's product (a Hive)
        is morphed from an idle finished source once the morph's requirements are finished; what
        is missing on the way (a Hive's Infestation Pit, an Ultralisk Cavern's Hive) first."""
        if depth > 4 or self.has_any(unit_type):
            return
        rp = self.race
        role = rp.role_of(unit_type)
        needs: tuple[int, ...]
        if role:
            needs = (rp.roles[role].needs,) if rp.roles[role].needs else ()
        else:
            spec = next((m for m in T.MORPH.values() if m.unit_id == unit_type and m.kind == "upgrade"), None)
            if spec is None or spec.ability_id in self.refused:
                return
            needs = spec.requires.structures
        for r in needs:
            if not self.have_ready(r):
                if not self.has_any(r):  # (one under way is waited for)
                    self.obtain(world, r, depth + 1)
                return
        if role:
            if not self.building.get(rp.roles[role].ability):
                self.place(world, role)
            return
        assert spec is not None
        if any(s.morph is not None and s.morph[0] == spec.ability_id for s in self.structs) or \
                not self.can_spend(world, spec.minerals, spec.vespene):
            return
        for s in self.structs:
            if s.unit_id in spec.sources and s.ready and not s.busy:
                self.answer(world.command(self.player_id, spec.ability_id, [s.tag], None, 0, False), spec.ability_id)
                return

    def research(self, world: World, tech: Tech) -> None:
        """The next upgrade of the build's research list (as far as its level goes) that it has
        not and is not researching: started in an idle finished structure that researches it when
        it can pay, or, when it has none, that structure is built once its requirement stands.
        Research waits for nothing and keeps no money: the army comes first when money is short."""
        pid = self.player_id
        rp = self.race
        research = world.research
        for ability in tech.research[:self.level.research]:
            if ability in self.refused:
                continue
            spec = T.RESEARCH[ability]
            if research.has(pid, spec.upgrade_id) or research.pending(pid, spec.upgrade_id):
                continue
            if (spec.requires.upgrade and not research.has(pid, spec.requires.upgrade)) or \
                    not all(self.have_ready(r) for r in spec.requires.structures):
                continue
            where = [s for s in self.structs if s.unit_id in spec.researchers]
            if not where:
                role = next((w for w, r in rp.roles.items() if r.unit in spec.researchers), None)
                if role is not None and not self.building.get(rp.roles[role].ability) \
                        and self.have_ready(rp.roles[role].needs):
                    self.place(world, role)
                return
            idle = [s for s in where if s.ready and not s.busy and not research.queues.get(s.tag)]
            if idle and self.can_spend(world, spec.minerals, spec.vespene):
                self.answer(world.command(pid, ability, [idle[0].tag], None, 0, False), ability)
            return

    def answer(self, result: int, ability: int) -> bool:
        """Whether a command succeeded; an ability the engine does not simulate is not asked again."""
        if result == NOT_SUPPORTED:
            self.refused.add(ability)
        return result == SUCCESS

    def produce_tech(self, world: World, prod: dict[str, list[Structure]]) -> None:
        """Its army by the build's shares (:meth:`RaceRules.train_army`: the structures' slots, or a
        Zerg's larvae), counting the army it has and has queued."""
        tech = self.tech
        assert tech is not None
        u = world.u
        counts: dict[int, int] = {}
        army = self.army_rows
        if len(army):
            ids, n = np.unique(u.unit_id[army], return_counts=True)
            forms = self.race.forms
            for i, k in zip(ids.tolist(), n.tolist(), strict=True):
                counts[forms.get(i, i)] = counts.get(forms.get(i, i), 0) + k
        for w in self.race.production:
            for s in prod[w]:
                for t in s.queue:
                    counts[t] = counts.get(t, 0) + 1
        if tech.unit_morphs:  # (first: a morph to more supply waits for room the larvae would take)
            self.morph_units(world, tech, counts)
        self.rules.train_army(world, tech, prod, counts)

    def morph_units(self, world: World, tech: Tech, counts: dict[int, int]) -> None:
        """The build's unit morphs (:attr:`~.levels.Tech.unit_morphs`) at its level: while it has
        fewer of a product (its cocoons counted, ``counts`` by :attr:`~.races.RaceProfile.forms`)
        than its share of the army, units of the source type, those nearest its staging point
        first (at home rather than in a wave), are morphed as far as the money goes; a structure
        the morph requires is obtained first (a Baneling Nest, a Greater Spire: :meth:`obtain`)."""
        u = world.u
        n_army = len(self.army_rows)
        for m in tech.unit_morphs:
            if m.from_level > self.difficulty or m.ability in self.refused:
                continue
            spec = T.MORPH[m.ability]
            want = int(m.share * (n_army + 1)) - counts.get(spec.unit_id, 0)
            if want <= 0:
                continue
            missing = [r for r in spec.requires.structures if not self.have_ready(r)]
            if missing:
                self.obtain(world, missing[0])
                continue
            per = 2 if spec.kind == "merge" else 1  # (an Archon of two templar)
            rows = self.army_rows[np.isin(u.unit_id[self.army_rows], spec.sources)]
            changing = u.kind[rows] == TRANSFORM  # (a merge under way: its product is coming)
            want -= int(np.count_nonzero(changing)) // per
            rows = rows[~changing]
            if want <= 0 or len(rows) < per:
                continue
            sx, sy = self.staging(world)
            rows = rows[np.argsort((u.x[rows] - sx) ** 2 + (u.y[rows] - sy) ** 2, kind="stable")]
            tags = [int(t) for t in u.tag[rows].tolist()]
            for k in range(0, min(want * per, len(tags) - per + 1), per):
                if not self.can_spend(world, spec.minerals, spec.vespene):
                    return  # (the money goes on, to the army's larvae next decision)
                if not self.answer(world.command(self.player_id, m.ability, tags[k:k + per], None, 0, False),
                                   m.ability):
                    break
                counts[spec.unit_id] = counts.get(spec.unit_id, 0) + 1

    def can_make(self, unit: int) -> bool:
        """Whether the structures ``unit`` requires stand finished (a Stalker's Cybernetics Core, a
        Roach's Roach Warren; the client's tech requirements, ``data.tech``)."""
        spec = T.TRAIN[self.race.train[unit]]
        return all(self.have_ready(r) for r in spec.requires.structures)

    def gather_idle(self, world: World, workers: np.ndarray, townhalls: list[Structure],
                    refineries: list[Structure]) -> None:
        """Idle workers (and pulled ones once the threat is gone) go mining where they are needed:
        a refinery short of its 3, else the base with the fewest workers for its fields."""
        u = world.u
        pid = self.player_id
        idle = workers[u.kind[workers] == IDLE]
        idle = [int(t) for t in u.tag[idle].tolist() if int(t) != self.scout and int(t) not in self.pulled]
        if not idle or not townhalls:
            return
        jobs = world.workers.jobs
        harvest = world.harvest
        on: dict[int, int] = {}
        for job in jobs.values():
            if job.resource:
                on[job.resource] = on.get(job.resource, 0) + 1
        for ref in refineries:
            if not ref.ready or ref.geyser not in harvest.resources:
                continue
            while idle and on.get(ref.geyser, 0) < GAS_PER_REFINERY:
                if world.command(pid, self.race.gather, [idle.pop()], None, ref.tag, False) != SUCCESS:
                    break
                on[ref.geyser] = on.get(ref.geyser, 0) + 1
        fields: list[tuple[int, int, float, float]] = []
        for tag, res in harvest.resources.items():
            if not res.is_mineral or res.contents <= 0:
                continue
            for k, th in enumerate(townhalls):
                if (res.x - th.x) ** 2 + (res.y - th.y) ** 2 < 100.0:
                    fields.append((tag, k, res.x, res.y))
                    break
        if not fields:
            return
        per_base = [0] * len(townhalls)
        n_fields = [0] * len(townhalls)
        for tag, k, _, _ in fields:
            per_base[k] += on.get(tag, 0)
            n_fields[k] += 1
        for t in idle:
            need = [(per_base[k] - 2 * n_fields[k], k) for k in range(len(townhalls)) if n_fields[k]]
            _, k = min(need)
            best = min((f for f in fields if f[1] == k), key=lambda f: (on.get(f[0], 0), f[0]))
            if world.command(pid, self.race.gather, [t], None, best[0], False) == SUCCESS:
                on[best[0]] = on.get(best[0], 0) + 1
                per_base[k] += 1

    def send_scout(self, world: World, workers: np.ndarray) -> None:
        """An SCV walks to every start location the enemy may have (nearest first)."""
        tag = self.builder(world, workers, self.home)
        if not tag:
            return
        hx, hy = self.home
        self.scout_targets = sorted(self.candidates, key=lambda c: (c[0] - hx) ** 2 + (c[1] - hy) ** 2)
        self.scout = tag
        world.command(self.player_id, MOVE_CMD, [tag], self.scout_targets[0], 0, False)

    def builder(self, world: World, workers: np.ndarray, spot: tuple[float, float]) -> int:
        """The mining worker nearest to ``spot`` (0: none), not carrying if one is as near."""
        u = world.u
        jobs = world.workers.jobs
        best, bd = 0, math.inf
        ordered = self.ordered
        for r, t in zip(workers.tolist(), u.tag[workers].tolist(), strict=True):
            if t == self.scout or t in self.pulled or t in ordered:
                continue
            job = jobs.get(t)
            if job is None or job.build or not job.resource:
                continue
            d = (float(u.x[r]) - spot[0]) ** 2 + (float(u.y[r]) - spot[1]) ** 2 + (25.0 if job.carry else 0.0)
            if d < bd:
                best, bd = t, d
        return best

    def place(self, world: World, what: str) -> bool:
        """Order ``what`` (a role of its race's profile; its supply as :meth:`RaceRules.add_supply`
        has it: a Zerg's is an Overlord from a larva); False when it cannot yet (money, no worker, no
        spot, no power yet): the caller then keeps the money for it."""
        if what == DEPOT:
            return self.rules.add_supply(world)
        return self.construct(world, what)

    def construct(self, world: World, what: str, bases: list[int] | None = None, minerals: bool = False) -> bool:
        """Send a worker to build the structure of role ``what`` at its next free spot (as
        :meth:`place`; ``bases`` and ``minerals`` as :meth:`free_spot` takes them)."""
        rp = self.race
        role = rp.roles[what]
        spec = T.BUILD[role.ability]
        if not self.can_spend(world, spec.minerals, spec.vespene):
            return False
        pid = self.player_id
        workers = self.workers
        if what == REFINERY:
            geyser = self.free_geyser(world)
            if geyser is None:
                return True  # (nothing to build on: not worth keeping money for)
            tag = self.builder(world, workers, (geyser[1], geyser[2]))
            return bool(tag) and self.sent(world.command(pid, role.ability, [tag], None, geyser[0], False),
                                           role.ability, (geyser[1], geyser[2]), tag)
        spot = self.free_spot(world, role, addon=rp.addons and self.tech is not None and what in rp.production,
                              bases=bases, minerals=minerals)
        if spot is None:
            return self.rules.no_spot(world, role)  # (no room left: give up on it rather than stall)
        tag = self.builder(world, workers, spot)
        if not tag:
            return False
        return self.sent(world.command(pid, role.ability, [tag], spot, 0, False), role.ability, spot, tag)

    def sent(self, result: int, ability: int, spot: tuple[float, float], tag: int = 0) -> bool:
        """Whether a build command succeeded; if so its cost is kept and its spot taken from now on
        (the worker pays on arrival: two orders in one decision must not count on the same money);
        a Probe's or Drone's order is remembered until the structure stands (:meth:`orders_under_way`)."""
        if result != SUCCESS:
            return False
        spec = T.BUILD[ability]
        self.reserved = (self.reserved[0] + spec.minerals, self.reserved[1] + spec.vespene)
        self.pending.append((spot[0], spot[1], spec.unit_id))
        if self.race.builder != STAYS and tag:
            self.ordered[tag] = (ability, spot[0], spot[1], self.now)
            # (counted at once: the opener's last structure is not ordered again by the tech path in
            # the same decision; Terran's builds count it from the next decision, as they were tuned)
            self.building[ability] = self.building.get(ability, 0) + 1
        return True

    def orders_under_way(self, world: World, building: dict[int, int], reserved: list[int]) -> None:
        """Protoss and Zerg: the build orders it gave that are not carried out yet count as under
        way (their money kept, their spots taken), as an SCV's walk to its site does: a Probe's or a
        Drone's until the structure stands at the spot, the worker is gone without one (killed) or
        back at work (refused), or :data:`ORDER_TIMEOUT` has passed.  Orders the engine keeps as a
        worker's construction job are counted there already."""
        u = world.u
        jobs = world.workers.jobs
        for tag, (ability, x, y, at) in list(self.ordered.items()):
            spec = T.BUILD[ability]
            standing = any(s.unit_id in (spec.unit_id, spec.rich_unit_id) and abs(s.x - x) < 1.0 and abs(s.y - y) < 1.0
                           for s in self.structs)
            r = u.row(tag)
            job = jobs.get(tag)
            back = r >= 0 and at < world.loop and (u.kind[r] == IDLE or (job is not None and bool(job.resource)
                                                                          and not job.build))
            if standing or r < 0 or back or world.loop - at > ORDER_TIMEOUT:
                del self.ordered[tag]  # (carried out; or the worker died, was refused, went back to work)
                continue
            if job is not None and job.build:
                continue  # (counted with the jobs)
            building[ability] = building.get(ability, 0) + 1
            reserved[0] += spec.minerals
            reserved[1] += spec.vespene
            self.pending.append((x, y, spec.unit_id))

    def free_geyser(self, world: World) -> tuple[int, float, float] | None:
        """A geyser without a refinery at one of its finished bases."""
        pid = self.player_id
        ths = [s for s in world.construction.structures.values()
               if s.owner == pid and s.unit_id in self.townhall_types and s.ready]
        for tag, res in world.harvest.resources.items():
            if res.is_mineral or res.refinery or res.contents <= 0:
                continue
            if any((res.x - th.x) ** 2 + (res.y - th.y) ** 2 < 100.0 for th in ths):
                return (tag, res.x, res.y)
        return None

    def bases(self, world: World) -> list[int]:
        """Site indices of its townhalls, the main first."""
        plan = self.plan
        assert plan is not None
        out = [self.site_index((s.x, s.y)) for s in self.structs if s.unit_id in self.townhall_types]
        main = self.site_index(self.home)
        return sorted(set(out), key=lambda k: (k != main, k))

    def site_index(self, p: tuple[float, float]) -> int:
        """The index of the expansion site nearest to ``p`` (:attr:`_site_of`)."""
        plan = self.plan
        assert plan is not None
        if self._site_of is None:
            self._site_of = {}
        k = self._site_of.get(p)
        if k is None:
            k = self._site_of[p] = int(np.argmin([(a - p[0]) ** 2 + (b - p[1]) ** 2 for a, b in plan.sites]))
        return k

    def free_spot(self, world: World, role: Role, addon: bool = False, bases: list[int] | None = None,
                  minerals: bool = False) -> tuple[float, float] | None:
        """The best free spot for ``role``'s structure in its bases (the main first; ``bases``: only
        those site indices); with ``addon``, one that leaves room for the structure's add-on on its
        right; with ``minerals``, the spots nearest the point halfway from the townhall to its
        mineral line first (static defence: beside the townhall, on the line's side) instead of
        those in front of or behind the townhall; within its race's bounds
        (:meth:`RaceRules.site_bound`: a Protoss structure within a finished Pylon's power field,
        any cell a candidate, so that structures gather round their Pylons; a Zerg one near a
        finished Hatchery); :meth:`RaceRules.spot_in` picks among each base's spots."""
        plan = self.plan
        assert plan is not None
        rp = self.race
        rules = self.rules
        size = role.size
        ability = rules.check_ability(role)
        sources = np.zeros((0, 2))
        reach = 0.0
        bound = rules.site_bound(role)
        if bound is not None:
            sources, reach = bound
            if not len(sources):
                return None
        front = size == 3 or (size == 2 and rp.supply_front and role.unit == rp.supply_unit)
        pylon = rp.supply_front and role.unit == rp.supply_unit
        # (Protoss: Pylons and what they power pack round each other; static defence squeezes in by
        # the mineral line between what stands there)
        dense = addon or role.powered or pylon or minerals
        toward = self.enemy_main or (self.candidates[0] if self.candidates else world.map.center)
        for k in self.bases(world) if bases is None else bases:
            key = (k, size, dense, minerals)
            spots = self.spots.get(key)
            if spots is None:
                hx, hy = plan.sites[k]
                d = math.hypot(toward[0] - hx, toward[1] - hy) or 1.0
                ux, uy = (toward[0] - hx) / d, (toward[1] - hy) / d
                anchor = (hx + 8 * ux, hy + 8 * uy) if front else (hx - 8 * ux, hy - 8 * uy)
                fields = [(x, y) for x, y, is_mineral in plan.resources[k] if is_mineral]
                if minerals and fields:  # (halfway to the line's centre: the spots beside the townhall
                    # on the line's side come first, covering both)
                    anchor = ((hx + sum(x for x, _ in fields) / len(fields)) / 2,
                              (hy + sum(y for _, y in fields) / len(fields)) / 2)
                if self._plateaus is None:
                    self._plateaus = {}
                area = self._plateaus.get(k)
                if area is None:
                    area = self._plateaus[k] = plateau(world, hx, hy)
                spots = self.spots[key] = base_spots(world, plan.sites[k], plan.resources[k], size, anchor,
                                                     gap=3 if self.tech is not None and size == 3 else 2,
                                                     extra_right=2 if addon else 0,
                                                     radius=ADDON_BASE_RADIUS if dense else BASE_RADIUS,
                                                     dense=dense, area=area)
            spot = rules.spot_in(world, k, spots, ability, size, addon, sources, reach)
            if spot is not None:
                return spot
        return None

    def clear_of_structures(self, x: float, y: float, size: int, addon: bool = False) -> bool:
        """Whether a structure of ``size`` at (x, y) leaves a lane of :data:`LANE` between its
        collision circle and every structure's, those its workers are on their way to build included
        (the engine's collision pushes units apart by their circles, so structures closer than that
        would shut units in); with a tech path :data:`WIDE_LANE` next to production structures and
        add-ons (its vehicles walk out of them).  A build with a tech path keeps every production structure's add-on
        spot free too, and with ``addon`` the new structure's own."""
        tech = self.tech is not None
        wide = tech and size == 3  # (a production structure: its army walks out of it)
        r = D.unit_spec(D.SUPPLYDEPOT if size == 2 else D.BARRACKS).radius
        others = [(s.x, s.y, s.unit_id) for s in self.structs] + self.pending
        mine = [(x, y, r)]
        rules = self.rules
        if tech:
            rules.add_on_room(others, mine, x, y, addon)
        for sx, sy, uid in others:
            rs = D.unit_spec(uid).radius
            lane = rules.lane(uid, rs, wide, tech)
            for mx, my, mr in mine:
                if (sx - mx) ** 2 + (sy - my) ** 2 < (mr + lane + rs) ** 2:
                    return False
        return True

    def expand(self, world: World) -> bool:
        """Send a worker to build a townhall at the nearest free site (by walking from the main),
        away from the enemy; False while it cannot yet."""
        plan = self.plan
        assert plan is not None
        ability = self.race.townhall_build
        spec = T.BUILD[ability]
        if not self.can_spend(world, spec.minerals, spec.vespene):
            return False
        ground = plan.ground.get(self.home)
        if ground is None:
            return True
        enemy_pts = [(x, y) for x, y, _ in self.enemy_structures.values()]
        mine = self.bases(world)
        order = np.argsort(ground, kind="stable")
        for k in order.tolist():
            if k in mine or not np.isfinite(ground[k]):
                continue
            x, y = plan.sites[k]
            if any((x - c[0]) ** 2 + (y - c[1]) ** 2 < 16 ** 2 for c in self.candidates):
                continue  # (another player's start location)
            if any((x - a) ** 2 + (y - b) ** 2 < 15 ** 2 for a, b in enemy_pts):
                continue
            if world.placement.check(ability, x, y) != SUCCESS:
                continue
            tag = self.builder(world, self.workers, (x, y))
            if not tag:
                return False
            return self.sent(world.command(self.player_id, ability, [tag], (x, y), 0, False), ability, (x, y), tag)
        return True

    # ------------------------------------------------------------------ army
    def staging(self, world: World) -> tuple[float, float]:
        """Where the army waits: in front of its townhall nearest to the enemy, towards the enemy."""
        toward = self.enemy_main or (self.candidates[0] if self.candidates else world.map.center)
        ths = [(s.x, s.y) for s in self.structs if s.unit_id in self.townhall_types] or [self.home]
        fx, fy = min(ths, key=lambda p: (p[0] - toward[0]) ** 2 + (p[1] - toward[1]) ** 2)
        d = math.hypot(toward[0] - fx, toward[1] - fy) or 1.0
        return (fx + (toward[0] - fx) / d * STAGING, fy + (toward[1] - fy) / d * STAGING)

    def army(self, world: World) -> None:
        u = world.u
        pid = self.player_id
        army = self.army_rows
        known = self.known
        self.control_scout(world)
        structures = [(s.x, s.y) for s in self.structs]
        # --- defence: enemies near its structures
        threat = np.zeros(0, dtype=np.int64)
        if len(known) and structures:
            sp = np.array(structures)
            ex, ey = u.x[known], u.y[known]
            d2 = (ex[:, None] - sp[None, :, 0]) ** 2 + (ey[:, None] - sp[None, :, 1]) ** 2
            near = (d2 < THREAT_RADIUS ** 2).any(axis=1)
            threat = known[near & TYPES.can_attack[u.ti[known]]]
            if scouting(threat, u):
                threat = threat[:0]
        in_wave = self.members(world, self.wave)[army]
        self.wave = set(u.tag[army[in_wave]].tolist())
        home_army = army[~in_wave]
        self.threat_at = None
        if len(threat):
            tx, ty = float(u.x[threat].mean()), float(u.y[threat].mean())
            self.threat_at = (tx, ty)
            self.fled = 0.0  # (the enemy it walked back from came: the fight at home decides)
            self.attack_move(world, home_army, (tx, ty))
            mine_str = strength(home_army, u)
            enemy_str = strength(threat, u)
            if self.wave and self.level.retreat and mine_str < enemy_str:
                self.attack_move(world, army[in_wave], (tx, ty))  # the wave comes back
                self.wave.clear()
                home_army = army
                mine_str = strength(army, u)
            worker_rush = self.level.answers_worker_rush and bool(_WORKER_ROWS[u.ti[threat]].all())
            if (self.level.pull_workers or worker_rush) and mine_str < enemy_str:
                self.pull_workers(world, threat, (tx, ty), enemy_str - mine_str)
            self.focus(world, home_army, known)
            self.rules.shields(world, home_army, threat)
        elif self.pulled:
            back = [t for t in self.pulled if u.row(t) >= 0]
            self.pulled.clear()
            if back:
                world.command(pid, STOP, back, None, 0, False)  # idle: gather_idle sends them mining
        if not len(threat):
            self.launch(world, home_army)
        in_wave = self.members(world, self.wave)[army]
        if self.wave:
            self.press(world, army[in_wave])
        # units at home wait at the staging point
        if not len(threat):
            rest = army[~in_wave]
            idle = rest[u.kind[rest] == IDLE]
            if len(idle):
                sx, sy = self.staging(world)
                far = idle[(u.x[idle] - sx) ** 2 + (u.y[idle] - sy) ** 2 > 25.0]
                if len(far):
                    world.command(pid, MOVE_CMD, [int(t) for t in u.tag[far].tolist()], (sx, sy), 0, False)
        self.rules.tactics(world, army)

    @staticmethod
    def members(world: World, tags: set[int]) -> np.ndarray:
        """bool per row of the store: the unit's tag is in ``tags``."""
        mask = np.zeros(len(world.u), dtype=bool)
        if tags:
            rows = world.u.rows(np.fromiter(tags, dtype=np.int64, count=len(tags)))
            mask[rows[rows >= 0]] = True
        return mask

    def control_scout(self, world: World) -> None:
        """The scouting worker walks on to the next start location once it sees the one it walks
        to, and goes back to mining at the end; at the higher levels an army unit later looks at
        the sites next to the enemy's bases."""
        u = world.u
        if self.scout > 0:
            r = u.row(self.scout)
            if r < 0:
                self.scout = -1
                return
            if self.enemy_main is not None and self.scout_targets and self.scout_targets[0] != self.enemy_main:
                self.scout_targets = [self.enemy_main]
            if self.scout_targets:
                tx, ty = self.scout_targets[0]
                if (u.x[r] - tx) ** 2 + (u.y[r] - ty) ** 2 < 36.0 or u.kind[r] == IDLE:
                    self.scout_targets.pop(0)
                    if self.scout_targets:
                        world.command(self.player_id, MOVE_CMD, [self.scout], self.scout_targets[0], 0, False)
                    else:
                        world.command(self.player_id, MOVE_CMD, [self.scout], self.home, 0, False)
            elif u.kind[r] == IDLE or (u.x[r] - self.home[0]) ** 2 + (u.y[r] - self.home[1]) ** 2 < 100.0:
                world.command(self.player_id, STOP, [self.scout], None, 0, False)  # back to mining
                self.scout = -1
        if self.level.scout >= 2 and self.enemy_main is not None and world.loop >= self.rescout_at and \
                world.loop / LOOPS_PER_SECOND > self.build.first_attack_s * self.level.attack_scale:
            self.rescout_at = world.loop + int(RESCOUT_S * LOOPS_PER_SECOND)
            army = self.army_rows
            wave = self.wave
            free = [int(t) for t in u.tag[army].tolist() if int(t) not in wave]
            plan = self.plan
            assert plan is not None
            ground = plan.ground.get(self.enemy_main)
            if free and ground is not None:
                near = [k for k in np.argsort(ground, kind="stable").tolist()[1:4]]
                pts = [plan.sites[k] for k in near]
                world.command(self.player_id, MOVE_CMD, [free[0]], pts[0], 0, False)
                for p in pts[1:]:
                    world.command(self.player_id, MOVE_CMD, [free[0]], p, 0, True)

    def pull_workers(self, world: World, threat: np.ndarray, at: tuple[float, float], deficit: float) -> None:
        """Workers near the threat join the fight, as many as make up for the army's deficit."""
        u = world.u
        pid = self.player_id
        workers = self.workers
        if not len(workers):
            return
        d2 = (u.x[workers] - at[0]) ** 2 + (u.y[workers] - at[1]) ** 2
        near = workers[d2 < 20.0 ** 2]
        if not len(near):
            return
        order = near[np.argsort(d2[d2 < 20.0 ** 2], kind="stable")]
        want = min(len(order) * 3 // 4, 2 * len(threat) + 2)
        pick = [int(t) for t in u.tag[order[:want]].tolist() if int(t) not in self.pulled and int(t) != self.scout]
        if pick:
            self.pulled.update(pick)
            world.command(pid, ATTACK, pick, at, 0, False)
        pulled = self.members(world, self.pulled).nonzero()[0]
        # A pulled worker that reached the point stands idle, and an idle worker acquires nothing
        # of its own (systems/targeting.py): each such one attacks the threat nearest to it.
        idle = pulled[u.kind[pulled] == IDLE]
        if len(idle) and len(threat):
            d = (u.x[idle][:, None] - u.x[threat][None, :]) ** 2 + (u.y[idle][:, None] - u.y[threat][None, :]) ** 2
            nearest = threat[np.argmin(d, axis=1)]
            for r, t in zip(idle.tolist(), nearest.tolist(), strict=True):
                world.command(pid, ATTACK, [int(u.tag[r])], None, int(u.tag[t]), False)
        self.focus(world, pulled, threat)

    def launch(self, world: World, home_army: np.ndarray) -> None:
        """Start a wave once the army at home is big enough and the build's time has come (the
        higher levels first gather it at the staging point)."""
        if self.wave or not len(home_army):
            return
        u = world.u
        t_s = world.loop / LOOPS_PER_SECOND
        if t_s < self.build.first_attack_s * self.level.attack_scale:
            return
        size = self.build.first_wave + self.waves * self.build.wave_growth
        size = max(2, min(int(size * self.level.wave_scale), 120))
        supply = float(TYPES.food[u.ti[home_army]].sum())
        if supply < size:
            self.gather_since = -1
            return
        if self.build.strength_margin and self.level.focus_fire and supply < FULL_ARMY and \
                strength(home_army, u, MELEE_SHARE) < self.build.strength_margin * self.enemy_strength():
            self.gather_since = -1  # (no wave into an army it knows to be stronger: it grows first)
            return
        if self.fled and supply < FULL_ARMY and strength(home_army, u) < RETREAT_RATIO * self.fled:
            self.gather_since = -1  # (not out again into the army it walked back from: it grows first)
            return
        if self.level.group_up:
            sx, sy = self.staging(world)
            near = (u.x[home_army] - sx) ** 2 + (u.y[home_army] - sy) ** 2 < GROUP_RADIUS ** 2
            if self.gather_since < 0:
                self.gather_since = world.loop
            if np.count_nonzero(near) < 0.8 * len(home_army) and world.loop - self.gather_since < GROUP_TIMEOUT:
                return
        self.gather_since = -1
        self.fled = 0.0
        self.waves += 1
        self.wave_moved = (0, 0.0, 0.0)
        self.wave = set(u.tag[home_army].tolist())
        self.wave_target = None

    def press(self, world: World, wave: np.ndarray) -> None:
        """A wave on its way: attack-move to its target; at the higher levels fall back when the
        enemy near it is stronger; the wave ends once it is down to a few units."""
        u = world.u
        # (units that cannot fight ground units, Medivacs and Vikings, escort the others: the wave is
        # over once those are down to a few)
        fights = TYPES.hits_ground[u.ti[wave]]
        escorts = wave[~fights]
        wave_all, wave = wave, wave[fights]
        if len(wave) < 3:
            self.wave.clear()
            return
        cx, cy = float(u.x[wave].mean()), float(u.y[wave].mean())
        known = self.known
        if self.tech is not None:
            lp, px, py = self.wave_moved
            close = bool(len(known)) and bool(((u.x[known] - cx) ** 2 + (u.y[known] - cy) ** 2 <
                                               FIGHT_RADIUS ** 2).any())
            if (cx - px) ** 2 + (cy - py) ** 2 > 16.0 or close or not lp:
                self.wave_moved = (world.loop, cx, cy)
            elif world.loop - lp > STUCK_LOOPS:
                self.wave.clear()
                self.wave_moved = (0, 0.0, 0.0)
                return
        if self.level.retreat and len(known):
            near = known[(u.x[known] - cx) ** 2 + (u.y[known] - cy) ** 2 < FIGHT_RADIUS ** 2]
            near = near[TYPES.can_attack[u.ti[near]]]
            if len(near) and strength(near, u) > RETREAT_RATIO * strength(wave_all, u):
                world.command(self.player_id, MOVE_CMD, [int(t) for t in u.tag[wave_all].tolist()],
                              self.staging(world), 0, False)
                self.wave.clear()
                self.fled = strength(near, u)
                return
        target = self.attack_target(world, (cx, cy))
        if target != self.wave_target:
            self.wave_target = target
            world.command(self.player_id, ATTACK, [int(t) for t in u.tag[wave].tolist()], target, 0, False)
        else:
            idle = wave[u.kind[wave] == IDLE]
            if len(idle):
                world.command(self.player_id, ATTACK, [int(t) for t in u.tag[idle].tolist()], target, 0, False)
        if len(escorts):
            self.escort(world, escorts, wave, (cx, cy))
        self.focus(world, wave_all, known)
        self.rules.shields(world, wave_all, known)

    def escort(self, world: World, escorts: np.ndarray, wave: np.ndarray, at: tuple[float, float]) -> None:
        """Units of a wave that cannot fight ground units follow the one nearest its centre;
        those that shoot air units (Vikings) attack-move to the enemy air units near the wave."""
        u = world.u
        known = self.known
        hits_air = TYPES.hits_air[u.ti[escorts]]
        if hits_air.any() and len(known):
            air = known[TYPES.is_flying[u.ti[known]] & ~TYPES.structure[u.ti[known]]]
            air = air[(u.x[air] - at[0]) ** 2 + (u.y[air] - at[1]) ** 2 < ESCORT_AIR_RADIUS ** 2]
            if len(air):
                self.attack_move(world, escorts[hits_air], (float(u.x[air].mean()), float(u.y[air].mean())))
                escorts = escorts[~hits_air]
        if not len(escorts):
            return
        lead = wave[int(np.argmin((u.x[wave] - at[0]) ** 2 + (u.y[wave] - at[1]) ** 2))]
        lead_tag = int(u.tag[lead])
        wave_tags = u.tag[wave]
        follows = (u.kind[escorts] == FOLLOW) & np.isin(u.ttag[escorts], wave_tags)
        busy = follows | (u.kind[escorts] == ATTACK_UNIT)
        go = escorts[~busy]
        if len(go):
            world.command(self.player_id, MOVE_CMD, [int(t) for t in u.tag[go].tolist()], None, lead_tag, False)

    def attack_target(self, world: World, at: tuple[float, float]) -> tuple[float, float]:
        """The nearest enemy structure it knows of; else an enemy start location it has not seen;
        else the expansion site it saw longest ago (nearest the enemy's start first)."""
        if self.enemy_structures:
            x, y, _ = min(self.enemy_structures.values(), key=lambda s: (s[0] - at[0]) ** 2 + (s[1] - at[1]) ** 2)
            return (x, y)
        plan = self.plan
        assert plan is not None
        for c in sorted(self.candidates, key=lambda c: (c[0] - at[0]) ** 2 + (c[1] - at[1]) ** 2):
            k = self.site_index(c)
            if k not in self.seen_sites:
                return c
        ref = self.enemy_main or (self.candidates[0] if self.candidates else self.home)
        ground = plan.ground.get(ref)
        dist = ground if ground is not None else np.zeros(len(plan.sites))
        best = min(range(len(plan.sites)),
                   key=lambda k: (self.seen_sites.get(k, -1), float(dist[k]) if np.isfinite(dist[k]) else 1e9))
        return plan.sites[best]

    def attack_move(self, world: World, rows: np.ndarray, target: tuple[float, float]) -> None:
        """Attack-move ``rows`` to ``target``, commanding only those not already on their way there
        or fighting."""
        if not len(rows):
            return
        u = world.u
        busy = ((u.kind[rows] == ATTACK_MOVE) & ((u.tx[rows] - target[0]) ** 2 + (u.ty[rows] - target[1]) ** 2 < 16.0)) \
            | (u.kind[rows] == ATTACK_UNIT)
        go = rows[~busy]
        if len(go):
            world.command(self.player_id, ATTACK, [int(t) for t in u.tag[go].tolist()], target, 0, False)

    def focus(self, world: World, rows: np.ndarray, enemy: np.ndarray) -> None:
        """At the higher levels every unit with an enemy in range attacks the best one: a unit that
        can shoot back before one that cannot, then the least life left."""
        if not self.level.focus_fire or not len(rows) or not len(enemy):
            return
        u = world.u
        ex, ey = u.x[enemy], u.y[enemy]
        cx, cy = float(u.x[rows].mean()), float(u.y[rows].mean())
        close = (ex - cx) ** 2 + (ey - cy) ** 2 < 20.0 ** 2
        enemy = enemy[close]
        if not len(enemy):
            return
        dx = u.x[enemy][None, :] - u.x[rows][:, None]
        dy = u.y[enemy][None, :] - u.y[rows][:, None]
        ti_r, ti_e = u.ti[rows], u.ti[enemy]
        edge = np.sqrt(dx * dx + dy * dy) - TYPES.radius[ti_r][:, None] - TYPES.radius[ti_e][None, :]
        in_rng = (edge <= TYPES.range[ti_r][:, None]) & TYPES.can_hit[ti_r][:, ti_e]
        has = in_rng.any(axis=1)
        if not has.any():
            return
        life = (u.hp + u.shield)[enemy] + np.where(TYPES.can_attack[ti_e], 0.0, 1e4) + \
            np.where(TYPES.structure[ti_e], 1e4, 0.0)
        best = np.argmin(np.where(in_rng, life[None, :], np.inf), axis=1)
        shooters = rows[has]
        targets = u.tag[enemy[best[has]]]
        change = (u.kind[shooters] != ATTACK_UNIT) | (u.ttag[shooters] != targets)
        by_target: dict[int, list[int]] = {}
        for r, t in zip(u.tag[shooters[change]].tolist(), targets[change].tolist(), strict=True):
            by_target.setdefault(t, []).append(r)
        for t, group in by_target.items():
            world.command(self.player_id, ATTACK_UNIT_CMD, group, None, t, False)


__all__ = ["LEVELS", "MeleeComputer"]
