"""Race rules: the interface's tables agree with the engine's data, the races whose economy is
not simulated answer so by name, and each race's melee start has the real food values."""

from __future__ import annotations

import pytest

from sc2pool.engine import data as D
from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.sim import races as R
from sc2pool.engine.sim.races import NotSimulatedError
from sc2pool.engine.sim.races.protoss import NEXUS, PROBE
from sc2pool.engine.sim.races.zerg import DRONE, OVERLORD
from sc2pool.engine.sim.world import World

OVERLORD_FOOD, NEXUS_FOOD = 8, 15
"""Food provided (the real client's ResponseData in python-sc2's capture AltitudeAIE.xz); the
engine's data has no Overlord or Nexus yet."""


def test_terran_tables_agree_with_the_data() -> None:
    t = R.TERRAN
    for ability, (producer, unit) in t.trains.items():
        spec = D.UNIT_BY_ID[unit]
        assert spec.creation_ability == ability and spec.race == D.TERRAN
        assert producer in t.rally and D.UNIT_BY_ID[producer].is_structure
    for ability, structure in t.builds.items():
        assert D.UNIT_BY_ID[structure].creation_ability == ability and D.UNIT_BY_ID[structure].is_structure
    for provider in t.supply_providers:
        assert D.UNIT_BY_ID[provider].food_provided > 0
    assert R.of_type(D.SCV) is t and R.of_type(D.MARINE) is t and R.of_type(D.ROACH) is R.ZERG
    assert R.TRAINS == dict(t.trains) and R.BUILDS == dict(t.builds)  # the only simulated economy so far


def test_melee_starts_have_the_real_food_values() -> None:
    t, z, p = R.TERRAN.start, R.ZERG.start, R.PROTOSS.start
    assert (t.townhall, t.worker, t.workers, t.extras) == (D.COMMANDCENTER, D.SCV, 12, ())
    assert (z.townhall, z.worker, z.workers) == (D.HATCHERY, DRONE, 12)
    assert dict(z.extras) == {OVERLORD: 1, D.LARVA: 3}
    assert (p.townhall, p.worker, p.workers, p.extras) == (NEXUS, PROBE, 12, ())
    assert all((s.minerals, s.vespene, s.food_used) == (50, 0, 12) for s in (t, z, p))
    assert t.food_cap == D.UNIT_BY_ID[D.COMMANDCENTER].food_provided == 15
    assert z.food_cap == D.UNIT_BY_ID[D.HATCHERY].food_provided + OVERLORD_FOOD == 14
    assert p.food_cap == NEXUS_FOOD


@pytest.mark.parametrize("rules", [R.ZERG, R.PROTOSS])
def test_races_not_simulated_say_so_by_name(rules: R.RaceRules) -> None:
    assert not rules.economy_simulated and not rules.trains and not rules.builds
    w = World(SKIRMISH)
    with pytest.raises(NotSimulatedError, match=rules.name):
        rules.upkeep(w, 1, 0)
    with pytest.raises(NotSimulatedError, match=rules.name):
        rules.placement(w, rules.start.townhall, 10.5, 10.5)


def test_a_resource_follows_no_race() -> None:
    with pytest.raises(NotSimulatedError, match="no race"):
        R.of_type(D.MINERALFIELD)
