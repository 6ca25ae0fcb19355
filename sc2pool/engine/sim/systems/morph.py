"""Morph: a unit or structure becomes another type in place.

What is simulated: the *mode* morphs (``data.tech.MORPH`` kind ``"mode"``) between types the
engine simulates, both ways, carried out at once: a Supply Depot lowers (ground units then walk
over it; it still provides supply) and rises again.  The unit keeps its tag, position, hit points
and orders; a structure's record follows its new type.  (The real game plays a short animation
while a depot lowers; the engine changes it in the loop the command arrives (m).)

Upgrades in place (Command Center -> Orbital Command, ...), morphs through a cocoon, merges and
lifting off are other kinds of ``MORPH``; they are answered as not simulated by the command path
until their rules are entered (the Terran and Zerg/Protoss issues).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data import tech
from sc2pool.engine.sim.commands import ERROR, SUCCESS
from sc2pool.engine.sim.units import TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

MODE = "mode"
INSTANT_MODES = frozenset({556, 558})
"""Mode morphs carried out at once: lowering (556) and raising (558) a Supply Depot.  The other
modes (siege, assault, burrow, ...) change what a unit can do and come with their rules."""


def simulated_modes() -> dict[int, tech.MorphSpec]:
    """Mode morphs the engine simulates (ability -> spec)."""
    out = {}
    for ab in INSTANT_MODES:
        spec = tech.MORPH[ab]
        if spec.kind == MODE and spec.unit_id in TYPES.row_of and all(s in TYPES.row_of for s in spec.sources):
            out[ab] = spec
    return out


class Morph:
    """Carries out mode morphs; holds nothing between commands."""

    def __init__(self, world: World) -> None:
        self.w = world

    def can(self, ability: int, rows: np.ndarray) -> bool:
        """Whether any of ``rows`` is of a type ``ability`` morphs."""
        return bool(np.isin(self.w.u.unit_id[rows], np.array(tech.MORPH[ability].sources)).any())

    def mode(self, player: int, ability: int, rows: np.ndarray) -> int:
        """Morph the commanded units that can use ``ability`` into its product."""
        spec = tech.MORPH[ability]
        u = self.w.u
        sources = np.array(spec.sources)
        ok = rows[np.isin(u.unit_id[rows], sources)]
        if len(ok) == 0:
            return ERROR
        structures = self.w.construction.structures
        for r in ok.tolist():
            s = structures.get(int(u.tag[r]))
            if s is not None:
                if not s.ready:
                    return ERROR
                s.unit_id = spec.unit_id
        u.retype(ok, spec.unit_id)
        self.w.touch()
        if self.w.has_economy:
            self.w.supply.revision += 1
        return SUCCESS
