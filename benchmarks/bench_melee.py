"""Speed of a whole melee game on a ladder map: the engine's time per ``Game.step(8)``.

The issue's target (item 8): a melee game on a real map with many units moving, the engine's
time per ``step(8)`` at most 1 ms median and 5 ms at the 99th percentile over 15 game minutes.

Player 2 is the engine's melee Computer; player 1 is a participant that either stays idle (its
SCVs mine, nothing else: ``--opponent idle``) or is played by a second instance of the same
Computer logic through the same command path (``--opponent computer``, the default: two
economies, two armies crossing the map and fighting, so many units walk their paths).  Only
``Game.step(8)`` is timed (the Computers' decisions included; observations are not asked for).

    python benchmarks/bench_melee.py                         # AbyssalReefLE, 15 min, difficulty 7
    python benchmarks/bench_melee.py --map AcidPlantLE --minutes 5 --difficulty 4 --opponent idle
    python benchmarks/bench_melee.py --profile 30            # cProfile, the 30 heaviest functions

Hold ``flock /tmp/sc2pool-bench.lock`` around it on a shared machine.  Prints one line per game
minute (units, walkers, time per step) and a summary; ``--json PATH`` writes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game
from sc2pool.engine.install import ensure_install

LOOPS_PER_MINUTE = 22.4 * 60


def make_game(map_name: str, seed: int, difficulty: int, opponent: str) -> Game:
    path = os.path.join(ensure_install(), "Maps", f"{map_name}.SC2Map")
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=path), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant, race=1)
    req.player_setup.add(type=sc_pb.Computer, race=1, difficulty=difficulty)
    g = Game.create(req)
    g.join(sc_pb.RequestJoinGame(race=1))
    if opponent == "computer":
        from sc2pool.engine.computer.melee import MeleeComputer

        g.scenario.computers.append(MeleeComputer(1, difficulty, 0, g.scenario))  # type: ignore[arg-type]
    return g


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="AbyssalReefLE")
    ap.add_argument("--minutes", type=float, default=15.0)
    ap.add_argument("--difficulty", type=int, default=7)
    ap.add_argument("--opponent", choices=("computer", "idle"), default="computer")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", type=int, default=0, help="cProfile the game; print this many functions")
    ap.add_argument("--json", default="")
    ap.add_argument("--paths", action="store_true",
                    help="count the PathFinder's path queries and time them (a wrapper round PathFinder.path)")
    args = ap.parse_args(argv)
    path_calls: list[float] = []
    if args.paths:
        try:
            from sc2pool.engine.terrain import PathFinder
        except ImportError:  # (a tree without ladder maps)
            PathFinder = None  # type: ignore[assignment,misc]
        if PathFinder is not None:
            inner = PathFinder.path

            def timed(self, *a, **k):  # type: ignore[no-untyped-def]
                t = time.perf_counter()
                out = inner(self, *a, **k)
                path_calls.append(time.perf_counter() - t)
                return out

            PathFinder.path = timed  # type: ignore[method-assign]

    t0 = time.perf_counter()
    g = make_game(args.map, args.seed, args.difficulty, args.opponent)
    create_s = time.perf_counter() - t0
    steps = int(args.minutes * LOOPS_PER_MINUTE / 8)
    w = g.world
    wall: list[float] = []
    cpu: list[float] = []
    units: list[int] = []
    walkers: list[int] = []
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    minute = 0
    for i in range(steps):
        c0, w0 = time.process_time(), time.perf_counter()
        g.step(8)
        w1, c1 = time.perf_counter(), time.process_time()
        wall.append(w1 - w0)
        cpu.append(c1 - c0)
        u = w.u
        units.append(len(u))
        walkers.append(int(np.count_nonzero(u.kind[u.speed > 0] != 0)))
        if w.loop >= (minute + 1) * LOOPS_PER_MINUTE:
            minute += 1
            lo = max(0, i - int(LOOPS_PER_MINUTE / 8))
            print(f"min {minute:3d}  loop {w.loop:6d}  units {len(u):4d}  busy {walkers[-1]:4d}  "
                  f"step median {1e3 * statistics.median(wall[lo:]):.3f} ms  max {1e3 * max(wall[lo:]):.2f} ms",
                  flush=True)
        if g.ended:
            print(f"game ended at loop {w.loop}: {g.scenario.result}")
            break
    if prof is not None:
        import pstats

        prof.disable()
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(args.profile)
    ms = np.array(wall) * 1e3
    cms = np.array(cpu) * 1e3
    out = {
        "map": args.map, "minutes": args.minutes, "difficulty": args.difficulty, "opponent": args.opponent,
        "seed": args.seed, "steps": len(ms), "create_s": round(create_s, 3),
        "wall_ms": {"median": float(np.median(ms)), "p90": float(np.percentile(ms, 90)),
                    "p99": float(np.percentile(ms, 99)), "max": float(ms.max()), "mean": float(ms.mean())},
        "cpu_ms": {"median": float(np.median(cms)), "p99": float(np.percentile(cms, 99)), "mean": float(cms.mean())},
        "units_max": int(max(units)), "busy_mean": float(np.mean(walkers)), "busy_max": int(max(walkers)),
        "load": os.getloadavg()[0],
    }
    if args.paths:
        pc = np.array(path_calls or [0.0]) * 1e3
        out["paths"] = {"calls": len(path_calls), "per_step": len(path_calls) / max(len(ms), 1),
                        "total_ms": float(pc.sum()), "share_of_wall": float(pc.sum() / ms.sum()),
                        "median_ms": float(np.median(pc)), "p99_ms": float(np.percentile(pc, 99)),
                        "max_ms": float(pc.max())}
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
