"""Shared rules of the wave mini-games (DefeatRoaches, DefeatZerglingsAndBanelings).

Rules and their sources ((v) a source confirms it, (m) not known from a source, chosen here):
- arena: the one-screen 24 x 24 arena (:data:`sc2pool.engine.maps.MINIGAME`);
- the marines (player 1) stand in a vertical line on a random side (v), ``EDGE`` from that edge (m),
  1 apart (m); the enemy wave (player 2, owned by the map) stands opposite (v), in a vertical line
  1.5 apart (``grouped = False``) or in a compact group (``grouped = True``, v for zerglings and
  banelings; its shape, a hexagonal cluster 1 apart, m); both sides idle: units fight when
  something hostile comes within sight;
- each enemy death scores ``kill_reward``, each marine death ``marine_penalty`` (v);
- when the wave is wiped out a new wave spawns, the player gets ``reinforcements`` fresh marines,
  and every unit is put back in the starting formation, survivors keeping their health (v); the
  side is drawn again for each wave (m: the docs do not say whether it is kept);
- ends when all marines are dead (Defeat) or at the 120 game-second limit (Tie) (v).
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.scenarios.base import DEFEAT, Scenario
from sc2pool.engine.sim.units import IDLE
from sc2pool.engine.sim.world import Deaths

EDGE = 3.0
"""Distance of each line from its side of the arena."""


def hex_group(n: int, cx: float, cy: float, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points of a hexagonal lattice ``spacing`` apart, the ``n`` nearest to (cx, cy)."""
    k = int(np.ceil(np.sqrt(n))) + 2
    i, j = np.meshgrid(np.arange(-k, k + 1), np.arange(-k, k + 1))
    px = (i + 0.5 * (j % 2)).ravel() * spacing
    py = j.ravel() * spacing * np.sqrt(3.0) / 2.0
    order = np.lexsort((px, py, np.round(px * px + py * py, 9)))[:n]
    return cx + px[order], cy + py[order]


class WaveScenario(Scenario):
    marines: int = 9
    reinforcements: int = 5
    wave: tuple[tuple[int, int], ...] = ()
    grouped: bool = False
    kill_reward: int = 10
    marine_penalty: int = -1

    def setup(self) -> None:
        self._draw_side()
        xs, ys = self.column(self.marines, self.marine_x)
        self.world.spawn(D.MARINE, 1, xs, ys, facing=self.marine_facing)
        self._spawn_wave()

    def _draw_side(self) -> None:
        x0, _, x1, _ = self.map.playable
        left = bool(self.rng.integers(2))
        self.marine_x = x0 + EDGE if left else x1 - EDGE
        self.enemy_x = x1 - EDGE if left else x0 + EDGE
        self.marine_facing = 0.0 if left else float(np.pi)
        self.enemy_facing = float(np.pi) - self.marine_facing

    def _enemy_formation(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.grouped:
            return hex_group(n, self.enemy_x, self.map.center[1], 1.0)
        return self.column(n, self.enemy_x, spacing=1.5)

    def _spawn_wave(self) -> None:
        n = sum(k for _, k in self.wave)
        xs, ys = self._enemy_formation(n)
        i = 0
        for unit_id, k in self.wave:
            self.world.spawn(unit_id, 2, xs[i:i + k], ys[i:i + k], facing=self.enemy_facing)
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
            self._draw_side()
            self.world.spawn(D.MARINE, 1, np.full(self.reinforcements, self.marine_x),
                             np.full(self.reinforcements, self.map.center[1]))
            self._spawn_wave()
            self._reset_positions()

    def _reset_positions(self) -> None:
        u = self.world.u
        for owner in (1, 2):
            rows = self.units_of(owner)
            if owner == 1:
                xs, ys = self.column(len(rows), self.marine_x)
                facing = self.marine_facing
            else:
                xs, ys = self._enemy_formation(len(rows))
                facing = self.enemy_facing
            u.x[rows], u.y[rows] = xs, ys
            u.facing[rows] = facing
            u.kind[rows] = IDLE
            u.ability[rows] = 0
            u.eng[rows] = 0
            u.slide[rows] = 0.0
            for t in u.tag[rows].tolist():
                u.queues.pop(t, None)
        self.world.touch()
