"""Reading the raw layers of a ``.SC2Map`` (an MPQ archive) into numpy arrays and plain records.

Only what the grids and neutral objects need is decoded: ``MapInfo`` (size, camera bounds),
``t3SyncHeightMap`` (vertex heights and cliff levels), ``t3SyncCliffLevel`` (cell cliff levels,
ramps in between), the ramps of ``t3Terrain.xml`` (where each ramp lies), the ``CellAttribute_*``
paint layers and the ``Objects`` XML (units, doodads, points).  The layouts are the ones measured in ``docs/engine.md`` ("Ladder maps").  Every failure
raises :class:`MapReadError` naming the file and the part that could not be read, so a bad map in
``Maps/`` is reported to the player instead of crashing the game process.
"""

from __future__ import annotations

import os
import re
import struct
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


class MapReadError(ValueError):
    """A ``.SC2Map`` the engine cannot read; the message names the file and what failed."""

    def __init__(self, path: str | os.PathLike[str], what: str) -> None:
        self.path = str(path)
        self.what = what
        super().__init__(f"cannot read map {self.path}: {what}")


@dataclass(frozen=True)
class MapObject:
    """One placed object of the ``Objects`` file (an ``ObjectUnit``, ``ObjectDoodad`` or ``ObjectPoint``)."""

    kind: str  # "unit", "doodad" or "point"
    type_name: str  # UnitType / Type attribute
    x: float
    y: float
    z: float
    rotation: float  # radians, 0 when absent
    scale: float  # the first Scale component, 1 when absent
    variation: int  # Variation attribute, 0 when absent
    resources: int | None  # Resources attribute of an ObjectUnit
    player: int  # Player attribute, 0 (neutral) when absent


@dataclass(frozen=True)
class RampFrame:
    """One frame of a ``<ramp>`` entry: a point ``c``, unit vectors ``u`` and ``r``, extents ``w``, ``h``."""

    ux: float
    uy: float
    rx: float
    ry: float
    cx: float
    cy: float
    w: float
    h: float


@dataclass(frozen=True)
class Ramp:
    """A ramp of ``t3Terrain.xml`` (its ``dir``, the cliff levels it joins and its frames).

    Measured meaning (docs/engine.md, "Ladder maps"): ``base.c`` is the middle of the ramp's upper
    edge, ``-base.u`` points down the ramp and ``base.r`` across it; ``base.w`` is half the ramp's
    width and ``2 * mid.h`` its length (``mid.c`` is its middle).  ``dir`` 4..7 are the diagonal
    ramps, 0..3 the axis-aligned ones.
    """

    dir: int
    hi: int
    lo: int
    base: RampFrame
    mid: RampFrame


@dataclass(frozen=True)
class RawMap:
    """The decoded layers; grids are indexed [y, x] with row 0 at world y = 0."""

    width: int
    height: int
    camera: tuple[int, int, int, int]  # left, bottom, right, top (world units)
    vertex_height: np.ndarray  # float32[h+1, w+1], world units
    vertex_level: np.ndarray  # uint8[h+1, w+1], cliff level index 0..3 of each vertex
    cliff: np.ndarray  # uint16[h, w], cliff level x 64, ramps in between
    attributes: dict[str, np.ndarray]  # CellAttribute_XXX -> bool[h, w] (nonzero = on)
    objects: tuple[MapObject, ...]
    ramps: tuple[Ramp, ...] = ()


def _u32(buf: bytes, off: int) -> int:
    return int(struct.unpack_from("<I", buf, off)[0])


def _cstring(buf: bytes, off: int) -> tuple[str, int]:
    end = buf.index(b"\0", off)
    return buf[off:end].decode("utf-8", "replace"), end + 1


def _parse_mapinfo(path: Path, buf: bytes) -> tuple[int, int, tuple[int, int, int, int]]:
    """(width, height, camera bounds) from ``MapInfo``."""
    try:
        if buf[:4] != b"IpaM":
            raise ValueError(f"magic {buf[:4]!r} is not 'IpaM'")
        version = _u32(buf, 4)
        width, height = _u32(buf, 16), _u32(buf, 20)
        off = 24
        for _ in range(2):  # small then large preview: type 2 = a path follows
            kind = _u32(buf, off)
            off += 4
            if kind == 2:
                _, off = _cstring(buf, off)
        if version >= 0x1F:
            _, off = _cstring(buf, off)
        if version >= 0x26:
            _, off = _cstring(buf, off)
        if version >= 0x1F:
            off += 4
        off += 4
        _, off = _cstring(buf, off)  # lighting
        _, off = _cstring(buf, off)  # tileset
        left, bottom, right, top = struct.unpack_from("<4I", buf, off)
    except (ValueError, IndexError, struct.error) as e:
        raise MapReadError(path, f"MapInfo: {e}") from None
    if not (0 < width <= 256 and 0 < height <= 256):
        raise MapReadError(path, f"MapInfo: map size {width}x{height} is outside 1..256")
    if not (0 <= left < right <= width and 0 <= bottom < top <= height):
        raise MapReadError(path, f"MapInfo: camera bounds {(left, bottom, right, top)} do not fit a {width}x{height} map")
    return width, height, (left, bottom, right, top)


def _grid(path: Path, name: str, buf: bytes, header: int, dtype: str, shape: tuple[int, int]) -> np.ndarray:
    n = shape[0] * shape[1]
    need = header + n * np.dtype(dtype).itemsize
    if len(buf) < need:
        raise MapReadError(path, f"{name}: {len(buf)} bytes, a {shape[1]}x{shape[0]} grid needs {need}")
    return np.frombuffer(buf, dtype=dtype, count=n, offset=header).reshape(shape)


def _parse_heights(path: Path, buf: bytes, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    if buf[:4] != b"SMAP":
        raise MapReadError(path, f"t3SyncHeightMap: magic {buf[:4]!r} is not 'SMAP'")
    dims = (_u32(buf, 8), _u32(buf, 12))
    if dims != (w + 1, h + 1):
        raise MapReadError(path, f"t3SyncHeightMap: vertex grid {dims} does not match map size {w}x{h}")
    raw = _grid(path, "t3SyncHeightMap", buf, 64, "<u4", (h + 1, w + 1))
    heights = (raw & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.float32) / 256.0
    levels = (raw >> 16).astype(np.uint8)
    return heights, levels


def _parse_cliff(path: Path, buf: bytes, w: int, h: int) -> np.ndarray:
    if buf[:4] != b"CLIF":
        raise MapReadError(path, f"t3SyncCliffLevel: magic {buf[:4]!r} is not 'CLIF'")
    dims = (_u32(buf, 8), _u32(buf, 12))
    if dims != (w, h):
        raise MapReadError(path, f"t3SyncCliffLevel: grid {dims} does not match map size {w}x{h}")
    return _grid(path, "t3SyncCliffLevel", buf, 32, "<u2", (h, w)).copy()


def _floats(text: str | None, n: int, default: float) -> list[float]:
    if not text:
        return [default] * n
    parts = [float(p) for p in text.split(",")]
    return (parts + [default] * n)[:n]


_KINDS = {"ObjectUnit": "unit", "ObjectDoodad": "doodad", "ObjectPoint": "point"}


def _parse_objects(path: Path, buf: bytes) -> tuple[MapObject, ...]:
    try:
        root = ET.fromstring(buf)
    except ET.ParseError as e:
        raise MapReadError(path, f"Objects: not valid XML ({e})") from None
    out: list[MapObject] = []
    for el in root:
        kind = _KINDS.get(el.tag)
        pos = el.get("Position")
        if kind is None or pos is None:  # Group, GroupObject, Flag, ... carry no position
            continue
        a: dict[str, Any] = el.attrib
        type_name = a.get("UnitType") if kind == "unit" else a.get("Type")
        try:
            x, y, z = _floats(pos, 3, 0.0)
            res = a.get("Resources")
            out.append(MapObject(
                kind=kind,
                type_name=str(type_name or ""),
                x=x, y=y, z=z,
                rotation=float(a.get("Rotation", 0.0)),
                scale=_floats(a.get("Scale"), 1, 1.0)[0],
                variation=int(a.get("Variation", 0)),
                resources=int(res) if res is not None else None,
                player=int(a.get("Player", 0)),
            ))
        except ValueError as e:
            raise MapReadError(path, f"Objects: bad attribute in <{el.tag} Id={a.get('Id')!r}>: {e}") from None
    return tuple(out)


_FRAME = re.compile(
    r"u\(\s*(\S+?),\s*(\S+?)\)\s*r\(\s*(\S+?),\s*(\S+?)\)\s*c=\(\s*(\S+?),\s*(\S+?)\)\s*w=(\S+)\s+h=(\S+)"
)


def _parse_frame(text: str) -> RampFrame:
    m = _FRAME.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"frame {text!r} is not 'u(x, y) r(x, y) c=(x, y) w=.. h=..'")
    return RampFrame(*(float(g) for g in m.groups()))


def _parse_ramps(path: Path, buf: bytes) -> tuple[Ramp, ...]:
    try:
        root = ET.fromstring(buf)
    except ET.ParseError as e:
        raise MapReadError(path, f"t3Terrain.xml: not valid XML ({e})") from None
    out: list[Ramp] = []
    for el in root.iter("ramp"):
        a = el.attrib
        try:
            out.append(Ramp(int(a["dir"]), int(a["hi"]), int(a["lo"]), _parse_frame(a["base"]), _parse_frame(a["mid"])))
        except (KeyError, ValueError) as e:
            raise MapReadError(path, f"t3Terrain.xml: bad <ramp> entry ({type(e).__name__}: {e})") from None
    return tuple(out)


def read_raw(path: str | os.PathLike[str]) -> RawMap:
    """Decode the layers of the ``.SC2Map`` at ``path``; :class:`MapReadError` on anything unreadable."""
    p = Path(path)
    try:
        import mpyq
    except ImportError:  # pragma: no cover - depends on the install
        raise MapReadError(p, "the 'mpyq' package is missing (pip install 'sc2pool[maps]')") from None
    try:
        archive = mpyq.MPQArchive(str(p), listfile=False)
    except OSError as e:
        raise MapReadError(p, f"cannot open the file ({e.strerror or e})") from None
    except Exception as e:  # mpyq raises ValueError/struct.error/... on a file that is not an MPQ
        raise MapReadError(p, f"not an MPQ archive ({type(e).__name__}: {e})") from None
    try:
        def read(name: str, required: bool = True) -> bytes | None:
            try:
                data = archive.read_file(name)
            except Exception as e:  # corrupt sector, unsupported compression, encryption
                raise MapReadError(p, f"{name}: {type(e).__name__}: {e}") from None
            if data is None and required:
                raise MapReadError(p, f"{name}: missing from the archive")
            return data

        mapinfo = read("MapInfo")
        assert mapinfo is not None
        w, h, camera = _parse_mapinfo(p, mapinfo)
        sync = read("t3SyncHeightMap")
        assert sync is not None
        heights, levels = _parse_heights(p, sync, w, h)
        clif = read("t3SyncCliffLevel")
        assert clif is not None
        cliff = _parse_cliff(p, clif, w, h)
        attributes: dict[str, np.ndarray] = {}
        for name in ("Pnp", "Pnb", "Pde"):
            data = read(f"CellAttribute_{name}", required=False)
            if data is not None:
                attributes[name] = _grid(p, f"CellAttribute_{name}", data, 4, "u1", (h, w)) != 0
        objects = read("Objects")
        assert objects is not None
        objs = _parse_objects(p, objects)
        terrain = read("t3Terrain.xml", required=False)  # a map without it has no ramps to shape
        ramps = _parse_ramps(p, terrain) if terrain is not None else ()
    finally:
        archive.file.close()
    return RawMap(w, h, camera, heights, levels, cliff, attributes, objs, ramps)
