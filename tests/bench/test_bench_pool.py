"""Smoke and unit tests of the pool benchmark: tiny step counts, every implementation present.

The numbers measured here mean nothing (fractions of a second on a busy CI box); what is tested
is that the runner builds, measures and closes every implementation, that the reports contain
them all, that targets are graded correctly, and that nothing is left running.
"""

from __future__ import annotations

import json
import sys
import types
from typing import Any

import numpy as np
import psutil
import pytest

from sc2pool import cli
from sc2pool.bench import envs, report
from sc2pool.bench.envs import EnvFactory
from sc2pool.bench.pool import BenchConfig, Impl, Scenario, run_benchmark, select_scenarios
from sc2pool.cli import bench as bench_cli

ALL_IMPLS = (
    Impl("inproc"),
    Impl("dummy"),
    Impl("sync"),
    Impl("async"),
    Impl("subproc"),
    Impl("zmq", 1),
    Impl("zmq", 2),
    Impl("zmq", 2, shm=False),
    Impl("raw", 2),
)


@pytest.fixture
def no_leftovers(process_tree):
    """The suite-wide ``process_tree`` check (``tests/conftest.py``) under the name these tests use:
    a leftover process fails the test and is killed either way."""
    return process_tree


# ~5 s on a quiet 2-core box; the bound is generous because SubprocVecEnv's children import torch,
# which takes tens of seconds when the machine is heavily loaded.
@pytest.mark.timeout(120)
def test_runner_smoke_every_implementation(tmp_path, no_leftovers):
    scenario = Scenario("smoke-noop-2", EnvFactory("noop"), 2, ALL_IMPLS, "smoke test")
    config = BenchConfig([scenario], seconds=0.05, repeats=2, warmup=0.0)
    result = run_benchmark(config)

    rows = {r["label"]: r for r in result["results"]}
    assert set(rows) == {i.label for i in ALL_IMPLS}
    for label, r in rows.items():
        assert r["error"] is None, f"{label}: {r['error']}"
        assert len(r["rates"]) == 2 and all(x > 0 for x in r["rates"]), label
        assert r["best"] == max(r["rates"])
        assert r["steps"] > 0
    assert rows["single env, in-process"]["n_envs"] == 1
    assert rows["DummyVecEnv"]["n_envs"] == 2
    assert result["leftover_processes"] == []

    paths = report.write_all(result, tmp_path)
    loaded = json.loads(paths["json"].read_text())
    assert {r["label"] for r in loaded["results"]} == set(rows)
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = paths["table"].read_text()
    for label in rows:
        assert label in table
    # This scenario is none of the issue's, so every target is "not measured", never PASS/FAIL.
    assert all(t["status"] == report.NA for t in loaded["targets"])
    # --no-plot: the table and the JSON, no PNG
    bare = report.write_all(result, tmp_path / "bare", plot=False)
    assert set(bare) == {"json", "table"} and not (tmp_path / "bare" / "bench_pool.png").exists()


def _fake_result(
    rates: dict[tuple[str, str, int | None], float], us: dict[tuple[str, str, int], float]
) -> dict[str, Any]:
    results = []
    for (sc, impl, w), best in rates.items():
        results.append(
            {
                "scenario": sc,
                "impl": impl,
                "n_workers": w,
                "label": f"{impl}{w}",
                "best": best,
                "best_us_per_step": us.get((sc, impl, w or 0), 1e6 / best),
            }
        )
    return {"results": results}


def test_targets_pass_and_fail_are_graded_from_the_ratios():
    good = _fake_result(
        {
            ("cartpole-8", "subproc", None): 7000,
            ("cartpole-8", "async", None): 9000,
            ("cartpole-8", "zmq", 2): 22000,
            ("cartpole-8", "zmq", 8): 9000,
            ("busy1ms-2", "inproc", None): 1000,
            ("busy1ms-2", "zmq", 2): 1800,
            ("image-4", "async", None): 10000,
            ("image-4", "zmq", 2): 9000,
            ("image-4", "zmq", 4): 10500,
            ("features-4", "async", None): 5000,
            ("features-4", "zmq", 4): 4000,
            ("noop-1", "zmq", 1): 1,
            ("noop-1", "raw", 1): 1,
        },
        {("noop-1", "zmq", 1): 70.0, ("noop-1", "raw", 1): 50.0},
    )
    status = {t["name"]: t for t in report.evaluate_targets(good)}
    by_prefix = lambda p: next(t for n, t in status.items() if n.startswith(p))  # noqa: E731
    assert by_prefix("CartPole 8 envs: ZmqVecEnv(w=2) / Subproc")["status"] == report.PASS  # 3.14x
    assert by_prefix("CartPole 8 envs: ZmqVecEnv(w=2) / Async")["status"] == report.PASS  # 2.44x
    assert by_prefix("CartPole 8 envs: ZmqVecEnv(w=8)")["status"] == report.PASS  # 1.29x
    assert by_prefix("1 ms env")["status"] == report.PASS  # 1800 / 2000 = 0.9
    assert by_prefix("1 ms env")["ratio"] == pytest.approx(0.9)
    assert by_prefix("(84,84,3)")["status"] == report.PASS  # best zmq config counts: 1.05x
    assert by_prefix("(64,64,17)")["status"] == report.FAIL  # 0.8x
    assert by_prefix("no-op env, 1 env")["ratio"] == pytest.approx(1.4)
    assert by_prefix("no-op env, 1 env")["status"] == report.PASS  # lower is better, 1.4 <= 1.5
    assert by_prefix("no-op env, 8 envs")["status"] == report.NA

    bad = _fake_result(
        {
            ("cartpole-8", "subproc", None): 7000,
            ("cartpole-8", "zmq", 2): 20000,
            ("noop-1", "zmq", 1): 1,
            ("noop-1", "raw", 1): 1,
        },
        {("noop-1", "zmq", 1): 80.0, ("noop-1", "raw", 1): 50.0},
    )
    # the unpinned variant (cpu_affinity=None) is shown for comparison, never graded
    bad["results"].append({"scenario": "cartpole-8", "impl": "zmq", "n_workers": 2, "label": "unpinned",
                           "best": 30000, "best_us_per_step": 1e6 / 30000, "pinned": False})
    # nor is the variant with randomised worker layouts (fixed_layout=False)
    bad["results"].append({"scenario": "cartpole-8", "impl": "zmq", "n_workers": 2, "label": "random layout",
                           "best": 30000, "best_us_per_step": 1e6 / 30000, "fixed_layout": False})
    status = {t["name"]: t["status"] for t in report.evaluate_targets(bad)}
    # informational rows print as [info], so a reader never takes them for one of the targets
    lines = report.format_targets(report.evaluate_targets(bad))
    assert [ln.split()[0] for ln in lines if "(info)" in ln] == ["[info]"] * len(report.INFO_TARGETS)
    assert any(ln.lstrip().startswith("[FAIL]") for ln in lines)
    assert status["CartPole 8 envs: ZmqVecEnv(w=2) / SubprocVecEnv(8)"] == report.FAIL  # 2.86x
    assert status["no-op env, 1 env: ZmqVecEnv step time / raw zmq round trip"] == report.FAIL  # 1.6x


@pytest.mark.parametrize("kind", sorted(envs.KINDS))
def test_bench_envs_are_deterministic_and_importable_by_path(kind):
    from workers.host import resolve

    def rollout() -> list[Any]:
        env = resolve(envs.KINDS[kind])(**({"busy_ms": 0.01} if kind == "busy" else {}))
        obs, _ = env.reset(seed=3)
        out = [obs]
        for t in range(30):
            obs, reward, terminated, truncated, _ = env.step(t % 2)
            out += [obs, reward, terminated, truncated]
            if terminated or truncated:
                obs, _ = env.reset()
                out.append(obs)
        env.close()
        return out

    a, b = rollout(), rollout()
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    space = EnvFactory(kind)().observation_space
    assert space.contains(a[0])


def test_env_shapes_and_busy_cost():
    import time

    assert EnvFactory("image")().observation_space.shape == (84, 84, 3)
    assert EnvFactory("image")().observation_space.dtype == np.uint8
    assert EnvFactory("features")().observation_space.shape == (64, 64, 17)
    assert EnvFactory("features")().observation_space.dtype == np.float32
    env = EnvFactory("busy", {"busy_ms": 2.0})()
    env.reset(seed=0)
    t0 = time.perf_counter()
    for _ in range(5):
        env.step(0)
    assert time.perf_counter() - t0 >= 5 * 0.002
    with pytest.raises(ValueError, match="unknown benchmark env kind"):
        EnvFactory("nope")


def test_select_scenarios_and_config_validation():
    assert [s.name for s in select_scenarios(["noop-1", "cartpole-8"], quick=True)] == [
        "noop-1",
        "cartpole-8",
    ]
    full = {s.name for s in select_scenarios(None, quick=False)}
    assert {"cartpole-8", "busy1ms-2", "image-4", "features-4", "noop-1"} <= full
    with pytest.raises(ValueError, match="unknown scenario"):
        select_scenarios(["cartpole-9"], quick=False)
    with pytest.raises(ValueError, match="n_workers"):
        Impl("zmq")
    with pytest.raises(ValueError, match="more workers"):
        Scenario("x", EnvFactory("noop"), 2, (Impl("zmq", 4),))
    with pytest.raises(ValueError, match="seconds"):
        BenchConfig(select_scenarios(["noop-1"], quick=True), seconds=0)


def test_cli_task_without_sc2_module_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sc2pool.bench.sc2", None)  # makes the import fail
    assert cli.main(["bench", "--task", "marines"]) == 2
    assert "sc2pool.bench.sc2" in capsys.readouterr().err


def test_cli_task_delegates_with_games_and_transport(monkeypatch):
    seen: dict[str, Any] = {}
    fake = types.ModuleType("sc2pool.bench.sc2")
    fake.main = lambda args: seen.update(vars(args)) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sc2pool.bench.sc2", fake)
    assert cli.main(["bench", "--task", "marines", "--games", "1,4", "--transport", "inproc"]) == 0
    assert seen["task"] == "marines" and seen["games"] == [1, 4] and seen["transport"] == "inproc"


def test_cli_rejects_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        cli.main(["bench", "--games", "1,x"])
    with pytest.raises(SystemExit):
        cli.main(["bench", "--seconds", "-1"])
    assert cli.main(["bench", "--scenarios", "nope"]) == 2
    assert "unknown scenario" in capsys.readouterr().err
    assert bench_cli._scenario_names(["a,b", "c"]) == ["a", "b", "c"]


@pytest.mark.timeout(60)
def test_failing_implementation_is_reported_and_cleaned_up(monkeypatch, no_leftovers):
    from sc2pool.bench import pool

    # busy_ms=-1 makes every env constructor raise: in-process, in SB3's loop and in a worker.
    # Pre-drawn actions are patched in so that the failure happens inside each implementation.
    monkeypatch.setattr(pool, "_actions_for", lambda scenario, seed: np.zeros((4, scenario.n_envs), np.int64))
    bad = EnvFactory("busy", {"busy_ms": -1})
    impls = (Impl("inproc"), Impl("dummy"), Impl("zmq", 1))
    good = Scenario("good", EnvFactory("noop"), 1, (Impl("dummy"),))
    result = run_benchmark(
        BenchConfig([Scenario("bad", bad, 2, impls), good], seconds=0.05, repeats=1, warmup=0.0)
    )
    rows = {(r["scenario"], r["label"]): r for r in result["results"]}
    for impl in impls:
        r = rows[("bad", impl.label)]
        assert r["error"] and r["rates"] == [], impl.label
    assert "busy_ms" in rows[("bad", "DummyVecEnv")]["error"]
    assert rows[("good", "DummyVecEnv")]["error"] is None  # the run went on
    assert "ERROR" in report.format_table(result)
    assert result["leftover_processes"] == []


def test_env_that_cannot_be_built_fails_the_scenario_only():
    bad = Scenario("bad", EnvFactory("busy", {"busy_ms": -1}), 1, (Impl("dummy"), Impl("inproc")))
    good = Scenario("good", EnvFactory("noop"), 1, (Impl("inproc"),))
    result = run_benchmark(BenchConfig([bad, good], seconds=0.05, repeats=1, warmup=0.0))
    errors = [r["error"] for r in result["results"] if r["scenario"] == "bad"]
    assert len(errors) == 2 and all("cannot be built" in e for e in errors)
    assert [r["best"] > 0 for r in result["results"] if r["scenario"] == "good"] == [True]


def test_autogroup_nice_is_set_and_previous_value_returned(tmp_path, monkeypatch):
    fake = tmp_path / "autogroup"
    fake.write_text("/autogroup-7 nice 3\n")
    monkeypatch.setattr(bench_cli, "_AUTOGROUP", str(fake))
    assert bench_cli._set_autogroup_nice(-10) == 3
    assert fake.read_text() == "-10"
    monkeypatch.setattr(bench_cli, "_AUTOGROUP", str(tmp_path / "missing"))
    assert bench_cli._set_autogroup_nice(-10) is None  # kernels without autogroups: a no-op


def test_benchmarks_script_shares_the_cli_options(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_pool.py"
    spec = importlib.util.spec_from_file_location("bench_pool_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert "cartpole-8" in listed and "noop-1" in listed and "ZmqVecEnv(w=2)" in listed


def _sleep_forever() -> None:
    import time

    time.sleep(60)


@pytest.mark.timeout(60)
def test_leftover_check_sees_processes_forked_by_the_forkserver():
    import multiprocessing

    from sc2pool.bench.pool import leftover_children

    proc = multiprocessing.get_context("forkserver").Process(target=_sleep_forever, daemon=True)
    proc.start()
    try:
        pids = {p["pid"] for p in leftover_children(timeout=0)}
        assert proc.pid in pids  # forked by the forkserver: must not pass as the forkserver itself
        forkserver_pids = {
            c.pid for c in psutil.Process().children() if "forkserver" in " ".join(c.cmdline())
        }
        assert forkserver_pids and not (forkserver_pids & pids)
    finally:
        proc.kill()
        proc.join(10)
    assert proc.pid not in {p["pid"] for p in leftover_children(timeout=5)}
