"""The Immortal's Barrier: damage it takes raises a barrier that absorbs the damage that follows.

Rules (the real game's; sources per fact, "(m)" where the engine chose):

- An Immortal (83) whose barrier is ready raises it when damage reaches it, by itself (no order:
  the game's ``BarrierDamageResponse`` behavior, a damage response).  The barrier absorbs up to
  :data:`ABSORB` of the damage that reaches the Immortal for :data:`LOOPS`, the hit that raised it
  included, before the shields (the shields stay full meanwhile), and is ready again
  :data:`COOLDOWN` after it was raised.
- Weapon hits are absorbed as they come, each attack's damage before shield armor and armor (m:
  whether the barrier takes the damage before or after armor is not known here); an attack only
  partly absorbed goes on to the shields and life with what is left.  Spell damage (storms,
  biles, mines, novas, ...) is absorbed the same way.
- While the barrier is up and has something left to absorb, the Immortal carries the buff
  ``ImmortalOverload`` (102, the client's name for the buff, as for the ability 2328 "Effect
  ImmortalBarrier"; m: that the real client reports this buff then is inferred from the names).

Sources: the absorption (``ImmortalOverload``'s damage response, ModifyLimit 100) and the
cooldown (``BarrierDamageResponse``, 45 game seconds = 32.14 faster seconds = 720 loops) as an
extraction of the game's XML data published in a public repository gives them (not identified
here); the duration and the shields held full from the notes of the NachOS bot on what the game
did through its API (StarCraft II 5.0.15: "starting on the first hit, lasting 48 steps, with the
shields held at 100").  Liquipedia's Immortal page could not be read here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.sim.encode import varint

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

IMMORTAL = 83
BUFF = 102
_BUFF_BYTES = b"\xd8\x01" + varint(BUFF)
"""``Unit.buff_ids`` (field 27, a varint) carrying :data:`BUFF`."""
ABSORB = 100.0
LOOPS = 48
COOLDOWN = 720


class Barrier:
    """Every Immortal's barrier: when it is ready again, until when it is up, what it has left."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.state: dict[int, tuple[int, int, float]] = {}
        """Immortal tag -> (the loop it is ready again, the loop it ends, what it still absorbs)."""
        self._version = -1
        self._rows = np.zeros(0, np.int64)

    def rows(self) -> np.ndarray:
        """The Immortals' rows (cached per unit-set version)."""
        u = self.w.u
        if self._version != u.version:
            self._version = u.version
            self._rows = np.flatnonzero(u.unit_id == IMMORTAL)
            if len(self.state) > 2 * len(self._rows) + 16:  # (forget Immortals that are gone)
                alive = set(u.tag[self._rows].tolist())
                self.state = {t: s for t, s in self.state.items() if t in alive}
        return self._rows

    def absorb(self, r: int, amount: float) -> float:
        """Damage ``amount`` reaches row ``r``: what the barrier leaves of it (all of it for a
        unit that is not an Immortal)."""
        u = self.w.u
        if int(u.unit_id[r]) != IMMORTAL or amount <= 0.0:
            return amount
        tag = int(u.tag[r])
        loop = self.w.loop
        ready, end, left = self.state.get(tag, (0, -1, 0.0))
        if loop >= end and loop >= ready:  # down and ready: this damage raises it
            ready, end, left = loop + COOLDOWN, loop + LOOPS, ABSORB
        if loop < end and left > 0.0:
            take = min(left, amount)
            left -= take
            amount -= take
        self.state[tag] = (ready, end, left)
        return amount

    def weapons(self, damage: np.ndarray, sh_hits: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """This loop's weapon hits on Immortals through their barriers: the hits on shields
        (``sh_hits``: rows, damage per attack, attacks, in the order they landed) first, then the
        life damage of those without shields (``damage``, changed in place).  Returns the shield
        hits left (a fully absorbed attack is gone)."""
        rows = self.rows()
        if not len(rows):
            return sh_hits
        out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for t, raw, n in sh_hits:
            on = np.isin(t, rows)
            if not on.any():
                out.append((t, raw, n))
                continue
            raw = np.array(raw, dtype=np.float64)
            n = np.array(n)
            keep = np.ones(len(t), dtype=bool)
            for i in np.flatnonzero(on).tolist():
                attacks = max(int(n[i]), 1)
                left = self.absorb(int(t[i]), float(raw[i]) * attacks)
                if left <= 0.0:
                    keep[i] = False
                else:
                    raw[i] = left / attacks
            out.append((t[keep], raw[keep], n[keep]))
        for r in rows[damage[rows] > 0.0].tolist():
            damage[r] = self.absorb(r, float(damage[r]))
        return out

    def extras(self, parts: dict[int, bytes]) -> None:
        """The barrier's buff on every Immortal whose barrier is up (every player sees it (m))."""
        loop = self.w.loop
        for tag, (_, end, left) in self.state.items():
            if end > loop and left > 0.0:
                parts[tag] = parts.get(tag, b"") + _BUFF_BYTES
