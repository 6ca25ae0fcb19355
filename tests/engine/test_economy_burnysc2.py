"""burnysc2 conformance of the economy: an unmodified macro bot (``macro_bot.py``, only burnysc2's
public API) runs through ``sc2.main.run_game`` on TerranEconomy and reaches 20 marines."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from helpers.proctree import ProcessTree

from sc2pool.engine.install import write_install

SCRIPT = Path(__file__).with_name("macro_bot.py")


@pytest.mark.timeout(150)
def test_macro_bot_reaches_20_marines_through_run_game(tmp_path: Path, process_tree: ProcessTree) -> None:
    root = write_install(tmp_path / "StarCraftII")
    env = {**os.environ, "SC2PATH": str(root)}
    done = process_tree.run([sys.executable, str(SCRIPT), "TerranEconomy"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    rec = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("{")))
    assert rec["max_marines"] >= 20 and rec["reached_at"] is not None, rec
    assert rec["result"] == "Defeat"  # the bot leaves once it has its army
    assert rec["barracks"] == 3 and rec["depots"] >= 2 and rec["workers"] >= 16, rec
    # already_pending as the real game counts: an SCV on its way/building, queued units
    assert rec["pending_seen"]["SUPPLYDEPOT"] >= 1 and rec["pending_seen"]["BARRACKS"] >= 1, rec
    assert rec["pending_seen"]["SCV"] >= 1 and rec["pending_seen"]["MARINE"] >= 1, rec
    assert rec["unready_seen"], rec
    # about 3.7 game minutes at faster speed for 20 marines from a 12-SCV start
    assert 150 < rec["reached_at"] < 330, rec
