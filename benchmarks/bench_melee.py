"""Speed of a whole melee game on a ladder map: the engine's time per ``Game.step(8)``.

The issue's target (item 8): a melee game on a real map with many units moving, the engine's
time per ``step(8)`` at most 1 ms median and 5 ms at the 99th percentile over 15 game minutes.

Player 2 is the engine's melee Computer; player 1 is a participant that either stays idle (its
SCVs mine, nothing else: ``--opponent idle``), or is played by a second instance of the same
Computer logic through the same command path (``--opponent computer``, the default: two
economies, two armies crossing the map and fighting, so many units walk their paths), or is a
burnysc2 bot (``--opponent bot``: ``benchmarks/melee_bot.py``, a Terran player that builds and
fights) playing in process through the engine's in-process transport, the protocol bytes of a
real game.  Without a bot only ``Game.step(8)`` is timed (the Computers' decisions included;
observations are not asked for); with the bot, the engine's whole time per ``step(8)``: every
request the bot sends between two steps (observation, game_info, actions, queries, the step
itself) inside ``EngineSession.handle``, burnysc2's own time not counted.  ``computer_ms`` is the
Computers' share (``MeleeComputer.act``) of it, ``engine_only_ms`` the rest.

    python benchmarks/bench_melee.py                         # AbyssalReefLE, 15 min, difficulty 7
    python benchmarks/bench_melee.py --map AcidPlantLE --minutes 5 --difficulty 4 --opponent idle
    python benchmarks/bench_melee.py --profile 30            # cProfile, the 30 heaviest functions
    python benchmarks/bench_melee.py --opponent bot --difficulty 5 --map AcidPlantLE   # a bot vs Hard

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
from sc2pool.engine.warm import warm_up

LOOPS_PER_MINUTE = 22.4 * 60


#: ``common_pb2.Race`` by name.
RACES = {"terran": 1, "zerg": 2, "protoss": 3}


#: ``sc2api_pb2.AIBuild`` by name.
BUILDS = {"random": 1, "rush": 2, "timing": 3, "power": 4, "macro": 5, "air": 6}


def make_game(map_name: str, seed: int, difficulty: int, opponent: str, race: str = "terran",
              computer_race: str = "terran", builds: tuple[str, str] = ("random", "random")) -> Game:
    """Player 1 (``race``) is idle or a second Computer; player 2 the Computer (``computer_race``);
    ``builds``: the two Computers' builds (player 1's, player 2's)."""
    path = os.path.join(ensure_install(), "Maps", f"{map_name}.SC2Map")
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=path), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant, race=RACES[race])  # type: ignore[arg-type]
    req.player_setup.add(type=sc_pb.Computer, race=RACES[computer_race], difficulty=difficulty,  # type: ignore[arg-type]
                         ai_build=BUILDS[builds[1]])  # type: ignore[arg-type]
    g = Game.create(req)
    g.join(sc_pb.RequestJoinGame(race=RACES[race]))  # type: ignore[arg-type]
    if opponent == "computer":
        from sc2pool.engine.computer.melee import MeleeComputer

        g.scenario.computers.append(MeleeComputer(1, difficulty, BUILDS[builds[0]], g.scenario))  # type: ignore[arg-type]
    return g


class Clock:
    """Per ``step(8)``: wall and CPU time of the engine, and the Computers' CPU time within it."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.computer: list[float] = []
        self.units: list[int] = []
        self.busy: list[int] = []
        self.side_max = [0, 0]
        """Most units (structures included) players 1 and 2 had at once."""
        self._wall = self._cpu = self._computer = 0.0

    def add(self, wall: float, cpu: float) -> None:
        self._wall += wall
        self._cpu += cpu

    def add_computer(self, cpu: float) -> None:
        self._computer += cpu

    def close_step(self, g: Game) -> None:
        self.wall.append(self._wall)
        self.cpu.append(self._cpu)
        self.computer.append(self._computer)
        self._wall = self._cpu = self._computer = 0.0
        u = g.world.u
        self.units.append(len(u))
        for i in (0, 1):
            self.side_max[i] = max(self.side_max[i], int(np.count_nonzero(u.owner == i + 1)))
        self.busy.append(int(np.count_nonzero(u.kind[u.speed > 0] != 0)))


def _time_computers(clock: Clock) -> object:
    """Wrap ``MeleeComputer.act`` to add its CPU time to ``clock``; returns the original."""
    from sc2pool.engine.computer.melee import MeleeComputer

    inner = MeleeComputer.act

    def act(self, world):  # type: ignore[no-untyped-def]
        c = time.process_time()
        try:
            return inner(self, world)
        finally:
            clock.add_computer(time.process_time() - c)

    MeleeComputer.act = act  # type: ignore[method-assign]
    return inner


def run_steps(g: Game, steps: int, clock: Clock) -> None:
    """Step the game (no bot) ``steps`` times, timing each ``step(8)``."""
    minute = 0
    w = g.world
    for i in range(steps):
        c0, w0 = time.process_time(), time.perf_counter()
        g.step(8)
        w1, c1 = time.perf_counter(), time.process_time()
        clock.add(w1 - w0, c1 - c0)
        clock.close_step(g)
        if w.loop >= (minute + 1) * LOOPS_PER_MINUTE:
            minute += 1
            lo = max(0, i - int(LOOPS_PER_MINUTE / 8))
            print(f"min {minute:3d}  loop {w.loop:6d}  units {clock.units[-1]:4d}  busy {clock.busy[-1]:4d}  "
                  f"step median {1e3 * statistics.median(clock.cpu[lo:]):.3f} ms  "
                  f"max {1e3 * max(clock.cpu[lo:]):.2f} ms (CPU)", flush=True)
        if g.ended:
            print(f"game ended at loop {w.loop}: {g.scenario.result}")
            break


def run_bot(map_name: str, seed: int, difficulty: int, minutes: float, clock: Clock, race: str = "terran",
            computer_race: str = "terran", bot_kind: str = "marine") -> dict[str, object]:
    """Play ``benchmarks/melee_bot.py`` against the Computer in process (burnysc2's ``run_match``
    over the engine's in-process transport), timing every request per step."""
    import asyncio
    import logging
    import random
    from pathlib import Path

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from loguru import logger
    from melee_bot import make_bot  # type: ignore[import-not-found]
    from sc2.controller import Controller
    from sc2.data import Difficulty, Race
    from sc2.main import GameMatch, run_match
    from sc2.maps import Map
    from sc2.player import Bot, Computer

    from sc2pool.engine.session import EngineSession
    from sc2pool.engine.transport import InProcessTransport

    logger.remove()
    logging.disable(logging.WARNING)
    random.seed(seed)
    state: dict[str, object] = {"game": None, "stepped": False}
    inner_handle, inner_step = EngineSession.handle, EngineSession._step

    def handle(self, data):  # type: ignore[no-untyped-def]
        c0, w0 = time.process_time(), time.perf_counter()
        out = inner_handle(self, data)
        w1, c1 = time.perf_counter(), time.process_time()
        clock.add(w1 - w0, c1 - c0)
        if state["stepped"]:
            state["stepped"] = False
            clock.close_step(self.room.game)
            g = self.room.game
            if len(clock.cpu) % int(LOOPS_PER_MINUTE / 8) == 0:
                lo = len(clock.cpu) - int(LOOPS_PER_MINUTE / 8)
                print(f"loop {g.game_loop:6d}  units {clock.units[-1]:4d}  busy {clock.busy[-1]:4d}  "
                      f"engine per step median {1e3 * statistics.median(clock.cpu[lo:]):.3f} ms  "
                      f"max {1e3 * max(clock.cpu[lo:]):.2f} ms (CPU)", flush=True)
        return out

    def step(self, req):  # type: ignore[no-untyped-def]
        state["stepped"] = True
        return inner_step(self, req)

    EngineSession.handle = handle  # type: ignore[method-assign]
    EngineSession._step = step  # type: ignore[method-assign]
    bot = make_bot(bot_kind, race)
    players = [Bot(Race[race.capitalize()], bot), Computer(Race[computer_race.capitalize()], Difficulty(difficulty))]
    match = GameMatch(Map(Path(f"{map_name}.SC2Map")), players, random_seed=seed,
                      game_time_limit=int(minutes * 60))
    t0 = time.perf_counter()
    try:
        results = asyncio.run(run_match([Controller(InProcessTransport(), None)], match,  # type: ignore[arg-type]
                                        close_ws=False))
    finally:
        EngineSession.handle = inner_handle  # type: ignore[method-assign]
        EngineSession._step = inner_step  # type: ignore[method-assign]
    return {"result": str(results[players[0]]), "bot_game_s": float(bot.time), "bot_max_marines": bot.max_marines,
            "wall_s": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="AbyssalReefLE")
    ap.add_argument("--minutes", type=float, default=15.0)
    ap.add_argument("--difficulty", type=int, default=7)
    ap.add_argument("--opponent", choices=("computer", "idle", "bot"), default="computer")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--race", choices=tuple(RACES), default="terran", help="player 1's race (idle, Computer or bot)")
    ap.add_argument("--computer-race", choices=tuple(RACES), default="terran", help="player 2's race (the Computer)")
    ap.add_argument("--bot", choices=("marine", "baseline"), default="marine",
                    help="with --opponent bot: melee_bot.MarineBot (Terran) or the Melee task's scripted baseline")
    ap.add_argument("--builds", default="random,random",
                    help="the Computers' builds, player 1's then player 2's (random, rush, timing, power, macro, air); "
                         "(not used with --opponent bot)")
    ap.add_argument("--profile", type=int, default=0, help="cProfile the game; print this many functions")
    ap.add_argument("--profile-out", default="", help="with --profile: also dump the pstats file here")
    ap.add_argument("--json", default="")
    ap.add_argument("--paths", action="store_true",
                    help="count the PathFinder's path queries and time them (a wrapper round PathFinder.path)")
    args = ap.parse_args(argv)
    builds = tuple(args.builds.split(","))
    if len(builds) != 2 or any(b not in BUILDS for b in builds):
        ap.error(f"--builds takes two of {', '.join(BUILDS)} separated by a comma, not {args.builds!r}")
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

    warm_up()  # (as the game server readies itself before its first game: this process stands for it)
    clock = Clock()
    _time_computers(clock)
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    extra: dict[str, object] = {}
    create_s = 0.0
    if args.opponent == "bot":
        extra = run_bot(args.map, args.seed, args.difficulty, args.minutes, clock, args.race, args.computer_race,
                        args.bot)
    else:
        t0 = time.perf_counter()
        g = make_game(args.map, args.seed, args.difficulty, args.opponent, args.race, args.computer_race,
                      (builds[0], builds[1]))
        create_s = time.perf_counter() - t0
        run_steps(g, int(args.minutes * LOOPS_PER_MINUTE / 8), clock)
    if prof is not None:
        import pstats

        prof.disable()
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(args.profile)
        if args.profile_out:
            prof.dump_stats(args.profile_out)
    ms = np.array(clock.wall) * 1e3
    cms = np.array(clock.cpu) * 1e3
    ai = np.array(clock.computer) * 1e3
    own = cms - ai

    def figures(a: np.ndarray) -> dict[str, float]:
        return {"median": float(np.median(a)), "p90": float(np.percentile(a, 90)), "p99": float(np.percentile(a, 99)),
                "max": float(a.max()), "mean": float(a.mean())}

    out = {
        "map": args.map, "minutes": args.minutes, "difficulty": args.difficulty, "opponent": args.opponent,
        "race": args.race, "computer_race": args.computer_race, "builds": args.builds, "bot": args.bot if args.opponent == "bot" else None,
        "seed": args.seed, "steps": len(ms), "create_s": round(create_s, 3),
        "wall_ms": figures(ms), "cpu_ms": figures(cms), "computer_ms": figures(ai), "engine_only_ms": figures(own),
        "computer_share": float(ai.sum() / max(cms.sum(), 1e-9)),
        "units_max": int(max(clock.units)), "units_max_per_player": clock.side_max, "busy_mean": float(np.mean(clock.busy)), "busy_max": int(max(clock.busy)),
        "load": os.getloadavg()[0], **extra,
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
