"""Modes: a unit changing into its other form, in place, with the real transition time.

One job: a Terran unit or structure becomes its other form (same tag, position, life fraction,
cooldown), taking its transition time, during which it cannot act.  While it changes its order
kind is :data:`~sc2pool.engine.sim.units.TRANSFORM` and its reported order is the mode ability
(the real client shows the morph ability as the unit's order); targeting, locomotion and
collision leave it alone, a new command waits in its queue until the change is done (m), and
the new form's weapon, speed and flight come with its type row (the client's data).

Form changes (``data.tech.MORPH`` kind ``"mode"``; the specific ability or, where the client
remaps it, the generic one burnysc2 may send):

- Siege Tank <-> Siege Tank (Sieged) (388 / 390): sieged, it cannot move (the client's speed 0)
  and fires the Crucio Shock Cannon (range 13, 40 +30 armored), with a minimum range
  (``data.units.MIN_RANGE``, targeting) and splash rings hitting friend and foe
  (``data.units.SPLASH_RINGS``, combat);
- Hellion <-> Hellbat (1998 / 1978): the Hellbat needs a finished Armory (LP:Hellbat);
- Viking Fighter (air, anti-air) <-> Viking Assault (ground, anti-ground) (403 / 405);
- Widow Mine burrow / unburrow (2095 / 2097, generic 3661 / 3662): the burrowed mine is cloaked
  (``systems/detection.py``) and fires its Sentinel Missiles (``systems/abilities.py``); each
  change takes 67 loops, 24 when the mine's owner has Drilling Claws
  (``data.units.TRANSITION_UPGRADES``: the time is set when the change starts);
- Thor Explosive <-> High Impact Payload (2364 / 2362): the form change and each form's client
  weapons.

Lifting off and landing (``"lift"`` / ``"land"``, generic 3679 / 3678): a finished Barracks,
Factory, Starport, Command Center or Orbital Command with nothing in production, no add-on being
built and no upgrade under way lifts off into its flying type (an air unit that moves at its
client speed); its add-on stays where it stood, becoming a free Tech Lab / Reactor (the client's
types 5 / 6), and the structure's ``add_on_tag`` is 0.  Landing at a point: the flying structure
flies there (its order the land ability with the point), the spot is checked as a structure's
placement (``Placement.fits``: placeable cells, no structure, resource or rock, townhalls away
from resources), then it lands, taking its time; a free add-on of its owner standing at its
add-on spot attaches to it (and becomes that structure's Tech Lab / Reactor), as burnysc2 bots
rely on to swap add-ons.  The pathing grid (and game_info's) frees the footprint when the
structure lifts and blocks it again when it lands (the pathing system follows the store's
blockers; flying types block nothing).

A form change shift-queued behind a unit's orders starts when it comes up (a lift-off or landing
is carried out at once).

Liberator Defender Mode (2558, a point; LP:Liberator): the Liberator flies until the point is
within :data:`ZONE_CAST_RANGE` (the client's cast range of 2558) of its centre, then changes into
the LiberatorAG (type 734: its client weapon, 75 damage at range 10, ground only, speed 0) over
its transition time; its zone is the disc of radius :data:`ZONE_RADIUS` round the point, and it
attacks only ground units inside it (``systems/targeting.py`` asks :attr:`Modes.zones`).
Fighter Mode (2560) changes it back and drops the zone.  Advanced Ballistics raises the
LiberatorAG's range to 12 (``systems/research.py``).  The zone's radius stays 5; its cast range
grows by the same 2 (:meth:`Modes.zone_cast_range`; m: the source names the attack's range only,
and without the longer cast range the longer attack range would never count, since a target
whose edge is inside a zone cast from 5 away is at most 10 - 0.75 = 9.25 from the Liberator, edge
to edge).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data import tech
from sc2pool.engine.data.units import MODE_TRANSITION_LOOPS
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    ERROR,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
)
from sc2pool.engine.sim.units import HOLD, IDLE, MOVE, TRANSFORM, TYPES, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

TRANSITION_LOOPS = MODE_TRANSITION_LOOPS
"""Game loops each form change this system carries out takes (``data.units``, cited there)."""
ROOTED = frozenset(spec.unit_id for ab, spec in tech.MORPH.items() if ab in TRANSITION_LOOPS and spec.kind == "mode"
                   and spec.unit_id in TYPES.row_of and TYPES.speed[TYPES.row(spec.unit_id)] == 0)
"""Forms that cannot move (the client's speed 0: the sieged tank, the burrowed mine): a move or
patrol order to them is refused (m: the real client's answer is not known)."""
_ROOTED_LUT = np.isin(TYPES.unit_id, np.array(sorted(ROOTED)))
"""Per type row: a form that cannot move."""
_FLAGS = np.where(TYPES.is_flying, 1, 0) + np.isin(TYPES.unit_id, np.array([500])) * 2
"""Per type row: 1 flying, 2 burrowed (the burrowed forms the engine simulates: the Widow Mine)."""
_FLAG_BYTES = {1: b"\xa0\x01\x01", 2: b"\xa8\x01\x01", 3: b"\xa0\x01\x01\xa8\x01\x01"}
LIBERATOR_AG, LIBERATOR_AA, LIBERATOR = 2558, 2560, 689
ZONE_CAST_RANGE = 5.0
"""The client's ``cast_range`` of 2558: how far from the Liberator's centre the zone's centre may be."""
ZONE_RADIUS = 5.0
"""The Defender Mode zone's radius: the client's ``EffectData`` 9 ``LiberatorTargetMorphPersistent``
("LiberatorDefenderZone"), radius 5."""
ATTACH_TOLERANCE = 0.5
"""How far (per axis) a free add-on's record may be from the landed structure's add-on spot and
still attach (m): on the flat arenas units may push structures a little."""
TECHLAB, REACTOR = 5, 6
"""The client's types of a free (unattached) add-on."""
_ATTACHED: dict[tuple[int, int], int] = {}
"""(structure type, free add-on type) -> the attached add-on type (BarracksTechLab, ...), from the
client's add-on abilities."""
for _a in tech.ADDON.values():
    _ATTACHED[(_a.structure, TECHLAB if _a.generic_ability == 3682 else REACTOR)] = _a.unit_id
_FREE = {attached: free for (_, free), attached in _ATTACHED.items()}
"""Attached add-on type -> its free type."""


def _table() -> dict[int, dict[int, tech.MorphSpec]]:
    """Ability (specific or generic) -> {source type: its morph spec}, for the simulated modes."""
    out: dict[int, dict[int, tech.MorphSpec]] = {}
    for ab in TRANSITION_LOOPS:
        spec = tech.MORPH[ab]
        for ability in {ab, tech.generic(ab)}:
            for src in spec.sources:
                out.setdefault(ability, {})[src] = spec
    return out


SPECS = _table()
ABILITIES = frozenset(SPECS)
"""Every ability this system carries out."""
_BY_SOURCE: dict[int, list[tuple[int, tech.MorphSpec]]] = {}
"""Source type -> its (specific ability, spec) form changes."""
for _ab in TRANSITION_LOOPS:
    for _src in tech.MORPH[_ab].sources:
        _BY_SOURCE.setdefault(_src, []).append((_ab, tech.MORPH[_ab]))
LAND_PRODUCT = {ab: spec.unit_id for ab, spec in tech.MORPH.items() if ab in TRANSITION_LOOPS and spec.kind == "land"}
LAND_PRODUCT[3678] = 21
"""Land ability -> the landed type, for placement queries (the generic 3678 names no structure:
answered for a 3x3 one, the Barracks (m))."""


@dataclass
class Transition:
    """A form change under way."""

    ability: int
    product: int
    end: int
    """The loop it is done."""
    land: tuple[float, float] | None = None
    """A landing: the footprint centre it lands on."""
    zone: tuple[float, float] | None = None
    """A Liberator going into Defender Mode: its zone's centre."""


class Modes:
    """Form changes under way, and flying structures on their way to land."""

    _flagged: tuple[int, list[tuple[int, bytes]]] = (-1, [])
    """(the unit store's version, (tag, field bytes) of every flying or burrowed unit then) of
    :meth:`extras` (a class default, so that a state pickled before it existed still loads)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.pending: dict[int, Transition] = {}
        """Tag -> the form change it is in."""
        self.landing: dict[int, tuple[int, float, float]] = {}
        """Tag of a flying structure on its way to land -> (land ability, x, y of the spot)."""
        self.queued: set[int] = set()
        """Tags with a form change queued behind their orders (started when it comes up)."""
        self.zones: dict[int, tuple[float, float]] = {}
        """Tag of a Liberator in Defender Mode -> its zone's centre."""
        self.approach: dict[int, tuple[float, float]] = {}
        """Tag of a Liberator flying to put a zone at the point -> the point."""
        self._rooted_version = -1
        self._any_rooted = False

    @property
    def active(self) -> bool:
        """Whether :meth:`update` has anything to do after an advance."""
        return bool(self.pending) or bool(self.landing) or bool(self.queued) or bool(self.approach)

    def horizon(self) -> int:
        """Loops the world may advance before a form change ends (a flying structure arriving
        at its landing spot is bounded by locomotion's arrival)."""
        if not self.pending:
            return 1 << 30
        return max(1, min(t.end for t in self.pending.values()) - self.w.loop)

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        """Carry out a mode ability for the commanded units that can use it."""
        u = self.w.u
        by_src = SPECS[c.ability]
        kinds = {s.kind for s in by_src.values()}
        if "land" in kinds:
            return self._land(c, by_src)
        if c.ability == LIBERATOR_AG:
            return self._defend(c)
        first_error = 0
        started = False
        for i in c.rows.tolist():
            spec = by_src.get(int(u.unit_id[i]))
            if spec is None or (int(u.kind[i]) == TRANSFORM and not c.queue):
                first_error = first_error or ERROR
                continue
            if spec.kind == "lift":
                res = self._can_lift(int(u.tag[i]))
                if res != SUCCESS:
                    first_error = first_error or res
                    continue
            elif not self._requirements_met(c.player, spec):
                first_error = first_error or TECH_REQUIREMENTS_NOT_MET
                continue
            if c.queue and spec.kind != "lift" and int(u.kind[i]) not in (IDLE, HOLD):
                # shift-queued behind what the unit is doing: it changes form when that is done
                tag = int(u.tag[i])
                u.queues.setdefault(tag, []).append(Order(TRANSFORM, spec.ability_id))
                self.queued.add(tag)
            else:
                self._start(i, spec)
            started = True
        return SUCCESS if started else (first_error or ERROR)

    def _defend(self, c: Command) -> int:
        """Liberators in fighter mode put their zone at the point: each flies until the point is
        within :data:`ZONE_CAST_RANGE`, then changes form (see the module docstring)."""
        w = self.w
        u = w.u
        if c.pos is None:
            return ERROR
        zx, zy = c.pos
        started = False
        for i in c.rows.tolist():
            if int(u.unit_id[i]) != LIBERATOR or int(u.kind[i]) == TRANSFORM:
                continue
            tag = int(u.tag[i])
            u.queues.pop(tag, None)
            x, y = float(u.x[i]), float(u.y[i])
            d = math.hypot(zx - x, zy - y)
            reach = self.zone_cast_range(c.player)
            if d <= reach + 1e-6:
                self._start(i, SPECS[LIBERATOR_AG][LIBERATOR], zone=(zx, zy))
            else:  # to the point on the line whose distance to the zone is the cast range
                k = (d - reach + 1e-3) / d
                u.set_order(i, Order(MOVE, LIBERATOR_AG, x + (zx - x) * k, y + (zy - y) * k))
                self.approach[tag] = (zx, zy)
            started = True
        w.touch()
        return SUCCESS if started else ERROR

    def _requirements_met(self, player: int, spec: tech.MorphSpec) -> bool:
        """The structures the form needs are finished (the Hellbat's Armory)."""
        return not spec.requires.structures or (
            self.w.has_economy and all(self.w.construction.ready_of(player, t) for t in spec.requires.structures))

    def _can_lift(self, tag: int) -> int:
        s = self.w.construction.structures.get(tag)
        if s is None:
            return ERROR
        if not s.ready:
            return BUILDING_IS_UNDER_CONSTRUCTION
        if s.busy or s.mode or self.w.addons.building(s) is not None:
            return ERROR  # lifting off only when idle (LP:Barracks)
        return SUCCESS

    def _start(self, i: int, spec: tech.MorphSpec, land: tuple[float, float] | None = None,
               keep_queue: bool = False, zone: tuple[float, float] | None = None) -> None:
        """Row ``i`` starts changing form (its queued orders are dropped, unless the change came
        up from that queue)."""
        u = self.w.u
        tag = int(u.tag[i])
        ab = spec.ability_id
        if not keep_queue:
            u.queues.pop(tag, None)
        u.set_order(i, Order(TRANSFORM, ab))
        loops = self.w.research.transition(ab, int(u.owner[i]), TRANSITION_LOOPS[ab])
        self.pending[tag] = Transition(ab, spec.unit_id, self.w.loop + loops, land, zone)
        self.zones.pop(tag, None)  # (a Liberator leaving Defender Mode has no zone meanwhile (m))
        s = self.w.construction.structures.get(tag)
        if s is not None:
            s.mode = ab
        self.w.touch()

    def zone_cast_range(self, player: int) -> float:
        """How far from a Liberator of ``player`` its Defender Mode zone's centre may be: the
        client's :data:`ZONE_CAST_RANGE`, longer by the attack range Advanced Ballistics adds."""
        from sc2pool.engine.sim.systems.research import ADVANCED_BALLISTICS, BALLISTICS_RANGE

        if self.w.research.has(player, ADVANCED_BALLISTICS):
            return ZONE_CAST_RANGE + BALLISTICS_RANGE
        return ZONE_CAST_RANGE

    def _land(self, c: Command, by_src: dict[int, tech.MorphSpec]) -> int:
        """Flying structures fly to the point and land there (the first that may)."""
        w = self.w
        u = w.u
        if c.pos is None:
            return ERROR
        from sc2pool.engine.sim.systems.placement import half_size, snap

        first_error = 0
        for i in c.rows.tolist():
            spec = by_src.get(int(u.unit_id[i]))
            if spec is None or int(u.kind[i]) == TRANSFORM:
                first_error = first_error or ERROR
                continue
            hx, hy = half_size(spec.unit_id)
            x, y = snap(c.pos[0], hx), snap(c.pos[1], hy)
            res = w.placement.fits(spec.unit_id, x, y)
            if res != SUCCESS:
                first_error = first_error or res
                continue
            tag = int(u.tag[i])
            u.queues.pop(tag, None)
            if math.hypot(float(u.x[i]) - x, float(u.y[i]) - y) < 1e-6:
                self._start(i, spec, (x, y))
            else:
                u.set_order(i, Order(MOVE, spec.ability_id, x, y))
                self.landing[tag] = (spec.ability_id, x, y)
            w.touch()
            return SUCCESS
        return first_error or ERROR

    # ------------------------------------------------------------------ the loop
    def update(self) -> None:
        """After each advance: flying structures that reached their spot start landing (the spot
        checked again), form changes that are due are done."""
        w = self.w
        u = w.u
        if self.landing:
            for tag, (ab, x, y) in list(self.landing.items()):
                i = u.row(tag)
                if i < 0:
                    del self.landing[tag]
                    continue
                if int(u.kind[i]) == MOVE and int(u.ability[i]) == ab:
                    continue  # still flying there
                del self.landing[tag]
                if int(u.kind[i]) != IDLE or math.hypot(float(u.x[i]) - x, float(u.y[i]) - y) > 1e-3:
                    continue  # another order replaced the landing
                spec = SPECS[ab][int(u.unit_id[i])]
                if w.placement.fits(spec.unit_id, x, y) != SUCCESS or \
                        w.placement.enemy_in_the_way(spec.unit_id, x, y, int(u.owner[i])):
                    continue  # the spot was taken meanwhile (or an enemy stands there): it stays in the air
                u.x[i], u.y[i] = x, y
                self._start(i, spec, (x, y))
        if self.approach:
            for tag, (zx, zy) in list(self.approach.items()):
                i = u.row(tag)
                if i < 0:
                    del self.approach[tag]
                    continue
                if int(u.kind[i]) == MOVE and int(u.ability[i]) == LIBERATOR_AG:
                    continue  # still flying there
                del self.approach[tag]
                if int(u.kind[i]) != IDLE or int(u.unit_id[i]) != LIBERATOR or \
                        math.hypot(float(u.x[i]) - zx, float(u.y[i]) - zy) > \
                        self.zone_cast_range(int(u.owner[i])) + 0.01:
                    continue  # another order replaced it
                self._start(i, SPECS[LIBERATOR_AG][LIBERATOR], zone=(zx, zy))
        if self.queued:
            self._start_queued()
        if not self.pending:
            return
        loop = w.loop
        for tag, t in list(self.pending.items()):
            if t.end > loop:
                continue
            del self.pending[tag]
            i = u.row(tag)
            if i >= 0:
                self._finish(i, tag, t)

    def _start_queued(self) -> None:
        """Queued form changes that came up (the unit's order is now the mode ability) start;
        one the unit can no longer make (its form changed, the Armory is gone) is skipped."""
        u = self.w.u
        for tag in list(self.queued):
            i = u.row(tag)
            if i < 0:
                self.queued.discard(tag)
                continue
            if int(u.kind[i]) == TRANSFORM and tag not in self.pending:
                spec = SPECS.get(int(u.ability[i]), {}).get(int(u.unit_id[i]))
                if spec is not None and self._requirements_met(int(u.owner[i]), spec):
                    self._start(i, spec, keep_queue=True)
                else:
                    u.finish_orders(np.array([i]))
            if not any(o.kind == TRANSFORM for o in u.queues.get(tag, ())) and \
                    not (int(u.kind[i]) == TRANSFORM and tag not in self.pending):
                self.queued.discard(tag)

    def _finish(self, i: int, tag: int, t: Transition) -> None:
        w = self.w
        u = w.u
        frac = float(u.hp[i]) / max(float(TYPES.hp_max[u.ti[i]]), 1.0)
        u.retype([i], t.product)
        i = u.row(tag)
        u.hp[i] = frac * float(TYPES.hp_max[u.ti[i]])
        s = w.construction.structures.get(tag)
        if s is not None:
            s.mode = 0
            s.unit_id = t.product
            if t.land is not None:
                s.x, s.y = t.land
                self._attach(s)
            elif s.addon:
                self._detach(s)
            w.supply.revision += 1
        if t.zone is not None:
            self.zones[tag] = t.zone
        u.finish_orders(np.array([i]))
        if w.pathing.active:
            w.pathing.sync()  # the footprint is freed (lift off) or blocked again (landing)
        w.touch()

    def _detach(self, s: Structure) -> None:
        """A structure lifting off leaves its add-on standing, free."""
        w = self.w
        a = w.construction.structures.get(s.addon)
        s.addon = 0
        if a is None:
            return
        a.host = 0
        free = _FREE.get(a.unit_id)
        if free is not None and a.ready:
            self._retype_structure(a, free)

    def _attach(self, s: Structure) -> None:
        """A structure that landed takes over a free add-on of its owner at its add-on spot."""
        from sc2pool.engine.sim.systems.addons import addon_spot

        ax, ay = addon_spot(s.x, s.y)
        for a in self.w.construction.structures.values():
            if a.owner == s.owner and a.host == 0 and a.ready and a.unit_id in (TECHLAB, REACTOR) \
                    and abs(a.x - ax) < ATTACH_TOLERANCE and abs(a.y - ay) < ATTACH_TOLERANCE:
                kind = _ATTACHED.get((s.unit_id, a.unit_id))
                if kind is None:
                    return  # (a townhall takes no add-on)
                a.host = s.tag
                s.addon = a.tag
                self._retype_structure(a, kind)
                return

    def _retype_structure(self, a: Structure, unit_id: int) -> None:
        u = self.w.u
        a.unit_id = unit_id
        r = u.row(a.tag)
        if r >= 0:
            u.retype([r], unit_id)

    # ------------------------------------------------------------------ observation
    def extras(self, parts: dict[int, bytes]) -> None:
        """``is_flying`` (field 20) of every unit of a flying type and ``is_burrowed`` (21) of a
        burrowed one, as the real client reports them (a lifted structure, a Viking in fighter
        mode, a burrowed Widow Mine)."""
        u = self.w.u
        version, flagged = self._flagged
        if version != u.version:  # (flags follow the types, which change only with the version)
            flags = _FLAGS[u.ti]
            rows = np.flatnonzero(flags)
            flagged = [(tag, _FLAG_BYTES[f]) for tag, f in zip(u.tag[rows].tolist(), flags[rows].tolist(), strict=True)]
            self._flagged = (u.version, flagged)
        for tag, b in flagged:
            parts[tag] = parts.get(tag, b"") + b

    # ------------------------------------------------------------------ what the others ask
    def available(self, player: int, r: int, out: list[tuple[int, bool]]) -> None:
        """Append the form changes the unit of row ``r`` may start now, as the real client's
        abilities query lists them (the specific abilities; landing requires a point)."""
        w = self.w
        u = w.u
        if int(u.kind[r]) == TRANSFORM:
            return
        uid = int(u.unit_id[r])
        for ab, spec in _BY_SOURCE.get(uid, ()):
            if spec.kind == "lift" and self._can_lift(int(u.tag[r])) != SUCCESS:
                continue
            if spec.requires.structures and not all(w.construction.ready_of(player, t)
                                                    for t in spec.requires.structures):
                continue
            out.append((ab, spec.kind == "land" or ab == LIBERATOR_AG))

    def any_rooted(self) -> bool:
        """Whether any unit is of a form that cannot move (cached per unit-set version)."""
        u = self.w.u
        if self._rooted_version != u.version:
            self._rooted_version = u.version
            self._any_rooted = bool(_ROOTED_LUT[u.ti].any())
        return self._any_rooted

    def can_move(self, rows: np.ndarray) -> np.ndarray:
        """The rows that are not of a form that cannot move."""
        return rows[~_ROOTED_LUT[self.w.u.ti[rows]]]
