"""Older clients' data where it differs from the capture the engine serves, for a bot that pins one.

burnysc2's ``run_game(..., sc2_version="4.7")`` starts the client with ``-dataVersion <hash>`` of
that release (the hash comes from burnysc2's own ``sc2/versions.py``), and the real client then
plays that release's game data.  The engine serves one capture (patch 5.0.11's ``ResponseData``,
:mod:`sc2pool.engine.data.client`); a bot written for an older release can depend on a rule that
changed since, and then cannot do on the engine what it did on its own client (python-sc2's
``cyclone_push`` trains Cyclones from bare Factories, as 4.7 allowed).  So the server reads
``-dataVersion``, finds the release's label in burnysc2's version table, and applies the
differences entered in :data:`PATCHES` (data fields) and :data:`RULES` (rules the simulation
asks about) whose releases include it.  Only differences someone has
entered with a source are applied: every other fact stays 5.0.11's (the engine has no older
capture), which :func:`select` logs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

log = logging.getLogger("sc2pool.engine")

Version = tuple[int, ...]


@dataclass(frozen=True)
class Patch:
    """One data message's fields as releases ``since`` (included) to ``until`` (excluded) had them."""

    section: str
    """``ResponseData``'s repeated field: ``"units"``, ``"abilities"``, ``"upgrades"``, ..."""
    key: int
    """The message's id (``unit_id``, ``ability_id``, ...)."""
    fields: dict[str, object] = field(default_factory=dict)
    """Field name -> value; None clears the field (unset, as proto2 reports an absent value)."""
    since: Version = (0,)
    until: Version = (99,)
    source: str = ""


CYCLONE = 692

PATCHES: tuple[Patch, ...] = (
    # the Cyclone (unit 692) needs no Tech Lab: its tech_requirement (5, Tech Lab) and
    # require_attached unset, the rest of its data as 5.0.11 reports it (not known here for 4.x)
    Patch("units", CYCLONE, {"tech_requirement": None, "require_attached": None}, since=(3, 8), until=(4, 7, 1),
          source="LP:Cyclone (the Tech Lab requirement was removed in patch 3.8.0 and restored in 4.7.1)"),
)



@dataclass(frozen=True)
class Rule:
    """A game rule that is not a data field (the simulation asks :func:`rule`), as releases
    ``since`` (included) to ``until`` (excluded) played it."""

    name: str
    since: Version = (0,)
    until: Version = (99,)
    source: str = ""


RULES: tuple[Rule, ...] = (
    # the Cyclone's Lock On hits air units only (the 5.0.11 client's hits ground and air)
    Rule("lock_on_air_only", since=(3, 8), until=(4, 7, 1),
         source="LP:Cyclone (from patch 3.8.0 until 4.7.1 the Lock On ability was restricted to air targets)"),
)

_selected: str | None = None
"""The label of the release the process serves (None: the capture's own, 5.0.11)."""


def parse(label: str) -> Version:
    """``"4.7.1"`` -> ``(4, 7, 1)``; ``ValueError`` for a label that is not dotted numbers."""
    return tuple(int(p) for p in label.split("."))


def label_of(data_hash: str) -> str | None:
    """The release label burnysc2's version table gives ``data_hash`` (None when it has none)."""
    from sc2.versions import VERSIONS  # burnysc2 (a dependency): the table its launcher used

    for v in VERSIONS:
        if str(v.get("data-hash", "")).upper() == data_hash.upper():
            return str(v["label"])
    return None


def select(data_hash: str) -> str | None:
    """Serve the data of the release whose ``-dataVersion`` is ``data_hash`` (call before the data
    is first used: the server does it before it loads the simulation).

    Returns:
        The release's label, or None when burnysc2's table does not know the hash (the capture's
        data is served, with a warning).

    Raises:
        RuntimeError: the process already built its data (it would serve two versions at once).
    """
    global _selected
    from sc2pool.engine.data import client

    if client.response_data.cache_info().currsize:
        raise RuntimeError("the data version must be selected before the engine first uses its data")
    label = label_of(data_hash)
    if label is None:
        log.warning("-dataVersion %s is not a release burnysc2 knows; serving patch 5.0.11's data", data_hash)
        _selected = None
        return None
    _selected = label
    applied = [p.source for p in active()] + [r.source for r in active_rules()]
    log.warning("data version %s (release %s) asked for: serving patch 5.0.11's data with %d known "
                "difference(s) of that release (%s); other differences are not entered",
                data_hash, label, len(applied), "; ".join(applied) or "none")
    return label


def selected() -> str | None:
    """The release label being served (None: the capture's own)."""
    return _selected


def _version() -> Version | None:
    """The selected release as a version (None: none selected, or a label that is not numbers)."""
    if _selected is None:
        return None
    try:
        return parse(_selected)
    except ValueError:
        return None


def active() -> list[Patch]:
    """The patches of the selected release (none when none is selected)."""
    v = _version()
    return [] if v is None else [p for p in PATCHES if p.since <= v < p.until]


def active_rules() -> list[Rule]:
    """The rules of the selected release that differ from the capture's (none when none is selected)."""
    v = _version()
    return [] if v is None else [r for r in RULES if r.since <= v < r.until]


def rule(name: str) -> bool:
    """Whether the served release plays the rule ``name`` of :data:`RULES`."""
    return any(r.name == name for r in active_rules())


def reset() -> None:
    """Back to the capture's own data (tests; the caller clears the data caches)."""
    global _selected
    _selected = None
