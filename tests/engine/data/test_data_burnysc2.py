"""Unmodified burnysc2 resolves every id it defines against the engine's ResponseData, and its cost,
supply and tech helpers answer for units of all three races (they raised ``KeyError`` before)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

pytest.importorskip("sc2")
import sc2.main  # noqa: E402,F401  (resets loguru; quieten it below)
from loguru import logger  # noqa: E402
from sc2.bot_ai import BotAI  # noqa: E402
from sc2.data import Race  # noqa: E402
from sc2.dicts.unit_research_abilities import RESEARCH_INFO  # noqa: E402
from sc2.dicts.unit_trained_from import UNIT_TRAINED_FROM  # noqa: E402
from sc2.dicts.upgrade_researched_from import UPGRADE_RESEARCHED_FROM  # noqa: E402
from sc2.game_data import Cost, GameData  # noqa: E402
from sc2.ids.ability_id import AbilityId  # noqa: E402
from sc2.ids.buff_id import BuffId  # noqa: E402
from sc2.ids.unit_typeid import UnitTypeId  # noqa: E402
from sc2.ids.upgrade_id import UpgradeId  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.data import client  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from engine_harness import play_bot  # noqa: E402

logger.remove()
logger.add(sys.stderr, level="WARNING")


def _game_data() -> GameData:
    return GameData(D.response_data())


def test_every_unit_type_id_the_client_reports_resolves() -> None:
    gd = _game_data()
    real = client.capture()
    available = {u.unit_id for u in real.units if u.available} | {client.NATURAL_MINERALS}
    members = {m.value for m in UnitTypeId if m.value}
    assert members & available <= set(gd.units)
    # every member the client reports at all is in the engine's answer (burnysc2 keeps available ones)
    assert members & {u.unit_id for u in real.units} <= set(client.units())
    for uid in (UnitTypeId.DRONE, UnitTypeId.NEXUS, UnitTypeId.FACTORY, UnitTypeId.PROBE, UnitTypeId.ULTRALISK):
        assert gd.units[uid.value].name.upper() == uid.name


def test_every_ability_upgrade_and_buff_id_the_client_reports_resolves() -> None:
    gd = _game_data()
    real = client.capture()
    avail_abilities = {a.ability_id for a in real.abilities if a.available}
    assert {m.value for m in AbilityId if m.value} & avail_abilities <= set(gd.abilities)
    assert {m.value for m in UpgradeId if m.value} & {u.upgrade_id for u in real.upgrades} <= set(gd.upgrades)
    assert {m.value for m in BuffId if m.value} & {b.buff_id for b in real.buffs} <= set(client.buffs())
    # and the other way round: what burnysc2 maps to an id is what the client reports under that id
    for a in (AbilityId.BARRACKSTECHLABRESEARCH_STIMPACK, AbilityId.UPGRADETOLAIR_LAIR, AbilityId.WARPGATETRAIN_STALKER):
        assert gd.abilities[a.value].exact_id == a


def test_burnysc2_sees_what_it_sees_on_the_real_client() -> None:
    """Parsed by burnysc2, the engine's answer and the real client's give the same tables (but for
    the documented shard type 1680)."""
    mine, real = _game_data(), GameData(client.capture())
    assert set(mine.units) == set(real.units) | {client.NATURAL_MINERALS}
    assert set(mine.abilities) == set(real.abilities) and set(mine.upgrades) == set(real.upgrades)
    for uid, up in real.upgrades.items():
        ra, ma = up.research_ability, mine.upgrades[uid].research_ability
        assert (ra and ra.exact_id) == (ma and ma.exact_id), uid


def test_costs_of_every_research_and_production_resolve() -> None:
    gd = _game_data()
    for upgrade in UPGRADE_RESEARCHED_FROM:
        up = gd.upgrades[upgrade.value]
        assert up.cost.minerals > 0 or up.cost.vespene > 0, upgrade
        if upgrade == UpgradeId.TEMPESTGROUNDATTACKUPGRADE:
            # burnysc2's name for 297; the client calls it EnhancedShockwaves, researched by ability 822,
            # which burnysc2 7.3.0's AbilityId does not list: on the real client it is None too
            assert up.research_ability is None and client.upgrade(297).ability_id == 822
            continue
        assert up.research_ability is not None, upgrade
    for researcher, info in RESEARCH_INFO.items():
        assert researcher.value in gd.units, researcher
        for upgrade, entry in info.items():
            assert entry["ability"].value in gd.abilities, (researcher, upgrade)
    for unit, producers in UNIT_TRAINED_FROM.items():
        assert unit.value in gd.units, unit
        assert all(p.value in gd.units for p in producers), unit


class AskingBot(BotAI):
    """Asks burnysc2's helpers about units of every race on its first step, then leaves."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: dict[str, Any] = {}
        self.errors: list[str] = []

    async def on_step(self, iteration: int) -> None:
        a = self.answers
        for unit in UNIT_TRAINED_FROM:
            try:
                a[("cost", unit)] = self.calculate_cost(unit)
                a[("supply", unit)] = self.calculate_supply_cost(unit)
                a[("afford", unit)] = self.can_afford(unit)
                a[("pending", unit)] = self.already_pending(unit)
            except Exception as exc:  # noqa: BLE001 - the test reports every failure at once
                self.errors.append(f"{unit}: {type(exc).__name__} {exc}")
        for upgrade in UPGRADE_RESEARCHED_FROM:
            try:
                a[("cost", upgrade)] = self.calculate_cost(upgrade)
                a[("pending_upgrade", upgrade)] = self.already_pending_upgrade(upgrade)
                a[("pending", upgrade)] = self.already_pending(upgrade)
            except Exception as exc:  # noqa: BLE001
                self.errors.append(f"{upgrade}: {type(exc).__name__} {exc}")
        for structure in (UnitTypeId.FACTORY, UnitTypeId.STARPORT, UnitTypeId.BARRACKS, UnitTypeId.ARMORY,
                          UnitTypeId.FUSIONCORE, UnitTypeId.GHOSTACADEMY, UnitTypeId.ORBITALCOMMAND):
            try:
                a[("tech", structure)] = self.tech_requirement_progress(structure)
                a[("progress", structure)] = self.structure_type_build_progress(structure)
            except Exception as exc:  # noqa: BLE001
                self.errors.append(f"{structure}: {type(exc).__name__} {exc}")
        await self.client.leave()


def test_burnysc2_helpers_answer_for_every_race_in_a_game() -> None:
    bot = AskingBot()
    play_bot("TerranEconomy", bot, race=Race.Terran)
    assert not bot.errors, bot.errors[:10]
    a = bot.answers
    costs = {
        UnitTypeId.FACTORY: (150, 100), UnitTypeId.PROBE: (50, 0), UnitTypeId.DRONE: (50, 0),
        UnitTypeId.NEXUS: (400, 0), UnitTypeId.HATCHERY: (300, 0), UnitTypeId.ORBITALCOMMAND: (150, 0),
        UnitTypeId.LAIR: (150, 100), UnitTypeId.RAVAGER: (25, 75), UnitTypeId.BROODLORD: (150, 150),
        UnitTypeId.STALKER: (125, 50), UnitTypeId.VOIDRAY: (250, 150), UnitTypeId.MARINE: (50, 0),
        UpgradeId.STIMPACK: (100, 100), UpgradeId.WARPGATERESEARCH: (50, 50),
    }
    for item, (m, g) in costs.items():
        cost: Cost = a[("cost", item)]
        assert (cost.minerals, cost.vespene) == (m, g), item
    assert a[("supply", UnitTypeId.ROACH)] == 2 and a[("supply", UnitTypeId.RAVAGER)] == 1
    assert all(a[("pending_upgrade", u)] == 0 for u in UPGRADE_RESEARCHED_FROM)
    # the economy start has a command center and SCVs, no barracks: a factory's requirement is not met
    assert a[("tech", UnitTypeId.BARRACKS)] == 0  # needs a supply depot
    assert a[("tech", UnitTypeId.FACTORY)] == 0 and a[("progress", UnitTypeId.FACTORY)] == 0
