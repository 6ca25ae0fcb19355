"""HELLO admission: whether a worker that says HELLO joins the pool, waits as a spare or is refused.

:func:`admit` is a pure function of the typed HELLO (:class:`sc2pool.pool.wire.Hello`) and a :class:`PoolView` (plain data: the
pool's size, state, joined workers, local reservations, vacancies and spaces), so every rule can be
tested without sockets or processes. The registry (:mod:`sc2pool.broker.registry`) builds the view,
calls :func:`admit_frame` (which reads the HELLO frame, then calls :func:`admit`) and carries the decision out (WELCOME, REFUSE, or a place among the spares).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gymnasium import spaces

from sc2pool.errors import PoolError, ProtocolError, SpaceError, SpaceMismatchError, WorkerRefusedError
from sc2pool.pool import security, wire
from sc2pool.pool.spaces import ObsLayout, check_layout, space_from_msg, spaces_equal

# Remote workers waiting as spares at most: a bound on what strangers can make the broker hold.
MAX_SPARES = 64


@dataclass(frozen=True)
class Joined:
    """A worker already in the pool, as admission sees it."""

    name: str
    hostname: str
    pid: int
    n_envs: int
    local: bool


@dataclass(frozen=True)
class Reservation:
    """Env slots ``[lo, hi)`` reserved for the local worker ``name``. ``started``: its process runs
    (a HELLO under its name is only believed from that process, which echoes ``token``)."""

    name: str
    lo: int
    hi: int
    token: str
    started: bool
    has_lane: bool


@dataclass(frozen=True)
class Opening:
    """Vacant env slots ``[lo, hi)``; ``local_name`` is the local worker that must refill them,
    ``None`` when any remote worker of ``hi - lo`` envs may."""

    lo: int
    hi: int
    local_name: str | None


@dataclass(frozen=True)
class PoolView:
    """What admission needs to know about the pool, as plain data."""

    n_envs: int
    next_remote: int  # the first env slot not reserved for local workers nor taken by a remote one
    running: bool = False
    closed: bool = False
    restart: bool = False  # on_failure="restart"
    workers: Sequence[Joined] = ()
    local: Mapping[str, Reservation] | None = None
    vacancies: Sequence[Opening] = ()
    n_spares: int = 0
    observation_space: spaces.Space[Any] | None = None
    action_space: spaces.Space[Any] | None = None
    render_mode: str | None = None  # the first worker's: every worker must render the same way


@dataclass(frozen=True)
class Admit:
    """``hello``'s worker joins with env slots ``[lo, hi)``. ``vacancy``: the index in
    ``PoolView.vacancies`` it refills (its envs need a reset first); ``layout``: set for the pool's
    first worker, whose spaces become the pool's; ``compact``: it takes compact STEPs over ZeroMQ."""

    hello: wire.Hello
    lo: int
    hi: int
    local: bool
    observation_space: spaces.Space[Any]
    action_space: spaces.Space[Any]
    vacancy: int | None = None
    layout: ObsLayout | None = None
    compact: bool = False


@dataclass(frozen=True)
class Refuse:
    """Refused with ``reason`` (sent in REFUSE). ``fatal``: the refused worker is one of the pool's
    own local workers, whose envs can never join, so the pool fails with it at once rather than
    turning a clear cause into a join timeout."""

    reason: str
    fatal: PoolError | None = None


@dataclass(frozen=True)
class Spare:
    """Not needed now; ``hello``'s worker may wait (heartbeating) to take over a vacancy of its size."""

    hello: wire.Hello


Decision = Admit | Refuse | Spare


def check_spaces(
    hello: wire.Hello,
    obs_space: spaces.Space[Any],
    act_space: spaces.Space[Any],
    pool_obs: spaces.Space[Any] | None,
    pool_act: spaces.Space[Any] | None,
) -> None:
    """Raise :class:`SpaceMismatchError` unless the spaces rebuilt from a HELLO lay out their
    arrays exactly as the worker's own spaces do (the layout it declares beside them), and
    equal the pool's spaces once those are known."""
    if not hello.declares_layout:
        raise SpaceMismatchError("HELLO declares no array layout (a worker of another sc2pool version?)")
    try:
        check_layout(obs_space, hello.observation_layout, "observation space")
        check_layout(act_space, hello.action_layout, "action space")
    except SpaceMismatchError:
        raise
    except SpaceError as exc:
        raise SpaceMismatchError(f"bad space description: {exc}") from None
    if pool_obs is not None and pool_act is not None:
        if not spaces_equal(obs_space, pool_obs):
            raise SpaceMismatchError(f"observation space {obs_space} differs from the pool's {pool_obs}")
        if not spaces_equal(act_space, pool_act):
            raise SpaceMismatchError(f"action space {act_space} differs from the pool's {pool_act}")


def version_refusal(version: Any) -> str:
    """The REFUSE reason for a HELLO of another protocol version, naming both versions."""
    return (
        f"protocol version mismatch: worker speaks version {version!r}, "
        f"trainer speaks version {wire.PROTOCOL_VERSION}"
    )


def spare_ok(hello: wire.Hello, pool: PoolView) -> bool:
    """A remote worker may wait as a spare if it could replace one of the pool's remote workers
    (same env count, same spaces)."""
    if pool.n_spares >= MAX_SPARES or hello.local or pool.observation_space is None:
        return False
    n = hello.num_envs
    if not any(not w.local and w.n_envs == n for w in pool.workers) and not any(
        v.local_name is None and v.hi - v.lo == n for v in pool.vacancies
    ):
        return False
    try:
        check_spaces(
            hello, space_from_msg(hello.observation_space), space_from_msg(hello.action_space),
            pool.observation_space, pool.action_space,
        )
    except (SpaceError, SpaceMismatchError):
        return False
    return hello.render_mode == pool.render_mode


def admit_frame(frame: bytes, pool: PoolView) -> Decision:
    """Decide on a HELLO as it came (frame 0 of the message): a worker of another protocol
    version is refused naming both versions, a malformed HELLO naming the field, any other by
    :func:`admit`."""
    version = wire.peek_version(frame)
    if version != wire.PROTOCOL_VERSION:
        return Refuse(version_refusal(version))
    try:
        hello = wire.decode(frame)
    except ProtocolError as exc:
        return Refuse(f"malformed HELLO: {exc}")
    if not isinstance(hello, wire.Hello):
        return Refuse(f"expected a HELLO, got {hello.KIND.name}")
    return admit(hello, pool)


def admit(hello: wire.Hello, pool: PoolView) -> Decision:
    """Decide on a HELLO of this protocol version.

    Args:
        hello: the worker's HELLO: its name, hostname, pid, env count, space descriptions and their
            array layout, whether it is local (with its token), whether it takes compact STEPs
            over ZeroMQ, its render mode.
        pool: the pool as it stands.

    Returns:
        :class:`Admit`, :class:`Spare` or :class:`Refuse` (whose reason names what was wrong).
    """
    name, n = hello.name, hello.num_envs
    wants_local = hello.local
    if pool.closed or (pool.running and not pool.vacancies and not pool.restart):
        return Refuse("the pool is already running with all its envs; no slot is free")
    for other in pool.workers:
        if other.name == name:
            return Refuse(f"duplicate worker id {name!r}: already connected from {other.hostname} pid {other.pid}")
    slot = (pool.local or {}).get(name)
    if slot is not None and (
        not wants_local or not slot.started or not security.tokens_equal(slot.token, hello.token)
    ):
        return Refuse(f"worker id {name!r} is reserved for a local worker of this pool")
    vacancy: int | None = None
    if pool.running:  # only a replacement for failed worker(s) may join now
        for i, v in enumerate(pool.vacancies):
            if (v.local_name == name) if slot is not None else (v.local_name is None and v.hi - v.lo == n):
                vacancy = i
                break
        if vacancy is None and slot is None and pool.restart and spare_ok(hello, pool):
            return Spare(hello)
        if vacancy is None:
            sizes = sorted({v.hi - v.lo for v in pool.vacancies if v.local_name is None})
            return Refuse(
                f"the pool is running; it only takes replacement workers of {sizes} envs"
                if sizes else "the pool is running with all its envs; no slot is free"
            )
    if n < 1:
        return Refuse(f"a worker must host at least one env, got {n}")
    try:
        obs_space = space_from_msg(hello.observation_space)
        act_space = space_from_msg(hello.action_space)
    except SpaceError as exc:
        return Refuse(f"bad space description: {exc}")
    try:
        check_spaces(hello, obs_space, act_space, pool.observation_space, pool.action_space)
    except SpaceMismatchError as exc:
        return Refuse(exc.reason, fatal=exc if slot is not None else None)
    if pool.observation_space is not None and hello.render_mode != pool.render_mode:
        # get_images() would hand out None for its envs, and a video recorder would break later.
        return Refuse(
            f"the worker renders {hello.render_mode!r}, the pool's workers {pool.render_mode!r}: "
            "start it with the same render setting (sc2pool worker --render, or the host's render_mode)"
        )
    if slot is not None:
        if slot.hi - slot.lo != n:
            return Refuse(f"local worker {name!r} hosts {n} envs, expected {slot.hi - slot.lo}")
        lo, hi = slot.lo, slot.hi
    elif vacancy is not None:
        lo, hi = pool.vacancies[vacancy].lo, pool.vacancies[vacancy].hi
    else:
        free = pool.n_envs - pool.next_remote
        if free <= 0:
            return Refuse(f"the pool takes no more workers: all {pool.n_envs} env slots are taken")
        if n > free:
            return Refuse(f"too many envs: the worker offers {n}, only {free} env slot(s) are free")
        lo, hi = pool.next_remote, pool.next_remote + n
    layout = None
    if pool.observation_space is None:
        try:
            layout = ObsLayout.of(obs_space, pool.n_envs)
        except SpaceError as exc:
            return Refuse(str(exc), fatal=WorkerRefusedError(str(exc)) if slot is not None else None)
    return Admit(
        hello, lo, hi,
        local=slot is not None,
        observation_space=obs_space,
        action_space=act_space,
        vacancy=vacancy,
        layout=layout,
        # every worker that has no lane (remote, or local without shared memory) and offers it
        compact=(slot is None or not slot.has_lane) and hello.compact_zmq,
    )
