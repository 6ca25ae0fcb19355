"""The engine's ResponseData agrees with the hand-entered facts of the real client for the unit types, abilities and upgrades it simulates."""

from __future__ import annotations

import pytest
from client_facts import ABILITY_FACTS, UNIT_FACTS, UPGRADE_FACTS
from s2clientprotocol import data_pb2

from sc2pool.engine import data as D

UNIT_FIELDS = ("name", "available", "cargo_size", "mineral_cost", "vespene_cost", "food_required", "food_provided",
               "ability_id", "race", "build_time", "sight_range", "movement_speed", "armor", "tech_requirement",
               "require_attached")
ABILITY_FIELDS = ("link_name", "link_index", "button_name", "friendly_name", "hotkey", "remaps_to_ability_id",
                  "available", "target", "allow_minimap", "allow_autocast", "is_building", "footprint_radius",
                  "cast_range")
DELIBERATE = {1680: {"name", "available"}}
"""Differences kept on purpose, with the reason: pysc2's CollectMineralShards map uses unit type 1680
for its shards, which ladder data marks unavailable and unnamed; the engine names it and marks it
available so that burnysc2 can resolve the shards' ``_type_data`` (see ``sc2pool.engine.data``)."""


def _default(msg: type, name: str) -> object:
    return msg.DESCRIPTOR.fields_by_name[name].default_value


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return abs(float(a) - float(b)) <= 1e-5 * max(1.0, abs(float(b)))  # type: ignore[arg-type]
    return a == b


def _weapons(u: data_pb2.UnitTypeData) -> tuple:  # type: ignore[type-arg]
    return tuple((int(w.type), w.damage, int(w.attacks), w.range, w.speed,
                  tuple((int(b.attribute), b.bonus) for b in w.damage_bonus)) for w in u.weapons)


def _same_weapons(mine: tuple, real: tuple) -> bool:  # type: ignore[type-arg]
    if len(mine) != len(real):
        return False
    for a, b in zip(mine, real, strict=True):
        if a[0] != b[0] or a[2] != b[2] or not all(_close(x, y) for x, y in zip(a[1:2] + a[3:5], b[1:2] + b[3:5], strict=True)):
            return False
        if len(a[5]) != len(b[5]) or not all(x[0] == y[0] and _close(x[1], y[1]) for x, y in zip(a[5], b[5], strict=True)):
            return False
    return True


def test_every_fact_is_reported_and_the_engine_tables_are_covered() -> None:
    """The engine reports the client's whole data (``tests/engine/data`` checks it against the
    capture's digest); this hand-entered table stays as an independent check of the types, abilities
    and upgrades the engine simulates."""
    r = D.response_data()
    assert set(UNIT_FACTS) <= {u.unit_id for u in r.units}
    assert set(ABILITY_FACTS) <= {a.ability_id for a in r.abilities}
    assert set(UPGRADE_FACTS) <= {u.upgrade_id for u in r.upgrades}
    assert {u.unit_id for u in D.UNITS} <= set(UNIT_FACTS)
    assert {a.ability_id for a in D.ABILITIES} <= set(ABILITY_FACTS)
    assert {u.upgrade_id for u in D.UPGRADES} <= set(UPGRADE_FACTS)


@pytest.mark.parametrize("unit_id", sorted(UNIT_FACTS))
def test_unit_type_data_matches_the_real_client(unit_id: int) -> None:
    mine = {u.unit_id: u for u in D.response_data().units}[unit_id]
    real = UNIT_FACTS[unit_id]
    wrong = []
    for f in UNIT_FIELDS:
        if f in DELIBERATE.get(unit_id, ()):
            continue
        want = real.get(f, _default(data_pb2.UnitTypeData, f))
        if not _close(getattr(mine, f), want):
            wrong.append(f"{f}: engine {getattr(mine, f)!r}, client {want!r}")
    if tuple(int(a) for a in mine.attributes) != real["attributes"]:
        wrong.append(f"attributes: engine {list(mine.attributes)}, client {real['attributes']}")
    if not _same_weapons(_weapons(mine), real["weapons"]):  # type: ignore[arg-type]
        wrong.append(f"weapons: engine {_weapons(mine)}, client {real['weapons']}")
    assert not wrong, f"{mine.name or unit_id}: " + "; ".join(wrong)


@pytest.mark.parametrize("ability_id", sorted(ABILITY_FACTS))
def test_ability_data_matches_the_real_client(ability_id: int) -> None:
    mine = {a.ability_id: a for a in D.response_data().abilities}[ability_id]
    real = ABILITY_FACTS[ability_id]
    wrong = [f"{f}: engine {getattr(mine, f)!r}, client {real.get(f, _default(data_pb2.AbilityData, f))!r}"
             for f in ABILITY_FIELDS
             if not _close(getattr(mine, f), real.get(f, _default(data_pb2.AbilityData, f)))]
    assert not wrong, f"{ability_id}: " + "; ".join(wrong)


@pytest.mark.parametrize("upgrade_id", sorted(UPGRADE_FACTS))
def test_upgrade_data_matches_the_real_client(upgrade_id: int) -> None:
    mine = {u.upgrade_id: u for u in D.response_data().upgrades}[upgrade_id]
    real = UPGRADE_FACTS[upgrade_id]
    wrong = [f"{f}: engine {getattr(mine, f)!r}, client {want!r}" for f, want in real.items()
             if not _close(getattr(mine, f), want)]
    assert not wrong, f"{upgrade_id}: " + "; ".join(wrong)
