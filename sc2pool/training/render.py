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
#: Brightness of hidden (never seen), fogged (seen before) and visible cells.
_FOG_SHADE = np.array([0.35, 0.65, 1.0, 1.0], dtype=np.float32)
_NEUTRAL_PALETTE = np.array(_NEUTRAL_KIND_COLORS, dtype=np.float32)
_ALLIANCE_PALETTE = np.array(
    [NEUTRAL_COLOR] + [ALLIANCE_COLORS.get(a, NEUTRAL_COLOR) for a in (SELF, ALLY, NEUTRAL, ENEMY)], dtype=np.float32
)


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
        #: From this many units on, discs and bars are drawn in batches (see ``_draw_units``).
        self.vector_min_units = 20
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
        units = observation.raw_data.units
        if len(units):
            self._draw_units(img, units)
        loop = int(observation.game_loop)
        secs = int(loop / LOOPS_PER_SECOND)
        self._glyphs.draw(img, 1, 1, f"score {observation.score.score}  {secs // 60}:{secs % 60:02d}")
        return img

    def _background(self, observation: sc_pb.Observation) -> np.ndarray:
        """A fresh copy of the ground, fogged and never-seen cells shaded when the observation's
        visibility map has any."""
        vis_msg = observation.raw_data.map_state.visibility
        if vis_msg.bits_per_pixel == 8 and vis_msg.size.x == self._map_w and len(vis_msg.data):
            vis = np.frombuffer(vis_msg.data, dtype=np.uint8)
            if vis.size > self._flat_cells.max() and vis.min() < 2:
                factor = _FOG_SHADE[np.minimum(vis[self._flat_cells], 3)].reshape(self.height, self.width, 1)
                return (self.ground * factor).astype(np.uint8)
        return self.ground.copy()

    def _draw_units(self, img: np.ndarray, units: Any) -> None:
        """Every unit's disc, then every bar, each kind in a few whole-array operations."""
        n = len(units)
        if n < self.vector_min_units:
            self._draw_units_one_by_one(img, units)
            return
        f = np.empty((n, 7), dtype=np.float32)  # x, y, radius, health, health_max, shield, shield_max
        kind = np.empty((n, 3), dtype=np.int64)  # alliance, unit_type, display_type
        for i, u in enumerate(units):
            p = u.pos
            f[i] = (p.x, p.y, u.radius, u.health, u.health_max, u.shield, u.shield_max)
            kind[i] = (u.alliance, u.unit_type, u.display_type)
        keep = kind[:, 2] != HIDDEN
        if not keep.all():
            f, kind = f[keep], kind[keep]
        alliance = kind[:, 0]
        neutral_kind = np.zeros(len(f), dtype=np.int64)
        for j in np.flatnonzero(alliance == NEUTRAL):
            neutral_kind[j] = self._kinds.get(int(kind[j, 1]), _OTHER)
        colors = np.where(
            (alliance == NEUTRAL)[:, None], _NEUTRAL_PALETTE[neutral_kind], _ALLIANCE_PALETTE[np.clip(alliance, 0, 4)]
        )
        cx = (f[:, 0] - self.x0) * self.scale
        cy = (self.y1 - f[:, 1]) * self.scale
        rad = np.maximum(np.float32(1.5), f[:, 2] * self.scale)
        ring = (alliance == NEUTRAL) & (neutral_kind == _BEACON)
        dim = kind[:, 2] == SNAPSHOT
        bars = (f[:, 4] > 0) & ~dim
        hp = f[:, 3] / np.maximum(f[:, 4], 1e-6)
        shield = np.where(f[:, 6] > 0, f[:, 5] / np.maximum(f[:, 6], 1e-6), -1.0)
        # Discs in buckets of one box size: the work stays proportional to the pixels the discs
        # cover, not to the largest unit on the map. Box sides are even (rounded up), so a few
        # unit types give a few buckets.
        box = (np.ceil(rad + 1.5).astype(np.int64)) * 2
        for b in np.unique(box):
            sel = np.flatnonzero(box == b)
            self._discs(img, cx[sel], cy[sel], rad[sel], colors[sel], ring[sel], dim[sel], int(b))
        if bars.any():
            self._bars(img, cx[bars], cy[bars], rad[bars], hp[bars], shield[bars])

    def _draw_units_one_by_one(self, img: np.ndarray, units: Any) -> None:
        """A few units: per-unit slices cost less than the fixed cost of the batched path."""
        bars = []
        scale = self.scale
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
            self._disc_one(img, cx, cy, r, color, ring, dim)
            hp_max = u.health_max
            if hp_max > 0 and not dim:
                shield = u.shield / u.shield_max if u.shield_max > 0 else -1.0
                bars.append((cx, cy, r, u.health / hp_max, shield))
        for bar in bars:  # over every disc: a crowd of units must not hide its bars
            self._bar_one(img, *bar)

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
