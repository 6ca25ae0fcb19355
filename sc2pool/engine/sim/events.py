"""The economy's clock: one heap of events keyed by unit tag, processed in loop order.

The combat systems are vectorised over every unit each loop; the economy concerns a few dozen
workers and structures whose state changes at discrete moments (a worker reaches a mineral field,
finishes mining, drops its cargo; a unit finishes training).  So the economy systems are *event
driven*: a worker's job and a structure keep the loop of their next event here, and the World
processes the events in loop order whatever chunks the game steps in
(:meth:`sc2pool.engine.sim.world.World.advance_economy`).  One heap and one sequence counter for
every economy system keep events of the same loop in the order they were scheduled.
"""

from __future__ import annotations

import heapq


class EventQueue:
    """Events as (loop, sequence number, unit tag, whether it changes the set of units)."""

    def __init__(self, loop: int = 0) -> None:
        self.heap: list[tuple[int, int, int, bool]] = []
        self.seq = 0
        self.popped = 0
        self._world: list[tuple[int, int]] = []
        """(loop, sequence number) of the events that change the set of units, a heap; entries
        already taken off :attr:`heap` are dropped when they come to its top."""
        self._live: set[int] = set()
        """Sequence numbers of those still in :attr:`heap`."""
        """Events taken off the queue so far (with ``seq``: whether anything happened since)."""
        self.now = loop
        """The loop the economy stands at: the event being processed, else the world's loop."""

    def push(self, loop: int, tag: int, world_event: bool = False) -> int:
        """Schedule an event of unit ``tag`` at ``loop``; ``world_event``: it changes the set of
        units (a unit trained, a structure placed, a field depleted), so the world must not
        fast-forward past it.  Returns its sequence number (a job keeps it to skip stale events)."""
        self.seq += 1
        heapq.heappush(self.heap, (loop, self.seq, tag, world_event))
        if world_event:
            heapq.heappush(self._world, (loop, self.seq))
            self._live.add(self.seq)
        return self.seq

    def horizon(self) -> int:
        """Loops until the next event that changes the set of units (>= 1)."""
        world, live = self._world, self._live
        while world and world[0][1] not in live:
            heapq.heappop(world)
        best = min(world[0][0] - self.now, 1 << 30) if world else 1 << 30  # (the earliest one left)
        return max(1, best)

    def pop_due(self, to: int) -> tuple[int, int, int, bool] | None:
        """The next event due by loop ``to`` (removed from the queue), or None."""
        heap = self.heap
        if heap and heap[0][0] <= to:
            self.popped += 1
            e = heapq.heappop(heap)
            if e[3]:
                self._live.discard(e[1])
            return e
        return None
