"""Start a local worker with address-space layout randomisation off, so it has the same layout as
its siblings (``ZmqVecEnv(tuning=LocalTuning(disable_aslr=True))``, the default; formerly
``fixed_layout=True``).

``python -m workers.layout ARGS`` turns address-space layout randomisation off for this process
(Linux ``personality(ADDR_NO_RANDOMIZE)``) and execs ``python -m workers.main ARGS``, so every
local worker of a pool maps the interpreter, its libraries and its heap at the same addresses.

Why: a lockstep pool with more workers than cores switches between worker processes every few
microseconds, and the workers run the same Python code. With identical layouts that code sits at
the same virtual addresses in every worker, so what the CPU learnt running one worker (branch
targets, predictors, which are keyed by virtual address) still applies when the next one runs,
and each worker needs less CPU per step (measurements: ``docs/design.md``). Forked children,
which share their parent's layout, show the same effect.

The trade-off is ASLR itself, an exploit mitigation. A local worker talks only to the trainer
that spawned it (a private Unix socketpair and an ipc endpoint in a 0700 directory), and the
worker turns randomisation back on for whatever it starts (``--restore-aslr``), so SC2 games and
the engine, which listen on localhost ports, keep randomised layouts.
``LocalTuning(disable_aslr=False)`` keeps the OS default for the workers too. Where the call is
refused (a container's seccomp profile, another OS) the worker simply starts with the usual layout.
"""

from __future__ import annotations

import os
import sys

ADDR_NO_RANDOMIZE = 0x0040000
_QUERY = 0xFFFFFFFF  # personality(0xffffffff) reads the current persona without changing it
RESTORE_FLAG = "--restore-aslr"


def _personality(persona: int) -> int:
    """``personality(2)``; -1 where it is unavailable or refused."""
    if not sys.platform.startswith("linux"):
        return -1
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.personality(ctypes.c_ulong(persona)))
    except (OSError, AttributeError):
        return -1


def restore_randomization() -> None:
    """Let the programs this process starts from now on get randomised layouts again (this
    process keeps its own layout: it was fixed when it was exec'ed)."""
    cur = _personality(_QUERY)
    if cur != -1 and cur & ADDR_NO_RANDOMIZE:
        _personality(cur & ~ADDR_NO_RANDOMIZE)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cur = _personality(_QUERY)
    if cur != -1 and not cur & ADDR_NO_RANDOMIZE and _personality(cur | ADDR_NO_RANDOMIZE) != -1:
        # The pid, the inherited fds (stdin with the recipe, the lane) and the parent-death signal
        # all survive exec; the new image gets the fixed layout.
        os.execv(sys.executable, [sys.executable, "-m", "workers.main", *args, RESTORE_FLAG])
    # Refused, or already fixed by whoever started the trainer: run the worker in this process.
    from workers.main import _local_main

    return _local_main(args)


if __name__ == "__main__":
    sys.exit(main())
