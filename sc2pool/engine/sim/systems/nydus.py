"""Nydus: the Zerg Nydus Networks and Nydus Worms, one underground cargo per player.

One job: the Nydus transport.  A Nydus Network summons Nydus Worms; the player's units enter any
finished Network or Worm and leave the map into the player's one shared cargo (taken out of the
unit store with their columns kept, as ``systems/transport.py`` carries units: same tag, same
life when they come out), and come out at whichever Network or Worm the player unloads.

Rules (the real game's; sources in brackets, "(m)" where the engine chose):

- *Nydus Network* (95): a Drone builds it with a Lair (``data.tech``; the client's 200 / 150 and
  800 loops, 150 / 150 without the Drone, LP:Nydus_Network_(Legacy_of_the_Void)); it is an
  ordinary Zerg structure on creep (``systems/construction.py``, ``systems/creep.py``).
- *Summon Nydus Worm* (1768, a point): a finished Network places a Nydus Worm (142, the client's
  ``NydusCanal``) at the point, paying the client's 75 minerals / 75 gas at once; the worm appears
  as a structure under construction with 10% life, grows to full life over the client's 320
  loops (LP: 14 seconds) and can be attacked meanwhile; then it is an entrance and an exit.
  Placement: the worm's 3x3 footprint on placeable cells free of structures, resources and
  enemy ground units (``systems/placement.py``), with no creep needed and the point seen by the
  player now (LP: "A Nydus Worm can be built anywhere one has vision, without need for Creep or a
  Drone"; m: the cell of the centre must be seen, ``systems/vision.py``), else
  ``CantSeeBuildLocation``.  A Network summons one worm at a time (LP: "You cannot
  (simultaneously) build multiple Nydus Worms from a single network, but you can build another
  Nydus Worm after the first worm is done spawning"); its worm dying before it is done frees it
  too (m).  Another finished Network of the command takes the order when the first is busy (m).
- *creep*: a finished worm spreads creep round itself (LP:Nydus_Worm_(Legacy_of_the_Void):
  "When created, the Nydus Worm generates Creep around itself"), :data:`WORM_CREEP_RADIUS` (m: the
  radius is not known here), ``systems/creep.py``; it needs no creep itself (it stands off creep
  unharmed, ``systems/zerg_abilities.py``).
- *one cargo*: all of a player's Networks and Worms share one cargo (LP: "All worms and networks
  are connected to each other"; units entering one "can exit from any other"), of up to
  :data:`MAX_UNITS` units and :data:`CAPACITY` cargo slots (LP: "a maximum of 255 ground units",
  "the maximum cargo space that a Nydus Worm has is 1020"; the client's cargo size per unit, a
  Zergling 1, an Ultralisk 8).  It is reported on every finished Network and Worm of the player
  as ``systems/transport.py`` reports a transport's (``passengers``, ``cargo_space_taken``,
  ``cargo_space_max``: burnysc2's ``Unit.passengers``, ``cargo_used``, ``cargo_max``).
- *what may enter*: the player's own ground units with a cargo size (the client's
  ``UnitTypeData.cargo_size``: not Larvae, Eggs, Broodlings, Changelings, uprooted crawlers);
  not air units, structures, burrowed units, units changing form, nor a unit the player controls
  by Neural Parasite (starcraft.fandom "Nydus worm": "Air units, mobile crawlers, and allied units
  cannot be loaded"; LP: "ground units"; the Neural Parasite rule: a guide, game.lhg100.com,
  "Learning Starcraft 2 Nydus Network Tactics").  Massive units enter (the client gives the
  Ultralisk a cargo size).
- *load*: 1437 (Network) / 2370 (Worm) / the generic 3668, given to a finished Network or Worm
  with the unit as target, or smart (1) of the player's units on its own finished Network or
  Worm: each unit that may enter walks there (its order shows the load ability) and enters when
  its edge is within ``transport.LOAD_RANGE`` of the building's (m); it enters at once (m: LP's
  0.25 s to enter is not simulated).  A unit that may not enter, told by smart, follows.
- *unload*: 1438 (Network) / 2371 (Worm) / the generic 3664 on finished Networks or Worms: each
  lets the units out one at a time, in the order they entered (m), one every
  :data:`UNLOAD_PERIOD` loops (LP: "Units take .25s to enter the Nydus Worm and .5s to exit it"),
  the first one period after the order (m), until the cargo is empty (m); a unit comes out idle
  on the nearest free spot round the building (m: round it in turn).  1440 (Network) / 2373
  (Worm) / the generic 3796 or 3670 with a passenger's tag as target: that unit comes out there
  the same way.
- *losses*: units inside are safe, whatever happens to the building they entered by; when the
  player has no Network or Worm left (finished or not, m) the units inside die (LP: "Units in the
  Nydus Network will die only if all worms and networks on the map are destroyed"; Karune,
  Blizzard, 2008, quoted by sc2blog.com: "If you lose all openings to this tunnel system, you
  will then lose all units in that tunnel system").  They still use food while inside (LP:Supply).

- *alerts*: summoning a worm warns every other player with ``NydusWormDetected`` in its next
  observation (the real client's alert; ``systems/alerts.py``: m, as soon as the worm is placed);
  the worm finishing is its owner's ``BuildingComplete``.

Not simulated: the 3 armor a worm has while it sets up
(LP:Nydus_Network_(Legacy_of_the_Void)); an invulnerability of the worm (LP:Nydus_Worm_(Legacy_of_
the_Void) says worms were invincible while emerging in the Legacy of the Void beta; the Network's
page, newer, gives the 3 armor instead, and no source here gives an invulnerability after it
emerges: the engine's worm can be attacked from the start); cancelling a worm under construction
(175 / 3659); unloading at a point (1439 / 2372 / 3669); a Network's rally point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.data import units as F
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    CANT_BUILD_LOCATION_INVALID,
    CANT_SEE_BUILD_LOCATION,
    ERROR,
    NOT_SUPPORTED,
    SUCCESS,
    not_simulated,
)
from sc2pool.engine.sim.encode import varint, wrap
from sc2pool.engine.sim.systems.alerts import NYDUS_WORM_DETECTED
from sc2pool.engine.sim.systems.construction import CONSTRUCTION_START_LIFE, Structure
from sc2pool.engine.sim.systems.placement import half_size, snap
from sc2pool.engine.sim.systems.transport import LOAD_RANGE, Cargo, cargo_size
from sc2pool.engine.sim.systems.zerg_abilities import _BURROWED_LUT
from sc2pool.engine.sim.units import FOLLOW, NO_DEATHS, TRANSFORM, TYPES, Deaths, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

NETWORK, WORM = 95, 142
"""NydusNetwork, NydusCanal (the client's name of the Nydus Worm)."""
SUMMON = 1768
LOAD = {1437: NETWORK, 2370: WORM, 3668: 0}
"""Load abilities -> the type that uses them (0: the generic one, either)."""
UNLOAD_ALL = {1438: NETWORK, 2371: WORM, 3664: 0}
UNLOAD_UNIT = {1440: NETWORK, 2373: WORM, 3796: 0, 3670: 0}
LOAD_ABILITY = {NETWORK: 1437, WORM: 2370}
ABILITIES = frozenset({SUMMON, *LOAD, *UNLOAD_ALL, *UNLOAD_UNIT})
"""Every ability this system answers (the generic ones only for Networks and Worms: the others go
on to ``systems/transport.py``)."""
_SPECIFIC = frozenset({SUMMON, 1437, 2370, 1438, 2371, 1440, 2373})
CAPACITY = F.FACTS[NETWORK].cargo
"""Cargo slots of the shared cargo (``data.units.FACTS``: 1020, as LP gives)."""
MAX_UNITS = 255
"""Units the shared cargo holds at most (LP)."""
UNLOAD_PERIOD = 11
"""Loops between two units coming out (LP: 0.5 s; m: 11.2 loops at 22.4 a faster second, rounded)."""
WORM_CREEP_RADIUS = 6.0
"""(m) Creep radius round a finished Nydus Worm (``systems/creep.py``): the real one is not known here."""
_NYDUS_LUT = np.isin(TYPES.unit_id, np.array([NETWORK, WORM]))
"""Per type row: a Nydus Network or Worm."""
_GOLDEN = math.pi * (3.0 - math.sqrt(5.0))
"""The angle between two units coming out one after the other (they fan out round the building)."""


@dataclass
class Exit:
    """A Network or Worm letting units out."""

    next: int
    """The loop the next unit comes out."""
    all: bool = False
    """Unload all: every unit inside comes out (else only ``tags``)."""
    tags: list[int] = field(default_factory=list)
    """Passengers told to come out here one by one (1440 / 3796)."""
    turn: int = 0
    """Units it let out so far (the next one's place round it)."""


class Nydus:
    """The players' Nydus cargo (kept in ``Transport.pools``), units on their way in, Networks and
    Worms letting units out, worms being summoned."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.boarding: dict[int, int] = {}
        """Tag of a unit walking into a Network or Worm -> that building's tag."""
        self.exits: dict[int, Exit] = {}
        """Tag of a Network or Worm letting units out -> what it lets out."""
        self.worms: dict[int, int] = {}
        """Tag of a Network -> the worm it summoned, while that one is under construction."""
        self._openings: tuple[int, set[int]] = (-1, set())
        """(unit-set version, the players with a Network or Worm standing then)."""

    @property
    def pools(self) -> dict[int, Cargo]:
        """Player -> the cargo its Networks and Worms share (``systems/transport.py`` keeps it: its
        passengers are alive and use food)."""
        return self.w.transport.pools

    @property
    def active(self) -> bool:
        """Whether :meth:`update` has anything to do after an advance."""
        return bool(self.boarding) or bool(self.exits) or bool(self.worms) or \
            any(p.passengers for p in self.pools.values())

    def horizon(self) -> int:
        """Loops the world may advance before the next unit comes out (>= 1)."""
        if not self.exits:
            return 1 << 30
        return max(1, min(e.next for e in self.exits.values()) - self.w.loop)

    # ------------------------------------------------------------------ rules
    def ready(self, r: int) -> bool:
        """Row ``r`` is a finished Network or Worm."""
        if not _NYDUS_LUT[self.w.u.ti[r]]:
            return False
        s = self.w.construction.structures.get(int(self.w.u.tag[r]))
        return s is None or s.ready

    def fits(self, i: int, player: int) -> bool:
        """The unit of row ``i`` may enter the Nydus of ``player`` now (see the module docstring)."""
        w = self.w
        u = w.u
        ti = u.ti[i]
        if int(u.owner[i]) != player or TYPES.is_flying[ti] or TYPES.structure[ti] or TYPES.speed[ti] <= 0:
            return False
        if int(u.kind[i]) == TRANSFORM or _BURROWED_LUT[ti]:
            return False  # (burrowing or burrowed: m, it may enter once up)
        spells = w.zerg.spells
        if spells.controls and any(d.target == int(u.tag[i]) for d in spells.controls.values()):
            return False  # (Neural Parasite: the unit is not the player's own)
        size = cargo_size(int(u.unit_id[i]))
        if size <= 0:
            return False
        pool = self.pools.get(player)
        if pool is None:
            return True
        return len(pool.passengers) < MAX_UNITS and pool.taken + size <= CAPACITY

    def placement(self, player: int, x: float, y: float) -> int:
        """ActionResult of summoning a worm centred at (x, y) (snapped to the grid): seen now, then
        the footprint's placement, then no enemy ground unit on it."""
        w = self.w
        hx, hy = half_size(WORM)
        x, y = snap(x, hx), snap(y, hy)
        if not (math.isfinite(x) and math.isfinite(y)):
            return CANT_BUILD_LOCATION_INVALID
        if not bool(w.vision.sees(player, np.array([x]), np.array([y]))[0]):
            return CANT_SEE_BUILD_LOCATION
        res = w.placement.fits(WORM, x, y, player)
        if res != SUCCESS:
            return res
        if w.placement.enemy_in_the_way(WORM, x, y, player):
            return CANT_BUILD_LOCATION_INVALID
        return SUCCESS

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int | None:
        """Carry out a Nydus ability; None when a generic one (load, unload) names no Network or
        Worm (``systems/transport.py`` takes it)."""
        u = self.w.u
        ab = c.ability
        rows = [r for r in c.rows.tolist() if _NYDUS_LUT[u.ti[r]]]
        if not rows:
            return ERROR if ab in _SPECIFIC else None
        if ab == SUMMON:
            return self._summon(c, rows)
        want = LOAD.get(ab, UNLOAD_ALL.get(ab, UNLOAD_UNIT.get(ab, 0)))
        rows = [r for r in rows if not want or int(u.unit_id[r]) == want]
        if not rows:
            return ERROR
        ready = [r for r in rows if self.ready(r)]
        if not ready:
            return BUILDING_IS_UNDER_CONSTRUCTION
        if ab in LOAD:
            if c.trow < 0 or not self.fits(c.trow, c.player):
                return ERROR
            self._board(c.trow, ready[0])
            return SUCCESS
        pool = self.pools.get(c.player)
        if pool is None or not pool.passengers:
            return ERROR
        loop = self.w.loop
        if ab in UNLOAD_ALL:
            for t in ready:
                ex = self.exits.setdefault(int(u.tag[t]), Exit(loop + UNLOAD_PERIOD))
                ex.all = True
            return SUCCESS
        if not any(p.tag == c.ttag for p in pool.passengers):
            return ERROR  # (no passenger of this cargo)
        ex = self.exits.setdefault(int(u.tag[ready[0]]), Exit(loop + UNLOAD_PERIOD))
        ex.tags.append(c.ttag)
        return SUCCESS

    def smart(self, c: Command) -> int | None:
        """Smart of the player's units on the player's own finished Network or Worm: those that may
        enter walk in (None when the target is none, or none of them may: the command goes on as
        a unit order, a follow)."""
        u = self.w.u
        if c.trow < 0 or int(u.owner[c.trow]) != c.player or not self.ready(c.trow):
            return None
        ok = False
        for i in c.rows.tolist():
            if self.fits(i, c.player):
                self._board(i, c.trow)
                ok = True
        return SUCCESS if ok else None

    def _board(self, i: int, t: int) -> None:
        """Row ``i`` walks to the Network or Worm of row ``t`` to enter it."""
        w = self.w
        u = w.u
        tag, ttag = int(u.tag[i]), int(u.tag[t])
        if w.has_economy:
            w.workers.leave_jobs(np.array([i]))
        u.queues.pop(tag, None)
        u.set_order(i, Order(FOLLOW, LOAD_ABILITY[int(u.unit_id[t])], ttag=ttag))
        self.boarding[tag] = ttag
        w.touch()

    def _summon(self, c: Command, rows: list[int]) -> int:
        """A finished Network without a worm under way summons one at the point."""
        w = self.w
        u = w.u
        if not w.has_economy:
            not_simulated(SUMMON, "this game has no economy")
            return NOT_SUPPORTED
        if c.pos is None:
            return ERROR
        nets = [r for r in rows if int(u.unit_id[r]) == NETWORK]
        if not nets:
            return ERROR
        done = [r for r in nets if self.ready(r)]
        if not done:
            return BUILDING_IS_UNDER_CONSTRUCTION
        free = [r for r in done if int(u.tag[r]) not in self.worms]
        if not free:
            return ERROR  # (its worm is still under way)
        res = self.placement(c.player, *c.pos)
        if res != SUCCESS:
            return res
        spec = tech.BUILD[SUMMON]
        res = w.supply.afford(c.player, spec.minerals, spec.vespene)
        if res != SUCCESS:
            return res
        w.supply.pay(c.player, spec.minerals, spec.vespene)
        hx, hy = half_size(WORM)
        self.worms[int(u.tag[free[0]])] = self._emerge(c.player, snap(c.pos[0], hx), snap(c.pos[1], hy))
        w.alerts.others(c.player, NYDUS_WORM_DETECTED)  # (every opponent is warned)
        return SUCCESS

    def _emerge(self, owner: int, x: float, y: float) -> int:
        """A worm under construction appears at (x, y) with 10% life and grows as every structure
        (``systems/construction.py``); returns its tag."""
        w = self.w
        spec = D.unit_spec(WORM)
        tag = int(w.spawn(WORM, owner, [x], [y])[0])
        now = w.events.now
        s = Structure(tag, WORM, owner, x, y, float(spec.build_time), 0.0, since=now)
        w.construction.structures[tag] = s
        r = w.u.row(tag)
        w.u.hp[r] = spec.hp * CONSTRUCTION_START_LIFE
        s.life_set = float(w.u.hp[r])
        w.events.push(now + int(math.ceil(s.build_loops)), tag)
        w.supply.revision += 1
        return tag

    # ------------------------------------------------------------------ the loop
    def update(self) -> Deaths:
        """After each advance: units that reached their Network or Worm enter, units come out of
        the buildings letting them out, summoned worms that are done free their Network; a
        player without a Network or Worm loses the units inside.  Returns the units that died."""
        w = self.w
        u = w.u
        for tag, btag in list(self.boarding.items()):
            i, t = u.row(tag), u.row(btag)
            if i < 0 or t < 0 or int(u.kind[i]) != FOLLOW or int(u.ttag[i]) != btag:
                del self.boarding[tag]  # (gone, or another order replaced the loading)
                continue
            d = math.hypot(float(u.x[i] - u.x[t]), float(u.y[i] - u.y[t])) - float(u.radius[i] + u.radius[t])
            if d > LOAD_RANGE:
                continue
            del self.boarding[tag]
            owner = int(u.owner[t])
            if not self.ready(t) or not self.fits(i, owner):
                u.finish_orders(np.array([i]))
                continue
            pool = self.pools.get(owner)
            if pool is None:
                pool = self.pools[owner] = Cargo(0, NETWORK, owner, 0.0, 0.0)
            pool.passengers.append(w.transport.take(i))
        if self.exits:
            self._let_out()
        for net, worm in list(self.worms.items()):
            s = w.construction.structures.get(worm)
            if s is None or s.ready or u.row(worm) < 0 or u.row(net) < 0:
                del self.worms[net]
        return self._losses()

    def _let_out(self) -> None:
        w = self.w
        u = w.u
        loop = w.loop
        for btag, ex in list(self.exits.items()):
            t = u.row(btag)
            pool = self.pools.get(int(u.owner[t])) if t >= 0 else None
            while pool is not None and ex.next <= loop:
                p = None
                while ex.tags and p is None:
                    want = ex.tags.pop(0)
                    p = next((q for q in pool.passengers if q.tag == want), None)
                if p is None and ex.all and pool.passengers:
                    p = pool.passengers[0]
                if p is None:
                    break
                t = u.row(btag)
                a = ex.turn * _GOLDEN
                reach = float(u.radius[t]) + float(TYPES.radius[p.ti]) + 0.25
                w.transport.drop(pool, [p], float(u.x[t]) + reach * math.cos(a), float(u.y[t]) + reach * math.sin(a),
                                 0.0)
                ex.turn += 1
                ex.next += UNLOAD_PERIOD
            if pool is None or not (ex.tags or (ex.all and pool.passengers)):
                del self.exits[btag]

    def _losses(self) -> Deaths:
        """The players with units inside and no Network or Worm standing lose them."""
        pools = self.pools
        if not any(p.passengers for p in pools.values()):
            return NO_DEATHS
        standing = self._standing()
        deaths = NO_DEATHS
        for player, pool in list(pools.items()):
            if not pool.passengers or player in standing:
                continue
            ps = pool.passengers
            del pools[player]
            tags = np.array([p.tag for p in ps], dtype=np.int64)
            deaths = deaths + Deaths(tags, np.array([p.unit_id for p in ps], dtype=np.int64),
                                     np.full(len(tags), player, dtype=np.int64))
            self.w.dead_tags.extend(tags.tolist())
            if self.w.has_economy:
                self.w.supply.revision += 1
        return deaths

    def _standing(self) -> set[int]:
        """The players with a Network or Worm standing (finished or not; cached per unit set)."""
        u = self.w.u
        if self._openings[0] != u.version:
            rows = np.flatnonzero(_NYDUS_LUT[u.ti])
            self._openings = (u.version, set(u.owner[rows].tolist()))
        return self._openings[1]

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """The player's finished Networks and Worms: the shared cargo's ``passengers`` (field 24),
        ``cargo_space_taken`` (25) and ``cargo_space_max`` (26), as ``systems/transport.py``
        reports a transport's."""
        if player not in self._standing():  # (every observation asks: most games have no Nydus)
            return
        u = self.w.u
        rows = np.flatnonzero(_NYDUS_LUT[u.ti] & (u.owner == player))
        if not len(rows):
            return
        pool = self.pools.get(player)
        out = b""
        taken = 0
        if pool is not None:
            out = b"".join(wrap(24, self.w.transport.passenger_bytes(p)) for p in pool.passengers)
            taken = pool.taken
        out += varint(25 << 3) + varint(taken) + varint(26 << 3) + varint(CAPACITY)
        for r in rows.tolist():
            if self.ready(r):
                tag = int(u.tag[r])
                parts[tag] = parts.get(tag, b"") + out

    def available(self, player: int, r: int, out: list[tuple[int, bool]]) -> None:
        """The Nydus abilities of row ``r`` the real client's abilities query lists: a Network's
        Summon Nydus Worm (a point) when it has none under way and the player can afford it; load;
        unload all while the cargo has units."""
        w = self.w
        u = w.u
        if not self.ready(r):
            return
        uid = int(u.unit_id[r])
        if uid == NETWORK and w.has_economy and int(u.tag[r]) not in self.worms:
            spec = tech.BUILD[SUMMON]
            if w.supply.afford(player, spec.minerals, spec.vespene) == SUCCESS:
                out.append((SUMMON, True))
        out.append((LOAD_ABILITY[uid], False))
        pool = self.pools.get(player)
        if pool is not None and pool.passengers:
            out.append((1438 if uid == NETWORK else 2371, False))
