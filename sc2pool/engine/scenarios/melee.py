"""The 1v1 melee game on a real ladder map: two players, their races' starts, the map's resources.

Rules (LotV melee; sources in brackets):

- Each player starts at one of the map's start locations, drawn at random per game (the real
  game's 2-spawn maps draw the spawns; which player gets which is not fixed (m: the draw is the
  engine's own, seeded)), with its race's melee start (:class:`sc2pool.engine.sim.races.MeleeStart`:
  for Terran a Command Center, 12 SCVs, 50 minerals, 12/15 supply; the real client's first
  observation in python-sc2's captures).
- The workers stand on the cells 3 from the townhall's centre nearest its mineral line and start
  mining at once (every SCV reports a gather order at loop 0 in the captures; which 12 cells and
  which field they are first sent to are the engine's choice (m: every field of the main one
  worker, the nearest fields a second, :func:`start_fields`), the captures show them on that ring
  facing the minerals).
- The map's neutral units (:mod:`sc2pool.engine.terrain`): every mineral field and geyser with its
  contents (rich fields give 7 minerals, rich geysers 8 vespene a trip), destructible rocks and
  debris (obstacles that block building until destroyed), Xel'Naga towers.
- A player with no buildings left loses, the others win (both at once: a Tie) [Liquipedia,
  "Melee"]; buildings under construction and flying ones count, Creep Tumors do not (the Arqade
  answer "What are the victory conditions": "creep tumors are considered food-cost-less units,
  not buildings"); leaving or surrendering gives the other side the Victory (the game's own rule);
  there is no time limit (burnysc2's ``game_time_limit`` ends a game as a Tie on the client's side).
- A player left without a main building (Command Center, Orbital Command or Planetary Fortress,
  flying ones included (m), Nexus, Hatchery, Lair or Hive; one under construction counts) is
  revealed after :data:`REVEAL_DELAY`: its buildings, and only they, are seen by every other
  player (in the observation as visible units, targetable), until it starts a main building
  again [the Arqade answer "What does 'player has not rebuilt their base and is being revealed'
  mean": "after a short time, that player's buildings, and buildings only, will be revealed to
  its enemies ... you do not get vision of their surroundings"; "so that an almost-defeated
  player cannot hide a building somewhere remote"; the delay is (m)].
- Stalemate: when for :data:`STALEMATE_LOOPS` no player gathers resources or spends any (a unit
  trained, a structure started, an upgrade researched) and no building is destroyed, the game
  ends in a Tie for everybody [patch 1.2.0 notes: "end the game in a tie for all remaining
  players if no players have income, production, or destroyed structures for three consecutive
  minutes"; patch 1.3.0: the timer resets "when any player gathers resources, researches an
  upgrade, produces a unit, constructs a building, or destroys an enemy building"; the minutes
  read as the game time of those (Wings of Liberty) notes, 16 loops a second (m)].
- Fog of war, as in every melee game; high ground and snapshots: :mod:`sc2pool.engine.sim.systems.vision`.
- Races: the engine simulates the Terran, Zerg and Protoss economies (Zerg: a Hatchery, 12 Drones,
  an Overlord and 3 larvae, 12/14 supply, the start's creep; Protoss: a Nexus and 12 Probes,
  :mod:`sc2pool.engine.sim.races.protoss`); a Random player plays one of the three, drawn by
  the game's seed when it starts (its ``race_actual``).
- Score (Melee score type): minerals and vespene collected (the real client's melee score is a
  weighted sum of several parts; this is the engine's choice (m)).
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import LadderSpec
from sc2pool.engine.scenarios.base import (
    COMPUTER,
    DEFEAT,
    MELEE,
    TIE,
    VICTORY,
    PlayerSlot,
    Scenario,
    SetupError,
)
from sc2pool.engine.sim.races import PROTOSS, RACES, TERRAN, TOWNHALLS, ZERG, RaceRules
from sc2pool.engine.sim.systems.harvest import GEYSER_TYPES, MINERAL_TYPES
from sc2pool.engine.sim.units import BUILDINGS, NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import Deaths
from sc2pool.engine.terrain import LadderMap, footprint_cells, has_footprint, load_map

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.supply import Supply

NO_TIME_LIMIT = 1 << 40
RANDOM_RACES: tuple[RaceRules, ...] = (TERRAN, ZERG, PROTOSS)
"""What a Random player plays: one of these, drawn when the game starts."""
RACE_NAMES = {D.TERRAN: "Terran", D.ZERG: "Zerg", D.PROTOSS: "Protoss", D.RANDOM: "Random"}
WORKER_RING = 3
"""Workers start on the cells this far (Chebyshev) from the townhall's centre (the captures)."""
REVEAL_DELAY = 672
"""Loops (30 faster seconds, m) a player is left without a main building before it is revealed."""
MAIN_BUILDINGS = np.isin(TYPES.unit_id, np.array(sorted(TOWNHALLS | {36, 134})))
"""Per type row: the main buildings of the reveal rule (townhalls, flying Command Centers (36)
and Orbital Commands (134))."""
STALEMATE_LOOPS = 3 * 60 * 16
"""Three minutes of game time without income, spending or a destroyed building: a Tie."""
REVEAL_CHECK = 16
"""Loops between the looks for a rebuilt main building while a player is revealed or about to be."""
MAIN_RADIUS = 12.0
"""Mineral fields within this distance of a start location form its main mineral line."""


@cache
def type_of(name: str) -> int:
    """The unit type id of a map object's type name (the client's ``UnitTypeData.name``)."""
    for spec in TYPES.specs:
        if spec.name == name:
            return int(spec.unit_id)
    raise KeyError(f"the map places a {name!r}, a unit type the engine does not know")


def worker_spots(sx: float, sy: float, fields: list[tuple[float, float]], n: int) -> list[tuple[float, float]]:
    """The ``n`` cells on the ring round a townhall at (sx, sy) nearest its mineral line."""
    if fields:
        mx = float(np.mean([f[0] for f in fields]))
        my = float(np.mean([f[1] for f in fields]))
    else:
        mx, my = sx - 1.0, sy
    ring = [(dx, dy) for dx in range(-WORKER_RING, WORKER_RING + 1) for dy in range(-WORKER_RING, WORKER_RING + 1)
            if max(abs(dx), abs(dy)) == WORKER_RING]
    ring.sort(key=lambda d: ((sx + d[0] - mx) ** 2 + (sy + d[1] - my) ** 2, d[0], d[1]))
    return [(sx + dx, sy + dy) for dx, dy in ring[:n]]


def start_fields(fields: list[tuple[float, float, int]], spots: list[tuple[float, float]], sx: float,
                 sy: float) -> list[int]:
    """The field each start worker is first sent to: every field of the main gets one worker, the
    nearest fields a second (12 SCVs on 8 fields: 4 fields with two), each worker the nearest of
    the places left.  The split is the engine's choice (m); it matters because a worker finding
    its field occupied looks for a free one only beside it (:meth:`Harvest._free_field`), so 12
    workers sent to one field would keep mining two fields, half a base's income."""
    if not fields:
        return []
    by_distance = sorted(fields, key=lambda f: ((f[0] - sx) ** 2 + (f[1] - sy) ** 2, f[2]))
    places = [by_distance[k % len(by_distance)] for k in range(len(spots))]
    out: list[int] = [0] * len(spots)
    left = list(range(len(spots)))
    for fx, fy, tag in places:
        i = min(left, key=lambda j: ((spots[j][0] - fx) ** 2 + (spots[j][1] - fy) ** 2, j))
        left.remove(i)
        out[i] = tag
    return out


class Melee(Scenario):
    """A melee game on one ladder map; :func:`melee_scenario` makes the class for a map."""

    name = "Melee"
    map: LadderSpec
    time_limit = NO_TIME_LIMIT
    score_type = MELEE
    single_player = False
    fog = True

    def __init__(self, players: list[PlayerSlot]) -> None:
        super().__init__(players)
        spawns = len(self.map.start_locations)
        if not 1 <= len(players) <= spawns:
            raise SetupError(f"{self.name} has {spawns} start locations: give 1 to {spawns} players, not {len(players)}")
        self.rules: dict[int, RaceRules] = {}
        for p in players:
            # a participant's race arrives with join_game (burnysc2 leaves it unset in create_game)
            race = TERRAN.race if p.race in (D.RANDOM, D.NO_RACE) else p.race
            rules = RACES.get(race)
            who = "Computer" if p.type == COMPUTER else "Participant"
            if rules is None or not rules.economy_simulated:
                raise SetupError(
                    f"player {p.player_id} ({who}, {RACE_NAMES.get(p.race, p.race)}): the sc2pool engine plays the "
                    f"melee game as Terran, Zerg or Protoss only so far; {RACE_NAMES.get(p.race, p.race)} is not simulated yet "
                    "(give Race.Terran, Race.Zerg, Race.Protoss or Race.Random)")
            self.rules[p.player_id] = rules
        self.starts: dict[int, tuple[float, float]] = {}
        self.townhalls: dict[int, int] = {}
        self.reveal_at: dict[int, int] = {}
        """Player without a main building -> the loop it is (or was) revealed at."""
        self._reveal_check = 0
        self._activity: tuple[int, int] = (-1, 0)
        """(what the players gathered and spent in all, the loop that changed last): the stalemate rule."""

    @property
    def ladder(self) -> LadderMap:
        assert self.map.ladder is not None
        return self.map.ladder

    def race_actual(self, player_id: int) -> int:
        return self.rules[player_id].race

    def setup(self) -> None:
        w = self.world
        lm = self.ladder
        order = self.rng.permutation(len(lm.start_locations))
        self.starts = {p.player_id: lm.start_locations[int(order[k])] for k, p in enumerate(self.players)}
        for p in self.players:  # Random: one of the three, drawn by the game's seed (the real game's rule)
            if p.race == D.RANDOM:
                self.rules[p.player_id] = RANDOM_RACES[int(self.rng.integers(len(RANDOM_RACES)))]
        first = next(iter(self.rules.values())).start
        w.start_economy(self.rules, minerals=first.minerals, vespene=first.vespene)
        self.spawn_neutrals(lm)
        for pid, (sx, sy) in self.starts.items():
            self.townhalls[pid] = self.spawn_start(pid, self.rules[pid], sx, sy)
        if w.power.active:  # (a Nexus's starting energy shows from the first observation on)
            w.abilities.upkeep(w.loop)
        from sc2pool.engine.computer.melee import MeleeComputer

        computers = [MeleeComputer(p.player_id, p.difficulty or 3, p.ai_build, self)
                     for p in self.players if p.type == COMPUTER]
        for c in computers:  # the resource cheats' income (the levels and their source: computer/levels.py)
            if c.level.extra_income:
                w.harvest.income_bonus[c.player_id] = c.level.extra_income
        self.computers = computers

    def spawn_neutrals(self, lm: LadderMap) -> None:
        """The map's minerals, geysers, rocks and towers."""
        w = self.world
        for n in lm.neutrals:
            uid = type_of(n.type_name)
            if uid in MINERAL_TYPES:
                w.harvest.add_mineral_field(uid, n.x, n.y, n.contents)
            elif uid in GEYSER_TYPES:
                w.harvest.add_geyser(n.x, n.y, n.contents if n.contents is not None else 2250, unit_id=uid)
            else:
                tag = int(w.spawn(uid, NEUTRAL_OWNER, [n.x], [n.y], facing=n.facing)[0])
                if has_footprint(n.type_name):
                    cells = footprint_cells(n.type_name, n.x, n.y)
                    w.placement.add_obstacle(tag, self._flat(cells))

    def _flat(self, cells: np.ndarray) -> np.ndarray:
        """Flat grid indices of an (k, 2) array of (x, y) cells, inside the map."""
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        inside = (c[:, 0] >= 0) & (c[:, 0] < self.map.width) & (c[:, 1] >= 0) & (c[:, 1] < self.map.height)
        c = c[inside]
        return c[:, 1] * self.map.width + c[:, 0]

    def spawn_start(self, player: int, rules: RaceRules, sx: float, sy: float) -> int:
        """A race's melee start at (sx, sy); returns the townhall's tag."""
        w = self.world
        start = rules.start
        th = w.construction.add_structure(start.townhall, player, sx, sy)
        fields = [(r.x, r.y, t) for t, r in w.harvest.resources.items()
                  if r.is_mineral and math.hypot(r.x - sx, r.y - sy) <= MAIN_RADIUS]
        spots = worker_spots(sx, sy, [(x, y) for x, y, _ in fields], start.workers)
        if fields:
            mx = float(np.mean([f[0] for f in fields]))
            my = float(np.mean([f[1] for f in fields]))
            facing = math.atan2(my - sy, mx - sx) % (2 * math.pi)
        else:
            facing = 0.0
        xs = np.array([p[0] for p in spots])
        ys = np.array([p[1] for p in spots])
        tags = w.spawn(start.worker, player, xs, ys, facing=facing)
        for uid, k in start.extras:
            extra = w.spawn(uid, player, np.full(k, sx), np.full(k, sy - 4.0), free=True)
            if rules.race == D.ZERG:
                self._zerg_start(th, uid, extra)
        for tag, field in zip(tags.tolist(), start_fields(fields, spots, sx, sy), strict=False):
            w.harvest.gather(int(tag), field)
        return th

    def _zerg_start(self, hatchery: int, uid: int, tags: np.ndarray) -> None:
        """A Zerg start: its 3 larvae belong to the Hatchery, whose creep is there at once (the
        real client's first observation shows the start's creep)."""
        w = self.world
        if uid == D.LARVA:
            w.larva.adopt_larvae(hatchery, [int(t) for t in tags.tolist()])
        s = w.construction.structures[hatchery]
        if hatchery not in w.creep.sources:
            from sc2pool.engine.sim.systems.creep import TOWNHALL_RADIUS

            w.creep.add_source(hatchery, s.x, s.y, TOWNHALL_RADIUS, full=True)

    def horizon(self) -> int:
        loop = self.world.loop
        due = [at - loop for at in self.reveal_at.values() if at > loop]
        due.append(self._activity[1] + STALEMATE_LOOPS - loop)
        return max(1, min(due))

    def after_loop(self, deaths: Deaths) -> None:
        ledger = self.world.supply
        for p in self.score:
            self.score[p] = ledger.collected_minerals.get(p, 0) + ledger.collected_vespene.get(p, 0)
        lost = bool(len(deaths)) and bool(BUILDINGS[[TYPES.row(int(t)) for t in deaths.unit_types]].any())
        if lost or (self.reveal_at and self.world.loop >= self._reveal_check):
            self._reveal()
        if not lost:
            self._stalemate(ledger)
            return
        self._activity = (self._activity[0], self.world.loop)
        u = self.world.u
        building = BUILDINGS[u.ti]
        alive = {p.player_id: bool(np.count_nonzero(building & (u.owner == p.player_id))) for p in self.players}
        if all(alive.values()) or len(alive) < 2:
            if len(alive) == 1 and not any(alive.values()):
                self.finish(dict.fromkeys(alive, DEFEAT))
            return
        if not any(alive.values()):
            self.finish(dict.fromkeys(alive, TIE))
        else:
            self.finish({p: VICTORY if a else DEFEAT for p, a in alive.items()})

    def _stalemate(self, ledger: Supply) -> None:
        """The stalemate rule (module docstring): a Tie once nothing was gathered, spent or
        destroyed for :data:`STALEMATE_LOOPS`."""
        loop = self.world.loop
        total = (sum(ledger.collected_minerals.values()) + sum(ledger.collected_vespene.values())
                 + sum(ledger.spent_minerals.values()) + sum(ledger.spent_vespene.values()))
        if total != self._activity[0]:
            self._activity = (total, loop)
        elif loop - self._activity[1] >= STALEMATE_LOOPS and self.result is None:
            self.finish(dict.fromkeys(self.score, TIE))

    def _reveal(self) -> None:
        """The reveal rule (module docstring): start, end or carry out each player's reveal."""
        w = self.world
        u = w.u
        loop = w.loop
        self._reveal_check = loop + REVEAL_CHECK
        mains = MAIN_BUILDINGS[u.ti]
        for p in self.players:
            pid = p.player_id
            if np.count_nonzero(mains & (u.owner == pid)):
                self.reveal_at.pop(pid, None)
                w.vision.exposed.discard(pid)
            elif pid not in self.reveal_at:
                self.reveal_at[pid] = loop + REVEAL_DELAY
            elif loop >= self.reveal_at[pid]:
                w.vision.exposed.add(pid)


_CLASSES: dict[str, type[Melee]] = {}


def melee_scenario(path: str, name: str | None = None) -> type[Melee]:
    """The :class:`Melee` scenario class of the ladder map at ``path`` (read once per process;
    :class:`sc2pool.engine.terrain.MapReadError` names the file and what could not be read)."""
    cls = _CLASSES.get(path)
    if cls is None:
        lm = load_map(path, name=name)
        spec = LadderSpec.from_ladder(lm)
        cls = type(f"Melee_{lm.name}", (Melee,), {"name": lm.name, "map": spec})
        _CLASSES[path] = cls
    return cls
