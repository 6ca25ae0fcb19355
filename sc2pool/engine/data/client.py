"""The real client's whole ``ResponseData``: every unit type, ability, upgrade, buff and effect.

A bot asks for the game data once per game and then looks up whatever it meets (a Drone, a Nexus,
an upgrade); the engine must answer what the real client answers, or burnysc2 raises ``KeyError``
deep inside ``calculate_cost``.  So the engine serves the real client's answer itself, field for
field, with the few differences listed in :data:`DELIBERATE`.

Source and form
---------------
``client_data.json.gz`` next to this module is written by ``tools/gen_client_data.py`` from
python-sc2's capture ``test/pickle_data/AltitudeAIE.xz`` (a real client on a 2023 ladder map).  It
is one gzip'd JSON object:

``format``
    ``"sc2pool.client_data/1"``.
``source``
    where the capture came from (repository, path, git blob id).
``digest``
    ``"sha256:<hex>"`` of the capture's ``ResponseData`` serialized deterministically; the
    decoded :func:`capture` must hash to it (``tests/engine/data/test_client.py``), which proves
    the file holds the client's data field for field.
``counts``
    rows per section.
``schemas``
    for each message type (``UnitTypeData``, ``AbilityData``, ``Weapon``, ...), its field names in
    the order rows list them.
``abilities``, ``units``, ``upgrades``, ``buffs``, ``effects``
    one row per message, in the client's order: the values of the schema's fields, ``null`` where
    the client left the field unset (the protocol is proto2, so "set to 0" and "unset" differ and
    both are kept) or a repeated field empty; trailing ``null`` s are dropped.  Enums are their
    numbers, floats the shortest decimal that reads back as the client's float32, a nested message
    (``Weapon``, ``DamageBonus``) a row of its own schema, a repeated field a list.

Loading is lazy: importing this module reads nothing; the first call that needs the data decodes
the file once per process and keeps only the protobuf messages (see ``docs/engine.md`` for the time
it takes).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from s2clientprotocol import data_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

DATA_FILE = Path(__file__).with_name("client_data.json.gz")
FORMAT = "sc2pool.client_data/1"
SECTIONS = ("abilities", "units", "upgrades", "buffs", "effects")
"""``ResponseData``'s repeated fields, in field-number order."""
_MESSAGES: dict[str, type[Any]] = {
    "AbilityData": data_pb2.AbilityData,
    "UnitTypeData": data_pb2.UnitTypeData,
    "UpgradeData": data_pb2.UpgradeData,
    "BuffData": data_pb2.BuffData,
    "EffectData": data_pb2.EffectData,
    "Weapon": data_pb2.Weapon,
    "DamageBonus": data_pb2.DamageBonus,
}
_SECTION_MESSAGE = {"abilities": "AbilityData", "units": "UnitTypeData", "upgrades": "UpgradeData",
                    "buffs": "BuffData", "effects": "EffectData"}

NATURAL_MINERALS = 1680
DELIBERATE: dict[tuple[str, int], dict[str, object]] = {
    ("units", NATURAL_MINERALS): {"name": "NaturalMinerals", "available": True},
}
"""Where the engine's answer differs from the client's on purpose, and how.

Unit type 1680: pysc2's CollectMineralShards map uses it for its shards; ladder data leaves it
unnamed and unavailable, so burnysc2 (which keeps only available types) could not resolve the
shards' ``_type_data``.  The engine names it and marks it available (burnysc2's ``UnitTypeId``
member 1680 is ``NATURALMINERALS``)."""


class ClientDataError(RuntimeError):
    """The generated data file is missing or does not match this protocol version."""


def _kwargs_decoder(schema_name: str, schemas: dict[str, list[str]]) -> Callable[[list[Any]], dict[str, Any]]:
    """A function turning one row of ``schema_name`` into the keyword arguments of its message."""
    try:
        cls = _MESSAGES[schema_name]
        fields = schemas[schema_name]
    except KeyError as exc:
        raise ClientDataError(f"{DATA_FILE.name}: no schema for message {exc}") from exc
    descs = cls.DESCRIPTOR.fields_by_name
    unknown = [f for f in fields if f not in descs]
    if unknown:
        raise ClientDataError(f"{DATA_FILE.name}: {schema_name} fields {unknown} are not in the installed "
                              "s2clientprotocol; regenerate it with tools/gen_client_data.py")
    nested: list[tuple[str, type[Any], Callable[[list[Any]], dict[str, Any]], bool]] = []
    for name in fields:
        d = descs[name]
        if d.type == d.TYPE_MESSAGE:
            nested.append((name, _MESSAGES[d.message_type.name], _kwargs_decoder(d.message_type.name, schemas),
                           d.is_repeated))

    n = len(fields)

    def decode(row: list[Any]) -> dict[str, Any]:
        if len(row) > n:
            raise ClientDataError(f"{DATA_FILE.name}: a {schema_name} row has {len(row)} values for {n} fields")
        # rows may be shorter than the schema: their trailing unset fields are dropped
        kw = {k: v for k, v in zip(fields, row, strict=False) if v is not None}
        for name, sub_cls, sub, repeated in nested:
            value = kw.get(name)
            if value is not None:
                kw[name] = [sub_cls(**sub(v)) for v in value] if repeated else sub_cls(**sub(value))
        return kw

    return decode


def _build(doc: dict[str, Any]) -> sc_pb.ResponseData:
    r = sc_pb.ResponseData()
    for section in SECTIONS:
        decode = _kwargs_decoder(_SECTION_MESSAGE[section], doc["schemas"])
        add = getattr(r, section).add  # add(**kw) builds in place: extend/append would copy each message
        for row in doc[section]:
            add(**decode(row))
    return r


def _document() -> dict[str, Any]:
    try:
        raw = DATA_FILE.read_bytes()
    except OSError as exc:
        raise ClientDataError(f"cannot read the client data file {DATA_FILE} ({exc}); "
                              "write it with tools/gen_client_data.py") from exc
    doc: dict[str, Any] = json.loads(gzip.decompress(raw))
    if doc.get("format") != FORMAT:
        raise ClientDataError(f"{DATA_FILE.name}: format {doc.get('format')!r}, this engine reads {FORMAT!r}")
    return doc


def source() -> dict[str, str]:
    """Where the data came from (repository, path, git blob id of the capture)."""
    return dict(_document()["source"])


def expected_digest() -> str:
    """The capture's digest as the generator recorded it (see the module docstring)."""
    return str(_document()["digest"])


@lru_cache(maxsize=1)
def capture() -> sc_pb.ResponseData:
    """The real client's ``ResponseData`` exactly as captured (no engine differences).

    Shared and constant: callers must not modify it."""
    return _build(_document())


@lru_cache(maxsize=1)
def response_data() -> sc_pb.ResponseData:
    """The engine's ``ResponseData`` (all sections): the client's with :data:`DELIBERATE` applied,
    and the selected older release's differences (:mod:`sc2pool.engine.data.versions`).

    Shared and constant for the process lifetime: callers must treat it as read-only (the server
    caches its serialized bytes)."""
    r = _build(_document())
    index = {section: {_key(m): i for i, m in enumerate(getattr(r, section))} for section, _ in DELIBERATE}
    for (section, key), fields in DELIBERATE.items():
        msg = getattr(r, section)[index[section][key]]
        for name, value in fields.items():
            setattr(msg, name, value)
    from sc2pool.engine.data import versions  # an older release's differences, when one was selected

    for patch in versions.active():
        msg = next(m for m in getattr(r, patch.section) if _key(m) == patch.key)
        for name, value in patch.fields.items():
            if value is None:
                msg.ClearField(name)
            else:
                setattr(msg, name, value)
    return r


def _key(msg: Any) -> int:
    return int(msg.ListFields()[0][1])  # every data message's first field is its id


@lru_cache(maxsize=32)
def response_data_for(ability_id: bool, unit_type_id: bool, upgrade_id: bool, buff_id: bool,
                      effect_id: bool) -> sc_pb.ResponseData:
    """``ResponseData`` restricted to the requested sections (the real client honours the flags)."""
    full = response_data()
    if ability_id and unit_type_id and upgrade_id and buff_id and effect_id:
        return full  # what burnysc2 asks for: no copy
    r = sc_pb.ResponseData()
    for wanted, section in zip((ability_id, unit_type_id, upgrade_id, buff_id, effect_id), SECTIONS, strict=True):
        if wanted:
            getattr(r, section).extend(getattr(full, section))
    return r


@lru_cache(maxsize=1)
def units() -> dict[int, data_pb2.UnitTypeData]:
    """unit type id -> the engine's ``UnitTypeData`` (every type the client reports)."""
    return {u.unit_id: u for u in response_data().units}


@lru_cache(maxsize=1)
def abilities() -> dict[int, data_pb2.AbilityData]:
    """ability id -> ``AbilityData`` (every ability the client reports)."""
    return {a.ability_id: a for a in response_data().abilities}


@lru_cache(maxsize=1)
def upgrades() -> dict[int, data_pb2.UpgradeData]:
    """upgrade id -> ``UpgradeData``."""
    return {u.upgrade_id: u for u in response_data().upgrades}


@lru_cache(maxsize=1)
def buffs() -> dict[int, data_pb2.BuffData]:
    """buff id -> ``BuffData``."""
    return {b.buff_id: b for b in response_data().buffs}


@lru_cache(maxsize=1)
def effects() -> dict[int, data_pb2.EffectData]:
    """effect id -> ``EffectData``."""
    return {e.effect_id: e for e in response_data().effects}


def unit_type(unit_id: int) -> data_pb2.UnitTypeData:
    """The client's data for ``unit_id``; ``KeyError`` naming the id when the client has no such type."""
    try:
        return units()[unit_id]
    except KeyError:
        raise KeyError(f"unit type {unit_id} is not in the client's ResponseData") from None


def ability(ability_id: int) -> data_pb2.AbilityData:
    """The client's data for ``ability_id``; ``KeyError`` naming the id when unknown."""
    try:
        return abilities()[ability_id]
    except KeyError:
        raise KeyError(f"ability {ability_id} is not in the client's ResponseData") from None


def upgrade(upgrade_id: int) -> data_pb2.UpgradeData:
    """The client's data for ``upgrade_id``; ``KeyError`` naming the id when unknown."""
    try:
        return upgrades()[upgrade_id]
    except KeyError:
        raise KeyError(f"upgrade {upgrade_id} is not in the client's ResponseData") from None


def generic_ability(ability_id: int) -> int:
    """The generic ability a specific one remaps to (``ATTACK_ATTACK`` 23 -> ``ATTACK`` 3674), as the
    client reports it; the id itself when it has no remap."""
    a = abilities().get(ability_id)
    return int(a.remaps_to_ability_id) if a is not None and a.HasField("remaps_to_ability_id") else ability_id


@lru_cache(maxsize=1)
def specific_abilities() -> dict[int, tuple[int, ...]]:
    """generic ability id -> the specific abilities that remap to it (the client's remaps)."""
    out: dict[int, list[int]] = {}
    for a in response_data().abilities:
        if a.HasField("remaps_to_ability_id"):
            out.setdefault(a.remaps_to_ability_id, []).append(a.ability_id)
    return {g: tuple(s) for g, s in out.items()}
