"""``sc2.main.run_game`` unmodified through the fake install (issue 3, items 1 and 5).

``run_game`` must run in a main thread (it installs a SIGINT handler) and costs >= 1 s per game
(burnysc2 sleeps before connecting), so a handful of games run in ONE subprocess running
``run_game_script.py``; the test then checks results, that the engine exits on quit and that no engine process is left.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # sibling helper modules, with or without tests/engine/__init__.py

from helpers.proctree import ProcessTree

from sc2pool.engine.install import write_install

SCRIPT = Path(__file__).with_name("run_game_script.py")


@pytest.mark.timeout(150)
def test_run_game_through_fake_install(tmp_path: Path, process_tree: ProcessTree):
    root = write_install(tmp_path / "StarCraftII")
    specs = [
        "beacon:MoveToBeacon",
        "fight:Skirmish:Zerg:Easy",
        "victory:DefeatRoaches",
        "resign:CollectMineralShards",
        "fight:Skirmish:vs:fight",
        "resign:AbyssalReefLE:Terran:VeryEasy",
        "idle:AcidPlantLE:vs:resign:Terran",
    ]
    env = {**os.environ, "SC2PATH": str(root)}
    done = process_tree.run(
        [sys.executable, str(SCRIPT), *specs], env=env, capture_output=True, text=True, timeout=120
    )
    out, err = done.stdout, done.stderr
    assert done.returncode == 0, err[-3000:]
    lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    games = {x["spec"]: x for x in lines if "spec" in x}
    assert set(games) == set(specs), out[-2000:] + err[-2000:]

    beacon = games["beacon:MoveToBeacon"]
    assert beacon["run_game_result"] in ("Victory", "Defeat", "Tie")
    assert beacon["bot"]["result"] == beacon["run_game_result"], "on_end saw the run_game result"
    assert beacon["bot"]["steps"] > 100 and beacon["bot"]["scores"][-1] >= 1

    fight = games["fight:Skirmish:Zerg:Easy"]
    assert fight["run_game_result"] in ("Victory", "Defeat", "Tie")
    assert fight["bot"]["result"] == fight["run_game_result"]

    # bot vs bot: two engine processes, the second forwards to the host; lockstep; one result each
    bvb = games["fight:Skirmish:vs:fight"]
    assert sorted(bvb["run_game_result"]) in (["Defeat", "Victory"], ["Tie", "Tie"]), bvb
    assert [bvb["bot"]["result"], bvb["bot"]["other"]["result"]] == bvb["run_game_result"]
    assert bvb["bot"]["final_loop"] == bvb["bot"]["other"]["final_loop"], "both saw the same end"

    # a real ladder map, against the Computer and bot against bot (two engine processes)
    assert games["resign:AbyssalReefLE:Terran:VeryEasy"]["run_game_result"] == "Defeat"
    ladder_bvb = games["idle:AcidPlantLE:vs:resign:Terran"]
    assert ladder_bvb["run_game_result"] == ["Victory", "Defeat"], ladder_bvb
    assert ladder_bvb["bot"]["final_loop"] == ladder_bvb["bot"]["other"]["final_loop"]

    assert games["victory:DefeatRoaches"]["run_game_result"] == "Victory"
    assert games["resign:CollectMineralShards"]["run_game_result"] == "Defeat"

    # the engine exits on quit, before burnysc2's cleanup looks: it never needs terminate() (which
    # it follows with a 0.5 s sleep)
    for g in games.values():
        if g is not bvb and g is not ladder_bvb:  # (two bots: the first to finish kills both engines; burnysc2's KillSwitch)
            assert g["teardown_s"] is not None and g["terminated"] == 0, g
    assert lines[-1] == {"children": []}, "no process left below the bot"
