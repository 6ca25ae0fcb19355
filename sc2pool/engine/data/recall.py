"""Strategic Recall: the Nexus's and the Mothership's mass recall, as facts (no behaviour).

``sim/systems/recall.py`` carries the abilities out; this table is what it reads.

Sources
-------
``client``
    the real client's ``ResponseData`` (:mod:`~sc2pool.engine.data.client`): the abilities' ids,
    their target kind (a point) and ``cast_range`` (500 for both: the whole map).  Which type uses
    which id: the client's ``link_name`` (3757 ``NexusMassRecall``, 142 ``MassRecall``, friendly
    name "Effect MassRecall StrategicRecall") and python-sc2's ``UNIT_ABILITIES`` (the Nexus 3757,
    the Mothership 142); both remap to the generic 3686 (``Effect MassRecall``).
``KB:LLM-PySC2``
    LLM-PySC2 knowledge base (NKAI-Decision-Team/LLM-PySC2, ``llm_pysc2/lib/knowledge/protoss.py``,
    Liquipedia-derived), the only source found here for the figures:

    - the Nexus, "Strategic Recall": "Recalls all allied units in the target area (2.5 radius) to
      the Nexus. Cost: 50 energy. Duration: 0.4 seconds. Cooldown: 130 seconds (global for all
      Nexuses)."
    - the Mothership, "MassRecall": "Summons all units in target area (5) owned by the
      mothership's player to the mothership's location. Does not share a cooldown with the Nexus
      Strategic Recall. Duration: 2 seconds, Cooldown: 89 seconds."  It names no energy cost (and
      gives the Mothership 0 energy): the engine asks for none (m).

    Its seconds are faster-speed (real) seconds, 22.4 game loops each
    (:data:`~sc2pool.engine.data.FASTER_LOOPS_PER_SECOND`), rounded to whole loops.

"(m)": what the sources leave open and the engine chose; the rules of who is recalled and where
they land are the system's (``sim/systems/recall.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sc2pool.engine.data import FASTER_LOOPS_PER_SECOND as FASTER

NEXUS, MOTHERSHIP = 59, 10
NEXUS_RECALL, MOTHERSHIP_RECALL, GENERIC_RECALL = 3757, 142, 3686
"""burnysc2's ``EFFECT_MASSRECALL_NEXUS``, ``EFFECT_MASSRECALL_STRATEGICRECALL`` and the generic
``EFFECT_MASSRECALL`` they remap to (client)."""


@dataclass(frozen=True)
class RecallSpec:
    """One caster's mass recall."""

    ability: int
    caster: int
    """The unit type that uses it."""
    radius: float
    """Units whose centre is within this distance of the target point are recalled."""
    energy: float
    """Paid by the caster when the recall starts (0: none)."""
    delay: int
    """Game loops from the cast to the teleport (the source's "Duration")."""
    cooldown: int
    """Game loops from the cast until it may be used again."""
    per_player: bool
    """The cooldown holds for every caster of the player (the Nexus's: "global for all Nexuses"),
    else for the caster alone."""
    cast_range: float
    """The client's ``cast_range``."""
    m: tuple[str, ...] = ()
    """The fields the engine chose (no source)."""


RECALL: dict[int, RecallSpec] = {
    NEXUS_RECALL: RecallSpec(NEXUS_RECALL, NEXUS, radius=2.5, energy=50.0, delay=round(0.4 * FASTER),
                             cooldown=round(130 * FASTER), per_player=True, cast_range=500.0),
    MOTHERSHIP_RECALL: RecallSpec(MOTHERSHIP_RECALL, MOTHERSHIP, radius=5.0, energy=0.0, delay=round(2 * FASTER),
                                  cooldown=round(89 * FASTER), per_player=False, cast_range=500.0,
                                  m=("energy",)),
}
"""Specific recall ability -> its facts: the Nexus's 2.5 radius, 50 energy, 0.4 s (9 loops), 130 s
(2912 loops) for all the player's Nexuses; the Mothership's radius 5, 2 s (45 loops), 89 s (1994
loops) for itself (KB:LLM-PySC2); ids and ranges: client."""
BY_CASTER: dict[int, RecallSpec] = {s.caster: s for s in RECALL.values()}
"""Caster type -> its recall (what the generic 3686 means for it)."""
