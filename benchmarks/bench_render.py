"""Frame rendering cost per scenario and size, against a Pillow ImageDraw peer and the engine's own
step (see ``sc2pool/bench/render.py``).

    python benchmarks/bench_render.py                       # every scenario, 256 and 512 px
    python benchmarks/bench_render.py --scenarios MoveToBeacon --sizes 256 --json out.json
    sc2pool bench --render [--quick]                        # the same, from the CLI
"""

from __future__ import annotations

import argparse
import sys

from sc2pool.bench.render import add_arguments, main

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    sys.exit(main(parser.parse_args()))
