"""Vision: what each player sees.

A cell is seen while the centre of the cell lies within the sight radius of one of the player's
units; cells seen once stay explored.  Enemy units are observed only on cells seen now (the
player's own and neutral units always).

On a ladder map (terrain):

- *high ground*: a ground unit sees only cells whose cliff level is not above its own; flying
  units see every level (Liquipedia, "High ground");
- *snapshots*: an enemy structure once seen stays in the observation as a snapshot while its cell
  is not seen; neutral units (minerals, geysers, rocks, towers) are always reported, as snapshots
  where not seen (the real client's first observation: every neutral outside the start's vision
  is a snapshot, python-sc2's captures);
- *the pathing grid* the player's ``game_info`` reports: the map's own (terrain, doodads) less the
  footprints of the blockers the pathing system holds (:mod:`sc2pool.engine.sim.systems.pathing`)
  that the player knows of: its own structures, enemy ones seen, standing rocks and resources on
  cells it has explored (at loop 0: exactly the real client's start grid,
  :func:`sc2pool.engine.terrain.start_pathing`; later the structures' rule is the engine's (m)).

What a unit is is decided at its centre cell (a structure half in sight counts as seen only if
its centre is: the engine's simplification (m)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.units import BUILDINGS, NEUTRAL_OWNER, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World


_FIELD_BITS = 16
"""Each cliff level's count of covering units in one 16-bit field of an int64 (see :meth:`Vision.seen_now`)."""
_MAX_FIELDS = 64 // _FIELD_BITS
_EDGE = 1e-9
"""Margin of the first guess at a row's span of seen cells (the exact test then settles each end)."""
_TOP_LEVEL = int(np.iinfo(np.int8).max)
"""The level a flying unit or a scan sees up to: every cliff level (levels are int8)."""
Eyes = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]
"""What sees from a player's side (:meth:`Vision.eyes`): x, y, squared sight radius and, on a
ladder map, the highest cliff level each eye sees (None on a flat arena)."""


class Vision:
    """Per-player visibility grids; keeps each player's explored cells for the episode."""

    _sides_version = -1
    _sides_of: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
    """Per player: :meth:`_sides` for the unit-set version ``_sides_version`` (class defaults, so
    that a state pickled before these fields existed still loads)."""
    _diff: np.ndarray | None = None
    """int64[height * (width + 1) + 1], zeros: the difference array :meth:`seen_now` sums, made on
    first use (a class default, as above)."""
    _cell_bits: np.ndarray | None = None
    """:meth:`_cell_fields`, made on first use (a class default, as above)."""
    _known_masks: dict[int, tuple[tuple[int, int], np.ndarray]] | None = None
    """Per player: :meth:`_known_rows` with its key (made on first use, as above)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.explored: dict[int, np.ndarray] = {}
        """Per player: bool[height, width], cells its units have ever seen."""
        self.known: dict[int, set[int]] = {}
        """Per player: tags of the enemy structures it has seen (kept as snapshots)."""
        self._level: np.ndarray | None = None
        self._seen: dict[int, tuple[tuple[int, int], np.ndarray]] = {}
        self._fields: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._resource_cells: tuple[int, np.ndarray] | None = None
        self.revealed: set[int] = set()
        """Players whose whole map is revealed (the vision-cheating Computers): their units may
        target what no unit of theirs sees."""
        self.exposed: set[int] = set()
        """Players whose buildings every other player sees (the melee game's reveal of a player
        left without a main building: :mod:`sc2pool.engine.scenarios.melee`)."""

    def level_grid(self) -> np.ndarray | None:
        """int8[height, width]: cliff levels on a ladder map, None on a flat arena."""
        return self._levels()

    def _levels(self) -> np.ndarray | None:
        """int8[height, width]: cliff levels on a ladder map, None on a flat arena."""
        m = self.w.map
        if not m.has_terrain:
            return None
        if self._level is None:
            self._level = np.asarray(m.ladder.level, dtype=np.int8)  # type: ignore[attr-defined]
        return self._level

    def _level_fields(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(per cell: the bit shift of its level's field; the level of each field, ascending;
        per field of a unit's own level: the weight a ground unit standing on it adds)."""
        if self._fields is None:
            m = self.w.map
            level = self._levels()
            if level is None:
                values = np.zeros(1, dtype=np.int64)
                shift = np.zeros(m.height * m.width, dtype=np.int64)
            else:
                values = np.unique(level).astype(np.int64)
                if len(values) > _MAX_FIELDS:
                    raise ValueError(f"vision: {len(values)} cliff levels on {m.name}; at most {_MAX_FIELDS} are handled")
                shift = (_FIELD_BITS * np.searchsorted(values, level.reshape(-1))).astype(np.int64)
            # a unit on field j counts for the cells of fields 0..j (levels not above its own)
            weight = np.cumsum(np.left_shift(1, _FIELD_BITS * np.arange(len(values), dtype=np.int64)))
            self._fields = (shift, values, weight.astype(np.int64))
        return self._fields

    def _cell_fields(self) -> np.ndarray:
        """int64[height, width]: per cell, the bits of its own level's field (see :meth:`seen_now`)."""
        if self._cell_bits is None:
            m = self.w.map
            shift = self._level_fields()[0].astype(np.uint64)
            self._cell_bits = (np.uint64((1 << _FIELD_BITS) - 1) << shift).view(np.int64).reshape(m.height, m.width)
        return self._cell_bits

    def seen_now(self, player: int) -> np.ndarray:
        """bool[height, width]: the cells the player's units see now (cached per loop and unit set).

        The rule is the one of the module docstring, cell by cell: the centre of cell (cx, cy) is
        within sight s of a unit at (x, y) when ``(cx + 0.5 - x) ** 2 + (cy + 0.5 - y) ** 2 <= s * s``
        (float64, in that order), and a ground unit's cell is seen only where its cliff level is not
        above the level of the unit's own cell.  It is evaluated without a Python loop over units:
        each row of each unit's disc is one span of cells, found from the square root and settled
        at both ends by that exact test (so the spans are the cells the test accepts, bit for bit);
        the spans go into one difference array whose running sum counts the units covering each
        cell, per cliff level in 16-bit fields of an int64 (a ground unit counts for the fields of
        the levels up to its own, a flying unit for all), and a cell is seen when its own level's
        field is not zero.  The compiled twin (``seen_cells`` of :mod:`sc2pool.engine.kernels`)
        draws the same spans, from the same first guess and exact test, straight into the grid.
        """
        u = self.w.u
        key = (self.w.loop, u.version)
        got = self._seen.get(player)
        if got is not None and got[0] == key and not self.w.has_economy:
            return got[1]
        m = self.w.map
        h, w = m.height, m.width
        if _native is not None:
            self._level_fields()  # (the same limit on the levels as the Python twin's)
            seen = np.zeros((h, w), dtype=bool)
            eyes = self.eyes(player)
            if eyes is not None:
                _native.seen_cells(seen, self._levels(), w, h, *eyes)
            self._seen[player] = (key, seen)
            return seen
        rows, s, flying = self._observer_rows(player)
        scans = self.w.abilities.scan_discs(player) if self.w.has_economy else []
        if not len(rows) and not scans:
            seen = np.zeros((h, w), dtype=bool)
            self._seen[player] = (key, seen)
            return seen
        values, weight = self._level_fields()[1:]
        xy = u.xy.reshape(2, -1)[:, rows]
        x, y = xy[0], xy[1]
        level = self._levels()
        if level is None:
            field = np.zeros(len(rows), dtype=np.int64)
        else:
            c = np.minimum(np.maximum(xy.astype(np.int64), 0), ((w - 1,), (h - 1,)))  # (x, y) cells
            field = np.searchsorted(values, level[c[1], c[0]])
            field[flying] = len(values) - 1  # flying units see every level
        if scans:  # Scanner Sweeps: discs that see every level (systems/abilities.py)
            from sc2pool.engine.sim.systems.abilities import SCAN_RADIUS

            x = np.concatenate([x, [sc.x for sc in scans]])
            y = np.concatenate([y, [sc.y for sc in scans]])
            s = np.concatenate([s, np.full(len(scans), SCAN_RADIUS)])
            field = np.concatenate([field, np.full(len(scans), len(values) - 1 if level is not None else 0)])
        yi = y.astype(np.int64)
        wgt = weight[field]
        reach = int(np.ceil(float(s.max()))) + 1
        cy = yi[:, None] + np.arange(-reach, reach + 1)  # (units, rows of their discs)
        k = cy.shape[1]
        # (per unit and row, as full blocks: operands of one shape take numpy's fast path, broadcasts do not)
        xc = x.repeat(k).reshape(-1, k)
        xm = xc - 0.5
        gy = (cy + 0.5) - y[:, None]
        gy2 = gy * gy
        ss = (s * s).repeat(k).reshape(-1, k)
        rem = ss - gy2
        ok = (rem >= 0) & (cy.view(np.uint64) < h)  # (a row above the map wraps round to a large number)
        r = np.sqrt(np.maximum(rem, 0.0))
        lo = np.ceil((xm - r) - _EDGE)  # the first cell of the span, or the one before it
        hi = np.floor((xm + r) + _EDGE)  # the last one, or the one after it
        g = (lo + 0.5) - xc
        lo += g * g + gy2 > ss
        g = (hi + 0.5) - xc
        hi -= g * g + gy2 > ss
        lo = np.maximum(lo, 0.0)
        hi = np.minimum(hi, w - 1.0)
        ok &= lo <= hi
        band = cy[ok]
        if not len(band):
            seen = np.zeros((h, w), dtype=bool)
            self._seen[player] = (key, seen)
            return seen
        # only the band of rows some disc reaches is summed (the others see nothing): a player's
        # units usually cover a third of the map's height
        y0, y1 = int(band.min()), int(band.max()) + 1
        stride = w + 1
        base = band - y0
        base *= stride
        wk = wgt.repeat(ok.shape[1])[ok.reshape(-1)]  # (each unit's weight on each of its rows)
        if self._diff is None:  # (kept all zeros between calls: the cells changed are put back)
            self._diff = np.zeros(h * stride + 1, dtype=np.int64)
        diff = self._diff[:(y1 - y0) * stride + 1]
        starts = base + lo[ok].astype(np.int64)
        ends = base + hi[ok].astype(np.int64) + 1
        np.add.at(diff, starts, wk)
        np.add.at(diff, ends, -wk)
        cover = diff[:-1].cumsum().reshape(y1 - y0, stride)[:, :w]
        diff[starts] = 0
        diff[ends] = 0
        seen = np.empty((h, w), dtype=bool)
        seen[:y0] = False
        seen[y1:] = False
        seen[y0:y1] = cover & self._cell_fields()[y0:y1]
        self._seen[player] = (key, seen)
        return seen

    def _observer_rows(self, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows of the player's units that see, their sight radii, which of them fly)."""
        u = self.w.u
        rows = ((u.owner == player) & (u.sight > 0)).nonzero()[0]
        return rows, u.sight[rows], TYPES.is_flying[u.ti[rows]]

    def eyes(self, player: int) -> Eyes | None:
        """What :meth:`sees` needs of the player's units and scans now (None: nothing sees), for
        several :meth:`sees_from` tests while no unit moves."""
        u = self.w.u
        rows, s, flying = self._observer_rows(player)
        s2 = s * s
        scans = self.w.abilities.scan_discs(player) if self.w.has_economy else []
        if not len(rows) and not scans:
            return None
        oxy = u.xy.reshape(2, -1).take(rows, axis=1)  # (x row, y row; C order, as seen_cells takes them)
        level = self._levels()
        top = None
        if level is not None:  # a ground unit sees the levels up to its own, a flying one every level
            m = self.w.map
            c = np.minimum(np.maximum(oxy.astype(np.int64), 0), ((m.width - 1,), (m.height - 1,)))
            top = np.where(flying, _TOP_LEVEL, level[c[1], c[0]])
        if scans:  # Scanner Sweeps see every level
            from sc2pool.engine.sim.systems.abilities import SCAN_RADIUS

            oxy = np.concatenate([oxy, [[sc.x for sc in scans], [sc.y for sc in scans]]], axis=1)
            s2 = np.concatenate([s2, np.full(len(scans), SCAN_RADIUS * SCAN_RADIUS)])
            if top is not None:
                top = np.concatenate([top, np.full(len(scans), _TOP_LEVEL, dtype=top.dtype)])
        return oxy[0], oxy[1], s2, top

    def sees(self, player: int, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """bool per point: whether the cell of (xs[k], ys[k]) is seen now by the player, exactly as
        :meth:`seen_now` decides it, without building the grid (cheap for a few points: the
        built-in Computer asks this for the enemy units it might see)."""
        return self.sees_from(self.eyes(player), xs, ys)

    def sees_from(self, eyes: Eyes | None, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """:meth:`sees` with the player's :meth:`eyes` (taken since no unit moved); the compiled
        twin (``sees_points``) makes the same test point by point."""
        m = self.w.map
        if _native is not None:
            px = np.ascontiguousarray(xs, dtype=np.float64)
            py = np.ascontiguousarray(ys, dtype=np.float64)
            seen = np.zeros(len(px), dtype=bool)
            if eyes is not None:
                _native.sees_points(seen, px, py, self._levels(), m.width, m.height, *eyes)
            return seen
        # one (2, points) block of cells (ufuncs rather than np.clip: this runs every decision of a Computer)
        cxy = np.minimum(np.maximum(np.array((xs, ys), dtype=np.float64).astype(np.int64), 0),
                         ((m.width - 1,), (m.height - 1,)))
        if eyes is None or not cxy.shape[1]:
            return np.zeros(cxy.shape[1], dtype=bool)
        ox, oy, s2, top = eyes
        g = cxy + 0.5  # (points x observers), as the grid's cell offsets
        gx = g[0][:, None] - ox
        gy = g[1][:, None] - oy
        inside = gx ** 2 + gy ** 2 <= s2
        level = self._levels()
        if level is not None:
            inside &= level[cxy[1], cxy[0]][:, None] <= top
        return inside.any(axis=1)

    def sees_units(self, player: int, rows: np.ndarray) -> np.ndarray:
        """bool per row of ``rows`` (units of other players): whether ``player`` sees it now: its
        cell is seen (:meth:`sees`) or it is a building of an exposed player."""
        return self.sees_units_from(player, self.eyes(player), rows)

    def sees_units_from(self, player: int, eyes: Eyes | None, rows: np.ndarray) -> np.ndarray:
        """:meth:`sees_units` with the player's :meth:`eyes` (taken since no unit moved)."""
        u = self.w.u
        seen = self.sees_from(eyes, u.x[rows], u.y[rows])
        if self.exposed:
            seen |= self.exposed_buildings()[rows] & (u.owner[rows] != player)
        return seen

    def exposed_buildings(self) -> np.ndarray:
        """bool per row: the buildings (:data:`~sc2pool.engine.sim.units.BUILDINGS`) of the exposed
        players, which every other player sees."""
        u = self.w.u
        return BUILDINGS[u.ti] & np.isin(u.owner, np.fromiter(self.exposed, dtype=np.int64, count=len(self.exposed)))

    def visibility(self, player: int) -> np.ndarray:
        """uint8[height, width]: 2 seen now by one of the player's units, 1 seen before, 0 never."""
        seen = self.seen_now(player)
        explored = self.explored.get(player)
        if explored is None:
            explored = self.explored[player] = np.zeros_like(seen)
        explored |= seen
        return explored.view(np.uint8) + seen.view(np.uint8)

    def observed(self, player: int, vis: np.ndarray) -> np.ndarray:
        """bool per row: the units ``player`` observes with the visibility grid ``vis`` (its own,
        neutral ones, and others standing on a cell seen now)."""
        m = self.w.map
        u = self.w.u
        cx = np.minimum(np.maximum(u.x.astype(np.int64), 0), m.width - 1)
        cy = np.minimum(np.maximum(u.y.astype(np.int64), 0), m.height - 1)
        return (u.owner == player) | (u.owner == NEUTRAL_OWNER) | (vis[cy, cx] == 2)

    def observed_with_snapshots(self, player: int, vis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(keep, snapshot) per row on a ladder map: the units the player observes (its own, every
        neutral, enemies on cells seen now, enemy structures seen before) and which of them are
        snapshots (neutrals and remembered structures not seen now)."""
        m = self.w.map
        u = self.w.u
        c = np.minimum(np.maximum(u.xy.reshape(2, -1).astype(np.int64), 0), ((m.width - 1,), (m.height - 1,)))
        here = vis[c[1], c[0]] == 2
        own, neutral, enemy, enemy_structure, own_or_neutral = self._sides(player)
        if self.exposed:
            here |= self.exposed_buildings() & ~own
        known = self.known.setdefault(player, set())
        seen_structures = enemy_structure & here
        if np.count_nonzero(seen_structures):
            known.update(u.tag[seen_structures].tolist())
        away = ~here
        remembered = enemy_structure & away
        if np.count_nonzero(remembered) and known:
            remembered &= self._known_rows(player, known)
        else:
            remembered[:] = False
        snapshot = neutral & away
        snapshot |= remembered
        keep = enemy & here
        keep |= own_or_neutral
        keep |= remembered
        return keep, snapshot

    def _sides(self, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """bool per row: (the player's, neutral, an enemy's, an enemy's structure, the player's or
        neutral), cached per unit-set version (owners and types change only with it)."""
        u = self.w.u
        if self._sides_version != u.version:
            self._sides_of = {}
            self._sides_version = u.version
        got = self._sides_of.get(player)
        if got is None:
            own = u.owner == player
            neutral = u.owner == NEUTRAL_OWNER
            enemy = ~own & ~neutral
            got = self._sides_of[player] = (own, neutral, enemy, enemy & TYPES.structure[u.ti], own | neutral)
        return got

    def _known_rows(self, player: int, known: set[int]) -> np.ndarray:
        """bool per row: the units of the tags in ``known`` (the player's remembered structures),
        cached per unit-set version and size of the set (tags are only ever added to it)."""
        u = self.w.u
        key = (u.version, len(known))
        if self._known_masks is None:
            self._known_masks = {}
        got = self._known_masks.get(player)
        if got is None or got[0] != key:
            rows = u.rows(np.fromiter(known, dtype=np.int64, count=len(known)))
            mask = np.zeros(len(u), dtype=bool)
            mask[rows[rows >= 0]] = True  # (the rows of the known tags: np.isin sorts both)
            got = self._known_masks[player] = (key, mask)
        return got[1]

    def pathing_grid_key(self, player: int) -> tuple[int, int, int]:
        """Changes whenever :meth:`pathing_grid` would answer differently: a blocker appeared or
        went, the player saw an enemy structure for the first time, or explored the cell of a
        resource (cheap: game_info is asked for every step by burnysc2, the grid changes rarely)."""
        w = self.w
        pathing = w.pathing
        blockers = pathing.blocked_cells()  # (brings the blockers up to date)
        known = self.known.get(player)
        explored = self.explored.get(player)
        seen_resources = 0
        if explored is not None and blockers:
            cached = self._resource_cells
            if cached is None or cached[0] != pathing.blockers_version:
                u = w.u
                resources = w.harvest.resources
                tags = np.array([t for t in blockers if t in resources], dtype=np.int64)
                rows = u.rows(tags)
                rows = rows[rows >= 0]
                m = w.map
                cx = np.minimum(np.maximum(u.x[rows].astype(np.int64), 0), m.width - 1)
                cy = np.minimum(np.maximum(u.y[rows].astype(np.int64), 0), m.height - 1)
                cached = self._resource_cells = (pathing.blockers_version, cy * m.width + cx)
            seen_resources = int(np.count_nonzero(explored.reshape(-1)[cached[1]]))
        return (pathing.blockers_version, len(known) if known else 0, seen_resources)

    def pathing_grid(self, player: int) -> np.ndarray:
        """bool[height, width]: the pathing grid the player's ``game_info`` reports now (see the
        module docstring): the blockers the pathing system holds (:meth:`Pathing.blocked_cells`),
        those the player knows of."""
        w = self.w
        m = w.map
        grid = np.array(m.pathable, dtype=bool, copy=True).reshape(-1)
        blockers = w.pathing.blocked_cells()
        if not blockers:
            return grid.reshape(m.height, m.width)
        u = w.u
        explored = self.explored.get(player)
        known = self.known.get(player, set())
        resources = w.harvest.resources
        tags = np.fromiter(blockers, dtype=np.int64, count=len(blockers))
        rows = u.rows(tags)
        for tag, r, cells in zip(tags.tolist(), rows.tolist(), blockers.values(), strict=True):
            if r < 0:
                continue
            owner = int(u.owner[r])
            if owner == NEUTRAL_OWNER:
                if tag in resources:  # a resource blocks once the player has explored its cell
                    cx = min(max(int(u.x[r]), 0), m.width - 1)
                    cy = min(max(int(u.y[r]), 0), m.height - 1)
                    if explored is None or not explored[cy, cx]:
                        continue
            elif owner != player and tag not in known:
                continue
            grid[cells] = False
        return grid.reshape(m.height, m.width)
