"""Repair and burning down: the life of Terran machines and structures outside combat.

- **Repair** (LP:Repair, LP:SCV): an SCV told to repair (``EFFECT_REPAIR_SCV`` 316, the generic
  ``EFFECT_REPAIR`` 3685 burnysc2 may send, or smart on a damaged machine or structure of its
  own player) walks to a mechanical unit or a finished Terran structure and, once its edge is
  within ``REPAIR_RANGE``, restores its life at the rate that brings it from 0 to full in the
  target's build time (an Orbital Command or Planetary Fortress: the Command Center's plus the
  morph's time and cost; a type without cost: 100 minerals and 60 s), paying 25% of the target's
  cost for a full repair, proportionally, as it goes.  Several SCVs add up.  It stops (its order
  done) when the target is full, dies or the player cannot pay the next mineral or gas.  Its
  reported order is the repair ability on the target (burnysc2's ``is_repairing``).  Autocast
  is not simulated.  Smart of SCVs on a damaged target repairs it on the ladder maps (the melee
  game); the flat arenas keep following it, as they always have (their games stay as recorded).
- **Burning down** (LP:Repair: "Terran buildings catching fire and receiving damage below 33%
  life"; TL.net "[G] Health Bar Color": below 1/3 of their life they lose life): a finished
  Terran structure below a third of its life loses ``BURN_PER_LOOP`` life per game loop until it
  dies or is repaired above the third.  On the ladder maps (the melee game) only: the flat
  arenas' structures keep their life, as they always have.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.commands import CANT_TARGET_THAT_UNIT, ERROR, MUST_TARGET_UNIT, SUCCESS
from sc2pool.engine.sim.units import FOLLOW, NO_DEATHS, TYPES, Deaths, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

REPAIR_SCV, REPAIR = 316, 3685
ABILITIES = frozenset({REPAIR_SCV, REPAIR})
REPAIRERS = frozenset({45, 268})
"""Who repairs: SCV, MULE (LP:Repair: the MULE repairs at the SCV's rate and cost)."""
MECHANICAL, STRUCTURE_ATTR = 4, 8
"""Client attribute ids (``data_pb2.Attribute``)."""
REPAIR_RANGE = 1.0
"""Edge-to-edge distance at which an SCV repairs (m)."""
COST_SHARE = 0.25
"""Part of the target's cost a full repair costs (LP:Repair)."""
NO_COST = (100, 0, 60 * 22.4)
"""Minerals, vespene, game loops used for a type built without cost (LP:Repair: 100 minerals,
60 game seconds)."""
_CC, _MORPHED = 18, frozenset({130, 132, 134, 136})
"""Command Center; Planetary Fortress, Orbital Command (and their flying forms): their repair
counts the Command Center's cost and time too (LP:Repair)."""
BURN_FRACTION = 1.0 / 3.0
"""Below this part of its life a finished Terran structure burns (LP:Repair, TL.net)."""
BURN_PER_LOOP = 1.0 / 16.0
"""Life a burning structure loses per game loop (m: starcraft.fandom's "Hit point" gives 1 hit
point per second; taken as a normal-speed second, 16 loops)."""


def _terran_structure(ti: int) -> bool:
    spec = TYPES.specs[ti]
    return bool(spec.is_structure) and spec.race == D.TERRAN


def _repairable(ti: int) -> bool:
    spec = TYPES.specs[ti]
    return MECHANICAL in spec.attributes or _terran_structure(ti)


_REPAIRABLE_LUT = np.array([_repairable(i) for i in range(len(TYPES.unit_id))], dtype=bool)
_BURNS_LUT = np.array([_terran_structure(i) for i in range(len(TYPES.unit_id))], dtype=bool)


_NO_ROWS = np.zeros(0, np.int64)
"""What :meth:`Repair._burn_rows` returns when nothing burns (shared: read-only)."""
_NO_ROWS.flags.writeable = False


def _burning(hp: np.ndarray, rows: np.ndarray, below: np.ndarray) -> list[int]:
    """The indices in ``rows`` of the units alive and below their ``below`` (a third of their
    life), in order (``native.burn_low`` is the C twin)."""
    life = hp[rows]
    low = (life < below).nonzero()[0]
    if not len(low):
        return []
    return [i for i, h in zip(low.tolist(), life[low].tolist(), strict=True) if h > 0]


def repair_terms(unit_id: int) -> tuple[float, float, float]:
    """(minerals, vespene, game loops) of a full repair of ``unit_id`` (LP:Repair)."""
    spec = D.unit_spec(unit_id)
    m, g, t = float(spec.minerals), float(spec.vespene), float(spec.build_time)
    if unit_id in _MORPHED:
        cc = D.unit_spec(_CC)
        m, g, t = m + cc.minerals, g + cc.vespene, t + cc.build_time
    if m <= 0 and g <= 0:
        m, g, t = float(NO_COST[0]), float(NO_COST[1]), float(NO_COST[2])
    return m * COST_SHARE, g * COST_SHARE, max(t, 1.0)


class Repair:
    """SCVs repairing, and burning structures."""

    _terran: tuple[int, np.ndarray, np.ndarray, list[tuple[int, int]]] = \
        (-1, np.zeros(0, np.int64), np.zeros(0), [])
    """The unit-set version, and for it the rows of the Terran structures, the life below which
    each burns and their (row, tag) pairs (a class default, so that a state pickled before it
    existed still loads)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.repairing: dict[int, int] = {}
        """Tag of a repairing SCV -> its target's tag."""
        self.owed: dict[int, list[float]] = {}
        """Player -> [minerals, vespene] of repairs done but not yet paid (paid by whole units)."""

    @property
    def active(self) -> bool:
        """Whether :meth:`update` has anything to do: SCVs repairing, or a game whose Terran
        structures may burn."""
        return bool(self.repairing) or (self._burns() and bool(self._burn_rows().size))

    def _burns(self) -> bool:
        """Whether structures burn in this game: the melee game on a ladder map."""
        return self.w.has_economy and self.w.pathing.active

    def _burn_rows(self) -> np.ndarray:
        """Rows of finished Terran structures below a third of their life."""
        u = self.w.u
        if self._terran[0] != u.version:  # (a type and a tag change only with the set of units)
            rows = np.flatnonzero(_BURNS_LUT[u.ti])
            self._terran = (u.version, rows, TYPES.hp_max[u.ti[rows]] * BURN_FRACTION,
                            list(zip(rows.tolist(), u.tag[rows].tolist(), strict=True)))
        _, rows, below, pairs = self._terran
        if not len(rows):
            return rows
        low = (_burning if _native is None else _native.burn_low)(u.hp, rows, below)
        if not low:
            return _NO_ROWS
        structures = self.w.construction.structures
        keep = [pairs[i][0] for i in low if (s := structures.get(pairs[i][1])) is None or s.ready]
        return np.array(keep, dtype=np.int64)

    def horizon(self) -> int:
        """Loops before a burning structure could burn down (repairs step loop by loop: their
        SCVs follow their targets)."""
        rows = self._burn_rows() if self._burns() else np.zeros(0, np.int64)
        if not len(rows):
            return 1 << 30
        return max(1, int(math.ceil(float(self.w.u.hp[rows].min()) / BURN_PER_LOOP)))

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        """SCVs among the commanded units go to repair the target."""
        if c.trow < 0:
            return MUST_TARGET_UNIT
        res = self._check(c)
        if res != SUCCESS:
            return res
        return self._start(c)

    def smart(self, c: Command) -> int | None:
        """Smart of SCVs on a damaged machine or structure of their player: repair (None when it
        is no such target: the command goes on as a unit order)."""
        u = self.w.u
        if c.trow < 0 or not self._burns():  # (the ladder maps' melee game)
            return None
        if not np.isin(u.unit_id[c.rows], np.array(sorted(REPAIRERS))).all():
            return None
        if self._check(c) != SUCCESS:
            return None
        return self._start(c)

    def _check(self, c: Command) -> int:
        w = self.w
        u = w.u
        t = c.trow
        if int(u.owner[t]) != c.player or not _REPAIRABLE_LUT[u.ti[t]]:
            return CANT_TARGET_THAT_UNIT
        s = w.construction.structures.get(c.ttag)
        if s is not None and not s.ready:
            return ERROR  # (LP:Repair: structures under construction cannot be repaired)
        if float(u.hp[t]) >= float(TYPES.hp_max[u.ti[t]]):
            return ERROR  # (m: the real client's code for a full target is not known here)
        return SUCCESS

    def _start(self, c: Command) -> int:
        u = self.w.u
        ok = False
        for i in c.rows.tolist():
            if int(u.unit_id[i]) not in REPAIRERS or i == c.trow:
                continue
            tag = int(u.tag[i])
            if not c.queue:
                u.queues.pop(tag, None)
            u.set_order(i, Order(FOLLOW, REPAIR_SCV, ttag=c.ttag))
            self.repairing[tag] = c.ttag
            ok = True
        if ok:
            self.w.touch()
        return SUCCESS if ok else ERROR

    # ------------------------------------------------------------------ the loop
    def update(self, h: int) -> Deaths:
        """After an advance of ``h`` loops: repairs in range restore life and are paid for;
        burning structures lose life (and those at 0 die).  Returns the burned-down ones."""
        w = self.w
        u = w.u
        if self.repairing:
            self._repair(h)
        if not self._burns():
            return NO_DEATHS
        rows = self._burn_rows()
        if not len(rows):
            return NO_DEATHS
        u.hp[rows] -= BURN_PER_LOOP * h
        dead = rows[u.hp[rows] <= 0]
        if not len(dead):
            return NO_DEATHS
        return w.remove_tags(u.tag[dead])

    def _repair(self, h: int) -> None:
        w = self.w
        u = w.u
        for tag, ttag in list(self.repairing.items()):
            i, t = u.row(tag), u.row(ttag)
            if i < 0 or int(u.kind[i]) != FOLLOW or int(u.ttag[i]) != ttag or int(u.ability[i]) != REPAIR_SCV:
                del self.repairing[tag]
                continue
            if t < 0:
                del self.repairing[tag]
                continue
            hp_max = float(TYPES.hp_max[u.ti[t]])
            if float(u.hp[t]) >= hp_max:
                self._done(tag, i)
                continue
            d = math.hypot(float(u.x[i] - u.x[t]), float(u.y[i] - u.y[t])) - float(u.radius[i] + u.radius[t])
            if d > REPAIR_RANGE:
                continue
            cost_m, cost_g, loops = repair_terms(int(u.unit_id[t]))
            gain = min(hp_max / loops * h, hp_max - float(u.hp[t]))
            player = int(u.owner[i])
            if w.has_economy:
                owed = self.owed.setdefault(player, [0.0, 0.0])
                owed[0] += cost_m * gain / hp_max
                owed[1] += cost_g * gain / hp_max
                pay_m, pay_g = int(owed[0]), int(owed[1])
                if pay_m or pay_g:
                    if w.supply.minerals.get(player, 0) < pay_m or w.supply.vespene.get(player, 0) < pay_g:
                        owed[0] -= cost_m * gain / hp_max
                        owed[1] -= cost_g * gain / hp_max
                        self._done(tag, i)  # out of money: the repair stops
                        continue
                    w.supply.pay(player, pay_m, pay_g)
                    owed[0] -= pay_m
                    owed[1] -= pay_g
                    w.supply.revision += 1
            u.hp[t] = min(hp_max, float(u.hp[t]) + gain)
            if float(u.hp[t]) >= hp_max:
                self._done(tag, i)

    def _done(self, tag: int, i: int) -> None:
        self.repairing.pop(tag, None)
        self.w.u.finish_orders(np.array([i]))
