"""An older release's data when a bot pins one (``run_game(..., sc2_version=...)``: ``-dataVersion``).

The data is built once per process, so each case runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from helpers.proctree import ProcessTree

from sc2pool.engine.install import write_install

HASH_4_7 = "8E216E34BC61ABDE16A59A672ACB0F3B"  # burnysc2 sc2/versions.py, label "4.7"
HASH_4_7_1 = "94596A85191583AD2EBFAE28C5D532DB"  # label "4.7.1"

_PROBE = textwrap.dedent("""
    import json, sys
    from sc2pool.engine.data import client, tech, versions
    label = versions.select(sys.argv[1]) if sys.argv[1] else None
    cyclone = client.unit_type(692)
    train = next(s for s in tech._train().values() if s.unit_id == 692)
    out = {"label": label, "has_requirement": cyclone.HasField("tech_requirement"),
           "attached": cyclone.require_attached, "requires_addon": train.requires.addon,
           "minerals": cyclone.mineral_cost, "marauder_addon": client.unit_type(51).tech_requirement}
    try:
        versions.select(sys.argv[1] or "00")
        out["late_select"] = "allowed"
    except RuntimeError as exc:
        out["late_select"] = str(exc)
    print(json.dumps(out))
""")


def _probe(data_hash: str, process_tree: ProcessTree) -> dict[str, object]:
    done = process_tree.run([sys.executable, "-c", _PROBE, data_hash], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.timeout(150)
def test_release_4_7_serves_a_cyclone_without_a_tech_lab(process_tree: ProcessTree) -> None:
    old = _probe(HASH_4_7, process_tree)
    assert old["label"] == "4.7"
    assert old["has_requirement"] is False and old["attached"] is False and old["requires_addon"] == 0
    assert old["minerals"] == 150 and old["marauder_addon"] == 5  # nothing else changed
    assert "before the engine first uses its data" in str(old["late_select"])
    for data_hash in (HASH_4_7_1, ""):  # 4.7.1 restored the Tech Lab; no -dataVersion: 5.0.11's data
        now = _probe(data_hash, process_tree)
        assert now["has_requirement"] is True and now["attached"] is True and now["requires_addon"] == 5, data_hash


_BOT_GAME = textwrap.dedent("""
    import json, sys
    from sc2 import maps
    from sc2.bot_ai import BotAI
    from sc2.data import Difficulty, Race
    from sc2.main import run_game
    from sc2.player import Bot, Computer

    class Probe(BotAI):
        async def on_step(self, iteration):
            proto = self.game_data.units[692]._proto
            print(json.dumps({"has_requirement": proto.HasField("tech_requirement")}), flush=True)
            await self.client.leave()

    run_game(maps.get("AcidPlantLE"), [Bot(Race.Terran, Probe()), Computer(Race.Zerg, Difficulty.VeryEasy)],
             realtime=False, **({"sc2_version": sys.argv[1]} if sys.argv[1] else {}))
""")


@pytest.mark.timeout(150)
def test_run_game_with_sc2_version_reaches_the_engine(tmp_path: Path, process_tree: ProcessTree) -> None:
    # burnysc2's launcher passes -dataVersion; the bot's own game data shows the release's Cyclone
    env = {**os.environ, "SC2PATH": str(write_install(tmp_path / "StarCraftII"))}
    seen = {}
    for version in ("4.7", ""):
        done = process_tree.run([sys.executable, "-c", _BOT_GAME, version], env=env, capture_output=True,
                                text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
        seen[version] = json.loads(lines[-1])["has_requirement"]
    assert seen == {"4.7": False, "": True}
