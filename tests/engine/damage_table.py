"""What the two weapon-table tests (``test_terran_damage.py``, ``test_zerg_protoss_damage.py``)
share: one attacker and one target in a fresh world with their upgrade levels granted, and the
targets a weapon can be fired at.  The tables and the expected figures stay in each test, written
independently of the engine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.sim.units import TYPES
from sc2pool.engine.sim.world import World


class _HasUnit(Protocol):
    @property
    def unit_id(self) -> int: ...


T = TypeVar("T", bound=_HasUnit)

#: The weapon's ``hits`` ("ground", "air", "both") as the flying states it is fired at.
_FLYING = {"ground": (False,), "air": (True,), "both": (False, True)}


def duel(attacker: int, target: int, weapon_ups: Iterable[int], armor_ups: Iterable[int],
         label: object = None) -> tuple[World, np.ndarray]:
    """A world with ``attacker`` (player 1) 4 cells from ``target`` (player 2), the attacker's
    player granted ``weapon_ups`` and the target's ``armor_ups``; returns it and their two rows
    (asserting the attacker's type can hit the target's)."""
    w = World(SKIRMISH)
    [a] = w.spawn(attacker, 1, [20.0], [20.0])
    [b] = w.spawn(target, 2, [24.0], [20.0])
    for up in weapon_ups:
        w.research.grant(1, up)
    for up in armor_ups:
        w.research.grant(2, up)
    rows = w.u.rows(np.array([a, b]))
    assert TYPES.can_hit[w.u.ti[rows[0]], w.u.ti[rows[1]]], label
    return w, rows


def hit_damage(w: World, rows: np.ndarray) -> float:
    """The engine's life damage of one shot of ``rows[0]`` on ``rows[1]`` (``Combat.hit_damage``)."""
    return float(w.combat.hit_damage(rows[:1], rows[1:])[0])


def targets_for(hits: str, targets: Sequence[T]) -> list[T]:
    """The entries of ``targets`` a weapon that ``hits`` ground, air or both is fired at."""
    return [t for t in targets if D.unit_spec(t.unit_id).is_flying in _FLYING[hits]]
