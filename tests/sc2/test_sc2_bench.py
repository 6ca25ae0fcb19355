"""The SC2 benchmark runs end to end (tiny budget) and grades what it measured."""

from __future__ import annotations

from typing import Any

import pytest

from sc2pool.bench import sc2 as bench


@pytest.mark.timeout(180)
def test_bench_smoke(monkeypatch: pytest.MonkeyPatch, no_leaks: None) -> None:
    monkeypatch.delenv("SC2PATH", raising=False)
    monkeypatch.setattr(bench, "MIN_VEC_STEPS", 20)
    report: dict[str, Any] = bench.run(["MoveToBeacon"], [2], 0.3, ["inprocess"], warmup=2, cores=2)
    t = report["tasks"]["MoveToBeacon"]
    (row,) = t["rows"]
    for key in ("per-game", "per-game-persistent", "pool-inproc"):
        assert row[key]["rate"] > 0 and row[key]["cpu_ms_per_step"] > 0
    single = t["single"]["inprocess"]
    assert single["rate"] > 0 and single["engine_ms"] > 0 and single["bridge_ms"] > 0
    assert 0.0 <= t["pool-inproc_share"] <= 1.0
    text = bench.format_report(report)
    assert "MoveToBeacon" in text and "pool's own share" in text


@pytest.mark.timeout(60)
def test_single_game_waits_for_go_before_measuring(monkeypatch: pytest.MonkeyPatch, no_leaks: None) -> None:
    """Concurrent single games measure one common window: each says READY and waits for GO."""
    import subprocess
    import sys

    monkeypatch.delenv("SC2PATH", raising=False)
    cmd = [sys.executable, "-m", "workers.sc2.bench_single", "--task", "MoveToBeacon", "--engine", "inprocess",
           "--seconds", "0.1", "--barrier"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "READY"
        out, err = p.communicate("STOP\n", timeout=30)
        assert p.returncode != 0 and "expected GO" in err and '"rate"' not in out
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
