"""What regeneration costs in a fight: its share of the world's step time.

A Battle100v100-style fight of Zerg against Protoss (50 Roaches and 50 Zerglings against 50
Zealots and 50 Stalkers, face to face, attack-moving into each other), stepped with
``World.advance`` for ``--loops`` game loops; the time spent in
``Regeneration.update`` is measured inside the same run (CPU time, best of ``--repeats``).

    python benchmarks/bench_regeneration.py [--loops 600] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sc2pool.engine.maps import BATTLE
from sc2pool.engine.sim.units import ATTACK_MOVE, Order
from sc2pool.engine.sim.world import World

ROACH, ZERGLING, ZEALOT, STALKER = 110, 105, 73, 74


def battle() -> World:
    w = World(BATTLE)
    ys = np.linspace(24.0, 72.0, 50)
    left = [*w.spawn(ROACH, 1, np.full(50, 36.0), ys), *w.spawn(ZERGLING, 1, np.full(50, 34.0), ys)]
    right = [*w.spawn(ZEALOT, 2, np.full(50, 60.0), ys), *w.spawn(STALKER, 2, np.full(50, 62.0), ys)]
    u = w.u
    for tags, x in ((left, 62.0), (right, 34.0)):
        for r in u.rows(np.array(tags)).tolist():
            u.set_order(r, Order(ATTACK_MOVE, 23, x, float(u.y[r])))
    w.touch()
    return w


def run(loops: int) -> tuple[float, float, int, int]:
    w = battle()
    regen = w.regeneration
    spent = 0.0
    inner = regen.update

    def timed(h: int) -> None:
        nonlocal spent
        t = time.process_time()
        inner(h)
        spent += time.process_time() - t

    regen.update = timed  # type: ignore[method-assign]
    t0 = time.process_time()
    calls = 0
    while w.loop < loops:
        w.advance(min(w.horizon(), loops - w.loop))
        calls += 1
    return time.process_time() - t0, spent, len(w.u), calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loops", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    best = min((run(args.loops) for _ in range(args.repeats)), key=lambda r: r[0])
    total, regen, alive, calls = best
    print(f"{args.loops} loops in {calls} advances: {total * 1e3:.1f} ms ({total / args.loops * 1e6:.1f} us/loop); "
          f"regeneration {regen * 1e3:.2f} ms = {100 * regen / total:.2f}% ({regen / calls * 1e6:.1f} us a call, "
          f"timer included; {alive} units alive at the end)")


if __name__ == "__main__":
    main()
