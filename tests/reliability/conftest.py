"""Fixtures for the reliability tests: trainer child processes and the network-namespace harness."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pytest

from .netns import NetnsUnavailable, Network, check_available, cleanup_stale
from .reliability_helpers import TrainerProc


@pytest.fixture
def make_network() -> Iterator[Callable[[Sequence[str]], Network]]:
    """Factory ``make_network(["trainer", "b", "c"]) -> Network``; every network is torn down at the end.

    Skips (saying why) only where the kernel or our privileges refuse network namespaces.
    """
    try:
        check_available()
    except NetnsUnavailable as e:
        pytest.skip(f"SKIPPED multi-host test: network namespaces unavailable here: {e}")
    cleanup_stale()
    networks: list[Network] = []

    def make(hosts: Sequence[str]) -> Network:
        net = Network(list(hosts))
        networks.append(net)  # registered before up(): up() cleans itself on failure, close() is idempotent
        return net.up()

    try:
        yield make
    finally:
        for net in networks:
            net.close()


@pytest.fixture
def trainer() -> Iterator[Callable[..., TrainerProc]]:
    """Factory for trainer child processes (so a crash fails one test, not pytest); all stopped at the end."""
    procs: list[TrainerProc] = []

    def start(*args: str) -> TrainerProc:
        t = TrainerProc(*args)
        procs.append(t)
        return t

    try:
        yield start
    finally:
        for t in procs:
            t.stop()
