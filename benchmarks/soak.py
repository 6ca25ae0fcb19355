"""Soak run: step a ZmqVecEnv for a long time while injecting random faults; report what survived.

    python benchmarks/soak.py --minutes 30 --envs 8 --workers 4 --fault-rate 6 --seed 0 --json soak.json
    python benchmarks/soak.py --task MoveToBeacon --minutes 15 --envs 4 --workers 2 --json soak-sc2.json

``--task`` soaks StarCraft II games instead of a gymnasium env: a game process per env (the embedded
engine unless ``SC2PATH`` names a real install), workers that relaunch a crashed game themselves
(``on_game_crash="relaunch"``, as ``sc2pool train`` sets with the restart policy), random actions.

Faults (a Poisson process, ``--fault-rate`` per minute on average, kinds chosen uniformly from
``--faults``):

* ``kill9``   SIGKILL a random local worker process (a crash);
* ``stop``    SIGSTOP a random worker for ``--stop-seconds`` then SIGCONT it (a hang; longer than
              the heartbeat timeout means the pool must treat it as dead, shorter must be ridden out);
* ``game``    SIGKILL a random child process of a random worker (the game under it); recorded as
              skipped when the workers host no child processes (plain gymnasium envs).

The report: env steps and rate, faults by kind, restarts (from the pool's counters and from the
per-env info flags), truncated-by-restart episodes, lost env slots (must be 0), trainer and worker
RSS at start and end (and a time series), leaked processes after ``close()``. Printed, and written
as JSON with ``--json``.

The pool runs with the restart policy (``FailurePolicy("restart")``), which is what surviving faults
needs. ``--no-restart`` runs it with ``on_failure="raise"`` instead: the first fault ends the run
and the report records the typed error the pool raised (a check of the injector and of the failure
path end to end). ``--fault-rate 0`` is a fault-free baseline (throughput and memory over time).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import psutil

FAULT_KINDS = ("kill9", "stop", "game")


@dataclass
class FaultRecord:
    t: float  # seconds since the soak started
    kind: str
    pid: int | None
    outcome: str  # 'injected', 'skipped: ...', 'failed: ...'


@dataclass
class MemorySample:
    t: float
    trainer_rss_mb: float
    workers_rss_mb: float
    n_worker_procs: int


@dataclass
class SoakReport:
    config: dict[str, Any]
    restart_policy: bool
    started_at: float
    duration_s: float = 0.0
    env_steps: int = 0
    vec_steps: int = 0
    steps_per_s: float = 0.0
    episodes_finished: int = 0
    restart_truncations: int = 0  # episodes ended by a restart (info flag)
    pool_restarts: dict[str, int] = field(default_factory=dict)  # the pool's own counters
    faults: list[FaultRecord] = field(default_factory=list)
    faults_by_kind: dict[str, int] = field(default_factory=dict)
    faults_skipped: dict[str, int] = field(default_factory=dict)
    lost_env_slots: list[int] = field(default_factory=list)
    pool_stats: dict[str, int] = field(default_factory=dict)
    memory: list[MemorySample] = field(default_factory=list)
    leaked_processes: list[str] = field(default_factory=list)
    stopped_by: str = "deadline"  # or the typed error that ended the run
    ok: bool = False


# ----------------------------------------------------------------------------------- utilities


def rss_mb(pids: list[int]) -> tuple[float, int]:
    """Total RSS (MB) of ``pids`` and all their descendants, and how many processes that is."""
    seen: set[int] = set()
    total = 0
    for pid in pids:
        try:
            p = psutil.Process(pid)
            procs = [p, *p.children(recursive=True)]
        except psutil.Error:
            continue
        for q in procs:
            if q.pid in seen:
                continue
            try:
                total += q.memory_info().rss
                seen.add(q.pid)
            except psutil.Error:
                pass
    return total / 2**20, len(seen)


def env_slot_coverage(env: Any) -> list[int]:
    """Global env indices that no live worker hosts (the 'lost env slots')."""
    covered: set[int] = set()
    for w in env.workers:
        covered.update(int(i) for i in w.env_indices)
    return sorted(set(range(env.num_envs)) - covered)


def count_restart_flags(infos: list[dict[str, Any]]) -> int:
    """Episodes the pool ended because of a restart (``info["sc2pool.restarted"]``)."""
    return sum(1 for info in infos if info.get("sc2pool.restarted"))


# ------------------------------------------------------------------------------- fault injector


class FaultInjector(threading.Thread):
    """Injects faults into worker processes at Poisson-distributed times.

    It never touches the env object (not thread-safe); the stepping loop publishes the current
    worker pids through :meth:`set_targets`.
    """

    def __init__(
        self, rate_per_min: float, kinds: tuple[str, ...], stop_seconds: float, rng: random.Random, t0: float
    ) -> None:
        super().__init__(name="soak-faults", daemon=True)
        self.rate = rate_per_min
        self.kinds = kinds
        self.stop_seconds = stop_seconds
        self.rng = rng
        self.t0 = t0
        self.records: list[FaultRecord] = []
        self._targets: list[int] = []
        self._lock = threading.Lock()
        self._halt = threading.Event()
        self._stopped: set[int] = set()

    def set_targets(self, pids: list[int]) -> None:
        with self._lock:
            self._targets = list(pids)

    def halt(self) -> None:
        self._halt.set()
        if self.ident is not None:  # started
            self.join(timeout=self.stop_seconds + 5)
        for pid in list(self._stopped):  # never leave a process stopped
            _signal(pid, signal.SIGCONT)

    def _record(self, kind: str, pid: int | None, outcome: str) -> None:
        self.records.append(FaultRecord(round(time.monotonic() - self.t0, 3), kind, pid, outcome))

    def run(self) -> None:
        if self.rate <= 0:
            return
        while not self._halt.wait(self.rng.expovariate(self.rate / 60.0)):
            kind = self.rng.choice(self.kinds)
            with self._lock:
                targets = list(self._targets)
            if not targets:
                self._record(kind, None, "skipped: no local worker process")
                continue
            pid = self.rng.choice(targets)
            if kind == "kill9":
                self._record(kind, pid, _signal(pid, signal.SIGKILL))
            elif kind == "stop":
                outcome = _signal(pid, signal.SIGSTOP)
                self._record(kind, pid, outcome)
                if outcome == "injected":
                    self._stopped.add(pid)
                    self._halt.wait(self.stop_seconds)
                    _signal(pid, signal.SIGCONT)
                    self._stopped.discard(pid)
            elif kind == "game":
                try:
                    children = psutil.Process(pid).children(recursive=True)
                except psutil.Error:
                    children = []
                if not children:
                    self._record(kind, pid, "skipped: worker has no game process")
                    continue
                child = self.rng.choice(children)
                self._record(kind, child.pid, _signal(child.pid, signal.SIGKILL))


def _signal(pid: int, sig: int) -> str:
    try:
        os.kill(pid, sig)
        return "injected"
    except ProcessLookupError:
        return "skipped: process already gone"
    except PermissionError as e:
        return f"failed: {e}"


# ----------------------------------------------------------------------------------------- run


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=30.0, help="how long to step (default 30)")
    p.add_argument("--envs", type=int, default=8, help="number of envs (default 8)")
    p.add_argument("--workers", type=int, default=4, help="local worker processes (default 4)")
    p.add_argument("--fault-rate", type=float, default=6.0, help="faults per minute on average (default 6)")
    p.add_argument("--faults", default=",".join(FAULT_KINDS), help=f"comma list of {FAULT_KINDS}")
    p.add_argument("--stop-seconds", type=float, default=8.0, help="SIGSTOP duration (default 8 s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--env", default="CartPole-v1", help="gymnasium id or module:factory (default CartPole-v1)"
    )
    p.add_argument(
        "--task", default=None, help="soak StarCraft II games of this task (e.g. MoveToBeacon) instead of --env"
    )
    p.add_argument("--max-restarts", type=int, default=1_000_000, help="FailurePolicy(max_restarts=) of the pool")
    p.add_argument("--heartbeat-timeout", type=float, default=5.0)
    p.add_argument("--sample-every", type=float, default=30.0, help="seconds between memory samples")
    p.add_argument("--json", default=None, help="write the report here")
    p.add_argument(
        "--no-restart",
        action="store_true",
        help="run with on_failure='raise': the first fault ends the run with the pool's typed error",
    )
    args = p.parse_args(argv)
    kinds = tuple(k.strip() for k in args.faults.split(",") if k.strip())
    bad = [k for k in kinds if k not in FAULT_KINDS]
    if bad or not kinds:
        p.error(f"--faults: unknown kind(s) {bad}; choose from {FAULT_KINDS}")
    args.fault_kinds = kinds
    if args.workers < 1 or args.envs < args.workers:
        p.error("need 1 <= --workers <= --envs")
    return args


def make_env(args: argparse.Namespace, restart: bool) -> Any:
    from sc2pool.options import FailurePolicy, Timeouts
    from sc2pool.pool.vec_env import ZmqVecEnv

    kwargs: dict[str, Any] = {
        "n_envs": args.envs,
        "n_workers": args.workers,
        "timeouts": Timeouts(heartbeat=args.heartbeat_timeout),
    }
    if args.task:
        from sc2pool.training.train import host_spec

        extra = {"on_game_crash": "relaunch"} if restart else {}
        kwargs["host"] = host_spec(args.task, "subprocess", **extra)
    else:
        kwargs["env"] = args.env
    if restart:
        kwargs["failure"] = FailurePolicy("restart", max_restarts=args.max_restarts)
    return ZmqVecEnv(**kwargs)


def soak(args: argparse.Namespace) -> SoakReport:
    restart = not args.no_restart
    report = SoakReport(
        config={k: v for k, v in vars(args).items() if k != "fault_kinds"},
        restart_policy=restart,
        started_at=time.time(),
    )
    rng = random.Random(args.seed)
    me = psutil.Process()
    env = make_env(args, restart=restart)
    t0 = time.monotonic()
    injector = FaultInjector(args.fault_rate, args.fault_kinds, args.stop_seconds, rng, t0)
    try:
        env.action_space.seed(args.seed)
        env.seed(args.seed)
        env.reset()
        worker_pids = list(env.worker_pids)

        def sample() -> None:
            w, n = rss_mb(worker_pids)
            report.memory.append(
                MemorySample(round(time.monotonic() - t0, 1), me.memory_info().rss / 2**20, w, n)
            )

        sample()
        injector.set_targets(worker_pids)
        injector.start()
        deadline = t0 + args.minutes * 60.0
        next_sample = time.monotonic() + args.sample_every
        actions = np.stack([env.action_space.sample() for _ in range(env.num_envs)])
        while time.monotonic() < deadline:
            try:
                _, _, dones, infos = env.step(actions)
            except Exception as e:  # the typed error a pool without restart raises
                report.stopped_by = f"{type(e).__module__}.{type(e).__name__}: {str(e).splitlines()[0]}"
                break
            report.vec_steps += 1
            report.env_steps += env.num_envs
            report.episodes_finished += int(np.count_nonzero(dones))
            report.restart_truncations += count_restart_flags(infos)
            if report.vec_steps % 64 == 0:
                actions = np.stack([env.action_space.sample() for _ in range(env.num_envs)])
                worker_pids = list(env.worker_pids)
                injector.set_targets(worker_pids)
            if time.monotonic() >= next_sample:
                sample()
                next_sample += args.sample_every
        injector.halt()
        report.duration_s = round(time.monotonic() - t0, 2)
        worker_pids = list(env.worker_pids) if not env.closed else []
        sample()
        report.pool_restarts = dict(env.restart_counts)
        report.pool_stats = dict(env.stats)
        report.lost_env_slots = env_slot_coverage(env) if not env.closed else list(range(env.num_envs))
    finally:
        injector.halt()
        all_pids = {p.pid for p in me.children(recursive=True)}
        env.close()
        # anything that outlives close() by 5 s is a leak
        gone, alive = psutil.wait_procs(
            [psutil.Process(p) for p in all_pids if psutil.pid_exists(p)], timeout=5
        )
        report.leaked_processes = [f"{p.pid} {p.name()}" for p in alive if p.is_running()]
        for p in alive:
            p.kill()
    report.faults = injector.records
    injected = [f for f in injector.records if f.outcome == "injected"]
    report.faults_by_kind = dict(Counter(f.kind for f in injected))
    report.faults_skipped = dict(Counter(f.kind for f in injector.records if f.outcome != "injected"))
    report.steps_per_s = round(report.env_steps / report.duration_s, 1) if report.duration_s else 0.0
    report.ok = (
        report.stopped_by == "deadline"
        and not report.lost_env_slots
        and not report.leaked_processes
    )
    return report


def print_report(r: SoakReport) -> None:
    m0 = r.memory[0] if r.memory else None
    m1 = r.memory[-1] if r.memory else None
    rows = [
        ("restart policy", "yes" if r.restart_policy else "no (--no-restart)"),
        ("duration", f"{r.duration_s:.0f} s"),
        ("env steps", f"{r.env_steps} ({r.steps_per_s:.0f}/s)"),
        ("episodes finished", str(r.episodes_finished)),
        ("faults injected", ", ".join(f"{k}={v}" for k, v in sorted(r.faults_by_kind.items())) or "0"),
        ("faults skipped", ", ".join(f"{k}={v}" for k, v in sorted(r.faults_skipped.items())) or "0"),
        (
            "restarts (pool)",
            str(sum(r.pool_restarts.values())) + (f" {r.pool_restarts}" if r.pool_restarts else ""),
        ),
        ("episodes truncated by restart", str(r.restart_truncations)),
        ("lost env slots", str(len(r.lost_env_slots)) + (f" {r.lost_env_slots}" if r.lost_env_slots else "")),
        (
            "trainer RSS start -> end",
            f"{m0.trainer_rss_mb:.0f} -> {m1.trainer_rss_mb:.0f} MB" if m0 and m1 else "-",
        ),
        (
            "workers RSS start -> end",
            f"{m0.workers_rss_mb:.0f} -> {m1.workers_rss_mb:.0f} MB" if m0 and m1 else "-",
        ),
        ("leaked processes", str(len(r.leaked_processes))),
        ("stopped by", r.stopped_by),
        ("verdict", "OK" if r.ok else "FAIL"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = soak(args)
    print_report(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(asdict(report), f, indent=2)
        print(f"report written to {args.json}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
