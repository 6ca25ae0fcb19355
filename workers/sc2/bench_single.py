"""Worker-side measurement of one game stepped without the pool (the benchmark's reference).

``python -m workers.sc2.bench_single --task MoveToBeacon --engine subprocess --seconds 3`` prints
one JSON object: env steps/s of a single game driven directly by an ``SC2EnvHost`` in this
process, and where a step's time goes (ms per step): the engine (its process's CPU time, or its
in-process handler time), burnysc2 plus transport, and the task/bridge code. Resets are included
as they happen (SB3-style auto-reset), and reset latency is reported separately.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

import numpy as np

from workers.sc2.host import SC2EnvHost


async def measure(
    task: str, engine: str, seconds: float, warmup: float = 0.5, seed: int = 0, barrier: bool = False
) -> dict[str, Any]:
    host = SC2EnvHost(1, task=task, engine=engine)
    try:
        await host.start()
        await host.reset([0], [seed], [None])
        space = host.action_space
        space.seed(seed)
        actions = [space.sample() for _ in range(1024)]
        proc = None
        pids = host.timing_stats()["game_pids"]
        if pids:
            import psutil

            proc = psutil.Process(pids[0])

        async def run(duration: float) -> int:
            n = 0
            end = time.perf_counter() + duration
            while time.perf_counter() < end:
                (res,) = await host.step([actions[n % len(actions)]])
                n += 1
                if res.terminated or res.truncated:
                    await host.reset([0], [None], [None])
            return n

        await run(warmup)
        if barrier:
            # Several games measured "at once" must measure the same window: say READY, wait for GO
            # (their launches take different times; an early window would run on an idle machine).
            print("READY", flush=True)
            if sys.stdin.readline().strip() != "GO":
                raise RuntimeError("bench_single --barrier: expected GO on stdin")
        before = host.timing_stats()
        cpu0 = _cpu(proc)
        wall0, pcpu0 = time.perf_counter(), time.process_time()
        steps = await run(seconds)
        wall, pcpu = time.perf_counter() - wall0, time.process_time() - pcpu0
        after = host.timing_stats()
        engine_s = (_cpu(proc) - cpu0) if proc is not None else after["engine_inprocess"] - before["engine_inprocess"]
        bridge_s = after["bridge"] - before["bridge"]
        resets = after["resets"] - before["resets"]
        per = 1e3 / max(steps, 1)
        return {
            "task": task,
            "engine": engine,
            "steps": steps,
            "seconds": wall,
            "rate": steps / wall,
            "ms_per_step": wall * per,
            "engine_ms": engine_s * per,
            "bridge_ms": bridge_s * per,
            # worker-process CPU not spent in the task code (or the in-process engine): burnysc2
            # (protocol, parsing, BotAI state) and the transport on the client side.
            "burnysc2_ms": max(0.0, pcpu - bridge_s - (engine_s if proc is None else 0.0)) * per,
            "resets": resets,
            "reset_ms_mean": (after["reset"] - before["reset"]) / resets * 1e3 if resets else float("nan"),
        }
    finally:
        await host.close()


def _cpu(proc: Any) -> float:
    if proc is None:
        return 0.0
    try:
        t = proc.cpu_times()
        return float(t.user + t.system)
    except Exception:  # noqa: BLE001 - process gone
        return 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--task", default="MoveToBeacon")
    p.add_argument("--engine", default="subprocess", choices=("subprocess", "inprocess"))
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--barrier", action="store_true", help="after the warm-up print READY and wait for GO on stdin")
    a = p.parse_args(argv)
    out = asyncio.run(measure(a.task, a.engine, a.seconds, seed=a.seed, barrier=a.barrier))
    print(json.dumps({k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in out.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
