"""The macro tasks on the engine: spaces, every action decodes, the scripted baselines make
progress (refineries and gas; barracks and marines), through burnysc2 in-process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from engine_harness import play_bot as play
from engine_harness import quiet_loguru

from workers.sc2.tasks import make_task


def _run(task_name: str, until_loop: int, action: int | None = None) -> dict[str, Any]:
    from sc2.bot_ai import BotAI
    from sc2.ids.unit_typeid import UnitTypeId as U

    task = make_task(task_name, {"scripted": action is None})
    seen: dict[str, Any] = {"obs_ok": True}

    class Bot(BotAI):
        async def on_step(self, iteration: int) -> None:
            if iteration == 0:
                task.episode_start(self)
            obs = task.encode(self)
            seen["obs_ok"] &= bool(task.observation_space.contains(obs))
            if self.state.game_loop >= until_loop:
                seen.update(score=self.state.score.score, marines=self.units(U.MARINE).amount,
                            refineries=self.gas_buildings.ready.amount, vespene=self.vespene,
                            workers=self.workers.amount, barracks=self.structures(U.BARRACKS).ready.amount,
                            depots=self.structures(U.SUPPLYDEPOT).amount)
                await self.client.leave()
                return
            if action is None:
                task.scripted_decode(self)
            else:
                task.decode(self, (iteration + action) % task.action_space.n)  # type: ignore[attr-defined]

    quiet_loguru("ERROR")
    play(task.game_setup().map_name.split("/")[-1].removesuffix(".SC2Map"), Bot())
    return seen


@pytest.mark.timeout(120)
def test_collect_minerals_and_gas_scripted_takes_gas() -> None:
    s = _run("CollectMineralsAndGas", 3200)
    assert s["obs_ok"] and s["refineries"] >= 2 and s["vespene"] > 0 and s["workers"] > 16, s
    assert s["score"] > 1800, s


@pytest.mark.timeout(120)
def test_build_marines_scripted_and_cycling_actions() -> None:
    s = _run("BuildMarines", 3200)
    assert s["obs_ok"] and s["barracks"] >= 2 and s["marines"] >= 3 and s["score"] == s["marines"], s
    # every action index decodes to valid commands (cycling through them builds and trains)
    c = _run("BuildMarines", 2400, action=0)
    assert c["obs_ok"] and c["depots"] >= 1 and c["workers"] > 12, c
