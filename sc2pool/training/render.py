"""Top-down ``rgb_array`` pictures of a StarCraft II game, drawn from the raw API observation.

The renderer reads only s2clientprotocol messages - the ``ResponseGameInfo`` of the game and the
``Observation`` of each step, exactly what burnysc2 receives - so the same code draws the embedded
engine, the real game, and an engine replay played back without any bot (``sc2pool replay``).

What a frame shows (the view is the map's playable area, north up):

* the ground: pathable cells lighter than unpathable ones, brighter the higher they lie, cliffs
  (a height step between neighbouring cells) as a light rim on the upper side and a shadow on the
  lower one; fogged / never-seen cells darker when the observation carries a visibility map that
  is not all visible; creep (purple) and the player's power fields (blue) tinted over it;
* structures, mineral fields, geysers and rocks as filled rectangles of their placement footprint
  (the project's game-fact table), every other unit as an anti-aliased disc of its real radius,
  coloured by alliance (self blue, ally purple, enemy red); neutral objects by kind (mineral
  fields and shards cyan, beacons yellow rings, vespene geysers green, rocks brown, anything else
  grey); snapshots (seen earlier, under fog) dimmed;
* a health bar (green to red) and, for units with shields, a shield bar (blue) above each unit
  that has hit points (only damaged ones when a game cell is under 4 pixels: a whole map);
* the score and the game time (``score 3  0:42``) in the top-left corner; in a melee game the
  time, minerals, vespene, supply and army count instead.

Cost: the static ground (terrain, cliffs and the fog's three shades of it) is drawn once per game;
a frame picks its shade per pixel and draws the units in whole-array operations (numpy only);
text comes from a glyph atlas Pillow renders once per process.
See ``docs/rendering.md`` and ``benchmarks/bench_render.py`` for the measured cost.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

#: Game loops per second at "faster" speed (the clock burnysc2 and pysc2 show).
LOOPS_PER_SECOND = 22.4
DEFAULT_SIZE = 256

# Alliance values (raw.proto ``Alliance``).
SELF, ALLY, NEUTRAL, ENEMY = 1, 2, 3, 4
# display_type values (raw.proto ``DisplayType``).
VISIBLE, SNAPSHOT, HIDDEN = 1, 2, 3

ALLIANCE_COLORS: dict[int, tuple[int, int, int]] = {
    SELF: (50, 110, 255),
    ALLY: (190, 120, 255),
    ENEMY: (235, 64, 52),
}
MINERAL_COLOR = (90, 230, 230)
BEACON_COLOR = (250, 220, 60)
GEYSER_COLOR = (40, 170, 110)
ROCK_COLOR = (150, 120, 90)
NEUTRAL_COLOR = (150, 150, 150)
CREEP_COLOR = np.array((120, 50, 140), dtype=np.float32)
POWER_COLOR = np.array((70, 150, 255), dtype=np.float32)
#: Ground colour at the middle height of the map's pathable cells (all of a flat mini-game).
GROUND_PATHABLE = np.array((46, 50, 58), dtype=np.uint8)
GROUND_BLOCKED = np.array((18, 18, 22), dtype=np.uint8)
#: Brightness of pathable ground from the lowest to the highest level of the map.
HEIGHT_SHADE = (0.8, 1.6)
#: A height step of this many ``terrain_height`` bytes (1 game unit: 255 bytes span 32 units)
#: between neighbouring cells is drawn as a cliff; ramps climb about 1-4 bytes a cell and levels
#: differ by 16 (measured on the ladder maps' height grids).
CLIFF_STEP = 8
#: A cliff's upper edge (a light line, whatever lies there: cliffs are mostly unpathable cells)
#: and its foot (a shadow, a fraction of the ground's brightness).
CLIFF_RIM = np.array((128, 132, 140), dtype=np.float32)
CLIFF_SHADOW = 0.5
BORDER_COLOR = np.array((90, 96, 110), dtype=np.uint8)
HEALTH_BACK = np.array((40, 0, 0), dtype=np.uint8)
SHIELD_COLOR = np.array((80, 160, 255), dtype=np.uint8)
TEXT_COLOR = np.array((235, 235, 235), dtype=np.float32)

# Neutral kinds (index into _NEUTRAL_KIND_COLORS).
_OTHER, _MINERAL, _BEACON, _GEYSER, _ROCK = 0, 1, 2, 3, 4
_NEUTRAL_KIND_COLORS = (NEUTRAL_COLOR, MINERAL_COLOR, BEACON_COLOR, GEYSER_COLOR, ROCK_COLOR)
#: ``Score.score_type`` of a melee game (score.proto): the HUD shows the economy instead.
_MELEE_SCORE = 2
#: Below this many pixels per game cell units are too small for a bar each: only damaged ones get one.
COMPACT_SCALE = 4.0
#: Brightness of hidden (never seen), fogged (seen before) and visible cells.
_FOG_SHADE = np.array([0.45, 0.7, 1.0, 1.0], dtype=np.float32)
_NEUTRAL_PALETTE = np.array(_NEUTRAL_KIND_COLORS, dtype=np.float32)
_ALLIANCE_PALETTE = np.array(
    [NEUTRAL_COLOR] + [ALLIANCE_COLORS.get(a, NEUTRAL_COLOR) for a in (SELF, ALLY, NEUTRAL, ENEMY)], dtype=np.float32
)


@functools.lru_cache(maxsize=1)
def _neutral_kinds() -> dict[int, int]:
    """unit_type id -> neutral kind, from burnysc2's id table (names are the game's own) and the
    project's game-fact table (rocks and debris are its ``destructible`` kind)."""
    from sc2.ids.unit_typeid import UnitTypeId

    from sc2pool.engine.data.units import DESTRUCTIBLE, FACTS

    kinds: dict[int, int] = {}
    for t in UnitTypeId:
        n = t.name
        if "MINERAL" in n:
            kinds[t.value] = _MINERAL
        elif n.startswith("BEACON") or "_BEACON" in n:
            kinds[t.value] = _BEACON
        elif "GEYSER" in n:
            kinds[t.value] = _GEYSER
        elif "ROCK" in n or "DEBRIS" in n:
            kinds[t.value] = _ROCK
    for f in FACTS.values():
        if f.kind == DESTRUCTIBLE:
            kinds.setdefault(f.unit_id, _ROCK)
    return kinds


@functools.lru_cache(maxsize=1)
def _footprints() -> np.ndarray:
    """int16 (n_types, 2): (width, height) in cells of the placement footprint of every unit type
    placed on the ground grid (structures, add-ons, resources, rocks with a rectangular one, a
    lowered depot), (0, 0) for the rest. The project's game-fact table, facts of the real game."""
    from sc2pool.engine.data.units import FACTS

    table = np.zeros((max(FACTS) + 1, 2), dtype=np.int16)
    for f in FACTS.values():
        if f.fp is not None and not f.flying:
            table[f.unit_id] = f.fp
    return table


class _Glyphs:
    """A glyph atlas: each character's coverage mask, rendered once with Pillow's default font."""

    CHARS = "0123456789:. -/abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def __init__(self, px: int) -> None:
        from PIL import Image, ImageDraw, ImageFont

        try:
            font: Any = ImageFont.load_default(size=px)
        except TypeError:  # Pillow < 10.1 has only the bitmap font
            font = ImageFont.load_default()
        top = min(font.getbbox(c)[1] for c in self.CHARS if c != " ")
        bottom = max(font.getbbox(c)[3] for c in self.CHARS if c != " ")
        self.height = max(1, bottom - top)
        self._labels: dict[str, np.ndarray] = {}
        self.masks: dict[str, np.ndarray] = {}
        for c in self.CHARS:
            w = max(1, int(round(font.getlength(c))))
            im = Image.new("L", (w, self.height), 0)
            ImageDraw.Draw(im).text((0, -top), c, fill=255, font=font)
            self.masks[c] = np.asarray(im, dtype=np.float32)[..., None] / 255.0

    def label(self, text: str) -> np.ndarray:
        """``text``'s coverage (float32 (h, w, 1)) with a 2-pixel margin left and right and one
        above and below. Labels repeat for many frames (the clock changes once a game second),
        so the last few are kept."""
        cached = self._labels.get(text)
        if cached is None:
            masks = [self.masks.get(c, self.masks["-"]) for c in text]
            body = np.concatenate(masks, axis=1) if masks else np.zeros((self.height, 0, 1), np.float32)
            cached = np.pad(body, ((1, 1), (2, 2), (0, 0)))
            if len(self._labels) >= 64:
                self._labels.clear()
            self._labels[text] = cached
        return cached

    def draw(self, img: np.ndarray, x: int, y: int, text: str) -> None:
        """Blend ``text`` into ``img`` (uint8 HxWx3) with its top-left corner at (x, y), on a dark
        backing so it stays readable over units."""
        h, w = img.shape[:2]
        a = self.label(text)
        y1, x1 = min(h, y + a.shape[0]), min(w, x + a.shape[1])
        if y >= y1 or x >= x1:
            return
        a = a[: y1 - y, : x1 - x]
        region = img[y:y1, x:x1]
        dark = region * np.float32(0.25)  # quarter brightness behind the text
        region[:] = (dark + (TEXT_COLOR - dark) * a).astype(np.uint8)


@functools.lru_cache(maxsize=8)
def _glyphs(px: int) -> _Glyphs:
    return _Glyphs(px)


def _grid(image: Any) -> np.ndarray | None:
    """An ``ImageData`` as a (rows=y, cols=x) uint8 array, or None if absent/malformed."""
    w, h, bpp = int(image.size.x), int(image.size.y), int(image.bits_per_pixel)
    data = bytes(image.data)
    if w <= 0 or h <= 0:
        return None
    if bpp == 1 and len(data) * 8 >= w * h:
        return np.unpackbits(np.frombuffer(data, dtype=np.uint8))[: w * h].reshape(h, w)
    if bpp == 8 and len(data) >= w * h:
        return np.frombuffer(data, dtype=np.uint8)[: w * h].reshape(h, w)
    return None


class FrameRenderer:
    """Draws observations of one game as uint8 ``(H, W, 3)`` arrays.

    Args:
        game_info: the game's ``ResponseGameInfo`` (playable area, pathing grid, terrain height).
        size: pixels on the long side of the playable area (the short side follows its aspect).

    Raises:
        ValueError: ``size`` below 16, or a game info without a playable area or map size.
    """

    def __init__(self, game_info: sc_pb.ResponseGameInfo, size: int = DEFAULT_SIZE) -> None:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 16:
            raise ValueError(f"render size must be an int >= 16 pixels, got {size!r}")
        raw = game_info.start_raw
        area = raw.playable_area
        x0, y0, x1, y1 = int(area.p0.x), int(area.p0.y), int(area.p1.x), int(area.p1.y)
        if x1 <= x0 or y1 <= y0:
            mw, mh = int(raw.map_size.x), int(raw.map_size.y)
            if mw <= 0 or mh <= 0:
                raise ValueError("game_info has neither a playable area nor a map size: nothing to draw")
            x0, y0, x1, y1 = 0, 0, mw, mh
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1
        self.size = int(size)
        span = max(x1 - x0, y1 - y0)
        self.scale = float(size) / span  # pixels per game cell
        # Even sides: H.264 (the MP4s of eval and VecVideoRecorder) encodes only even frame sizes.
        self.width = max(2, int(round((x1 - x0) * self.scale / 2)) * 2)
        self.height = max(2, int(round((y1 - y0) * self.scale / 2)) * 2)
        # Pixel centre -> game cell (north up: image row 0 is the playable area's top, y1).
        self._cols = np.clip((x0 + (np.arange(self.width) + 0.5) / self.scale).astype(np.int64), x0, x1 - 1)
        self._rows = np.clip((y1 - (np.arange(self.height) + 0.5) / self.scale).astype(np.int64), y0, y1 - 1)
        pathing = _grid(raw.pathing_grid)
        self._map_w = int(raw.map_size.x) or (pathing.shape[1] if pathing is not None else x1)
        self._map_h = int(raw.map_size.y) or (pathing.shape[0] if pathing is not None else y1)
        self.ground = self._terrain(pathing, _grid(raw.terrain_height))
        #: The ground as float32: a frame under fog is the product of it and a shade per pixel.
        self._ground_f = self.ground.astype(np.float32)
        self._flat_cells = (self._rows[:, None] * self._map_w + self._cols[None, :]).ravel()
        self.compact = self.scale < COMPACT_SCALE
        self._fp = _footprints()
        self._kinds = _neutral_kinds()
        self._kind_table = np.zeros(max(len(self._fp), max(self._kinds, default=0) + 1), dtype=np.int64)
        for t, k in self._kinds.items():
            self._kind_table[t] = k
        #: From this many units on, discs and bars are drawn in batches (see ``_draw_units``).
        self.vector_min_units = 20
        self._glyphs = _glyphs(max(8, min(16, int(round(size / 24)))))

    def _terrain(self, pathing: np.ndarray | None, height: np.ndarray | None) -> np.ndarray:
        """The static ground: pathable cells brighter the higher they lie, unpathable ones dark,
        cliffs as a light rim above and a shadow below, a frame round the playable area. Drawn
        once per game (a renderer is made per game)."""
        hw = (self.height, self.width)
        cells = np.ix_(self._rows, self._cols)

        def fits(grid: np.ndarray | None) -> bool:
            return grid is not None and grid.shape[0] > self._rows.max() and grid.shape[1] > self._cols.max()

        walk = pathing[cells].astype(bool) if pathing is not None and fits(pathing) else np.ones(hw, dtype=bool)
        shade = np.ones(hw, dtype=np.float32)
        if height is not None and fits(height):
            h = height[cells].astype(np.float32)
            levels = h[walk] if walk.any() else h.ravel()
            lo, hi = float(levels.min()), float(levels.max())
            if hi > lo:  # a flat map (every mini-game) keeps the plain ground colour
                t = np.clip((h - lo) / (hi - lo), 0.0, 1.0)
                shade = np.float32(HEIGHT_SHADE[0]) + np.float32(HEIGHT_SHADE[1] - HEIGHT_SHADE[0]) * t
                shade /= np.float32((HEIGHT_SHADE[0] + HEIGHT_SHADE[1]) / 2)  # the middle height: 1
            # Cliffs: a pixel whose 4-neighbour lies a step lower is the upper edge, one whose
            # neighbour lies a step higher the foot of the cliff.
            pad = np.pad(h, 1, mode="edge")
            neigh = np.stack([pad[:-2, 1:-1], pad[2:, 1:-1], pad[1:-1, :-2], pad[1:-1, 2:]])
            # Only cliffs within 2 pixels of pathable ground: the void round a map has steps too.
            padded = np.pad(walk, 2)
            near = np.stack([padded[i : i + hw[0], j : j + hw[1]] for i in range(5) for j in range(5)]).any(axis=0)
            upper = ((h - neigh.min(axis=0)) >= CLIFF_STEP) & near
            lower = (neigh.max(axis=0) - h) >= CLIFF_STEP
            shade = np.where(lower & ~upper, shade * np.float32(CLIFF_SHADOW), shade)
        else:
            upper = np.zeros(hw, dtype=bool)
        base = np.where(walk[..., None], GROUND_PATHABLE, GROUND_BLOCKED).astype(np.float32)
        base = np.where(upper[..., None], CLIFF_RIM, base * shade[..., None])
        ground = np.clip(base, 0, 255).astype(np.uint8)
        ground[0, :] = ground[-1, :] = BORDER_COLOR
        ground[:, 0] = ground[:, -1] = BORDER_COLOR
        return ground

    # -- coordinates --------------------------------------------------------------------------------
    def to_pixel(self, x: float, y: float) -> tuple[float, float]:
        """(column, row) of world point (x, y) in the frame, as floats (pixel centres at +0.5)."""
        return (x - self.x0) * self.scale, (self.y1 - y) * self.scale

    # -- drawing -----------------------------------------------------------------------------------
    def render(self, observation: sc_pb.Observation) -> np.ndarray:
        """The frame of ``observation`` (an ``Observation``, or a ``ResponseObservation``)."""
        if isinstance(observation, sc_pb.ResponseObservation):
            observation = observation.observation
        raw = observation.raw_data
        img, seen = self._background(observation)
        if len(raw.map_state.creep.data):
            self._creep(img, raw.map_state.creep, seen)
        if len(raw.player.power_sources):
            self._power(img, raw.player.power_sources)
        units = raw.units
        if len(units):
            self._draw_units(img, units)
        self._glyphs.draw(img, 1, 1, self.hud(observation))
        return img

    @staticmethod
    def hud(observation: sc_pb.Observation) -> str:
        """The line in the top-left corner: the game time, then in a melee game minerals, vespene,
        supply and army count (``12:34  m450 g120  45/60  army 12``), else the score."""
        secs = int(int(observation.game_loop) / LOOPS_PER_SECOND)
        clock = f"{secs // 60}:{secs % 60:02d}"
        if observation.score.score_type == _MELEE_SCORE:
            pc = observation.player_common
            return f"{clock}  m{pc.minerals} g{pc.vespene}  {pc.food_used}/{pc.food_cap}  army {pc.army_count}"
        return f"score {observation.score.score}  {clock}"

    def _background(self, observation: sc_pb.Observation) -> tuple[np.ndarray, np.ndarray | None]:
        """A fresh copy of the ground, fogged and never-seen cells shaded when the observation's
        visibility map has any; and the visibility level of each pixel (None: all visible)."""
        vis_msg = observation.raw_data.map_state.visibility
        if vis_msg.bits_per_pixel == 8 and vis_msg.size.x == self._map_w and len(vis_msg.data):
            vis = np.frombuffer(vis_msg.data, dtype=np.uint8)
            if vis.size > self._flat_cells.max() and vis.min() < 2:  # (the map's cells: fewer than pixels)
                seen = np.minimum(vis[self._flat_cells], 3).reshape(self.height, self.width)
                if seen.min() < 2:
                    return (self._ground_f * _FOG_SHADE[seen][..., None]).astype(np.uint8), seen
        return self.ground.copy(), None

    def _creep(self, img: np.ndarray, creep_msg: Any, seen: np.ndarray | None) -> None:
        """Creep tints the ground purple where it lies and has been seen."""
        if not np.frombuffer(creep_msg.data, dtype=np.uint8).any():
            return
        grid = _grid(creep_msg)
        if grid is None or grid.shape != (self._map_h, self._map_w):
            return
        on = grid.ravel()[self._flat_cells].reshape(self.height, self.width).astype(bool)
        if seen is not None:
            on &= seen.astype(bool) & (seen != 3)
        if on.any():
            under = img[on].astype(np.float32)
            img[on] = (under + (CREEP_COLOR - under) * np.float32(0.45)).astype(np.uint8)

    def _power(self, img: np.ndarray, sources: Any) -> None:
        """Each power field (the player's pylons and warp prisms) tints its disc blue."""
        h, w = img.shape[:2]
        for src in sources:
            cx, cy = self.to_pixel(src.pos.x, src.pos.y)
            r = float(src.radius) * self.scale
            c0, c1 = max(0, int(cx - r)), min(w, int(cx + r) + 1)
            r0, r1 = max(0, int(cy - r)), min(h, int(cy + r) + 1)
            if c0 >= c1 or r0 >= r1:
                continue
            dx = np.arange(c0, c1, dtype=np.float32) + np.float32(0.5 - cx)
            dy = np.arange(r0, r1, dtype=np.float32)[:, None] + np.float32(0.5 - cy)
            inside = (dx * dx + dy * dy) <= np.float32(r * r)
            region = img[r0:r1, c0:c1]
            under = region[inside].astype(np.float32)
            region[inside] = (under + (POWER_COLOR - under) * np.float32(0.3)).astype(np.uint8)

    def _footprint(self, unit_type: np.ndarray) -> np.ndarray:
        """(width, height) in cells of each type's footprint, (0, 0) for types drawn as discs."""
        known = unit_type < len(self._fp)
        return self._fp[np.where(known & (unit_type >= 0), unit_type, 0)]

    def _draw_units(self, img: np.ndarray, units: Any) -> None:
        """Footprints, then every unit's disc, then every bar, each kind in a few whole-array
        operations."""
        n = len(units)
        if n < self.vector_min_units:
            self._draw_units_one_by_one(img, units)
            return
        # x, y, radius, health, health_max, shield, shield_max, alliance, unit_type, display_type
        rows = np.array(
            [(u.pos.x, u.pos.y, u.radius, u.health, u.health_max, u.shield, u.shield_max, u.alliance, u.unit_type,
              u.display_type) for u in units],
            dtype=np.float64,
        )
        keep = rows[:, 9] != HIDDEN
        if not keep.all():
            rows = rows[keep]
        f = rows[:, :7].astype(np.float32)
        kind = rows[:, 7:].astype(np.int64)  # alliance, unit_type, display_type
        alliance = kind[:, 0]
        known = (kind[:, 1] >= 0) & (kind[:, 1] < len(self._kind_table))
        neutral_kind = np.where((alliance == NEUTRAL) & known, self._kind_table[np.where(known, kind[:, 1], 0)], _OTHER)
        colors = np.where(
            (alliance == NEUTRAL)[:, None], _NEUTRAL_PALETTE[neutral_kind], _ALLIANCE_PALETTE[np.clip(alliance, 0, 4)]
        )
        cx = (f[:, 0] - self.x0) * self.scale
        cy = (self.y1 - f[:, 1]) * self.scale
        rad = np.maximum(np.float32(1.5), f[:, 2] * self.scale)
        ring = (alliance == NEUTRAL) & (neutral_kind == _BEACON)
        dim = kind[:, 2] == SNAPSHOT
        bars = (f[:, 4] > 0) & ~dim
        if self.compact:
            bars &= (f[:, 3] < f[:, 4]) | (f[:, 5] < f[:, 6])
        hp = f[:, 3] / np.maximum(f[:, 4], 1e-6)
        shield = np.where(f[:, 6] > 0, f[:, 5] / np.maximum(f[:, 6], 1e-6), -1.0)
        fp = self._footprint(kind[:, 1])
        rect = fp[:, 0] > 0
        if rect.any():
            self._rects(img, cx[rect], cy[rect], fp[rect], colors[rect], alliance[rect] != NEUTRAL, dim[rect])
            rad = np.where(rect, np.maximum(rad, fp.max(axis=1) * np.float32(self.scale / 2)), rad)
        # Discs in buckets of one box size: the work stays proportional to the pixels the discs
        # cover, not to the largest unit on the map. Box sides are even (rounded up), so a few
        # unit types give a few buckets.
        box = np.where(rect, 0, (np.ceil(rad + 1.5).astype(np.int64)) * 2)
        for b in np.unique(box[~rect]):
            sel = np.flatnonzero(box == b)
            self._discs(img, cx[sel], cy[sel], rad[sel], colors[sel], ring[sel], dim[sel], int(b))
        if bars.any():
            self._bars(img, cx[bars], cy[bars], rad[bars], hp[bars], shield[bars])

    def _draw_units_one_by_one(self, img: np.ndarray, units: Any) -> None:
        """A few units: per-unit slices cost less than the fixed cost of the batched path."""
        bars = []
        discs = []
        rects: list[tuple[float, float, int, int, np.ndarray, bool, bool]] = []
        scale = self.scale
        n_fp = len(self._fp)
        for u in units:
            display = u.display_type
            if display == HIDDEN:
                continue
            alliance = u.alliance
            ring = False
            if alliance == NEUTRAL:
                nk = self._kinds.get(u.unit_type, _OTHER)
                color = _NEUTRAL_PALETTE[nk]
                ring = nk == _BEACON
            else:
                color = _ALLIANCE_PALETTE[alliance if 0 <= alliance <= 4 else 0]
            dim = display == SNAPSHOT
            # float32 like the batched path, so both put every pixel in the same place.
            cx = float(np.float32(np.float32(u.pos.x - self.x0) * np.float32(scale)))
            cy = float(np.float32(np.float32(self.y1 - u.pos.y) * np.float32(scale)))
            r = float(max(np.float32(1.5), np.float32(u.radius) * np.float32(scale)))
            fw, fh = (int(v) for v in self._fp[u.unit_type]) if 0 <= u.unit_type < n_fp else (0, 0)
            if fw > 0:
                rects.append((cx, cy, fw, fh, color, alliance != NEUTRAL, dim))
                r = max(r, float(np.float32(max(fw, fh)) * np.float32(scale / 2)))
            else:
                discs.append((cx, cy, r, color, ring, dim))
            hp_max = u.health_max
            damaged = u.health < hp_max or u.shield < u.shield_max
            if hp_max > 0 and not dim and (damaged or not self.compact):
                shield = u.shield / u.shield_max if u.shield_max > 0 else -1.0
                bars.append((cx, cy, r, u.health / hp_max, shield))
        if rects:
            cols = list(zip(*rects, strict=True))
            self._rects(img, np.array(cols[0], np.float32), np.array(cols[1], np.float32),
                        np.array([cols[2], cols[3]], np.int64).T, np.array(cols[4], np.float32),
                        np.array(cols[5], bool), np.array(cols[6], bool))
        for disc in discs:
            self._disc_one(img, *disc)
        for bar in bars:  # over every disc: a crowd of units must not hide its bars
            self._bar_one(img, *bar)

    def _rects(
        self, img: np.ndarray, cx: np.ndarray, cy: np.ndarray, fp: np.ndarray, colors: np.ndarray,
        outline: np.ndarray, dim: np.ndarray,
    ) -> None:
        """Footprints as filled rectangles: a player's structures darker inside a rim of their
        colour, neutral ones (minerals, geysers, rocks) plain; snapshots at 45 % opacity. All
        rectangles of one pixel size in one batch."""
        h, w = img.shape[:2]
        wpx = np.maximum(2, np.round(fp[:, 0] * self.scale)).astype(np.int64)
        hpx = np.maximum(2, np.round(fp[:, 1] * self.scale)).astype(np.int64)
        left = np.round(cx - wpx / 2).astype(np.int64)
        top = np.round(cy - hpx / 2).astype(np.int64)
        alpha = np.where(dim, np.float32(0.45), np.float32(1.0))
        # One batch in a box of the largest size; each rectangle keeps its own part of it.
        bw, bh = int(wpx.max()), int(hpx.max())
        jj, ii = np.arange(bw), np.arange(bh)
        cols = left[:, None] + jj  # (n, bw)
        rows = top[:, None] + ii  # (n, bh)
        col_in = (jj < wpx[:, None]) & (cols >= 0) & (cols < w)
        row_in = (ii < hpx[:, None]) & (rows >= 0) & (rows < h)
        kk, i, j = np.nonzero(row_in[:, :, None] & col_in[:, None, :])
        rr, cc = rows[kk, i], cols[kk, j]
        # A player's structure: its colour on the rim, 60 % inside (rectangles of 4 px and more).
        big = (wpx >= 4) & (hpx >= 4) & outline
        inner = big[kk] & (i > 0) & (j > 0) & (i < hpx[kk] - 1) & (j < wpx[kk] - 1)
        color = colors[kk] * np.where(inner, np.float32(0.6), np.float32(1.0))[:, None]
        a = alpha[kk][:, None]
        under = img[rr, cc].astype(np.float32)
        img[rr, cc] = (under + (color - under) * a).astype(np.uint8)

    def _disc_one(
        self, img: np.ndarray, cx: float, cy: float, r: float, color: np.ndarray, ring: bool, dim: bool
    ) -> None:
        """One disc, as :meth:`_discs` draws it."""
        h, w = img.shape[:2]
        c0, c1 = max(0, int(cx - r - 1)), min(w, int(cx + r + 2))
        r0, r1 = max(0, int(cy - r - 1)), min(h, int(cy + r + 2))
        if c0 >= c1 or r0 >= r1:
            return
        dx = np.arange(c0, c1, dtype=np.float32) + np.float32(0.5 - cx)
        dy = np.arange(r0, r1, dtype=np.float32)[:, None] + np.float32(0.5 - cy)
        d = np.sqrt(dx * dx + dy * dy)
        a = np.minimum(np.maximum(np.float32(r + 0.5) - d, np.float32(0)), np.float32(1))
        if ring:
            a *= np.minimum(np.maximum(d - np.float32(r * 0.6 - 0.5), np.float32(0)), np.float32(1))
        if dim:
            a *= np.float32(0.45)
        a = a[..., None]
        region = img[r0:r1, c0:c1]
        under = region.astype(np.float32)
        region[:] = (under + (color - under) * a).astype(np.uint8)

    def _bar_one(self, img: np.ndarray, cx: float, cy: float, r: float, health: float, shield: float) -> None:
        """One unit's bars, as :meth:`_bars` draws them."""
        h, w = img.shape[:2]
        bw = max(6, int(np.round(2 * r)))
        left = int(np.round(cx - bw / 2))
        top = int(np.float32(cy) - np.float32(r)) - 3
        health = min(1.0, max(0.0, health))
        rows = [(top, health, np.array((255 * (1 - health), 60 + 180 * health, 40)).astype(np.uint8))]
        if shield >= 0:
            rows.append((top - 2, min(1.0, max(0.0, shield)), SHIELD_COLOR))
        c0, c1 = max(0, left), min(w, left + bw)
        if c0 >= c1:
            return
        for y, frac, color in rows:
            y0, y1 = max(0, y), min(h, y + 2)
            if y0 >= y1:
                continue
            fill = left + int(np.round(bw * frac))
            img[y0:y1, c0:c1] = HEALTH_BACK
            if fill > c0:
                img[y0:y1, c0 : min(c1, fill)] = color

    def _discs(
        self, img: np.ndarray, cx: np.ndarray, cy: np.ndarray, rad: np.ndarray, colors: np.ndarray,
        ring: np.ndarray, dim: np.ndarray, size: int,
    ) -> None:
        """Anti-aliased discs (rings of width 0.4 r for beacons), all in ``size``-pixel boxes.
        Where discs of one call overlap, the later unit is drawn over the earlier one."""
        h, w = img.shape[:2]
        offs = np.arange(size, dtype=np.int64) - size // 2
        cols = np.floor(cx).astype(np.int64)[:, None] + offs  # (n, size)
        rows = np.floor(cy).astype(np.int64)[:, None] + offs
        dx = cols + np.float32(0.5) - cx[:, None]
        dy = rows + np.float32(0.5) - cy[:, None]
        d = np.sqrt(dy[:, :, None] ** 2 + dx[:, None, :] ** 2)  # (n, size, size)
        a = np.clip(rad[:, None, None] + np.float32(0.5) - d, 0.0, 1.0)
        if ring.any():
            a = np.where(ring[:, None, None], a * np.clip(d - rad[:, None, None] * 0.6 + 0.5, 0.0, 1.0), a)
        if dim.any():
            a = a * np.where(dim, np.float32(0.45), np.float32(1.0))[:, None, None]
        inside = (a > 0) & ((rows >= 0) & (rows < h))[:, :, None] & ((cols >= 0) & (cols < w))[:, None, :]
        k, i, j = np.nonzero(inside)
        rr, cc = rows[k, i], cols[k, j]
        alpha = a[k, i, j][:, None]
        under = img[rr, cc].astype(np.float32)
        img[rr, cc] = (under + (colors[k] - under) * alpha).astype(np.uint8)

    def _bars(
        self, img: np.ndarray, cx: np.ndarray, cy: np.ndarray, rad: np.ndarray, health: np.ndarray, shield: np.ndarray
    ) -> None:
        """A 2-pixel health bar (green to red) just above each disc, and a shield bar (blue)
        above it for units with shields; the empty part of a bar is dark red."""
        h, w = img.shape[:2]
        bw = np.maximum(6, np.round(2 * rad)).astype(np.int64)
        left = np.round(cx - bw / 2).astype(np.int64)
        top = (cy - rad).astype(np.int64) - 3
        health = np.clip(health, 0.0, 1.0)
        hp_color = np.stack(
            [255 * (1 - health), 60 + 180 * health, np.full_like(health, 40)], axis=1
        ).astype(np.uint8)
        has_shield = shield >= 0
        lefts = np.concatenate([left, left[has_shield]])
        tops = np.concatenate([top, top[has_shield] - 2])
        widths = np.concatenate([bw, bw[has_shield]])
        fracs = np.concatenate([health, np.clip(shield[has_shield], 0.0, 1.0)])
        fills = np.concatenate([hp_color, np.broadcast_to(SHIELD_COLOR, (int(has_shield.sum()), 3))])
        span = int(widths.max())
        x = lefts[:, None] + np.arange(span)  # (m, span)
        filled = np.arange(span)[None, :] < np.round(widths * fracs)[:, None]
        ok = (np.arange(span)[None, :] < widths[:, None]) & (x >= 0) & (x < w)
        for dy in (0, 1):
            y = tops + dy
            row_ok = ok & ((y >= 0) & (y < h))[:, None]
            k, j = np.nonzero(row_ok)
            img[y[k], x[k, j]] = np.where(filled[k, j][:, None], fills[k], HEALTH_BACK)


def render_observation(
    game_info: sc_pb.ResponseGameInfo, observation: sc_pb.Observation, size: int = DEFAULT_SIZE
) -> np.ndarray:
    """One frame without keeping a renderer (convenience; a renderer per game is cheaper)."""
    return FrameRenderer(game_info, size).render(observation)


__all__ = ["ALLIANCE_COLORS", "DEFAULT_SIZE", "FrameRenderer", "render_observation"]
