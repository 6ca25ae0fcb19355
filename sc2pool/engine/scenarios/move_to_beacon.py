"""MoveToBeacon (pysc2 mini-game): one marine, one beacon; +1 each time the marine reaches it.

The beacon (``Beacon_Terran``, neutral) starts at least 4 from the marine; when the marine touches
it (centre distance <= beacon radius + marine radius) the score goes up by one and the same beacon
unit jumps to a new random spot at least 5 from the marine.  No fog.  Ends at the 120 game-second
limit (1920 loops) with a Tie.
"""

from __future__ import annotations

import math

from sc2pool.engine import data as D
from sc2pool.engine.maps import MINIGAME
from sc2pool.engine.scenarios.base import Scenario
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import Deaths

REACH = D.UNIT_BY_ID[D.BEACON_TERRAN].radius + D.UNIT_BY_ID[D.MARINE].radius
SPEED = float(TYPES.speed[TYPES.row(D.MARINE)])


class MoveToBeacon(Scenario):
    name = "MoveToBeacon"
    map = MINIGAME

    def setup(self) -> None:
        mx, my = self.random_points(1, 1.0)
        self.marine_tag = int(self.world.spawn(D.MARINE, 1, mx, my)[0])
        bx, by = self.random_point_away(1.0, [(float(mx[0]), float(my[0]))], 4.0)
        self.beacon_tag = int(self.world.spawn(D.BEACON_TERRAN, NEUTRAL_OWNER, [bx], [by])[0])
        self._rows_version = -1
        self._cached_rows = (-1, -1)

    def _rows(self) -> tuple[int, int]:
        u = self.world.u
        if self._rows_version != u.version:
            self._cached_rows = (u.row(self.marine_tag), u.row(self.beacon_tag))
            self._rows_version = u.version
        return self._cached_rows

    def _gap(self) -> float:
        u = self.world.u
        m, b = self._rows()
        if m < 0 or b < 0:
            return math.inf
        x, y = u.x, u.y
        return math.hypot(float(x[m]) - float(x[b]), float(y[m]) - float(y[b])) - REACH

    def horizon(self) -> int:
        gap = self._gap()
        if gap == math.inf:
            return 1 << 30
        return max(1, int(gap / SPEED))

    def after_loop(self, deaths: Deaths) -> None:
        if self._gap() <= 0.0:
            self.score[1] += 1
            u = self.world.u
            m, b = self._rows()
            bx, by = self.random_point_away(1.0, [(float(u.x[m]), float(u.y[m]))], 5.0)
            u.x[b], u.y[b] = bx, by
