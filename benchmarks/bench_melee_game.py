"""A whole burnysc2 game against the engine's server, as a user runs it: speed and memory.

Issue 23, item 8: a melee game of a burnysc2 bot against the built-in Computer, over the
websocket, runs at least 50 times faster than real time on one core, and one engine game process
stays within 200 MB.  This runs ``sc2.main.run_game`` unmodified (realtime off) with the
benchmark's Terran bot (``benchmarks/melee_bot.py``) against ``Computer(Terran, <difficulty>)``
on a ladder map, through a private fake install (:func:`sc2pool.engine.install.write_install`), so the
engine runs in its own server process exactly as burnysc2 launches it.  It reports the wall time
of the whole ``run_game`` (launch, connect, create, join, every step, leave), the game seconds
played, their ratio (times real time), the CPU time of this process (the bot and burnysc2) and
of the server process, and the server's peak resident memory (``VmHWM``, read every 0.1 s while
it runs).

    taskset -c 0 python benchmarks/bench_melee_game.py                 # AcidPlantLE, Hard, 15 min
    taskset -c 0 python benchmarks/bench_melee_game.py --minutes 5 --difficulty 7 --json out.json
    taskset -c 0 python benchmarks/bench_melee_game.py --bot baseline --race protoss --computer-race zerg

``--bot baseline`` plays the Melee task's scripted baseline (any race it is written for) instead
of the Terran ``MarineBot``; ``--computer-race`` picks the Computer's race.

``taskset -c 0`` keeps the bot and the server (a child inherits the affinity) on one core; hold
``flock /tmp/sc2pool-bench.lock`` round it on a shared machine and note the load beside the
figure (the wall time counts whatever else runs on that core).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # workers/, for --bot baseline

RACES = ("terran", "zerg", "protoss")


class ServerWatch(threading.Thread):
    """Finds the engine server (a child process of this one) and keeps its peak RSS and CPU time."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak_kb = 0
        self.cpu_s = 0.0
        self.pid = 0
        self.done = threading.Event()

    def run(self) -> None:
        me = psutil.Process()
        while not self.done.is_set():
            for child in me.children(recursive=True):
                try:
                    with open(f"/proc/{child.pid}/status") as f:
                        for line in f:
                            if line.startswith("VmHWM:"):
                                kb = int(line.split()[1])
                                if kb >= self.peak_kb:
                                    self.peak_kb, self.pid = kb, child.pid
                    t = child.cpu_times()
                    if child.pid == self.pid:
                        self.cpu_s = t.user + t.system
                except (OSError, psutil.Error):
                    continue
            self.done.wait(0.1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="AcidPlantLE")
    ap.add_argument("--minutes", type=float, default=15.0, help="game minutes (burnysc2's game_time_limit)")
    ap.add_argument("--difficulty", type=int, default=5, help="the Computer's level (5 = Hard)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--race", choices=RACES, default="terran", help="the bot's race")
    ap.add_argument("--computer-race", choices=RACES, default="terran", help="the Computer's race")
    ap.add_argument("--bot", choices=("marine", "baseline"), default="marine",
                    help="marine: melee_bot.MarineBot (Terran); baseline: the Melee task's scripted baseline")
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)

    import logging
    import tempfile

    from sc2pool.engine.install import write_install

    # a private fake install: its launcher runs the sc2pool this script imports (the default
    # per-user install may have been written by another checkout)
    tmp = tempfile.TemporaryDirectory(prefix="sc2pool-bench-")
    os.environ["SC2PATH"] = str(write_install(tmp.name))
    from loguru import logger
    from melee_bot import make_bot  # type: ignore[import-not-found]
    from sc2 import maps
    from sc2.data import Difficulty, Race
    from sc2.main import run_game
    from sc2.player import Bot, Computer

    logger.remove()
    logging.disable(logging.WARNING)

    random.seed(args.seed)
    bot = make_bot(args.bot, args.race)
    watch = ServerWatch()
    watch.start()
    c0, t0 = time.process_time(), time.perf_counter()
    result = run_game(maps.get(args.map), [Bot(Race[args.race.capitalize()], bot),
                                                Computer(Race[args.computer_race.capitalize()], Difficulty(args.difficulty))],
                      realtime=False, random_seed=args.seed, game_time_limit=int(args.minutes * 60))
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    watch.done.set()
    watch.join()
    game_s = float(bot.time)
    out = {
        "map": args.map, "minutes": args.minutes, "difficulty": args.difficulty, "seed": args.seed,
        "bot": args.bot, "race": args.race, "computer_race": args.computer_race,
        "result": str(result), "game_s": round(game_s, 1), "wall_s": round(wall, 2),
        "x_real_time": round(game_s / wall, 1) if wall > 0 else None,
        "bot_process_cpu_s": round(cpu, 2), "server_cpu_s": round(watch.cpu_s, 2),
        "server_peak_rss_mb": round(watch.peak_kb / 1024, 1),
        "bot_process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "max_marines": bot.max_marines, "affinity": sorted(os.sched_getaffinity(0)),
        "load": [round(x, 2) for x in os.getloadavg()],
    }
    tmp.cleanup()
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
