"""Ready a process to host engine games: import what a game needs and keep those imports out of
the cyclic garbage collector's full passes.

A process that only hosts games (the fake ``SC2_x64`` server, ``sc2pool engine serve``, the
benchmarks that stand for them) imports numpy, scipy, protobuf and the simulation: tens of
thousands of container objects that live as long as the process.  Every full (generation 2)
collection walks all of them again, which costs more than a whole ``step(8)`` and lands on
whichever request is unlucky.  :func:`warm_up` moves them to the permanent generation
(:func:`gc.freeze`) once, before the first game: they are still freed by reference counting; only
the games' own objects, created afterwards, are left for the collector.  It is for processes the
engine owns: freezing changes the collector for everything in the process, so the in-process
engine inside somebody else's process (a pool worker's, a user's) does not call it.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger(__name__)

_done = False


def warm_up() -> None:
    """Import the simulation and the scipy modules a ladder map's path finder uses, then freeze
    what the process holds so far (see the module docstring).  Only the first call acts: later
    ones would also freeze the objects of games played since, which then could never be
    collected."""
    global _done
    if _done:
        return
    _done = True
    try:
        import sc2pool.engine.game  # noqa: F401
    except ImportError:  # pragma: no cover - only while the simulation module is missing
        log.warning("sc2pool.engine.game is not importable; create_game will fail", exc_info=True)
        return
    import scipy.ndimage  # noqa: F401
    import scipy.sparse.csgraph  # noqa: F401

    gc.collect()  # (what is garbage now is freed, not frozen)
    gc.freeze()
