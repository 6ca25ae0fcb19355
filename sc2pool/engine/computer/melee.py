"""The built-in AI of the melee game: a ``Computer(race, difficulty, build)`` player on a ladder map.

It plays through the same command path as a bot (:meth:`World.command`), so every rule a bot
meets binds it too; it reads the world directly instead of an observation, but only what its
player may know (:meth:`MeleeComputer.known_enemy`: structures and units its vision has seen;
the Cheat difficulties see everything).

What it does every decision (its "APM": one decision every ``Level.period`` loops):

- economy: idle workers mine, townhalls train workers up to the level's cap, a supply depot is
  started when supply runs short, expansions follow at the level's timings;
- production: barracks up to the level's count, marines from every idle barracks;
- army: units gather at the natural side of the main, attack in waves once the wave is big
  enough (waves grow), defend any base an enemy comes near;
- control at the higher levels: focus fire on the weakest enemy in range.

The difficulty levels change what the real AI's levels change (sources: the Arqade answer
"StarCraft 2 AI differences" (newbetuts.com/6253), Liquipedia "AI"; the exact numbers are the
engine's (m)): how quickly it acts, how efficiently it runs its economy (lower levels pause
production as if they had less income; the Cheat levels mine more), how big and how early its
waves are, and its army control; CheatVision and CheatInsane see the whole map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.sim.commands import SUCCESS
from sc2pool.engine.sim.units import ATTACK_MOVE, ATTACK_UNIT, IDLE, NEUTRAL_OWNER, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.scenarios.melee import Melee
    from sc2pool.engine.sim.world import World

TRAIN_SCV, TRAIN_MARINE = 524, 560
BUILD_CC, BUILD_DEPOT, BUILD_REFINERY, BUILD_BARRACKS = 318, 319, 320, 321
ATTACK, MOVE, GATHER = 3674, 16, 295
LOOPS_PER_SECOND = 22.4
REAPER = 49
ARMY_TYPES = (D.MARINE, D.MARAUDER, REAPER)


@dataclass(frozen=True)
class Level:
    """What one difficulty level changes (m: the values are the engine's)."""

    period: int
    """Loops between two decisions (reaction time, APM)."""
    workers: int
    """Workers it trains up to."""
    barracks: int
    expand_at: int
    """Workers at which it takes its natural (0: never expands)."""
    first_wave: int
    """Army units in its first attack wave; later waves grow by ``wave_growth``."""
    wave_growth: int
    first_attack_s: float
    """Game seconds (faster speed) before its first attack."""
    production_pause: float
    """Fraction of decisions it skips producing anything (lower levels: less effective income)."""
    focus_fire: bool
    sees_all: bool = False
    extra_income: int = 0
    """Extra minerals per mining trip (the Cheat levels' income)."""


LEVELS: dict[int, Level] = {
    1: Level(period=64, workers=14, barracks=1, expand_at=0, first_wave=6, wave_growth=2, first_attack_s=420,
             production_pause=0.6, focus_fire=False),
    2: Level(period=44, workers=18, barracks=1, expand_at=0, first_wave=8, wave_growth=3, first_attack_s=360,
             production_pause=0.4, focus_fire=False),
    3: Level(period=32, workers=24, barracks=2, expand_at=20, first_wave=10, wave_growth=4, first_attack_s=330,
             production_pause=0.25, focus_fire=False),
    4: Level(period=24, workers=32, barracks=3, expand_at=19, first_wave=12, wave_growth=5, first_attack_s=300,
             production_pause=0.12, focus_fire=True),
    5: Level(period=16, workers=40, barracks=4, expand_at=18, first_wave=14, wave_growth=6, first_attack_s=280,
             production_pause=0.05, focus_fire=True),
    6: Level(period=12, workers=44, barracks=5, expand_at=17, first_wave=16, wave_growth=8, first_attack_s=260,
             production_pause=0.0, focus_fire=True),
    7: Level(period=8, workers=50, barracks=6, expand_at=17, first_wave=18, wave_growth=10, first_attack_s=240,
             production_pause=0.0, focus_fire=True),
    8: Level(period=8, workers=50, barracks=6, expand_at=17, first_wave=18, wave_growth=10, first_attack_s=240,
             production_pause=0.0, focus_fire=True, sees_all=True),
    9: Level(period=8, workers=50, barracks=7, expand_at=17, first_wave=18, wave_growth=10, first_attack_s=240,
             production_pause=0.0, focus_fire=True, extra_income=1),
    10: Level(period=8, workers=50, barracks=8, expand_at=17, first_wave=18, wave_growth=10, first_attack_s=240,
              production_pause=0.0, focus_fire=True, sees_all=True, extra_income=2),
}
"""Difficulty (``sc2api_pb2.Difficulty`` 1 VeryEasy .. 10 CheatInsane) -> its level."""


class MeleeComputer:
    """Acts for ``player_id`` inside :meth:`Game.step` (deterministic: its choices depend only on the
    game's state and seed)."""

    def __init__(self, player_id: int, difficulty: int, build: int, scenario: Melee) -> None:
        if difficulty not in LEVELS:
            raise ValueError(f"unknown difficulty {difficulty}")
        self.player_id = player_id
        self.difficulty = difficulty
        self.ai_build = build
        self.level = LEVELS[difficulty]
        self.scenario = scenario
        self.next_loop = 0
        self.waves = 0
        self.attacking = False
        self.home = scenario.starts[player_id]
        self.enemy_starts = [p for q, p in scenario.starts.items() if q != player_id] or \
            [p for p in scenario.map.start_locations if p != self.home]
        self.rng = np.random.default_rng(int(scenario.rng.integers(1 << 62)))
        self.seen_structures: dict[int, tuple[float, float]] = {}

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
        produce = self.rng.random() >= self.level.production_pause
        self.economy(world, produce)
        if produce:
            self.production(world)
        self.army(world)

    # ------------------------------------------------------------------ what it knows
    def mine(self, world: World, unit_ids: tuple[int, ...] | None = None) -> np.ndarray:
        u = world.u
        m = u.owner == self.player_id
        if unit_ids is not None:
            m &= np.isin(u.unit_id, np.array(unit_ids))
        return np.nonzero(m)[0]

    def known_enemy(self, world: World) -> np.ndarray:
        """Rows of enemy units it may know of: those on cells its units see now (all of them at the
        Cheat levels that see the map)."""
        u = world.u
        enemy = (u.owner != self.player_id) & (u.owner != NEUTRAL_OWNER)
        if self.level.sees_all or not np.count_nonzero(enemy):
            return np.nonzero(enemy)[0]
        vis = world.vision.visibility(self.player_id)
        seen = world.vision.observed(self.player_id, vis)
        rows = np.nonzero(enemy & seen)[0]
        for r in rows[TYPES.structure[u.ti[rows]]].tolist():
            self.seen_structures[int(u.tag[r])] = (float(u.x[r]), float(u.y[r]))
        return rows

    # ------------------------------------------------------------------ economy
    def economy(self, world: World, produce: bool) -> None:
        u = world.u
        pid = self.player_id
        workers = self.mine(world, (D.SCV,))
        idle = workers[u.kind[workers] == IDLE]
        structures = world.construction.structures
        townhalls = [s for s in structures.values() if s.owner == pid and s.unit_id == D.COMMANDCENTER and s.ready]
        if len(idle) and townhalls:
            for r in idle.tolist():
                field = self.nearest_field(world, float(u.x[r]), float(u.y[r]))
                if field:
                    world.command(pid, GATHER, [int(u.tag[r])], None, field, False)
        if not produce:
            return
        n_workers = len(workers) + sum(s.queue.count(D.SCV) for s in townhalls)
        for th in townhalls:
            if n_workers < self.level.workers and not th.queue:
                if world.command(pid, TRAIN_SCV, [th.tag], None, 0, False) == SUCCESS:
                    n_workers += 1
        used, cap = world.supply.food(pid)
        pending_depots = sum(1 for s in structures.values() if s.owner == pid and s.unit_id == D.SUPPLYDEPOT
                             and not s.ready) + self.walking_to_build(world, BUILD_DEPOT)
        producers = 1 + sum(1 for s in structures.values() if s.owner == pid and s.unit_id == D.BARRACKS)
        if cap < 200 and cap - used <= 2 + 2 * producers and pending_depots < (1 + producers // 3):
            self.build(world, BUILD_DEPOT, D.SUPPLYDEPOT, self.home, toward_centre=-3.0)
        if self.level.expand_at and len(workers) >= self.level.expand_at and len(townhalls) < 2 and \
                not self.walking_to_build(world, BUILD_CC) and \
                not any(s.owner == pid and s.unit_id == D.COMMANDCENTER and not s.ready for s in structures.values()):
            spot = self.natural(world)
            if spot is not None:
                self.build(world, BUILD_CC, D.COMMANDCENTER, spot, exact=True)

    def walking_to_build(self, world: World, ability: int) -> int:
        jobs = world.workers.jobs
        u = world.u
        n = 0
        for r in self.mine(world, (D.SCV,)).tolist():
            job = jobs.get(int(u.tag[r]))
            if job is not None and getattr(job, "build", 0) == ability and job.target == 0:
                n += 1
        return n

    def nearest_field(self, world: World, x: float, y: float) -> int:
        best, bd = 0, math.inf
        townhalls = [(s.x, s.y) for s in world.construction.structures.values()
                     if s.owner == self.player_id and s.unit_id == D.COMMANDCENTER and s.ready]
        for tag, res in world.harvest.resources.items():
            if not res.is_mineral or res.contents <= 0:
                continue
            if not any((res.x - tx) ** 2 + (res.y - ty) ** 2 < 100.0 for tx, ty in townhalls):
                continue
            d = (res.x - x) ** 2 + (res.y - y) ** 2
            if d < bd:
                best, bd = tag, d
        return best

    def natural(self, world: World) -> tuple[float, float] | None:
        """The nearest free expansion site to the main (a spot where a Command Center fits)."""
        sites = expansion_sites(world)
        hx, hy = self.home
        taken = [(s.x, s.y) for s in world.construction.structures.values() if s.unit_id == D.COMMANDCENTER]
        best, bd = None, math.inf
        for x, y in sites:
            if any((x - a) ** 2 + (y - b) ** 2 < 36 for a, b in taken):
                continue
            if any((x - a) ** 2 + (y - b) ** 2 < 36 for a, b in self.enemy_starts):
                continue
            d = (x - hx) ** 2 + (y - hy) ** 2
            if d < bd:
                best, bd = (x, y), d
        return best

    def build(self, world: World, ability: int, unit_id: int, near: tuple[float, float], toward_centre: float = 4.0,
              exact: bool = False) -> bool:
        """Send a mining worker to build ``unit_id`` at a free spot near ``near``."""
        spec = D.unit_spec(unit_id)
        if world.supply.afford(self.player_id, spec.minerals, spec.vespene) != SUCCESS:
            return False
        spot = near if exact else self.find_spot(world, ability, near, toward_centre)
        if spot is None or world.placement.check(ability, *spot) != SUCCESS:
            return False
        worker = self.builder(world, spot)
        if worker == 0:
            return False
        return world.command(self.player_id, ability, [worker], spot, 0, False) == SUCCESS

    def builder(self, world: World, spot: tuple[float, float]) -> int:
        u = world.u
        workers = self.mine(world, (D.SCV,))
        jobs = world.workers.jobs
        best, bd = 0, math.inf
        for r in workers.tolist():
            tag = int(u.tag[r])
            job = jobs.get(tag)
            if job is not None and getattr(job, "build", None):
                continue
            d = (float(u.x[r]) - spot[0]) ** 2 + (float(u.y[r]) - spot[1]) ** 2
            if d < bd:
                best, bd = tag, d
        return best

    def find_spot(self, world: World, ability: int, near: tuple[float, float], toward_centre: float) -> tuple[float, float] | None:
        """A free spot for the structure of ``ability``: the first on a spiral round a point
        ``toward_centre`` cells from ``near`` towards the map's centre, kept away from minerals."""
        cx, cy = world.map.center
        hx, hy = near
        d = math.hypot(cx - hx, cy - hy) or 1.0
        ox, oy = hx + (cx - hx) / d * toward_centre, hy + (cy - hy) / d * toward_centre
        fields = [(r.x, r.y) for r in world.harvest.resources.values() if (r.x - hx) ** 2 + (r.y - hy) ** 2 < 225]
        k = int(self.rng.integers(0, 8))
        for ring in range(1, 14):
            for i in range(8 * ring):
                a = 2 * math.pi * ((i + k) % (8 * ring)) / (8 * ring)
                x, y = math.floor(ox + 2 * ring * math.cos(a)) + 0.5, math.floor(oy + 2 * ring * math.sin(a)) + 0.5
                if ability == BUILD_DEPOT:
                    x, y = round(x), round(y)
                if any((x - fx) ** 2 + (y - fy) ** 2 < 20.0 for fx, fy in fields):
                    continue
                if world.placement.check(ability, x, y) == SUCCESS:
                    return (x, y)
        return None

    # ------------------------------------------------------------------ production
    def production(self, world: World) -> None:
        pid = self.player_id
        structures = world.construction.structures
        barracks = [s for s in structures.values() if s.owner == pid and s.unit_id == D.BARRACKS]
        workers = self.mine(world, (D.SCV,))
        if len(barracks) < self.level.barracks and len(workers) >= 13 + 2 * len(barracks) and \
                not self.walking_to_build(world, BUILD_BARRACKS):
            if any(s.owner == pid and s.unit_id == D.SUPPLYDEPOT for s in structures.values()):
                self.build(world, BUILD_BARRACKS, D.BARRACKS, self.home, toward_centre=6.0)
        for b in barracks:
            if b.ready and not b.queue:
                world.command(pid, TRAIN_MARINE, [b.tag], None, 0, False)

    # ------------------------------------------------------------------ army
    def army(self, world: World) -> None:
        u = world.u
        pid = self.player_id
        army = self.mine(world, ARMY_TYPES)
        if not len(army):
            self.attacking = False
            return
        enemy = self.known_enemy(world)
        mine_structures = [(s.x, s.y) for s in world.construction.structures.values() if s.owner == pid]
        # defend: an enemy near one of its structures
        threat = None
        for r in enemy.tolist():
            ex, ey = float(u.x[r]), float(u.y[r])
            if any((ex - x) ** 2 + (ey - y) ** 2 < 400 for x, y in mine_structures):
                threat = (ex, ey)
                break
        tags = [int(t) for t in u.tag[army]]
        if threat is not None:
            world.command(pid, ATTACK, tags, threat, 0, False)
            self.focus(world, army, enemy)
            return
        t_s = world.loop / LOOPS_PER_SECOND
        wave = self.level.first_wave + self.waves * self.level.wave_growth
        if not self.attacking and len(army) >= wave and t_s >= self.level.first_attack_s:
            self.attacking = True
            self.waves += 1
        if self.attacking:
            if len(army) < max(3, wave // 3):
                self.attacking = False
            else:
                target = self.attack_target(world, enemy)
                idle = army[(u.kind[army] == IDLE) | (u.kind[army] == ATTACK_MOVE)]
                if len(idle):
                    world.command(pid, ATTACK, [int(t) for t in u.tag[idle]], target, 0, False)
                self.focus(world, army, enemy)
                return
        rally = self.rally_point(world)
        idle = army[u.kind[army] == IDLE]
        far = idle[(u.x[idle] - rally[0]) ** 2 + (u.y[idle] - rally[1]) ** 2 > 36]
        if len(far):
            world.command(pid, MOVE, [int(t) for t in u.tag[far]], rally, 0, False)

    def attack_target(self, world: World, enemy: np.ndarray) -> tuple[float, float]:
        u = world.u
        structures = enemy[TYPES.structure[u.ti[enemy]]] if len(enemy) else enemy
        if len(structures):
            r = int(structures[0])
            return (float(u.x[r]), float(u.y[r]))
        alive = set(u.tag[u.owner != self.player_id].tolist())
        for tag, pos in list(self.seen_structures.items()):
            if tag in alive:
                return pos
            del self.seen_structures[tag]
        if len(enemy):
            r = int(enemy[0])
            return (float(u.x[r]), float(u.y[r]))
        return self.enemy_starts[(self.waves + world.loop // 2000) % len(self.enemy_starts)]

    def rally_point(self, world: World) -> tuple[float, float]:
        cx, cy = world.map.center
        hx, hy = self.home
        d = math.hypot(cx - hx, cy - hy) or 1.0
        x, y = hx + (cx - hx) / d * 10.0, hy + (cy - hy) / d * 10.0
        return world.pathing_point(x, y) if hasattr(world, "pathing_point") else (x, y)

    def focus(self, world: World, army: np.ndarray, enemy: np.ndarray) -> None:
        """At the higher levels every unit with an enemy in range attacks the weakest one."""
        if not self.level.focus_fire or not len(enemy):
            return
        u = world.u
        dx = u.x[enemy][None, :] - u.x[army][:, None]
        dy = u.y[enemy][None, :] - u.y[army][:, None]
        edge = np.hypot(dx, dy) - TYPES.radius[u.ti[army]][:, None] - TYPES.radius[u.ti[enemy]][None, :]
        can = TYPES.can_hit[u.ti[army]][:, u.ti[enemy]]
        in_rng = (edge <= TYPES.range[u.ti[army]][:, None]) & can
        hp = (u.hp + u.shield)[enemy]
        weakest = np.argmin(np.where(in_rng, hp[None, :], np.inf), axis=1)
        has = in_rng.any(axis=1)
        for r, j in zip(army[has].tolist(), weakest[has].tolist(), strict=True):
            tag = int(u.tag[enemy[j]])
            if u.kind[r] != ATTACK_UNIT or int(u.ttag[r]) != tag:
                world.command(self.player_id, D.ATTACK_ATTACK, [int(u.tag[r])], None, tag, False)


def expansion_sites(world: World) -> list[tuple[float, float]]:
    """Townhall spots next to each cluster of mineral fields: the point nearest the cluster's
    centre, on the far side from its minerals, where a Command Center may be placed (cached per
    world)."""
    cached = getattr(world, "_expansion_sites", None)
    if cached is not None:
        return cached
    res = [(r.x, r.y) for r in world.harvest.resources.values()]
    fields = [(r.x, r.y) for r in world.harvest.resources.values() if r.is_mineral]
    clusters: list[list[tuple[float, float]]] = []
    for f in fields:
        for c in clusters:
            if any((f[0] - g[0]) ** 2 + (f[1] - g[1]) ** 2 < 64 for g in c):
                c.append(f)
                break
        else:
            clusters.append([f])
    sites = []
    for c in clusters:
        if len(c) < 4:
            continue
        mx = float(np.mean([p[0] for p in c]))
        my = float(np.mean([p[1] for p in c]))
        best, bd = None, math.inf
        for dx in range(-12, 13):
            for dy in range(-12, 13):
                x, y = math.floor(mx) + dx + 0.5, math.floor(my) + dy + 0.5
                d = (x - mx) ** 2 + (y - my) ** 2
                if d >= bd or d > 144:
                    continue
                if any((x - a) ** 2 + (y - b) ** 2 < 36 for a, b in res):
                    continue
                if world.placement.check(BUILD_CC, x, y) != SUCCESS:
                    continue
                best, bd = (x, y), d
        if best is not None:
            sites.append(best)
    world._expansion_sites = sites  # type: ignore[attr-defined]
    return sites
