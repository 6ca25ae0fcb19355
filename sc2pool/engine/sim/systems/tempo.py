"""Tempo: how fast a structure's production, research and Warp Gate cooldown run.

A structure works at speed 1; Chrono Boost makes it 1.5 (+50%, LP:Chrono_Boost); without power
(:mod:`.power`) it is 0 (paused, LP:Pylon).  The production and research systems measure progress
from each entry's start loop (progress = (loop - start) / build time), so a speed other than 1 is
carried by moving those start loops: over ``dt`` loops at speed ``r`` every start of the
structure moves back by ``(r - 1) * dt`` (forward for a pause).  Structures at speed 1 are not
tracked at all, so nothing changes for a game without Protoss.  The world syncs a tracked
structure before its events (:meth:`sync`), bounds its advance by the next completion or the end
of a boost (:meth:`horizon`), and :meth:`upkeep` completes what is due at the end of each step.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.data import tech

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

CHRONO_FACTOR = 1.5
"""Chrono Boost: +50% production and research speed (LP:Chrono_Boost)."""


class Tempo:
    """Per-structure speed (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.unpowered: set[int] = set()
        self.boosted: dict[int, int] = {}
        """Structure tag -> the loop its Chrono Boost ends."""
        self.synced: dict[int, int] = {}
        """Tracked structures (speed != 1) -> the loop their start loops were last moved to."""

    def rate(self, tag: int) -> float:
        if tag in self.unpowered:
            return 0.0
        return CHRONO_FACTOR if tag in self.boosted else 1.0

    # ------------------------------------------------------------------ changes of speed
    def sync(self, tag: int, t: int) -> None:
        """Move the structure's start loops for its speed from its last sync up to ``t``."""
        since = self.synced.get(tag)
        if since is None or t <= since:
            return
        shift = (self.rate(tag) - 1.0) * (t - since)
        self.synced[tag] = t
        if not shift:
            return
        w = self.w
        s = w.construction.structures.get(tag)
        if s is not None and s.starts:
            s.starts = [x - shift for x in s.starts]  # type: ignore[misc]
        if tag in w.research.starts:
            w.research.starts[tag] -= shift  # type: ignore[assignment]
        w.warpgates.shift(tag, shift)

    def _changed(self, tag: int, t: int) -> None:
        if self.rate(tag) == 1.0:
            self.synced.pop(tag, None)
            # back at speed 1: the entries' own events were set for the old start loops; each
            # entry gets an event at its new end (a late duplicate finds nothing to do)
            for due in self._dues(tag):
                self.w.events.push(max(t, int(math.ceil(due - 1e-9))), tag, True)
        else:
            self.synced[tag] = t

    def _dues(self, tag: int) -> list[float]:
        """The loops the structure's entries in progress end at speed 1 from their start loops."""
        w = self.w
        s = w.construction.structures.get(tag)
        dues: list[float] = []
        if s is not None:
            dues += [st + D.unit_spec(s.queue[k]).build_time for k, st in enumerate(s.starts)]
        q = w.research.queues.get(tag)
        if q:
            dues.append(w.research.starts[tag] + int(tech.RESEARCH[q[0]].time))
        return dues

    def set_powered(self, tag: int, powered: bool, t: int) -> None:
        self.sync(tag, t)
        if powered:
            self.unpowered.discard(tag)
        else:
            self.unpowered.add(tag)
        self._changed(tag, t)
        self._due(tag, t)

    def boost(self, tag: int, t: int, loops: int) -> None:
        """Chrono Boost on ``tag`` from ``t`` for ``loops`` (a boost on a boosted structure
        starts again (m))."""
        self.sync(tag, t)
        self.boosted[tag] = t + loops
        self._changed(tag, t)

    # ------------------------------------------------------------------ the world's calls
    def upkeep(self, loop: int) -> None:
        """End of an economy step: boosts that ended stop; tracked structures are synced and what
        became due completes."""
        for tag, end in list(self.boosted.items()):
            if end <= loop:
                self.sync(tag, end)
                del self.boosted[tag]
                self._changed(tag, end)
                self._due(tag, loop)
        for tag in list(self.synced):
            self.sync(tag, loop)
            self._due(tag, loop)

    def _due(self, tag: int, loop: int) -> None:
        """Production, research and Warp Gate cooldowns of ``tag`` that are done by ``loop``."""
        w = self.w
        s = w.construction.structures.get(tag)
        if s is not None and s.queue:
            w.production.on_event(s, loop)
        if tag in w.research.queues:
            w.research.on_event(tag, loop)

    def horizon(self, loop: int) -> int:
        """Loops until a boost ends or a tracked structure's entry completes (>= 1)."""
        h = 1 << 30
        for end in self.boosted.values():
            h = min(h, end - loop)
        for tag, since in self.synced.items():
            r = self.rate(tag)
            if r <= 0:
                continue
            for due in self._dues(tag):
                at = since + (due - since) / r
                h = min(h, int(math.ceil(at - 1e-9)) - loop)
        return max(1, h)

    def forget(self, alive: set[int]) -> None:
        for d in (self.boosted, self.synced):
            for tag in [t for t in d if t not in alive]:
                del d[tag]
        self.unpowered &= alive
