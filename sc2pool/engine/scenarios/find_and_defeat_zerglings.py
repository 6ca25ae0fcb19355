"""FindAndDefeatZerglings (pysc2 mini-game): 3 marines must find and kill 25 zerglings under fog.

The marines start in the centre of an arena larger than their sight; 2 zerglings stand within
their vision, the other 23 are scattered out of sight.  Zerglings are idle: they fight what
comes within their sight.  +1 per zergling killed, -1 per marine lost.  When every zergling is
dead a new batch of 25 appears out of the marines' sight.  Fog of war is on (unless the game is
created with ``disable_fog``): the observation shows enemy units only on cells a marine sees and
the visibility map says 2 (visible), 1 (explored) or 0.  Ends when all marines are dead (Defeat)
or at the 180 game-second limit (2880 loops, Tie).
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.scenarios.base import DEFEAT, GAME_SECOND, Scenario
from sc2pool.engine.sim.world import Deaths

ARENA = MapSpec("FindAndDefeatZerglings", 64, 64, (4, 4, 60, 60))
ZERGLINGS = 25
IN_VISION = 2
OUT_OF_SIGHT = 12.0
"""Hidden zerglings start at least this far from every marine (marine sight is 9)."""


class FindAndDefeatZerglings(Scenario):
    name = "FindAndDefeatZerglings"
    map = ARENA
    time_limit = 180 * GAME_SECOND
    fog = True

    def setup(self) -> None:
        cx, cy = self.map.center
        self.world.spawn(D.MARINE, 1, [cx - 1.0, cx, cx + 1.0], [cy, cy, cy])
        pts: list[tuple[float, float]] = []
        for _ in range(IN_VISION):
            ang = self.rng.uniform(0, 2 * np.pi)
            r = self.rng.uniform(5.0, 7.0)
            pts.append((cx + r * np.cos(ang), cy + r * np.sin(ang)))
        self._spawn_zerglings(ZERGLINGS - IN_VISION, pts)

    def _spawn_zerglings(self, k: int, pts: list[tuple[float, float]]) -> None:
        u = self.world.u
        marines = self.units_of(1)
        away = [(float(u.x[i]), float(u.y[i])) for i in marines]
        pts = pts + [self.random_point_away(1.0, away, OUT_OF_SIGHT) for _ in range(k)]
        self.world.spawn(D.ZERGLING, 2, [p[0] for p in pts], [p[1] for p in pts], facing=float(np.pi))

    def after_loop(self, deaths: Deaths) -> None:
        if len(deaths):
            self.score[1] += int(np.count_nonzero(deaths.owners == 2))
            self.score[1] -= int(np.count_nonzero(deaths.owners == 1))
        if len(self.units_of(1)) == 0:
            self.finish({1: DEFEAT})
        elif len(self.units_of(2)) == 0:
            self._spawn_zerglings(ZERGLINGS, [])
