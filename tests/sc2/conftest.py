"""Fixtures for the StarCraft II tests: an event loop kept for a whole test (hosts live across
calls) and a leak check that fails a test leaving any game process behind (and kills them)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from sc2_helpers import descendants, wait_gone


@pytest.fixture
def no_leaks() -> Iterator[None]:
    """Fail if the test leaves child processes behind; kill them either way. Python's own
    multiprocessing helpers (the forkserver SB3's SubprocVecEnv starts, the resource tracker) are
    long-lived by design and not counted."""
    before = set(descendants())
    yield
    extra = [pid for pid, p in descendants().items() if pid not in before and not _mp_helper(p)]
    left = wait_gone(extra, timeout=5.0)
    for pid in left:
        try:
            psutil.Process(pid).kill()
        except psutil.NoSuchProcess:
            pass
    assert not left, f"processes outlived the test: {left}"


def _mp_helper(p: psutil.Process) -> bool:
    try:
        cmd = " ".join(p.cmdline())
    except psutil.Error:
        return False
    return "multiprocessing.forkserver" in cmd or "multiprocessing.resource_tracker" in cmd


@pytest.fixture
def run() -> Iterator[Any]:
    """Run coroutines on one event loop kept for the whole test (hosts live across calls)."""
    loop = asyncio.new_event_loop()
    try:
        yield loop.run_until_complete
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
