"""The Broker is assembled from its parts: every call one part makes into another is defined by
some part (none is left to the shared state's placeholder, which would raise at run time)."""

from __future__ import annotations

import inspect

from sc2pool.broker import Broker
from sc2pool.broker.state import BrokerState


def test_every_call_between_the_parts_is_defined_by_a_part() -> None:
    declared = [name for name, _ in inspect.getmembers(BrokerState, inspect.isfunction)]
    assert declared, "BrokerState declares the calls between the parts"
    unresolved = [name for name in declared if getattr(Broker, name).__qualname__.startswith("BrokerState.")]
    assert unresolved == []
