"""``SC2EnvHost``: k StarCraft II games inside one worker's asyncio loop.

Built by the worker from ``HostSpec("workers.sc2.host:make_host", {"task": "MoveToBeacon", ...})``.
Each env is a :class:`workers.sc2.bridge.GameEnv` (a persistent game connection running burnysc2's
own game loop as an asyncio task). ``step`` hands every env its action, then gathers the k next
observations concurrently: while one game's engine works, the loop serves the others.

Keyword arguments (all msgpack-able, so a remote worker can receive them):

``task``            registered task name or ``"module:Class"`` (default ``"MoveToBeacon"``)
``task_kwargs``     constructor arguments of the task (e.g. ``{"scripted": true}``)
``engine``          ``"subprocess"`` (default: a game process per env; the embedded engine via a
                    private fake install when ``$SC2PATH`` is unset, real SC2 when it is set) or
                    ``"inprocess"`` (embedded engine inside the worker, no socket)
``launch_timeout``  seconds a game may take to accept its connection (default 60)
``step_timeout``    seconds a step or reset may take before ``GameTimeoutError`` (default 60)
``time_limit_s``    end episodes after this many game seconds (truncation), before the map's clock
``reset_mode``      ``"restart"`` (default: after an episode that ended by itself and when no new
                    seed is requested, ``restart_game`` - the game continues its own deterministic
                    seed sequence, and real SC2 skips reloading the map; otherwise a new game) or
                    ``"create"`` (always a new game, seeded from the env's seed sequence)
``on_game_crash``   ``"raise"`` (default) or ``"relaunch"``: what to do when an env's game process
                    dies, its connection drops, burnysc2 hits a protocol error or the game stops
                    answering (``GameCrashedError`` / ``GameTimeoutError``). ``"raise"`` reports
                    the typed error to the trainer; ``"relaunch"`` kills what is left of that game,
                    launches a fresh game process for that env alone and starts a new episode on it
                    (``EnvHost.recover``): the worker reports the broken episode as truncated with
                    ``info["sc2pool.restarted"]`` and the worker's other games carry on
``render_mode``     ``None`` (default) or ``"rgb_array"``: ``render()`` / ``VecEnv.get_images()``
                    return a top-down picture of each game (:mod:`sc2pool.training.render`), drawn from
                    the observation burnysc2 received; the step that ends an episode carries
                    its last picture in ``info["terminal_frame"]`` (the env is reset by then)
``render_size``     pixels on the long side of those pictures (default 256)
``max_game_relaunches``  relaunches allowed per env over the host's life (default 100); past it
                    a crash is the typed error again, so a game that can never run cannot loop

Self-play (a task whose setup is ``paired``, e.g. Melee with ``opponent="self"``/``"league"``): the
second player of a game is another env of the same worker. Env slots ``2k`` and ``2k+1`` are the
two players of one game (slot ``2k`` creates it, ``2k+1`` joins it from its own game process), so
``num_envs`` must be even. The two slots are stepped in the same lockstep, reset together (a reset
must name both), and the game's end ends both episodes at the same step, one ``Victory`` and the
other ``Defeat`` (or both a ``Tie`` at the time limit). A crash of either game fails both slots
with ``GameCrashedError``; ``on_game_crash="relaunch"`` is refused for now (a relaunch would have
to replace both games of the pair).

With ``"relaunch"``, a game process that exits while it starts (killed, or crashed on the way up)
is launched again, and so is a fresh game that dies before its first observation: up to
``LAUNCH_ATTEMPTS`` tries in a row, each counted as a relaunch. A transient failure then does not
end a long run, and an install that can never start a game still fails within a few seconds. A
launch that times out is not tried again: it already took ``launch_timeout``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence
from typing import Any

from workers.host import EnvFailure, EnvHost, StepResult
from workers.sc2.bridge import (
    GameCrashedError,
    GameEnv,
    GameLaunchError,
    GameTimeoutError,
    PairLink,
    SC2GameError,
    pair_games,
    quiet_burnysc2_logging,
)
from workers.sc2.launch import GameConnection, Launcher
from workers.sc2.tasks.base import LOOPS_PER_SECOND, Task, make_task

ON_GAME_CRASH = ("raise", "relaunch")
RENDER_MODES = (None, "rgb_array")
#: Tries in a row to get one env a running game (see the module docstring).
LAUNCH_ATTEMPTS = 3
log = logging.getLogger("sc2pool.sc2host")


class SC2EnvHost(EnvHost):
    """Hosts ``num_envs`` SC2 games of one task in the calling asyncio loop."""

    # Between two host calls every game loop is parked on an asyncio future that only the next
    # call resolves (each bot awaits its action; no request is in flight on any game connection,
    # and neither SC2 nor the engine sends anything unasked), so the worker may wait for its next
    # message in a blocking zmq_poll - measured ~0.03-0.05 ms less per step than waking through
    # the event loop. The loop still runs between the poll's short slices.
    blocking_poll_ok = True

    def __init__(
        self,
        num_envs: int,
        worker_index: int = 0,
        task: str = "MoveToBeacon",
        task_kwargs: dict[str, Any] | None = None,
        engine: str = "subprocess",
        launch_timeout: float = 60.0,
        step_timeout: float = 60.0,
        reset_mode: str = "restart",
        time_limit_s: float | None = None,
        on_game_crash: str = "raise",
        max_game_relaunches: int = 100,
        render_mode: str | None = None,
        render_size: int = 256,
    ) -> None:
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if reset_mode not in ("create", "restart"):
            raise ValueError(f"reset_mode must be 'create' or 'restart', got {reset_mode!r}")
        if on_game_crash not in ON_GAME_CRASH:
            raise ValueError(f"on_game_crash must be one of {ON_GAME_CRASH}, got {on_game_crash!r}")
        if isinstance(max_game_relaunches, bool) or not isinstance(max_game_relaunches, int) or max_game_relaunches < 0:
            raise ValueError(f"max_game_relaunches must be an int >= 0, got {max_game_relaunches!r}")
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, got {render_mode!r}")
        if isinstance(render_size, bool) or not isinstance(render_size, int) or render_size < 16:
            raise ValueError(f"render_size must be an int >= 16 (pixels), got {render_size!r}")
        self.render_mode = render_mode
        self.render_size = render_size
        self.num_envs = int(num_envs)
        self.worker_index = int(worker_index)
        self.task_name = task
        self.task_kwargs = dict(task_kwargs or {})
        self.tasks: list[Task] = [make_task(task, self.task_kwargs) for _ in range(self.num_envs)]
        self.observation_space = self.tasks[0].observation_space
        self.action_space = self.tasks[0].action_space
        self.setup = self.tasks[0].game_setup()
        #: Self-play: env slots 2k and 2k+1 are the two players of one game.
        self.paired = bool(self.setup.paired)
        if self.paired:
            if self.num_envs % 2:
                raise ValueError(
                    f"task {task!r} with task_kwargs {self.task_kwargs} plays env slots 2k and 2k+1 of a worker as the "
                    f"two players of one game (self-play), so a worker needs an even number of envs; got {self.num_envs} "
                    "(e.g. --envs-per-worker 2)"
                )
            if on_game_crash != "raise":
                raise ValueError(
                    "on_game_crash='relaunch' is not supported with a self-play task yet (a relaunch would have to "
                    "replace both games of the pair); use on_game_crash='raise'"
                )
        self.time_limit_s = None if time_limit_s is None else float(time_limit_s)
        if time_limit_s is not None:
            if not float(time_limit_s) > 0:
                raise ValueError(f"time_limit_s must be > 0, got {time_limit_s!r}")
            self.setup = dataclasses.replace(self.setup, time_limit_s=float(time_limit_s))
        #: gymnasium's ``metadata``: ``render_fps`` is real time (one frame per env step of
        #: ``game_step`` loops at "faster" speed), what ``VecVideoRecorder`` writes videos at.
        self.metadata: dict[str, Any] = {
            "render_modes": list(m for m in RENDER_MODES if m is not None),
            "render_fps": LOOPS_PER_SECOND / max(1, self.setup.game_step),
        }
        self.launcher = Launcher(engine, launch_timeout)
        self.step_timeout = float(step_timeout)
        self.reset_mode = reset_mode
        self.on_game_crash = on_game_crash
        self.max_game_relaunches = max_game_relaunches
        #: Game relaunches per env (``get_attr(i, "game_relaunches")``; also in the reset info of a
        #: recovered env). A relaunch replaces the env's game process and connection, never the task.
        self.relaunches: list[int] = [0] * self.num_envs
        self._launch_lock = asyncio.Lock()  # one launch at a time per worker (burnysc2 on Linux)
        self.games: list[GameEnv] = []
        self._connections: list[GameConnection] = []
        self._links: list[PairLink] = []
        self._closed = False
        self._step_wall = 0.0
        self._steps = 0

    async def start(self) -> None:
        """Launch the games one at a time (burnysc2's advice on Linux), each with a timeout."""
        quiet_burnysc2_logging()
        registry = None
        for i in range(self.num_envs):
            if self.paired and i % 2 == 0:
                registry = self.launcher.new_registry()  # the pair's own (in-process engine)
            try:
                conn = await self._launch_at_start(i, registry)
            except BaseException as exc:
                await self.close()
                if isinstance(exc, Exception):
                    raise EnvFailure(i, exc) from exc
                raise
            self._connections.append(conn)
            self.games.append(
                GameEnv(i, self.tasks[i], conn, step_timeout=self.step_timeout, reset_mode=self.reset_mode, setup=self.setup,
                        time_limit_s=self.time_limit_s)
            )
            if self.paired and i % 2 == 1:
                self._links.append(pair_games(self.games[i - 1], self.games[i]))

    async def _launch(self, registry: Any = None) -> GameConnection:
        """One game launch; never two at once in this host (a relaunch may overlap a reset)."""
        async with self._launch_lock:
            conn = await self.launcher.launch(registry)
        if self._closed:  # closed while launching: nothing may outlive close()
            await conn.close(polite=False)
            raise GameCrashedError("the host was closed while a game was being launched")
        return conn

    async def _launch_at_start(self, index: int, registry: Any = None) -> GameConnection:
        """Env ``index``'s first game, launched again (``"relaunch"`` policy only, at most
        ``LAUNCH_ATTEMPTS`` tries, the extra ones counted as relaunches) when its process exits
        while starting."""
        for attempt in range(1, LAUNCH_ATTEMPTS + 1):
            try:
                return await self._launch(registry)
            except GameLaunchError as exc:
                if not (exc.process_exited and self._may_try_again(index, attempt)):
                    raise
                log.warning("env %d: %s; launching it again (try %d of %d)", index, exc, attempt + 1, LAUNCH_ATTEMPTS)
            self.relaunches[index] += 1
        raise AssertionError("unreachable")

    def _may_try_again(self, index: int, attempt: int) -> bool:
        return (
            self.on_game_crash == "relaunch"
            and not self._closed
            and attempt < LAUNCH_ATTEMPTS
            and self.relaunches[index] < self.max_game_relaunches
        )

    def _game(self, index: int) -> GameEnv:
        if not self.games:
            raise RuntimeError("SC2EnvHost.start() was not called (or failed)")
        if not 0 <= index < self.num_envs:
            raise IndexError(f"env index {index} out of range 0..{self.num_envs - 1}")
        return self.games[index]

    # -- crash recovery ---------------------------------------------------------------------------
    def _relaunchable(self, index: int, exc: BaseException) -> bool:
        """Whether env ``index``'s failure ``exc`` is the game's own (process, connection,
        protocol, no answer) and may be repaired by a relaunch under this host's policy. A task's
        bug (``TaskFailure``) or a bad setup (plain ``SC2GameError``) is never relaunched: a new
        game would fail the same way."""
        return (
            self.on_game_crash == "relaunch"
            and isinstance(exc, (GameCrashedError, GameTimeoutError))
            and self.relaunches[index] < self.max_game_relaunches
        )

    def _failure(self, index: int, exc: BaseException) -> EnvFailure:
        """The ``EnvFailure`` for env ``index``: recoverable when a relaunch may repair it."""
        if self._relaunchable(index, exc):
            return EnvFailure(index, exc, recoverable=True)
        if self.on_game_crash == "relaunch" and isinstance(exc, (GameCrashedError, GameTimeoutError)):
            limited = type(exc)(
                f"{exc} - not relaunched: env {index} was already relaunched {self.relaunches[index]} times "
                f"(max_game_relaunches={self.max_game_relaunches})"
            )
            limited.__cause__ = exc
            return EnvFailure(index, limited)
        return EnvFailure(index, exc)

    async def _relaunch(self, index: int) -> GameEnv:
        """Replace env ``index``'s game: stop its game loop, kill its process and drop its
        connection (no orphan, even if the process still runs after a protocol error or hangs),
        then launch a fresh game process (one launch at a time, ``launch_timeout``) and bind the
        env's task to it. The other games are not touched."""
        old = self._game(index)
        play = old.cancel()
        try:
            await self._connections[index].close(polite=False)
        except BaseException:  # noqa: BLE001 - close never raises; belt and braces
            self._connections[index].kill_now()
        if play is not None:
            await asyncio.wait({play}, timeout=2.0)
        self.relaunches[index] += 1
        conn = await self._launch()
        self._connections[index] = conn
        game = GameEnv(index, old.task, conn, step_timeout=self.step_timeout, reset_mode=self.reset_mode, setup=self.setup,
                       time_limit_s=self.time_limit_s)
        game.inherit(old)
        self.games[index] = game
        return game

    def _relaunch_info(self, index: int, info: dict[str, Any]) -> dict[str, Any]:
        info["game_relaunches"] = self.relaunches[index]
        info["game_pid"] = self._connections[index].pid
        return info

    async def recover(self, index: int) -> tuple[Any, dict[str, Any]]:
        """``EnvHost.recover``: relaunch env ``index``'s game and start a new episode on it
        (unseeded: the env's own seed sequence continues). The reset info carries
        ``game_relaunches`` (this env's count) and ``game_pid``. A failed relaunch or first
        observation is an ``EnvFailure`` with the typed cause (``GameLaunchError`` ...)."""
        if self.on_game_crash != "relaunch":
            raise EnvFailure(index, GameCrashedError(f"env {index}: on_game_crash={self.on_game_crash!r} does not relaunch games"))
        try:
            obs, info = await self._relaunch_and_reset(index, None, None)
        except EnvFailure:
            raise
        except Exception as exc:
            raise EnvFailure(index, exc) from exc
        return obs, self._relaunch_info(index, info)

    async def _relaunch_and_reset(
        self, index: int, seed: int | None, options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any]]:
        """Relaunch env ``index``'s game and reset it. A game process that exits while it starts, or
        a fresh game that crashes before its first observation, is replaced again: at most
        ``LAUNCH_ATTEMPTS`` tries in a row in all."""
        for attempt in range(1, LAUNCH_ATTEMPTS + 1):
            try:
                game = await self._relaunch(index)
                return await game.reset(seed, options)
            except GameLaunchError as exc:
                if not (exc.process_exited and self._may_try_again(index, attempt)):
                    raise
                log.warning("env %d: %s; launching it again (try %d of %d)", index, exc, attempt + 1, LAUNCH_ATTEMPTS)
            except (GameCrashedError, GameTimeoutError) as exc:
                if not (self._relaunchable(index, exc) and self._may_try_again(index, attempt)):
                    raise
                log.warning("env %d: the relaunched game failed before its first observation (%s); again", index, exc)
        raise AssertionError("unreachable")

    async def reset(
        self,
        indices: Sequence[int],
        seeds: Sequence[int | None],
        options: Sequence[dict[str, Any] | None],
    ) -> list[tuple[Any, dict[str, Any]]]:
        if self.paired:
            self._check_pairs_reset_together(indices)

        async def one(i: int, seed: int | None, opt: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
            try:
                return await self._game(i).reset(seed, opt)
            except Exception as exc:
                # A reset starts a new episode anyway: a game found dead here (crashed between two
                # steps, or while leaving/creating a game) is relaunched in place, if allowed.
                if not (self._relaunchable(i, exc) and self._game(i).dead is not None):
                    raise self._failure(i, exc) from exc
            try:
                obs, info = await self._relaunch_and_reset(i, seed, opt)
            except Exception as exc:
                raise EnvFailure(i, exc) from exc
            return obs, self._relaunch_info(i, info)

        return list(await _gather_first_error([one(i, s, o) for i, s, o in zip(indices, seeds, options, strict=True)]))

    def _check_pairs_reset_together(self, indices: Sequence[int]) -> None:
        """A self-play game is one game for two slots: resetting one slot alone would end the
        other's episode without telling it."""
        wanted = set(indices)
        for i in wanted:
            mate = i ^ 1
            if mate not in wanted:
                raise EnvFailure(i, SC2GameError(
                    f"env slots {min(i, mate)} and {max(i, mate)} are the two players of one self-play game and "
                    f"are reset together; a reset named {i} without {mate}"
                ))

    async def step(self, actions: Sequence[Any]) -> list[Any]:
        """Step every game concurrently. Returns a ``StepResult`` per env, or - with
        ``on_game_crash="relaunch"`` - ``EnvFailure(i, cause, recoverable=True)`` for an env whose
        game crashed (the worker then calls :meth:`recover`). Any other failure is raised, after
        every other game has finished its step (no half-stepped games)."""
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(actions)}")
        t0 = time.perf_counter()
        games = self.games if self.games else [self._game(0)]
        futures: list[asyncio.Future[Any] | None] = []
        failures: dict[int, EnvFailure] = {}
        for i, action in enumerate(actions):
            try:
                futures.append(games[i].step_begin(action))
            except Exception as exc:
                futures.append(None)
                failures[i] = self._failure(i, exc)
        # One wait over plain futures: no task per env per step (the games run concurrently anyway).
        pending = [f for f in futures if f is not None]
        if pending:
            await asyncio.wait(pending, timeout=self.step_timeout)
        results: list[Any] = []
        for i, fut in enumerate(futures):
            if fut is None:
                results.append(failures[i])
                continue
            try:
                tr = games[i].step_result(fut)
            except Exception as exc:
                failures[i] = self._failure(i, exc)
                results.append(failures[i])
                continue
            info = tr.info
            if self.render_mode == "rgb_array" and (tr.terminated or tr.truncated):
                # The worker resets this env before the trainer sees the step, so a later render()
                # shows the next episode: the last picture travels with the step instead.
                info = {**info, "terminal_frame": games[i].render(self.render_size)}
            results.append(StepResult(tr.obs, tr.reward, tr.terminated, tr.truncated, info))
        for i in sorted(failures):
            if not failures[i].recoverable:
                raise failures[i] from failures[i].cause
        self._step_wall += time.perf_counter() - t0
        self._steps += 1
        return results

    # -- introspection (env_method / get_attr) ----------------------------------------------------
    def timing_stats(self) -> dict[str, Any]:
        """Per-host timing summary: seconds in the bridge (task encode/decode), in burnysc2 plus
        the game, in resets, and the engine's own time when it runs in-process."""
        total: dict[str, float] = {}
        for g in self.games:
            for k, v in g.timings.as_dict().items():
                total[k] = max(total.get(k, 0.0), v) if k == "reset_max" else total.get(k, 0.0) + v
        engine_s = 0.0
        for c in self._connections:
            if c.engine_stats is not None:
                engine_s += sum(c.engine_stats.total_ns.values()) / 1e9
        total["engine_inprocess"] = engine_s
        total["host_step_wall"] = self._step_wall
        total["host_steps"] = float(self._steps)
        total["game_pids"] = [c.pid for c in self._connections if c.pid is not None]  # type: ignore[assignment]
        return total

    async def call(self, index: int, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        game = self._game(index)
        if name == "timing_stats":
            return self.timing_stats()
        if name == "game_timings":
            return game.timings.as_dict()
        if name == "game_pid":
            return game.connection.pid
        method = getattr(game.task, name, None)
        if name.startswith("_") or not callable(method):
            raise AttributeError(f"task {type(game.task).__name__} has no public method {name!r}")
        return method(*args, **kwargs)

    async def get_attr(self, index: int, name: str) -> Any:
        game = self._game(index)
        if name == "task_name":
            return self.task_name
        if name == "engine":
            return self.launcher.describe()
        if name == "render_mode":
            return self.render_mode
        if name == "game_relaunches":
            return self.relaunches[index]
        if name == "metadata":
            return self.metadata
        if name == "on_game_crash":
            return self.on_game_crash
        if name.startswith("_") or not hasattr(game.task, name):
            raise AttributeError(f"task {type(game.task).__name__} has no attribute {name!r}")
        return getattr(game.task, name)

    async def render(self, index: int) -> Any:
        """Env ``index``'s current picture (uint8 ``(H, W, 3)``) with ``render_mode="rgb_array"``,
        else None; None too before the env's first reset (no observation to draw yet)."""
        game = self._game(index)
        if self.render_mode != "rgb_array":
            return None
        return game.render(self.render_size)

    async def set_attr(self, index: int, name: str, value: Any) -> None:
        game = self._game(index)
        if name.startswith("_"):
            raise AttributeError(f"refusing to set private attribute {name!r}")
        setattr(game.task, name, value)

    async def has_attr(self, index: int, name: str) -> bool:
        return name in _HOST_ATTRS or (not name.startswith("_") and hasattr(self._game(index).task, name))

    async def close(self) -> None:
        """End every game and kill every game process; idempotent, never raises.

        Order matters: cancel the game loops first, then quit/kill the processes (which also
        unblocks a loop stuck waiting for a hung game), then let the loops finish (bounded)."""
        if self._closed:
            return
        self._closed = True
        loops = []
        for g in self.games:
            try:
                t = g.cancel()
                if t is not None:
                    loops.append(t)
            except BaseException:  # noqa: BLE001
                pass
        for i, c in enumerate(self._connections):
            try:
                polite = i >= len(self.games) or self.games[i].responsive
                await c.close(polite=polite)
            except BaseException:  # noqa: BLE001
                c.kill_now()
        if loops:
            try:
                await asyncio.wait(loops, timeout=2.0)
            except BaseException:  # noqa: BLE001
                pass
        for link in self._links:
            link.close()
        self.launcher.cleanup()


_HOST_ATTRS = ("task_name", "engine", "render_mode", "metadata", "game_relaunches", "on_game_crash")


async def _gather_first_error(coros: list[Any]) -> list[Any]:
    """``gather`` that lets every coroutine finish (no half-stepped games) and then raises the
    first failure (by env order)."""
    results = await asyncio.gather(*coros, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results


def make_host(num_envs: int, worker_index: int = 0, **kwargs: Any) -> SC2EnvHost:
    """The ``HostSpec`` factory: ``HostSpec("workers.sc2.host:make_host", {"task": "MoveToBeacon"})``."""
    return SC2EnvHost(num_envs=num_envs, worker_index=worker_index, **kwargs)


__all__ = ["SC2GameError", "SC2EnvHost", "make_host"]
