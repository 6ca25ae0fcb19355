"""python-sc2's own example bots, unmodified, against the embedded engine on a real ladder map.

python-sc2's CI (``test/run_example_bots_vs_computer.py`` in its repository) plays every example
bot for 240 game seconds against ``Computer(Race.Protoss, Difficulty.Easy)`` and requires a Tie
(no exception, no early loss). This script does the same against the engine: it imports each bot
class from a python-sc2 checkout (its files are not ours to copy, so they are read from wherever
the user keeps them), swaps in the map given here, and plays ``run_game`` in a child process per
game (``run_game`` installs a SIGINT handler and must own its main thread). ``--mode main`` plays
each example's own match-up instead: the Computer race and difficulty written in its ``main()``.

Usage::

    python benchmarks/python_sc2_examples.py --python-sc2 ~/src/python-sc2            # a checkout
    python benchmarks/python_sc2_examples.py --python-sc2 /path/to/python-sc2.git --only terran
    python benchmarks/python_sc2_examples.py --python-sc2 ... --map AbyssalReefLE --opponent Terran \\
        --difficulty Easy --time-limit 240 --json results.json
    python benchmarks/python_sc2_examples.py --python-sc2 ... --mode main --only terran --map AcidPlantLE \
        --opponent Terran --time-limit 1800 --engine-log /tmp/logs   # main() match-ups, as Terran
    python benchmarks/python_sc2_examples.py --python-sc2 ... --mode main --map own --games 4 --time-limit 1800
        # each main() on its own map where the engine ships it (CatalystLE), 4 games each

``--python-sc2`` takes a work tree or a bare git repository (its ``HEAD`` is unpacked to a
temporary folder). Every game prints one line; the summary counts ties, wins, losses and crashes.
Exit status 0 when every game ended as the mode expects (``ci``: a Tie; ``main``: a Victory).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Example:
    """One example bot: where its class lives and the race it plays."""

    module: str
    cls: str
    race: str
    group: str


#: The example bots python-sc2's CI plays against the Computer (module, class, race).
EXAMPLES: tuple[Example, ...] = (
    Example("examples.protoss.cannon_rush", "CannonRushBot", "Protoss", "protoss"),
    Example("examples.protoss.find_adept_shades", "FindAdeptShadesBot", "Protoss", "protoss"),
    Example("examples.protoss.threebase_voidray", "ThreebaseVoidrayBot", "Protoss", "protoss"),
    Example("examples.protoss.warpgate_push", "WarpGateBot", "Protoss", "protoss"),
    Example("examples.terran.cyclone_push", "CyclonePush", "Terran", "terran"),
    Example("examples.terran.mass_reaper", "MassReaperBot", "Terran", "terran"),
    Example("examples.terran.onebase_battlecruiser", "BCRushBot", "Terran", "terran"),
    Example("examples.terran.proxy_rax", "ProxyRaxBot", "Terran", "terran"),
    Example("examples.terran.ramp_wall", "RampWallBot", "Terran", "terran"),
    Example("examples.zerg.expand_everywhere", "ExpandEverywhere", "Zerg", "zerg"),
    Example("examples.zerg.hydralisk_push", "Hydralisk", "Zerg", "zerg"),
    Example("examples.zerg.onebase_broodlord", "BroodlordBot", "Zerg", "zerg"),
    Example("examples.zerg.zerg_rush", "ZergRushBot", "Zerg", "zerg"),
    Example("examples.worker_stack_bot", "WorkerStackBot", "Protoss", "other"),
    Example("examples.worker_rush", "WorkerRushBot", "Zerg", "other"),
    Example("examples.too_slow_bot", "SlowBot", "Terran", "terran"),
    Example("examples.distributed_workers", "TerranBot", "Terran", "terran"),
)

#: python-sc2's CI plays these for 2 game seconds, not 240 (``test/run_example_bots_vs_computer.py``):
#: RampWallBot draws the whole pathing and placement grids with debug boxes every step, from a
#: Python loop over every cell (seconds of the bot's own CPU a step), and SlowBot sleeps on purpose.
SHORT_IN_CI: dict[str, int] = {"RampWallBot": 2, "SlowBot": 2}

#: The end of every child script: the bot's logged errors and any exception, one RESULT line.
_CHILD_END = r"""
    out["errors"] = [e.splitlines()[0][:300] for e in errors][:5]
    tb = next((e for e in errors if "Traceback" in e), None)
    if tb:
        out["error"] = tb.strip().splitlines()[-1][:500]
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"[:500]
    out["traceback"] = traceback.format_exc()[-2000:]
print("RESULT " + json.dumps(out), flush=True)
"""

_CHILD = r"""
import json, sys, time, traceback
sys.path.insert(0, sys.argv[1])
spec = json.loads(sys.argv[2])
out = {"example": spec["module"], "result": None, "error": None}
try:
    from loguru import logger
    logger.remove()
    errors = []
    logger.add(lambda m: errors.append(str(m)), level="ERROR")
    import importlib
    from sc2 import maps
    from sc2.data import ActionResult, AIBuild, Difficulty, Race
    from sc2.ids.ability_id import AbilityId
    from sc2.main import run_game
    from sc2.player import Bot, Computer
    bot = getattr(importlib.import_module(spec["module"]), spec["cls"])()
    first_seen = {}  # unit or structure type -> game second it was first seen (what the bot built, and when)
    _on_step = bot.on_step

    refused = {}  # "ABILITY: ActionResult" -> count: what the game answered the bot's commands with

    peak = {}  # unit type -> most of them the bot had at once ("its battlecruisers": how many)

    async def on_step(iteration):
        now = {}
        for x in bot.units | bot.structures:
            if x.type_id.name not in first_seen:
                first_seen[x.type_id.name] = round(bot.time, 1)
            now[x.type_id.name] = now.get(x.type_id.name, 0) + 1
        for name, n in now.items():
            peak[name] = max(peak.get(name, 0), n)
        for e in bot.state.response_observation.action_errors:  # this step's only (state.action_errors adds the last's)
            try:
                key = f"{AbilityId(e.ability_id).name}: {ActionResult(e.result).name}"
            except ValueError:
                key = f"{e.ability_id}: {e.result}"
            refused[key] = refused.get(key, 0) + 1
        await _on_step(iteration)

    bot.on_step = on_step
    t0 = time.perf_counter()
    result = run_game(maps.get(spec["map"]),
                      [Bot(Race[spec["race"]], bot), Computer(Race[spec["opponent"]], Difficulty[spec["difficulty"]],
                                                              AIBuild[str(spec.get("build") or "RandomBuild")])],
                      realtime=False, game_time_limit=spec["time_limit"],
                      **({"sc2_version": spec["sc2_version"]} if spec.get("sc2_version") else {}))
    out["wall_s"] = round(time.perf_counter() - t0, 2)
    out["result"] = getattr(result, "name", str(result))
    state = getattr(bot, "state", None)
    if state is not None:
        out["game_loop"] = state.game_loop
        out["game_s"] = round(state.game_loop / 22.4, 1)
    for name in ("workers", "structures", "units"):
        try:
            out[name] = len(getattr(bot, name))
        except Exception:
            pass
    try:  # what it built, by type: "ramp_wall walls its ramp", "distributed_workers expands"
        kinds = {}
        for s in bot.structures:
            kinds[s.type_id.name] = kinds.get(s.type_id.name, 0) + 1
        out["structure_types"] = kinds
        kinds = {}
        for x in bot.units:
            kinds[x.type_id.name] = kinds.get(x.type_id.name, 0) + 1
        out["unit_types"] = kinds
        out["first_seen"] = first_seen
        out["peak"] = peak
        # the bot's last observation is a step before the game's end: what stood then, with its life
        out["last_structures"] = sorted((s.type_id.name, round(s.health)) for s in bot.structures)[:10]
        out["refused"] = refused
    except Exception:
        pass
""" + _CHILD_END


#: python-sc2's second CI procedure (``test/run_example_bots_vs_each_other.py``): these 13 examples,
#: every pair once for 10 game seconds and once for 2, each game a Tie for both players; and its
#: scripts ``examples/bot_vs_bot.py`` (``main_old``: WarpGateBot against ZergRushBot, 2 s, a replay
#: saved) and ``examples/play_tvz.py`` (ZergRushBot against a human, realtime; the human replaced
#: by a bot here, played to the end).
VERSUS: tuple[str, ...] = ("CannonRushBot", "FindAdeptShadesBot", "ThreebaseVoidrayBot", "WarpGateBot", "CyclonePush",
                           "MassReaperBot", "BCRushBot", "ProxyRaxBot", "RampWallBot", "ExpandEverywhere",
                           "Hydralisk", "BroodlordBot", "ZergRushBot")

_CHILD_VERSUS = r"""
import json, sys, time, traceback
sys.path.insert(0, sys.argv[1])
spec = json.loads(sys.argv[2])
out = {"example": " vs ".join(p["cls"] for p in spec["players"]), "result": None, "error": None}
try:
    from loguru import logger
    logger.remove()
    errors = []
    logger.add(lambda m: errors.append(str(m)), level="ERROR")
    import importlib
    from sc2 import maps
    from sc2.data import Race
    from sc2.main import run_game
    from sc2.player import Bot
    bots = [getattr(importlib.import_module(p["module"]), p["cls"])() for p in spec["players"]]
    t0 = time.perf_counter()
    kw = {"save_replay_as": spec["replay"]} if spec.get("replay") else {}
    result = run_game(maps.get(spec["map"]), [Bot(Race[p["race"]], b) for p, b in zip(spec["players"], bots)],
                      realtime=spec["realtime"], game_time_limit=spec["time_limit"], **kw)
    out["wall_s"] = round(time.perf_counter() - t0, 2)
    out["result"] = [getattr(r, "name", str(r)) for r in result] if isinstance(result, list) else str(result)
    out["game_s"] = [round(getattr(getattr(b, "state", None), "game_loop", 0) / 22.4, 1) for b in bots]
    out["on_end_called"] = [getattr(b, "on_end_called", None) for b in bots]
    out["units"] = [len(getattr(b, "units", [])) + len(getattr(b, "structures", [])) for b in bots]
    if spec.get("replay"):
        import os
        out["replay_bytes"] = os.path.getsize(spec["replay"]) if os.path.exists(spec["replay"]) else 0
""" + _CHILD_END


def _checkout(path: Path) -> tuple[Path, Path | None]:
    """A work tree with ``examples/`` from ``path`` (a work tree, or a bare repo: HEAD unpacked)."""
    if (path / "examples").is_dir():
        return path, None
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        tmp = Path(tempfile.mkdtemp(prefix="python-sc2-"))
        archive = subprocess.run(["git", "--git-dir", str(path), "archive", "HEAD", "examples"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        return tmp, tmp
    raise SystemExit(f"{path}: neither a python-sc2 work tree (no examples/) nor a bare git repository")


def _main_matchup(root: Path, ex: Example) -> tuple[str, str]:
    """The Computer race and difficulty an example's own ``main()`` plays (first ``Computer(...)``)."""
    src = (root / (ex.module.replace(".", "/") + ".py")).read_text()
    m = re.search(r"Computer\(\s*Race\.(\w+)\s*,\s*Difficulty\.(\w+)", src)
    if m is None:
        return "Protoss", "Easy"
    return m.group(1), m.group(2)


def _main_version(root: Path, ex: Example) -> str | None:
    """The client release an example's ``main()`` pins (``sc2_version="4.7"``), None if none: the
    engine then serves that release's known differences (``sc2pool.engine.data.versions``)."""
    src = (root / (ex.module.replace(".", "/") + ".py")).read_text()
    m = re.search(r"sc2_version\s*=\s*[\"']([\d.]+)[\"']", src)
    return m.group(1) if m else None


def _main_map(root: Path, ex: Example, bundled: set[str], fallback: str) -> str:
    """The ladder map an example's own ``main()`` plays (``maps.get("(2)CatalystLE")``) under the
    name the engine installs it (``CatalystLE``), or ``fallback`` where the engine does not ship it
    (``AcropolisLE`` is a 2019 map; sc2maptool's 24 end with 2018)."""
    src = (root / (ex.module.replace(".", "/") + ".py")).read_text()
    m = re.search(r"maps\.get\(\s*[\"']([^\"']+)[\"']", src)
    if m is None:
        return fallback
    name = re.sub(r"^\(\d\)", "", m.group(1)).replace(" ", "")
    return name if name in bundled else fallback


def _engine_warnings(log: Path, limit: int = 20) -> dict[str, int]:
    """The engine log's WARNING and ERROR lines, without their timestamp, each with its count."""
    seen: dict[str, int] = {}
    for line in log.read_text(errors="replace").splitlines():
        m = re.search(r"\b(WARNING|ERROR|CRITICAL)\b", line)
        if m is None:
            continue
        key = re.sub(r"sc2pool-engine\[\d+\] ", "", line[m.start():].strip())[:300]
        if key in seen or len(seen) < limit:
            seen[key] = seen.get(key, 0) + 1
    return seen


def _play(spec: dict[str, object], root: Path, env: dict[str, str], timeout: float,
          child: str = _CHILD) -> tuple[str, str, int]:
    """One game in a child process of its own session; the child and the game processes it starts
    are killed with their process group however this ends (a timeout, Ctrl-C, a SIGTERM)."""
    proc = subprocess.Popen([sys.executable, "-c", child, str(root), json.dumps(spec)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        return stdout, stderr, proc.returncode
    finally:
        try:  # even after the child exited: the game process it started is in its group
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def _versus(args: argparse.Namespace, root: Path) -> int:
    """python-sc2's bots-against-each-other procedure, then its two bot-against-bot scripts."""
    from itertools import combinations

    from sc2pool.engine.install import ensure_install

    env = dict(os.environ, SC2PATH=str(ensure_install(set_env=False)))
    by_cls = {e.cls: e for e in EXAMPLES}

    def player(cls: str) -> dict[str, str]:
        e = by_cls[cls]
        return {"module": e.module, "cls": e.cls, "race": e.race}

    specs: list[dict[str, object]] = []
    for a, b in combinations(VERSUS, 2):
        if args.only and not ({a, b, by_cls[a].module, by_cls[b].module} & set(args.only)):
            continue
        # (its "realtime" variant also plays realtime=False, for 2 s); --time-limit: once, that long
        for limit in ((args.time_limit,) if args.time_limit else (10, 2)):
            specs.append({"players": [player(a), player(b)], "map": args.map, "realtime": False,
                          "time_limit": limit, "want": "Tie"})
    replay = Path(tempfile.mkdtemp(prefix="bot-vs-bot-")) / "Example.SC2Replay"
    if not args.only or "bot_vs_bot" in args.only:
        specs.append({"players": [player("WarpGateBot"), player("ZergRushBot")], "map": args.map, "realtime": False,
                      "time_limit": 2, "replay": str(replay), "want": "Tie", "script": "bot_vs_bot.py main_old"})
    if not args.only or "play_tvz" in args.only:
        specs.append({"players": [player("ProxyRaxBot"), player("ZergRushBot")], "map": args.map, "realtime": True,
                      "time_limit": None, "want": "end", "script": "play_tvz.py"})
    results = []
    try:
        for spec in specs:
            t0 = time.perf_counter()
            try:
                stdout, stderr, code = _play(spec, root, env, args.timeout, _CHILD_VERSUS)
                line = next((s for s in stdout.splitlines() if s.startswith("RESULT ")), None)
                out = json.loads(line[7:]) if line else {"result": None,
                                                          "error": f"no result (exit {code}): {stderr.strip()[-400:]}"}
            except subprocess.TimeoutExpired:
                out = {"result": None, "error": f"timed out after {args.timeout:.0f} s"}
            out.update(map=args.map, time_limit=spec["time_limit"], realtime=spec["realtime"],
                       script=spec.get("script"), total_s=round(time.perf_counter() - t0, 1))
            res = out.get("result")
            if spec["want"] == "Tie":
                # The player that reaches the limit first returns a Tie and leaves; one stepping a
                # longer game_step (ZergRushBot steps 2 loops, most others 8) is still waiting for
                # its step then, and the leave gives it the Victory, as a leave does. python-sc2's
                # script asserts a Tie for both, but its CI does not run it ("TODO Fix"), so what
                # the real game answers here is not known.
                ok = isinstance(res, list) and "Tie" in res and set(res) <= {"Tie", "Victory"}
            else:  # played to its end: one side won
                ok = isinstance(res, list) and sorted(res) == ["Defeat", "Victory"]
            ok = ok and not out.get("error") and all(v is not False for v in out.get("on_end_called", []))
            if spec.get("replay"):
                ok = ok and out.get("replay_bytes", 0) > 0
            out["ok"] = ok
            results.append(out)
            print(json.dumps(out), flush=True)
    finally:
        shutil.rmtree(replay.parent, ignore_errors=True)
    n_ok = sum(1 for r in results if r["ok"])
    print(f"summary: {n_ok}/{len(results)} as expected", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))
    return 0 if n_ok == len(results) else 1


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so _play's cleanup runs on a SIGTERM
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--python-sc2", required=True, type=Path, help="python-sc2 work tree or bare git repository")
    p.add_argument("--map", default="AbyssalReefLE", help="ladder map every game is played on (default: %(default)s); 'own' in main mode: each "
                   "example's own main() map where the engine ships it (CatalystLE), else AcidPlantLE")
    p.add_argument("--mode", choices=("ci", "main", "versus"), default="ci",
                   help="ci: python-sc2's CI procedure (a Tie expected); main: each example's own match-up (a win "
                        "expected); versus: its bots-against-each-other procedure (every pair, a Tie expected), "
                        "then bot_vs_bot.py and play_tvz.py (its human replaced by ProxyRaxBot) to their end")
    p.add_argument("--opponent", default=None,
                   help="Computer race (ci mode: default Protoss; main mode: replaces the race main() writes, "
                        "e.g. Terran while the engine simulates Terran only)")
    p.add_argument("--difficulty", default=None,
                   help="Computer difficulty (ci mode: default Easy; main mode: replaces the one main() writes)")
    p.add_argument("--build", default=None, choices=("RandomBuild", "Rush", "Timing", "Power", "Macro", "Air"),
                   help="the Computer's AIBuild (default: RandomBuild, as Computer(race, difficulty) gives)")
    p.add_argument("--time-limit", type=int, default=None,
                   help="game seconds per game (ci mode: default 240; main mode: default none, the game plays "
                        "to its end)")
    p.add_argument("--engine-log", type=Path, default=None,
                   help="folder for each game's full engine log (SC2POOL_ENGINE_LOG); its warnings (abilities "
                        "the engine refuses as not simulated, ...) are added to the game's result")
    p.add_argument("--full-length", action="store_true",
                   help="play RampWallBot and SlowBot the whole --time-limit too (python-sc2's CI gives them 2 s)")
    p.add_argument("--only", nargs="*", default=None,
                   help="groups (terran zerg protoss other) or module names to run (default: all)")
    p.add_argument("--games", type=int, default=1,
                   help="games per example (unseeded: main() results vary; several give a win rate)")
    p.add_argument("--timeout", type=float, default=900.0, help="wall seconds per game before it is killed")
    p.add_argument("--json", type=Path, default=None, help="also write every result to this file")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games must be at least 1, got {args.games}")

    root, tmp = _checkout(args.python_sc2.expanduser().resolve())
    if args.mode == "versus":
        try:
            return _versus(args, root)
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
    chosen = [e for e in EXAMPLES if not args.only or e.group in args.only or e.module in args.only
              or e.module.rsplit(".", 1)[-1] in args.only]
    results = []
    try:
        from sc2pool.engine.install import ensure_install
        from sc2pool.engine.terrain.catalogue import bundled_maps

        env = dict(os.environ, SC2PATH=str(ensure_install(set_env=False)))
        bundled = set(bundled_maps())
        for ex in chosen:
            opp, diff = ("Protoss", "Easy") if args.mode == "ci" else _main_matchup(root, ex)
            opp, diff = args.opponent or opp, args.difficulty or diff
            limit = args.time_limit if args.time_limit is not None else (240 if args.mode == "ci" else None)
            if ex.cls in SHORT_IN_CI and not args.full_length and args.mode == "ci":
                limit = min(limit or SHORT_IN_CI[ex.cls], SHORT_IN_CI[ex.cls])
            game_map = args.map
            if args.map == "own":
                game_map = _main_map(root, ex, bundled, "AcidPlantLE") if args.mode == "main" else "AcidPlantLE"
            spec = {"module": ex.module, "cls": ex.cls, "race": ex.race, "map": game_map, "opponent": opp,
                    "difficulty": diff, "build": args.build, "time_limit": limit,
                    "sc2_version": _main_version(root, ex) if args.mode == "main" else None}
            for k in range(args.games):
                out = _one(args, ex, spec, root, env, k)
                results.append(out)
                print(json.dumps(out), flush=True)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return _summary(args, results)


def _one(args: argparse.Namespace, ex: Example, spec: dict[str, object], root: Path, env: dict[str, str],
         k: int) -> dict[str, object]:
    """Play game ``k`` of one example; its result line (with ``ok``: ended as the mode expects)."""
    opp, diff, game_map = spec["opponent"], spec["difficulty"], spec["map"]
    game_env, log = env, None
    if args.engine_log is not None:
        args.engine_log.mkdir(parents=True, exist_ok=True)
        suffix = f"-{k}" if args.games > 1 else ""
        log = args.engine_log / f"{ex.module.rsplit('.', 1)[-1]}-{args.mode}{suffix}.log"
        log.unlink(missing_ok=True)
        game_env = dict(env, SC2POOL_ENGINE_LOG=str(log))
    t0 = time.perf_counter()
    try:
        stdout, stderr, code = _play(spec, root, game_env, args.timeout)
        line = next((s for s in stdout.splitlines() if s.startswith("RESULT ")), None)
        out = json.loads(line[7:]) if line else {"example": ex.module, "result": None,
                                                  "error": f"no result (exit {code}): "
                                                           f"{stderr.strip()[-400:]}"}
    except subprocess.TimeoutExpired:
        out = {"example": ex.module, "result": None, "error": f"timed out after {args.timeout:.0f} s"}
    out.update(opponent=f"{opp} {diff}", map=game_map, sc2_version=spec["sc2_version"], total_s=round(time.perf_counter() - t0, 1))
    if log is not None and log.is_file():
        out["engine_warnings"] = _engine_warnings(log)
    want = "Tie" if args.mode == "ci" else "Victory"
    out["ok"] = out.get("result") == want and not out.get("error")
    out["game"] = k
    return out


def _summary(args: argparse.Namespace, results: list[dict[str, object]]) -> int:
    """Print the counts (per example too when each played several games); exit status 0 when every
    game ended as the mode expects."""
    if args.games > 1:
        per: dict[str, dict[str, int]] = {}
        for r in results:
            key = "crash" if r.get("error") else str(r.get("result"))
            tally = per.setdefault(str(r["example"]), {})
            tally[key] = tally.get(key, 0) + 1
        for name, tally in per.items():
            print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())), flush=True)
    counts: dict[str, int] = {}
    for r in results:
        key = "crash" if r.get("error") else str(r.get("result"))
        counts[key] = counts.get(key, 0) + 1
    print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
          f"; {sum(1 for r in results if r['ok'])}/{len(results)} as expected", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
