"""CollectMineralShards (pysc2 mini-game): two marines, 20 shards; +1 per shard collected.

Rules and their sources ((v) a source confirms it, (m) not known from a source, chosen here):
- arena: the one-screen 24 x 24 arena (:data:`sc2pool.engine.maps.MINIGAME`);
- 2 marines at uniform spots (m: the real start positions are not documented);
- 20 shards (unit type 1680 ``NaturalMinerals``, neutral; see :mod:`sc2pool.engine.data`), each at
  least 2 from both marines (v, pysc2 docs), at least ``SHARD_SPACING`` from each other (m);
- a shard is collected when a marine touches it (centre distance <= marine radius + shard radius,
  m); it then dies (reported in ``dead_units``); when all 20 are gone a new 20 appear (v);
- no fog; ends at the 120 game-second limit (1920 loops) with a Tie (v).
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import MINIGAME
from sc2pool.engine.scenarios.base import Scenario
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import Deaths

SHARDS = 20
MARINE_DISTANCE = 2.0
"""New shards keep at least this far from both marines."""
SHARD_SPACING = 1.0
REACH = D.UNIT_BY_ID[D.NATURALMINERALS].radius + D.UNIT_BY_ID[D.MARINE].radius


class CollectMineralShards(Scenario):
    name = "CollectMineralShards"
    map = MINIGAME

    def setup(self) -> None:
        pts = self.sample_points(2, 1.0, apart=1.0)
        self.world.spawn(D.MARINE, 1, [p[0] for p in pts], [p[1] for p in pts], free=True)
        self._spawn_shards()

    def _spawn_shards(self) -> None:
        u = self.world.u
        marines = self.units_of(1, (D.MARINE,))
        away = [(float(u.x[i]), float(u.y[i])) for i in marines]
        pts = self.sample_points(SHARDS, 1.0, away=away, min_away=MARINE_DISTANCE, apart=SHARD_SPACING)
        self.world.spawn(D.NATURALMINERALS, NEUTRAL_OWNER, [p[0] for p in pts], [p[1] for p in pts])

    def _gaps(self) -> tuple[np.ndarray, np.ndarray]:
        """(min marine distance - REACH per shard, shard rows)."""
        u = self.world.u
        marines = self.units_of(1, (D.MARINE,))
        shards = self.units_of(NEUTRAL_OWNER, (D.NATURALMINERALS,))
        if len(marines) == 0 or len(shards) == 0:
            return np.zeros(0), shards
        d = np.hypot(u.x[shards][:, None] - u.x[marines][None, :], u.y[shards][:, None] - u.y[marines][None, :])
        return d.min(axis=1) - REACH, shards

    def horizon(self) -> int:
        gaps, _ = self._gaps()
        if len(gaps) == 0:
            return 1 << 30
        speed = float(TYPES.speed[TYPES.row(D.MARINE)])
        return max(1, int(float(gaps.min()) / speed))

    def after_loop(self, deaths: Deaths) -> None:
        gaps, shards = self._gaps()
        got = shards[gaps <= 0.0]
        if len(got):
            self.score[1] += len(got)
            self.world.remove_tags(self.world.u.tag[got])
            if len(self.units_of(NEUTRAL_OWNER, (D.NATURALMINERALS,))) == 0:
                self._spawn_shards()
