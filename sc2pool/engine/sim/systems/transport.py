"""Transport: units carried by a Bunker, a Medivac, a Warp Prism or a Transport Overlord.

One job: a unit enters a transport and leaves the map (it is taken out of the unit store, with
its columns kept, so nobody sees, targets, pushes or moves it), and comes back with the same tag
and life where it is unloaded.  Each transport's cargo is reported on it as the real client
reports it (``Unit.passengers``, ``cargo_space_taken``, ``cargo_space_max``: burnysc2's
``Unit.passengers``, ``cargo_used``, ``cargo_max``, ``has_cargo``).

- **Bunker** (LP:Bunker): 4 cargo slots; loads SCVs, Marines, Marauders, Reapers and Ghosts
  (Hellbats cannot enter); the units inside fire from it with their own weapons at +1 range
  (from the Bunker's edge), nobody can target them; unload all puts them round it at once; a
  destroyed Bunker leaves its passengers unharmed round its ruin (m: as in StarCraft);
  Salvage (LP:Salvage) removes it after ``SALVAGE_LOOPS`` and refunds 75% of its cost; it
  cannot start while units are inside and cannot be cancelled.
- **Medivac** (LP:Medivac), **Warp Prism** (LP:Warp_Prism; in either mode, 81 / 136) and
  **Transport Overlord** (LP:Overlord: an Overlord after Morph to Transport Overlord, 2708; the
  client's ``OverlordTransport``, 893): 8 cargo slots each; a unit takes the client's
  ``UnitTypeData.cargo_size`` slots (Marine 1, Marauder / Zealot / Roach 2, Siege Tank / Archon 4,
  Thor / Colossus / Ultralisk 8, ...); unload all at a point flies there and drops the
  passengers one by one (``UNLOAD_PERIOD``, (m)) on the nearest free spots; passengers die with
  the transport (their tags are reported dead, as the real game kills them).  The Warp Prism
  picks units up from ``PICKUP_RANGE`` away (LotV gave it a ranged pick-up; the figure is (m)),
  the others when within ``LOAD_RANGE``.  A Warp Prism in Phasing Mode (the client's speed 0)
  still loads (burnysc2's ``UNIT_ABILITIES``, taken from the real client, list ``LOAD_WARPPRISM``
  for ``WARPPRISMPHASING``): the unit walks to it, and it unloads where it stands, whatever point
  it is given (m); while it changes mode it neither loads nor unloads (m).  A plain Overlord (106)
  is no transport: its load answers ``Error`` (m: the real client's answer to an ability the
  unit lacks is not captured here) and smart on it follows it.  A Transport Overlord with units
  inside cannot morph into an Overseer (``Error``, m; ``systems/larva.py``).

Commands (the client's ids; burnysc2 sends the specific ones, the generic ones, or smart):
load 407 (Bunker) / 394 (Medivac) / 911 (Warp Prism) / 1406 (Transport Overlord) / generic
3668, given to the transport with the unit as target; smart (1) of a loadable unit on its own
transport; unload all 408 (Bunker) / 912 (Warp Prism) / generic 3664 (a flying transport unloads
where it is); unload all at 396 / 913 / 1408 / generic 3669 with a point (or the transport itself
as target: where it is); unload one unit 410 / 397 / 914 / 1409 / generic 3796 with the
passenger's tag as target (a passenger of another transport, or none: ``Error``): it comes out at
once, round a Bunker as unload all puts them, beneath a flying transport on the nearest free spot
(m: the real client drops it from the cargo panel at once); Salvage 32.  A specific ability
given to another transport type answers ``Error``.  A unit walks to a Bunker and enters when its
edge is within ``LOAD_RANGE`` of the Bunker's; a flying transport flies to the unit it was told
to load (the unit keeps what it was doing); the order reported meanwhile is the load ability.

**Passengers regenerate** as they would outside (the real game: energy builds up inside, players
load High Templar and Ghosts to keep them safe meanwhile; Protoss shields recharge; Zerg life
(m)): energy is kept per unit as (value, loop) by ``systems/abilities.py`` and so goes on by
itself; life and shields are credited when the unit comes out (:func:`~sc2pool.engine.sim.
systems.regeneration.regenerated`, the regeneration system's rates and shield delay over the loops
it spent inside), and reported so meanwhile, so that the hot regeneration loop never looks at
passengers.

The Nydus Networks and Worms (``systems/nydus.py``) carry units the same way: :meth:`Transport.take`
and :meth:`Transport.drop`, into and out of one cargo per player kept in :attr:`Transport.pools`.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.sim.commands import ERROR, SUCCESS
from sc2pool.engine.sim.encode import varint, wrap
from sc2pool.engine.sim.systems.regeneration import regenerated
from sc2pool.engine.sim.systems.zerg_abilities import _BURROWED_LUT
from sc2pool.engine.sim.units import (
    FLOAT_FIELDS,
    FOLLOW,
    IDLE,
    INT_FIELDS,
    MOVE,
    NO_DEATHS,
    TRANSFORM,
    TYPES,
    Deaths,
    Order,
)

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

BUNKER, MEDIVAC, WARP_PRISM, WARP_PRISM_PHASING, OVERLORD_TRANSPORT = 24, 54, 81, 136, 893
PRISMS = (WARP_PRISM, WARP_PRISM_PHASING)
CAPACITY = {BUNKER: 4, MEDIVAC: 8, WARP_PRISM: 8, WARP_PRISM_PHASING: 8, OVERLORD_TRANSPORT: 8}
"""Cargo slots per transport type (LP:Bunker: 4, and 2 more with Neosteel Armor: :meth:`Transport.capacity`; LP:Medivac, LP:Warp_Prism, LP:Overlord (Transport Overlord): 8)."""
NEOSTEEL, NEOSTEEL_SLOTS = 6, 2
"""Neosteel Armor (TerranBuildingArmor, upgrade 6, the client's) gives Bunkers 2 more cargo slots
(LP:Bunker)."""
BUNKER_CARGO = frozenset({45, 48, 49, 50, 51})
"""What may enter a Bunker: SCV, Marine, Reaper, Ghost, Marauder (LP:Bunker)."""
BUNKER_RANGE_BONUS = 1.0
"""Range the units inside a Bunker gain (LP:Bunker: +1)."""
LOAD_RANGE = 1.0
"""Edge-to-edge distance at which a unit enters its transport (m)."""
PICKUP_RANGE = {WARP_PRISM: 5.0, WARP_PRISM_PHASING: 5.0}
"""Edge-to-edge distance from which a Warp Prism picks a unit up (LotV's ranged pick-up, LP:Warp_Prism;
m: the figure is not known here); the other transports: :data:`LOAD_RANGE`."""
UNLOAD_PERIOD = 8
"""Game loops between two units a flying transport drops (m: the real rate is not known here)."""
SALVAGE_LOOPS = 112
"""Game loops Salvage takes (5 faster seconds; m: an old note of starcraft.fandom's Salvage page,
"Salvage currently takes 5 seconds")."""
SALVAGE_REFUND = 0.75
"""Part of the Bunker's cost Salvage returns (LP:Salvage, LP:Bunker: 75%)."""
ANY: tuple[int, ...] = ()
LOAD = {407: (BUNKER,), 394: (MEDIVAC,), 911: PRISMS, 1406: (OVERLORD_TRANSPORT,), 3668: ANY}
"""Load abilities -> the transport types that use them (the client's; ``ANY``: the generic one)."""
UNLOAD_ALL = {408: (BUNKER,), 912: PRISMS, 3664: ANY}
"""Unload all where it is (the client's ``UnloadAll``; the Medivac's 395 and the Overlord's 1407
have no button and are not taken)."""
UNLOAD_AT = {396: (MEDIVAC,), 913: PRISMS, 1408: (OVERLORD_TRANSPORT,), 3669: ANY}
"""Unload all at a point (or at the transport itself)."""
UNLOAD_UNIT = {410: (BUNKER,), 397: (MEDIVAC,), 914: PRISMS, 1409: (OVERLORD_TRANSPORT,), 3796: ANY}
"""Unload one unit, its tag as target (the client's ``UnloadUnit``, remapped to 3796)."""
SALVAGE = 32
LOAD_ABILITY = {BUNKER: 407, MEDIVAC: 394, WARP_PRISM: 911, WARP_PRISM_PHASING: 911, OVERLORD_TRANSPORT: 1406}
UNLOAD_ABILITY = {BUNKER: 408, MEDIVAC: 396, WARP_PRISM: 913, WARP_PRISM_PHASING: 913, OVERLORD_TRANSPORT: 1408}
"""The unload ability a transport's order shows and the abilities query lists (a flying
transport's takes a point)."""
ABILITIES = frozenset({*LOAD, *UNLOAD_ALL, *UNLOAD_AT, *UNLOAD_UNIT, SALVAGE})
"""Every ability this system answers."""
_TRANSPORT_LUT = np.isin(TYPES.unit_id, np.array(sorted(CAPACITY)))
"""Per type row: a transport this system simulates."""


def cargo_size(unit_id: int) -> int:
    """Slots a unit takes in a transport: the client's ``UnitTypeData.cargo_size`` (0: it cannot
    be carried)."""
    try:
        return max(D.unit_spec(unit_id).cargo_size, 0)
    except KeyError:
        return 0


@dataclass
class Passenger:
    """A unit inside a transport: its store columns, kept as they were when it entered."""

    tag: int
    unit_id: int
    F: np.ndarray
    I: np.ndarray  # noqa: E741
    ready: int = 0
    """Inside a Bunker: the loop its weapon is ready again."""
    since: int = 0
    """The loop up to which its life and shields have regenerated (the regeneration system's
    :attr:`~sc2pool.engine.sim.systems.regeneration.Regeneration.until` when it entered): it is
    credited the loops after it when it comes out."""
    entry: bytes = field(default=b"", compare=False, repr=False)
    """Its ``passengers`` entry once that stays the same on every observation
    (:meth:`Transport.passenger_entry`); empty until then."""

    @property
    def ti(self) -> int:
        return int(self.I[1, 0])


@dataclass
class Cargo:
    """One transport's passengers."""

    tag: int
    unit_id: int
    owner: int
    x: float
    y: float
    """Where it was last seen (a destroyed Bunker's passengers come out there)."""
    passengers: list[Passenger] = field(default_factory=list)
    drop_at: tuple[float, float] | None = None
    """A flying transport told to unload at a point: where."""
    next_drop: int = -1
    """Unloading: the loop the next passenger comes out (-1: not unloading)."""

    @property
    def taken(self) -> int:
        return sum(cargo_size(p.unit_id) for p in self.passengers)


class Transport:
    """Cargo of every transport, units on their way in, Bunkers being salvaged."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.cargo: dict[int, Cargo] = {}
        """Transport tag -> its cargo (kept while it has passengers or unloads)."""
        self.boarding: dict[int, tuple[int, bool]] = {}
        """Tag of a unit on its way into a transport (or picked up by a flying one) -> (the
        transport's tag, whether the unit walks to it (else the transport flies to the unit))."""
        self.salvaging: dict[int, int] = {}
        """Tag of a Bunker being salvaged -> the loop it is done."""
        self.armed = False
        """Whether some Bunker holds a unit with a weapon (the world steps it every loop)."""
        self.pools: dict[int, Cargo] = {}
        """Player -> the cargo its Nydus Networks and Worms share (filled and emptied by
        ``systems/nydus.py``): its passengers are alive and use food as those of a transport."""

    @property
    def active(self) -> bool:
        """Whether :meth:`update` has anything to do after an advance."""
        return bool(self.cargo) or bool(self.boarding) or bool(self.salvaging)

    def tags(self) -> set[int]:
        """Tags of every unit inside a transport (alive, though not in the store)."""
        return {p.tag for c in (*self.cargo.values(), *self.pools.values()) for p in c.passengers}

    def capacity(self, unit_id: int, owner: int) -> int:
        """Cargo slots of a transport of ``unit_id`` of player ``owner`` (a Bunker: +2 with Neosteel
        Armor, :data:`NEOSTEEL_SLOTS`)."""
        if unit_id == BUNKER and self.w.research.has(owner, NEOSTEEL):
            return CAPACITY[BUNKER] + NEOSTEEL_SLOTS
        return CAPACITY[unit_id]

    def carrying(self, tag: int) -> bool:
        """Whether the transport of ``tag`` has units inside."""
        cg = self.cargo.get(tag)
        return cg is not None and bool(cg.passengers)

    def food(self, player: int) -> float:
        """Food the player's passengers use (they still count: LP:Supply)."""
        return sum(float(TYPES.food[p.ti]) for c in (*self.cargo.values(), *self.pools.values())
                   if c.owner == player for p in c.passengers)

    def horizon(self) -> int:
        """Loops the world may advance before a timed transport event (a drop, a salvage)."""
        loop = self.w.loop
        h = 1 << 30
        for c in self.cargo.values():
            if c.next_drop >= 0:
                h = min(h, c.next_drop - loop)
        for end in self.salvaging.values():
            h = min(h, end - loop)
        return max(1, h)

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        """Carry out a transport ability for the commanded units."""
        ab = c.ability
        if ab in UNLOAD_UNIT:
            return self._unload_one(c)
        if ab == SALVAGE:
            return self._salvage(c)
        if ab in LOAD:
            return self._load_cmd(c)
        if ab in UNLOAD_ALL:
            return self._unload_cmd(c, None, UNLOAD_ALL[ab])
        if c.pos is None and c.trow < 0:
            return ERROR  # (unload all at: a point, or the transport itself)
        return self._unload_cmd(c, c.pos, UNLOAD_AT[ab])

    def smart(self, c: Command) -> int | None:
        """Smart of the player's units on the player's own transport: those that fit walk in
        (None when the target is no transport of theirs or none of them fits: the command goes
        on as a unit order, a follow)."""
        u = self.w.u
        if c.trow < 0 or int(u.owner[c.trow]) != c.player or not _TRANSPORT_LUT[u.ti[c.trow]]:
            return None
        if self._ready(c.trow) is False:
            return None
        ok = False
        for i in c.rows.tolist():
            if self._board(i, c.trow):
                ok = True
        return SUCCESS if ok else None

    def _ready(self, trow: int) -> bool:
        """A transport that may take units now (a finished Bunker not being salvaged; a Warp Prism
        not changing mode)."""
        u = self.w.u
        if int(u.kind[trow]) == TRANSFORM:
            return False
        tag = int(u.tag[trow])
        if tag in self.salvaging:
            return False
        s = self.w.construction.structures.get(tag)
        return s is None or s.ready

    def _fits(self, passenger_row: int, trow: int, pending: int = 0) -> bool:
        """The unit of ``passenger_row`` may enter the transport of ``trow`` (room left after
        ``pending`` slots already promised)."""
        u = self.w.u
        uid = int(u.unit_id[passenger_row])
        tid = int(u.unit_id[trow])
        pti = u.ti[passenger_row]
        if passenger_row == trow or TYPES.is_flying[pti] or TYPES.structure[pti] or _BURROWED_LUT[pti]:
            return False
        if int(u.kind[passenger_row]) == TRANSFORM:
            return False  # (changing form: it boards once the change is done)
        if int(u.owner[passenger_row]) != int(u.owner[trow]):
            return False
        size = cargo_size(uid)
        if size <= 0 or (tid == BUNKER and uid not in BUNKER_CARGO):
            return False
        c = self.cargo.get(int(u.tag[trow]))
        taken = c.taken if c is not None else 0
        return taken + pending + size <= self.capacity(tid, int(u.owner[trow]))

    def _board(self, i: int, trow: int) -> bool:
        """Row ``i`` walks to the transport of ``trow`` and enters it."""
        u = self.w.u
        if not self._fits(i, trow):
            return False
        if TYPES.speed[u.ti[i]] <= 0:
            return False
        tag, ttag = int(u.tag[i]), int(u.tag[trow])
        u.queues.pop(tag, None)
        u.set_order(i, Order(FOLLOW, LOAD_ABILITY[int(u.unit_id[trow])], ttag=ttag))
        self.boarding[tag] = (ttag, True)
        self.w.touch()
        return True

    def _load_cmd(self, c: Command) -> int:
        """A transport told to load a unit: the unit walks into a Bunker (or a Warp Prism in
        Phasing Mode, which cannot move); a flying transport flies to it."""
        u = self.w.u
        if c.trow < 0:
            return ERROR
        types = LOAD[c.ability]
        for t in c.rows.tolist():
            tid = int(u.unit_id[t])
            if tid not in CAPACITY or (types and tid not in types) or not self._ready(t):
                continue
            if not self._fits(c.trow, t):
                continue
            if tid == BUNKER or TYPES.speed[u.ti[t]] <= 0:
                return SUCCESS if self._board(c.trow, t) else ERROR
            ttag = int(u.tag[t])
            u.queues.pop(ttag, None)
            u.set_order(t, Order(FOLLOW, LOAD_ABILITY[tid], ttag=c.ttag))
            self.boarding[c.ttag] = (ttag, False)
            self.w.touch()
            return SUCCESS
        return ERROR

    def _unload_cmd(self, c: Command, pos: tuple[float, float] | None, types: tuple[int, ...]) -> int:
        """Unload all: a Bunker at once; a flying transport told to unload where it is (or one
        that cannot move) one by one; one given a point flies there first."""
        u = self.w.u
        ok = False
        for t, tid, tag, cg in self._loaded(c, types):
            ok = True
            if tid == BUNKER:
                self._unload_bunker(cg, t)
                continue
            mobile = TYPES.speed[u.ti[t]] > 0
            here = pos is None or (c.trow >= 0 and c.trow == t) or not mobile
            ab = UNLOAD_ABILITY[tid]
            u.queues.pop(tag, None)
            if here:
                cg.drop_at = (float(u.x[t]), float(u.y[t]))
                cg.next_drop = self.w.loop + 1
                if mobile:
                    u.set_order(t, Order(MOVE, ab, cg.drop_at[0], cg.drop_at[1]))
            else:
                assert pos is not None
                cg.drop_at = pos
                cg.next_drop = -1
                u.set_order(t, Order(MOVE, ab, pos[0], pos[1]))
            self.w.touch()
        return SUCCESS if ok else ERROR

    def _loaded(self, c: Command, types: tuple[int, ...]) -> list[tuple[int, int, int, Cargo]]:
        """The commanded transports of ``types`` (any when empty), not changing mode, with
        passengers: (row, type, tag, cargo) each."""
        u = self.w.u
        out = []
        for t in c.rows.tolist():
            tid = int(u.unit_id[t])
            if tid not in CAPACITY or (types and tid not in types) or int(u.kind[t]) == TRANSFORM:
                continue
            tag = int(u.tag[t])
            cg = self.cargo.get(tag)
            if cg is not None and cg.passengers:
                out.append((t, tid, tag, cg))
        return out

    def _unload_one(self, c: Command) -> int:
        """Unload one unit (its tag the target): out at once, round a Bunker or beneath a flying
        transport (``Error`` when no commanded transport of the ability's types holds it)."""
        u = self.w.u
        for t, tid, tag, cg in self._loaded(c, UNLOAD_UNIT[c.ability]):
            p = next((q for q in cg.passengers if q.tag == c.ttag), None)
            if p is None:
                continue
            spread = float(u.radius[t]) + 0.5 if tid == BUNKER else 0.0
            self.drop(cg, [p], float(u.x[t]), float(u.y[t]), spread)
            if not cg.passengers and cg.drop_at is None:
                del self.cargo[tag]
            return SUCCESS
        return ERROR

    def _salvage(self, c: Command) -> int:
        """Salvage a finished, empty Bunker (LP:Salvage)."""
        u = self.w.u
        ok = False
        for t in c.rows.tolist():
            tag = int(u.tag[t])
            if int(u.unit_id[t]) != BUNKER or tag in self.salvaging or not self._ready(t):
                continue
            cg = self.cargo.get(tag)
            if cg is not None and cg.passengers:
                continue
            self.salvaging[tag] = self.w.loop + SALVAGE_LOOPS
            ok = True
        return SUCCESS if ok else ERROR

    # ------------------------------------------------------------------ loading and unloading
    def take(self, i: int) -> Passenger:
        """Row ``i`` leaves the map into a transport (or a Nydus): off its economy jobs and buffs,
        out of the store with its columns kept; returns it as a passenger."""
        w = self.w
        u = w.u
        tag = int(u.tag[i])
        if w.has_economy:
            w.workers.leave_jobs(np.array([i]))
            w.research.stimmed.pop(tag, None)
            w.research.slowed.pop(tag, None)
        uid = int(u.unit_id[i])
        F, I = u.extract([i])  # noqa: E741
        w.touch()
        return Passenger(tag, uid, F, I, w.loop, w.regeneration.until)

    def _load(self, i: int, trow: int) -> None:
        """Row ``i`` enters the transport of ``trow``: out of the store, into its cargo."""
        u = self.w.u
        ttag = int(u.tag[trow])
        cg = self.cargo.get(ttag)
        if cg is None:
            cg = self.cargo[ttag] = Cargo(ttag, int(u.unit_id[trow]), int(u.owner[trow]), float(u.x[trow]),
                                          float(u.y[trow]))
        cg.passengers.append(self.take(i))
        self._armed()

    def _armed(self) -> None:
        self.armed = any(c.unit_id == BUNKER and any(TYPES.can_attack[p.ti] for p in c.passengers)
                         for c in self.cargo.values())

    def life(self, p: Passenger) -> tuple[float, float]:
        """A passenger's life and shields now: as it entered, plus what it regenerated since
        (``systems/regeneration.py``'s rates and shield delay)."""
        return regenerated(p.ti, float(p.F[_HP, 0]), float(p.F[_SHIELD, 0]), int(p.I[_HURT, 0]), p.since,
                           self.w.regeneration.until)

    def drop(self, cg: Cargo, ps: list[Passenger], x: float, y: float, spread: float) -> None:
        """Passengers ``ps`` of ``cg`` come out round (``x``, ``y``), on free spots, idle, with the
        life and shields they regenerated inside."""
        w = self.w
        u = w.u
        k = len(ps)
        ang = np.arange(k) * (2 * math.pi / max(k, 1))
        xs = x + spread * np.cos(ang)
        ys = y + spread * np.sin(ang)
        for p, px, py in zip(ps, xs.tolist(), ys.tolist(), strict=True):
            cg.passengers.remove(p)
            ax, ay = np.array([px]), np.array([py])
            w.map.clamp(ax, ay, float(TYPES.radius[p.ti]))
            if w.pathing.active:
                ax, ay = w.pathing.free_points(ax, ay)
            ax, ay = w.collision.free_spots(p.unit_id, ax, ay)
            F, I = p.F.copy(), p.I.copy()  # noqa: E741
            F[_HP, 0], F[_SHIELD, 0] = self.life(p)
            F[_RESET_F, 0] = 0.0  # (no order, no walk: it comes out idle)
            F[0, 0], F[1, 0] = float(ax[0]), float(ay[0])
            for name in ("kind", "ability", "ttag", "eng", "scan"):
                I[_INT[name], 0] = 0
            I[_INT["seg"], 0] = -1
            I[_INT["wp"], 0] = -1
            u.insert(F, I)
        self._armed()
        w.touch()

    def _unload_bunker(self, cg: Cargo, t: int) -> None:
        u = self.w.u
        spread = float(u.radius[t]) + 0.5
        self.drop(cg, list(cg.passengers), float(u.x[t]), float(u.y[t]), spread)
        if not cg.passengers:
            del self.cargo[cg.tag]

    # ------------------------------------------------------------------ the loop
    def update(self) -> Deaths:
        """After each advance: units that reached their transport enter it, flying transports at
        their drop point unload, salvages end; a destroyed transport's passengers come out
        (Bunker) or die (the flying ones).  Returns the units that died."""
        w = self.w
        u = w.u
        loop = w.loop
        deaths = NO_DEATHS
        for ptag, (ttag, walks) in list(self.boarding.items()):
            i, t = u.row(ptag), u.row(ttag)
            if i < 0 or t < 0:
                del self.boarding[ptag]
                continue
            mover = i if walks else t
            target = ttag if walks else ptag
            if int(u.kind[mover]) != FOLLOW or int(u.ttag[mover]) != target:
                del self.boarding[ptag]  # another order replaced the loading
                continue
            d = math.hypot(float(u.x[i] - u.x[t]), float(u.y[i] - u.y[t])) - float(u.radius[i] + u.radius[t])
            if d > PICKUP_RANGE.get(int(u.unit_id[t]), LOAD_RANGE):
                continue
            del self.boarding[ptag]
            if not self._fits(i, t) or not self._ready(t):
                u.finish_orders(np.array([mover]))
                continue
            if not walks:
                u.finish_orders(np.array([t]))
            self._load(i, t)
        for tag, cg in list(self.cargo.items()):
            t = u.row(tag)
            if t < 0:
                deaths = self._lost(cg, deaths)
                continue
            cg.x, cg.y = float(u.x[t]), float(u.y[t])
            if cg.drop_at is not None:
                ab = UNLOAD_ABILITY.get(int(u.unit_id[t]), 0)
                if cg.next_drop < 0:  # flying to its drop point
                    if int(u.kind[t]) == MOVE and int(u.ability[t]) == ab:
                        continue
                    if math.hypot(cg.x - cg.drop_at[0], cg.y - cg.drop_at[1]) > 0.5 or int(u.kind[t]) != IDLE:
                        cg.drop_at = None  # another order replaced the unloading
                        continue
                    cg.next_drop = loop
                    u.set_order(t, Order(MOVE, ab, cg.x, cg.y))
                while cg.next_drop >= 0 and cg.next_drop <= loop and cg.passengers:
                    self.drop(cg, [cg.passengers[0]], cg.x, cg.y, 0.0)
                    cg.next_drop += UNLOAD_PERIOD
                    t = u.row(tag)
                if not cg.passengers:
                    cg.drop_at = None
                    cg.next_drop = -1
                    if int(u.ability[t]) == ab:
                        u.finish_orders(np.array([t]))
            if not cg.passengers and cg.drop_at is None:
                del self.cargo[tag]
        for tag, end in list(self.salvaging.items()):
            if end > loop:
                continue
            del self.salvaging[tag]
            t = u.row(tag)
            if t < 0:
                continue
            owner = int(u.owner[t])
            if w.has_economy:
                spec = D.unit_spec(BUNKER)
                w.supply.pay(owner, -int(spec.minerals * SALVAGE_REFUND), -int(spec.vespene * SALVAGE_REFUND))
                w.supply.revision += 1
            deaths = deaths + w.remove_tags([tag])  # (the scenario sees a structure go)
        return deaths

    def _lost(self, cg: Cargo, deaths: Deaths) -> Deaths:
        """A transport is gone: a Bunker's passengers come out where it stood, a flying one's die."""
        w = self.w
        del self.cargo[cg.tag]
        if cg.unit_id == BUNKER:
            self.drop(cg, list(cg.passengers), cg.x, cg.y, 1.5)
            return deaths
        tags = np.array([p.tag for p in cg.passengers], dtype=np.int64)
        d = Deaths(tags, np.array([p.unit_id for p in cg.passengers], dtype=np.int64),
                   np.full(len(tags), cg.owner, dtype=np.int64))
        w.dead_tags.extend(tags.tolist())
        self._armed()
        if w.has_economy:
            w.supply.revision += 1
        return deaths + d

    # ------------------------------------------------------------------ Bunkers firing
    def fire(self, loop: int, damage: np.ndarray | None) -> np.ndarray | None:
        """The armed units inside each Bunker fire at the nearest hostile they can hit within
        their range + 1 (edge to edge from the Bunker), at their weapon's rate; the hit lands at
        once (m: no damage point or missile from inside).  Adds to this loop's ``damage``."""
        w = self.w
        u = w.u
        for cg in self.cargo.values():
            if cg.unit_id != BUNKER:
                continue
            b = u.row(cg.tag)
            if b < 0:
                continue
            for p in cg.passengers:
                pti = p.ti
                if p.ready > loop or not TYPES.can_attack[pti]:
                    continue
                d = np.hypot(u.x - u.x[b], u.y - u.y[b]) - u.radius - u.radius[b]
                ok = (u.owner != cg.owner) & ~u.no_auto & TYPES.can_hit[pti, u.ti]
                ok &= d <= float(TYPES.range[pti]) + BUNKER_RANGE_BONUS
                if not ok.any():
                    continue
                c = int(np.flatnonzero(ok)[np.argmin(d[ok])])
                if damage is None:
                    damage = np.zeros(len(u))
                a_ti, t_ti = np.array([pti]), u.ti[[c]]
                raw = w.combat._upgraded_damage(a_ti, t_ti, owners=np.array([cg.owner]))
                w.combat._accumulate(raw, TYPES.attacks_vs[a_ti, t_ti], np.array([c]), damage, cg.owner)
                jitter = float(w.rng.uniform(D.RANDOM_DELAY[0], D.RANDOM_DELAY[1])) * D.NORMAL_LOOPS_PER_SECOND
                p.ready = loop + max(int(round(float(TYPES.cd_vs[pti, t_ti[0]]) + jitter)), 1)
        return damage

    def quiet_bound(self) -> int:
        """Loops before an armed Bunker could fire (1: one may fire now or soon): the world
        fast-forwards no further."""
        u = self.w.u
        h = 1 << 30
        speed = max(u.max_speed, 1e-9)
        loop = self.w.loop
        for cg in self.cargo.values():
            if cg.unit_id != BUNKER:
                continue
            b = u.row(cg.tag)
            if b < 0:
                return 1
            d = np.hypot(u.x - u.x[b], u.y - u.y[b]) - u.radius - u.radius[b]
            for p in cg.passengers:
                pti = p.ti
                if not TYPES.can_attack[pti]:
                    continue
                ok = (u.owner != cg.owner) & ~u.no_auto & TYPES.can_hit[pti, u.ti]
                if not ok.any():
                    continue
                gap = float(d[ok].min()) - float(TYPES.range[pti]) - BUNKER_RANGE_BONUS
                if gap <= 0:
                    if p.ready <= loop + 1:
                        return 1
                    h = min(h, p.ready - loop - 1)
                else:
                    h = min(h, max(1, int(gap / speed)))
        return max(1, h)

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """The player's transports: ``passengers`` (field 24, one ``PassengerUnit`` each:
        :meth:`passenger_bytes`), ``cargo_space_taken`` (25) and ``cargo_space_max`` (26), as the
        real client reports them on its own units."""
        u = self.w.u
        rows = np.flatnonzero(_TRANSPORT_LUT[u.ti] & (u.owner == player))
        for r in rows.tolist():
            tag = int(u.tag[r])
            s = self.w.construction.structures.get(tag)
            if s is not None and not s.ready:
                continue
            cg = self.cargo.get(tag)
            out = b""
            taken = 0
            if cg is not None:
                for p in cg.passengers:
                    out += self.passenger_entry(p)
                taken = cg.taken
            out += varint(25 << 3) + varint(taken) + varint(26 << 3) + varint(self.capacity(int(u.unit_id[r]), int(u.owner[r])))
            parts[tag] = parts.get(tag, b"") + out

    def passenger_entry(self, p: Passenger) -> bytes:
        """The ``passengers`` entry (field 24) of :meth:`passenger_bytes`, kept on the passenger
        once it cannot change: its life and shields regenerate no more (:func:`regenerated` gives
        back what it entered with even after :data:`_FOREVER` loops, and the regeneration only
        grows with the loops) and it has no energy (which changes with the loop)."""
        energy = self.w.abilities.energy
        if p.entry and p.tag not in energy:
            return p.entry
        got = wrap(24, self.passenger_bytes(p))
        if p.tag not in energy:
            hp, shield = float(p.F[_HP, 0]), float(p.F[_SHIELD, 0])
            if regenerated(p.ti, hp, shield, int(p.I[_HURT, 0]), p.since, p.since + _FOREVER) == (hp, shield):
                p.entry = got
        return got

    def passenger_bytes(self, p: Passenger) -> bytes:
        """One ``PassengerUnit`` (tag 1, health 2, health_max 3, shield 4, energy 5, unit_type 6,
        shield_max 7, energy_max 8): its life and shields as regenerated so far (:meth:`life`),
        its energy (``systems/abilities.py``) when its type has energy."""
        ti = p.ti
        f = struct.pack
        hp, shield = self.life(p)
        out = (b"\x08" + varint(p.tag) + b"\x15" + f("<f", hp) + b"\x1d" + f("<f", float(TYPES.hp_max[ti]))
               + b"\x25" + f("<f", shield) + b"\x30" + varint(p.unit_id) + b"\x3d" + f("<f", float(TYPES.sh_max[ti])))
        energy = self.w.abilities.energy.get(p.tag)
        if energy is not None:
            out += b"\x2d" + f("<f", self.w.abilities.energy_of(p.tag)) + b"\x45" + f("<f", energy[2])
        return out

    def available(self, r: int, out: list[tuple[int, bool]]) -> None:
        """The transport abilities of row ``r`` the real client's abilities query lists: load;
        unload all (with a point for a flying transport) while it has cargo; Salvage of an empty
        Bunker."""
        u = self.w.u
        tid = int(u.unit_id[r])
        if tid not in CAPACITY or not self._ready(r):
            return
        cg = self.cargo.get(int(u.tag[r]))
        out.append((LOAD_ABILITY[tid], False))
        if cg is not None and cg.passengers:
            out.append((UNLOAD_ABILITY[tid], tid != BUNKER))
        elif tid == BUNKER:
            out.append((SALVAGE, False))


_INT = {name: k for k, name in enumerate(INT_FIELDS)}
"""Index of each int column in the store's block."""
_HP, _SHIELD = FLOAT_FIELDS.index("hp"), FLOAT_FIELDS.index("shield")
_HURT = _INT["hurt"]
_FOREVER = 1 << 40
"""Loops after which any passenger's regeneration is complete (:meth:`Transport.passenger_entry`)."""
_RESET_F = np.array([k for k, name in enumerate(FLOAT_FIELDS) if name not in ("x", "y", "facing", "hp", "shield", "cd")])
"""The float columns a unit leaving a transport starts afresh (its order's points, its walk)."""
