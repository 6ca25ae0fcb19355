"""Environments and hosts used by the pool tests (importable by worker processes as ``pool_envs``)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from workers.gym_host import GymHost
from workers.host import EnvHost, StepResult


def make_cartpole() -> gym.Env:
    return gym.make("CartPole-v1")


class Marker(gym.Wrapper):
    """A wrapper to look for with env_is_wrapped."""


class SubMarker(Marker):
    """A subclass: env_is_wrapped(Marker) must be True for it too (isinstance semantics)."""


def make_marked_cartpole() -> gym.Env:
    return SubMarker(gym.make("CartPole-v1"))


def make_pendulum() -> gym.Env:
    return gym.make("Pendulum-v1")


class MultiSpaceEnv(gym.Env):
    """Dict observation with many dtypes and subspace kinds; infos carry numpy values."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, render_mode: str | None = None, episode_len: int = 7) -> None:
        self.observation_space = spaces.Dict(
            {
                "img": spaces.Box(0, 255, (3, 4), dtype=np.uint8),
                "pos": spaces.Box(-10.0, 10.0, (2,), dtype=np.float64),
                "grid": spaces.Box(-5, 5, (2, 2), dtype=np.int32),
                "mode": spaces.Discrete(4),
                "md": spaces.MultiDiscrete([3, 5]),
                "mb": spaces.MultiBinary(3),
            }
        )
        self.action_space = spaces.Box(-1.0, 1.0, (2,), dtype=np.float32)
        self.render_mode = render_mode
        self.episode_len = episode_len
        self.magic = 42
        self._t = 0

    def _obs(self) -> dict[str, Any]:
        r = self.np_random
        return {
            "img": r.integers(0, 256, (3, 4), dtype=np.uint8),
            "pos": r.uniform(-10, 10, 2),
            "grid": r.integers(-5, 6, (2, 2)).astype(np.int32),
            "mode": int(r.integers(0, 4)),
            "md": r.integers(0, [3, 5]),
            "mb": r.integers(0, 2, 3).astype(np.int8),
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self._t = 0
        start = (options or {}).get("start", 0)
        return self._obs(), {"start": start, "arr": np.arange(3) + start}

    def step(self, action: Any) -> Any:
        self._t += 1
        obs = self._obs()
        reward = float(np.sum(action)) + float(self.np_random.normal())
        terminated = bool(self.np_random.random() < 0.1)
        truncated = self._t >= self.episode_len
        info = {"t": self._t, "vec": np.asarray(action) * 2, "scalar": np.float32(1.5), "pair": (1, "a")}
        return obs, reward, terminated, truncated, info

    def render(self) -> Any:
        return np.full((4, 6, 3), self._t % 256, dtype=np.uint8)

    def add(self, x: int, y: int = 1) -> int:
        return x + y + self.magic


def make_multi(**kwargs: Any) -> gym.Env:
    return MultiSpaceEnv(**kwargs)


class TupleEnv(gym.Env):
    """Tuple observation; Discrete actions; terminates at random."""

    def __init__(self) -> None:
        self.observation_space = spaces.Tuple(
            (spaces.Box(-1.0, 1.0, (3,), dtype=np.float32), spaces.Discrete(5), spaces.MultiBinary([2, 2]))
        )
        self.action_space = spaces.Discrete(3)

    def _obs(self) -> Any:
        r = self.np_random
        return (
            r.uniform(-1, 1, 3).astype(np.float32),
            int(r.integers(0, 5)),
            r.integers(0, 2, (2, 2)).astype(np.int8),
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        return self._obs(), {}

    def step(self, action: Any) -> Any:
        done = bool(self.np_random.random() < 0.2)
        return self._obs(), float(action), done, False, {}


def make_tuple() -> gym.Env:
    return TupleEnv()


class CountEnv(gym.Env):
    """Trivial env with an optional failure, delay, bad info or render frames (kwargs via env_kwargs)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(
        self,
        fail_step: int = -1,
        fail_reset: bool = False,
        delay: float = 0.0,
        bad_info: bool = False,
        render_mode: str | None = None,
        obs_shape: Sequence[int] = (2,),
        dtype: str = "float32",
    ) -> None:
        self.observation_space = spaces.Box(-1e9, 1e9, tuple(obs_shape), dtype=np.dtype(dtype))
        self.action_space = spaces.Discrete(2)
        self.fail_step = fail_step
        self.fail_reset = fail_reset
        self.delay = delay
        self.bad_info = bad_info
        self.render_mode = render_mode
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        if self.fail_reset:
            raise RuntimeError("reset exploded on purpose")
        self.t = 0
        space: Any = self.observation_space
        return np.zeros(space.shape, space.dtype), {"pid": os.getpid()}

    def step(self, action: Any) -> Any:
        self.t += 1
        if self.t == self.fail_step:
            raise ValueError(f"step {self.t} exploded on purpose")
        if self.delay:
            time.sleep(self.delay)
        info: dict[str, Any] = {"pid": os.getpid()}
        if self.bad_info:
            info["handle"] = object()
        space: Any = self.observation_space
        obs = np.full(space.shape, self.t, space.dtype)
        return obs, 1.0, False, self.t >= 50, info

    def render(self) -> Any:
        return np.full((2, 3, 3), self.t, dtype=np.uint8)


def make_count(**kwargs: Any) -> gym.Env:
    return CountEnv(**kwargs)


class SlowStartHost(GymHost):
    """A host whose start() blocks the event loop (like a slow game launch) for ``delay`` s."""

    def __init__(self, num_envs: int, delay: float) -> None:
        super().__init__([CountEnv for _ in range(num_envs)])
        self.delay = delay

    async def start(self) -> None:
        time.sleep(self.delay)  # deliberately blocking: heartbeats must still flow


def make_slow_start_host(num_envs: int, worker_index: int = 0, delay: float = 2.0) -> EnvHost:
    return SlowStartHost(num_envs, delay)


class AsyncCountHost(EnvHost):
    """An asynchronous host (no blocking poll): steps await the loop, like an SC2 host."""

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs
        self.observation_space = spaces.Box(-1e9, 1e9, (2,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.t = [0] * num_envs

    async def reset(self, indices: Sequence[int], seeds: Sequence[int | None], options: Sequence[Any]) -> Any:
        await asyncio.sleep(0)
        out = []
        for i in indices:
            self.t[i] = 0
            out.append((np.zeros(2, np.float32), {"seed": seeds[list(indices).index(i)]}))
        return out

    async def step(self, actions: Sequence[Any]) -> list[StepResult]:
        await asyncio.sleep(0.001)
        out = []
        for i, a in enumerate(actions):
            self.t[i] += 1
            out.append(StepResult(np.full(2, self.t[i], np.float32), float(a), False, self.t[i] >= 5, {}))
        return out


def make_async_host(num_envs: int, worker_index: int = 0) -> EnvHost:
    return AsyncCountHost(num_envs)


class LayoutProbe(gym.Wrapper):
    """CartPole that reports what a process started by its worker gets (``fixed_layout`` tests)."""

    def child_personality(self) -> int:
        import subprocess

        out = subprocess.run(["cat", "/proc/self/personality"], capture_output=True, text=True, check=True, timeout=10)
        return int(out.stdout.strip(), 16)


def make_layout_probe() -> gym.Env:
    return LayoutProbe(gym.make("CartPole-v1"))


class LaneSaboteurEnv(CountEnv):
    """A CountEnv whose ``sabotage()`` (called through ``env_method``) writes, from inside its
    worker process, a truncated compact message and a compact RESULT for a request that was never
    sent onto the worker's local lane (found in the worker's ``--lane-fd`` argument): what a
    corrupted or confused local worker would send."""

    def sabotage(self) -> int:
        import socket
        import sys

        from sc2pool.pool import protocol as P
        from sc2pool.pool import wire

        fd = int(sys.argv[sys.argv.index("--lane-fd") + 1])
        raw = socket.socket(fileno=os.dup(fd))
        try:
            raw.setblocking(True)
            raw.sendall(P.Lane.frame(b"\xc1R\x01"))  # too short to hold a sequence number
            raw.sendall(P.Lane.frame(wire.compact_result(10**9, [0.0], [False], [False])))  # no such request
        finally:
            raw.close()
        return 2


def make_lane_saboteur() -> gym.Env:
    return LaneSaboteurEnv()
