"""Strategic Recall (``sim/systems/recall.py``) through the command path: the Nexus's (3757) and
the Mothership's (142), the generic 3686; who is recalled, where they land, the delay, the energy,
the cooldowns (the Nexus's for all the player's Nexuses, the Mothership's its own), the errors and
the abilities query (figures: ``data/recall.py``, from the LLM-PySC2 knowledge base)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from protoss_helpers import (
    NEXUS,
    PROBE,
    PYLON,
    STALKER,
    ZEALOT,
    act,
    away,
    create,
    mine,
    nexus,
    protoss_game,
    unit,
)
from test_terran_abilities import abilities

from sc2pool.engine import data as D
from sc2pool.engine.data import client
from sc2pool.engine.data import recall as R
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.units import TYPES

MOTHERSHIP, VOID_RAY, MARINE = 10, 80, 48
NEXUS_SPEC, MS_SPEC = R.RECALL[R.NEXUS_RECALL], R.RECALL[R.MOTHERSHIP_RECALL]


def spawn(g: Any, uid: int, x: float, y: float, owner: int = 1) -> int:
    [tag] = g.world.spawn(uid, owner, [x], [y]).tolist()
    return int(tag)


def at(g: Any, tag: int) -> tuple[float, float]:
    w = g.world
    r = w.u.row(tag)
    return float(w.u.x[r]), float(w.u.y[r])


def energy(g: Any, tag: int, value: float) -> None:
    g.world.abilities._register()
    g.world.abilities.energy[tag] = (value, g.world.loop, 200.0)


def scene(dist: float = 30.0) -> tuple[Any, Any, tuple[float, float]]:
    """A Protoss game on a ladder map, one step in: the game, its Nexus, a free point ``dist`` from
    the Nexus away from its minerals."""
    g = protoss_game()
    g.step(1)
    return g, nexus(g), away(g, dist)


def test_the_figures_are_the_sources() -> None:
    # LLM-PySC2 knowledge base: 2.5 radius, 50 energy, 0.4 s, 130 s; radius 5, 2 s, 89 s
    assert (NEXUS_SPEC.radius, NEXUS_SPEC.energy, NEXUS_SPEC.delay, NEXUS_SPEC.cooldown) == (2.5, 50.0, 9, 2912)
    assert NEXUS_SPEC.per_player and not MS_SPEC.per_player
    assert (MS_SPEC.radius, MS_SPEC.energy, MS_SPEC.delay, MS_SPEC.cooldown) == (5.0, 0.0, 45, 1994)
    assert (NEXUS_SPEC.caster, MS_SPEC.caster) == (NEXUS, MOTHERSHIP)
    for spec in (NEXUS_SPEC, MS_SPEC):  # the client's ability: a point, its range, the generic 3686
        data = client.ability(spec.ability)
        assert data.target == D.T_POINT and data.cast_range == spec.cast_range
        assert data.remaps_to_ability_id == R.GENERIC_RECALL
    assert client.ability(R.NEXUS_RECALL).link_name == "NexusMassRecall"
    assert "StrategicRecall" in client.ability(R.MOTHERSHIP_RECALL).friendly_name


def test_a_nexus_recalls_the_units_in_the_area_after_its_delay_keeping_their_tags() -> None:
    g, n, (x, y) = scene()
    w = g.world
    inside = [spawn(g, ZEALOT, x, y), spawn(g, STALKER, x + 1.5, y), spawn(g, VOID_RAY, x, y - 2.0)]
    outside = spawn(g, ZEALOT, x + 4.0, y)
    enemy = spawn(g, MARINE, x - 1.5, y, owner=2)
    pylon = create(g, PYLON, (x + 0.0, y + 2.0))  # a structure in the area stays
    for t in (*inside, outside, enemy):
        w.u.can_attack[w.u.row(t)] = False
    g.step(1)
    w.command(1, D.MOVE_MOVE, [inside[0]], (x - 10.0, y), 0, False)
    w.command(1, D.MOVE_MOVE, [inside[0]], (x - 10.0, y - 5.0), 0, True)  # (a queued order too)
    before = {t: at(g, t) for t in (*inside, outside, enemy, pylon)}
    e0 = w.abilities.energy_of(n.tag)
    assert e0 >= NEXUS_SPEC.energy
    assert act(g, R.NEXUS_RECALL, [n.tag], (x, y)) == C.SUCCESS
    assert w.abilities.energy_of(n.tag) == pytest.approx(e0 - NEXUS_SPEC.energy)  # paid at the cast
    assert [o.ability_id for o in unit(g, n.tag).orders] == [R.NEXUS_RECALL]  # its order meanwhile
    g.step(NEXUS_SPEC.delay - 1)
    for t in inside[1:]:
        assert at(g, t) == pytest.approx(before[t])  # not yet
    g.step(1)
    assert not unit(g, n.tag).orders
    for t in (outside, enemy, pylon):
        assert at(g, t) == pytest.approx(before[t], abs=0.6)  # outside, another player's, a structure
    nx, ny = n.pos.x, n.pos.y
    for t in inside:
        got = unit(g, t)  # the same tag, alive, idle
        assert not got.orders
        gap = math.hypot(got.pos.x - nx, got.pos.y - ny)
        assert gap < n.radius + got.radius + 1.5, (t, gap)  # round the Nexus
    # the air unit kept its offset from the point, round the Nexus's centre
    assert at(g, inside[2]) == pytest.approx((nx, ny - 2.0))
    assert {u.tag for u in mine(g)} >= set(inside)
    assert inside[0] not in w.u.queues  # (its queued move was dropped too)


def test_recalled_ground_units_land_on_free_pathable_spots_apart() -> None:
    g, n, (x, y) = scene()
    w = g.world
    tags = w.spawn(ZEALOT, 1, [x] * 7, [y] * 7, free=True).tolist()
    g.step(1)
    assert act(g, R.NEXUS_RECALL, [n.tag], (x, y)) == C.SUCCESS
    inside = [t for t in tags if math.dist(at(g, t), (x, y)) <= NEXUS_SPEC.radius]
    assert len(inside) >= 5
    g.step(NEXUS_SPEC.delay)
    pts = np.array([at(g, t) for t in inside])
    r = float(TYPES.radius[TYPES.row(ZEALOT)])
    for i in range(len(pts)):
        assert math.dist(pts[i], (n.pos.x, n.pos.y)) < 8.0  # at the Nexus
        for j in range(i):
            assert math.dist(pts[i], pts[j]) >= 2 * r - 1e-6  # no two on each other
    assert w.pathing.free_at(pts[:, 0], pts[:, 1]).all()  # on free cells (not in the Nexus's footprint)


def test_the_recall_cooldown_holds_for_all_the_players_nexuses_and_is_not_the_motherships() -> None:
    g, n, (x, y) = scene()
    w = g.world
    n2 = create(g, NEXUS, away(g, 20))
    ms = spawn(g, MOTHERSHIP, x - 15.0, y)
    z = spawn(g, ZEALOT, x, y)
    g.step(1)
    energy(g, n2, 200.0)
    assert R.NEXUS_RECALL in abilities(g, n.tag) and R.NEXUS_RECALL in abilities(g, n2)
    assert act(g, R.NEXUS_RECALL, [n.tag], (x, y)) == C.SUCCESS
    cast = w.loop
    assert act(g, R.NEXUS_RECALL, [n2], (x, y)) == C.COOLDOWN  # the other Nexus, with energy to spare
    assert w.abilities.energy_of(n2) == pytest.approx(200.0)  # (nothing paid)
    assert R.NEXUS_RECALL not in abilities(g, n.tag) and R.NEXUS_RECALL not in abilities(g, n2)
    # the Mothership's own recall does not wait for the Nexuses'
    assert R.MOTHERSHIP_RECALL in abilities(g, ms)
    assert act(g, R.MOTHERSHIP_RECALL, [ms], (x, y)) == C.SUCCESS
    g.step(cast + NEXUS_SPEC.cooldown - 1 - w.loop)
    assert act(g, R.NEXUS_RECALL, [n2], (x, y)) == C.COOLDOWN
    assert R.NEXUS_RECALL not in abilities(g, n2)
    g.step(1)
    assert R.NEXUS_RECALL in abilities(g, n2)
    assert act(g, R.NEXUS_RECALL, [n2], at(g, z)) == C.SUCCESS
    g.step(NEXUS_SPEC.delay)
    assert math.dist(at(g, z), at(g, n2)) < 5.0  # recalled to the Nexus that cast


def test_a_mothership_recalls_its_players_units_to_itself_and_waits_its_own_cooldown() -> None:
    g, n, (x, y) = scene()
    w = g.world
    mx, my = away(g, 11)  # (over free ground near the Nexus)
    ms = spawn(g, MOTHERSHIP, mx, my)
    near = [spawn(g, ZEALOT, x, y), spawn(g, ZEALOT, x - 4.0, y)]  # both within 5
    far = spawn(g, ZEALOT, x + 5.5, y)
    g.step(1)
    e0 = w.abilities.energy_of(ms)
    assert act(g, R.MOTHERSHIP_RECALL, [ms], (x, y)) == C.SUCCESS
    cast = w.loop
    assert w.abilities.energy_of(ms) == pytest.approx(e0)  # no energy (the source names none)
    assert [o.ability_id for o in unit(g, ms).orders] == [R.MOTHERSHIP_RECALL]
    assert R.MOTHERSHIP_RECALL not in abilities(g, ms)
    assert act(g, R.MOTHERSHIP_RECALL, [ms], (x, y)) == C.COOLDOWN
    # the Nexus's recall does not wait for the Mothership's
    assert act(g, R.NEXUS_RECALL, [n.tag], (x + 30.0, y)) == C.SUCCESS
    w.command(1, D.MOVE_MOVE, [ms], (mx, my - 10.0), 0, False)  # (waits for the recall: m)
    g.step(MS_SPEC.delay - 1)
    assert at(g, near[0]) == pytest.approx((x, y), abs=0.1)
    assert at(g, ms) == pytest.approx((mx, my))  # it channels where it stands
    g.step(1)
    assert [o.ability_id for o in unit(g, ms).orders] == [D.MOVE_MOVE]  # then goes on
    for t, dx in zip(near, (0.0, -4.0), strict=True):  # under the Mothership, at their offsets
        assert math.dist(at(g, t), (mx + dx, my)) < 1.5, t
    assert at(g, far) == pytest.approx((x + 5.5, y), abs=0.6)
    g.step(cast + MS_SPEC.cooldown - 1 - w.loop)
    assert act(g, R.MOTHERSHIP_RECALL, [ms], (x, y)) == C.COOLDOWN
    g.step(1)
    assert R.MOTHERSHIP_RECALL in abilities(g, ms)
    assert act(g, R.GENERIC_RECALL, [ms], (x, y)) == C.SUCCESS  # the generic id: its own recall
    assert [o.ability_id for o in unit(g, ms).orders] == [R.MOTHERSHIP_RECALL]


def test_units_that_cannot_go_stay() -> None:
    g, n, (x, y) = scene()
    w = g.world
    icpt = spawn(g, 85, x, y)  # an Interceptor goes with its Carrier
    prism = spawn(g, 136, x + 1.0, y)  # a Warp Prism in Phasing Mode cannot move
    shade = spawn(g, 801, x - 1.0, y)  # an Adept's shade (it cannot be touched)
    w.abilities.jumping.add(shade)
    hts = [spawn(g, 75, x, y + 1.0), spawn(g, 75, x + 1.0, y + 1.0)]  # merging into an Archon
    z = spawn(g, ZEALOT, x - 1.0, y - 1.0)
    g.step(1)
    assert act(g, 1766, hts) == C.SUCCESS
    before = {t: at(g, t) for t in (icpt, prism, shade, *hts)}
    assert act(g, R.NEXUS_RECALL, [n.tag], (x, y)) == C.SUCCESS
    g.step(NEXUS_SPEC.delay)
    assert math.dist(at(g, z), (n.pos.x, n.pos.y)) < 5.0  # (the recall took place)
    for t, p in before.items():
        assert math.dist(at(g, t), p) < 1.0, t


def test_a_motherships_recall_does_not_move_itself() -> None:
    g, _, _ = scene()
    mx, my = away(g, 11)
    ms = spawn(g, MOTHERSHIP, mx, my)
    z = spawn(g, ZEALOT, mx + 0.3, my)
    g.step(1)
    w = g.world
    w.u.x[w.u.row(z)], w.u.y[w.u.row(z)] = mx + 0.3, my
    w.touch()
    assert act(g, R.MOTHERSHIP_RECALL, [ms], (mx + 0.3, my)) == C.SUCCESS  # it is in its own area
    g.step(MS_SPEC.delay)
    assert at(g, ms) == pytest.approx((mx, my))
    # the Zealot lands at its offset, though it stood over that spot itself (it does not block it)
    assert at(g, z) == pytest.approx((mx, my))


def test_a_mothership_that_dies_during_the_delay_recalls_nobody() -> None:
    from protoss_helpers import kill

    g, _, (x, y) = scene()
    ms = spawn(g, MOTHERSHIP, x - 15.0, y)
    z = spawn(g, ZEALOT, x, y)
    g.step(1)
    assert act(g, R.MOTHERSHIP_RECALL, [ms], (x, y)) == C.SUCCESS
    g.step(10)
    kill(g, ms)
    g.step(MS_SPEC.delay)
    assert at(g, z) == pytest.approx((x, y), abs=0.1)


def test_errors_no_energy_no_caster_and_the_abilities_query() -> None:
    g, n, (x, y) = scene()
    w = g.world
    z = spawn(g, ZEALOT, x, y)
    g.step(1)
    energy(g, n.tag, NEXUS_SPEC.energy - 1.0)
    assert R.NEXUS_RECALL not in abilities(g, n.tag)
    assert act(g, R.NEXUS_RECALL, [n.tag], (x, y)) == C.NOT_ENOUGH_ENERGY
    assert act(g, R.GENERIC_RECALL, [n.tag], (x, y)) == C.NOT_ENOUGH_ENERGY
    # not the caster's ability: as an ability no system simulates, as before
    assert act(g, R.NEXUS_RECALL, [z], (x, y)) == C.NOT_SUPPORTED
    assert act(g, R.MOTHERSHIP_RECALL, [n.tag], (x, y)) == C.NOT_SUPPORTED
    g.step(1)
    assert at(g, z) == pytest.approx((x, y), abs=0.1)
    energy(g, n.tag, NEXUS_SPEC.energy)
    assert R.NEXUS_RECALL in abilities(g, n.tag)
    # an unfinished Nexus cannot recall (m)
    sx, sy = away(g, 20)
    half = w.construction.add_structure(NEXUS, 1, sx + 0.5, sy + 0.5, ready=False)
    g.step(1)
    assert not w.construction.structures[half].ready
    energy(g, half, 200.0)
    assert R.NEXUS_RECALL not in abilities(g, half)
    assert act(g, R.NEXUS_RECALL, [half], (x, y)) == C.BUILDING_IS_UNDER_CONSTRUCTION


def test_the_generic_id_and_a_point_off_the_map_recall_at_the_clamped_point() -> None:
    g, n, _ = scene()
    w = g.world
    x0, y0, _, _ = w.map.playable
    vr = spawn(g, VOID_RAY, x0 + 1.0, y0 + 1.0)  # (an air unit: the corner need not be pathable)
    g.step(1)
    assert act(g, R.GENERIC_RECALL, [n.tag], (x0 - 40.0, y0 - 40.0)) == C.SUCCESS
    assert [o.ability_id for o in unit(g, n.tag).orders] == [R.NEXUS_RECALL]
    g.step(NEXUS_SPEC.delay)
    assert math.dist(at(g, vr), (n.pos.x, n.pos.y)) < 2.0
    # a unit as the target: its point (m)
    x, y = away(g, 30)
    z = spawn(g, ZEALOT, x, y)
    g.step(NEXUS_SPEC.cooldown)
    assert act(g, R.NEXUS_RECALL, [n.tag], target=z) == C.SUCCESS
    g.step(NEXUS_SPEC.delay)
    assert math.dist(at(g, z), (n.pos.x, n.pos.y)) < 5.0


def test_recalled_probes_leave_their_jobs_and_keep_their_tags() -> None:
    g, n, _ = scene()
    w = g.world
    g.step(40)
    probes = [p for p in mine(g, PROBE) if p.orders]
    p = probes[0]
    x, y = p.pos.x, p.pos.y
    nx, ny = n.pos.x, n.pos.y
    # a second Nexus far away recalls the Probe from the mineral line
    n2 = create(g, NEXUS, away(g, 25))
    g.step(1)
    energy(g, n2, 200.0)
    assert act(g, R.NEXUS_RECALL, [n2], (x, y)) == C.SUCCESS
    g.step(NEXUS_SPEC.delay)
    got = unit(g, p.tag)
    assert math.dist((got.pos.x, got.pos.y), at(g, n2)) < 6.0
    assert math.dist((got.pos.x, got.pos.y), (nx, ny)) > 10.0
    assert p.tag not in w.workers.jobs  # it left its job: idle where it landed
    assert not got.orders


def test_of_several_casters_the_first_that_may_cast_recalls_alone() -> None:
    g, n, (x, y) = scene()
    w = g.world
    n2 = create(g, NEXUS, away(g, 20))
    z = spawn(g, ZEALOT, x, y)
    g.step(1)
    energy(g, n.tag, 10.0)
    energy(g, n2, 200.0)
    assert act(g, R.NEXUS_RECALL, [n.tag, n2], (x, y)) == C.SUCCESS  # the first has no energy
    assert w.abilities.energy_of(n.tag) == pytest.approx(10.0)
    assert w.abilities.energy_of(n2) == pytest.approx(200.0 - NEXUS_SPEC.energy)
    g.step(NEXUS_SPEC.delay)
    assert math.dist(at(g, z), at(g, n2)) < 5.0
