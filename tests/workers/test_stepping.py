"""The worker's step pipeline without processes or sockets (``workers.stepping``,
``workers.recovery``): requests in, reply frames or failure values out."""

from __future__ import annotations

import asyncio
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from scripted_host import N, ScriptedHost

from sc2pool.errors import EncodeError, ProtocolError
from sc2pool.pool import wire
from workers.host import EnvFailure, StepResult
from workers.observations import ObsSink
from workers.recovery import Failure, Recovered, recover
from workers.stepping import ActionDecoder, Stepper


def make() -> tuple[ScriptedHost, Stepper]:
    host = ScriptedHost()
    return host, Stepper(host, ObsSink.frames_only(host.observation_space, N))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def step(stepper: Stepper, seq: int = 5, *, compact: bool = False) -> Any:
    return run(stepper.step(seq, np.zeros(N, np.int64), via_lane=False, compact_request=compact))


def result_of(out: Any) -> wire.Result:
    assert isinstance(out, list), f"expected reply frames, got {out!r}"
    msg = wire.decode(out[0], num_envs=N)
    assert isinstance(msg, wire.Result)
    return msg


# ------------------------------------------------------------------------------------ actions
def test_actions_full_then_compact_and_their_bounds() -> None:
    dec = ActionDecoder(gym.spaces.Discrete(4), 2)
    acts = np.array([3, 1], np.int64)
    with pytest.raises(ProtocolError, match="has not carried a full STEP"):
        dec.decode(wire.Step(1, data=acts.tobytes(), compact=True), [])
    full = wire.Step(1, "<i8", (2,))
    assert dec.decode(full, [b"", acts.tobytes()]).tolist() == [3, 1]  # actions in frame 1
    compact = wire.decode(wire.Step(2, "<i8", (2,), acts[::-1].tobytes()).encode(compact=True))
    assert isinstance(compact, wire.Step)
    assert dec.decode(compact, []).tolist() == [1, 3]
    with pytest.raises(ProtocolError, match="expected 16"):
        dec.decode(wire.Step(3, data=b"\x00" * 8, compact=True), [])
    with pytest.raises(ProtocolError, match="for 2 envs"):
        dec.decode(wire.Step(4, "<i8", (5,), b"\x00" * 40), [])
    with pytest.raises(ProtocolError, match="no action frame"):
        dec.decode(wire.Step(5, "<i8", (2,)), [b""])
    with pytest.raises(ProtocolError):
        dec.decode(wire.Step(6, "|O", (2,), b"\x00" * 16), [])  # object arrays never travel


# --------------------------------------------------------------------------------------- step
def test_plain_step_answers_compact_when_asked_and_full_otherwise() -> None:
    host, stepper = make()
    out = step(stepper, compact=True)
    assert isinstance(out, list) and out[0][:2] == wire.COMPACT_RESULT
    res = result_of(out)
    assert res.rewards.tolist() == [0.0, 1.0, 2.0] and not res.terminated.any()
    np.testing.assert_array_equal(out[1], [[0, 1], [1, 1], [2, 1]])  # observations follow as a frame
    full = result_of(step(stepper))
    assert full.infos is None and full.reset_infos is None and full.rewards == [0.0, 1.0, 2.0]


def test_finished_episode_is_reset_with_its_terminal_observation() -> None:
    host, stepper = make()
    host.script = {1: "end"}
    out = step(stepper, compact=True)
    res = result_of(out)  # not compact: the episode end needs infos
    assert res.terminated == [False, True, False]
    assert res.infos is not None
    np.testing.assert_array_equal(res.infos[1]["terminal_observation"], [1, 1])
    assert res.infos[1]["TimeLimit.truncated"] is False
    assert res.reset_infos == [[1, {"seed": None}]]
    np.testing.assert_array_equal(out[1][1], [1, 0])  # the new episode's first observation


def test_recoverable_failure_is_repaired_and_reported_as_a_truncated_episode() -> None:
    host, stepper = make()
    step(stepper)
    host.script = {2: "crash"}
    out = step(stepper)
    res = result_of(out)
    assert host.recovered == [2] and stepper.env_restarts == {2: 1}
    assert res.truncated == [False, False, True] and res.terminated == [False, False, False]
    assert res.infos is not None and res.infos[2]["sc2pool.restarted"] is True
    assert "ConnectionError" in res.infos[2]["sc2pool.failure"]
    np.testing.assert_array_equal(res.infos[2]["terminal_observation"], [2, 1])  # the last one sent
    assert res.reset_infos == [[2, {"recovered": True}]]


def test_unrecoverable_failure_is_a_failure_value_naming_the_env() -> None:
    host, stepper = make()
    host.script = {1: "fatal"}
    out = step(stepper)
    assert isinstance(out, Failure)
    assert (out.stage, out.index) == ("recover", 1)
    assert isinstance(out.cause, RuntimeError)
    err = out.to_message(5, "w", 1, None)
    assert (err.error_type, err.index, err.seq) == ("RuntimeError", 1, 5) and "broken for good" in err.traceback


def test_host_result_that_is_not_a_step_result_is_a_failure_not_a_crash() -> None:
    host, stepper = make()
    host.script = {0: "junk"}
    out = step(stepper)
    assert isinstance(out, Failure) and out.index == 0 and "not a StepResult" in str(out.exc)


def test_unencodable_info_names_its_env() -> None:
    host, stepper = make()
    host.script = {2: "bad-info"}
    out = step(stepper)
    assert isinstance(out, Failure) and out.index == 2 and isinstance(out.exc, EncodeError)


def test_observation_that_does_not_fit_the_space_is_a_failure() -> None:
    host, stepper = make()
    host.observation_space = gym.spaces.Box(0, 1, (5,), np.float32)
    stepper.sink = ObsSink.frames_only(host.observation_space, N)
    out = step(stepper)
    assert isinstance(out, Failure) and "observation does not fit" in out.stage


# -------------------------------------------------------------------------------- reset, call
def test_reset_passes_seeds_and_checks_their_count() -> None:
    host, stepper = make()
    res = result_of(run(stepper.reset(wire.Reset(1, [7, 8, 9], None))))
    assert res.rewards is None and res.reset_infos == [{"seed": 7}, {"seed": 8}, {"seed": 9}]
    bad = run(stepper.reset(wire.Reset(2, [1], None)))
    assert isinstance(bad, Failure) and bad.stage == "reset" and "1 seeds" in str(bad.exc)


def test_call_answers_per_env_and_fails_on_a_bad_index() -> None:
    host, stepper = make()
    out = run(stepper.call(wire.Call(3, "get_attr", "speed", [2, 0])))
    assert isinstance(out, list)
    assert wire.decode(out[0]) == wire.CallResult(3, ["speed@2", "speed@0"])
    bad = run(stepper.call(wire.Call(4, "get_attr", "speed", [0, 9])))
    assert isinstance(bad, Failure) and bad.index == 9 and isinstance(bad.exc, IndexError)


# ----------------------------------------------------------------------------------- recovery
def test_recover_returns_values_not_exceptions() -> None:
    host = ScriptedHost()
    results: list[Any] = [StepResult(0, 0.0, False, False, {}),
                          EnvFailure(1, OSError("x"), recoverable=True)]
    restarts: dict[int, int] = {}
    got = run(recover(host, results, ["last0", "last1"], restarts))
    assert isinstance(got, Recovered)
    assert got.results[1] == StepResult("last1", 0.0, False, True, got.results[1].info)
    assert set(got.restarted) == {1} and restarts == {1: 1}
    misplaced: list[Any] = [EnvFailure(1, OSError("x"), recoverable=True), results[0]]
    failed = run(recover(host, misplaced, None, {}))
    assert isinstance(failed, Failure) and failed.index == 0 and failed.stage == "recover"
