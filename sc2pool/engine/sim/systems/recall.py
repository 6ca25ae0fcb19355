"""Strategic Recall: the Nexus's and the Mothership's mass recall.

Rules (the figures are :mod:`sc2pool.engine.data.recall`'s, from the LLM-PySC2 knowledge base
(NKAI-Decision-Team/LLM-PySC2, ``llm_pysc2/lib/knowledge/protoss.py``, Liquipedia-derived); "(m)"
where the engine chose):

- *the abilities*: 3757 (``EFFECT_MASSRECALL_NEXUS``) by a finished Nexus, 142
  (``EFFECT_MASSRECALL_STRATEGICRECALL``) by a Mothership, each on a point anywhere (the client's
  ``cast_range`` 500); the generic 3686 (``EFFECT_MASSRECALL``) is whichever of the two the
  commanded unit has.  Of several commanded casters, the first (in the command's order) that may
  cast now casts alone (m: as one Warp Gate of several warps a unit in).  A unit target stands for
  its point (m, as the other point casts); a point off the map was already clamped to the playable
  area by the command path (``Game.action``, as for every point command).
- *cost and cooldown*: the Nexus pays 50 energy (``NotEnoughEnergy`` without it); then none of
  its player's Nexuses may recall for 130 s ("global for all Nexuses"), the Mothership's recall
  alone for 89 s (it "does not share a cooldown with the Nexus Strategic Recall"); ``Cooldown``
  meanwhile, and the abilities query leaves the ability out.  The cooldown is checked before the
  energy (as Battery Overcharge's, ``systems/warpgate.py``).  The Mothership pays no energy: the
  source names no cost (m).  An unfinished Nexus: ``BuildingIsUnderConstruction`` (m).
- *the delay*: the source's "Duration" (0.4 s for the Nexus, 2 s for the Mothership) is the time
  from the cast to the teleport (m: read as a delay).  Meanwhile the caster's order is the ability
  (it channels: ``systems/casting.py``'s channel, so the Mothership neither moves nor fires and
  orders given to it wait); the energy is paid and the cooldown starts when the cast starts.  A
  caster that dies meanwhile recalls nobody.
- *who is recalled*: when the delay is over, every unit of the caster's player whose centre is
  within the ability's radius (2.5 for the Nexus, 5 for the Mothership) of the target point
  ("all allied units in the target area": the player's own; the engine has no allies), ground and
  air, but (m for each): not structures (a Stasis Ward is one) nor units in a mode that cannot
  move (a Warp Prism in Phasing Mode, an Observer in Surveillance Mode); not the caster: no
  Mothership by a Mothership's recall; not units changing form, warping in, merging, channelling
  or held in stasis (their order is the engine's ``TRANSFORM``); not Interceptors (they go with
  their Carrier), Adept shades nor Disruptor novas; units inside transports or a Nydus are not on
  the map and stay inside.  Hallucinations are recalled like real units (m).
- *where they land*: each keeps its offset from the target point, now round the Nexus's or the
  Mothership's centre (m); a ground unit then goes to the nearest free spot: a free pathable
  cell on a ladder map (``Pathing.free_points``), clear of other ground units and of structures
  (``Collision.free_spots``, the search units coming out of a transport use), one after another in
  the store's order; air units keep the point.  Recalled units keep their tags, life, shields,
  energy and cargo; their orders are dropped (queued ones too) and workers leave their jobs, as
  for any non-economy command; they are idle where they land.

The cast goes through ``systems/casting.py`` (a :class:`~.casting.CastSpec` with a ``start`` check
that pays and starts the cooldown, a channel of the delay, and the teleport as the effect), so the
world's per-loop update of casts (``Casting.upkeep`` in ``World.advance_economy``, its horizon in
``World.horizon``) carries it out; this module holds the checks at the command, the effect, the
abilities query's answer and the per-player cooldown of the Nexuses' recall; the Mothership's own
cooldown is a caster's and lies in ``Casting``'s one cooldown table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data.recall import BY_CASTER, GENERIC_RECALL, MOTHERSHIP, RECALL, RecallSpec
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    COOLDOWN,
    ERROR,
    NOT_ENOUGH_ENERGY,
    SUCCESS,
)
from sc2pool.engine.sim.systems.casting import Cast, CastSpec
from sc2pool.engine.sim.units import IDLE, TRANSFORM, TYPES, Order

if TYPE_CHECKING:
    from sc2pool.engine.sim.commands import Command
    from sc2pool.engine.sim.world import World

ABILITIES = frozenset({*RECALL, GENERIC_RECALL})
"""Every ability this system carries out."""
INTERCEPTOR = 85
"""Never recalled (m): Interceptors go with their Carrier."""
_CASTERS = np.array(sorted(BY_CASTER))


class Recall:
    """The recalls' checks and effects, the Nexuses' per-player cooldown (see the module
    docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.player_ready: dict[tuple[int, int], int] = {}
        """(player, ability) -> the loop the player's casters may use a per-player recall again.
        Apart from ``Casting``'s table of the casters' cooldowns: its key is a player, not a unit,
        and that table drops the keys of units that are gone."""
        world.casting.add(*(CastSpec(s.ability, s.cast_range, self._recall, start=self._start, channel=s.delay)
                            for s in RECALL.values()))

    # ------------------------------------------------------------------ commands
    def casters(self, c: Command) -> list[tuple[int, RecallSpec]]:
        """The commanded units that use ``c.ability`` (the generic one: any recall caster), with
        their recall, in the command's order."""
        u = self.w.u
        out = []
        for r in c.rows.tolist():
            spec = BY_CASTER.get(int(u.unit_id[r]))
            if spec is not None and c.ability in (spec.ability, GENERIC_RECALL):
                out.append((r, spec))
        return out

    def any_caster(self, c: Command) -> bool:
        """Whether a commanded unit uses ``c.ability`` (else the command goes on as one no system
        simulates, as before this system: games without these casters answer as they did)."""
        return bool(np.isin(self.w.u.unit_id[c.rows], _CASTERS).any()) and bool(self.casters(c))

    def command(self, c: Command) -> int:
        w = self.w
        u = w.u
        casters = self.casters(c)
        if not casters:
            return ERROR
        if c.pos is not None:
            x, y = c.pos
        elif c.trow >= 0:  # (a unit target stands for its point, m)
            x, y = float(u.x[c.trow]), float(u.y[c.trow])
        else:
            return ERROR
        w.abilities._register()  # (a caster made this step starts with its type's energy)
        first_error = 0
        for r, spec in casters:
            res = self._may_cast(r, spec, w.loop)
            if res == SUCCESS:
                return w.casting.order(c, r, Cast(spec.ability, x=x, y=y))
            first_error = first_error or res
        return first_error

    def _may_cast(self, r: int, spec: RecallSpec, loop: int) -> int:
        """Whether the caster of row ``r`` may recall now: ``SUCCESS`` or what to answer."""
        w = self.w
        u = w.u
        tag = int(u.tag[r])
        s = w.construction.structures.get(tag)
        if s is not None and not s.ready:
            return BUILDING_IS_UNDER_CONSTRUCTION
        if self._cooling(spec, int(u.owner[r]), tag, loop):
            return COOLDOWN
        if spec.energy and w.abilities.energy_of(tag) < spec.energy:
            return NOT_ENOUGH_ENERGY
        return SUCCESS

    def _cooling(self, spec: RecallSpec, player: int, tag: int, loop: int) -> bool:
        if spec.per_player:
            return self.player_ready.get((player, spec.ability), 0) > loop
        return not self.w.casting.ready_to(tag, spec.ability, loop)

    # ------------------------------------------------------------------ the cast
    def _start(self, cast: Cast, r: int, t: int, loop: int) -> bool:
        """The cast begins: checked again (a shift-queued cast may find another Nexus's recall
        cooling down by now; then nothing is paid), the energy paid, the cooldown started."""
        w = self.w
        u = w.u
        spec = RECALL[cast.ability]
        tag, player = int(u.tag[r]), int(u.owner[r])
        if self._cooling(spec, player, tag, loop):
            return False
        if spec.energy and not w.abilities.spend(tag, spec.energy):
            return False
        if spec.per_player:
            self.player_ready[(player, spec.ability)] = loop + spec.cooldown
        else:
            w.casting.start_cooldown(tag, spec.ability, loop + spec.cooldown)
        return True

    def recalled(self, caster: int, x: float, y: float) -> np.ndarray:
        """Rows of the units a recall of the caster of row ``caster`` at (x, y) takes (see the
        module docstring)."""
        w = self.w
        u = w.u
        spec = BY_CASTER[int(u.unit_id[caster])]
        ok = (u.owner == u.owner[caster]) & (np.hypot(u.x - x, u.y - y) <= spec.radius)
        ok &= ~TYPES.structure[u.ti] & (TYPES.speed[u.ti] > 0) & (u.kind != TRANSFORM)
        ok &= u.unit_id != INTERCEPTOR
        if spec.caster == MOTHERSHIP:  # (the caster itself: a Mothership, or a Nexus, a structure)
            ok &= u.unit_id != MOTHERSHIP
        rows = np.nonzero(ok)[0]
        # (units held in stasis have the TRANSFORM order above and are in the jumping set too)
        jumping = w.abilities.jumping  # (Adept shades, Disruptor novas)
        if len(rows) and jumping:
            rows = rows[~np.isin(u.tag[rows], np.fromiter(jumping, dtype=np.int64, count=len(jumping)))]
        return rows

    def _recall(self, cast: Cast, r: int, t: int, loop: int) -> None:
        """The delay is over: the units in the area appear round the caster, idle."""
        w = self.w
        u = w.u
        rows = self.recalled(r, cast.x, cast.y)
        if not len(rows):
            return
        tags = u.tag[rows].tolist()
        w.workers.clear_pending(tags)
        w.workers.leave_jobs(rows)
        cx, cy = float(u.x[r]), float(u.y[r])
        offsets = [(float(u.x[i]) - cast.x, float(u.y[i]) - cast.y) for i in rows.tolist()]
        # (off the map while they are placed: no recalled unit blocks a spot for another one,
        # or for itself, where it stood before)
        u.x[rows] = np.nan
        u.y[rows] = np.nan
        for tag, (dx, dy) in zip(tags, offsets, strict=True):
            i = u.row(tag)
            ti = int(u.ti[i])
            xs, ys = np.array([cx + dx]), np.array([cy + dy])
            w.map.clamp(xs, ys, float(TYPES.radius[ti]))
            if not TYPES.is_flying[ti]:
                if w.pathing.active:
                    xs, ys = w.pathing.free_points(xs, ys)
                xs, ys = w.collision.free_spots(int(u.unit_id[i]), xs, ys)
            u.x[i], u.y[i] = float(xs[0]), float(ys[0])
            u.queues.pop(tag, None)
            u.set_order(i, Order(IDLE, 0))
            u.wp[i] = -1  # (no path left over from its walk)
        w.touch()

    # ------------------------------------------------------------------ the abilities query
    def available(self, player: int, r: int, out: list[tuple[int, bool]]) -> None:
        """A finished Nexus's recall while its player's Nexuses are off cooldown and it has the
        energy; a Mothership's while its own cooldown is over."""
        w = self.w
        u = w.u
        spec = BY_CASTER.get(int(u.unit_id[r]))
        if spec is None:
            return
        if spec.energy:
            w.abilities._register()
        if self._may_cast(r, spec, w.loop) == SUCCESS:
            out.append((spec.ability, True))
