"""What the real client reports at game start for a ladder map: ``ResponseGameInfo.start_raw``.

Measured on python-sc2's 24 real-client captures (docs/engine.md, "Ladder maps"):

* ``start_locations``: the map's StartLoc points other than the player's own (order: see
  :func:`enemy_start_locations`).
* ``pathing_grid``: the map's pathable grid less the footprints of the units the player *sees* at
  start (its own townhall and the minerals and geysers of its main, within the townhall's sight
  range, 11) and of the destructible rocks.  Fogged (snapshot) minerals and geysers do not block it.
  The client shows most maps' rocks blocking but some not (e.g. AbyssalReef's diagonal rocks); no
  rule in the map file was found for it, so every rock with a known footprint is stamped, which
  agrees better on 17 of the 24 maps (docs/engine.md).
* ``placement_grid``: the map's placeable grid, not reduced by any unit.
* ``terrain_height``: the height bytes; everything outside the playable area is 0 in all three.

Structures built later change the pathing grid the engine's observations report; that is the
game's business (PathFinder.set_blocked), not this start snapshot's.
"""

from __future__ import annotations

import math

import numpy as np
from s2clientprotocol import common_pb2, raw_pb2

from sc2pool.engine.terrain.footprints import GEYSER_TYPES, MINERAL_TYPES, has_footprint, stamp
from sc2pool.engine.terrain.ladder import LadderMap, NeutralObject

#: CommandCenter / Nexus / Hatchery sight range (ResponseData: 11): what the player sees at start.
TOWNHALL_SIGHT = 11.0


def own_start_index(m: LadderMap, start: int | tuple[float, float]) -> int:
    """The StartLoc index of a player's start given as an index or as its townhall's position."""
    if isinstance(start, int):
        if not 0 <= start < len(m.start_locations):
            raise ValueError(f"{m.name} has {len(m.start_locations)} start locations; no index {start}")
        return start
    sx, sy = start
    best = min(range(len(m.start_locations)), key=lambda i: math.hypot(m.start_locations[i][0] - sx, m.start_locations[i][1] - sy))
    return best


def start_visible(m: LadderMap, start: int | tuple[float, float]) -> list[NeutralObject]:
    """The neutral units a player starting at ``start`` sees at game start (the rest are snapshots)."""
    sx, sy = m.start_locations[own_start_index(m, start)]
    return [n for n in m.neutrals if math.hypot(n.x - sx, n.y - sy) <= TOWNHALL_SIGHT]


def start_pathing(m: LadderMap, start: int | tuple[float, float], townhall: str = "CommandCenter") -> np.ndarray:
    """bool[h, w]: the client's pathing_grid at game start for the player starting at ``start``."""
    grid = np.array(m.pathable, dtype=bool, copy=True)
    i = own_start_index(m, start)
    sx, sy = m.start_locations[i]
    stamp(grid, townhall, sx, sy)
    for n in start_visible(m, i):
        if n.is_mineral or n.is_geyser:
            stamp(grid, n.type_name, n.x, n.y)
    for n in m.neutrals:
        if n.type_name not in MINERAL_TYPES and n.type_name not in GEYSER_TYPES and has_footprint(n.type_name):
            stamp(grid, n.type_name, n.x, n.y)
    return grid


def _image(bits: np.ndarray) -> common_pb2.ImageData:
    h, w = bits.shape
    return common_pb2.ImageData(bits_per_pixel=1, size=common_pb2.Size2DI(x=w, y=h),
                                data=np.packbits(bits.reshape(-1)).tobytes())


def start_raw(m: LadderMap, start: int | tuple[float, float], townhall: str = "CommandCenter") -> raw_pb2.StartRaw:
    """``ResponseGameInfo.start_raw`` for the player whose townhall stands on start ``start``."""
    i = own_start_index(m, start)
    x0, y0, x1, y1 = m.playable
    size = common_pb2.Size2DI(x=m.width, y=m.height)
    sr = raw_pb2.StartRaw(
        map_size=size,
        pathing_grid=_image(start_pathing(m, i, townhall)),
        placement_grid=_image(np.asarray(m.placeable, dtype=bool)),
        terrain_height=common_pb2.ImageData(bits_per_pixel=8, size=size, data=np.ascontiguousarray(m.height_bytes).tobytes()),
        playable_area=common_pb2.RectangleI(p0=common_pb2.PointI(x=x0, y=y0), p1=common_pb2.PointI(x=x1, y=y1)),
    )
    for x, y in enemy_start_locations(m, i):
        sr.start_locations.add(x=x, y=y)
    return sr


def enemy_start_locations(m: LadderMap, start: int | tuple[float, float]) -> list[tuple[float, float]]:
    """The StartLoc points other than the player's own, in the client's order.

    Measured on the two 4-spawn maps (m: two samples): farthest from the player's own first, ties
    by larger x.  Frost, own (155.5, 155.5): (28.5, 28.5), (155.5, 28.5), (28.5, 155.5);
    DarknessSanctuary, own (19.5, 156.5): (156.5, 19.5), (156.5, 156.5), (19.5, 19.5).  Neither the
    file order nor its rotation fits both.
    """
    i = own_start_index(m, start)
    ox, oy = m.start_locations[i]
    others = [p for j, p in enumerate(m.start_locations) if j != i]
    return sorted(others, key=lambda p: (-round(math.hypot(p[0] - ox, p[1] - oy), 6), -p[0], -p[1]))
