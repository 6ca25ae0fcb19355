"""Option objects for :class:`~sc2pool.pool.vec_env.ZmqVecEnv`: the knobs beyond "which envs, how many
workers", grouped by the question they answer.

* :class:`FailurePolicy`: what happens when a worker dies or hangs.
* :class:`Timeouts`: how long the pool waits for workers, and how it tells a dead one from a slow one.
* :class:`RemoteWorkers`: workers on other machines: where they join, who starts them, who may join.
* :class:`LocalTuning`: how local worker processes are started (shared memory, CPU pinning, ASLR).

The common case needs none of them (``ZmqVecEnv([make_env] * 8)``); each object is frozen and
checks its fields when built, so a bad value is refused where it is written, naming the field.

The flat keywords of earlier releases (``join_timeout=``, ``on_failure=``, ``bind=`` ...) are still
accepted for one release: :func:`resolve` maps each onto its field with a ``DeprecationWarning``
naming the replacement (see :data:`DEPRECATED_KEYWORDS`).
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sc2pool.pool import security

if TYPE_CHECKING:
    from sc2pool.launchers.base import Launcher

ON_FAILURE = ("raise", "restart")


def _number(owner: str, field: str, value: Any, *, positive: bool, optional: bool = False) -> None:
    """Refuse ``value`` for ``owner.field`` unless it is a real number (> 0, or >= 0), or ``None``
    where ``optional``: TypeError for the wrong type, ValueError for the wrong range."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "a number or None" if optional else "a number"
        raise TypeError(f"{owner}.{field} must be {kind}, got {value!r}")
    if math.isnan(value) or (value <= 0 if positive else value < 0):
        raise ValueError(f"{owner}.{field} must be {'> 0' if positive else '>= 0'}, got {value!r}")


def _flag(owner: str, field: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}.{field} must be True or False, got {value!r}")


@dataclass(frozen=True)
class FailurePolicy:
    """What the pool does when a worker process dies or stops answering.

    Args:
        on_failure: ``"raise"`` (default): the failure raises a typed error
            (:class:`~sc2pool.errors.WorkerDied`, :class:`~sc2pool.errors.WorkerTimeout`) and the
            pool is closed. ``"restart"``: the worker is killed with its whole process group and
            replaced (a local one respawned with the same recipe; a remote one's env slots wait for
            a worker of the same env count and spaces to join). Its envs' episodes end *truncated*
            at the step that noticed it (``info["sc2pool.restarted"] = True``, reward 0,
            ``info["terminal_observation"]`` the last observation returned) and the observation is
            a fresh reset from the replacement; the other envs are unaffected. Exceptions raised by
            an env (:class:`~sc2pool.errors.EnvError`) still raise: a bug is not a crash.
        max_restarts: with ``"restart"``, how many failures each worker slot survives (a local
            worker, or the env range of a remote one); one more raises
            :class:`~sc2pool.errors.RestartLimitError` and closes the pool. ``None``: unlimited.
        replace_timeout: with ``"restart"``, seconds a vacant slot waits for its replacement to
            join; past it, :class:`~sc2pool.errors.ReplacementTimeout` (a respawned *local* worker
            that has not joined is killed and respawned again instead, counted).

    Raises:
        ValueError / TypeError: naming the field, for a value outside the above.
    """

    on_failure: str = "raise"
    max_restarts: int | None = 10
    replace_timeout: float = 60.0

    def __post_init__(self) -> None:
        if self.on_failure not in ON_FAILURE:
            raise ValueError(f"FailurePolicy.on_failure must be 'raise' or 'restart', got {self.on_failure!r}")
        if self.max_restarts is not None:
            if isinstance(self.max_restarts, bool) or not isinstance(self.max_restarts, int):
                raise TypeError(f"FailurePolicy.max_restarts must be an int or None, got {self.max_restarts!r}")
            if self.max_restarts < 0:
                raise ValueError(f"FailurePolicy.max_restarts must be >= 0 or None, got {self.max_restarts}")
        _number("FailurePolicy", "replace_timeout", self.replace_timeout, positive=True)

    @property
    def restart(self) -> bool:
        """Whether failed workers are replaced (``on_failure="restart"``)."""
        return self.on_failure == "restart"


@dataclass(frozen=True)
class Timeouts:
    """How long the pool waits, in seconds.

    Args:
        join: until every env slot is claimed by a worker (its HELLO).
        start: after that, for every host's ``start()`` (e.g. launching SC2) to finish; heartbeats
            flow meanwhile, so a slow start is not taken for death.
        step: optional bound on one step/reset/call. ``None`` (default) relies on heartbeats only,
            so a worker busy in a very long step is never killed while it is alive.
        heartbeat_interval: between heartbeats, both directions.
        heartbeat: a worker silent this long is declared hung or dead
            (:class:`~sc2pool.errors.WorkerTimeout`); workers likewise exit when the trainer has
            been silent this long. Must exceed ``heartbeat_interval``.
        close: what ``close()`` waits for workers to exit before killing their process groups.

    Raises:
        ValueError / TypeError: naming the field, for a value that is not a positive number
        (``close`` may be 0; ``step`` may be ``None``).
    """

    join: float = 60.0
    start: float = 300.0
    step: float | None = None
    heartbeat_interval: float = 0.5
    heartbeat: float = 5.0
    close: float = 3.0

    def __post_init__(self) -> None:
        for name in ("join", "start", "heartbeat_interval", "heartbeat"):
            _number("Timeouts", name, getattr(self, name), positive=True)
        _number("Timeouts", "step", self.step, positive=True, optional=True)
        _number("Timeouts", "close", self.close, positive=False)
        if self.heartbeat <= self.heartbeat_interval:
            raise ValueError(
                f"Timeouts.heartbeat ({self.heartbeat}) must exceed Timeouts.heartbeat_interval "
                f"({self.heartbeat_interval}): a worker would be declared dead between two heartbeats"
            )


@dataclass(frozen=True)
class RemoteWorkers:
    """Workers on other machines (``sc2pool worker --connect ...``, or a cluster launcher).

    Args:
        bind: also listen on this endpoint (e.g. ``"tcp://0.0.0.0:5555"``; port 0 picks a free
            one, see ``ZmqVecEnv.endpoints``). Must be loopback or ipc unless ``curve`` or a
            ``launcher`` is given, or ``allow_insecure``.
        local_envs: how many of the pool's envs the local workers host (default: one per local
            worker); remote workers fill the rest, in the order they join. Needs ``bind`` or
            ``launcher``.
        curve: CurveZMQ for the broker: a :class:`~sc2pool.pool.security.BrokerCurveConfig` or a keys
            directory made by ``sc2pool keygen DIR``. Only workers presenting an authorised key
            complete the handshake; everyone else is refused before any message.
        allow_insecure: allow a plain tcp ``bind`` on a non-loopback interface without ``curve``
            (a trusted private network only; a warning is logged).
        launcher: start the remote workers through a cluster manager
            (:class:`~sc2pool.launchers.RayLauncher`, :class:`~sc2pool.launchers.SlurmLauncher`):
            the remote envs are split evenly over its workers, the broker binds the launcher's
            endpoint unless ``bind`` is given, and without ``curve`` CurveZMQ is switched on with
            ephemeral keys handed to each worker through the launcher. With
            ``FailurePolicy("restart")`` the launcher also replaces workers that end.

    Raises:
        ValueError / TypeError: naming the field;
        :class:`~sc2pool.pool.security.InsecureBindError` (a ``ValueError``): a non-loopback ``bind`` with nothing securing it.
    """

    bind: str | None = None
    local_envs: int | None = None
    curve: security.BrokerCurveConfig | str | os.PathLike[str] | None = None
    allow_insecure: bool = False
    launcher: Launcher | None = None

    def __post_init__(self) -> None:
        if self.bind is not None and not isinstance(self.bind, str):
            raise TypeError(f"RemoteWorkers.bind must be an endpoint string or None, got {self.bind!r}")
        if self.local_envs is not None:
            if isinstance(self.local_envs, bool) or not isinstance(self.local_envs, int):
                raise TypeError(f"RemoteWorkers.local_envs must be an int or None, got {self.local_envs!r}")
            if self.local_envs < 0:
                raise ValueError(f"RemoteWorkers.local_envs must be >= 0, got {self.local_envs}")
            if self.bind is None and self.launcher is None:
                raise ValueError(
                    "RemoteWorkers.local_envs needs bind or launcher: without them no remote worker "
                    "can host the other envs"
                )
        _flag("RemoteWorkers", "allow_insecure", self.allow_insecure)
        if self.curve is not None and not isinstance(self.curve, (str, os.PathLike, security.BrokerCurveConfig)):
            raise TypeError(
                f"RemoteWorkers.curve must be a keys directory or a BrokerCurveConfig, got {self.curve!r}"
            )
        if self.bind is not None:
            security.check_bind_address(
                self.bind, self.curve is not None or self.launcher is not None, allow_insecure_remote=self.allow_insecure
            )

    @property
    def accepts_remote(self) -> bool:
        """Whether workers started elsewhere may host some of the envs."""
        return self.bind is not None or self.launcher is not None


@dataclass(frozen=True)
class LocalTuning:
    """How local worker processes are started; the defaults are the fast ones.

    Args:
        shared_memory: local workers write observations into a shared-memory file and exchange
            STEP/RESET over a private Unix socketpair; ``False`` sends everything through ZeroMQ,
            as remote workers always do.
        cpu_affinity: ``"auto"``: each local worker pinned to one core, round-robin over the
            cores the trainer may use, so lockstep hand-overs stay on one core (its game processes
            inherit the core); with two or more cores per worker, to a block of them instead, so
            that a worker's games do not share one core; ``None``: the OS places them; a sequence
            of core numbers: round-robin over those. The trainer is never pinned. See :mod:`sc2pool.pool.affinity`.
        disable_aslr: start local workers with address-space layout randomisation **off**
            (Linux), a security trade-off for speed: sibling workers then map the same code at the
            same addresses, so the CPU's branch predictors stay warm across the constant switches
            between them. Workers talk only to their trainer over private channels and turn
            randomisation back on for what they start (SC2 games, the engine). ``False`` keeps the
            OS default. Ignored where the OS has no such switch or refuses it. See
            :mod:`workers.layout`.

    Raises:
        ValueError / TypeError: naming the field.
    """

    shared_memory: bool = True
    cpu_affinity: str | Sequence[int] | None = "auto"
    disable_aslr: bool = True

    def __post_init__(self) -> None:
        _flag("LocalTuning", "shared_memory", self.shared_memory)
        _flag("LocalTuning", "disable_aslr", self.disable_aslr)
        policy = self.cpu_affinity
        if isinstance(policy, str):
            if policy != "auto":
                raise ValueError(f"LocalTuning.cpu_affinity must be 'auto', None or core numbers, got {policy!r}")
        elif policy is False:  # the affinity module has always read False as None
            object.__setattr__(self, "cpu_affinity", None)
        elif isinstance(policy, Sequence):
            object.__setattr__(self, "cpu_affinity", tuple(policy))  # frozen: no list shared with the caller
        elif policy is not None:
            raise ValueError(f"LocalTuning.cpu_affinity must be 'auto', None or core numbers, got {policy!r}")


@dataclass(frozen=True)
class PoolOptions:
    """The four option groups of one pool, each present (defaults filled in)."""

    failure: FailurePolicy = dataclasses.field(default_factory=FailurePolicy)
    timeouts: Timeouts = dataclasses.field(default_factory=Timeouts)
    remote: RemoteWorkers = dataclasses.field(default_factory=RemoteWorkers)
    tuning: LocalTuning = dataclasses.field(default_factory=LocalTuning)


# old flat keyword -> (the ZmqVecEnv argument that replaces it, the field of that option object)
DEPRECATED_KEYWORDS: Mapping[str, tuple[str, str]] = {
    "on_failure": ("failure", "on_failure"),
    "max_restarts": ("failure", "max_restarts"),
    "replace_timeout": ("failure", "replace_timeout"),
    "join_timeout": ("timeouts", "join"),
    "start_timeout": ("timeouts", "start"),
    "step_timeout": ("timeouts", "step"),
    "heartbeat_interval": ("timeouts", "heartbeat_interval"),
    "heartbeat_timeout": ("timeouts", "heartbeat"),
    "close_timeout": ("timeouts", "close"),
    "bind": ("remote", "bind"),
    "n_local_envs": ("remote", "local_envs"),
    "curve": ("remote", "curve"),
    "allow_insecure_remote": ("remote", "allow_insecure"),
    "launcher": ("remote", "launcher"),
    "shared_memory": ("tuning", "shared_memory"),
    "cpu_affinity": ("tuning", "cpu_affinity"),
    "fixed_layout": ("tuning", "disable_aslr"),
}
_GROUPS: Mapping[str, type] = {
    "failure": FailurePolicy,
    "timeouts": Timeouts,
    "remote": RemoteWorkers,
    "tuning": LocalTuning,
}


def resolve(
    legacy: Mapping[str, Any],
    *,
    failure: FailurePolicy | None = None,
    timeouts: Timeouts | None = None,
    remote: RemoteWorkers | None = None,
    tuning: LocalTuning | None = None,
    caller: str = "ZmqVecEnv",
    stacklevel: int = 3,
) -> PoolOptions:
    """The option objects, with the deprecated flat keywords in ``legacy`` folded into them.

    Args:
        legacy: keyword arguments given to ``caller`` beyond its own; each must be a key of
            :data:`DEPRECATED_KEYWORDS`.
        failure, timeouts, remote, tuning: the option objects given, or ``None`` (defaults).
        caller: named in the messages.
        stacklevel: of the warnings, so that they point at the caller's caller.

    Returns:
        A :class:`PoolOptions`; a ``DeprecationWarning`` is issued per old keyword, naming its
        replacement.

    Raises:
        TypeError: an unknown keyword, an option object of the wrong type, or an old keyword given
            together with the option object that replaces it (naming both).
        ValueError: a bad value, naming the field (from the option object's checks).
    """
    given: dict[str, Any] = {"failure": failure, "timeouts": timeouts, "remote": remote, "tuning": tuning}
    for arg, obj in given.items():
        if obj is not None and not isinstance(obj, _GROUPS[arg]):
            raise TypeError(f"{caller}({arg}=...) must be a {_GROUPS[arg].__name__}, got {type(obj).__name__}")
    changes: dict[str, dict[str, Any]] = {}
    for key, value in legacy.items():
        if key not in DEPRECATED_KEYWORDS:
            raise TypeError(f"{caller}() got an unexpected keyword argument {key!r}")
        arg, field = DEPRECATED_KEYWORDS[key]
        cls = _GROUPS[arg].__name__
        if given[arg] is not None:
            raise TypeError(
                f"{caller}() got both {key}= and {arg}=; {key}= is the deprecated spelling of "
                f"{arg}={cls}({field}=...): give only {arg}="
            )
        warnings.warn(
            f"{caller}({key}=...) is deprecated and will be removed in the next release; "
            f"use {arg}={cls}({field}=...) (from sc2pool.options)",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        changes.setdefault(arg, {})[field] = value
    built = {arg: given[arg] if given[arg] is not None else _GROUPS[arg](**changes.get(arg, {})) for arg in _GROUPS}
    return PoolOptions(**built)
