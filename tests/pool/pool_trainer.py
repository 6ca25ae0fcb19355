"""A trainer process for the pool tests: builds a ZmqVecEnv, prints its workers, steps forever.

Tests kill it (SIGKILL: workers must exit by themselves) or interrupt it (SIGINT: it must clean up).
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import signal
import sys

import numpy as np

from sc2pool import ZmqVecEnv


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", default=None)
    parser.add_argument("--n-envs", type=int, default=2)
    parser.add_argument("--local", type=int, default=2)
    parser.add_argument("--steps", type=int, default=-1, help="stop after this many steps, without close()")
    args = parser.parse_args()
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # tests dump our stacks if we hang
    # Model an interactive trainer: Ctrl-C raises KeyboardInterrupt even when this process inherited
    # SIGINT ignored (as everything started from a backgrounded non-interactive shell does, e.g. a CI
    # job run with `&`), which Python then leaves ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    kwargs = {}
    if args.bind:
        kwargs = {"bind": args.bind, "n_local_workers": args.local, "n_local_envs": args.local}
    else:
        kwargs = {"n_workers": args.local}
    venv = ZmqVecEnv(env="pool_envs:make_count", n_envs=args.n_envs, heartbeat_timeout=1.5, **kwargs)
    print(json.dumps({"pids": venv.worker_pids, "dir": venv._dir.path if venv._dir else None}), flush=True)
    venv.reset()
    actions = np.zeros(args.n_envs, dtype=np.int64)
    steps = 0
    while steps != args.steps:
        venv.step(actions)
        steps += 1
    return 0  # deliberately no venv.close(): interpreter exit must clean up


if __name__ == "__main__":
    sys.exit(main())
