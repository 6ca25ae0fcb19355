"""Regeneration: Zerg life and Protoss shields come back over time.

- **Zerg life**: every Zerg unit and structure below its maximum life regains
  ``data.units.ZERG_LIFE_REGEN`` (0.2734 per normal-speed second, LP:Zerg) all the time, in a fight
  too.  A type of ``data.units.LIFE_REGEN`` regains its own rate instead (the game's balance
  data): the Mutalisk 1 per normal-speed second, a burrowed Roach 5 (7 per faster second,
  LP:Roach, "Rapid Regeneration").
- **Protoss shields**: a unit or structure whose shields are below their maximum regains
  ``data.units.PROTOSS_SHIELD_REGEN`` (2 per normal-speed second) once
  ``PROTOSS_SHIELD_REGEN_DELAY`` (10 normal-speed seconds) passed without damage (LP:Shields);
  combat marks the loop of the last damage in the store's ``hurt`` column.
- **Reaper life** (Combat Drugs): a Reaper below its maximum life regains
  ``data.units.REAPER_LIFE_REGEN`` (2 per normal-speed second) once
  ``REAPER_LIFE_REGEN_DELAY`` passed without damage, counted as the shields' delay is.

Rates are applied per game loop as exact binary fractions, so that ``k`` loops in one go give
the same figures as ``k`` single loops whatever the world's chunking: the shields' and the
Reaper's 2/16 per loop is exact; the Zerg rate 0.2734/16 per loop is taken as 70/4096 (the real
game keeps life in fixed point with 12 fraction bits; 70/4096 * 16 = 0.2734375 is the value
nearest LP's 0.2734 (m)).  The work is a few numpy operations over the rows that may regenerate (cached per set of
units), only while such rows exist: worlds without Zerg, Protoss units or Reapers do nothing.

Units inside a transport or a Nydus (``systems/transport.py``) are out of the store, so this
loop never looks at them; they regenerate all the same (in the real game energy builds up inside,
which is why players load High Templar and Ghosts, and Protoss shields recharge; Zerg life and
the Reaper's go on too (m)): :attr:`Regeneration.until` marks the loop up to which the store's units have
regenerated, a unit entering notes it, and when it comes out :func:`regenerated` credits it the
loops in between at the same rates, capped and after the same delay, so that it comes out with
what it would have had outside.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data.units import (
    LIFE_REGEN,
    PROTOSS_SHIELD_REGEN,
    PROTOSS_SHIELD_REGEN_DELAY,
    REAPER_LIFE_REGEN,
    REAPER_LIFE_REGEN_DELAY,
    ZERG_LIFE_REGEN,
)
from sc2pool.engine.sim.units import TYPES

try:  # the C function behind np.count_nonzero, without its Python dispatch
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

FIXED_POINT = 4096.0
"""Fraction steps of the real game's fixed-point life (12 bits)."""
ZERG_LIFE_PER_LOOP = round(ZERG_LIFE_REGEN / D.NORMAL_LOOPS_PER_SECOND * FIXED_POINT) / FIXED_POINT
"""70/4096 life per game loop (see the module docstring)."""
SHIELD_PER_LOOP = PROTOSS_SHIELD_REGEN / D.NORMAL_LOOPS_PER_SECOND
"""Shields per game loop once regenerating (0.125)."""
SHIELD_DELAY_LOOPS = int(round(PROTOSS_SHIELD_REGEN_DELAY * D.NORMAL_LOOPS_PER_SECOND))
"""Loops without damage before shields regenerate (160)."""

REAPER_PER_LOOP = REAPER_LIFE_REGEN / D.NORMAL_LOOPS_PER_SECOND
"""Life per game loop a Reaper regains once regenerating (0.125)."""
REAPER_DELAY_LOOPS = int(round(REAPER_LIFE_REGEN_DELAY * D.NORMAL_LOOPS_PER_SECOND))
"""Loops without damage before a Reaper regenerates (160)."""
NEVER = 1 << 62

REAPER = 49


def _life_rates() -> np.ndarray:
    """Per type row: life regained per loop (0 for non-Zerg types)."""
    rate = np.zeros(len(TYPES.specs))
    for i, s in enumerate(TYPES.specs):
        if s.race == D.ZERG and s.hp > 0 and not s.neutral:
            rate[i] = ZERG_LIFE_PER_LOOP
    for uid, per_second in LIFE_REGEN.items():
        if uid in TYPES.row_of:
            rate[TYPES.row(uid)] = round(per_second / D.NORMAL_LOOPS_PER_SECOND * FIXED_POINT) / FIXED_POINT
    return rate


_LIFE_RATE = _life_rates()
_SHIELDED = TYPES.sh_max > 0
_DELAYED_LIFE = np.zeros(len(TYPES.specs), bool)
"""Per type row: life regenerates after a delay without damage (the Reaper)."""
if REAPER in TYPES.row_of:
    _DELAYED_LIFE[TYPES.row(REAPER)] = True
_REGENERATES = (_LIFE_RATE > 0) | _SHIELDED | _DELAYED_LIFE


class Regeneration:
    """Zerg life, Protoss shield and Reaper life regeneration (see the module docstring).

    Cheap when nothing regenerates: per set of units it caches the rows that may regenerate
    with their maxima and rates; life is looked at only after some damage (:meth:`damaged`) or
    a change of the set of units, shields only from the loop the earliest of them may start
    regenerating."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.until = world.loop
        """The loop up to which the units in the store have regenerated (a unit leaving a
        transport is credited the loops since the mark it noted on entering: :func:`regenerated`)."""
        self._version = -1
        self._life_rows = np.zeros(0, np.int64)
        self._life_top = np.zeros(0)
        self._life_rate = np.zeros(0)
        self._shield_rows = np.zeros(0, np.int64)
        self._shield_top = np.zeros(0)
        self._life_dirty = False
        """Some Zerg row may be below its maximum life."""
        self._shield_wake = 0
        """The first loop at which some shield may regenerate."""
        self._reaper_rows = np.zeros(0, np.int64)
        self._reaper_top = np.zeros(0)
        self._reaper_wake = 0
        """The first loop at which some Reaper may regenerate."""
        self._any = False
        """Some unit may regenerate (a Zerg type, one with shields, a Reaper)."""

    def watching(self) -> bool:
        """Whether some unit may regenerate (a Zerg type, one with shields, a Reaper): otherwise
        damage need not be reported."""
        if self._version != self.w.u.version:
            self._refresh()
        return self._any

    def damaged(self, rows: np.ndarray | int) -> None:
        """Units of ``rows`` (indices or a mask) took damage now (combat, spells): their shields
        wait again, and so does a Reaper's life; Zerg life is looked at.  Nothing to do in a world
        without Zerg, shields or Reapers."""
        if not self.watching():
            return
        if len(self._life_rows):
            self._life_dirty = True
        if len(self._shield_rows) or len(self._reaper_rows):  # (only delays need the loop of the damage)
            loop = self.w.loop
            self.w.u.hurt[rows] = loop
            self._shield_wake = min(self._shield_wake, loop + SHIELD_DELAY_LOOPS + 1)
            self._reaper_wake = min(self._reaper_wake, loop + REAPER_DELAY_LOOPS + 1)

    def _refresh(self) -> None:
        u = self.w.u
        self._version = u.version
        ti = u.ti
        self._life_dirty = True
        self._shield_wake = 0
        self._reaper_wake = 0
        self._any = bool(_count(_REGENERATES[ti]))
        if not self._any:  # (a Terran world: nothing to look at until the set of units changes)
            return
        z = np.flatnonzero(_LIFE_RATE[ti] > 0)
        self._life_rows, self._life_top, self._life_rate = z, TYPES.hp_max[ti[z]], _LIFE_RATE[ti[z]]
        p = np.flatnonzero(_SHIELDED[ti])
        self._shield_rows, self._shield_top = p, TYPES.sh_max[ti[p]]
        if not len(z):
            self._life_dirty = False
        if not len(p):
            self._shield_wake = NEVER
        r = np.flatnonzero(_DELAYED_LIFE[ti])
        self._reaper_rows, self._reaper_top = r, TYPES.hp_max[ti[r]]
        if not len(r):
            self._reaper_wake = NEVER

    def update(self, h: int) -> None:
        """The world advanced ``h`` loops to ``self.w.loop``: regenerate over them."""
        u = self.w.u
        self.until = self.w.loop
        if self._version != u.version:
            self._refresh()
        if not self._any:
            return
        if self._life_dirty:
            z = self._life_rows
            hp = u.hp[z]  # (a copy)
            top = self._life_top
            if _count(hp < top):
                hp += self._life_rate if h == 1 else self._life_rate * h
                np.minimum(hp, top, out=hp)
                u.hp[z] = hp
            else:
                self._life_dirty = False
        loop = self.w.loop
        if loop >= self._shield_wake:
            self._shield_wake = _after_delay(u.shield, u.hurt, self._shield_rows, self._shield_top,
                                             SHIELD_PER_LOOP, SHIELD_DELAY_LOOPS, h, loop)
        if loop >= self._reaper_wake:
            self._reaper_wake = _after_delay(u.hp, u.hurt, self._reaper_rows, self._reaper_top,
                                             REAPER_PER_LOOP, REAPER_DELAY_LOOPS, h, loop)


def regenerated(ti: int, hp: float, shield: float, hurt: int, since: int, until: int) -> tuple[float, float]:
    """Life and shields of a unit of type row ``ti`` out of the store (in a transport) after the
    loops (``since``, ``until``]: what :meth:`Regeneration.update` would have given it over them,
    loop by loop (Zerg life at its rate, a Reaper's life and shields past their delay since the
    last damage ``hurt``), capped at the maxima."""
    n = until - since
    if n <= 0:
        return hp, shield
    top = float(TYPES.hp_max[ti])
    if hp < top:
        rate = float(_LIFE_RATE[ti])
        if rate > 0:
            hp = min(top, hp + rate * n)
        if _DELAYED_LIFE[ti]:
            k = until - max(hurt + REAPER_DELAY_LOOPS, since)
            if k > 0:
                hp = min(top, hp + REAPER_PER_LOOP * k)
    s_top = float(TYPES.sh_max[ti])
    if shield < s_top:
        k = until - max(hurt + SHIELD_DELAY_LOOPS, since)
        if k > 0:
            shield = min(s_top, shield + SHIELD_PER_LOOP * k)
    return hp, shield


def _after_delay(col: np.ndarray, hurt: np.ndarray, rows: np.ndarray, top: np.ndarray, per_loop: float,
                 delay: int, h: int, loop: int) -> int:
    """Regenerate ``col`` (shields, or a Reaper's life) of ``rows`` by ``per_loop`` for each loop of
    (loop - h, loop] that is past ``delay`` loops since its last damage (``hurt``).  Returns the
    next loop worth looking at: the next one while some regenerate, else the first end of a delay,
    or never while none is below ``top`` (until some damage)."""
    val = col[rows]  # (a copy)
    low = val < top
    if not _count(low):
        return NEVER
    # loops of (loop - h, loop] past the delay since the last damage (np.clip is slow)
    start = hurt[rows]
    start += delay  # regenerating in the loops after this one
    n = np.maximum(start, loop - h)
    np.subtract(loop, n, out=n)
    np.maximum(n, 0, out=n)
    n *= low
    if _count(n):  # some are regenerating: look again next loop
        val += per_loop * n
        np.minimum(val, top, out=val)
        col[rows] = val
        return loop + 1
    return int(start[low].min()) + 1  # (all wait for their delay)
