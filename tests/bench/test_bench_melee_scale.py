"""The full-game scale benchmark (``benchmarks/bench_melee_scale.py``) at a tiny size: two Melee
games with a 10-game-second limit (so episodes end and new games start within the run), a few
seconds per design. Its numbers mean nothing here; what is tested is that both designs are
measured, every field is reported and sane, and no process is left behind."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from sc2pool.bench import melee_scale

ROOT = Path(__file__).resolve().parents[2]


def test_traces_keep_the_last_steps_of_each_host_and_refuse_a_short_one() -> None:
    a = np.arange(5, dtype=np.float64)
    b = np.arange(3, dtype=np.float64) + 10
    out = melee_scale._traces([a.tobytes(), b.tobytes()], 3)
    assert out.tolist() == [[2.0, 3.0, 4.0], [10.0, 11.0, 12.0]]
    with pytest.raises(RuntimeError, match="recorded 3 steps, the trainer made 4"):
        melee_scale._traces([a.tobytes(), b.tobytes()], 4)


@pytest.mark.parametrize(("argv", "message"), [
    (["--workers", "0"], "--workers and --envs-per-worker must be >= 1"),
    (["--designs", "pool,dummy"], "--designs must name some of pool, subproc"),
    (["--step-loops", "0"], "step_loops must be an int from 1 to 448"),
    (["--difficulty", "godlike"], "unknown opponent difficulty 'godlike'"),
])
def test_bad_options_are_refused_before_anything_starts(argv: list[str], message: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert melee_scale.main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.timeout(240)
def test_tiny_run_measures_both_designs_and_leaves_nothing(tmp_path: Path, process_tree) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "melee_scale.json"
    r = process_tree.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_melee_scale.py"), "--workers", "1", "--envs-per-worker", "2",
         "--seconds", "3", "--time-limit", "10", "--maps", "AcidPlantLE,BlueshiftLE", "--json", str(out)],
        timeout=200, cwd=ROOT, capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    rep = json.loads(out.read_text())
    assert rep["config"]["games"] == 2 and rep["config"]["task_kwargs"]["scripted"] is True
    rows = {row["design"]: row for row in rep["rows"]}
    assert set(rows) == {"pool", "subproc"}
    assert rows["pool"]["workers"] == 1 and rows["pool"]["envs_per_worker"] == 2
    assert rows["subproc"]["workers"] == 2 and rows["subproc"]["envs_per_worker"] == 1
    for row in rows.values():
        assert row["games"] == 2 and row["env_steps"] == 2 * row["vec_steps"] > 0
        assert row["env_steps_per_s"] == pytest.approx(row["env_steps"] / row["seconds"])
        # 10 game seconds at 8 loops a step: 28 or 29 steps, then the limit ends the game
        assert row["episodes"] >= 1 and row["results"].get("TimeLimit", 0) == row["episodes"]
        assert 25 <= row["episode_steps_min"] <= row["episode_steps_max"] <= 30
        assert row["resets"] == row["episodes"] and row["reset_ms_mean"] > 0
        assert 0.0 <= row["own_share"] < 1.0
        assert row["game_ms_per_vec_step"] > 0 and row["bridge_ms_per_step"] > 0 and row["game_loop_ms_per_step"] > 0
        assert row["cpu_ms_per_step"] > row["engine_cpu_ms_per_step"] > 0  # a game process per game
        assert row["left_behind_killed"] == []
    assert rep["ratio_pool_vs_subproc"] == pytest.approx(
        rows["pool"]["env_steps_per_s"] / rows["subproc"]["env_steps_per_s"])
    assert "| ZmqVecEnv | 2 / 1 workers x 2 |" in r.stdout and "| SubprocVecEnv | 2 / 2 x 1 |" in r.stdout
    assert "pool / SubprocVecEnv:" in r.stdout
