"""Race rules: the interface's tables agree with the engine's data, the races whose economy is
not simulated answer so by name, and each race's melee start has the real food values."""

from __future__ import annotations

import pytest

from sc2pool.engine import data as D
from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.scenarios.economy import ECONOMY_MAP, spawn_base
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
    for ability, (producers, unit) in t.trains.items():
        spec = D.unit_spec(unit)  # (the Reaper has no spec in the mini-games' subset: the client's data)
        assert spec.creation_ability == ability and spec.race == D.TERRAN
        assert producers and all(p in t.rally and D.unit_spec(p).is_structure for p in producers)
    for ability, structure in t.builds.items():
        assert D.unit_spec(structure).creation_ability == ability and D.unit_spec(structure).is_structure
    for provider in t.supply_providers:
        assert D.unit_spec(provider).food_provided > 0
    assert R.of_type(D.SCV) is t and R.of_type(D.MARINE) is t and R.of_type(D.ROACH) is R.ZERG
    assert all(R.TRAINS[a] == v for a, v in t.trains.items()) and all(R.BUILDS[a] == v for a, v in t.builds.items())


def test_protoss_tables_agree_with_the_data() -> None:
    p = R.PROTOSS
    assert p.economy_simulated
    for ability, (producers, unit) in p.trains.items():
        spec = D.unit_spec(unit)
        assert spec.creation_ability == ability and spec.race == D.PROTOSS
        assert producers and all(x in p.rally and D.unit_spec(x).is_structure for x in producers)
    assert set(p.builds.values()) >= {NEXUS, 60, 61, 62, 72, 67, 71}  # Pylon, Assimilator, Gateway, ...
    for ability, structure in p.builds.items():
        assert D.unit_spec(structure).creation_ability == ability and D.unit_spec(structure).is_structure
    assert {D.unit_spec(s).food_provided for s in p.supply_providers} == {15, 8}  # Nexus, Pylon
    assert R.TRAINS == {**R.TERRAN.trains, **R.ZERG.trains, **p.trains}
    assert R.BUILDS == {**R.TERRAN.builds, **R.ZERG.builds, **p.builds}


def test_zerg_tables_agree_with_the_data() -> None:
    z = R.ZERG
    for ability, (producers, unit) in z.trains.items():
        spec = D.unit_spec(unit)
        assert spec.creation_ability == ability and spec.race == D.ZERG
        assert producers == (D.LARVA,) or all(p in z.rally for p in producers)
    for ability, structure in z.builds.items():
        assert D.unit_spec(structure).creation_ability == ability and D.unit_spec(structure).is_structure
    assert {D.unit_spec(p).food_provided for p in z.supply_providers} == {6}  # Hatchery, Lair, Hive
    assert R.of_type(104) is z and z.workers == {104}


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


_UNSIMULATED = R.RaceRules(race=D.ZERG, name="Unsimulated", economy_simulated=False, start=R.ZERG.start)
"""A race whose rules are the interface's defaults (every race is simulated now; a new one
starts like this)."""


def test_races_not_simulated_say_so_by_name() -> None:
    rules = _UNSIMULATED
    assert not rules.trains and not rules.builds
    w = World(SKIRMISH)
    with pytest.raises(NotSimulatedError, match=rules.name):
        rules.upkeep(w, 1, 0)
    with pytest.raises(NotSimulatedError, match=rules.name):
        rules.placement(w, rules.start.townhall, 10.5, 10.5)


def test_a_resource_follows_no_race() -> None:
    with pytest.raises(NotSimulatedError, match="no race"):
        R.of_type(D.MINERALFIELD)


def test_an_economy_is_refused_for_a_race_not_simulated() -> None:
    w = World(ECONOMY_MAP)
    with pytest.raises(NotSimulatedError, match="player 2: the Unsimulated economy is not simulated yet"):
        w.start_economy({1: R.TERRAN, 2: _UNSIMULATED})
    assert not w.has_economy


def test_the_terran_start_reports_the_real_clients_first_observation() -> None:
    """Command Center, 12 SCVs mining, 50 minerals, 12/15 supply (python-sc2's AltitudeAIE
    capture: the real client's first observation of a Terran player)."""
    w = World(ECONOMY_MAP)
    start = R.TERRAN.start
    w.start_economy({1: R.TERRAN}, minerals=start.minerals)
    spawn_base(w, 1, 20.5, 32.5)
    assert w.supply.food(1) == (start.food_used, start.food_cap)
    assert (w.supply.minerals[1], w.supply.vespene[1]) == (start.minerals, start.vespene)
    mine = w.u.owner == 1
    assert int((w.u.unit_id[mine] == start.worker).sum()) == start.workers
    assert int((w.u.unit_id[mine] == start.townhall).sum()) == 1


def test_two_players_keep_their_own_economies() -> None:
    """The economy systems are per player: two Terran bases on one map mine into their own
    ledgers, count their own supply and train into their own queues."""
    w = World(ECONOMY_MAP)
    w.start_economy({1: R.TERRAN, 2: R.TERRAN})
    cc1 = spawn_base(w, 1, 20.5, 32.5, side=-1.0, geysers=False)
    cc2 = spawn_base(w, 2, 43.5, 32.5, side=1.0, geysers=False, workers=6)
    assert w.command(2, 524, [cc2], None, 0, False) == 1  # player 2 trains an SCV
    assert w.command(2, 524, [cc1], None, 0, False) == 87  # not its Command Center
    while w.loop < 2400:
        w.advance(max(1, min(w.horizon(), 2400 - w.loop)))
    s = w.supply
    assert s.collected_minerals[1] > s.collected_minerals[2] > 0  # 12 SCVs mine more than 6 (+1)
    for p in (1, 2):
        assert s.minerals[p] == 50 + s.collected_minerals[p] - s.spent_minerals[p]
    assert (s.spent_minerals[1], s.spent_minerals[2]) == (0, 50)
    assert w.production.trained[2] == {D.SCV: 1} and w.production.trained[1] == {}
    assert s.food(1) == (12, 15) and s.food(2) == (7, 15)
    assert w.workers.idle_workers(1) == 0 and w.workers.idle_workers(2) == 1  # the new SCV has no rally
