"""Fixtures for the StarCraft II tests: a run-to-completion helper for hosts and a leak check
that fails a test leaving any game process behind (and kills them so later tests are clean)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import psutil
import pytest


def descendants() -> dict[int, psutil.Process]:
    me = psutil.Process(os.getpid())
    out = {}
    for p in me.children(recursive=True):
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                out[p.pid] = p
        except psutil.NoSuchProcess:
            pass
    return out


def wait_gone(pids: list[int], timeout: float = 5.0) -> list[int]:
    """Pids still alive (not zombies) after polling up to ``timeout`` seconds."""
    procs = []
    for pid in pids:
        try:
            procs.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    still = []
    for p in alive:
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                still.append(p.pid)
        except psutil.NoSuchProcess:
            pass
    return still


@pytest.fixture
def no_leaks() -> Iterator[None]:
    """Fail if the test leaves child processes behind; kill them either way."""
    before = set(descendants())
    yield
    extra = [pid for pid in descendants() if pid not in before]
    left = wait_gone(extra, timeout=5.0)
    for pid in left:
        try:
            psutil.Process(pid).kill()
        except psutil.NoSuchProcess:
            pass
    assert not left, f"processes outlived the test: {left}"


@pytest.fixture
def run() -> Iterator[Any]:
    """Run coroutines on one event loop kept for the whole test (hosts live across calls)."""
    loop = asyncio.new_event_loop()
    try:
        yield loop.run_until_complete
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
