"""Power: the Protoss power fields (psionic matrix), which structures stand in one, and what the
raw observation reports of them.

Rules (the real game's; sources per fact):

- *sources*: a finished Pylon projects a power field of radius 6.5 round its centre (LP:Pylon;
  ``data.units`` ``power``), a Warp Prism in phasing mode one of radius 3.75 (LP:Warp_Prism).
  A Pylon still warping in powers nothing (LP:Pylon).  A field powers its owner's structures only.
- *placement*: every Protoss structure but the Nexus, Pylon and Assimilator must be placed with
  its centre in a power field of its player (LP:Pylon); elsewhere the real client answers
  ``CantBuildTooFarFromBuildPowerSource`` (``error_pb2.ActionResult`` 50).
- *unpowered structures*: a finished structure that needs power and has none (its Pylon died) stops
  working: its production, research and Warp Gate cooldown pause and resume where they stopped
  once power returns (LP:Pylon, "buildings without power ... cease to function");
  :mod:`.tempo` carries the pause; an unpowered Photon Cannon does not fire (LP:Photon_Cannon).
  A structure warping in keeps warping in without power (m).
  The unit's ``is_powered`` is reported for every Protoss structure that needs power.
- *observation*: ``observation.raw_data.player.power_sources``, one ``PowerSource`` (pos, radius,
  tag) per source of the player, as the real client reports them; python-sc2 reads them into
  ``state.psionic_matrix`` and bots ask ``psionic_matrix.covers(point)`` (distance to the source's
  centre at most its radius, burnysc2's ``PowerSource.covers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from s2clientprotocol import raw_pb2

from sc2pool.engine.data import units as F

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

PYLON, WARP_PRISM_PHASING, PHOTON_CANNON = 60, 136, 66
HELD = float(1 << 40)
"""The weapon cooldown of an unpowered Photon Cannon: it never comes down to 0 while held."""
PYLON_RADIUS = F.facts(PYLON).power
"""6.5 (LP:Pylon)."""
PRISM_RADIUS = F.facts(WARP_PRISM_PHASING).power
"""3.75 (LP:Warp_Prism)."""
CANT_BUILD_TOO_FAR_FROM_BUILD_POWER_SOURCE = 50
"""``error_pb2.ActionResult.CantBuildTooFarFromBuildPowerSource``."""
IS_POWERED_TRUE, IS_POWERED_FALSE = b"\x98\x02\x01", b"\x98\x02\x00"
"""``Unit.is_powered`` (field 35) as bytes."""


def _needs_power() -> frozenset[int]:
    out = set()
    for f in F.FACTS_TABLE:
        if f.needs == "power":
            out.add(f.unit_id)
    return frozenset(out)


NEEDS_POWER = _needs_power()
"""Structure types that must stand in a power field (``data.units`` ``needs="power"``)."""


@dataclass(frozen=True)
class Source:
    tag: int
    x: float
    y: float
    radius: float


class Power:
    """Each player's power sources and which of its structures have power (see the module
    docstring).  Recomputed in :meth:`update` (each Protoss player's upkeep) when the unit set or
    the structures changed."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.sources: dict[int, list[Source]] = {}
        """Player -> its power sources."""
        self.unpowered: set[int] = set()
        """Tags of finished structures that need power and have none."""
        self._key: tuple[int, int] = (-1, -1)
        self.active = False
        """A Protoss player is in the game (or some player ever had a power source): the
        Protoss systems report and answer only then."""

    # ------------------------------------------------------------------ queries
    def covers(self, player: int, x: float, y: float) -> Source | None:
        """The player's first power source whose field covers (x, y), if any."""
        for s in self.sources.get(player, ()):
            if (s.x - x) ** 2 + (s.y - y) ** 2 <= s.radius * s.radius:
                return s
        return None

    def refuse(self, player: int, x: float, y: float) -> int | None:
        """Placement of a structure that needs power at (x, y): None when a power field of the
        player covers it (or no player is known: the open query of an observer (m)), else
        ``CantBuildTooFarFromBuildPowerSource``."""
        if not player:
            return None
        self.update(self.w.events.now)
        return None if self.covers(player, x, y) is not None else CANT_BUILD_TOO_FAR_FROM_BUILD_POWER_SOURCE

    def powered(self, tag: int) -> bool:
        return tag not in self.unpowered

    # ------------------------------------------------------------------ upkeep
    def update(self, loop: int) -> None:
        """Recompute the sources and the unpowered structures when units or structures changed;
        a structure that loses or regains power changes its speed (:mod:`.tempo`)."""
        w = self.w
        key = (w.u.version, w.supply.revision)
        if key == self._key:
            return
        self._key = key
        sources: dict[int, list[Source]] = {}
        needy = []
        for s in w.construction.structures.values():
            if s.unit_id == PYLON and s.ready:
                sources.setdefault(s.owner, []).append(Source(s.tag, s.x, s.y, PYLON_RADIUS))
            elif s.unit_id in NEEDS_POWER and s.ready:
                needy.append(s)
        u = w.u
        if len(u):
            prisms = (u.unit_id == WARP_PRISM_PHASING).nonzero()[0]
            for r in prisms.tolist():
                sources.setdefault(int(u.owner[r]), []).append(
                    Source(int(u.tag[r]), float(u.x[r]), float(u.y[r]), PRISM_RADIUS))
        self.sources = sources
        if sources or needy:
            self.active = True
        now = set()
        for s in needy:
            if self.covers(s.owner, s.x, s.y) is None:
                now.add(s.tag)
        lost, regained = now - self.unpowered, self.unpowered - now
        self.unpowered = now
        tempo = w.tempo
        for tag in lost:
            tempo.set_powered(tag, False, loop)
        for tag in regained:
            tempo.set_powered(tag, True, loop)
        self._hold_weapons(lost, regained)

    def _hold_weapons(self, lost: set[int], regained: set[int]) -> None:
        """An unpowered Photon Cannon does not fire: its weapon's cooldown is held until its
        power returns (the cooldown column combat counts down; nothing else changes)."""
        u = self.w.u
        for tags, cd in ((lost, HELD), (regained, 0.0)):
            for tag in tags:
                r = u.row(tag)
                if r >= 0 and int(u.unit_id[r]) == PHOTON_CANNON:
                    u.cd[r] = cd
        if lost or regained:
            self.w.touch()

    def forget(self, alive: set[int]) -> None:
        self.unpowered &= alive

    # ------------------------------------------------------------------ observation
    def player_bytes(self, player: int) -> bytes:
        """``ObservationRaw`` bytes with ``player.power_sources`` of the player (empty when it has
        none)."""
        srcs = self.sources.get(player)
        if not srcs:
            return b""
        raw = raw_pb2.ObservationRaw()
        for s in srcs:
            ps = raw.player.power_sources.add(radius=s.radius, tag=s.tag)
            ps.pos.x, ps.pos.y = s.x, s.y
            ps.pos.z = float(self.w.map.z(s.x, s.y))
        return raw.SerializeToString()

    def extras(self, player: int, parts: dict[int, bytes]) -> None:
        """``is_powered`` of the player's finished structures that need power."""
        if not self.active:
            return
        for s in self.w.construction.structures.values():
            if s.owner == player and s.unit_id in NEEDS_POWER and s.ready:
                b = IS_POWERED_FALSE if s.tag in self.unpowered else IS_POWERED_TRUE
                parts[s.tag] = parts.get(s.tag, b"") + b

