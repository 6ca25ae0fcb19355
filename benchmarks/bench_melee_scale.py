#!/usr/bin/env python
"""Full StarCraft II games at scale: env steps/s of 8 whole Melee games in 4 pool workers against
SB3's ``SubprocVecEnv`` with one game per process, and each design's own share of an env step
(``sc2pool/bench/melee_scale.py`` says what is measured and how)::

    python benchmarks/bench_melee_scale.py                           # 4 workers x 2 games, 120 s each
    python benchmarks/bench_melee_scale.py --workers 8 --designs pool --seconds 60 --json out.json
    python benchmarks/bench_melee_scale.py --workers 1 --seconds 5 --time-limit 30   # a smoke run

The figures and the method: docs/benchmarks.md, "Full games at scale".
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from sc2pool.bench.melee_scale import main as run_main

    return run_main(argv)


if __name__ == "__main__":
    sys.exit(main())
