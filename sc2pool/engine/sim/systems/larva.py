"""Larva: Zerg hatcheries' larvae, the eggs they become and the units that hatch.

Rules (the real game's; sources in brackets, "(m)" where the engine chose):

- *spawning*: a finished Hatchery, Lair or Hive with fewer than :data:`LARVA_CAP` larvae of its own
  gets one more every :data:`LARVA_LOOPS` (11 faster seconds, LP:Larva); the timer starts when it
  drops below 3 (m: the real game's timer keeps running; the engine restarts it).  A larva
  appears below the hatchery (m: the real larvae wander on its lower edge; they stay where they
  appear here).  A larva belongs to the hatchery that made it; one whose hatchery died stays.
- *Spawn Larva* (Queen's inject, :mod:`.zerg_abilities`): :data:`INJECT_LARVAE` more larvae
  :data:`INJECT_LOOPS` after the inject (29 faster seconds, LP:Spawn_Larva), beyond the cap of 3
  (up to :data:`LARVA_MAX` in all, LP:Larva); further injects queue up behind it (patch 3.8,
  LP:Spawn_Larva); meanwhile the hatchery shows the buff
  ``QUEENSPAWNLARVATIMER`` (11), which burnysc2 bots test before injecting again.
- *training*: a larva told to train (a ``data.tech.TRAIN`` ability with ``how="larva"``) pays the
  unit's cost and supply (checked: ``NotEnoughMinerals``/``NotEnoughVespene``/``NotEnoughFood``;
  the tech requirement: ``TechRequirementsNotMet``) and becomes an Egg (type 103, keeping its tag
  (m)) whose order is the train ability with its progress; after the unit's client build time the
  egg becomes the unit (keeping the tag (m)); a Zergling egg hatches two (LP:Zergling; the second
  gets a new tag).  Every larva in the command trains (as the real client does with several
  larvae selected in the raw interface: burnysc2's ``train(..., amount)`` relies on it) while the
  player can pay.  The unit then follows its hatchery's rally (a Drone rallied to a mineral field
  mines it).
- *cancelling* an egg (3659 ``CANCEL``, 3671 ``CANCEL_LAST``) refunds its whole cost and supply and
  turns it back into a larva (LP:Larva).
- *supply*: an egg's unit counts in ``food_used`` from the moment the egg appears.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.commands import ERROR, NOT_ENOUGH_FOOD, SUCCESS, TECH_REQUIREMENTS_NOT_MET
from sc2pool.engine.sim.encode import varint
from sc2pool.engine.sim.systems.alerts import MORPH_COMPLETE
from sc2pool.engine.sim.systems.production import trained_alert
from sc2pool.engine.sim.systems.workers import order_bytes
from sc2pool.engine.sim.units import IDLE, MOVE, TYPES, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

LARVA, EGG = 151, 103
TOWNHALLS = frozenset({86, 100, 101})
LARVA_CAP = 3
"""A hatchery makes larvae while it has fewer than 3 (LP:Larva)."""
LARVA_MAX = 19
"""No hatchery holds more than 19 larvae, injected ones included (LP:Larva)."""
LARVA_LOOPS = 246
"""11 faster seconds (LP:Larva) = 246.4 loops, rounded down (m)."""
INJECT_LARVAE = 3
INJECT_LOOPS = 650
"""Spawn Larva: 3 larvae after 29 faster seconds (LP:Spawn_Larva) = 649.6 loops, rounded up (m)."""
BUFF_SPAWN_LARVA_TIMER = 11
"""``QUEENSPAWNLARVATIMER``: a hatchery with an inject under way (burnysc2's BuffId)."""
CANCEL, CANCEL_LAST = 3659, 3671
CANCEL_ABILITIES = frozenset({CANCEL, CANCEL_LAST})


@dataclass
class Egg:
    """A larva morphing into a unit."""

    ability: int
    unit_id: int
    count: int
    owner: int
    start: int
    end: int
    hatchery: int
    minerals: int
    vespene: int
    food: float
    source: int = LARVA
    """The type it was (a cancel turns it back into it)."""


class Larva:
    """Larvae per hatchery, their timers, the eggs and the injects under way."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.home: dict[int, int] = {}
        """Larva tag -> the hatchery that made it."""
        self.timers: dict[int, int] = {}
        """Hatchery tag -> the loop its next larva appears."""
        self.eggs: dict[int, Egg] = {}
        self.injects: dict[int, list[int]] = {}
        """Hatchery tag -> the loops its pending injects pop."""
        self.rng = np.random.default_rng(0)
        """Where a new larva appears (its own stream: the world's draws the weapons' cooldowns)."""

    @property
    def active(self) -> bool:
        return bool(self.home or self.timers or self.eggs or self.injects)

    # ------------------------------------------------------------------ set-up
    def adopt_larvae(self, hatchery: int, tags: list[int]) -> None:
        """Larvae placed by a scenario (the melee start's 3) belong to ``hatchery``."""
        for t in tags:
            self.home[int(t)] = hatchery

    def _count(self, hatchery: int) -> int:
        return sum(1 for h in self.home.values() if h == hatchery)

    def larvae_of(self, hatchery: int) -> list[int]:
        """Tags of the hatchery's larvae (not eggs)."""
        return [t for t, h in self.home.items() if h == hatchery]

    def _spawn(self, hatchery: int, n: int) -> None:
        s = self.w.construction.structures[hatchery]
        rng = self.rng
        xs = s.x + rng.uniform(-1.5, 1.5, n)
        ys = np.full(n, s.y - 2.0) - rng.uniform(0.0, 0.5, n)
        for t in self.w.spawn(LARVA, s.owner, xs, ys).tolist():
            self.home[int(t)] = hatchery
        self.w.supply.revision += 1

    # ------------------------------------------------------------------ per step
    def upkeep(self, player: int, loop: int) -> None:
        """Larvae appear, eggs hatch, injects pop for ``player`` up to ``loop``."""
        w = self.w
        for tag, s in list(w.construction.structures.items()):
            if s.owner != player or s.unit_id not in TOWNHALLS or not s.ready:
                continue
            n = self._count(tag)
            due = self.injects.get(tag)
            if due:
                popped = [d for d in due if d <= loop]
                if popped:
                    self.injects[tag] = [d for d in due if d > loop]
                    if not self.injects[tag]:
                        del self.injects[tag]
                    k = min(INJECT_LARVAE * len(popped), LARVA_MAX - n)
                    if k > 0:
                        self._spawn(tag, k)
                        n += k
            if n >= LARVA_CAP:
                self.timers.pop(tag, None)
                continue
            at = self.timers.get(tag)
            if at is None:
                self.timers[tag] = loop + LARVA_LOOPS
            elif at <= loop:
                self._spawn(tag, 1)
                if n + 1 < LARVA_CAP:
                    self.timers[tag] = at + LARVA_LOOPS
                else:
                    del self.timers[tag]
        for tag in [t for t, e in self.eggs.items() if e.owner == player and e.end <= loop]:
            self._hatch(tag, self.eggs.pop(tag), loop)

    def horizon(self, loop: int) -> int:
        """Loops until the next larva, hatch or inject (>= 1)."""
        h = 1 << 30
        for at in self.timers.values():
            h = min(h, at - loop)
        for e in self.eggs.values():
            h = min(h, e.end - loop)
        for due in self.injects.values():
            h = min(h, min(due) - loop)
        return max(1, h)

    def forget(self, alive: set[int]) -> None:
        for d in (self.home, self.timers, self.eggs, self.injects):
            for t in [t for t in d if t not in alive]:
                del d[t]  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ commands
    def train(self, player: int, ability: int, rows: np.ndarray) -> int:
        """Every larva among ``rows`` becomes an egg of the unit of ``ability``, while the player
        can pay; the first refusal is the answer when none could."""
        w = self.w
        u = w.u
        spec = tech.TRAIN[ability]
        req = spec.requires
        if req and not all(w.construction.ready_of(player, t) for t in req.structures):
            return TECH_REQUIREMENTS_NOT_MET
        larvae = rows[u.unit_id[rows] == LARVA]
        if len(larvae) == 0:
            return ERROR
        done = 0
        result = ERROR
        for r in larvae.tolist():
            res = w.supply.afford(player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                result = res
                break
            used, cap = w.supply.food(player)
            if spec.food > 0 and used + spec.food > cap:
                result = NOT_ENOUGH_FOOD
                break
            w.supply.pay(player, spec.minerals, spec.vespene)
            tag = int(u.tag[r])
            now = w.events.now
            home = self.home.pop(tag, 0)
            self.eggs[tag] = Egg(ability, spec.unit_id, spec.count, player, now, now + int(math.ceil(spec.time)),
                                 home, spec.minerals, spec.vespene, spec.food)
            if home and home not in self.timers and self._count(home) < LARVA_CAP:
                self.timers[home] = now + LARVA_LOOPS  # (its timer starts as it drops below 3)
            self._retype(r, EGG)
            done += 1
        if done:
            w.touch()
            w.supply.revision += 1
            return SUCCESS
        return result

    def cancel(self, player: int, rows: np.ndarray) -> int | None:
        """Cancel the eggs among ``rows`` (None: none of them is an egg)."""
        u = self.w.u
        eggs = [r for r in rows.tolist() if int(u.tag[r]) in self.eggs]
        if not eggs:
            return None
        for r in eggs:
            tag = int(u.tag[r])
            e = self.eggs.pop(tag)
            self.w.supply.pay(player, -e.minerals, -e.vespene)
            self._retype(r, e.source)
            if e.source == LARVA and e.hatchery in self.w.construction.structures:
                self.home[tag] = e.hatchery
        self.w.touch()
        self.w.supply.revision += 1
        return SUCCESS

    def morph_unit(self, player: int, ability: int, rows: np.ndarray) -> int:
        """The units among ``rows`` that ``ability`` morphs (``data.tech.MORPH`` kind ``"unit"``:
        Zergling -> Baneling, Roach -> Ravager, Hydralisk -> Lurker, Corruptor -> Brood Lord,
        Overlord -> Overseer / Transport Overlord) pay the difference of the costs (the client's;
        ``data.tech``) and become the cocoon, which becomes the product after the product's client
        build time (LP:Baneling, LP:Ravager, LP:Lurker, LP:Brood_Lord, LP:Overseer).  The product's
        supply is taken at the start: a morph whose product needs more supply than its source
        (Ravager and Lurker +1, Brood Lord +2) is refused with ``NotEnoughFood`` without the room
        (LP: their supply costs), and while it morphs the cocoon (whose client food is the
        source's) is counted the difference more (its egg's ``food``)."""
        w = self.w
        u = w.u
        spec = tech.MORPH[ability]
        req = spec.requires
        if req.structures and not all(w.construction.ready_of(player, t) for t in req.structures):
            return TECH_REQUIREMENTS_NOT_MET
        ok = rows[np.isin(u.unit_id[rows], np.array(spec.sources))]
        if w.transport.cargo:  # (a Transport Overlord with units inside does not morph (m): systems/transport.py)
            ok = ok[np.array([not w.transport.carrying(t) for t in u.tag[ok].tolist()], dtype=bool)]
        if len(ok) == 0:
            return ERROR
        done = 0
        result = ERROR
        product_food = D.unit_spec(spec.unit_id).food_required
        held = product_food - D.unit_spec(spec.cocoon).food_required
        for r in ok.tolist():
            res = w.supply.afford(player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                result = res
                break
            source = int(u.unit_id[r])
            used, cap = w.supply.food(player)
            gain = product_food - D.unit_spec(source).food_required
            if gain > 0 and used + gain > cap:
                result = NOT_ENOUGH_FOOD
                break
            w.supply.pay(player, spec.minerals, spec.vespene)
            tag = int(u.tag[r])
            now = w.events.now
            self.eggs[tag] = Egg(ability, spec.unit_id, 1, player, now, now + int(math.ceil(spec.time)), 0,
                                 spec.minerals, spec.vespene, max(held, 0.0), source)
            frac = float(u.hp[r]) / max(float(TYPES.hp_max[u.ti[r]]), 1.0)
            self._retype(r, spec.cocoon)
            u.hp[r] = frac * float(TYPES.hp_max[u.ti[r]])
            u.queues.pop(tag, None)
            done += 1
        if done:
            w.touch()
            w.supply.revision += 1
            return SUCCESS
        return result

    def inject(self, hatchery: int, loop: int) -> None:
        """A Queen's Spawn Larva landed on ``hatchery``: 3 larvae :data:`INJECT_LOOPS` after it, or
        after the injects already under way there (they queue up since patch 3.8: LP:Spawn_Larva)."""
        due = self.injects.setdefault(hatchery, [])
        due.append(max([loop, *due]) + INJECT_LOOPS)

    # ------------------------------------------------------------------ hatching
    def _retype(self, r: int, unit_id: int) -> None:
        u = self.w.u
        u.retype(np.array([r]), unit_id)
        u.hp[r] = float(TYPES.hp_max[u.ti[r]])
        u.kind[r] = IDLE
        u.ability[r] = 0
        u.ttag[r] = 0

    def _hatch(self, tag: int, e: Egg, t: int) -> None:
        w = self.w
        u = w.u
        r = u.row(tag)
        if r < 0:
            return
        self._retype(r, e.unit_id)
        tags = [tag]
        if e.count > 1:
            extra = w.spawn(e.unit_id, e.owner, np.full(e.count - 1, float(u.x[r])),
                            np.full(e.count - 1, float(u.y[r])), free=True)
            tags += [int(x) for x in extra.tolist()]
        w.touch()
        w.supply.revision += 1
        trained = w.production.trained.setdefault(e.owner, {})
        trained[e.unit_id] = trained.get(e.unit_id, 0) + e.count
        w.alerts.add(e.owner, trained_alert(e.unit_id) if e.source == LARVA else MORPH_COMPLETE)  # (a cocoon: a morph)
        s = w.construction.structures.get(e.hatchery)
        if s is None:
            return
        goal = s.rally_pos
        if s.rally_tag:
            rr = u.row(s.rally_tag)
            if rr >= 0:
                goal = (float(u.x[rr]), float(u.y[rr]))
        for t2 in tags:
            r2 = u.row(t2)
            if r2 < 0:
                continue
            if s.rally_tag and e.unit_id in (104,) and s.rally_tag in w.harvest.resources:
                w.harvest.start(r2, t2, s.rally_tag, t)
            elif goal is not None:
                u.set_order(r2, Order(MOVE, D.MOVE_MOVE, goal[0], goal[1]))

    # ------------------------------------------------------------------ what others ask
    def available(self, player: int, out: list[tuple[int, bool]]) -> None:
        """A larva's train abilities the player can afford and has the tech for."""
        w = self.w
        for ab, spec in tech.TRAIN.items():
            if spec.how != "larva" or w.supply.afford(player, spec.minerals, spec.vespene) != SUCCESS:
                continue
            if spec.requires and not all(w.construction.ready_of(player, t) for t in spec.requires.structures):
                continue
            out.append((ab, False))

    def food(self, player: int) -> float:
        """Supply of the player's eggs' units."""
        return sum(e.food for e in self.eggs.values() if e.owner == player)

    def busy(self, tag: int) -> bool:
        """Whether the unit is an egg (it takes no orders)."""
        return tag in self.eggs

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """Eggs: their order (the train ability with its progress); hatcheries with an inject
        under way: the ``QUEENSPAWNLARVATIMER`` buff."""
        loop = self.w.events.now
        for tag, e in self.eggs.items():
            if e.owner == player:
                p = min(1.0, (loop - e.start) / max(e.end - e.start, 1))
                parts[tag] = parts.get(tag, b"") + order_bytes(e.ability, progress=p)
        for tag in self.injects:
            parts[tag] = parts.get(tag, b"") + b"\xd8\x01" + varint(BUFF_SPAWN_LARVA_TIMER)
