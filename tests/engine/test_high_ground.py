"""A unit attacks only what its player sees (``sim/systems/targeting.py``, ``_unseen``): on a ladder
map a unit below a cliff cannot shoot one above it until something of its player sees up there
(LP:High_ground), while the unit above shoots down."""

from __future__ import annotations

import math
from typing import Any

from s2clientprotocol import sc2api_pb2 as sc_pb
from test_melee import TERRAN, joined
from test_reaper import _cliff

from sc2pool.engine import data as D

MEDIVAC = 54


def _duel(g: Any) -> tuple[int, int]:
    """Player 1's Marine on the high side of a cliff by its start, player 2's Marine below it,
    4 apart (within a Marine's range of 5 and sight of 9)."""
    w = g.world
    hi, lo = _cliff(g)
    d = math.dist(hi, lo)
    low = (hi[0] + (lo[0] - hi[0]) * 4.0 / d, hi[1] + (lo[1] - hi[1]) * 4.0 / d) if d > 4.0 else lo
    level = w.vision.level_grid()
    assert level[int(low[1]), int(low[0])] < level[int(hi[1]), int(hi[0])]
    [above] = w.spawn(D.MARINE, 1, [hi[0]], [hi[1]]).tolist()
    [below] = w.spawn(D.MARINE, 2, [low[0]], [low[1]]).tolist()
    return above, below


def _life(g: Any, tag: int) -> float:
    r = g.world.u.row(tag)
    return float(g.world.u.hp[r]) if r >= 0 else 0.0


def _game() -> Any:
    g = joined(second={"race": TERRAN})
    g.join(sc_pb.RequestJoinGame(race=TERRAN))
    return g


def test_the_unit_below_cannot_shoot_up_the_unit_above_shoots_down() -> None:
    g = _game()
    above, below = _duel(g)
    assert not g.world.vision.sees(2, g.world.u.x[[g.world.u.row(above)]], g.world.u.y[[g.world.u.row(above)]])[0]
    g.step(48)
    assert _life(g, above) == 45.0  # never hit
    assert _life(g, below) < 45.0  # shot from above


def test_a_spotter_above_lets_the_unit_below_shoot() -> None:
    g = _game()
    above, below = _duel(g)
    r = g.world.u.row(above)
    g.world.spawn(MEDIVAC, 2, [float(g.world.u.x[r])], [float(g.world.u.y[r])])  # flying: sees every level
    g.step(48)
    assert _life(g, above) < 45.0


def test_a_revealed_player_shoots_up_without_a_spotter() -> None:
    g = _game()
    above, below = _duel(g)
    g.world.vision.revealed.add(2)  # (the vision-cheating Computers)
    g.step(48)
    assert _life(g, above) < 45.0
