"""MoveToBeacon (pysc2 mini-game): one marine, one beacon; +1 each time the marine reaches it.

Rules and their sources (README scenario table; (v) a source confirms it, (m) not known from a
source, chosen here):
- arena: the one-screen 24 x 24 arena (:data:`sc2pool.engine.maps.MINIGAME`);
- the marine starts at a uniform spot; the beacon (``Beacon_Terran``, neutral) at least 4 from it
  (v, pysc2 docs); spots keep ``MARGIN`` from the edge (m);
- the marine reaches the beacon when its centre is within ``BEACON_RADIUS`` = 2.5 of the beacon's
  centre: the map's "Beacon Area" region has size 2.5 (v, a tutorial that edited the real map; docs/engine.md), read as a radius (m, the only
  reading that matches the published scores);
- on each reach the score goes up by one and the same beacon unit jumps to a uniform spot at least
  5 from the marine (v, pysc2 docs);
- no fog; ends at the 120 game-second limit (1920 loops) with a Tie (v).
"""

from __future__ import annotations

import math

from sc2pool.engine import data as D
from sc2pool.engine.maps import MINIGAME
from sc2pool.engine.scenarios.base import Scenario
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import Deaths

BEACON_RADIUS = 2.5
"""A marine reaches the beacon when its centre is this close to the beacon's centre."""
START_DISTANCE = 4.0
"""The first beacon is at least this far from the marine."""
RESPAWN_DISTANCE = 5.0
"""Each new beacon is at least this far from the marine."""
MARGIN = 1.0
SPEED = float(TYPES.speed[TYPES.row(D.MARINE)])


class MoveToBeacon(Scenario):
    name = "MoveToBeacon"
    map = MINIGAME

    def setup(self) -> None:
        (m,) = self.sample_points(1, MARGIN)
        self.marine_tag = int(self.world.spawn(D.MARINE, 1, [m[0]], [m[1]], free=True)[0])
        (b,) = self.sample_points(1, MARGIN, away=[m], min_away=START_DISTANCE)
        self.beacon_tag = int(self.world.spawn(D.BEACON_TERRAN, NEUTRAL_OWNER, [b[0]], [b[1]])[0])
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
        return math.hypot(float(x[m]) - float(x[b]), float(y[m]) - float(y[b])) - BEACON_RADIUS

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
            (p,) = self.sample_points(1, MARGIN, away=[(float(u.x[m]), float(u.y[m]))], min_away=RESPAWN_DISTANCE)
            u.x[b], u.y[b] = p
