"""A benchmark baseline: one game per process behind a sync gymnasium adapter over two queues.

``QueueSC2Env`` is a plain ``gymnasium.Env``. It starts a *game process* that runs burnysc2's
asyncio loop with one bot, and talks to it through two ``multiprocessing.Queue`` s (actions in,
observations out), the adapter the project was first designed around: ``step`` puts the action and blocks on
the observation queue; the game process blocks on the action queue. Wrapped in SB3's
``SubprocVecEnv`` this is the "one process per game" design the pool is benchmarked against.

To compare architectures rather than reset policies, the game process keeps its game connection
across episodes (the same persistent-connection reset the pool uses) unless
``relaunch_on_reset=True``, which is that design's literal "terminate the old game process and
launch a new one" on every reset (seconds per episode).

The game process uses the same task and bridge code as the pool, so both sides compute identical
observations, rewards and episode ends.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
from typing import Any

import gymnasium as gym

from workers.sc2.tasks.base import make_task


class QueueGameError(RuntimeError):
    """The game process failed (its traceback text is in the message)."""


def _game_process(
    task: str,
    task_kwargs: dict[str, Any],
    engine: str,
    action_q: Any,
    obs_q: Any,
    launch_timeout: float,
    time_limit_s: float | None = None,
) -> None:
    """The game process: burnysc2 owns this process's loop; commands arrive on a blocking queue."""
    import asyncio
    import dataclasses
    import traceback

    from workers.sc2.bridge import GameEnv, quiet_burnysc2_logging
    from workers.sc2.launch import Launcher

    async def main() -> None:
        quiet_burnysc2_logging()
        launcher = Launcher(engine, launch_timeout)
        conn = None
        try:
            conn = await launcher.launch()
            the_task = make_task(task, task_kwargs)
            setup = the_task.game_setup()
            if time_limit_s is not None:
                setup = dataclasses.replace(setup, time_limit_s=float(time_limit_s))
            game = GameEnv(0, the_task, conn, setup=setup)
            obs_q.put(("ready", None))
            while True:
                cmd = action_q.get()  # blocking: one game per process
                kind = cmd[0]
                if kind == "close":
                    break
                try:
                    if kind == "reset":
                        obs_q.put(("ok", await game.reset(cmd[1], cmd[2])))
                    else:
                        fut = game.step_begin(cmd[1])
                        tr = await game.step_end(fut)
                        obs_q.put(("ok", (tr.obs, tr.reward, tr.terminated, tr.truncated, tr.info)))
                except Exception:  # noqa: BLE001 - reported to the adapter
                    obs_q.put(("error", traceback.format_exc()))
            await game.close()
        except Exception:  # noqa: BLE001
            obs_q.put(("error", traceback.format_exc()))
        finally:
            if conn is not None:
                await conn.close()
            launcher.cleanup()

    asyncio.run(main())


class QueueSC2Env(gym.Env[Any, Any]):
    """One SC2 game in its own process, driven synchronously over multiprocessing queues."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        task: str = "MoveToBeacon",
        task_kwargs: dict[str, Any] | None = None,
        engine: str = "subprocess",
        relaunch_on_reset: bool = False,
        timeout: float = 60.0,
        time_limit_s: float | None = None,
    ) -> None:
        self.task_name = task
        self.task_kwargs = dict(task_kwargs or {})
        probe = make_task(task, self.task_kwargs)
        self.observation_space = probe.observation_space
        self.action_space = probe.action_space
        self.engine = engine
        self.relaunch_on_reset = relaunch_on_reset
        self.timeout = float(timeout)
        self.time_limit_s = time_limit_s
        self._ctx = mp.get_context("fork")
        self._proc: Any = None
        self._action_q: Any = None
        self._obs_q: Any = None

    # -- process management -----------------------------------------------------------------------
    def _start(self) -> None:
        # Import burnysc2 and the bridge here once, so every forked game process starts warm (a
        # relaunch then costs the game's own start-up, not Python imports).
        import workers.sc2.bridge  # noqa: F401
        import workers.sc2.launch  # noqa: F401

        self._action_q = self._ctx.Queue()
        self._obs_q = self._ctx.Queue()
        proc = self._ctx.Process(
            target=_game_process,
            args=(
                self.task_name,
                self.task_kwargs,
                self.engine,
                self._action_q,
                self._obs_q,
                self.timeout,
                self.time_limit_s,
            ),
            daemon=True,
        )
        # SubprocVecEnv runs this env in a daemonic process, which multiprocessing forbids to have
        # children; this adapter needs one, so lift the flag while starting it (it is daemonic
        # itself, so it still dies with us).
        me = mp.current_process()
        was_daemon = me._config.get("daemon")  # type: ignore[attr-defined]
        me._config["daemon"] = False  # type: ignore[attr-defined]
        try:
            proc.start()
        finally:
            me._config["daemon"] = was_daemon  # type: ignore[attr-defined]
        self._proc = proc
        self._receive()  # "ready"

    def _stop(self) -> None:
        if self._proc is None:
            return
        try:
            self._action_q.put(("close",))
            self._proc.join(5.0)
        finally:
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(2.0)
            self._proc = None

    def _receive(self) -> Any:
        try:
            kind, payload = self._obs_q.get(timeout=self.timeout)
        except queue.Empty:
            raise QueueGameError(f"no answer from the game process within {self.timeout:.0f} s") from None
        if kind == "error":
            raise QueueGameError(f"the game process failed:\n{payload}")
        return payload

    # -- gymnasium API ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if self._proc is not None and self.relaunch_on_reset:
            self._stop()
        if self._proc is None:
            self._start()
        self._action_q.put(("reset", seed, options))
        obs, info = self._receive()
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._proc is None:
            raise QueueGameError("step() before reset()")
        self._action_q.put(("step", action))
        obs, reward, terminated, truncated, info = self._receive()
        return obs, float(reward), bool(terminated), bool(truncated), info

    def close(self) -> None:
        self._stop()
