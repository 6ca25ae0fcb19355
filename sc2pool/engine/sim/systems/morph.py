"""Morph: a unit or structure becomes another type in place.

What is simulated: the *mode* morphs (``data.tech.MORPH`` kind ``"mode"``) between types the
engine simulates, both ways, carried out at once: a Supply Depot lowers (ground units then walk
over it; it still provides supply) and rises again.  The unit keeps its tag, position, hit points
and orders; a structure's record follows its new type.  (The real game plays a short animation
while a depot lowers; the engine changes it in the loop the command arrives (m).)

Upgrades in place (``kind == "upgrade"``) of Terran townhalls: a finished Command Center with
nothing in production becomes an Orbital Command (1516; needs a finished Barracks) or a Planetary
Fortress (1450; needs an Engineering Bay), paying the difference of the client's costs (150,
150/150) and taking the product's client build time (560, 800 loops); meanwhile its order is the
morph ability with its progress, it trains nothing, and it stays a Command Center (it keeps
mining, supply and its tag), as in the real game (LP:Orbital_Command, LP:Planetary_Fortress).
The Orbital's calldowns (MULE, scan, supplies) are not simulated.

Morphs through a cocoon, merges and lifting off are other kinds of ``MORPH``; they are answered as
not simulated by the command path until their rules are entered (the Terran and Zerg/Protoss
issues).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data import tech
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    ERROR,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
)
from sc2pool.engine.sim.systems.alerts import MORPH_COMPLETE, TRANSFORMATION_COMPLETE
from sc2pool.engine.sim.systems.warpgate import MORPH_WARPGATE
from sc2pool.engine.sim.systems.workers import order_bytes
from sc2pool.engine.sim.units import TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

MODE = "mode"
INSTANT_MODES = frozenset({556, 558})
"""Mode morphs carried out at once: lowering (556) and raising (558) a Supply Depot.  The other
modes (siege, assault, burrow, ...) change what a unit can do and come with their rules."""


UPGRADES = frozenset({1516, 1450, 1216, 1218, 1220})
"""Upgrades in place the engine simulates: Command Center -> Orbital Command, -> Planetary
Fortress; Hatchery -> Lair (1216), Lair -> Hive (1218), Spire -> Greater Spire (1220): the same
rules, the client's costs and times (150/100 in 1280 loops for a Lair; LP:Lair, LP:Hive), each
with the client's tech requirement (Spawning Pool, Infestation Pit, Hive); a townhall upgrading
keeps making larvae and keeps its creep (LP:Lair)."""


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

    # ------------------------------------------------------------------ upgrades in place
    def upgrade(self, player: int, ability: int, rows: np.ndarray) -> int:
        """The first of ``rows`` that can starts the upgrade in place of ``ability``."""
        spec = tech.MORPH[ability]
        w = self.w
        u = w.u
        structures = w.construction.structures
        first_error = 0
        for i in rows.tolist():
            s = structures.get(int(u.tag[i]))
            if s is None or s.unit_id not in spec.sources:
                first_error = first_error or ERROR
                continue
            if not s.ready:
                first_error = first_error or BUILDING_IS_UNDER_CONSTRUCTION
                continue
            if s.busy:
                first_error = first_error or ERROR
                continue
            if not all(w.construction.ready_of(player, t) for t in spec.requires.structures):
                first_error = first_error or TECH_REQUIREMENTS_NOT_MET
                continue
            res = w.supply.afford(player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                return res
            w.supply.pay(player, spec.minerals, spec.vespene)
            now = w.events.now
            end = now + int(spec.time)
            s.morph = (ability, spec.unit_id, now, end)
            w.events.push(end, s.tag, True)
            w.supply.revision += 1
            return SUCCESS
        return first_error or ERROR

    def on_event(self, s: Structure, t: int) -> None:
        """The structure's event at ``t``: its upgrade in place may be done (it becomes the
        product, keeping its tag, life fraction, position and rally)."""
        m = s.morph
        if m is None or t < m[3]:
            return
        s.morph = None
        s.unit_id = m[1]
        u = self.w.u
        r = u.row(s.tag)
        if r >= 0:
            frac = float(u.hp[r]) / max(float(TYPES.hp_max[u.ti[r]]), 1.0)
            u.retype(np.array([r]), m[1])
            u.hp[r] = frac * float(TYPES.hp_max[u.ti[r]])
            # (a Gateway that became a Warp Gate: a transformation (m), systems/alerts.py)
            self.w.alerts.add(s.owner, TRANSFORMATION_COMPLETE if m[0] == MORPH_WARPGATE else MORPH_COMPLETE)
        self.w.touch()
        self.w.supply.revision += 1

    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """A structure upgrading in place: active, its order the morph ability with its progress."""
        loop = self.w.events.now
        for s in self.w.construction.structures.values():
            if s.morph is not None and s.owner == player:
                ab, _, start, end = s.morph
                b = b"\xb8\x02\x01" + order_bytes(ab, progress=min(1.0, (loop - start) / max(end - start, 1)))
                parts[s.tag] = parts.get(s.tag, b"") + b
