"""SC2EnvHost end to end on the embedded engine, with real game processes (burnysc2 launches the
engine through a fake install exactly as it launches StarCraft II)."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest
from helpers.waiting import HANG_S
from sc2_helpers import wait_gone

from workers.host import EnvFailure
from workers.sc2.bridge import GameCrashedError, GameLaunchError
from workers.sc2.host import SC2EnvHost

BUILTINS = ["MoveToBeacon", "CollectMineralShards", "DefeatRoaches", "DefeatZerglingsAndBanelings", "Skirmish"]


@pytest.fixture(autouse=True)
def _embedded_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SC2PATH", raising=False)


def _episode(run: Any, host: SC2EnvHost, max_steps: int = 5000) -> tuple[list[Any], float]:
    """Random actions until env 0's episode ends; returns the step results and the return."""
    rng = np.random.default_rng(0)
    host.action_space.seed(0)
    results, ret = [], 0.0
    for _ in range(max_steps):
        (res,) = run(host.step([host.action_space.sample()]))
        assert host.observation_space.contains(res.obs), res.obs
        assert np.isfinite(res.reward)
        results.append(res)
        ret += res.reward
        if res.terminated or res.truncated:
            return results, ret
        rng.random()
    raise AssertionError(f"no episode end within {max_steps} steps")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("task", BUILTINS)
def test_builtin_task_full_episode(task: str, run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(1, task=task)
    try:
        run(host.start())
        ((obs, info),) = run(host.reset([0], [7], [None]))
        assert host.observation_space.contains(obs)
        assert info["reset_ms"] > 0
        results, _ = _episode(run, host)
        last = results[-1]
        assert last.terminated != last.truncated  # exactly one
        assert last.info["game_result"] in ("Victory", "Defeat", "Tie")
        if last.info["game_result"] == "Tie" and task != "Skirmish":
            assert last.truncated, "the map's clock is a time limit -> truncated"
        else:
            assert last.terminated or last.info["game_result"] == "Tie"
        # the next episode starts on the same connection (same process)
        pid = host.timing_stats()["game_pids"][0]
        ((obs2, _),) = run(host.reset([0], [None], [None]))
        assert host.observation_space.contains(obs2)
        assert host.timing_stats()["game_pids"][0] == pid
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_reset_keeps_the_game_process_on_a_persistent_connection(
    run: Any, no_leaks: None, record_property: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    host = SC2EnvHost(1, task="MoveToBeacon")
    try:
        run(host.start())
        pid = host.timing_stats()["game_pids"][0]
        run(host.reset([0], [1], [None]))
        lat = []
        for k in range(10):
            for _ in range(3):
                run(host.step([k % 8]))
            t = time.perf_counter()
            run(host.reset([0], [None], [None]))
            lat.append(time.perf_counter() - t)
        lat_ms = np.array(lat) * 1e3
        record_property("reset_ms_median", float(np.median(lat_ms)))
        record_property("reset_ms_max", float(lat_ms.max()))
        with capsys.disabled():  # shown in the test log even without -s
            print(f"\n[sc2] reset latency: median {np.median(lat_ms):.1f} ms, max {lat_ms.max():.1f} ms (launch ~1 s)")
        # Launching a game costs >= 1 s (burnysc2 sleeps 1 s before connecting); a reset must not
        # launch one. (The latency is a figure for benchmarks/bench_sc2.py, not asserted here.)
        assert host.timing_stats()["game_pids"] == [pid], "a reset must not relaunch the game process"
    finally:
        run(host.close())


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", ["create", "restart"])
def test_reset_modes_after_time_limit(mode: str, run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(1, task="MoveToBeacon", reset_mode=mode, time_limit_s=1.0)
    try:
        run(host.start())
        run(host.reset([0], [1], [None]))
        ends = 0
        for _ in range(100):
            (res,) = run(host.step([2]))
            if res.terminated or res.truncated:
                assert res.truncated and not res.terminated, "time_limit_s truncates"
                ends += 1
                ((obs, _),) = run(host.reset([0], [None], [None]))
                assert host.observation_space.contains(obs)
                if ends == 3:
                    break
        assert ends == 3
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_seeded_resets_are_reproducible(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(2, task="MoveToBeacon", engine="inprocess")
    try:
        run(host.start())
        (a, _), (b, _) = run(host.reset([0, 1], [5, 5], [None, None]))
        np.testing.assert_array_equal(a, b)
        seq = []
        for _ in range(5):
            res = run(host.step([3, 3]))
            seq.append((res[0].obs, res[1].obs))
        for x, y in seq:
            np.testing.assert_array_equal(x, y)
        (c, _), (d, _) = run(host.reset([0, 1], [5, 6], [None, None]))
        assert not np.array_equal(c, d)
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_game_process_killed_mid_episode_is_a_typed_error(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(2, task="MoveToBeacon", step_timeout=10)
    try:
        run(host.start())
        run(host.reset([0, 1], [1, 2], [None, None]))
        run(host.step([0, 0]))
        pid = host.timing_stats()["game_pids"][1]
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(EnvFailure) as err:
            for _ in range(5):
                run(host.step([0, 0]))
        assert err.value.index == 1
        assert isinstance(err.value.cause, GameCrashedError)
        assert str(pid) in str(err.value) or "connection" in str(err.value)
        # the env stays failed (recovery belongs to the reliability layer), with a clear message
        with pytest.raises(EnvFailure, match="gone|crash|failed"):
            run(host.reset([1], [None], [None]))
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_hung_game_is_a_timeout_error_and_still_killed_on_close(run: Any, no_leaks: None) -> None:
    from workers.sc2.bridge import GameTimeoutError

    host = SC2EnvHost(1, task="MoveToBeacon", step_timeout=1.5)
    try:
        run(host.start())
        run(host.reset([0], [1], [None]))
        pid = host.timing_stats()["game_pids"][0]
        os.kill(pid, signal.SIGSTOP)  # the game stops answering (but does not close the socket)
        t = time.perf_counter()
        with pytest.raises(EnvFailure) as err:
            run(host.step([0]))
        assert isinstance(err.value.cause, GameTimeoutError)
        assert time.perf_counter() - t > 1.0, "not before step_timeout=1.5 s (less its polling slack)"
    finally:
        run(host.close())
    assert wait_gone([pid], timeout=HANG_S) == [], "a stopped game process must still be killed"


@pytest.mark.timeout(60)
def test_task_bug_is_reported_as_task_failure_and_env_recovers(run: Any, no_leaks: None) -> None:
    from workers.sc2.bridge import TaskFailure

    host = SC2EnvHost(1, task="sc2_user_task:FlakyBeacon", engine="inprocess")
    try:
        run(host.start())
        run(host.reset([0], [1], [None]))
        run(host.step([0]))
        run(host.set_attr(0, "fail", True))
        with pytest.raises(EnvFailure) as err:
            run(host.step([0]))
        assert isinstance(err.value.cause, TaskFailure)
        assert "FlakyBeacon.encode raised ZeroDivisionError: flaky encoder" in str(err.value)
        run(host.set_attr(0, "fail", False))
        ((obs, _),) = run(host.reset([0], [None], [None]))  # the game itself is fine
        assert obs.shape == (4,)
        run(host.step([1]))
    finally:
        run(host.close())


@pytest.mark.timeout(60)
def test_close_kills_every_game_process(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(2, task="DefeatRoaches")
    run(host.start())
    run(host.reset([0, 1], [1, 2], [None, None]))
    pids = list(host.timing_stats()["game_pids"])
    assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    run(host.close())
    run(host.close())  # idempotent
    assert wait_gone(pids, timeout=HANG_S) == []
    assert "SC2PATH" not in os.environ, "the private fake install must not leak into the environment"


def _fake_install(root: Path, script: str) -> Path:
    exe = root / "Versions" / "Base94137" / "SC2_x64"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n" + script + "\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    (root / "Maps").mkdir()
    return root


@pytest.mark.timeout(30)
def test_launch_timeout_is_a_clear_error(
    run: Any, no_leaks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a game that never answers and outlives the test: the error can only come from launch_timeout
    monkeypatch.setenv("SC2PATH", str(_fake_install(tmp_path / "hang", "exec sleep 3600")))
    host = SC2EnvHost(1, task="MoveToBeacon", launch_timeout=2.0)
    with pytest.raises(EnvFailure) as err:
        run(host.start())
    assert isinstance(err.value.cause, GameLaunchError)
    assert "did not accept" in str(err.value) and "2 s" in str(err.value)
    run(host.close())


@pytest.mark.timeout(30)
def test_sc2path_not_an_install_is_a_clear_error(
    run: Any, no_leaks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SC2PATH", str(tmp_path))
    host = SC2EnvHost(1, task="MoveToBeacon")
    with pytest.raises(EnvFailure, match="not a StarCraft II install"):
        run(host.start())
    run(host.close())


@pytest.mark.timeout(60)
def test_user_task_from_one_file_and_scripted_baseline(run: Any, no_leaks: None) -> None:
    host = SC2EnvHost(1, task="sc2_user_task:BeaconQuadrant", engine="inprocess")
    try:
        run(host.start())
        ((obs, _),) = run(host.reset([0], [3], [None]))
        assert obs.shape == (4,)
        _episode(run, host)
    finally:
        run(host.close())
    scripted = SC2EnvHost(1, task="MoveToBeacon", task_kwargs={"scripted": True}, engine="inprocess")
    try:
        run(scripted.start())
        run(scripted.reset([0], [3], [None]))
        _, ret = _episode(run, scripted)
        assert ret >= 10, f"walking straight to the beacon should score well, got {ret}"
    finally:
        run(scripted.close())
