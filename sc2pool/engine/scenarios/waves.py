"""Shared rules of the wave mini-games (DefeatRoaches, DefeatZerglingsAndBanelings).

Rules and their sources ((v) a source confirms it, (m) not known from a source, chosen here):
- arena: the one-screen 24 x 24 arena (:data:`sc2pool.engine.maps.MINIGAME`);
- the marines (player 1) stand in a vertical line on a random side (v), ``EDGE`` from that edge (m),
  1 apart (m); more marines than fit in one line (after many waves) stand in further lines 1 apart
  towards the centre (m); the enemy wave (player 2, owned by the map) stands opposite (v), in a vertical line
  1.5 apart (``grouped = False``) or in a compact group (``grouped = True``, v for zerglings and
  banelings; its shape, a hexagonal cluster 1 apart, m); both sides idle: units fight when
  something hostile comes within sight;
- each enemy death scores ``kill_reward``, each marine death ``marine_penalty`` (v);
- when the wave is wiped out a new wave spawns, the player gets ``reinforcements`` fresh marines,
  and every unit is put back in the starting formation, survivors keeping their health (v); the
  side is drawn again for each wave (m: the docs do not say whether it is kept); the new marines
  take the free places of the formation after the survivors (m: where the map's trigger creates
  them is not known; a trigger-created unit is never placed on top of another, see
  :meth:`sc2pool.engine.sim.systems.collision.Collision.free_spots`);
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
        xs, ys = self._marine_formation(self.marines)
        self.world.spawn(D.MARINE, 1, xs, ys, facing=self.marine_facing, free=True)
        self._spawn_wave()

    def _marine_formation(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` places 1 apart: one vertical line ``EDGE`` from the marines' side while they fit in
        the arena's height, else as many lines as needed, each further towards the centre."""
        _, y0, _, y1 = self.map.playable
        per_line = int(y1 - y0 - 2.0)  # (``column`` keeps them 1 apart up to this many)
        if n <= per_line:
            return self.column(n, self.marine_x)
        toward = 1.0 if self.marine_facing == 0.0 else -1.0
        xs, ys = np.empty(n), np.empty(n)
        for start in range(0, n, per_line):
            k = min(per_line, n - start)
            xs[start:start + k], ys[start:start + k] = self.column(k, self.marine_x + toward * (start // per_line))
        return xs, ys

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
            self.world.spawn(unit_id, 2, xs[i:i + k], ys[i:i + k], facing=self.enemy_facing, free=True)
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
            # survivors back into the formation, the new marines into its places after theirs
            survivors = self.units_of(1)
            xs, ys = self._marine_formation(len(survivors) + self.reinforcements)
            self._reset(survivors, xs, ys, self.marine_facing)
            k = len(survivors)
            self.world.spawn(D.MARINE, 1, xs[k:], ys[k:], facing=self.marine_facing, free=True)
            self._spawn_wave()

    def _reset(self, rows: np.ndarray, xs: np.ndarray, ys: np.ndarray, facing: float) -> None:
        """Put ``rows`` at the given places, idle, their orders dropped."""
        u = self.world.u
        u.x[rows], u.y[rows] = xs[:len(rows)], ys[:len(rows)]
        u.facing[rows] = facing
        u.kind[rows] = IDLE
        u.ability[rows] = 0
        u.eng[rows] = 0
        u.slide[rows] = 0.0
        for t in u.tag[rows].tolist():
            u.queues.pop(t, None)
        self.world.touch()
