"""``sc2pool worker``: start a worker that joins a trainer's pool over the network.

    sc2pool worker --connect tcp://trainer:5555 --env CartPole-v1 --envs 4
    sc2pool worker --connect tcp://trainer:5555 --env mypkg.envs:make_env --env-kwargs '{"level": 3}'
    sc2pool worker --connect tcp://trainer:5555 --task MoveToBeacon --envs 2      # StarCraft II games
    sc2pool worker --connect tcp://trainer:5555 --host workers.sc2.host:make_host --host-kwargs '{...}' --envs 2

``--task NAME`` is the short form of ``--host workers.sc2.host:make_host`` with ``{"task": NAME}``
(plus ``--task-kwargs``, ``--engine``, ``--on-game-crash``): what ``sc2pool train --bind`` waits for.

The worker builds its envs itself from an import path (nothing is pickled on the network),
announces them (HELLO), and serves the trainer until it closes the pool, refuses the worker, or
goes silent (then the worker exits by itself).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from sc2pool.cli.args import RawDescriptionDefaultsHelpFormatter


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "worker",
        help="run a worker process that joins a ZmqVecEnv over the network",
        description=__doc__,
        formatter_class=RawDescriptionDefaultsHelpFormatter,
    )
    p.add_argument("--connect", required=True, help="broker endpoint, e.g. tcp://trainer-host:5555")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--env", help="'module:factory' (called once per env) or a gymnasium env id")
    what.add_argument("--host", help="'module:factory' returning an EnvHost (HostSpec target)")
    what.add_argument("--task", help="StarCraft II games of this task (a name or 'module:Class')")
    p.add_argument("--task-kwargs", default=None, help="with --task: JSON object of task constructor arguments")
    p.add_argument(
        "--engine", choices=("subprocess", "inprocess"), default=None,
        help="with --task: subprocess (default; a game process per env: the embedded engine, or real SC2 when "
        "$SC2PATH is set) or inprocess (embedded engine inside the worker)",
    )
    p.add_argument(
        "--on-game-crash", choices=("raise", "relaunch"), default=None,
        help="with --task: relaunch a crashed game inside the worker (as `sc2pool train --on-failure restart` "
        "does for its local workers) or report it (default)",
    )
    p.add_argument(
        "--render", action="store_true",
        help="with --task: build the games with render_mode='rgb_array' (what a rendering trainer needs)",
    )
    p.add_argument("--render-size", type=int, default=None, metavar="PX", help="with --task --render: picture size")
    p.add_argument("--env-kwargs", default="{}", help="JSON object of keyword arguments for --env")
    p.add_argument("--host-kwargs", default="{}", help="JSON object of keyword arguments for --host (or --task)")
    p.add_argument("--envs", type=int, default=1, help="number of envs this worker hosts (default 1)")
    p.add_argument("--name", default="", help="worker id (default: hostname:pid); must be unique in the pool")
    p.add_argument("--index", type=int, default=0, help="worker_index passed to the host factory")
    p.add_argument("--heartbeat-interval", type=float, default=0.5, help="seconds between pings")
    p.add_argument(
        "--connect-timeout", type=float, default=600.0,
        help="exit if no broker answers within this many seconds (default 600)",
    )
    p.add_argument(
        "--curve-secret", default=None, metavar="FILE",
        help="CurveZMQ: this worker's secret key file (sc2pool keygen DIR --name NAME); needs --curve-server-key",
    )
    p.add_argument(
        "--curve-server-key", default=None, metavar="FILE",
        help="CurveZMQ: the broker's public key file (DIR/broker.key); the worker talks to no other broker",
    )
    p.add_argument(
        "--cpus", default=None, metavar="LIST",
        help="pin this worker and the games it launches to these cores, e.g. 3 or 0,2-4 (taskset -c syntax)",
    )
    p.add_argument("--log-level", default="INFO")
    p.set_defaults(func=_run)


def _json_obj(text: str, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SystemExit(f"sc2pool worker: {flag} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise SystemExit(f"sc2pool worker: {flag} must be a JSON object, got {type(value).__name__}")
    return value


def _check_endpoint(endpoint: str) -> None:
    """Refuse a malformed ``--connect`` with its reason (ZeroMQ connects lazily: nothing is sent)."""
    import zmq

    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    try:
        sock.connect(endpoint)
    except zmq.ZMQError as exc:
        raise SystemExit(f"sc2pool worker: --connect {endpoint!r} is not a usable endpoint ({exc.strerror}); "
                         "expected e.g. tcp://trainer-host:5555") from None
    finally:
        sock.close(linger=0)
        ctx.term()


def _task_host_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kwargs = _json_obj(args.host_kwargs, "--host-kwargs")
    kwargs["task"] = args.task
    if args.task_kwargs is not None:
        kwargs["task_kwargs"] = _json_obj(args.task_kwargs, "--task-kwargs")
    if args.engine is not None:
        kwargs["engine"] = args.engine
    if args.on_game_crash is not None:
        kwargs["on_game_crash"] = args.on_game_crash
    if args.render:
        kwargs["render_mode"] = "rgb_array"
        if args.render_size is not None:
            kwargs["render_size"] = args.render_size
    return kwargs


def _run(args: argparse.Namespace) -> int:
    import logging

    from workers.host import HostSpec
    from workers.main import WorkerConfig, run_worker

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    _check_endpoint(args.connect)
    if args.envs < 1:
        raise SystemExit("sc2pool worker: --envs must be >= 1")
    if args.cpus is not None:
        from sc2pool.pool import affinity

        try:
            affinity.pin_self(affinity.parse_cpu_list(args.cpus))
        except (ValueError, OSError) as exc:
            raise SystemExit(f"sc2pool worker: cannot pin to --cpus {args.cpus}: {exc}") from None
    task_only = [f for f, v in (("--task-kwargs", args.task_kwargs), ("--engine", args.engine),
                                ("--on-game-crash", args.on_game_crash), ("--render", args.render or None),
                                ("--render-size", args.render_size)) if v is not None]
    if task_only and not args.task:
        raise SystemExit(f"sc2pool worker: {', '.join(task_only)} can only be used with --task")
    if args.env:
        spec = HostSpec(
            "workers.gym_host:make_host",
            {"env": args.env, "env_kwargs": _json_obj(args.env_kwargs, "--env-kwargs")},
        )
    elif args.task:
        from sc2pool.training.train import SC2_HOST

        spec = HostSpec(SC2_HOST, _task_host_kwargs(args))
    else:
        spec = HostSpec(args.host, _json_obj(args.host_kwargs, "--host-kwargs"))
    curve = None
    if args.curve_secret or args.curve_server_key:
        if not (args.curve_secret and args.curve_server_key):
            raise SystemExit("sc2pool worker: --curve-secret and --curve-server-key go together")
        from sc2pool.pool.security import SecurityError, WorkerCurveConfig

        try:
            curve = WorkerCurveConfig.from_files(args.curve_secret, args.curve_server_key)
        except (SecurityError, OSError) as exc:
            raise SystemExit(f"sc2pool worker: cannot load CURVE keys: {exc}") from None
    cfg = WorkerConfig(
        endpoint=args.connect,
        make_host=lambda: spec.build(num_envs=args.envs, worker_index=args.index),
        name=args.name,
        heartbeat_interval=args.heartbeat_interval,
        connect_timeout=args.connect_timeout,
        curve=curve,
    )
    return run_worker(cfg)
