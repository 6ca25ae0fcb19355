#!/usr/bin/env python
"""Pool throughput benchmark: ZmqVecEnv vs SubprocVecEnv / DummyVecEnv / AsyncVectorEnv.

A thin wrapper over the code behind ``sc2pool bench`` (same options, same outputs), so the
benchmark can be run from a checkout without the console script::

    python benchmarks/bench_pool.py            # full run, ~4-5 minutes
    python benchmarks/bench_pool.py --quick    # ~1 minute
    python benchmarks/bench_pool.py --scenarios cartpole-8 noop-1 --seconds 3 --repeats 5

See benchmarks/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from sc2pool.cli import bench as bench_cli

    parser = argparse.ArgumentParser(
        prog="bench_pool.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    bench_cli.add_arguments(parser)
    args = parser.parse_args(argv)
    return bench_cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
