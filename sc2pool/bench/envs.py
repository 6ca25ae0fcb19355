"""Benchmark environments: cheap to build, deterministic, importable by path.

Every env here is a plain ``gymnasium.Env`` with a ``Discrete(2)`` action space, so one stepping
loop drives all of them and every vector-env implementation under test (SB3's, gymnasium's and
ours) receives exactly the same work. They are importable as ``"sc2pool.bench.envs:<name>"`` so a
remote worker (or ``sc2pool worker --env``) can build them from an import path, and
``EnvFactory`` is a picklable callable so SB3's ``SubprocVecEnv`` and gymnasium's
``AsyncVectorEnv`` can ship it to their children.

The kinds, and why each exists:

- ``cartpole``: the real ``CartPole-v1`` (through ``gymnasium.make``, wrappers included). The
  per-step env cost is ~10 us, so the measurement is dominated by the vector env's own overhead.
- ``busy``: burns ``busy_ms`` (default 1 ms) per step spinning on ``time.perf_counter``. This is
  the "expensive env" case: the ideal vector env adds nothing, so ``n`` envs in ``n`` processes
  should run at ``n x`` the in-process single-env rate. Spinning on the wall clock (rather than a
  calibrated loop count) keeps the env's cost fixed even when the machine is noisy, so the ideal is
  stable; a process that is descheduled still loses its time, which is the real effect to measure.
- ``image``: ``(84, 84, 3)`` uint8 observations (Atari-sized frames, ~21 KB per env per step).
- ``features``: ``(64, 64, 17)`` float32 observations (a feature-layer stack, ~278 KB per env per
  step), where copying the observation dominates.
- ``noop``: does nothing and returns a tiny observation; the vector env's per-step overhead alone.

Observations are fresh arrays each step (a copy of a fixed frame with one element set from the
step counter), as real envs allocate a new observation per step; that costs a memcpy, identical
for every implementation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

#: Steps after which the synthetic envs truncate, so that auto-reset is exercised as in real use.
EPISODE_STEPS = 500


class _SyntheticEnv(gym.Env[np.ndarray, np.int64]):
    """Shared machinery: a fixed base frame, a step counter, truncation after ``episode_steps``."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, shape: tuple[int, ...], dtype: Any, episode_steps: int = EPISODE_STEPS) -> None:
        super().__init__()
        dtype = np.dtype(dtype)
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            low: Any = info.min
            high: Any = info.max
        else:
            low, high = -np.inf, np.inf
        self.observation_space = spaces.Box(low=low, high=high, shape=shape, dtype=dtype)
        self.action_space = spaces.Discrete(2)
        self.episode_steps = int(episode_steps)
        # A deterministic, non-constant frame (so nothing can special-case zeros).
        n = int(np.prod(shape))
        self._frame = (np.arange(n, dtype=np.int64) % 251).astype(dtype).reshape(shape)
        self._t = 0

    def _obs(self) -> np.ndarray:
        obs = self._frame.copy()
        obs.flat[0] = self._t % 100
        return obs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._t = 0
        return self._obs(), {}

    def _work(self) -> None:
        """The env's per-step cost; nothing by default."""

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._work()
        self._t += 1
        reward = 1.0 if int(action) == 1 else 0.0
        truncated = self._t >= self.episode_steps
        return self._obs(), reward, False, truncated, {}


class NoopEnv(_SyntheticEnv):
    """Does nothing per step; a ``(1,)`` float32 observation. Measures pure vector-env overhead."""

    def __init__(self, episode_steps: int = EPISODE_STEPS) -> None:
        super().__init__((1,), np.float32, episode_steps)


class BusyEnv(_SyntheticEnv):
    """Burns ``busy_ms`` of CPU per step by spinning on ``time.perf_counter``."""

    def __init__(self, busy_ms: float = 1.0, episode_steps: int = EPISODE_STEPS) -> None:
        super().__init__((4,), np.float32, episode_steps)
        if busy_ms < 0:
            raise ValueError(f"busy_ms must be >= 0, got {busy_ms}")
        self.busy_s = busy_ms / 1000.0

    def _work(self) -> None:
        deadline = time.perf_counter() + self.busy_s
        while time.perf_counter() < deadline:
            pass


class ImageEnv(_SyntheticEnv):
    """``(84, 84, 3)`` uint8 observations by default (any shape/dtype may be given)."""

    def __init__(
        self,
        shape: tuple[int, ...] | list[int] = (84, 84, 3),
        dtype: str = "uint8",
        episode_steps: int = EPISODE_STEPS,
    ) -> None:
        super().__init__(tuple(int(s) for s in shape), np.dtype(dtype), episode_steps)


def make_cartpole() -> gym.Env[Any, Any]:
    return gym.make("CartPole-v1")


def make_noop(episode_steps: int = EPISODE_STEPS) -> gym.Env[Any, Any]:
    return NoopEnv(episode_steps=episode_steps)


def make_busy(busy_ms: float = 1.0, episode_steps: int = EPISODE_STEPS) -> gym.Env[Any, Any]:
    return BusyEnv(busy_ms=busy_ms, episode_steps=episode_steps)


def make_image(episode_steps: int = EPISODE_STEPS) -> gym.Env[Any, Any]:
    return ImageEnv((84, 84, 3), "uint8", episode_steps)


def make_features(episode_steps: int = EPISODE_STEPS) -> gym.Env[Any, Any]:
    return ImageEnv((64, 64, 17), "float32", episode_steps)


#: kind name -> factory import path (for HostSpec / ``sc2pool worker --env``).
KINDS: dict[str, str] = {
    "cartpole": "sc2pool.bench.envs:make_cartpole",
    "noop": "sc2pool.bench.envs:make_noop",
    "busy": "sc2pool.bench.envs:make_busy",
    "image": "sc2pool.bench.envs:make_image",
    "features": "sc2pool.bench.envs:make_features",
}


@dataclass(frozen=True)
class EnvFactory:
    """A picklable ``env_fn``: ``EnvFactory("busy", {"busy_ms": 1.0})()`` builds a ``BusyEnv``.

    A dataclass rather than a lambda so that every implementation (including ones that pickle with
    the standard library) can receive it, and so that it can be turned back into an import path
    plus msgpack-able kwargs for workers that build envs by path.
    """

    kind: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown benchmark env kind {self.kind!r}; known: {sorted(KINDS)}")

    @property
    def target(self) -> str:
        return KINDS[self.kind]

    def __call__(self) -> gym.Env[Any, Any]:
        env: gym.Env[Any, Any] = _MAKERS[self.kind](**self.kwargs)
        return env


_MAKERS: dict[str, Any] = {
    "cartpole": make_cartpole,
    "noop": make_noop,
    "busy": make_busy,
    "image": make_image,
    "features": make_features,
}
