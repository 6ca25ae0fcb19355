"""The ``sc2pool bench`` sub-command.

Without ``--task`` it runs the pool benchmark (``sc2pool.bench.pool``): env steps/s of ZmqVecEnv
against SB3's SubprocVecEnv/DummyVecEnv and gymnasium's Async/SyncVectorEnv, side by side in one
run, then prints a table, writes JSON and a PNG, and grades the issue's targets. With ``--task`` it
benchmarks StarCraft II tasks through ``sc2pool.bench.sc2:main`` instead.

``register`` imports nothing heavy; the benchmark modules are imported inside the handler.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sc2pool.cli.args import RawDescriptionDefaultsHelpFormatter, positive_float, positive_int

DEFAULT_OUT = "bench-results"

_DESCRIPTION = """\
Measure env steps/s of ZmqVecEnv against SB3's SubprocVecEnv/DummyVecEnv and gymnasium's
Async/SyncVectorEnv, side by side in one run, over worker counts and env kinds; print a table,
write JSON and a PNG, and grade the pool's speed targets. With --task, benchmark StarCraft II tasks.

  sc2pool bench                  full run (~4 min)
  sc2pool bench --quick          ~1 min
  sc2pool bench --scale          the broker with 1..64 remote tcp workers (~3 min)
  sudo sc2pool bench --nice -10  on a machine shared with other work (see benchmarks/README.md)
"""


def _int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values






def add_arguments(p: argparse.ArgumentParser) -> None:
    """The bench options (shared with ``benchmarks/bench_pool.py``)."""
    p.add_argument(
        "--quick",
        action="store_true",
        help="short run (~1 min): 0.5 s x 2 rounds per implementation, fewer configurations",
    )
    p.add_argument(
        "--scenarios",
        nargs="+",
        metavar="NAME",
        help="run only these scenarios (see --list); commas also separate names",
    )
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where to write bench_pool.json/.txt/.png (default: ./{DEFAULT_OUT})",
    )
    p.add_argument(
        "--seconds",
        type=positive_float,
        metavar="S",
        help="measured wall time per implementation per round (default 1, --quick 0.5)",
    )
    p.add_argument(
        "--repeats",
        type=positive_int,
        metavar="N",
        help="interleaved rounds; the best is reported (default 5, --quick 2)",
    )
    p.add_argument(
        "--warmup",
        type=float,
        metavar="S",
        help="warm-up seconds per implementation before timing (default 0.3, --quick 0.1)",
    )
    p.add_argument(
        "--nice",
        type=int,
        metavar="N",
        help="add N to the niceness first (children inherit it) and set the session's scheduler "
        "autogroup to N for the run; on a shared machine a negative N (needs privileges) keeps "
        "other work from distorting the figures",
    )
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    p.add_argument(
        "--check", action="store_true", help="exit with status 1 if any target FAILs (default: report only)"
    )
    p.add_argument(
        "--render", action="store_true",
        help="benchmark SC2 frame rendering instead (sc2pool.bench.render; --quick for a short run)",
    )
    scale = p.add_argument_group("broker scale (sc2pool.bench.scale)")
    scale.add_argument(
        "--scale", action="store_true",
        help="remote workers over tcp on loopback (no-op and a lognormal 5 ms sleeping env): vector "
        "steps/s, trainer CPU per worker message, p50/p99 step latency, lockstep efficiency",
    )
    scale.add_argument(
        "--scale-workers", type=_int_list, default=[1, 8, 32, 64], metavar="1,8,32,64",
        help="worker counts for --scale (add 128 where memory allows: ~45 MB per worker)",
    )
    scale.add_argument(
        "--scale-envs", type=_int_list, default=[1, 4], metavar="1,4",
        help="envs per worker for the sleeping env of --scale",
    )
    sc2 = p.add_argument_group("StarCraft II tasks (delegated to sc2pool.bench.sc2)")
    sc2.add_argument("--task", metavar="NAME", help="benchmark this SC2 task instead of the pool")
    sc2.add_argument(
        "--games",
        type=_int_list,
        default=[1, 2, 4, 8],
        metavar="1,2,4,8",
        help="numbers of concurrent games to measure (with --task)",
    )
    sc2.add_argument("--transport", metavar="KIND", help="game transport for --task (see sc2pool.bench.sc2)")


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "bench",
        help="benchmark ZmqVecEnv against SubprocVecEnv/DummyVecEnv/AsyncVectorEnv (or SC2 tasks)",
        description=_DESCRIPTION,
        formatter_class=RawDescriptionDefaultsHelpFormatter,
    )
    add_arguments(p)
    p.set_defaults(func=run)


def _scenario_names(raw: list[str] | None) -> list[str] | None:
    if not raw:
        return None
    return [n for item in raw for n in item.split(",") if n]


def run(args: argparse.Namespace) -> int:
    if args.render:
        from sc2pool.bench.render import run_default

        return run_default(quick=args.quick)
    if args.scale:
        from sc2pool.bench.scale import main as scale_main

        return scale_main(args.scale_workers, args.out, args.seconds or (1.0 if args.quick else 3.0),
                          args.scale_envs, plot_png=not args.no_plot,
                          log=lambda msg: print(msg, file=sys.stderr, flush=True))
    if args.task:
        return _run_task(args)
    from sc2pool.bench.pool import default_scenarios, select_scenarios

    if args.list:
        for s in default_scenarios(quick=False):
            impls = ", ".join(i.label for i in s.impls)
            print(f"{s.name:<12} {s.description}\n{'':<12} [{impls}]")
        return 0
    try:
        scenarios = select_scenarios(_scenario_names(args.scenarios), quick=args.quick)
    except ValueError as exc:
        print(f"sc2pool bench: {exc}", file=sys.stderr)
        return 2
    if args.warmup is not None and args.warmup < 0:
        print("sc2pool bench: --warmup must be >= 0", file=sys.stderr)
        return 2
    restore_autogroup: int | None = None
    if args.nice:
        import os

        try:
            os.nice(args.nice)
        except OSError as exc:
            print(f"sc2pool bench: cannot change niceness by {args.nice}: {exc}", file=sys.stderr)
            return 2
        restore_autogroup = _set_autogroup_nice(args.nice)
    try:
        return _run_pool(args, scenarios)
    finally:
        if restore_autogroup is not None:
            _set_autogroup_nice(restore_autogroup)


_AUTOGROUP = "/proc/self/autogroup"


def _set_autogroup_nice(nice: int) -> int | None:
    """Set the scheduler autogroup's niceness; return the previous value (None if unsupported).

    With ``kernel.sched_autogroup_enabled`` (the default on most desktop and cloud kernels) the
    CPU is shared fairly between *sessions* first, and a process's own niceness only orders it
    within its session. So on a box shared with other sessions, ``os.nice`` alone does nothing
    against them: the session's autogroup must be raised too. It is restored afterwards."""
    try:
        with open(_AUTOGROUP) as f:
            previous = int(f.read().split("nice")[-1])
        with open(_AUTOGROUP, "w") as f:
            f.write(str(nice))
        return previous
    except (OSError, ValueError):
        return None


def _run_pool(args: argparse.Namespace, scenarios: Any) -> int:
    from sc2pool.bench.pool import BenchConfig, run_benchmark
    from sc2pool.bench.report import FAIL, format_table, write_all

    config = BenchConfig(
        scenarios=scenarios,
        seconds=args.seconds or (0.5 if args.quick else 1.0),
        repeats=args.repeats or (2 if args.quick else 5),
        warmup=args.warmup if args.warmup is not None else (0.1 if args.quick else 0.3),
        log=lambda msg: print(msg, file=sys.stderr, flush=True),
    )
    result = run_benchmark(config)
    print(format_table(result))
    paths = write_all(result, args.out, plot=not args.no_plot)
    print("\nwrote " + ", ".join(str(p) for p in paths.values()))
    if result["leftover_processes"]:
        return 1
    if args.check and any(t["status"] == FAIL for t in result["targets"] if not t["informational"]):
        return 1
    return 0


def _run_task(args: argparse.Namespace) -> int:
    import importlib

    try:
        sc2_bench = importlib.import_module("sc2pool.bench.sc2")
    except ModuleNotFoundError as exc:
        if exc.name != "sc2pool.bench.sc2":
            raise
        print(
            "sc2pool bench --task: the StarCraft II benchmark (sc2pool.bench.sc2) is not available in "
            "this installation yet; run `sc2pool bench` without --task for the pool benchmark.",
            file=sys.stderr,
        )
        return 2
    main = getattr(sc2_bench, "main", None)
    if main is None:
        print("sc2pool bench --task: sc2pool.bench.sc2 has no main(args)", file=sys.stderr)
        return 2
    return int(main(args) or 0)
