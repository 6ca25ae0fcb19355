"""Fixtures for the StarCraft II tests: an event loop kept for a whole test (hosts live across
calls); leftover game processes are the suite-wide ``process_tree`` fixture's to catch."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.proctree import ProcessTree


@pytest.fixture
def no_leaks(process_tree: ProcessTree) -> ProcessTree:
    """The suite-wide ``process_tree`` check (``tests/conftest.py``), under the name these tests use:
    a test leaving any game process behind fails, and the processes are killed either way."""
    return process_tree


@pytest.fixture
def run() -> Iterator[Any]:
    """Run coroutines on one event loop kept for the whole test (hosts live across calls)."""
    loop = asyncio.new_event_loop()
    try:
        yield loop.run_until_complete
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
