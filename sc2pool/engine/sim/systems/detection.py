"""Detection: which cloaked units each player can see and target.

Rules (the real game's, LP:Cloaking, LP:Detection; "(m)" where the engine chose):

- *cloaked units*: a unit whose cloak is on (a Banshee's Cloaking Field, a Ghost's Personal
  Cloaking: ``systems/abilities.py``), a permanently cloaked type (Dark Templar, Observer) and a
  burrowed form (the burrowed Widow Mine), ``data.units`` ``cloaked`` / ``burrowed``; the units
  under a Mothership's Cloaking Field (``systems/protoss_abilities.py``).
- *detection*: a player detects a cloaked unit of another player while the unit's edge is within
  the detection range of one of the player's finished detectors (``data.units`` ``detect``:
  Missile Turret 11, Raven 11, Photon Cannon, Spore Crawler, Observer, Overseer, ...; measured
  from the detector's centre to the target's edge (m)) or inside one of the player's Scanner
  Sweeps (radius 13, LP:Scanner_Sweep), or is under one of the player's Oracles' Revelations.
- *targeting*: a cloaked unit a player does not detect cannot be attacked by that player's
  units: they do not acquire it, an attack order on it is refused (``CantTargetThatUnit``), and
  a unit attacking it when it cloaks (or leaves detection) loses it (``systems/targeting.py``).
- *observation*: a player's own cloaked unit has ``cloak`` Cloaked (1); another player's cloaked
  unit it detects has CloakedDetected (2); one it does not detect is not in its observation at
  all (the raw API gives no information on undetected enemy cloaked units: s2client-proto issue
  #21, Blizzard's answer).  Detectors report their ``detect_range``.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data import units as F
from sc2pool.engine.sim.systems.abilities import SCAN_RADIUS
from sc2pool.engine.sim.units import TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World


def _columns() -> tuple[np.ndarray, np.ndarray]:
    cloaked = np.zeros(len(TYPES.unit_id), dtype=bool)
    detect = np.zeros(len(TYPES.unit_id))
    for i, uid in enumerate(TYPES.unit_id.tolist()):
        f = F.FACTS.get(uid)
        if f is not None:
            cloaked[i] = f.cloaked or f.burrowed
            detect[i] = f.detect
    return cloaked, detect


ALWAYS_CLOAKED, DETECT_RANGE = _columns()
"""Per type row: permanently cloaked or burrowed; detection range (0: not a detector)."""
CLOAKED, CLOAKED_DETECTED = 1, 2
"""``Unit.cloak`` values (raw.proto ``CloakState``)."""


class Detection:
    """Per player: the cloaked units it does not detect (cached per loop and unit set)."""

    _ranges: tuple[int, list[tuple[int, bytes]]] = (-1, [])
    """(the unit store's version, (tag, ``detect_range`` field bytes) of every detector then) of
    :meth:`extras` (a class default, so that a state pickled before it existed still loads)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self._key: tuple[int, int, int] | None = None
        self._cloaked_rows = np.zeros(0, dtype=np.int64)
        self._hidden: dict[int, np.ndarray] = {}
        self._perm_version = -1
        self._any_perm = False

    def _revision(self) -> int:
        a = self.w.abilities
        return hash((tuple(a.cloaked), len(a.scans), len(self.w.protoss.revealed)))

    def active(self) -> bool:
        """Whether any unit is cloaked now (else nothing here changes anything)."""
        w = self.w
        if not w.has_economy:
            return False
        u = w.u
        if self._perm_version != u.version:
            self._perm_version = u.version
            self._any_perm = bool(ALWAYS_CLOAKED[u.ti].any())
        return self._any_perm or bool(w.abilities.cloaked) or w.protoss.motherships

    def cloaked_rows(self) -> np.ndarray:
        """Rows of the cloaked units."""
        self._refresh()
        return self._cloaked_rows

    def _refresh(self) -> None:
        w = self.w
        u = w.u
        key = (w.loop, u.version, self._revision())
        if key == self._key:
            return
        self._key = key
        self._hidden = {}
        mask = ALWAYS_CLOAKED[u.ti].copy()
        if w.protoss.motherships:  # (a Mothership's Cloaking Field: systems/protoss_abilities.py)
            mask |= w.protoss.field_cloaked()
        if w.abilities.cloaked:
            rows = u.rows(np.fromiter(w.abilities.cloaked, dtype=np.int64, count=len(w.abilities.cloaked)))
            mask[rows[rows >= 0]] = True
        self._cloaked_rows = np.nonzero(mask)[0]

    def detected(self, player: int, rows: np.ndarray) -> np.ndarray:
        """bool per row of ``rows``: inside a finished detector's range or a scan of ``player``."""
        w = self.w
        u = w.u
        out = np.zeros(len(rows), dtype=bool)
        if not len(rows):
            return out
        det = np.nonzero((u.owner == player) & (DETECT_RANGE[u.ti] > 0))[0]
        structures = w.construction.structures
        det = np.array([r for r in det.tolist() if (s := structures.get(int(u.tag[r]))) is None or s.ready],
                       dtype=np.int64)
        x, y, rad = u.x[rows], u.y[rows], u.radius[rows]
        if len(det):
            d = np.hypot(x[:, None] - u.x[det][None, :], y[:, None] - u.y[det][None, :]) - rad[:, None]
            out |= (d <= DETECT_RANGE[u.ti[det]][None, :]).any(axis=1)
        for scan in w.abilities.scan_discs(player):
            out |= np.hypot(x - scan.x, y - scan.y) - rad <= SCAN_RADIUS
        if w.protoss.revealed:  # (an Oracle's Revelation: systems/protoss_abilities.py)
            out |= w.protoss.detects(player, rows)
        return out

    def hidden(self, player: int) -> np.ndarray:
        """bool per row of the store: a cloaked unit of another player that ``player`` does not
        detect."""
        self._refresh()
        got = self._hidden.get(player)
        if got is not None:
            return got
        u = self.w.u
        got = np.zeros(len(u), dtype=bool)
        rows = self._cloaked_rows
        rows = rows[u.owner[rows] != player]
        if len(rows):
            got[rows[~self.detected(player, rows)]] = True
        self._hidden[player] = got
        return got

    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """``cloak`` of the cloaked units the player sees (its own: Cloaked; others': detected)
        and ``detect_range`` of detectors."""
        if not self.w.has_economy:
            return
        u = self.w.u
        version, ranges = self._ranges
        if version != u.version:  # (ranges follow the types, which change only with the version)
            det = np.nonzero(DETECT_RANGE[u.ti] > 0)[0]
            ranges = [(int(u.tag[r]), struct.pack("<Hf", 0x01FD, float(DETECT_RANGE[u.ti[r]]))) for r in det.tolist()]
            self._ranges = (u.version, ranges)
        for tag, b in ranges:
            parts[tag] = parts.get(tag, b"") + b
        if not self.active():
            return
        rows = self.cloaked_rows()
        hidden = self.hidden(player)
        for r in rows.tolist():
            if hidden[r]:
                continue
            tag = int(u.tag[r])
            state = CLOAKED if int(u.owner[r]) == player else CLOAKED_DETECTED
            parts[tag] = parts.get(tag, b"") + bytes((0x50, state))
