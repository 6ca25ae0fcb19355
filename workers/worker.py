"""The worker process's life: join the broker, start the envs, serve requests, leave cleanly.

Life of a worker::

    build host (spaces known) -> HELLO -> WELCOME | REFUSE -> host.start() -> READY -> serve
    serve: RESET -> RESULT, STEP -> RESULT (auto-reset done here), CALL -> CALL_RESULT, CLOSE -> exit
           any failure of an env -> ERROR (type, message, traceback, local env index); keep serving

The message loop runs in one asyncio event loop, so hosts whose envs are asynchronous (StarCraft II
through burnysc2) and plain gymnasium hosts look the same. The parts it drives each do one job:
:mod:`workers.transport` (socket, lane, heartbeat thread), :mod:`workers.stepping` (what a request
does to the envs), :mod:`workers.recovery` (envs repaired in place, failures as values) and
:mod:`workers.observations` (shared memory or frames). Messages are the typed ones of
:mod:`sc2pool.pool.wire`.

When the heartbeat thread reports the broker lost, the worker cancels the message loop (closing
the host and its game processes) and, if the loop is stuck in a blocking env call, kills its
children and exits hard.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import socket as socketlib
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sc2pool.errors import ProtocolError, WorkerRefusedError
from sc2pool.pool import security, wire
from sc2pool.pool.spaces import layout_to_msg, space_to_msg
from workers.host import EnvHost
from workers.observations import ObsSink, shm_path_allowed
from workers.recovery import Failure
from workers.stepping import Outcome, Stepper, Unfinished, sync_step_of
from workers.transport import Heartbeat, Transport

log = logging.getLogger("sc2pool.worker")

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
    # before sleeping, while requests have been coming back that fast (see transport.spin_read).
    spin_s: float = 0.0


def kill_children() -> None:
    """Kill every descendant process (game processes) of this worker; used on hard exit."""
    try:
        import psutil

        children = psutil.Process().children(recursive=True)
    except Exception:
        return
    for child in children:
        with contextlib.suppress(Exception):
            child.kill()


def set_parent_death_signal(parent_pid: int | None) -> None:
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


# The requests a worker answers with an ERROR (naming this stage) when their fields are malformed;
# any other malformed message is dropped: an ERROR outside a request would fail the worker.
_STAGES = {wire.Kind.STEP: "step", wire.Kind.RESET: "reset", wire.Kind.CALL: "call"}


class Worker:
    """One worker: its transport, its host and the serve loop. Use :func:`run_worker`."""

    def __init__(self, cfg: WorkerConfig) -> None:
        self.cfg = cfg
        self.name = cfg.name or f"{socketlib.gethostname()}:{os.getpid()}"
        self.identity = uuid.uuid4().bytes
        self.host: EnvHost | None = None
        self.stepper: Stepper | None = None
        self.sink: ObsSink | None = None
        self.exit_reason = ""
        self.lost = threading.Event()
        self.done = threading.Event()

    @property
    def env_restarts(self) -> dict[int, int]:
        """Recoveries by the host per local env index."""
        return self.stepper.env_restarts if self.stepper is not None else {}

    # -------------------------------------------------------------------------------- plumbing
    def _send(self, msg: Any, frames: list[Any] | None = None) -> None:
        self.transport.send([msg.encode(), *(frames or [])])

    def _send_failure(self, failure: Failure, seq: Any) -> None:
        log.debug("env failure during %s: %s", failure.stage, failure.cause)
        # the token proves a local worker's start-up error is its own
        self._send(failure.to_message(seq, self.name, os.getpid(), self.cfg.token))

    def _reply(self, outcome: Outcome, seq: Any) -> None:
        if isinstance(outcome, Failure):
            self._send_failure(outcome, seq)
        else:
            self.transport.send(outcome)

    def _on_lane_closed(self, reason: str) -> None:
        self.exit_reason = reason
        self.lost.set()

    # ----------------------------------------------------------------------------------- start-up
    async def run(self) -> int:
        cfg = self.cfg
        self.transport = Transport(cfg.endpoint, self.identity, curve=cfg.curve, lane_fd=cfg.lane_fd,
                                   spin_s=cfg.spin_s, name=self.name, on_lane_closed=self._on_lane_closed)
        self.transport.open()
        loop = asyncio.get_running_loop()
        main_task = asyncio.current_task()

        def on_lost(reason: str) -> None:
            self.exit_reason = reason
            self.lost.set()
            if main_task is not None:
                loop.call_soon_threadsafe(main_task.cancel)
            # Backstop: if the loop is stuck in a blocking env call, do not linger as an orphan.
            if not self.done.wait(5.0):
                sys.stderr.write(f"sc2pool worker {self.name}: {reason}; event loop unresponsive, exiting hard\n")
                kill_children()
                self._cleanup_trainer_dir()
                os._exit(EXIT_BROKER_LOST)

        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._on_signal, sig, main_task)
        self.heartbeat = Heartbeat(
            self.transport.ctx, cfg.endpoint, self.identity, interval=cfg.heartbeat_interval,
            broker_timeout=cfg.broker_timeout, connect_timeout=cfg.connect_timeout, curve=cfg.curve,
            on_lost=on_lost,
        )
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
            if self.sink is not None:
                self.sink.release()
            self.transport.close(linger_ms=0 if self.lost.is_set() else 2000)
            self._cleanup_trainer_dir()

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

    def _startup_failed(self, exc: BaseException, stage: str, what: str) -> int:
        failure = Failure.of(exc, stage)
        self._send_failure(failure, None)
        sys.stderr.write(f"sc2pool worker {self.name}: {what} failed:\n{failure.traceback_text()}")
        return EXIT_FAILED

    async def _lifecycle(self) -> int:
        try:
            host = self.cfg.make_host()
            if not isinstance(host, EnvHost):
                raise TypeError(f"the host factory returned {type(host).__name__}, not an EnvHost")
            self.host = host
        except BaseException as exc:
            return self._startup_failed(exc, "build", "building the env host")
        blocking_ok = bool(getattr(host, "blocking_poll_ok", False))
        self.transport.blocking_ok = blocking_ok
        try:
            hello = wire.Hello(
                name=self.name, hostname=socketlib.gethostname(), pid=os.getpid(), num_envs=int(host.num_envs),
                observation_space=space_to_msg(host.observation_space),
                action_space=space_to_msg(host.action_space),
                layout=wire.Hello.layout_of(layout_to_msg(host.observation_space), layout_to_msg(host.action_space)),
                render_mode=host.render_mode, local=self.cfg.local,
                compact_zmq=True,  # takes compact STEPs over ZeroMQ too (answered compact, frames after)
                token=self.cfg.token,
            ).encode()
        except Exception as exc:
            self._send_failure(Failure(exc, "hello"), None)
            return EXIT_FAILED
        self.transport.send([hello])
        log.info("worker %s: %d envs built, waiting for the trainer at %s", self.name, host.num_envs, self.cfg.endpoint)
        welcome = await self._await_welcome()
        log.info("worker %s: joined with global envs %s..%s", self.name, welcome.lo, welcome.hi - 1)
        self.sink = self._obs_sink(host, welcome)
        self.stepper = Stepper(host, self.sink, sync_step_of(host) if blocking_ok else None, self.name)
        try:
            await host.start()
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                raise
            return self._startup_failed(exc, "start", "starting the env host")
        self._send(wire.Ready())
        return await self._serve(self.stepper)

    async def _await_welcome(self) -> wire.Welcome:
        while True:
            frames = await self.transport.recv()
            version = wire.peek_version(frames[0])
            if version != wire.PROTOCOL_VERSION:
                raise WorkerRefusedError(
                    f"protocol version mismatch: broker speaks {version!r}, worker speaks {wire.PROTOCOL_VERSION}"
                )
            try:
                msg = wire.from_header(wire.decode_header(frames[0]))
            except ProtocolError as exc:
                raise WorkerRefusedError(f"malformed answer to HELLO: {exc}") from None
            if isinstance(msg, wire.Refuse):
                raise WorkerRefusedError(msg.reason)
            if isinstance(msg, wire.Welcome):
                if msg.heartbeat_timeout is not None:
                    self.heartbeat.broker_timeout = msg.heartbeat_timeout
                return msg
            if isinstance(msg, wire.Close):
                raise asyncio.CancelledError()
            log.warning("worker %s: unexpected %s before WELCOME, ignored", self.name, msg.KIND.name)

    def _obs_sink(self, host: EnvHost, welcome: wire.Welcome) -> ObsSink:
        path = welcome.shm_path
        if path is not None and not shm_path_allowed(path, welcome.shm_envs, welcome.lo, welcome.hi,
                                                     local=self.cfg.local, private_dir=self.cfg.cleanup_dir):
            log.warning("worker %s: ignoring the shared-memory path offered by the broker", self.name)
            path = None
        if path is not None and welcome.shm_envs is not None:
            return ObsSink.shared(host.observation_space, path, welcome.shm_envs, welcome.lo, welcome.hi)
        return ObsSink.frames_only(host.observation_space, host.num_envs)

    # -------------------------------------------------------------------------------------- serve
    async def _serve(self, stepper: Stepper) -> int:
        transport = self.transport
        recv, reply, decode = transport.recv, self._reply, wire.decode
        Step, Reset, Call, Close = wire.Step, wire.Reset, wire.Call, wire.Close
        # A remote worker of a synchronous host receives and steps without the event loop: no
        # coroutine per request; the loop runs between receive slices and for what must await.
        recv_now = transport.recv_now if transport.waits_in_zmq else None
        compact_actions, step_now = stepper.actions.compact, stepper.step_now
        COMPACT_STEP, COMPACT_HEAD, seq_of = wire.COMPACT_STEP, wire.COMPACT_HEAD, wire.compact_seq
        while True:
            if recv_now is not None:
                frames = recv_now()
                if frames is None:
                    await asyncio.sleep(0)  # signals, cancellation
                    continue
                head = frames[0]
                if head[:2] == COMPACT_STEP and len(head) >= COMPACT_HEAD:
                    # The lockstep request, read in place: what decode() and ActionDecoder.decode()
                    # do for it (same checks, same errors) without a Step or a copy of its bytes.
                    seq = seq_of(head)
                    try:
                        actions = compact_actions(head, COMPACT_HEAD)
                    except ProtocolError as exc:
                        self._send_failure(Failure(exc, "step"), seq)
                        continue
                    outcome = step_now(seq, actions, via_lane=False, compact_request=True)
                    if type(outcome) is Unfinished:
                        outcome = await stepper.finish(outcome)
                    reply(outcome, seq)  # type: ignore[arg-type]
                    continue
            else:
                frames = await recv()
            try:
                msg = decode(frames[0])
            except wire.MalformedMessage as exc:
                stage = _STAGES.get(exc.kind)
                if stage is not None:  # a request with bad fields: answer it, the trainer need not wait
                    self._send_failure(Failure(exc, stage), exc.seq)
                else:
                    log.error("worker %s: dropped malformed message: %s", self.name, exc)
                continue
            except ProtocolError as exc:
                if frames[0][:2] == wire.COMPACT_STEP:  # a truncated compact STEP
                    self._send_failure(Failure(exc, "step"), None)
                else:
                    log.error("worker %s: dropped malformed message: %s", self.name, exc)
                continue
            if type(msg) is Step:
                try:
                    actions = stepper.actions.decode(msg, frames)
                except (ProtocolError, KeyError, IndexError, TypeError, ValueError) as exc:
                    self._send_failure(Failure(exc, "step"), msg.seq)
                    continue
                outcome = stepper.step_now(msg.seq, actions, via_lane=transport.via_lane, compact_request=msg.compact)
                if type(outcome) is Unfinished:
                    outcome = await stepper.finish(outcome)
                reply(outcome, msg.seq)  # type: ignore[arg-type]
            elif type(msg) is Reset:
                reply(await stepper.reset(msg), msg.seq)
            elif type(msg) is Call:
                reply(await stepper.call(msg), msg.seq)
            elif type(msg) is Close:
                return EXIT_OK
            else:
                log.warning("worker %s: unexpected message kind %s ignored", self.name, msg.KIND.name)


def run_worker(cfg: WorkerConfig) -> int:
    """Run a worker until CLOSE, refusal, trainer loss or a signal; returns the exit code."""
    if cfg.parent_pid is not None:  # started by a trainer or by a launcher's Ray actor
        set_parent_death_signal(cfg.parent_pid)
    worker = Worker(cfg)
    try:
        return asyncio.run(worker.run())
    except KeyboardInterrupt:
        return EXIT_OK
