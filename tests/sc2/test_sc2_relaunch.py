"""Crashed games are relaunched inside a live worker (``on_game_crash="relaunch"``).

Real game processes on the embedded engine (subprocess mode: burnysc2 launches the engine through a
fake install exactly as it launches StarCraft II); the crash is a ``kill -9`` of one game process.
With the option off the crash stays a typed error (see test_sc2_host.py / test_sc2_pool.py).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import psutil
import pytest
from helpers.waiting import HANG_S
from sc2_helpers import engine_pids, wait_gone

from sc2pool.errors import EnvError
from workers.host import EnvFailure, HostSpec, StepResult
from workers.sc2.bridge import GameCrashedError
from workers.sc2.host import SC2EnvHost

GAME_STEP = 8  # MoveToBeacon's game loops per env step


@pytest.fixture(autouse=True)
def _embedded_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("SC2PATH", raising=False)
    yield


def _kill(pid: int) -> None:
    """kill -9 a game process and wait (bounded) until it is dead: gone, or a zombie that its
    parent (the worker, in the pool tests) has not reaped yet."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return
        except psutil.NoSuchProcess:
            return
        time.sleep(0.01)
    raise AssertionError(f"game process {pid} survived kill -9")


@pytest.mark.timeout(60)
def test_host_relaunches_a_killed_game_and_leaves_the_other_alone(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(2, task="MoveToBeacon", on_game_crash="relaunch", step_timeout=10)
    try:
        run(host.start())
        run(host.reset([0, 1], [1, 2], [None, None]))
        for _ in range(3):
            run(host.step([0, 0]))
        pids = list(host.timing_stats()["game_pids"])
        _kill(pids[1])
        for _ in range(5):  # the crash shows at the next request to the dead game
            results = run(host.step([0, 0]))
            if isinstance(results[1], EnvFailure):
                break
            assert isinstance(results[1], StepResult)
        failure = results[1]
        assert isinstance(failure, EnvFailure) and failure.recoverable and failure.index == 1
        assert isinstance(failure.cause, GameCrashedError)
        assert isinstance(results[0], StepResult) and not results[0].terminated, "env 0 must be unaffected"
        loop0 = results[0].info["game_loop"]

        obs, info = run(host.recover(1))
        assert host.observation_space.contains(obs)
        assert info["game_relaunches"] == 1 and run(host.get_attr(1, "game_relaunches")) == 1
        assert run(host.get_attr(0, "game_relaunches")) == 0
        new_pids = list(host.timing_stats()["game_pids"])
        assert new_pids[0] == pids[0] and new_pids[1] not in pids and info["game_pid"] == new_pids[1]
        assert psutil.pid_exists(new_pids[1])

        res = run(host.step([0, 0]))
        assert res[0].info["game_loop"] == loop0 + GAME_STEP, "env 0 continues its episode"
        assert res[1].info["game_loop"] <= 2 * GAME_STEP, "env 1 is on a fresh episode"
        for _ in range(20):
            assert all(isinstance(r, StepResult) for r in run(host.step([1, 2])))
    finally:
        run(host.close())
    assert wait_gone(engine_pids()) == []


@pytest.mark.timeout(60)
def test_game_found_dead_at_reset_is_relaunched_in_place(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(1, task="MoveToBeacon", on_game_crash="relaunch", step_timeout=10)
    try:
        run(host.start())
        run(host.reset([0], [1], [None]))
        run(host.step([0]))
        (pid,) = host.timing_stats()["game_pids"]
        _kill(pid)
        ((obs, info),) = run(host.reset([0], [None], [None]))  # e.g. the worker's auto-reset
        assert host.observation_space.contains(obs)
        assert info["game_relaunches"] == 1 and info["game_pid"] != pid
        for _ in range(5):
            (res,) = run(host.step([3]))
            assert isinstance(res, StepResult)
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_relaunch_limit_turns_the_next_crash_into_the_typed_error(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(1, task="MoveToBeacon", on_game_crash="relaunch", max_game_relaunches=1, step_timeout=10)

    def crash() -> list[Any]:
        _kill(host.timing_stats()["game_pids"][0])
        for _ in range(5):
            results = run(host.step([0]))
            if isinstance(results[0], EnvFailure):
                return results
        raise AssertionError("the crash was never reported")

    try:
        run(host.start())
        run(host.reset([0], [1], [None]))
        (first,) = crash()
        assert first.recoverable
        run(host.recover(0))
        with pytest.raises(EnvFailure) as err:
            crash()
        assert not err.value.recoverable and isinstance(err.value.cause, GameCrashedError)
        assert "max_game_relaunches=1" in str(err.value)
    finally:
        run(host.close())


def test_bad_policy_values_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="on_game_crash"):
        SC2EnvHost(1, on_game_crash="restart")
    with pytest.raises(ValueError, match="max_game_relaunches"):
        SC2EnvHost(1, on_game_crash="relaunch", max_game_relaunches=-1)


def _pool(n_envs: int, n_workers: int, **kwargs: Any) -> Any:
    from sc2pool import ZmqVecEnv

    spec = HostSpec("workers.sc2.host:make_host", {"task": "MoveToBeacon", "step_timeout": 10, **kwargs})
    return ZmqVecEnv(host=spec, n_envs=n_envs, n_workers=n_workers)


@pytest.mark.timeout(90)
def test_pool_keeps_stepping_through_repeated_game_kills(no_leaks: None) -> None:
    """kill -9 env 1's game three times under a live worker: each time that env's episode ends
    truncated with the restart flag and its last good observation, the next observation is a
    fresh episode on a new game process, env 0 carries on with its episode, the worker lives."""
    env = _pool(2, 1, on_game_crash="relaunch")
    acts = np.array([0, 0])
    try:
        obs = env.reset()
        _, _, _, infos = env.step(acts)
        worker = list(env.worker_pids)
        killed: list[int] = []
        for k in range(1, 4):
            for _ in range(5):
                obs, _, _, infos = env.step(acts)
            (victim,) = env.env_method("game_pid", indices=[1])
            other = env.env_method("game_pid", indices=[0])
            _kill(victim)
            killed.append(victim)
            for _ in range(5):
                last, last_infos = obs, infos
                obs, rews, dones, infos = env.step(acts)
                if dones[1]:
                    break
                assert infos[1]["game_loop"] == last_infos[1]["game_loop"] + GAME_STEP
            info = infos[1]
            assert dones[1] and info["sc2pool.restarted"] and info["TimeLimit.truncated"], info
            assert "GameCrashedError" in info["sc2pool.failure"]
            np.testing.assert_array_equal(info["terminal_observation"], last[1])
            assert rews[1] == 0.0
            assert env.reset_infos[1]["game_relaunches"] == k
            assert env.get_attr("game_relaunches") == [0, k]
            # env 0 is unaffected: same game, its episode goes on (or ends by itself, never restarted)
            assert env.env_method("game_pid", indices=[0]) == other
            assert not infos[0].get("sc2pool.restarted")
            if not dones[0]:
                assert infos[0]["game_loop"] == last_infos[0]["game_loop"] + GAME_STEP
            new = env.env_method("game_pid", indices=[1])[0]
            assert new not in killed and psutil.pid_exists(new)
            obs, _, dones, infos = env.step(acts)
            assert not dones[1] and infos[1]["game_loop"] <= 2 * GAME_STEP, "env 1 is on a fresh episode"
        assert wait_gone(killed) == [], "the killed games were reaped"
        for _ in range(100):  # and stepping goes on
            obs, _, dones, infos = env.step(np.array([3, 5]))
            assert not any(i.get("sc2pool.restarted") for i in infos)
        assert env.worker_pids == worker, "the worker itself was never restarted"
        engines = engine_pids()
        assert len(engines) == 2, engines
    finally:
        env.close()
    assert wait_gone(engine_pids()) == [], "game processes outlived close()"


@pytest.mark.timeout(60)
def test_pool_without_the_option_still_reports_the_typed_error(no_leaks: None) -> None:
    env = _pool(2, 1)
    try:
        env.reset()
        env.step(np.array([0, 0]))
        _kill(env.env_method("game_pid", indices=[0])[0])
        with pytest.raises(EnvError) as err:
            for _ in range(10):
                env.step(np.array([0, 0]))
        assert err.value.remote_type == "GameCrashedError", err.value.remote_type
    finally:
        env.close()
    assert wait_gone(engine_pids()) == []


@pytest.mark.timeout(60)
def test_hung_game_is_killed_and_relaunched(run: Any, no_leaks: None) -> None:
    """A game that stops answering (SIGSTOP) is a GameTimeoutError after step_timeout; with the
    option on it is recoverable: the stopped process is killed and replaced."""
    from workers.sc2.bridge import GameTimeoutError

    host = SC2EnvHost(2, task="MoveToBeacon", on_game_crash="relaunch", step_timeout=1.5)
    try:
        run(host.start())
        run(host.reset([0, 1], [1, 2], [None, None]))
        hung = host.timing_stats()["game_pids"][0]
        os.kill(hung, signal.SIGSTOP)
        results = run(host.step([0, 0]))
        assert isinstance(results[0], EnvFailure) and results[0].recoverable
        assert isinstance(results[0].cause, GameTimeoutError)
        assert isinstance(results[1], StepResult)
        _, info = run(host.recover(0))
        assert info["game_relaunches"] == 1 and info["game_pid"] != hung
        assert wait_gone([hung]) == [], "the stopped game process must be killed"
        res = run(host.step([0, 0]))
        assert all(isinstance(r, StepResult) for r in res)
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_failed_relaunch_is_the_typed_launch_error(run: Any, no_leaks: None) -> None:
    from workers.sc2.bridge import GameLaunchError

    host = SC2EnvHost(1, task="MoveToBeacon", on_game_crash="relaunch", step_timeout=10)
    try:
        run(host.start())
        run(host.reset([0], [1], [None]))
        host.launcher.launch_timeout = 0.001  # no game can accept a connection that fast
        _kill(host.timing_stats()["game_pids"][0])
        for _ in range(5):
            (res,) = run(host.step([0]))
            if isinstance(res, EnvFailure):
                break
        assert isinstance(res, EnvFailure) and res.recoverable
        with pytest.raises(EnvFailure) as err:
            run(host.recover(0))
        assert isinstance(err.value.cause, GameLaunchError) and "launch_timeout" in str(err.value)
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_dropped_connection_to_a_live_game_kills_it_and_relaunches(run: Any, no_leaks: None) -> None:
    """The websocket drops while the game process still runs: the process is killed (no orphan)
    and replaced, not left behind."""
    host = SC2EnvHost(2, task="MoveToBeacon", on_game_crash="relaunch", step_timeout=10)
    try:
        run(host.start())
        run(host.reset([0, 1], [1, 2], [None, None]))
        run(host.step([0, 0]))
        old = host.timing_stats()["game_pids"][1]
        run(host.games[1].connection.controller._ws.close())
        assert psutil.pid_exists(old)
        for _ in range(5):
            results = run(host.step([0, 0]))
            if isinstance(results[1], EnvFailure):
                break
        assert isinstance(results[1], EnvFailure) and results[1].recoverable
        assert isinstance(results[0], StepResult)
        _, info = run(host.recover(1))
        assert wait_gone([old]) == [], "the old game process must not outlive its connection"
        assert info["game_pid"] != old and psutil.pid_exists(info["game_pid"])
        assert all(isinstance(r, StepResult) for r in run(host.step([0, 0])))
    finally:
        run(host.close())


def _dying_launches(monkeypatch: pytest.MonkeyPatch, count: int) -> list[int]:
    """The next ``count`` game processes burnysc2 launches are killed as soon as they start
    (before they can accept a connection); returns the pids of those killed, as they happen."""
    from sc2.sc2process import SC2Process

    launch = SC2Process._launch
    killed: list[int] = []

    def dying(self: Any) -> Any:
        popen = launch(self)
        if len(killed) < count:
            popen.kill()
            killed.append(popen.pid)
        return popen

    monkeypatch.setattr(SC2Process, "_launch", dying)
    return killed


@pytest.mark.timeout(60)
def test_game_dying_while_it_launches_is_launched_again(
    run: Any, no_leaks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relaunched game whose process dies before accepting a connection is seen dying (not
    waited for until launch_timeout) and launched again; every try counts as a relaunch."""
    host = SC2EnvHost(2, task="MoveToBeacon", on_game_crash="relaunch", step_timeout=10, launch_timeout=45)
    try:
        run(host.start())
        run(host.reset([0, 1], [1, 2], [None, None]))
        old = host.timing_stats()["game_pids"][0]
        killed = _dying_launches(monkeypatch, 1)
        _kill(old)
        for _ in range(5):
            res = run(host.step([0, 0]))
            if isinstance(res[0], EnvFailure):
                break
        assert isinstance(res[0], EnvFailure) and res[0].recoverable
        _, info = run(host.recover(0))
        assert len(killed) == 1 and info["game_pid"] not in (old, killed[0])
        assert info["game_relaunches"] == 2 and host.relaunches == [2, 0]
        assert wait_gone([old, *killed]) == [], "dead launches must be reaped"
        assert all(isinstance(r, StepResult) for r in run(host.step([0, 0])))
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_game_that_never_starts_is_a_launch_error_after_a_few_tries(
    run: Any, no_leaks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An install whose games always die at start fails with the typed launch error naming the
    exit (not a launch_timeout), after LAUNCH_ATTEMPTS tries, instead of looping."""
    from workers.sc2.bridge import GameLaunchError
    from workers.sc2.host import LAUNCH_ATTEMPTS

    host = SC2EnvHost(1, task="MoveToBeacon", on_game_crash="relaunch", step_timeout=10, launch_timeout=45)
    try:
        run(host.start())
        run(host.reset([0], [1], [None]))
        killed = _dying_launches(monkeypatch, 1000)
        _kill(host.timing_stats()["game_pids"][0])
        for _ in range(5):
            (res,) = run(host.step([0]))
            if isinstance(res, EnvFailure):
                break
        assert isinstance(res, EnvFailure)
        with pytest.raises(EnvFailure) as err:
            run(host.recover(0))
        cause = err.value.cause
        assert isinstance(cause, GameLaunchError) and cause.process_exited
        assert "exited with code -9 before accepting a connection" in str(cause)
        assert len(killed) == LAUNCH_ATTEMPTS and host.relaunches == [LAUNCH_ATTEMPTS]
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_without_relaunch_a_game_dying_at_start_is_not_retried(
    run: Any, no_leaks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from workers.sc2.bridge import GameLaunchError

    killed = _dying_launches(monkeypatch, 1)
    host = SC2EnvHost(1, task="MoveToBeacon", launch_timeout=45)
    with pytest.raises(EnvFailure) as err:
        run(host.start())
    assert isinstance(err.value.cause, GameLaunchError) and err.value.cause.process_exited
    assert len(killed) == 1 and wait_gone(killed) == []
    run(host.close())


@pytest.mark.timeout(60)
def test_with_relaunch_a_game_dying_at_start_is_launched_again(
    run: Any, no_leaks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    killed = _dying_launches(monkeypatch, 1)
    host = SC2EnvHost(2, task="MoveToBeacon", on_game_crash="relaunch", launch_timeout=45)
    try:
        run(host.start())
        assert len(killed) == 1 and host.relaunches == [1, 0]
        run(host.reset([0, 1], [1, 2], [None, None]))
        assert all(isinstance(r, StepResult) for r in run(host.step([0, 0])))
    finally:
        run(host.close())
