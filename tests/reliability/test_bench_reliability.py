"""``benchmarks/bench_reliability.py`` end to end on one trial per fault, so the script that holds
the detection latencies (which no unit test asserts) cannot rot."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers.proctree import ProcessTree
from helpers.waiting import HANG_S

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_reliability.py"


@pytest.mark.timeout(180)
def test_one_trial_per_fault_reports_every_kind(tmp_path: Path, process_tree: ProcessTree) -> None:
    out = tmp_path / "rel.json"
    done = process_tree.run(
        [sys.executable, str(SCRIPT), "--trials", "1", "--heartbeat-timeout", "1.0", "--json", str(out)],
        capture_output=True, text=True, timeout=2 * HANG_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert set(report["kinds"]) == {"kill9", "sigstop", "step_timeout"}
    for kind, r in report["kinds"].items():
        assert r["trials"] == 1 and 0 < r["p50_s"] <= r["max_s"], (kind, r)
    # a stopped worker cannot be declared dead before its heartbeat timeout (less one interval)
    assert report["kinds"]["sigstop"]["p50_s"] >= 1.0 - 0.25
    assert "kill9" in done.stdout and "p99" in done.stdout
