"""``ZmqVecEnv``: a stable-baselines3 ``VecEnv`` whose environments live in worker processes that
talk ZeroMQ, locally (ipc + shared memory) or on other machines (tcp).

It is a drop-in for ``SubprocVecEnv``: same constructor shape (a list of env factories), same
semantics (same-step auto-reset with ``terminal_observation`` and ``TimeLimit.truncated``; seeds
and options applied at the next ``reset()``; ``reset_infos``), and the whole VecEnv contract.
Results equal ``DummyVecEnv``'s step by step for the same seeds.
"""

from __future__ import annotations

import enum
import functools
import logging
import math
import multiprocessing
import os
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from sc2pool import options
from sc2pool.broker import Broker, WorkerInfo, WorkerRecord
from sc2pool.errors import (
    AlreadyPendingCallError,
    NoAsyncCallError,
    PoolClosedError,
    PoolError,
    ProtocolError,
)
from sc2pool.launchers.base import Launcher, LaunchPlan
from sc2pool.launchers.local import PrivateDir, spawn_worker
from sc2pool.options import FailurePolicy, LocalTuning, RemoteWorkers, Timeouts
from sc2pool.pool import affinity, security
from sc2pool.pool.planning import WorkerPlan, plan_workers
from sc2pool.pool.spaces import ObsLayout, StructuredActions
from sc2pool.pool.wire import Call, CallResult, CompactResult, Error, Reset, Result, Step, compact_step_head
from workers.host import HostSpec

log = logging.getLogger("sc2pool.vec_env")


class AsyncState(enum.Enum):
    """What the VecEnv is waiting for (gymnasium's AsyncVectorEnv style guard)."""

    DEFAULT = "default"
    WAITING_STEP = "step"


class _Resources:
    """What a pool must release: its broker (sockets, worker processes) and its private dir.

    Held apart from the ZmqVecEnv so that a ``weakref.finalize`` can release them when the pool
    is garbage-collected or the interpreter exits without ``close()``."""

    def __init__(self) -> None:
        self.broker: Broker | None = None
        self.dir: PrivateDir | None = None
        self.launcher: Launcher | None = None

    def close(self, grace: float) -> None:
        broker, self.broker = self.broker, None
        launcher, self.launcher = self.launcher, None
        try:
            if broker is not None:
                broker.close(grace=grace)  # remote workers get CLOSE and exit by themselves...
        finally:
            try:
                if launcher is not None:
                    launcher.close(grace)  # ...and whatever is left is stopped on its node
            finally:
                if self.dir is not None:
                    self.dir.cleanup()
                    self.dir = None


# How long a local worker with a core to itself polls its lane after each reply before it sleeps
# (workers.main.spin_read), while requests have been following replies that fast: a sleeping
# worker's wake-up is a scheduler round trip (slow on virtual machines), and a request that
# follows within this window skips it. Polling only pays while the trainer answers quickly, so the
# worker stops as soon as it does not; longer windows only burn the core (see docs/design.md).
LANE_SPIN_US = 300.0


def _take_n_local_workers(n_local_workers: int | None, n_workers: int | None) -> int | None:
    """The deprecated ``n_local_workers=`` synonym of ``n_workers=``, with its warning."""
    if n_workers is not None:
        raise TypeError(
            "ZmqVecEnv() got both n_local_workers= and n_workers=; n_local_workers= is the deprecated "
            "spelling of n_workers= (the number of local workers): give only n_workers="
        )
    warnings.warn(
        "ZmqVecEnv(n_local_workers=...) is deprecated and will be removed in the next release; use n_workers=...",
        DeprecationWarning,
        stacklevel=3,
    )
    return n_local_workers


def _spawn_local(lane_fd: int | None, secrets: dict[str, Any], *, recipe: dict[str, Any], **kwargs: Any) -> Any:
    """Start (or restart) one local worker; ``secrets`` (token, CURVE keys) go into its stdin recipe only."""
    return spawn_worker(recipe={**recipe, **secrets}, lane_fd=lane_fd, **kwargs)


def _ephemeral_curve(private_dir: PrivateDir) -> security.BrokerCurveConfig:
    """CurveZMQ for a launcher's workers when the user gave no keys: a broker key pair that lives
    as long as the pool, and an empty authorised-keys folder (each worker's key is authorised in
    memory by :func:`_remote_keys`)."""
    from pathlib import Path

    authorized = Path(private_dir.file("authorized_workers"))
    authorized.mkdir(mode=0o700)
    return security.BrokerCurveConfig(keypair=security.ephemeral_keypair(), authorized_dir=authorized)


def _remote_keys(broker: Broker, name: str) -> dict[str, bytes] | None:
    """A fresh CURVE key pair for launcher worker ``name``, authorised in the broker."""
    return broker.remote_keys(name)


class ZmqVecEnv(VecEnv):
    """Vectorised environment backed by ZeroMQ worker processes.

    The common case reads like ``SubprocVecEnv``; everything else is an option object from
    :mod:`sc2pool.options`::

        ZmqVecEnv([make_env] * 8)                    # like SubprocVecEnv: one worker per env
        ZmqVecEnv([make_env] * 8, n_workers=2)       # 4 envs in each of 2 workers
        ZmqVecEnv(env="CartPole-v1", n_envs=8)       # envs built inside the workers
        ZmqVecEnv(host=HostSpec("pkg.mod:make_host", {...}), n_envs=8, n_workers=4)
        ZmqVecEnv(env="pkg.mod:make_env", n_envs=8,  # remote workers join
                  remote=RemoteWorkers(bind="tcp://0.0.0.0:5555", curve="keys/"),
                  failure=FailurePolicy("restart"), timeouts=Timeouts(join=120))

    :param env_fns: env factories, as for SubprocVecEnv. They reach local workers through the
        process start-up (cloudpickle on stdin), never through the socket.
    :param start_method: as for ``SubprocVecEnv`` (second positional argument too), so code
        written for it runs unchanged: any method ``multiprocessing`` offers here is accepted, and
        an unknown one raises its ``ValueError``. Local workers always start the same way, whatever
        the method: a fresh interpreter that receives the env factories cloudpickled (what
        ``"spawn"`` and ``"forkserver"`` do; never a ``fork`` of the trainer, which would copy its
        threads and sockets).
    :param n_envs: total number of envs (required with ``host``/``env``).
    :param n_workers: number of local worker processes (default: one per env, or none when remote
        workers may join). Envs are split into contiguous, even chunks (see
        :func:`sc2pool.pool.planning.plan_workers`).
    :param env: shorthand for ``host=HostSpec("workers.gym_host:make_host", {"env": env, ...})``:
        ``"module:factory"`` or a registered gymnasium id; ``env_kwargs`` are msgpack-encoded.
    :param host: the :class:`~workers.host.HostSpec` (import path of an ``EnvHost`` factory) each
        worker builds its envs from; needed for envs that cannot be pickled and for remote workers.
    :param failure: :class:`~sc2pool.options.FailurePolicy`: raise (default) or replace failed
        workers, ending their envs' episodes as truncated. See :attr:`restart_counts`.
    :param timeouts: :class:`~sc2pool.options.Timeouts`: join, start, step, heartbeats, close.
    :param remote: :class:`~sc2pool.options.RemoteWorkers`: bind endpoint, CURVE keys, cluster
        launcher, how many envs stay local.
    :param tuning: :class:`~sc2pool.options.LocalTuning`: shared memory, CPU pinning and the
        address-space randomisation switch of local workers.
    :param worker_log_level: logging level of the worker processes the pool starts.

    The flat keywords of the previous release (``join_timeout=``, ``on_failure=``, ``bind=``,
    ``fixed_layout=``, ``n_local_workers=`` ...) are still accepted with a ``DeprecationWarning``
    naming their replacement (:data:`sc2pool.options.DEPRECATED_KEYWORDS`); giving one together
    with the option object that replaces it is a ``TypeError``.
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]] | None = None,
        start_method: str | None = None,
        *,
        n_envs: int | None = None,
        n_workers: int | None = None,
        env: str | None = None,
        env_kwargs: dict[str, Any] | None = None,
        host: HostSpec | None = None,
        failure: FailurePolicy | None = None,
        timeouts: Timeouts | None = None,
        remote: RemoteWorkers | None = None,
        tuning: LocalTuning | None = None,
        worker_log_level: str = "WARNING",
        **deprecated: Any,
    ) -> None:
        self._closed = True  # until fully built, close() has nothing to do but clean up
        self._fatal: BaseException | None = None
        self._broker: Broker | None = None
        self._dir: PrivateDir | None = None
        if start_method is not None:
            multiprocessing.get_context(start_method)  # ValueError: cannot find context for ...
        if "n_local_workers" in deprecated:
            n_workers = _take_n_local_workers(deprecated.pop("n_local_workers"), n_workers)
        opts = options.resolve(deprecated, failure=failure, timeouts=timeouts, remote=remote, tuning=tuning)
        if sum(x is not None for x in (env_fns, host, env)) != 1:
            raise ValueError("give exactly one of env_fns, host= or env=")
        if env is not None:
            host = HostSpec("workers.gym_host:make_host", {"env": env, "env_kwargs": dict(env_kwargs or {})})
        elif env_kwargs is not None:
            raise ValueError("env_kwargs goes with env=")
        fns = list(env_fns) if env_fns is not None else None
        launcher = opts.remote.launcher
        plan = plan_workers(
            n_envs,
            n_env_fns=None if fns is None else len(fns),
            n_workers=n_workers,
            local_envs=opts.remote.local_envs,
            accepts_remote=opts.remote.accepts_remote,
            launcher_workers=None if launcher is None else launcher.n_workers,
        )
        total = plan.n_envs
        self.endpoints: list[str] = []
        self._state = AsyncState.DEFAULT
        self._heartbeat_interval = opts.timeouts.heartbeat_interval
        self._close_timeout = opts.timeouts.close
        self._closed = False
        self._res = _Resources()
        self._finalizer = weakref.finalize(self, self._res.close, 1.0)  # also runs at exit
        try:
            broker = self._start(plan, fns, host, opts, worker_log_level)
        except BaseException:
            self.close()
            raise
        assert broker.observation_space is not None and broker.action_space is not None
        assert broker.layout is not None
        self._layout: ObsLayout = broker.layout
        self._bufs = self._layout.allocate(broker.shm)
        # Byte views of the buffers: the ZeroMQ path copies each observation frame with one slice
        # assignment, without building an array around it (released again in close).
        self._buf_views = [b.data.cast("B") for b in self._bufs]
        self._frame_specs: dict[int, list[tuple[np.dtype[Any], tuple[int, ...], int, int]]] = {}
        # (dtype, shape, dtype string, row shape, row bytes) of the last action batch step_async checked
        self._act_layout: tuple[np.dtype[Any], tuple[int, ...], str, tuple[int, ...], int] | None = None
        # A compact RESULT's rewards are float64 bytes: copied as they are into this staging array,
        # then converted into the float32 rewards that step_wait returns.
        self._rews64 = np.zeros((total,), dtype=np.float64)
        self._rews64_view = self._rews64.data.cast("B")
        # terminated and truncated side by side, so that one check covers both after a step
        self._flags = np.zeros((2, total), dtype=bool)
        self._buf_term = self._flags[0]
        self._buf_trunc = self._flags[1]
        self._term_view = self._flags[0].view(np.uint8).data
        self._trunc_view = self._flags[1].view(np.uint8).data
        self._raw_infos: list[Any] = [None] * total
        self._stepped: list[WorkerRecord] = []  # the workers the pending step was sent to
        # on_failure="restart": envs whose worker failed and whose episode end is not reported
        # yet -> (terminal observation, cause)
        self._lost: dict[int, tuple[Any, str]] = {}
        self._last_obs: list[np.ndarray] | None = None  # per-key arrays last returned
        # VecEnv.__init__ asks get_attr("render_mode"); answer from the hosts' HELLO (the EnvHost
        # contract's render_mode) so hosts without get_attr support work too.
        self._init_render_mode: tuple[str | None] | None = (broker.render_mode,)
        try:
            super().__init__(total, broker.observation_space, broker.action_space)
        except BaseException:
            self.close()
            raise
        self._init_render_mode = None
        self._act_codec = (
            StructuredActions(self.action_space)
            if isinstance(self.action_space, (gym.spaces.Dict, gym.spaces.Tuple))
            else None
        )
        if self.render_mode == "rgb_array":
            self._adopt_render_metadata()

    def _start(
        self,
        plan: WorkerPlan,
        fns: list[Callable[[], gym.Env]] | None,
        host: HostSpec | None,
        opts: options.PoolOptions,
        worker_log_level: str,
    ) -> Broker:
        """Bind the broker, start the local (and launcher's) workers of ``plan`` and wait until
        every env is ready. Whatever it started is in ``self._res`` for ``close()`` to release."""
        failure, timeouts, remote, tuning = opts.failure, opts.timeouts, opts.remote, opts.tuning
        launcher = remote.launcher
        curve_cfg = (
            security.BrokerCurveConfig.from_directory(remote.curve)
            if isinstance(remote.curve, (str, os.PathLike))
            else remote.curve
        )
        worker_cpus = affinity.plan(tuning.cpu_affinity, plan.n_local_workers)  # ValueError before anything starts
        own_core = affinity.has_own_core(worker_cpus)
        if launcher is not None:
            self._res.launcher = launcher
            launcher.prepare()  # typed errors (no cluster, too few CPUs) before anything binds
        if plan.n_local_workers > 0 or (launcher is not None and curve_cfg is None):
            self._dir = self._res.dir = PrivateDir()
        if launcher is not None and curve_cfg is None:
            assert self._dir is not None
            curve_cfg = _ephemeral_curve(self._dir)
        broker = Broker(
            n_envs=plan.n_envs,
            heartbeat_interval=timeouts.heartbeat_interval,
            heartbeat_timeout=timeouts.heartbeat,
            step_timeout=timeouts.step,
            shm_path=self._dir.file("obs.shm") if (self._dir and tuning.shared_memory) else None,
            on_failure=failure.on_failure,
            max_restarts=failure.max_restarts,
            replace_timeout=failure.replace_timeout,
            start_timeout=timeouts.start,
            curve=curve_cfg,
        )
        self._broker = self._res.broker = broker
        local_endpoint = broker.bind(f"ipc://{self._dir.file('ipc')}") if self._dir else None
        if remote.bind is not None:
            self.endpoints.append(broker.bind(remote.bind))
        elif launcher is not None:
            self.endpoints.append(broker.bind(launcher.bind_endpoint()))
        how = f"(start: sc2pool worker --connect {self.endpoints[0]} ...)" if self.endpoints else ""
        if launcher is not None:
            assert host is not None
            how = f"(started by {type(launcher).__name__})"
            broker.launcher = launcher
            launcher.start(LaunchPlan(
                endpoint=launcher.advertise(self.endpoints[0]),
                target=host.target,
                kwargs=dict(host.kwargs),
                worker_envs=list(plan.launcher_sizes),
                heartbeat_interval=timeouts.heartbeat_interval,
                restart=failure.restart,
                max_restarts=failure.max_restarts,
                keys=functools.partial(_remote_keys, broker),
                log_level=worker_log_level,
            ))
        for w, (lo, hi) in enumerate(plan.local_ranges()):
            assert local_endpoint is not None and self._dir is not None
            name = f"local-{w}"
            recipe: dict[str, Any]
            if fns is not None:
                import cloudpickle

                recipe = {"kind": "fns", "fns": cloudpickle.dumps(fns[lo:hi])}
            else:
                assert host is not None
                recipe = {"kind": "spec", "target": host.target, "kwargs": host.kwargs, "num_envs": hi - lo}
            spawn = functools.partial(
                _spawn_local,
                endpoint=local_endpoint,
                name=name,
                index=w,
                recipe=recipe,
                heartbeat_interval=timeouts.heartbeat_interval,
                private_dir=self._dir.path,
                log_level=worker_log_level,
                cpus=worker_cpus[w],
                disable_aslr=tuning.disable_aslr,
                spin_us=LANE_SPIN_US if own_core[w] else 0.0,
            )
            broker.expect_local(name, hi - lo, spawn)
            broker.launch_local(name)
        with broker.lock:
            broker.wait_ready(timeouts.join, timeouts.start, how)
        broker.start_service()
        return broker
    # ------------------------------------------------------------------------------- helpers
    def _adopt_render_metadata(self) -> None:
        """Take env 0's ``metadata`` (its ``render_fps`` above all: ``VecVideoRecorder`` reads it
        from the VecEnv and writes videos at that rate). Hosts without ``get_attr`` or without
        metadata keep SB3's default."""
        try:
            (meta,) = self.get_attr("metadata", indices=[0])
        except Exception:  # noqa: BLE001 - optional: a host may not answer get_attr at all
            return
        if isinstance(meta, dict):
            self.metadata = {**meta, "render_modes": self.metadata.get("render_modes", [])}

    @property
    def worker_pids(self) -> list[int]:
        """PIDs of the local worker processes."""
        return [p.pid for p in self._broker.local_processes()] if self._broker else []

    @property
    def workers(self) -> list[WorkerInfo]:
        """Every worker in the pool: name, host, pid, global env indices, local or remote."""
        return self._broker.infos() if self._broker else []

    @property
    def stats(self) -> dict[str, int]:
        """Broker counters: malformed messages dropped, workers refused, stale replies, restarts;
        with CURVE also ``curve_refused`` (handshakes refused) and ``curve_refused_<reason>``."""
        return self._broker.counters() if self._broker else {}

    @property
    def closed(self) -> bool:
        return self._closed

    def _usable_broker(self) -> Broker:
        if self._closed or self._broker is None:
            if self._fatal is not None:
                raise PoolClosedError(f"ZmqVecEnv was closed after a fatal error: {self._fatal}") from self._fatal
            raise PoolClosedError("ZmqVecEnv is closed")
        broker = self._broker
        if broker.failure is not None:
            self._die(broker.failure)
        return broker

    def _die(self, exc: BaseException) -> Any:
        """Fatal failure: close everything (no orphans), then raise ``exc``."""
        if self._fatal is None:
            self._fatal = exc
        self._close(grace=0.5)  # a failed pool: do not wait long for hung workers
        raise exc

    def _not_waiting(self, what: str) -> None:
        if self._state is not AsyncState.DEFAULT:
            raise AlreadyPendingCallError(
                f"cannot call {what} while a step_async() is pending; call step_wait() first"
            )

    def _copy_frames(self, w: WorkerRecord, frames: list[bytes]) -> None:
        # (dtype, shape, byte size) per frame, computed once per worker size: the ZeroMQ path's
        # per-step work is then a length check and a copy (no dtype/shape re-validation).
        specs = self._frame_specs.get(w.n_envs)
        if specs is None:
            layout = self._layout
            specs = self._frame_specs[w.n_envs] = [
                (d, (w.n_envs, *s), w.n_envs * math.prod(s) * d.itemsize, math.prod(s) * d.itemsize)
                for s, d in zip(layout.shapes, layout.dtypes, strict=True)
            ]
        if len(frames) != len(specs):
            raise ProtocolError(f"expected {len(specs)} data frames, got {len(frames)}")
        lo = w.lo
        for view, frame, (dtype, shape, nbytes, row) in zip(self._buf_views, frames, specs, strict=True):
            if len(frame) != nbytes:
                raise ProtocolError(f"frame of {len(frame)} bytes does not match {dtype.str}{list(shape)} ({nbytes} bytes)")
            start = lo * row
            view[start : start + nbytes] = frame

    def _flags_set(self, stepped: Sequence[WorkerRecord], compact: bool) -> bool:
        """Whether any env's terminated or truncated flag is set. With ``compact`` (a compact RESULT
        was copied into the bool buffers unchecked), raise ProtocolError, naming the worker, if a
        flag byte is neither 0 nor 1. (bytes.translate: far cheaper than numpy on arrays this small.)"""
        set_bytes = self._flags.tobytes().translate(None, b"\x00")
        if not set_bytes or not compact or not set_bytes.translate(None, b"\x01"):  # only 0 or 1
            return bool(set_bytes)
        g = int(np.flatnonzero((self._flags.view(np.uint8) > 1).any(axis=0))[0])
        name = next((w.name for w in stepped if w.lo <= g < w.hi), "?")
        raise ProtocolError(
            f"malformed RESULT from worker {name!r}: compact RESULT carries flag bytes other than 0 and 1"
        )

    def _obs(self) -> VecEnvObs:
        bufs = self._bufs
        # One array (a Box space), the common case, without a comprehension's call per step
        arrays = [bufs[0].copy()] if len(bufs) == 1 else [b.copy() for b in bufs]
        self._last_obs = arrays  # terminal observations of envs whose worker fails later
        return self._layout.assemble(arrays)

    # ------------------------------------------------------------------------------ recovery
    def _take_failures(self, broker: Broker) -> None:
        """Note the envs of workers the broker removed (restart policy): their episodes end."""
        failed = broker.take_failures()
        if not failed:
            return
        last = self._last_obs
        for w in failed:
            cause = str(w.failed)
            for g in range(w.lo, w.hi):
                if g in self._lost:
                    continue  # a replacement failed before its first reset: keep the first end
                term = None if last is None else self._layout.assemble([a[g].copy() for a in last])
                self._lost[g] = (term, cause)

    def _restore(self, broker: Broker) -> None:
        """Restart policy: wait until every vacant slot has a ready replacement, then reset the
        replacements (their observations land in the buffers). Loops if a replacement fails too."""
        while True:
            self._take_failures(broker)
            fresh = broker.await_replacements()
            if not fresh:
                self._take_failures(broker)
                if not broker.has_vacancies:
                    return
                continue
            seq = broker.next_seq()
            for w in fresh:
                broker.request(w, Reset(seq, [None] * w.n_envs, [None] * w.n_envs).encode(), seq)
            broker.gather(fresh)
            for w in fresh:
                reply = w.take_reply()
                if w.failed is not None or reply is None:
                    continue
                msg, frames = reply
                if isinstance(msg, Error):
                    raise broker.reply_error(w, msg)
                self._apply_reset(w, msg, frames)
                w.fresh = False

    def _apply_reset(self, w: WorkerRecord, msg: Result | CallResult | ProtocolError, frames: list[bytes]) -> None:
        try:
            if not isinstance(msg, Result) or msg.reset_infos is None:
                raise ValueError(msg if isinstance(msg, ProtocolError) else f"a {msg.KIND.name} answered a RESET")
            infos = msg.reset_infos
            if len(infos) != w.n_envs:
                raise ValueError(f"{len(infos)} reset infos for {w.n_envs} envs")
            for li, rinfo in enumerate(infos):
                self.reset_infos[w.lo + li] = rinfo
            if frames:
                self._copy_frames(w, frames)
        except (KeyError, ValueError, TypeError) as exc:
            raise ProtocolError(f"malformed reset RESULT from worker {w.name!r}: {exc}") from exc

    def _report_lost(self) -> None:
        """Write the truncated episode ends of restarted envs into this step's result buffers."""
        raw = self._raw_infos
        for g, (term, cause) in self._lost.items():
            self._rews64[g] = 0.0
            self._buf_term[g] = False
            self._buf_trunc[g] = True
            raw[g] = {"terminal_observation": term, "sc2pool.restarted": True, "sc2pool.failure": cause}
        self._lost.clear()

    @property
    def restart_counts(self) -> dict[str, int]:
        """``on_failure="restart"``: failures survived per worker slot (a local worker's name, or
        ``"envs LO-HI"`` for a remote worker's env range)."""
        return dict(self._broker.restart_counts) if self._broker else {}

    # ---------------------------------------------------------------------------------- step
    def _step_structured(self, broker: Broker, actions: Any) -> None:
        """Send Dict/Tuple actions: each env's action split into one array per leaf of the
        action space (see :class:`~sc2pool.pool.spaces.StructuredActions`), in the STEP header."""
        assert self._act_codec is not None
        arrays = self._act_codec.encode(actions, self.num_envs)  # ValueError before anything is sent
        try:
            with broker.lock:
                seq = broker.next_seq()
                self._stepped = workers = broker.workers
                lanes = []
                for w in workers:
                    if w.fresh:
                        continue  # a replacement not reset yet: step_wait resets it
                    al = [[a.dtype.str, [w.n_envs, *a.shape[1:]], a[w.lo : w.hi].tobytes(), nd] for a, nd in arrays]
                    head = Step(seq, leaves=al).encode()
                    w.lane_spec = None  # the next flat STEP (if any) must be a full one
                    if w.lane is not None:
                        lanes.append((w, head))
                    else:
                        broker.send(w, (head,), seq)
                if lanes:
                    broker.send_lanes(lanes, seq)
        except PoolError as exc:
            self._die(exc)
        self._state = AsyncState.WAITING_STEP

    def step_async(self, actions: np.ndarray) -> None:
        broker = self._usable_broker()
        self._not_waiting("step_async()")
        if self._act_codec is not None:
            self._step_structured(broker, actions)
            return
        acts = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        # A batch of the last batch's dtype and shape was checked then (the same layout every step)
        layout = self._act_layout
        if layout is None or layout[0] is not acts.dtype or layout[1] != acts.shape:
            if acts.dtype.kind not in "biuf" or len(acts) != self.num_envs:
                raise ValueError(
                    f"actions must be a numeric array with one row per env ({self.num_envs}); "
                    f"got dtype {acts.dtype} and shape {acts.shape}"
                )
            rest = acts.shape[1:]
            layout = self._act_layout = (acts.dtype, acts.shape, acts.dtype.str, rest, acts.itemsize * math.prod(rest))
        _, _, dstr, rest, row = layout
        # Every compact STEP is the same head and a byte range of the whole batch: one conversion
        # to bytes (C order, whatever the batch's strides) per step, a slice per worker.
        abytes = acts.tobytes()
        try:
            with broker.lock:
                seq = broker.next_seq()
                compact_head = compact_step_head(seq)
                self._stepped = workers = broker.workers
                lanes = []
                remote = []
                for w in workers:
                    if w.fresh:
                        continue  # a replacement not reset yet: step_wait resets it
                    lo, hi = w.lo, w.hi
                    spec = (dstr, (hi - lo, *rest))
                    if w.lane is not None:
                        if w.lane_spec == spec:  # the worker knows this layout: compact STEP
                            lanes.append((w, compact_head + abytes[lo * row : hi * row]))
                        else:
                            head = Step(seq, dstr, spec[1], abytes[lo * row : hi * row]).encode()
                            lanes.append((w, head))
                            w.lane_spec = spec
                    elif w.compact and w.lane_spec == spec:
                        remote.append((w, compact_head + abytes[lo * row : hi * row]))
                    else:
                        head = Step(seq, dstr, spec[1]).encode(inline=False)
                        broker.send(w, (head, np.ascontiguousarray(acts[lo:hi])), seq)
                        if w.compact:  # it knows this layout now: the next STEPs go compact
                            w.lane_spec = spec
                if remote:
                    broker.send_many(remote, seq)
                if lanes:
                    broker.send_lanes(lanes, seq)
        except PoolError as exc:
            self._die(exc)
        self._state = AsyncState.WAITING_STEP

    def step_wait(self) -> VecEnvStepReturn:
        broker = self._usable_broker()
        if self._state is not AsyncState.WAITING_STEP:
            raise NoAsyncCallError("step_wait() called without a pending step_async()")
        raw = self._raw_infos
        err: PoolError | None = None
        rews64, term_view, trunc_view = self._rews64_view, self._term_view, self._trunc_view
        compact = False
        n = self.num_envs
        # The common case's dones and infos, built while the workers step rather than after their
        # replies arrive (dropped if an episode ended or a worker sent infos).
        no_dones = np.zeros(n, dtype=bool)
        plain_infos = [{"TimeLimit.truncated": False} for _ in range(n)]
        try:
            with broker.lock:
                stepped = self._stepped
                broker.gather(stepped)
                self._state = AsyncState.DEFAULT
                for w in stepped:
                    reply = w.reply
                    if reply is None:  # failed (restart policy) or a fresh replacement
                        continue
                    msg, frames = reply
                    w.reply = None
                    w.pending_seq = -1
                    lo, hi = w.lo, w.hi
                    if type(msg) is CompactResult:  # no env finished, no infos: rewards and flags only
                        msg.copy_into(rews64, term_view, trunc_view, lo)  # flags checked below, once
                        compact = True
                        if w.lane is None:  # over ZeroMQ the observations follow as frames
                            self._copy_frames(w, frames)
                        continue
                    if type(msg) is not Result:
                        if type(msg) is Error:
                            err = err or broker.reply_error(w, msg)
                            continue
                        raise ProtocolError(f"malformed RESULT from worker {w.name!r}: {msg}")
                    try:
                        self._rews64[lo:hi] = msg.rewards
                        self._buf_term[lo:hi] = msg.terminated
                        self._buf_trunc[lo:hi] = msg.truncated
                        infos = msg.infos
                        if infos is not None:
                            raw[lo:hi] = infos
                        resets = msg.reset_infos
                        if resets is not None:
                            for li, rinfo in resets:
                                self.reset_infos[lo + li] = rinfo
                        if frames or w.lane is None:  # over ZeroMQ the observations follow as frames
                            self._copy_frames(w, frames)
                    except (ValueError, TypeError, IndexError) as exc:
                        raise ProtocolError(f"malformed RESULT from worker {w.name!r}: {exc}") from exc
                flags_set = self._flags_set(stepped, compact)
                # every replying worker's rewards are staged; the rest are lost envs (written below)
                # plain attribute reads, not ``needs_repair``: this runs on every step
                if err is None and (broker.failures or broker.vacancies or self._lost or len(stepped) != len(broker.workers)):
                    self._restore(broker)
                    self._report_lost()
                    flags_set = True  # (the lost envs' episodes end truncated)
        except PoolError as exc:
            self._die(exc)
        if err is not None:
            self._die(err)
        if not flags_set and raw.count(None) == n:  # the lockstep common case: nothing ended, no infos
            return self._obs(), self._rews64.astype(np.float32), no_dones, plain_infos
        term, trunc = self._buf_term, self._buf_trunc
        dones = term | trunc
        timelimit = (trunc & ~term).tolist()
        out_infos: list[dict[str, Any]] = []
        for g in range(n):
            info = raw[g]
            if info is None:
                out_infos.append({"TimeLimit.truncated": timelimit[g]})
            else:
                raw[g] = None
                info["TimeLimit.truncated"] = timelimit[g]
                out_infos.append(info)
        return self._obs(), self._rews64.astype(np.float32), dones, out_infos

    def reset(self) -> VecEnvObs:
        if self._state is AsyncState.WAITING_STEP:
            self.step_wait()  # finish (and drop) the pending step, as SB3 allows
        broker = self._usable_broker()
        err: PoolError | None = None
        try:
            with broker.lock:
                if broker.needs_repair:
                    self._take_failures(broker)
                    broker.await_replacements()
                seq = broker.next_seq()
                workers = broker.workers
                for w in workers:
                    head = Reset(seq, self._seeds[w.lo : w.hi], [o or None for o in self._options[w.lo : w.hi]]).encode()
                    broker.request(w, head, seq)
                broker.gather(workers)
                for w in workers:
                    reply = w.take_reply()
                    if reply is None:  # failed meanwhile (restart policy)
                        continue
                    msg, frames = reply
                    if isinstance(msg, Error):
                        err = err or broker.reply_error(w, msg)
                        continue
                    self._apply_reset(w, msg, frames)
                    w.fresh = False
                if err is None and broker.needs_repair:
                    self._restore(broker)
                self._lost.clear()  # every episode starts anew: nothing to report
        except PoolError as exc:
            self._die(exc)
        if err is not None:
            self._die(err)
        self._reset_seeds()
        self._reset_options()
        return self._obs()

    # ---------------------------------------------------------------------------------- calls
    def _call(
        self, op: str, indices: VecEnvIndices, name: str = "", value: Any = None,
        args: list[Any] | None = None, kwargs: dict[str, Any] | None = None,
    ) -> list[Any]:
        broker = self._usable_broker()
        self._not_waiting(op)
        targets = []
        for g in self._get_indices(indices):
            # Python indexing, as SB3's envs[i] / remotes[i]: -1 is the last env
            if not isinstance(g, (int, np.integer)) or not -self.num_envs <= g < self.num_envs:
                raise IndexError(f"env index {g!r} out of range for {self.num_envs} envs")
            targets.append(int(g) % self.num_envs)
        results: list[Any] = [None] * len(targets)
        err: PoolError | None = None
        try:
            with broker.lock:
                if broker.has_vacancies:
                    self._take_failures(broker)
                    broker.await_replacements()  # calls go to live workers (reset comes at the next step)
                per_worker: dict[WorkerRecord, list[tuple[int, int]]] = {}
                for pos, g in enumerate(targets):
                    w = broker.worker_at(int(g))
                    per_worker.setdefault(w, []).append((pos, int(g) - w.lo))
                seq = broker.next_seq()
                for w, items in per_worker.items():
                    head = Call(seq, op, name, [li for _, li in items], value, args or [], kwargs or {}).encode()
                    broker.send(w, (head,), seq)
                broker.gather(per_worker)
                for w, items in per_worker.items():
                    if w.failed is not None:  # restart policy: replaced; the call is lost
                        err = err or w.failed
                        continue
                    reply = w.take_reply()
                    assert reply is not None
                    msg, _ = reply
                    if isinstance(msg, Error):
                        err = err or broker.reply_error(w, msg)
                        continue
                    if not isinstance(msg, CallResult) or len(msg.results) != len(items):
                        raise ProtocolError(f"malformed CALL_RESULT from worker {w.name!r}")
                    res = msg.results
                    for (pos, _), value in zip(items, res, strict=True):
                        results[pos] = value
                self._take_failures(broker)
        except PoolError as exc:
            self._die(exc)
        if err is not None:
            raise err  # an env's exception in a call is not fatal for the pool (nor, with restart, a crash)
        return results

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Return attribute from the envs (values must be msgpack/numpy encodable)."""
        if attr_name == "render_mode" and getattr(self, "_init_render_mode", None) is not None:
            return [self._init_render_mode[0] for _ in self._get_indices(indices)]  # type: ignore[index]
        return self._call("get_attr", indices, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set attribute on the envs' outermost wrapper (as SubprocVecEnv)."""
        self._call("set_attr", indices, attr_name, value=value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call a method of the envs; arguments and results travel msgpack-encoded."""
        return self._call("env_method", indices, method_name, args=list(method_args), kwargs=method_kwargs)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """Whether the envs are wrapped in ``wrapper_class`` (compared by import path in the worker)."""
        path = f"{wrapper_class.__module__}:{wrapper_class.__qualname__}"
        return [bool(x) for x in self._call("is_wrapped", indices, path)]

    def has_attr(self, attr_name: str) -> bool:
        return all(self._call("has_attr", None, attr_name))

    def get_images(self, indices: VecEnvIndices = None) -> Sequence[np.ndarray | None]:
        """Each env's ``render()`` (SB3's contract), or only those of ``indices``: a recorder that
        watches one env then moves one frame per step, not ``num_envs``. Frames travel as raw
        arrays in the call's reply (never pickled)."""
        if self.render_mode != "rgb_array":
            warnings.warn(
                f"The render mode is {self.render_mode}, but this method assumes it is `rgb_array` to obtain images.",
                stacklevel=2,
            )
            return [None for _ in self._get_indices(indices)]
        return self._call("render", indices, "render")

    def render(self, mode: str | None = None) -> np.ndarray | None:
        return super().render(mode=mode)

    # ---------------------------------------------------------------------------------- close
    def close(self) -> None:
        """Stop all workers (no process and no ipc/shm file is left behind). Idempotent."""
        self._close(grace=getattr(self, "_close_timeout", 3.0))

    def _close(self, grace: float) -> None:
        self._broker = None
        self._dir = None
        self._closed = True
        self._state = AsyncState.DEFAULT
        for view in getattr(self, "_buf_views", ()):
            view.release()  # a shared-memory buffer cannot be unmapped while views are exported
        self._buf_views = []
        self._bufs = []
        res = getattr(self, "_res", None)
        if res is not None:
            self._finalizer.detach()
            res.close(grace)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self.workers)} workers"
        return f"<ZmqVecEnv {getattr(self, 'num_envs', '?')} envs, {state}>"
