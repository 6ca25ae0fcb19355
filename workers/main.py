"""The worker process: hosts an :class:`~workers.host.EnvHost` and serves the broker.

Life of a worker::

    build host (spaces known) -> HELLO -> WELCOME | REFUSE -> host.start() -> READY -> serve
    serve: RESET -> RESULT, STEP -> RESULT (auto-reset done here), CALL -> CALL_RESULT, CLOSE -> exit
           any failure of an env -> ERROR (type, message, traceback, local env index); keep serving

The message loop runs in one asyncio event loop on a ``zmq.asyncio`` DEALER, so hosts whose envs
are asynchronous (StarCraft II through burnysc2) and plain gymnasium hosts look the same.

Heartbeats run on a separate *thread* with its own DEALER socket (identity = main identity +
``~hb``): the thread pings the broker every ``heartbeat_interval`` and the broker answers each
ping. A thread, not an asyncio task, because a synchronous env that computes for 20 s inside
``step`` (or a slow ``host.start()``) blocks the event loop, and such a worker is busy, not dead.
A stopped (SIGSTOP) or crashed process stops pinging, so the broker still notices it. When the
broker's answers stop for ``broker_timeout`` the worker concludes the trainer died: it cancels the
message loop (closing the host and its game processes) and, if the loop is stuck, kills its
children and exits hard.

Observations go either into a shared-memory file the trainer created (local workers; nothing
crosses the socket but rewards, dones and infos) or as raw zero-copy frames (remote workers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import mmap
import os
import select
import shutil
import signal
import socket as socketlib
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import zmq

from sc2pool import affinity, security
from sc2pool import protocol as P
from sc2pool.errors import EncodeError, ProtocolError, WorkerRefusedError
from sc2pool.spaces import ObsLayout, StructuredActions, layout_to_msg, space_to_msg
from workers import layout
from workers.host import EnvFailure, EnvHost, HostSpec, StepResult

log = logging.getLogger("sc2pool.worker")
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_NOBLOCK = int(zmq.NOBLOCK)
_VERSION = P.PROTOCOL_VERSION
_RESULT = int(P.Kind.RESULT)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 2
EXIT_BROKER_LOST = 3


@dataclass
class WorkerConfig:
    """Everything a worker needs. ``make_host`` builds the host (called once, in the worker)."""

    endpoint: str
    make_host: Callable[[], EnvHost]
    name: str = ""
    heartbeat_interval: float = 0.5
    broker_timeout: float = 10.0  # replaced by the broker's setting from WELCOME
    connect_timeout: float = 600.0  # how long to wait for a first answer from the broker
    local: bool = False  # spawned by ZmqVecEnv on this machine: may use shared memory
    parent_pid: int | None = None
    cleanup_dir: str | None = None  # the trainer's private dir, removed if the trainer vanished
    lane_fd: int | None = None  # local fast lane (Unix socket) inherited from the trainer
    token: str | None = None  # local: the per-process secret from the stdin recipe, echoed in HELLO
    curve: security.WorkerCurveConfig | None = None  # CurveZMQ client keys (the broker's public key)
    # Local worker with a core to itself: after a lane reply, poll the lane for up to this long
    # before sleeping, while requests have been coming back that fast (see Worker._recv).
    spin_s: float = 0.0


class _Heartbeat(threading.Thread):
    """Pings the broker from a thread; reports the broker lost when its answers stop."""

    def __init__(self, ctx: zmq.Context[Any], endpoint: str, identity: bytes, cfg: WorkerConfig,
                 on_lost: Callable[[str], None]) -> None:
        super().__init__(name="sc2pool-worker-heartbeat", daemon=True)
        self.ctx = ctx
        self.endpoint = endpoint
        self.identity = identity + P.HEARTBEAT_SUFFIX
        self.interval = cfg.heartbeat_interval
        self.broker_timeout = cfg.broker_timeout
        self.connect_timeout = cfg.connect_timeout
        self.curve = cfg.curve
        self.on_lost = on_lost
        self.stop = threading.Event()
        self.contact = False

    def run(self) -> None:
        sock = self.ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.IDENTITY, self.identity)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.MAXMSGSIZE, 65536)  # it only ever receives heartbeats
        if self.curve is not None:  # a separate connection: it needs the keys too
            security.apply_client(sock, self.curve)
        sock.connect(self.endpoint)
        ping = P.header(P.Kind.HEARTBEAT)
        started = last_answer = time.monotonic()
        try:
            while not self.stop.is_set():
                with contextlib.suppress(zmq.Again):
                    sock.send(ping, zmq.NOBLOCK)
                deadline = time.monotonic() + self.interval
                while not self.stop.is_set():
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    if sock.poll(int(min(remaining, 0.1) * 1000) + 1):  # short slices: quick stop
                        while True:
                            try:
                                sock.recv(zmq.NOBLOCK)
                            except zmq.Again:
                                break
                            self.contact = True
                            last_answer = time.monotonic()
                now = time.monotonic()
                if self.contact and now - last_answer > self.broker_timeout:
                    self.on_lost(f"no answer from the broker for {now - last_answer:.1f} s")
                    return
                if not self.contact and now - started > self.connect_timeout:
                    self.on_lost(f"no broker answered at {self.endpoint} within {self.connect_timeout:.0f} s")
                    return
        finally:
            sock.close(linger=0)


def _kill_children() -> None:
    """Kill every descendant process (game processes) of this worker; used on hard exit."""
    try:
        import psutil

        children = psutil.Process().children(recursive=True)
    except Exception:
        return
    for child in children:
        with contextlib.suppress(Exception):
            child.kill()


def _set_parent_death_signal(parent_pid: int | None) -> None:
    """Linux: get SIGTERM when the trainer process dies, even by SIGKILL."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        return
    if parent_pid is not None and os.getppid() != parent_pid:
        os.kill(os.getpid(), signal.SIGTERM)  # the parent died before prctl took effect


def _error_fields(exc: BaseException, stage: str, index: int | None) -> dict[str, Any]:
    cause = exc.cause if isinstance(exc, EnvFailure) else exc
    tb = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
    return {"idx": index, "et": type(cause).__name__, "em": str(cause), "tb": tb, "stage": stage}


def _sync_step_of(host: EnvHost) -> Callable[[list[Any]], Any] | None:
    """The host's ``step_sync`` when it may stand in for ``step``: defined by the same class as
    ``step`` or by a subclass of it. A subclass that overrides ``step()`` alone (e.g. to report
    recoverable failures) must keep being stepped through it."""
    fn = getattr(host, "step_sync", None)
    if fn is None:
        return None
    mro = type(host).__mro__
    sync_cls = next(k for k in mro if "step_sync" in k.__dict__)
    step_cls = next(k for k in mro if "step" in k.__dict__)
    return fn if issubclass(sync_cls, step_cls) else None


class ReplyGap:
    """How soon the trainer's requests have recently followed our replies over the lane.

    An average of reply-to-request gaps, each capped at ``cap`` seconds so that one long pause
    (the trainer training for minutes between rollouts) is forgotten after a few fast steps. A
    worker spins (:func:`spin_read`) only while this is under its ``spin_s``; before any request
    has followed a reply it is infinite, so a new worker does not spin.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, cap: float = 0.01) -> None:
        self._clock = clock
        self._cap = cap
        self._replied_at = 0.0
        self.seconds = math.inf

    def replied(self) -> None:
        """A reply left now."""
        self._replied_at = self._clock()

    def requested(self) -> None:
        """A request arrived now: fold its gap since the last reply into the average."""
        gap = min(self._clock() - self._replied_at, self._cap)
        self.seconds = gap if self.seconds == math.inf else 0.5 * (self.seconds + gap)


def spin_read(lane: P.Lane, seconds: float) -> list[bytes]:
    """Poll ``lane`` for up to ``seconds`` instead of sleeping at once (adaptive spin-then-block).

    Returns the messages read (``[]`` when none came in time, or when the lane is closed: the
    blocking path reports that).

    Why: waking a process that sleeps on another, idle core costs ~50 us on a VM (an
    inter-processor interrupt and a hypervisor exit), a twentieth of a 1 ms env step. When the
    trainer has been sending the next request within ``spin_s`` of our reply (a fast policy, a
    benchmark), polling for it is cheaper than sleeping; when it has not (a slow policy
    between steps, e.g. PPO on CPU), the recent gap (:class:`ReplyGap`) says so and the worker
    sleeps at once. Only a worker with a core to itself spins, and it yields that core to
    anything else runnable.
    """
    end = time.monotonic() + seconds
    while True:
        try:
            messages = lane.read_ready()
        except (EOFError, OSError):
            return []
        if messages or time.monotonic() >= end:
            return messages
        os.sched_yield()


class Worker:
    """One worker: its sockets, its host and the serve loop. Use :func:`run_worker`."""

    def __init__(self, cfg: WorkerConfig) -> None:
        self.cfg = cfg
        self.name = cfg.name or f"{socketlib.gethostname()}:{os.getpid()}"
        self.identity = uuid.uuid4().bytes
        self.host: EnvHost | None = None
        self.exit_reason = ""
        self.lost = threading.Event()
        self.done = threading.Event()
        self._mmap: mmap.mmap | None = None
        self._views: list[np.ndarray] | None = None  # this worker's slice of the shm obs arrays
        self._layout: ObsLayout | None = None
        self._last_obs: list[Any] | None = None  # last observation sent per env (terminal obs on recover)
        self.env_restarts: dict[int, int] = {}  # local env index -> recoveries by the host
        self._gap = ReplyGap()  # how soon lane requests have recently followed our replies

    # -------------------------------------------------------------------------------- plumbing
    async def _send(self, kind: P.Kind, frames: list[Any] | None = None, **fields: Any) -> None:
        self._send_parts([P.header(kind, **fields), *(frames or [])])

    def _send_parts(self, parts: list[Any]) -> None:
        """Send now (the DEALER never blocks in lockstep: at most a few messages are in flight).

        A reply to a request that came over the local lane goes back over the lane."""
        if self._via_lane and self.lane is not None:
            try:
                self.lane.write(parts[0])
            except OSError:
                self.exit_reason = "the trainer closed the local lane"
                self.lost.set()
                raise asyncio.CancelledError() from None
            if self.cfg.spin_s:
                self._gap.replied()
            return
        copy = True  # zero-copy only pays off for big frames
        for frame in parts[1:]:
            if getattr(frame, "nbytes", 0) >= 65536:
                copy = False
                break
        self._zmq_dirty = True
        try:
            P.send_parts(self.sock, parts, _NOBLOCK, copy=copy)
        except zmq.Again:
            log.warning("worker %s: send queue full (broker gone?), message dropped", self.name)

    async def _recv(self) -> list[bytes]:
        """Next message, from the ZeroMQ socket or the local lane (``self._via_lane`` says which).

        Hosts that declare ``blocking_poll_ok`` (no background tasks, e.g. GymHost) let the worker
        wait in ``poll(2)`` directly (the loop still runs between 50 ms slices), which halves the
        per-step latency compared to waking up through the event loop."""
        if self._lane_pending:
            self._via_lane = True
            return [self._lane_pending.pop(0)]
        sock = self.sock
        lane = self.lane
        # In blocking mode the first read is attempted only after poll(2) said the lane is
        # readable: one poll + one recv per request, no EAGAIN round trip.
        lane_ready = not self._blocking_ok
        while True:
            # ZeroMQ's FD only signals changes: after any use of the socket (or when poll says its
            # FD moved) check its event state; otherwise skip that call on the lane's hot path.
            if self._zmq_dirty or lane is None:
                if P.readable(sock):
                    try:
                        frames = P.recv_parts(sock, _NOBLOCK)
                    except zmq.Again:
                        pass
                    else:
                        self._via_lane = False
                        return frames  # stays dirty: more may be queued
                self._zmq_dirty = False
            if lane is not None and lane_ready:
                try:
                    messages = lane.read_ready()
                except (EOFError, OSError):
                    self.exit_reason = "the trainer closed the local lane"
                    self.lost.set()
                    raise asyncio.CancelledError() from None
                if messages:
                    return self._from_lane(messages)
            if self._blocking_ok and not lane_ready and lane is not None and self._gap.seconds < self.cfg.spin_s:
                messages = spin_read(lane, self.cfg.spin_s)
                if messages:
                    return self._from_lane(messages)
            if self._blocking_ok:
                events = self._fdpoll.poll(50)
                if not events:
                    await asyncio.sleep(0)  # let the loop run (signals, cancellation)
                for fd, _ in events:
                    if fd == self._zmq_fd:
                        self._zmq_dirty = True
                    else:
                        lane_ready = True
            else:
                self._readable.clear()
                await self._readable.wait()
                self._zmq_dirty = True

    def _from_lane(self, messages: list[bytes]) -> list[bytes]:
        """The first of ``messages`` (the rest are queued); a worker that may spin notes how soon it
        followed our last reply."""
        if self.cfg.spin_s:
            self._gap.requested()
        self._lane_pending.extend(messages[1:])
        self._via_lane = True
        return [messages[0]]

    async def _send_error(self, exc: BaseException, stage: str, index: int | None, seq: int | None) -> None:
        fields: dict[str, Any] = _error_fields(exc, stage, index)
        log.debug("env failure during %s: %s", stage, fields["em"])
        if self.cfg.token:
            fields["tok"] = self.cfg.token  # proves a local worker's start-up error is its own
        self._send_parts([P.header(P.Kind.ERROR, s=seq, name=self.name, pid=os.getpid(), **fields)])

    # ----------------------------------------------------------------------------------- start-up
    async def run(self) -> int:
        cfg = self.cfg
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.IDENTITY, self.identity)
        self.sock.setsockopt(zmq.LINGER, 2000)
        self.sock.setsockopt(zmq.MAXMSGSIZE, P.MAX_HEADER_BYTES)  # dropped before allocation
        if cfg.curve is not None:
            security.apply_client(self.sock, cfg.curve)
        self.sock.connect(cfg.endpoint)
        loop = asyncio.get_running_loop()
        main_task = asyncio.current_task()
        self._readable = asyncio.Event()
        self._blocking_ok = False
        self._step_sync: Callable[[list[Any]], Any] | None = None
        self._via_lane = False
        self._fdpoll = select.poll()
        self._lane_pending: list[bytes] = []
        self._zmq_dirty = True
        self._act_specs: dict[Any, tuple[np.dtype[Any], tuple[int, ...], int]] = {}
        self._lane_spec: tuple[np.dtype[Any], tuple[int, ...], int] | None = None  # for compact STEPs
        self._compact_req = False  # the STEP being served came compact
        self._act_codec: StructuredActions | None = None  # Dict/Tuple action spaces, built at first use
        zmq_fd = self._zmq_fd = int(self.sock.getsockopt(zmq.FD))
        self._fdpoll.register(zmq_fd, select.POLLIN)
        loop.add_reader(zmq_fd, self._readable.set)
        self.lane: P.Lane | None = None
        self._lane_fd: int = -1
        if cfg.lane_fd is not None:
            self.lane = P.Lane(socketlib.socket(fileno=cfg.lane_fd))
            self._lane_fd = cfg.lane_fd
            self._fdpoll.register(cfg.lane_fd, select.POLLIN)
            loop.add_reader(cfg.lane_fd, self._readable.set)

        def on_lost(reason: str) -> None:
            self.exit_reason = reason
            self.lost.set()
            if main_task is not None:
                loop.call_soon_threadsafe(main_task.cancel)
            # Backstop: if the loop is stuck in a blocking env call, do not linger as an orphan.
            if not self.done.wait(5.0):
                sys.stderr.write(f"sc2pool worker {self.name}: {reason}; event loop unresponsive, exiting hard\n")
                _kill_children()
                self._cleanup_trainer_dir()
                os._exit(EXIT_BROKER_LOST)

        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._on_signal, sig, main_task)
        self.heartbeat = _Heartbeat(self.ctx, cfg.endpoint, self.identity, cfg, on_lost)
        self.heartbeat.start()
        try:
            return await self._lifecycle()
        except asyncio.CancelledError:
            if self.lost.is_set():
                log.warning("worker %s exiting: %s", self.name, self.exit_reason)
                return EXIT_BROKER_LOST
            return EXIT_OK if not self.exit_reason else EXIT_FAILED
        except WorkerRefusedError as exc:
            sys.stderr.write(f"sc2pool worker {self.name}: refused by the broker: {exc.reason}\n")
            return EXIT_REFUSED
        finally:
            if self.host is not None:
                with contextlib.suppress(BaseException):
                    await self.host.close()
            self.heartbeat.stop.set()
            self.done.set()
            if self.heartbeat is not threading.current_thread():
                self.heartbeat.join(timeout=2.0)
            with contextlib.suppress(Exception):
                loop.remove_reader(zmq_fd)
            if self.lane is not None:
                with contextlib.suppress(Exception):
                    loop.remove_reader(self._lane_fd)
                self.lane.close()
            self.sock.close(linger=0 if self.lost.is_set() else 2000)
            self._release_shm()
            self._cleanup_trainer_dir()
            self.ctx.term()

    def _on_signal(self, sig: int, task: asyncio.Task[Any] | None) -> None:
        self.exit_reason = f"signal {signal.Signals(sig).name}"
        if self.cfg.parent_pid is not None and os.getppid() != self.cfg.parent_pid:
            self.lost.set()
            self.exit_reason = "the trainer process died"
        if task is not None:
            task.cancel()

    def _cleanup_trainer_dir(self) -> None:
        # Only when the trainer vanished (we were re-parented): it cannot remove its ipc/shm files.
        d = self.cfg.cleanup_dir
        if d and self.cfg.parent_pid is not None and os.getppid() != self.cfg.parent_pid:
            shutil.rmtree(d, ignore_errors=True)

    async def _lifecycle(self) -> int:
        try:
            host = self.cfg.make_host()
            if not isinstance(host, EnvHost):
                raise TypeError(f"the host factory returned {type(host).__name__}, not an EnvHost")
            self.host = host
            self._blocking_ok = bool(getattr(host, "blocking_poll_ok", False))
            self._step_sync = _sync_step_of(host) if self._blocking_ok else None
        except BaseException as exc:
            idx = exc.index if isinstance(exc, EnvFailure) else None
            await self._send_error(exc, "build", idx, None)
            fields = _error_fields(exc, "build", idx)
            sys.stderr.write(f"sc2pool worker {self.name}: building the env host failed:\n{fields['tb']}")
            return EXIT_FAILED
        try:
            hello: dict[str, Any] = {
                "name": self.name,
                "host": socketlib.gethostname(),
                "pid": os.getpid(),
                "n": int(host.num_envs),
                "obs": space_to_msg(host.observation_space),
                "act": space_to_msg(host.action_space),
                "lay": {"obs": layout_to_msg(host.observation_space), "act": layout_to_msg(host.action_space)},
                "render_mode": host.render_mode,
                "local": self.cfg.local,
                "cz": True,  # takes compact STEPs over ZeroMQ too (answered compact, frames after)
            }
            if self.cfg.token:
                hello["tok"] = self.cfg.token
        except Exception as exc:
            await self._send_error(exc, "hello", None, None)
            return EXIT_FAILED
        await self._send(P.Kind.HELLO, **hello)
        log.info("worker %s: %d envs built, waiting for the trainer at %s", self.name, host.num_envs, self.cfg.endpoint)
        welcome = await self._await_welcome()
        log.info("worker %s: joined with global envs %s..%s", self.name, welcome["slots"][0], welcome["slots"][1] - 1)
        self._setup_obs_path(welcome)
        try:
            await host.start()
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                raise
            idx = exc.index if isinstance(exc, EnvFailure) else None
            await self._send_error(exc, "start", idx, None)
            fields = _error_fields(exc, "start", idx)
            sys.stderr.write(f"sc2pool worker {self.name}: starting the env host failed:\n{fields['tb']}")
            return EXIT_FAILED
        await self._send(P.Kind.READY)
        return await self._serve()

    async def _await_welcome(self) -> dict[Any, Any]:
        while True:
            frames = await self._recv()
            version = P.peek_version(frames[0])
            if version != P.PROTOCOL_VERSION:
                raise WorkerRefusedError(
                    f"protocol version mismatch: broker speaks {version!r}, worker speaks {P.PROTOCOL_VERSION}"
                )
            hdr = P.decode_header(frames[0])
            if hdr["k"] == P.Kind.REFUSE:
                raise WorkerRefusedError(str(hdr.get("reason", "no reason given")))
            if hdr["k"] == P.Kind.WELCOME:
                hb = hdr.get("hb") or {}
                if isinstance(hb.get("timeout"), (int, float)):
                    self.heartbeat.broker_timeout = float(hb["timeout"])
                return hdr
            if hdr["k"] == P.Kind.CLOSE:
                raise asyncio.CancelledError()
            log.warning("worker %s: unexpected %s before WELCOME, ignored", self.name, hdr["k"])

    def _setup_obs_path(self, welcome: dict[Any, Any]) -> None:
        assert self.host is not None
        self.lo, self.hi = (int(x) for x in welcome["slots"])
        self.n = self.host.num_envs
        shm = welcome.get("shm")
        if shm and not self._shm_path_allowed(shm):
            # A remote worker never maps a file the broker names (a hostile broker could make it
            # overwrite any file it can write); a local one only inside the trainer's private dir.
            log.warning("worker %s: ignoring the shared-memory path offered by the broker", self.name)
            shm = None
        if shm:
            layout = ObsLayout.of(self.host.observation_space, int(shm["n"]))
            with open(shm["path"], "r+b") as f:
                self._mmap = mmap.mmap(f.fileno(), layout.nbytes)
            self._layout = layout
            self._views = [v[self.lo : self.hi] for v in layout.allocate(self._mmap)]
        else:
            self._layout = ObsLayout.of(self.host.observation_space, self.n)

    def _shm_path_allowed(self, shm: Any) -> bool:
        d = self.cfg.cleanup_dir
        if not self.cfg.local or not d or not isinstance(shm, dict):
            return False
        path, n = shm.get("path"), shm.get("n")
        if not isinstance(path, str) or not isinstance(n, int) or n < self.hi or self.lo < 0:
            return False
        real_dir = os.path.realpath(d)
        return os.path.dirname(os.path.realpath(path)) == real_dir

    def _release_shm(self) -> None:
        self._views = None
        if self._mmap is not None:
            with contextlib.suppress(BufferError):
                self._mmap.close()
            self._mmap = None

    def _obs_frames(self, obs_list: list[Any]) -> list[Any]:
        """Write observations into shared memory (returns no frames) or pack them as frames."""
        layout = self._layout
        assert layout is not None
        views = self._views
        if layout.kind == "flat":
            if views is not None:
                view = views[0]
                for i, obs in enumerate(obs_list):
                    view[i] = obs
                return []
            arr = np.empty((self.n, *layout.shapes[0]), dtype=layout.dtypes[0])
            for i, obs in enumerate(obs_list):
                arr[i] = obs
            return [arr]
        keys = layout.keys
        if views is None:
            views = [np.empty((self.n, *s), dtype=d) for s, d in zip(layout.shapes, layout.dtypes, strict=True)]
            out: list[Any] = views
        else:
            out = []
        for i, obs in enumerate(obs_list):
            for j, key in enumerate(keys):
                views[j][i] = obs[key]
        return out

    # -------------------------------------------------------------------------------------- serve
    async def _serve(self) -> int:
        host = self.host
        assert host is not None
        STEP, RESET, CALL, CLOSE = P.Kind.STEP, P.Kind.RESET, P.Kind.CALL, P.Kind.CLOSE
        while True:
            frames = await self._recv()
            if frames[0].startswith(P.COMPACT_STEP):  # lane, or ZeroMQ from a broker that saw "cz"
                await self._step_compact(frames[0])
                continue
            try:
                hdr = P.decode_header(frames[0])
            except ProtocolError as exc:
                log.error("worker %s: dropped malformed message: %s", self.name, exc)
                continue
            kind = hdr["k"]
            if kind == STEP:
                await self._step(hdr, frames)
            elif kind == RESET:
                await self._reset(hdr)
            elif kind == CALL:
                await self._call(hdr)
            elif kind == CLOSE:
                return EXIT_OK
            else:
                log.warning("worker %s: unexpected message kind %s ignored", self.name, kind)

    async def _step(self, hdr: dict[Any, Any], frames: list[bytes]) -> None:
        seq = hdr.get("s")
        try:
            actions = self._actions(hdr, frames)
        except (ProtocolError, KeyError, IndexError, TypeError, ValueError) as exc:
            await self._send_error(exc, "step", None, seq)
            return
        # later STEPs with the same action layout may come compact (lane, or ZeroMQ after "cz");
        # structured (Dict/Tuple) actions always come in full
        if "al" not in hdr:
            self._lane_spec = self._act_specs[hdr["ad"]]
        self._compact_req = False
        await self._run_step(seq, actions)

    async def _step_compact(self, data: bytes) -> None:
        """A compact lane STEP: the actions' dtype and shape are those of the last full STEP."""
        seq: int | None = None
        try:
            seq = P.compact_seq(data)
            spec = self._lane_spec
            if spec is None:
                raise ProtocolError("compact STEP on a lane that has not carried a full STEP yet")
            dtype, shape, nbytes = spec
            if len(data) - P.COMPACT_HEAD != nbytes:
                raise ProtocolError(
                    f"compact STEP action buffer of {len(data) - P.COMPACT_HEAD} bytes, expected {nbytes}"
                )
            actions = np.frombuffer(data, dtype=dtype, offset=P.COMPACT_HEAD).reshape(shape).copy()
        except ProtocolError as exc:
            await self._send_error(exc, "step", None, seq)
            return
        self._compact_req = True
        await self._run_step(seq, actions)

    async def _run_step(self, seq: Any, actions: Any) -> None:
        host = self.host
        assert host is not None
        step_sync = self._step_sync
        # Over ZeroMQ a compact reply answers a compact STEP only: the broker that sent one reads them.
        zmq_compact = self._compact_req and not self._via_lane
        if step_sync is not None and ((self._via_lane and self._views is not None) or zmq_compact):
            # Fast path (a synchronous host on the local lane, or a remote worker asked compactly):
            # no coroutine, no StepResult, and when no episode ended and no info was filled, a
            # compact reply (then the observation frames, on ZeroMQ).
            try:
                obs, rewards, terminated, truncated, infos = step_sync(list(actions))
            except Exception as exc:
                await self._send_error(exc, "step", exc.index if isinstance(exc, EnvFailure) else None, seq)
                return
            if type(seq) is int and seq >= 0 and not (any(terminated) or any(truncated) or any(infos)):
                try:
                    frames = self._obs_frames(obs)  # into shared memory, or frames for ZeroMQ
                except Exception as exc:
                    await self._send_error(exc, "step (observation does not fit the observation space)", None, seq)
                    return
                self._last_obs = obs
                self._send_parts([P.compact_result(seq, rewards, terminated, truncated), *frames])
                return
            results: list[Any] = [StepResult(*r) for r in zip(obs, rewards, terminated, truncated, infos, strict=True)]
        else:
            try:
                results = await host.step(list(actions))
            except Exception as exc:
                await self._send_error(exc, "step", exc.index if isinstance(exc, EnvFailure) else None, seq)
                return
        recovered: dict[int, tuple[Any, dict[str, Any]]] | None = None
        while True:
            rewards = []
            terminated = []
            truncated = []
            obs_list = []
            infos = []
            done = []
            any_info = False
            try:
                for i, r in enumerate(results):
                    rewards.append(float(r.reward))
                    te = bool(r.terminated)
                    tr = bool(r.truncated)
                    terminated.append(te)
                    truncated.append(tr)
                    obs_list.append(r.obs)
                    infos.append(r.info)
                    if r.info:
                        any_info = True
                    if te or tr:
                        done.append(i)
                break
            except AttributeError:  # not a StepResult: an EnvFailure the host can repair?
                if recovered is not None or not any(isinstance(r, EnvFailure) for r in results):
                    raise
            try:
                results, recovered = await self._recover(results)
            except Exception as exc:
                await self._send_error(exc, "recover", exc.index if isinstance(exc, EnvFailure) else None, seq)
                return
        reset_infos: list[list[Any]] | None = None
        if recovered:
            reset_infos = []
            for i, (obs, rinfo) in recovered.items():
                obs_list[i] = obs  # the terminal one is already in the info
                reset_infos.append([i, rinfo])
            done = [i for i in done if i not in recovered]
        if done:
            any_info = True
            for i in done:
                infos[i]["TimeLimit.truncated"] = truncated[i] and not terminated[i]
                infos[i]["terminal_observation"] = obs_list[i]
            try:
                resets = await host.reset(done, [None] * len(done), [None] * len(done))
            except Exception as exc:
                idx = exc.index if isinstance(exc, EnvFailure) else None
                await self._send_error(exc, "auto-reset", idx, seq)
                return
            reset_infos = reset_infos or []
            for i, (obs, rinfo) in zip(done, resets, strict=True):
                obs_list[i] = obs
                reset_infos.append([i, rinfo])
        self._last_obs = obs_list
        try:
            out = self._obs_frames(obs_list)
        except Exception as exc:
            await self._send_error(exc, "step (observation does not fit the observation space)", None, seq)
            return
        if ((self._via_lane and not out) or zmq_compact) and not any_info and reset_infos is None \
                and type(seq) is int and seq >= 0:
            # the common lockstep reply: nothing but rewards and flags (observations are in shm,
            # or follow as frames on ZeroMQ)
            self._send_parts([P.compact_result(seq, rewards, terminated, truncated), *out])
            return
        try:
            head = P.pack(
                {"v": _VERSION, "k": _RESULT, "s": seq, "r": rewards, "te": terminated, "tr": truncated,
                 "i": infos if any_info else None, "ri": reset_infos},
                what="RESULT message",
            )
        except EncodeError:
            items: list[tuple[str, int, Any]] = [("info", i, x) for i, x in enumerate(infos)]
            items += [("reset info", int(pair[0]), pair[1]) for pair in (reset_infos or [])]
            await self._encode_failure(seq, "step", items)
            return
        self._send_parts([head, *out])

    async def _recover(
        self, results: list[Any]
    ) -> tuple[list[Any], dict[int, tuple[Any, dict[str, Any]]]]:
        """Let the host repair the envs it reported as ``EnvFailure(recoverable=True)``; their
        episodes end truncated (terminal observation: the last one sent) with the restart flag."""
        host = self.host
        assert host is not None
        out = list(results)
        recovered: dict[int, tuple[Any, dict[str, Any]]] = {}
        for i, r in enumerate(results):
            if not isinstance(r, EnvFailure):
                continue
            if not r.recoverable or r.index != i:
                raise r if r.index == i else EnvFailure(i, r.cause)
            log.warning("worker %s: env %d failed (%s); recovering it", self.name, i, r)
            recovered[i] = await host.recover(i)
            self.env_restarts[i] = self.env_restarts.get(i, 0) + 1
            last = self._last_obs[i] if self._last_obs is not None else recovered[i][0]
            info = {"terminal_observation": last, "sc2pool.restarted": True,
                    "sc2pool.failure": f"{type(r.cause).__name__}: {r.cause}"}
            out[i] = StepResult(last, 0.0, False, True, info)
        return out, recovered

    def _structured_actions(self, leaves: Any) -> list[Any]:
        """Per-env ``Dict``/``Tuple`` actions from a STEP's ``al`` field: one ``[dtype, shape,
        bytes, 0-d arrays?]`` array per leaf of the action space, first axis the env (bounded: each array is
        checked against its declared dtype and shape, and their count against the space)."""
        host = self.host
        assert host is not None
        codec = self._act_codec
        if codec is None:
            codec = self._act_codec = StructuredActions(host.action_space)
        if not isinstance(leaves, list) or len(leaves) != len(codec.leaves):
            n = len(leaves) if isinstance(leaves, list) else type(leaves).__name__
            raise ProtocolError(f"STEP carries {n} action arrays; the action space has {len(codec.leaves)} leaves")
        arrays = []
        for i, leaf in enumerate(leaves):
            if not isinstance(leaf, list) or len(leaf) != 4 or not isinstance(leaf[2], bytes):
                raise ProtocolError(f"malformed action array {i} in STEP")
            arr = P.array_from_buffer(leaf[2], leaf[0], leaf[1])
            if arr.ndim == 0 or arr.shape[0] != self.n:
                raise ProtocolError(f"STEP carries action array {i} of shape {arr.shape} for {self.n} envs")
            arrays.append((arr, bool(leaf[3])))
        return codec.decode(arrays, self.n)

    def _actions(self, hdr: dict[Any, Any], frames: list[bytes]) -> Any:
        """The action batch of a STEP (validated once per dtype/shape, then cached)."""
        if "al" in hdr:
            return self._structured_actions(hdr["al"])
        buf = hdr.get("a")
        if buf is None:
            buf = frames[1]
        key = hdr["ad"]
        spec = self._act_specs.get(key)
        if spec is None or spec[1] != tuple(hdr["as"]):
            dtype = np.dtype(P.array_from_buffer(b"", hdr["ad"], [0]).dtype)
            shape = tuple(hdr["as"])
            if not shape or shape[0] != self.n:
                raise ProtocolError(f"STEP carries actions of shape {shape} for {self.n} envs")
            P.array_from_buffer(bytes(int(np.prod(shape)) * dtype.itemsize), dtype, shape)  # validates
            spec = self._act_specs[key] = (dtype, shape, int(np.prod(shape)) * dtype.itemsize)
        dtype, shape, nbytes = spec
        if len(buf) != nbytes:
            raise ProtocolError(f"STEP action buffer of {len(buf)} bytes, expected {nbytes}")
        return np.frombuffer(buf, dtype=dtype).reshape(shape).copy()

    async def _encode_failure(self, seq: Any, stage: str, items: list[tuple[str, int, Any]]) -> None:
        """Find which env's value cannot be encoded, and report it as that env's error."""
        for what, index, value in items:
            try:
                P.pack(value, what=what)
            except EncodeError as exc:
                await self._send_error(exc, stage, index, seq)
                return
        await self._send_error(EncodeError("result could not be encoded"), stage, None, seq)

    async def _reset(self, hdr: dict[Any, Any]) -> None:
        seq = hdr.get("s")
        host = self.host
        assert host is not None
        seeds = hdr.get("seeds") or [None] * self.n
        opts = hdr.get("opts") or [None] * self.n
        try:
            results = await host.reset(list(range(self.n)), seeds, opts)
        except Exception as exc:
            await self._send_error(exc, "reset", exc.index if isinstance(exc, EnvFailure) else None, seq)
            return
        try:
            out = self._obs_frames([obs for obs, _ in results])
        except Exception as exc:
            await self._send_error(exc, "reset (observation does not fit the observation space)", None, seq)
            return
        infos = [info for _, info in results]
        self._last_obs = [obs for obs, _ in results]
        try:
            head = P.header(P.Kind.RESULT, s=seq, ri=infos)
        except EncodeError:
            await self._encode_failure(seq, "reset", [("reset info", i, x) for i, x in enumerate(infos)])
            return
        self._send_parts([head, *out])

    async def _call(self, hdr: dict[Any, Any]) -> None:
        seq = hdr.get("s")
        host = self.host
        assert host is not None
        op = hdr.get("op")
        name = str(hdr.get("name"))
        results: list[Any] = []
        for index in hdr.get("idx") or []:
            try:
                if op == "get_attr":
                    value = await host.get_attr(index, name)
                elif op == "set_attr":
                    await host.set_attr(index, name, hdr.get("value"))
                    value = None
                elif op == "env_method":
                    value = await host.call(index, name, hdr.get("args") or [], hdr.get("kwargs") or {})
                elif op == "has_attr":
                    value = await host.has_attr(index, name)
                elif op == "is_wrapped":
                    value = await host.env_is_wrapped(index, name)
                elif op == "render":
                    value = await host.render(index)
                else:
                    raise ProtocolError(f"unknown call {op!r}")
                P.pack(value, what=f"{op}({name!r}) result")
            except Exception as exc:
                await self._send_error(exc, f"{op}({name!r})", index, seq)
                return
            results.append(value)
        await self._send(P.Kind.CALL_RESULT, s=seq, res=results)


def run_worker(cfg: WorkerConfig) -> int:
    """Run a worker until CLOSE, refusal, trainer loss or a signal; returns the exit code."""
    if cfg.parent_pid is not None:  # started by a trainer or by a launcher's Ray actor
        _set_parent_death_signal(cfg.parent_pid)
    worker = Worker(cfg)
    try:
        return asyncio.run(worker.run())
    except KeyboardInterrupt:
        return EXIT_OK


# --------------------------------------------------------------------------- local spawn entry
def _recipe_curve(spec: Any) -> security.WorkerCurveConfig | None:
    """The ephemeral CURVE keys a CURVE pool hands its local workers on stdin."""
    if not spec:
        return None
    return security.WorkerCurveConfig(
        keypair=security.KeyPair(public=spec["public"], secret=spec["secret"]), server_public_key=spec["server"]
    )


def _local_main(argv: list[str] | None = None) -> int:
    """Entry point of a worker spawned by ZmqVecEnv (``python -m workers.main``), or on a cluster
    node by a launcher (``--remote``: it joins like ``sc2pool worker``, over tcp).

    The host recipe arrives on stdin (cloudpickle; this is process start-up on the same machine,
    never the network): either env factories or a HostSpec.
    """
    parser = argparse.ArgumentParser(prog="python -m workers.main")
    parser.add_argument("--connect", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--heartbeat-interval", type=float, default=0.5)
    parser.add_argument("--parent-pid", type=int, default=None)
    parser.add_argument("--cleanup-dir", default=None)
    parser.add_argument("--log-level", default="WARNING")
    parser.add_argument("--lane-fd", type=int, default=None)
    parser.add_argument("--cpus", default=None, help="pin this worker (and what it starts) to these cores")
    parser.add_argument("--spin-us", type=float, default=0.0,
                        help="poll the lane this long after a reply before sleeping (a core of its own)")
    parser.add_argument(
        "--remote", action="store_true",
        help="started on a cluster node by a launcher (sc2pool.launchers): a remote worker, no shared memory",
    )
    parser.add_argument(
        layout.RESTORE_FLAG, action="store_true",
        help="started by workers.layout with a fixed address layout: randomise what this worker starts",
    )
    args = parser.parse_args(argv)
    if args.restore_aslr:
        layout.restore_randomization()  # SC2 games and the engine keep randomised layouts
    if args.cpus:
        # First thing: the heartbeat and ZeroMQ threads and any game process inherit the cores.
        try:
            affinity.pin_self(affinity.parse_cpu_list(args.cpus))
        except (OSError, ValueError) as exc:
            sys.stderr.write(f"sc2pool worker {args.name}: not pinned to cores {args.cpus}: {exc}\n")
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    payload = sys.stdin.buffer.read()
    sys.stdin.close()
    import cloudpickle

    # The outer recipe is a plain dict (env factories stay pickled bytes until make_host).
    recipe = cloudpickle.loads(payload)

    def make_host() -> EnvHost:
        for entry in reversed(recipe.get("sys_path", [])):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        if recipe["kind"] == "fns":
            from workers.gym_host import GymHost

            return GymHost(cloudpickle.loads(recipe["fns"]))
        spec = HostSpec(recipe["target"], recipe["kwargs"])
        return spec.build(num_envs=recipe["num_envs"], worker_index=args.index)

    cfg = WorkerConfig(
        endpoint=args.connect,
        make_host=make_host,
        name=args.name,
        heartbeat_interval=args.heartbeat_interval,
        local=not args.remote,
        parent_pid=args.parent_pid,
        cleanup_dir=args.cleanup_dir,
        lane_fd=args.lane_fd,
        token=recipe.get("token"),
        curve=_recipe_curve(recipe.get("curve")),
        spin_s=max(0.0, args.spin_us) / 1e6,
    )
    return run_worker(cfg)


if __name__ == "__main__":
    sys.exit(_local_main())
