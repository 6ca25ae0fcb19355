"""Vision: what each player sees.

A cell is seen while the centre of the cell lies within the sight radius of one of the player's
units; cells seen once stay explored.  Enemy units are observed only on cells seen now (the
player's own and neutral units always).  The engine's arenas are flat and hold no structures, so
there is no high-ground rule and there are no snapshots yet (both come with the ladder maps).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.sim.units import NEUTRAL_OWNER

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World


class Vision:
    """Per-player visibility grids; keeps each player's explored cells for the episode."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.explored: dict[int, np.ndarray] = {}
        """Per player: bool[height, width], cells its units have ever seen."""

    def visibility(self, player: int) -> np.ndarray:
        """uint8[height, width]: 2 seen now by one of the player's units, 1 seen before, 0 never."""
        m = self.w.map
        u = self.w.u
        seen = np.zeros((m.height, m.width), dtype=bool)
        for i in np.nonzero((u.owner == player) & (u.sight > 0))[0].tolist():
            s, x, y = float(u.sight[i]), float(u.x[i]), float(u.y[i])
            x0, x1 = max(0, int(x - s)), min(m.width, int(x + s) + 1)
            y0, y1 = max(0, int(y - s)), min(m.height, int(y + s) + 1)
            gx = np.arange(x0, x1) + 0.5 - x
            gy = np.arange(y0, y1) + 0.5 - y
            seen[y0:y1, x0:x1] |= gx[None, :] ** 2 + gy[:, None] ** 2 <= s * s
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
