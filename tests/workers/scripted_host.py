"""A scripted :class:`~workers.host.EnvHost` for the worker's process-free tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from workers.host import EnvFailure, EnvHost, StepResult

N = 3


class ScriptedHost(EnvHost):
    """``N`` envs whose observation is ``[env index, step count]``; ``script[i]`` says what env
    ``i``'s next step does: ``None`` (a plain step), ``"end"`` (episode terminates), ``"info"``,
    ``"crash"`` (recoverable failure), ``"fatal"`` (unrecoverable), ``"bad-info"``, ``"junk"``."""

    def __init__(self) -> None:
        self.num_envs = N
        self.observation_space = gym.spaces.Box(-1e9, 1e9, (2,), np.float32)
        self.action_space = gym.spaces.Discrete(4)
        self.counts = [0] * N
        self.script: dict[int, str] = {}
        self.actions: list[Any] = []
        self.recovered: list[int] = []

    def _obs(self, i: int) -> np.ndarray:
        return np.array([i, self.counts[i]], np.float32)

    async def reset(self, indices: Sequence[int], seeds: Sequence[int | None],
                    options: Sequence[dict[str, Any] | None]) -> list[tuple[Any, dict[str, Any]]]:
        out = []
        for i, seed in zip(indices, seeds, strict=True):
            self.counts[i] = 0
            out.append((self._obs(i), {"seed": seed}))
        return out

    async def step(self, actions: Sequence[Any]) -> list[Any]:
        self.actions.append(list(actions))
        out: list[Any] = []
        for i in range(N):
            self.counts[i] += 1
            what = self.script.pop(i, None)
            if what == "crash":
                out.append(EnvFailure(i, ConnectionError("game died"), recoverable=True))
            elif what == "fatal":
                out.append(EnvFailure(i, RuntimeError("broken for good")))
            elif what == "junk":
                out.append((self._obs(i), 0.0, False, False, {}))
            else:
                info = {"x": 1} if what == "info" else {"bad": object()} if what == "bad-info" else {}
                out.append(StepResult(self._obs(i), float(i), what == "end", False, info))
        return out

    async def recover(self, index: int) -> tuple[Any, dict[str, Any]]:
        self.recovered.append(index)
        self.counts[index] = 0
        return self._obs(index), {"recovered": True}

    async def get_attr(self, index: int, name: str) -> Any:
        return f"{name}@{index}"
