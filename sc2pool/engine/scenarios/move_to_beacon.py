"""MoveToBeacon (pysc2 mini-game): one marine, one beacon; +1 each time the marine reaches it.

The beacon (``Beacon_Terran``, neutral) starts at least 4 from the marine; when the marine touches
it (centre distance <= beacon radius + marine radius) the score goes up by one and the same beacon
unit jumps to a new random spot at least 5 from the marine.  No fog.  Ends at the 120 game-second
limit (1920 loops) with a Tie.
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import MINIGAME
from sc2pool.engine.scenarios.base import Scenario
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import Deaths

REACH = D.UNIT_BY_ID[D.BEACON_TERRAN].radius + D.UNIT_BY_ID[D.MARINE].radius


class MoveToBeacon(Scenario):
    name = "MoveToBeacon"
    map = MINIGAME

    def setup(self) -> None:
        mx, my = self.random_points(1, 1.0)
        self.marine_tag = int(self.world.spawn(D.MARINE, 1, mx, my)[0])
        bx, by = self.random_point_away(1.0, [(float(mx[0]), float(my[0]))], 4.0)
        self.beacon_tag = int(self.world.spawn(D.BEACON_TERRAN, NEUTRAL_OWNER, [bx], [by])[0])

    def _gap(self) -> float:
        u = self.world.u
        m, b = u.row(self.marine_tag), u.row(self.beacon_tag)
        if m < 0 or b < 0:
            return np.inf
        return float(np.hypot(u.x[m] - u.x[b], u.y[m] - u.y[b])) - REACH

    def horizon(self) -> int:
        gap = self._gap()
        if gap == np.inf:
            return 1 << 30
        speed = float(TYPES.speed[TYPES.row(D.MARINE)])
        return max(1, int(gap / speed))

    def after_loop(self, deaths: Deaths) -> None:
        if self._gap() <= 0.0:
            self.score[1] += 1
            u = self.world.u
            m = u.row(self.marine_tag)
            bx, by = self.random_point_away(1.0, [(float(u.x[m]), float(u.y[m]))], 5.0)
            b = u.row(self.beacon_tag)
            u.x[b], u.y[b] = bx, by
