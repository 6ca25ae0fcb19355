"""The command path: one raw unit command -> the system that carries it out.

A command travels ``RequestAction`` -> :meth:`Game.action` (the player, a finite target point
clamped to the playable area) -> :meth:`World.command` -> :meth:`CommandPath.issue`, which
checks the units and the target once for every ability, then looks the ability up:

- the economy's abilities (gather, return, train, build, rally, cancel; smart on resources,
  townhalls, unfinished structures and by producers) go to the economy systems first, when the
  world has an economy; any other command takes the units off their economy jobs;
- unit orders (stop, hold position, explode, move, follow, attack, attack-move, patrol, smart)
  become orders in the unit store, which targeting, combat and locomotion carry out loop by loop;
- an ability no system simulates is answered with a clear ActionResult (``NOT_SUPPORTED``, or
  ``ERROR`` when it came without a target, as the engine has always answered) and logged once
  per process with its name.

Every ActionResult value the engine answers with is defined here (``error_pb2.ActionResult``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.sim.races import (
    BUILDS,
    CANCEL_LAST_ABILITIES,
    GAS_STRUCTURES,
    GATHER_ABILITIES,
    PRODUCERS,
    RALLY_ABILITIES,
    RETURN_ABILITIES,
    TOWNHALLS,
    TRAINS,
    WORKERS,
    of_type,
)
from sc2pool.engine.sim.races.base import BUILDER_STAYS
from sc2pool.engine.sim.units import (
    ATTACK_MOVE,
    ATTACK_UNIT,
    EXPLODE,
    FOLLOW,
    HOLD,
    IDLE,
    MOVE,
    NEUTRAL_OWNER,
    PATROL,
    TRANSFORM,
    TYPES,
    Order,
)

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

# ActionResult values (error_pb2.ActionResult), every one the engine answers with.
SUCCESS, NOT_SUPPORTED, ERROR = 1, 2, 3
QUEUE_IS_FULL = 7
NOT_ENOUGH_MINERALS, NOT_ENOUGH_VESPENE, NOT_ENOUGH_FOOD = 9, 10, 13
NOT_ENOUGH_ENERGY = 17
COOLDOWN = 6
NOT_ENOUGH_LIFE = 15
CANT_TARGET_THAT_UNIT = 36
BUILD_TECH_REQUIREMENTS_NOT_MET = 40
CANT_BUILD_ON_THAT = 42
CANT_BUILD_LOCATION_INVALID = 44
CANT_SEE_BUILD_LOCATION = 45
CANT_BUILD_TOO_CLOSE_TO_RESOURCES = 47
MUST_BUILD_REFINERY_FIRST = 63
BUILDING_IS_UNDER_CONSTRUCTION = 64
TECH_REQUIREMENTS_NOT_MET = 79
MUST_TARGET_UNIT = 81
MUST_TARGET_BIOLOGICAL_UNITS = 121
MUST_TARGET_MECHANICAL_UNITS = 127
MUST_TARGET_WALKABLE_LOCATION = 85
YOU_CANT_CONTROL_THAT_UNIT = 87
MUST_TARGET_RESOURCES = 89
CANT_TARGET_EXHAUSTED_RESOURCES = 200

EFFECT_STIM_MARAUDER = 253
LARVA = 151
_WORKER_IDS = np.array(sorted(WORKERS))
_PRODUCER_IDS = np.array(sorted(PRODUCERS))

log = logging.getLogger(__name__)
_reported: set[int] = set()
"""Abilities already logged as not simulated (once per process: a bot repeating one every step
would otherwise flood the log)."""


def ability_name(ability: int) -> str:
    """The ability's name: burnysc2's ``AbilityId`` member for the ones the engine lists, else the
    client's own name for it (its ``friendly_name``), else a note that the client knows no such
    ability."""
    spec = D.ABILITY_BY_ID.get(ability)
    if spec is not None:
        return spec.name
    from sc2pool.engine.data import client

    try:
        data = client.ability(ability)
    except KeyError:
        return f"<ability {ability}: not in the client's data>"
    return data.friendly_name or data.link_name or f"<ability {ability}>"


def not_simulated(ability: int, why: str = "no system of the engine simulates it") -> None:
    """Log (once per ability) that a command was refused because the engine does not simulate
    its ability."""
    if ability not in _reported:
        _reported.add(ability)
        log.warning("ability %d (%s) is not simulated: %s", ability, ability_name(ability), why)


@dataclass(slots=True)
class Command:
    """One raw unit command after the checks every ability shares."""

    player: int
    ability: int
    rows: np.ndarray
    """Rows of the commanded units (alive, the player's own)."""
    pos: tuple[float, float] | None
    ttag: int
    """The target unit's tag (0: none)."""
    trow: int
    """The target unit's row (-1: none)."""
    queue: bool
    hostile: bool
    """The target unit belongs to another player (not the player's own, not neutral)."""


Handler = Callable[[Command], int]


class CommandPath:
    """Looks each ability up in the tables of the systems that carry it out (see the module
    docstring); holds nothing between commands."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.u = world.u
        self.untargeted: dict[int, Handler] = {
            D.STOP_STOP: self._stop, D.STOP: self._stop,
            D.HOLDPOSITION_HOLD: self._hold, D.HOLDPOSITION: self._hold,
            D.EXPLODE_EXPLODE: self._explode,
            D.EFFECT_STIM_MARINE: self._stim, D.EFFECT_STIM: self._stim, EFFECT_STIM_MARAUDER: self._stim,
        }
        """Unit orders that take no target."""
        self.targeted: dict[int, Handler] = {
            D.SMART: self._smart,
            D.MOVE_MOVE: self._move, D.MOVE: self._move,
            D.ATTACK_ATTACK: self._attack, D.ATTACK: self._attack, D.SCAN_MOVE: self._attack,
            D.PATROL_PATROL: self._patrol, D.PATROL: self._patrol,
        }
        """Unit orders that need a point or a unit."""
        self.economic: dict[int, Handler] = {}
        """The economy's abilities (of every race whose economy is simulated) -> their handler."""
        from sc2pool.engine.sim.systems.abilities import ABILITIES as CAST_ABILITIES
        from sc2pool.engine.sim.systems.addons import ABILITIES as ADDON_ABILITIES
        from sc2pool.engine.sim.systems.modes import ABILITIES as MODE_ABILITIES
        from sc2pool.engine.sim.systems.morph import UPGRADES, simulated_modes
        from sc2pool.engine.sim.systems.nydus import ABILITIES as NYDUS_ABILITIES
        from sc2pool.engine.sim.systems.nydus import UNLOAD_UNIT as NYDUS_UNLOAD_UNIT
        from sc2pool.engine.sim.systems.repair import ABILITIES as REPAIR_ABILITIES
        from sc2pool.engine.sim.systems.research import abilities as research_abilities
        from sc2pool.engine.sim.systems.transport import ABILITIES as TRANSPORT_ABILITIES
        from sc2pool.engine.sim.systems.transport import UNLOAD_UNIT

        self.modes = simulated_modes()
        """Mode morphs the engine simulates at once (lower/raise a supply depot)."""
        self.forms = MODE_ABILITIES
        """Form changes with a transition (siege, lift off, land, ...): ``systems/modes.py``."""
        self.transport_abilities = TRANSPORT_ABILITIES
        """Load, unload, salvage: ``systems/transport.py``."""
        self.nydus_abilities = NYDUS_ABILITIES
        """Summon a Nydus Worm; load into and unload a Nydus Network or Worm: ``systems/nydus.py``."""
        self.unload_unit = frozenset(UNLOAD_UNIT) | frozenset(NYDUS_UNLOAD_UNIT)
        """Unloading one unit: its target is a passenger, a unit out of the store."""
        self.repair_abilities = REPAIR_ABILITIES
        """Repair: ``systems/repair.py``."""
        for table, handler in ((TRAINS, self._train), (RALLY_ABILITIES, self._rally),
                               (CANCEL_LAST_ABILITIES, self._cancel_last), (BUILDS, self._build),
                               (GATHER_ABILITIES, self._gather), (RETURN_ABILITIES, self._return)):
            for ab in table:
                self.economic[ab] = handler
        for ab in ADDON_ABILITIES:
            self.economic[ab] = self._addon
        for ab in UPGRADES:
            self.economic[ab] = self._upgrade
        for ab in research_abilities():
            self.economic[ab] = self._research
        for ab in CAST_ABILITIES:
            self.economic[ab] = self._cast
        from sc2pool.engine.sim.systems.warpgate import ABILITIES as PROTOSS_ABILITIES

        for ab in PROTOSS_ABILITIES:
            self.economic[ab] = self._protoss
        from sc2pool.engine.sim.systems.protoss_abilities import ABILITIES as PROTOSS_CASTS

        self.protoss_casts = PROTOSS_CASTS
        """Protoss units' casts (``systems/protoss_abilities.py``)."""
        for ab in PROTOSS_CASTS:
            self.economic[ab] = self._protoss_cast
        from sc2pool.engine.sim.systems.recall import ABILITIES as RECALL_ABILITIES

        self.recall_abilities = RECALL_ABILITIES
        """The Nexus's and the Mothership's Strategic Recall (``systems/recall.py``)."""
        for ab in RECALL_ABILITIES:
            self.economic[ab] = self._recall
        self._register_zerg()

    def issue(self, player: int, ability: int, tags: list[int], target_pos: tuple[float, float] | None,
              target_tag: int, queue: bool) -> int:
        """Carry out one raw unit command; returns its ActionResult value."""
        w = self.w
        w.touch()
        u = self.u
        rows = u.rows(np.asarray(tags, dtype=np.int64))
        rows = rows[rows >= 0]
        if len(rows) == 0:
            return ERROR
        rows = rows[u.owner[rows] == player]
        if len(rows) == 0:
            return YOU_CANT_CONTROL_THAT_UNIT
        trow = -1
        if target_tag:
            trow = u.row(target_tag)
            if trow < 0 and not (ability in self.unload_unit and target_tag in w.transport.tags()):
                return CANT_TARGET_THAT_UNIT
        if w.stasis.held:  # (units in stasis neither act nor are acted on: systems/stasis.py)
            if target_tag in w.stasis.held:
                return CANT_TARGET_THAT_UNIT
            rows = rows[~np.isin(u.tag[rows], u.held)]
            if len(rows) == 0:
                return ERROR
        hostile = trow >= 0 and int(u.owner[trow]) not in (player, NEUTRAL_OWNER)
        cmd = Command(player, ability, rows, target_pos, target_tag, trow, queue, hostile)
        # the economy's abilities first; any other command takes the units off their economy jobs
        if w.has_economy:
            res = self._economy(cmd)
            if res is not None:
                return res
        handler = self.untargeted.get(ability)
        if handler is not None:
            return handler(cmd)
        if ability in self.modes and w.morph.can(ability, rows):
            return w.morph.mode(player, ability, rows)
        if ability in self.forms:
            return w.modes.command(cmd)
        if ability in self.nydus_abilities:
            res = w.nydus.command(cmd)
            if res is not None:
                return res
        if ability in self.transport_abilities:
            return w.transport.command(cmd)
        if ability in self.repair_abilities:
            return w.repair.command(cmd)
        handler = self.targeted.get(ability)
        if handler is None:
            not_simulated(ability, "this game has no economy" if ability in self.economic
                          else "no system of the engine simulates it")
        if target_pos is None and trow < 0:
            return ERROR
        if handler is None:
            return NOT_SUPPORTED
        return handler(cmd)

    # ------------------------------------------------------------------ the economy's abilities
    def _economy(self, c: Command) -> int | None:
        """Carry out an economy command; None when it is none (the units then leave their economy
        jobs and the command goes on as a unit order).  A command shift-queued behind the
        economy jobs of all its units waits until they end."""
        u = self.u
        workers = self.w.workers
        tags = [int(t) for t in u.tag[c.rows]]
        if c.queue and c.ability not in TRAINS and all(t in workers.jobs for t in tags):
            workers.defer(tags, c.ability, c.pos, c.ttag)
            return SUCCESS
        if not c.queue:
            workers.clear_pending(tags)
        handler = self.economic.get(c.ability)
        if handler is not None:
            if (c.ability in self.zerg_only and not self._any_zerg(c)) or \
                    (c.ability in self.protoss_casts and not self.w.protoss.any_caster(c)) or \
                    (c.ability in self.recall_abilities and not self.w.recall.any_caster(c)):
                workers.leave_jobs(c.rows)  # (no unit may use it: answered as before these abilities)
                return None
            return handler(c)
        if c.ability == D.SMART:
            res = self._economic_smart(c)
            if res is not None:
                return res
        workers.leave_jobs(c.rows)
        return None

    def _workers(self, c: Command) -> np.ndarray:
        """The workers among the commanded units."""
        return c.rows[np.isin(self.u.unit_id[c.rows], _WORKER_IDS)]

    def _train(self, c: Command) -> int:
        if TRAINS[c.ability][0] == (LARVA,):  # (a larva becomes an egg: systems/larva.py)
            return self.w.larva.train(c.player, c.ability, c.rows)
        return self.w.production.train(c.player, c.ability, c.rows)

    def _register_zerg(self) -> None:
        """The Zerg abilities (inject, creep tumors, transfusion, cancelling eggs and structures
        under construction): ``systems/zerg_abilities.py``."""
        from sc2pool.engine.sim.races import ZERG
        from sc2pool.engine.sim.systems.warpgate import ABILITIES as PROTOSS_ABILITIES
        from sc2pool.engine.sim.systems.zerg_abilities import ABILITIES as ZERG_ABILITIES

        shared = ZERG_ABILITIES & PROTOSS_ABILITIES  # (cancelling a structure under construction)
        for ab in ZERG_ABILITIES:
            self.economic[ab] = self._cancel_construction if ab in shared else self._zerg
        self.zerg_only = frozenset({*ZERG.trains, *ZERG.builds, *ZERG.rally.values(), ZERG.gather_ability,
                                    ZERG.return_ability, *(ZERG_ABILITIES - shared)})
        """Abilities only Zerg units use: a command of them without a Zerg unit goes on as an
        ability no system simulates (so that games without Zerg answer as they always have)."""
        self._zerg_types = np.array(sorted(int(s.unit_id) for s in TYPES.specs if s.race == D.ZERG))

    def _any_zerg(self, c: Command) -> bool:
        return bool(np.isin(self.u.unit_id[c.rows], self._zerg_types).any())

    def _zerg(self, c: Command) -> int:
        return self.w.zerg.command(c)

    def _cancel_construction(self, c: Command) -> int:
        """A cancel of what is under construction: a Zerg structure, egg or cocoon (the Drone or
        unit back) by the Zerg rules, else a Protoss warp-in (``systems/warpgate.py``)."""
        if self._any_zerg(c):
            return self.w.zerg.command(c)
        return self.w.warpgates.command(c)

    def _addon(self, c: Command) -> int:
        return self.w.addons.build(c.player, c.ability, c.rows)

    def _upgrade(self, c: Command) -> int:
        return self.w.morph.upgrade(c.player, c.ability, c.rows)

    def _research(self, c: Command) -> int:
        return self.w.research.research(c.player, c.ability, c.rows)

    def _cast(self, c: Command) -> int:
        return self.w.abilities.command(c)

    def _protoss_cast(self, c: Command) -> int:
        return self.w.protoss.command(c)

    def _recall(self, c: Command) -> int:
        return self.w.recall.command(c)

    def _protoss(self, c: Command) -> int:
        return self.w.warpgates.command(c)  # (Chrono Boost, Warp Gates, warp-in, cancel a warp-in)

    def _rally(self, c: Command) -> int:
        return self.w.production.rally(c.rows, c.pos, c.ttag)

    def _cancel_last(self, c: Command) -> int:
        if self.w.larva.eggs:  # (an egg: systems/larva.py)
            got = self.w.larva.cancel(c.player, c.rows)
            if got is not None:
                return got
        res = self.w.production.cancel_last(c.player, c.rows)
        if res != SUCCESS:  # a structure researching (an Engineering Bay, a Tech Lab)
            res = self.w.research.cancel_last(c.player, c.rows)
        return res

    def _build(self, c: Command) -> int:
        workers = self._workers(c)
        if len(workers):  # (a Drone builds Zerg structures, an SCV Terran ones)
            workers = np.array([r for r in workers.tolist() if c.ability in of_type(int(self.u.unit_id[r])).builds],
                               dtype=np.int64)
        if len(workers) == 0:
            return ERROR
        return self.w.construction.build(c.player, c.ability, int(workers[0]), c.pos, c.ttag)

    def _gather(self, c: Command) -> int:
        workers = self._workers(c)
        if c.trow < 0:
            return MUST_TARGET_UNIT
        if len(workers) == 0 and self.w.abilities.mules:  # (MULEs: systems/abilities.py)
            return self.w.abilities.mule_gather(c)
        return self.w.harvest.gather_cmd(c.player, workers, c.ttag, c.queue)

    def _return(self, c: Command) -> int:
        return self.w.harvest.return_cmd(self._workers(c))

    def _economic_smart(self, c: Command) -> int | None:
        """Smart in the economy: producers set their rally; workers on a resource or a gas
        structure gather, on a finished townhall of their player return cargo, on an unfinished
        structure left by its builder resume it (a race whose builder stays)."""
        w = self.w
        rows = c.rows
        types = self.u.unit_id[rows]
        structs = rows[np.isin(types, _PRODUCER_IDS)]
        if len(structs) and len(structs) == len(rows):
            return w.production.rally(rows, c.pos, c.ttag)
        workers = self._workers(c)
        if c.trow >= 0 and len(workers) == len(rows):
            tt = c.ttag
            structures = w.construction.structures
            if tt in w.harvest.resources or (tt in structures and structures[tt].unit_id in GAS_STRUCTURES):
                return w.harvest.gather_cmd(c.player, workers, tt, c.queue)
            s = structures.get(tt)
            if s is not None and s.owner == c.player:
                if s.unit_id in TOWNHALLS and s.ready:
                    return w.harvest.return_cmd(workers)
                if not s.ready and s.builder == 0 and not s.host \
                        and of_type(s.unit_id).construction == BUILDER_STAYS:
                    return w.construction.resume(int(workers[0]), s)
        return None

    def available(self, player: int, r: int) -> list[tuple[int, bool]]:
        """(ability, requires a point) of the economy the unit of row ``r`` may use now, as the
        real client's abilities query lists them: what the player can afford and has the tech
        for."""
        w = self.w
        u = self.u
        uid = int(u.unit_id[r])
        out: list[tuple[int, bool]] = []
        if w.pathing.active:
            # form changes (siege, lift off, land) on the ladder maps; the flat mini-games answer
            # as they always have (their answers are part of what a trained policy saw)
            w.modes.available(player, r, out)
        w.abilities.available(player, r, out)  # casts the unit has the energy (and research) for
        if w.power.active:
            w.warpgates.available(player, r, out)  # Chrono Boost, warp-ins, Warp Gate
        w.protoss.available(player, r, out)  # Protoss units' casts
        w.recall.available(player, r, out)  # the Nexus's and the Mothership's Strategic Recall
        if uid in WORKERS:
            rules = of_type(uid)
            w.construction.available(player, rules, out)
            out.append((rules.gather_ability, False))
            if w.harvest.can_return(int(u.tag[r])):
                out.append((rules.return_ability, False))
            return out
        w.transport.available(r, out)  # (load, unload, salvage of the transports it simulates)
        w.nydus.available(player, r, out)
        if w.has_zerg:  # (Zerg: Queens' casts, a tumor's spawn, a larva's trains)
            w.zerg.available(player, r, out)
        s = w.construction.structures.get(int(u.tag[r]))
        if s is not None and s.ready:
            w.production.available(player, s, out)
            w.research.available(player, s.tag, s.unit_id, out)
        return out

    # ------------------------------------------------------------------ unit orders
    def give(self, rows: np.ndarray, order: Order, queue: bool) -> int:
        """Give ``order`` to ``rows`` (queued behind a busy unit's current order with ``queue``)."""
        u = self.u
        for i in rows.tolist():
            tag = int(u.tag[i])
            if (queue and u.kind[i] != IDLE and u.kind[i] != HOLD) or u.kind[i] == TRANSFORM:
                # (a unit changing form takes the order once the change is done (m))
                u.queues.setdefault(tag, []).append(Order(order.kind, order.ability, order.tx, order.ty,
                                                          order.ttag))
            else:
                u.queues.pop(tag, None)
                u.set_order(i, order)
        return SUCCESS

    def _stop(self, c: Command) -> int:
        u = self.u
        rows = c.rows
        for i in rows.tolist():
            u.queues.pop(int(u.tag[i]), None)
        rows = rows[u.kind[rows] != TRANSFORM]  # (a form change is not stopped)
        u.kind[rows] = IDLE
        u.ability[rows] = 0
        u.ttag[rows] = 0
        u.eng[rows] = 0
        return SUCCESS

    def _hold(self, c: Command) -> int:
        return self.give(c.rows, Order(HOLD, D.HOLDPOSITION_HOLD), c.queue)

    def _explode(self, c: Command) -> int:
        rows = c.rows[TYPES.suicide[self.u.ti[c.rows]]]
        if len(rows) == 0:
            return ERROR
        return self.give(rows, Order(EXPLODE, D.EXPLODE_EXPLODE), False)

    def _stim(self, c: Command) -> int:
        return self.w.research.stim(c.player, c.rows)  # (needs Stimpack researched)

    def _smart(self, c: Command) -> int:
        # on a hostile unit: attack it; SCVs on a damaged machine or structure of their own:
        # repair it; on the player's own transport, Nydus Network or Worm: enter it; on any other
        # unit: follow it; on a point: move there
        if c.trow >= 0 and c.hostile:
            return self._attack(c, D.ATTACK_ATTACK)
        if c.trow >= 0 and not c.hostile:
            res = self.w.repair.smart(c)
            if res is None:
                res = self.w.transport.smart(c)
            if res is None:
                res = self.w.nydus.smart(c)
            if res is not None:
                return res
        return self._move(c)

    def _move(self, c: Command) -> int:
        if self.w.modes.any_rooted():
            c.rows = self.w.modes.can_move(c.rows)
            if len(c.rows) == 0:
                return ERROR
        if c.trow >= 0:
            return self.give(c.rows, Order(FOLLOW, D.MOVE_MOVE, ttag=c.ttag), c.queue)
        assert c.pos is not None
        return self.give(c.rows, Order(MOVE, D.MOVE_MOVE, c.pos[0], c.pos[1]), c.queue)

    def _attack(self, c: Command, ability: int = 0) -> int:
        u = self.u
        shown = D.SCAN_MOVE if (ability or c.ability) == D.SCAN_MOVE else D.ATTACK_ATTACK
        trow = c.trow
        if trow >= 0:
            if not c.hostile and int(u.owner[trow]) == NEUTRAL_OWNER and not TYPES.destructible[u.ti[trow]]:
                return CANT_TARGET_THAT_UNIT  # (destructible rocks may be attacked; minerals may not)
            if c.hostile and self.w.detection.active() and self.w.detection.hidden(c.player)[trow]:
                return CANT_TARGET_THAT_UNIT  # (a cloaked unit the player does not detect)
            ok = c.rows[TYPES.can_hit[u.ti[c.rows], u.ti[trow]]]
            if len(ok) == 0:
                return CANT_TARGET_THAT_UNIT
            return self.give(ok, Order(ATTACK_UNIT, shown, ttag=c.ttag), c.queue)
        assert c.pos is not None
        return self.give(c.rows, Order(ATTACK_MOVE, shown, c.pos[0], c.pos[1]), c.queue)

    def _patrol(self, c: Command) -> int:
        u = self.u
        if self.w.modes.any_rooted():
            c.rows = self.w.modes.can_move(c.rows)
            if len(c.rows) == 0:
                return ERROR
        if c.pos is None:
            tx, ty = float(u.x[c.trow]), float(u.y[c.trow])
        else:
            tx, ty = c.pos
        return self.give(c.rows, Order(PATROL, D.PATROL_PATROL, tx, ty), c.queue)
