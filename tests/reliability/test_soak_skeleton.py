"""The soak script's parts (benchmarks/soak.py), so it cannot rot while the restart policy is built."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import psutil
import pytest

from .peers import kill_group, wait_for

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


def test_fault_injector_kills_stops_and_resumes(soak: ModuleType) -> None:
    victims = [subprocess.Popen(["sleep", "60"], start_new_session=True) for _ in range(2)]
    try:
        inj = soak.FaultInjector(600.0, ("stop", "kill9"), 0.2, random.Random(3), time.monotonic())
        inj.set_targets([p.pid for p in victims])
        inj.start()
        wait_for(
            lambda: any(r.kind == "kill9" and r.outcome == "injected" for r in inj.records), 20, "a kill"
        )
        wait_for(lambda: any(r.kind == "stop" and r.outcome == "injected" for r in inj.records), 20, "a stop")
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


def test_game_faults_are_skipped_without_child_processes(soak: ModuleType) -> None:
    victim = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        inj = soak.FaultInjector(600.0, ("game",), 0.1, random.Random(1), time.monotonic())
        inj.set_targets([victim.pid])
        inj.start()
        wait_for(lambda: len(inj.records) >= 1, 20, "a game fault attempt")
        inj.halt()
        assert inj.records[0].outcome.startswith("skipped")
        assert victim.poll() is None
    finally:
        kill_group(victim)


def test_helpers(soak: ModuleType) -> None:
    mb, n = soak.rss_mb([psutil.Process().pid])
    assert mb > 10 and n >= 1
    assert soak.count_restart_flags([{"sc2pool.restarted": True}, {"restarted": False}, {}]) == 1


def test_cli_explains_missing_restart_policy(soak: ModuleType) -> None:
    reason = soak.restart_support_error()
    if reason is None:
        pytest.skip("ZmqVecEnv supports on_failure='restart': the soak runs for real (benchmark, not a test)")
    assert "on_failure" in reason or "restart" in reason
    r = subprocess.run(
        [sys.executable, str(SOAK), "--minutes", "0.01"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2
    assert "restart policy" in r.stderr and "issue 5" in r.stderr
