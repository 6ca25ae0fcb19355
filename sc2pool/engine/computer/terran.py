"""The Terran Computer's own rules: its builds without a tech path (Simple, Rush) play barracks of
Marines and Reapers (:meth:`TerranRules.economy_basic`); with one, its production structures get
the Tech Labs and Reactors the build gives them (:meth:`TerranRules.add_ons`); its spots are
checked as footprints only, with room for an add-on and wide lanes for its vehicles.

Where each hook is called: :class:`~.rules.RaceRules`; the Terran facts (ids): :data:`~.races.TERRAN_PROFILE`,
its builds: :mod:`.levels`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.computer.levels import BARRACKS, REACTOR, REFINERY, TECHLAB, Tech
from sc2pool.engine.computer.races import Role
from sc2pool.engine.computer.rules import LANE, WIDE_LANE, RaceRules
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.commands import SUCCESS
from sc2pool.engine.sim.systems.addons import BUILD_REACTOR, BUILD_TECHLAB, REACTORS, TECHLABS, addon_spot

if TYPE_CHECKING:
    from sc2pool.engine.sim.systems.construction import Structure
    from sc2pool.engine.sim.world import World

# the real client's ability and unit ids
TRAIN_MARINE, TRAIN_REAPER = 560, 561
BUILD_DEPOT, BUILD_BARRACKS = 319, 321
"""Terran's footprint checks of its 2 x 2 and 3 x 3 spots (and an add-on's, 2 x 2)."""
REAPER = 49
ADDON_ABILITY = {TECHLAB: BUILD_TECHLAB, REACTOR: BUILD_REACTOR}
ADDON_COST = {TECHLAB: (50, 25), REACTOR: (50, 50)}
ADDON_TYPE = T.TECHLAB
"""The type whose radius stands for any add-on (every add-on is the same 2 x 2)."""
_ADDON_TYPES = frozenset({ADDON_TYPE, *TECHLABS, *REACTORS})


class TerranRules(RaceRules):
    """Barracks of Marines and Reapers, add-ons, footprint placement (see the module docstring)."""

    checks_requirements = False
    """Terran's builds never train what they cannot (as they were tuned)."""

    def may_start(self, need: int) -> bool:
        """A structure whose requirement ``need`` stands, finished or not: its SCV walks there first
        (as its builds were tuned)."""
        ok = T.satisfies(need)
        return any(s.unit_id in ok for s in self.c.structs)

    # ------------------------------------------------------------------ the builds without a tech path
    def produce_basic(self, world: World) -> None:
        self.produce(world, self.barracks())

    def economy_basic(self, world: World, ready_th: list[Structure], refineries: list[Structure],
                      building: dict[int, int]) -> None:
        """After the opener: a refinery where it wants reapers, barracks as the build has per base
        (one more while minerals pile up beyond 400, within the level's cap), then Marines and
        Reapers (:meth:`produce`)."""
        c = self.c
        rp = c.race
        barracks = self.barracks()
        if c.build.reapers and not refineries and not building.get(rp.roles[REFINERY].ability) and ready_th:
            if not c.place(world, REFINERY):
                return
        want_rax = c.build.barracks_per_base * max(1, len(ready_th))
        if world.supply.minerals.get(c.player_id, 0) > 400:
            want_rax = len(barracks) + 1  # (money piles up: more production)
        want_rax = min(c.level.max_barracks, want_rax)
        if len(barracks) + building.get(BUILD_BARRACKS, 0) < want_rax and not building.get(BUILD_BARRACKS) \
                and any(s.unit_id == D.SUPPLYDEPOT and s.ready for s in c.structs):
            if not c.place(world, BARRACKS):
                return
        self.produce(world, barracks)

    def barracks(self) -> list[Structure]:
        return [s for s in self.c.structs if s.unit_id == D.BARRACKS]

    def produce(self, world: World, barracks: list[Structure]) -> None:
        """Marines from every idle barracks; reapers while it has fewer than the build wants."""
        c = self.c
        pid = c.player_id
        u = world.u
        idle = [b for b in barracks if b.ready and not b.queue]
        if not idle:
            return
        reapers = int(np.count_nonzero((u.owner == pid) & (u.unit_id == REAPER))) + \
            sum(b.queue.count(REAPER) for b in barracks)
        for b in idle:
            if reapers < c.build.reapers and c.can_spend(world, 50, 50):
                if world.command(pid, TRAIN_REAPER, [b.tag], None, 0, False) == SUCCESS:
                    reapers += 1
                    continue
            if not c.can_spend(world, 50, 0):
                return
            world.command(pid, TRAIN_MARINE, [b.tag], None, 0, False)

    # ------------------------------------------------------------------ the tech builds
    def add_ons(self, world: World, tech: Tech, prod: dict[str, list[Structure]]) -> None:
        """Each finished, idle production structure without an add-on builds the one the build gives
        it (by its rank among its kind), a barracks once the build's reapers are out (the "Reaper
        Expand": the reaper first, then the add-on); one whose add-on has no room trains without."""
        c = self.c
        pid = c.player_id
        u = world.u
        reapers_short = c.build.reapers and int(np.count_nonzero((u.owner == pid) & (u.unit_id == REAPER))) + \
            sum(b.queue.count(REAPER) for b in prod[BARRACKS]) < c.build.reapers
        for w in c.race.production:
            for i, s in enumerate(sorted(prod[w], key=lambda s: s.tag)):
                if not s.ready or s.addon or s.busy or s.tag in c.no_addon or (w == BARRACKS and reapers_short):
                    continue
                want = tech.addon_of(w, i)
                if not want or not c.can_spend(world, *ADDON_COST[want]):
                    continue
                if world.command(pid, ADDON_ABILITY[want], [s.tag], None, 0, False) != SUCCESS:
                    c.no_addon.add(s.tag)

    # ------------------------------------------------------------------ placement
    def check_ability(self, role: Role) -> int:
        """A Supply Depot's or a Barracks' footprint stands for every 2 x 2 and 3 x 3 structure."""
        return BUILD_DEPOT if role.size == 2 else BUILD_BARRACKS

    def spot_in(self, world: World, k: int, spots: list[tuple[float, float]], ability: int, size: int, addon: bool,
                sources: np.ndarray, reach: float) -> tuple[float, float] | None:
        """The first spot that passes placement and :meth:`~.melee.MeleeComputer.clear_of_structures`
        (with ``addon``, its add-on's spot too); every spot before it is dropped."""
        c = self.c
        while spots:
            x, y = spots[0]
            if world.placement.check(ability, x, y) == SUCCESS and c.clear_of_structures(x, y, size, addon) \
                    and (not addon or world.placement.check(BUILD_DEPOT, *addon_spot(x, y)) == SUCCESS):
                return (x, y)
            spots.pop(0)
        return None

    def add_on_room(self, others: list[tuple[float, float, int]], mine: list[tuple[float, float, float]],
                    x: float, y: float, addon: bool) -> None:
        """Every production structure's add-on spot is kept free too, and with ``addon`` the new
        structure's own."""
        production = self.c.production_types
        others.extend([(*addon_spot(sx, sy), ADDON_TYPE) for sx, sy, uid in list(others) if uid in production])
        if addon:
            mine.append((*addon_spot(x, y), D.unit_spec(ADDON_TYPE).radius))

    def lane(self, uid: int, rs: float, wide: bool, tech: bool) -> float:
        """The wide lane next to production structures and add-ons with a tech path (its vehicles
        walk out of them)."""
        return WIDE_LANE if wide or (tech and (uid in self.c.production_types or uid in _ADDON_TYPES)) else LANE
