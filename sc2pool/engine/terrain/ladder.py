"""``LadderMap``: everything the engine needs from one ``.SC2Map``, computed once and cached on disk.

``load_map(path)`` reads the file (:mod:`.reader`), applies the terrain rules (:mod:`.grids`) and
the measured doodad footprints (:mod:`.footprints`), and keeps the result in memory and in a disk
cache keyed by the file's content and this package's rules version, so a map costs its full
computation once per machine.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sc2pool.engine.terrain import footprint_data, footprints, grids, reader
from sc2pool.engine.terrain.footprints import CRITTER_TYPES, GEYSER_TYPES, MINERAL_TYPES, doodad_blocks
from sc2pool.engine.terrain.reader import MapReadError, RawMap, read_raw

#: Bump when what load_map computes changes outside the modules the disk cache already keys on.
RULES_VERSION = 2

#: Default contents of a resource (real client, visible units at game start in python-sc2's
#: captures: LabMineralField 1800, LabMineralField750 900, Purifier likewise; geysers 2250 gas).
#: Rich fields were only ever snapshots there, so theirs are taken as the normal ones (m).
MINERAL_CONTENTS = 1800
SMALL_MINERAL_CONTENTS = 900
GEYSER_CONTENTS = 2250


@dataclass(frozen=True)
class NeutralObject:
    """One neutral unit the map places (critters dropped), named as the client names the type."""

    type_name: str
    x: float
    y: float
    contents: int | None  # minerals or vespene it holds; None for rocks, towers, ...
    facing: float  # radians

    @property
    def is_mineral(self) -> bool:
        return self.type_name in MINERAL_TYPES

    @property
    def is_geyser(self) -> bool:
        return self.type_name in GEYSER_TYPES


def default_contents(type_name: str, resources: int | None) -> int | None:
    """What a neutral unit holds: the map's Resources attribute, else the type's default."""
    if type_name in MINERAL_TYPES:
        if resources is not None:
            return resources
        return SMALL_MINERAL_CONTENTS if type_name.endswith("750") else MINERAL_CONTENTS
    if type_name in GEYSER_TYPES:
        return resources if resources is not None else GEYSER_CONTENTS
    return resources


@dataclass(frozen=True, eq=False)
class LadderMap:
    """A real ladder map as the engine plays it; grids are indexed [y, x], row 0 at world y = 0."""

    name: str
    path: str
    width: int
    height: int
    playable: tuple[int, int, int, int]
    start_locations: tuple[tuple[float, float], ...]
    height_bytes: np.ndarray  # uint8[h, w], the client's terrain_height encoding
    pathable: np.ndarray  # bool[h, w]: terrain and doodads, no units
    placeable: np.ndarray  # bool[h, w]: as the client's placement_grid (no units)
    level: np.ndarray  # int8[h, w]: cliff level 0..3 (ramps: the lower), for high-ground vision
    neutrals: tuple[NeutralObject, ...]
    vertex_z: np.ndarray = field(repr=False)  # float32[h+1, w+1]: terrain height at each vertex

    def z(self, x: float, y: float) -> float:
        """World z of the ground at (x, y): the terrain mesh, interpolated between its vertices."""
        fx = min(max(float(x), 0.0), float(self.width) - 1e-6)
        fy = min(max(float(y), 0.0), float(self.height) - 1e-6)
        ix, iy = int(fx), int(fy)
        tx, ty = fx - ix, fy - iy
        v = self.vertex_z
        a = v[iy, ix] * (1 - tx) + v[iy, ix + 1] * tx
        b = v[iy + 1, ix] * (1 - tx) + v[iy + 1, ix + 1] * tx
        return float(a * (1 - ty) + b * ty)

    def height_z(self, x: float, y: float) -> float:
        """World z as burnysc2 reads it from terrain_height (-16 + 32 * byte / 255)."""
        xi = min(max(int(math.floor(x)), 0), self.width - 1)
        yi = min(max(int(math.floor(y)), 0), self.height - 1)
        return -16.0 + 32.0 * float(self.height_bytes[yi, xi]) / 255.0

    def is_pathable(self, x: float, y: float) -> bool:
        if not (math.isfinite(x) and math.isfinite(y)):
            return False
        xi, yi = int(math.floor(x)), int(math.floor(y))
        return 0 <= xi < self.width and 0 <= yi < self.height and bool(self.pathable[yi, xi])


# ---- computing ----------------------------------------------------------------------------------


def _neutrals(raw: RawMap) -> tuple[NeutralObject, ...]:
    out = []
    for o in raw.objects:
        if o.kind != "unit" or o.type_name in CRITTER_TYPES or o.player not in (0, 16):
            continue
        out.append(NeutralObject(o.type_name, o.x, o.y, default_contents(o.type_name, o.resources), o.rotation))
    return tuple(out)


def compute(path: str | os.PathLike[str], name: str | None = None) -> LadderMap:
    """Build a LadderMap from the file (no cache)."""
    p = Path(path)
    raw = read_raw(p)
    playable = grids.playable_area(raw.camera)
    starts = tuple((o.x, o.y) for o in raw.objects if o.kind == "point" and o.type_name == "StartLoc")
    if len(starts) < 2:
        raise MapReadError(p, f"Objects: {len(starts)} start location(s); a ladder map needs at least 2")
    x0, y0, x1, y1 = playable
    for sx, sy in starts:
        if not (x0 <= sx < x1 and y0 <= sy < y1):
            raise MapReadError(p, f"Objects: start location ({sx}, {sy}) lies outside the playable area {playable}")
    terrain_path, terrain_place = grids.terrain_grids(raw, playable)
    reach = grids.reachable(terrain_path, list(starts))
    doodad_path, doodad_place = doodad_blocks(raw.objects, raw.width, raw.height)
    pathable = reach & ~doodad_path
    placeable = terrain_place & reach & ~doodad_place
    return LadderMap(
        name=name or p.stem,
        path=str(p),
        width=raw.width,
        height=raw.height,
        playable=playable,
        start_locations=starts,
        height_bytes=grids.height_bytes(raw, playable),
        pathable=pathable,
        placeable=placeable,
        level=grids.levels(raw),
        neutrals=_neutrals(raw),
        vertex_z=raw.vertex_height.astype(np.float32),
    )


# ---- caching ------------------------------------------------------------------------------------

_ARRAYS = ("height_bytes", "pathable", "placeable", "level", "vertex_z")
_memory: dict[tuple[str, int, int], LadderMap] = {}
_lock = threading.Lock()


def cache_dir() -> Path:
    """``$SC2POOL_MAP_CACHE``, else ``$XDG_CACHE_HOME/sc2pool/maps``, else ``~/.cache/sc2pool/maps``."""
    env = os.environ.get("SC2POOL_MAP_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sc2pool" / "maps"


@functools.cache
def _rules_key() -> str:
    """A digest of the code and tables that decide the grids, so a changed rule never reads a stale cache."""
    files = [Path(str(mod.__file__)) for mod in (footprint_data, footprints, grids, reader)] + [Path(__file__)]
    src = b"".join(f.read_bytes() for f in files)
    return hashlib.sha1(src + f"rules={RULES_VERSION}".encode()).hexdigest()[:12]


def _cache_file(data: bytes) -> Path:
    digest = hashlib.sha1(data).hexdigest()[:20]
    return cache_dir() / f"{digest}-{_rules_key()}.npz"


def _save(m: LadderMap, target: Path) -> None:
    meta = {
        "width": m.width, "height": m.height, "playable": list(m.playable),
        "start_locations": [list(s) for s in m.start_locations],
        "neutrals": [[n.type_name, n.x, n.y, n.contents, n.facing] for n in m.neutrals],
    }
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".npz")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                     **{k: getattr(m, k) for k in _ARRAYS})
        os.replace(tmp, target)
    except OSError:  # a read-only or full cache directory only costs speed
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass


def _load_cached(target: Path, path: Path, name: str) -> LadderMap | None:
    try:
        with np.load(target) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            arrays = {k: z[k] for k in _ARRAYS}
    except (OSError, ValueError, KeyError):
        return None
    for a in arrays.values():
        a.setflags(write=False)
    return LadderMap(
        name=name, path=str(path), width=int(meta["width"]), height=int(meta["height"]),
        playable=tuple(meta["playable"]),  # type: ignore[arg-type]
        start_locations=tuple((float(x), float(y)) for x, y in meta["start_locations"]),
        neutrals=tuple(NeutralObject(t, float(x), float(y), c, float(f)) for t, x, y, c, f in meta["neutrals"]),
        **arrays,
    )


def load_map(path: str | os.PathLike[str], *, name: str | None = None, use_disk_cache: bool = True) -> LadderMap:
    """The LadderMap of the ``.SC2Map`` at ``path`` (cached in memory and on disk).

    ``MapReadError`` names the file and what could not be read.  Returned arrays are read-only:
    copy them before changing them.
    """
    p = Path(path)
    try:
        st = p.stat()
    except OSError as e:
        raise MapReadError(p, f"cannot open the file ({e.strerror or e})") from None
    mem_key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    with _lock:
        hit = _memory.get(mem_key)
    if hit is not None:
        return hit
    display = name or p.stem
    m: LadderMap | None = None
    target: Path | None = None
    if use_disk_cache:
        try:
            data = p.read_bytes()
        except OSError as e:
            raise MapReadError(p, f"cannot open the file ({e.strerror or e})") from None
        target = _cache_file(data)
        if target.is_file():
            m = _load_cached(target, p, display)
    if m is None:
        m = compute(p, display)
        for k in _ARRAYS:
            getattr(m, k).setflags(write=False)
        if target is not None:
            _save(m, target)
    with _lock:
        _memory[mem_key] = m
    return m


def clear_memory_cache() -> None:
    with _lock:
        _memory.clear()
