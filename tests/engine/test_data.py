"""The engine's own data tables against burnysc2's enums and parsers."""

from __future__ import annotations

import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.sim.units import TYPES

sc2_ids = pytest.importorskip("sc2.ids.unit_typeid")
from sc2.data import Attribute, Race  # noqa: E402
from sc2.dicts.generic_redirect_abilities import GENERIC_REDIRECT_ABILITIES  # noqa: E402
from sc2.dicts.unit_train_build_abilities import TRAIN_INFO  # noqa: E402
from sc2.dicts.unit_trained_from import UNIT_TRAINED_FROM  # noqa: E402
from sc2.game_data import GameData  # noqa: E402
from sc2.ids.ability_id import AbilityId  # noqa: E402
from sc2.ids.unit_typeid import UnitTypeId  # noqa: E402
from sc2.ids.upgrade_id import UpgradeId  # noqa: E402


@pytest.mark.parametrize("spec", D.UNITS, ids=lambda s: s.name)
def test_unit_id_and_name_match_burnysc2(spec: D.UnitSpec) -> None:
    assert UnitTypeId(spec.unit_id).name == spec.name.upper()


@pytest.mark.parametrize("spec", D.ABILITIES, ids=lambda a: a.name)
def test_ability_id_name_and_remap_match_burnysc2(spec: D.AbilitySpec) -> None:
    assert AbilityId[spec.name].value == spec.ability_id
    generic = GENERIC_REDIRECT_ABILITIES.get(AbilityId(spec.ability_id))
    assert (generic.value if generic else 0) == spec.remaps_to


def test_creation_abilities_match_burnysc2_train_info() -> None:
    checked = 0
    for spec in D.UNITS:
        if not spec.creation_ability or spec.is_structure:
            continue
        producers = UNIT_TRAINED_FROM[UnitTypeId(spec.unit_id)]
        abilities = {TRAIN_INFO[p][UnitTypeId(spec.unit_id)]["ability"].value for p in producers}  # type: ignore[union-attr]
        if spec.unit_id == D.BANELING:
            # burnysc2's dict names MORPHTOBANELING_BANELING (4121), which the real client reports
            # as a LoadOutSpray ability; the client's baneling data names 80 (the facts table)
            assert abilities == {4121} and spec.creation_ability == 80
            continue
        assert spec.creation_ability in abilities, spec.name
        assert spec.creation_ability in D.ABILITY_BY_ID
        checked += 1
    assert checked >= 7


def test_producers_of_every_trainable_unit_are_in_the_table() -> None:
    """burnysc2's morph_cost reads the producer's data: a missing one raises KeyError."""
    for spec in D.UNITS:
        if spec.creation_ability and not spec.is_structure:
            producers = UNIT_TRAINED_FROM[UnitTypeId(spec.unit_id)]
            assert any(p.value in D.UNIT_BY_ID for p in producers), spec.name


@pytest.mark.parametrize("spec", D.UPGRADES, ids=lambda u: u.enum_name)
def test_upgrade_id_and_name_match_burnysc2(spec: D.UpgradeSpec) -> None:
    assert UpgradeId[spec.enum_name].value == spec.upgrade_id


def test_burnysc2_answers_upgrade_questions_as_on_the_real_game() -> None:
    """A bot asking about an upgrade (python-sc2's marine-split example asks about Stimpack every
    step) gets the real client's cost and research ability, not a KeyError."""
    gd = GameData(D.response_data())
    stim = gd.upgrades[UpgradeId.STIMPACK.value]
    assert (stim.cost.minerals, stim.cost.vespene, stim.cost.time) == (100, 100, 2240)
    assert stim.research_ability is not None
    assert stim.research_ability.exact_id == AbilityId.BARRACKSTECHLABRESEARCH_STIMPACK
    assert {u.upgrade_id for u in D.UPGRADES} <= set(gd.upgrades)


def test_burnysc2_parses_the_data_and_costs_resolve() -> None:
    gd = GameData(D.response_data())
    assert {u.unit_id for u in D.UNITS} <= set(gd.units)
    assert gd.abilities[16].id == AbilityId.MOVE
    assert gd.abilities[16].exact_id == AbilityId.MOVE_MOVE
    assert gd.abilities[23].id == AbilityId.ATTACK
    marine = gd.units[UnitTypeId.MARINE.value]
    assert marine.cost.minerals == 50
    assert marine.creation_ability is not None and marine.creation_ability.exact_id == AbilityId.BARRACKSTRAIN_MARINE
    assert gd.calculate_ability_cost(AbilityId.BARRACKSTRAIN_MARINE).minerals == 50
    assert gd.calculate_ability_cost(AbilityId.LARVATRAIN_ZERGLING).minerals == 50  # a pair
    assert gd.calculate_ability_cost(AbilityId.LARVATRAIN_ROACH).vespene == 25
    assert Attribute.Light in marine.attributes and marine.race == Race.Terran
    roach = gd.units[UnitTypeId.ROACH.value]
    assert roach._proto.weapons[0].range == 4
    stalker = gd.units[UnitTypeId.STALKER.value]
    assert stalker._proto.weapons[0].damage_bonus[0].attribute == Attribute.Armored.value


def test_data_flags_select_sections() -> None:
    full = D.response_data()
    only_units = D.response_data_for(False, True, False, False, False)
    assert len(only_units.units) == len(full.units) and not only_units.abilities and not only_units.upgrades
    assert not only_units.buffs and not only_units.effects
    only_upgrades = D.response_data_for(False, False, True, False, False)
    assert len(only_upgrades.upgrades) == len(full.upgrades) and not only_upgrades.units
    only_buffs_effects = D.response_data_for(False, False, False, True, True)
    assert len(only_buffs_effects.buffs) == len(full.buffs) and len(only_buffs_effects.effects) == len(full.effects)
    assert not only_buffs_effects.units and not only_buffs_effects.abilities
    assert len(D.response_data_for(False, False, False, False, False).SerializeToString()) == 0
    assert isinstance(D.response_data(), sc_pb.ResponseData)


def test_speed_units_are_normal_game_seconds() -> None:
    """movement_speed and weapon speed are per normal second (16 loops): facts doc item 12."""
    m = TYPES.row(D.MARINE)
    assert TYPES.speed[m] == pytest.approx(2.25 / 16)
    assert TYPES.cd_loops[m] == pytest.approx(0.860840 * 16)  # the client's Weapon.speed, in loops
    # faster-speed figures players know: 3.15 distance and 0.61 s cooldown per real second
    assert TYPES.speed[m] * D.FASTER_LOOPS_PER_SECOND == pytest.approx(3.15)
    assert TYPES.cd_loops[m] / D.FASTER_LOOPS_PER_SECOND == pytest.approx(0.61, abs=0.01)


def test_damage_table_applies_attribute_bonus() -> None:
    mar, roach, ling = TYPES.row(D.MARAUDER), TYPES.row(D.ROACH), TYPES.row(D.ZERGLING)
    assert TYPES.dmg[mar, roach] == 20  # 10 +10 vs Armored
    assert TYPES.dmg[mar, ling] == 10
    bane, marine = TYPES.row(D.BANELING), TYPES.row(D.MARINE)
    assert TYPES.dmg[bane, marine] == 35  # 16 +19 vs Light
    beacon = TYPES.row(D.BEACON_TERRAN)
    assert not TYPES.can_hit[marine, beacon]
