"""The compiled kernel of the observation's unit records (``_kernels_encode.c``) against its
pure-Python twin (``sim/encode.py``, as ``Game._encode_units`` calls it): the same bytes on every
input, and the same game either way."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import native as _native
from kernel_helpers import needs_native, skirmish_digest
from s2clientprotocol import raw_pb2

from sc2pool.engine import data as D
from sc2pool.engine import game as game_mod
from sc2pool.engine.game import _SNAPSHOT, _SNAPSHOT_TAIL, _alliance
from sc2pool.engine.sim import encode as E

NEUTRAL = 16


def _gathered(values: np.ndarray) -> np.ndarray:
    """``values`` as a row of a block gathered column by column (not contiguous), as the unit
    store's derived columns are."""
    block = np.stack((values, values, values))
    return block[:, np.arange(len(values))][1]


# floats as the columns hold them, and the ones a float32 rounds, overflows or keeps the sign of
_float = st.one_of(st.floats(-1e3, 1e3), st.sampled_from([0.0, -0.0, 0.5, 1e-46, 3.4028235e38, 3.5e38, -1e300,
                                                           float("inf"), float("-inf"), float("nan")]),
                   st.floats(allow_nan=True, allow_infinity=True))


@st.composite
def _units(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(0, 40))

    def floats() -> np.ndarray:
        return np.array(draw(st.lists(_float, min_size=n, max_size=n)), dtype=np.float64)

    def ints(lo: int, hi: int) -> np.ndarray:
        return np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)), dtype=np.int64)

    n_types = draw(st.integers(1, 6))
    cols: dict[str, Any] = {
        "tag": ints(-5, (1 << 35) - 1), "ti": ints(0, n_types - 1), "unit_id": ints(0, (1 << 14) - 1),
        "owner": ints(0, 20), "player": draw(st.integers(1, 2)), "x": floats(), "y": floats(),
        "z": draw(st.one_of(_float, st.just(None))), "facing": floats(), "radius": floats(), "health": floats(),
        "hp_max": np.array(draw(st.lists(_float, min_size=n_types, max_size=n_types)), dtype=np.float64),
        "shield": floats(), "cooldown": floats(),
        "sh_max": np.array(draw(st.lists(_float, min_size=n_types, max_size=n_types)), dtype=np.float64),
    }
    if cols["z"] is None:  # (a ladder map: one height per unit)
        cols["z"] = floats()
    cols["rows"] = None if draw(st.booleans()) else np.nonzero(ints(0, 1))[0]
    cols["tail"] = None if draw(st.booleans()) else draw(st.lists(st.binary(max_size=40), min_size=n, max_size=n))
    cols["snapshot"] = None if draw(st.booleans()) else ints(0, 1).astype(bool)
    if n and draw(st.booleans()):  # (the unit store's gathered columns)
        cols["radius"], cols["unit_id"] = _gathered(cols["radius"]), _gathered(cols["unit_id"])
    return cols


def _args(c: dict[str, Any]) -> tuple[Any, ...]:
    return (c["tag"], c["ti"], c["unit_id"], c["owner"], c["player"], NEUTRAL, c["x"], c["y"], c["z"], c["facing"],
            c["radius"], c["health"], c["hp_max"], c["shield"], c["sh_max"], c["cooldown"], c["rows"], c["tail"],
            c["snapshot"], _SNAPSHOT)


def _python(c: dict[str, Any]) -> bytes:
    """What ``Game._encode_units`` encodes without the kernel (its numpy path, from the records)."""
    rows = c["rows"]
    tails: list[list[bytes]] = []
    if c["tail"] is not None:
        tails.append(c["tail"] if rows is None else [c["tail"][i] for i in rows.tolist()])
    if c["snapshot"] is not None:
        snap = c["snapshot"] if rows is None else c["snapshot"][rows]
        tails.append([_SNAPSHOT_TAIL[s] for s in snap.tolist()])
    owner, ti = c["owner"], c["ti"]
    records = E.unit_records(c["tag"], _alliance(owner == c["player"], owner), c["unit_id"], owner, c["radius"],
                             c["hp_max"][ti], c["sh_max"][ti])
    return E.encode_records(records, c["tag"], c["x"], c["y"], c["z"], c["facing"], c["health"], c["shield"],
                            c["cooldown"], tails, rows)


def _outcome(run: Any, *args: Any) -> Any:
    try:
        return run(*args)
    except OverflowError as e:
        return ("OverflowError", str(e))


@needs_native
@settings(max_examples=300, deadline=None)
@given(_units())
def test_encode_units_writes_the_bytes_of_the_numpy_records(c: dict[str, Any]) -> None:
    with np.errstate(over="ignore", invalid="ignore"):  # (float32 overflow: inf, as the cast gives)
        want = _outcome(_python, c)
    assert _outcome(_native().encode_units, *_args(c)) == want


@needs_native
def test_encode_units_parses_as_the_units_given() -> None:
    tag = np.array([1 << 32, (1 << 32) + 5, (1 << 35) - 1], dtype=np.int64)
    ti = np.array([0, 1, 0], dtype=np.int64)
    one = np.ones(3)
    got = _native().encode_units(tag, ti, np.array([48, 200, 341], dtype=np.int64), np.array([1, 2, NEUTRAL]), 1,
                                 NEUTRAL, one * 3.5, one * 4.25, 11.0, one * 0.5, one * 0.375, np.array([45.0, 0, 1]),
                                 np.array([45.0, 200.0]), one * 2, np.array([0.0, 80.0]), one * 0.25,
                                 np.array([0, 2], dtype=np.int64), [b"", b"\x90\x01\x05", b"\x98\x01\x07"],
                                 np.array([False, False, True]), _SNAPSHOT)
    raw = raw_pb2.ObservationRaw.FromString(got)
    a, b = raw.units
    assert (a.tag, a.alliance, a.unit_type, a.owner, a.pos.x, a.pos.z, a.health_max, a.display_type) == \
        (1 << 32, 1, 48, 1, 3.5, 11.0, 45.0, 1)
    assert (b.tag, b.alliance, b.unit_type, b.owner, b.vespene_contents, b.shield_max, b.display_type, b.cloak) == \
        ((1 << 35) - 1, 3, 341, NEUTRAL, 0, 0.0, 2, 0)  # (the snapshot's fields after the tail's win)
    assert _native().encode_units(tag[:0], *(np.zeros(0, dtype=c.dtype) for c in (ti, ti, ti)), 1, NEUTRAL,
                                  *([np.zeros(0)] * 2), 0.0, *([np.zeros(0)] * 7), None, None, None, b"") == b""


@needs_native
def test_encode_units_names_bad_input() -> None:
    n = 3
    f = np.zeros(n)
    i = np.zeros(n, dtype=np.int64)
    tables = np.zeros(2)

    def call(**over: Any) -> bytes:
        a: dict[str, Any] = {"tag": i + (1 << 32), "ti": i, "unit_id": i, "owner": i, "player": 1, "neutral": NEUTRAL,
                             "x": f, "y": f, "z": 0.0, "facing": f, "radius": f, "health": f, "hp_max": tables,
                             "shield": f, "sh_max": tables, "cooldown": f, "rows": None, "tail": None,
                             "snapshot": None, "snapshot_tail": _SNAPSHOT}
        a.update(over)
        return _native().encode_units(*a.values())

    assert len(call()) == n * E._UNIT_DTYPE.itemsize
    with pytest.raises(ValueError, match="x must be a one-dimensional float64 array"):
        call(x=i)
    with pytest.raises(ValueError, match="owner must be a one-dimensional int64 array"):
        call(owner=i.astype(np.int32))
    with pytest.raises(ValueError, match="health holds 2 items where 3 are needed"):
        call(health=f[:2])
    with pytest.raises(ValueError, match="z must be a one-dimensional float64 array"):
        call(z=np.zeros((n, 2)))
    with pytest.raises(ValueError, match="encode_units: z must be a one-dimensional float64 array"):
        call(z="high")
    with pytest.raises(ValueError, match="snapshot must be a one-dimensional bool array"):
        call(snapshot=i)
    with pytest.raises(ValueError, match=r"rows\[1\] = 3 is no row of 3 units"):
        call(rows=np.array([0, 3]))
    with pytest.raises(ValueError, match=r"ti\[2\] = 2 is no row of hp_max"):
        call(ti=np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="tail must be a list of 3 bytes"):
        call(tail=[b""] * 2)
    with pytest.raises(ValueError, match=r"tail\[1\] is not bytes"):
        call(tail=[b"", "x", b""])
    with pytest.raises(ValueError, match="snapshot_tail must be bytes"):
        call(snapshot_tail=None)
    with pytest.raises(OverflowError, match="unit tag beyond"):
        call(tag=i + (1 << 35))
    assert call(tag=i + (1 << 35), rows=np.zeros(0, dtype=np.int64)) == b""  # (only encoded units count)
    with pytest.raises(OverflowError, match="unit record too long"):
        call(tail=[b"", b"x" * (1 << 14), b""])
    with pytest.raises(TypeError):
        call(player="one")


# ------------------------------------------------------------------ a whole game
def _game_digest() -> str:
    """A melee game's first minutes against a Computer: workers mining and building (orders,
    contents, harvester counts), structures seen and left as snapshots."""
    return skirmish_digest(((D.MARINE, 1, 4.0, 8), (D.ZERGLING, 2, -8.0, 10)))


@needs_native
def test_a_game_observes_the_same_with_and_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    snapshots = []
    encode_units = _native().encode_units

    def counted(*args: Any) -> bytes:
        snapshots.append(args[18] is not None)
        return encode_units(*args)

    monkeypatch.setattr(game_mod, "_native", type("Counting", (), {"encode_units": staticmethod(counted)}))
    with_c = _game_digest()
    assert len(snapshots) == 30 and any(snapshots)  # (snapshots among them)
    monkeypatch.setattr(game_mod, "_native", None)
    assert _game_digest() == with_c
