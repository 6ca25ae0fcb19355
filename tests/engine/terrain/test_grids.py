"""The terrain rules on their own: ramps read from ``t3Terrain.xml``, the ramps' side cells, the
client's height bytes (the whole-map comparison with the real client is test_ladder_maps.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sc2pool.engine.terrain import MapReadError, find_map, grids
from sc2pool.engine.terrain.reader import RampFrame, _parse_ramps, read_raw


def _raw(name: str):
    p = find_map(name)
    assert p is not None, "install the maps extra: pip install 'sc2pool[maps]'"
    return read_raw(p)


def test_ramps_are_read_from_the_terrain_file():
    raw = _raw("16-BitLE")
    assert len(raw.ramps) == 20
    main = [r for r in raw.ramps if (r.base.cx, r.base.cy) == (33.0, 45.0)]
    assert len(main) == 1
    r = main[0]
    assert (r.dir, r.hi, r.lo) == (5, 3, 2)
    assert r.mid == RampFrame(0.7071068, -0.7071068, -0.7071068, -0.7071068, 31.0, 47.0, 1.414214, 2.828427)


@pytest.mark.parametrize("xml", [
    b'<terrain><ramp dir="4" hi="2" lo="1"/></terrain>',
    b'<terrain><ramp dir="4" hi="2" lo="1" base="nonsense" mid="u(0, 0) r(0, 0) c=(1, 1) w=1 h=1"/></terrain>',
])
def test_a_bad_ramp_entry_is_a_clear_error(xml: bytes):
    with pytest.raises(MapReadError, match=r"t3Terrain.xml: bad <ramp> entry") as e:
        _parse_ramps(Path("Some.SC2Map"), xml)
    assert "Some.SC2Map" in str(e.value)


def test_bad_terrain_xml_is_a_clear_error():
    with pytest.raises(MapReadError, match="t3Terrain.xml: not valid XML"):
        _parse_ramps(Path("Some.SC2Map"), b"<terrain><ramp")


def test_side_cells_of_a_diagonal_ramp():
    """16-Bit's main ramp (2·√2 wide): three rows of cliff cells along each side, measured from the client."""
    raw = _raw("16-BitLE")
    main = [r for r in raw.ramps if (r.base.cx, r.base.cy) == (33.0, 45.0)]
    side = grids.ramp_side_cells(raw.width, raw.height, main)
    cells = {(int(x), int(y)) for y, x in zip(*np.nonzero(side), strict=True)}
    assert cells == {
        (32, 47), (31, 48), (30, 49), (33, 47), (32, 48), (31, 49), (34, 47), (33, 48), (32, 49),  # low-x+y side
        (30, 45), (29, 46), (28, 47), (30, 44), (29, 45), (28, 46), (30, 43), (29, 44), (28, 45),
    }


def test_height_bytes_are_flat_at_cliff_edges_and_follow_ramps():
    raw = _raw("AcidPlantLE")
    hb = grids.height_bytes(raw, grids.playable_area(raw.camera))
    # (128, 55): its lower-left vertex is a cliff-top vertex stored at 11.89; the client reports
    # the level's 12.0 (byte 223), as on the plateau around it
    assert raw.vertex_height[55, 128] < 11.9 and hb[55, 128] == 223
    # a ramp cell keeps the vertex's height: (59, 91) at 8.57 is byte 195 in the client
    assert raw.cliff[91, 59] % 64 != 0 and hb[91, 59] == 195
    levels = grids.level_heights(raw, grids.playable_area(raw.camera))
    assert [levels[k] for k in (1, 2, 3)] == pytest.approx([8.0, 10.0, 12.0], abs=0.01)
