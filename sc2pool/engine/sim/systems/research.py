"""Research: upgrades researched in structures, and each player's finished upgrades.

Rules (the real game's; costs, times and ids are the client's ``ResponseData`` through
``data.tech.RESEARCH``, requirements as entered there with their sources):

- *starting*: a finished structure that researches the upgrade (Engineering Bay, Armory, Fusion
  Core, Ghost Academy, the Barracks/Factory/Starport Tech Lab itself: the Tech Lab has the order,
  as in the real game, LP:Tech_Lab) takes the research ability, specific (652 ...) or generic
  (3697-3701: the next level of the family).  It is paid when it is queued; the structure's queue
  holds :data:`QUEUE_LENGTH` researches and only its first progresses, for the client's research
  time.  Requirements: the finished structures ``data.tech`` names (an Armory for infantry level 2
  and 3, LP:Engineering_Bay; Drilling Claws and Smart Servos, LP:Factory) and the previous level.
  An upgrade the player has, or is researching anywhere, is refused with ``ERROR`` (m: the real
  client's code for it is not known here).  The Armory's plating levels answer to 864-866; the
  2297-2299 (``ArmoryResearchSwarm``) that the client's ``UpgradeData`` names, and burnysc2's
  ``Unit.research`` sends, are refused, as the real client does (python-sc2 PR #232,
  https://github.com/BurnySc2/python-sc2/pull/232).
- *observation*: the structure's orders are its queued research abilities, the first with its
  progress (burnysc2's ``already_pending_upgrade`` reads it); finished upgrades are listed in
  ``observation.raw_data.player.upgrade_ids`` in the order they finished.
- *cancelling* (cancel-last) takes the last queued research back and refunds it; a destroyed
  structure's research is lost.
- *effects*: weapon and armor levels enter the damage formula (:meth:`weapon_bonus`,
  :meth:`armor_bonus`, read by ``systems/combat.py``): a weapon gains its per-level damage (and
  attribute bonus) per level of its family (``data.units.WEAPON_FACTS``, LP:<unit>); a unit gains
  the armor per level of its family (``data.units.ARMOR_UPGRADES``: +1 infantry, vehicle and ship
  plating; +2 Neosteel Armor for structures, LP:Upgrades, but the Auto-Turret, KB:LLM-PySC2).
  Combat Shield gives every Marine of the player 10 more life (LP:Marine); Stimpack lets Marines
  and Marauders stim (:meth:`stim`); Concussive Shells makes a Marauder's hit slow its target
  (:meth:`concussive`); Hi-Sec Auto Tracking gives turrets and Planetary Fortresses +1 range,
  Advanced Ballistics the Liberator in Defender Mode (LiberatorAG) +2 (:data:`BALLISTICS_RANGE`;
  inside a Defender Mode zone the range 10 already reaches every target: ``systems/modes.py``);
  Hyperflight Rotors makes Banshees faster, and Metabolic Boost, Glial Reconstitution,
  Pneumatized Carapace (Overlords, Transport Overlords included, and Overseers) and Charge their
  units (:data:`_FASTER`); Infernal Pre-Igniter adds :data:`IGNITER_BONUS` against light targets
  to Hellions and Hellbats (:meth:`weapon_bonus`).  Enhanced Shockwaves (the EMP's radius),
  Corvid Reactor (a Raven's starting energy) and Neosteel Armor's Bunker slots are asked by
  ``systems/abilities.py`` and ``systems/transport.py`` (:meth:`has`), Drilling Claws (a Widow
  Mine's burrow and unburrow time, ``data.units.TRANSITION_UPGRADES``) by
  ``systems/modes.py``, Adaptive Talons (a Lurker's burrow time) by ``systems/zerg_abilities.py``.
  Speed and range are the store's per-unit columns, which it re-derives from the types whenever
  units are added or removed: :meth:`upkeep` applies the modifiers again.  Cloaking Field,
  Personal Cloaking and Weapon Refit are what ``systems/abilities.py`` asks for before a cloak or
  a Yamato Cannon.  The other upgrades are recorded and reported but change nothing simulated
  yet (their units' abilities and modes are not simulated).
"""

from __future__ import annotations

import struct
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data import tech
from sc2pool.engine.data import units as F
from sc2pool.engine.sim.commands import (
    BUILDING_IS_UNDER_CONSTRUCTION,
    ERROR,
    NOT_ENOUGH_LIFE,
    QUEUE_IS_FULL,
    SUCCESS,
    TECH_REQUIREMENTS_NOT_MET,
)
from sc2pool.engine.sim.encode import varint, wrap
from sc2pool.engine.sim.systems.alerts import LEVELLED, RESEARCH_COMPLETE, UPGRADE_COMPLETE
from sc2pool.engine.sim.systems.workers import order_bytes
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

QUEUE_LENGTH = 5
"""Researches a structure's queue holds: five, as a production queue (m: not checked against the
real client for research)."""
REFUSED = frozenset({2297, 2298, 2299})
"""``ArmoryResearchSwarm`` plating levels: not on the Armory's command card; the real client
refuses them (python-sc2 PR #232)."""
COMBAT_SHIELD, STIMPACK = 16, 15
MARINE, MARAUDER = 48, 51
COMBAT_SHIELD_LIFE = 10.0
"""Life Combat Shield adds to every Marine (LP:Combat_Shield, LP:Marine: 45 -> 55)."""
STIM_LIFE = {MARINE: 10.0, MARAUDER: 20.0}
"""Life a stim costs (LP:Stimpack)."""
STIM_LOOPS = 246
"""Stim lasts 11 faster seconds = 246.4 game loops (LP:Stimpack; rounded down to whole loops, m)."""
STIM_FACTOR = 1.5
"""Stim: +50% movement speed and attack rate (the weapon's cooldown / 1.5), LP:Stimpack."""
CONCUSSIVE_SHELLS, HISEC = 17, 5
SLOW_FACTOR = 0.5
SLOW_LOOPS = 24
"""Concussive Shells: the target moves 50% slower for 1.07 faster seconds = 1.5 normal seconds =
24 loops (LP:Concussive_Shells, LP:Marauder)."""
_MASSIVE_TYPES = np.array([s.unit_id for s in TYPES.specs if D.MASSIVE in s.attributes])
"""Massive units are not slowed (LP:Concussive_Shells)."""
HISEC_RANGE = 1.0
_HISEC_TYPES = np.array([23, 31, 130, 11])
"""Hi-Sec Auto Tracking: +1 attack range of Missile Turrets, Auto-Turrets, Planetary Fortresses and
Point Defense Drones (LP:Hi-Sec_Auto_Tracking)."""
ADVANCED_BALLISTICS, LIBERATOR_AG = 140, 734
BALLISTICS_RANGE = 2.0
_BALLISTICS_TYPES = np.array([LIBERATOR_AG])
"""Advanced Ballistics (the client's ``LiberatorAGRangeUpgrade``, burnysc2
``UpgradeId.LIBERATORAGRANGEUPGRADE``): "upgrades the range of the Liberators anti-ground attack to
12" (LLM-PySC2 knowledge base (NKAI-Decision-Team/LLM-PySC2, llm_pysc2/lib/knowledge/terran.py,
Liquipedia-derived), the Fusion Core's and the Liberator's entries): the LiberatorAG's client
weapon has range 10, so +2.  The text names the attack's range only: Defender Mode's cast range
and zone (``systems/modes.py``) stay as they are (m)."""
_RANGE_UPGRADES = {HISEC: (_HISEC_TYPES, HISEC_RANGE), ADVANCED_BALLISTICS: (_BALLISTICS_TYPES, BALLISTICS_RANGE)}
"""Upgrade -> (the types whose attack range it raises, by how much)."""
PNEUMATIZED_CARAPACE, OVERLORD, OVERLORD_TRANSPORT, OVERSEER = 62, 106, 893, 129
_FASTER = {55: (136, 3.75), 105: (66, 4.7), 110: (2, 3.0), OVERLORD: (PNEUMATIZED_CARAPACE, 1.879),
           OVERLORD_TRANSPORT: (PNEUMATIZED_CARAPACE, 1.879), OVERSEER: (PNEUMATIZED_CARAPACE, 3.371),
           73: (86, 3.375)}
"""Unit type -> (upgrade, movement speed per normal second it gives): Hyperflight Rotors, a Banshee
3.85 -> 5.25 per faster second = 2.75 -> 3.75 per normal second (LP:Banshee); Metabolic Boost, a
Zergling 4.13 -> 6.58 per faster second = 4.7 per normal second (LP:Zergling); Glial
Reconstitution, a Roach 3.15 -> 4.2 per faster second = 3.0 per normal second (LP:Roach); Pneumatized
Carapace, Overlords 2.63 and Overseers 4.72 per faster second = 1.879 and 3.371 per normal second
(LP:Lair_(Legacy_of_the_Void)); the Transport Overlord (an Overlord with Ventral Sacs, 893: the
client gives it the Overlord's speed, 0.902 per faster second) is an Overlord and has the
Overlord's figure too; Charge, a Zealot 3.15 -> 4.725 per faster second = 3.375 per normal second
(LP:Zealot)."""
_BURROWED_MOVE = {118: (3, 110)}
"""Burrowed type -> (the upgrade that lets it move, the type whose speed it moves at): Tunneling
Claws lets burrowed Roaches move (LP:Roach); at the Roach's own speed, Glial Reconstitution
included (m: LP:Roach's burrowed speed figure is not checked here)."""
ADRENAL_GLANDS = 65
ADRENAL_COOLDOWN = 0.35 * 22.4
"""Adrenal Glands: a Zergling attacks every 0.35 faster seconds instead of 0.497 = 7.84 loops
(LP:Zergling)."""
IGNITER = 19
IGNITER_BONUS = {53: 5.0, 484: 12.0}
"""Infernal Pre-Igniter (HighCapacityBarrels): Hellions +5 and Hellbats +12 damage per attack
against light targets (LP:Hellion, LP:Hellbat)."""
_IGNITE = np.array([IGNITER_BONUS.get(int(t), 0.0) for t in TYPES.unit_id])
_LIGHT = np.array([D.LIGHT in s.attributes for s in TYPES.specs], dtype=np.float64)
CHITINOUS_PLATING, CHITINOUS_ARMOR = 4, 2.0
_ULTRALISKS = np.array([109, 131])
"""Chitinous Plating: +2 armor for Ultralisks, burrowed or not (LP:Ultralisk)."""
ZERGLING = 105
_RESEARCH_RACES = frozenset({D.TERRAN, D.ZERG, D.PROTOSS})
"""The races whose research the engine simulates."""


def _terran(ab: int) -> bool:
    """Whether the engine simulates the research ``ab`` (its researchers' race is simulated)."""
    spec = tech.RESEARCH[ab]
    return all(D.unit_spec(r).race in _RESEARCH_RACES for r in spec.researchers)


@cache
def abilities() -> dict[int, tuple[int, ...]]:
    """Every research ability the engine simulates (Terran's and Protoss's), specific or generic -> the
    specific abilities it stands for, lowest level first."""
    out: dict[int, list[int]] = {}
    for ab in sorted(tech.RESEARCH, key=lambda a: tech.RESEARCH[a].upgrade_id):
        if not _terran(ab):
            continue
        out.setdefault(ab, []).append(ab)
        g = tech.generic(ab)
        if g != ab:
            out.setdefault(g, []).append(ab)
    for ab in REFUSED:
        out.setdefault(ab, [])
    return {k: tuple(v) for k, v in out.items()}


# ---------------------------------------------------------------------- upgrade effects, per type
_WEAPON_FAMILIES = tuple(F.WEAPON_UPGRADES)
_ARMOR_FAMILIES = tuple(F.ARMOR_UPGRADES)
_WEAPON_LEVEL = {up: (i, lvl + 1) for i, fam in enumerate(_WEAPON_FAMILIES)
                 for lvl, up in enumerate(F.WEAPON_UPGRADES[fam])}
"""Upgrade id -> (weapon family index, level it gives)."""
_ARMOR_LEVEL = {up: (i, lvl + 1) for i, fam in enumerate(_ARMOR_FAMILIES)
                for lvl, up in enumerate(F.ARMOR_UPGRADES[fam][0])}
"""Upgrade id -> (armor family index, level it gives)."""


def _weapon_index(spec: D.UnitSpec, air: bool) -> int:
    """Index in ``spec.weapons`` of the weapon fired at an air (ground) target, as
    ``sim.units._against`` chooses it; -1 when none."""
    only = D.AIR if air else D.GROUND
    for want in (only, D.ANY):
        for i, w in enumerate(spec.weapons):
            if w.target == want:
                return i
    return -1


def bonus_levels(unit_id: int, weapon: int) -> dict[int, float]:
    """Attribute -> what one level adds to that attribute's bonus, where a weapon's bonuses grow
    differently (``WeaponFacts.bonus_per_level``: the Baneling's vs structures)."""
    facts = F.WEAPON_FACTS.get(unit_id, ())
    return dict(facts[weapon].bonus_per_level) if weapon < len(facts) else {}


def per_level(unit_id: int, weapon: int) -> tuple[float, float]:
    """(damage, attribute bonus) one weapon upgrade level adds to weapon ``weapon`` of the type:
    ``data.units.WEAPON_FACTS`` (LP:<unit>), or for a weapon the client does not report
    ``data.units.ENGINE_WEAPON_FACTS``; (0, 0) where not known (m)."""
    facts = F.WEAPON_FACTS.get(unit_id, ())
    n_client = sum(1 for w in D.unit_spec(unit_id).weapons if w.reported)
    if weapon >= n_client and unit_id in F.ENGINE_WEAPON_FACTS:  # (the Baneling's own weapon is in WEAPON_FACTS)
        facts = F.ENGINE_WEAPON_FACTS[unit_id]
        weapon -= n_client
    if weapon < len(facts) and facts[weapon].per_level is not None:
        d, b = facts[weapon].per_level  # type: ignore[misc]
        return float(d), float(b)
    return 0.0, 0.0


class UpgradeTable:
    """Per-type columns of what upgrade levels do, indexed like ``TYPES`` (built once)."""

    def __init__(self) -> None:
        specs = TYPES.specs
        n = len(specs)
        self.wfam = np.full(n, -1, np.int64)
        """Weapon family of each type (index into the families of ``WEAPON_UPGRADES``), -1 none."""
        self.afam = np.full(n, -1, np.int64)
        """Armor family of each type, -1 none."""
        self.aper = np.zeros(n)
        """Armor one level of its family adds."""
        self.wvs = np.zeros((n, n))
        """wvs[a, t]: damage one weapon level adds to an attack of type a against type t (the
        per-level damage, plus the per-level bonus where the attribute bonus applies)."""
        for a, s in enumerate(specs):
            f = F.FACTS.get(s.unit_id)
            if f is None:
                continue
            if f.armor_up:
                self.afam[a] = _ARMOR_FAMILIES.index(f.armor_up)
                self.aper[a] = F.ARMOR_UPGRADES[f.armor_up][1]
            if not (f.weapon_up and s.weapons):
                continue
            self.wfam[a] = _WEAPON_FAMILIES.index(f.weapon_up)
            steps = {air: _weapon_index(s, air) for air in (False, True)}
            for t, st in enumerate(specs):
                i = steps[st.is_flying]
                if i < 0:
                    continue
                d, b = per_level(s.unit_id, i)
                w = s.weapons[i]
                own = bonus_levels(s.unit_id, i)
                hits = [attr for attr, _ in w.bonus if attr in st.attributes]
                self.wvs[a, t] = d + (own.get(hits[0], b) if hits else 0.0)


@cache
def upgrade_table() -> UpgradeTable:
    return UpgradeTable()


class Research:
    """Research queues in structures and each player's finished upgrades (see the module
    docstring); answers what the upgrades change in combat."""

    shield_revision = 0
    """Counts the changes of the Marines that got Combat Shield's life (:meth:`life_bonus` is
    the same while it and the set of units are; a class default, so that a state pickled before
    it existed still loads)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.queues: dict[int, list[int]] = {}
        """Structure tag -> research abilities queued (the first in progress)."""
        self.starts: dict[int, int] = {}
        """Structure tag -> the loop its first research started."""
        self.owners: dict[int, int] = {}
        """Structure tag -> its owner (for structures with a queue)."""
        self.done: dict[int, list[int]] = {}
        """Player -> finished upgrade ids, in the order they finished."""
        self.upgraded = False
        """Some player has a weapon or armor level (combat then adds :meth:`weapon_bonus` and
        :meth:`armor_bonus`; without, the damage formula is untouched)."""
        self._wlevel = np.zeros((NEUTRAL_OWNER + 1, len(_WEAPON_FAMILIES)))
        self._alevel = np.zeros((NEUTRAL_OWNER + 1, len(_ARMOR_FAMILIES)))
        self._shielded: set[int] = set()
        """Marines that got Combat Shield's life."""
        self._shield_version = -1
        self.stimmed: dict[int, int] = {}
        """Unit tag -> the loop its stim ends."""
        self.slowed: dict[int, int] = {}
        """Unit tag -> the loop its Concussive Shells slow ends."""
        self.concussive_players: set[int] = set()
        """Players with Concussive Shells (combat asks :meth:`concussive` while there are any)."""
        self._ranged: dict[int, set[int]] = {}
        """Range upgrade (:data:`_RANGE_UPGRADES`: Hi-Sec Auto Tracking, Advanced Ballistics) ->
        the players that have it."""
        self.adrenal: set[int] = set()
        """Players with Adrenal Glands (combat asks :meth:`stim_cooldowns`)."""
        self._plated: set[int] = set()
        """Players with Chitinous Plating."""
        self._ignited: set[int] = set()
        """Players with Infernal Pre-Igniter."""
        self._fast_types: set[int] = set()
        """Unit types some player made faster by research (Hyperflight Rotors: Banshees)."""
        self._mod_version = -1

    # ------------------------------------------------------------------ queries
    def has(self, player: int, upgrade: int) -> bool:
        return upgrade in self.done.get(player, ())

    def transition(self, ability: int, player: int, loops: int) -> int:
        """Loops the form change or burrow ``ability`` (specific) of a unit of ``player`` takes:
        ``loops``, or fewer when the player has the upgrade that shortens it
        (``data.units.TRANSITION_UPGRADES``: Drilling Claws, Adaptive Talons)."""
        faster = F.TRANSITION_UPGRADES.get(ability)
        return faster[1] if faster is not None and self.has(player, faster[0]) else loops

    def pending(self, player: int, upgrade: int) -> bool:
        """Whether the player researches (or has queued) ``upgrade`` in some structure."""
        for tag, q in self.queues.items():
            if self.owners.get(tag) == player and any(tech.RESEARCH[ab].upgrade_id == upgrade for ab in q):
                return True
        return False

    def life_bonus(self) -> np.ndarray | float:
        """Per row of the store: life added to the type's maximum (Combat Shield's Marines), or
        0.0 when no unit has any."""
        if not self._shielded:
            return 0.0
        u = self.w.u
        return np.where(np.isin(u.tag, np.fromiter(self._shielded, dtype=np.int64, count=len(self._shielded))),
                        COMBAT_SHIELD_LIFE, 0.0)

    # ------------------------------------------------------------------ commands
    def research(self, player: int, ability: int, rows: np.ndarray) -> int:
        """Queue the research of ``ability`` in the first of ``rows`` that can take it."""
        choices = abilities().get(ability, ())
        if not choices:  # (REFUSED)
            return ERROR
        w = self.w
        u = w.u
        structures = w.construction.structures
        first_error = 0
        for i in rows.tolist():
            s = structures.get(int(u.tag[i]))
            mine = [ab for ab in choices if s is not None and s.unit_id in tech.RESEARCH[ab].researchers]
            if s is None or not mine:
                first_error = first_error or ERROR
                continue
            if not s.ready:
                first_error = first_error or BUILDING_IS_UNDER_CONSTRUCTION
                continue
            if s.morph is not None or w.addons.building(s) is not None:
                first_error = first_error or ERROR
                continue
            # a generic ability: the lowest level neither researched nor under way
            todo = [ab for ab in mine if not self.has(player, tech.RESEARCH[ab].upgrade_id)
                    and not self.pending(player, tech.RESEARCH[ab].upgrade_id)]
            if not todo:
                first_error = first_error or ERROR
                continue
            spec = tech.RESEARCH[todo[0]]
            req = spec.requires
            if not all(w.construction.ready_of(player, t) for t in req.structures) \
                    or (req.upgrade and not self.has(player, req.upgrade)):
                first_error = first_error or TECH_REQUIREMENTS_NOT_MET
                continue
            q = self.queues.get(s.tag, [])
            if len(q) >= QUEUE_LENGTH:
                first_error = first_error or QUEUE_IS_FULL
                continue
            res = w.supply.afford(player, spec.minerals, spec.vespene)
            if res != SUCCESS:
                return res
            w.supply.pay(player, spec.minerals, spec.vespene)
            q.append(spec.ability_id)
            self.queues[s.tag] = q
            self.owners[s.tag] = s.owner
            if len(q) == 1:
                self._start(s.tag, w.events.now)
            w.supply.revision += 1
            return SUCCESS
        return first_error or ERROR

    def _start(self, tag: int, now: int) -> None:
        ab = self.queues[tag][0]
        self.starts[tag] = now
        self.w.events.push(now + int(tech.RESEARCH[ab].time), tag, True)

    def cancel_last(self, player: int, rows: np.ndarray) -> int:
        """Take back the last research queued in the first of ``rows`` with one; refund it."""
        u = self.w.u
        for i in rows.tolist():
            tag = int(u.tag[i])
            q = self.queues.get(tag)
            if not q or self.owners.get(tag) != player:
                continue
            spec = tech.RESEARCH[q.pop()]
            if not q:
                del self.queues[tag], self.starts[tag]
            self.w.supply.pay(player, -spec.minerals, -spec.vespene)
            self.w.supply.revision += 1
            return SUCCESS
        return ERROR

    def available(self, player: int, tag: int, unit_id: int, out: list[tuple[int, bool]]) -> None:
        """Append the research abilities a finished structure may use now (the real client's
        command card: what is neither researched nor under way, whose requirements are met and
        which the player can afford)."""
        w = self.w
        if len(self.queues.get(tag, ())) >= QUEUE_LENGTH:
            return
        for ab, spec in tech.RESEARCH.items():
            if unit_id not in spec.researchers or not _terran(ab):
                continue
            up, req = spec.upgrade_id, spec.requires
            if self.has(player, up) or self.pending(player, up) or (req.upgrade and not self.has(player, req.upgrade)):
                continue
            if all(w.construction.ready_of(player, t) for t in req.structures) and \
                    w.supply.afford(player, spec.minerals, spec.vespene) == SUCCESS:
                out.append((ab, False))

    # ------------------------------------------------------------------ events
    def on_event(self, tag: int, t: int) -> None:
        """The structure's event at ``t``: its first research may be done (the upgrade is the
        player's; the next research starts)."""
        q = self.queues.get(tag)
        if not q:
            return
        spec = tech.RESEARCH[q[0]]
        if t < self.starts[tag] + int(spec.time):
            return
        q.pop(0)
        self.grant(self.owners[tag], spec.upgrade_id)
        self.w.alerts.add(self.owners[tag], UPGRADE_COMPLETE if spec.upgrade_id in LEVELLED else RESEARCH_COMPLETE)
        if q:
            self._start(tag, t)
        else:
            del self.queues[tag], self.starts[tag]

    def grant(self, player: int, upgrade: int) -> None:
        """The player has ``upgrade`` from now on (a research finished)."""
        got = self.done.setdefault(player, [])
        if upgrade in got:
            return
        got.append(upgrade)
        if upgrade in _WEAPON_LEVEL:
            fam, lvl = _WEAPON_LEVEL[upgrade]
            self._wlevel[player, fam] = max(self._wlevel[player, fam], lvl)
            self.upgraded = True
        if upgrade in _ARMOR_LEVEL:
            fam, lvl = _ARMOR_LEVEL[upgrade]
            self._alevel[player, fam] = max(self._alevel[player, fam], lvl)
            self.upgraded = True
        if upgrade == COMBAT_SHIELD:
            self._shield_version = -1
        if upgrade == CONCUSSIVE_SHELLS:
            self.concussive_players.add(player)
        if upgrade in _RANGE_UPGRADES:
            self._ranged.setdefault(upgrade, set()).add(player)
        if upgrade == ADRENAL_GLANDS:
            self.adrenal.add(player)
        if upgrade == CHITINOUS_PLATING:
            self._plated.add(player)
            self.upgraded = True
        if upgrade == IGNITER:
            self._ignited.add(player)
            self.upgraded = True
        for uid, (up, _) in (*_FASTER.items(), *_BURROWED_MOVE.items()):
            if upgrade == up:
                self._fast_types.add(uid)
        self._mod_version = -1
        self._modify()
        self.w.touch()
        self.w.supply.revision += 1

    def forget(self, alive: set[int]) -> None:
        """A destroyed structure's research is lost; stims and slows of dead units are forgotten."""
        for tag in [t for t in self.queues if t not in alive]:
            del self.queues[tag]
            self.starts.pop(tag, None)
            self.owners.pop(tag, None)
        if not self._shielded <= alive:
            self._shielded &= alive
            self.shield_revision += 1
        for timers in (self.stimmed, self.slowed):
            for tag in [t for t in timers if t not in alive]:
                del timers[tag]

    def upkeep(self, loop: int) -> None:
        """Per economy step: Combat Shield's life for Marines that have not had it, stims and
        slows that end by ``loop``, and the modified columns (speed, range) again after the store
        re-derived them from the types (it does whenever units are added or removed)."""
        u = self.w.u
        if self._shield_version != u.version and any(COMBAT_SHIELD in d for d in self.done.values()):
            self._shield_version = u.version
            for p, d in self.done.items():
                if COMBAT_SHIELD not in d:
                    continue
                rows = np.nonzero((u.owner == p) & (u.unit_id == MARINE))[0]
                for r in rows.tolist():
                    tag = int(u.tag[r])
                    if tag not in self._shielded:
                        self._shielded.add(tag)
                        self.shield_revision += 1
                        u.hp[r] += COMBAT_SHIELD_LIFE
        ended: list[int] = []
        for timers in (self.stimmed, self.slowed):
            if timers:
                done = [tag for tag, end in timers.items() if end <= loop]
                for tag in done:
                    del timers[tag]
                ended += done
        if ended:
            self._speeds(u.rows(np.array(ended, dtype=np.int64)))
            self.w.touch()
        if self._mod_version != u.version:
            self._modify()

    def _modify(self) -> None:
        """Apply every per-unit modifier to the store's derived columns: speed (stim, slow,
        Hyperflight Rotors), range (Hi-Sec Auto Tracking, Advanced Ballistics)."""
        u = self.w.u
        self._mod_version = u.version
        if self._fast_types:
            self._speeds(np.nonzero(np.isin(u.unit_id, np.array(sorted(self._fast_types))))[0])
        for timers in (self.stimmed, self.slowed):
            if timers:
                self._speeds(u.rows(np.fromiter(timers, dtype=np.int64, count=len(timers))))
        for upgrade, players in self._ranged.items():
            types, more = _RANGE_UPGRADES[upgrade]
            rows = np.nonzero(np.isin(u.unit_id, types) & np.isin(u.owner, np.array(sorted(players))))[0]
            u.range[rows] = TYPES.range[u.ti[rows]] + more

    def _speeds(self, rows: np.ndarray) -> None:
        """Set the speed of ``rows`` (-1 entries skipped) from their type and their modifiers."""
        u = self.w.u
        rows = rows[rows >= 0]
        if not len(rows):
            return
        ti = u.ti[rows]
        speed = TYPES.speed[ti].copy()
        for r_i, r in enumerate(rows.tolist()):
            uid, owner, tag = int(u.unit_id[r]), int(u.owner[r]), int(u.tag[r])
            fast = _FASTER.get(uid)
            if fast is not None and self.has(owner, fast[0]):
                speed[r_i] = fast[1] / D.NORMAL_LOOPS_PER_SECOND
            burrowed = _BURROWED_MOVE.get(uid)
            if burrowed is not None and self.has(owner, burrowed[0]):
                like = _FASTER.get(burrowed[1])
                speed[r_i] = like[1] / D.NORMAL_LOOPS_PER_SECOND if like is not None and self.has(owner, like[0]) \
                    else TYPES.speed[TYPES.row(burrowed[1])]
            if tag in self.stimmed:
                speed[r_i] *= STIM_FACTOR
            if tag in self.slowed:
                speed[r_i] *= SLOW_FACTOR
        u.speed[rows] = speed
        u.max_speed = max(u.max_speed, float(speed.max()))

    def horizon(self, loop: int) -> int:
        """Loops until the next stim or slow ends (the world must not skip past it), >= 1."""
        ends = [min(t.values()) for t in (self.stimmed, self.slowed) if t]
        return max(1, min(ends) - loop) if ends else 1 << 30

    # ------------------------------------------------------------------ concussive shells
    def concussive(self, a_ti: np.ndarray, owners: np.ndarray, trows: np.ndarray) -> None:
        """Hits landing from attackers of types ``a_ti`` owned by ``owners`` on ``trows``: a
        Marauder's whose owner has Concussive Shells slows a non-Massive target by 50% for
        :data:`SLOW_LOOPS` (LP:Concussive_Shells; a new hit starts it over, it does not stack)."""
        u = self.w.u
        hit = (TYPES.unit_id[a_ti] == MARAUDER) & np.isin(owners, np.array(sorted(self.concussive_players)))
        if not hit.any():
            return
        rows = np.unique(trows[hit])
        rows = rows[~np.isin(u.unit_id[rows], _MASSIVE_TYPES)]
        end = self.w.loop + SLOW_LOOPS
        for r in rows.tolist():
            self.slowed[int(u.tag[r])] = end
        self._speeds(rows)

    def slow(self, rows: np.ndarray, end: int) -> None:
        """Slow the units of ``rows`` by :data:`SLOW_FACTOR` until ``end`` at least (a Mothership's
        Time Warp, ``systems/protoss_abilities.py``; the same 50% as Concussive Shells)."""
        u = self.w.u
        for r in rows.tolist():
            tag = int(u.tag[r])
            self.slowed[tag] = max(self.slowed.get(tag, 0), end)
        self._speeds(rows)

    # ------------------------------------------------------------------ stim
    def stim(self, player: int, rows: np.ndarray) -> int:
        """Stim the Marines and Marauders among ``rows`` whose owner has Stimpack and whose life
        is above the stim's cost: they lose that life and move and fire 50% faster for
        :data:`STIM_LOOPS` (a stimmed unit stimmed again pays again and starts over)."""
        u = self.w.u
        if not self.has(player, STIMPACK):
            return TECH_REQUIREMENTS_NOT_MET
        types = u.unit_id[rows]
        ok = rows[np.isin(types, np.array(list(STIM_LIFE)))]
        if len(ok) == 0:
            return ERROR
        end = self.w.loop + STIM_LOOPS
        n = 0
        for r in ok.tolist():
            cost = STIM_LIFE[int(u.unit_id[r])]
            if u.hp[r] <= cost:
                continue
            u.hp[r] -= cost
            self.stimmed[int(u.tag[r])] = end
            n += 1
        if not n:
            return NOT_ENOUGH_LIFE
        self._speeds(ok)
        self.w.touch()
        return SUCCESS

    def stim_cooldowns(self, rows: np.ndarray, cd: np.ndarray) -> np.ndarray:
        """Cooldowns ``cd`` of the weapons of ``rows`` that fired, shortened for stimmed units and
        Zerglings with Adrenal Glands."""
        if self.adrenal:
            u = self.w.u
            fast = (u.unit_id[rows] == ZERGLING) & np.isin(u.owner[rows], np.array(sorted(self.adrenal)))
            cd = np.where(fast, np.minimum(cd, ADRENAL_COOLDOWN), cd)
        if not self.stimmed:
            return cd
        stimmed = np.isin(self.w.u.tag[rows], np.fromiter(self.stimmed, dtype=np.int64, count=len(self.stimmed)))
        return np.where(stimmed, cd / STIM_FACTOR, cd)

    # ------------------------------------------------------------------ combat
    def weapon_bonus(self, owners: np.ndarray, a_ti: np.ndarray, t_ti: np.ndarray) -> np.ndarray:
        """Damage per attack the attackers' weapon levels add against their targets."""
        tab = upgrade_table()
        fam = tab.wfam[a_ti]
        lvl = np.where(fam >= 0, self._wlevel[owners, np.maximum(fam, 0)], 0.0)
        if self._ignited:  # (Infernal Pre-Igniter)
            lit = np.isin(owners, np.array(sorted(self._ignited)))
            return lvl * tab.wvs[a_ti, t_ti] + np.where(lit, _IGNITE[a_ti] * _LIGHT[t_ti], 0.0)
        return lvl * tab.wvs[a_ti, t_ti]

    def armor_bonus(self, owners: np.ndarray, t_ti: np.ndarray) -> np.ndarray:
        """Armor the targets' armor levels (and Neosteel Armor) add."""
        tab = upgrade_table()
        fam = tab.afam[t_ti]
        lvl = np.where(fam >= 0, self._alevel[owners, np.maximum(fam, 0)], 0.0)
        if self._plated:  # (Chitinous Plating)
            plated = np.isin(TYPES.unit_id[t_ti], _ULTRALISKS) & np.isin(owners, np.array(sorted(self._plated)))
            return lvl * tab.aper[t_ti] + np.where(plated, CHITINOUS_ARMOR, 0.0)
        return lvl * tab.aper[t_ti]

    # ------------------------------------------------------------------ observation
    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """The player's researching structures: active, their orders the queued research abilities
        (the first with its progress); Marines with Combat Shield: their ``health_max``."""
        loop = self.w.events.now
        for tag, q in self.queues.items():
            if self.owners.get(tag) != player or not q:
                continue
            spec = tech.RESEARCH[q[0]]
            b = b"\xb8\x02\x01" + order_bytes(q[0], progress=min(1.0, (loop - self.starts[tag]) / spec.time))
            for ab in q[1:]:
                b += order_bytes(ab)
            parts[tag] = parts.get(tag, b"") + b
        if self._shielded:
            hm = struct.pack("<Bf", 0x7D, float(TYPES.hp_max[TYPES.row(MARINE)]) + COMBAT_SHIELD_LIFE)
            for tag in self._shielded:
                parts[tag] = parts.get(tag, b"") + hm

    def player_bytes(self, player: int) -> bytes:
        """``observation.raw_data.player.upgrade_ids`` (ObservationRaw field 1, PlayerRaw field 3)
        of the player's finished upgrades; empty when none."""
        done = self.done.get(player)
        if not done:
            return b""
        body = b"".join(b"\x18" + varint(up) for up in done)
        return wrap(1, body)
