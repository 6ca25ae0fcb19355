"""How fast a ZmqVecEnv notices a failed worker: the latencies the unit tests no longer assert.

    python benchmarks/bench_reliability.py --trials 30 --json reliability.json
    python benchmarks/bench_reliability.py --kinds kill9 --trials 100

Three faults, each injected ``--trials`` times into a fresh pool (policy ``on_failure="raise"``, so
every trial ends in the typed error and a closed pool), mid-run: the trainer keeps stepping and
the clock runs from the fault to the moment ``step()`` raises.

* ``kill9``        SIGKILL a local worker: ``WorkerDied`` (noticed from the exit status, so it should
                   not depend on the heartbeat timeout);
* ``sigstop``      SIGSTOP a local worker: ``WorkerTimeout`` once the worker has been silent for the
                   heartbeat timeout (the figure includes that timeout; ``excess`` is the rest);
* ``step_timeout`` an env whose step sleeps for an hour: ``WorkerTimeout`` naming ``step_timeout``
                   (from sending the step; ``excess`` is the time beyond ``--step-timeout``).

Reported per kind: p50, p99 and max over the trials (with few trials p99 is close to the max), and
the load average at the start and the end, since on a shared machine every figure grows with it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

KINDS = ("kill9", "sigstop", "step_timeout")


class SleepyEnv(gym.Env):  # type: ignore[type-arg]
    """Steps in no time, or sleep for ``delay`` seconds per step (a hung env)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (2,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(2)
        self.delay = delay

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        return np.zeros(2, np.float32), {}

    def step(self, action: Any) -> Any:
        if self.delay:
            time.sleep(self.delay)
        return np.zeros(2, np.float32), 0.0, False, False, {}


def make_sleepy(delay: float = 0.0) -> gym.Env:  # type: ignore[type-arg]
    return SleepyEnv(delay)


def _step_until_raises(pool: Any, expected: type[BaseException], start: float, limit: float) -> float:
    """Step ``pool`` until it raises ``expected``; seconds from ``start``. Anything else is an error."""
    acts = np.zeros(pool.num_envs, dtype=np.int64)
    while True:
        try:
            pool.step(acts)
        except expected:
            return time.monotonic() - start
        if time.monotonic() - start > limit:
            raise RuntimeError(f"no {expected.__name__} within {limit:g} s")


def trial(kind: str, hb: float, step_timeout: float, tmpdir: str) -> float:
    """One fault in a fresh pool; the detection latency in seconds."""
    from sc2pool import Timeouts, ZmqVecEnv
    from sc2pool.errors import WorkerDied, WorkerTimeout

    os.environ["SC2POOL_TMPDIR"] = tmpdir
    limit = 10 * max(hb, step_timeout) + 30  # a hang, not a figure
    if kind == "step_timeout":
        pool = ZmqVecEnv(env_fns=[partial(make_sleepy, 3600.0)], n_workers=1,
                         timeouts=Timeouts(step=step_timeout, heartbeat=hb))
        try:
            pool.reset()
            return _step_until_raises(pool, WorkerTimeout, time.monotonic(), limit)
        finally:
            pool.close()
    pool = ZmqVecEnv(env_fns=[make_sleepy] * 4, n_workers=2,
                     timeouts=Timeouts(heartbeat=hb, heartbeat_interval=min(0.5, hb / 4)))
    victim = pool.worker_pids[1]
    try:
        pool.reset()
        for _ in range(20):
            pool.step(np.zeros(4, dtype=np.int64))
        os.kill(victim, signal.SIGKILL if kind == "kill9" else signal.SIGSTOP)
        expected: type[BaseException] = WorkerDied if kind == "kill9" else WorkerTimeout
        return _step_until_raises(pool, expected, time.monotonic(), limit)
    finally:
        pool.close()
        try:  # close() kills a stopped worker; make sure of it
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass


def summarise(xs: list[float], offset: float) -> dict[str, float]:
    a = np.array(xs)
    return {
        "trials": len(xs),
        "p50_s": float(np.percentile(a, 50)),
        "p99_s": float(np.percentile(a, 99)),
        "max_s": float(a.max()),
        "excess_p50_s": float(np.percentile(a, 50) - offset),
        "excess_p99_s": float(np.percentile(a, 99) - offset),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=int, default=30, help="faults per kind (default 30)")
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    p.add_argument("--heartbeat-timeout", type=float, default=2.0, help="seconds (default 2.0)")
    p.add_argument("--step-timeout", type=float, default=0.5, help="seconds (default 0.5)")
    p.add_argument("--json", help="also write the report here")
    args = p.parse_args(argv)

    import tempfile

    report: dict[str, Any] = {
        "heartbeat_timeout_s": args.heartbeat_timeout,
        "step_timeout_s": args.step_timeout,
        "loadavg_start": os.getloadavg(),
        "cpus": len(os.sched_getaffinity(0)),
        "kinds": {},
    }
    offsets: dict[str, Callable[[], float]] = {
        "kill9": lambda: 0.0,
        "sigstop": lambda: args.heartbeat_timeout,
        "step_timeout": lambda: args.step_timeout,
    }
    with tempfile.TemporaryDirectory(prefix="sc2pool-rel-") as tmp:
        for kind in args.kinds:
            xs = []
            for i in range(args.trials):
                xs.append(trial(kind, args.heartbeat_timeout, args.step_timeout, tmp))
                print(f"\r{kind}: {i + 1}/{args.trials}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            report["kinds"][kind] = summarise(xs, offsets[kind]())
    report["loadavg_end"] = os.getloadavg()

    print(f"detection latency over {args.trials} trials per fault (heartbeat timeout {args.heartbeat_timeout:g} s, "
          f"step_timeout {args.step_timeout:g} s; load {report['loadavg_start'][0]:.1f} -> "
          f"{report['loadavg_end'][0]:.1f} on {report['cpus']} cpus)")
    print(f"{'fault':<14}{'p50 s':>8}{'p99 s':>8}{'max s':>8}{'excess p50':>12}{'excess p99':>12}")
    for kind, r in report["kinds"].items():
        print(f"{kind:<14}{r['p50_s']:>8.3f}{r['p99_s']:>8.3f}{r['max_s']:>8.3f}"
              f"{r['excess_p50_s']:>12.3f}{r['excess_p99_s']:>12.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
