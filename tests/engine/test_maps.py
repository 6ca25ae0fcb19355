"""The ladder map as the game plays it (:mod:`sc2pool.engine.maps`)."""

from __future__ import annotations

from typing import Any

from sc2pool.engine.terrain import find_map, load_map


def test_a_ladder_maps_start_raw_per_start_is_made_once_and_is_each_starts_own() -> None:
    """game_info copies the player's ``start_raw`` each time its grid changes: the map keeps one
    per start location, each what :func:`start_raw` makes for that start."""
    from sc2pool.engine.maps import LadderSpec
    from sc2pool.engine.terrain import start_raw

    acid: Any = load_map(find_map("AcidPlantLE"))  # type: ignore[arg-type]
    spec = LadderSpec.from_ladder(acid)
    a, b = acid.start_locations[:2]
    got_a, got_b = spec.start_raw_for(a), spec.start_raw_for(b)
    assert got_a == start_raw(acid, a) and got_b == start_raw(acid, b)
    assert got_a != got_b  # (each sees the other's start, and its own townhall's footprint)
    assert spec.start_raw_for((float(a[0]), float(a[1]))) is got_a
