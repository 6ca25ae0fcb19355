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
    for key in ("seed", "seed-persistent", "pool-inproc"):
        assert row[key]["rate"] > 0 and row[key]["cpu_ms_per_step"] > 0
    single = t["single"]["inprocess"]
    assert single["rate"] > 0 and single["engine_ms"] > 0 and single["bridge_ms"] > 0
    assert 0.0 <= t["pool-inproc_share"] <= 1.0
    text = bench.format_report(report)
    assert "MoveToBeacon" in text and "pool's own share" in text
