"""Benchmark the sc2pool engine with unmodified burnysc2 against the engine's speed targets.

Measures, on this machine:

* env step (one burnysc2 iteration, game_step 8) for MoveToBeacon and DefeatRoaches, over the
  websocket (``sc2pool engine serve`` in another process, persistent connection, run_match) and
  over the in-process transport; the engine's own share (time inside the request dispatcher);
* reset on a persistent connection: the raw protocol sequence (leave_game, create_game, join_game,
  first observation), and burnysc2's full reset to the bot's first ``on_step``;
* 100 vs 100 (``Battle100v100``): the engine alone, ``Game.step(8)`` and step + observation;
* optionally (``--launch``) ``run_game`` through the fake install: launch to first step.

Prints a table comparing with the real game (one SC2 instance: ~210 MoveToBeacon steps/s at
step_mul 8, i.e. ~4.8 ms/step; reset ~17 ms; launch ~5 s) and writes JSON (``--json``).

Run: ``python benchmarks/bench_engine.py [--steps 1500] [--json out.json] [--launch]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine"))  # conformance bots and harness

from conformance_bots import BeaconBot, EndGameBot, FightBot, RecordingBot  # noqa: E402
from engine_harness import ServeProcess, play, quiet_loguru, scenario_map  # noqa: E402

# Targets and real-game reference figures.
TARGETS_MS = {"MoveToBeacon": 1.2, "DefeatRoaches": 1.6, "reset": 20.0, "battle_engine": 2.0}
REAL_SC2 = {"MoveToBeacon_step_ms": 1000 / 210, "reset_ms": 17.0, "launch_s": 5.0}


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _summ(xs_s: list[float]) -> dict[str, float]:
    ms = [x * 1e3 for x in xs_s]
    return {
        "n": len(ms),
        "mean_ms": statistics.fmean(ms) if ms else float("nan"),
        "p50_ms": _pct(ms, 0.5),
        "p90_ms": _pct(ms, 0.9),
    }


def _engine_ms_per_step(stats: dict[str, dict[str, float]], steps: int) -> float:
    """Engine time in the per-step requests (observation, game_info, action, step) per env step."""
    kinds = ("observation", "game_info", "action", "step", "debug", "query")
    total = sum(stats.get(k, {}).get("total_ms", 0.0) for k in kinds)
    return total / max(1, stats.get("step", {}).get("count", steps))


def _merge_stats(lines: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in lines:
        for k, v in line["requests"].items():
            d = out.setdefault(k, {"count": 0, "total_ms": 0.0})
            d["count"] += v["count"]
            d["total_ms"] += v["total_ms"]
    return out


def _make_bot(scenario: str) -> RecordingBot:
    return BeaconBot() if scenario == "MoveToBeacon" else FightBot()


def _matches(scenario: str, n_steps: int) -> tuple[list[Any], list[RecordingBot]]:
    """Enough episodes of ``scenario`` for ~n_steps env steps (episodes end by the scenario)."""
    from sc2.data import Race
    from sc2.main import GameMatch
    from sc2.player import Bot

    per_episode = 336 if scenario == "MoveToBeacon" else 120
    bots = [_make_bot(scenario) for _ in range(max(1, n_steps // per_episode + 1))]
    return [GameMatch(scenario_map(scenario), [Bot(Race.Terran, b)]) for b in bots], bots


async def _play_steps(ws: Any, scenario: str, n_steps: int) -> dict[str, Any]:
    matches, bots = _matches(scenario, n_steps)
    t0 = time.perf_counter()
    results = await play(ws, matches)
    wall = time.perf_counter() - t0
    times = [t for b in bots for t in b.step_times]
    steps = sum(b.log["steps"] for b in bots)
    return {
        "episodes": len(bots),
        "steps": steps,
        "results": [getattr(r, "name", str(r)) for r in results],
        "wall_s": wall,
        "step": _summ(times),
    }


def _raw_reset_ws_sequence(map_path: str) -> list[bytes]:
    from s2clientprotocol import common_pb2
    from s2clientprotocol import sc2api_pb2 as sc

    opts = sc.InterfaceOptions(raw=True, score=True, raw_crop_to_playable_area=False)
    return [
        sc.Request(leave_game=sc.RequestLeaveGame()).SerializeToString(),
        sc.Request(
            create_game=sc.RequestCreateGame(
                local_map=sc.LocalMap(map_path=map_path),
                player_setup=[sc.PlayerSetup(type=sc.Participant)],
                realtime=False,
            )
        ).SerializeToString(),
        sc.Request(join_game=sc.RequestJoinGame(race=common_pb2.Terran, options=opts)).SerializeToString(),
        sc.Request(observation=sc.RequestObservation()).SerializeToString(),
    ]


async def _raw_reset(send_recv: Any, map_path: str, n: int) -> list[float]:
    from s2clientprotocol import sc2api_pb2 as sc

    seq = _raw_reset_ws_sequence(map_path)
    for raw in seq[1:]:  # enter a game first
        await send_recv(raw)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        for raw in seq:
            resp = sc.Response.FromString(await send_recv(raw))
            if resp.error:
                raise RuntimeError(f"reset request failed: {list(resp.error)}")
        times.append(time.perf_counter() - t0)
    return times


async def _round_trips(send_recv: Any, n: int = 1000) -> dict[str, dict[str, float]]:
    """Request round trips in a MoveToBeacon game (after _raw_reset left one running)."""
    from s2clientprotocol import sc2api_pb2 as sc

    kinds = {
        "ping": sc.Request(ping=sc.RequestPing()).SerializeToString(),
        "game_info": sc.Request(game_info=sc.RequestGameInfo()).SerializeToString(),
        "observation": sc.Request(observation=sc.RequestObservation()).SerializeToString(),
    }
    out = {}
    for name, raw in kinds.items():
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            await send_recv(raw)
            times.append(time.perf_counter() - t0)
        out[name] = _summ(times)
    return out


async def _bot_reset(ws: Any, scenario: str, n: int) -> list[float]:
    """Episode boundary to the bot's first on_step via burnysc2 (create, join, data, game_info, ...)."""
    from sc2.data import Race
    from sc2.main import GameMatch
    from sc2.player import Bot

    times = []
    for _ in range(n):
        bot = EndGameBot(at=0, victory=False)
        match = GameMatch(scenario_map(scenario), [Bot(Race.Terran, bot)])
        t0 = time.perf_counter()
        await play(ws, [match])
        times.append(bot.log["start_time"] - t0)
    return times


def bench_ws(args: argparse.Namespace) -> dict[str, Any]:
    import aiohttp

    stats_file = Path(tempfile.mkdtemp(prefix="sc2pool-bench-")) / "stats.jsonl"
    out: dict[str, Any] = {}
    with ServeProcess(env={"SC2POOL_ENGINE_STATS": str(stats_file)}) as server:

        async def run() -> None:
            async with aiohttp.ClientSession() as http:
                for scenario in ("MoveToBeacon", "DefeatRoaches"):
                    ws = await server.connect(http)
                    await _play_steps(ws, scenario, 60)  # warm-up (imports, caches)
                    await ws.close()
                    stats_file.unlink(missing_ok=True)
                    ws = await server.connect(http)
                    res = await _play_steps(ws, scenario, args.steps)
                    await ws.close()
                    deadline = time.monotonic() + 10
                    while not stats_file.exists() and time.monotonic() < deadline:
                        await asyncio.sleep(0.01)
                    await asyncio.sleep(0.05)
                    stats = _merge_stats([json.loads(x) for x in stats_file.read_text().splitlines()])
                    res["engine_ms_per_step"] = _engine_ms_per_step(stats, res["steps"])
                    res["engine_requests"] = stats
                    out[scenario] = res
                    stats_file.unlink(missing_ok=True)
                ws = await server.connect(http)

                async def send_recv(raw: bytes) -> bytes:
                    await ws.send_bytes(raw)
                    return await ws.receive_bytes()

                out["raw_reset"] = _summ(await _raw_reset(send_recv, "mini_games/MoveToBeacon.SC2Map", args.resets))
                out["bot_reset"] = _summ(await _bot_reset(ws, "MoveToBeacon", args.resets))
                out["round_trip"] = await _round_trips(send_recv)
                await ws.close()

        asyncio.run(run())
    return out


def bench_inprocess(args: argparse.Namespace) -> dict[str, Any]:
    from sc2pool.engine.session import DispatchStats
    from sc2pool.engine.transport import connect_inprocess

    out: dict[str, Any] = {}

    async def run() -> None:
        for scenario in ("MoveToBeacon", "DefeatRoaches"):
            await _play_steps(connect_inprocess(), scenario, 60)
            stats = DispatchStats()
            res = await _play_steps(connect_inprocess(stats=stats), scenario, args.steps)
            res["engine_ms_per_step"] = _engine_ms_per_step(stats.as_dict(), res["steps"])
            res["engine_requests"] = stats.as_dict()
            out[scenario] = res
        t = connect_inprocess()

        async def send_recv(raw: bytes) -> bytes:
            return t.request(raw)

        out["raw_reset"] = _summ(await _raw_reset(send_recv, "mini_games/MoveToBeacon.SC2Map", args.resets))
        out["bot_reset"] = _summ(await _bot_reset(connect_inprocess(), "MoveToBeacon", args.resets))
        out["round_trip"] = await _round_trips(send_recv)
        out["bot_vs_bot"] = await _bot_vs_bot_steps(args.steps)

    asyncio.run(run())
    return out


async def _bot_vs_bot_steps(n_steps: int) -> dict[str, Any]:
    """Two FightBots on Skirmish through two in-process transports (lockstep): time per env step."""
    from sc2.controller import Controller
    from sc2.data import Race
    from sc2.main import GameMatch, run_match
    from sc2.player import Bot

    from sc2pool.engine.session import RoomRegistry
    from sc2pool.engine.transport import connect_inprocess

    reg = RoomRegistry()
    controllers = [Controller(connect_inprocess(registry=reg), None), Controller(connect_inprocess(registry=reg), None)]  # type: ignore[arg-type]
    bots: list[RecordingBot] = []
    while sum(b.log["steps"] for b in bots[::2]) < n_steps // 4:
        a, b = FightBot(), FightBot()
        bots += [a, b]
        await run_match(controllers, GameMatch(scenario_map("Skirmish"), [Bot(Race.Terran, a), Bot(Race.Zerg, b)]), close_ws=False)
    times = [t for b in bots[::2] for t in b.step_times]
    return {"episodes": len(bots) // 2, "steps": sum(b.log["steps"] for b in bots[::2]), "step": _summ(times)}


def bench_battle(args: argparse.Namespace) -> dict[str, Any]:
    """The engine alone on Battle100v100: Game.step(8), and step + observation + serialization."""
    from s2clientprotocol import common_pb2
    from s2clientprotocol import sc2api_pb2 as sc

    from sc2pool.engine.game import Game

    def new_game() -> Any:
        g = Game.create(
            sc.RequestCreateGame(
                local_map=sc.LocalMap(map_path="Battle100v100.SC2Map"),
                player_setup=[sc.PlayerSetup(type=sc.Participant)],
                random_seed=1,
            )
        )
        pid = g.join(sc.RequestJoinGame(race=common_pb2.Terran, options=sc.InterfaceOptions(raw=True, score=True)))
        return g, pid

    out: dict[str, Any] = {}
    for mode in ("step", "step+observation"):
        times: list[float] = []
        g, pid = new_game()
        units = []
        while len(times) < args.battle_steps:
            if g.ended:
                g, pid = new_game()
            t0 = time.perf_counter()
            g.step(8)
            if mode != "step":
                obs = g.observation(pid, sc.RequestObservation())
                obs.SerializeToString()
            times.append(time.perf_counter() - t0)
            if mode != "step":
                units.append(len(obs.observation.raw_data.units))
        out[mode] = _summ(times)
        if units:
            out[mode]["units_first"] = units[0]
            out[mode]["units_last"] = units[-1]
    return out


def bench_launch(args: argparse.Namespace) -> dict[str, Any]:
    """run_game through the fake install (subprocess; run_game needs a main thread)."""
    from sc2pool.engine.install import write_install

    root = write_install(Path(tempfile.mkdtemp(prefix="sc2pool-bench-sc2-")))
    script = ROOT / "tests" / "engine" / "run_game_script.py"
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, str(script), "victory:MoveToBeacon"],
        env={**os.environ, "SC2PATH": str(root)}, capture_output=True, text=True, timeout=120,
    )
    total = time.perf_counter() - t0
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    game = next((x for x in lines if "spec" in x), None)
    return {"process_total_s": total, "run_game_s": game["wall_s"] if game else None,
            "result": game["run_game_result"] if game else p.stdout[-500:] + p.stderr[-500:],
            "engine_cold_start_s": _cold_start(root)}


def _cold_start(root: Path, n: int = 3) -> dict[str, float]:
    """Launcher exec to a served ping (polling every 5 ms), and quit to process exit."""
    import aiohttp
    import portpicker
    from s2clientprotocol import sc2api_pb2 as sc

    starts, exits = [], []
    for _ in range(n):
        port = portpicker.pick_unused_port()
        t0 = time.perf_counter()
        proc = subprocess.Popen([str(root / "Versions" / "Base94137" / "SC2_x64"), "-listen", "127.0.0.1", "-port", str(port)],
                                stdout=subprocess.DEVNULL)

        async def ping_quit(port: int, proc: subprocess.Popen, t0: float) -> float:
            async with aiohttp.ClientSession() as http:
                while True:
                    try:
                        ws = await http.ws_connect(f"ws://127.0.0.1:{port}/sc2api")
                        break
                    except aiohttp.ClientConnectorError:
                        if proc.poll() is not None or time.perf_counter() - t0 > 30:
                            raise
                        await asyncio.sleep(0.005)
                await ws.send_bytes(sc.Request(ping=sc.RequestPing()).SerializeToString())
                await ws.receive_bytes()
                up = time.perf_counter() - t0
                await ws.send_bytes(sc.Request(quit=sc.RequestQuit()).SerializeToString())
                await ws.receive_bytes()
                return up

        try:
            starts.append(asyncio.run(ping_quit(port, proc, t0)))
            t1 = time.perf_counter()
            proc.wait(timeout=10)
            exits.append(time.perf_counter() - t1)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return {"start_to_ping_s": statistics.fmean(starts), "quit_to_exit_ms": statistics.fmean(exits) * 1e3}


def _row(name: str, value: float, unit: str, target: float | None = None, real: str = "") -> str:
    ok = "" if target is None else ("PASS" if value <= target else "FAIL")
    tgt = "" if target is None else f"<= {target:g}"
    return f"{name:<48s} {value:>9.3f} {unit:<5s} {tgt:>8s} {ok:>5s}  {real}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1500, help="env steps per scenario and transport")
    ap.add_argument("--resets", type=int, default=30)
    ap.add_argument("--battle-steps", type=int, default=200)
    ap.add_argument("--launch", action="store_true", help="also time run_game through the fake install")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--only", choices=["ws", "inprocess", "battle"], default=None)
    args = ap.parse_args(argv)
    quiet_loguru("ERROR")

    res: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                    "loadavg_before": os.getloadavg()},
        "real_sc2_reference": REAL_SC2,
        "targets_ms": TARGETS_MS,
    }
    if args.only in (None, "ws"):
        res["ws"] = bench_ws(args)
    if args.only in (None, "inprocess"):
        res["inprocess"] = bench_inprocess(args)
    if args.only in (None, "battle"):
        res["battle100v100_engine"] = bench_battle(args)
    if args.launch:
        res["launch"] = bench_launch(args)

    res["machine"]["loadavg_after"] = os.getloadavg()
    real_step = REAL_SC2["MoveToBeacon_step_ms"]
    print()
    load = max(res["machine"]["loadavg_before"][0], res["machine"]["loadavg_after"][0])
    print(f"machine: {os.cpu_count()} CPUs, 1-min load average up to {load:.2f}"
          + ("  (BUSY: timings are inflated by other processes)" if load > 0.5 * (os.cpu_count() or 1) else ""))
    print(f"{'measurement':<48s} {'value':>9s} {'unit':<5s} {'target':>8s} {'':>5s}  real SC2")
    print("-" * 100)
    for tr in ("ws", "inprocess"):
        if tr not in res:
            continue
        r = res[tr]
        for sc_name, tgt in (("MoveToBeacon", TARGETS_MS["MoveToBeacon"]), ("DefeatRoaches", TARGETS_MS["DefeatRoaches"])):
            s = r[sc_name]
            ref = f"~{real_step:.2f} ms (210 steps/s)" if sc_name == "MoveToBeacon" else ""
            print(_row(f"[{tr}] {sc_name} env step (mean, {s['steps']} steps)", s["step"]["mean_ms"], "ms",
                       tgt if tr == "ws" else None, ref))
            print(_row(f"[{tr}] {sc_name} env step p50 / steps per s", s["step"]["p50_ms"], "ms", None,
                       f"{1000 / s['step']['mean_ms']:.0f} steps/s here"))
            print(_row(f"[{tr}] {sc_name} engine share per step", s["engine_ms_per_step"], "ms"))
        print(_row(f"[{tr}] reset: leave+create+join+observation", r["raw_reset"]["mean_ms"], "ms",
                   TARGETS_MS["reset"] if tr == "ws" else None, "~17 ms"))
        print(_row(f"[{tr}] reset: burnysc2 episode start to on_step", r["bot_reset"]["mean_ms"], "ms"))
        for kind, v in r["round_trip"].items():
            print(_row(f"[{tr}] round trip {kind} (p50)", v["p50_ms"], "ms"))
        if "bot_vs_bot" in r:
            v = r["bot_vs_bot"]
            print(_row(f"[{tr}] Skirmish bot vs bot, step of both bots (mean)", v["step"]["mean_ms"], "ms"))
    if "battle100v100_engine" in res:
        b = res["battle100v100_engine"]
        print(_row("[engine] Battle100v100 Game.step(8)", b["step"]["mean_ms"], "ms", TARGETS_MS["battle_engine"]))
        print(_row("[engine] Battle100v100 step(8)+observation+serialize", b["step+observation"]["mean_ms"], "ms"))
    if "launch" in res and res["launch"].get("run_game_s"):
        cold = res["launch"]["engine_cold_start_s"]
        print(_row("[launch] engine exec to first ping answered", cold["start_to_ping_s"], "s", None, "SC2 launch ~5 s"))
        print(_row("[launch] quit reply to process exit", cold["quit_to_exit_ms"], "ms"))
        print(_row("[run_game] launch + 4-step game + quit, total", res["launch"]["run_game_s"], "s", None,
                   "1.0 s of it is burnysc2's fixed sleep"))
    print()
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2, default=str))
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
