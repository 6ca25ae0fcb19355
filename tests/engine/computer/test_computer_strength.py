"""The Computer's strength is ordered by difficulty: a fast subset of
``benchmarks/computer_strength.py`` (whose full run, over three maps and many seeds, is in
``docs/engine.md``, "The Computer").

The fixed reference bot (``tests/engine/reference_bot.py``) plays through burnysc2 against the
Computer in process, as the benchmark's games do, on one seed: it beats VeryEasy and loses to
VeryHard.  A game is deterministic for its seed, so each outcome is a fact about the levels, not
luck.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/engine: the harness and the reference bot

pytest.importorskip("sc2")
from engine_harness import play_bot, quiet_loguru  # noqa: E402
from reference_bot import ReferenceBot  # noqa: E402
from sc2.data import AIBuild, Difficulty, Race, Result  # noqa: E402
from sc2.ids.unit_typeid import UnitTypeId  # noqa: E402
from sc2.player import Computer  # noqa: E402

quiet_loguru()

MAP = "AcidPlantLE"
SEED = 1000
"""The benchmark's first seed (its games on this map at VeryEasy and VeryHard)."""


def play(level: str) -> tuple[Result, ReferenceBot]:
    random.seed(SEED)  # (burnysc2's building placement draws from Python's generator)
    bot = ReferenceBot()
    result, _ = play_bot(MAP, bot, opponent=Computer(Race.Terran, Difficulty[level], AIBuild.RandomBuild), seed=SEED)
    return result, bot


@pytest.mark.timeout(300)  # (~12 s of CPU a game; a busy machine stretches it)
def test_the_reference_bot_beats_very_easy() -> None:
    result, bot = play("VeryEasy")
    assert result == Result.Victory
    assert bot.time < 12 * 60  # (within 6 minutes of its attack at 6:00)


@pytest.mark.timeout(300)  # (~12 s of CPU a game; a busy machine stretches it)
def test_the_reference_bot_loses_to_very_hard() -> None:
    result, bot = play("VeryHard")
    assert result == Result.Defeat
    assert bot.max_marines >= 10  # (it lost with its army built, not before it had one)
    assert not bot.structures(UnitTypeId.COMMANDCENTER)
