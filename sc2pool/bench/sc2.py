"""``sc2pool bench --task NAME``: StarCraft II throughput, the pool against a game process per env.

For each task and each number of concurrent games ``n`` (``--games 1,2,4,8``) it measures, in one
run and with the same random actions:

* **pool**: ``ZmqVecEnv`` with ``min(n, 4)`` workers, each hosting its share of the ``n`` games
  in one asyncio loop, a game process per game (the embedded engine over its websocket, exactly
  the path real SC2 takes);
* **per-game**: SB3's ``SubprocVecEnv`` over ``n`` copies of the project's original design
  (``workers.sc2.queue_env.QueueSC2Env``: a sync gymnasium adapter per game, the game's bot in its
  own process behind multiprocessing queues, the same engine process);
* **pool-inproc** (optional, ``--transport inprocess`` or ``all``): the pool with the engine inside
  the workers (no websocket, no game process).

It also runs one game alone, without any pool (``workers.sc2.bench_single``), to split a step into
engine, burnysc2 (+ transport) and task code, and to compute the pool's own share of a step:
``1 - pool rate / (single-game rate x games)`` with one game per core.

Trainer side: nothing here imports burnysc2; games run in child processes.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

TASKS = ("MoveToBeacon", "CollectMineralShards", "DefeatRoaches", "DefeatZerglingsAndBanelings", "Skirmish")


class QueueEnvFactory:
    """Picklable env factory for SubprocVecEnv (imports the worker side only in the child)."""

    def __init__(self, task: str, engine: str = "subprocess", relaunch_on_reset: bool = True) -> None:
        self.task = task
        self.engine = engine
        self.relaunch_on_reset = relaunch_on_reset

    def __call__(self) -> Any:
        from workers.sc2.queue_env import QueueSC2Env

        return QueueSC2Env(task=self.task, engine=self.engine, relaunch_on_reset=self.relaunch_on_reset)


#: Every measurement covers at least this many vector steps, so that each env goes through a full
#: MoveToBeacon episode (240 steps) and its reset: reset cost is part of the rate.
MIN_VEC_STEPS = 250
#: ... unless that takes longer than this (slow designs on short-episode tasks have reset plenty).
MAX_SECONDS = 20.0


def _step_rate(env: Any, seconds: float, warmup_steps: int, seed: int = 0) -> dict[str, float]:
    """Env steps/s of a VecEnv under random actions (auto-reset included)."""
    env.seed(seed)
    env.reset()
    space = env.action_space
    space.seed(seed)
    n = env.num_envs
    pool = [np.array([space.sample() for _ in range(n)]) for _ in range(256)]
    for i in range(warmup_steps):
        env.step(pool[i % len(pool)])
    steps = 0
    cpu0 = _tree_cpu()
    t0 = time.perf_counter()
    end = t0 + seconds
    hard_end = t0 + max(MAX_SECONDS, seconds)
    while (time.perf_counter() < end or steps < MIN_VEC_STEPS) and time.perf_counter() < hard_end:
        env.step(pool[steps % len(pool)])
        steps += 1
    wall = time.perf_counter() - t0
    cpu1 = _tree_cpu()
    cpu = sum(v - cpu0.get(pid, 0.0) for pid, v in cpu1.items())
    return {
        "rate": steps * n / wall,
        "vec_steps": steps,
        "seconds": wall,
        # CPU time of this process and all its descendants per env step: robust to other load on
        # the machine (the rate is not), and what bounds the rate when every core is busy.
        "cpu_ms_per_step": 1e3 * cpu / max(steps * n, 1),
    }


def _tree_cpu() -> dict[int, float]:
    import psutil

    me = psutil.Process()
    out: dict[int, float] = {}
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            out[p.pid] = float(t.user + t.system)
        except psutil.Error:
            pass
    return out


def bench_pool(task: str, games: int, engine: str, seconds: float, warmup: int) -> dict[str, Any]:
    from sc2pool import ZmqVecEnv
    from sc2pool.training.train import host_spec

    workers = min(games, 4)
    while games % workers:
        workers -= 1
    t0 = time.perf_counter()
    env = ZmqVecEnv(host=host_spec(task, engine), n_envs=games, n_workers=workers)
    start = time.perf_counter() - t0
    firsts = [k * (games // workers) for k in range(workers)]  # one env per worker

    def stats() -> list[dict[str, Any]] | None:
        try:
            return list(env.env_method("timing_stats", indices=firsts))
        except Exception:  # noqa: BLE001 - stats are optional
            return None

    try:
        before = stats()
        out: dict[str, Any] = dict(_step_rate(env, seconds, warmup))
        after = stats()
    finally:
        env.close()
    out.update(workers=workers, startup_s=start, worker0_stats=after[0] if after else None)
    if before and after:
        # Wall time per vector step inside the workers' host.step (games + burnysc2 + task) vs
        # what the trainer sees: the rest is the pool's own share (messaging, lockstep, trainer).
        per = [
            (a["host_step_wall"] - b["host_step_wall"]) / max(a["host_steps"] - b["host_steps"], 1)
            for a, b in zip(after, before, strict=True)
        ]
        trainer = out["seconds"] / max(out["vec_steps"], 1)
        out["host_step_ms"] = 1e3 * max(per)
        out["trainer_step_ms"] = 1e3 * trainer
        out["pool_share_direct"] = max(0.0, 1.0 - max(per) / trainer)
    return out


def bench_per_game(task: str, games: int, seconds: float, warmup: int, relaunch: bool = True) -> dict[str, Any]:
    from stable_baselines3.common.vec_env import SubprocVecEnv

    t0 = time.perf_counter()
    env = SubprocVecEnv([QueueEnvFactory(task, relaunch_on_reset=relaunch) for _ in range(games)])
    start = time.perf_counter() - t0
    try:
        out = _step_rate(env, seconds, warmup)
    finally:
        env.close()
    out.update(startup_s=start)
    return out


def _single_game_cmd(task: str, engine: str, seconds: float) -> list[str]:
    """One game measured without the pool, in a child process (the worker side imports burnysc2)."""
    return [sys.executable, "-m", "workers.sc2.bench_single", "--task", task, "--engine", engine,
            "--seconds", str(seconds)]


def bench_single(task: str, engine: str, seconds: float) -> dict[str, Any]:
    """One game without the pool, in a child process (the worker side imports burnysc2)."""
    cmd = _single_game_cmd(task, engine, seconds)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120 + 4 * seconds)
    if r.returncode != 0:
        raise RuntimeError(f"single-game measurement failed:\n{r.stderr[-2000:]}")
    return dict(json.loads(r.stdout.strip().splitlines()[-1]))


def bench_singles_concurrent(task: str, engine: str, seconds: float, n: int) -> dict[str, Any]:
    """``n`` independent single games at the same time (one per core), each in its own process
    with no pool: the summed rate is the ideal the pool is measured against.

    The games launch at their own pace, so each warms up, says READY and waits; all measure
    from the same GO. (Without it, a game whose window opened before the others had finished
    launching ran on a half-idle machine and inflated the ideal.)"""
    cmd = [*_single_game_cmd(task, engine, seconds), "--barrier"]
    errs = [tempfile.TemporaryFile("w+") for _ in range(n)]  # files: a chatty child never blocks on a pipe
    procs = [
        subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True) for err in errs
    ]

    def failure(i: int, what: str) -> RuntimeError:
        errs[i].seek(0)
        return RuntimeError(f"single-game measurement {what}:\n{errs[i].read()[-2000:]}")

    rates = []
    try:
        deadline = time.monotonic() + 120
        for i, p in enumerate(procs):
            assert p.stdout is not None
            ready, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = p.stdout.readline() if ready else ""
            if line.strip() != "READY":
                raise failure(i, "failed or hung before measuring")
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("GO\n")
            p.stdin.flush()
        for i, p in enumerate(procs):
            try:
                out, _ = p.communicate(timeout=60 + 4 * seconds)
            except subprocess.TimeoutExpired:
                raise failure(i, "hung") from None
            if p.returncode != 0:
                raise failure(i, "failed")
            rates.append(float(json.loads(out.strip().splitlines()[-1])["rate"]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for err in errs:
            err.close()
    return {"games": n, "rates": rates, "rate": float(sum(rates))}


def run(
    tasks: list[str],
    games: list[int],
    seconds: float,
    transports: list[str],
    warmup: int = 20,
    cores: int | None = None,
    repeats: int = 1,
) -> dict[str, Any]:
    """Measure every configuration ``repeats`` times, interleaved (so slow phases of a noisy
    machine hit all designs alike), and keep each one's best rate."""
    cores = cores or os.cpu_count() or 1
    report: dict[str, Any] = {"cores": cores, "seconds": seconds, "repeats": repeats, "tasks": {}}

    def best(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
        return new if old is None or new["rate"] > old["rate"] else old

    for task in tasks:
        t: dict[str, Any] = {"single": {}, "rows": []}
        t["ideal"] = {}
        for _ in range(repeats):
            for eng in transports:
                t["single"][eng] = best(t["single"].get(eng), bench_single(task, eng, seconds))
                t["ideal"][eng] = best(
                    t["ideal"].get(eng), bench_singles_concurrent(task, eng, seconds, cores)
                )
        for n in games:
            row: dict[str, Any] = {"games": n}
            for _ in range(repeats):
                row["per-game"] = best(row.get("per-game"), bench_per_game(task, n, seconds, warmup, relaunch=True))
                row["per-game-persistent"] = best(
                    row.get("per-game-persistent"), bench_per_game(task, n, seconds, warmup, relaunch=False)
                )
                for eng in transports:
                    key = "pool" if eng == "subprocess" else "pool-inproc"
                    row[key] = best(row.get(key), bench_pool(task, n, eng, seconds, warmup))
            if "pool" in row:
                row["ratio_pool_vs_per_game"] = row["pool"]["rate"] / max(row["per-game"]["rate"], 1e-9)
                row["ratio_pool_vs_per_game_persistent"] = row["pool"]["rate"] / max(
                    row["per-game-persistent"]["rate"], 1e-9
                )
            print(_row_line(task, row), flush=True)
            t["rows"].append(row)
        # the pool's own share of a step, at one game per core
        for eng in transports:
            key = "pool" if eng == "subprocess" else "pool-inproc"
            row_at_cores = next((r for r in t["rows"] if r["games"] == cores), None)
            if row_at_cores is not None:
                ideal = t["ideal"][eng]["rate"]
                t[f"{key}_share"] = max(0.0, 1.0 - row_at_cores[key]["rate"] / ideal)
                t[f"{key}_vs_ideal"] = row_at_cores[key]["rate"] / ideal
        report["tasks"][task] = t
    return report


COLUMNS = (
    ("per-game", "a process per game"),
    ("per-game-persistent", "per game, no relaunch"),
    ("pool", "pool (ZmqVecEnv)"),
    ("pool-inproc", "pool, in-process"),
)


def _rate(row: dict[str, Any], key: str) -> float:
    return float(row[key]["rate"]) if key in row else float("nan")


def _cpu(row: dict[str, Any], key: str) -> float:
    return float(row[key]["cpu_ms_per_step"]) if key in row else float("nan")


def _row_line(task: str, row: dict[str, Any]) -> str:
    parts = [f"{task:28s} games={row['games']:<2d}"]
    for key, _ in COLUMNS:
        if key in row:
            parts.append(f"{key} {_rate(row, key):6.0f}/s")
    if "ratio_pool_vs_per_game" in row:
        parts.append(f"pool/per-game {row['ratio_pool_vs_per_game']:.2f}x")
        parts.append(f"pool/per-game-persistent {row['ratio_pool_vs_per_game_persistent']:.2f}x")
    return "  ".join(parts)


def format_report(report: dict[str, Any]) -> str:
    lines = [
        f"StarCraft II benchmark ({report['cores']} cores, >= {report['seconds']:.1f} s and >= {MIN_VEC_STEPS} "
        f"vector steps (at most {MAX_SECONDS:.0f} s) per measurement, random actions, resets included)",
        "  a process per game = SB3 SubprocVecEnv over a sync gym adapter (a game process per env behind",
        "  multiprocessing queues; reset relaunches the game); 'per game, no relaunch' keeps the game across episodes.",
    ]
    for task, t in report["tasks"].items():
        lines.append("")
        lines.append(f"== {task}")
        for eng, s in t["single"].items():
            reset = s["reset_ms_mean"] if s["reset_ms_mean"] is not None else float("nan")
            lines.append(
                f"  one game, no pool ({eng}): {s['rate']:.0f} steps/s = {s['ms_per_step']:.3f} ms/step; CPU per step: "
                f"engine {s['engine_ms']:.3f}, burnysc2+transport {s['burnysc2_ms']:.3f}, task/bridge "
                f"{s['bridge_ms']:.3f} ms; reset {reset:.1f} ms"
            )
        head = "  games" + "".join(f" {label:>18}" for _, label in COLUMNS) + "  pool/per-game  pool/no-relaunch"
        lines.append("  env steps/s:")
        lines.append(head)
        for row in t["rows"]:
            cells = "".join(f" {_rate(row, key):>18.0f}" for key, _ in COLUMNS)
            lines.append(
                f"  {row['games']:>5}{cells}  {row.get('ratio_pool_vs_per_game', float('nan')):>8.2f}x"
                f"  {row.get('ratio_pool_vs_per_game_persistent', float('nan')):>15.2f}x"
            )
        lines.append("  CPU ms per env step (all processes of the run):")
        for row in t["rows"]:
            cells = "".join(f" {_cpu(row, key):>18.2f}" for key, _ in COLUMNS)
            lines.append(f"  {row['games']:>5}{cells}")
        for row in t["rows"]:
            for key in ("pool", "pool-inproc"):
                r = row.get(key, {})
                if "pool_share_direct" in r:
                    lines.append(
                        f"  {key} at {row['games']} games: {r['trainer_step_ms']:.3f} ms per vector step in the trainer, "
                        f"{r['host_step_ms']:.3f} ms inside the slowest worker's host.step -> pool's own share "
                        f"{100 * r['pool_share_direct']:.1f}%"
                    )
        for key in ("pool", "pool-inproc"):
            if f"{key}_share" in t:
                lines.append(
                    f"  {key}: rate at one game per core = {t[f'{key}_vs_ideal']:.2f}x the summed rates of {report['cores']} "
                    "single games run at once without the pool "
                    f"-> the pool's own share of a step {100 * t[f'{key}_share']:.1f}%"
                )
    return "\n".join(lines)


def check_targets(report: dict[str, Any]) -> list[tuple[str, bool, str]]:
    out = []
    t = report["tasks"].get("MoveToBeacon")
    if t:
        row8 = next((r for r in t["rows"] if r["games"] == 8 and "ratio_pool_vs_per_game" in r), None)
        if row8 is not None and row8["pool"]["workers"] == 4:
            r = row8["ratio_pool_vs_per_game"]
            out.append(("8 MoveToBeacon games in 4 workers >= 1.3x a process per game", r >= 1.3, f"{r:.2f}x"))
        if "pool_share" in t:
            s = t["pool_share"]
            out.append(("pool's own share of a step <= 10%", s <= 0.10, f"{100 * s:.1f}%"))
    return out


def main(args: argparse.Namespace) -> int:
    """Entry point used by ``sc2pool bench --task NAME [--games 1,2,4,8] [--transport ...]``."""
    task = getattr(args, "task", None) or "MoveToBeacon"
    tasks = list(TASKS) if task == "all" else [task]
    games = list(getattr(args, "games", None) or [1, 2, 4, 8])
    transport = getattr(args, "transport", None) or "subprocess"
    transports = ["subprocess", "inprocess"] if transport == "all" else [transport]
    if any(t not in ("subprocess", "inprocess") for t in transports):
        print(
            f"sc2pool bench: --transport must be subprocess, inprocess or all, got {transport!r}",
            file=sys.stderr,
        )
        return 2
    seconds = float(getattr(args, "seconds", None) or (1.0 if getattr(args, "quick", False) else 3.0))
    repeats = int(getattr(args, "repeats", None) or (1 if getattr(args, "quick", False) else 2))
    nice = int(getattr(args, "nice", None) or 0)
    restore: int | None = None
    if nice:
        from sc2pool.cli.bench import _set_autogroup_nice

        try:
            os.nice(nice)
        except OSError as exc:
            print(f"sc2pool bench: cannot change niceness by {nice}: {exc}", file=sys.stderr)
            return 2
        restore = _set_autogroup_nice(nice)
    try:
        report = run(tasks, games, seconds, transports, repeats=repeats)
    finally:
        if restore is not None:
            _set_autogroup_nice(restore)
    text = format_report(report)
    targets = check_targets(report)
    if targets:
        text += "\n\ntargets:\n" + "\n".join(
            f"  [{'PASS' if ok else 'FAIL'}] {name}: {val}" for name, ok, val in targets
        )
    print(text)
    out = Path(getattr(args, "out", None) or "bench-results")
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_sc2.json").write_text(json.dumps(report, indent=2, default=str))
    (out / "bench_sc2.txt").write_text(text + "\n")
    print(f"\nwrote {out / 'bench_sc2.json'} and {out / 'bench_sc2.txt'}")
    return 0
