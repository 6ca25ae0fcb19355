"""Alerts: what the real client reports in ``ResponseObservation.observation.alerts``.

One job: each player's pending alerts (s2clientprotocol's ``Alert`` codes), raised by the system
where the event is decided and handed out, once, by the player's next observation
(:meth:`Alerts.take`, called by ``game.py``), as burnysc2's ``BotAI.alert`` reads them (it merges
the previous and the current observation's).  A player keeps each code at most once until it
observes (m: the real client's throttle, e.g. how often it repeats "under attack", is not known
here; the engine reports a code once per observation), so a player that never observes (the
engine's Computer) holds at most one entry per code.  Alerts are output only: raising one changes
nothing simulated.

Where each is raised (rules; "(m)" where the engine chose):

- :data:`NUCLEAR_LAUNCH_DETECTED`: a Ghost starts painting a Tactical Nuke
  (``systems/abilities.py``, the channel's start), to every other player (the real game warns
  every opponent; m: allies are not simulated);
- :data:`NYDUS_WORM_DETECTED`: a Nydus Network summons a worm (``systems/nydus.py``), to every
  other player;
- :data:`BUILDING_COMPLETE` / :data:`ADDON_COMPLETE`: a structure's construction (warp-in,
  morph from a Drone) is done (``systems/construction.py``), to its owner; a Tech Lab or Reactor
  raises :data:`ADDON_COMPLETE` instead.  A Nydus Worm that finishes is a structure too (m);
- :data:`TRAIN_WORKER_COMPLETE` (SCV, Probe, Drone) / :data:`TRAIN_UNIT_COMPLETE` (any other
  unit): a unit leaves a production queue (``systems/production.py``) or a larva's egg hatches
  (``systems/larva.py``); a Mothership raises :data:`MOTHERSHIP_COMPLETE` instead (m: the real
  client has the code for it; one alert, not both);
- :data:`WARP_IN_COMPLETE`: a unit warped in at a power field is ready (``systems/warpgate.py``);
- :data:`RESEARCH_COMPLETE` / :data:`UPGRADE_COMPLETE`: a research is done
  (``systems/research.py``): :data:`UPGRADE_COMPLETE` for the levelled upgrades (weapons, armor,
  shields, levels 1-3: :data:`LEVELLED`), :data:`RESEARCH_COMPLETE` for the others (m);
- :data:`MORPH_COMPLETE`: an upgrade in place is done (Orbital Command, Planetary Fortress, Lair,
  Hive, Greater Spire: ``systems/morph.py``) or a unit's cocoon becomes its product (Baneling,
  Ravager, Lurker, Brood Lord, Overseer, Transport Overlord: ``systems/larva.py``);
  :data:`TRANSFORMATION_COMPLETE` instead for a Gateway that became a Warp Gate (m: the client
  calls it a transformation; which code the real client sends is not known here);
- :data:`MERGE_COMPLETE`: two templar became an Archon (``systems/protoss_abilities.py``);
- :data:`NUKE_COMPLETE`: a Ghost Academy's nuke is armed (``systems/abilities.py``, noticed by the
  economy's next step, which is at the latest the step that ends at the observation's loop);
- :data:`MULE_EXPIRED`: a MULE's timed life ends (a MULE killed raises nothing);
- :data:`MINERALS_EXHAUSTED` / :data:`VESPENE_EXHAUSTED`: a mineral field is mined out / a
  geyser's last vespene is taken (``systems/harvest.py``, a MULE's last load too), to the player
  whose worker (or MULE) took the last load (m: simply the one that emptied it);
- :data:`UNIT_UNDER_ATTACK` / :data:`BUILDING_UNDER_ATTACK`: a unit / structure (the client's
  ``is_structure``) of a player is hit by another player's weapon (``systems/combat.py``, shields
  and Bunkers' passengers included) or spell damage (``systems/abilities.py``' and
  ``systems/protoss_abilities.py``' damage helpers), to the victim's owner, not when the hit is
  the victim's own player's (a Siege Tank's splash on its own units, the player's own nuke or
  Corrosive Bile).  A Psionic Storm, whose caster the engine does not keep, alerts the victim's
  owner whoever cast it (m).  A hit alerts even when a shield, a barrier or invulnerability takes
  all of it, and when it kills.  Damage that is not an attack (a Terran structure burning, Zerg
  structures off creep, a stim's cost, Consume) raises nothing.

Not raised: ``AlertError``, ``TrainError`` (the engine refuses a command in its
``ActionResult`` and ``action_errors`` instead); ``LarvaHatched`` (which larvae the real client
announces, if any, is not known here (m)); ``TransformationComplete`` for the Terran form changes
(siege, lift-off, ...: not known to alert in the real game (m)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2pool.engine.data.units import ARMOR_UPGRADES, PROTOSS_SHIELDS, WEAPON_UPGRADES
from sc2pool.engine.sim.units import NEUTRAL_OWNER, TYPES

if TYPE_CHECKING:
    from sc2pool.engine.sim.world import World

# s2clientprotocol ``Alert`` (sc2api.proto)
NUCLEAR_LAUNCH_DETECTED = 1
NYDUS_WORM_DETECTED = 2
ALERT_ERROR = 3
ADDON_COMPLETE = 4
BUILDING_COMPLETE = 5
BUILDING_UNDER_ATTACK = 6
LARVA_HATCHED = 7
MERGE_COMPLETE = 8
MINERALS_EXHAUSTED = 9
MORPH_COMPLETE = 10
MOTHERSHIP_COMPLETE = 11
MULE_EXPIRED = 12
NUKE_COMPLETE = 13
RESEARCH_COMPLETE = 14
TRAIN_ERROR = 15
TRAIN_UNIT_COMPLETE = 16
TRAIN_WORKER_COMPLETE = 17
TRANSFORMATION_COMPLETE = 18
UNIT_UNDER_ATTACK = 19
UPGRADE_COMPLETE = 20
VESPENE_EXHAUSTED = 21
WARP_IN_COMPLETE = 22

PLAYERS = (1, 2)
"""The players a warning to "every other player" goes to: the engine's games have at most two
(``Game.debug`` creates units of players 1 and 2 only); a player that is not in the game never
observes and holds at most one entry per code."""
LEVELLED = frozenset(
    [up for ups in WEAPON_UPGRADES.values() for up in ups]
    + [up for ups, _ in ARMOR_UPGRADES.values() if len(ups) > 1 for up in ups]
    + list(PROTOSS_SHIELDS[0]))
"""The levelled upgrades (weapons, armor, shields, levels 1-3; LP:Upgrades) whose completion is
``UpgradeComplete``; every other research is ``ResearchComplete`` (m).  Neosteel Armor, one level,
is a research."""
_UNDER_ATTACK = (UNIT_UNDER_ATTACK, BUILDING_UNDER_ATTACK)
"""Index 0 / 1: a unit's / a structure's alert when it is hit."""
_KEY = TYPES.structure.astype(np.int64)
"""Per type row: 1 for a structure, 0 for a unit (its index into :data:`_UNDER_ATTACK`)."""


class Alerts:
    """Each player's pending alert codes (see the module docstring)."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.pending: dict[int, dict[int, None]] = {}
        """Player -> the codes it has not observed yet, each once, in the order first raised."""

    def add(self, player: int, code: int) -> None:
        """``player`` gets alert ``code`` with its next observation (once however often raised)."""
        self.pending.setdefault(player, {})[code] = None

    def others(self, player: int, code: int) -> None:
        """Every player but ``player`` gets alert ``code`` (the warnings to the opponents)."""
        for p in PLAYERS:
            if p != player:
                self.add(p, code)

    def take(self, player: int) -> list[int]:
        """The player's pending codes, which it no longer has (its observation reports them)."""
        got = self.pending.pop(player, None)
        return list(got) if got else []

    def struck(self, hits: list[tuple[np.ndarray, np.ndarray | int | None]]) -> None:
        """Units were hit: per entry (their rows, the attacker's owner per row or one for all, or
        None when it cannot be the victim's own or is not known); each victim's owner other than its attacker's
        gets ``UnitUnderAttack`` or ``BuildingUnderAttack`` (a neutral victim: nothing).  Called
        for every loop with damage (combat's hot path): nothing to do once every player has both;
        else a few operations per entry."""
        pending = self.pending
        if all(UNIT_UNDER_ATTACK in pending.get(p, ()) and BUILDING_UNDER_ATTACK in pending.get(p, ())
               for p in PLAYERS):
            return
        u = self.w.u
        owner, ti = u.owner, u.ti
        keys: set[int] = set()
        for t, by in hits:
            own = owner[t]
            k = own * 2 + _KEY[ti[t]]
            if by is not None:
                k = k[own != by]
            keys.update(k.tolist())
        for k in keys:
            if k >> 1 != NEUTRAL_OWNER:
                self.add(k >> 1, _UNDER_ATTACK[k & 1])
