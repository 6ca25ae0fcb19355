"""Battle100v100: the stress map, 100 marines vs 100 marines.

Player 1 is the participant.  Player 2 is a second participant, a Computer slot, or (single
participant) the map's own army, attack-moving from the first loop.  Elimination decides (both at
once: Tie); time limit 120 game seconds (1920 loops), Tie.  Score: enemy units killed.
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.computer import ComputerAI
from sc2pool.engine.maps import BATTLE
from sc2pool.engine.scenarios.base import (
    COMPUTER,
    DEFEAT,
    PARTICIPANT,
    TIE,
    VICTORY,
    PlayerSlot,
    Scenario,
    SetupError,
)
from sc2pool.engine.scenarios.skirmish import grid
from sc2pool.engine.sim.units import UnitStore
from sc2pool.engine.sim.world import Deaths

SIZE = 100


class Battle100v100(Scenario):
    name = "Battle100v100"
    map = BATTLE
    single_player = False

    def __init__(self, players: list[PlayerSlot]) -> None:
        super().__init__(players)
        if not players or players[0].type != PARTICIPANT or len(players) > 2 or any(
            p.type not in (PARTICIPANT, COMPUTER) for p in players
        ):
            raise SetupError(f"{self.name}: give one Participant, optionally a second Participant or a Computer")
        p2 = players[1] if len(players) == 2 else None
        self.computers = [] if p2 is not None and p2.type == PARTICIPANT else [
            ComputerAI(2, (p2.difficulty or 3) if p2 else 3)
        ]
        self._alive_in: tuple[UnitStore | None, int] = (None, -1)
        """The unit store and its unit-set version in which both sides were last seen alive."""

    def setup(self) -> None:
        for pid in (1, 2):
            sx, sy = self.map.start_locations[pid - 1]
            right = pid == 1
            xs, ys = grid(SIZE, sx, sy, 1.0, right)
            self.world.spawn(D.MARINE, pid, xs, ys, facing=0.0 if right else float(np.pi), free=True)

    def after_loop(self, deaths: Deaths) -> None:
        if len(deaths) and 1 in self.score:
            self.score[1] += int(np.count_nonzero(deaths.owners == 2))
        if 2 in self.score and len(deaths):
            self.score[2] += int(np.count_nonzero(deaths.owners == 1))
        u = self.world.u
        if u is self._alive_in[0] and u.version == self._alive_in[1]:  # same units: same sides alive
            return
        a1, a2 = len(self.units_of(1)) > 0, len(self.units_of(2)) > 0
        if a1 and a2:
            self._alive_in = (u, u.version)
            return
        res = {1: TIE, 2: TIE} if not (a1 or a2) else {1: VICTORY if a1 else DEFEAT, 2: VICTORY if a2 else DEFEAT}
        self.finish({p: res[p] for p in self.score})
