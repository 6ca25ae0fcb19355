"""Top-down ``rgb_array`` pictures of a StarCraft II game, drawn from the raw API observation.

The renderer reads only s2clientprotocol messages - the ``ResponseGameInfo`` of the game and the
``Observation`` of each step, exactly what burnysc2 receives - so the same code draws the embedded
engine, the real game, and an engine replay played back without any bot (``sc2pool replay``).

What a frame shows (the view is the map's playable area, north up):

* the ground: pathable cells lighter than unpathable ones; fogged / never-seen cells darker when
  the observation carries a visibility map that is not all visible;
* every unit as an anti-aliased disc of its real radius, coloured by alliance (self blue, ally
  purple, enemy red); neutral objects by kind (mineral fields and shards cyan, beacons yellow
  rings, vespene geysers green, anything else grey); snapshots (seen earlier, under fog) dimmed;
* a health bar (green to red) and, for units with shields, a shield bar (blue) above each unit
  that has hit points;
* the score and the game time (``score 3  0:42``) in the top-left corner.

Cost: the static ground is drawn once per game; a frame copies it and draws each unit in its own
small bounding box (numpy only); text comes from a glyph atlas Pillow renders once per process.
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
GEYSER_COLOR = (40, 150, 120)
NEUTRAL_COLOR = (150, 150, 150)
GROUND_PATHABLE = np.array((46, 50, 58), dtype=np.uint8)
GROUND_BLOCKED = np.array((18, 18, 22), dtype=np.uint8)
BORDER_COLOR = np.array((90, 96, 110), dtype=np.uint8)
HEALTH_BACK = np.array((40, 0, 0), dtype=np.uint8)
SHIELD_COLOR = np.array((80, 160, 255), dtype=np.uint8)
TEXT_COLOR = np.array((235, 235, 235), dtype=np.float32)

# Neutral kinds (index into _NEUTRAL_KIND_COLORS).
_OTHER, _MINERAL, _BEACON, _GEYSER = 0, 1, 2, 3
_NEUTRAL_KIND_COLORS = (NEUTRAL_COLOR, MINERAL_COLOR, BEACON_COLOR, GEYSER_COLOR)


@functools.lru_cache(maxsize=1)
def _neutral_kinds() -> dict[int, int]:
    """unit_type id -> neutral kind, from burnysc2's id table (names are the game's own)."""
    from sc2.ids.unit_typeid import UnitTypeId

    kinds: dict[int, int] = {}
    for t in UnitTypeId:
        n = t.name
        if "MINERAL" in n:
            kinds[t.value] = _MINERAL
        elif n.startswith("BEACON") or "_BEACON" in n:
            kinds[t.value] = _BEACON
        elif "GEYSER" in n:
            kinds[t.value] = _GEYSER
    return kinds


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
        self.masks: dict[str, np.ndarray] = {}
        for c in self.CHARS:
            w = max(1, int(round(font.getlength(c))))
            im = Image.new("L", (w, self.height), 0)
            ImageDraw.Draw(im).text((0, -top), c, fill=255, font=font)
            self.masks[c] = np.asarray(im, dtype=np.float32)[..., None] / 255.0

    def draw(self, img: np.ndarray, x: int, y: int, text: str) -> None:
        """Blend ``text`` into ``img`` (uint8 HxWx3) with its top-left corner at (x, y), on a dark
        backing so it stays readable over units."""
        h, w = img.shape[:2]
        masks = [self.masks.get(c, self.masks["-"]) for c in text]
        width = sum(m.shape[1] for m in masks)
        y1, x1 = min(h, y + self.height + 2), min(w, x + width + 4)
        if y >= y1 or x >= x1:
            return
        img[y:y1, x:x1] = (img[y:y1, x:x1] >> 1) // 2  # quarter brightness behind the text
        cx = x + 2
        for m in masks:
            mw = min(m.shape[1], w - cx)
            mh = min(m.shape[0], h - (y + 1))
            if mw <= 0 or mh <= 0:
                break
            a = m[:mh, :mw]
            region = img[y + 1 : y + 1 + mh, cx : cx + mw]
            region[:] = (region * (1.0 - a) + TEXT_COLOR * a).astype(np.uint8)
            cx += m.shape[1]


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
        game_info: the game's ``ResponseGameInfo`` (playable area, pathing grid).
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
        if pathing is not None and pathing.shape[0] > self._rows.max() and pathing.shape[1] > self._cols.max():
            walk = pathing[np.ix_(self._rows, self._cols)].astype(bool)
        else:
            walk = np.ones((self.height, self.width), dtype=bool)
        ground = np.where(walk[..., None], GROUND_PATHABLE, GROUND_BLOCKED).astype(np.uint8)
        ground[0, :] = ground[-1, :] = BORDER_COLOR
        ground[:, 0] = ground[:, -1] = BORDER_COLOR
        self.ground = ground
        self._flat_cells = (self._rows[:, None] * self._map_w + self._cols[None, :]).ravel()
        self._kinds = _neutral_kinds()
        self._glyphs = _glyphs(max(8, min(16, int(round(size / 24)))))

    # -- coordinates --------------------------------------------------------------------------------
    def to_pixel(self, x: float, y: float) -> tuple[float, float]:
        """(column, row) of world point (x, y) in the frame, as floats (pixel centres at +0.5)."""
        return (x - self.x0) * self.scale, (self.y1 - y) * self.scale

    # -- drawing -----------------------------------------------------------------------------------
    def render(self, observation: sc_pb.Observation) -> np.ndarray:
        """The frame of ``observation`` (an ``Observation``, or a ``ResponseObservation``)."""
        if isinstance(observation, sc_pb.ResponseObservation):
            observation = observation.observation
        img = self._background(observation)
        bars: list[tuple[float, float, float, float, float]] = []
        for u in observation.raw_data.units:
            display = u.display_type
            if display == HIDDEN:
                continue
            alliance = u.alliance
            if alliance == NEUTRAL:
                kind = self._kinds.get(u.unit_type, _OTHER)
                color = _NEUTRAL_KIND_COLORS[kind]
            else:
                kind = -1
                color = ALLIANCE_COLORS.get(alliance, NEUTRAL_COLOR)
            dim = display == SNAPSHOT
            cx, cy = self.to_pixel(u.pos.x, u.pos.y)
            r = max(1.5, u.radius * self.scale)
            self._disc(img, cx, cy, r, color, ring=kind == _BEACON, dim=dim)
            hp_max = u.health_max
            if hp_max > 0 and not dim:
                bars.append((cx, cy, r, u.health / hp_max, u.shield / u.shield_max if u.shield_max > 0 else -1.0))
        for bar in bars:  # over every disc: a crowd of units must not hide its bars
            self._bars(img, *bar)
        loop = int(observation.game_loop)
        secs = int(loop / LOOPS_PER_SECOND)
        score = observation.score.score
        self._glyphs.draw(img, 1, 1, f"score {score}  {secs // 60}:{secs % 60:02d}")
        return img

    def _background(self, observation: sc_pb.Observation) -> np.ndarray:
        vis_msg = observation.raw_data.map_state.visibility
        if vis_msg.bits_per_pixel == 8 and vis_msg.size.x == self._map_w and len(vis_msg.data):
            vis = np.frombuffer(vis_msg.data, dtype=np.uint8)
            if vis.size > self._flat_cells.max() and vis.min() < 2:  # some fog: shade it
                shade = np.array([0.35, 0.65, 1.0, 1.0], dtype=np.float32)
                factor = shade[np.minimum(vis[self._flat_cells], 3)].reshape(self.height, self.width, 1)
                return (self.ground * factor).astype(np.uint8)
        return self.ground.copy()

    def _disc(
        self, img: np.ndarray, cx: float, cy: float, r: float, color: tuple[int, int, int], *, ring: bool, dim: bool
    ) -> None:
        """An anti-aliased filled disc (or a ring of width r/3 for beacons) blended into ``img``."""
        h, w = img.shape[:2]
        c0, c1 = max(0, int(cx - r - 1)), min(w, int(cx + r + 2))
        r0, r1 = max(0, int(cy - r - 1)), min(h, int(cy + r + 2))
        if c0 >= c1 or r0 >= r1:
            return
        dx = np.arange(c0, c1, dtype=np.float32) + 0.5 - cx
        dy = np.arange(r0, r1, dtype=np.float32)[:, None] + 0.5 - cy
        d = np.sqrt(dx * dx + dy * dy)
        a = np.clip(r + 0.5 - d, 0.0, 1.0)
        if ring:
            a *= np.clip(d - r * 0.6 + 0.5, 0.0, 1.0)
        if dim:
            a *= 0.45
        a = a[..., None]
        region = img[r0:r1, c0:c1]
        region[:] = (region * (1.0 - a) + np.asarray(color, dtype=np.float32) * a).astype(np.uint8)

    def _bars(self, img: np.ndarray, cx: float, cy: float, r: float, health: float, shield: float) -> None:
        """A health bar (and a shield bar above it, when ``shield`` >= 0) just above the disc."""
        h, w = img.shape[:2]
        bw = max(6, int(round(2 * r)))
        left = int(round(cx - bw / 2))
        top = int(cy - r) - 3
        rows: list[tuple[int, float, np.ndarray | None]] = [(top, health, None)]
        if shield >= 0:
            rows.append((top - 2, shield, SHIELD_COLOR))
        for y, frac, fixed in rows:
            if not 0 <= y < h - 1:
                continue
            c0, c1 = max(0, left), min(w, left + bw)
            if c0 >= c1:
                continue
            frac = min(1.0, max(0.0, float(frac)))
            fill = left + int(round(bw * frac))
            color = fixed if fixed is not None else np.array(
                (int(255 * (1 - frac)), int(60 + 180 * frac), 40), dtype=np.uint8
            )
            img[y : y + 2, c0:c1] = HEALTH_BACK
            if fill > c0:
                img[y : y + 2, c0 : min(c1, fill)] = color


def render_observation(
    game_info: sc_pb.ResponseGameInfo, observation: sc_pb.Observation, size: int = DEFAULT_SIZE
) -> np.ndarray:
    """One frame without keeping a renderer (convenience; a renderer per game is cheaper)."""
    return FrameRenderer(game_info, size).render(observation)


__all__ = ["ALLIANCE_COLORS", "DEFAULT_SIZE", "FrameRenderer", "render_observation"]
