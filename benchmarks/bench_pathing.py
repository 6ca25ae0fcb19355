"""PathFinder benchmark: the cost of a path on the 24 ladder maps, for random and game-like queries.

Per map (the player's start pathing grid at game start, start location 0):

* ``build``: ``PathFinder(grid)`` plus its first query (what a game pays when the map starts);
* ``random``: paths from random pathable cells to 9 goals (the enemy main and 8 random cells);
* ``game``: a game's pattern: workers between the townhall and their mineral fields, squads of 20
  sent together to the enemy main or natural, new units to a rally point, short moves anywhere,
  and a structure placed (a 3x3 or 2x2 footprint in the main, ``set_blocked``) every 60 queries,
  another removed every 180; the cost of ``set_blocked`` itself is reported apart (``block``);
* ``new goal``: the first path to a goal no query used before (worst case of the cached fields);
* ``cold``: in a fresh interpreter, importing and constructing ``PathFinder(grid)``, then its
  first path (run once, on the first map).

Times are the CPU time of single calls (``time.thread_time``: a shared machine's other work
does not count, its cache contention still does), reported as median / mean / p99 / max over all
maps; the cold-process figures are wall clock.  Hold the benchmark lock so helpers do not time
each other::

    flock /tmp/sc2pool-bench.lock python benchmarks/bench_pathing.py
    flock /tmp/sc2pool-bench.lock python benchmarks/bench_pathing.py --impl /tmp/old_pathing.py  # compare
    python benchmarks/bench_pathing.py --maps AcidPlantLE --queries 200 --json out.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from sc2pool.engine.terrain import find_map, load_map, start_pathing
from sc2pool.engine.terrain.ladder import LadderMap

ALL_MAPS = (
    "16-BitLE", "AbiogenesisLE", "AbyssalReefLE", "AcidPlantLE", "AcolyteLE", "AscensiontoAiurLE",
    "BackwaterLE", "BattleontheBoardwalkLE", "BlackpinkLE", "BlueshiftLE", "CatalystLE", "CeruleanFallLE",
    "DarknessSanctuaryLE", "DreamcatcherLE", "EastwatchLE", "FractureLE", "FrostLE", "InterloperLE",
    "LostandFoundLE", "MechDepotLE", "NeonVioletSquareLE", "OdysseyLE", "ParaSiteLE", "RedshiftLE",
)
RADIUS = 0.375  # a marine / SCV


def pathfinder_class(impl: str | None) -> Any:
    """``PathFinder`` from the package, or from a Python file (to compare with another version)."""
    if impl is None:
        from sc2pool.engine.terrain import PathFinder

        return PathFinder
    spec = importlib.util.spec_from_file_location("bench_impl", impl)
    assert spec is not None and spec.loader is not None, impl
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.PathFinder


def _timed(fn: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    t = time.thread_time()
    out = fn(*args, **kw)
    return time.thread_time() - t, out


def _mineral_groups(m: LadderMap) -> list[np.ndarray]:
    """Mineral fields grouped by base (fields within 8 of each other), as (n, 2) positions."""
    pts = np.array([(n.x, n.y) for n in m.neutrals if n.is_mineral])
    group = -np.ones(len(pts), dtype=int)
    g = 0
    for i in range(len(pts)):
        if group[i] >= 0:
            continue
        stack, group[i] = [i], g
        while stack:
            j = stack.pop()
            near = np.nonzero((group < 0) & (np.hypot(*(pts - pts[j]).T) < 8))[0]
            group[near] = g
            stack.extend(near.tolist())
        g += 1
    return [pts[group == k] for k in range(g)]


class _Cells:
    """Random points on the pathable cells of a grid."""

    def __init__(self, grid: np.ndarray, rng: np.random.Generator) -> None:
        self.ys, self.xs = np.nonzero(grid)
        self.grid = grid
        self.rng = rng

    def any(self) -> tuple[float, float]:
        i = int(self.rng.integers(self.xs.size))
        return float(self.xs[i] + self.rng.random()), float(self.ys[i] + self.rng.random())

    def near(self, x: float, y: float, lo: float, hi: float) -> tuple[float, float]:
        for _ in range(200):
            a, r = self.rng.random() * 2 * math.pi, lo + (hi - lo) * self.rng.random()
            px, py = x + r * math.cos(a), y + r * math.sin(a)
            cx, cy = int(px), int(py)
            if 0 <= cx < self.grid.shape[1] and 0 <= cy < self.grid.shape[0] and self.grid[cy, cx]:
                return px, py
        return self.any()


def random_mix(pf: Any, grid: np.ndarray, m: LadderMap, n: int, rng: np.random.Generator) -> list[float]:
    cells = _Cells(grid, rng)
    goals = [m.start_locations[1]] + [cells.any() for _ in range(8)]
    out = []
    for _ in range(n):
        dt, _p = _timed(pf.path, cells.any(), goals[int(rng.integers(len(goals)))], RADIUS)
        out.append(dt)
    return out


def game_mix(pf: Any, grid: np.ndarray, m: LadderMap, n: int, rng: np.random.Generator) -> dict[str, list[float]]:
    """A game's pattern of path requests (see the module docstring); times per kind of request."""
    cells = _Cells(grid, rng)
    own, enemy = m.start_locations[0], m.start_locations[1]
    groups = sorted(_mineral_groups(m), key=lambda g: math.dist(g.mean(0), own))
    own_line, nat = groups[0], groups[1]
    enemy_groups = sorted(groups, key=lambda g: math.dist(g.mean(0), enemy))
    enemy_nat = enemy_groups[1].mean(0)
    rally = cells.near(*own, 10, 16)
    attack_goals = [enemy, (float(enemy_nat[0]), float(enemy_nat[1])), (float(nat.mean(0)[0]), float(nat.mean(0)[1]))]
    times: dict[str, list[float]] = {"worker": [], "squad": [], "rally": [], "short": [], "block": [], "after_block": []}
    placed: list[int] = []
    key = 1000
    squad: list[tuple[float, float]] = []
    squad_goal = attack_goals[0]
    for q in range(n):
        if q and q % 60 == 0:  # a structure goes up in the main, another comes down now and then
            w = 3 if rng.random() < 0.5 else 2
            sx, sy = cells.near(*own, 7, 14)
            x0, y0 = int(sx) - w // 2, int(sy) - w // 2
            dt, _ = _timed(pf.set_blocked, key, (slice(max(y0, 0), y0 + w), slice(max(x0, 0), x0 + w)))
            times["block"].append(dt)
            placed.append(key)
            key += 1
            if q % 180 == 0 and len(placed) > 1:
                dt, _ = _timed(pf.set_blocked, placed.pop(0), None)
                times["block"].append(dt)
            dt, _ = _timed(pf.path, cells.near(*own, 4, 8), own_line[0], RADIUS)
            times["after_block"].append(dt)
            continue
        r = rng.random()
        if r < 0.4:  # a worker: townhall <-> one of its mineral fields
            f = own_line[int(rng.integers(len(own_line)))]
            if rng.random() < 0.5:
                start, goal = cells.near(*own, 3.0, 4.5), (float(f[0]), float(f[1]))
            else:
                start, goal = cells.near(float(f[0]), float(f[1]), 1.0, 2.0), own
            kind = "worker"
        elif r < 0.65:  # a squad of 20 around the rally point sent to one target together
            if not squad:
                squad = [cells.near(*rally, 0, 4) for _ in range(20)]
                squad_goal = attack_goals[int(rng.integers(len(attack_goals)))]
            start, goal, kind = squad.pop(), squad_goal, "squad"
        elif r < 0.8:  # a new unit from a production structure to the rally point
            start, goal, kind = cells.near(*own, 6, 12), rally, "rally"
        else:  # a short move anywhere (micro)
            start = cells.any()
            goal, kind = cells.near(*start, 3, 12), "short"
        dt, _p = _timed(pf.path, start, goal, RADIUS)
        times[kind].append(dt)
    return times


def new_goal_costs(cls: Any, grid: np.ndarray, n: int, rng: np.random.Generator) -> list[float]:
    pf = cls(grid)
    cells = _Cells(grid, rng)
    pf.path(cells.any(), cells.any(), RADIUS)  # layer built
    out = []
    for _ in range(n):
        dt, _p = _timed(pf.path, cells.any(), cells.any(), RADIUS)
        out.append(dt)
    return out


def cold_process(impl: str | None, name: str) -> tuple[float, float]:
    """(construction, first path) seconds in a fresh interpreter, the map already in the disk cache.

    Construction includes importing what PathFinder needs (scipy); the first path is what a game
    pays on its first move order.
    """
    load = (f"import importlib.util as u; s = u.spec_from_file_location('i', {impl!r}); mod = u.module_from_spec(s); "
            "s.loader.exec_module(mod); PF = mod.PathFinder") if impl else "from sc2pool.engine.terrain import PathFinder as PF"
    code = (
        "import time\n"
        "from sc2pool.engine.terrain import find_map, load_map, start_pathing\n"
        f"m = load_map(find_map({name!r})); g = start_pathing(m, 0)\n"
        "t = time.perf_counter()\n"
        f"{load}\n"
        "pf = PF(g)\n"
        "t1 = time.perf_counter()\n"
        "a, b = m.start_locations; pf.path((a[0] + 4, a[1]), b, 0.375)\n"
        "print(t1 - t, time.perf_counter() - t1)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    built, first = out.stdout.split()[-2:]
    return float(built), float(first)


def stats(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {}
    a = np.array(xs) * 1e3
    return {"n": int(a.size), "median_ms": float(np.median(a)), "mean_ms": float(a.mean()),
            "p99_ms": float(np.percentile(a, 99)), "max_ms": float(a.max())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--maps", nargs="*", default=list(ALL_MAPS))
    ap.add_argument("--queries", type=int, default=600, help="queries per map and mix")
    ap.add_argument("--new-goals", type=int, default=10, help="first paths to new goals per map")
    ap.add_argument("--impl", default=None, help="a Python file whose PathFinder to measure instead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    cls = pathfinder_class(args.impl)
    pooled: dict[str, list[float]] = {}
    per_map: dict[str, dict[str, Any]] = {}
    for name in args.maps:
        path = find_map(name)
        if path is None:
            print(f"{name}: no map file (pip install 'sc2pool[maps]')", file=sys.stderr)
            return 2
        m = load_map(path)
        grid = start_pathing(m, 0)
        rng = np.random.default_rng(args.seed)
        a, b = m.start_locations[0], m.start_locations[1]
        t = time.thread_time()
        pf = cls(grid)
        pf.path((a[0] + 4.0, a[1]), b, RADIUS)
        build = time.thread_time() - t
        res: dict[str, list[float]] = {"build": [build], "random": random_mix(pf, grid, m, args.queries, rng)}
        pf = cls(grid)
        pf.path((a[0] + 4.0, a[1]), b, RADIUS)
        game = game_mix(pf, grid, m, args.queries, rng)
        res["game"] = [x for k, v in game.items() if k != "block" for x in v]
        res.update({f"game:{k}": v for k, v in game.items()})
        res["new goal"] = new_goal_costs(cls, grid, args.new_goals, rng)
        for k, v in res.items():
            pooled.setdefault(k, []).extend(v)
        per_map[name] = {k: stats(v) for k, v in res.items()}
        s = per_map[name]
        print(f"{name:24s} build {build * 1e3:6.1f} ms | random median {s['random']['median_ms']:.3f} mean {s['random']['mean_ms']:.3f} "
              f"| game median {s['game']['median_ms']:.3f} mean {s['game']['mean_ms']:.3f} p99 {s['game']['p99_ms']:.2f} "
              f"| new goal median {s['new goal']['median_ms']:.2f} max {s['new goal']['max_ms']:.2f}", flush=True)
    built, first = cold_process(args.impl, args.maps[0])
    summary = {k: stats(v) for k, v in pooled.items()}
    summary["cold: construct"] = stats([built])
    summary["cold: first path"] = stats([first])
    print(f"\nover {len(args.maps)} maps ({args.queries} queries per map and mix), ms:")
    print(f"{'':18s} {'n':>6s} {'median':>8s} {'mean':>8s} {'p99':>8s} {'max':>8s}")
    for k, s in summary.items():
        print(f"{k:18s} {s['n']:6d} {s['median_ms']:8.3f} {s['mean_ms']:8.3f} {s['p99_ms']:8.3f} {s['max_ms']:8.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "per_map": per_map, "args": vars(args)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
