"""Reading maps: clear errors for unreadable files, the disk cache, the catalogue, install and CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from sc2pool.engine import install
from sc2pool.engine.terrain import MapReadError, find_map, ladder, load_map, normalise, playable_maps
from sc2pool.engine.terrain.catalogue import bundled_maps


def _acid() -> Path:
    p = find_map("AcidPlantLE")
    assert p is not None, "install the maps extra: pip install 'sc2pool[maps]'"
    return p


def test_bundled_maps_are_the_24_ladder_maps():
    names = {normalise(n) for n in bundled_maps()}
    assert len(names) == 24
    assert {"acidplantle", "abyssalreefle", "16bitle", "battleontheboardwalkle"} <= names


def test_names_match_as_the_client_and_sc2maptool_spell_them():
    assert find_map("16-BitLE") == find_map("16BitLE") is not None
    assert find_map("LostandFoundLE") == find_map("LostAndFoundLE") is not None
    assert find_map("AcidPlantLE.SC2Map") == _acid()
    assert find_map("NoSuchMapLE") is None


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"", "not an MPQ archive"),
        (b"hello, this is not a map at all" * 10, "not an MPQ archive"),
        (b"sc2pool engine placeholder map; the engine picks the scenario from this file's name.\n", "not an MPQ archive"),
    ],
)
def test_unreadable_file_is_a_clear_error(tmp_path: Path, content: bytes, what: str):
    bad = tmp_path / "Broken.SC2Map"
    bad.write_bytes(content)
    with pytest.raises(MapReadError, match=what) as e:
        load_map(bad, use_disk_cache=False)
    assert str(bad) in str(e.value) and e.value.path == str(bad)


def test_truncated_map_names_the_file(tmp_path: Path):
    data = _acid().read_bytes()
    bad = tmp_path / "Truncated.SC2Map"
    bad.write_bytes(data[: len(data) // 3])
    with pytest.raises(MapReadError) as e:
        load_map(bad, use_disk_cache=False)
    assert str(bad) in str(e.value)


def test_missing_file(tmp_path: Path):
    with pytest.raises(MapReadError, match="cannot open"):
        load_map(tmp_path / "Nope.SC2Map")


def test_first_load_under_a_second_and_disk_cache_reloads_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SC2POOL_MAP_CACHE", str(tmp_path / "cache"))
    ladder.clear_memory_cache()
    t = time.perf_counter()
    cold = load_map(_acid())
    cold_s = time.perf_counter() - t
    assert cold_s < 1.0, cold_s
    assert list((tmp_path / "cache").glob("*.npz")), "the computed map is cached on disk"
    ladder.clear_memory_cache()
    warm = load_map(_acid())
    assert warm is not cold
    for k in ("height_bytes", "pathable", "placeable", "level", "vertex_z"):
        assert np.array_equal(getattr(warm, k), getattr(cold, k)), k
        assert not getattr(warm, k).flags.writeable
    assert warm.neutrals == cold.neutrals and warm.start_locations == cold.start_locations
    assert warm.playable == cold.playable
    assert load_map(_acid()) is warm, "then served from memory"


def test_neutral_contents_and_no_critters():
    m = load_map(find_map("AcolyteLE"))  # type: ignore[arg-type]
    kinds = {n.type_name for n in m.neutrals}
    assert not kinds & {"Lyote", "Crabeetle", "CleaningBot", "LabBot", "UtilityBot", "KarakFemale", "CarrionBird"}
    for n in m.neutrals:
        if n.is_geyser:
            assert n.contents == 2250
        elif n.is_mineral:  # 1800 / 900 by type, or the map's own Resources attribute (Acolyte: 900, 1500)
            assert n.contents in (1800, 900, 1500)
        else:
            assert n.contents is None
    # Acolyte's main MineralFields carry Resources="900" (the real client reports 900)
    assert any(n.type_name == "MineralField" and n.contents == 900 for n in m.neutrals)


def test_z_follows_the_levels():
    m = load_map(_acid())
    sx, sy = m.start_locations[0]
    assert 11.5 < m.z(sx, sy) < 12.5  # a main on the top level
    assert m.level[int(sy), int(sx)] == 3


def test_user_map_in_maps_dir_is_played_and_listed(tmp_path: Path):
    maps = tmp_path / "Maps" / "Ladder2019"
    maps.mkdir(parents=True)
    (maps / "MyCopyLE.SC2Map").write_bytes(_acid().read_bytes())
    (tmp_path / "Maps" / "Placeholder.SC2Map").write_bytes(b"not a map")
    found = playable_maps([tmp_path / "Maps"])
    assert found["MyCopyLE"] == maps / "MyCopyLE.SC2Map"
    assert "Placeholder" not in found
    assert find_map("MyCopyLE", [tmp_path / "Maps"]) == maps / "MyCopyLE.SC2Map"


def test_install_writes_the_ladder_maps_for_burnysc2(tmp_path: Path):
    root = install.write_install(tmp_path / "sc2")
    for name in ("AcidPlantLE", "AbyssalReefLE", "16BitLE", "16-BitLE", "LostandFoundLE", "BattleontheBoardwalkLE"):
        f = root / "Maps" / f"{name}.SC2Map"
        assert f.is_file() and f.read_bytes()[:3] == b"MPQ", name
    before = (root / "Maps" / "AcidPlantLE.SC2Map").stat().st_ino
    install.write_install(root)
    assert (root / "Maps" / "AcidPlantLE.SC2Map").stat().st_ino == before, "idempotent: not copied again"
    # burnysc2 reads SC2PATH when sc2.paths is imported: ask it in a fresh interpreter
    code = ("import sc2.maps as m\n"
            "for n in ('AcidPlantLE', 'AbyssalReefLE', '16-BitLE', 'LostandFoundLE'):\n"
            "    print(m.get(n).relative_path)\n")
    env = {**os.environ, "SC2PATH": str(root)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["AcidPlantLE.SC2Map", "AbyssalReefLE.SC2Map", "16-BitLE.SC2Map", "LostandFoundLE.SC2Map"]


def test_cli_maps_lists_and_checks(tmp_path: Path):
    (tmp_path / "Bad.SC2Map").write_bytes(b"MPQ\x1a broken")
    out = subprocess.run([sys.executable, "-m", "sc2pool", "engine", "maps", "--check", "--dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, "an unreadable map is reported and fails the check"
    assert "Bad" in out.stdout and "UNREADABLE" in out.stdout
    assert "AcidPlantLE" in out.stdout and "168x184" in out.stdout
