"""Envs built from a plain JSON spec of their spaces, for the wire-layout tests.

The spec is deliberately *not* sc2pool's own space description (``sc2pool.pool.spaces.space_to_msg``):
an env built from it must not inherit a bug of the code under test. A leaf is
``["box", dtype, shape]``, ``["discrete", n, start]``, ``["multidiscrete", nvec, dtype]`` or
``["multibinary", shape]``; a container is ``["dict", [[key, sub], ...]]`` (kept in that order, as
an ``OrderedDict``) or ``["tuple", [sub, ...]]``. Importable by CLI workers (``--env
wire_envs:make_spec_env --env-kwargs JSON``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces


def build_space(spec: Any) -> spaces.Space[Any]:
    kind = spec[0]
    if kind == "dict":
        return spaces.Dict(OrderedDict((key, build_space(sub)) for key, sub in spec[1]))
    if kind == "tuple":
        return spaces.Tuple([build_space(sub) for sub in spec[1]])
    if kind == "box":
        dtype = np.dtype(spec[1])
        shape = tuple(spec[2])
        if dtype.kind == "f":
            return spaces.Box(-2.0, 3.0, shape, dtype=dtype)
        return spaces.Box(0 if dtype.kind == "u" else -7, 9, shape, dtype=dtype)
    if kind == "discrete":
        return spaces.Discrete(spec[1], start=spec[2])
    if kind == "multidiscrete":
        return spaces.MultiDiscrete(np.asarray(spec[1]), dtype=np.dtype(spec[2]))
    if kind == "multibinary":
        return spaces.MultiBinary(list(spec[1]))
    raise ValueError(f"unknown spec {spec!r}")


def _total(value: Any) -> float:
    """Sum of every number in a (nested) action, so that rewards depend on every leaf."""
    if isinstance(value, dict):
        return sum(_total(v) for v in value.values())
    if isinstance(value, tuple):
        return sum(_total(v) for v in value)
    return float(np.sum(np.asarray(value, dtype=np.float64)))


def _scramble(value: Any) -> Any:
    """The same values in awkward memory: the other byte order, Fortran order or negative strides
    (the pool must cast them into its buffers, and carry terminal observations, as they are)."""
    if isinstance(value, dict):
        return {k: _scramble(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_scramble(v) for v in value)
    if not isinstance(value, np.ndarray):
        return value
    if value.dtype.itemsize > 1:
        value = value.astype(value.dtype.newbyteorder())
    if value.ndim >= 2:
        return np.asfortranarray(value)
    if value.ndim == 1:
        return value[::-1].copy()[::-1]
    return value


class SpecEnv(gym.Env):
    """Observations sampled from its own (seeded) observation space; episodes of random length;
    the info echoes the action received, so a mis-assigned action shows as well as an observation."""

    def __init__(self, obs: Any, act: Any, episode_len: int = 5, scramble: bool = False) -> None:
        self.observation_space = build_space(obs)
        self.action_space = build_space(act)
        self.episode_len = episode_len
        self.scramble = scramble
        self._t = 0

    def _obs(self) -> Any:
        obs = self.observation_space.sample()
        if isinstance(obs, dict):  # hand the pool a dict in another order than the space's
            obs = dict(reversed(list(obs.items())))
        if self.scramble:
            obs = _scramble(obs)
        return obs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        if seed is not None:
            self.observation_space.seed(int(self.np_random.integers(2**31)))
        self._t = 0
        return self._obs(), {"t0": self._t}

    def step(self, action: Any) -> Any:
        self._t += 1
        terminated = bool(self.np_random.random() < 0.15)
        truncated = self._t >= self.episode_len
        return self._obs(), _total(action), terminated, truncated, {"act": action}


def make_spec_env(**kwargs: Any) -> gym.Env:
    return SpecEnv(**kwargs)


def make_unsorted() -> gym.Env:
    """An OrderedDict observation whose keys are not sorted, MultiDiscrete beside floats."""
    return SpecEnv(
        obs=["dict", [["z_float", ["box", "<f4", [3]]], ["md", ["multidiscrete", [4, 5], "<i8"]], ["a", ["discrete", 3, 0]]]],
        act=["discrete", 2, 0],
    )


def make_dict_action_env() -> gym.Env:
    """Flat observations, a Dict action space with a nested Tuple."""
    return SpecEnv(
        obs=["box", "<f4", [2]],
        act=["dict", [["move", ["box", "<f4", [2]]], ["fire", ["discrete", 2, 0]],
                      ["aux", ["tuple", [["multibinary", [3]], ["discrete", 4, 1]]]]]],
    )


def make_tuple_obs_env() -> gym.Env:
    """A Tuple observation (not sorted by anything), Discrete actions."""
    return SpecEnv(
        obs=["tuple", [["box", "<f4", [3]], ["discrete", 3, 0], ["multibinary", [2]], ["box", "<f8", [2]]]],
        act=["discrete", 3, 0],
        episode_len=9,
    )


def make_unsorted_discrete() -> gym.Env:
    """:func:`make_unsorted`'s observations with a 3-way Discrete action, episodes of 9 steps."""
    return SpecEnv(
        obs=["dict", [["z_float", ["box", "<f4", [3]]], ["md", ["multidiscrete", [4, 5], "<i8"]], ["a", ["discrete", 3, 0]]]],
        act=["discrete", 3, 0],
        episode_len=9,
    )
