#!/usr/bin/env python
"""Measure doodad and rock footprints from the real client's grids; write our footprint table.

The game's doodad footprints live in its data files, which this project does not have.  They are
measured here instead, from the real client's ``pathing_grid`` / ``placement_grid`` in python-sc2's
captures of 24 ladder maps, against our own terrain rules computed from the same maps' files
(sc2maptool):

1. ``base`` = terrain-pathable cells reachable from a start location (``grids.terrain_grids`` +
   ``grids.reachable``); cells near any unit of the capture are left out (units block too).
2. Every base cell within 10 cells of a doodad (or ``BlockPathing`` point) is an observation for
   the pair (doodad type, half-cell bin of the cell centre in the doodad's frame, see
   ``footprints.local_bins``): "blocked" when the client says not pathable, "free" otherwise.
3. Pairs are accepted greedily, best supported first (at least 64, 32, ..., 2 blocked
   observations; blocked share above 0.9, 0.75, 0.5; and blocked in at least 30% of the type's
   instances).  A blocked cell already explained by an accepted pair no longer counts for other
   pairs, so a cell near several doodads is credited to the type that blocks it everywhere.
4. Rock footprints: the cells blocked (share >= 0.5) around rocks whose centre the client shows
   blocked, the connected patch through the centre.

``--lomo`` also reports a leave-one-map-out check: fit on 23 maps, measure IoU on the 24th.

Usage:  python tools/fit_footprints.py [--mirror DIR] [--lomo] [--out sc2pool/engine/terrain/footprint_data.py]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from capture_io import CAPTURED_MAPS, DEFAULT_MIRROR, Capture, load_capture, map_file  # noqa: E402

from sc2pool.engine.terrain import grids  # noqa: E402
from sc2pool.engine.terrain.footprints import doodad_key, local_bins  # noqa: E402
from sc2pool.engine.terrain.reader import RawMap, read_raw  # noqa: E402

WIN = 10
NB = 4 * WIN + 3  # half-cell bins per axis
ROCK_WORDS = ("Destructible", "Collapsible")


@dataclass
class MapCase:
    name: str
    cap: Capture
    raw: RawMap
    base_path: np.ndarray
    base_place: np.ndarray
    informative: np.ndarray


def load_case(name: str, mirror: str) -> MapCase:
    cap = load_capture(name, mirror)
    raw = read_raw(map_file(name))
    pa = grids.playable_area(raw.camera)
    assert pa == cap.playable, (name, pa, cap.playable)
    p, q = grids.terrain_grids(raw, pa)
    starts = [(o.x, o.y) for o in raw.objects if o.kind == "point" and o.type_name == "StartLoc"]
    pk = grids.reachable(p, starts)
    near_unit = np.zeros_like(p)
    for u in cap.units:
        x, y, r = u[1], u[2], u[6]
        near_unit[max(int(y - r - 1), 0) : int(math.ceil(y + r + 1)), max(int(x - r - 1), 0) : int(math.ceil(x + r + 1))] = True
    return MapCase(name, cap, raw, pk, q & pk, ~near_unit)


def instances(raw: RawMap) -> list[tuple[str, float, float, float]]:
    return [(k, o.x, o.y, o.rotation) for o in raw.objects if (k := doodad_key(o)) is not None]


def observations(cases: list[MapCase], kind: str, keyids: dict[str, int]):
    """(pair, cell, blocked) arrays over all cases, and the total cell count."""
    pairs, cells, labels = [], [], []
    off = 0
    o = np.arange(-WIN, WIN + 1)
    oy, ox = np.meshgrid(o, o, indexing="ij")
    for case in cases:
        w, h = case.cap.width, case.cap.height
        base = case.base_path if kind == "path" else case.base_place
        target = case.cap.pathing if kind == "path" else case.cap.placement
        inform = base & case.informative
        blocked = base & ~target
        for key, x, y, rot in instances(case.raw):
            kid = keyids.setdefault(key, len(keyids))
            cx = int(math.floor(x)) + ox
            cy = int(math.floor(y)) + oy
            ok = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
            cx, cy = cx[ok], cy[ok]
            sel = inform[cy, cx]
            cx, cy = cx[sel], cy[sel]
            bx, by = local_bins(x, y, rot, cx, cy)
            bx = np.clip(bx, -2 * WIN - 1, 2 * WIN + 1) + 2 * WIN + 1
            by = np.clip(by, -2 * WIN - 1, 2 * WIN + 1) + 2 * WIN + 1
            pairs.append(kid * NB * NB + bx * NB + by)
            cells.append(off + cy * w + cx)
            labels.append(blocked[cy, cx])
        off += w * h
    return np.concatenate(pairs), np.concatenate(cells), np.concatenate(labels), off


def fit_pairs(pairs, cells, labels, ncell: int, instances_of_key: np.ndarray, frac: float = 0.3) -> np.ndarray:
    npair = int(pairs.max()) + 1
    free = np.bincount(pairs[~labels], minlength=npair)
    need = np.repeat(instances_of_key, NB * NB)[:npair] * frac
    accepted = np.zeros(npair, dtype=bool)
    for minb in (64, 32, 16, 8, 4, 2):
        for thr in (0.9, 0.75, 0.5):
            for _ in range(2):
                explained = np.zeros(ncell, dtype=bool)
                explained[cells[accepted[pairs]]] = True
                counts = labels & (~explained[cells] | accepted[pairs])
                blocked = np.bincount(pairs[counts], minlength=npair)
                new = (blocked >= minb) & (blocked >= need) & (blocked > thr * (blocked + free)) & ~accepted
                if not new.any():
                    break
                accepted |= new
    return accepted


def fit(cases: list[MapCase], kind: str) -> dict[str, list[tuple[int, int]]]:
    keyids: dict[str, int] = {}
    pairs, cells, labels, ncell = observations(cases, kind, keyids)
    count = np.zeros(len(keyids), dtype=np.int64)
    for case in cases:
        for key, *_ in instances(case.raw):
            count[keyids[key]] += 1
    accepted = np.nonzero(fit_pairs(pairs, cells, labels, ncell, count))[0]
    names = {v: k for k, v in keyids.items()}
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for pid in accepted.tolist():
        kid, rest = divmod(pid, NB * NB)
        bx, by = divmod(rest, NB)
        out[names[kid]].append((bx - 2 * WIN - 1, by - 2 * WIN - 1))
    return {k: sorted(v) for k, v in sorted(out.items())}


def fit_rocks(cases: list[MapCase]) -> dict[str, str]:
    """Rock footprints as mask rows (top first), from the rocks the client shows blocking."""
    from scipy import ndimage

    stats: dict[str, dict[tuple[float, float], list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for case in cases:
        p = case.base_path
        for o in case.raw.objects:
            if o.kind != "unit" or not any(w in o.type_name for w in ROCK_WORDS) or o.type_name.startswith("Unbuildable"):
                continue
            ys, xs = np.mgrid[int(o.y) - 8 : int(o.y) + 9, int(o.x) - 8 : int(o.x) + 9]
            dx, dy = xs + 0.5 - o.x, ys + 0.5 - o.y
            inf = p[ys, xs]
            bl = inf & ~case.cap.pathing[ys, xs]
            centre = (dx**2 + dy**2 <= 4) & inf
            if centre.sum() == 0 or bl[centre].mean() < 0.9:
                continue  # this rock is not blocking in the start grid (see docs/engine.md)
            for a, b, i, k in zip(dx.ravel(), dy.ravel(), inf.ravel(), bl.ravel(), strict=True):
                if i:
                    e = stats[o.type_name][(float(a), float(b))]
                    e[0] += int(k)
                    e[1] += 1
    out: dict[str, str] = {}
    for name, st in sorted(stats.items()):
        on = {k for k, (b, n) in st.items() if b / n >= 0.5}
        if not on:
            continue
        ext_x = max(abs(a) for a, _ in st) + 0.5
        ext_y = max(abs(b) for _, b in st) + 0.5
        xs_ = np.arange(-ext_x + 0.5, ext_x)
        ys_ = np.arange(-ext_y + 0.5, ext_y)
        grid = np.array([[(float(a), float(b)) in on for a in xs_] for b in ys_], dtype=bool)
        lab, _ = ndimage.label(grid)
        cy, cx = len(ys_) // 2, len(xs_) // 2
        centre_labels = {int(v) for v in lab[cy - 1 : cy + 1, cx - 1 : cx + 1].ravel()} - {0}
        grid = np.isin(lab, sorted(centre_labels))
        yy, xx = np.nonzero(grid)
        # trim symmetrically so the mask stays centred on the unit's position
        tx = min(xx.min(), grid.shape[1] - 1 - xx.max())
        ty = min(yy.min(), grid.shape[0] - 1 - yy.max())
        grid = grid[ty : grid.shape[0] - ty, tx : grid.shape[1] - tx]
        out[name] = "/".join("".join("#" if v else "." for v in row) for row in grid[::-1])
    return out


def predict(case: MapCase, table: dict[str, list[tuple[int, int]]], kind: str) -> np.ndarray:
    base = (case.base_path if kind == "path" else case.base_place).copy()
    sets = {k: set(v) for k, v in table.items()}
    for key, x, y, rot in instances(case.raw):
        bins = sets.get(key)
        if not bins:
            continue
        reach = max(max(abs(a), abs(b)) for a, b in bins) // 2 + 2
        cy, cx = np.mgrid[max(int(y) - reach, 0) : int(y) + reach + 1, max(int(x) - reach, 0) : int(x) + reach + 1]
        ok = (cx < case.cap.width) & (cy < case.cap.height)
        cx, cy = cx[ok], cy[ok]
        bx, by = local_bins(x, y, rot, cx, cy)
        hit = np.array([(a, b) in bins for a, b in zip(bx.tolist(), by.tolist(), strict=True)], dtype=bool)
        base[cy[hit], cx[hit]] = False
    return base


def iou(case: MapCase, pred: np.ndarray, kind: str) -> float:
    target = case.cap.pathing if kind == "path" else case.cap.placement
    m = grids.playable_mask(case.cap.width, case.cap.height, case.cap.playable) & case.informative
    a, b = pred & m, target & m
    return float((a & b).sum() / max((a | b).sum(), 1))


def render(table: dict[str, list[tuple[int, int]]]) -> str:
    lines = []
    for k, v in table.items():
        lines.append(f"    {k!r}: {' '.join(f'{a},{b}' for a, b in v)!r},")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR, help="bare git snapshot of BurnySc2/python-sc2")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "sc2pool/engine/terrain/footprint_data.py"))
    ap.add_argument("--lomo", action="store_true", help="also report a leave-one-map-out check")
    args = ap.parse_args()
    t0 = time.time()
    cases = [load_case(n, args.mirror) for n in CAPTURED_MAPS]
    print(f"loaded {len(cases)} maps in {time.time() - t0:.1f} s", file=sys.stderr)
    tables = {kind: fit(cases, kind) for kind in ("path", "place")}
    rocks = fit_rocks(cases)
    for kind in ("path", "place"):
        scores = {c.name: (iou(c, c.base_path if kind == "path" else c.base_place, kind), iou(c, predict(c, tables[kind], kind), kind)) for c in cases}
        print(f"{kind}: in-sample IoU (excluding cells near units) terrain-only -> with footprints")
        for n, (a, b) in scores.items():
            print(f"  {n:24s} {a:.3f} -> {b:.3f}")
        print(f"  mean {np.mean([s[1] for s in scores.values()]):.4f}  min {min(s[1] for s in scores.values()):.4f}")
        if args.lomo:
            lomo = {}
            for i, c in enumerate(cases):
                rest = cases[:i] + cases[i + 1 :]
                lomo[c.name] = iou(c, predict(c, fit(rest, kind), kind), kind)
            print(f"{kind}: leave-one-map-out IoU")
            for n, v in lomo.items():
                print(f"  {n:24s} {v:.3f}")
            print(f"  mean {np.mean(list(lomo.values())):.4f}  min {min(lomo.values()):.4f}")
    header = f'''"""Measured footprints of doodads and rocks (generated by tools/fit_footprints.py; do not edit).

Source: measurement.  The real client's start pathing_grid and placement_grid in python-sc2's
captures (BurnySc2/python-sc2 ``test/pickle_data/<Map>.xz``) of {len(cases)} ladder maps, compared cell by cell
with this package's terrain rules on the same maps' files (sc2maptool 1.0.12); the method is in
tools/fit_footprints.py and docs/engine.md ("Ladder maps").  A doodad type met on one map only is
fitted from that map's instances alone (usually a mirrored pair), so it is a measurement of that
map, not a proven game fact (m).

DOODAD_PATHING / DOODAD_PLACEMENT: doodad Type (``point:BlockPathing`` for the ObjectPoint) ->
space-separated half-cell bins "bx,by" in the doodad's frame (see ``footprints.local_bins``) that
the client reports not pathable / not placeable.
UNIT_FOOTPRINTS: rock unit type -> mask rows, top row first, '#' blocked, centred on the unit.
"""

'''
    body = (
        "DOODAD_PATHING: dict[str, str] = {\n" + render(tables["path"]) + "\n}\n\n"
        "DOODAD_PLACEMENT: dict[str, str] = {\n" + render(tables["place"]) + "\n}\n\n"
        "UNIT_FOOTPRINTS: dict[str, str] = {\n" + "\n".join(f"    {k!r}: {v!r}," for k, v in rocks.items()) + "\n}\n"
    )
    Path(args.out).write_text(header + body)
    print(f"wrote {args.out} ({len(tables['path'])} pathing, {len(tables['place'])} placement doodad types, "
          f"{len(rocks)} rock types) in {time.time() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
