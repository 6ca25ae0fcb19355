"""The Task interface: what turns a StarCraft II game into a reinforcement-learning environment.

A *task* answers five questions, and nothing else:

1. **Game setup** - which map, which opponents (``Computer`` players), our race, ``game_step``
   (game loops per env step, like pysc2's ``step_mul``), fog, an optional time limit.
2. **Observation** - ``observation_space`` and ``encode(bot)``, which reads the burnysc2 bot's
   state (``bot.units``, ``bot.enemy_units``, ``bot.minerals``, ``bot.state.score`` ...).
3. **Action** - ``action_space`` and ``decode(bot, action)``, which issues unit commands
   (``unit.move(p)``, ``unit.attack(u)`` ...). Commands are sent by burnysc2 after ``decode``.
   ``decode`` may be a coroutine (``async def``) to use burnysc2's query API (``find_placement``,
   ``get_next_expansion`` ...); the bridge awaits it.
4. **Reward** - ``reward(bot)``; by default the change of the game's score since the previous
   step (minigames put the cumulative reward in ``score.score``).
5. **Episode end** - the game decides when an episode ends (its own timer, all units dead,
   victory/defeat). ``outcome(bot, result)`` maps burnysc2's ``Result`` to gymnasium's
   ``(terminated, truncated)``: by default a ``Tie`` (the game's time limit, or the task's
   ``time_limit_s``) is a truncation and anything else is a termination; ``final_reward(bot,
   result)`` is added to the last step's reward (by default nothing: +1 for a victory is a task's
   choice).

One Task instance serves exactly one env for its lifetime, so a task may keep per-episode state;
``episode_start(bot)`` is called before the first observation of every episode.

A task lives in one file and is referred to by name (``register_task``) or by an import path
``"package.module:ClassName"``; tasks never touch sc2pool or burnysc2 internals, only the public
``BotAI`` API. Task constructor keyword arguments come from the host's ``task_kwargs`` (msgpack-able).
"""

from __future__ import annotations

import abc
import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import gymnasium as gym
import numpy as np

if TYPE_CHECKING:  # pragma: no cover - typing only
    from sc2.bot_ai import BotAI
    from sc2.data import Result
    from sc2.position import Point2

#: Game loops per second at "faster" game speed (what the game reports in ``game_loop``).
LOOPS_PER_SECOND = 22.4


@dataclass(frozen=True)
class Opponent:
    """A built-in ``Computer`` opponent. Names follow burnysc2's enums (case-insensitive):
    race ``terran|zerg|protoss|random``, difficulty ``veryeasy|easy|medium|...``, build ``randombuild|rush|...``."""

    race: str = "zerg"
    difficulty: str = "easy"
    build: str | None = None

    @property
    def label(self) -> str:
        """``race/difficulty/build`` in lower case: how results name the opponent they were
        played against (``info["opponent"]``, ``game_results.csv``)."""
        return "/".join(str(x).lower() for x in (self.race, self.difficulty, self.build or "randombuild"))


@dataclass(frozen=True)
class GameSetup:
    """Everything needed to create a game for one episode.

    ``map_name`` is the map's path relative to ``$SC2PATH/Maps`` (``"mini_games/MoveToBeacon.SC2Map"``)
    or a bare map name found there. ``time_limit_s`` (game seconds) lets a task end episodes earlier
    than the map's own timer; such an end is a truncation.

    ``paired``: the second player is not a ``Computer`` but another env of the pool (self-play):
    the host plays env slots ``2k`` and ``2k+1`` of a worker as the two players of one game, and
    ``opponents`` must then be empty (see ``workers.sc2.host``).
    """

    map_name: str
    race: str = "terran"
    opponents: tuple[Opponent, ...] = ()
    game_step: int = 8
    disable_fog: bool | None = None
    time_limit_s: float | None = None
    paired: bool = False


class TaskError(ValueError):
    """A task was named wrongly, built with bad arguments, or returned something invalid."""


class Task(abc.ABC):
    """Base class of every task. Subclasses set ``setup`` (or override ``game_setup``) and implement
    the spaces, ``encode`` and ``decode``. See the module docstring for the contract."""

    #: Registry name (optional); ``register_task`` sets it.
    name: ClassVar[str] = ""
    #: Default game setup; override ``game_setup()`` to make it depend on constructor arguments.
    setup: ClassVar[GameSetup | None] = None
    #: A game that is won or lost (a melee game, a skirmish): training keeps each episode's
    #: ``info["game_result"]`` in ``game_results.csv`` and draws ``win_rate.png``, and
    #: ``sc2pool eval`` prints the win rate. A mini-game ends at its time limit, a Tie that says
    #: nothing of winning, so by default neither is done (``info`` has the result all the same).
    competitive: ClassVar[bool] = False

    def __init__(self, scripted: bool = False, **kwargs: Any) -> None:
        if kwargs:
            raise TaskError(f"{type(self).__name__} got unexpected arguments: {sorted(kwargs)}")
        #: With ``scripted=True`` the env ignores the agent's actions and plays the task's
        #: ``scripted_decode`` baseline instead (to measure a reference score through the pool).
        self.scripted = bool(scripted)
        if self.scripted and type(self).scripted_decode is Task.scripted_decode:
            raise TaskError(f"{type(self).__name__} has no scripted baseline policy")
        self._prev_score = 0.0
        #: The ``options`` of the reset that started the current episode (SB3's ``set_options``).
        self.reset_options: dict[str, Any] = {}

    # -- game setup -------------------------------------------------------------------------------
    def game_setup(self) -> GameSetup:
        if self.setup is None:
            raise TaskError(f"{type(self).__name__} defines neither `setup` nor `game_setup()`")
        return self.setup

    def episode_setup(self, seed: int) -> GameSetup:
        """The setup of the game about to be created with game seed ``seed`` (every new game; a
        restarted one keeps its setup). Default: ``game_setup()``; a task that draws its map per
        episode overrides this, drawing from ``seed`` so that seeded runs repeat."""
        return self.game_setup()

    # -- spaces -----------------------------------------------------------------------------------
    @property
    @abc.abstractmethod
    def observation_space(self) -> gym.Space[Any]:
        """The space of ``encode``'s results. Must be a gymnasium space the pool can describe
        (Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple)."""

    @property
    @abc.abstractmethod
    def action_space(self) -> gym.Space[Any]:
        """The space of actions given to ``decode``."""

    # -- episode ----------------------------------------------------------------------------------
    def episode_start(self, bot: BotAI) -> None:
        """Called once per episode, with the first state, before the first ``encode``. Resets
        per-episode state; the default remembers the starting score for ``reward``."""
        self._prev_score = float(bot.state.score.score)

    @abc.abstractmethod
    def encode(self, bot: BotAI) -> Any:
        """The observation for the bot's current state (an element of ``observation_space``)."""

    @abc.abstractmethod
    def decode(self, bot: BotAI, action: Any) -> Any:
        """Turn ``action`` into unit commands on ``bot`` (e.g. ``unit.move(point)``)."""

    def scripted_decode(self, bot: BotAI) -> Any:
        """Optional hand-written baseline policy (used instead of ``decode`` when ``scripted``);
        may be a coroutine, like ``decode``."""
        raise NotImplementedError

    def reward(self, bot: BotAI) -> float:
        """Reward for the step that led to the current state: the score delta by default."""
        score = float(bot.state.score.score)
        delta = score - self._prev_score
        self._prev_score = score
        return delta

    #: True when ``outcome`` scores the time limit's Tie as a terminated result: the bridge then
    #: keeps the task's answer instead of making the limit a truncation.
    scores_time_limit: bool = False

    def outcome(self, bot: BotAI, result: Result) -> tuple[bool, bool]:
        """``(terminated, truncated)`` for a finished game. ``Tie`` = time limit = truncation."""
        from sc2.data import Result as R

        if result == R.Tie:
            return False, True
        return True, False

    def final_reward(self, bot: BotAI, result: Result) -> float:
        """Added to the reward of the step that ends the game (``result`` is burnysc2's). Default 0."""
        return 0.0

    def info(self, bot: BotAI) -> dict[str, Any]:
        """Extra per-step info (msgpack-able values only). Default: the game score and loop."""
        return {"score": float(bot.state.score.score), "game_loop": int(bot.state.game_loop)}


# -- helpers for encoders ---------------------------------------------------------------------------
class MapFrame:
    """Normalises world coordinates to ``[-1, 1]`` over the playable area (so observations do not
    depend on the map's absolute size or offset)."""

    def __init__(self, bot: BotAI) -> None:
        area = bot.game_info.playable_area
        self.x0, self.y0 = float(area.x), float(area.y)
        self.w, self.h = max(float(area.width), 1.0), max(float(area.height), 1.0)
        self.diag = math.hypot(self.w, self.h)

    def norm(self, x: float, y: float) -> tuple[float, float]:
        return (2.0 * (x - self.x0) / self.w - 1.0, 2.0 * (y - self.y0) / self.h - 1.0)

    def clamp(self, x: float, y: float, margin: float = 0.5) -> tuple[float, float]:
        """A point inside the playable area (move targets outside it are not reachable)."""
        return (
            min(max(x, self.x0 + margin), self.x0 + self.w - margin),
            min(max(y, self.y0 + margin), self.y0 + self.h - margin),
        )

    def point(self, x: float, y: float, margin: float = 0.5) -> Point2:
        from sc2.position import Point2

        return Point2(self.clamp(x, y, margin))


#: Unit vectors of the 8 compass directions, E, NE, N, NW, W, SW, S, SE.
DIRECTIONS8 = np.array(
    [(math.cos(k * math.pi / 4), math.sin(k * math.pi / 4)) for k in range(8)], dtype=np.float64
)


# -- registry ---------------------------------------------------------------------------------------
_REGISTRY: dict[str, type[Task]] = {}
T = TypeVar("T", bound=type[Task])


def register_task(name: str) -> Callable[[T], T]:
    """Class decorator: make a task available by ``name`` (e.g. ``--task MyTask``)."""

    def deco(cls: T) -> T:
        if not (isinstance(cls, type) and issubclass(cls, Task)):
            raise TaskError(f"register_task({name!r}) needs a Task subclass, got {cls!r}")
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return deco


def task_names() -> list[str]:
    """Names of the registered tasks (the built-ins included)."""
    _load_builtins()
    return sorted(_REGISTRY)


def resolve_task(spec: str) -> type[Task]:
    """A task class from a registered name or a ``"module:Class"`` import path."""
    _load_builtins()
    if spec in _REGISTRY:
        return _REGISTRY[spec]
    if ":" not in spec:
        raise TaskError(
            f"unknown task {spec!r}; known tasks: {', '.join(sorted(_REGISTRY))} "
            "(or give an import path 'package.module:ClassName')"
        )
    module_name, _, attr = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise TaskError(f"cannot import task {spec!r}: {exc}") from exc
    if not (isinstance(obj, type) and issubclass(obj, Task)):
        raise TaskError(f"{spec!r} is {obj!r}, not a Task subclass")
    return obj


def make_task(spec: str | type[Task], kwargs: dict[str, Any] | None = None) -> Task:
    """Instantiate a task; bad keyword arguments raise ``TaskError`` naming the task."""
    cls = resolve_task(spec) if isinstance(spec, str) else spec
    try:
        return cls(**(kwargs or {}))
    except TypeError as exc:
        raise TaskError(f"cannot build task {cls.__name__} with {kwargs!r}: {exc}") from exc


def check_observation(task: Task, obs: Any, space: gym.Space[Any] | None = None) -> Any:
    """Validate an encoder result against the declared space (cheap for Box, clear errors).
    Pass ``space`` when calling per step: building a gymnasium space is not free."""
    space = task.observation_space if space is None else space
    if isinstance(space, gym.spaces.Box):
        arr = np.asarray(obs, dtype=space.dtype)
        if arr.shape != space.shape:
            raise TaskError(
                f"{type(task).__name__}.encode returned shape {arr.shape}, "
                f"observation_space has {space.shape}"
            )
        return arr
    if not space.contains(obs):
        raise TaskError(f"{type(task).__name__}.encode returned a value outside observation_space")
    return obs


def _load_builtins() -> None:
    if "MoveToBeacon" not in _REGISTRY:
        importlib.import_module("workers.sc2.tasks.builtin")
    if "CollectMineralsAndGas" not in _REGISTRY:
        importlib.import_module("workers.sc2.tasks.economy")
    if "Melee" not in _REGISTRY:
        importlib.import_module("workers.sc2.tasks.melee")


__all__: Sequence[str] = (
    "DIRECTIONS8",
    "GameSetup",
    "LOOPS_PER_SECOND",
    "MapFrame",
    "Opponent",
    "Task",
    "TaskError",
    "make_task",
    "register_task",
    "resolve_task",
    "task_names",
)
