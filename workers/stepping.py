"""The step pipeline of a worker: a decoded request in, the reply's frames (or a failure) out.

:class:`Stepper` serves STEP, RESET and CALL for one :class:`~workers.host.EnvHost`. It knows
nothing of sockets: each method returns either the list of frames to send (header first) or a
:class:`~workers.recovery.Failure`, which the worker reports as an ERROR and keeps serving.

A STEP's life: actions decoded (:class:`ActionDecoder`), the host stepped, envs the host can
repair recovered (:mod:`workers.recovery`), finished episodes auto-reset here (SB3's VecEnv
contract: ``terminal_observation`` in the info), observations written (:mod:`workers.observations`)
and the reply encoded, compact when nothing but rewards and flags need saying.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from sc2pool.errors import EncodeError, ProtocolError
from sc2pool.pool import wire
from sc2pool.pool.codec import array_from_buffer, pack
from sc2pool.pool.spaces import StructuredActions
from workers.host import EnvFailure, EnvHost, StepResult
from workers.observations import ObsSink
from workers.recovery import Failure, Recovered, failed_envs, recover

Outcome = list[Any] | Failure  # the reply's frames, or why there is none


class Unfinished(NamedTuple):
    """A STEP that :meth:`Stepper.step_now` could not complete without awaiting: ``results`` are
    the host's (None: the host is still to be stepped with ``actions``)."""

    seq: Any
    results: list[Any] | None
    actions: Any
    compact_ok: bool


def sync_step_of(host: EnvHost) -> Callable[[list[Any]], Any] | None:
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


class ActionDecoder:
    """Turns STEP messages into the action batch for ``num_envs`` envs, bounds-checked.

    A flat action layout (dtype string and shape) is validated once and cached; the last one seen
    in a full STEP is the layout of the compact STEPs that follow it. Structured (Dict/Tuple)
    actions always come in full, one array per leaf of the action space."""

    def __init__(self, action_space: spaces.Space[Any], num_envs: int) -> None:
        self.action_space = action_space
        self.n = num_envs
        self._specs: dict[str, tuple[np.dtype[Any], tuple[int, ...], int]] = {}
        self._compact_spec: tuple[np.dtype[Any], tuple[int, ...], int] | None = None
        self._codec: StructuredActions | None = None  # built at the first structured STEP

    def decode(self, step: wire.Step, frames: list[bytes]) -> Any:
        """The actions of ``step`` (``frames``: the whole message; frame 1 holds the actions of a
        full ZeroMQ STEP). Raises :class:`ProtocolError` when they do not match their layout."""
        if step.compact:
            return self.compact(step.data or b"", 0)
        if step.leaves is not None:
            return self._structured(step.leaves)
        buf = step.data
        if buf is None:
            if len(frames) < 2:
                raise ProtocolError("STEP carries no action frame")
            buf = frames[1]
        assert step.action_dtype is not None and step.action_shape is not None
        spec = self._specs.get(step.action_dtype)
        if spec is None or spec[1] != step.action_shape:
            dtype = array_from_buffer(b"", step.action_dtype, [0]).dtype
            shape = step.action_shape
            if not shape or shape[0] != self.n:
                raise ProtocolError(f"STEP carries actions of shape {shape} for {self.n} envs")
            nbytes = int(np.prod(shape)) * dtype.itemsize
            array_from_buffer(bytes(nbytes), dtype, shape)  # validates the layout
            spec = self._specs[step.action_dtype] = (dtype, shape, nbytes)
        dtype, shape, nbytes = spec
        if len(buf) != nbytes:
            raise ProtocolError(f"STEP action buffer of {len(buf)} bytes, expected {nbytes}")
        self._compact_spec = spec
        return np.frombuffer(buf, dtype=dtype).reshape(shape).copy()

    def compact(self, frame: bytes, offset: int) -> Any:
        """The actions of a compact STEP, which are ``frame[offset:]`` (the whole frame of a
        compact STEP read from ZeroMQ, at ``wire.COMPACT_HEAD``: no copy of the action bytes
        before the one into the returned array). Raises :class:`ProtocolError` when no full STEP
        set the layout yet or the size does not match it."""
        spec = self._compact_spec
        if spec is None:
            raise ProtocolError("compact STEP on a lane that has not carried a full STEP yet")
        size = len(frame) - offset
        if size != spec[2]:
            raise ProtocolError(f"compact STEP action buffer of {size} bytes, expected {spec[2]}")
        actions = np.frombuffer(frame, dtype=spec[0], offset=offset)
        if len(spec[1]) == 1:
            # One scalar per env: the host is handed list(actions), whose items are copies, so
            # this read-only view over the frame needs no copy of its own.
            return actions
        return actions.reshape(spec[1]).copy()  # rows are views: each env gets writable rows of its own batch

    def _structured(self, leaves: list[Any]) -> list[Any]:
        codec = self._codec
        if codec is None:
            codec = self._codec = StructuredActions(self.action_space)
        if len(leaves) != len(codec.leaves):
            raise ProtocolError(f"STEP carries {len(leaves)} action arrays; the action space has {len(codec.leaves)} leaves")
        arrays = []
        for i, leaf in enumerate(leaves):
            if not isinstance(leaf, list) or len(leaf) != 4 or not isinstance(leaf[2], bytes):
                raise ProtocolError(f"malformed action array {i} in STEP")
            arr = array_from_buffer(leaf[2], leaf[0], leaf[1])
            if arr.ndim == 0 or arr.shape[0] != self.n:
                raise ProtocolError(f"STEP carries action array {i} of shape {arr.shape} for {self.n} envs")
            arrays.append((arr, bool(leaf[3])))
        self._compact_spec = None  # structured actions never come compact
        return codec.decode(arrays, self.n)


def _encode_failure(stage: str, items: list[tuple[str, int, Any]]) -> Failure:
    """Which env's value cannot be encoded, as that env's failure."""
    for what, index, value in items:
        try:
            pack(value, what=what)
        except EncodeError as exc:
            return Failure(exc, stage, index)
    return Failure(EncodeError("result could not be encoded"), stage)


class Stepper:
    """Serves STEP, RESET and CALL requests for ``host``, whose observations go to ``sink``.

    ``step_sync``: the host's synchronous step (see :func:`sync_step_of`), used on the paths where
    a compact reply is possible; None: always through ``host.step``."""

    def __init__(self, host: EnvHost, sink: ObsSink, step_sync: Callable[[list[Any]], Any] | None = None,
                 worker_name: str = "") -> None:
        self.host = host
        self.n = host.num_envs
        self.sink = sink
        self.step_sync = step_sync
        self.worker_name = worker_name
        self.actions = ActionDecoder(host.action_space, self.n)
        self.last_obs: list[Any] | None = None  # last observation sent per env (terminal obs on recover)
        self.env_restarts: dict[int, int] = {}  # local env index -> recoveries by the host

    # ------------------------------------------------------------------------------------ step
    async def step(self, seq: Any, actions: Any, *, via_lane: bool, compact_request: bool) -> Outcome:
        """Step every env with ``actions``; the reply goes compact when it can, i.e. when the request
        came over a lane with observations in shared memory, or came compact over ZeroMQ (only a
        broker that sends compact STEPs reads compact RESULTs there)."""
        out = self.step_now(seq, actions, via_lane=via_lane, compact_request=compact_request)
        if type(out) is Unfinished:
            return await self.finish(out)
        return out  # type: ignore[return-value]

    def step_now(self, seq: Any, actions: Any, *, via_lane: bool, compact_request: bool) -> Outcome | Unfinished:
        """The part of :meth:`step` that needs no await: all of it when the host steps synchronously
        and the reply can be compact (no episode ended, no info); otherwise an :class:`Unfinished`
        step for :meth:`finish`. A worker whose loop receives without the event loop calls this
        directly, so that a lockstep step creates no coroutine."""
        zmq_compact = compact_request and not via_lane
        compact_ok = (via_lane and self.sink.views is not None) or zmq_compact
        step_sync = self.step_sync
        if step_sync is None or not compact_ok:
            return Unfinished(seq, None, actions, compact_ok)
        # No coroutine and no StepResult: when no episode ended and no info was filled, a
        # compact reply (then, on ZeroMQ, the observation frames).
        try:
            obs, rewards, terminated, truncated, infos = step_sync(list(actions))
        except Exception as exc:
            return Failure.of(exc, "step")
        if type(seq) is int and seq >= 0 and not (any(terminated) or any(truncated) or any(infos)):
            try:
                frames = self.sink.write(obs)
            except Exception as exc:
                return Failure(exc, "step (observation does not fit the observation space)")
            self.last_obs = obs
            return [wire.compact_result(seq, rewards, terminated, truncated), *frames]
        results = [StepResult(*r) for r in zip(obs, rewards, terminated, truncated, infos, strict=True)]
        return Unfinished(seq, results, actions, compact_ok)

    async def finish(self, step: Unfinished) -> Outcome:
        """The rest of a step :meth:`step_now` began: the host stepped (if it was not yet), envs
        recovered, finished episodes auto-reset, the RESULT encoded."""
        host = self.host
        results = step.results
        if results is None:
            try:
                results = await host.step(list(step.actions))
            except Exception as exc:
                return Failure.of(exc, "step")
        restarted: dict[int, tuple[Any, dict[str, Any]]] = {}
        if failed_envs(results):
            repaired = await recover(host, results, self.last_obs, self.env_restarts, self.worker_name)
            if isinstance(repaired, Failure):
                return repaired
            results, restarted = repaired.results, repaired.restarted
        return await self._finish(step.seq, results, restarted, step.compact_ok)

    async def _finish(self, seq: Any, results: list[Any], restarted: dict[int, tuple[Any, dict[str, Any]]],
                      compact_ok: bool) -> Outcome:
        """Auto-reset finished episodes, write the observations and encode the RESULT."""
        n = len(results)
        rewards: list[float] = [0.0] * n
        terminated: list[bool] = [False] * n
        truncated: list[bool] = [False] * n
        obs_list: list[Any] = [None] * n
        infos: list[Any] = [None] * n
        done: list[int] = []
        any_info = False
        for i, r in enumerate(results):
            if not isinstance(r, StepResult):
                return Failure(TypeError(f"the host's step returned a {type(r).__name__} for env {i}, "
                                         "not a StepResult"), "step", i)
            rewards[i] = float(r.reward)
            te = terminated[i] = bool(r.terminated)
            tr = truncated[i] = bool(r.truncated)
            obs_list[i] = r.obs
            infos[i] = r.info
            if r.info:
                any_info = True
            if (te or tr) and i not in restarted:
                done.append(i)
        reset_infos: list[list[Any]] | None = None
        if restarted:
            reset_infos = []
            for i, (obs, rinfo) in restarted.items():
                obs_list[i] = obs  # the terminal one is already in the info
                reset_infos.append([i, rinfo])
        if done:
            any_info = True
            for i in done:
                infos[i]["TimeLimit.truncated"] = truncated[i] and not terminated[i]
                infos[i]["terminal_observation"] = obs_list[i]
            try:
                resets = await self.host.reset(done, [None] * len(done), [None] * len(done))
            except Exception as exc:
                return Failure.of(exc, "auto-reset")
            reset_infos = reset_infos or []
            for i, (obs, rinfo) in zip(done, resets, strict=True):
                obs_list[i] = obs
                reset_infos.append([i, rinfo])
        self.last_obs = obs_list
        try:
            frames = self.sink.write(obs_list)
        except Exception as exc:
            return Failure(exc, "step (observation does not fit the observation space)")
        # On a lane a compact reply needs the observations in shared memory (no frames follow it).
        result = wire.Result(seq, rewards, terminated, truncated, infos if any_info else None, reset_infos)
        try:
            head = result.encode(compact=compact_ok)
        except EncodeError:
            items: list[tuple[str, int, Any]] = [("info", i, x) for i, x in enumerate(infos)]
            items += [("reset info", int(pair[0]), pair[1]) for pair in (reset_infos or [])]
            return _encode_failure("step", items)
        return [head, *frames]

    # ----------------------------------------------------------------------------------- reset
    async def reset(self, msg: wire.Reset) -> Outcome:
        """Reset every env with the request's seeds and options; the reply carries their infos."""
        n = self.n
        seeds = msg.seeds or [None] * n
        opts = msg.options or [None] * n
        if len(seeds) != n or len(opts) != n:
            return Failure(ProtocolError(f"RESET carries {len(seeds)} seeds and {len(opts)} options for {n} envs"),
                           "reset")
        try:
            results = await self.host.reset(list(range(n)), seeds, opts)
        except Exception as exc:
            return Failure.of(exc, "reset")
        try:
            frames = self.sink.write([obs for obs, _ in results])
        except Exception as exc:
            return Failure(exc, "reset (observation does not fit the observation space)")
        infos = [info for _, info in results]
        self.last_obs = [obs for obs, _ in results]
        try:
            head = wire.Result(msg.seq, reset_infos=infos).encode()
        except EncodeError:
            return _encode_failure("reset", [("reset info", i, x) for i, x in enumerate(infos)])
        return [head, *frames]

    # ------------------------------------------------------------------------------------ call
    async def call(self, msg: wire.Call) -> Outcome:
        """Run ``msg.op`` on each env it names; one value per env, in order."""
        host, op, name = self.host, msg.op, msg.name
        results: list[Any] = []
        for index in msg.indices:
            try:
                if not 0 <= index < self.n:
                    raise IndexError(f"env index {index} out of range for a worker of {self.n} envs")
                if op == "get_attr":
                    value = await host.get_attr(index, name)
                elif op == "set_attr":
                    await host.set_attr(index, name, msg.value)
                    value = None
                elif op == "env_method":
                    value = await host.call(index, name, msg.args, msg.kwargs)
                elif op == "has_attr":
                    value = await host.has_attr(index, name)
                elif op == "is_wrapped":
                    value = await host.env_is_wrapped(index, name)
                else:  # "render": wire.Call admits no other op
                    value = await host.render(index)
                pack(value, what=f"{op}({name!r}) result")
            except Exception as exc:
                return Failure(exc, f"{op}({name!r})", index)
            results.append(value)
        return [wire.CallResult(msg.seq, results).encode()]


__all__ = ["ActionDecoder", "EnvFailure", "Failure", "Outcome", "Recovered", "Stepper", "Unfinished", "sync_step_of"]
