"""The game side of the full-game scale benchmark (``benchmarks/bench_melee_scale.py``).

Two ways to run the same :class:`~workers.sc2.host.SC2EnvHost` code, so that the pool and SB3's
``SubprocVecEnv`` differ only in what lies between the trainer and the games:

* :class:`TimedSC2Host` is the pool's host (``HostSpec("workers.sc2.bench_host:make_host", ...)``)
  that also records, per vector step, the wall time this worker spent in its games: ``step`` plus
  the auto-reset the worker asks for after it (a new game on a new map, at the end of an episode).
  The trainer's wall time for that vector step minus the slowest worker's is the time spent
  outside the games: the pool's own path (encode, transport, decode, the trainer's bookkeeping).
  A per-step record rather than running sums, because games end at different times: the worker
  that resets is the slowest one of that step, and a sum over the run would pair one worker's
  resets with another worker's ordinary steps.
* :class:`SyncSC2Env` is one such host with one game behind a plain synchronous ``gymnasium.Env``
  (its own event loop, run only inside ``reset``/``step``), built exactly as a pool worker builds
  its games: what ``SubprocVecEnv`` runs in each of its processes, recording the same trace.

Both expose ``busy_trace()`` (``float64`` bytes, one entry per vector step since the first
``step``) and ``timing_stats()`` (``SC2EnvHost.timing_stats``: the games' ``GameTimings`` summed).
"""

from __future__ import annotations

import asyncio
import time
from array import array
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from workers.sc2.host import SC2EnvHost


class TimedSC2Host(SC2EnvHost):
    """``SC2EnvHost`` that records the wall time of each vector step's games (see the module)."""

    def __init__(self, num_envs: int, worker_index: int = 0, **kwargs: Any) -> None:
        super().__init__(num_envs, worker_index, **kwargs)
        # array('d'): 8 bytes a step, appended in ~0.1 us; a run of 10^6 steps stays at 8 MB
        self._busy = array("d")

    async def step(self, actions: Sequence[Any]) -> list[Any]:
        t0 = time.perf_counter()
        try:
            return await super().step(actions)
        finally:
            self._busy.append(time.perf_counter() - t0)

    async def reset(
        self,
        indices: Sequence[int],
        seeds: Sequence[int | None],
        options: Sequence[dict[str, Any] | None],
    ) -> list[tuple[Any, dict[str, Any]]]:
        t0 = time.perf_counter()
        try:
            return await super().reset(indices, seeds, options)
        finally:
            # after a step, this is its auto-reset: part of that vector step's game time; the
            # trainer's reset before the first step belongs to no step and is not recorded
            if self._busy:
                self._busy[-1] += time.perf_counter() - t0

    def busy_trace(self) -> bytes:
        """Seconds in the games per vector step since the first ``step``, as float64 bytes."""
        return self._busy.tobytes()

    async def call(self, index: int, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        if name == "busy_trace":
            return self.busy_trace()
        return await super().call(index, name, args, kwargs)


def make_host(num_envs: int, worker_index: int = 0, **kwargs: Any) -> TimedSC2Host:
    """HostSpec factory (same keyword arguments as ``workers.sc2.host:make_host``)."""
    return TimedSC2Host(num_envs, worker_index, **kwargs)


class SyncSC2Env(gym.Env[Any, Any]):
    """One game of a task behind a synchronous gymnasium API: a :class:`TimedSC2Host` of one env
    driven by a private event loop. burnysc2's game loop is an asyncio task of that loop; between
    two calls it is parked on its next action, exactly as in a pool worker between two messages."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, task: str = "Melee", task_kwargs: dict[str, Any] | None = None, engine: str = "subprocess",
                 **host_kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._host: TimedSC2Host | None = None
        try:
            host = TimedSC2Host(1, 0, task=task, task_kwargs=task_kwargs, engine=engine, **host_kwargs)
            self._loop.run_until_complete(host.start())
        except BaseException:
            self._loop.close()
            raise
        self._host = host
        self.observation_space = host.observation_space
        self.action_space = host.action_space

    def _run(self, coro: Any) -> Any:
        return self._loop.run_until_complete(coro)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        assert self._host is not None, "SyncSC2Env is closed"
        ((obs, info),) = self._run(self._host.reset([0], [seed], [options]))
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        assert self._host is not None, "SyncSC2Env is closed"
        (res,) = self._run(self._host.step([action]))
        if isinstance(res, BaseException):  # on_game_crash="relaunch" hands failures back
            raise res
        return res.obs, res.reward, res.terminated, res.truncated, res.info

    def busy_trace(self) -> bytes:
        return self._host.busy_trace() if self._host is not None else b""

    def timing_stats(self) -> dict[str, Any]:
        return self._host.timing_stats() if self._host is not None else {}

    def close(self) -> None:
        host, self._host = self._host, None
        if host is None:
            return
        try:
            self._run(host.close())
        finally:
            self._loop.close()
