"""The worker program: ``python -m workers.main`` (the CLI of a worker process).

A trainer spawns its local workers with it, and a cluster launcher its remote ones (``--remote``).
The worker itself is :mod:`workers.worker` (its life: join, start, serve), built from
:mod:`workers.transport` (socket, lane, heartbeats), :mod:`workers.stepping` (what a request does
to the envs) and :mod:`workers.recovery` (failures as values, envs repaired in place). This module
also re-exports the names callers import from here.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from sc2pool.pool import affinity, security
from workers import layout
from workers.host import EnvHost, HostSpec
from workers.stepping import sync_step_of as _sync_step_of
from workers.transport import ReplyGap, spin_read
from workers.worker import (
    EXIT_BROKER_LOST,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_REFUSED,
    Worker,
    WorkerConfig,
    run_worker,
)

__all__ = [
    "EXIT_BROKER_LOST", "EXIT_FAILED", "EXIT_OK", "EXIT_REFUSED", "ReplyGap", "Worker", "WorkerConfig",
    "_sync_step_of", "run_worker", "spin_read",
]


# --------------------------------------------------------------------------- local spawn entry
def _recipe_curve(spec: Any) -> security.WorkerCurveConfig | None:
    """The ephemeral CURVE keys a CURVE pool hands its local workers on stdin."""
    if not spec:
        return None
    return security.WorkerCurveConfig(
        keypair=security.KeyPair(public=spec["public"], secret=spec["secret"]), server_public_key=spec["server"]
    )


def _local_main(argv: list[str] | None = None) -> int:
    """Entry point of a worker spawned by ZmqVecEnv (``python -m workers.main``), or on a cluster
    node by a launcher (``--remote``: it joins like ``sc2pool worker``, over tcp).

    The host recipe arrives on stdin (cloudpickle; this is process start-up on the same machine,
    never the network): either env factories or a HostSpec.
    """
    parser = argparse.ArgumentParser(prog="python -m workers.main")
    parser.add_argument("--connect", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--heartbeat-interval", type=float, default=0.5)
    parser.add_argument("--parent-pid", type=int, default=None)
    parser.add_argument("--cleanup-dir", default=None)
    parser.add_argument("--log-level", default="WARNING")
    parser.add_argument("--lane-fd", type=int, default=None)
    parser.add_argument("--cpus", default=None, help="pin this worker (and what it starts) to these cores")
    parser.add_argument("--spin-us", type=float, default=0.0,
                        help="poll the lane this long after a reply before sleeping (a core of its own)")
    parser.add_argument(
        "--remote", action="store_true",
        help="started on a cluster node by a launcher (sc2pool.launchers): a remote worker, no shared memory",
    )
    parser.add_argument(
        layout.RESTORE_FLAG, action="store_true",
        help="started by workers.layout with a fixed address layout: randomise what this worker starts",
    )
    args = parser.parse_args(argv)
    if args.restore_aslr:
        layout.restore_randomization()  # SC2 games and the engine keep randomised layouts
    if args.cpus:
        # First thing: the heartbeat and ZeroMQ threads and any game process inherit the cores.
        try:
            affinity.pin_self(affinity.parse_cpu_list(args.cpus))
        except (OSError, ValueError) as exc:
            sys.stderr.write(f"sc2pool worker {args.name}: not pinned to cores {args.cpus}: {exc}\n")
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    payload = sys.stdin.buffer.read()
    sys.stdin.close()
    import cloudpickle

    # The outer recipe is a plain dict (env factories stay pickled bytes until make_host).
    recipe = cloudpickle.loads(payload)

    def make_host() -> EnvHost:
        for entry in reversed(recipe.get("sys_path", [])):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        if recipe["kind"] == "fns":
            from workers.gym_host import GymHost

            return GymHost(cloudpickle.loads(recipe["fns"]))
        spec = HostSpec(recipe["target"], recipe["kwargs"])
        return spec.build(num_envs=recipe["num_envs"], worker_index=args.index)

    cfg = WorkerConfig(
        endpoint=args.connect,
        make_host=make_host,
        name=args.name,
        heartbeat_interval=args.heartbeat_interval,
        local=not args.remote,
        parent_pid=args.parent_pid,
        cleanup_dir=args.cleanup_dir,
        lane_fd=args.lane_fd,
        token=recipe.get("token"),
        curve=_recipe_curve(recipe.get("curve")),
        spin_s=max(0.0, args.spin_us) / 1e6,
    )
    return run_worker(cfg)


if __name__ == "__main__":
    sys.exit(_local_main())
