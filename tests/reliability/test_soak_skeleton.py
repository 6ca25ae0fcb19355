"""The soak script's parts (benchmarks/soak.py), so it cannot rot while the restart policy is built."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import psutil
import pytest
from helpers.proctree import ProcessTree
from helpers.waiting import HANG_S

from .reliability_helpers import kill_group, wait_for

SOAK = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"
pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("soak", SOAK)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_fault_injector_kills_stops_and_resumes(soak: ModuleType, process_tree: ProcessTree) -> None:
    victims = [process_tree.popen(["sleep", "60"]) for _ in range(2)]
    try:
        inj = soak.FaultInjector(600.0, ("stop", "kill9"), 0.2, random.Random(3), time.monotonic())
        inj.set_targets([p.pid for p in victims])
        inj.start()
        wait_for(
            lambda: any(r.kind == "kill9" and r.outcome == "injected" for r in inj.records), HANG_S, "a kill"
        )
        wait_for(lambda: any(r.kind == "stop" and r.outcome == "injected" for r in inj.records), HANG_S, "a stop")
        inj.halt()
        assert not inj.is_alive()
        killed = {r.pid for r in inj.records if r.kind == "kill9" and r.outcome == "injected"}
        for p in victims:
            if p.pid in killed:
                assert p.wait(timeout=5) == -9
            elif p.poll() is None:  # stopped ones were resumed: never left stopped
                assert psutil.Process(p.pid).status() != psutil.STATUS_STOPPED
    finally:
        for p in victims:
            kill_group(p)


def test_game_faults_are_skipped_without_child_processes(soak: ModuleType, process_tree: ProcessTree) -> None:
    victim = process_tree.popen(["sleep", "60"])
    try:
        inj = soak.FaultInjector(600.0, ("game",), 0.1, random.Random(1), time.monotonic())
        inj.set_targets([victim.pid])
        inj.start()
        wait_for(lambda: len(inj.records) >= 1, HANG_S, "a game fault attempt")
        inj.halt()
        assert inj.records[0].outcome.startswith("skipped")
        assert victim.poll() is None
    finally:
        kill_group(victim)


def test_helpers(soak: ModuleType) -> None:
    mb, n = soak.rss_mb([psutil.Process().pid])
    assert mb > 10 and n >= 1
    assert soak.count_restart_flags([{"sc2pool.restarted": True}, {"restarted": False}, {}]) == 1


def _run_soak(tree: ProcessTree, tmp_path: Path, *args: str) -> dict[str, Any]:
    """Run benchmarks/soak.py with ``args`` in its own session (a timeout kills its whole tree); it
    must succeed. Returns its JSON report."""
    out = tmp_path / "soak.json"
    r = tree.run([sys.executable, str(SOAK), *args, "--json", str(out)], capture_output=True, text=True, timeout=50)
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def test_short_soak_rides_out_kills_with_the_restart_policy(
    soak: ModuleType, tmp_path: Path, process_tree: ProcessTree
) -> None:
    """The soak end to end (a few seconds of it): faults injected, restarts counted, 0 lost slots."""
    report = _run_soak(
        process_tree, tmp_path, "--minutes", "0.15", "--envs", "2", "--workers", "2", "--fault-rate", "60", "--faults", "kill9",
        "--heartbeat-timeout", "1.5", "--seed", "3",
    )  # fmt: skip
    assert report["ok"] and report["restart_policy"] and report["stopped_by"] == "deadline"
    assert report["lost_env_slots"] == [] and report["leaked_processes"] == []
    kills = report["faults_by_kind"].get("kill9", 0)
    assert kills >= 1, report["faults"]
    assert sum(report["pool_restarts"].values()) >= 1 and report["restart_truncations"] >= 1


def test_soak_without_the_restart_policy_stops_at_the_first_fault_with_the_typed_error(
    tmp_path: Path, process_tree: ProcessTree
) -> None:
    out = tmp_path / "soak.json"
    r = process_tree.run(
        [sys.executable, str(SOAK), "--minutes", "0.5", "--envs", "2", "--workers", "2", "--fault-rate", "120",
         "--faults", "kill9", "--heartbeat-timeout", "1.5", "--seed", "3", "--no-restart", "--json", str(out)],
        capture_output=True, text=True, timeout=50,
    )  # fmt: skip
    assert r.returncode == 1, r.stdout + r.stderr[-2000:]
    report = json.loads(out.read_text())
    assert not report["ok"] and not report["restart_policy"]
    assert report["stopped_by"].startswith("sc2pool.errors.WorkerDied"), report["stopped_by"]
    assert report["leaked_processes"] == []


def test_short_sc2_soak_relaunches_killed_games(soak: ModuleType, tmp_path: Path, process_tree: ProcessTree) -> None:
    """``--task``: the soak on StarCraft II games. Killing game processes under a live worker is
    ridden out by the worker itself (no pool restart), each ending one episode as a restart, and
    nothing outlives close() (the killed games' replacements included)."""
    report = _run_soak(
        process_tree, tmp_path, "--task", "MoveToBeacon", "--minutes", "0.2", "--envs", "2", "--workers", "1",
        "--fault-rate", "30", "--faults", "game", "--seed", "5",
    )  # fmt: skip
    assert report["ok"] and report["stopped_by"] == "deadline", report
    assert report["lost_env_slots"] == [] and report["leaked_processes"] == []
    games_killed = report["faults_by_kind"].get("game", 0)
    assert games_killed >= 1, report["faults"]
    assert sum(report["pool_restarts"].values()) == 0  # the worker relaunched its games itself
    assert report["restart_truncations"] >= 1
    assert report["env_steps"] > 0
