"""``sc2pool train`` and ``sc2pool eval``: PPO on StarCraft II tasks through the pool.

``register`` stays cheap; torch, SB3 and the pool are imported by the handlers.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

from sc2pool.cli.args import json_object, non_negative_int, positive_float, positive_int


def _common(p: argparse.ArgumentParser, workers: int, seed: int) -> None:
    p.add_argument("--task", default="MoveToBeacon", help="task name or 'module:Class'")
    p.add_argument("--task-kwargs", type=json_object, default=None, metavar="JSON", help="task constructor arguments")
    p.add_argument(
        "--engine",
        choices=("subprocess", "inprocess"),
        default="subprocess",
        help="subprocess: a game process per env (embedded engine, or real SC2 when $SC2PATH is set); "
        "inprocess: embedded engine inside the workers",
    )
    p.add_argument("--workers", type=positive_int, default=workers, help="worker processes")
    p.add_argument("--envs-per-worker", type=positive_int, default=2, help="games per worker")
    p.add_argument("--seed", type=int, default=seed, help="seed of the policy and of the games")
    p.add_argument(
        "--render", action="store_true",
        help="build the games with render_mode='rgb_array' (implied by the video options)",
    )
    p.add_argument("--render-size", type=positive_int, default=256, metavar="PX", help="picture size, long side")


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "train",
        help="train PPO on a StarCraft II task through the pool",
        description="Train SB3 PPO on an SC2 task over ZmqVecEnv; writes model.zip, TensorBoard logs, "
        "learning_curve.csv and episode_reward.png to --out.",
    )
    _common(p, workers=4, seed=0)
    p.add_argument("--timesteps", type=positive_int, default=100_000, help="timesteps to train (over all games)")
    p.add_argument("--out", default=None, metavar="DIR", help="output folder (default: runs/<task>)")
    p.add_argument("--ppo", type=json_object, default=None, metavar="JSON", help="PPO keyword overrides")
    p.add_argument(
        "--no-progress", action="store_true",
        help="no progress bar (on a terminal), no progress lines (every 10%% of the run, when stdout is not one)",
    )
    p.add_argument(
        "--checkpoint-every", type=positive_int, default=None, metavar="N",
        help="also save DIR/checkpoints/model_<timesteps>_steps.zip about every N timesteps",
    )
    p.add_argument(
        "--snapshot-every", type=positive_int, default=None, metavar="N",
        help="save DIR/snapshots/snapshot_<timesteps>.zip at the start and about every N timesteps; with "
        "--task-kwargs '{\"opponent\": \"league\"}' they are the opponents (default there: 16384)",
    )
    p.add_argument(
        "--league-size", type=positive_int, default=None, metavar="K",
        help="opponent 'league': the newest K snapshots are the league (default 5)",
    )
    p.add_argument(
        "--league-fixed", action="append", default=[], metavar="MODEL",
        help="opponent 'league': a saved model (.zip) that stays in the league beside the snapshots, or "
        "'scripted' for the task's scripted baseline; repeat for more",
    )
    p.add_argument(
        "--video-every", type=positive_int, default=None, metavar="N",
        help="record env 0's episode at the start and its next episode after every N timesteps: "
        "DIR/videos/step_<timestep>.mp4 and TensorBoard (images tab)",
    )
    p.add_argument("--video-length", type=positive_int, default=400, metavar="FRAMES", help="longest video, in frames")
    p.add_argument("--video-fps", type=positive_float, default=None, metavar="F", help="video frame rate (default: 4x real time, at least 10)")
    p.add_argument(
        "--pretrain-episodes", type=int, default=None, metavar="N",
        help="before PPO, clone N games of the task's scripted baseline into the policy "
        "(0: start from a random policy; default: the task's own, 24 for Melee, 0 for the others; "
        "with a self-play opponent the baseline plays itself)",
    )
    p.add_argument(
        "--resume", default=None, metavar="MODEL",
        help="continue training this saved model (.zip) for --timesteps more (its own PPO settings apply, "
             "but for those --ppo names: e.g. '{\"learning_rate\": 3e-5}')",
    )
    _heartbeat_arg(p)
    p.add_argument(
        "--on-failure",
        choices=("raise", "restart"),
        default="raise",
        help="restart: respawn dead/hung workers and relaunch crashed games, ending only the affected "
        "episodes (as truncated); raise: stop with a typed error",
    )
    remote = p.add_argument_group(
        "workers on other machines",
        "--bind makes the trainer listen; it starts --local-workers of the --workers itself and waits "
        "for the others: `sc2pool worker --connect tcp://THIS_HOST:PORT --task TASK --envs ENVS_PER_WORKER` "
        "(the exact command is printed at start-up)",
    )
    remote.add_argument("--bind", default=None, metavar="ENDPOINT", help="e.g. tcp://0.0.0.0:5555")
    remote.add_argument(
        "--local-workers", type=non_negative_int, default=None, metavar="N",
        help="workers started here (default: all --workers)",
    )
    remote.add_argument(
        "--curve", default=None, metavar="DIR",
        help="CurveZMQ keys directory (sc2pool keygen DIR); needed to bind a non-loopback address",
    )
    remote.add_argument(
        "--allow-insecure-remote", action="store_true",
        help="bind a non-loopback address without CurveZMQ (a trusted network only)",
    )
    remote.add_argument(
        "--join-timeout", type=positive_float, default=600.0, metavar="S",
        help="seconds to wait for the remote workers",
    )
    cluster = p.add_argument_group(
        "workers placed by a cluster manager",
        "--ray ADDRESS starts the --workers as Ray actors over a placement group; --slurm (inside an "
        "sbatch/salloc allocation) starts them as one srun job step. Workers connect back with "
        "ephemeral CurveZMQ keys; with --on-failure restart, lost workers are placed again.",
    )
    where = cluster.add_mutually_exclusive_group()
    where.add_argument("--ray", default=None, metavar="ADDRESS", help="the Ray cluster's GCS address (HOST:PORT) or auto")
    where.add_argument("--slurm", action="store_true", help="start the workers as a job step of this SLURM allocation")
    cluster.add_argument(
        "--cpus-per-worker", type=positive_int, default=1, metavar="N",
        help="CPUs reserved for each worker",
    )
    cluster.add_argument(
        "--cluster-timeout", type=positive_float, default=30.0, metavar="S",
        help="seconds to join the Ray cluster, or for SLURM to start the workers' job step, before a "
        "ClusterUnavailableError/ClusterResourcesError saying why (Ctrl-C ends the wait at once)",
    )
    cluster.add_argument(
        "--advertise-host", default=None, metavar="HOST",
        help="the address workers connect to (default: Ray's node address / this host's name)",
    )
    p.set_defaults(func=_train)

    e: argparse.ArgumentParser = sub.add_parser(
        "eval",
        help="evaluate a trained model (or the scripted/random policy) on a task",
        description="Play full episodes and print 'mean reward: X'.",
    )
    e.add_argument("model", nargs="?", default=None, help="a model .zip saved by `sc2pool train`")
    _common(e, workers=1, seed=12345)
    e.add_argument("--episodes", type=positive_int, default=10, help="episodes to play (over all games)")
    e.add_argument(
        "--policy",
        choices=("model", "scripted", "random"),
        default=None,
        help="model (default when MODEL is given), scripted (the task's hand-written baseline) or random",
    )
    e.add_argument("--stochastic", action="store_true", help="sample actions instead of the most likely one")
    _heartbeat_arg(e)
    e.add_argument(
        "--video", default=None, metavar="PATH",
        help="also write the evaluated episodes, one after another, as a video (MP4; GIF when PATH ends in .gif)",
    )
    e.add_argument("--video-fps", type=positive_float, default=None, metavar="F", help="video frame rate (default: 4x real time, at least 10)")
    e.set_defaults(func=_eval)


def _heartbeat_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--heartbeat-timeout", type=positive_float, default=5.0, metavar="S",
        help="a worker silent this long is taken for hung or dead: raise it on a machine busy with other "
        "work (a run at nice 19 beside jobs that use every core gets seconds without a time slice)",
    )


def _timeouts(command: str, args: argparse.Namespace) -> Any:
    """The pool's ``Timeouts`` from ``--heartbeat-timeout``, or None after printing why not."""
    from sc2pool.options import Timeouts

    try:
        return Timeouts(heartbeat=args.heartbeat_timeout)
    except ValueError as exc:
        print(f"sc2pool {command}: --heartbeat-timeout: {exc}", file=sys.stderr)
        return None


def _pool_error_text(exc: BaseException) -> str:
    """One readable line for a pool failure (the remote traceback is noise for a bad argument)."""
    remote_type = getattr(exc, "remote_type", None)
    if remote_type:
        return f"{remote_type}: {getattr(exc, 'remote_message', exc)}"
    return f"{type(exc).__name__}: {exc}"


class _Terminated(KeyboardInterrupt):
    """SIGTERM during ``sc2pool train``: stopped as Ctrl-C stops it (the model so far saved)."""


@contextlib.contextmanager
def _sigterm_stops_like_ctrl_c() -> Iterator[list[bool]]:
    """A batch system (SLURM's ``scancel``, Kubernetes, ``timeout``) ends a job with SIGTERM, and a
    backgrounded trainer has SIGINT ignored: both would otherwise lose the run's model. The flag
    in the list says whether SIGTERM came."""
    came = [False]

    def on_term(signum: int, frame: Any) -> None:
        came[0] = True
        raise _Terminated

    try:
        previous = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread: leave SIGTERM as it is
        yield came
        return
    try:
        yield came
    finally:
        signal.signal(signal.SIGTERM, previous)


def _train(args: argparse.Namespace) -> int:
    with _sigterm_stops_like_ctrl_c() as terminated:
        code = _train_run(args)
    if terminated[0] and code in (0, 130):
        return 143  # 128 + SIGTERM
    return code


def _train_run(args: argparse.Namespace) -> int:
    from sc2pool.errors import PoolError
    from sc2pool.options import RemoteWorkers
    from sc2pool.training.train import format_curve, remote_worker_command, train

    out = args.out or f"runs/{args.task.replace(':', '_')}"
    n_workers = args.workers
    envs_per_worker = args.envs_per_worker
    timeouts = _timeouts("train", args)
    if timeouts is None:
        return 2
    pool_kwargs: dict[str, Any] = {"timeouts": timeouts}
    if args.ray is not None or args.slurm:
        if args.local_workers is not None:
            print("sc2pool train: --local-workers does not go with --ray/--slurm (all workers are placed there)", file=sys.stderr)
            return 2
        launcher: Any
        if args.ray is not None:
            from sc2pool.launchers.ray_launcher import RayLauncher

            launcher = RayLauncher(args.ray, n_workers=n_workers, cpus_per_worker=args.cpus_per_worker,
                                   bind_host=args.advertise_host, connect_timeout=args.cluster_timeout)
        else:
            from sc2pool.launchers.slurm import SlurmLauncher

            launcher = SlurmLauncher(n_workers, cpus_per_worker=args.cpus_per_worker,
                                     advertise_host=args.advertise_host, start_timeout=args.cluster_timeout)
        pool_kwargs = {
            "remote": RemoteWorkers(launcher=launcher, curve=args.curve),
            "timeouts": dataclasses.replace(timeouts, join=args.join_timeout),
        }
        print(f"placing {n_workers} workers x {envs_per_worker} games with {type(launcher).__name__}")
        sys.stdout.flush()
    elif args.bind is not None:
        pool_kwargs = {
            "remote": RemoteWorkers(curve=args.curve, allow_insecure=args.allow_insecure_remote),
            "timeouts": dataclasses.replace(timeouts, join=args.join_timeout),
        }
        n_remote = n_workers - (n_workers if args.local_workers is None else args.local_workers)
        if n_remote > 0:
            rendering = args.render or args.video_every is not None
            cmd = remote_worker_command(
                args.bind, args.task, envs_per_worker, args.engine, args.task_kwargs, args.on_failure,
                render_size=args.render_size if rendering else None,
            )
            print(f"waiting up to {args.join_timeout:g} s for {n_remote} remote worker(s); on each machine run:\n  {cmd}")
            if args.curve is not None:
                broker_key = os.path.join(args.curve, "broker.key")
                print(f"    plus --curve-secret WORKER.key_secret --curve-server-key {broker_key} (see sc2pool keygen)")
            sys.stdout.flush()
    elif args.local_workers is not None or args.curve is not None or args.allow_insecure_remote:
        print("sc2pool train: --local-workers, --curve and --allow-insecure-remote go with --bind", file=sys.stderr)
        return 2
    if args.pretrain_episodes is not None and args.pretrain_episodes < 0:
        print(f"sc2pool train: --pretrain-episodes must be >= 0, got {args.pretrain_episodes}", file=sys.stderr)
        return 2
    if args.resume is not None and args.pretrain_episodes:
        print("sc2pool train: --pretrain-episodes does not apply with --resume (the saved model has learnt already)",
              file=sys.stderr)
        return 2
    try:
        res = train(
            task=args.task,
            n_workers=n_workers,
            envs_per_worker=envs_per_worker,
            timesteps=args.timesteps,
            out_dir=out,
            seed=args.seed,
            engine=args.engine,
            task_kwargs=args.task_kwargs,
            ppo_kwargs=args.ppo,
            progress_bar=not args.no_progress,
            on_failure=args.on_failure,
            bind=args.bind,
            local_workers=args.local_workers,
            pool_kwargs=pool_kwargs,
            checkpoint_every=args.checkpoint_every,
            resume=args.resume,
            pretrain_episodes=args.pretrain_episodes,
            video_every=args.video_every,
            video_length=args.video_length,
            video_fps=args.video_fps,
            render=args.render,
            render_size=args.render_size,
            snapshot_every=args.snapshot_every,
            league_size=args.league_size,
            league_fixed=args.league_fixed,
        )
    except PoolError as exc:
        print(f"sc2pool train: {_pool_error_text(exc)}", file=sys.stderr)
        return 1
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"sc2pool train: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # while connecting or starting (during learn(), train() saves the model and returns)
        print("sc2pool train: interrupted (Ctrl-C or SIGTERM); whatever it had started is stopped", file=sys.stderr)
        return 130
    print(format_curve(res))
    if res.interrupted:
        print(f"interrupted (Ctrl-C or SIGTERM) after {res.timesteps} timesteps; the model so far is saved")
    print(f"trained {res.timesteps} timesteps in {res.seconds:.1f} s ({len(res.episodes)} episodes)")
    print(f"model: {res.model_path}")
    print(f"plot: {res.out_dir / 'episode_reward.png'}  tensorboard: tensorboard --logdir {res.out_dir / 'tensorboard'}")
    return 130 if res.interrupted else 0  # 128 + SIGINT, as shells report an interrupted command


def _eval(args: argparse.Namespace) -> int:
    from sc2pool.errors import PoolError
    from sc2pool.training.train import evaluate, summarize_eval

    policy = args.policy or ("model" if args.model else None)
    if policy is None:
        print("sc2pool eval: give a MODEL .zip or --policy scripted|random", file=sys.stderr)
        return 2
    if policy != "model" and args.model:
        print(f"sc2pool eval: MODEL given but --policy {policy}; the model is ignored", file=sys.stderr)
    timeouts = _timeouts("eval", args)
    if timeouts is None:
        return 2
    try:
        res = evaluate(
            args.model if policy == "model" else None,
            task=args.task,
            episodes=args.episodes,
            policy=policy,
            n_workers=args.workers,
            envs_per_worker=args.envs_per_worker,
            engine=args.engine,
            task_kwargs=args.task_kwargs,
            deterministic=not args.stochastic,
            seed=args.seed,
            video=args.video,
            video_fps=args.video_fps,
            render=args.render,
            render_size=args.render_size,
            pool_kwargs={"timeouts": timeouts},
        )
    except PoolError as exc:
        print(f"sc2pool eval: {_pool_error_text(exc)}", file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError) as exc:
        print(f"sc2pool eval: {exc}", file=sys.stderr)
        return 2
    print(summarize_eval(res))
    return 0
