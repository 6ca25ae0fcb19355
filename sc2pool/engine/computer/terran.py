"""The Terran Computer's own rules: its builds without a tech path (Simple, Rush) play barracks of
Marines and Reapers (:meth:`TerranRules.economy_basic`); with one, its production structures get
the Tech Labs and Reactors the build gives them (:meth:`TerranRules.add_ons`); its spots are
checked as footprints only, with room for an add-on and wide lanes for its vehicles.

From Medium up (the levels that play their own build) it also uses what its tech gives, as a
Terran player does; which levels, and the thresholds, are the engine's (m: no source on the real
AI's use of them was found here):

- *Orbital Commands* (:meth:`TerranRules.tend_bases`): each finished Command Center becomes an
  Orbital Command once a Barracks stands (one at a time, when it is idle); an Orbital calls down
  a MULE on the fullest mineral field of its base whenever it has the energy, keeping 50 on one
  of them for a Scanner Sweep once the Computer has seen cloak (:mod:`.defence`);
- *fights* (:meth:`TerranRules.tactics`, every army decision): a Siege Tank sieges when an enemy
  ground unit it knows of is within :data:`SIEGE_REACH` and unsieges once none has been within
  :data:`UNSIEGE_REACH` for :data:`~.rules.UNSIEGE_LOOPS`; with Stimpack, Marines and Marauders stim when
  an enemy is within :data:`STIM_REACH` of their weapon's range and their life is above
  :data:`STIM_MIN_LIFE` of its maximum, not while stimmed; with Cloaking Field, a Banshee cloaks
  when an enemy is within :data:`CLOAK_REACH`; an Orbital scans an enemy cloaked unit it does
  not detect near its army or structures (:data:`SCAN_NEAR`), not while a scan of its own lasts.
  Widow Mines burrow as tanks siege (:data:`MODES`: any enemy unit but a structure within
  :data:`MINE_REACH`); a Liberator turns to Defender Mode on the nearest enemy ground unit within
  :data:`LIBERATE_REACH` when no enemy air unit is within :data:`LIBERATE_AIR_CLEAR`, and back once
  no ground enemy has been near its zone for :data:`~.rules.UNSIEGE_LOOPS`; with Weapon Refit a
  Battlecruiser fires its Yamato Cannon at the enemy unit with the most life and shields within
  :data:`YAMATO_REACH` (at least :data:`YAMATO_MIN_LIFE`); a Raven drops an Auto-Turret in front of
  it with an enemy within :data:`TURRET_REACH`; a Ghost fires Steady Targeting at the enemy
  biological unit with the most life within :data:`SNIPE_REACH` (at least :data:`SNIPE_MIN_LIFE`),
  and EMP Round on the enemy unit with the most shields there (at least :data:`EMP_MIN_SHIELDS`).
  From Hard up, Vikings land on enemy ground units while no enemy air unit is near and lift for
  one (:data:`VIKING_LAND_REACH`); Thors take High Impact Payload against mostly massive enemy air
  and Explosive Payload against the rest (:data:`THOR_AIR_REACH`); with an Armory, Hellions near
  enemy ground units become Hellbats (:data:`HELLBAT_REACH`). From Hard up, a Raven with 75 energy
  first casts Interference Matrix on the enemy mechanical or psionic unit with the most life and
  shields within :data:`MATRIX_REACH` (at least :data:`MATRIX_MIN_LIFE`, not disabled already),
  else an Anti-Armor Missile on the enemy unit within :data:`SHRED_REACH` with the most enemy units
  round it (:data:`SHRED_MIN_UNITS`, none already shredded), else its Auto-Turret as below.
  From Hard up too, each finished Ghost Academy arms a nuke when the Computer can pay for it, and
  a Ghost of a player with an armed nuke calls it down (:meth:`TerranRules.nuke`) on the enemy it
  knows within :data:`NUKE_REACH` whose blast would hit the most enemy units and structures
  (:data:`NUKE_MIN_HIT` at least) and at most :data:`NUKE_OWN_SHARE` as many of its own.
  From Hard up, from :data:`DROP_FROM_S` on and every :data:`DROP_PERIOD_S` at most, with
  :data:`DROP_MEDIVACS` Medivacs and enough Marines and Marauders at home and no enemy at its
  bases, it drops (:meth:`TerranRules.drops`): the bio boards the Medivacs, which fly to the enemy
  main's mineral line and unload there; the units fight there for :data:`DROP_FIGHT_S`, then
  rejoin its army.  Meanwhile they are out of its army's orders (:attr:`~.rules.RaceRules.detached`).

Where each hook is called: :class:`~.rules.RaceRules`; the Terran facts (ids): :data:`~.races.TERRAN_PROFILE`,
its builds: :mod:`.levels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.computer import levels as L
from sc2pool.engine.computer.levels import BARRACKS, ENGBAY, REACTOR, REFINERY, TECHLAB, Tech
from sc2pool.engine.computer.races import ORBITAL_T, THOR_AP, VIKING_ASSAULT, Role
from sc2pool.engine.computer.rules import LANE, WIDE_LANE, Mode, RaceRules, reached
from sc2pool.engine.data import tech as T
from sc2pool.engine.sim.commands import SUCCESS
from sc2pool.engine.sim.systems.abilities import NUKE_COST, NUKE_RADIUS, SHRED_RADIUS
from sc2pool.engine.sim.systems.addons import BUILD_REACTOR, BUILD_TECHLAB, REACTORS, TECHLABS, addon_spot
from sc2pool.engine.sim.units import TRANSFORM, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.computer.melee import MeleeComputer
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

ORBITAL = ORBITAL_T
SIEGE_TANK, SIEGED_TANK, BANSHEE, MARAUDER = 33, 32, 55, 51
ORBITAL_MORPH, CALLDOWN_MULE, SCANNER_SWEEP = 1516, 171, 399
FORTRESS_MORPH = 1450
"""Command Center -> Planetary Fortress (the client's id; 150/150, an Engineering Bay: ``data.tech``)."""
FORTRESS_FROM_BASE = 2
"""From Hard up, a Command Center this far down the list of its bases by distance from its main (0
the main, 1 the natural) becomes a Planetary Fortress instead of an Orbital Command (m)."""
SIEGE, UNSIEGE, STIM, BANSHEE_CLOAK = 388, 390, 3675, 392
STIMPACK_UPGRADE, CLOAK_UPGRADE = 15, 20
"""Upgrade ids (the client's): Stimpack, Cloaking Field."""
CALLDOWN_ENERGY = 50.0
"""A MULE's and a Scanner Sweep's energy (LP:Orbital_Command)."""
SIEGE_REACH = 13.0
"""A Siege Tank sieges with an enemy ground unit this close, edge to edge (its sieged range,
the client's weapon)."""
UNSIEGE_REACH = 14.0
STIM_REACH = 2.0
STIM_MIN_LIFE = 0.6
"""Stim only with an enemy within weapon range + :data:`STIM_REACH` and this share of full life
or more (a Marine pays 10 of 45-55, a Marauder 20 of 125) (m)."""
CLOAK_REACH = 9.0
CLOAK_MIN_ENERGY = 50.0
"""A Banshee cloaks with an enemy this close and this much energy (cloaking costs 25 and drains
while on: ``systems/abilities.py``) (m)."""
SCAN_NEAR = 10.0
"""A hidden enemy this close to one of its units or structures is scanned (m)."""
WIDOWMINE, WIDOWMINE_BURROWED, MINE_BURROW, MINE_UNBURROW = 498, 500, 2095, 2097
MINE_REACH = 8.0
MINE_LEAVE = 11.0
"""A Widow Mine burrows with an enemy unit this close, edge to edge (its Sentinel Missiles reach 5:
the enemy walks in while it burrows), and unburrows once none has been within :data:`MINE_LEAVE`
for :data:`~.rules.UNSIEGE_LOOPS` (m)."""
LIBERATOR, LIBERATOR_AG, DEFENDER_MODE, FIGHTER_MODE = 689, 734, 2558, 2560
LIBERATE_REACH = 9.0
LIBERATE_AIR_CLEAR = 8.0
"""A Liberator sets its zone on an enemy ground unit this close (its cast range 5 and the zone's
radius 5) while no enemy air unit (its fighter mode's targets) is within
:data:`LIBERATE_AIR_CLEAR` (m)."""
LIBERATE_LEAVE = 11.0
"""A Liberator in Defender Mode turns back with no enemy ground unit this close for
:data:`~.rules.UNSIEGE_LOOPS` (m)."""
BATTLECRUISER, YAMATO, WEAPON_REFIT_UPGRADE = 57, 401, 76
YAMATO_REACH = 12.0
YAMATO_MIN_LIFE = 150.0
"""A Yamato Cannon (240 damage) on a unit with at least this much life and shields, this close (m)."""
RAVEN, AUTO_TURRET = 56, 1764
TURRET_REACH = 8.0
"""A Raven drops an Auto-Turret (range 6) with an enemy unit this close (m)."""
MATRIX, SHRED = 3747, 3753
RAVEN_SPELL_ENERGY = 75.0
MATRIX_REACH = 10.0
MATRIX_MIN_LIFE = 150.0
"""From Hard up: Interference Matrix (75 energy, cast range 9: the Raven flies in) on a mechanical
or psionic unit with this much life and shields or more (a sieged tank 175, a Thor 400, a
Colossus 350, ...), this close (m)."""
SHRED_REACH = 11.0
SHRED_MIN_UNITS = 4
"""From Hard up: an Anti-Armor Missile (75 energy, cast range 10, -3 armor within 2.88) on the
enemy unit this close with this many enemy units or more round it (m)."""
GHOST, SNIPE, EMP, NUKE, ARM_NUKE = 50, 2714, 1628, 1622, 710
GHOST_ACADEMY_T = 26
NUKE_REACH = 14.0
NUKE_MIN_HIT = 4
NUKE_OWN_SHARE = 0.5
"""From Hard up a Ghost calls down a nuke (radius 8, cast range 12: it walks in) on an enemy this
close whose blast would hit this many enemy units and structures or more, and its own units at
most this share of that (m)."""
SNIPE_REACH = 9.0
SNIPE_MIN_LIFE = 100.0
EMP_MIN_SHIELDS = 50.0
"""A Ghost's targets: a biological unit with this much life or more (Steady Targeting deals 170), a
unit with this many shields or more (EMP Round drains 100 within 1.5), within :data:`SNIPE_REACH`
(its casts' range 10) (m)."""

MEDIVAC, SMART, UNLOAD_ALL_AT, ATTACK_MOVE = 54, 1, 396, 3674
DROP_FROM_S = 300.0
DROP_PERIOD_S = 120.0
DROP_MEDIVACS = 2
DROP_MIN_SLOTS = 8
DROP_LOAD_S = 12.0
DROP_FIGHT_S = 40.0
"""From Hard up: a drop from this game second on, one every :data:`DROP_PERIOD_S` at most, of
this many Medivacs carrying Marines and Marauders (8 cargo slots each, :data:`DROP_MIN_SLOTS` at
least in all), who have :data:`DROP_LOAD_S` to board; dropped, they fight :data:`DROP_FIGHT_S` (m:
Liquipedia "Drop" describes the tactic, the numbers are the engine's)."""
LOOPS_PER_SECOND = 22.4
_SLOTS = {D.MARINE: 1, MARAUDER: 2}
"""Cargo slots of the drop's passengers (the client's ``cargo_size``)."""

VIKING_FIGHTER, TO_ASSAULT, TO_FIGHTER = L.VIKING, 403, 405
VIKING_LAND_REACH = 8.0
VIKING_AIR_CLEAR = 14.0
VIKING_LEAVE = 10.0
"""From Hard up a Viking lands (assault mode, range 6 against ground) with an enemy ground unit
this close and no enemy air unit within :data:`VIKING_AIR_CLEAR` (its fighter weapon's range 9 and
the way in), lifts again at once when an enemy air unit comes that close, and once no enemy ground
unit has been within :data:`VIKING_LEAVE` for :data:`~.rules.UNSIEGE_LOOPS` (m)."""
THOR, TO_HIGH_IMPACT, TO_EXPLOSIVE = L.THOR, 2362, 2364
THOR_AIR_REACH = 14.0
"""From Hard up a Thor takes High Impact Payload (one heavy shot, range 11, against air) when the
enemy air units this close are mostly massive (Battlecruisers, Carriers, Brood Lords, ...), and
Explosive Payload (splash against light air) when they are mostly not (m)."""
HELLION, TO_HELLBAT = L.HELLION, 1998
HELLBAT_REACH = 8.0
"""From Hard up, once it has an Armory (the Hellbat needs one), a Hellion with an enemy ground unit
this close becomes a Hellbat (more life, a wider close-range blast) and stays one (m)."""

_BIOLOGICAL = np.array([D.BIOLOGICAL in s.attributes for s in TYPES.specs])
"""Per type row: biological (Steady Targeting's targets)."""
_MASSIVE = np.array([D.MASSIVE in s.attributes for s in TYPES.specs])
"""Per type row: massive (what High Impact Payload is for)."""
_MECH_PSI = np.array([D.MECHANICAL in s.attributes or D.PSIONIC in s.attributes for s in TYPES.specs])
"""Per type row: mechanical or psionic (Interference Matrix's targets)."""

MODES = (Mode(SIEGE_TANK, SIEGED_TANK, SIEGE, UNSIEGE, SIEGE_REACH, UNSIEGE_REACH, air=False),
         Mode(WIDOWMINE, WIDOWMINE_BURROWED, MINE_BURROW, MINE_UNBURROW, MINE_REACH, MINE_LEAVE, air=True))
"""Siege Tanks siege and Widow Mines burrow (their client abilities)."""


@dataclass
class Drop:
    """A drop under way: Medivac tag -> the tags it carries, where it unloads, its phase
    ("board", "fly", "fight") and the loop that phase began."""

    loads: dict[int, list[int]]
    point: tuple[float, float]
    since: int
    phase: str = "board"


class TerranRules(RaceRules):
    """Barracks of Marines and Reapers, add-ons, footprint placement (see the module docstring)."""

    checks_requirements = False
    """Terran's builds never train what they cannot (as they were tuned)."""

    def __init__(self, computer: MeleeComputer) -> None:
        super().__init__(computer)
        self.drop: Drop | None = None
        self.next_drop = 0
        """The loop from which the next drop may start."""

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

    # ------------------------------------------------------------------ Orbital Commands
    def train_workers(self, world: World, ready_th: list[Structure], n_workers: int, want: int, used: int,
                      cap: int) -> int:
        """From Medium up an idle finished Command Center becomes an Orbital Command, once a
        Barracks stands, before it trains its next SCV (one a decision); from Hard up the third
        base's and later ones become Planetary Fortresses once an Engineering Bay stands."""
        c = self.c
        if c.level.own_build and any(s.unit_id == D.BARRACKS and s.ready for s in c.structs) \
                and c.can_spend(world, 150, 0):
            hx, hy = c.home
            far = sorted(ready_th, key=lambda th: (th.x - hx) ** 2 + (th.y - hy) ** 2)[FORTRESS_FROM_BASE:]
            fortress = c.difficulty >= L.HARD and FORTRESS_MORPH not in c.refused and bool(far)
            ebays = [s for s in c.structs if s.unit_id == T.EBAY]
            if fortress and not ebays and c.can_spend(world, 125, 0):
                c.place(world, ENGBAY)  # (what a Planetary Fortress needs)
            for th in ready_th:
                if th.unit_id == D.COMMANDCENTER and not th.queue and th.morph is None:
                    if fortress and th in far:
                        if any(s.ready for s in ebays) and c.can_spend(world, 150, 150):
                            c.answer(world.command(c.player_id, FORTRESS_MORPH, [th.tag], None, 0, False),
                                     FORTRESS_MORPH)
                        continue  # (it waits for the Engineering Bay and the gas, not an Orbital)
                    c.answer(world.command(c.player_id, ORBITAL_MORPH, [th.tag], None, 0, False), ORBITAL_MORPH)
                    break
        return super().train_workers(world, [th for th in ready_th if th.morph is None], n_workers, want, used, cap)

    def tend_bases(self, world: World, ready_th: list[Structure], prod: dict[str, list[Structure]]) -> None:
        """From Medium up: the Orbital Commands' MULEs (see the module docstring)."""
        c = self.c
        if not c.level.own_build:
            return
        pid = c.player_id
        orbitals = [th for th in ready_th if th.unit_id == ORBITAL]
        energy = {th.tag: world.abilities.energy_of(th.tag) for th in orbitals}
        for th in orbitals:
            e = energy[th.tag]
            if e < CALLDOWN_ENERGY:
                continue
            if c.defence.cloak_seen and e < 2 * CALLDOWN_ENERGY and \
                    not any(v >= CALLDOWN_ENERGY for t, v in energy.items() if t != th.tag):
                continue  # (the energy of one scan stays, on some Orbital)
            field = self.fullest_field(world, th)
            if field and c.answer(world.command(pid, CALLDOWN_MULE, [th.tag], None, field, False), CALLDOWN_MULE):
                energy[th.tag] = e - CALLDOWN_ENERGY

    @staticmethod
    def fullest_field(world: World, th: Structure) -> int:
        """The mineral field with the most minerals left within 10 of a townhall (0: none)."""
        best, most = 0, 0
        for tag, res in world.harvest.resources.items():
            if res.is_mineral and res.contents > most and (res.x - th.x) ** 2 + (res.y - th.y) ** 2 < 100.0:
                best, most = tag, res.contents
        return best

    # ------------------------------------------------------------------ fights
    def tactics(self, world: World, army: np.ndarray) -> None:
        c = self.c
        if not c.level.own_build:
            return
        u = world.u
        known = c.known
        flying = TYPES.is_flying[u.ti[known]]
        ground = known[~flying] if len(known) else known
        units = known[~TYPES.structure[u.ti[known]]] if len(known) else known
        uid = u.unit_id[army]
        present = set(uid.tolist())
        none = army[:0]

        def of(*types: int) -> np.ndarray:
            """Rows of ``army`` of these unit types, in its order (most types are absent: no mask then)."""
            if present.isdisjoint(types):
                return none
            mask = uid == types[0]
            for t in types[1:]:
                mask |= uid == t
            return army[mask]

        for mode in MODES:
            self.modes(world, mode, of(mode.mobile, mode.fixed), ground if not mode.air else units)
        air = known[flying & ~TYPES.structure[u.ti[known]]] if len(known) else known
        libs = of(LIBERATOR, LIBERATOR_AG)
        self.liberate(world, libs, ground[~TYPES.structure[u.ti[ground]]] if len(libs) else none, air)
        if len(known):
            research = world.research
            pid = c.player_id
            if research.has(pid, STIMPACK_UPGRADE):
                self.stim(world, of(D.MARINE, MARAUDER), known)
            if research.has(pid, CLOAK_UPGRADE):
                self.cloak(world, of(BANSHEE), known)
            if c.defence.cloak_seen:
                self.scan(world, army, known)
        if c.difficulty >= L.HARD:
            self.vikings(world, of(VIKING_FIGHTER, VIKING_ASSAULT), ground, air)
            self.thors(world, of(THOR, THOR_AP), air)
            self.hellbats(world, of(HELLION), ground)
        if len(units):
            if world.research.has(c.player_id, WEAPON_REFIT_UPGRADE):
                self.yamato(world, of(BATTLECRUISER), units)
            ravens = of(RAVEN)
            if c.difficulty >= L.HARD:
                ravens = self.raven_spells(world, ravens, units)
            self.turrets(world, ravens, units)
            ghosts = of(GHOST)
            if c.difficulty >= L.HARD:
                ghosts = self.nuke(world, ghosts, known)
            self.ghosts(world, ghosts, units)
        if c.difficulty >= L.HARD:
            self.arm_nukes(world)
            self.drops(world, army)

    def vikings(self, world: World, vikings: np.ndarray, ground: np.ndarray, air: np.ndarray) -> None:
        """Vikings land on ground enemies and lift for air ones (:data:`VIKING_LAND_REACH`)."""
        near_of = self.enemy_near.setdefault(VIKING_FIGHTER, {})
        if not len(vikings):
            near_of.clear()
            return
        u = world.u
        pid = self.c.player_id
        steady = vikings[u.kind[vikings] != TRANSFORM]
        landed = steady[u.unit_id[steady] == VIKING_ASSAULT]
        flying = steady[u.unit_id[steady] == VIKING_FIGHTER]
        air_near_f = self.nearest(world, flying, air) <= VIKING_AIR_CLEAR
        land = flying[~air_near_f & (self.nearest(world, flying, ground) <= VIKING_LAND_REACH)]
        if len(land):
            world.command(pid, TO_ASSAULT, [int(t) for t in u.tag[land].tolist()], None, 0, False)
        air_near_l = self.nearest(world, landed, air) <= VIKING_AIR_CLEAR
        lift = landed[air_near_l]
        if len(lift):
            world.command(pid, TO_FIGHTER, [int(t) for t in u.tag[lift].tolist()], None, 0, False)
        rest = landed[~air_near_l]
        self.settle(world, near_of, rest, self.nearest(world, rest, ground), VIKING_LEAVE, TO_FIGHTER)

    def thors(self, world: World, thors: np.ndarray, air: np.ndarray) -> None:
        """Thors take the payload that fits the enemy air units near (:data:`THOR_AIR_REACH`)."""
        if not len(thors) or not len(air):
            return
        u = world.u
        massive = _MASSIVE[u.ti[air]]
        to_ap, to_ex = [], []
        for r in thors[u.kind[thors] != TRANSFORM].tolist():
            d = np.hypot(u.x[air] - u.x[r], u.y[air] - u.y[r])
            near = d <= THOR_AIR_REACH
            n_massive = int(np.count_nonzero(near & massive))
            n_other = int(np.count_nonzero(near & ~massive))
            if n_massive > n_other and int(u.unit_id[r]) == THOR:
                to_ap.append(int(u.tag[r]))
            elif n_other > n_massive and int(u.unit_id[r]) == THOR_AP:
                to_ex.append(int(u.tag[r]))
        for ability, tags in ((TO_HIGH_IMPACT, to_ap), (TO_EXPLOSIVE, to_ex)):
            if tags:
                world.command(self.c.player_id, ability, tags, None, 0, False)

    def hellbats(self, world: World, hellions: np.ndarray, ground: np.ndarray) -> None:
        """With an Armory, Hellions near enemy ground units become Hellbats (:data:`HELLBAT_REACH`)."""
        if not len(hellions) or not len(ground) or not self.c.have_ready(T.ARMORY):
            return
        u = world.u
        go = hellions[(u.kind[hellions] != TRANSFORM) & (self.nearest(world, hellions, ground) <= HELLBAT_REACH)]
        if len(go):
            world.command(self.c.player_id, TO_HELLBAT, [int(t) for t in u.tag[go].tolist()], None, 0, False)

    def liberate(self, world: World, libs: np.ndarray, ground: np.ndarray, air: np.ndarray) -> None:
        """Liberators set their zone on enemy ground units, and lift it (see the module docstring)."""
        near_of = self.enemy_near.setdefault(LIBERATOR, {})
        if not len(libs):
            near_of.clear()
            return
        u = world.u
        pid = self.c.player_id
        fixed = u.unit_id[libs] == LIBERATOR_AG
        free = libs[~fixed & (u.kind[libs] != TRANSFORM) & (u.ability[libs] != DEFENDER_MODE)]
        if len(free) and len(ground):
            clear = self.nearest(world, free, air) > LIBERATE_AIR_CLEAR
            for r in free[clear].tolist():
                d = np.hypot(u.x[ground] - u.x[r], u.y[ground] - u.y[r])
                k = int(np.argmin(d))
                if float(d[k]) <= LIBERATE_REACH:
                    world.command(pid, DEFENDER_MODE, [int(u.tag[r])], (float(u.x[ground[k]]), float(u.y[ground[k]])),
                                  0, False)
        sieged = libs[fixed & (u.kind[libs] != TRANSFORM)]
        if len(sieged):
            self.settle(world, near_of, sieged, self.nearest(world, sieged, ground), LIBERATE_LEAVE, FIGHTER_MODE)
        else:
            near_of.clear()

    def yamato(self, world: World, bcs: np.ndarray, units: np.ndarray) -> None:
        """Each Battlecruiser with its Yamato Cannon ready fires it (see the module docstring)."""
        if not len(bcs):
            return
        u = world.u
        ready = world.casting.ready_to
        life = u.hp[units] + u.shield[units]
        big = units[life >= YAMATO_MIN_LIFE]
        taken: set[int] = set()
        for r in bcs.tolist():
            tag = int(u.tag[r])
            if u.ability[r] == YAMATO or not ready(tag, YAMATO) or not len(big):
                continue
            d = np.hypot(u.x[big] - u.x[r], u.y[big] - u.y[r])
            ok = [k for k in np.argsort(-(u.hp[big] + u.shield[big])).tolist()
                  if d[k] <= YAMATO_REACH and int(u.tag[big[k]]) not in taken]
            if ok:
                target = int(u.tag[big[ok[0]]])
                if world.command(self.c.player_id, YAMATO, [tag], None, target, False) == SUCCESS:
                    taken.add(target)

    def raven_spells(self, world: World, ravens: np.ndarray, units: np.ndarray) -> np.ndarray:
        """Each Raven with 75 energy: Interference Matrix, else an Anti-Armor Missile (see the
        module docstring).  Returns the Ravens that cast nothing (the Auto-Turret's)."""
        if not len(ravens):
            return ravens
        u = world.u
        a = world.abilities
        pid = self.c.player_id
        loop = world.loop
        life = u.hp[units] + u.shield[units]
        big = units[_MECH_PSI[u.ti[units]] & (life >= MATRIX_MIN_LIFE)]
        big = big[np.array([a.disabled.get(int(t), 0) <= loop for t in u.tag[big].tolist()], dtype=bool)] \
            if len(big) else big
        bare = units[np.array([int(t) not in a.shredded for t in u.tag[units].tolist()], dtype=bool)]
        idle = []
        for r in ravens.tolist():
            tag = int(u.tag[r])
            if u.ability[r] in (MATRIX, SHRED, AUTO_TURRET):
                continue
            if a.energy_of(tag) < RAVEN_SPELL_ENERGY:
                idle.append(r)
                continue
            if len(big):
                d = np.hypot(u.x[big] - u.x[r], u.y[big] - u.y[r])
                near = np.flatnonzero(d <= MATRIX_REACH)
                if len(near):
                    k = int(near[int(np.argmax(u.hp[big[near]] + u.shield[big[near]]))])
                    if world.command(pid, MATRIX, [tag], None, int(u.tag[big[k]]), False) == SUCCESS:
                        big = np.delete(big, k)
                        continue
            if len(bare) >= SHRED_MIN_UNITS:
                d = np.hypot(u.x[bare] - u.x[r], u.y[bare] - u.y[r])
                near = np.flatnonzero(d <= SHRED_REACH)
                if len(near):
                    cand = bare[near]
                    around = reached(u.x[cand], u.y[cand], u.x[cand], u.y[cand], SHRED_RADIUS, u.radius[cand]).sum(axis=1)
                    k = int(np.argmax(around))
                    if int(around[k]) >= SHRED_MIN_UNITS and \
                            world.command(pid, SHRED, [tag], None, int(u.tag[cand[k]]), False) == SUCCESS:
                        hit = np.hypot(u.x[bare] - u.x[cand[k]], u.y[bare] - u.y[cand[k]]) - u.radius[bare] <= SHRED_RADIUS
                        bare = bare[~hit]
                        continue
            idle.append(r)
        return np.array(idle, dtype=np.int64)

    def turrets(self, world: World, ravens: np.ndarray, units: np.ndarray) -> None:
        """Each Raven with the energy drops an Auto-Turret towards the nearest enemy (see the module
        docstring)."""
        if not len(ravens):
            return
        u = world.u
        a = world.abilities
        for r in ravens.tolist():
            tag = int(u.tag[r])
            if u.ability[r] == AUTO_TURRET or a.energy_of(tag) < 50.0:
                continue
            d = np.hypot(u.x[units] - u.x[r], u.y[units] - u.y[r])
            k = int(np.argmin(d))
            if float(d[k]) > TURRET_REACH:
                continue
            f = min(1.5, float(d[k])) / max(float(d[k]), 1e-6)  # (within its cast range 2)
            at = (float(u.x[r] + (u.x[units[k]] - u.x[r]) * f), float(u.y[r] + (u.y[units[k]] - u.y[r]) * f))
            world.command(self.c.player_id, AUTO_TURRET, [tag], at, 0, False)

    def drops(self, world: World, army: np.ndarray) -> None:
        """A drop's phases: boarding, the flight and unloading, the fight (see the module
        docstring)."""
        c = self.c
        u = world.u
        pid = c.player_id
        loop = world.loop
        d = self.drop
        if d is None:
            if loop < self.next_drop or loop < DROP_FROM_S * LOOPS_PER_SECOND or c.threat_at is not None \
                    or c.enemy_main is None:
                return
            home = army[~c.members(world, c.wave)[army]]
            medivacs = home[u.unit_id[home] == MEDIVAC]
            bio = home[np.isin(u.unit_id[home], list(_SLOTS))]
            if len(medivacs) < DROP_MEDIVACS or sum(_SLOTS[int(t)] for t in u.unit_id[bio].tolist()) < DROP_MIN_SLOTS:
                return
            loads: dict[int, list[int]] = {}
            free: list[int] = bio.tolist()
            for m in medivacs[:DROP_MEDIVACS].tolist():
                mx, my = float(u.x[m]), float(u.y[m])
                free.sort(key=lambda r: float((u.x[r] - mx) ** 2 + (u.y[r] - my) ** 2))
                taken: list[int] = []
                room = 8
                for r in list(free):
                    need = _SLOTS[int(u.unit_id[r])]
                    if need <= room:
                        taken.append(r)
                        room -= need
                        free.remove(r)
                mtag = int(u.tag[m])
                loads[mtag] = [int(t) for t in u.tag[taken].tolist()]
                world.command(pid, SMART, loads[mtag], None, mtag, False)
            self.drop = Drop(loads, self.drop_point(world, c.enemy_main), loop)
            self.detached = set(loads) | {t for ts in loads.values() for t in ts}
            return
        aboard = world.transport.tags()
        alive = {t for t in self.detached if u.row(t) >= 0 or t in aboard}
        self.detached = alive
        medivacs = [m for m in d.loads if m in alive]
        if not medivacs or alive <= set(d.loads):
            self.end_drop(world)
            return
        cargo = world.transport.cargo
        if d.phase == "board":
            inside = {p.tag for m in medivacs if m in cargo for p in cargo[m].passengers}
            waiting = [t for m in medivacs for t in d.loads[m] if t in alive and t not in inside]
            if waiting and loop < d.since + DROP_LOAD_S * LOOPS_PER_SECOND:
                return
            if not inside:
                self.end_drop(world)
                return
            self.detached -= set(waiting)  # (those that did not board stay home)
            world.command(pid, UNLOAD_ALL_AT, medivacs, d.point, 0, False)
            d.phase, d.since = "fly", loop
        elif d.phase == "fly":
            if any(m in cargo and cargo[m].passengers for m in medivacs):
                return
            world.command(pid, ATTACK_MOVE, sorted(self.detached), c.enemy_main, 0, False)
            d.phase, d.since = "fight", loop
        elif loop >= d.since + DROP_FIGHT_S * LOOPS_PER_SECOND:
            self.end_drop(world)

    def end_drop(self, world: World) -> None:
        """The drop is over: its units rejoin the army."""
        self.drop = None
        self.detached = set()
        self.next_drop = world.loop + int(DROP_PERIOD_S * LOOPS_PER_SECOND)

    @staticmethod
    def drop_point(world: World, main: tuple[float, float]) -> tuple[float, float]:
        """The enemy main's mineral line: halfway from its start location to the mean of the
        mineral fields within 12 of it (the start location itself without any)."""
        fields = [(r.x, r.y) for r in world.harvest.resources.values()
                  if r.is_mineral and (r.x - main[0]) ** 2 + (r.y - main[1]) ** 2 < 144.0]
        if not fields:
            return main
        mx, my = np.mean(fields, axis=0).tolist()
        return (main[0] + mx) / 2, (main[1] + my) / 2

    def arm_nukes(self, world: World) -> None:
        """Each finished Ghost Academy without a nuke arms one when the Computer can pay."""
        pid = self.c.player_id
        a = world.abilities
        for st in self.c.structs:
            if st.unit_id == GHOST_ACADEMY_T and st.ready and st.tag not in a.silos \
                    and world.supply.afford(pid, *NUKE_COST) == SUCCESS:
                world.command(pid, ARM_NUKE, [st.tag], None, 0, False)

    def nuke(self, world: World, ghosts: np.ndarray, known: np.ndarray) -> np.ndarray:
        """With an armed nuke, one Ghost calls it down (see the module docstring).  Returns the
        Ghosts that did not."""
        if not len(ghosts) or not len(known):
            return ghosts
        u = world.u
        pid = self.c.player_id
        if any(u.ability[ghosts] == NUKE) or not world.abilities.armed_silos(pid):
            return ghosts
        mine = np.flatnonzero(u.owner == pid)
        for i, r in enumerate(ghosts.tolist()):
            if u.kind[r] == TRANSFORM or u.ability[r] in (SNIPE, EMP):
                continue
            near = known[np.hypot(u.x[known] - u.x[r], u.y[known] - u.y[r]) <= NUKE_REACH]
            if not len(near):
                continue
            hit = reached(u.x[near], u.y[near], u.x[known], u.y[known], NUKE_RADIUS, u.radius[known]).sum(axis=1)
            own = reached(u.x[near], u.y[near], u.x[mine], u.y[mine], NUKE_RADIUS, u.radius[mine]).sum(axis=1)
            ok = np.flatnonzero((hit >= NUKE_MIN_HIT) & (own <= NUKE_OWN_SHARE * hit))
            if not len(ok):
                continue
            k = near[ok[int(np.argmax(hit[ok]))]]
            if world.command(pid, NUKE, [int(u.tag[r])], (float(u.x[k]), float(u.y[k])), 0, False) == SUCCESS:
                return np.delete(ghosts, i)
        return ghosts

    def ghosts(self, world: World, ghosts: np.ndarray, units: np.ndarray) -> None:
        """Each Ghost with the energy: Steady Targeting, else EMP Round (see the module docstring)."""
        if not len(ghosts):
            return
        u = world.u
        a = world.abilities
        pid = self.c.player_id
        bio = _BIOLOGICAL[u.ti[units]]
        for r in ghosts.tolist():
            tag = int(u.tag[r])
            if u.ability[r] in (SNIPE, EMP) or u.kind[r] == TRANSFORM:
                continue
            e = a.energy_of(tag)
            near = np.hypot(u.x[units] - u.x[r], u.y[units] - u.y[r]) <= SNIPE_REACH
            if e >= 50.0:
                pick = units[near & bio & (u.hp[units] >= SNIPE_MIN_LIFE)]
                if len(pick):
                    target = int(u.tag[pick[int(np.argmax(u.hp[pick]))]])
                    if world.command(pid, SNIPE, [tag], None, target, False) == SUCCESS:
                        continue
            if e >= 75.0:
                pick = units[near & (u.shield[units] >= EMP_MIN_SHIELDS)]
                if len(pick):
                    k = pick[int(np.argmax(u.shield[pick]))]
                    world.command(pid, EMP, [tag], (float(u.x[k]), float(u.y[k])), 0, False)

    def stim(self, world: World, bio: np.ndarray, known: np.ndarray) -> None:
        if not len(bio):
            return
        u = world.u
        stimmed = world.research.stimmed
        bio = bio[[int(t) not in stimmed for t in u.tag[bio].tolist()]]
        bio = bio[u.hp[bio] >= STIM_MIN_LIFE * TYPES.hp_max[u.ti[bio]]] if len(bio) else bio
        if not len(bio):
            return
        reach = u.range[bio] + STIM_REACH + u.radius[bio]
        d = np.hypot(u.x[bio][:, None] - u.x[known][None, :], u.y[bio][:, None] - u.y[known][None, :]) \
            - u.radius[known][None, :]
        go = bio[(d <= reach[:, None]).any(axis=1)]
        if len(go):
            world.command(self.c.player_id, STIM, [int(t) for t in u.tag[go].tolist()], None, 0, False)

    def cloak(self, world: World, banshees: np.ndarray, known: np.ndarray) -> None:
        if not len(banshees):
            return
        u = world.u
        a = world.abilities
        go = []
        for r in banshees.tolist():
            tag = int(u.tag[r])
            if tag in a.cloaked or a.energy_of(tag) < CLOAK_MIN_ENERGY:
                continue
            if bool(((u.x[known] - u.x[r]) ** 2 + (u.y[known] - u.y[r]) ** 2 <= CLOAK_REACH ** 2).any()):
                go.append(tag)
        if go:
            world.command(self.c.player_id, BANSHEE_CLOAK, go, None, 0, False)

    def scan(self, world: World, army: np.ndarray, known: np.ndarray) -> None:
        """A Scanner Sweep on a hidden enemy unit near its army or structures (one at a time)."""
        c = self.c
        pid = c.player_id
        if world.abilities.scan_discs(pid) or not world.detection.active():
            return
        hidden = known[world.detection.hidden(pid)[known]]
        if not len(hidden):
            return
        orbital = next((s for s in c.structs if s.unit_id == ORBITAL and s.ready
                        and world.abilities.energy_of(s.tag) >= CALLDOWN_ENERGY), None)
        if orbital is None:
            return
        u = world.u
        pts = [(s.x, s.y) for s in c.structs] + list(zip(u.x[army].tolist(), u.y[army].tolist(), strict=True))
        if not pts:
            return
        p = np.array(pts)
        for r in hidden.tolist():
            if bool((((p[:, 0] - u.x[r]) ** 2 + (p[:, 1] - u.y[r]) ** 2) <= SCAN_NEAR ** 2).any()):
                c.answer(world.command(pid, SCANNER_SWEEP, [orbital.tag], (float(u.x[r]), float(u.y[r])), 0, False),
                         SCANNER_SWEEP)
                return

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
