"""Zerg abilities: the Queen's Spawn Larva, Creep Tumor and Transfusion; a tumor's new tumor;
cancelling a Zerg structure under construction or an egg.

Rules (the real game's; sources in brackets, "(m)" where the engine chose):

- *Spawn Larva* (251, a Hatchery, Lair or Hive; 25 energy, LP:Queen): the Queen walks into the
  client's cast range of the target (0.1, edge to edge), spends the energy, and the hatchery gets 3
  larvae 29 faster seconds later (:mod:`.larva`); injects on a hatchery with one under way queue up
  behind it (patch 3.8, LP:Spawn_Larva).  The Queen may not inject again for :data:`INJECT_COOLDOWN`
  (1.8 faster seconds, KB:LLM-PySC2): ``Cooldown`` meanwhile, and the abilities query leaves it out.
- *Creep Tumor* (1694, a point on creep; 25 energy, LP:Queen, LP:Creep_Tumor): the Queen walks
  there (the client's cast range 0 from its edge) and a Creep Tumor (138) appears, grows for the client's build time (240 loops), then
  burrows (137) and spreads creep (:mod:`.creep`).  A burrowed tumor may place one new tumor
  (1733, a point on creep within :data:`TUMOR_SPAWN_RANGE`, LP:Creep_Tumor) once; the new tumor
  (87) does the same.  The tumor's 11-second cooldown before it may spawn is not simulated (m).
- *Transfusion* (1664, a biological unit of the player; 50 energy, LP:Queen): the target regains
  75 life at once, then 50 more over 7.14 seconds (``systems/zerg_spells.py``); the client's
  cast range 7; a :data:`TRANSFUSE_COOLDOWN` cooldown (1 faster second, KB:LLM-PySC2), as Spawn
  Larva's.
- The walk into range, the payment and a lost target are the shared ``systems/casting.py``'s.
- *Burrow*: see :meth:`ZergAbilities._burrow`.  A Lurker burrows in :data:`LURKER_BURROW_LOOPS`
  (2 s), 24 loops (1.07 s) with Adaptive Talons (``data.units.TRANSITION_UPGRADES``; the time is
  set when the change starts); it unburrows in :data:`BURROW_LOOPS` (m) as other units.
- *off creep*: a Zerg structure (but Hatcheries, Lairs, Hives, Extractors, Nydus Worms and creep
  tumors) whose centre's cell has no creep (it receded) loses :data:`OFF_CREEP_DECAY` life per
  normal second until it dies (LP:Zerg_Regeneration: 3 per second, 2.73 net of the 0.27 Zerg
  regeneration, which ``systems/regeneration.py`` adds); checked at each economy step (m).
- *cancel* (314 ``CANCEL_BUILDINPROGRESS``, 3659 ``CANCEL``) on a Zerg structure under
  construction: it is removed, the Drone that built it comes back where it stood and 75% of the
  order's cost is refunded (LP:Drone; the 75% of structures cancelled under construction:
  LP:Structure); on an egg: :meth:`.larva.Larva.cancel`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data import client, tech
from sc2pool.engine.sim.commands import (
    CANT_BUILD_LOCATION_INVALID,
    CANT_TARGET_THAT_UNIT,
    COOLDOWN,
    ERROR,
    MUST_TARGET_BIOLOGICAL_UNITS,
    NOT_ENOUGH_ENERGY,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
)
from sc2pool.engine.sim.systems.abilities import LOOPS_PER_FASTER_SECOND
from sc2pool.engine.sim.systems.casting import Cast, CastSpec
from sc2pool.engine.sim.systems.zerg_spells import ABILITIES as SPELL_ABILITIES
from sc2pool.engine.sim.systems.zerg_spells import ZergSpells
from sc2pool.engine.sim.units import IDLE, MOVE, TRANSFORM, TYPES, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

QUEEN, DRONE, LARVA = 126, 104, 151
TOWNHALLS = frozenset({86, 100, 101})
INJECT, QUEEN_TUMOR, TUMOR_TUMOR, TRANSFUSE = 251, 1694, 1733, 1664
CANCEL_BUILD, CANCEL = 314, 3659
TUMOR, TUMOR_BURROWED, TUMOR_QUEEN = 87, 137, 138
INJECT_ENERGY = TUMOR_ENERGY = 25.0
TRANSFUSE_ENERGY, TRANSFUSE_LIFE = 50.0, 75.0
INJECT_COOLDOWN = int(1.8 * LOOPS_PER_FASTER_SECOND)
"""Loops before the Queen may cast Spawn Larva again (40; KB:LLM-PySC2, "cooldown:1.8 seconds")."""
TRANSFUSE_COOLDOWN = int(1 * LOOPS_PER_FASTER_SECOND)
"""Loops before the Queen may cast Transfusion again (22; KB:LLM-PySC2, "cooldown:1 seconds")."""
COOLDOWNS = {INJECT: INJECT_COOLDOWN, TRANSFUSE: TRANSFUSE_COOLDOWN}
TUMOR_SPAWN_RANGE = 10.0
"""LP:Creep_Tumor."""
CANCEL_REFUND = 0.75
MORPH_BANELING_OLD = 80
"""burnysc2's ``MORPHZERGLINGTOBANELING_BANELING``: the id older clients give the morph that the
captured client's data calls 4431; both are taken."""
UNIT_MORPHS = {**{ab: ab for ab, m in tech.MORPH.items() if m.kind == "unit"}, MORPH_BANELING_OLD: 4431}
"""Unit morphs through a cocoon (ability -> its ``data.tech.MORPH`` entry)."""
CREEP_ON, CREEP_OFF = 1692, 1693
"""An Overlord's Generate Creep (needs a Lair or Hive: LP:Lair) on and off (``systems/creep.py``)."""
BURROW_DOWN, BURROW_UP = 3661, 3662
"""The generic burrow abilities burnysc2 may send (``BURROWDOWN`` / ``BURROWUP``)."""
BURROW_LOOPS = 16
"""(m) Loops burrowing or unburrowing takes (the client's data has no transition times), but for
the Lurker's burrow (:data:`BURROW_TIMES`)."""
LURKER_BURROW = 2108
"""``BURROWDOWN_LURKER``."""
LURKER_BURROW_LOOPS = round(2 * 22.4)
"""Adaptive Talons "reduces Lurker burrow time from 2 to 1.07 seconds" (KB:LLM-PySC2, the
Lurker's and the burrowed Lurker's entries; faster seconds): 2 s = 44.8, 45 loops without it;
with it ``data.units.TRANSITION_UPGRADES`` (24 loops, the time fixed when the burrow starts, m).
The source gives no unburrow time: the Lurker unburrows in :data:`BURROW_LOOPS` (m), as before."""
BURROW_TIMES: dict[int, int] = {LURKER_BURROW: LURKER_BURROW_LOOPS}
"""Burrow abilities (specific) whose change does not take :data:`BURROW_LOOPS`: ability -> loops."""
ROOTS = {1729: (139, 98), 1731: (140, 99)}
"""Spine / Spore Crawler root (a point) -> (the uprooted type, the rooted type); the generic 3680
takes either.  Uprooting (1725 / 1727, generic 3681) is ``systems/modes.py``'s form change."""
ROOT_GENERIC = 3680
OFF_CREEP_DECAY = 3.0
"""Life per normal second a Zerg structure off creep loses (LP:Zerg_Regeneration)."""
_NO_CREEP_NEEDED = frozenset({86, 100, 101, 88, 1995, 142, 139, 140, TUMOR, TUMOR_BURROWED, TUMOR_QUEEN})
"""Zerg structures that stand off creep unharmed: Hatchery, Lair, Hive, Extractor (and its rich
form), Nydus Worm, creep tumors (LP:Creep); uprooted crawlers walk (their record keeps the old spot)."""
_DECAYING = frozenset(int(s.unit_id) for s in TYPES.specs
                      if s.race == D.ZERG and s.is_structure and int(s.unit_id) not in _NO_CREEP_NEEDED)
"""The Zerg structure types that lose life off creep."""


def _burrows() -> dict[int, dict[int, tech.MorphSpec]]:
    """Burrow / unburrow ability (specific, and the generic 3661 / 3662) -> {source type: spec},
    for Zerg units (``data.tech.MORPH`` modes into or out of a burrowed type)."""
    from sc2pool.engine.data import units as F

    out: dict[int, dict[int, tech.MorphSpec]] = {}
    for ab, m in tech.MORPH.items():
        if m.kind != "mode" or D.unit_spec(m.sources[0]).race != D.ZERG or D.unit_spec(m.sources[0]).is_structure:
            continue
        down = F.FACTS.get(m.unit_id) is not None and F.FACTS[m.unit_id].burrowed
        up = F.FACTS.get(m.sources[0]) is not None and F.FACTS[m.sources[0]].burrowed
        if not (down or up) or m.unit_id not in TYPES.row_of or m.sources[0] not in TYPES.row_of:
            continue
        for a in (ab, BURROW_DOWN if down else BURROW_UP):
            for src in m.sources:
                out.setdefault(a, {})[src] = m
    return out


BURROWS = _burrows()
_BURROWED = np.array(sorted({m.unit_id for m in BURROWS[BURROW_DOWN].values()}))
"""The burrowed Zerg types (reported ``is_burrowed``)."""
_BURROWED_LUT = np.isin(TYPES.unit_id, _BURROWED)
"""Per type row: a burrowed Zerg type."""
ABILITIES = frozenset({INJECT, QUEEN_TUMOR, TUMOR_TUMOR, TRANSFUSE, CANCEL_BUILD, CANCEL, *UNIT_MORPHS, *BURROWS,
                       CREEP_ON, CREEP_OFF, *SPELL_ABILITIES, *ROOTS, ROOT_GENERIC})


class ZergAbilities:
    """Queens' casts under way, tumors that spawned theirs, Drones inside their structures."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.spent: set[int] = set()
        """Tumors that placed their new tumor."""
        self.builders: dict[int, int] = {}
        """Zerg structure under construction -> the Drone type it was (for a cancel)."""
        self.burrowing: dict[int, tuple[int, int]] = {}
        """Tag of a unit burrowing or unburrowing -> (its new type, the loop it is done)."""
        self._decayed = 0
        """The loop up to which off-creep structures lost their life."""
        self.spells = ZergSpells(world)
        """The other Zerg units' targeted spells (Corrosive Bile, Fungal Growth, ...)."""
        # the Queens' casts walk into range by systems/casting.py (the client's cast ranges: Spawn
        # Larva 0.1, Creep Tumor 0, Transfusion 7); their effects are here
        world.casting.add(
            CastSpec(INJECT, client.ability(INJECT).cast_range, self._inject, on_unit=True, energy=INJECT_ENERGY,
                     cooldown=INJECT_COOLDOWN),
            CastSpec(QUEEN_TUMOR, client.ability(QUEEN_TUMOR).cast_range, self._tumor, energy=TUMOR_ENERGY),
            CastSpec(TRANSFUSE, client.ability(TRANSFUSE).cast_range, self._transfuse, on_unit=True,
                     energy=TRANSFUSE_ENERGY, cooldown=TRANSFUSE_COOLDOWN),
        )

    # ------------------------------------------------------------------ commands
    def command(self, c: Command) -> int:
        ab = c.ability
        if ab in (CANCEL_BUILD, CANCEL):
            return self.cancel(c)
        if ab in UNIT_MORPHS:
            return self.w.larva.morph_unit(c.player, UNIT_MORPHS[ab], c.rows)
        if ab in BURROWS:
            return self._burrow(c)
        if ab in SPELL_ABILITIES:
            return self.spells.command(c)
        if ab in ROOTS or ab == ROOT_GENERIC:
            return self._root(c)
        if ab in (CREEP_ON, CREEP_OFF):
            from sc2pool.engine.sim.systems.creep import OVERLORDS

            rows = [r for r in c.rows.tolist() if int(self.w.u.unit_id[r]) in OVERLORDS]
            if not rows:
                return ERROR
            if ab == CREEP_ON and not self.w.construction.ready_of(c.player, 100):  # (a Lair; a Hive counts)
                return TECH_REQUIREMENTS_NOT_MET
            self.w.creep.generate(rows, ab == CREEP_ON)
            return SUCCESS
        u = self.w.u
        if ab == TUMOR_TUMOR:
            return self._tumor_spawn(c)
        queens = c.rows[u.unit_id[c.rows] == QUEEN]
        if len(queens) == 0:
            return ERROR
        energy = INJECT_ENERGY if ab in (INJECT, QUEEN_TUMOR) else TRANSFUSE_ENERGY
        if ab in COOLDOWNS:
            cooled = self.w.casting.ready_to
            queens = np.array([q for q in queens.tolist() if cooled(int(u.tag[q]), ab)], dtype=np.int64)
            if len(queens) == 0:
                return COOLDOWN
        self.w.abilities._register()  # (a new Queen starts with its energy)
        # the first commanded Queen with the energy casts, as every race's casts choose (m)
        ready = [int(q) for q in queens.tolist() if self.w.abilities.energy_of(int(u.tag[q])) >= energy]
        if not ready:
            return NOT_ENOUGH_ENERGY
        r = ready[0]
        if ab == INJECT:
            s = self.w.construction.structures.get(c.ttag)
            if s is None or s.unit_id not in TOWNHALLS or not s.ready or s.owner != c.player:
                return CANT_TARGET_THAT_UNIT
            return self.w.casting.order(c, r, Cast(ab, c.ttag))
        if ab == QUEEN_TUMOR:
            if c.pos is None:
                return ERROR
            x, y = c.pos
            if not self.w.creep.has(x, y):
                return CANT_BUILD_LOCATION_INVALID
            return self.w.casting.order(c, r, Cast(ab, x=x, y=y))
        if c.trow < 0 or c.hostile:
            return CANT_TARGET_THAT_UNIT
        if D.BIOLOGICAL not in TYPES.specs[int(u.ti[c.trow])].attributes:
            return MUST_TARGET_BIOLOGICAL_UNITS
        return self.w.casting.order(c, r, Cast(ab, c.ttag))

    def _burrow(self, c: Command) -> int:
        """Zerg units burrow or unburrow in place (LP:Burrow): the Burrow research (64) is
        needed, but for the units that burrow without it (``data.tech``); the change takes
        :data:`BURROW_LOOPS` (m; the Lurker's burrow its own, :data:`BURROW_TIMES`, shorter with
        Adaptive Talons: ``Research.transition``), during which
        the unit's order is the ability and it does nothing else; the burrowed type is the
        client's (cloaked: ``systems/detection.py``)."""
        w = self.w
        u = w.u
        by_src = BURROWS[c.ability]
        first_error = ERROR
        started = False
        for i in c.rows.tolist():
            spec = by_src.get(int(u.unit_id[i]))
            if spec is None or int(u.tag[i]) in self.burrowing or int(u.tag[i]) in w.larva.eggs:
                continue
            if spec.requires.upgrade and not w.research.has(c.player, spec.requires.upgrade):
                first_error = TECH_REQUIREMENTS_NOT_MET
                continue
            tag = int(u.tag[i])
            w.workers.leave_jobs(np.array([i]))
            u.queues.pop(tag, None)
            u.set_order(i, Order(TRANSFORM, spec.ability_id))
            loops = w.research.transition(spec.ability_id, c.player, BURROW_TIMES.get(spec.ability_id, BURROW_LOOPS))
            self.burrowing[tag] = (spec.unit_id, w.loop + loops)
            started = True
        if started:
            w.touch()
            return SUCCESS
        return first_error

    def _root(self, c: Command) -> int:
        """An uprooted Spine or Spore Crawler walks to the point and roots there (LP:Spine_Crawler,
        LP:Spore_Crawler): the spot is checked as the structure's placement, creep under its whole
        footprint included (``CantBuildLocationInvalid`` otherwise), when ordered and again on
        arrival; then the form change takes its time (``systems/modes.py``, which carries the
        walk and the landing as a flying Terran structure's)."""
        from sc2pool.engine.sim.systems.placement import half_size, snap

        w = self.w
        u = w.u
        if c.pos is None:
            return ERROR
        first_error = ERROR
        for i in c.rows.tolist():
            uid = int(u.unit_id[i])
            got = next(((ab, rooted) for ab, (src, rooted) in ROOTS.items() if src == uid
                        and c.ability in (ab, ROOT_GENERIC)), None)
            if got is None or int(u.kind[i]) == TRANSFORM:
                continue
            ab, rooted = got
            hx, hy = half_size(rooted)
            x, y = snap(c.pos[0], hx), snap(c.pos[1], hy)
            res = w.placement.fits(rooted, x, y, c.player)
            if res != SUCCESS:
                first_error = res
                continue
            tag = int(u.tag[i])
            u.queues.pop(tag, None)
            u.set_order(i, Order(MOVE, ab, x, y))
            w.modes.landing[tag] = (ab, x, y)
            w.touch()
            return SUCCESS
        return first_error

    def _tumor_spawn(self, c: Command) -> int:
        u = self.w.u
        tumors = [r for r in c.rows.tolist() if int(u.unit_id[r]) == TUMOR_BURROWED and int(u.tag[r]) not in self.spent]
        if not tumors or c.pos is None:
            return ERROR
        r = tumors[0]
        x, y = c.pos
        if math.hypot(x - float(u.x[r]), y - float(u.y[r])) > TUMOR_SPAWN_RANGE or not self.w.creep.has(x, y):
            return CANT_BUILD_LOCATION_INVALID
        self.spent.add(int(u.tag[r]))
        self._place_tumor(TUMOR, c.player, x, y)
        return SUCCESS

    def _place_tumor(self, uid: int, owner: int, x: float, y: float) -> None:
        w = self.w
        cons = w.construction
        tag = cons.add_structure(uid, owner, math.floor(x) + 0.5, math.floor(y) + 0.5, ready=False)
        s = cons.structures[tag]
        s.since = w.events.now
        w.events.push(w.events.now + int(math.ceil(s.build_loops)), tag)

    def cancel(self, c: Command) -> int:
        """Cancel eggs or Zerg structures under construction among the commanded units."""
        w = self.w
        res = w.larva.cancel(c.player, c.rows)
        if res is not None:
            return res
        u = w.u
        done = False
        for r in c.rows.tolist():
            tag = int(u.tag[r])
            s = w.construction.structures.get(tag)
            if s is None or s.ready or tag not in self.builders:
                continue
            ab = D.unit_spec(s.unit_id).creation_ability
            spec = tech.BUILD.get(ab)
            if spec is not None:
                w.supply.pay(c.player, -int(spec.minerals * CANCEL_REFUND), -int(spec.vespene * CANCEL_REFUND))
            x, y, owner = s.x, s.y, s.owner
            drone = self.builders.pop(tag)
            w.remove_tags([tag])
            w.spawn(drone, owner, [x], [y], free=True)
            done = True
        if done:
            w.supply.revision += 1
            return SUCCESS
        return ERROR

    # ------------------------------------------------------------------ per step
    # ------------------------------------------------------------------ the Queens' casts' effects
    def _inject(self, cast: Cast, r: int, t: int, loop: int) -> None:
        self.w.larva.inject(cast.target, loop)

    def _tumor(self, cast: Cast, r: int, t: int, loop: int) -> None:
        if self.w.creep.has(cast.x, cast.y):  # (the creep may have receded meanwhile)
            self._place_tumor(TUMOR_QUEEN, int(self.w.u.owner[r]), cast.x, cast.y)

    def _transfuse(self, cast: Cast, r: int, t: int, loop: int) -> None:
        u = self.w.u
        u.hp[t] = min(float(TYPES.hp_max[u.ti[t]]), float(u.hp[t]) + TRANSFUSE_LIFE)
        self.spells.transfuse(cast.target)  # (and 50 more over time)

    def upkeep(self, loop: int) -> None:
        """Casts in range happen; finished tumors burrow; creep's speed bonus follows the units
        (after research has set their speeds)."""
        w = self.w
        if self.burrowing:
            self._burrows_done(loop)
        if self.spells.active:
            self.spells.upkeep(loop)
        if w.has_zerg:
            w.creep.speed_bonus()
            self._off_creep(loop)
        for tag, s in w.construction.structures.items():
            if s.unit_id in (TUMOR, TUMOR_QUEEN) and s.ready:
                r = w.u.row(tag)
                if r >= 0:
                    w.u.retype(np.array([r]), TUMOR_BURROWED)
                s.unit_id = TUMOR_BURROWED
                w.touch()

    def _off_creep(self, loop: int) -> None:
        """Zerg structures off creep lose life for the loops since the last step."""
        w = self.w
        dt = loop - self._decayed
        self._decayed = loop
        if dt <= 0 or not w.creep.active:
            return
        u = w.u
        dead: list[int] = []
        for tag, s in w.construction.structures.items():
            if s.unit_id not in _DECAYING or w.creep.has(s.x, s.y):
                continue
            r = u.row(tag)
            if r < 0:
                continue
            u.hp[r] -= dt * OFF_CREEP_DECAY / D.NORMAL_LOOPS_PER_SECOND
            w.regeneration.damaged(r)
            if u.hp[r] <= 0.0:
                dead.append(tag)
            w.touch()
        if dead:
            w.remove_tags(dead)

    def _burrows_done(self, loop: int) -> None:
        u = self.w.u
        for tag, (product, end) in list(self.burrowing.items()):
            if end > loop:
                continue
            del self.burrowing[tag]
            r = u.row(tag)
            if r < 0:
                continue
            frac = float(u.hp[r]) / max(float(TYPES.hp_max[u.ti[r]]), 1.0)
            u.retype(np.array([r]), product)
            u.hp[r] = frac * float(TYPES.hp_max[u.ti[r]])
            u.kind[r] = IDLE
            u.ability[r] = 0
            if u.queues.get(tag):
                u.finish_orders(np.array([r]))
            self.w.touch()

    def horizon(self, loop: int) -> int:
        h = self.spells.horizon(loop) if self.spells.active else 1 << 30
        if self.burrowing:
            h = min(h, max(1, min(end for _, end in self.burrowing.values()) - loop))
        return h

    def forget(self, alive: set[int]) -> None:
        self.spent &= alive
        self.spells.forget(alive)
        for d in (self.builders, self.burrowing):
            for t in [t for t in d if t not in alive]:
                del d[t]  # type: ignore[attr-defined]

    def extras(self, parts: dict[int, bytes]) -> None:
        """Burrowed Zerg units: ``is_burrowed`` (burnysc2's ``Unit.is_burrowed``); a unit burrowing
        or unburrowing: its order, the burrow ability."""
        u = self.w.u
        rows = np.nonzero(_BURROWED_LUT[u.ti])[0]
        for t in u.tag[rows].tolist():
            parts[t] = parts.get(t, b"") + b"\xa8\x01\x01"

    def available(self, player: int, r: int, out: list[tuple[int, bool]]) -> None:
        """Queens' casts they have the energy for; a tumor's spawn while unused."""
        u = self.w.u
        uid, tag = int(u.unit_id[r]), int(u.tag[r])
        if uid == QUEEN:
            e = self.w.abilities.energy_of(tag)
            if e >= INJECT_ENERGY:
                if self.w.casting.ready_to(tag, INJECT):
                    out.append((INJECT, False))
                out.append((QUEEN_TUMOR, True))
            if e >= TRANSFUSE_ENERGY and self.w.casting.ready_to(tag, TRANSFUSE):
                out.append((TRANSFUSE, False))
        elif uid == TUMOR_BURROWED and tag not in self.spent:
            out.append((TUMOR_TUMOR, True))
        elif uid == LARVA:
            self.w.larva.available(player, out)
        else:
            self.spells.available(r, out)
