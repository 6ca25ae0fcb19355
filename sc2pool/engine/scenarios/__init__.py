"""Scenario registry: map basename -> scenario class."""

from __future__ import annotations

from sc2pool.engine.scenarios.base import Scenario
from sc2pool.engine.scenarios.battle import Battle100v100
from sc2pool.engine.scenarios.collect_mineral_shards import CollectMineralShards
from sc2pool.engine.scenarios.defeat_roaches import DefeatRoaches
from sc2pool.engine.scenarios.defeat_zerglings_and_banelings import DefeatZerglingsAndBanelings
from sc2pool.engine.scenarios.economy import BuildMarines, CollectMineralsAndGas, TerranEconomy
from sc2pool.engine.scenarios.find_and_defeat_zerglings import FindAndDefeatZerglings
from sc2pool.engine.scenarios.move_to_beacon import MoveToBeacon
from sc2pool.engine.scenarios.skirmish import Skirmish

SCENARIOS: dict[str, type[Scenario]] = {
    cls.name: cls
    for cls in (MoveToBeacon, CollectMineralShards, FindAndDefeatZerglings, DefeatRoaches,
                DefeatZerglingsAndBanelings, Skirmish, Battle100v100,
                CollectMineralsAndGas, BuildMarines, TerranEconomy)
}

__all__ = ["SCENARIOS", "Scenario"]
