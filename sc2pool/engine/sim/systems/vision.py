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

from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World


class Vision:
    """Per-player visibility grids; keeps each player's explored cells for the episode."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.explored: dict[int, np.ndarray] = {}
        """Per player: bool[height, width], cells its units have ever seen."""
        self.known: dict[int, set[int]] = {}
        """Per player: tags of the enemy structures it has seen (kept as snapshots)."""
        self._level: np.ndarray | None = None
        self._seen: dict[int, tuple[tuple[int, int], np.ndarray]] = {}

    def _levels(self) -> np.ndarray | None:
        """int8[height, width]: cliff levels on a ladder map, None on a flat arena."""
        m = self.w.map
        if not m.has_terrain:
            return None
        if self._level is None:
            self._level = np.asarray(m.ladder.level, dtype=np.int8)  # type: ignore[attr-defined]
        return self._level

    def seen_now(self, player: int) -> np.ndarray:
        """bool[height, width]: the cells the player's units see now (cached per loop and unit set)."""
        u = self.w.u
        key = (self.w.loop, u.version)
        got = self._seen.get(player)
        if got is not None and got[0] == key and not self.w.has_economy:
            return got[1]
        m = self.w.map
        level = self._levels()
        seen = np.zeros((m.height, m.width), dtype=bool)
        rows = np.nonzero((u.owner == player) & (u.sight > 0))[0]
        flying = TYPES.is_flying[u.ti[rows]] if level is not None else None
        for k, i in enumerate(rows.tolist()):
            s, x, y = float(u.sight[i]), float(u.x[i]), float(u.y[i])
            x0, x1 = max(0, int(x - s)), min(m.width, int(x + s) + 1)
            y0, y1 = max(0, int(y - s)), min(m.height, int(y + s) + 1)
            gx = np.arange(x0, x1) + 0.5 - x
            gy = np.arange(y0, y1) + 0.5 - y
            disc = gx[None, :] ** 2 + gy[:, None] ** 2 <= s * s
            if level is not None and not flying[k]:  # type: ignore[index]
                own = level[min(max(int(y), 0), m.height - 1), min(max(int(x), 0), m.width - 1)]
                disc &= level[y0:y1, x0:x1] <= own
            seen[y0:y1, x0:x1] |= disc
        self._seen[player] = (key, seen)
        return seen

    def sees(self, player: int, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """bool per point: whether the cell of (xs[k], ys[k]) is seen now by the player, exactly as
        :meth:`seen_now` decides it, without building the grid (cheap for a few points: the
        built-in Computer asks this for the enemy units it might see)."""
        m = self.w.map
        u = self.w.u
        # (ufuncs rather than np.clip: this runs every decision of a Computer)
        cx = np.minimum(np.maximum(np.asarray(xs, dtype=np.float64).astype(np.int64), 0), m.width - 1)
        cy = np.minimum(np.maximum(np.asarray(ys, dtype=np.float64).astype(np.int64), 0), m.height - 1)
        rows = ((u.owner == player) & (u.sight > 0)).nonzero()[0]
        if not len(rows) or not len(cx):
            return np.zeros(len(cx), dtype=bool)
        ox, oy, s = u.x[rows], u.y[rows], u.sight[rows]
        gx = (cx + 0.5)[:, None] - ox  # (points x observers), as the grid's cell offsets
        gy = (cy + 0.5)[:, None] - oy
        inside = gx ** 2 + gy ** 2 <= s * s
        level = self._levels()
        if level is not None:
            ground = ~TYPES.is_flying[u.ti[rows]]
            own = level[np.minimum(np.maximum(oy.astype(np.int64), 0), m.height - 1),
                        np.minimum(np.maximum(ox.astype(np.int64), 0), m.width - 1)]
            inside &= (level[cy, cx][:, None] <= own) | ~ground
        return inside.any(axis=1)

    def visibility(self, player: int) -> np.ndarray:
        """uint8[height, width]: 2 seen now by one of the player's units, 1 seen before, 0 never."""
        seen = self.seen_now(player)
        explored = self.explored.get(player)
        if explored is None:
            explored = self.explored[player] = np.zeros_like(seen)
        explored |= seen
        return np.where(seen, 2, explored.astype(np.uint8)).astype(np.uint8)

    def observed(self, player: int, vis: np.ndarray) -> np.ndarray:
        """bool per row: the units ``player`` observes with the visibility grid ``vis`` (its own,
        neutral ones, and others standing on a cell seen now)."""
        m = self.w.map
        u = self.w.u
        cx = np.clip(u.x.astype(np.int64), 0, m.width - 1)
        cy = np.clip(u.y.astype(np.int64), 0, m.height - 1)
        return (u.owner == player) | (u.owner == NEUTRAL_OWNER) | (vis[cy, cx] == 2)

    def observed_with_snapshots(self, player: int, vis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(keep, snapshot) per row on a ladder map: the units the player observes (its own, every
        neutral, enemies on cells seen now, enemy structures seen before) and which of them are
        snapshots (neutrals and remembered structures not seen now)."""
        m = self.w.map
        u = self.w.u
        cx = np.clip(u.x.astype(np.int64), 0, m.width - 1)
        cy = np.clip(u.y.astype(np.int64), 0, m.height - 1)
        here = vis[cy, cx] == 2
        own = u.owner == player
        neutral = u.owner == NEUTRAL_OWNER
        enemy = ~own & ~neutral
        structure = TYPES.structure[u.ti]
        known = self.known.setdefault(player, set())
        seen_structures = enemy & here & structure
        if np.count_nonzero(seen_structures):
            known.update(u.tag[seen_structures].tolist())
        remembered = enemy & ~here & structure
        if np.count_nonzero(remembered) and known:
            remembered &= np.isin(u.tag, np.fromiter(known, dtype=np.int64, count=len(known)))
        else:
            remembered[:] = False
        snapshot = (neutral & ~here) | remembered
        keep = own | neutral | (enemy & here) | remembered
        return keep, snapshot

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
