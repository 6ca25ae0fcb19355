"""Supply: each player's ledger (minerals, vespene, what was collected and spent, food).

Rules (real-game facts; sources in ``docs/economy.md``): costs are paid when a unit is queued or
a structure placed, and refunded when a queue entry is cancelled; ``food_cap`` is the food
provided by the player's finished supply providers (the races' rules: Terran's Command Center 15,
Supply Depot 8), at most 200;
``food_used`` counts the player's units alive and in production queues, rounded up.

Every dict is keyed by player id, so each player of a game keeps its own ledger.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.sim.commands import NOT_ENOUGH_MINERALS, NOT_ENOUGH_VESPENE, SUCCESS
from sc2pool.engine.sim.races import SUPPLY_PROVIDERS
from sc2pool.engine.sim.units import TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

FOOD_LIMIT = 200


class Supply:
    """The players' ledgers; ``revision`` changes whenever something ``player_common`` shows may
    have changed (observations cache it by this)."""

    _units_food: tuple[int, dict[int, tuple[float, float]]] = (-1, {})
    """(the unit store's version, player -> (food its units use, food its units other than
    structures provide)) of :meth:`food` (a class default, so that a state pickled before it
    existed still loads)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.minerals: dict[int, int] = {}
        self.vespene: dict[int, int] = {}
        self.collected_minerals: dict[int, int] = {}
        self.collected_vespene: dict[int, int] = {}
        self.spent_minerals: dict[int, int] = {}
        self.spent_vespene: dict[int, int] = {}
        self.revision = 0
        """Bumped whenever something a player_common shows may have changed."""

    def open(self, players: tuple[int, ...], minerals: int, vespene: int) -> None:
        """Start the ledgers of ``players`` with these resources."""
        for p in players:
            self.minerals[p] = minerals
            self.vespene[p] = vespene
            self.collected_minerals[p] = self.collected_vespene[p] = 0
            self.spent_minerals[p] = self.spent_vespene[p] = 0

    def food(self, player: int) -> tuple[int, int]:
        """(food_used, food_cap) as the real client reports them."""
        used, cap = self._food_of_units(player)
        if self.w.transport.cargo or self.w.transport.pools:  # (units inside transports still use food)
            used += self.w.transport.food(player)
        if self.w.larva.active:  # (Zerg: eggs' units; Overlords provide supply)
            used += self.w.larva.food(player)
        if self.w.protoss.hallucinations:  # (hallucinated units use none: systems/protoss_abilities.py)
            used -= self.w.protoss.hallucination_food(player)
        for s in self.w.construction.structures.values():
            if s.owner == player:
                if s.ready and s.unit_id in SUPPLY_PROVIDERS:
                    cap += D.unit_spec(s.unit_id).food_provided + self.w.abilities.extra_supply(s.tag)
                for t in s.queue:
                    used += D.unit_spec(t).food_required
        return int(math.ceil(used)), int(min(cap, FOOD_LIMIT))

    def _food_of_units(self, player: int) -> tuple[float, float]:
        """(food the player's units use, food provided by those that are not structures:
        Overlords, Overseers, 8 each, the client's ``food_provided``), kept while the unit
        store's version stays (owners and types change only with it)."""
        u = self.w.u
        version, per_player = self._units_food
        if version != u.version:
            per_player = {}
            self._units_food = (u.version, per_player)
        got = per_player.get(player)
        if got is None:
            ti = u.ti[u.owner == player]
            got = per_player[player] = (float(TYPES.food[ti].sum()),
                                        float(TYPES.food_provided[ti][~TYPES.structure[ti]].sum()))
        return got

    def afford(self, player: int, minerals: int, vespene: int) -> int:
        """SUCCESS when the player has the resources, else what it lacks first."""
        if self.minerals.get(player, 0) < minerals:
            return NOT_ENOUGH_MINERALS
        if self.vespene.get(player, 0) < vespene:
            return NOT_ENOUGH_VESPENE
        return SUCCESS

    def pay(self, player: int, minerals: int, vespene: int) -> None:
        """Spend (or, negative, refund) resources; the score details count what was spent."""
        self.minerals[player] -= minerals
        self.vespene[player] -= vespene
        self.spent_minerals[player] = self.spent_minerals.get(player, 0) + minerals
        self.spent_vespene[player] = self.spent_vespene.get(player, 0) + vespene

    def earn(self, player: int, amount: int, gas: bool) -> None:
        """Cargo dropped off at a townhall."""
        if gas:
            self.vespene[player] = self.vespene.get(player, 0) + amount
            self.collected_vespene[player] = self.collected_vespene.get(player, 0) + amount
        else:
            self.minerals[player] = self.minerals.get(player, 0) + amount
            self.collected_minerals[player] = self.collected_minerals.get(player, 0) + amount
