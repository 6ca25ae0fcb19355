"""The melee Computer's defence against cloak and air: detectors, anti-air, Shield Batteries.

A cloaked unit that a player does not detect cannot be attacked by that player's units
(Liquipedia "Detection"; the engine's rule: ``sim/systems/detection.py``), so a Computer that
never builds a detector loses to a single Banshee or Dark Templar at every level.  What the real
built-in AI builds against cloak and air, and when, is not documented (no written source found
here); the rules below are the engine's (m), chosen so that cloak and air are answered at the
levels that play their own builds, and kept as one job the economy asks for
(:meth:`Defence.build`):

- *seeing cloak*: it has seen a cloaked enemy unit it does not detect on a cell its units see
  (a player sees such a unit's shimmer: Liquipedia "Cloaking"); from Medium up
  (:attr:`~.levels.Level.static_defence` 1) it then wants its race's detector structure at each of
  its finished bases: a Missile Turret (after an Engineering Bay), a Spore Crawler (after a
  Spawning Pool) or a Photon Cannon (after a Forge, in a Pylon's power), and keeps its money for
  them (the requirement first, then one base at a time, the main first);
- *seeing air*: from Hard up (level 2) the same structures once it has seen enemy air units (each
  of the three shoots air), without keeping money for them;
- *Shield Batteries* (Protoss, level 2): one at each finished Nexus once its Cybernetics Core
  stands, without keeping money.

- *a detector with its army* (level 1 and up, once it has seen cloak): one Observer (from a
  Robotics Facility, when it has one) or Overseer (an Overlord morphed, once a Lair stands) at a
  time; it counts among its army, so it waits with the army at home and goes with a wave (as a
  Medivac does: :meth:`~.melee.MeleeComputer.escort`).  The Terran Computer has no detector
  unit (a Raven needs a Starport's Tech Lab, which most of its builds do not make (m)): its
  Orbital Commands scan instead (:meth:`.terran.TerranRules.scan`).

Each structure stands by the base's mineral line (:meth:`~.melee.MeleeComputer.free_spot` with
``minerals``); a Protoss base without a Pylon gets one there first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.computer.levels import DEPOT
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.units import TYPES

if TYPE_CHECKING:
    from sc2pool.engine.computer.melee import MeleeComputer
    from sc2pool.engine.sim.world import World

BASE_REACH = 14.0
"""A base's static defence stands this close to its townhall's site at most (m); a structure
defends the base whose site is nearest to it."""
PYLON_REACH = 9.0
"""A Protoss base has power for its static defence when a Pylon stands (or is ordered) this close
to its townhall site (m: the spots by the mineral line lie 6-8 from it, a power field's radius is
6.5)."""


class Defence:
    """What one Computer knows and wants of its static defence (see the module docstring)."""

    def __init__(self, computer: MeleeComputer) -> None:
        self.c = computer
        self.cloak_seen = False
        """It has seen a cloaked enemy unit it does not detect."""
        self.air_seen = False
        """It has seen an enemy air unit (not a structure)."""

    def look(self, world: World, known: np.ndarray) -> None:
        """Note what its units see now (``known``: rows of the enemy units it sees)."""
        if not self.c.level.static_defence or not len(known):
            return
        if not self.air_seen:
            ti = world.u.ti[known]
            self.air_seen = bool((TYPES.is_flying[ti] & ~TYPES.structure[ti]).any())
        if not self.cloak_seen and world.detection.active():
            self.cloak_seen = bool(world.detection.hidden(self.c.player_id)[known].any())

    def build(self, world: World) -> bool:
        """Order the next static defence structure it wants, if any; False: it keeps its money for
        one it could not order yet (only against cloak)."""
        c = self.c
        rp = c.race
        level = c.level.static_defence
        if not level or not rp.detector:
            return True
        if self.cloak_seen or (level >= 2 and self.air_seen):
            if not self.each_base(world, rp.detector) and self.cloak_seen:
                return False
        if level >= 2 and rp.battery:
            self.each_base(world, rp.battery)
        if self.cloak_seen and rp.scout_detector:
            self.detector_unit(world)
        return True

    def detector_unit(self, world: World) -> None:
        """One detector unit with its army (see the module docstring): trained in an idle finished
        producer, or morphed from one of its Overlords, when it has none and none on its way."""
        c = self.c
        rp = c.race
        pid = c.player_id
        u = world.u
        mine = u.owner == pid
        ability = rp.scout_detector_ability
        morph = T.MORPH.get(ability)
        kinds = [rp.scout_detector] + ([morph.cocoon] if morph is not None and morph.cocoon else [])
        if np.count_nonzero(mine & np.isin(u.unit_id, kinds)) or \
                any(rp.scout_detector in s.queue for s in c.structs):
            return
        if morph is not None:
            if not all(c.have_ready(r) for r in morph.requires.structures) or \
                    not c.can_spend(world, morph.minerals, morph.vespene):
                return
            sources = np.nonzero(mine & np.isin(u.unit_id, list(morph.sources)))[0]
            if len(sources):
                c.answer(world.command(pid, ability, [int(u.tag[sources[0]])], None, 0, False), ability)
            return
        spec = T.TRAIN[ability]
        if not c.can_spend(world, spec.minerals, spec.vespene):
            return
        for s in c.structs:
            if s.unit_id in spec.producers and s.ready and not s.queue and s.morph is None:
                c.answer(world.command(pid, ability, [s.tag], None, 0, False), ability)
                return

    def each_base(self, world: World, what: str) -> bool:
        """One structure of role ``what`` at each finished base, its requirement first; False
        while it cannot order the one it needs now (money, worker, power, spot)."""
        c = self.c
        rp = c.race
        role = rp.roles[what]
        if c.building.get(role.ability):
            return True  # (one at a time)
        need = role.needs
        if need and not c.have_ready(need):
            if any(s.unit_id in T.satisfies(need) for s in c.structs):
                return True  # (it stands, unfinished)
            need_role = rp.role_of(need)
            if not need_role or c.building.get(rp.roles[need_role].ability) or \
                    not c.rules.may_start(rp.roles[need_role].needs):
                return True
            return c.place(world, need_role)
        plan = c.plan
        assert plan is not None
        types = set(role.types)
        ready_sites = {c.site_index((s.x, s.y)) for s in c.structs if s.unit_id in c.townhall_types and s.ready}
        defended = {c.site_index((s.x, s.y)) for s in c.structs if s.unit_id in types} | \
            {c.site_index((x, y)) for x, y, uid in c.pending if uid in types}
        for k in c.bases(world):
            if k not in ready_sites or k in defended:
                continue
            if role.powered and not self.powered(k):
                return c.construct(world, DEPOT, bases=[k], minerals=True)
            spot = c.free_spot(world, role, bases=[k], minerals=True)
            hx, hy = plan.sites[k]
            if spot is None or (spot[0] - hx) ** 2 + (spot[1] - hy) ** 2 > BASE_REACH ** 2:
                continue  # (no room left by this base, or no power yet: the next base)
            return c.construct(world, what, bases=[k], minerals=True)
        return True

    def powered(self, k: int) -> bool:
        """Protoss: whether base ``k`` has a Pylon for its static defence (finished; one on its way
        counts too: the structure waits for it)."""
        c = self.c
        plan = c.plan
        assert plan is not None
        hx, hy = plan.sites[k]
        pylon = c.race.supply_unit
        pts = [(s.x, s.y) for s in c.structs if s.unit_id == pylon] + \
            [(x, y) for x, y, uid in c.pending if uid == pylon]
        return any((x - hx) ** 2 + (y - hy) ** 2 < PYLON_REACH ** 2 for x, y in pts)
