"""What the observation reports of the spells on the map: ``ObservationRaw.effects``, and the
units the real client shows for some of them.

The real client reports the persistent effects of abilities in ``ObservationRaw.effects``: one
``Effect`` per effect, with its id (the ``effects`` of ``ResponseData``), its points, alliance,
owner and radius.  Bots read them to dodge (python-sc2's ``state.effects``: a Psionic Storm, a
Corrosive Bile about to land, a nuke's dot).  Three spells are units instead, which python-sc2
turns into effects itself (``FakeEffectID`` in ``sc2/constants.py``): a Force Field (unit type
135), a Reaper's KD8 Charge in flight (830) and a Parasitic Bomb (824).

This system reads the state the race modules keep (it owns none of the spells) and reports, for
each player:

========================  ===========================================================================
effect (id)               what and where
========================  ===========================================================================
PsiStorm (1)              every Psionic Storm while it lasts, at its point
GuardianShield (2)        every Sentry's Guardian Shield while it lasts, at the Sentry
TemporalField (4)         every Time Warp while it lasts, at its point
ScannerSweep (6)          every Scanner Sweep while it lasts, at its point
NukeDot (7)               a Ghost painting a nuke's target (its channel), at the target
LiberatorDefenderZoneSetup (8)
                          a Liberator going into Defender Mode, at its zone's centre
LiberatorDefenderZone (9) a Liberator in Defender Mode, at its zone's centre
BlindingCloud (10)        every Blinding Cloud while it lasts, at its point
CorrosiveBile (11)        every bile in flight, at the point it will land
========================  ===========================================================================

Each with the radius of the client's ``EffectData`` (the engine's own radius for the spell's
simulation may differ, where its source gave another figure: ``docs/engine.md``).  The units:
a Force Field at its point, a KD8 Charge at its point from the throw to the blast, a Parasitic
Bomb on its target while it lasts, each with its unit's radius (:data:`SPELL_UNIT_RADIUS`); their tags are their own,
kept while the spell lasts, from a range no real unit's tag reaches.

Not reported (m): the growing phase of a Time Warp (3: the engine's field is whole at once), a
Colossus's Thermal Lances (5) and a Lurker's spines (12) (the engine has no such moment: their
damage is a weapon's hit).  What the real client reports of another player's effect that the
player does not see is not known (m): the engine reports an effect of another player only where
one of its points is on a cell the player sees now, as the units on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import raw_pb2

from sc2pool.engine.data import client
from sc2pool.engine.sim.units import NEUTRAL_OWNER

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

PSI_STORM, GUARDIAN_SHIELD, TEMPORAL_FIELD, SCANNER_SWEEP, NUKE_DOT = 1, 2, 4, 6, 7
ZONE_SETUP, ZONE, BLINDING_CLOUD, CORROSIVE_BILE = 8, 9, 10, 11
FORCE_FIELD_UNIT, PARASITIC_BOMB_UNIT, KD8_CHARGE_UNIT = 135, 824, 830
"""The unit types the real client shows for these spells (python-sc2's ``FakeEffectID``)."""
SPELL_UNIT_RADIUS = {FORCE_FIELD_UNIT: 1.5, PARASITIC_BOMB_UNIT: 0.5, KD8_CHARGE_UNIT: 0.5}
"""Their radius (BD:94137 ``ForceField``, ``ParasiticBombDummy``, ``KD8Charge``)."""
FAKE_TAG_BASE = 1 << 50
"""The spells' units' tags start here: above any tag the store gives (``sim/units.py``) in a game."""
NUKE_ABILITY = 1622


@dataclass(frozen=True)
class Shown:
    """One effect as the observation reports it."""

    effect_id: int
    owner: int
    points: tuple[tuple[float, float], ...]
    radius: float


@dataclass(frozen=True)
class SpellUnit:
    """A spell the real client shows as a unit."""

    unit_type: int
    key: tuple[object, ...]
    """What identifies the spell while it lasts (its tag is kept under it)."""
    owner: int
    x: float
    y: float


@cache
def _radius(effect_id: int) -> float:
    return float(client.effects()[effect_id].radius)


class Effects:
    """The spells on the map as the observation reports them (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self._tags: dict[tuple[object, ...], int] = {}
        """A spell unit's key -> its tag, while it lasts."""
        self._next_tag = FAKE_TAG_BASE

    def shown(self) -> list[Shown]:
        """Every effect on the map now, in a fixed order (by kind, then as each module keeps them)."""
        w = self.w
        loop = w.loop
        u = w.u
        out: list[Shown] = []
        p = w.protoss
        for s in p.storms:
            if s.end > loop:
                out.append(Shown(PSI_STORM, s.owner, ((s.x, s.y),), _radius(PSI_STORM)))
        for tag, end in p.guards.items():
            r = u.row(tag)
            if end > loop and r >= 0:
                out.append(Shown(GUARDIAN_SHIELD, int(u.owner[r]), ((float(u.x[r]), float(u.y[r])),),
                                 _radius(GUARDIAN_SHIELD)))
        for warp in p.warps:
            if warp.end > loop:
                out.append(Shown(TEMPORAL_FIELD, warp.owner, ((warp.x, warp.y),), _radius(TEMPORAL_FIELD)))
        for scan in w.abilities.scans:
            if scan.end > loop:
                out.append(Shown(SCANNER_SWEEP, scan.owner, ((scan.x, scan.y),), _radius(SCANNER_SWEEP)))
        for tag, cast in w.casting.casts.items():
            r = u.row(tag)
            if cast.ability == NUKE_ABILITY and cast.fire_at >= 0 and r >= 0:
                out.append(Shown(NUKE_DOT, int(u.owner[r]), ((cast.x, cast.y),), _radius(NUKE_DOT)))
        for tag, t in w.modes.pending.items():
            r = u.row(tag)
            if t.zone is not None and r >= 0:
                out.append(Shown(ZONE_SETUP, int(u.owner[r]), (t.zone,), _radius(ZONE_SETUP)))
        for tag, centre in w.modes.zones.items():
            r = u.row(tag)
            if r >= 0:
                out.append(Shown(ZONE, int(u.owner[r]), (centre,), _radius(ZONE)))
        z = w.zerg.spells
        for x, y, end, owner in z.clouds:
            if end > loop:
                out.append(Shown(BLINDING_CLOUD, owner, ((x, y),), _radius(BLINDING_CLOUD)))
        for owner, x, y, at in z.biles:
            if at >= loop:
                out.append(Shown(CORROSIVE_BILE, owner, ((x, y),), _radius(CORROSIVE_BILE)))
        return out

    def units(self) -> list[tuple[int, SpellUnit]]:
        """(tag, unit) of every spell shown as a unit now; a spell keeps its tag while it lasts."""
        w = self.w
        loop = w.loop
        u = w.u
        found: list[SpellUnit] = []
        for f in w.protoss.fields:
            if f.end > loop:
                found.append(SpellUnit(FORCE_FIELD_UNIT, ("field", f.x, f.y, f.end), f.owner, f.x, f.y))
        for b in w.abilities.blasts:
            if b.shows == KD8_CHARGE_UNIT and b.at >= loop:
                found.append(SpellUnit(KD8_CHARGE_UNIT, ("kd8", b.owner, b.x, b.y, b.at), b.owner, b.x, b.y))
        for d in w.zerg.spells.bombs:
            r = u.row(d.target)
            if d.end > loop and r >= 0:
                found.append(SpellUnit(PARASITIC_BOMB_UNIT, ("bomb", d.target, d.end), d.owner, float(u.x[r]),
                                       float(u.y[r])))
        keys = {s.key for s in found}
        for key in [k for k in self._tags if k not in keys]:
            del self._tags[key]
        out = []
        for s in found:
            tag = self._tags.get(s.key)
            if tag is None:
                tag = self._tags[s.key] = self._next_tag
                self._next_tag += 1
            out.append((tag, s))
        return out

    def raw_bytes(self, player: int, vis: np.ndarray | None, z: Callable[[float, float], float]) -> bytes:
        """Serialized ``ObservationRaw`` with the effects and spell units ``player`` observes
        (empty when none); ``vis`` the player's visibility grid (None: no fog), ``z`` the terrain
        height at a point."""
        shown = self.shown()
        spell_units = self.units()
        if not shown and not spell_units:
            return b""
        raw = raw_pb2.ObservationRaw()
        for e in shown:
            if not self._sees(player, e.owner, e.points, vis):
                continue
            eff = raw.effects.add(effect_id=e.effect_id, alliance=_alliance(player, e.owner),  # type: ignore[arg-type]
                                  owner=e.owner, radius=e.radius)
            for x, y in e.points:
                eff.pos.add(x=x, y=y)
        for tag, s in spell_units:
            if not self._sees(player, s.owner, ((s.x, s.y),), vis):
                continue
            unit = raw.units.add(display_type=raw_pb2.Visible, alliance=_alliance(player, s.owner),  # type: ignore[arg-type]
                                 tag=tag, unit_type=s.unit_type, owner=s.owner, radius=SPELL_UNIT_RADIUS[s.unit_type],
                                 build_progress=1.0)
            unit.pos.x, unit.pos.y, unit.pos.z = s.x, s.y, z(s.x, s.y)
        return raw.SerializeToString()

    def _sees(self, player: int, owner: int, points: tuple[tuple[float, float], ...], vis: np.ndarray | None) -> bool:
        if vis is None or owner == player:
            return True
        h, w = vis.shape
        return any(vis[min(max(int(y), 0), h - 1), min(max(int(x), 0), w - 1)] == 2 for x, y in points)


def _alliance(player: int, owner: int) -> int:
    """``Alliance``: Self 1, Neutral 3, Enemy 4 (no allies in the engine's games)."""
    if owner == player:
        return 1
    return 3 if owner == NEUTRAL_OWNER else 4
