"""Smoke and unit tests of the scale benchmark (``sc2pool bench --scale``): tiny runs whose numbers
mean nothing; what is tested is that it measures remote tcp workers, reports every field, grades
its targets and leaves no worker behind."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import psutil
import pytest
from helpers.waiting import wait_until

from sc2pool import cli
from sc2pool.bench import scale


def _workers() -> list[int]:
    """Live scale-benchmark workers below this one, known by the env they serve (other long-lived
    children, such as multiprocessing's forkserver whose command line lists sys.path, are not
    workers; a zombie is dead already: its parent reaps it)."""
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.status() != psutil.STATUS_ZOMBIE and "sc2pool.bench.scale:make_" in " ".join(p.cmdline()):
                out.append(p.pid)
        except psutil.Error:  # gone while we looked
            pass
    return out


def test_sleep_env_is_lognormal_with_the_asked_mean_and_sd() -> None:
    env = scale.SleepEnv(mean_ms=5.0, sd_ms=2.5, seed=1)
    draws = env._rng.lognormal(env._mu, env._sigma, 200_000) * 1000
    assert draws.mean() == pytest.approx(5.0, rel=0.02)
    assert draws.std() == pytest.approx(2.5, rel=0.03)


def test_no_overhead_efficiency_falls_with_workers_and_rises_with_envs_per_worker() -> None:
    e1, e8, e64 = (scale.predicted_efficiency(n, 1) for n in (1, 8, 64))
    assert e1 == pytest.approx(1.0, abs=0.02) and e1 > e8 > e64 > 0.2
    assert scale.predicted_efficiency(8, 4) > e8


def test_grade_targets() -> None:
    rows = [{"kind": "noop", "workers": 8, "cpu_us_per_worker_msg": 20.0},
            {"kind": "noop", "workers": 64, "cpu_us_per_worker_msg": 14.0}]
    assert [t["status"] for t in scale.grade(rows)] == ["PASS", "PASS"]
    rows[1]["cpu_us_per_worker_msg"] = 30.0
    assert [t["status"] for t in scale.grade(rows)] == ["FAIL", "FAIL"]
    rows.append({"kind": "raw", "workers": 64, "cpu_us_per_worker_msg": 20.0})
    ratio = scale.grade(rows)[0]
    assert ratio["status"] == "info" and ratio["value"] == pytest.approx(1.5) and "64 DEALER peers" in ratio["target"]


@pytest.mark.timeout(120)
def test_cli_scale_run_writes_reports_and_leaves_no_worker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["bench", "--scale", "--scale-workers", "1,2", "--scale-envs", "2",
                     "--seconds", "0.3", "--out", str(tmp_path), "--no-plot"])
    assert code == 0
    res = json.loads((tmp_path / "bench_scale.json").read_text())
    got = {(r["kind"], r["workers"], r["envs_per_worker"]) for r in res["rows"]}
    assert got == {("noop", 1, 1), ("raw", 1, 1), ("noop", 2, 1), ("raw", 2, 1), ("sleep", 1, 2), ("sleep", 2, 2)}
    for r in res["rows"]:
        assert r["steps"] > 0 and r["vec_steps_per_s"] > 0 and r["cpu_us_per_worker_msg"] > 0
        assert 0 < r["p50_ms"] <= r["p99_ms"]
        if r["kind"] == "sleep":
            # a sleeping step of 2 envs in sequence takes ~10 ms: the rate cannot beat the ideal
            assert 0 < r["efficiency"] <= 1.1 and np.isfinite(r["predicted_efficiency"])
    assert "vec steps/s" in capsys.readouterr().out
    # a worker that was killed may take a moment to be reaped; one still there after that is a leak
    wait_until(lambda: not _workers(), "every scale worker to be gone after the run")
