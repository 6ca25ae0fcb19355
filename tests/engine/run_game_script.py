"""Run unmodified ``sc2.main.run_game`` against the fake install; one JSON line per game.

Usage: ``SC2PATH=<fake install> python run_game_script.py GAME [GAME...]`` where GAME is
``<bot>:<map>[:<opponent race>:<difficulty>]`` or ``<bot>:<map>:vs:<bot>[:<race>]`` (bot vs bot, Terran vs
Zerg unless the race is given; bots: beacon, fight, idle, resign, victory, surrender, probe). ``run_game`` installs a SIGINT handler, so it must run in a main thread: that is
why the tests call this script in a subprocess. Finally it prints ``{"children": [...]}``: the
processes still alive below this one (must be empty: the engine exits on quit). Each game's line
counts the ``terminate()`` calls burnysc2's cleanup made (0 when the engine had exited on quit).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).parent))

from conformance_bots import (  # noqa: E402
    ApiProbeBot,
    BeaconBot,
    EndGameBot,
    FightBot,
    IdleBot,
    RecordingBot,
    ResignBot,
)
from engine_harness import quiet_loguru  # noqa: E402

BOTS = {
    "beacon": BeaconBot,
    "fight": FightBot,
    "idle": IdleBot,
    "resign": ResignBot,
    "victory": lambda: EndGameBot(victory=True),
    "surrender": lambda: EndGameBot(victory=False),
    "probe": ApiProbeBot,
}


TERMINATED: list[int] = []
_terminate = subprocess.Popen.terminate


def _counted_terminate(self: subprocess.Popen) -> None:  # type: ignore[type-arg]
    """burnysc2's cleanup terminates (then sleeps 0.5 s) only an SC2 process that has not exited yet:
    counting its calls tells whether the engine had already exited on quit."""
    TERMINATED.append(self.pid)
    _terminate(self)


def main(specs: list[str]) -> int:
    subprocess.Popen.terminate = _counted_terminate  # type: ignore[method-assign]
    quiet_loguru("ERROR")
    from sc2 import maps
    from sc2.data import Difficulty, Race
    from sc2.main import run_game
    from sc2.player import Bot, Computer

    for spec in specs:
        parts = spec.split(":")
        bot: RecordingBot = BOTS[parts[0]]()  # type: ignore[operator]
        players: list = [Bot(Race.Terran, bot)]
        other: RecordingBot | None = None
        if len(parts) >= 4 and parts[2] == "vs":  # bot vs bot: two engine processes
            other = BOTS[parts[3]]()  # type: ignore[operator]
            players.append(Bot(Race[parts[4]] if len(parts) > 4 else Race.Zerg, other))
        elif len(parts) >= 4:
            players.append(Computer(Race[parts[2]], Difficulty[parts[3]]))
        t0 = time.perf_counter()
        terminated_before = len(TERMINATED)
        result = run_game(maps.get(parts[1]), players, realtime=False)
        t_end = time.perf_counter()
        wall = t_end - t0
        log = dict(bot.log)
        # from the bot's on_end to run_game's return: leave, quit, close, reap (no terminate sleep)
        teardown = t_end - log.pop("end_time") if "end_time" in log else None
        log["result"] = getattr(log["result"], "name", None)
        log.pop("start_time", None)
        log["scores"] = log["scores"][-1:] if log["scores"] else []
        result_name: Any
        if other is not None:
            log["other"] = {"result": getattr(other.log["result"], "name", None), "steps": other.log["steps"],
                            "final_loop": other.log.get("final_loop")}
            result_name = [getattr(r, "name", str(r)) for r in result]  # type: ignore[union-attr]
        else:
            result_name = getattr(result, "name", str(result))
        print(json.dumps({"spec": spec, "run_game_result": result_name, "wall_s": wall, "teardown_s": teardown,
                          "terminated": len(TERMINATED) - terminated_before, "bot": log}, default=str), flush=True)
    children = [c.pid for c in psutil.Process().children(recursive=True) if c.status() != psutil.STATUS_ZOMBIE]
    print(json.dumps({"children": children}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
