"""The workers' trips: the townhalls kept per player (``Harvest._townhalls``) give the same nearest
townhall and townhall map as a look at every structure, while townhalls are built, finish, lift
off, land, morph and die."""

from __future__ import annotations

import math

from game_helpers import command, joined
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.game import Game
from sc2pool.engine.sim.races import TOWNHALLS
from sc2pool.engine.sim.systems.construction import Structure
from sc2pool.engine.sim.systems.harvest import NEAR_TOWNHALL

BUILD_CC, LIFT_CC, LAND_CC, ORBITAL = 318, 417, 419, 1516
KILL = -1
"""A drawn action that debug-kills the unit of its index."""


def scan_nearest(g: Game, player: int, x: float, y: float) -> Structure | None:
    """The nearest ready townhall of ``player`` by a look at every structure (the reference)."""
    best, bd = None, math.inf
    for s in g.world.construction.structures.values():
        if s.unit_id in TOWNHALLS and s.owner == player and s.ready:
            d = (s.x - x) ** 2 + (s.y - y) ** 2
            if d < bd:
                best, bd = s, d
    return best


def scan_map(g: Game, player: int) -> tuple[dict[int, int], dict[int, int]]:
    """:meth:`Harvest.townhall_map` by the reference look."""
    ready = [t for t, s in g.world.construction.structures.items()
             if s.unit_id in TOWNHALLS and s.owner == player and s.ready]
    owner: dict[int, int] = {}
    ideal = dict.fromkeys(ready, 0)
    for res in g.world.harvest.resources.values():
        th = scan_nearest(g, player, res.x, res.y) if res.is_mineral else None
        if th is not None and (th.x - res.x) ** 2 + (th.y - res.y) ** 2 <= NEAR_TOWNHALL ** 2 + 1:
            owner[res.tag] = th.tag
            ideal[th.tag] += 2
    return owner, ideal


def check(g: Game) -> int:
    """Asserts the kept townhalls answer as the reference, at every unit and a few points; returns
    how many ready townhalls player 1 has."""
    h, u = g.world.harvest, g.world.u
    points = list(zip(u.x.tolist(), u.y.tolist(), strict=True)) + [(0.0, 0.0), (30.5, 30.5), (60.0, 10.0)]
    for player in (1, 2):
        for x, y in points:
            assert h.nearest_townhall(player, x, y) is scan_nearest(g, player, x, y)
        assert h.townhall_map(player) == scan_map(g, player)
    return sum(1 for s in g.world.construction.structures.values()
               if s.unit_id in TOWNHALLS and s.owner == 1 and s.ready)


def debug(g: Game, *tags: int, create: tuple[int, float, float] | None = None) -> None:
    req = sc_pb.RequestDebug()
    if tags:
        req.debug.add().kill_unit.tag.extend(tags)
    if create is not None:
        cu = req.debug.add().create_unit
        cu.unit_type, cu.owner, cu.quantity = D.COMMANDCENTER, create[0], 1
        cu.pos.x, cu.pos.y = create[1], create[2]
    g.debug(1, req)


def test_kept_townhalls_follow_building_lifting_landing_and_dying() -> None:
    g = joined("TerranEconomy.SC2Map")
    g.world.supply.minerals[1] = 5000
    cc = next(t for t, s in g.world.construction.structures.items() if s.unit_id == D.COMMANDCENTER)
    s = g.world.construction.structures[cc]
    scvs = [int(t) for t in g.world.u.tag[g.world.u.unit_id == D.SCV]]
    field = next(r.tag for r in g.world.harvest.resources.values() if r.is_mineral)
    g.action(1, command(295, scvs, target=field))
    g.step(40)
    assert check(g) == 1
    debug(g, create=(1, s.x + 12.0, s.y + 12.0))  # a second, ready townhall
    g.step(8)
    assert check(g) == 2
    g.action(1, command(LIFT_CC, [cc]))
    g.step(40)  # lifted: the workers carry to the other one
    assert check(g) == 1
    debug(g, create=(2, s.x - 20.0, s.y))  # (asked again while the flying one is no townhall)
    g.step(8)
    assert check(g) == 1
    g.action(1, command(LAND_CC, [cc], pos=(s.x, s.y)))
    g.step(80)
    assert check(g) == 2
    g.action(1, command(ORBITAL, [cc]))
    g.step(24)
    assert check(g) == 2
    g.step(600)  # the Orbital Command is done
    assert check(g) == 2
    other = next(t for t, x in g.world.construction.structures.items() if x.unit_id == D.COMMANDCENTER)
    debug(g, other)
    g.step(8)
    assert check(g) == 1
    g.action(1, command(BUILD_CC, scvs[:1], pos=(s.x - 12.5, s.y + 12.5)))
    for _ in range(40):  # built: under construction, then ready
        g.step(64)
        check(g)
    assert check(g) == 2


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions=st.lists(st.tuples(st.sampled_from([295, 296, BUILD_CC, LIFT_CC, LAND_CC, ORBITAL, D.STOP_STOP, KILL]),
                                  st.lists(st.integers(0, 30), max_size=3),
                                  st.tuples(st.floats(5, 60), st.floats(5, 60)),
                                  st.integers(-1, 30), st.integers(1, 96)), max_size=10))
def test_kept_townhalls_answer_as_a_look_at_every_structure(actions: list[tuple[int, list[int], tuple[float, float],
                                                                                 int, int]]) -> None:
    g = joined("TerranEconomy.SC2Map")
    g.world.supply.minerals[1] = 5000
    debug(g, create=(1, 30.5, 30.5))
    debug(g, create=(2, 50.5, 20.5))
    for ability, idx, pos, target, loops in actions:
        tags = g.world.u.tag.tolist()
        pick = [tags[i] for i in idx if i < len(tags)]
        if ability == KILL:
            debug(g, *pick)
        else:
            ttag = tags[target] if 0 <= target < len(tags) else 0
            g.action(1, command(ability, pick, pos if ability in (BUILD_CC, LAND_CC) else None, ttag))
        g.step(loops)
        check(g)


def test_a_structure_forgotten_at_the_same_unit_set_is_no_townhall_any_more() -> None:
    """A unit's removal changes the store's version before the construction forgets its structure:
    asked in between, the kept townhalls still see the count change."""
    g = joined("TerranEconomy.SC2Map")
    debug(g, create=(1, 30.5, 30.5))
    g.step(8)
    h, structures = g.world.harvest, g.world.construction.structures
    near = h.nearest_townhall(1, 30.0, 30.0)
    assert near is not None and (near.x, near.y) == (30.5, 30.5)
    del structures[near.tag]
    assert h.nearest_townhall(1, 30.0, 30.0) is scan_nearest(g, 1, 30.0, 30.0) is not near
    assert h.townhall_map(1) == scan_map(g, 1)
