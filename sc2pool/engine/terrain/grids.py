"""The terrain rules: the client's grids computed from a map's raw layers.

Rules and their measured agreement with the real client are in ``docs/engine.md`` ("Ladder maps").
A cell's four corners are vertices of ``t3SyncHeightMap`` (a height and a cliff level each); the
cell itself has a cliff value in ``t3SyncCliffLevel`` (level x 64, ramp cells in between).  In short:

* pathable terrain: inside the playable area, not painted "no pathing" (``CellAttribute_Pnp``),
  not void, not a cliff face (corners on different levels and heights too far apart), not a cliff
  corner cut at the centre of a 2x2 cliff block, and not the cliff beside a ramp (the ramp's side
  "wedges", placed from the ramps of ``t3Terrain.xml``);
* placeable terrain: pathable, not a ramp cell, its corners on one level or (away from ramps) at
  least two of them on the cell's own level, not sloped beside a ramp, not painted "no build"
  (``Pnb``, ``Pde``);
* height: the lower-left vertex's height, except at a cliff edge away from ramps, where the client
  reports the level's flat height.

Doodad footprints are stamped on top by :mod:`sc2pool.engine.terrain.footprints`.
"""

from __future__ import annotations

import math

import numpy as np

from sc2pool.engine.terrain.reader import Ramp, RawMap


def playable_area(camera: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The client's playable_area: the camera bounds shrunk to even numbers (lower corner up, upper down)."""
    left, bottom, right, top = camera
    return (left + (left & 1), bottom + (bottom & 1), right - (right & 1), top - (top & 1))


def _corners(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lower-left, lower-right, upper-left and upper-right vertex of every cell."""
    return v[:-1, :-1], v[:-1, 1:], v[1:, :-1], v[1:, 1:]


def playable_mask(width: int, height: int, playable: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = playable
    m = np.zeros((height, width), dtype=bool)
    m[y0:y1, x0:x1] = True
    return m


_EIGHT = np.ones((3, 3), dtype=bool)

#: Height range (max - min of the four corners) above which a cell whose corners lie on different
#: cliff levels is a cliff face.  Beside a ramp the client walks steeper cells: all 62 such cells
#: with a range of 0.5-0.875 on the 24 maps are pathable, 4 of the 6 steeper ones (to 1.2) are not.
CLIFF_FACE_RANGE = 0.5
CLIFF_FACE_RANGE_BESIDE_RAMP = 0.875

#: Corners within this height range make a cell flat (for placement and the cliff-block corners).
FLAT_RANGE = 0.2

_HALF_DIAGONAL = math.sqrt(0.5)


def ramp_cells(raw: RawMap) -> tuple[np.ndarray, np.ndarray]:
    """(ramp, beside): the ramp cells of ``t3SyncCliffLevel`` and the cells 8-adjacent to one (or one)."""
    from scipy import ndimage

    ramp = raw.cliff % 64 != 0
    return ramp, ndimage.binary_dilation(ramp, structure=_EIGHT)


def ramp_side_cells(width: int, height: int, ramps: tuple[Ramp, ...] | list[Ramp]) -> np.ndarray:
    """bool[h, w]: the cliff cells along the sides of the ramps, which the client never paths.

    The ramp's own vertices there are level and smooth, so the corner rules alone call them
    walkable; the client does not (they are the ramp's side cliff).  Their shape was measured on
    the 24 maps (docs/engine.md): for a diagonal ramp (``dir`` 4..7, length 4·√2), with ``a`` the
    distance of a cell centre down the ramp from its upper edge and ``d`` its distance outside the
    ramp's side edge, both in steps of √2/2, the side cells are ``0 <= d <= 2`` and
    ``3 <= a + d <= 7``: 2,458 cells the corner rules call walkable, none of them pathable in the
    client (within 3 cells of the ramps, the grids now differ from the client's on 153 cells, from
    2,329 before).  For the
    axis-aligned ramps (``dir`` 0..3, length 4; 10 ramps on 4 maps) the cells half a cell inside
    the side edge at 0.5, 1.5 and 2.5 down the ramp (10 cells, none pathable) (m: few samples).
    Ramps of other shapes get no side cells (m: none on the measured maps).
    """
    out = np.zeros((height, width), dtype=bool)
    for r in ramps:
        f = r.base
        reach = int(math.ceil(f.w + 2 * r.mid.h)) + 3  # the ramp and its sides lie within this of base.c
        y0, y1 = max(int(f.cy) - reach, 0), min(int(f.cy) + reach + 1, height)
        x0, x1 = max(int(f.cx) - reach, 0), min(int(f.cx) + reach + 1, width)
        if y0 >= y1 or x0 >= x1:
            continue
        ys, xs = np.mgrid[y0:y1, x0:x1]
        px, py = xs + 0.5 - f.cx, ys + 0.5 - f.cy
        a = -(px * f.ux + py * f.uy)
        d = np.abs(px * f.rx + py * f.ry) - f.w
        if r.dir >= 4 and abs(r.mid.h - 4 * _HALF_DIAGONAL) < 1e-3:
            i, j = a / _HALF_DIAGONAL, d / _HALF_DIAGONAL
            on_lattice = (np.abs(i - np.rint(i)) < 1e-3) & (np.abs(j - np.rint(j)) < 1e-3)
            ij = np.rint(i) + np.rint(j)
            out[y0:y1, x0:x1] |= on_lattice & (np.rint(j) >= 0) & (np.rint(j) <= 2) & (ij >= 3) & (ij <= 7)
        elif r.dir < 4 and abs(r.mid.h - 2.0) < 1e-3:
            out[y0:y1, x0:x1] |= (np.abs(d + 0.5) < 1e-3) & (np.abs(a - 1.5) < 1.0 + 1e-3) & (np.abs(a - np.rint(a - 0.5) - 0.5) < 1e-3)
    return out


def terrain_grids(raw: RawMap, playable: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(pathable, placeable) bool[h, w] from terrain and paint alone (no doodads, no units)."""
    lv = _corners(raw.vertex_level.astype(np.int16))
    hv = _corners(raw.vertex_height)
    level_same = (lv[0] == lv[1]) & (lv[0] == lv[2]) & (lv[0] == lv[3])
    hmax = np.maximum(np.maximum(hv[0], hv[1]), np.maximum(hv[2], hv[3]))
    hmin = np.minimum(np.minimum(hv[0], hv[1]), np.minimum(hv[2], hv[3]))
    flat = (hmax - hmin) <= FLAT_RANGE
    ramp, beside_ramp = ramp_cells(raw)
    cell_level = (raw.cliff // 64).astype(np.int16)
    on_cell_level = sum((c == cell_level).astype(np.int8) for c in lv)  # corners on the cell's own level

    cliff_face = ~level_same & ((hmax - hmin) > np.where(beside_ramp, CLIFF_FACE_RANGE_BESIDE_RAMP, CLIFF_FACE_RANGE))
    # a cliff corner cut at the centre of a 2x2 cliff block (the vertex with odd x and odd y): three
    # corners on the cell's level, the centre one on another and not flat; 150 of 200 such cells
    # on the 24 maps are unpathable in the client, every other mixed cell away from ramps is pathable
    h, w = raw.cliff.shape
    ys, xs = np.mgrid[0:h, 0:w]
    centre = (1 - xs % 2) + 2 * (1 - ys % 2)  # which corner (ll, lr, ul, ur) is the block centre
    centre_level = np.choose(centre, lv)
    block_corner = ~level_same & ~ramp & ~beside_ramp & (on_cell_level == 3) & (centre_level != cell_level) & ~flat

    inside = playable_mask(raw.width, raw.height, playable)
    pathable = inside & (raw.cliff > 0) & ~cliff_face & ~block_corner & ~ramp_side_cells(w, h, raw.ramps)
    if "Pnp" in raw.attributes:
        pathable &= ~raw.attributes["Pnp"]
    # mixed corner levels: placeable when at least two corners are on the cell's level, away from
    # ramps (all 746 such pathable cells on the 24 maps are placeable; beside a ramp 2 of 4,328)
    mixed_ok = (on_cell_level >= 2) & ~beside_ramp
    placeable = pathable & ~ramp & (level_same | mixed_ok)
    # the foot and the top of a ramp: a sloped cell beside a ramp cell is not placeable (2,487 such
    # cells on the 24 maps are unplaceable in the client, 4 placeable)
    placeable &= ~(beside_ramp & ~flat)
    for name in ("Pnb", "Pde"):
        if name in raw.attributes:
            placeable &= ~raw.attributes[name]
    return pathable, placeable


def level_heights(raw: RawMap, playable: tuple[int, int, int, int]) -> dict[int, float]:
    """The flat height of each cliff level: the commonest height of its vertices in the playable
    area away from cliff edges (else anywhere on the map).

    Levels 1-3 are at 8, 10 and 12 (within 0.01) on 23 of the 24 maps, at 2, 4 and 6 on ParaSite; the file stores
    no such table, so it is read off the map's own plateaus.  The void level (0) is not flat (a
    chasm and a floor on AbyssalReef): its playable part is what the client's heights follow.
    """
    from scipy import ndimage

    lv = raw.vertex_level.astype(np.int16)
    interior = ndimage.maximum_filter(lv, 3) == ndimage.minimum_filter(lv, 3)
    x0, y0, x1, y1 = playable
    in_play = np.zeros(lv.shape, dtype=bool)
    in_play[y0:y1 + 1, x0:x1 + 1] = True
    out: dict[int, float] = {}
    for level in np.unique(lv).tolist():
        on = lv == level
        z = raw.vertex_height[on & interior & in_play]
        if z.size == 0:
            z = raw.vertex_height[on & interior]
        if z.size == 0:
            z = raw.vertex_height[on]
        q, counts = np.unique(np.rint(z.astype(np.float64) * 256).astype(np.int64), return_counts=True)
        out[int(level)] = float(q[counts.argmax()]) / 256.0
    return out


#: Byte rounding: byte = floor((z + 16) * 255 / 32 + offset).  Measured on the cells pathable in
#: both grids: on ramp cells plain truncation (offset 0) fits best (0.958 of ramp cells; rounding
#: 0.936) and is the one that keeps every main ramp's upper and lower cells; elsewhere 0.4 fits
#: best (0.9974; truncation 0.9930, rounding 0.9964).  The remaining cells differ by one (m: the
#: client's own rounding is not known; it differs by map).
HEIGHT_OFFSET_RAMP = 0.0
HEIGHT_OFFSET = 0.4


def height_bytes(raw: RawMap, playable: tuple[int, int, int, int]) -> np.ndarray:
    """uint8[h, w]: the client's terrain_height byte of each cell, 0 outside the playable area.

    The height is that of the cell's lower-left vertex, except where that vertex is on a cliff edge
    (a neighbouring vertex has another level) not touching a ramp cell: there the client reports
    the vertex level's flat height (:func:`level_heights`) instead of the smoothed cliff-top height
    the file stores.  burnysc2 reads the byte back as z = -16 + 32 * byte / 255.
    """
    from scipy import ndimage

    lv = raw.vertex_level.astype(np.int16)
    z = raw.vertex_height.astype(np.float64)
    edge = ndimage.maximum_filter(lv, 3) != ndimage.minimum_filter(lv, 3)
    ramp, _ = ramp_cells(raw)
    touches_ramp = np.zeros(z.shape, dtype=bool)
    for dy in (0, 1):
        for dx in (0, 1):
            touches_ramp[dy:dy + ramp.shape[0], dx:dx + ramp.shape[1]] |= ramp
    table = level_heights(raw, playable)
    flat_z = np.vectorize(lambda v: table.get(int(v), 0.0), otypes=[np.float64])(lv)
    z = np.where(edge & ~touches_ramp, flat_z, z)[:-1, :-1]
    offset = np.where(ramp, HEIGHT_OFFSET_RAMP, HEIGHT_OFFSET)
    b = np.clip(np.floor((z + 16.0) * 255.0 / 32.0 + offset), 0, 255).astype(np.uint8)
    b[~playable_mask(raw.width, raw.height, playable)] = 0
    return b


def levels(raw: RawMap) -> np.ndarray:
    """int8[h, w]: each cell's cliff level (0 = void .. 3), ramps between; used for high-ground vision.

    A ramp cell carries the in-between value rounded down, so a unit on a ramp is on the lower level
    (the real game gives high-ground vision only to units on the upper level).
    """
    return (raw.cliff // 64).astype(np.int8)


def reachable(pathable: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
    """The cells of ``pathable`` 8-connected to any of ``points`` (the start locations).

    The real client reports pockets of walkable-looking terrain that no start location reaches
    (walled-in corners, closed platforms) as unpathable: on AcidPlant this alone lifts pathing IoU
    from 0.80 to 0.98 (docs/engine.md).
    """
    from scipy import ndimage

    labels, _ = ndimage.label(pathable, structure=_EIGHT)
    h, w = pathable.shape
    keep = {int(labels[int(y), int(x)]) for x, y in points if 0 <= int(x) < w and 0 <= int(y) < h} - {0}
    if not keep:
        return np.zeros_like(pathable)
    return np.isin(labels, sorted(keep))
