"""The environment-host contract: what a worker process runs.

A worker process owns one asyncio event loop and one ``EnvHost``. The host holds ``num_envs``
environments of identical spaces and exposes them as *async* methods, so that a host whose envs
are themselves asynchronous (StarCraft II games driven by burnysc2, which must own the loop) and a
host of plain gymnasium envs look the same to the worker's message loop.

The worker, not the host, implements SB3's same-step auto-reset: after ``step`` reports
``terminated or truncated`` for env ``i`` the worker calls ``reset([i], ...)`` and ships both the
terminal and the fresh observation. Hosts therefore never reset on their own.

Hosts are created from an import path plus msgpack-able keyword arguments (``HostSpec``), so that
a remote worker can build one without anything being pickled on the network.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym


class EnvFailure(Exception):
    """An environment failed. ``index`` is the env's index inside the host (local index).

    Raised, it is an env error: the trainer gets a typed ``EnvError`` (a bug is not a crash).

    ``recoverable=True`` marks an infrastructure failure of one env that the host can repair by
    itself (e.g. its game process crashed: websocket closed, protocol error). To use it, a host's
    :meth:`EnvHost.step` puts ``EnvFailure(i, cause, recoverable=True)`` *in place of* env ``i``'s
    :class:`StepResult` in the list it returns (so the other envs' results survive) and implements
    :meth:`EnvHost.recover`. The worker then calls ``recover(i)`` and reports env ``i``'s episode
    as truncated at this step, exactly as a restarted worker's envs are reported (reward 0,
    ``info["TimeLimit.truncated"]``, ``info["terminal_observation"]`` = the last observation the
    worker sent for env ``i``, ``info["sc2pool.restarted"] = True``, ``info["sc2pool.failure"]``),
    with ``recover``'s observation as the next one. If ``recover`` raises, it is an env error.
    """

    def __init__(self, index: int, cause: BaseException, recoverable: bool = False) -> None:
        super().__init__(f"env {index}: {type(cause).__name__}: {cause}")
        self.index = index
        self.cause = cause
        self.recoverable = recoverable


@dataclass(frozen=True)
class StepResult:
    """The raw outcome of one env's step, before the worker's auto-reset."""

    obs: Any
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)


class EnvHost(abc.ABC):
    """Hosts ``num_envs`` environments inside a worker's asyncio loop.

    All methods are called from the worker's event loop, one at a time (the worker never issues
    two overlapping calls), with *local* env indices ``0 .. num_envs-1``. A method that fails for
    one env raises ``EnvFailure(index, cause)`` so the trainer can name the env.

    A purely synchronous host (no background tasks) may set ``blocking_poll_ok = True`` and also
    provide ``step_sync(actions) -> (obs, rewards, terminated, truncated, infos)`` (five lists, one
    entry per env; raises ``EnvFailure`` like :meth:`step`): the worker then steps it without a
    coroutine or a :class:`StepResult` per env, which on small envs is a sizeable share of a step.
    ``step_sync`` is used only where it is defined by the class that defines ``step`` (or by a
    subclass of it): a subclass that overrides ``step`` alone is still stepped through ``step``.
    """

    num_envs: int
    observation_space: gym.Space[Any]
    action_space: gym.Space[Any]
    render_mode: str | None = None

    async def start(self) -> None:  # noqa: B027 (optional hook)
        """Acquire resources (launch games, build envs). Called once, before anything else.

        May take seconds; the worker keeps heart-beating meanwhile.
        """

    @abc.abstractmethod
    async def reset(
        self,
        indices: Sequence[int],
        seeds: Sequence[int | None],
        options: Sequence[dict[str, Any] | None],
    ) -> list[tuple[Any, dict[str, Any]]]:
        """Reset the given envs; return ``(obs, reset_info)`` per index, in order."""

    @abc.abstractmethod
    async def step(self, actions: Sequence[Any]) -> list[StepResult]:
        """Step every env (``len(actions) == num_envs``) with its action; one result per env
        (or, for an env the host can repair, ``EnvFailure(i, cause, recoverable=True)``: see
        :class:`EnvFailure` and :meth:`recover`)."""

    async def recover(self, index: int) -> tuple[Any, dict[str, Any]]:
        """Repair env ``index`` after ``step`` returned ``EnvFailure(index, ..., recoverable=True)``
        for it (relaunch its game, reconnect...) and start a new episode: return ``(obs, reset_info)``
        like :meth:`reset`. Optional: the default refuses, which the trainer sees as an env error."""
        raise NotImplementedError(f"{type(self).__name__} cannot recover env {index}")

    async def call(self, index: int, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        """``env_method``: call method ``name`` of env ``index``."""
        raise NotImplementedError(f"{type(self).__name__} does not support env_method({name!r})")

    async def get_attr(self, index: int, name: str) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not support get_attr({name!r})")

    async def set_attr(self, index: int, name: str, value: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not support set_attr({name!r})")

    async def has_attr(self, index: int, name: str) -> bool:
        return False

    async def env_is_wrapped(self, index: int, wrapper_path: str) -> bool:
        """Whether env ``index`` is wrapped in the wrapper class named by import path."""
        return False

    async def render(self, index: int) -> Any:
        """The env's ``render()`` result (an RGB array for ``rgb_array`` mode), or None."""
        return None

    async def close(self) -> None:  # noqa: B027 (optional hook)
        """Release everything (envs, game processes). Must be idempotent and never raise."""


@dataclass(frozen=True)
class HostSpec:
    """How to build a host in a worker: ``target`` is ``"module:callable"``; ``kwargs`` must be
    msgpack-able. The callable is called as ``target(num_envs=k, worker_index=w, **kwargs)`` and
    returns an ``EnvHost``."""

    target: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    def build(self, num_envs: int, worker_index: int) -> EnvHost:
        host = resolve(self.target)(num_envs=num_envs, worker_index=worker_index, **self.kwargs)
        if not isinstance(host, EnvHost):
            raise TypeError(f"{self.target} returned {type(host).__name__}, not an EnvHost")
        return host


def resolve(path: str) -> Any:
    """Import ``"package.module:attr.sub"`` and return the attribute."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'module:attribute', got {path!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj
