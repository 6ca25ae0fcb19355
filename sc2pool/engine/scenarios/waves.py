"""Shared rules of the wave mini-games (DefeatRoaches, DefeatZerglingsAndBanelings).

Marines (player 1) line up on the left, the enemy wave (player 2, owned by the map) on the right,
both idle: units fight when something hostile comes within sight.  Each enemy death scores
``kill_reward``, each marine death ``-1``.  When the wave is wiped out a new wave spawns, the player
gets ``reinforcements`` fresh marines, and every unit is put back in its starting line (survivors
keep their health).  Ends when all marines are dead (Defeat) or at the 120 game-second limit (Tie).
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.scenarios.base import DEFEAT, Scenario
from sc2pool.engine.sim.units import IDLE
from sc2pool.engine.sim.world import Deaths


class WaveScenario(Scenario):
    marines: int = 9
    reinforcements: int = 5
    wave: tuple[tuple[int, int], ...] = ()
    kill_reward: int = 10
    marine_penalty: int = -1

    def setup(self) -> None:
        x0, _, x1, _ = self.map.playable
        self.left_x = x0 + 4.0
        self.right_x = x1 - 4.0
        xs, ys = self.column(self.marines, self.left_x)
        self.world.spawn(D.MARINE, 1, xs, ys, facing=0.0)
        self._spawn_wave()

    def _spawn_wave(self) -> None:
        n = sum(k for _, k in self.wave)
        xs, ys = self.column(n, self.right_x, spacing=1.5)
        i = 0
        for unit_id, k in self.wave:
            self.world.spawn(unit_id, 2, xs[i:i + k], ys[i:i + k], facing=float(np.pi))
            i += k

    def after_loop(self, deaths: Deaths) -> None:
        if len(deaths):
            own = deaths.owners
            self.score[1] += self.kill_reward * int(np.count_nonzero(own == 2))
            self.score[1] += self.marine_penalty * int(np.count_nonzero((own == 1) & (deaths.unit_types == D.MARINE)))
        if len(self.units_of(1)) == 0:
            self.finish({1: DEFEAT})
            return
        if len(self.units_of(2)) == 0:
            self.world.spawn(D.MARINE, 1, np.full(self.reinforcements, self.left_x),
                             np.zeros(self.reinforcements))
            self._spawn_wave()
            self._reset_positions()

    def _reset_positions(self) -> None:
        u = self.world.u
        for owner, x, facing, spacing in ((1, self.left_x, 0.0, 1.0), (2, self.right_x, float(np.pi), 1.5)):
            rows = self.units_of(owner)
            xs, ys = self.column(len(rows), x, spacing)
            u.x[rows], u.y[rows] = xs, ys
            u.facing[rows] = facing
            u.kind[rows] = IDLE
            u.ability[rows] = 0
            u.eng[rows] = 0
            for t in u.tag[rows].tolist():
                u.queues.pop(t, None)
