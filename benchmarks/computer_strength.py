"""Strength of the melee Computer by difficulty: the reference bot's win rate against it.

The reference bot (``tests/engine/reference_bot.py``: a plain burnysc2 ``BotAI``, three barracks
of marines on one base attacking at a fixed time) plays N games against the Computer at each
difficulty on several real ladder maps, one seed per game.  The win rate must fall from VeryEasy
to VeryHard: the check fails when an easier level's rate is significantly below a harder one's
(one-sided two-proportion z test, 5 %) or when VeryEasy's is not significantly above VeryHard's.

By default every game runs in process: burnysc2's ``run_match`` over the engine's in-process
transport (the protocol bytes of a real game, without a server process or a websocket); with
``--run-game`` through burnysc2's ``run_game`` against the engine's server (``sc2pool engine
install`` layout, as a bot on the real game runs).  It also measures the Computer's share of the
engine's time: CPU seconds inside ``MeleeComputer.act`` against those inside the engine's
request handling (in-process games only)::

    python benchmarks/computer_strength.py --games 8                    # every level, 3 maps
    python benchmarks/computer_strength.py --games 2 --levels VeryEasy,VeryHard --maps AcidPlantLE
    python benchmarks/computer_strength.py --games 4 --jobs 2 --json out.json
    python benchmarks/computer_strength.py --games 4 --race Protoss    # the Computer as Protoss (Zerg, Random)

Ties (nobody eliminated within ``--limit`` game minutes) count as no win.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import multiprocessing
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine"))

LEVEL_NAMES = ("VeryEasy", "Easy", "Medium", "MediumHard", "Hard", "Harder", "VeryHard", "CheatVision", "CheatMoney",
               "CheatInsane")
ORDERED = LEVEL_NAMES[:7]
"""The levels whose order the check asserts (the Cheat levels are reported beside them)."""
MAPS = ("AcidPlantLE", "BlueshiftLE", "DarknessSanctuaryLE")
"""Two 2-spawn maps and a 4-spawn one (where the Computer must find the bot)."""
Z95 = 1.959964


@dataclass
class GameResult:
    level: str
    map_name: str
    seed: int
    result: str
    """The reference bot's: Victory, Defeat or Tie."""
    game_s: float
    """Game seconds (faster speed) the game lasted."""
    wall_s: float
    ai_cpu_s: float
    engine_cpu_s: float
    step_cpu_s: float
    race: str = "Terran"
    """The Computer's race as asked (``--race``; Random: the engine draws)."""


def _quiet() -> None:
    from loguru import logger

    logger.remove()
    logging.disable(logging.WARNING)


def play(level: str, map_name: str, seed: int, build: str, limit_min: float, attack_at: float,
         run_game: bool = False, race: str = "Terran") -> GameResult:
    """One game of the reference bot (player 1) against the Computer (player 2)."""
    import random

    from reference_bot import ReferenceBot  # type: ignore[import-not-found]
    from sc2.data import AIBuild, Difficulty, Race, Result
    from sc2.player import Bot, Computer

    from sc2pool.engine.computer.melee import MeleeComputer
    from sc2pool.engine.game import Game
    from sc2pool.engine.session import EngineSession

    random.seed(seed)
    bot = ReferenceBot(attack_at=attack_at)
    players = [Bot(Race.Terran, bot), Computer(Race[race], Difficulty[level], AIBuild[build])]
    clock = {"ai": 0.0, "engine": 0.0, "step": 0.0}

    def timed(fn, key):  # type: ignore[no-untyped-def]
        def wrapper(*a, **k):  # type: ignore[no-untyped-def]
            t = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                clock[key] += time.process_time() - t
        return wrapper

    patches = [(MeleeComputer, "act", "ai"), (EngineSession, "handle", "engine"), (Game, "step", "step")]
    saved = [getattr(cls, name) for cls, name, _ in patches]
    for cls, name, key in patches:
        setattr(cls, name, timed(getattr(cls, name), key))
    t0 = time.perf_counter()
    from sc2 import main as _main  # noqa: F401  (imported before the logger is silenced)

    _quiet()
    try:
        if run_game:
            from sc2 import maps
            from sc2.main import run_game as _run_game

            result = _run_game(maps.get(map_name), players, realtime=False, random_seed=seed,
                               game_time_limit=int(limit_min * 60))
        else:
            from sc2.controller import Controller
            from sc2.main import GameMatch, run_match
            from sc2.maps import Map

            from sc2pool.engine.transport import InProcessTransport

            match = GameMatch(Map(Path(f"{map_name}.SC2Map")), players, random_seed=seed,
                              game_time_limit=int(limit_min * 60))
            results = asyncio.run(run_match([Controller(InProcessTransport(), None)], match,  # type: ignore[arg-type]
                                            close_ws=False))
            result = results[players[0]]
    finally:
        for (cls, name, _), fn in zip(patches, saved, strict=True):
            setattr(cls, name, fn)
    res = result.name if isinstance(result, Result) else str(result)
    return GameResult(level, map_name, seed, res, float(bot.time), time.perf_counter() - t0, clock["ai"],
                      clock["engine"], clock["step"], race)


def _play_args(args: tuple[str, str, int, str, float, float, bool, str]) -> GameResult:
    return play(*args)


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def inverted(w1: int, n1: int, w2: int, n2: int) -> bool:
    """Whether the second rate is significantly above the first (one-sided two-proportion z test
    at 5 %): an easier level won less often than a harder one."""
    if not n1 or not n2:
        return False
    p = (w1 + w2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return False
    return (w2 / n2 - w1 / n1) / se > 1.644854


def report(results: list[GameResult]) -> tuple[str, bool]:
    """The table (per level: games, wins, losses, ties, win rate and interval, game length) and
    whether the ordering check passes."""
    lines = ["| Computer | games | bot W / L / T | bot win rate | 95 % interval | mean game min |",
             "| --- | --- | --- | --- | --- | --- |"]
    stats: dict[str, tuple[int, int]] = {}
    for level in LEVEL_NAMES:
        rs = [r for r in results if r.level == level]
        if not rs:
            continue
        w = sum(r.result == "Victory" for r in rs)
        lo = sum(r.result == "Defeat" for r in rs)
        t = len(rs) - w - lo
        a, b = wilson(w, len(rs))
        stats[level] = (w, len(rs))
        lines.append(f"| {level} | {len(rs)} | {w} / {lo} / {t} | {w / len(rs):.2f} | {a:.2f} - {b:.2f} | "
                     f"{sum(r.game_s for r in rs) / len(rs) / 60:.1f} |")
    ok = True
    notes = []
    ordered = [lv for lv in ORDERED if lv in stats]
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            if inverted(*stats[a], *stats[b]):
                ok = False
                notes.append(f"inverted: {b} {stats[b][0]}/{stats[b][1]} above {a} {stats[a][0]}/{stats[a][1]}")
    if "VeryEasy" in stats and "VeryHard" in stats:
        if not inverted(*stats["VeryHard"], *stats["VeryEasy"]):
            ok = False
            notes.append("VeryEasy's win rate is not significantly above VeryHard's")
    rates = [stats[lv][0] / stats[lv][1] for lv in ordered]
    notes.append("point estimates " + ("non-increasing" if all(x >= y for x, y in zip(rates, rates[1:], strict=False))
                                       else "not monotone (within noise unless listed above)"))
    ai = sum(r.ai_cpu_s for r in results)
    eng = sum(r.engine_cpu_s for r in results)
    step = sum(r.step_cpu_s for r in results)
    game_min = sum(r.game_s for r in results) / 60
    if eng > 0:
        notes.append(f"Computer CPU {ai:.1f} s = {100 * ai / eng:.1f} % of the engine's request handling ({eng:.1f} s), "
                     f"{100 * ai / step:.1f} % of Game.step ({step:.1f} s); per 15 game minutes: engine "
                     f"{eng / game_min * 15:.2f} s, Computer {ai / game_min * 15:.2f} s")
    notes.append("ordering check: " + ("PASS" if ok else "FAIL"))
    return "\n".join(lines + [""] + notes), ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=8, help="games per level and map (one seed each)")
    ap.add_argument("--levels", default=",".join(LEVEL_NAMES), help="comma-separated difficulty names")
    ap.add_argument("--maps", default=",".join(MAPS), help="comma-separated ladder map names")
    ap.add_argument("--build", default="RandomBuild", help="the Computer's AIBuild name")
    ap.add_argument("--race", default="Terran", choices=("Terran", "Zerg", "Protoss", "Random"),
                    help="the Computer's race")
    ap.add_argument("--limit", type=float, default=20.0, help="game minutes before a game is a Tie")
    ap.add_argument("--attack-at", type=float, default=360.0, help="the reference bot's attack time (game s)")
    ap.add_argument("--seed", type=int, default=1000, help="first seed")
    ap.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    ap.add_argument("--run-game", action="store_true", help="through burnysc2's run_game and the engine's server")
    ap.add_argument("--json", help="write every game's result to this file (rewritten after each game)")
    ap.add_argument("--report", nargs="+", metavar="JSON",
                    help="play nothing: the table and the check of the games saved in these --json files "
                         "(a later file's game of the same level, map and seed replaces an earlier one's)")
    args = ap.parse_args(argv)
    if args.report:
        saved: dict[tuple[str, str, int, str], GameResult] = {}
        for f in args.report:
            for d in json.loads(Path(f).read_text()):
                g = GameResult(**d)
                saved[(g.level, g.map_name, g.seed, g.race)] = g
        games = list(saved.values())
        text, ok = report(games)
        print(f"{len(games)} games; maps {', '.join(sorted({g.map_name for g in games}))}; "
              f"seeds {min(g.seed for g in games)}-{max(g.seed for g in games)}\n")
        print(text)
        return 0 if ok else 1
    levels = [x for x in args.levels.split(",") if x]
    for lv in levels:
        if lv not in LEVEL_NAMES:
            ap.error(f"unknown level {lv!r}: one of {', '.join(LEVEL_NAMES)}")
    maps = [x for x in args.maps.split(",") if x]
    install = None
    if args.run_game:  # a fake SC2 install whose binary is the engine's server (removed at the end)
        import os
        import tempfile

        from sc2pool.engine.install import write_install

        install = tempfile.TemporaryDirectory(prefix="sc2pool-strength-")
        os.environ["SC2PATH"] = str(write_install(Path(install.name) / "StarCraftII"))
    jobs = [(lv, m, args.seed + g, args.build, args.limit, args.attack_at, args.run_game, args.race)
            for g in range(args.games) for m in maps for lv in levels]
    results: list[GameResult] = []
    t0 = time.perf_counter()

    def done(r: GameResult) -> None:
        results.append(r)
        print(f"{r.level:12s} {r.map_name:22s} seed {r.seed}: bot {r.result:8s} at {r.game_s / 60:5.1f} min "
              f"({r.wall_s:5.1f} s; Computer {r.ai_cpu_s:4.2f} of engine {r.engine_cpu_s:5.2f} CPU s)", flush=True)
        if args.json:  # (after every game: a run cut short keeps what it played)
            Path(args.json).write_text(json.dumps([asdict(x) for x in results], indent=1) + "\n")

    if args.jobs > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            for r in pool.imap_unordered(_play_args, jobs):
                done(r)
    else:
        for j in jobs:
            done(_play_args(j))
    if install is not None:
        install.cleanup()
    text, ok = report(results)
    print(f"\n{len(results)} games in {time.perf_counter() - t0:.0f} s; {args.race} Computer, build {args.build}, "
          f"maps {', '.join(maps)}\n")
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
