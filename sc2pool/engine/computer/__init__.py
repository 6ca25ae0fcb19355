"""The scripted opponent that plays a ``Computer(race, difficulty)`` slot (and the map's enemy in
the stress battle).

Behaviour: it holds its army at home for ``attack_delay`` loops (easier difficulties wait longer),
then every ``PERIOD`` loops attack-moves every unit towards the nearest enemy unit.  From
MediumHard up it also focus-fires: each unit with a hostile in weapon range is ordered to attack
the weakest one in range.  Difficulty also scales the army size (see ``ARMY_SCALE``), applied by
the scenario when it spawns the computer's units.
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.sim.units import ATTACK_MOVE, ATTACK_UNIT, IDLE, NEUTRAL_OWNER, TYPES
from sc2pool.engine.sim.world import World

PERIOD = 16
"""Loops between two decisions (about 0.7 real seconds)."""

# Difficulty (sc2api_pb2.Difficulty 1..10) -> army size multiplier.
ARMY_SCALE: dict[int, float] = {1: 0.5, 2: 0.75, 3: 1.0, 4: 1.0, 5: 1.25, 6: 1.5, 7: 1.75, 8: 1.75, 9: 2.0,
                                10: 2.5}


class ComputerAI:
    """Acts for ``player_id`` inside :meth:`Game.step`; deterministic (no randomness)."""

    def __init__(self, player_id: int, difficulty: int = 3) -> None:
        if difficulty not in ARMY_SCALE:
            raise ValueError(f"unknown difficulty {difficulty}")
        self.player_id = player_id
        self.difficulty = difficulty
        self.attack_delay = max(0, 5 - difficulty) * 48
        self.focus_fire = difficulty >= 4
        self.next_loop = 0

    def horizon(self, loop: int) -> int:
        """Loops until the next decision."""
        return max(1, self.next_loop - loop)

    def act(self, world: World) -> None:
        if world.loop < self.next_loop:
            return
        self.next_loop = world.loop + PERIOD
        if world.loop < self.attack_delay:
            return
        u = world.u
        mine = np.nonzero(u.owner == self.player_id)[0]
        foes = np.nonzero((u.owner != self.player_id) & (u.owner != NEUTRAL_OWNER))[0]
        if len(mine) == 0 or len(foes) == 0:
            return
        world.touch()
        dx = np.subtract(u.x[foes], u.x[mine][:, None])  # (mine x foes)
        dy = np.subtract(u.y[foes], u.y[mine][:, None])
        d = np.hypot(dx, dy)
        # per pair of types present first: when every type of mine hits every foe type (a
        # marine army) no pair needs masking
        t_mine, t_foes = u.ti[mine], u.ti[foes]
        n_types = len(TYPES.unit_id)
        types_hit = TYPES.can_hit[np.bincount(t_mine, minlength=n_types).nonzero()[0]][
            :, np.bincount(t_foes, minlength=n_types).nonzero()[0]]
        if np.count_nonzero(types_hit) == types_hit.size:
            d_hit = d
        else:
            d_hit = np.where(TYPES.can_hit[t_mine][:, t_foes], d, np.inf)
        if self.focus_fire:
            edge = d_hit - TYPES.radius[u.ti[mine]][:, None] - TYPES.radius[u.ti[foes]][None, :]
            in_rng = edge <= TYPES.range[u.ti[mine]][:, None]
            hp = (u.hp + u.shield)[foes]
            weakest = np.argmin(np.where(in_rng, hp[None, :], np.inf), axis=1)
            has = in_rng.any(axis=1)
            rows = mine[has]
            if len(rows):
                tags = u.tag[foes[weakest[has]]]
                change = (u.kind[rows] != ATTACK_UNIT) | (u.ttag[rows] != tags)
                rows, tags = rows[change], tags[change]
                u.kind[rows] = ATTACK_UNIT
                u.ability[rows] = D.ATTACK_ATTACK
                u.ttag[rows] = tags
                u.eng[rows] = 0
            mine = mine[~has]
            d_hit = d_hit[~has]
        if len(mine) == 0:
            return
        nearest = foes[np.argmin(d_hit, axis=1)]
        free = (u.kind[mine] == IDLE) | (u.kind[mine] == ATTACK_MOVE)
        rows = mine[free]
        u.kind[rows] = ATTACK_MOVE
        u.ability[rows] = D.ATTACK_ATTACK
        u.tx[rows] = u.x[nearest[free]]
        u.ty[rows] = u.y[nearest[free]]
