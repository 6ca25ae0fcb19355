"""The melee Computer researches upgrades from Medium up (``MeleeComputer.research``, the builds'
``Tech.research``, ``Level.research``): it builds the research structure it lacks and researches
in order, the lower levels fewer entries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_computer_melee import count, melee, play_until  # noqa: E402
from test_computer_tech import no_attack  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.data import tech as T  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402


def upgrades(g: Game) -> set[int]:
    return set(g.world.research.done.get(2, []))


def upgrade_of(ability: int) -> int:
    return T.RESEARCH[ability].upgrade_id


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("race", "build", "research_structure"), [
    (D.TERRAN, L.MACRO, 29),  # Armory: vehicle weapons, plating
    (D.ZERG, L.POWER, R.EVO_T),  # Metabolic Boost, Glial Reconstitution (after the Lair), missile, carapace
    (D.PROTOSS, L.MACRO, R.FORGE_T),  # Forge: ground weapons, ground armor
])
def test_a_hard_computer_builds_its_research_structure_and_researches_its_list(
        race: int, build: int, research_structure: int) -> None:
    g = melee(L.HARD, build, race=race)
    no_attack(g)
    play_until(g, 720)
    c = g.scenario.computers[0]
    wanted = [upgrade_of(a) for a in c.tech.research]  # type: ignore[union-attr]
    assert count(g, 2, research_structure) >= 1
    assert len(wanted) >= 2 and set(wanted) <= upgrades(g)


@pytest.mark.timeout(240)
def test_medium_researches_only_the_first_entry_and_easy_nothing() -> None:
    medium, easy = melee(L.MEDIUM, L.POWER, race=D.ZERG), melee(L.EASY, race=D.ZERG)
    for g in (medium, easy):
        no_attack(g)
        play_until(g, 600)
    assert upgrades(medium) == {upgrade_of(R.METABOLIC_BOOST)}
    assert count(medium, 2, R.EVO_T) == 0
    assert upgrades(easy) == set()
