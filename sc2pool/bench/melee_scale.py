"""Full StarCraft II games through the pool at scale (issue 26, item 4).

``--task Melee``: every episode is a whole 1v1 game on a ladder map against the engine's
Computer, thousands of env steps long (``step_loops`` game loops a step); each reset creates a new
game on the map its seed draws from the task's list (the 2018 Season 3 pool); games end at
different times, by victory, defeat or the time limit. Two designs play the same games with the
same seeds for the same wall time, one after the other:

* **pool**: ``ZmqVecEnv``, ``workers x envs_per_worker`` games (default 4 x 2), as ``sc2pool
  train`` builds it (a game process per game; the workers pinned to a core each unless
  ``--affinity none``);
* **subproc**: SB3's ``SubprocVecEnv`` with one process per game, each running the same host code
  behind a synchronous gymnasium API (:class:`workers.sc2.bench_host.SyncSC2Env`).

The actions are the task's scripted baseline (``scripted=True``: the env ignores the trainer's
action and plays its build order, then attacks; the trainer sends zeros): the games then build
armies and fight, so the steps cost what a trained agent's steps cost, and they end at different
times. Random actions rarely leave the opening economy and end all together at the time limit.
No network runs in the trainer: the figures are the env path alone.

**The pool's own share of an env step**: the games' worker records, per vector step, the wall
time it spent in its games (``host.step`` and the auto-reset after it; :mod:`workers.sc2.bench_host`);
per vector step, ``trainer wall - max over workers of that time`` is the time outside every game
(encode, transport, decode, the trainer's side of ``step``). The share is its sum over the sum of
the trainer's wall time. The same is computed for ``SubprocVecEnv`` (its processes record the
same trace), so the two can be compared.

Games run in child processes; the trainer imports burnysc2 only to check the task's options
before anything starts.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from sc2pool.bench.sc2 import _tree_cpu

DESIGNS = ("pool", "subproc")
HOST_TARGET = "workers.sc2.bench_host:make_host"


@dataclass
class MeleeScaleConfig:
    """One run: ``workers x envs_per_worker`` games of ``Melee`` in each design of ``designs``."""

    workers: int = 4
    envs_per_worker: int = 2
    seconds: float = 120.0
    engine: str = "subprocess"
    designs: tuple[str, ...] = DESIGNS
    step_loops: int = 8
    time_limit_s: float = 900.0
    difficulty: str = "medium"
    policy: str = "scripted"
    maps: tuple[str, ...] | None = None
    seed: int = 0
    affinity: str = "auto"
    extra_task_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.workers * self.envs_per_worker

    def task_kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {
            "step_loops": self.step_loops,
            "time_limit_s": self.time_limit_s,
            "opponent": {"difficulty": self.difficulty},
            "scripted": self.policy == "scripted",
        }
        if self.maps:
            kw["map"] = list(self.maps)
        kw.update(self.extra_task_kwargs)
        return kw

    def check(self) -> None:
        if self.workers < 1 or self.envs_per_worker < 1:
            raise ValueError(f"--workers and --envs-per-worker must be >= 1, got {self.workers} and {self.envs_per_worker}")
        if not self.seconds > 0:
            raise ValueError(f"--seconds must be > 0, got {self.seconds}")
        if self.engine not in ("subprocess", "inprocess"):
            raise ValueError(f"--engine must be subprocess or inprocess, got {self.engine!r}")
        bad = [d for d in self.designs if d not in DESIGNS]
        if bad or not self.designs:
            raise ValueError(f"--designs must name some of {', '.join(DESIGNS)}, got {','.join(self.designs)!r}")
        if self.policy not in ("scripted", "random"):
            raise ValueError(f"--policy must be scripted or random, got {self.policy!r}")
        if self.affinity not in ("auto", "none"):
            raise ValueError(f"--affinity must be auto or none, got {self.affinity!r}")
        # the task checks its own options (step_loops, time limit, opponent, maps) with clear errors
        from workers.sc2.tasks.base import make_task

        make_task("Melee", {**self.task_kwargs(), "scripted": False})


class SyncEnvFactory:
    """Picklable factory for ``SubprocVecEnv`` (burnysc2 is imported in the child only)."""

    def __init__(self, task_kwargs: dict[str, Any], engine: str) -> None:
        self.task_kwargs = task_kwargs
        self.engine = engine

    def __call__(self) -> Any:
        from workers.sc2.bench_host import SyncSC2Env

        return SyncSC2Env("Melee", self.task_kwargs, self.engine)


class Reaper:
    """Every process below this one seen while a design ran; whatever of them is still running
    after the design's own ``close`` is killed. Snapshots are taken once the games are up, so a
    game process whose parent died first (reparented away from this tree) is still known.
    multiprocessing's own forkserver and resource tracker are not ours to end: a later
    ``SubprocVecEnv`` in this process reuses them."""

    def __init__(self) -> None:
        import psutil

        self._me = psutil.Process()
        self._seen: dict[int, Any] = {}

    def snapshot(self) -> None:
        import psutil

        from sc2pool.bench.pool import _helper_process

        for p in self._me.children(recursive=True):
            if p.pid in self._seen or _helper_process(p, self._me.pid):
                continue
            try:
                p.create_time()  # psutil remembers it: a reused pid is not mistaken for ours
            except psutil.Error:
                continue
            self._seen[p.pid] = p

    def kill_left(self, grace: float = 5.0) -> list[str]:
        """Kill what is left of the snapshots (after ``grace`` seconds for them to exit on their
        own); returns a description of each process that had to be killed."""
        import psutil

        self.snapshot()
        alive = []
        for p in self._seen.values():
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
            except psutil.Error:
                pass
        if alive:
            _, alive = psutil.wait_procs(alive, timeout=grace)
        killed = []
        for p in alive:
            try:
                killed.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
                p.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(alive, timeout=5)
        self._seen.clear()
        return killed




def _build(design: str, cfg: MeleeScaleConfig) -> tuple[Any, list[int]]:
    """The vector env of ``design`` and the env index of each host to ask for its trace."""
    if design == "pool":
        from sc2pool import LocalTuning, ZmqVecEnv
        from workers.host import HostSpec

        spec = HostSpec(HOST_TARGET, {"task": "Melee", "engine": cfg.engine, "task_kwargs": cfg.task_kwargs()})
        venv = ZmqVecEnv(host=spec, n_envs=cfg.games, n_workers=cfg.workers,
                         tuning=LocalTuning(cpu_affinity=None if cfg.affinity == "none" else "auto"))
        return venv, [w * cfg.envs_per_worker for w in range(cfg.workers)]
    import multiprocessing

    from stable_baselines3.common.vec_env import SubprocVecEnv

    # the forkserver imports SB3 (torch) and burnysc2 once, not each game's process again (start-up
    # only: the children run the same code either way); no effect once the forkserver runs
    multiprocessing.set_forkserver_preload(["stable_baselines3.common.vec_env.subproc_vec_env", "workers.sc2.bench_host"])
    factory = SyncEnvFactory(cfg.task_kwargs(), cfg.engine)
    return SubprocVecEnv([factory for _ in range(cfg.games)]), list(range(cfg.games))


def _close(venv: Any) -> None:
    try:
        venv.close()
    except Exception:  # noqa: BLE001 - a child already gone (Ctrl-C); the reaper finishes the job
        pass


def _traces(raw: Sequence[bytes], steps: int) -> np.ndarray:
    """(hosts, steps) seconds in the games per vector step: the last ``steps`` of each trace."""
    rows = []
    for b in raw:
        a = np.frombuffer(b, dtype=np.float64)
        if len(a) < steps:
            raise RuntimeError(f"a host recorded {len(a)} steps, the trainer made {steps}")
        rows.append(a[len(a) - steps:])
    return np.vstack(rows)


def _sum_stats(stats: Sequence[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for s in stats:
        for k in ("steps", "resets", "bridge", "game_loop", "reset"):
            out[k] = out.get(k, 0.0) + float(s.get(k, 0.0))
    return out


def measure(design: str, cfg: MeleeScaleConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Build ``design``'s vector env of ``cfg.games`` games, reset it, step it for ``cfg.seconds``
    of wall time and report; every process it started is gone when this returns or raises."""
    reaper = Reaper()
    venv = None
    t0 = time.perf_counter()
    try:
        venv, hosts = _build(design, cfg)
        built = time.perf_counter()
        venv.seed(cfg.seed)
        venv.reset()
        start_s = time.perf_counter() - t0
        reaper.snapshot()
        n = venv.num_envs
        if cfg.policy == "random":
            space = venv.action_space
            space.seed(cfg.seed)
            actions = [np.array([space.sample() for _ in range(n)]) for _ in range(512)]
        else:
            actions = [np.zeros(n, dtype=np.int64)]  # ignored by the scripted task
        before = list(venv.env_method("timing_stats", indices=hosts))
        game_pids = {int(p) for s in before for p in s.get("game_pids", [])}
        log(f"melee-scale {design}: {cfg.games} games{f' in {cfg.workers} workers' if design == 'pool' else ''} "
            f"up in {start_s:.1f} s; stepping for {cfg.seconds:.0f} s ...")
        ep_len = np.zeros(n, dtype=np.int64)
        lengths: list[int] = []
        results: dict[str, int] = {}
        wall: list[float] = []
        cpu0 = _tree_cpu()
        w0 = now = time.perf_counter()
        end = w0 + cfg.seconds
        k = 0
        while now < end:
            _, _, dones, infos = venv.step(actions[k % len(actions)])
            k += 1
            t = time.perf_counter()
            wall.append(t - now)
            now = t
            ep_len += 1
            for i in np.flatnonzero(dones):
                lengths.append(int(ep_len[i]))
                ep_len[i] = 0
                info = infos[i]
                key = str(info.get("game_result", "?"))
                if key == "Tie" and info.get("TimeLimit.truncated"):
                    key = "TimeLimit"
                results[key] = results.get(key, 0) + 1
        elapsed = now - w0
        cpu1 = _tree_cpu()
        reaper.snapshot()
        after = list(venv.env_method("timing_stats", indices=hosts))
        busy = _traces(venv.env_method("busy_trace", indices=hosts), len(wall))
    finally:
        if venv is not None:
            _close(venv)
        killed = reaper.kill_left()
    steps = len(wall)
    env_steps = steps * n
    trainer = np.asarray(wall)
    outside = trainer - busy.max(axis=0)
    cpu = {pid: v - cpu0.get(pid, 0.0) for pid, v in cpu1.items()}
    engine_cpu = sum(v for pid, v in cpu.items() if pid in game_pids)
    s0, s1 = _sum_stats(before), _sum_stats(after)
    game_steps = max(s1["steps"] - s0["steps"], 1.0)
    resets = int(s1["resets"] - s0["resets"])
    row: dict[str, Any] = {
        "design": design,
        "games": n,
        "workers": cfg.workers if design == "pool" else n,
        "envs_per_worker": cfg.envs_per_worker if design == "pool" else 1,
        "affinity": cfg.affinity if design == "pool" else "none",
        "env_steps_per_s": env_steps / elapsed,
        "vec_steps": steps,
        "env_steps": env_steps,
        "seconds": elapsed,
        "start_s": start_s,
        "build_s": built - t0,
        "episodes": len(lengths),
        "results": results,
        "episode_steps_mean": float(np.mean(lengths)) if lengths else None,
        "episode_steps_min": int(min(lengths)) if lengths else None,
        "episode_steps_max": int(max(lengths)) if lengths else None,
        "vec_step_ms_p50": float(np.percentile(trainer, 50) * 1e3),
        "vec_step_ms_p99": float(np.percentile(trainer, 99) * 1e3),
        "vec_step_ms_max": float(trainer.max() * 1e3),
        # the design's own path: wall time of a vector step outside the slowest host's games
        "own_share": float(outside.sum() / trainer.sum()),
        "own_ms_per_vec_step": float(outside.mean() * 1e3),
        "own_ms_p50": float(np.percentile(outside, 50) * 1e3),
        "game_ms_per_vec_step": float(busy.max(axis=0).mean() * 1e3),
        # inside the games, per env step (GameTimings summed over the games)
        "bridge_ms_per_step": 1e3 * (s1["bridge"] - s0["bridge"]) / game_steps,
        "game_loop_ms_per_step": 1e3 * (s1["game_loop"] - s0["game_loop"]) / game_steps,
        "resets": resets,
        "reset_ms_mean": 1e3 * (s1["reset"] - s0["reset"]) / resets if resets else None,
        "cpu_ms_per_step": 1e3 * sum(cpu.values()) / max(env_steps, 1),
        "engine_cpu_ms_per_step": 1e3 * engine_cpu / max(env_steps, 1) if game_pids else None,
        "left_behind_killed": killed,
    }
    log("  " + _line(row))
    return row


def run(cfg: MeleeScaleConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    cfg.check()
    rows = []
    load0 = os.getloadavg()[0]
    for design in cfg.designs:
        rows.append(measure(design, cfg, log))
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpus": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "niceness": os.nice(0),
        "load_before": load0,
        "load_after": os.getloadavg()[0],
        "config": {**asdict(cfg), "games": cfg.games, "task_kwargs": cfg.task_kwargs()},
        "rows": rows,
    }
    by = {r["design"]: r for r in rows}
    if "pool" in by and "subproc" in by:
        report["ratio_pool_vs_subproc"] = by["pool"]["env_steps_per_s"] / max(by["subproc"]["env_steps_per_s"], 1e-9)
    return report


def _fmt(v: Any, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def _line(r: dict[str, Any]) -> str:
    res = " ".join(f"{k}={v}" for k, v in sorted(r["results"].items())) or "none ended"
    return (f"{r['design']:<7} {r['games']} games/{r['workers']} procs  {r['env_steps_per_s']:8.1f} env steps/s  "
            f"{r['episodes']} episodes ({res})  own share {100 * r['own_share']:.1f}%")


def format_report(rep: dict[str, Any]) -> str:
    c = rep["config"]
    lines = [
        f"sc2pool melee scale benchmark {rep['when']}  cpus={rep['cpus']} (usable {rep['affinity_cpus']})  "
        f"nice={rep['niceness']}  load(1m) before/after={rep['load_before']:.2f}/{rep['load_after']:.2f}",
        f"Melee, {c['games']} games, engine={c['engine']}, step_loops={c['step_loops']}, time limit "
        f"{c['time_limit_s']:.0f} game s, Computer {c['difficulty']}, {c['policy']} actions, seed {c['seed']}, "
        f"{c['seconds']:.0f} s per design",
        "",
        "| design | games / processes | env steps/s | episodes ended (results) | steps per episode "
        "(mean, min-max) | own share of a step | own ms / vec step | games ms / vec step | CPU ms / env step "
        "(engine) | start s |",
        "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | --- | ---: |",
    ]
    for r in rep["rows"]:
        procs = f"{r['workers']} workers x {r['envs_per_worker']}" if r["design"] == "pool" else f"{r['workers']} x 1"
        if r["design"] == "pool" and r["affinity"] == "none":
            procs += " (unpinned)"
        res = ", ".join(f"{k} {v}" for k, v in sorted(r["results"].items())) or "-"
        eps = (f"{_fmt(r['episode_steps_mean'], '.0f')}, {_fmt(r['episode_steps_min'], 'd')}-"
               f"{_fmt(r['episode_steps_max'], 'd')}") if r["episodes"] else "-"
        lines.append(
            f"| {'ZmqVecEnv' if r['design'] == 'pool' else 'SubprocVecEnv'} | {r['games']} / {procs} | "
            f"{r['env_steps_per_s']:,.1f} | {r['episodes']} ({res}) | {eps} | {100 * r['own_share']:.1f}% | "
            f"{r['own_ms_per_vec_step']:.2f} | {r['game_ms_per_vec_step']:.2f} | {r['cpu_ms_per_step']:.2f} "
            f"({_fmt(r['engine_cpu_ms_per_step'], '.2f')}) | {r['start_s']:.1f} |"
        )
    if "ratio_pool_vs_subproc" in rep:
        lines.append("")
        lines.append(f"pool / SubprocVecEnv: {rep['ratio_pool_vs_subproc']:.2f}x env steps/s")
    lines.append("")
    lines.append("inside the games, per env step: " + "; ".join(
        f"{r['design']}: task+bridge {r['bridge_ms_per_step']:.2f} ms, burnysc2+engine {r['game_loop_ms_per_step']:.2f} ms, "
        f"{r['resets']} resets of {_fmt(r['reset_ms_mean'], '.0f')} ms" for r in rep["rows"]))
    left = [k for r in rep["rows"] for k in r["left_behind_killed"]]
    if left:
        lines.append("processes left behind after close (killed): " + "; ".join(left))
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    d = MeleeScaleConfig()
    p.add_argument("--workers", type=int, default=d.workers, help="pool workers (default %(default)s)")
    p.add_argument("--envs-per-worker", type=int, default=d.envs_per_worker,
                   help="games per pool worker (default %(default)s); SubprocVecEnv runs workers x this, one per process")
    p.add_argument("--seconds", type=float, default=d.seconds, help="wall seconds of stepping per design (default %(default)s)")
    p.add_argument("--engine", default=d.engine, choices=("subprocess", "inprocess"),
                   help="the engine as a game process per game (as real SC2) or inside the env's process")
    p.add_argument("--designs", default=",".join(d.designs), help="pool, subproc or both (default %(default)s)")
    p.add_argument("--step-loops", type=int, default=d.step_loops, help="game loops per env step (default %(default)s)")
    p.add_argument("--time-limit", type=float, default=d.time_limit_s, help="game seconds before a game is cut (default %(default)s)")
    p.add_argument("--difficulty", default=d.difficulty, help="the Computer's difficulty (default %(default)s)")
    p.add_argument("--policy", default=d.policy, choices=("scripted", "random"),
                   help="the task's scripted baseline (default) or uniform random actions")
    p.add_argument("--maps", default=None, help="comma-separated ladder maps (default: the task's list)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--affinity", default=d.affinity, choices=("auto", "none"),
                   help="pool workers pinned to a core each (auto, as sc2pool train) or left to the OS")
    p.add_argument("--json", default=None, help="also write the report as JSON to this path")


def config_from_args(a: argparse.Namespace) -> MeleeScaleConfig:
    return MeleeScaleConfig(
        workers=a.workers, envs_per_worker=a.envs_per_worker, seconds=a.seconds, engine=a.engine,
        designs=tuple(x.strip() for x in a.designs.split(",") if x.strip()), step_loops=a.step_loops,
        time_limit_s=a.time_limit, difficulty=a.difficulty, policy=a.policy,
        maps=tuple(m.strip() for m in a.maps.split(",") if m.strip()) if a.maps else None,
        seed=a.seed, affinity=a.affinity,
    )


def _terminate(signum: int, frame: Any) -> None:
    # SIGTERM ends the run like Ctrl-C: through every finally, which closes the envs and kills
    # what they left
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench_melee_scale.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    a = p.parse_args(argv)
    cfg = config_from_args(a)
    try:
        cfg.check()
    except Exception as exc:  # noqa: BLE001 - a bad option is reported, not a traceback
        print(f"bench_melee_scale: {exc}", file=sys.stderr)
        return 2
    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        rep = run(cfg, log=lambda s: print(s, file=sys.stderr, flush=True))
    except KeyboardInterrupt:
        print("bench_melee_scale: interrupted; every process it started is gone", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
    print(format_report(rep))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rep, f, indent=2)
        print(f"wrote {a.json}", file=sys.stderr)
    left = [k for r in rep["rows"] for k in r["left_behind_killed"]]
    return 1 if left else 0
