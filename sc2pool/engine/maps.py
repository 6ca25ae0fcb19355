"""Map specs: size, playable area and the grids sent in ``game_info.start_raw``.

Two kinds of map:

* :class:`MapSpec`, the scenarios' flat open arenas: every cell inside the playable rectangle is
  pathable and placeable and shares one terrain height, the border is unpathable.  burnysc2 then
  finds no ramps (pathable-but-unplaceable cells) and no vision blockers, which is what the real
  mini-game maps give too, and its ``_find_ramps_and_vision_blockers`` stays cheap.
* :class:`LadderSpec`, a real ladder map read from its ``.SC2Map`` file
  (:mod:`sc2pool.engine.terrain`): cliffs, ramps, doodads, the client's grids and heights.

Grid encodings follow the real client (burnysc2's ``PixelMap`` asserts ``W*H == 8*len(data)`` for
1-bit grids and reads them MSB-first): 1-bit grids are packed MSB-first
row-major from y=0 (``np.packbits``), terrain height is one byte per cell with
z = -16 + 32 * h / 255.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from s2clientprotocol import common_pb2, raw_pb2

from sc2pool.engine.terrain.ladder import LadderMap

TERRAIN_BYTE = 127
"""Height byte of the arena floor; world z of units is derived from it."""
TERRAIN_Z = -16.0 + 32.0 * TERRAIN_BYTE / 255.0


@dataclass(frozen=True)
class MapSpec:
    """A flat rectangular arena inside a ``width`` x ``height`` map."""

    name: str
    width: int
    height: int
    playable: tuple[int, int, int, int]
    """(x0, y0, x1, y1) in whole cells, x0 < x1 and y0 < y1."""
    start_locations: tuple[tuple[float, float], ...] = field(default=())
    """Start location per player id (index 0 = player 1); empty for mini-games."""

    def __post_init__(self) -> None:
        x0, y0, x1, y1 = self.playable
        if not (0 <= x0 < x1 <= self.width and 0 <= y0 < y1 <= self.height):
            raise ValueError(f"bad playable area {self.playable} for a {self.width}x{self.height} map")
        if (self.width * self.height) % 8:
            raise ValueError("map cell count must be a multiple of 8 for packed 1-bit grids")

    @cached_property
    def pathable(self) -> np.ndarray:
        """bool[height, width], row y, column x."""
        g = np.zeros((self.height, self.width), dtype=bool)
        x0, y0, x1, y1 = self.playable
        g[y0:y1, x0:x1] = True
        return g

    @property
    def placeable(self) -> np.ndarray:
        """bool[height, width]: where structures may stand (the arenas: wherever units may walk)."""
        return self.pathable

    @property
    def has_terrain(self) -> bool:
        """Whether the map has cliffs, ramps and obstacles (flat arenas have none)."""
        return False

    def z(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray | float:
        """World z of the ground under (x, y): one height everywhere on a flat arena."""
        return TERRAIN_Z

    def start_raw_for(self, own_start: tuple[float, float] | None) -> raw_pb2.StartRaw:
        """``start_raw`` as the player starting at ``own_start`` sees it (arenas: the same for all;
        the game fills in the start locations)."""
        return self.start_raw

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.playable
        return ((x0 + x1) / 2.0, (y0 + y1) / 2.0)

    def clamp(self, x: np.ndarray, y: np.ndarray, margin: np.ndarray | float) -> None:
        """Keep unit centres inside the playable area (in place); the arena has no inner walls."""
        x0, y0, x1, y1 = self.playable
        np.clip(x, x0 + margin, x1 - margin, out=x)
        np.clip(y, y0 + margin, y1 - margin, out=y)

    def is_pathable(self, x: float, y: float) -> bool:
        if not (np.isfinite(x) and np.isfinite(y)):
            return False
        xi, yi = int(np.floor(x)), int(np.floor(y))
        return 0 <= xi < self.width and 0 <= yi < self.height and bool(self.pathable[yi, xi])

    @cached_property
    def start_raw(self) -> raw_pb2.StartRaw:
        """The ``StartRaw`` with all grids (start locations are filled per player by the game)."""
        x0, y0, x1, y1 = self.playable
        packed = np.packbits(self.pathable.reshape(-1)).tobytes()
        height = np.full((self.height, self.width), TERRAIN_BYTE, dtype=np.uint8).tobytes()
        size = common_pb2.Size2DI(x=self.width, y=self.height)
        return raw_pb2.StartRaw(
            map_size=size,
            pathing_grid=common_pb2.ImageData(bits_per_pixel=1, size=size, data=packed),
            placement_grid=common_pb2.ImageData(bits_per_pixel=1, size=size, data=packed),
            terrain_height=common_pb2.ImageData(bits_per_pixel=8, size=size, data=height),
            playable_area=common_pb2.RectangleI(
                p0=common_pb2.PointI(x=x0, y=y0), p1=common_pb2.PointI(x=x1, y=y1)
            ),
        )

    @cached_property
    def visibility_all(self) -> common_pb2.ImageData:
        """Visibility map with every cell visible (2): the engine models no fog of war."""
        size = common_pb2.Size2DI(x=self.width, y=self.height)
        data = np.full(self.width * self.height, 2, dtype=np.uint8).tobytes()
        return common_pb2.ImageData(bits_per_pixel=8, size=size, data=data)

    @cached_property
    def creep_none(self) -> common_pb2.ImageData:
        size = common_pb2.Size2DI(x=self.width, y=self.height)
        return common_pb2.ImageData(bits_per_pixel=1, size=size, data=bytes(self.width * self.height // 8))


MINIGAME = MapSpec("MiniGame", 64, 64, (20, 20, 44, 44))
"""The one-screen mini-game arena: a 64x64 map with a 24x24 playable area.

Source: pysc2's default camera is 24 world units wide and these maps fit one screen, so the arena
is at most 24 x 24; its exact size inside the real map files is not known from a source.  A Monte
Carlo of the scripted MoveToBeacon walk (docs/engine.md, Sources) puts the published scores (human 26, agents
25-27) between 22 x 22 and 24 x 24 arenas with the 2.5 beacon radius, so the largest size the
screen allows is taken."""

SKIRMISH = MapSpec("Skirmish", 64, 64, (8, 12, 56, 52), start_locations=((14.5, 32.5), (49.5, 32.5)))
"""A small symmetric 1v1 arena, start locations point-mirrored across the centre."""

BATTLE = MapSpec("Battle", 96, 96, (8, 16, 88, 80), start_locations=((20.5, 48.5), (75.5, 48.5)))


@dataclass(frozen=True)
class LadderSpec(MapSpec):
    """A real ladder map (:class:`sc2pool.engine.terrain.LadderMap`) as the game plays it.

    The grids are the map's own: ``pathable`` is the terrain and its doodads without any unit,
    ``placeable`` the client's placement grid, heights the client's bytes; ``start_raw_for`` is
    what the real client answers at game start for one player (measured on 24 maps,
    docs/engine.md "Ladder maps").
    """

    ladder: LadderMap | None = None

    @classmethod
    def from_ladder(cls, m: LadderMap) -> LadderSpec:
        return cls(m.name, m.width, m.height, m.playable, start_locations=m.start_locations, ladder=m)

    @property
    def _lm(self) -> LadderMap:
        assert self.ladder is not None
        return self.ladder

    @cached_property
    def pathable(self) -> np.ndarray:
        return np.asarray(self._lm.pathable, dtype=bool)

    @property
    def placeable(self) -> np.ndarray:
        return np.asarray(self._lm.placeable, dtype=bool)

    @property
    def has_terrain(self) -> bool:
        return True

    @cached_property
    def _cell_z(self) -> np.ndarray:
        """float[height, width]: ground z at each cell's centre (the mesh's four corners averaged)."""
        v = np.asarray(self._lm.vertex_z, dtype=np.float64)
        return (v[:-1, :-1] + v[:-1, 1:] + v[1:, :-1] + v[1:, 1:]) / 4.0

    def z(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray | float:
        """World z of the ground at (x, y): the terrain mesh, at the cell's centre."""
        xi = np.minimum(np.maximum(np.asarray(x, dtype=np.float64).astype(np.int64), 0), self.width - 1)
        yi = np.minimum(np.maximum(np.asarray(y, dtype=np.float64).astype(np.int64), 0), self.height - 1)
        out = self._cell_z[yi, xi]
        return float(out) if np.ndim(out) == 0 else out

    @cached_property
    def start_raw(self) -> raw_pb2.StartRaw:
        """Without a player: the map's own grids, no unit's footprint on them."""
        x0, y0, x1, y1 = self.playable
        size = common_pb2.Size2DI(x=self.width, y=self.height)

        def bits(grid: np.ndarray) -> common_pb2.ImageData:
            return common_pb2.ImageData(bits_per_pixel=1, size=size, data=np.packbits(grid.reshape(-1)).tobytes())

        return raw_pb2.StartRaw(
            map_size=size, pathing_grid=bits(self.pathable), placement_grid=bits(self.placeable),
            terrain_height=common_pb2.ImageData(bits_per_pixel=8, size=size,
                                                data=np.ascontiguousarray(self._lm.height_bytes).tobytes()),
            playable_area=common_pb2.RectangleI(p0=common_pb2.PointI(x=x0, y=y0), p1=common_pb2.PointI(x=x1, y=y1)),
        )

    @cached_property
    def _start_raws(self) -> dict[tuple[float, float], raw_pb2.StartRaw]:
        """``start_raw_for`` per own start, made once: game_info is answered again whenever a
        player's pathing grid changes, and only copies it."""
        return {}

    def start_raw_for(self, own_start: tuple[float, float] | None) -> raw_pb2.StartRaw:
        from sc2pool.engine.terrain import start_raw

        if own_start is None:
            return self.start_raw
        key = (float(own_start[0]), float(own_start[1]))
        sr = self._start_raws.get(key)
        if sr is None:
            sr = self._start_raws[key] = start_raw(self._lm, own_start)
        return sr
