"""StarCraft II throughput: the pool against a game process per env, per task and number of games.

Same measurement as ``sc2pool bench --task NAME``; see ``sc2pool/bench/sc2.py`` for what is
measured. Examples::

    python benchmarks/bench_sc2.py --task MoveToBeacon --games 1,2,4,8
    python benchmarks/bench_sc2.py --task all --games 2,8 --transport all --seconds 2
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="MoveToBeacon", help="task name, or 'all' for every built-in task")
    p.add_argument(
        "--games", default="1,2,4,8", type=lambda s: [int(x) for x in s.split(",") if x.strip()], help="game counts"
    )
    p.add_argument("--transport", default="subprocess", choices=("subprocess", "inprocess", "all"))
    p.add_argument("--seconds", type=float, default=3.0, help="minimum seconds per measurement")
    p.add_argument("--repeats", type=int, default=2, help="interleaved rounds; the best is kept")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default="bench-results")
    p.add_argument("--nice", type=int, default=0, help="niceness change for the run (negative needs privileges)")
    args = p.parse_args(argv)
    from sc2pool.bench.sc2 import main as run_main

    return run_main(args)


if __name__ == "__main__":
    sys.exit(main())
