"""The Nexus's and the Gateways' abilities: Chrono Boost, Battery Overcharge, Gateway -> Warp Gate,
warping units in at a power field, and cancelling a structure that warps in.

Rules (the real game's; sources per fact, "(m)" where the engine chose):

- *Chrono Boost* (3755, ``EFFECT_CHRONOBOOSTENERGYCOST``, on a structure of the player, anywhere:
  the client's cast range 500): the Nexus pays :data:`CHRONO_ENERGY`; the target's production,
  research and Warp Gate cooldown run 50% faster for :data:`CHRONO_LOOPS` (LP:Chrono_Boost, LotV:
  50 energy, 20 seconds).  The target shows buff 281 (``CHRONOBOOSTENERGYCOST``) meanwhile.  A
  Nexus's energy is :mod:`.abilities`' (50 at the start, 200 at most, LP:Nexus).  The speed itself
  is :mod:`.tempo`'s.
- *Battery Overcharge* (4107, on a finished Shield Battery of the player, anywhere: the client's
  cast range 500): the Nexus pays :data:`OVERCHARGE_ENERGY`; for :data:`OVERCHARGE_LOOPS` the
  Battery restores shields :data:`OVERCHARGE_RATE` times as fast and spends no energy
  (``systems/protoss_abilities.py`` asks :meth:`WarpGates.overcharged`), and shows buff 298
  (the client's ``BatteryOvercharge``; m: a public bot of 5.0.6, sharpy, looked for 286
  ``NexusShieldOvercharge`` on the Battery instead).  Then none of the player's Nexuses may cast
  it again for :data:`OVERCHARGE_COOLDOWN` (``Cooldown``).  All four figures are (m): no source
  for the 5.0.11 client's values could be read here.  The ones used are those usually quoted
  for the ability (50 energy, twice the rate and free for 14 s) and the 60-second cooldown, one
  for the whole player, that the NachOS bot keeps when it casts the ability.
- *Warp Gate*: with Warp Gate researched (upgrade 84 at a Cybernetics Core, the client's research
  time), every finished, powered, idle Gateway of the player transforms into a Warp Gate on its
  own (the transformation is autocast by default, LP:Warp_Gate_(Legacy_of_the_Void)); a Gateway
  producing transforms once its queue is empty (m).  ``MORPH_WARPGATE`` (1518) asks for it by
  hand.  The transformation takes the client's 160 loops (7 faster seconds, same page); it is
  ``systems/morph.py``'s upgrade in place.  ``MORPH_GATEWAY`` (1520, the client's
  ``MorphBackToGateway``) turns a finished Warp Gate that is not changing form back into a
  Gateway, free, in the same 160 loops (m: the time of the way back is not known here); that
  Gateway then stays one (its transformation's autocast is off, m) until 1518 is given to it by
  hand.  A Warp Gate changing form warps nothing in.
- *warp-in* (the ``how="warp"`` train abilities 1413-1419, on a point): a finished, powered Warp
  Gate off cooldown whose player has the unit's tech (the client's requirement) pays the unit and
  its supply; the point must be in a power field of the player (else
  ``CantTrainTooFarFromTrainPowerSource`` (52, m: the real client's code is not known here)) on a
  free pathable spot.  The unit appears there at once, warping in: it cannot act, reports its
  ``build_progress``, and is ready after :data:`WARP_IN_SLOW` loops (16 normal seconds), or
  :data:`WARP_IN_FAST` (5 normal seconds) when the field is a Pylon's whose field covers a Nexus or
  a Warp Gate of the player (LP:Warp_Gate_(Legacy_of_the_Void)).  The Warp Gate's cooldown
  starts with it (:data:`COOLDOWN`); while it runs the Warp Gate's abilities list no warp-in.
  Several Warp Gates commanded together: the first ready one warps (m).  A unit whose field is
  gone before it is ready (its Pylon died) is gone too, its cost comes back in full and its Warp
  Gate's cooldown is over (same page).
- *cancelling a structure that warps in* (314 ``CANCEL_BUILDINPROGRESS``, or the generic 3659):
  the structure is gone and 75% of its cost comes back (LP:Cancel, m: rounded down).
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    CANT_TARGET_THAT_UNIT,
    ERROR,
    NOT_ENOUGH_ENERGY,
    NOT_ENOUGH_FOOD,
    NOT_SUPPORTED,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
    not_simulated,
)
from sc2pool.engine.sim.commands import (
    COOLDOWN as COOLDOWN_RESULT,
)
from sc2pool.engine.sim.encode import varint
from sc2pool.engine.sim.systems.alerts import WARP_IN_COMPLETE
from sc2pool.engine.sim.units import TRANSFORM, TYPES, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

NEXUS, GATEWAY, WARPGATE, PYLON = tech.NEXUS, tech.GATEWAY, tech.WARPGATE, 60
CHRONO = 3755
CHRONO_BUFF = 281
CHRONO_ENERGY = 50.0
CHRONO_LOOPS = int(20 * 22.4)
"""20 faster seconds = 448 loops (LP:Chrono_Boost)."""
OVERCHARGE, OVERCHARGE_BUFF, BATTERY = 4107, 298, 1910
OVERCHARGE_ENERGY = 50.0
OVERCHARGE_LOOPS = round(14 * 22.4)
"""14 faster seconds = 314 loops (m)."""
OVERCHARGE_RATE = 2.0
OVERCHARGE_COOLDOWN = round(60 * 22.4)
"""60 faster seconds = 1344 loops, for the whole player (m)."""
MORPH_WARPGATE = 1518
MORPH_GATEWAY = 1520
WARPGATE_RESEARCH = 84
CANCEL_BUILD, CANCEL = 314, 3659
CANCEL_REFUND = 0.75
CANT_TRAIN_TOO_FAR_FROM_TRAIN_POWER_SOURCE = 52
CANT_FIND_PLACEMENT_LOCATION = 41
WARP_IN_SLOW = 16 * 16
"""16 normal seconds (11.4 faster seconds) = 256 loops (LP:Warp_Gate_(Legacy_of_the_Void))."""
WARP_IN_FAST = 5 * 16
"""5 normal seconds (3.6 faster seconds) = 80 loops, at a Pylon near a Nexus or a Warp Gate."""
FAST_WARP_RANGE = 6.5
"""A Pylon counts as "near" a Nexus or Warp Gate when its power field covers that structure's
centre (m: the page gives no distance)."""
WARPS = {ab: t.unit_id for ab, t in tech.TRAIN.items() if t.how == "warp"}
"""Warp-in ability -> unit (Zealot, Stalker, High Templar, Dark Templar, Sentry, Adept)."""
COOLDOWN = {73: 20, 311: 20, 74: 23, 77: 23, 75: 32, 76: 32}
"""Warp Gate cooldown per unit, faster seconds (LP:Warp_Gate_(Legacy_of_the_Void))."""
ABILITIES = frozenset({CHRONO, OVERCHARGE, MORPH_WARPGATE, MORPH_GATEWAY, CANCEL_BUILD, CANCEL, *WARPS})
"""Every ability this system carries out."""


def _cooldown_loops(unit_id: int) -> int:
    return int(round(COOLDOWN.get(unit_id, 20) * 22.4))


class WarpGates:
    """Chrono Boost, Warp Gates and their cooldowns, units warping in (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.cooldown: dict[int, tuple[float, int]] = {}
        """Warp Gate tag -> (the loop its cooldown started, its length)."""
        self.warping: dict[int, tuple[int, int, int]] = {}
        """Tag of a unit warping in -> (start loop, end loop, ability)."""
        self.warped_by: dict[int, int] = {}
        """Tag of a unit warping in -> the Warp Gate that warps it."""
        self.overcharge: dict[int, int] = {}
        """Tag of an overcharged Shield Battery -> the loop its overcharge ends."""
        self.overcharge_ready: dict[int, int] = {}
        """Player -> the loop its Nexuses may overcharge a Battery again."""
        self.stay: set[int] = set()
        """Tags of the Warp Gates turned back into Gateways: they do not transform again on their
        own."""

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        ab = c.ability
        if ab == CHRONO:
            return self._chrono(c)
        if ab == OVERCHARGE:
            return self._overcharge(c)
        if ab == MORPH_WARPGATE:
            return self._morph(c)
        if ab == MORPH_GATEWAY:
            return self._morph_back(c)
        if ab in (CANCEL_BUILD, CANCEL):
            return self._cancel(c)
        return self._warp(c)

    def _chrono(self, c: Command) -> int:
        res, nexuses = self._nexus_target(c, None)
        if res != SUCCESS:
            return res
        if not self._pay(nexuses, CHRONO_ENERGY):
            return NOT_ENOUGH_ENERGY
        self.w.tempo.boost(c.ttag, self.w.events.now, CHRONO_LOOPS)
        return SUCCESS

    def _overcharge(self, c: Command) -> int:
        res, nexuses = self._nexus_target(c, BATTERY)
        if res != SUCCESS:
            return res
        now = self.w.events.now
        if not self.may_overcharge(c.player, now):
            return COOLDOWN_RESULT
        if not self._pay(nexuses, OVERCHARGE_ENERGY):
            return NOT_ENOUGH_ENERGY
        self.overcharge[c.ttag] = now + OVERCHARGE_LOOPS
        self.overcharge_ready[c.player] = now + OVERCHARGE_COOLDOWN
        return SUCCESS

    def _nexus_target(self, c: Command, unit_id: int | None) -> tuple[int, list[int]]:
        """A Nexus spell's target, a finished structure of the player (of ``unit_id`` when given):
        ``SUCCESS`` and the commanded Nexuses' rows, or what to answer."""
        w = self.w
        u = w.u
        if c.trow < 0 or (unit_id is not None and int(u.unit_id[c.trow]) != unit_id):
            return CANT_TARGET_THAT_UNIT, []
        s = w.construction.structures.get(c.ttag)
        if s is None or s.owner != c.player or not s.ready:
            return CANT_TARGET_THAT_UNIT, []
        nexuses = [i for i in c.rows.tolist() if int(u.unit_id[i]) == NEXUS]
        return (SUCCESS if nexuses else ERROR), nexuses

    def _pay(self, nexuses: list[int], energy: float) -> bool:
        """The first of ``nexuses`` with ``energy`` pays it."""
        u = self.w.u
        return any(self.w.abilities.spend(int(u.tag[i]), energy) for i in nexuses)

    def may_overcharge(self, player: int, loop: int) -> bool:
        """Whether ``player``'s whole-player Battery Overcharge cooldown is over at ``loop``."""
        return self.overcharge_ready.get(player, 0) <= loop

    def overcharged(self, tag: int, loop: int) -> bool:
        """Whether the Shield Battery ``tag`` is overcharged at ``loop``."""
        end = self.overcharge.get(tag)
        return end is not None and end > loop

    def _morph(self, c: Command) -> int:
        """The first commanded Gateway that may becomes a Warp Gate (by hand: it no longer stays
        a Gateway)."""
        if not self.w.research.has(c.player, WARPGATE_RESEARCH):
            return TECH_REQUIREMENTS_NOT_MET
        res = self.w.morph.upgrade(c.player, MORPH_WARPGATE, c.rows)
        for tag in self._started(c, res):
            self.stay.discard(tag)
        return res

    def _morph_back(self, c: Command) -> int:
        """The first commanded Warp Gate that may turns back into a Gateway, which then stays one."""
        res = self.w.morph.upgrade(c.player, MORPH_GATEWAY, c.rows)
        for tag in self._started(c, res):
            self.stay.add(tag)
        return res

    def _started(self, c: Command, res: int) -> list[int]:
        """Tags of the commanded structures whose upgrade in place ``c.ability`` just started."""
        if res != SUCCESS:
            return []
        structures = self.w.construction.structures
        return [s.tag for s in (structures.get(int(t)) for t in self.w.u.tag[c.rows].tolist())
                if s is not None and s.morph is not None and s.morph[0] == c.ability]

    def _cancel(self, c: Command) -> int:
        w = self.w
        u = w.u
        gone = []
        other = False
        for i in c.rows.tolist():
            s = w.construction.structures.get(int(u.tag[i]))
            if s is None or s.ready:
                continue
            if D.unit_spec(s.unit_id).race != D.PROTOSS:
                other = True  # (a Terran or Zerg construction)
                continue
            spec = D.unit_spec(s.unit_id)
            w.supply.pay(c.player, -int(spec.minerals * CANCEL_REFUND), -int(spec.vespene * CANCEL_REFUND))
            gone.append(s.tag)
        if not gone:
            if other:
                not_simulated(c.ability, "only a Protoss structure warping in is cancelled")
                return NOT_SUPPORTED
            return ERROR
        w.remove_tags(gone)
        w.supply.revision += 1
        return SUCCESS

    def placement(self, player: int, ability: int, x: float, y: float) -> int:
        """Whether a unit of warp-in ``ability`` may warp in at (x, y): in a power field of the
        player, on a pathable cell no other ground unit covers."""
        if not (math.isfinite(x) and math.isfinite(y)):
            return CANT_FIND_PLACEMENT_LOCATION
        w = self.w
        w.power.update(w.events.now)
        if not player or w.power.covers(player, x, y) is None:
            return CANT_TRAIN_TOO_FAR_FROM_TRAIN_POWER_SOURCE
        m = w.map
        xi, yi = int(math.floor(x)), int(math.floor(y))
        if not (0 <= xi < m.width and 0 <= yi < m.height) or not m.pathable[yi, xi]:
            return CANT_FIND_PLACEMENT_LOCATION
        if w.pathing.active and not bool(w.pathing.free_at(np.array([x]), np.array([y]))[0]):
            return CANT_FIND_PLACEMENT_LOCATION
        u = w.u
        if len(u):
            rad = D.unit_spec(WARPS[ability]).radius
            ground = ~TYPES.is_flying[u.ti]
            d2 = (u.x - x) ** 2 + (u.y - y) ** 2
            if bool(np.any(ground & (d2 < (TYPES.radius[u.ti] + rad) ** 2))):
                return CANT_FIND_PLACEMENT_LOCATION
        return SUCCESS

    def _warp(self, c: Command) -> int:
        w = self.w
        u = w.u
        uid = WARPS[c.ability]
        if c.pos is None:
            return ERROR
        spec = tech.TRAIN[c.ability]
        first_error = 0
        now = w.events.now
        for i in c.rows.tolist():
            tag = int(u.tag[i])
            s = w.construction.structures.get(tag)
            if s is None or s.unit_id != WARPGATE:
                first_error = first_error or ERROR
                continue
            if not s.ready or s.morph is not None:
                first_error = first_error or BUILDING_IS_UNDER_CONSTRUCTION
                continue
            if not w.power.powered(tag) or self.cooling(tag, now):
                first_error = first_error or COOLDOWN_RESULT
                continue
            if not all(w.construction.ready_of(c.player, t) for t in spec.requires.structures):
                return TECH_REQUIREMENTS_NOT_MET
            res = self.placement(c.player, c.ability, *c.pos)
            if res != SUCCESS:
                return res
            res = w.supply.afford(c.player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                return res
            used, cap = w.supply.food(c.player)
            if used + spec.food > cap:
                return NOT_ENOUGH_FOOD
            w.supply.pay(c.player, spec.minerals, spec.vespene)
            self.cooldown[tag] = (float(now), _cooldown_loops(uid))
            fast = self._fast(c.player, *c.pos)
            new = int(w.spawn(uid, c.player, [c.pos[0]], [c.pos[1]])[0])
            r = u.row(new)
            u.set_order(r, Order(TRANSFORM, c.ability))
            self.warping[new] = (now, now + (WARP_IN_FAST if fast else WARP_IN_SLOW), c.ability)
            self.warped_by[new] = tag
            w.supply.revision += 1
            return SUCCESS
        return first_error or ERROR

    def _fast(self, player: int, x: float, y: float) -> bool:
        """The field at (x, y) is a Pylon's that covers a Nexus or a Warp Gate of the player."""
        w = self.w
        near = [(s.x, s.y) for s in w.construction.structures.values()
                if s.owner == player and s.ready and s.unit_id in (NEXUS, WARPGATE)]
        for src in w.power.sources.get(player, ()):
            if (src.x - x) ** 2 + (src.y - y) ** 2 > src.radius ** 2:
                continue
            if any((src.x - nx) ** 2 + (src.y - ny) ** 2 <= FAST_WARP_RANGE ** 2 for nx, ny in near) \
                    and w.u.unit_id[w.u.row(src.tag)] == PYLON:
                return True
        return False

    def cooling(self, tag: int, loop: int) -> bool:
        cd = self.cooldown.get(tag)
        return cd is not None and cd[0] + cd[1] > loop

    def shift(self, tag: int, shift: float) -> None:
        """Chrono Boost or a pause moves a Warp Gate's cooldown like a production entry (:mod:`.tempo`)."""
        cd = self.cooldown.get(tag)
        if cd is not None:
            self.cooldown[tag] = (cd[0] - shift, cd[1])

    # ------------------------------------------------------------------ upkeep
    def upkeep(self, player: int, loop: int) -> None:
        """Units whose warp-in is done become ready; idle Gateways of a player with Warp Gate
        researched start turning into Warp Gates; ended cooldowns are forgotten."""
        w = self.w
        if self.warping:
            u = w.u
            lost = []
            for tag, (_, end, ab) in list(self.warping.items()):
                r = u.row(tag)
                if r >= 0 and int(u.owner[r]) == player and end > loop \
                        and w.power.covers(player, float(u.x[r]), float(u.y[r])) is None:
                    lost.append((tag, ab))  # its field is gone: the warp-in fails
                    continue
                if end > loop:
                    continue
                del self.warping[tag]
                self.warped_by.pop(tag, None)
                r = u.row(tag)
                if r >= 0 and int(u.kind[r]) == TRANSFORM:
                    u.finish_orders(np.array([r]))  # (the orders given while it warped in start)
                if r >= 0:
                    w.alerts.add(int(u.owner[r]), WARP_IN_COMPLETE)
                w.touch()
            for tag, ab in lost:
                self._interrupted(player, tag, ab)
        for tag in [t for t in self.cooldown if not self.cooling(t, loop)]:
            del self.cooldown[tag]
        for tag in [t for t, end in self.overcharge.items() if end <= loop]:
            del self.overcharge[tag]
        if w.research.has(player, WARPGATE_RESEARCH):
            for s in list(w.construction.structures.values()):
                if s.owner == player and s.unit_id == GATEWAY and s.ready and not s.busy \
                        and s.tag not in self.stay and w.power.powered(s.tag) and w.addons.building(s) is None:
                    r = w.u.row(s.tag)
                    if r >= 0:
                        w.morph.upgrade(player, MORPH_WARPGATE, np.array([r]))

    def _interrupted(self, player: int, tag: int, ability: int) -> None:
        """A unit warping in lost its power field: it is gone, its cost comes back and its Warp
        Gate's cooldown is over (LP:Warp_Gate_(Legacy_of_the_Void))."""
        w = self.w
        spec = tech.TRAIN[ability]
        del self.warping[tag]
        gate = self.warped_by.pop(tag, 0)
        self.cooldown.pop(gate, None)
        w.supply.pay(player, -spec.minerals, -spec.vespene)
        w.remove_tags([tag])
        w.supply.revision += 1

    def horizon(self, loop: int) -> int:
        h = 1 << 30
        for _, end, _ in self.warping.values():
            h = min(h, end - loop)
        return max(1, h)

    def forget(self, alive: set[int]) -> None:
        for d in (self.cooldown, self.warping, self.warped_by, self.overcharge):
            for tag in [t for t in d if t not in alive]:
                del d[tag]  # type: ignore[attr-defined]
        self.stay &= alive

    # ------------------------------------------------------------------ abilities and observation
    def available(self, player: int, r: int, out: list[tuple[int, bool]]) -> None:
        """Chrono Boost for a Nexus with the energy, Battery Overcharge too off its cooldown; a
        ready Warp Gate's warp-ins the player has the tech for and can afford, and its way back to
        Gateway; a Gateway's transformation once Warp Gate is researched."""
        w = self.w
        u = w.u
        uid, tag = int(u.unit_id[r]), int(u.tag[r])
        if uid == NEXUS and w.abilities.energy_of(tag) >= CHRONO_ENERGY:
            out.append((CHRONO, False))
            if self.may_overcharge(player, w.loop) and w.abilities.energy_of(tag) >= OVERCHARGE_ENERGY:
                out.append((OVERCHARGE, False))
        elif uid == WARPGATE:
            s = w.construction.structures.get(tag)
            changing = s is not None and s.morph is not None
            if not changing and not self.cooling(tag, w.loop) and w.power.powered(tag):
                for ab, t in tech.TRAIN.items():
                    if t.how == "warp" and all(w.construction.ready_of(player, x) for x in t.requires.structures) \
                            and w.supply.afford(player, t.minerals, t.vespene) == SUCCESS:
                        out.append((ab, True))
            if s is not None and s.ready and not changing:
                out.append((MORPH_GATEWAY, False))
        elif uid == GATEWAY and w.research.has(player, WARPGATE_RESEARCH):
            out.append((MORPH_WARPGATE, False))

    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """Boosted structures show the Chrono Boost buff, overcharged Batteries theirs; units warping
        in their build progress."""
        w = self.w
        loop = w.loop
        tempo = w.tempo
        for tag in tempo.boosted:
            parts[tag] = parts.get(tag, b"") + b"\xd8\x01" + varint(CHRONO_BUFF)
        for tag, end in self.overcharge.items():
            if end > loop:
                parts[tag] = parts.get(tag, b"") + b"\xd8\x01" + varint(OVERCHARGE_BUFF)
        for tag, (start, end, _) in self.warping.items():
            p = min(1.0, (loop - start) / max(end - start, 1))
            parts[tag] = parts.get(tag, b"") + struct.pack("<Bf", 0x4D, p)
