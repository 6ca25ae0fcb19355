"""Vectorised protobuf encoding of ``ObservationRaw.units``.

Building one ``raw_pb2.Unit`` per unit through the Python protobuf API costs about 2 µs per unit;
at 200 units that alone would eat a quarter of the step budget.  Every unit record here has the
same fixed layout, so the records of all units are written at once into a numpy structured array
and emitted with one ``tobytes()``.  Varints are written with a fixed width (protobuf decoders
accept non-minimal varints), floats as little-endian float32 exactly like the protobuf runtime
would round them.  Orders are variable and rare enough to encode per unit in Python.

The result is the wire encoding of the repeated field ``ObservationRaw.units`` (field 2); it can be
appended to a serialized ``ObservationRaw`` or wrapped into outer messages with :func:`wrap`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import cast

import numpy as np

TAG_LIMIT = 1 << 35
"""Tags are encoded as 5-byte varints: they must stay below 2**35 (the store starts at 2**32)."""


_ONE_BYTE = tuple(bytes((v,)) for v in range(0x80))
"""The varints of 0 to 127: their one byte."""


def varint(v: int) -> bytes:
    """Protobuf varint of ``v`` >= 0 (minimal length)."""
    if 0 <= v < 0x80:  # (keys, lengths and small values: most calls)
        return _ONE_BYTE[v]
    if 0 <= v < 0x4000:
        return bytes(((v & 0x7F) | 0x80, v >> 7))
    if 1 << 28 <= v < 1 << 35:  # (a unit's tag: five bytes)
        return bytes(((v & 0x7F) | 0x80, (v >> 7) & 0x7F | 0x80, (v >> 14) & 0x7F | 0x80, (v >> 21) & 0x7F | 0x80,
                      v >> 28))
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def wrap(field: int, payload: bytes) -> bytes:
    """Length-delimited field ``field`` holding ``payload``."""
    return varint((field << 3) | 2) + varint(len(payload)) + payload


def _f(name: str) -> list[tuple[str, str]]:
    return [(name + "_k", "u1"), (name, "<f4")]


# One unit record: the ObservationRaw.units key + 2-byte length, then the Unit fields.  The
# 2-byte varints (record length, unit type) are little-endian uint16 holding :func:`pad2`.
_UNIT_DTYPE = np.dtype(
    [("hdr", "u1"), ("len", "<u2"),
     ("k1", "u1"), ("display", "u1"),
     ("k2", "u1"), ("alliance", "u1"),
     ("k3", "u1"), ("tag", "u1", (5,)),
     ("k4", "u1"), ("utype", "<u2"),
     ("k5", "u1"), ("owner", "u1"),
     ("k6", "u1"), ("l6", "u1"), *_f("x"), *_f("y"), *_f("z"),
     *_f("facing"), *_f("radius"), *_f("build"),
     ("k10", "u1"), ("cloak", "u1"),
     *_f("health"), *_f("health_max"),
     ("k16", "u1", (2,)), ("shield", "<f4"),
     ("k36", "u1", (2,)), ("shield_max", "<f4"),
     ("k30", "u1", (2,)), ("cooldown", "<f4")],
    align=False,
)
UNIT_BODY_LEN = _UNIT_DTYPE.itemsize - 3
_RECORD = np.dtype((np.void, _UNIT_DTYPE.itemsize))
"""One unit record as raw bytes (``tolist`` of a view gives one ``bytes`` per record)."""
_ORDERS_KEY = varint((22 << 3) | 2)
_TAG_SHIFTS = np.arange(0, 35, 7, dtype=np.uint64)
_TAG_MORE = np.array([0x80, 0x80, 0x80, 0x80, 0], dtype=np.uint64)
"""Per byte of a 5-byte tag varint: the shift of its 7 bits, its continuation bit."""


def _tag_varints(t: np.ndarray) -> np.ndarray:
    """uint64[len(t), 5]: the bytes of each uint64 tag's 5-byte varint."""
    return ((t[:, None] >> _TAG_SHIFTS) & np.uint64(0x7F)) | _TAG_MORE


def _template() -> np.ndarray:
    t = np.zeros(1, dtype=_UNIT_DTYPE)
    t["hdr"] = (2 << 3) | 2
    t["len"] = pad2(UNIT_BODY_LEN)
    t["k1"], t["display"] = 0x08, 1
    t["k2"] = 0x10
    t["k3"] = 0x18
    t["k4"] = 0x20
    t["k5"] = 0x28
    t["k6"], t["l6"] = 0x32, 15
    t["x_k"], t["y_k"], t["z_k"] = 0x0D, 0x15, 0x1D
    t["facing_k"], t["radius_k"], t["build_k"] = 0x3D, 0x45, 0x4D
    t["build"] = 1.0
    t["k10"], t["cloak"] = 0x50, 3
    t["health_k"], t["health_max_k"] = 0x75, 0x7D
    t["k16"] = (0x85, 0x01)
    t["k36"] = (0xA5, 0x02)
    t["k30"] = (0xF5, 0x01)
    return t


# The same record for one unit, for small unit counts where numpy's per-call overhead dominates.
UNIT_RECORD = struct.Struct("<BH" "BB" "BB" "B5s" "BH" "BB" "BBBfBfBf" "BfBfBf" "BB" "BfBf" "HfHfHf")
SMALL = 24
"""Up to this many units the per-unit ``struct`` path is faster than the numpy path."""


def tag_bytes(t: int) -> bytes:
    return bytes(((t >> 0) & 0x7F | 0x80, (t >> 7) & 0x7F | 0x80, (t >> 14) & 0x7F | 0x80,
                  (t >> 21) & 0x7F | 0x80, (t >> 28) & 0x7F))


def pad2(v: int) -> int:
    """A 2-byte varint of ``v`` (< 2**14) as a little-endian uint16."""
    return ((v & 0x7F) | 0x80) | ((v >> 7) << 8)


_TEMPLATE = _template()


def _encode_small(tag: np.ndarray, alliance: np.ndarray, unit_type: np.ndarray, owner: np.ndarray,
                  x: np.ndarray, y: np.ndarray, z: float | np.ndarray, facing: np.ndarray, radius: np.ndarray,
                  health: np.ndarray, health_max: np.ndarray, shield: np.ndarray, shield_max: np.ndarray,
                  cooldown: np.ndarray, tails: Sequence[list[bytes]]) -> bytes:
    pack = UNIT_RECORD.pack
    parts = []
    cols = zip(tag.tolist(), alliance.tolist(), unit_type.tolist(), owner.tolist(), x.tolist(), y.tolist(),
               facing.tolist(), radius.tolist(), health.tolist(), health_max.tolist(), shield.tolist(),
               shield_max.tolist(), cooldown.tolist(), strict=True)
    zs = np.asarray(z).tolist() if np.ndim(z) else None
    extras = [b"".join(p) for p in zip(*tails, strict=True)] if tails else None
    for i, (t, al, ut, ow, px, py, fa, ra, hp, hm, sh, sm, cd) in enumerate(cols):
        if zs is not None:
            z = zs[i]
        if t >= TAG_LIMIT:
            raise OverflowError("unit tag beyond the 5-byte varint range")
        extra = extras[i] if extras else b""
        ln = UNIT_BODY_LEN + len(extra)
        parts.append(pack(0x12, pad2(ln), 0x08, 1, 0x10, al, 0x18, tag_bytes(t), 0x20, pad2(ut), 0x28, ow,
                          0x32, 15, 0x0D, px, 0x15, py, 0x1D, z, 0x3D, fa, 0x45, ra, 0x4D, 1.0, 0x50, 3,
                          0x75, hp, 0x7D, hm, 0x0185, sh, 0x02A5, sm, 0x01F5, cd))
        if extra:
            parts.append(extra)
    return b"".join(parts)


def unit_records(tag: np.ndarray, alliance: np.ndarray, unit_type: np.ndarray, owner: np.ndarray,
                 radius: np.ndarray, health_max: np.ndarray, shield_max: np.ndarray) -> np.ndarray:
    """The records :func:`encode_records` fills, one per row, with the fields of these columns
    written (the ones that stay while the set of units does: a caller may keep them that long)."""
    rec = np.repeat(_TEMPLATE.view(_RECORD), len(tag)).view(_UNIT_DTYPE)
    rec["alliance"] = alliance
    rec["tag"] = _tag_varints(tag.astype(np.uint64))
    ut = unit_type.astype(np.int64)
    rec["utype"] = ((ut & 0x7F) | 0x80) | ((ut >> 7) << 8)
    rec["owner"] = owner
    rec["radius"] = radius
    rec["health_max"] = health_max
    rec["shield_max"] = shield_max
    return rec


def encode_units(tag: np.ndarray, alliance: np.ndarray, unit_type: np.ndarray, owner: np.ndarray,
                 x: np.ndarray, y: np.ndarray, z: float | np.ndarray, facing: np.ndarray, radius: np.ndarray,
                 health: np.ndarray, health_max: np.ndarray, shield: np.ndarray, shield_max: np.ndarray,
                 cooldown: np.ndarray, tails: Sequence[list[bytes]] = (), rows: np.ndarray | None = None) -> bytes:
    """Wire bytes of the ``ObservationRaw.units`` entries of the columns' ``rows`` (ascending;
    every row when None).

    Each of ``tails`` holds one byte string per encoded unit (``b""``: nothing), further ``Unit``
    fields (orders, contents, ...) appended to that unit's record in the order of ``tails``.
    ``z`` is one height for every unit (a flat arena) or one per row.
    """
    n = len(tag) if rows is None else len(rows)
    if n == 0:
        return b""
    if n <= SMALL:
        if rows is not None:
            tag, alliance, unit_type, owner, x, y, facing, radius, health, health_max, shield, shield_max, \
                cooldown = (c[rows] for c in (tag, alliance, unit_type, owner, x, y, facing, radius, health,
                                              health_max, shield, shield_max, cooldown))
            if np.ndim(z):
                z = np.asarray(z)[rows]
        return _encode_small(tag, alliance, unit_type, owner, x, y, z, facing, radius, health, health_max,
                             shield, shield_max, cooldown, tails)
    return encode_records(unit_records(tag, alliance, unit_type, owner, radius, health_max, shield_max), tag, x, y,
                          z, facing, health, shield, cooldown, tails, rows)


def encode_records(records: np.ndarray, tag: np.ndarray, x: np.ndarray, y: np.ndarray, z: float | np.ndarray,
                   facing: np.ndarray, health: np.ndarray, shield: np.ndarray, cooldown: np.ndarray,
                   tails: Sequence[list[bytes]] = (), rows: np.ndarray | None = None) -> bytes:
    """:func:`encode_units`' numpy path, from the :func:`unit_records` of its other columns (which a
    caller may keep while they stay the same: ``records`` is left unchanged)."""
    n = len(tag) if rows is None else len(rows)
    if n == 0:
        return b""
    if int(tag.max()) >= TAG_LIMIT and (rows is None or int(tag[rows].max()) >= TAG_LIMIT):
        raise OverflowError("unit tag beyond the 5-byte varint range")
    # (the records of every row are filled, then the wanted ones taken: one take instead of one per
    # column; copied and taken as raw bytes: structured copies go field by field)
    rec = records.view(_RECORD).copy().view(_UNIT_DTYPE)
    rec["x"] = x
    rec["y"] = y
    rec["z"] = z
    rec["facing"] = facing
    rec["health"] = health
    rec["shield"] = shield
    rec["cooldown"] = cooldown
    if rows is not None:
        rec = rec.view(_RECORD).take(rows).view(_UNIT_DTYPE)
    if not tails:
        return rec.tobytes()
    lens = np.full(n, UNIT_BODY_LEN, dtype=np.int64)
    for tail in tails:
        lens += np.fromiter(map(len, tail), dtype=np.int64, count=n)
    if int(lens.max()) >= 1 << 14:
        raise OverflowError("unit record too long")
    rec["len"] = ((lens & 0x7F) | 0x80) | ((lens >> 7) << 8)
    # each record followed by its tails, joined once
    k = 1 + len(tails)
    parts: list[bytes] = [b""] * (k * n)
    parts[::k] = cast("list[bytes]", rec.view(_RECORD).tolist())  # (a void item is its bytes)
    for j, tail in enumerate(tails, start=1):
        parts[j::k] = tail
    return b"".join(parts)


_POINT = struct.Struct("<BfBfBf")


def encode_order(ability: int, pos: tuple[float, float, float] | None = None, target_tag: int = 0) -> bytes:
    """One ``Unit.orders`` entry (key included): ability plus a point or a unit target.

    The ability id is a 2-byte varint, like :func:`encode_single_orders` writes it.
    """
    body = b"\x08" + struct.pack("<H", pad2(ability))
    if pos is not None:
        body += b"\x12\x0f" + _POINT.pack(0x0D, pos[0], 0x15, pos[1], 0x1D, pos[2])
    elif target_tag:
        body += b"\x18" + varint(target_tag)
    return _ORDERS_KEY + varint(len(body)) + body


_ORDER_POINT = np.dtype([("key", "u1", (2,)), ("len", "u1"), ("k1", "u1"), ("ab", "<u2"), ("k2", "u1"), ("l2", "u1"),
                         ("xk", "u1"), ("x", "<f4"), ("yk", "u1"), ("y", "<f4"), ("zk", "u1"), ("z", "<f4")])
_ORDER_TAG = np.dtype([("key", "u1", (2,)), ("len", "u1"), ("k1", "u1"), ("ab", "<u2"), ("k3", "u1"),
                       ("tag", "u1", (5,))])
_ORDER_NONE = np.dtype([("key", "u1", (2,)), ("len", "u1"), ("k1", "u1"), ("ab", "<u2")])


def _order_template(dtype: np.dtype) -> np.ndarray:
    """One ``Unit.orders`` record of ``dtype`` with its key, length and ability key set."""
    rec = np.zeros(1, dtype=dtype)
    rec["key"] = tuple(_ORDERS_KEY)
    rec["len"] = dtype.itemsize - 3
    rec["k1"] = 0x08
    return rec


_POINT_TEMPLATE = _order_template(_ORDER_POINT)
_POINT_TEMPLATE["k2"], _POINT_TEMPLATE["l2"] = 0x12, 15
_POINT_TEMPLATE["xk"], _POINT_TEMPLATE["yk"], _POINT_TEMPLATE["zk"] = 0x0D, 0x15, 0x1D
_TAG_TEMPLATE = _order_template(_ORDER_TAG)
_TAG_TEMPLATE["k3"] = 0x18
_ORDER_TEMPLATES = ((1, _POINT_TEMPLATE), (2, _TAG_TEMPLATE), (0, _order_template(_ORDER_NONE)))
"""Per order target kind (1 point, 2 unit, 0 none): its record template."""


# The same records, one unit at a time (few units: numpy's per-call overhead dominates).
_ORDER_POINT_RECORD = struct.Struct("<2sBBHBBBfBfBf")
_ORDER_TAG_RECORD = struct.Struct("<2sBBHB5s")
_ORDER_NONE_RECORD = struct.Struct("<2sBBH")
SMALL_ORDERS = 48
"""Up to this many orders :func:`encode_single_orders` packs them one by one."""


def _encode_orders_small(ability: np.ndarray, kind: np.ndarray, tx: np.ndarray, ty: np.ndarray, z: float,
                         ttag: np.ndarray) -> list[bytes]:
    """:func:`encode_single_orders` with ``struct``, unit by unit (same records, same bytes)."""
    out = []
    for ab, k, x, y, t in zip(ability.tolist(), kind.tolist(), tx.tolist(), ty.tolist(), ttag.tolist(), strict=True):
        if k == 1:
            out.append(_ORDER_POINT_RECORD.pack(_ORDERS_KEY, _ORDER_POINT.itemsize - 3, 0x08, pad2(ab), 0x12, 15,
                                                0x0D, x, 0x15, y, 0x1D, z))
        elif k == 2:
            out.append(_ORDER_TAG_RECORD.pack(_ORDERS_KEY, _ORDER_TAG.itemsize - 3, 0x08, pad2(ab), 0x18,
                                              tag_bytes(t)))
        else:
            out.append(_ORDER_NONE_RECORD.pack(_ORDERS_KEY, _ORDER_NONE.itemsize - 3, 0x08, pad2(ab)))
    return out


def encode_single_orders(ability: np.ndarray, kind: np.ndarray, tx: np.ndarray, ty: np.ndarray, z: float,
                         ttag: np.ndarray) -> list[bytes]:
    """``Unit.orders`` bytes of one order per unit, vectorised; same bytes as :func:`encode_order`.

    ``kind`` per unit: 0 no target, 1 point target (``tx``, ``ty``), 2 unit target (``ttag``).
    """
    n = len(ability)
    if n <= SMALL_ORDERS:
        return _encode_orders_small(ability, kind, tx, ty, z, ttag)
    out: list[bytes] = [b""] * n
    ab = ability.astype(np.int64)
    ab = ((ab & 0x7F) | 0x80) | ((ab >> 7) << 8)  # (2-byte varints as little-endian uint16)
    for k, template in _ORDER_TEMPLATES:
        idx = np.nonzero(kind == k)[0]
        if len(idx) == 0:
            continue
        rec = np.repeat(template, len(idx))
        rec["ab"] = ab[idx]
        if k == 1:
            rec["x"], rec["y"], rec["z"] = tx[idx], ty[idx], z
        elif k == 2:
            rec["tag"] = _tag_varints(ttag[idx].astype(np.uint64))
        blobs = cast("list[bytes]", rec.view(np.dtype((np.void, template.itemsize))).tolist())
        for i, b in zip(idx.tolist(), blobs, strict=True):
            out[i] = b
    return out
