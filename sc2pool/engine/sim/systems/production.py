"""Production: queues in structures (train, rally, cancel) and the units they make.

Rules (real-game facts; sources in ``docs/economy.md``): cost and supply are paid when a unit is
queued, a queue holds 5, only its first entry progresses (its first two with a Reactor attached,
LP:Reactor, whose queue holds 8 (m: as the game's interface shows it)); the trained unit appears
at the structure's edge facing the rally (else below it) and follows the rally (a resource makes
a worker harvest it).  A unit's tech requirement (``data.tech.TRAIN``'s ``requires``: finished
structures of the player, an add-on attached to the producer) is checked when it is queued.  A
structure building an add-on or upgrading in place queues nothing.  Cancel-last refunds the last
entry.  What a structure trains is its race's
rule (:attr:`sc2pool.engine.sim.races.base.RaceRules.trains`); larva and warp-in are the other
producers the races will add.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    ERROR,
    NOT_ENOUGH_FOOD,
    QUEUE_IS_FULL,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
)
from sc2pool.engine.sim.races import CANCEL_LAST, PRODUCERS, TRAINS, WORKERS, of_type
from sc2pool.engine.sim.systems.alerts import MOTHERSHIP_COMPLETE, TRAIN_UNIT_COMPLETE, TRAIN_WORKER_COMPLETE
from sc2pool.engine.sim.systems.workers import order_bytes
from sc2pool.engine.sim.units import MOVE, Order

if TYPE_CHECKING:
    import numpy as np

    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

QUEUE_LENGTH = 5
REACTOR_QUEUE_LENGTH = 8
MOTHERSHIP = 10


def trained_alert(unit_id: int) -> int:
    """The alert of a unit that came out of production or an egg (``systems/alerts.py``): a
    worker's, the Mothership's own (m: instead of the unit's), any other unit's."""
    if unit_id in WORKERS:
        return TRAIN_WORKER_COMPLETE
    return MOTHERSHIP_COMPLETE if unit_id == MOTHERSHIP else TRAIN_UNIT_COMPLETE


class Production:
    """Structure queues, rallies, and the count of units each player trained."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.trained: dict[int, dict[int, int]] = {}
        """Units finished by production, per player and type (mini-game scores count them)."""

    def open(self, players: tuple[int, ...]) -> None:
        for p in players:
            self.trained[p] = {}

    # ------------------------------------------------------------------ commands
    def train(self, player: int, ability: int, rows: np.ndarray) -> int:
        """Queue the unit of ``ability`` in the first of ``rows`` that can take it."""
        where, uid = TRAINS[ability]
        spec = D.unit_spec(uid)
        req = tech.TRAIN[ability].requires
        construction = self.w.construction
        addons = self.w.addons
        u = self.w.u
        supply = self.w.supply
        structures = self.w.construction.structures
        now = self.w.events.now
        first_error = 0
        for i in rows.tolist():
            s = structures.get(int(u.tag[i]))
            if s is None or s.unit_id not in where:
                first_error = first_error or ERROR
                continue
            if not s.ready:
                first_error = first_error or BUILDING_IS_UNDER_CONSTRUCTION
                continue
            if s.morph is not None or s.mode or addons.building(s) is not None:
                first_error = first_error or ERROR
                continue
            if req and (not all(construction.ready_of(player, t) for t in req.structures)
                        or (req.addon and not addons.has(s, req.addon))):
                first_error = first_error or TECH_REQUIREMENTS_NOT_MET
                continue
            slots = addons.slots(s)
            if len(s.queue) >= (REACTOR_QUEUE_LENGTH if slots > 1 else QUEUE_LENGTH):
                first_error = first_error or QUEUE_IS_FULL
                continue
            res = supply.afford(player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                return res
            used, cap = supply.food(player)
            if used + spec.food_required > cap:
                return NOT_ENOUGH_FOOD
            supply.pay(player, spec.minerals, spec.vespene)
            s.queue.append(uid)
            if len(s.starts) < slots:
                s.starts.append(now)
                self.w.events.push(now + math.ceil(spec.build_time), s.tag, True)
            supply.revision += 1
            return SUCCESS
        return first_error or ERROR

    def cancel_last(self, player: int, rows: np.ndarray) -> int:
        """Cancel the last queued unit of the first of ``rows`` with a queue; refund it."""
        u = self.w.u
        structures = self.w.construction.structures
        for i in rows.tolist():
            s = structures.get(int(u.tag[i]))
            if s is None or not s.queue:
                continue
            uid = s.queue.pop()
            del s.starts[len(s.queue):]
            spec = D.unit_spec(uid)
            self.w.supply.pay(player, -spec.minerals, -spec.vespene)
            self.w.supply.revision += 1
            return SUCCESS
        return ERROR

    def rally(self, rows: np.ndarray, target_pos: tuple[float, float] | None, target_tag: int) -> int:
        """Set the rally of the producing structures among ``rows`` (a point or a unit)."""
        u = self.w.u
        structures = self.w.construction.structures
        done = False
        for i in rows.tolist():
            s = structures.get(int(u.tag[i]))
            if s is None or s.unit_id not in PRODUCERS:
                continue
            s.rally_pos = target_pos if not target_tag else None
            s.rally_tag = target_tag
            done = True
        return SUCCESS if done else ERROR

    def available(self, player: int, s: Structure, out: list[tuple[int, bool]]) -> None:
        """Append the abilities a finished structure may use now (train what the player can
        afford while the queue has room, its rally, cancel-last while it has a queue)."""
        rules = of_type(s.unit_id)
        supply = self.w.supply
        if s.morph is not None or self.w.addons.building(s) is not None:
            return
        for ab, (where, t) in rules.trains.items():
            spec = D.unit_spec(t)
            if s.unit_id in where and supply.afford(player, spec.minerals, spec.vespene) == SUCCESS \
                    and len(s.queue) < QUEUE_LENGTH:
                out.append((ab, False))
        rally = rules.rally.get(s.unit_id)
        if rally:
            out.append((rally, False))
        if s.queue:
            out.append((CANCEL_LAST, False))

    # ------------------------------------------------------------------ events
    def on_event(self, s: Structure, t: int) -> None:
        """The structure's event at loop ``t``: the units in production may be done (each leaves
        the queue; the next ones start)."""
        if not (s.ready and s.queue):
            return
        done = [k for k, start in enumerate(s.starts) if t >= start + D.unit_spec(s.queue[k]).build_time]
        if not done:
            return
        out = [s.queue[k] for k in done]
        for k in reversed(done):
            del s.queue[k], s.starts[k]
        for uid in out:
            self._emerge(s, uid, t)
        slots = self.w.addons.slots(s) if s.addon else 1
        while len(s.starts) < min(slots, len(s.queue)):
            s.starts.append(t)
            self.w.events.push(t + math.ceil(D.unit_spec(s.queue[len(s.starts) - 1]).build_time), s.tag, True)
        self.w.supply.revision += 1

    def _emerge(self, s: Structure, uid: int, t: int) -> None:
        """A trained unit leaves its structure at the edge facing the rally (else below it)."""
        w = self.w
        rad = D.unit_spec(s.unit_id).radius + D.unit_spec(uid).radius
        goal = s.rally_pos
        if s.rally_tag:
            rr = w.u.row(s.rally_tag)
            if rr >= 0:
                goal = (float(w.u.x[rr]), float(w.u.y[rr]))
        if goal is not None and (goal[0] - s.x) ** 2 + (goal[1] - s.y) ** 2 > 1e-6:
            d = math.hypot(goal[0] - s.x, goal[1] - s.y)
            x, y = s.x + (goal[0] - s.x) / d * rad, s.y + (goal[1] - s.y) / d * rad
        else:
            x, y = s.x, s.y - rad
        tag = int(w.spawn(uid, s.owner, [x], [y], free=True)[0])  # (beside the last one, if it still stands there)
        trained = self.trained.setdefault(s.owner, {})
        trained[uid] = trained.get(uid, 0) + 1
        w.alerts.add(s.owner, trained_alert(uid))
        r = w.u.row(tag)
        if s.rally_tag and uid in WORKERS and s.rally_tag in w.harvest.resources:
            w.harvest.start(r, tag, s.rally_tag, t)
        elif goal is not None:
            w.u.set_order(r, Order(MOVE, D.MOVE_MOVE, goal[0], goal[1]))

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """Append the player's producing structures' state to ``parts``: is_active and one order
        per queued unit (the first with its progress)."""
        loop = self.w.events.now
        for st in self.w.construction.structures.values():
            if st.owner != player or not st.queue:
                continue
            b = b"\xb8\x02\x01"  # is_active: producing
            n_active = len(st.starts)
            for k, uid in enumerate(st.queue):
                spec = D.unit_spec(uid)
                b += order_bytes(spec.creation_ability,
                                 progress=min(1.0, (loop - st.starts[k]) / spec.build_time) if k < n_active else None)
            parts[st.tag] = parts.get(st.tag, b"") + b

