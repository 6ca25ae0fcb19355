#!/usr/bin/env python
"""Broker scale benchmark: 1, 8, 32, 64 (128) remote workers over tcp on loopback, a no-op env and
a lognormal sleeping env (mean 5 ms, sd 2.5 ms). The same as ``sc2pool bench --scale``; writes
bench_scale.json/.txt/.png into --out (default ./bench-results, ignored by git)::

    python benchmarks/bench_scale.py
    python benchmarks/bench_scale.py --scale-workers 1,8,32,64,128 --seconds 5

See docs/benchmarks.md for the figures and what they mean.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from sc2pool.cli import bench as bench_cli

    parser = argparse.ArgumentParser(prog="bench_scale.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    bench_cli.add_arguments(parser)
    args = parser.parse_args(["--scale", *(argv if argv is not None else sys.argv[1:])])
    return bench_cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
