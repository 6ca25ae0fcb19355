"""The async bridge between burnysc2 and the pool: the ONLY module that touches burnysc2 internals.

A :class:`GameEnv` is one RL environment backed by one game connection (a game process, or the
in-process engine) for its whole lifetime. Episodes are games created on that connection:

* ``reset`` ends the running episode (the bot leaves the game), creates a new game on the same
  connection (``create_game``, or ``restart_game`` when asked and possible), and runs burnysc2's
  own game loop (``sc2.main._play_game``) as an asyncio task with a :class:`BridgeBot`;
* the bot's ``on_step`` publishes the observation (an asyncio future the host awaits) and then
  *awaits* the next action (another future), so the event loop keeps serving the other games of
  the worker, the broker socket and heartbeats while the policy thinks. No threads, no blocking;
* ``on_end`` publishes the terminal transition, encoded from the final observation.

burnysc2 internals used here (all stable across burnysc2 7.x): ``sc2.main._play_game`` /
``_play_game_ai`` (the per-game loop), ``Protocol._execute`` (leave/restart requests),
``Controller._ws``/``_status``, ``BotAI._prepare_step`` (to parse the terminal observation),
``SC2Process._process``/``_clean`` and ``KillSwitch._to_kill`` (process ownership, see launch.py),
``sc2.paths.Paths`` (re-pointing at an install chosen at run time).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sc2.main as sc2_main
from loguru import logger
from s2clientprotocol import raw_pb2 as raw_pb
from s2clientprotocol import sc2api_pb2 as sc_pb
from sc2.bot_ai import BotAI
from sc2.client import Client
from sc2.controller import Controller
from sc2.data import AIBuild, Difficulty, Race, Result, Status
from sc2.game_data import GameData
from sc2.game_state import GameState
from sc2.maps import Map
from sc2.player import Bot, Computer

from workers.sc2.tasks.base import LOOPS_PER_SECOND, GameSetup, Task, check_observation

if TYPE_CHECKING:  # pragma: no cover
    from workers.sc2.launch import GameConnection


def quiet_burnysc2_logging(level: str | None = None) -> None:
    """burnysc2 configures loguru to print INFO to stdout at import; a worker runs thousands of
    games, so keep only warnings (``SC2POOL_SC2_LOG=INFO`` to see everything)."""
    logger.remove()
    logger.add(sys.stderr, level=level or os.environ.get("SC2POOL_SC2_LOG", "WARNING"))


class SC2GameError(RuntimeError):
    """Base class of the bridge's errors (the worker reports them as the env's failure)."""


class GameCrashedError(SC2GameError):
    """The game process or its connection died, or burnysc2's game loop failed, mid-episode."""


class GameLaunchError(SC2GameError):
    """A game process could not be started or did not accept a connection in time.

    ``process_exited`` is true when the launched process itself exited before accepting a
    connection (killed, or crashed on the way up): the one launch failure worth trying again."""

    process_exited: bool = False


class GameTimeoutError(SC2GameError, TimeoutError):
    """The game did not answer within ``step_timeout`` seconds."""


class TaskFailure(SC2GameError):
    """The task's own code (encode, decode, reward, outcome ...) raised; the game is fine and the
    env can be reset. The original exception is ``__cause__``."""


def _task_call(game: GameEnv, what: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as exc:
        raise TaskFailure(
            f"env {game.index}: task {type(game.task).__name__}.{what} raised {type(exc).__name__}: {exc}"
        ) from exc


async def _task_await(game: GameEnv, what: str, fn: Any, *args: Any) -> None:
    """``_task_call`` for ``decode``/``scripted_decode``, which may be coroutines (burnysc2's query
    API is async)."""
    result = _task_call(game, what, fn, *args)
    if inspect.isawaitable(result):
        try:
            await result
        except Exception as exc:
            raise TaskFailure(
                f"env {game.index}: task {type(game.task).__name__}.{what} raised {type(exc).__name__}: {exc}"
            ) from exc


@dataclass
class Transition:
    obs: Any
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


@dataclass
class GameTimings:
    """Where one env's time goes, in seconds (summed). ``bridge`` is the task's encode/decode and
    the bridge's own work in ``on_step``; ``game_loop`` is wall time from an action being handed to
    burnysc2 until the next observation is published (burnysc2 plus the game/engine)."""

    steps: int = 0
    resets: int = 0
    bridge: float = 0.0
    game_loop: float = 0.0
    reset: float = 0.0
    reset_max: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in self.__dict__.items()}


_ABORT = object()


class _RecordingClient(Client):
    """A burnysc2 Client that remembers the last observation response, so the terminal
    observation (which burnysc2 reads but never hands to the bot) can be encoded, and that asks
    its game for the game data once per connection."""

    last_observation: sc_pb.Response | None = None

    def __init__(self, ws: Any, game_data: list[Any] | None = None) -> None:
        super().__init__(ws)
        self._game_data_cache = game_data if game_data is not None else []

    async def observation(self, game_loop: int | None = None) -> Any:
        result = await super().observation(game_loop)
        self.last_observation = result
        return result

    async def get_game_data(self) -> GameData:
        """burnysc2 asks for the game data at every episode start and parses the whole
        ``ResponseData`` (every unit type, ability and upgrade of the game: ~400 KB, ~10 ms) into a
        GameData, which it only reads.  The data is the game process's (its version), the same for
        every episode on the connection: ask once, share the parsed GameData.  ``_game_data_cache``
        holds ``(websocket, GameData)`` and is dropped with the connection."""
        cache = self._game_data_cache
        if cache and cache[0] is self._ws:
            return cache[1]  # type: ignore[no-any-return]
        data = await super().get_game_data()
        cache[:] = [self._ws, data]
        return data


class BridgeBot(BotAI):
    """The BotAI whose ``on_step`` publishes observations and awaits actions (never blocks)."""

    def __init__(self, game: GameEnv) -> None:
        super().__init__()
        self._game = game

    async def on_step(self, iteration: int) -> None:
        game = self._game
        t0 = time.perf_counter()
        task = game.task
        if iteration == 0:
            _task_call(game, "episode_start", task.episode_start, self)
            reward, info = 0.0, {}
        else:
            reward = float(_task_call(game, "reward", task.reward, self))
            info = _task_call(game, "info", task.info, self)
        obs = self._encode(game)
        game.publish(Transition(obs, reward, False, False, info), t0)
        action = await game.next_action()
        t1 = time.perf_counter()
        if action is _ABORT:
            await self.client.leave()
            return
        if task.scripted:
            await _task_await(game, "scripted_decode", task.scripted_decode, self)
        else:
            await _task_await(game, "decode", task.decode, self, action)
        game.timings.bridge += time.perf_counter() - t1

    def _encode(self, game: GameEnv) -> Any:
        obs = _task_call(game, "encode", game.task.encode, self)
        return _task_call(game, "encode", check_observation, game.task, obs, game.obs_space)

    async def on_end(self, game_result: Result) -> None:
        game = self._game
        if game.aborting or not game.started:
            return
        t0 = time.perf_counter()
        client = self.client
        last = client.last_observation if isinstance(client, _RecordingClient) else None
        if last is not None and last.observation.observation.game_loop != self.state.game_loop:
            # Re-parse the final observation (pathing grid unchanged since the last step).
            grid = self.game_info.pathing_grid._proto
            info_proto = sc_pb.Response(game_info=sc_pb.ResponseGameInfo(start_raw=raw_pb.StartRaw(pathing_grid=grid)))
            self._prepare_step(GameState(last.observation), info_proto)
        task = game.task
        reward = float(_task_call(game, "reward", task.reward, self))
        reward += float(_task_call(game, "final_reward", task.final_reward, self, game_result))
        terminated, truncated = _task_call(game, "outcome", task.outcome, self, game_result)
        limit = game.setup.time_limit_s
        if (limit is not None and game_result == Result.Tie and not task.scores_time_limit
                and self.state.game_loop / LOOPS_PER_SECOND > limit):
            terminated, truncated = False, True
        info = dict(_task_call(game, "info", task.info, self))
        info["game_result"] = game_result.name
        if game.setup.opponents:
            info["opponent"] = game.setup.opponents[0].label  # which Computer, when a task draws them
        obs = self._encode(game)
        game.publish(Transition(obs, reward, bool(terminated), bool(truncated), info), t0)


def _enum(enum_cls: Any, name: str, what: str) -> Any:
    for member in enum_cls:
        if member.name.lower() == str(name).lower():
            return member
    raise ValueError(f"unknown {what} {name!r}; expected one of {[m.name for m in enum_cls]}")


def build_players(setup: GameSetup, bot: BotAI, guest: BotAI | None = None) -> list[Any]:
    """burnysc2 player list for ``create_game``: our bot first, then the paired env's bot
    (``guest``, self-play: it joins from its own connection) or the Computer opponents."""
    players: list[Any] = [Bot(_enum(Race, setup.race, "race"), bot, name="sc2pool")]
    if setup.paired:
        if guest is None or setup.opponents:
            raise SC2GameError("a paired (self-play) game needs the guest env's bot and no Computer opponents")
        players.append(Bot(_enum(Race, setup.race, "race"), guest, name="sc2pool-2"))
        return players
    for opp in setup.opponents:
        build = _enum(AIBuild, opp.build, "AI build") if opp.build else AIBuild.RandomBuild
        players.append(Computer(_enum(Race, opp.race, "race"), _enum(Difficulty, opp.difficulty, "difficulty"), build))
    return players


def resolve_map(name: str) -> Map:
    """A map path relative to ``$SC2PATH/Maps`` (sent as is, no install needed), or a bare name
    looked up in the install (real SC2 ladder maps)."""
    if name.endswith(".SC2Map"):
        return Map(Path(name))
    from sc2 import maps

    try:
        return maps.get(name)
    except (KeyError, SystemExit) as exc:
        raise SC2GameError(f"map {name!r} not found under $SC2PATH/Maps ({exc})") from None


class PairLink:
    """Two envs that are the two players of one game (self-play): the *host* env creates each
    game and joins it as player one, the *guest* env joins it from its own connection.

    Both envs reset together (the host's ``reset`` gathers both): the guest waits for the host's
    game of the same episode number (``created``), then joins with the same ports. The game's
    ports are chosen once for the pair and kept for all its games: the embedded engine hosting the
    game listens on the game port for the guest's engine, once per process; new ports per game
    would leave one listening socket per episode behind (m: real SC2 frees its ports when a game
    ends, so reusing them is expected to work there too; not tried on the real game)."""

    def __init__(self) -> None:
        from sc2.portconfig import Portconfig

        self.portconfig = Portconfig()
        self._created: dict[int, asyncio.Future[GameSetup]] = {}
        self.host: GameEnv | None = None
        self.guest: GameEnv | None = None
        #: The seed of the game the host created last (the guest's reset info reports it too).
        self.game_seed: int | None = None

    def created(self, episode: int) -> asyncio.Future[GameSetup]:
        """The future of episode ``episode``'s game: set by the host once it is created (with its
        setup), or failed when the host could not create it."""
        fut = self._created.get(episode)
        if fut is None:
            fut = self._created[episode] = asyncio.get_running_loop().create_future()
            for old in [k for k in self._created if k < episode - 1]:
                self._created.pop(old)
        return fut

    def close(self) -> None:
        """Give the ports back (burnysc2's portpicker keeps them reserved otherwise)."""
        self.portconfig.clean()


def pair_games(host: GameEnv, guest: GameEnv) -> PairLink:
    """Make ``host`` and ``guest`` the two players of one game from their next reset on."""
    link = PairLink()
    link.host, link.guest = host, guest
    host.pair, guest.pair = link, link
    host.role, guest.role = "host", "guest"
    return link


class GameEnv:
    """One env: a task plus a persistent game connection; episodes are games on it."""

    def __init__(
        self,
        index: int,
        task: Task,
        connection: GameConnection,
        *,
        step_timeout: float = 60.0,
        reset_mode: str = "restart",
        setup: GameSetup | None = None,
        time_limit_s: float | None = None,
    ) -> None:
        """``setup``: the game setup when the task has one for every episode (default: the task's
        ``game_setup()``); a task that overrides ``episode_setup`` is asked at every new game.
        ``time_limit_s`` (the host's option) replaces the task's time limit either way."""
        if reset_mode not in ("create", "restart"):
            raise ValueError(f"reset_mode must be 'create' or 'restart', got {reset_mode!r}")
        self.index = index
        self.task = task
        self.setup = setup if setup is not None else task.game_setup()
        self._time_limit_s = time_limit_s
        self._per_episode = type(task).episode_setup is not Task.episode_setup
        self.obs_space = task.observation_space
        self.connection = connection
        self.step_timeout = step_timeout
        self.reset_mode = reset_mode
        self.timings = GameTimings()
        self.bot = BridgeBot(self)
        self.aborting = False
        self.started = False
        self._loop = asyncio.get_running_loop()
        self._published: asyncio.Future[Transition] | None = None
        self._action: asyncio.Future[Any] | None = None
        self._play: asyncio.Task[Any] | None = None
        self._client: _RecordingClient | None = None
        self._game_data: list[Any] = []
        """The connection's parsed game data, shared by its episodes (see _RecordingClient)."""
        self._ended_naturally = False
        self._handed_at = 0.0
        self._dead: BaseException | None = None
        self._seed_rng: Any = None
        self._renderer: Any = None  # (game info proto, FrameRenderer) of the current game
        #: Self-play: the pair this env is a player of (``pair_games``), its ``role`` in it
        #: (``"host"`` creates the games, ``"guest"`` joins them), and its episode count, which
        #: names the game the guest joins.
        self.pair: PairLink | None = None
        self.role = "solo"
        self._episodes = 0

    # -- called by the bot ------------------------------------------------------------------------
    def publish(self, transition: Transition, t_start: float) -> None:
        now = time.perf_counter()
        self.timings.bridge += now - t_start
        if self._handed_at:
            self.timings.game_loop += t_start - self._handed_at
            self._handed_at = 0.0
        fut = self._published
        if transition.terminated or transition.truncated:
            self._ended_naturally = True
        else:
            self._action = self._loop.create_future()
        if fut is not None and not fut.done():
            fut.set_result(transition)

    def next_action(self) -> asyncio.Future[Any]:
        assert self._action is not None
        return self._action

    # -- called by the host -----------------------------------------------------------------------
    async def reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
        """Start a new episode on the same connection. ``seed`` seeds this and the following games;
        ``options`` are handed to the task as ``task.reset_options`` before ``episode_start``."""
        t0 = time.perf_counter()
        self.task.reset_options = dict(options or {})
        if self.role == "guest":
            return await self._join_reset(t0)
        self._episodes += 1
        try:
            return await self._create_reset(t0, seed)
        except BaseException as exc:
            self._fail_guest_wait(exc)  # a guest waiting for this game must not wait in vain
            raise

    async def _create_reset(self, t0: float, seed: int | None) -> tuple[Any, dict[str, Any]]:
        """The reset of an env that creates its games (alone, or the host of a pair)."""
        self._check_alive()
        await self._end_episode()
        random_seed = self._next_seed(seed)
        controller = self.connection.controller
        restarted = False
        next_setup = self._setup_for(random_seed)
        if (self.reset_mode == "restart" and self._ended_naturally and seed is None and self._client is not None
                and next_setup == self.setup and self.pair is None):
            restarted = await self._try_restart(controller)
        if not restarted:
            self.setup = next_setup
            await self._create_game(controller, random_seed)
            if self.pair is not None:
                self.pair.game_seed = random_seed
                fut = self.pair.created(self._episodes)
                if not fut.done():
                    fut.set_result(self.setup)
        time_limit: Any = self.setup.time_limit_s  # burnysc2 compares seconds; float is fine
        if restarted:
            assert self._client is not None
            client = self._client
            client._game_result = None  # type: ignore[assignment]
            coro = sc2_main._play_game_ai(client, client._player_id, self.bot, False, time_limit)
        else:
            client = _RecordingClient(controller._ws, self._game_data)
            client.game_step = self.setup.game_step
            self._client = client
            portconfig = None if self.pair is None else self.pair.portconfig
            coro = sc2_main._play_game(self._player(), client, False, portconfig, time_limit)
        return await self._start_play(coro, t0, None if restarted else random_seed)

    def _player(self) -> Any:
        """This env's burnysc2 player (the bot that joins the game)."""
        return Bot(_enum(Race, self.setup.race, "race"), self.bot, name="sc2pool" if self.role != "guest" else "sc2pool-2")

    async def _start_play(self, coro: Any, t0: float, game_seed: int | None) -> tuple[Any, dict[str, Any]]:
        """Run burnysc2's game loop ``coro`` for the new episode; its first observation."""
        try:
            self._check_alive()  # a paired env whose partner crashed meanwhile
        except BaseException:
            coro.close()
            raise
        self._ended_naturally = False
        self.aborting = False
        self.started = False
        self._published = self._loop.create_future()
        self._play = asyncio.ensure_future(coro)
        self._play.add_done_callback(self._on_play_done)
        transition = await self._wait(self._published, "the first observation")
        self.started = True
        dt = time.perf_counter() - t0
        self.timings.resets += 1
        self.timings.reset += dt
        self.timings.reset_max = max(self.timings.reset_max, dt)
        info = {"game_seed": game_seed, "reset_ms": dt * 1e3}
        return transition.obs, info

    async def _join_reset(self, t0: float) -> tuple[Any, dict[str, Any]]:
        """The guest's reset: leave the last game, wait for the host's game of the same episode
        (at most ``step_timeout``), join it with the pair's ports and take the first observation."""
        assert self.pair is not None
        self._episodes += 1
        created = self.pair.created(self._episodes)
        self._check_alive()
        await self._end_episode()
        controller = self.connection.controller
        # The game was joined and played through the last episode's client: its status is the
        # connection's (the controller itself never sent a request).
        last = self._client if self._client is not None else controller
        try:
            if last._status in (Status.in_game, Status.ended, Status.init_game):
                try:
                    await controller._execute(leave_game=sc_pb.RequestLeaveGame())
                except sc2_main.ProtocolError:
                    pass
        except Exception as exc:
            desc = self.connection.describe_death()
            self._dead = exc
            raise GameCrashedError(
                f"env {self.index}: leaving the last game failed: {type(exc).__name__}: {exc}" + (f" ({desc})" if desc else "")
            ) from exc
        try:
            setup = await asyncio.wait_for(asyncio.shield(created), self.step_timeout)
        except asyncio.TimeoutError:
            raise GameTimeoutError(
                f"env {self.index}: the paired env's game was not created within {self.step_timeout:.0f} s"
            ) from None
        except SC2GameError as exc:
            raise type(exc)(f"env {self.index}: the paired env (its host) could not start the game: {exc}") from exc
        self.setup = setup
        client = _RecordingClient(controller._ws, self._game_data)
        client.game_step = setup.game_step
        self._client = client
        time_limit: Any = setup.time_limit_s
        coro = sc2_main._play_game(self._player(), client, False, self.pair.portconfig, time_limit)
        return await self._start_play(coro, t0, self.pair.game_seed)

    def _fail_guest_wait(self, exc: BaseException) -> None:
        """The host could not start this episode's game: the guest waiting for it fails too."""
        if self.pair is None or self.role != "host":
            return
        fut = self.pair.created(self._episodes)
        if not fut.done():
            err = exc if isinstance(exc, SC2GameError) else GameCrashedError(f"{type(exc).__name__}: {exc}")
            fut.set_exception(err)
            fut.exception()  # retrieved: the guest, if waiting, re-raises it

    def partner_failed(self, other: GameEnv, exc: BaseException) -> None:
        """The other player of this env's game crashed or stopped answering: this env's game
        cannot go on either (the engine would wait for the other player's step in lockstep).
        Mark it dead and fail what the host awaits, at once, so both envs report it."""
        if self._dead is not None:
            return
        err = GameCrashedError(
            f"env {self.index}: the other player of its self-play game (env {other.index}) failed: "
            f"{type(exc).__name__}: {exc}"
        )
        self._dead = err
        fut = self._published
        if fut is not None and not fut.done():
            fut.set_exception(err)
            fut.exception()

    def _partner(self) -> GameEnv | None:
        if self.pair is None:
            return None
        return self.pair.guest if self.role == "host" else self.pair.host

    def step_begin(self, action: Any) -> asyncio.Future[Transition]:
        """Hand ``action`` to the bot; return the future of the next transition."""
        self._check_alive()
        if self._action is None or self._action.done() or not self.started:
            raise SC2GameError(f"env {self.index}: step() without a running episode (call reset first)")
        fut: asyncio.Future[Transition] = self._loop.create_future()
        self._published = fut
        self._handed_at = time.perf_counter()
        self._action.set_result(action)
        return fut

    async def step_end(self, fut: asyncio.Future[Transition]) -> Transition:
        tr = await self._wait(fut, "the next observation")
        self.timings.steps += 1
        return tr

    def step_result(self, fut: asyncio.Future[Transition]) -> Transition:
        """The transition of a future that ``asyncio.wait`` reported done (or a timeout error)."""
        if not fut.done():
            err = GameTimeoutError(
                f"env {self.index}: no answer from the game within {self.step_timeout:.0f} s while waiting for "
                "the next observation"
            )
            self._dead = err
            raise err
        tr = fut.result()
        self.timings.steps += 1
        return tr

    def render(self, size: int) -> Any:
        """A top-down picture (uint8 ``(H, W, 3)``) of the bot's latest observation, the terminal
        one included; None before the first observation. Drawn from the raw protobufs burnysc2
        keeps (``GameInfo._proto``, ``GameState.response_observation``)."""
        from sc2pool.training.render import FrameRenderer

        bot = self.bot
        state = getattr(bot, "state", None)
        info = getattr(bot, "game_info", None)
        if state is None or info is None:
            return None
        proto = info._proto
        cached = self._renderer
        if cached is None or cached[0] is not proto or cached[1].size != size:
            cached = self._renderer = (proto, FrameRenderer(proto, size))
        return cached[1].render(state.response_observation.observation)

    def inherit(self, previous: GameEnv) -> None:
        """Continue ``previous``'s env on this (relaunched) game: keep its timings and its seed
        sequence, so a seeded env stays reproducible across a game relaunch."""
        self.timings = previous.timings
        self._seed_rng = previous._seed_rng

    @property
    def dead(self) -> BaseException | None:
        """Why this game can no longer be used (crash, timeout), or None while it is usable."""
        return self._dead

    @property
    def responsive(self) -> bool:
        """False once the game stopped answering (no point asking it to quit politely)."""
        return not isinstance(self._dead, GameTimeoutError)

    def cancel(self) -> asyncio.Task[Any] | None:
        """Cancel the running episode's game loop; return its task (finishes once the connection
        is closed, if burnysc2 is waiting for an answer that will never come)."""
        play = self._play
        self._play = None
        if play is not None and not play.done():
            self.aborting = True
            play.cancel()
            return play
        return None

    async def close(self) -> None:
        """Cancel the episode (best effort, bounded); never raises. The host closes the connection."""
        play = self.cancel()
        if play is not None:
            await asyncio.wait({play}, timeout=0.5)

    # -- internals --------------------------------------------------------------------------------
    def _next_seed(self, seed: int | None) -> int:
        import numpy as np

        if seed is not None or self._seed_rng is None:
            self._seed_rng = np.random.default_rng(seed)
        return int(self._seed_rng.integers(1, 2**31 - 1))

    def _setup_for(self, random_seed: int) -> GameSetup:
        """The setup of the next new game (the task's ``episode_setup`` when it draws one per
        episode, with the host's time limit)."""
        if not self._per_episode:
            return self.setup
        setup = _task_call(self, "episode_setup", self.task.episode_setup, random_seed)
        if not isinstance(setup, GameSetup):
            raise TaskFailure(f"env {self.index}: task {type(self.task).__name__}.episode_setup returned {setup!r}, not a GameSetup")
        if self._time_limit_s is not None:
            setup = dataclasses.replace(setup, time_limit_s=self._time_limit_s)
        return setup

    def _check_alive(self) -> None:
        if self._dead is not None:
            raise GameCrashedError(f"env {self.index}: the game is gone ({self._dead}); it cannot be used any more")

    async def _wait(self, fut: asyncio.Future[Transition], what: str) -> Transition:
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.step_timeout)
        except asyncio.TimeoutError:
            err = GameTimeoutError(
                f"env {self.index}: no answer from the game within {self.step_timeout:.0f} s while waiting for {what}"
            )
            self._dead = err
            raise err from None

    def _on_play_done(self, play: asyncio.Task[Any]) -> None:
        fut = self._published
        if play.cancelled():
            exc: BaseException | None = GameCrashedError(f"env {self.index}: game loop cancelled")
        else:
            exc = play.exception()
        if exc is not None and not isinstance(exc, SC2GameError):
            desc = self.connection.describe_death()
            exc = GameCrashedError(
                f"env {self.index}: the game connection failed mid-episode: {type(exc).__name__}: {exc}"
                + (f" ({desc})" if desc else "")
            )
        if exc is not None and not self.aborting and not isinstance(exc, TaskFailure):
            self._dead = exc
            partner = self._partner()
            if partner is not None:
                partner.partner_failed(self, exc)
        if fut is not None and not fut.done():
            if exc is None:
                result = play.result()
                exc = GameCrashedError(
                    f"env {self.index}: the game ended ({getattr(result, 'name', result)}) without an observation "
                    "for the bridge; burnysc2 resigns when on_start/first step fails - see the worker log"
                )
                if not self.aborting:
                    self._dead = exc
            fut.set_exception(exc)
            fut.exception()  # mark retrieved; the waiter re-raises it

    async def _end_episode(self) -> None:
        play = self._play
        if play is None:
            return
        if not play.done():
            self.aborting = True
            if self._action is not None and not self._action.done():
                self._action.set_result(_ABORT)
            try:
                await asyncio.wait_for(asyncio.shield(play), self.step_timeout)
            except asyncio.TimeoutError:
                play.cancel()
                err = GameTimeoutError(f"env {self.index}: the game did not leave within {self.step_timeout:.0f} s")
                self._dead = err  # hung: unusable (and not asked to quit politely on close)
                raise err from None
            except Exception:  # noqa: BLE001 - reported through _dead below
                pass
        self._play = None
        self._check_alive()

    async def _try_restart(self, controller: Controller) -> bool:
        try:
            r = await controller._execute(restart_game=sc_pb.RequestRestartGame())
        except Exception:  # noqa: BLE001 - restart is an optimisation; fall back to create
            return False
        return not r.restart_game.HasField("error") and controller._status == Status.in_game

    async def _create_game(self, controller: Controller, random_seed: int) -> None:
        try:
            if controller._status in (Status.in_game, Status.ended, Status.init_game):
                try:
                    await controller._execute(leave_game=sc_pb.RequestLeaveGame())
                except sc2_main.ProtocolError:
                    pass
            partner = self._partner()
            players = build_players(self.setup, self.bot, None if partner is None else partner.bot)
            r = await controller.create_game(
                resolve_map(self.setup.map_name), players, False, random_seed, self.setup.disable_fog
            )
        except SC2GameError:
            raise
        except Exception as exc:
            desc = self.connection.describe_death()
            self._dead = exc
            raise GameCrashedError(
                f"env {self.index}: creating a game failed: {type(exc).__name__}: {exc}" + (f" ({desc})" if desc else "")
            ) from exc
        if r.create_game.HasField("error"):
            err = f"env {self.index}: could not create game on {self.setup.map_name!r}: {sc2_main.CreateGameError(r.create_game.error).name}"
            if r.create_game.HasField("error_details"):
                err += f": {r.create_game.error_details}"
            raise SC2GameError(err)


# -- process helpers used by launch.py (burnysc2 internals live here) ---------------------------------
def point_burnysc2_at(install: Path) -> None:
    """Make burnysc2 use the install at ``install`` for the launches that follow.

    burnysc2 computes its paths lazily from ``$SC2PATH`` once per process; we set them directly
    (with burnysc2's own rules) instead of exporting ``$SC2PATH``, so a private fake install never
    leaks into the environment of the process or of later hosts.
    """
    from sc2 import paths as sc2_paths
    from sc2.paths import Paths

    base = Path(install).expanduser()
    try:
        executable = sc2_paths.latest_executeble(base / "Versions")
    except (ValueError, OSError, SystemExit) as exc:
        raise GameLaunchError(f"no game executable under {base / 'Versions'} ({exc})") from None
    cwd_name = sc2_paths.CWD.get(sc2_paths.PF)
    Paths.BASE = base  # type: ignore[attr-defined]
    Paths.EXECUTABLE = executable  # type: ignore[attr-defined]
    Paths.CWD = base / cwd_name if cwd_name else None  # type: ignore[attr-defined]
    Paths.REPLAYS = base / "Replays"  # type: ignore[attr-defined]
    Paths.MAPS = base / "maps" if (base / "maps").exists() else base / "Maps"  # type: ignore[attr-defined]


def forget_burnysc2_paths() -> None:
    """Undo :func:`point_burnysc2_at`: burnysc2 recomputes its paths from ``$SC2PATH`` next time."""
    from sc2.paths import Paths

    for attr in ("BASE", "EXECUTABLE", "CWD", "REPLAYS", "MAPS"):
        if attr in Paths.__dict__:
            delattr(Paths, attr)


#: How often a launch checks that the game process it waits for is still alive.
LAUNCH_POLL_S = 0.05


async def open_sc2_process(timeout: float, install: Path | None = None) -> tuple[Any, Controller]:
    """Launch the executable under ``$SC2PATH`` through burnysc2's ``SC2Process`` and connect.

    burnysc2 retries its websocket connection for minutes without looking at the process, so a
    game that dies while starting would cost the whole ``timeout``: the process is watched, and
    its exit ends the launch at once (``GameLaunchError`` with ``process_exited``).
    burnysc2 replaces the SIGINT handler; the previous one is restored so the worker keeps its own.
    Raises ``GameLaunchError`` on timeout or when the install is unusable.
    """
    import signal

    from sc2.sc2process import SC2Process

    previous = signal.getsignal(signal.SIGINT)
    proc = SC2Process()
    where = install or os.environ.get("SC2PATH")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    enter = asyncio.ensure_future(proc.__aenter__())
    try:
        while True:
            done, _ = await asyncio.wait({enter}, timeout=min(LAUNCH_POLL_S, max(0.0, deadline - loop.time())))
            if done:
                controller = enter.result()
                break
            popen = sc2_process_popen(proc)
            rc = None if popen is None else popen.poll()
            if rc is not None or loop.time() >= deadline:
                await _cancel(enter)
                kill_sc2_process(proc)
                if rc is not None:
                    err = GameLaunchError(
                        f"the game process {popen.pid} ({where}) exited with code {rc} before accepting a connection"
                    )
                    err.process_exited = True
                    raise err
                raise GameLaunchError(
                    f"the game at {where} did not accept a websocket connection within {timeout:.0f} s (launch_timeout)"
                )
    except SystemExit as exc:  # burnysc2 sys.exit()s when it cannot find the install
        kill_sc2_process(proc)
        raise GameLaunchError(f"burnysc2 could not use the install at {where} ({exc})") from None
    except GameLaunchError:
        raise
    except BaseException as exc:
        await _cancel(enter)
        kill_sc2_process(proc)
        if not isinstance(exc, Exception):
            raise  # cancelled (the host is closing) or interrupted: the process is gone, go on
        raise GameLaunchError(f"launching the game failed: {type(exc).__name__}: {exc}") from exc
    finally:
        try:
            signal.signal(signal.SIGINT, previous)
        except (ValueError, TypeError):  # not the main thread / handler not from Python
            pass
    return proc, controller


async def _cancel(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` and wait for it to unwind (burnysc2 closes its session on the way out)."""
    if task.done():
        return
    task.cancel()
    await asyncio.wait({task}, timeout=2.0)


def sc2_process_pid(proc: Any) -> int | None:
    popen = getattr(proc, "_process", None)
    return None if popen is None else int(popen.pid)


def sc2_process_popen(proc: Any) -> Any:
    return getattr(proc, "_process", None)


def kill_sc2_process(proc: Any, grace: float = 1.0) -> None:
    """Kill a launched game process for sure (synchronous; bounded by ``grace`` seconds) and let
    burnysc2 remove its temp dir and return its port."""
    from sc2.sc2process import KillSwitch

    popen = getattr(proc, "_process", None)
    if popen is not None and popen.poll() is None:
        popen.terminate()
        deadline = time.monotonic() + grace
        while popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if popen.poll() is None:
            popen.kill()
        popen.wait()
    if popen is not None:
        proc._process = None  # reaped: keep burnysc2's _clean from "killing" it again (log noise)
    try:
        proc._clean(verbose=False)
    except Exception:  # noqa: BLE001 - cleanup is best effort
        pass
    if proc in KillSwitch._to_kill:
        KillSwitch._to_kill.remove(proc)


async def close_sc2_connection(proc: Any) -> None:
    try:
        await proc._close_connection()
    except Exception:  # noqa: BLE001
        pass


async def send_quit(controller: Controller, timeout: float = 1.0) -> None:
    """Ask the game to quit (the engine exits at once; real SC2 too)."""
    try:
        await asyncio.wait_for(controller._execute(quit=sc_pb.RequestQuit()), timeout)
    except BaseException:  # noqa: BLE001 - the process is killed right after anyway
        pass


def make_inprocess_controller(transport: Any) -> Controller:
    return Controller(transport, None)  # type: ignore[arg-type]


def controller_status(controller: Controller) -> str | None:
    status = controller._status
    return None if status is None else status.name


__all__ = [
    "BridgeBot",
    "GameEnv",
    "GameCrashedError",
    "SC2GameError",
    "GameLaunchError",
    "GameTimeoutError",
    "GameTimings",
    "PairLink",
    "TaskFailure",
    "Transition",
    "pair_games",
    "quiet_burnysc2_logging",
]
