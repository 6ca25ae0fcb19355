"""An :class:`~workers.host.EnvHost` over plain gymnasium environments.

The envs are synchronous, so every method simply runs them in the worker's event loop (a coroutine
that never suspends costs about a microsecond, far less than a thread hop). The worker's heartbeats
run on their own thread, so even an env whose ``step`` takes many seconds does not make the worker
look dead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym

from workers.host import EnvFailure, EnvHost, StepResult, resolve

EnvFactory = Callable[[], gym.Env]


class GymHost(EnvHost):
    """Hosts ``len(env_fns)`` gymnasium envs built by calling each factory once."""

    # Plain gym envs run no background tasks, so the worker may wait for messages in a blocking
    # zmq_poll instead of through the event loop (see workers.transport.Transport.recv).
    blocking_poll_ok = True

    def __init__(self, env_fns: Sequence[EnvFactory]) -> None:
        if not env_fns:
            raise ValueError("GymHost needs at least one env factory")
        envs: list[gym.Env] = []
        for i, fn in enumerate(env_fns):
            try:
                envs.append(fn())
            except Exception as exc:
                raise EnvFailure(i, exc) from exc
        if len({id(getattr(env, "unwrapped", env)) for env in envs}) != len(envs):
            raise ValueError(
                "the env factories returned the same env instance more than once; each factory call "
                "must create a new env (e.g. `lambda: gym.make(...)`, not `lambda: env`)"
            )
        self.envs = envs
        self.num_envs = len(envs)
        self.observation_space = envs[0].observation_space
        self.action_space = envs[0].action_space
        self.render_mode = getattr(envs[0], "render_mode", None)

    async def reset(
        self,
        indices: Sequence[int],
        seeds: Sequence[int | None],
        options: Sequence[dict[str, Any] | None],
    ) -> list[tuple[Any, dict[str, Any]]]:
        out = []
        for i, seed, opts in zip(indices, seeds, options, strict=True):
            try:
                # As SB3: options are passed only when non-empty.
                if opts:
                    out.append(self.envs[i].reset(seed=seed, options=opts))
                else:
                    out.append(self.envs[i].reset(seed=seed))
            except Exception as exc:
                raise EnvFailure(i, exc) from exc
        return out

    async def step(self, actions: Sequence[Any]) -> list[StepResult]:
        return [StepResult(*r) for r in zip(*self.step_sync(actions), strict=True)]

    def step_sync(
        self, actions: Sequence[Any]
    ) -> tuple[list[Any], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        """Step every env: observations, rewards, terminated and truncated flags, infos (see
        :class:`~workers.host.EnvHost`: the worker's fast path for synchronous hosts)."""
        obs: list[Any] = []
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos: list[dict[str, Any]] = []
        for i, env in enumerate(self.envs):
            try:
                o, r, te, tr, info = env.step(actions[i])
                rewards.append(float(r))  # inside the guard: a reward that is no number names its env
            except Exception as exc:
                raise EnvFailure(i, exc) from exc
            obs.append(o)
            terminated.append(bool(te))
            truncated.append(bool(tr))
            infos.append(info)
        return obs, rewards, terminated, truncated, infos

    def _guard(self, index: int, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as exc:
            raise EnvFailure(index, exc) from exc

    async def call(self, index: int, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        env = self.envs[index]
        return self._guard(index, lambda: env.get_wrapper_attr(name)(*args, **kwargs))

    async def get_attr(self, index: int, name: str) -> Any:
        env = self.envs[index]
        return self._guard(index, lambda: env.get_wrapper_attr(name))

    async def set_attr(self, index: int, name: str, value: Any) -> None:
        # As SB3's DummyVecEnv/SubprocVecEnv: set on the outermost wrapper.
        env = self.envs[index]
        self._guard(index, lambda: setattr(env, name, value))

    async def has_attr(self, index: int, name: str) -> bool:
        try:
            self.envs[index].get_wrapper_attr(name)
        except AttributeError:
            return False
        return True

    async def env_is_wrapped(self, index: int, wrapper_path: str) -> bool:
        # Compare by import path along each wrapper's MRO (isinstance semantics) so the worker never
        # has to import the wrapper's module (e.g. SB3's Monitor would drag in torch).
        env: Any = self.envs[index]
        while isinstance(env, gym.Wrapper):
            for cls in type(env).__mro__:
                if f"{cls.__module__}:{cls.__qualname__}" == wrapper_path:
                    return True
            env = env.env
        return False

    async def render(self, index: int) -> Any:
        env = self.envs[index]
        return self._guard(index, env.render)

    async def close(self) -> None:
        for env in self.envs:
            try:
                env.close()
            except Exception:  # close must never raise
                pass
        self.envs = []


def make_host(
    num_envs: int, worker_index: int = 0, env: str = "", env_kwargs: dict[str, Any] | None = None
) -> GymHost:
    """HostSpec factory: ``env`` is ``"module:factory"`` (called with ``**env_kwargs`` once per env)
    or a registered gymnasium id such as ``"CartPole-v1"`` (built with ``gym.make(id, **env_kwargs)``)."""
    if not env:
        raise ValueError("make_host needs env='module:factory' or a gymnasium env id")
    kwargs = dict(env_kwargs or {})
    factory: Callable[..., gym.Env]
    if ":" in env and not env.split(":", 1)[1].endswith(tuple(f"-v{i}" for i in range(10))):
        factory = resolve(env)
        if not callable(factory):
            raise TypeError(f"{env} is not callable")
    else:

        def factory(**kw: Any) -> gym.Env:
            return gym.make(env, **kw)

    return GymHost([lambda: factory(**kwargs) for _ in range(num_envs)])
