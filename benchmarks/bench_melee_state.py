"""A fixed stretch of a melee game, for counting the engine's instructions before and after a change.

CPU times of a whole game swing by 20 % and more on a shared machine; an instruction count under
valgrind's callgrind does not.  A whole game under callgrind takes an hour, so this plays a game of
two Computers up to a loop once (``save``: pickles the :class:`~sc2pool.engine.game.Game`), then
``run`` loads it and steps it N times, each step followed by both players' observations.  The
difference between N steps and none is the stretch's count; load the same saved state in both
trees (the engine's state pickles the same in both as long as the classes keep their fields)::

    python benchmarks/bench_melee_state.py save /tmp/state.pkl --steps 1000
    PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind python benchmarks/bench_melee_state.py run /tmp/state.pkl --steps 60
    PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind python benchmarks/bench_melee_state.py run /tmp/state.pkl --steps 0

``OPENBLAS_NUM_THREADS=1``: OpenBLAS's idle threads spin, and their instructions swing a run's
count by 10-20 million between identical runs.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_melee import make_game  # noqa: E402

import sc2pool.engine.scenarios.melee as melee  # noqa: E402
from sc2pool.engine.install import ensure_install  # noqa: E402


def _register(map_name: str) -> None:
    """Make the map's scenario class (made at run time, per map) findable by pickle."""
    cls = melee.melee_scenario(os.path.join(ensure_install(), "Maps", f"{map_name}.SC2Map"))
    setattr(melee, cls.__name__, cls)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("save", "run"))
    ap.add_argument("path")
    ap.add_argument("--steps", type=int, default=60, help="save: steps before saving; run: steps to time")
    ap.add_argument("--map", default="AcidPlantLE")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--difficulty", type=int, default=5)
    ap.add_argument("--no-observations", action="store_true", help="run: step only")
    args = ap.parse_args()
    sys.setrecursionlimit(100_000)  # (the unit store's and the PathFinder's nested containers)
    # imported here as a game imports them with its map, so that the stretch does not count them
    import scipy.ndimage  # noqa: F401
    import scipy.sparse.csgraph  # noqa: F401

    _register(args.map)
    if args.what == "save":
        g = make_game(args.map, args.seed, args.difficulty, "computer")
        for _ in range(args.steps):
            g.step(8)
        with open(args.path, "wb") as f:
            pickle.dump(g, f, protocol=5)
        print(f"saved loop {g.world.loop}, {len(g.world.u)} units")
        return
    with open(args.path, "rb") as f:
        g = pickle.load(f)
    c = time.process_time()
    for _ in range(args.steps):
        g.step(8)
        if not args.no_observations:
            for player in (1, 2):
                g.observation_bytes(player)
    print(f"{args.steps} steps from loop {g.world.loop - 8 * args.steps}: {time.process_time() - c:.3f} s CPU")


if __name__ == "__main__":
    main()
