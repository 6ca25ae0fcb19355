"""What the observation keeps between observations of the units' extra fields
(``World.unit_extras``): the resources' contents per row (``Harvest.contents_rows``), the flying
and burrowed flags and detection ranges per unit-set version (``Modes.extras``,
``Detection.extras``), a passenger's ``passengers`` entry once it cannot change
(``Transport.passenger_entry``), the food of the players' units (``Supply.food``), and the
workers' order bytes (``Workers.job_bytes``).  Each is
held to the same answer made from nothing, over a game that mines, loads and unloads a Medivac,
morphs, and loses units."""

from __future__ import annotations

import dataclasses

from test_economy import tags_of
from test_terran_tech import act, rich_eco

from sc2pool.engine import data as D
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.encode import wrap
from sc2pool.engine.sim.systems import workers as workers_mod
from sc2pool.engine.sim.world import World

MEDIVAC, VIKING_FIGHTER, RAVEN, GHOST, SUPPLYDEPOT_LOWERED = 54, 35, 56, 50, 47
LOAD_MEDIVAC, UNLOADALLAT_MEDIVAC, LOWER_DEPOT, BUILD_SUPPLYDEPOT = 394, 396, 556, 319


def _forget(w: World) -> None:
    """Drop everything the observation keeps, so that the next one makes it all again."""
    h = w.harvest
    h._contents_bytes = None
    h._contents_rows = None
    w.modes._flagged = (-1, [])
    w.detection._ranges = (-1, [])
    w.supply._units_food = (-1, {})
    for cg in w.transport.cargo.values():
        for p in cg.passengers:
            p.entry = b""


def _same_as_made_afresh(w: World) -> None:
    kept = [(w.unit_extras(player), w.supply.food(player)) for player in (1, 2)]
    entries = [p.entry for cg in w.transport.cargo.values() for p in cg.passengers]
    _forget(w)
    assert [(w.unit_extras(player), w.supply.food(player)) for player in (1, 2)] == kept
    again = [p.entry for cg in w.transport.cargo.values() for p in cg.passengers]
    assert [e for e in entries if e] == [e for e in again if e] and again == entries  # (kept as it was made)


def test_the_kept_extra_fields_and_food_are_those_made_afresh_as_the_game_changes() -> None:
    g, w = rich_eco()
    [m] = w.spawn(MEDIVAC, 1, [30.0], [30.0]).tolist()
    marines = [int(t) for t in w.spawn(D.MARINE, 1, [36.0, 38.0], [30.0, 30.0])]
    w.spawn(VIKING_FIGHTER, 2, [60.0], [60.0])
    w.spawn(RAVEN, 2, [62.0], [60.0])
    w.spawn(RAVEN, 1, [28.0], [28.0])
    depot = tags_of(g, D.SUPPLYDEPOT)[0]
    for t in marines:
        assert act(g, LOAD_MEDIVAC, [m], target=t, queue=False) == C.SUCCESS
        g.step(40)
        _same_as_made_afresh(w)
    assert len(w.transport.cargo[m].passengers) == 2
    for k in range(40):
        if k == 5:  # a morph: the depot's type (and so the food it provides) changes
            assert act(g, LOWER_DEPOT, [depot]) == C.SUCCESS
        if k == 10:  # a unit dies: the rows move
            w.u.hp[w.u.row(tags_of(g, D.SCV)[0])] = 0.0
        if k == 20:
            assert act(g, UNLOADALLAT_MEDIVAC, [m], (20.0, 20.0)) == C.SUCCESS
        g.step(8)
        _same_as_made_afresh(w)
    assert tags_of(g, SUPPLYDEPOT_LOWERED) == [depot]
    assert m not in w.transport.cargo and set(marines) <= set(w.u.tag.tolist())
    assert w.supply.collected_minerals[1] > 0  # (the fields' contents changed)


def test_a_passenger_entry_is_kept_once_it_cannot_change_and_made_afresh_while_it_can() -> None:
    g, w = rich_eco()
    zealot, marine, ghost = (int(w.spawn(t, 1, [30.0 + 2 * i], [30.0])[0]) for i, t in
                             enumerate((D.ZEALOT, D.MARINE, GHOST)))
    g.step(1)  # (the Ghost's energy starts)
    u = w.u
    u.shield[u.row(zealot)] = 10.0  # regenerating: a shield below its maximum
    u.hp[u.row(marine)] = 20.0  # hurt, but a Marine does not regenerate
    tr = w.transport
    ps = [tr.take(u.row(t)) for t in (zealot, marine, ghost)]
    assert ghost in w.abilities.energy  # (energy grows with the loop)
    seen: list[list[bytes]] = []
    for _ in range(3):
        got = [tr.passenger_entry(p) for p in ps]
        assert got == [wrap(24, tr.passenger_bytes(p)) for p in ps]
        seen.append(got)
        w.regeneration.until += 400
        w.loop += 400
    assert len({s[0] for s in seen}) == 3  # the Zealot's shield regenerates: never kept
    assert ps[0].entry == b"" and ps[2].entry == b""
    assert ps[1].entry == seen[0][1] == seen[2][1]  # the Marine's: kept
    # a passenger kept then given energy shows it
    p = dataclasses.replace(ps[1], tag=ghost)
    p.entry = ps[1].entry
    assert tr.passenger_entry(p) == wrap(24, tr.passenger_bytes(p)) != ps[1].entry


def _job_bytes_made_afresh(w: World) -> dict[int, bytes]:
    """Each job's :meth:`Workers.job_bytes` from nothing: no bytes kept on the job, none in the
    shared table of order bytes (emptied before each job, so that no job's bytes serve another)."""
    fresh = {}
    for tag, job in w.workers.jobs.items():
        workers_mod._ORDER_BYTES.clear()
        fresh[tag] = w.workers.job_bytes(dataclasses.replace(job, cache_key=(), cache_src=(), cache_bytes=b""))
    workers_mod._ORDER_BYTES.clear()
    return fresh


def test_the_kept_order_bytes_of_workers_are_those_made_afresh() -> None:
    g, w = rich_eco()
    scvs = tags_of(g, D.SCV)
    # two depots: the same build order at two sites (orders to a point are not shared)
    assert act(g, BUILD_SUPPLYDEPOT, [scvs[0]], (30.0, 40.0)) == C.SUCCESS
    assert act(g, BUILD_SUPPLYDEPOT, [scvs[1]], (34.0, 40.0)) == C.SUCCESS
    sites = set()
    for _ in range(60):
        g.step(8)
        kept = {tag: w.workers.job_bytes(job) for tag, job in w.workers.jobs.items()}
        assert kept == _job_bytes_made_afresh(w)
        sites.update(job.site for job in w.workers.jobs.values() if job.build == BUILD_SUPPLYDEPOT)
    assert len(sites) == 2  # (both builds were seen)
    assert w.supply.collected_minerals[1] > 0  # (trips: gather and return orders, with and without cargo)
