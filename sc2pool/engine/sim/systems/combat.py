"""Combat: weapons fire, hits land, damage is dealt, units die.

A weapon fires when its target's edge is within range and its cooldown is ready.  The cooldown is
``speed * 16`` loops plus a random change drawn per attack from the world's generator
(``data.RANDOM_DELAY``, seeded per episode), with the fraction of the loop in which the weapon
became ready carried over.  A weapon with a damage point or a missile schedules its hit: it
lands after the damage point plus the flight over the centre distance (:meth:`Combat._schedule`);
a hit whose target died is lost, so is a swing whose attacker died before the damage point.
Damage per attack is ``max(0.5, damage + bonus(target attributes) - armor)``; on a shielded
target each attack goes through the shields first, less their shield armor (Protoss Shields
levels), and what breaks through is reduced by armor (:meth:`Combat._shield_hits`).  Some weapons
hit more than their target: splash rings round it (a sieged tank's shell, the Archon's, the
Ultralisk's), lines (the Lurker's spines, the Colossus's lances), bounces (the Mutalisk's glaives),
and some leave a unit where they land (the Brood Lord's Broodlings, :meth:`Combat._spawn_on_hit`):
:meth:`Combat._splash`, facts in ``data.units``.  Upgrades researched
(``systems/research.py``) add the attacker's weapon levels to the damage and the target's armor
levels to the armor (:meth:`Combat._upgraded_damage`, :meth:`Combat._armor`); a stimmed unit's
weapon re-arms 50% faster; a Marauder's hit with Concussive Shells slows its target.  Banelings explode on contact
(or on ``EXPLODE``): area damage within the splash radius to every hostile ground unit, and
they die.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from sc2pool.engine import data as D
from sc2pool.engine.data.units import (
    BOUNCE,
    LINE_SPLASH,
    PROTOSS_SHIELDS,
    SPAWN_ON_HIT,
    SPLASH_ENEMIES_ONLY,
    SPLASH_RINGS,
)
from sc2pool.engine.kernels import native as _native
from sc2pool.engine.sim.units import EXPLODE, NEUTRAL_OWNER, TYPES, Deaths

try:  # the C function behind np.count_nonzero, without its Python dispatch
    from numpy._core.multiarray import count_nonzero as _count
except ImportError:  # pragma: no cover - numpy 1.x
    _count = np.count_nonzero

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

_TWO_PI = 2.0 * np.pi
_T = TypeVar("_T")


def _by_row(table: Mapping[int, _T]) -> dict[int, _T]:
    return {TYPES.row(uid): v for uid, v in table.items() if uid in TYPES.row_of}


_RINGS = _by_row(SPLASH_RINGS)
"""Type row -> its weapon's splash rings ((radius, fraction), inside out)."""
_ENEMIES_ONLY = frozenset(TYPES.row(uid) for uid in SPLASH_ENEMIES_ONLY if uid in TYPES.row_of)
_LINES = _by_row(LINE_SPLASH)
"""Type row -> (shape, length, half-width, fraction) of its line splash."""
_BOUNCES = _by_row(BOUNCE)
"""Type row -> (extra targets, factor per bounce, range) of its bouncing shot."""
_SPAWNS = _by_row(SPAWN_ON_HIT)
"""Type row -> (unit spawned, its life in loops, escorts at most, loops to grow one)."""
_RINGS_ANY = np.zeros(len(TYPES.specs), dtype=bool)
"""Per type row: its weapon does more than hit its target (a ring, a line, bounces, a spawn)."""
_RINGS_ANY[list(_RINGS) + list(_LINES) + list(_BOUNCES) + list(_SPAWNS)] = True
_ATTACK = 23
"""The generic attack (Attack_Attack): what a spawned unit is sent to do where it landed."""


def _ready(cd: np.ndarray, in_range: np.ndarray, kind: np.ndarray,
           suicide: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The cooldowns of :meth:`Combat.fire` (``native.fire_ready`` is the C twin,
    :func:`_ready_native`): ``cd`` (loops until each weapon is ready, >= 0) counts down a loop in
    place; a weapon that becomes ready part-way through the loop carries the fraction into its
    next cooldown.  ``suicide``: per unit, None when no unit is a suicide attacker.

    Returns (who fires: ``in_range`` and ready, but a suicide attacker when anyone blasts; who
    was ordered to explode; who blasts: those and the suicide attackers that fire; whose weapon
    was cooling; the cooldowns less a loop)."""
    was_cooling = cd > 0.0
    cdn = cd - 1.0
    explode = kind == EXPLODE
    fire = in_range & (cdn <= 0.0)
    np.maximum(cdn, 0.0, out=cd)
    if suicide is None:
        return fire, explode, explode, was_cooling, cdn
    blast = (fire & suicide) | explode
    if _count(blast):  # (a suicide attacker that fired blasts instead)
        fire &= ~suicide
    return fire, explode, blast, was_cooling, cdn


def _ready_native(cd: np.ndarray, in_range: np.ndarray, kind: np.ndarray,
                  suicide: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_ready` by its C twin (which writes into arrays made here)."""
    assert _native is not None
    n = len(cd)
    masks = np.empty((4, n), dtype=bool)
    cdn = np.empty(n)
    _native.fire_ready(cd, in_range, kind, EXPLODE, suicide, masks, cdn)
    fire, explode, blast, was_cooling = masks
    return fire, explode, blast, was_cooling, cdn


class Combat:
    """Weapons and damage; holds the hits in flight."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.u = world.u
        self._pend = np.zeros((6, 0), np.int64)
        """Hits in flight, one column each: attacker type, attacker tag, target tag, loop it lands,
        loop the missile leaves, attacker's owner (its weapon upgrades count even if it died; one
        block, so scheduling and landing cost one operation each)."""
        self.p_due = self._pend[3]
        """The loop each hit in flight lands (the world steps loop by loop while there are any)."""
        self._rings_version = -1
        self._rings_any = False
        self._sh_hits: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        """This loop's hits on shielded targets (rows, damage per attack before armor, attacks),
        in the order they landed: :meth:`_apply` takes them through the shields."""
        self.spawns: list[tuple[int, int, float, float, int]] = []
        """Units this loop's hits leave, made once its deaths are done (:meth:`spawn_pending`):
        (unit type, owner, x, y, life in loops)."""
        self._escorts: dict[int, tuple[float, int]] = {}
        """Attacker tag -> (the units it carries to shoot, the loop that was counted at)."""
        self._struck: list[tuple[np.ndarray, np.ndarray | int | None]] = []
        """This loop's hits for the alerts: (target rows, the attackers' owner per row or one for
        all, None when none can be the target's own); :meth:`_apply` hands them to
        ``systems/alerts.py`` (``UnitUnderAttack``, ``BuildingUnderAttack``)."""

    def fire(self, loop: int, in_range: np.ndarray, tgt: np.ndarray, dx: np.ndarray,
             dy: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray, np.ndarray]:
        """Cooldowns count down; every unit whose target (row ``tgt``, at offset ``dx``, ``dy``) is
        ``in_range`` with its weapon ready fires: its hit is dealt now or scheduled (damage point,
        missile), suicide attackers and units ordered to explode blast; hits due by ``loop`` land.

        Returns (damage per row this loop or None, rows that die regardless of damage (the
        exploders) or None, who fired, who was ordered to explode).
        """
        u = self.u
        n = len(u)
        damage: np.ndarray | None = None
        died: np.ndarray | None = None
        fire, explode, blast, was_cooling, cdn = (_ready if _native is None else _ready_native)(
            u.cd, in_range, u.kind, u.suicide if self.w.unit_set_facts()[1] else None)
        if _count(blast):
            damage = np.zeros(n)
            died = np.zeros(n, dtype=bool)
            self._explode(blast.nonzero()[0], damage, died)
        if _count(fire):
            if damage is None:
                damage = np.zeros(n)
            f = fire.nonzero()[0]
            ft = tgt[f]
            late = TYPES.delayed[u.ti[f]]
            n_late = _count(late)
            if n_late == len(f):  # every hit lands later (a damage point or a missile)
                self._schedule(loop, f, ft, np.sqrt(dx[f] ** 2 + dy[f] ** 2))
                f_now, t_now = f[:0], ft[:0]
            elif n_late:
                fl = f[late]
                self._schedule(loop, fl, ft[late], np.sqrt(dx[fl] ** 2 + dy[fl] ** 2))
                f_now, t_now = f[~late], ft[~late]
            else:
                f_now, t_now = f, ft
            if len(f_now):
                self._hit(f_now, t_now, damage)
                if self._any_rings():
                    self._splash(u.ti[f_now], t_now, damage, u.owner[f_now], f_now)
            carry = cdn[f]
            jitter = self.w.rng.uniform(D.RANDOM_DELAY[0], D.RANDOM_DELAY[1], len(f)) * D.NORMAL_LOOPS_PER_SECOND
            # (the weapon fired at this target: a Thor's cannons or its missiles)
            cd = TYPES.cd_vs[u.ti[f], u.ti[ft]]
            if self.w.research.stimmed or self.w.research.adrenal:  # (Stimpack, Adrenal Glands)
                cd = self.w.research.stim_cooldowns(f, cd)
            u.cd[f] = np.maximum(cd + jitter, 1.0) + np.where(was_cooling[f], carry, 0.0)
            u.facing[f] = np.arctan2(dy[f], dx[f]) % _TWO_PI
        if self.p_due.size and _count(self.p_due <= loop):
            if damage is None:
                damage = np.zeros(n)
            self._land(damage, loop)

        return damage, died, fire, explode

    def deaths(self, damage: np.ndarray, died: np.ndarray | None) -> Deaths | None:
        """Apply this loop's ``damage`` (shields first); units left without hit points and those
        in ``died`` are removed.  Returns them (None when nobody died)."""
        u = self.u
        if self.w.abilities.jumping:  # (a Battlecruiser warping out takes no damage)
            damage[self.w.abilities.invulnerable_rows()] = 0.0
            if self._sh_hits:
                safe = self.w.abilities.invulnerable_rows()
                self._sh_hits = [(t[~np.isin(t, safe)], r[~np.isin(t, safe)], a[~np.isin(t, safe)])
                                 for t, r, a in self._sh_hits]
        self._apply(damage)
        dead = (u.hp <= 0.0) & ~u.neutral
        if died is not None:
            dead |= died
        if _count(dead):
            d = Deaths(u.tag[dead], u.unit_id[dead], u.owner[dead])  # (masking copies)
            u.keep(~dead)
            self.w.dead_tags.extend(d.tags.tolist())
            return d
        return None

    def _schedule(self, loop: int, att: np.ndarray, trows: np.ndarray, dist: np.ndarray) -> None:
        """Attacks that hit later: after the weapon's damage point, plus the missile's flight over
        the centre distance for weapons that fire one.  The hit is kept as (attacker type, attacker
        tag, target tag, loop it lands, loop the missile leaves, attacker owner)."""
        u = self.u
        ti = u.ti[att]
        new = np.empty((6, len(att)), np.int64)
        new[0] = ti
        new[1] = u.tag[att]
        new[2] = u.tag[trows]
        new[5] = u.owner[att]
        launch = new[4]
        np.add(TYPES.launch_loops[ti], loop, out=launch)
        missile = TYPES.has_missile[ti]
        if _count(missile):
            flight = np.where(missile, np.ceil(dist / TYPES.proj_speed_or_1[ti]), 0).astype(np.int64)
            np.maximum(launch + flight, loop + 1, out=new[3])
        else:
            np.maximum(launch, loop + 1, out=new[3])
        self._pend = np.concatenate((self._pend, new), axis=1)
        self.p_due = self._pend[3]

    def _land(self, damage: np.ndarray, loop: int) -> None:
        """Apply the scheduled hits due by now.  A hit whose target died is lost; so is one whose
        attacker died before the damage point (a missile already launched still lands)."""
        u = self.u
        due = self.p_due <= loop
        blk = self._pend.compress(due, axis=1)
        ti, launch = blk[0], blk[4]
        self._pend = self._pend.compress(~due, axis=1)
        self.p_due = self._pend[3]
        arows, trows = u.rows(blk[1:3])  # attackers and targets, in one lookup
        ok = (trows >= 0) & ((arows >= 0) | (launch < loop))
        n_ok = _count(ok)
        if n_ok:
            owners = blk[5]
            if n_ok < len(ok):
                trows, ti, owners, arows = trows[ok], ti[ok], owners[ok], arows[ok]
            tt = u.ti[trows]
            raw = self._upgraded_damage(ti, tt, owners=owners)
            if self.w.protoss.modifies:  # (as in _hit)
                raw = self.w.protoss.adjust(raw, ti, None, trows)
            self._accumulate(raw, TYPES.attacks_vs[ti, tt], trows, damage, owners)
            if self.w.research.concussive_players:  # (Marauders' missiles slow what they hit)
                self.w.research.concussive(ti, owners, trows)
            if self._any_rings():
                self._splash(ti, trows, damage, owners, arows)

    # ------------------------------------------------------------------ splash, lines, bounces
    def _any_rings(self) -> bool:
        """Whether any unit's weapon hits more than its target (splash rings, lines, bounces;
        cached per unit-set version)."""
        u = self.u
        if self._rings_version != u.version:
            self._rings_version = u.version
            self._rings_any = bool(_count(_RINGS_ANY[u.ti]))
        return self._rings_any

    def _splash(self, a_ti: np.ndarray, trows: np.ndarray, damage: np.ndarray, owners: np.ndarray,
                arows: np.ndarray) -> None:
        """What each attack of type ``a_ti`` (attacker rows ``arows``, -1 when it died) hits
        beyond its target ``trows``: ring splash (``data.units.SPLASH_RINGS``), line splash
        (``LINE_SPLASH``), bounces (``BOUNCE``).  The extra hits deal their fraction of what the
        attack deals to each type, the owner's weapon levels included; armor and shields apply
        to the reduced damage."""
        sel = _RINGS_ANY[a_ti]
        if not _count(sel):
            return
        for at, tr, owner, ar in zip(a_ti[sel].tolist(), trows[sel].tolist(), owners[sel].tolist(),
                                     arows[sel].tolist(), strict=True):
            if at in _RINGS:
                self._ring(at, tr, owner, damage)
            elif at in _LINES:
                if ar >= 0:
                    self._line(at, ar, tr, owner, damage)
            elif at in _BOUNCES:
                self._bounce(at, tr, owner, damage)
            elif at in _SPAWNS:
                self._spawn_on_hit(at, ar, tr, owner, damage)

    def _extra(self, at: int, owner: int, hit: np.ndarray, frac: np.ndarray | float, damage: np.ndarray) -> None:
        """Hits of an attack of type ``at`` by ``owner`` on rows ``hit``, ``frac`` of its damage."""
        if len(hit):
            ti = self.u.ti
            att = np.full(len(hit), at)
            raw = self._upgraded_damage(att, ti[hit], owners=np.full(len(hit), owner))
            self._accumulate(raw * frac, TYPES.attacks_vs[att, ti[hit]], hit, damage, owner)

    def _ring(self, at: int, tr: int, owner: int, damage: np.ndarray) -> None:
        """Ring splash round the target ``tr``: every other unit of its layer (ground for the
        tank) whose edge is within a ring takes that ring's fraction; enemies only for the
        Archon and the Ultralisk."""
        u = self.u
        ti = u.ti
        if at in _ENEMIES_ONLY:
            ok = (TYPES.is_flying[ti] == TYPES.is_flying[ti[tr]]) & ~u.no_auto & (u.owner != owner)
            ok &= TYPES.can_hit[at, ti]
        else:
            ok = ~TYPES.is_flying[ti] & ~u.neutral
        d = np.hypot(u.x - u.x[tr], u.y - u.y[tr]) - u.radius
        frac = np.zeros(len(u))
        for radius, f in reversed(_RINGS[at]):
            frac[d <= radius] = f
        frac[tr] = 0.0
        frac[~ok] = 0.0
        hit = np.flatnonzero(frac)
        self._extra(at, owner, hit, frac[hit], damage)

    def _line(self, at: int, ar: int, tr: int, owner: int, damage: np.ndarray) -> None:
        """Line splash: enemy ground units (but the target) whose edge is within the half-width
        of the line: the Lurker's from itself toward the target, the Colossus's across the
        target, perpendicular to its aim."""
        u = self.u
        shape, length, half_w, frac = _LINES[at]
        ax, ay = float(u.x[ar]), float(u.y[ar])
        tx, ty = float(u.x[tr]), float(u.y[tr])
        dist = float(np.hypot(tx - ax, ty - ay)) or 1.0
        ex, ey = (tx - ax) / dist, (ty - ay) / dist
        if shape == "spine":  # from the attacker outwards
            x0, y0, dx, dy = ax, ay, ex, ey
        else:  # a sweep across the target
            x0, y0, dx, dy = tx + ey * length / 2, ty - ex * length / 2, -ey, ex
        rx, ry = u.x - x0, u.y - y0
        along = np.clip(rx * dx + ry * dy, 0.0, length)
        off = np.hypot(rx - along * dx, ry - along * dy) - u.radius
        ti = u.ti
        ok = (off <= half_w) & ~TYPES.is_flying[ti] & ~u.no_auto & (u.owner != owner) & TYPES.can_hit[at, ti]
        ok[tr] = False
        self._extra(at, owner, np.flatnonzero(ok), frac, damage)

    def _bounce(self, at: int, tr: int, owner: int, damage: np.ndarray) -> None:
        """Bounces: from the last unit hit to the nearest enemy within range not hit yet, each
        dealing the factor of the one before."""
        u = self.u
        n, factor, reach = _BOUNCES[at]
        ti = u.ti
        ok = ~u.no_auto & (u.owner != owner) & TYPES.can_hit[at, ti] & (u.owner != NEUTRAL_OWNER)
        ok[tr] = False
        last, f = tr, 1.0
        for _ in range(n):
            d = np.hypot(u.x - u.x[last], u.y - u.y[last]) - u.radius - u.radius[last]
            d[~ok] = np.inf
            nxt = int(np.argmin(d)) if len(d) else -1
            if nxt < 0 or not d[nxt] <= reach:
                return
            f *= factor
            self._extra(at, owner, np.array([nxt]), f, damage)
            ok[nxt] = False
            last = nxt

    def _spawn_on_hit(self, at: int, ar: int, tr: int, owner: int, damage: np.ndarray) -> None:
        """An attack of type ``at`` (attacker row ``ar``) that leaves units where it lands: the
        attacker shoots every escort it carries (at least the one this attack is), each a hit of
        the weapon's damage on ``tr`` and a unit left there (``data.units.SPAWN_ON_HIT``)."""
        unit, life, most, grow = _SPAWNS[at]
        n = 1
        if ar >= 0:
            tag = int(self.u.tag[ar])
            loop = self.w.loop
            have, since = self._escorts.get(tag, (float(most), loop))
            have = min(float(most), have + (loop - since) / grow)
            n = max(1, int(have))
            self._escorts[tag] = (max(0.0, have - n), loop)
        if n > 1:  # (the hit itself is dealt by the caller; these are the other escorts')
            self._extra(at, owner, np.full(n - 1, tr), 1.0, damage)
        self.spawns.extend([(unit, owner, float(self.u.x[tr]), float(self.u.y[tr]), life)] * n)

    def spawn_pending(self) -> None:
        """Make the units this loop's hits left (after its deaths, which change the rows); each
        attack-moves where it landed and dies at the end of its life."""
        w = self.w
        pending, self.spawns = self.spawns, []
        for unit, owner, x, y, life in pending:
            tags = [int(t) for t in w.spawn(unit, owner, [x], [y]).tolist()]
            for t in tags:
                w.abilities.timed[t] = w.loop + life
            w.commands.issue(owner, _ATTACK, tags, (x, y), 0, False)
        if len(self._escorts) > 64:  # (forget attackers that are gone)
            self._escorts = {t: v for t, v in self._escorts.items() if self.u.row(t) >= 0}

    def _hit(self, att: np.ndarray, trows: np.ndarray, damage: np.ndarray) -> None:
        """Accumulate single-target hits of attacker rows ``att`` into ``damage``."""
        ti = self.u.ti
        a_ti, t_ti = ti[att], ti[trows]
        raw = self._upgraded_damage(a_ti, t_ti, att)
        if self.w.protoss.modifies:  # (Guardian Shield, Prismatic Alignment: systems/protoss_abilities.py)
            raw = self.w.protoss.adjust(raw, a_ti, att, trows)
        self._accumulate(raw, TYPES.attacks_vs[a_ti, t_ti], trows, damage, self.u.owner[att])

    def _upgraded_damage(self, a_ti: np.ndarray, t_ti: np.ndarray, att: np.ndarray | None = None,
                         owners: np.ndarray | None = None) -> np.ndarray:
        """Damage of one attack of types ``a_ti`` (attacker rows ``att``, or their ``owners``)
        against ``t_ti`` before armor: the weapon's damage and attribute bonus, plus what the
        owners' weapon levels add."""
        raw = TYPES.dmg[a_ti, t_ti]
        if self.w.research.upgraded:
            if owners is None:
                assert att is not None
                owners = self.u.owner[att]
            raw = raw + self.w.research.weapon_bonus(owners, a_ti, t_ti)
        return raw

    def _armor(self, rows: np.ndarray) -> np.ndarray:
        """Armor of the units of ``rows``: their type's, plus their owners' armor levels."""
        u = self.u
        ti = u.ti[rows]
        armor = TYPES.armor[ti]
        if self.w.research.upgraded:
            armor = armor + self.w.research.armor_bonus(u.owner[rows], ti)
        if self.w.abilities.shredded:  # (Anti-Armor Missile: -3)
            armor = armor - self.w.abilities.armor_minus(rows)
        return armor

    def hit_damage(self, att: np.ndarray, trows: np.ndarray) -> np.ndarray:
        """Damage one shot of each attacker row ``att`` deals to the unshielded target row of
        ``trows`` (every attack of the shot, after armor and upgrades): the formula every hit
        uses."""
        ti = self.u.ti
        a_ti, t_ti = ti[att], ti[trows]
        raw = self._upgraded_damage(a_ti, t_ti, att)
        return np.maximum(0.5, raw - self._armor(trows)) * TYPES.attacks_vs[a_ti, t_ti]

    def _accumulate(self, raw: np.ndarray, attacks: np.ndarray, trows: np.ndarray, damage: np.ndarray,
                    by: np.ndarray | int | None = None) -> None:
        """Hits of ``raw`` damage per attack (before armor), ``attacks`` attacks each, on
        ``trows``: life damage of unshielded targets goes into ``damage`` (armor, the 0.5 minimum
        per attack); hits on targets that have shields are kept for :meth:`_apply`, which takes
        them in order through the shields (:meth:`_shield_hits`).  ``by``: the attackers' owners
        (per hit or one for all; None: never the target's own), for the alerts."""
        u = self.u
        self._struck.append((trows, by))
        if self.w.unit_set_facts()[2]:
            sh = u.shield[trows] > 0
            if _count(sh):
                self._sh_hits.append((trows[sh], np.broadcast_to(raw, trows.shape)[sh],
                                      np.broadcast_to(attacks, trows.shape)[sh]))
                if _count(sh) == len(sh):
                    return
                keep = ~sh
                trows, raw, attacks = (trows[keep], np.broadcast_to(raw, keep.shape)[keep],
                                       np.broadcast_to(attacks, keep.shape)[keep])
        per = np.maximum(0.5, raw - self._armor(trows)) * attacks
        damage += np.bincount(trows, weights=per, minlength=len(damage))

    def _shield_levels(self) -> np.ndarray:
        """Shield armor per player: +1 per Protoss Shields level (``data.units.PROTOSS_SHIELDS``)."""
        levels = np.zeros(NEUTRAL_OWNER + 1)
        ups, per = PROTOSS_SHIELDS
        for player, done in self.w.research.done.items():
            levels[player] = per * sum(1 for up in ups if up in done)
        return levels

    def _shield_hits(self, damage: np.ndarray) -> None:
        """Take this loop's hits on shielded targets through their shields, attack by attack in
        the order they landed (LP:Shields, LP:Damage): an attack first loses the shield armor
        (0, +1 per Protoss Shields level; at least 0.5 is left) and is absorbed by the shields;
        the part that breaks through is reduced by the unit's armor (no minimum: the attack
        already did damage); once the shields are gone the next attacks hit life with the unit's
        armor and the 0.5 minimum, as on an unshielded unit.  Life damage goes into ``damage``."""
        u = self.u
        t = np.concatenate([h[0] for h in self._sh_hits])
        raw = np.concatenate([h[1] for h in self._sh_hits])
        n_att = np.concatenate([h[2] for h in self._sh_hits]).astype(np.int64)
        self._sh_hits = []
        if len(n_att) and int(n_att.max()) > 1:  # (a Zealot's two blades are two attacks)
            t, raw = np.repeat(t, n_att), np.repeat(raw, n_att)
        order = np.argsort(t, kind="stable")
        t, raw = t[order], raw[order]
        on_shield = np.maximum(0.5, raw - self._shield_levels()[u.owner[t]])
        # running total of the shield damage before each attack, per target
        cum = np.cumsum(on_shield)
        first = np.r_[True, t[1:] != t[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(len(t)), 0))
        before = cum - on_shield - (cum[start] - on_shield[start])
        s0 = u.shield[t]
        armor = self._armor(t)
        left = s0 - before
        broke = left > 0  # the shields still stand when this attack lands
        absorbed = np.where(broke, np.minimum(on_shield, left), 0.0)
        through = on_shield - absorbed
        life = np.where(broke, np.maximum(0.0, through - armor), np.maximum(0.5, raw - armor))
        np.subtract.at(u.shield, t, absorbed)
        np.maximum(u.shield, 0.0, out=u.shield)
        damage += np.bincount(t, weights=life, minlength=len(damage))
        self.w.regeneration.damaged(t)

    def _apply(self, damage: np.ndarray) -> None:
        u = self.u
        if self.w.unit_set_facts()[2] and len(self.w.barrier.rows()):  # (Immortals' barriers first; they have shields)
            self._sh_hits = self.w.barrier.weapons(damage, self._sh_hits)
        if self._sh_hits:
            self._shield_hits(damage)
        if self.w.regeneration.watching():  # (shields wait again; Zerg life regenerates)
            self.w.regeneration.damaged(damage > 0)
        u.hp -= damage
        if self._struck:  # (the victims' owners are alerted: output only)
            self.w.alerts.struck(self._struck)
            self._struck = []

    def deal(self, att: np.ndarray, trows: np.ndarray, extra: bool = False) -> Deaths | None:
        """One shot of each attacker row ``att`` at the row of ``trows``, dealt now through the
        whole damage path (upgrades, shields, armor; with ``extra`` splash, lines and bounces
        too); returns the deaths.  The damage tables test it; a hit in a game goes through
        :meth:`fire`."""
        damage = np.zeros(len(self.u))
        self._hit(att, trows, damage)
        if extra and self._any_rings():
            self._splash(self.u.ti[att], trows, damage, self.u.owner[att], att)
        deaths = self.deaths(damage, None)
        if self.spawns:  # (a Brood Lord's Broodlings, as in a game)
            self.spawn_pending()
        return deaths

    def _explode(self, rows: np.ndarray, damage: np.ndarray, died: np.ndarray) -> None:
        """Area damage around each exploding unit; the exploders die."""
        u = self.u
        ti = u.ti
        died[rows] = True
        own = u.owner
        valid = (own[rows][:, None] != own[None, :]) & TYPES.can_hit[ti[rows]][:, ti]
        d = np.hypot(u.x[None, :] - u.x[rows][:, None], u.y[None, :] - u.y[rows][:, None])
        d -= u.radius[None, :]
        inside = valid & (d <= TYPES.splash[ti[rows]][:, None])
        ai, tj = np.nonzero(inside)
        if len(ai):
            att_ti = ti[rows[ai]]
            self._accumulate(self._upgraded_damage(att_ti, ti[tj], rows[ai]), TYPES.attacks_vs[att_ti, ti[tj]],
                             tj, damage)
