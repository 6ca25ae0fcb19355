"""CPU pinning of local worker processes.

Why pin: a lockstep pool wakes every worker once per step and the trainer once per batch. When
the scheduler lets a worker wander between cores, each wake-up can land on another (often idle)
core, which costs an inter-processor interrupt, a cold cache, and on virtual machines an exit to
the hypervisor; a hand-over between two processes on one core costs a small fraction of that
(measurements: ``docs/design.md``). Sample Factory and EnvPool pin their workers by default for
the same reason.

The trainer itself is never pinned (its torch threads should use every core). Pinning is done
by the worker on itself, first thing at start-up, so every thread it starts and every process it
launches (a StarCraft II game, the embedded engine) inherits the same core: a worker and its game
talk in lockstep too, and a same-core hand-over is the cheap one.

Policies (``ZmqVecEnv(tuning=LocalTuning(cpu_affinity=...))``):

* ``"auto"`` (default): with fewer cores than twice the workers (the usual case: a worker per
  core), local worker ``i`` gets one core, round-robin over the cores the trainer may run on
  (``os.sched_getaffinity(0)``); successive pools in one trainer process continue the rotation,
  so a training pool and an evaluation pool do not pile onto the same first cores. With at least
  two cores per worker, worker ``i`` gets the ``i``-th of ``n_workers`` equal blocks of
  neighbouring cores instead: a worker's game processes (one per env) inherit its affinity, and
  pinned to one core the games of a worker would share it while the other cores idled (a whole
  game is far more work than the hand-over it would save). With a single allowed core, or where
  the OS has no affinity API (macOS), nothing is pinned.
* a sequence of core numbers: round-robin over exactly those (each must be allowed).
* ``None``: no pinning; the OS scheduler places the workers.

Turn it off when several independent trainers share one machine (each would start its rotation
at the first core), or give each its own core list.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

AUTO = "auto"

_rotation = 0  # process-wide: where the next pool's round-robin starts
_rotation_lock = threading.Lock()


def available_cpus() -> list[int]:
    """The cores this process may run on, sorted ([] where the OS cannot tell or pin)."""
    getter = getattr(os, "sched_getaffinity", None)
    if getter is None or not hasattr(os, "sched_setaffinity"):
        return []
    return sorted(getter(0))


def plan(policy: Any, n_workers: int) -> list[list[int] | None]:
    """One entry per local worker: the cores it pins itself to, or ``None`` (not pinned).

    Raises ``ValueError`` naming what is wrong with ``policy``.
    """
    if n_workers <= 0:
        return []
    if policy is None or policy is False:
        return [None] * n_workers
    allowed = available_cpus()
    if isinstance(policy, str):
        if policy != AUTO:
            raise ValueError(f"cpu_affinity must be 'auto', None or a sequence of core numbers, got {policy!r}")
        if len(allowed) < 2:
            return [None] * n_workers  # nothing to gain, and no API on some systems
        cpus = allowed
        block = len(allowed) // n_workers
        if block >= 2:
            return [allowed[i * block:(i + 1) * block] for i in range(n_workers)]
        global _rotation
        with _rotation_lock:
            start = _rotation
            _rotation += n_workers
    elif isinstance(policy, Sequence):
        cpus = list(policy)
        if not cpus:
            raise ValueError("cpu_affinity: the sequence of core numbers is empty")
        for c in cpus:
            if isinstance(c, bool) or not isinstance(c, int) or c < 0:
                raise ValueError(f"cpu_affinity: {c!r} is not a core number")
        if not allowed:
            raise ValueError("cpu_affinity: this OS cannot pin processes to cores (use None)")
        bad = sorted(set(cpus) - set(allowed))
        if bad:
            raise ValueError(f"cpu_affinity: cores {bad} are not available to this process (allowed: {allowed})")
        start = 0
    else:
        raise ValueError(f"cpu_affinity must be 'auto', None or a sequence of core numbers, got {policy!r}")
    return [[cpus[(start + i) % len(cpus)]] for i in range(n_workers)]


def has_own_core(cpu_plan: Sequence[list[int] | None]) -> list[bool]:
    """Per entry of :func:`plan`: whether that worker is pinned to one core no other worker of the
    plan uses (it may then poll for its next request briefly instead of sleeping at once)."""
    counts: dict[int, int] = {}
    for cpus in cpu_plan:
        for c in cpus or ():
            counts[c] = counts.get(c, 0) + 1
    return [cpus is not None and len(cpus) == 1 and counts[cpus[0]] == 1 for cpus in cpu_plan]


def parse_cpu_list(text: str) -> list[int]:
    """``"0,2-4"`` -> ``[0, 2, 3, 4]`` (the ``taskset -c`` syntax). Raises ``ValueError``."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise ValueError(f"bad core list {text!r}: {part!r} is not a number or a range") from None
        if a < 0 or b < a:
            raise ValueError(f"bad core list {text!r}: {part!r} is not a valid range")
        out.extend(range(a, b + 1))
    if not out:
        raise ValueError(f"bad core list {text!r}: no cores")
    return out


def pin_self(cpus: Sequence[int]) -> None:
    """Pin this process: every thread it has now (e.g. the BLAS pool numpy started at import),
    and through inheritance every thread and process it starts later.

    Raises ``OSError`` when the cores are not available here."""
    target = set(cpus)
    os.sched_setaffinity(0, target)
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return  # no procfs: the calling thread (and what it starts) is pinned
    for tid in tids:
        try:
            os.sched_setaffinity(int(tid), target)
        except ProcessLookupError:
            pass  # the thread ended meanwhile
