"""The engine's ResponseData is the real client's, field for field (sc2pool.engine.data.client)."""

from __future__ import annotations

import gzip
import importlib.util
import json
import lzma
import os
import pickle
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.data import client

ROOT = Path(__file__).resolve().parents[3]
MIRROR = os.environ.get("SC2POOL_PYSC2_MIRROR", "/work/.mirror/BurnySc2+python-sc2/repo")


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_client_data", ROOT / "tools" / "gen_client_data.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _doc(raw: bytes) -> dict:  # type: ignore[type-arg]
    return json.loads(gzip.decompress(raw))


def test_the_file_holds_the_capture_field_for_field() -> None:
    """The generator recorded the digest of the capture's ResponseData (deterministic serialization);
    what the loader decodes must hash to it, so every field the client set, and only those, is back."""
    gen = _generator()
    assert gen.digest(client.capture()) == client.expected_digest()
    r = client.capture()
    assert (len(r.units), len(r.abilities), len(r.upgrades), len(r.buffs), len(r.effects)) == (2057, 4640, 303, 307, 13)
    assert client.source()["path"] == "test/pickle_data/AltitudeAIE.xz"


def test_the_engine_answer_differs_from_the_client_only_where_documented() -> None:
    real, mine = client.capture(), D.response_data()
    for section in client.SECTIONS:
        a, b = getattr(real, section), getattr(mine, section)
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            if x != y:
                key = (section, client._key(x))
                assert key in client.DELIBERATE, f"{section} {client._key(x)} differs from the client"
                for name, value in client.DELIBERATE[key].items():
                    assert getattr(y, name) == value
    shards = client.unit_type(client.NATURAL_MINERALS)
    assert shards.name == "NaturalMinerals" and shards.available


def test_presence_is_kept() -> None:
    """proto2: a field the client set to its default is set, an unset one is unset."""
    marine = client.unit_type(48)
    assert marine.HasField("vespene_cost") and marine.vespene_cost == 0
    assert not marine.HasField("food_provided") and not marine.HasField("has_vespene")
    move = client.ability(16)
    assert move.HasField("hotkey") and move.remaps_to_ability_id == 3794
    assert client.ability(0).friendly_name == "" and not client.ability(0).HasField("friendly_name")


def test_the_generator_is_deterministic_and_round_trips() -> None:
    """Feed the generator a capture made of the decoded data: it writes the committed rows again,
    byte for byte, twice (no capture file needed)."""
    gen = _generator()
    fake = lzma.compress(pickle.dumps([sc_pb.Response(data=client.capture())]))
    one, two = gen.build(fake), gen.build(fake)
    assert one == two
    committed = _doc(client.DATA_FILE.read_bytes())
    mine = _doc(one)
    for key in ("format", "digest", "counts", "schemas", *client.SECTIONS):
        assert mine[key] == committed[key], key


def _mirror_capture() -> bytes | None:
    try:
        return subprocess.run(["git", "-C", MIRROR, "show", "HEAD:test/pickle_data/AltitudeAIE.xz"], check=True,
                              capture_output=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def test_the_committed_file_is_what_the_capture_gives() -> None:
    """Against python-sc2's capture itself, where a mirror of python-sc2 is at hand
    (``$SC2POOL_PYSC2_MIRROR``); the digest test above covers the content everywhere else."""
    raw = _mirror_capture()
    if raw is None:
        pytest.skip(f"no python-sc2 mirror at {MIRROR} (set SC2POOL_PYSC2_MIRROR)")
    gen = _generator()
    assert gzip.decompress(gen.build(raw)) == gzip.decompress(client.DATA_FILE.read_bytes())
    assert gen.response_data_of(raw) == client.capture()


def test_flags_select_sections_and_all_flags_share_the_full_answer() -> None:
    full = D.response_data()
    assert D.response_data_for(True, True, True, True, True) is full
    for i, section in enumerate(client.SECTIONS):
        flags = [False] * 5
        flags[i] = True
        r = D.response_data_for(*flags)
        assert [f.name for f, _ in r.ListFields()] == [section]
        assert len(getattr(r, section)) == len(getattr(full, section))


def test_lookups_name_what_is_missing() -> None:
    assert client.unit_type(59).name == "Nexus"
    assert client.upgrade(15).name == "Stimpack"
    with pytest.raises(KeyError, match="unit type 99999"):
        client.unit_type(99999)
    with pytest.raises(KeyError, match="ability 99999"):
        client.ability(99999)
    with pytest.raises(KeyError, match="upgrade 99999"):
        client.upgrade(99999)
    assert client.generic_ability(23) == 3674 and client.generic_ability(3674) == 3674
    assert 23 in client.specific_abilities()[3674]


def test_a_bad_file_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "client_data.json.gz"
    bad.write_bytes(gzip.compress(b'{"format": "other/9"}'))
    monkeypatch.setattr(client, "DATA_FILE", bad)
    with pytest.raises(client.ClientDataError, match="format 'other/9'"):
        client._document()
    monkeypatch.setattr(client, "DATA_FILE", tmp_path / "missing.json.gz")
    with pytest.raises(client.ClientDataError, match="gen_client_data"):
        client._document()


def test_import_is_lazy_and_the_first_answer_is_quick() -> None:
    """Importing the data package reads nothing; the first full answer costs tens of milliseconds
    (measured in a fresh process; the bound is loose for loaded CI machines)."""
    code = (
        "import time, sys\n"
        "t0 = time.perf_counter()\n"
        "from sc2pool.engine import data as D\n"
        "t1 = time.perf_counter()\n"
        "assert D._client.response_data.cache_info().currsize == 0\n"
        "n = len(D.response_data_for(True, True, True, True, True).SerializeToString())\n"
        "t2 = time.perf_counter()\n"
        "print(f'{t1 - t0:.4f} {t2 - t1:.4f} {n}')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=120)
    _, first, n = out.stdout.split()
    assert int(n) > 300_000
    assert float(first) < 1.0
