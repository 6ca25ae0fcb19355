"""A trainer stand-in for reliability tests, run as its own process (possibly inside a namespace).

It builds a ZmqVecEnv through the public API, steps it with random actions and reports on stdout
as JSON lines, so a test can watch it from outside and a crash of the trainer (e.g. a decoder
segfault) is a clean test failure instead of the end of the pytest session:

    {"event": "ready", "endpoints": [...], "pids": [...]}
    {"event": "progress", "steps": N, "stats": {...}}       every --every seconds
    {"event": "error", "type": "...", "message": "..."}     the pool raised; exit status 1
    {"event": "closed", "steps": N, "stats": {...}}        after stdin reached EOF; exit status 0

It stops when its stdin closes (the test ended or died), so it cannot outlive the test.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
import time
from typing import Any


def emit(**fields: Any) -> None:
    print(json.dumps(fields, default=str), flush=True)


def stdin_closed() -> bool:
    r, _, _ = select.select([sys.stdin], [], [], 0)
    return bool(r) and os.read(sys.stdin.fileno(), 1) == b""


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--bind", default=None)
    p.add_argument("--env", default="CartPole-v1")
    p.add_argument("--envs", type=int, default=2)
    p.add_argument("--local-workers", type=int, default=1)
    p.add_argument("--local-envs", type=int, default=None)
    p.add_argument("--heartbeat-timeout", type=float, default=3.0)
    p.add_argument("--join-timeout", type=float, default=30.0)
    p.add_argument("--every", type=float, default=0.2)
    p.add_argument("--on-failure", default="raise", choices=["raise", "restart"])
    p.add_argument("--replace-timeout", type=float, default=60.0)
    p.add_argument("--curve", default=None, help="keys directory (sc2pool keygen DIR)")
    p.add_argument("--allow-insecure-remote", action="store_true")
    args = p.parse_args()

    from sc2pool.pool.vec_env import ZmqVecEnv

    kwargs: dict[str, Any] = {
        "env": args.env,
        "n_envs": args.envs,
        "n_local_workers": args.local_workers,
        "heartbeat_timeout": args.heartbeat_timeout,
        "heartbeat_interval": min(0.5, args.heartbeat_timeout / 4),
        "join_timeout": args.join_timeout,
        "on_failure": args.on_failure,
        "curve": args.curve,
        "allow_insecure_remote": args.allow_insecure_remote,
    }
    if args.on_failure == "restart":
        kwargs.update(replace_timeout=args.replace_timeout, max_restarts=None)
    if args.bind:
        kwargs["bind"] = args.bind
        kwargs["n_local_envs"] = args.local_envs if args.local_envs is not None else args.local_workers
    env = ZmqVecEnv(**kwargs)
    steps = 0
    restarted = 0  # env episodes ended by a restart (info flag)
    try:
        emit(event="ready", endpoints=env.endpoints, pids=env.worker_pids)
        env.action_space.seed(0)
        env.reset()
        next_report = time.monotonic() + args.every
        while not stdin_closed():
            actions = [env.action_space.sample() for _ in range(env.num_envs)]
            try:
                infos = env.step(actions)[3]  # type: ignore[arg-type]
            except Exception as exc:
                emit(event="error", type=type(exc).__name__, message=str(exc), steps=steps, stats=env.stats,
                     restarts=env.restart_counts)
                return 1
            steps += 1
            restarted += sum(1 for info in infos if info.get("sc2pool.restarted"))
            if time.monotonic() >= next_report:
                emit(event="progress", steps=steps, stats=env.stats, restarts=env.restart_counts,
                     restarted=restarted, workers=[w.name for w in env.workers])
                next_report += args.every
        emit(event="closed", steps=steps, stats=env.stats)
        return 0
    finally:
        env.close()


if __name__ == "__main__":
    sys.exit(main())
