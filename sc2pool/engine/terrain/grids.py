"""The terrain rules: the client's grids computed from a map's raw layers.

Rules and their measured agreement with the real client are in ``docs/engine.md`` ("Ladder maps");
in short, a cell is pathable terrain when it is inside the playable area, not painted "no pathing"
(``CellAttribute_Pnp``), not void (cliff level 0) and not a cliff face (its four corner vertices
have different cliff levels and heights more than 0.5 apart).  It is placeable when it is also flat
(no ramp: cliff level a multiple of 64; equal corner levels or corner heights within 0.2) and not painted "no build" (``Pnb``,
``Pde``).  Doodad footprints are stamped on top by :mod:`sc2pool.engine.terrain.footprints`.
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine.terrain.reader import RawMap


def playable_area(camera: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The client's playable_area: the camera bounds shrunk to even numbers (lower corner up, upper down)."""
    left, bottom, right, top = camera
    return (left + (left & 1), bottom + (bottom & 1), right - (right & 1), top - (top & 1))


def _corners(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return v[:-1, :-1], v[:-1, 1:], v[1:, :-1], v[1:, 1:]


def playable_mask(width: int, height: int, playable: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = playable
    m = np.zeros((height, width), dtype=bool)
    m[y0:y1, x0:x1] = True
    return m


def terrain_grids(raw: RawMap, playable: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(pathable, placeable) bool[h, w] from terrain and paint alone (no doodads, no units)."""
    a, b, c, d = _corners(raw.vertex_level)
    level_same = (a == b) & (a == c) & (a == d)
    ha, hb, hc, hd = _corners(raw.vertex_height)
    hmax = np.maximum(np.maximum(ha, hb), np.maximum(hc, hd))
    hmin = np.minimum(np.minimum(ha, hb), np.minimum(hc, hd))
    cliff_face = ~level_same & ((hmax - hmin) > 0.5)
    inside = playable_mask(raw.width, raw.height, playable)
    pathable = inside & (raw.cliff > 0) & ~cliff_face
    if "Pnp" in raw.attributes:
        pathable &= ~raw.attributes["Pnp"]
    # a cell on a cliff top whose corner levels differ but which is flat (within 0.2) is placeable:
    # 535 such cells on the 24 maps are placeable in the client, 2 are not; at 0.25 it turns
    flat = (hmax - hmin) <= 0.2
    placeable = pathable & (raw.cliff % 64 == 0) & (level_same | flat)
    # the foot and the top of a ramp: a sloped cell beside a ramp cell is not placeable (2,487 such
    # cells on the 24 maps are unplaceable in the client, 4 placeable)
    from scipy import ndimage

    beside_ramp = ndimage.binary_dilation(raw.cliff % 64 != 0, structure=np.ones((3, 3), dtype=bool))
    placeable &= ~(beside_ramp & ~flat)
    for name in ("Pnb", "Pde"):
        if name in raw.attributes:
            placeable &= ~raw.attributes[name]
    return pathable, placeable


def height_bytes(raw: RawMap, playable: tuple[int, int, int, int]) -> np.ndarray:
    """uint8[h, w]: the client's terrain_height byte, from the height of each cell's lower-left vertex.

    byte = round((z + 16) * 255 / 32), 0 outside the playable area (burnysc2 reads it back as
    z = -16 + 32 * byte / 255).
    """
    z = raw.vertex_height[:-1, :-1].astype(np.float64)
    b = np.clip(np.rint((z + 16.0) * 255.0 / 32.0), 0, 255).astype(np.uint8)
    b[~playable_mask(raw.width, raw.height, playable)] = 0
    return b


def levels(raw: RawMap) -> np.ndarray:
    """int8[h, w]: each cell's cliff level (0 = void .. 3), ramps between; used for high-ground vision.

    A ramp cell carries the in-between value rounded down, so a unit on a ramp is on the lower level
    (the real game gives high-ground vision only to units on the upper level).
    """
    return (raw.cliff // 64).astype(np.int8)


_EIGHT = np.ones((3, 3), dtype=bool)


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
