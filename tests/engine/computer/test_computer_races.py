"""The melee Computer's race profiles (``sc2pool.engine.computer.races``) and its Protoss and Zerg
decisions.

The profiles are checked against the tech tree (``data.tech``): every id exists and does what the
profile says, with the race's ``how``.  The decisions are checked on a stand-in world until the
engine simulates the Zerg and Protoss economies: a Terran melee game whose player 2 is relabelled
(its Command Center a Nexus or a Hatchery, its SCVs Probes or Drones, a few units Zerg larvae),
its commands caught by a fake sink that accepts them, its placement answered for a Protoss or Zerg
structure as for the Terran one of the same footprint.  What such a test shows is which commands
the Computer gives (abilities, units, targets), not what the engine makes of them.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_computer_melee import melee, play_until  # noqa: E402

from sc2pool.engine import data as D  # noqa: E402
from sc2pool.engine.computer import levels as L  # noqa: E402
from sc2pool.engine.computer import races as R  # noqa: E402
from sc2pool.engine.computer.melee import MeleeComputer  # noqa: E402
from sc2pool.engine.data import tech as T  # noqa: E402
from sc2pool.engine.game import Game  # noqa: E402
from sc2pool.engine.sim.commands import SUCCESS  # noqa: E402
from sc2pool.engine.sim.systems.construction import Structure  # noqa: E402

HOW = {D.TERRAN: "terran", D.ZERG: "zerg", D.PROTOSS: "protoss"}
"""``data.tech.BUILD``'s ``how`` per race."""


def _builds(p: R.RaceProfile) -> list[L.Build]:
    return [p.simple, *p.builds.values()]


# ------------------------------------------------------------------------------- the profiles
@pytest.mark.parametrize("race", sorted(R.PROFILES))
def test_every_id_of_a_profile_is_the_clients_and_does_what_the_profile_says(race: int) -> None:
    p = R.PROFILES[race]
    assert p.race == race
    assert T.generic(p.gather) == 3666  # a gather ability (HARVEST_GATHER is its generic form)
    w = T.TRAIN[p.worker_train]
    assert w.unit_id == p.worker and w.how == p.worker_from
    if p.worker_from == R.QUEUE:
        assert set(w.producers) & set(p.townhalls)
    th = T.BUILD[p.townhall_build]
    assert th.unit_id == p.townhalls[0] and th.how == HOW[race] and p.worker in th.builders
    for name, role in p.roles.items():
        b = T.BUILD[role.ability]
        assert b.unit_id == role.unit and b.how == HOW[race] and p.worker in b.builders, name
        assert b.on_geyser == (name == L.REFINERY), name
        # what the client requires first is what the profile waits for (Protoss also needs power;
        # the townhall every player starts with needs no wait)
        for need in b.requires.structures:
            if p.townhalls[0] in T.satisfies(need):
                continue
            assert role.needs in T.satisfies(need) or need in T.satisfies(role.needs), (name, need)
        size = 2 if D.unit_spec(role.unit).radius < 1.5 else 3
        assert role.size == size, name
        assert role.powered == (race == D.PROTOSS and name not in (L.DEPOT, L.REFINERY)), name
        assert role.creep == (race == D.ZERG and name != L.REFINERY), name
    for unit, ability in p.train.items():
        t = T.TRAIN[ability]
        assert t.unit_id == unit and t.how == p.army_from, unit
        if p.army_from == R.QUEUE:  # (its producer is one of the profile's production structures)
            assert set(t.producers) & {p.roles[r].unit for r in p.production}, unit
    if p.supply_train:
        t = T.TRAIN[p.supply_train]
        assert t.how == "larva" and t.unit_id == p.supply_unit and D.unit_spec(p.supply_unit).food_provided > 0
        assert L.DEPOT not in p.roles
    else:
        assert p.roles[L.DEPOT].unit == p.supply_unit and D.unit_spec(p.supply_unit).food_provided > 0
    if p.queen:
        q = T.TRAIN[p.queen_train]
        assert q.unit_id == p.queen and q.how == "queue" and set(q.producers) >= set(p.townhalls)
        from sc2pool.engine.data import client

        assert client.ability(p.inject).ability_id == p.inject


@pytest.mark.parametrize("race", sorted(R.PROFILES))
def test_every_build_names_roles_and_units_of_its_race_and_can_make_them(race: int) -> None:
    """Each build's opener, production and units belong to the race, and every unit it trains has
    its required structures among what the build makes (its roles, the townhall, its morphs)."""
    p = R.PROFILES[race]
    assert set(p.builds) == {L.RUSH, L.TIMING, L.POWER, L.MACRO, L.AIR}
    assert set(p.random_choices) <= set(p.builds)
    for b in _builds(p):
        tech = b.tech
        assert tech is not None or race == D.TERRAN, b.name
        for _, what in b.opener:
            assert what == L.DEPOT or what in p.roles, (b.name, what)
        if tech is None:
            continue
        made = {p.townhalls[0], *(p.roles[w].unit for w, _ in tech.per_base)}
        for src, ability in tech.morphs:
            m = T.MORPH[ability]
            assert src in m.sources and set(m.requires.structures) <= made
            made.add(m.unit_id)
        for w, _ in tech.per_base:
            assert w in p.production, (b.name, w)
            assert p.roles[w].needs == 0 or any(n in T.satisfies(p.roles[w].needs) for n in made) or \
                p.roles[w].needs == p.supply_unit, (b.name, w)
        for (producer, _), units in tech.trains:
            assert producer in p.production or (producer == R.LARVA and p.army_from == R.LARVA), (b.name, producer)
            for c in units:
                assert c.unit in p.train, (b.name, c.unit)
                for need in T.TRAIN[p.train[c.unit]].requires.structures:
                    # (or, for a top-tier unit, one it works its way to: MeleeComputer.unlock / obtain)
                    ok = _reachable(p, need, made) if c.from_level else any(n in T.satisfies(need) for n in made)
                    assert ok, (b.name, c.unit, need)


def _reachable(p: R.RaceProfile, unit_type: int, made: set[int], depth: int = 0) -> bool:
    """Whether ``MeleeComputer.obtain`` can work its way from ``made`` to a structure of ``unit_type``:
    by its role once what the role needs is reachable, or by a townhall morph."""
    if any(n in T.satisfies(unit_type) for n in made):
        return True
    if depth > 4:
        return False
    role = p.role_of(unit_type)
    if role:
        need = p.roles[role].needs
        return not need or _reachable(p, need, made, depth + 1)
    spec = next((m for m in T.MORPH.values() if m.unit_id == unit_type and m.kind == "upgrade"), None)
    return spec is not None and all(_reachable(p, r, made, depth + 1) for r in spec.requires.structures) and \
        any(_reachable(p, src, made, depth + 1) for src in spec.sources)


def test_pick_race_draws_random_by_the_seeded_generator() -> None:
    rng = np.random.default_rng(0)
    assert R.pick_race(D.TERRAN, rng) == D.TERRAN and R.pick_race(D.ZERG, rng) == D.ZERG
    # Terran alone simulated: a Random Computer is Terran without a draw (the generator untouched)
    before = rng.bit_generator.state
    assert R.pick_race(D.RANDOM, rng, simulated=(D.TERRAN,)) == D.TERRAN
    assert rng.bit_generator.state == before
    got = [R.pick_race(D.RANDOM, np.random.default_rng(s)) for s in range(30)]
    assert set(got) == {D.TERRAN, D.ZERG, D.PROTOSS}
    assert got == [R.pick_race(D.RANDOM, np.random.default_rng(s)) for s in range(30)]  # (seeded)
    with pytest.raises(ValueError, match="unknown race 9"):
        R.pick_race(9, rng)


def test_a_terran_computer_keeps_its_builds() -> None:
    c = MeleeComputer(2, L.HARD, L.AIR, melee(L.MEDIUM).scenario)  # type: ignore[arg-type]
    assert c.race is R.TERRAN_PROFILE and c.build is L.BUILDS[L.AIR]


# ------------------------------------------------------------------------------- the stand-in world
class Sink:
    """Catches the Computer's commands (and accepts them: a unit trained in a structure's queue
    enters the queue, as the engine's production does)."""

    def __init__(self, g: Game) -> None:
        self.g = g
        self.got: list[tuple[int, tuple[int, ...], tuple[float, float] | None, int]] = []

    def __call__(self, player: int, ability: int, tags: list[int], pos: tuple[float, float] | None, target: int,
                 queue: bool) -> int:
        assert player == 2
        self.got.append((ability, tuple(tags), pos, target))
        t = T.train(ability)
        if t is not None and t.how == "queue":
            self.g.world.construction.structures[tags[0]].queue.append(t.unit_id)
        return SUCCESS

    def of(self, ability: int) -> list[tuple[int, tuple[int, ...], tuple[float, float] | None, int]]:
        return [c for c in self.got if c[0] == ability]


_SAME_FOOTPRINT = {2: 319, 3: 321, 5: 318}


def stand_in(race: int, monkeypatch: pytest.MonkeyPatch, build: int = L.RANDOM_BUILD, difficulty: int = L.HARD,
             larvae: int = 3, queens: int = 0, minerals: int = 2000) -> tuple[Game, MeleeComputer, Sink]:
    """A Terran game whose player 2 is relabelled as ``race`` (see the module docstring), 5 game
    seconds in (its workers mining), with a Computer of that race for player 2 and its sink."""
    g = melee(L.MEDIUM, seed=3)
    play_until(g, 5)
    w = g.world
    p = R.PROFILES[race]
    th = next(s for s in w.construction.structures.values() if s.owner == 2)
    larva_tags = queen_tags = np.zeros(0, dtype=np.int64)
    if race == D.ZERG:  # (spawned first: the store may grow, which keeps only its own columns)
        larva_tags = w.spawn(D.MARINE, 2, np.full(larvae, th.x), np.full(larvae, th.y - 3.5), free=True)
        queen_tags = w.spawn(D.MARINE, 2, np.full(queens, th.x + 3.5), np.full(queens, th.y), free=True)
    u = w.u
    th.unit_id = p.townhalls[0]
    th.queue.clear()  # (the SCV in training)
    th.starts.clear()
    u.unit_id[u.row(th.tag)] = p.townhalls[0]
    workers = (u.owner == 2) & (u.unit_id == D.SCV)
    u.unit_id[workers] = p.worker
    u.unit_id[u.rows(larva_tags)] = R.LARVA_T
    u.unit_id[u.rows(queen_tags)] = R.QUEEN
    sink = Sink(g)
    monkeypatch.setattr(w, "command", sink)
    check = w.placement.check

    def placement(ability: int, x: float, y: float) -> int:
        b = T.BUILD[ability]
        if b.on_geyser:
            return check(320, x, y)
        size = 5 if b.unit_id in p.townhalls else 2 if D.unit_spec(b.unit_id).radius < 1.5 else 3
        return check(_SAME_FOOTPRINT[size], x, y)

    monkeypatch.setattr(w.placement, "check", placement)
    # (the game's own Terran Computer stands down: this one decides for player 2)
    g.scenario.computers = []  # type: ignore[attr-defined]
    c = MeleeComputer(2, difficulty, build, g.scenario, race=race)  # type: ignore[arg-type]
    w.supply.minerals[2] = minerals
    w.supply.vespene[2] = 1000
    w.supply.collected_minerals[2] = 5000  # (the lower levels' share of their income allows it all)
    w.supply.collected_vespene[2] = 5000
    return g, c, sink


def set_food(g: Game, monkeypatch: pytest.MonkeyPatch, used: int, cap: int) -> None:
    food = g.world.supply.food
    monkeypatch.setattr(g.world.supply, "food", lambda pid: (used, cap) if pid == 2 else food(pid))


def decide(g: Game, c: MeleeComputer) -> None:
    """One decision of the Computer now (economy and army)."""
    c.next_loop = c.economy_at = 0
    c.act(g.world)


def add_structure(g: Game, unit_id: int, x: float, y: float, ready: bool = True) -> Structure:
    """A structure of player 2 in the construction system's table (where the Computer looks)."""
    w = g.world
    tag = max(w.construction.structures) + 1000 + len(w.construction.structures)
    s = Structure(tag, unit_id, 2, x, y, build_loops=100.0, done=100.0 if ready else 0.0)
    w.construction.structures[tag] = s
    return s


def _home(g: Game) -> tuple[float, float]:
    return g.scenario.starts[2]  # type: ignore[attr-defined,no-any-return]


def _workers(g: Game, race: int) -> set[int]:
    u = g.world.u
    return set(u.tag[(u.owner == 2) & (u.unit_id == R.PROFILES[race].worker)].tolist())


# ------------------------------------------------------------------------------- Protoss
def test_protoss_trains_probes_from_the_nexus_and_builds_a_pylon_before_a_gateway(monkeypatch: pytest.MonkeyPatch) -> None:
    g, c, sink = stand_in(D.PROTOSS, monkeypatch, difficulty=L.EASY)
    assert c.build is R.P_SIMPLE
    nexus = next(s for s in g.world.construction.structures.values() if s.owner == 2)
    set_food(g, monkeypatch, 16, 31)
    decide(g, c)
    assert [c_[1] for c_ in sink.of(1006)] == [(nexus.tag,)]  # a Probe from the Nexus
    pylons = sink.of(881)
    assert len(pylons) == 1 and pylons[0][1][0] in _workers(g, D.PROTOSS) and pylons[0][2] is not None
    assert not sink.of(883)  # (no Gateway before a Pylon stands)
    # the Pylon is warped in and the Probe leaves: still no Gateway until it is finished
    px, py = pylons[0][2]
    pylon = add_structure(g, R.PYLON, px, py, ready=False)
    sink.got.clear()
    decide(g, c)
    assert not sink.of(883) and not sink.of(881)
    pylon.done = pylon.build_loops
    decide(g, c)
    gates = sink.of(883)
    assert gates  # (the opener's, and a second one: its build has two per base and the money)
    for _, (probe,), spot, _ in gates:
        assert spot is not None and math.hypot(spot[0] - px, spot[1] - py) <= R.POWER_RADIUS  # powered
        assert probe in _workers(g, D.PROTOSS)


def test_protoss_gateways_train_zealots_then_sentries_and_adepts_once_a_cybernetics_core_stands(
        monkeypatch: pytest.MonkeyPatch) -> None:
    g, c, sink = stand_in(D.PROTOSS, monkeypatch, build=L.TIMING)
    c.step = len(c.build.opener)
    hx, hy = _home(g)
    add_structure(g, R.PYLON, hx + 6, hy + 6)
    gates = [add_structure(g, R.GATEWAY_T, hx + 9, hy + 9 + 4 * k) for k in range(3)]
    set_food(g, monkeypatch, 30, 60)
    decide(g, c)
    trained = sink.of(916) + sink.of(917)
    assert {t[1][0] for t in trained} == {s.tag for s in gates}
    assert sink.of(916) and not sink.of(917)  # (no Cybernetics Core: Zealots only)
    assert sink.of(894)  # (the tech chain: a Cybernetics Core next)
    # the Core stands (the orders are carried out), the Gateways are idle again
    for s in gates:
        s.queue.clear()
    add_structure(g, R.CYBERCORE_T, hx + 12, hy + 3)
    add_structure(g, R.ASSIMILATOR, *sink.of(882)[0][2] or (0.0, 0.0))
    c.ordered.clear()
    g.world.supply.minerals[2] = 390  # (not so rich that it wants a 4th Gateway)
    sink.got.clear()
    decide(g, c)
    assert len(sink.of(921)) == 2 and sink.of(922)  # two Sentries, the build's first choice, then Adepts


# ------------------------------------------------------------------------------- Zerg
def test_zerg_morphs_drones_and_an_overlord_from_larvae(monkeypatch: pytest.MonkeyPatch) -> None:
    g, c, sink = stand_in(D.ZERG, monkeypatch, difficulty=L.EASY, larvae=8)
    assert c.build is R.Z_SIMPLE
    larvae = set(g.world.u.tag[g.world.u.unit_id == R.LARVA_T].tolist())
    set_food(g, monkeypatch, 13, 14)
    decide(g, c)
    drones, overlords = sink.of(1342), sink.of(1344)
    assert len(drones) == 1 and len(overlords) == 1  # 13/14: one Drone, then the 13 Overlord
    used = [d[1][0] for d in drones + overlords]
    assert set(used) <= larvae and len(set(used)) == 2  # each from its own larva
    assert not sink.of(524) and not sink.of(1006)
    # the eggs are remembered: no more Overlords at once than 1 + its Hatcheries
    for _ in range(3):
        decide(g, c)
    assert len(sink.of(1344)) == 2


def test_zerg_builds_a_spawning_pool_on_creep_with_a_drone_then_zerglings_and_a_queen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    g, c, sink = stand_in(D.ZERG, monkeypatch, build=L.RUSH, larvae=6, minerals=500)
    hatch = next(s for s in g.world.construction.structures.values() if s.owner == 2)
    set_food(g, monkeypatch, 12, 14)
    decide(g, c)
    pools = sink.of(1155)
    assert len(pools) == 1 and pools[0][1][0] in _workers(g, D.ZERG)
    x, y = pools[0][2]  # type: ignore[misc]
    assert math.hypot(x - hatch.x, y - hatch.y) <= R.CREEP_REACH
    assert not sink.of(1343)  # (no Zerglings before the pool)
    # the drone became the pool (consumed); once it is finished: Zerglings from larvae, a Queen
    g.world.u.owner[g.world.u.row(pools[0][1][0])] = 1  # (gone from its side)
    add_structure(g, R.POOL_T, x, y)
    c.step = len(c.build.opener)
    set_food(g, monkeypatch, 16, 22)
    sink.got.clear()
    decide(g, c)
    lings = sink.of(1343)
    assert lings and all(t[1][0] in set(g.world.u.tag[g.world.u.unit_id == R.LARVA_T].tolist()) for t in lings)
    assert [q[1] for q in sink.of(1632)] == [(hatch.tag,)]


def test_zerg_power_build_morphs_a_lair_for_its_hydralisk_den(monkeypatch: pytest.MonkeyPatch) -> None:
    g, c, sink = stand_in(D.ZERG, monkeypatch, build=L.POWER, queens=1, minerals=500)
    hatch = next(s for s in g.world.construction.structures.values() if s.owner == 2)
    c.step = len(c.build.opener)
    c.build = dataclasses.replace(c.build, expand_s=(math.inf,))
    add_structure(g, R.POOL_T, hatch.x + 7, hatch.y + 2)
    add_structure(g, R.WARREN_T, hatch.x - 7, hatch.y + 2)
    set_food(g, monkeypatch, 30, 60)
    decide(g, c)
    assert [m[1] for m in sink.of(R.LAIR_MORPH)] == [(hatch.tag,)]
    assert not sink.of(1157)  # (the den waits for the Lair)
    hatch.unit_id = R.LAIR
    sink.got.clear()
    decide(g, c)
    assert sink.of(1157)


def test_a_probe_order_counts_as_under_way_until_its_structure_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Probe is free once it has warped a structure in, so the Computer remembers its order (money
    kept, spot taken) until the structure stands, and forgets it once the Probe is back at work
    without one."""
    g, c, sink = stand_in(D.PROTOSS, monkeypatch, build=L.TIMING)
    set_food(g, monkeypatch, 14, 15)
    decide(g, c)
    (pylon,) = sink.of(881)
    tag = pylon[1][0]
    assert tag in c.ordered
    sink.got.clear()
    decide(g, c)
    assert not sink.of(881) and c.reserved[0] >= 100  # (not a second Pylon: the first is under way)
    add_structure(g, R.PYLON, *pylon[2], ready=False)  # type: ignore[misc]
    decide(g, c)
    assert tag not in c.ordered


def test_a_queen_with_the_energy_puts_spawn_larva_on_the_nearest_hatchery(monkeypatch: pytest.MonkeyPatch) -> None:
    g, c, sink = stand_in(D.ZERG, monkeypatch, build=L.TIMING, queens=1)
    hatch = next(s for s in g.world.construction.structures.values() if s.owner == 2)
    queen = int(g.world.u.tag[g.world.u.unit_id == R.QUEEN][0])
    energy = {queen: 10.0}
    monkeypatch.setattr(g.world.abilities, "energy_of", lambda tag, loop=None: energy.get(tag, 0.0))
    decide(g, c)
    assert not sink.of(R.INJECT_LARVA)  # (25 energy needed)
    energy[queen] = 30.0
    decide(g, c)
    assert [(i[1], i[3]) for i in sink.of(R.INJECT_LARVA)] == [((queen,), hatch.tag)]


@pytest.mark.parametrize("race", [D.ZERG, D.PROTOSS])
def test_idle_workers_are_sent_mining_with_their_races_gather(race: int, monkeypatch: pytest.MonkeyPatch) -> None:
    g, c, sink = stand_in(race, monkeypatch)
    u = g.world.u
    probe = int(u.tag[(u.owner == 2) & (u.unit_id == R.PROFILES[race].worker)][0])
    g.world.workers.jobs.pop(probe, None)
    u.kind[u.row(probe)] = 0  # IDLE
    decide(g, c)
    gathers = [x for x in sink.got if probe in x[1]]
    assert gathers and gathers[0][0] == R.PROFILES[race].gather
    assert T.generic(R.PROFILES[race].gather) == 3666  # (HARVEST_GATHER: the client's generic remap)


def test_a_not_simulated_ability_is_not_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine without Spawn Larva answers NOT_SUPPORTED: the Computer stops asking."""
    g, c, sink = stand_in(D.ZERG, monkeypatch, build=L.TIMING, queens=1)
    monkeypatch.setattr(g.world.abilities, "energy_of", lambda tag, loop=None: 50.0)

    def refuse(player: int, ability: int, tags: list[int], pos: tuple[float, float] | None, target: int,
               queue: bool) -> int:
        sink(player, ability, tags, pos, target, queue)
        return 2 if ability == R.INJECT_LARVA else SUCCESS  # NOT_SUPPORTED

    monkeypatch.setattr(g.world, "command", refuse)
    decide(g, c)
    decide(g, c)
    assert len(sink.of(R.INJECT_LARVA)) == 1 and R.INJECT_LARVA in c.refused


def test_a_protoss_structure_without_power_asks_for_a_pylon(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its Pylons gone (supply still ample): the Cybernetics Core its tech path wants next cannot be
    placed, so a Pylon is ordered first (once: not while one is on its way)."""
    g, c, sink = stand_in(D.PROTOSS, monkeypatch, build=L.TIMING, minerals=390)
    c.step = len(c.build.opener)
    hx, hy = _home(g)
    add_structure(g, R.GATEWAY_T, hx + 9, hy + 9)
    set_food(g, monkeypatch, 20, 40)
    decide(g, c)
    assert len(sink.of(881)) == 1 and not sink.of(894)
    decide(g, c)
    assert len(sink.of(881)) == 1
