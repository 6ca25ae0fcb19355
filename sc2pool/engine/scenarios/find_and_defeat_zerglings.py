"""FindAndDefeatZerglings (pysc2 mini-game): 3 marines must find and kill zerglings under fog.

Rules and their sources ((v) a source confirms it, (m) not known from a source, chosen here):
- arena: 56 x 56 (m: the map needs camera moves, so it is larger than one screen; its size is not
  documented);
- 3 marines at the centre (v), side by side 1 apart (m);
- 25 zerglings: 2 between 7.5 and 9.5 from the centre, 23 at least 10.5 from it, all at least 5
  apart (v, pysc2's ``docs/mini_games.md``); zerglings are idle and fight what comes within their sight;
- +1 per zergling killed, -1 per marine lost (v); when every zergling is dead 25 new ones appear
  at least 9 from every marine and at least 5 apart (v);
- fog of war (v; off when the game is created with ``disable_fog``): the observation shows enemy
  units only on cells a marine sees, the visibility map says 2 (visible), 1 (explored) or 0;
- ends when all marines are dead (Defeat) or at the 180 game-second limit (2880 loops, Tie) (v).
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import MapSpec
from sc2pool.engine.scenarios.base import DEFEAT, GAME_SECOND, Scenario
from sc2pool.engine.sim.world import Deaths

ARENA = MapSpec("FindAndDefeatZerglings", 64, 64, (4, 4, 60, 60))
ZERGLINGS = 25
NEAR = 2
"""Zerglings of the first batch placed near the marines."""
NEAR_RING = (7.5, 9.5)
"""Their distance from the centre."""
FAR_FROM_CENTRE = 10.5
"""The rest of the first batch stands at least this far from the centre."""
APART = 5.0
"""Zerglings of one batch stand at least this far from each other."""
RESPAWN_AWAY = 9.0
"""A new batch stands at least this far from every marine."""
MARGIN = 1.0


class FindAndDefeatZerglings(Scenario):
    name = "FindAndDefeatZerglings"
    map = ARENA
    time_limit = 180 * GAME_SECOND
    fog = True

    def setup(self) -> None:
        cx, cy = self.map.center
        self.world.spawn(D.MARINE, 1, [cx - 1.0, cx, cx + 1.0], [cy, cy, cy], free=True)
        c = (cx, cy)
        near = self.sample_points(NEAR, MARGIN, around=c, r_min=NEAR_RING[0], r_max=NEAR_RING[1], apart=APART)
        far = self.sample_points(ZERGLINGS - NEAR, MARGIN, around=c, r_min=FAR_FROM_CENTRE, apart=APART, taken=near)
        self._spawn(near + far)

    def _spawn(self, pts: list[tuple[float, float]]) -> None:
        self.world.spawn(D.ZERGLING, 2, [p[0] for p in pts], [p[1] for p in pts], facing=float(np.pi), free=True)

    def after_loop(self, deaths: Deaths) -> None:
        if len(deaths):
            self.score[1] += int(np.count_nonzero(deaths.owners == 2))
            self.score[1] -= int(np.count_nonzero(deaths.owners == 1))
        if len(self.units_of(1)) == 0:
            self.finish({1: DEFEAT})
        elif len(self.units_of(2)) == 0:
            u = self.world.u
            away = [(float(u.x[i]), float(u.y[i])) for i in self.units_of(1)]
            self._spawn(self.sample_points(ZERGLINGS, MARGIN, away=away, min_away=RESPAWN_AWAY, apart=APART))
