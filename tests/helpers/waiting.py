"""Bounded waits for tests: a wait that runs out fails the test, it never carries on silently."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# How long a test waits for something that must happen "soon" before calling it a hang. Wide on
# purpose: a loaded 2-core CI machine may be many times slower than a developer's; how fast things
# happen is measured by ``benchmarks/bench_reliability.py``, not asserted here.
HANG_S = 60.0


def wait_until(pred: Callable[[], T], what: str, timeout: float = HANG_S, interval: float = 0.02) -> T:
    """Poll ``pred`` until it returns something truthy and return that.

    Raises:
        AssertionError: ``pred`` stayed falsy for ``timeout`` seconds (the message names ``what``).
    """
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)
