"""The full game: a 1v1 melee game on a real ladder map, one game per episode (``--task Melee``).

Options (``--task-kwargs``): ``race`` (ours: ``"terran"``, ``"zerg"``, ``"protoss"`` or ``"random"``,
the game drawing the race and the decoder reading it at the episode's start), ``opponent`` (a ``Computer``:
``{"race": "terran", "difficulty": "easy", "build": "randombuild"}``, any key left out takes that
default; a list of them, one drawn per episode with the game's seed (a curriculum: Easy and
Medium mixed); or ``"self"`` / ``"league"``: the second player is another env of the pool, the host
pairing env slots ``2k`` and ``2k+1`` of a worker into one game; ``"league"`` also tells the trainer
to play the second slot with saved snapshots of the policy, see docs/melee.md), ``map`` (a ladder map name or a
list drawn from per episode with the game's seed), ``time_limit_s`` (game seconds; the end is a
truncation), ``step_loops`` (game loops per decision), ``shaping`` (weight of the dense reward; 0
turns it off), ``minimap`` (pixels on a side of the spatial view), ``tie_reward`` (a Tie at the
time limit scored as a result with this reward instead of truncated).

Why the spaces look as they do (docs/melee.md has the longer account):

- **Actions** are one ``Discrete`` macro decision per step (``ACTIONS``): what a player decides,
  not where each unit walks. A plain "build marines, attack" policy is a few actions repeated,
  so PPO can reach it by exploring. Everything a player does without thinking is the decoder's
  housekeeping, every step: idle workers mine at the base that needs them, refineries get their
  three workers, new army units follow the army's standing order. The army's order
  (``attack`` / ``defend`` / ``retreat``) is a *mode* that lasts until another army action: one
  decision commits the army, and the observation shows the mode. An action that cannot be
  carried out now (too few minerals, no barracks, nothing to attack with) is a no-op, never an
  error; the observation's ``available`` bits say which can, so the policy learns to avoid the
  rest quickly.
- **Observations** are a ``Dict``: ``features`` (economy, production, army, what is known of the
  enemy, the army's mode and the available actions, all scaled to ``[0, 1]``) for the MLP part
  of ``MultiInputPolicy``, and ``minimap`` (``uint8``, channels first) for its CNN part: pathable
  terrain, terrain height, visibility (the fog as the agent sees it), own units, own structures,
  enemy units, enemy structures (snapshots included), creep or power. The map is mirrored so
  that our start location is always in the lower left: what the policy learns on one spawn
  holds for the other, and positions in ``features`` are mirrored the same way.
- **Reward**: +1 for a victory, -1 for a defeat, 0 for a tie or the time limit. With ``shaping``
  > 0 (the default), every step also gives ``shaping x (enemy value destroyed - own value lost) /
  1000``, the value being a unit's mineral + vespene cost, counted from the observation's dead
  units: a dense signal for the fights that decide the game, which the sparse result gives only
  hundreds of steps later. ``shaping=0`` is the pure win/loss reward. The time limit is a
  truncation, so PPO bootstraps through it as if the game went on: a Tie is neither good nor
  bad, and in self-play a passive game that ties an equal costs nothing. ``tie_reward`` (-1,
  with ``shaping=0``, for self-play: docs/melee.md) makes the limit's Tie a scored end, so that
  only a decided game pays; ``"trade"`` scores it +1 for the player that destroyed more value than
  it lost and -1 otherwise, so that a self-play game at the limit still has a winner and a passive
  one has none.

Only burnysc2's public ``BotAI`` API is used (``decode`` is a coroutine for its placement queries),
so the task runs unchanged on the real game. The actions mean the same for every race; a
``RaceBook`` names the units and structures. Zerg differs in where units come from: Drones,
Overlords and the army hatch from larvae, and ``build_production`` builds the next of a Spawning
Pool, a Queen a Hatchery (her injects are housekeeping), a Roach Warren and more Hatcheries
(at the next expansion), because a Zerg's production is its larvae (docs/melee.md, "Races").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from workers.sc2.tasks.base import LOOPS_PER_SECOND, GameSetup, Opponent, Task, TaskError, register_task

if TYPE_CHECKING:
    from sc2.bot_ai import BotAI
    from sc2.position import Point2
    from sc2.unit import Unit
    from sc2.units import Units

#: The macro decisions, in action-index order.
ACTIONS: tuple[str, ...] = (
    "no_op",
    "train_worker",
    "build_supply",
    "build_gas",
    "build_production",
    "train_army",
    "train_army_alt",
    "expand",
    "attack",
    "defend",
    "retreat",
    "scout",
)
ATTACK, DEFEND, RETREAT = "attack", "defend", "retreat"
TRADE = "trade"
"""``tie_reward`` that scores a Tie at the time limit by the value traded (see :class:`Melee`)."""
MODES = (DEFEND, ATTACK, RETREAT)

#: The 2018 Season 3 1v1 ladder pool, the newest season of the bundled maps (sc2maptool's
#: ``Ladder/mode1v1/year2018/Season3``), every one a two-spawn map.
LADDER_2018_S3: tuple[str, ...] = (
    "AcidPlantLE",
    "BlueshiftLE",
    "CatalystLE",
    "CeruleanFallLE",
    "FractureLE",
    "LostAndFoundLE",
    "ParaSiteLE",
)

MINIMAP_CHANNELS: tuple[str, ...] = (
    "pathable",
    "height",
    "visibility",
    "own_units",
    "own_structures",
    "enemy_units",
    "enemy_structures",
    "creep_or_power",
)

FEATURES: tuple[str, ...] = (
    "time",
    "minerals",
    "vespene",
    "supply_used",
    "supply_cap",
    "supply_left",
    "supply_pending",
    "workers",
    "workers_pending",
    "idle_workers",
    "mineral_saturation",
    "gas_workers",
    "townhalls",
    "townhalls_pending",
    "supply_structures",
    "gas_structures",
    "production",
    "production_pending",
    "production_idle",
    "army_count",
    "army_supply",
    "army_pending",
    "army_alt_count",
    "army_x",
    "army_y",
    "army_to_home",
    "army_to_enemy_start",
    "army_idle",
    "mode_defend",
    "mode_attack",
    "mode_retreat",
    "enemy_army_seen",
    "enemy_workers_seen",
    "enemy_structures_known",
    "enemy_army_max",
    "enemy_near_home",
    "enemy_start_scouted",
    "own_structures_hurt",
    "value_killed",
    "value_lost",
    *(f"available_{a}" for a in ACTIONS),
)

#: Distances on a map (cells) are scaled by this before clipping to [0, 1].
MAP_SCALE = 200.0


@dataclass(frozen=True)
class RaceBook:
    """What the macro decisions mean for one race (burnysc2 ``UnitTypeId`` names).

    ``larvae``: the worker, the supply and the army hatch from larvae (Zerg), not from a
    structure's queue. ``production_steps`` (Zerg only): what ``build_production`` builds, the
    first one missing in this order (see ``Melee._zerg_next_production``), because a Zerg's
    production is its larvae and the structures only unlock what larvae may become."""

    race: str
    worker: str
    townhall: str
    supply: str
    gas: str
    production: str
    army: str
    army_alt: str
    supply_types: tuple[str, ...]
    army_types: tuple[str, ...]
    larvae: bool = False
    production_steps: tuple[str, ...] = ()


TERRAN = RaceBook(
    race="terran",
    worker="SCV",
    townhall="COMMANDCENTER",
    supply="SUPPLYDEPOT",
    gas="REFINERY",
    production="BARRACKS",
    army="MARINE",
    army_alt="REAPER",
    supply_types=("SUPPLYDEPOT", "SUPPLYDEPOTLOWERED"),
    army_types=("MARINE", "REAPER", "MARAUDER", "HELLION", "SIEGETANK", "MEDIVAC", "VIKINGFIGHTER", "CYCLONE",
                "WIDOWMINE", "THOR", "GHOST", "LIBERATOR", "BANSHEE", "RAVEN", "BATTLECRUISER", "HELLIONTANK",
                "SIEGETANKSIEGED", "VIKINGASSAULT", "WIDOWMINEBURROWED", "THORAP", "LIBERATORAG"),
)
PROTOSS = RaceBook(
    race="protoss",
    worker="PROBE",
    townhall="NEXUS",
    supply="PYLON",
    gas="ASSIMILATOR",
    production="GATEWAY",
    army="ZEALOT",
    army_alt="STALKER",
    supply_types=("PYLON",),
    army_types=("ZEALOT", "STALKER", "ADEPT", "SENTRY", "HIGHTEMPLAR", "DARKTEMPLAR", "ARCHON", "IMMORTAL",
                "COLOSSUS", "DISRUPTOR", "OBSERVER", "WARPPRISM", "PHOENIX", "ORACLE", "VOIDRAY", "TEMPEST",
                "CARRIER", "MOTHERSHIP"),
)
ZERG = RaceBook(
    race="zerg",
    worker="DRONE",
    townhall="HATCHERY",
    supply="OVERLORD",
    gas="EXTRACTOR",
    production="SPAWNINGPOOL",
    army="ZERGLING",
    army_alt="ROACH",
    # Overseers and transport Overlords keep the Overlord's 8 supply (docs/engine.md, Zerg)
    supply_types=("OVERLORD", "OVERSEER", "OVERLORDTRANSPORT", "OVERSEERSIEGEMODE"),
    # Queens are not army: they stay at their Hatchery to inject larvae (and defend it)
    army_types=("ZERGLING", "ROACH", "BANELING", "HYDRALISK", "RAVAGER", "MUTALISK", "CORRUPTOR", "BROODLORD",
                "ULTRALISK", "INFESTOR", "SWARMHOSTMP", "VIPER", "LURKERMP", "LURKERMPBURROWED", "ROACHBURROWED",
                "ZERGLINGBURROWED", "BANELINGBURROWED", "HYDRALISKBURROWED", "INFESTORBURROWED",
                "ULTRALISKBURROWED", "RAVAGERBURROWED"),
    larvae=True,
    production_steps=("SPAWNINGPOOL", "QUEEN", "ROACHWARREN", "HATCHERY"),
)
RACE_BOOKS: dict[str, RaceBook] = {"terran": TERRAN, "zerg": ZERG, "protoss": PROTOSS}
#: ``race`` options: a book's race, or ``"random"`` (the game draws it; the book is picked at the
#: episode's start from ``bot.race``).
RACES: tuple[str, ...] = (*RACE_BOOKS, "random")

DEFAULT_OPPONENT: dict[str, str] = {"race": "terran", "difficulty": "easy", "build": "randombuild"}
PAIRED_OPPONENTS = ("self", "league")
#: A unit is "near" a base within this many cells of one of our structures.
NEAR_BASE = 20.0
#: Cells within which attacking units count as one body; the rest join it before going on.
REGROUP = 12.0
#: Units gathered at the rally point that go out together to join an attack.
WAVE = 6
#: Workers the decoder trains up to per townhall (16 on minerals, 6 on gas), plus a few to build.
WORKERS_PER_BASE = 22
MAX_WORKERS = 70
MAX_PRODUCTION = 10
VALUE_SCALE = 1000.0
#: Searching for hidden enemy structures: a point one cell nearer the enemy start counts as out
#: of sight this many game loops longer (m: the decoder's choice).
SEARCH_LOOPS_PER_CELL = 20.0


def _clip01(v: float) -> float:
    return 0.0 if v < 0.0 else 1.0 if v > 1.0 else v


@register_task("Melee")
class Melee(Task):
    """A 1v1 melee game on a ladder map against the built-in AI or the policy itself (see the
    module docstring for the options and why the spaces are as they are)."""

    competitive = True

    def __init__(
        self,
        race: str = "terran",
        opponent: str | dict[str, Any] | None = None,
        map: str | Sequence[str] | None = None,  # noqa: A002 - the option's name on the command line
        time_limit_s: float = 1200.0,
        step_loops: int = 32,
        shaping: float = 1.0,
        minimap: int = 32,
        tie_reward: float | str | None = None,
        scripted: bool = False,
    ) -> None:
        super().__init__(scripted=scripted)
        race = str(race).lower()
        if race not in RACES:
            raise TaskError(f"Melee: unknown race {race!r}; expected one of {list(RACES)}")
        #: The race asked for (``"random"`` included): what the game is set up with.
        self.race = race
        #: The decoder's table; for ``"random"`` a placeholder until ``episode_start`` reads the
        #: race the game drew.
        self.book = RACE_BOOKS.get(race, TERRAN)
        #: ``"self"`` / ``"league"`` when the opponent is another env of the pool, else None.
        self.paired_opponent: str | None = None
        #: The Computers drawn from per episode (one unless ``opponent`` is a list); empty in self-play.
        self.opponents: tuple[Opponent, ...] = ()
        if isinstance(opponent, str) and opponent.lower() in PAIRED_OPPONENTS:
            self.paired_opponent = opponent.lower()
        elif isinstance(opponent, (list, tuple)):
            if not opponent:
                raise TaskError("Melee: opponent must be a Computer dict or a non-empty list of them, got []")
            if not all(isinstance(o, dict) for o in opponent):
                raise TaskError(f"Melee: a list of opponents holds Computer dicts only ('self' and 'league' "
                                f"stand alone), got {opponent!r}")
            self.opponents = tuple(self._opponent(o) for o in opponent)
        else:
            self.opponents = (self._opponent(opponent),)
        #: The first Computer (the only one unless ``opponent`` is a list); None in self-play.
        self.opponent: Opponent | None = self.opponents[0] if self.opponents else None
        maps = LADDER_2018_S3 if map is None else ((map,) if isinstance(map, str) else tuple(map))
        if not maps or not all(isinstance(m, str) and m for m in maps):
            raise TaskError(f"Melee: map must be a map name or a non-empty list of them, got {map!r}")
        self.maps = tuple(m[:-7] if m.endswith(".SC2Map") else m for m in maps)
        if not float(time_limit_s) > 0:
            raise TaskError(f"Melee: time_limit_s must be > 0 game seconds, got {time_limit_s!r}")
        self.time_limit_s = float(time_limit_s)
        if isinstance(step_loops, bool) or not isinstance(step_loops, int) or not 1 <= step_loops <= 448:
            raise TaskError(f"Melee: step_loops must be an int from 1 to 448 game loops, got {step_loops!r}")
        self.step_loops = step_loops
        if not float(shaping) >= 0:
            raise TaskError(f"Melee: shaping must be >= 0 (0 turns the dense reward off), got {shaping!r}")
        self.shaping = float(shaping)
        if tie_reward is not None and tie_reward != TRADE and (
                isinstance(tie_reward, bool) or not isinstance(tie_reward, (int, float))
                or not -1.0 <= tie_reward <= 1.0):
            raise TaskError(f"Melee: tie_reward must be a number from -1 to 1, \"{TRADE}\", or null to truncate "
                            f"at the time limit, got {tie_reward!r}")
        #: None: the time limit truncates (SB3 bootstraps, as if the game went on); a number: the
        #: limit's Tie is a result, terminated with this reward; "trade": terminated with +1 for the
        #: player that destroyed more value than it lost, -1 otherwise (a passive game included).
        self.tie_reward: float | str | None = tie_reward if tie_reward in (None, TRADE) else float(tie_reward)
        self.scores_time_limit = self.tie_reward is not None
        if isinstance(minimap, bool) or not isinstance(minimap, int) or not 8 <= minimap <= 128:
            raise TaskError(f"Melee: minimap must be an int from 8 to 128 pixels, got {minimap!r}")
        self.minimap = minimap
        self.time_limit_loops = int(self.time_limit_s * LOOPS_PER_SECOND)
        self._obs_space = gym.spaces.Dict({
            "features": gym.spaces.Box(0.0, 1.0, (len(FEATURES),), np.float32),
            "minimap": gym.spaces.Box(0, 255, (len(MINIMAP_CHANNELS), minimap, minimap), np.uint8),
        })
        self._act_space = gym.spaces.Discrete(len(ACTIONS))
        self._reset_episode()

    # -- options ------------------------------------------------------------------------------------
    @staticmethod
    def _opponent(opponent: str | dict[str, Any] | None) -> Opponent:
        if opponent is None:
            opponent = {}
        if isinstance(opponent, str):
            raise TaskError(
                f"Melee: opponent must be a Computer as a dict "
                f"({{'race': ..., 'difficulty': ..., 'build': ...}}) or one of {list(PAIRED_OPPONENTS)}, got {opponent!r}"
            )
        if not isinstance(opponent, dict):
            raise TaskError(
                f"Melee: opponent must be a Computer dict, a list of them or 'self'/'league', got {opponent!r}"
            )
        unknown = set(opponent) - set(DEFAULT_OPPONENT)
        if unknown:
            raise TaskError(f"Melee: unknown opponent keys {sorted(unknown)}; expected {sorted(DEFAULT_OPPONENT)}")
        spec = {**DEFAULT_OPPONENT, **{k: str(v).lower() for k, v in opponent.items()}}
        from sc2.data import AIBuild, Difficulty, Race

        for key, enum in (("race", Race), ("difficulty", Difficulty), ("build", AIBuild)):
            names = {m.name.lower() for m in enum}
            if spec[key] not in names:
                raise TaskError(f"Melee: unknown opponent {key} {spec[key]!r}; expected one of {sorted(names)}")
        return Opponent(spec["race"], spec["difficulty"], spec["build"])

    def game_setup(self) -> GameSetup:
        return self.episode_setup(0)

    def episode_setup(self, seed: int) -> GameSetup:
        """The map and the Computer of the game with this seed: drawn from ``maps`` and
        ``opponents`` (a list cycles through its entries in an order the seed decides, so every env
        plays them all; the opponent's draw uses the seed's higher digits, so that maps and
        opponents are not paired off)."""
        name = self.maps[int(seed) % len(self.maps)]
        drawn = self.opponents[(int(seed) // len(self.maps)) % len(self.opponents)] if self.opponents else None
        return GameSetup(
            map_name=f"{name}.SC2Map",
            race=self.race,
            opponents=() if drawn is None else (drawn,),
            game_step=self.step_loops,
            time_limit_s=self.time_limit_s,
            paired=self.paired_opponent is not None,
        )

    # -- spaces -------------------------------------------------------------------------------------
    @property
    def observation_space(self) -> gym.Space[Any]:
        return self._obs_space

    @property
    def action_space(self) -> gym.Space[Any]:
        return self._act_space

    # -- episode ------------------------------------------------------------------------------------
    def _reset_episode(self) -> None:
        self.mode = DEFEND
        self._target: tuple[float, float] | None = None
        self._committed: set[int] = set()  # the army units sent to attack (the rest gather first)
        self._scout_tag: int | None = None
        self._scout_goal: tuple[float, float] | None = None
        self._known_value: dict[int, float] = {}  # enemy tag -> value, of units and structures seen
        self._known_structures: dict[int, tuple[float, float]] = {}
        self._own_value: dict[int, float] = {}
        self._unit_types: dict[int, Any] = {}  # tag -> the type its value was taken for
        self._morphing: dict[int, tuple[float, float]] = {}  # Drone tag -> where it goes to build
        self._value_killed = 0.0
        self._value_lost = 0.0
        self._reward_killed = 0.0
        self._reward_lost = 0.0
        self._enemy_army_max = 0
        self._seen_enemy_start = False
        self._search: list[tuple[float, float]] | None = None
        self._last_seen: dict[int, int] = {}
        self._positions: dict[int, tuple[float, float]] = {}
        self._static: np.ndarray | None = None
        self._mirror = (False, False)
        self._cells: tuple[np.ndarray, np.ndarray] | None = None
        self._step = 0
        self._reserved_at: tuple[int, tuple[int, int]] | None = None
        self._build_abilities: dict[Any, Any] | None = None
        self.last_action = "no_op"
        self.action_counts = [0] * len(ACTIONS)
        self.actions_done = [0] * len(ACTIONS)

    def episode_start(self, bot: BotAI) -> None:
        self._reset_episode()
        if self.race == "random":
            # the game drew the race; burnysc2 reads it from the game info at the start
            self.book = RACE_BOOKS[bot.race.name.lower()]
        self._prev_score = 0.0
        area = bot.game_info.playable_area
        self._x0, self._y0 = float(area.x), float(area.y)
        self._w, self._h = max(float(area.width), 1.0), max(float(area.height), 1.0)
        start = bot.start_location
        self._mirror = (start.x > self._x0 + self._w / 2, start.y > self._y0 + self._h / 2)
        self._home = (float(start.x), float(start.y))
        enemy = bot.enemy_start_locations
        self._enemy_start = (float(enemy[0].x), float(enemy[0].y)) if enemy else (
            self._x0 + self._w - self._home[0] + self._x0, self._y0 + self._h - self._home[1] + self._y0)
        self._build_static(bot)
        self._note_units(bot)

    # -- geometry -----------------------------------------------------------------------------------
    def _norm(self, x: float, y: float) -> tuple[float, float]:
        """A point as [0, 1] x [0, 1] of the playable area, mirrored so that our start is low-left."""
        u = (x - self._x0) / self._w
        v = (y - self._y0) / self._h
        if self._mirror[0]:
            u = 1.0 - u
        if self._mirror[1]:
            v = 1.0 - v
        return _clip01(u), _clip01(v)

    def _build_static(self, bot: BotAI) -> None:
        """The minimap's cell index of every map cell of the playable area, and the layers that do
        not change during a game (pathable terrain, height)."""
        s = self.minimap
        x0, y0 = int(self._x0), int(self._y0)
        x1, y1 = int(self._x0 + self._w), int(self._y0 + self._h)
        xs = np.arange(x0, x1)
        ys = np.arange(y0, y1)
        px = np.minimum(((xs - x0) * s) // max(x1 - x0, 1), s - 1)
        py = np.minimum(((ys - y0) * s) // max(y1 - y0, 1), s - 1)
        if self._mirror[0]:
            px = s - 1 - px
        if self._mirror[1]:
            py = s - 1 - py
        self._cells = (px, py)
        self._window = (slice(y0, y1), slice(x0, x1))
        pathable = bot.game_info.pathing_grid.data_numpy[self._window].astype(np.float32)
        height = bot.game_info.terrain_height.data_numpy[self._window].astype(np.float32)
        static = np.zeros((2, s, s), np.uint8)
        static[0] = np.round(255 * self._pool_mean(pathable)).astype(np.uint8)
        hmap = self._pool_max(height)
        lo, hi = float(hmap.min()), float(hmap.max())
        static[1] = np.round(255 * (hmap - lo) / max(hi - lo, 1.0)).astype(np.uint8)
        self._static = static

    def _pool_mean(self, grid: np.ndarray) -> np.ndarray:
        assert self._cells is not None
        px, py = self._cells
        s = self.minimap
        total = np.zeros((s, s), np.float64)
        count = np.zeros((s, s), np.float64)
        yy, xx = np.meshgrid(py, px, indexing="ij")
        np.add.at(total, (yy, xx), grid)
        np.add.at(count, (yy, xx), 1.0)
        return (total / np.maximum(count, 1.0)).astype(np.float32)

    def _pool_max(self, grid: np.ndarray) -> np.ndarray:
        assert self._cells is not None
        px, py = self._cells
        s = self.minimap
        out = np.zeros((s, s), np.float32)
        yy, xx = np.meshgrid(py, px, indexing="ij")
        np.maximum.at(out, (yy, xx), grid)
        return out

    def _pixels(self, units: Units) -> tuple[np.ndarray, np.ndarray]:
        assert self._cells is not None
        s = self.minimap
        if not units:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        pos = np.array([(u.position.x, u.position.y) for u in units], np.float64)
        u = np.clip(((pos[:, 0] - self._x0) * s / self._w).astype(np.int64), 0, s - 1)
        v = np.clip(((pos[:, 1] - self._y0) * s / self._h).astype(np.int64), 0, s - 1)
        if self._mirror[0]:
            u = s - 1 - u
        if self._mirror[1]:
            v = s - 1 - v
        return u, v

    # -- reading the state --------------------------------------------------------------------------
    def _types(self, *names: str) -> set[Any]:
        from sc2.ids.unit_typeid import UnitTypeId

        return {UnitTypeId[n] for n in names}

    def _army(self, bot: BotAI) -> Units:
        types = self._types(*self.book.army_types)
        army = bot.units.of_type(types)
        if self._scout_tag is not None:
            army = army.tags_not_in({self._scout_tag})
        return army

    def _note_units(self, bot: BotAI) -> None:
        """Remember the value of every enemy unit seen and of our own units, then count the dead
        ones of this step (the observation's dead units) as value destroyed / lost."""
        dead = bot.state.dead_units
        killed = lost = 0.0
        for tag in dead:
            v = self._known_value.pop(tag, None)
            if v is not None:
                killed += v
                self._known_structures.pop(tag, None)
            v = self._own_value.pop(tag, None)
            if v is not None and not self._became_structure(bot, tag):
                lost += v
        self._value_killed += killed
        self._value_lost += lost
        self._reward_killed += killed
        self._reward_lost += lost
        # a unit is valued again when its type changes: a larva becomes an egg and then a unit
        # under one tag (docs/engine.md, Zerg), a Zergling a Baneling
        types = self._unit_types
        for u in bot.enemy_units:
            if u.tag not in self._known_value or types.get(u.tag) != u.type_id:
                self._known_value[u.tag] = self._value(bot, u)
                types[u.tag] = u.type_id
        for s in bot.enemy_structures:
            if s.tag not in self._known_value:
                self._known_value[s.tag] = self._value(bot, s)
            self._known_structures[s.tag] = (float(s.position.x), float(s.position.y))
        own = {}
        for u in bot.all_own_units:
            v = self._own_value.get(u.tag)
            if v is None or types.get(u.tag) != u.type_id:
                v = self._value(bot, u)
                types[u.tag] = u.type_id
            own[u.tag] = v
        for tag in dead:
            types.pop(tag, None)
        if self.book.larvae:
            self._note_morphing(bot)
        # units of ours that vanished without a death event (a gas worker inside its refinery
        # is not in the observation) keep their value until they die or come back
        for tag, v in self._own_value.items():
            if tag not in own and tag not in dead:
                own[tag] = v
        self._own_value = own
        if not self._seen_enemy_start:
            ex, ey = self._enemy_start
            from sc2.position import Point2

            self._seen_enemy_start = bot.is_visible(Point2((ex, ey)))
        self._note_search(bot)
        army_seen = self._enemy_army(bot).amount
        self._enemy_army_max = max(self._enemy_army_max, army_seen)
        # snapshots of structures we saw destroyed or that are seen gone
        for tag, (x, y) in list(self._known_structures.items()):
            from sc2.position import Point2

            if bot.is_visible(Point2((x, y))) and bot.enemy_structures.find_by_tag(tag) is None:
                del self._known_structures[tag]

    def _note_morphing(self, bot: BotAI) -> None:
        """Where each Drone with a build order goes: a Drone that builds is consumed, reported
        among the dead units (docs/engine.md, Zerg), and is not a loss. (The decoder also notes
        the builder it sends, until the next observation: a Drone next to the spot builds before
        an observation shows its order.)"""
        from sc2.position import Point2

        if self._build_abilities is None:
            self._reserved(bot)
        assert self._build_abilities is not None
        morphing: dict[int, tuple[float, float]] = {}
        for w in bot.workers:
            if not w.orders or w.orders[0].ability.id not in self._build_abilities:
                continue
            target = w.orders[0].target
            if isinstance(target, int):  # an Extractor's geyser
                geyser = bot.vespene_geyser.find_by_tag(target)
                if geyser is None:
                    continue
                target = geyser.position
            if isinstance(target, Point2):
                morphing[w.tag] = (float(target.x), float(target.y))
        self._morphing = morphing

    def _note_builder(self, worker: Unit, spot: Point2) -> None:
        """A Drone sent to build (only Zerg's builders are consumed)."""
        if self.book.larvae:
            self._morphing[worker.tag] = (float(spot.x), float(spot.y))

    def _became_structure(self, bot: BotAI, tag: int) -> bool:
        """Whether our dead unit ``tag`` was a Drone that built: one of our structures stands
        where it was going."""
        from sc2.position import Point2

        goal = self._morphing.get(tag)
        return goal is not None and bool(bot.structures.closer_than(1.5, Point2(goal)))

    @staticmethod
    def _value(bot: BotAI, unit: Unit) -> float:
        try:
            cost = bot.calculate_unit_value(unit.type_id)
        except (KeyError, AttributeError, ValueError):
            return 0.0
        return float(cost.minerals + cost.vespene)

    def _enemy_army(self, bot: BotAI) -> Units:
        return bot.enemy_units.filter(lambda u: not u.is_structure and u.can_attack and u.type_id not in _worker_types())

    def _enemy_near_home(self, bot: BotAI) -> Units:
        if not bot.structures:
            return bot.enemy_units.subgroup([])
        return bot.enemy_units.filter(
            lambda e: not e.is_snapshot and bot.structures.closest_distance_to(e) < NEAR_BASE
        )

    def available(self, bot: BotAI) -> list[bool]:
        """Which actions can be carried out now (the rest are no-ops this step)."""
        return [self._can(bot, a) for a in ACTIONS]

    def _can(self, bot: BotAI, action: str) -> bool:
        from sc2.ids.unit_typeid import UnitTypeId as U

        b = self.book
        if action == "no_op":
            return True
        if action == "train_worker":
            return (bot.supply_left >= 1 and self._can_afford(bot, U[b.worker])
                    and bot.workers.amount + bot.already_pending(U[b.worker]) < self._worker_cap(bot)
                    and (bool(bot.larva) if b.larvae else any(len(t.orders) < 2 for t in bot.townhalls.ready)))
        if action == "build_supply":
            if b.larvae:  # an Overlord hatches from a larva
                return (bot.supply_cap < 200 and self._can_afford(bot, U[b.supply]) and bool(bot.larva)
                        and bot.already_pending(U[b.supply]) < 3)
            return (bot.supply_cap < 200 and self._can_afford(bot, U[b.supply]) and bool(bot.workers)
                    and bool(bot.townhalls) and bot.already_pending(U[b.supply]) < 3)
        if action == "build_gas":
            return (self._can_afford(bot, U[b.gas]) and bool(bot.workers)
                    and bot.already_pending(U[b.gas]) < 1 and self._free_geyser(bot) is not None)
        if action == "build_production":
            if b.larvae:
                step = self._zerg_next_production(bot)
                return step is not None and self._can_afford(bot, U[step])
            return (self._can_afford(bot, U[b.production]) and bot.tech_requirement_progress(U[b.production]) >= 1
                    and bool(bot.workers) and bool(bot.townhalls)
                    and bot.structures(U[b.production]).amount < MAX_PRODUCTION
                    and bot.already_pending(U[b.production]) - bot.structures(U[b.production]).not_ready.amount < 1)
        if action in ("train_army", "train_army_alt"):
            t = U[b.army if action == "train_army" else b.army_alt]
            if not (self._can_afford(bot, t) and bot.supply_left >= 1 and bot.tech_requirement_progress(t) >= 1):
                return False
            return bool(bot.larva) if b.larvae else any(len(p.orders) < 2 for p in bot.structures(U[b.production]).ready)
        if action == "expand":
            return (self._can_afford(bot, U[b.townhall]) and bool(bot.workers)
                    and bot.already_pending(U[b.townhall]) < 1 and len(bot.townhalls) < 6)
        if action in (ATTACK, DEFEND, RETREAT):
            return bool(self._army(bot))
        if action == "scout":
            return bool(bot.units)
        raise AssertionError(action)

    def _zerg_next_production(self, bot: BotAI) -> str | None:
        """What Zerg's ``build_production`` builds now, the first missing in ``production_steps``:
        a Spawning Pool (Zerglings and Queens need it), a Queen for every finished Hatchery (her
        injects are the cheapest larvae: 3 every 29 s against the Hatchery's own 1 every 11 s,
        docs/engine.md), a Roach Warren (Roaches), then more Hatcheries (each a larva source of
        its own, and a Queen's), at the next expansion. None while the step due cannot be started
        (its tech not finished, no Drone to build it, no free Hatchery, too little supply, or one
        of it already on its way: a second would be ordered before the first is paid for)."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        townhalls = bot.townhalls.ready
        for step in self.book.production_steps:
            t = U[step]
            if step == "QUEEN":
                queens = bot.units(t).amount + bot.already_pending(t)
                if queens >= townhalls.amount:
                    continue
                if (bot.tech_requirement_progress(t) < 1 or bot.supply_left < 2
                        or not any(not th.orders for th in townhalls)):
                    return None
                return step
            if step == "HATCHERY":
                if (bot.townhalls.amount >= MAX_PRODUCTION or bot.already_pending(t) >= 1
                        or not bot.workers or not bot.townhalls):
                    return None
                return step
            if bot.structures(t).amount or bot.already_pending(t):
                continue
            if bot.tech_requirement_progress(t) < 1 or not bot.workers or not bot.townhalls:
                return None
            return step
        return None

    def _can_afford(self, bot: BotAI, type_id: Any) -> bool:
        """``bot.can_afford`` less what builders on their way have yet to pay: a structure's cost
        is paid when its worker arrives, so spending that money now would leave the builder
        unable to build (the real game drops its order with an error)."""
        cost = bot.calculate_cost(type_id)
        minerals, vespene = self._reserved(bot)
        return bot.minerals - minerals >= cost.minerals and bot.vespene - vespene >= cost.vespene

    def _reserved(self, bot: BotAI) -> tuple[int, int]:
        """Minerals and vespene of the structures ordered whose builders have not placed them yet
        (computed once per game loop)."""
        loop = bot.state.game_loop
        if self._reserved_at is not None and self._reserved_at[0] == loop:
            return self._reserved_at[1]
        from sc2.position import Point2

        if self._build_abilities is None:
            from sc2.ids.unit_typeid import UnitTypeId as U

            b = self.book
            self._build_abilities = {}
            built = {b.supply, b.gas, b.production, b.townhall, *b.production_steps}
            for name in sorted(built):
                ability = bot.game_data.units[U[name].value].creation_ability
                if ability is not None:
                    self._build_abilities[ability.id] = U[name]
        minerals = vespene = 0
        for w in bot.workers:
            if not w.orders:
                continue
            order = w.orders[0]
            t = self._build_abilities.get(order.ability.id)
            if t is None:
                continue
            target = order.target
            if isinstance(target, int):  # a refinery's geyser
                geyser = bot.vespene_geyser.find_by_tag(target)
                if geyser is None or bot.gas_buildings.closer_than(1.0, geyser):
                    continue
            elif isinstance(target, Point2) and bot.structures.of_type(t).closer_than(1.0, target):
                continue  # placed: paid
            cost = bot.calculate_cost(t)
            minerals += cost.minerals
            vespene += cost.vespene
        self._reserved_at = (loop, (minerals, vespene))
        return minerals, vespene

    def _worker_cap(self, bot: BotAI) -> int:
        return min(MAX_WORKERS, WORKERS_PER_BASE * max(1, bot.townhalls.amount))

    def _free_geyser(self, bot: BotAI) -> Unit | None:
        taken = {g.position for g in bot.gas_buildings}
        for th in bot.townhalls.ready:
            for g in bot.vespene_geyser.closer_than(10, th):
                if g.position not in taken and g.has_vespene:
                    return g
        return None

    # -- observation --------------------------------------------------------------------------------
    def encode(self, bot: BotAI) -> dict[str, np.ndarray]:
        from sc2.ids.unit_typeid import UnitTypeId as U

        b = self.book
        army = self._army(bot)
        loop = bot.state.game_loop
        townhalls = bot.townhalls
        ideal = sum(t.ideal_harvesters for t in townhalls.ready)
        assigned = sum(t.assigned_harvesters for t in townhalls.ready)
        gas_workers = sum(g.assigned_harvesters for g in bot.gas_buildings.ready)
        prod_ready, prod_pending, prod_idle = self._production(bot)
        if army:
            c = army.center
            ax, ay = self._norm(c.x, c.y)
            to_home = math.hypot(c.x - self._home[0], c.y - self._home[1]) / MAP_SCALE
            to_enemy = math.hypot(c.x - self._enemy_start[0], c.y - self._enemy_start[1]) / MAP_SCALE
            idle = army.idle.amount / army.amount
        else:
            ax = ay = to_home = 0.0
            to_enemy = 1.0
            idle = 0.0
        hurt = 0.0
        for s in bot.structures:
            if s.health_max > 0:
                hurt = max(hurt, 1.0 - s.health / s.health_max)
        supply_types = self._types(*b.supply_types)
        v = [
            loop / max(self.time_limit_loops, 1),
            bot.minerals / 1000.0,
            bot.vespene / 500.0,
            bot.supply_used / 200.0,
            bot.supply_cap / 200.0,
            bot.supply_left / 20.0,
            bot.already_pending(U[b.supply]) / 3.0,
            bot.workers.amount / MAX_WORKERS,
            bot.already_pending(U[b.worker]) / 4.0,
            bot.idle_worker_count / 10.0,
            (assigned / ideal) / 1.5 if ideal else 0.0,
            gas_workers / 12.0,
            townhalls.amount / 4.0,
            bot.already_pending(U[b.townhall]) / 2.0,
            bot.all_own_units.of_type(supply_types).amount / 20.0,
            bot.gas_buildings.amount / 4.0,
            prod_ready / MAX_PRODUCTION,
            prod_pending / 3.0,
            prod_idle / MAX_PRODUCTION,
            army.amount / 60.0,
            bot.supply_army / 100.0,
            (bot.already_pending(U[b.army]) + bot.already_pending(U[b.army_alt])) / 10.0,
            bot.units(U[b.army_alt]).amount / 10.0,
            ax,
            ay,
            to_home,
            to_enemy,
            idle,
            float(self.mode == DEFEND),
            float(self.mode == ATTACK),
            float(self.mode == RETREAT),
            self._enemy_army(bot).amount / 40.0,
            bot.enemy_units.filter(lambda u: u.type_id in _worker_types()).amount / 40.0,
            len(self._known_structures) / 20.0,
            self._enemy_army_max / 40.0,
            self._enemy_near_home(bot).amount / 20.0,
            float(self._seen_enemy_start),
            hurt,
            self._value_killed / 5000.0,
            self._value_lost / 5000.0,
            *(float(x) for x in self.available(bot)),
        ]
        features = np.clip(np.asarray(v, np.float32), 0.0, 1.0)
        return {"features": features, "minimap": self._minimap(bot)}

    def _production(self, bot: BotAI) -> tuple[float, float, float]:
        """The ``production`` features: what makes the army (ready), what is on its way to
        (pending), and what of it waits unused (idle). Terran and Protoss: the production
        structures, those building, those with an empty queue. Zerg, whose army hatches from
        larvae: the larva sources (finished Hatcheries, Lairs, Hives and the Queens that inject
        them), the production steps under way (Spawning Pool, Roach Warren, Hatcheries, Queens
        in training), and the larvae waiting."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        b = self.book
        if b.larvae:
            ready = bot.townhalls.ready.amount + bot.units(U.QUEEN).amount
            pending = sum(bot.already_pending(U[t]) for t in set(b.production_steps))
            return float(ready), float(pending), float(bot.larva.amount)
        production = bot.structures(U[b.production])
        return float(production.ready.amount), float(production.not_ready.amount), float(production.ready.idle.amount)

    def _minimap(self, bot: BotAI) -> np.ndarray:
        assert self._static is not None and self._cells is not None
        s = self.minimap
        img = np.zeros((len(MINIMAP_CHANNELS), s, s), np.uint8)
        img[0:2] = self._static
        vis = bot.state.visibility.data_numpy[self._window]  # 0 hidden, 1 fogged (explored), 2 visible
        img[2] = np.round(127.5 * self._pool_mean(vis.astype(np.float32))).astype(np.uint8)
        for ch, units in ((3, bot.units), (4, bot.structures), (5, bot.enemy_units), (6, bot.enemy_structures)):
            u, v = self._pixels(units)
            if len(u):
                layer = np.zeros((s, s), np.int32)
                np.add.at(layer, (v, u), 1)
                img[ch] = np.minimum(layer * 64, 255).astype(np.uint8)
        creep = bot.state.creep.data_numpy[self._window]
        if creep.any():
            img[7] = np.round(255 * self._pool_mean(creep.astype(np.float32))).astype(np.uint8)
        return img

    # -- reward and end -----------------------------------------------------------------------------
    def reward(self, bot: BotAI) -> float:
        """The dense part (``shaping`` > 0): value destroyed less value lost this step, / 1000."""
        self._note_units(bot)
        r = self.shaping * (self._reward_killed - self._reward_lost) / VALUE_SCALE
        self._reward_killed = self._reward_lost = 0.0
        return r

    def outcome(self, bot: BotAI, result: Any) -> tuple[bool, bool]:
        """Victory and Defeat terminate; a Tie at the time limit truncates (unless ``tie_reward``
        scores it), any other Tie terminates."""
        if (self.tie_reward is None and result.name == "Tie"
                and bot.state.game_loop >= self.time_limit_loops - self.step_loops):
            return False, True
        return True, False

    def final_reward(self, bot: BotAI, result: Any) -> float:
        """The result's part of the last step's reward: +1, -1, and 0 or ``tie_reward`` for a Tie
        (with ``"trade"``: +1 when the game's value destroyed exceeds the value lost, else -1)."""
        if result.name == "Tie" and self.tie_reward is not None:
            if self.tie_reward == TRADE:
                return 1.0 if self._value_killed > self._value_lost else -1.0
            return float(self.tie_reward)
        return {"Victory": 1.0, "Defeat": -1.0}.get(result.name, 0.0)

    def info(self, bot: BotAI) -> dict[str, Any]:
        return {
            "score": float(bot.state.score.score),
            "game_loop": int(bot.state.game_loop),
            "value_killed": self._value_killed,
            "value_lost": self._value_lost,
            # the action carried out at the step that led here (the baseline's own choice when
            # ``scripted``): demonstrations for behaviour cloning (sc2pool.training.pretrain)
            "action": ACTIONS.index(self.last_action),
        }

    # -- actions ------------------------------------------------------------------------------------
    async def decode(self, bot: BotAI, action: Any) -> None:
        a = int(action)
        if not 0 <= a < len(ACTIONS):
            raise TaskError(f"Melee: action {action!r} outside 0..{len(ACTIONS) - 1}")
        name = ACTIONS[a]
        self.last_action = name
        self.action_counts[a] += 1
        self._step += 1
        if self._can(bot, name) and await getattr(self, "_do_" + name)(bot):
            self.actions_done[a] += 1
        self.housekeeping(bot)

    async def _do_no_op(self, bot: BotAI) -> bool:
        return True

    async def _do_train_worker(self, bot: BotAI) -> bool:
        from sc2.ids.unit_typeid import UnitTypeId as U

        if self.book.larvae:
            return self._hatch(bot, U[self.book.worker], 1) > 0
        for th in sorted(bot.townhalls.ready, key=lambda t: len(t.orders)):
            if len(th.orders) < 2:
                return bool(th.train(U[self.book.worker]))
        return False

    async def _do_build_supply(self, bot: BotAI) -> bool:
        from sc2.ids.unit_typeid import UnitTypeId as U

        if self.book.larvae:
            return self._hatch(bot, U[self.book.supply], 1) > 0
        return await self._build_near_home(bot, U[self.book.supply], behind=6.0)

    async def _do_build_production(self, bot: BotAI) -> bool:
        from sc2.ids.unit_typeid import UnitTypeId as U

        if self.book.larvae:
            step = self._zerg_next_production(bot)
            if step is None:
                return False
            if step == "QUEEN":
                free = [th for th in bot.townhalls.ready if not th.orders]
                return bool(free) and bool(free[0].train(U.QUEEN))
            if step == "HATCHERY":
                # at the next expansion: the same larvae as one at home, minerals later, and no
                # wall (Hatcheries at home shut the army in the main on AcidPlantLE, measured)
                return await self._do_expand(bot)
            return await self._build_near_home(bot, U[step], behind=-6.0, step=3)
        return await self._build_near_home(bot, U[self.book.production], behind=-6.0, step=3)

    async def _build_near_home(self, bot: BotAI, type_id: Any, behind: float, step: int = 2) -> bool:
        """Build ``type_id`` near the main townhall: ``behind`` cells away from the map's centre
        (supply at the back, production towards the front), on the first spot the game accepts."""
        th = bot.townhalls.closest_to(bot.start_location) if bot.townhalls else None
        if th is None:
            return False
        centre = bot.game_info.map_center
        direction = centre - th.position
        d = direction.length or 1.0
        if self.book.larvae:
            spot = await self._zerg_spot(bot, th, type_id, -direction / d * behind)
        else:
            near = th.position - direction / d * behind
            near = near.rounded if step == 2 else near.rounded.offset((0.5, 0.5))
            spot = await bot.find_placement(type_id, near=near, max_distance=20, random_alternative=False,
                                            placement_step=step)
        if spot is None:
            return False
        worker = self._builder(bot, spot)
        if worker is None:
            return False
        self._note_builder(worker, spot)
        return bool(worker.build(type_id, spot))

    async def _zerg_spot(self, bot: BotAI, th: Unit, type_id: Any, offset: Point2,
                         clearance: float = 3.0) -> Point2 | None:
        """A spot for a Zerg structure round the main Hatchery, ``offset`` from it first, then the
        same distance in the other directions (45 degrees apart), that leaves the way from the
        Hatchery to the main's ramp free: a Hatchery at home placed towards the map's centre
        walled the main off and kept the army in it (measured on AcidPlantLE; Hatcheries are no
        longer built at home for that reason, a Spawning Pool and a Roach Warren still are)."""
        from sc2.position import Point2

        ramp = bot.main_base_ramp
        a, b = th.position, ramp.top_center
        radius = 2.5 if type_id.name == "HATCHERY" else 1.5  # half the footprint: 5x5 or 3x3
        for k in (0, 1, -1, 2, -2, 3, -3, 4):
            ang = k * math.pi / 4
            c, s_ = math.cos(ang), math.sin(ang)
            rel = Point2((offset.x * c - offset.y * s_, offset.y * c + offset.x * s_))
            near = (a + rel).rounded.offset((0.5, 0.5))
            spot = await bot.find_placement(type_id, near=near, max_distance=6, random_alternative=False,
                                            placement_step=1)
            if spot is None:
                continue
            if (_segment_distance(spot, a, b) > radius + clearance
                    and spot.distance_to(ramp.bottom_center) > radius + clearance):
                return spot
        return None

    def _builder(self, bot: BotAI, near: Point2) -> Unit | None:
        ws = bot.workers.filter(lambda w: (w.is_gathering or w.is_idle) and not w.is_carrying_resource
                                and w.tag != self._scout_tag)
        if not ws:
            ws = bot.workers.filter(lambda w: w.is_gathering or w.is_idle)
        return ws.closest_to(near) if ws else None

    async def _do_build_gas(self, bot: BotAI) -> bool:
        geyser = self._free_geyser(bot)
        if geyser is None:
            return False
        worker = self._builder(bot, geyser.position)
        if worker is None:
            return False
        self._note_builder(worker, geyser.position)
        return bool(worker.build_gas(geyser))

    async def _do_train_army(self, bot: BotAI) -> bool:
        return self._train_at_production(bot, self.book.army)

    async def _do_train_army_alt(self, bot: BotAI) -> bool:
        return self._train_at_production(bot, self.book.army_alt)

    def _train_at_production(self, bot: BotAI, unit: str) -> bool:
        """One unit at every production structure with room in its queue (Zerg: from every
        larva), while affordable."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        t = U[unit]
        if self.book.larvae:
            return self._hatch(bot, t, len(bot.larva)) > 0
        done = False
        for p in sorted(bot.structures(U[self.book.production]).ready, key=lambda s: len(s.orders)):
            if len(p.orders) >= 2 or not self._can_afford(bot, t):
                break
            if p.train(t):
                done = True
        return done

    def _hatch(self, bot: BotAI, type_id: Any, amount: int) -> int:
        """Up to ``amount`` larvae become ``type_id`` while it is affordable and the supply lasts
        (burnysc2's ``Unit.train`` takes the cost off ``bot.minerals`` but not the supply, so the
        supply is counted here); the larvae of the Hatchery with the most go first, since a
        Hatchery at 3 larvae makes no more. Returns how many."""
        supply = bot.calculate_supply_cost(type_id)
        left = bot.supply_left
        if not bot.townhalls:
            larvae = list(bot.larva)
        else:
            counts: dict[int, int] = {}
            near = {}
            for la in bot.larva:
                th = bot.townhalls.closest_to(la)
                near[la.tag] = th.tag
                counts[th.tag] = counts.get(th.tag, 0) + 1
            larvae = sorted(bot.larva, key=lambda la: -counts[near[la.tag]])
        n = 0
        for la in larvae:
            if n >= amount or left < supply or not self._can_afford(bot, type_id):
                break
            if la.train(type_id):
                n += 1
                left -= supply
        return n

    async def _do_expand(self, bot: BotAI) -> bool:
        from sc2.ids.unit_typeid import UnitTypeId as U

        location = await bot.get_next_expansion()
        if location is None:
            return False
        spot = await bot.find_placement(U[self.book.townhall], near=location, max_distance=4,
                                        random_alternative=False, placement_step=1)
        if spot is None:
            return False
        worker = self._builder(bot, spot)
        if worker is None:
            return False
        self._note_builder(worker, spot)
        return bool(worker.build(U[self.book.townhall], spot))

    async def _do_attack(self, bot: BotAI) -> bool:
        self.mode = ATTACK
        self._target = None
        self._command_army(bot, fresh=True)
        return True

    async def _do_defend(self, bot: BotAI) -> bool:
        self.mode = DEFEND
        self._command_army(bot, fresh=True)
        return True

    async def _do_retreat(self, bot: BotAI) -> bool:
        self.mode = RETREAT
        self._command_army(bot, fresh=True)
        return True

    async def _do_scout(self, bot: BotAI) -> bool:
        from sc2.position import Point2

        goal = self._scout_target(bot)
        scout = bot.units.find_by_tag(self._scout_tag) if self._scout_tag is not None else None
        if scout is None:
            army = self._army(bot)
            candidates = army if army else bot.workers.filter(lambda w: not w.is_carrying_resource)
            if not candidates:
                return False
            scout = candidates.closest_to(Point2(goal))
            self._scout_tag = scout.tag
        self._scout_goal = goal
        scout.move(Point2(goal))
        return True

    def _scout_target(self, bot: BotAI) -> tuple[float, float]:
        """The enemy start until it was seen, then where the enemy may have built unseen."""
        if not self._seen_enemy_start:
            return self._enemy_start
        return self._search_target(bot, None)

    def _search_points(self, bot: BotAI) -> list[tuple[float, float]]:
        """Where enemy structures may stand unseen: round the enemy start (two rings of 8 points,
        10 and 18 cells out, those on pathable ground), every expansion location, and a grid of
        pathable points 16 cells apart over the rest of the map."""
        if self._search is None:
            from sc2.position import Point2

            ex, ey = self._enemy_start
            pts = [(ex, ey)]
            for r in (10.0, 18.0):
                for k in range(8):
                    p = (ex + r * math.cos(k * math.pi / 4), ey + r * math.sin(k * math.pi / 4))
                    if bot.in_map_bounds(Point2(p)) and bot.in_pathing_grid(Point2(p)):
                        pts.append(p)
            expansions: list[Point2] = list(bot.expansion_locations_list)
            pts += [(float(e.x), float(e.y)) for e in expansions]
            # and the rest of the map, every 16 cells (the enemy may build anywhere)
            area = bot.game_info.playable_area
            for gx in range(int(area.x) + 8, int(area.x + area.width), 16):
                for gy in range(int(area.y) + 8, int(area.y + area.height), 16):
                    p = (gx + 0.5, gy + 0.5)
                    if bot.in_pathing_grid(Point2(p)):
                        pts.append(p)
            self._search = pts
        return self._search

    def _search_target(self, bot: BotAI, army: Units | None) -> tuple[float, float]:
        """The search point out of sight longest, counting each cell from the enemy start as
        ``SEARCH_LOOPS_PER_CELL`` loops more recent (the enemy builds near its start first)."""
        pts = self._search_points(bot)
        ex, ey = self._enemy_start
        best = min(range(len(pts)), key=lambda i: self._last_seen.get(i, -1)
                   + SEARCH_LOOPS_PER_CELL * math.hypot(pts[i][0] - ex, pts[i][1] - ey))
        return pts[best]

    def _search_spread(self, army: Units) -> None:
        """With no enemy structure known, the army splits into groups of ``WAVE`` that search the
        stalest points at once: one body visiting the points one by one took longer than the
        game had left (a Computer down to a structure or two out of the way)."""
        from sc2.position import Point2

        pts = self._search
        if not pts:
            return
        ex, ey = self._enemy_start
        order = sorted(range(len(pts)), key=lambda i: self._last_seen.get(i, -1)
                       + SEARCH_LOOPS_PER_CELL * math.hypot(pts[i][0] - ex, pts[i][1] - ey))
        groups = max(1, min(len(order), army.amount // WAVE))
        for j, u in enumerate(sorted(army, key=lambda x: x.tag)):
            goal = pts[order[j % groups]]
            target = u.order_target
            if u.is_idle or not isinstance(target, Point2) or math.dist(goal, (target.x, target.y)) > 4.0:
                u.attack(Point2(goal))

    def _note_search(self, bot: BotAI) -> None:
        """When each search point was last in sight."""
        vis = bot.state.visibility
        loop = bot.state.game_loop
        for i, p in enumerate(self._search_points(bot)):
            if vis[int(p[0]), int(p[1])] == 2:
                self._last_seen[i] = loop

    # -- housekeeping -------------------------------------------------------------------------------
    def housekeeping(self, bot: BotAI) -> None:
        """What a player does without deciding it: workers mine and fill refineries, the army
        follows its standing order, a scout that got there comes home."""
        self._workers(bot)
        if self.book.larvae:
            self._queens(bot)
        self._command_army(bot, fresh=False)
        if self._scout_tag is not None:
            scout = bot.units.find_by_tag(self._scout_tag)
            if scout is None:
                self._scout_tag = None
            elif scout.is_idle:
                self._scout_tag = None  # arrived: back to the army or to mining

    def _workers(self, bot: BotAI) -> None:
        townhalls = bot.townhalls.ready
        if not townhalls or not bot.mineral_field:
            return
        # refineries get three workers each
        for g in bot.gas_buildings.ready:
            need = g.ideal_harvesters - g.assigned_harvesters
            if need <= 0:
                continue
            miners = bot.workers.filter(lambda w: w.is_gathering and not w.is_carrying_resource
                                        and w.tag != self._scout_tag and w.order_target not in gas_tags(bot))
            for w in miners.sorted_by_distance_to(g)[:need]:
                w.gather(g)
        idle = bot.workers.idle.tags_not_in({self._scout_tag} if self._scout_tag else set())
        if not idle:
            if self._step % 8 == 0:
                self._transfer(bot)
            return
        load = self._field_load(bot)
        for w in idle:
            th = min(townhalls, key=lambda t: (t.assigned_harvesters - t.ideal_harvesters, t.distance_to(w)))
            w.gather(self._field_for(bot, th, load))

    def _queens(self, bot: BotAI) -> None:
        """Queens stay home: each fights an enemy near her or injects larvae into the nearest
        finished Hatchery without an inject under way (25 energy, docs/engine.md), else walks
        back to it. Injecting is what a player does every 29 s without deciding it anew."""
        from sc2.ids.ability_id import AbilityId
        from sc2.ids.buff_id import BuffId
        from sc2.ids.unit_typeid import UnitTypeId as U

        townhalls = bot.townhalls.ready
        queens = bot.units(U.QUEEN)
        if not queens or not townhalls:
            return
        threats = self._enemy_near_home(bot)
        injecting: set[int] = set()
        for q in queens:
            for o in q.orders:
                if o.ability.id == AbilityId.EFFECT_INJECTLARVA and isinstance(o.target, int):
                    injecting.add(o.target)
        for q in queens:
            close = threats.closer_than(12.0, q) if threats else threats
            if close:
                if q.is_idle or not q.is_attacking:
                    q.attack(close.closest_to(q))
                continue
            if q.orders and not q.is_attacking:
                continue
            th = townhalls.closest_to(q)
            if (q.energy >= 25 and th.tag not in injecting
                    and not th.has_buff(BuffId.QUEENSPAWNLARVATIMER)):
                q(AbilityId.EFFECT_INJECTLARVA, th)
                injecting.add(th.tag)
            elif q.is_idle and q.distance_to(th) > 8.0:
                q.move(th.position)

    def _transfer(self, bot: BotAI) -> None:
        """Move the surplus workers of an over-saturated townhall to one that needs them."""
        townhalls = bot.townhalls.ready
        if len(townhalls) < 2:
            return
        over = max(townhalls, key=lambda t: t.assigned_harvesters - t.ideal_harvesters)
        under = min(townhalls, key=lambda t: t.assigned_harvesters - t.ideal_harvesters)
        surplus = min(over.assigned_harvesters - over.ideal_harvesters, under.ideal_harvesters - under.assigned_harvesters)
        if surplus <= 0:
            return
        if not bot.mineral_field.closer_than(10, under):
            return
        movers = bot.workers.filter(lambda w: w.is_gathering and not w.is_carrying_resource
                                    and w.tag != self._scout_tag).closer_than(10, over)
        load = self._field_load(bot)
        for w in movers[:surplus]:
            w.gather(self._field_for(bot, under, load))

    @staticmethod
    def _field_load(bot: BotAI) -> dict[int, int]:
        """How many workers are sent to each mineral field (by its tag)."""
        load: dict[int, int] = {}
        for w in bot.workers:
            if w.orders and isinstance(w.orders[0].target, int):
                t = w.orders[0].target
                load[t] = load.get(t, 0) + 1
        return load

    @staticmethod
    def _field_for(bot: BotAI, th: Unit, load: dict[int, int]) -> Unit:
        """The mineral field of townhall ``th`` with the fewest workers sent to it, the nearest
        on a tie (and counts the worker now sent): workers sent to one field wait there for
        each other (a field is mined by one worker at a time), two a field is full speed."""
        fields = bot.mineral_field.closer_than(10, th)
        if not fields:
            fields = bot.mineral_field
        f = min(fields, key=lambda m: (load.get(m.tag, 0), m.distance_to(th)))
        load[f.tag] = load.get(f.tag, 0) + 1
        return f

    def _rally(self, bot: BotAI) -> tuple[float, float]:
        """Where the army waits: in front of the townhall nearest the enemy, towards the map's centre."""
        if not bot.townhalls:
            return self._home
        th = bot.townhalls.closest_to(bot.game_info.map_center)
        c = bot.game_info.map_center
        dx, dy = c.x - th.position.x, c.y - th.position.y
        d = math.hypot(dx, dy) or 1.0
        return (th.position.x + dx / d * 8.0, th.position.y + dy / d * 8.0)

    def _attack_target(self, bot: BotAI, army: Units) -> tuple[float, float]:
        """The known enemy structure nearest the army, else the enemy start, else hidden expansions."""
        if self._known_structures:
            c = army.center
            return min(self._known_structures.values(), key=lambda p: (p[0] - c.x) ** 2 + (p[1] - c.y) ** 2)
        if bot.enemy_structures:
            s = bot.enemy_structures.closest_to(army.center)
            return (float(s.position.x), float(s.position.y))
        if not self._seen_enemy_start:
            return self._enemy_start
        return self._search_target(bot, army)

    def _command_army(self, bot: BotAI, fresh: bool) -> None:
        """The army's standing order: new and idle units join it; ``fresh`` re-issues it to all."""
        from sc2.position import Point2

        army = self._army(bot)
        if not army:
            return
        if self.mode == ATTACK:
            if fresh:
                self._committed = {u.tag for u in army}
            committed = army.tags_in(self._committed)
            waiting = army.tags_not_in(self._committed)
            rally = Point2(self._rally(bot))
            # Units made after the attack began gather at the rally point and go out as a wave:
            # a stream of single marines across the map dies one by one to the defenders.
            if waiting and (waiting.closer_than(8.0, rally).amount >= WAVE or not committed):
                self._committed |= {u.tag for u in waiting}
                committed, waiting = army, army.subgroup([])
                fresh = True
            for u in waiting:
                if u.is_idle and u.distance_to(rally) > 6.0:
                    u.attack(rally)
            self._committed &= {u.tag for u in committed}
            if not committed:
                return
            if not self._known_structures and not bot.enemy_structures and self._seen_enemy_start:
                self._search_spread(committed)
                return
            target = self._attack_target(bot, committed)
            changed = self._target is None or math.dist(target, self._target) > 4.0
            self._target = target
            group, stragglers = self._front(committed, target)
            units = group if (fresh or changed) else group.idle
            p = Point2(target)
            for u in units:
                u.attack(p)
            if stragglers:  # a wave that met the front joins it before going on
                front = group.center
                for u in stragglers:
                    u.attack(front)
            self._unstick(bot, group, skip={u.tag for u in units})
            return
        threats = self._enemy_near_home(bot)
        if self.mode == DEFEND and threats:
            p = threats.closest_to(army.center).position
            for u in army if fresh else army.filter(lambda x: x.is_idle or x.distance_to(p) > 12):
                u.attack(p)
            return
        rally = Point2(self._rally(bot))
        if self.mode == RETREAT:
            if army.center.distance_to(rally) < 6.0:
                self.mode = DEFEND
            units = army if fresh else army.idle.filter(lambda x: x.distance_to(rally) > 6.0)
            for u in units:
                u.move(rally)
            return
        units = army.filter(lambda x: x.distance_to(rally) > 6.0) if fresh else \
            army.idle.filter(lambda x: x.distance_to(rally) > 6.0)
        for u in units:
            u.attack(rally)

    @staticmethod
    def _front(army: Units, target: tuple[float, float]) -> tuple[Units, Units]:
        """The army's main body (the units within ``REGROUP`` of the unit with the most such
        neighbours) and the rest; on a tie the body nearer the target leads."""
        pos = np.array([(u.position.x, u.position.y) for u in army], dtype=np.float64)
        d2 = ((pos[:, None, :] - pos[None, :, :]) ** 2).sum(-1)
        near = d2 <= REGROUP * REGROUP
        counts = near.sum(1)
        to_target = ((pos - np.asarray(target)) ** 2).sum(1)
        lead = int(np.lexsort((to_target, -counts))[0])
        members = near[lead]
        units = list(army)
        group = army.subgroup([u for u, m in zip(units, members, strict=True) if m])
        rest = army.subgroup([u for u, m in zip(units, members, strict=True) if not m])
        return group, rest

    def _unstick(self, bot: BotAI, army: Units, skip: set[int]) -> None:
        """Attack-moving units that stood still since the last step with an enemy structure in
        sight attack it directly (an attack-move can end next to a structure it does not pick);
        a unit shooting a structure turns on any enemy unit that comes within reach (workers
        repairing it, defenders on their way), as the real game's target priority would."""
        last = self._positions
        now: dict[int, tuple[float, float]] = {}
        visible = bot.enemy_structures.filter(lambda s: not s.is_snapshot)
        enemies = bot.enemy_units.filter(lambda e: not e.is_snapshot and not e.is_flying)
        structure_tags = {s.tag for s in visible}
        for u in army:
            pos = (float(u.position.x), float(u.position.y))
            now[u.tag] = pos
            if u.tag in skip:
                continue
            order = u.orders[0] if u.orders else None
            on_structure = order is not None and isinstance(order.target, int) and order.target in structure_tags
            close = enemies.closer_than(u.ground_range + 2.0, u) if enemies else enemies
            if close and (on_structure or order is None):
                u.attack(close.closest_to(u))
                continue
            prev = last.get(u.tag)
            if prev is None or math.dist(prev, pos) > 0.25 or not visible:
                continue
            if order is not None and isinstance(order.target, int):
                continue  # already attacking a unit
            near = visible.closer_than(12.0, u)
            if near:
                u.attack(near.closest_to(u))
        self._positions = now

    # -- the baseline -------------------------------------------------------------------------------
    async def scripted_decode(self, bot: BotAI) -> None:
        """A plain build order that attacks: a depot ahead of supply, workers for every base
        (16 at one, 38 at two), three barracks a base, marines from every barracks, a second base
        at 4:00 (one base's minerals run low in the game's second half, and a one-base player then
        trades evenly with a Computer that has expanded, to the time limit); the army attacks at
        20 marines, falls back below 6 and attacks again at 20."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        b = self.book
        if b.larvae:
            await self.decode(bot, ACTIONS.index(self._zerg_script(bot)))
            return
        choice = "no_op"
        n_prod = bot.structures(U[b.production]).amount
        n_bases = len(bot.townhalls)
        army = self._army(bot)
        minutes = bot.time / 60.0
        threatened = self.mode != ATTACK and bool(self._enemy_near_home(bot))
        if self.mode == ATTACK and army.tags_in(self._committed).amount < 6 and army.amount < 20 \
                and not self._enemy_near_home(bot):
            choice = RETREAT
        elif self.mode != ATTACK and army.amount >= 20:
            choice = ATTACK
        elif self.mode == RETREAT and threatened and army:
            choice = DEFEND
        elif threatened and self._can(bot, "train_army"):
            # DEFEND mode already sends the army at the threat each step (housekeeping); what the
            # defence needs now is more of it, before workers, barracks or an expansion
            choice = "train_army"
        elif bot.supply_left < 2 + 2 * n_prod and bot.already_pending(U[b.supply]) < 1 + n_prod // 3 \
                and bot.supply_cap < 200:
            # save for the depot rather than spend the money on what needs the supply
            choice = "build_supply" if self._can(bot, "build_supply") else "no_op"
        elif n_bases < 2 and minutes >= 4.0 and bot.already_pending(U[b.townhall]) < 1:
            # save for the expansion rather than spend the money elsewhere
            choice = "expand" if self._can(bot, "expand") else "no_op"
        elif bot.workers.amount < min(19 * n_bases, 38) and self._can(bot, "train_worker"):
            choice = "train_worker"
        elif n_prod < min(3 * n_bases + 1, 7) and self._can(bot, "build_production"):
            choice = "build_production"
        elif self._can(bot, "train_army"):
            choice = "train_army"
        await self.decode(bot, ACTIONS.index(choice))

    def _zerg_script(self, bot: BotAI) -> str:
        """The Zerg baseline's choice: an Overlord ahead of supply, Drones to 16 then a Spawning
        Pool, a second Hatchery at 2:30, an Extractor, a Queen a Hatchery (her injects are
        housekeeping), a Roach Warren, an army of 3 supply a minute from 2:00 (larvae are shared:
        Drones first left nothing against the Computer's first attacks), Drones for both bases
        (16 a base and 3 an Extractor, at most 44), then Roaches while the gas lasts and
        Zerglings with the rest, and another Hatchery whenever 600 minerals pile up (larvae are
        short then). The army attacks at 24 supply, falls back below 8 and attacks again at 24,
        and comes home to defend when 3 enemies are at our bases (supply rather than a count: a
        Zergling is half a Roach's supply)."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        b = self.book
        army = self._army(bot)
        supply = self._army_supply(bot, army)
        committed = self._army_supply(bot, army.tags_in(self._committed))
        n_bases = len(bot.townhalls)
        minutes = bot.time / 60.0
        drones = bot.workers.amount + bot.already_pending(U.DRONE)
        has_pool = bool(bot.structures(U.SPAWNINGPOOL)) or bot.already_pending(U.SPAWNINGPOOL) > 0
        threats = self._enemy_near_home(bot)
        threatened = self.mode != ATTACK and bool(threats)
        if self.mode == ATTACK and threats.amount >= 3:
            # an attack on our bases: the army comes back (Drones die faster than a base falls)
            return DEFEND
        if self.mode == ATTACK and committed < 8 and supply < 24 and not threats:
            return RETREAT
        if self.mode != ATTACK and supply >= 24 and not threats:
            return ATTACK
        if self.mode == RETREAT and threatened and army:
            return DEFEND
        if threatened:
            for a in ("train_army_alt", "train_army"):
                if self._can(bot, a):
                    return a
        larva_sources = bot.townhalls.ready.amount + bot.units(U.QUEEN).amount
        if bot.supply_left < 2 + 3 * larva_sources and bot.supply_cap < 200 \
                and bot.already_pending(U[b.supply]) < 1 + larva_sources // 2:
            # save for the Overlord rather than spend the money on what needs the supply
            return "build_supply" if self._can(bot, "build_supply") else "no_op"
        if not has_pool and drones >= 16:
            return "build_production" if self._can(bot, "build_production") else "no_op"
        if n_bases < 2 and minutes >= 2.5 and bot.already_pending(U[b.townhall]) < 1:
            return "expand" if self._can(bot, "expand") else "no_op"
        gas = bot.gas_buildings.amount
        if has_pool and gas < 1 and self._can(bot, "build_gas"):
            return "build_gas"
        step = self._zerg_next_production(bot)
        if (step in ("QUEEN", "ROACHWARREN") or step == "HATCHERY" and bot.minerals >= 600) \
                and self._can(bot, "build_production"):
            # money piling up: the larvae are what is short, and a Hatchery at home makes more
            return "build_production"
        if supply < 3.0 * (minutes - 2.0):
            # larvae are shared: an army that keeps up with the clock before more Drones (the
            # Computer's first attacks come from 5:00 on)
            for a in ("train_army_alt", "train_army"):
                if self._can(bot, a):
                    return a
        if drones < min(16 * n_bases + 3 * gas, 44) and self._can(bot, "train_worker"):
            return "train_worker"
        if self._can(bot, "train_army_alt"):
            return "train_army_alt"
        if self._can(bot, "train_army"):
            return "train_army"
        return "no_op"

    @staticmethod
    def _army_supply(bot: BotAI, army: Units) -> float:
        """The supply an army takes (a Zergling counts half)."""
        from sc2.ids.unit_typeid import UnitTypeId as U

        return sum(0.5 if u.type_id == U.ZERGLING else bot.calculate_supply_cost(u.type_id) for u in army)


_WORKERS: set[Any] = set()


def _worker_types() -> set[Any]:
    """Worker unit types of every race (built on first use: burnysc2 is imported lazily)."""
    if not _WORKERS:
        from sc2.ids.unit_typeid import UnitTypeId as U

        _WORKERS.update({U.SCV, U.PROBE, U.DRONE, U.MULE, U.DRONEBURROWED})
    return _WORKERS


def _segment_distance(p: Point2, a: Point2, b: Point2) -> float:
    """Distance from point ``p`` to the segment ``a``-``b``."""
    dx, dy = b.x - a.x, b.y - a.y
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / n))
    return math.hypot(p.x - a.x - t * dx, p.y - a.y - t * dy)


def gas_tags(bot: BotAI) -> set[int]:
    return {g.tag for g in bot.gas_buildings}


__all__ = ["ACTIONS", "FEATURES", "LADDER_2018_S3", "MINIMAP_CHANNELS", "Melee", "RaceBook"]
