"""Envs and hosts for the recovery tests (imported by worker processes as ``reliability.recovery_envs``)."""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from workers.gym_host import GymHost
from workers.host import EnvFailure, EnvHost, StepResult


class Counter(gym.Env[np.ndarray, np.int64]):
    """obs = [steps since reset, pid]: a restarted env is visible (count back to 0, new pid), and an
    unaffected env's count goes on by exactly 1 per step."""

    def __init__(self, horizon: int = 1000) -> None:
        self.observation_space = spaces.Box(0, 1e9, (2,), dtype=np.float64)
        self.action_space = spaces.Discrete(2)
        self.horizon = horizon
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.t = 0
        return np.array([0.0, os.getpid()]), {}

    def step(self, action: Any) -> Any:
        self.t += 1
        return np.array([float(self.t), os.getpid()]), 1.0, False, self.t >= self.horizon, {}


def make_counter(**kwargs: Any) -> gym.Env[np.ndarray, np.int64]:
    return Counter(**kwargs)


class FlakyGameHost(GymHost):
    """Stands in for an SC2 host whose game process crashes: env ``crash_env`` reports a
    recoverable ``EnvFailure`` every ``crash_every`` steps (in place of its result), and
    :meth:`recover` "relaunches" it (a fresh env)."""

    def __init__(self, num_envs: int, crash_env: int, crash_every: int) -> None:
        super().__init__([Counter for _ in range(num_envs)])
        self.crash_env = crash_env
        self.crash_every = crash_every
        self.steps = 0
        self.recovered = 0

    async def step(self, actions: Sequence[Any]) -> list[StepResult]:
        results: list[Any] = await super().step(actions)
        self.steps += 1
        if self.steps % self.crash_every == 0:
            results[self.crash_env] = EnvFailure(
                self.crash_env, ConnectionResetError("game websocket closed"), recoverable=True
            )
        return results

    async def recover(self, index: int) -> tuple[Any, dict[str, Any]]:
        self.recovered += 1
        self.envs[index] = Counter()
        obs, info = self.envs[index].reset()
        return obs, {**info, "recovered": self.recovered}


def make_flaky_host(num_envs: int, worker_index: int = 0, crash_env: int = 1, crash_every: int = 5) -> EnvHost:
    return FlakyGameHost(num_envs, crash_env, crash_every)


def _first_to_claim(marker: str) -> bool:
    """True for the one process that creates ``marker`` first (atomic, across processes)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    os.close(fd)
    return True


class DiesOnceAtStartHost(GymHost):
    """``start()`` kills its own process (kill -9) in the first worker that starts: a crash after
    the worker joined and before it is ready, like a worker killed while launching its games."""

    def __init__(self, num_envs: int, marker: str) -> None:
        super().__init__([Counter for _ in range(num_envs)])
        self.marker = marker

    async def start(self) -> None:
        if _first_to_claim(self.marker):
            os.kill(os.getpid(), signal.SIGKILL)
        await super().start()


def make_dies_once_at_start_host(num_envs: int, worker_index: int = 0, marker: str = "") -> EnvHost:
    return DiesOnceAtStartHost(num_envs, marker)


def make_counter_dying_once(marker: str = "") -> gym.Env[np.ndarray, np.int64]:
    """A Counter, except that the first build (in any worker) kills its worker before it joins."""
    if _first_to_claim(marker):
        os.kill(os.getpid(), signal.SIGKILL)
    return Counter()
