"""Skirmish: a small symmetric 1v1 army fight, ``Bot`` vs ``Computer(race, difficulty)`` or bot vs bot.

Each side gets a race army at its start location (``ARMIES``); a Computer's army is scaled by its
difficulty (:data:`sc2pool.engine.computer.ARMY_SCALE`) and played by
:class:`sc2pool.engine.computer.ComputerAI`.  A player with no units left loses (both at once:
Tie); at the time limit (2 real minutes at faster speed, 2688 loops) it is a Tie.  Score (Melee):
the mineral + vespene value of the enemy units a player killed.
"""

from __future__ import annotations

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.computer import ARMY_SCALE, ComputerAI
from sc2pool.engine.maps import SKIRMISH, MapSpec
from sc2pool.engine.scenarios.base import (
    COMPUTER,
    DEFEAT,
    MELEE,
    PARTICIPANT,
    TIE,
    VICTORY,
    PlayerSlot,
    Scenario,
    SetupError,
)
from sc2pool.engine.sim.world import Deaths

ARMIES: dict[int, tuple[tuple[int, int], ...]] = {
    D.TERRAN: ((D.MARINE, 7), (D.MARAUDER, 2)),
    D.ZERG: ((D.ZERGLING, 9), (D.ROACH, 3)),
    D.PROTOSS: ((D.ZEALOT, 2), (D.STALKER, 3)),
}
"""Balanced by simulation, equal difficulty and attack-move on both sides: each race wins one
match-up with a modest margin (Terran beats Zerg, Zerg beats Protoss, Protoss beats Terran)."""


def grid(n: int, cx: float, cy: float, spacing: float, facing_right: bool) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positions in columns of up to 10, the first column nearest the enemy."""
    rows = min(n, 10)
    cols = (n + rows - 1) // rows
    i = np.arange(n)
    c, r = i // rows, i % rows
    sign = -1.0 if facing_right else 1.0
    xs = cx + sign * (c - (cols - 1) / 2.0) * spacing
    ys = cy + (r - (rows - 1) / 2.0) * spacing
    return xs, ys


class Skirmish(Scenario):
    name = "Skirmish"
    map: MapSpec = SKIRMISH
    time_limit = int(120 * D.FASTER_LOOPS_PER_SECOND)
    score_type = MELEE
    single_player = False

    def __init__(self, players: list[PlayerSlot]) -> None:
        super().__init__(players)
        kinds = sorted(p.type for p in players)
        if len(players) != 2 or kinds not in ([PARTICIPANT, PARTICIPANT], [PARTICIPANT, COMPUTER]):
            raise SetupError(f"{self.name} needs two players: Participant + Computer, or two Participants")
        self.races: dict[int, int] = {}
        self.computers: list[ComputerAI] = [ComputerAI(p.player_id, p.difficulty or 3)
                                            for p in players if p.type == COMPUTER]

    def race_actual(self, player_id: int) -> int:
        return self.races[player_id]

    def army(self, slot: PlayerSlot) -> list[tuple[int, int]]:
        race = self.races[slot.player_id]
        scale = ARMY_SCALE[slot.difficulty or 3] if slot.type == COMPUTER else 1.0
        return [(uid, max(1, int(round(k * scale)))) for uid, k in ARMIES[race]]

    def setup(self) -> None:
        for p in self.players:
            race = p.race
            if race not in ARMIES:  # Random / NoRace: the seed picks
                race = int(self.rng.choice([D.TERRAN, D.ZERG, D.PROTOSS]))
            self.races[p.player_id] = race
        for p in self.players:
            sx, sy = self.map.start_locations[p.player_id - 1]
            right = sx < self.map.center[0]
            facing = 0.0 if right else float(np.pi)
            army = self.army(p)
            xs, ys = grid(sum(k for _, k in army), sx, sy, 1.4, right)
            i = 0
            for uid, k in army:
                self.world.spawn(uid, p.player_id, xs[i:i + k], ys[i:i + k], facing=facing, free=True)
                i += k

    def after_loop(self, deaths: Deaths) -> None:
        if len(deaths):
            for t, o in zip(deaths.unit_types.tolist(), deaths.owners.tolist(), strict=True):
                spec = D.UNIT_BY_ID[t]
                for p in self.score:
                    if p != o:
                        self.score[p] += spec.minerals + spec.vespene
        alive = {p.player_id: len(self.units_of(p.player_id)) > 0 for p in self.players}
        if all(alive.values()):
            return
        if not any(alive.values()):
            self.finish(dict.fromkeys(alive, TIE))
        else:
            self.finish({p: VICTORY if a else DEFEAT for p, a in alive.items()})
