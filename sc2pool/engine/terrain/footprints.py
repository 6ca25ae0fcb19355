"""Footprints: the cells a unit, structure or doodad takes out of the pathing and placement grids.

Units and structures (:func:`footprint`) block a fixed rectangle of cells centred on their
position, as the real game centres it: a ``w x h`` mask covers cells ``[x - w/2, x + w/2) x
[y - h/2, y + h/2)`` (a 5x5 townhall at (38.5, 122.5) covers x 36..40).  Doodads carry their
footprint in the game's data, which no map file has; the table in
:mod:`sc2pool.engine.terrain.footprint_data` was measured from the real client's grids (see that
module and ``tools/fit_footprints.py``).  A doodad footprint is a set of half-cell bins in the
doodad's own frame, turned with the doodad's rotation rounded to a quarter turn: a cell is blocked
when the offset of its centre from the doodad, turned back, rounds (to the half cell) onto a bin.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache

import numpy as np

from sc2pool.engine.terrain import footprint_data as FD
from sc2pool.engine.terrain.reader import MapObject

MINERAL_TYPES = frozenset({
    "MineralField", "MineralField750", "RichMineralField", "RichMineralField750",
    "LabMineralField", "LabMineralField750", "PurifierMineralField", "PurifierMineralField750",
    "PurifierRichMineralField", "PurifierRichMineralField750", "BattleStationMineralField",
    "BattleStationMineralField750", "MineralField450", "LabMineralField450",
})
GEYSER_TYPES = frozenset({
    "VespeneGeyser", "SpacePlatformGeyser", "PurifierVespeneGeyser", "ShakurasVespeneGeyser",
    "RichVespeneGeyser", "ProtossVespeneGeyser",
})
TOWNHALL_TYPES = frozenset({
    "CommandCenter", "OrbitalCommand", "PlanetaryFortress", "Nexus", "Hatchery", "Lair", "Hive",
})
#: Critters in a map's Objects are not in the real client's start observation (measured on 7 maps).
CRITTER_TYPES = frozenset({
    "Lyote", "Crabeetle", "CleaningBot", "LabBot", "UtilityBot", "KarakFemale", "KarakMale", "CarrionBird",
    "Scantipede", "Ursadon", "Dog", "Sheep", "Cow",
})


def _mask(rows: str) -> np.ndarray:
    """A mask from text rows written top (highest y) first: '#' blocked, '.' free."""
    lines = [r for r in rows.split("/") if r]
    return np.array([[ch == "#" for ch in line] for line in reversed(lines)], dtype=bool)


#: Hand-entered unit footprints (row 0 = lowest y).  Sources: the real client's start
#: pathing_grid in python-sc2's captures (24 maps): a mineral field at (x, y + 0.5) blocks cells
#: x-1 and x of row y (2x1); a geyser centred on (cx, cy) blocks the 3x3 from (cx-1.5, cy-1.5);
#: the Terran player's CommandCenter blocks its 5x5 less the four corner cells.  Nexus and Hatchery
#: are taken to be the same as the CommandCenter (m: not measured, no capture has them at start).
_TOWNHALL = _mask(".###./#####/#####/#####/.###.")
_HAND: dict[str, np.ndarray] = {
    **{t: np.ones((1, 2), dtype=bool) for t in MINERAL_TYPES},
    **{t: np.ones((3, 3), dtype=bool) for t in GEYSER_TYPES},
    **{t: _TOWNHALL for t in TOWNHALL_TYPES},
}


@cache
def _measured(type_name: str) -> np.ndarray | None:
    spec = FD.UNIT_FOOTPRINTS.get(type_name)
    if spec is None:
        return None
    return _mask(spec)


def footprint(type_name: str) -> np.ndarray:
    """bool mask [h, w] (row 0 = lowest y) of the cells a unit of this type blocks.

    Place it with :func:`footprint_origin`.  ``KeyError`` names a type with no known footprint.
    """
    m = _HAND.get(type_name)
    if m is None:
        m = _measured(type_name)
    if m is None:
        raise KeyError(f"no footprint known for unit type {type_name!r}")
    return m


def has_footprint(type_name: str) -> bool:
    return type_name in _HAND or type_name in FD.UNIT_FOOTPRINTS


def footprint_origin(type_name: str, x: float, y: float) -> tuple[int, int]:
    """The lowest cell (x0, y0) the footprint covers for a unit centred on (x, y)."""
    h, w = footprint(type_name).shape
    return int(math.floor(x - w / 2 + 0.5)), int(math.floor(y - h / 2 + 0.5))


def stamp(grid: np.ndarray, type_name: str, x: float, y: float, value: bool = False) -> None:
    """Set the footprint's cells of ``grid`` (bool[h, w]) to ``value`` (in place, clipped to the map)."""
    m = footprint(type_name)
    x0, y0 = footprint_origin(type_name, x, y)
    h, w = m.shape
    gy0, gx0 = max(y0, 0), max(x0, 0)
    gy1, gx1 = min(y0 + h, grid.shape[0]), min(x0 + w, grid.shape[1])
    if gy1 <= gy0 or gx1 <= gx0:
        return
    sub = m[gy0 - y0 : gy1 - y0, gx0 - x0 : gx1 - x0]
    grid[gy0:gy1, gx0:gx1][sub] = value


def footprint_cells(type_name: str, x: float, y: float) -> np.ndarray:
    """(n, 2) int array of the (x, y) cells the footprint covers."""
    m = footprint(type_name)
    x0, y0 = footprint_origin(type_name, x, y)
    ys, xs = np.nonzero(m)
    return np.stack([xs + x0, ys + y0], axis=1)


# ---- doodads -----------------------------------------------------------------------------------

QUARTER = math.pi / 2


def doodad_key(obj: MapObject) -> str | None:
    """The footprint-table key of a map object, or None when it is not a doodad or pathing point."""
    if obj.kind == "doodad":
        return obj.type_name
    if obj.kind == "point" and obj.type_name == "BlockPathing":
        return "point:BlockPathing"
    return None


def local_bins(x: float, y: float, rotation: float, cx: np.ndarray, cy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half-cell bins (in the doodad's frame) of the centres of cells (cx, cy) for a doodad at (x, y).

    The tool that measured the table uses this same function, so fitting and stamping agree.
    """
    t = round(rotation / QUARTER) * QUARTER
    c, s = math.cos(-t), math.sin(-t)
    dx = cx + 0.5 - x
    dy = cy + 0.5 - y
    lx = c * dx - s * dy
    ly = s * dx + c * dy
    return np.rint(lx * 2).astype(np.int32), np.rint(ly * 2).astype(np.int32)


@cache
def _doodad_bins(table: str, key: str) -> tuple[np.ndarray, int] | None:
    """(dense bool[2B+1, 2B+1] indexed [bx + B, by + B], reach in cells) of a doodad type, or None."""
    spec = (FD.DOODAD_PATHING if table == "path" else FD.DOODAD_PLACEMENT).get(key)
    if not spec:
        return None
    bins = [(int(a), int(b)) for a, b in (p.split(",") for p in spec.split())]
    big = max(max(abs(a), abs(b)) for a, b in bins)
    dense = np.zeros((2 * big + 1, 2 * big + 1), dtype=bool)
    for a, b in bins:
        dense[a + big, b + big] = True
    return dense, big // 2 + 2


def doodad_blocks(objects: Iterable[MapObject], width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """(pathing_blocked, placement_blocked) bool[h, w]: the cells the map's doodads take out."""
    out = {"path": np.zeros((height, width), dtype=bool), "place": np.zeros((height, width), dtype=bool)}
    for obj in objects:
        key = doodad_key(obj)
        if key is None:
            continue
        for table, grid in out.items():
            entry = _doodad_bins(table, key)
            if entry is None:
                continue
            dense, reach = entry
            big = dense.shape[0] // 2
            x0, x1 = max(int(obj.x) - reach, 0), min(int(obj.x) + reach + 1, width)
            y0, y1 = max(int(obj.y) - reach, 0), min(int(obj.y) + reach + 1, height)
            if x1 <= x0 or y1 <= y0:
                continue
            cy, cx = np.mgrid[y0:y1, x0:x1]
            bx, by = local_bins(obj.x, obj.y, obj.rotation, cx, cy)
            ok = (np.abs(bx) <= big) & (np.abs(by) <= big)
            hit = np.zeros(bx.shape, dtype=bool)
            hit[ok] = dense[bx[ok] + big, by[ok] + big]
            grid[cy[hit], cx[hit]] = True
    return out["path"], out["place"]
