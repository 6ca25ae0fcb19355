"""Real ladder maps: reading ``.SC2Map`` files, the grids the client reports, footprints, pathfinding.

Public API (see docs/engine.md, "Ladder maps"):

* :func:`load_map` -> :class:`LadderMap` (grids, start locations, neutral units, ``z()``), cached;
  :class:`MapReadError` names the file and what could not be read.
* :func:`start_raw` / :func:`start_pathing` / :func:`start_visible`: ``ResponseGameInfo.start_raw``
  as the real client gives it at game start for one player.
* :func:`footprint`: the cells a unit type blocks; :func:`stamp` puts it on a grid.
* :class:`PathFinder`: any-angle paths on a pathable grid that structures change at run time.
* :func:`find_map` / :func:`playable_maps`: the catalogue (sc2maptool's maps and ``Maps/`` folders).
"""

from sc2pool.engine.terrain.catalogue import bundled_maps, find_map, normalise, playable_maps
from sc2pool.engine.terrain.footprints import (
    footprint,
    footprint_cells,
    footprint_origin,
    has_footprint,
    stamp,
)
from sc2pool.engine.terrain.gameinfo import start_pathing, start_raw, start_visible
from sc2pool.engine.terrain.ladder import LadderMap, NeutralObject, load_map
from sc2pool.engine.terrain.pathing import PathFinder
from sc2pool.engine.terrain.reader import MapReadError

__all__ = [
    "LadderMap", "MapReadError", "NeutralObject", "PathFinder", "bundled_maps", "find_map", "footprint",
    "footprint_cells", "footprint_origin", "has_footprint", "load_map", "normalise", "playable_maps",
    "stamp", "start_pathing", "start_raw", "start_visible",
]
