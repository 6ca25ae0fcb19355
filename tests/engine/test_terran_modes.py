"""Terran units and structures that change form (``sim/systems/modes.py``): siege mode with its
minimum range and splash, Hellion/Hellbat, Viking, Widow Mine, Thor; lifting off and landing with
the add-on left behind and taken over; what the observation and burnysc2 see of each."""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest
from test_economy import unit
from test_terran_tech import BARRACKS, act, rich_eco, tags_of

from sc2pool.engine import data as D
from sc2pool.engine.maps import SKIRMISH
from sc2pool.engine.sim import commands as C
from sc2pool.engine.sim.systems.modes import TRANSITION_LOOPS
from sc2pool.engine.sim.units import TYPES
from sc2pool.engine.sim.world import World

TANK, SIEGED = 33, 32
HELLION, HELLBAT, ARMORY = 53, 484, 29
VIKING_FIGHTER, VIKING_ASSAULT = 35, 34
MINE, MINE_BURROWED, DRILLING_CLAWS = 498, 500, 122
THOR, THOR_AP = 52, 691
LIBERATOR = 689
BARRACKS_FLYING, TECHLAB, BARRACKS_TECHLAB = 46, 5, 37
SIEGE, UNSIEGE, LIFT, LAND = 388, 390, 3679, 3678


def orders(g: Any, tag: int) -> list[int]:
    return [o.ability_id for o in unit(g, tag).orders]


def transition(g: Any, tag: int, ability: int, before: int, after: int, loops: int | None = None) -> None:
    """``ability`` turns ``tag`` from ``before`` into ``after`` in its transition time (or
    ``loops``), showing the ability as its order meanwhile, keeping its tag."""
    assert act(g, ability, [tag]) == C.SUCCESS
    loops = TRANSITION_LOOPS[ability] if loops is None else loops
    assert unit(g, tag).unit_type == before and orders(g, tag) == [ability]
    g.step(loops - 1)
    assert unit(g, tag).unit_type == before and orders(g, tag) == [ability]
    g.step(1)
    got = unit(g, tag)
    assert got.unit_type == after and got.tag == tag and not got.orders


def test_a_siege_tank_sieges_and_unsieges_in_its_times_and_cannot_move_sieged() -> None:
    g, w = rich_eco()
    [t] = w.spawn(TANK, 1, [30.0], [30.0]).tolist()
    assert TRANSITION_LOOPS[SIEGE] == 61 and TRANSITION_LOOPS[UNSIEGE] == 48  # 2.71 s, 2.14 s (LP)
    assert act(g, SIEGE, [t]) == C.SUCCESS
    assert act(g, 16, [t], (40.0, 30.0)) == C.SUCCESS  # waits for the change (queued behind it)
    g.step(61)
    got = unit(g, t)
    assert got.unit_type == SIEGED and orders(g, t) == [16]  # then takes the order ...
    g.step(20)
    assert (unit(g, t).pos.x, unit(g, t).pos.y) == (30.0, 30.0)  # ... and cannot carry it out
    act(g, 4, [t])  # stop
    assert act(g, 16, [t], (40.0, 30.0)) == C.ERROR  # sieged: no move
    assert act(g, SIEGE, [t]) == C.ERROR  # already sieged
    transition(g, t, UNSIEGE, SIEGED, TANK)
    assert act(g, 16, [t], (40.0, 30.0)) == C.SUCCESS
    g.step(20)
    assert unit(g, t).pos.x > 30.0


def test_the_sieged_weapon_is_the_clients() -> None:
    s = TYPES.row(SIEGED)
    assert TYPES.range[s] == 13.0 and TYPES.speed[s] == 0.0
    assert TYPES.dmg[s, TYPES.row(D.MARINE)] == 40 and TYPES.dmg[s, TYPES.row(D.MARAUDER)] == 70


def _sieged_vs(*targets: tuple[int, int, float, float], loops: int = 120,
               attack: int = -1, upgrades: tuple[int, ...] = ()) -> tuple[World, list[int]]:
    """A sieged tank of player 1 at (20, 20) and ``targets`` (type, owner, x, y); steps ``loops``."""
    w = World(SKIRMISH)
    for upgrade in upgrades:
        w.research.grant(1, upgrade)
    w.spawn(SIEGED, 1, [20.0], [20.0])
    tags = [int(w.spawn(t, o, [x], [y])[0]) for t, o, x, y in targets]
    if attack >= 0:
        assert w.command(1, D.ATTACK_ATTACK, [int(w.u.tag[0])], None, tags[attack], False) == C.SUCCESS
    for _ in range(loops):
        w.step_loop()
    return w, tags


def _hp(w: World, tag: int) -> float:
    r = w.u.row(tag)
    return float(w.u.hp[r]) if r >= 0 else 0.0


def test_a_sieged_tank_hits_at_13_but_not_inside_its_minimum_range() -> None:
    edge = 0.875 + 0.375  # tank and marine radii
    w, [far] = _sieged_vs((D.MARINE, 2, 20.0 + edge + 12.99, 20.0), loops=10)
    assert _hp(w, far) == 45 - 40
    w, [near] = _sieged_vs((D.MARINE, 2, 20.0 + edge + 1.5, 20.0))
    assert _hp(w, near) == 45  # 1.5 < 2: it cannot fire at it
    w, [near] = _sieged_vs((D.MARINE, 2, 20.0 + edge + 1.5, 20.0), attack=0)
    assert _hp(w, near) == 45  # not even when ordered to
    # with one marine inside the minimum range and one outside, it shoots the one it can hit
    w, [near, far] = _sieged_vs((D.MARINE, 2, 20.0 + edge + 1.5, 20.0), (D.MARINE, 2, 20.0, 20.0 + edge + 8.0),
                                loops=10)
    assert _hp(w, near) == 45 and _hp(w, far) == 5


def test_the_sieged_shell_splashes_on_units_beside_its_target_friend_or_foe() -> None:
    tx = 30.0
    # Widow Mines (radius 0.5, 90 life, no weapon: nobody fights back): the target; an enemy mine
    # whose edge is 0.2 from the target's centre (100%); a friendly one at 0.5 (50%); an enemy
    # one at 0.9 (25%); one at 1.4 (out of the rings)
    w, [target, beside, friend, outer, out] = _sieged_vs(
        (MINE, 2, tx, 20.0), (MINE, 2, tx + 0.7, 20.0), (MINE, 1, tx, 21.0),
        (MINE, 2, tx, 18.6), (MINE, 2, tx + 1.9, 20.0), loops=10)
    assert _hp(w, target) == 90 - 40
    assert _hp(w, beside) == 90 - 40
    assert _hp(w, friend) == 90 - 20
    assert _hp(w, outer) == 90 - 10
    assert _hp(w, out) == 90


def test_the_splash_carries_the_tanks_weapon_upgrades() -> None:
    # Vehicle Weapons 1 (upgrade 30): the sieged shell deals 40 (+4) (LP:Siege_Tank); a Widow Mine
    # (Light, Mechanical, armor 0) takes 44 as the target, half of it at 0.5 from the target
    w, [target, friend] = _sieged_vs((MINE, 2, 30.0, 20.0), (MINE, 1, 30.0, 21.0), loops=10, upgrades=(30,))
    assert _hp(w, target) == 90 - 44
    assert _hp(w, friend) == 90 - 22


def test_hellion_becomes_a_hellbat_only_with_an_armory_and_back() -> None:
    g, w = rich_eco()
    [h] = w.spawn(HELLION, 1, [30.0], [30.0]).tolist()
    assert act(g, 1998, [h]) == C.TECH_REQUIREMENTS_NOT_MET
    w.construction.add_structure(ARMORY, 1, 30.5, 45.5)
    transition(g, h, 1998, HELLION, HELLBAT)
    assert TYPES.range[TYPES.row(HELLBAT)] == 2.0 and unit(g, h).health == 135  # the client's Hellbat
    transition(g, h, 1978, HELLBAT, HELLION)
    assert unit(g, h).health == 90


def test_viking_lands_into_assault_mode_and_flies_back_into_fighter_mode() -> None:
    g, w = rich_eco()
    [v] = w.spawn(VIKING_FIGHTER, 1, [30.0], [30.0]).tolist()
    assert unit(g, v).is_flying
    transition(g, v, 403, VIKING_FIGHTER, VIKING_ASSAULT)
    assert not unit(g, v).is_flying
    a = TYPES.row(VIKING_ASSAULT)
    assert TYPES.hits_ground[a] and not TYPES.hits_air[a]
    transition(g, v, 405, VIKING_ASSAULT, VIKING_FIGHTER)
    assert unit(g, v).is_flying


def test_widow_mine_burrows_with_the_generic_ability_and_thor_switches_modes() -> None:
    g, w = rich_eco()
    [m] = w.spawn(MINE, 1, [30.0], [30.0]).tolist()
    assert act(g, 3661, [m]) == C.SUCCESS  # BURROWDOWN, the generic ability burnysc2 may send
    assert orders(g, m) == [2095]
    g.step(TRANSITION_LOOPS[2095])
    assert unit(g, m).unit_type == MINE_BURROWED and unit(g, m).is_burrowed
    assert act(g, 16, [m], (35.0, 30.0)) == C.ERROR  # burrowed: it cannot move
    transition(g, m, 2097, MINE_BURROWED, MINE)
    [t] = w.spawn(THOR, 1, [40.0], [30.0]).tolist()
    transition(g, t, 2362, THOR, THOR_AP)
    transition(g, t, 2364, THOR_AP, THOR)


def test_drilling_claws_shortens_a_widow_mines_burrow_and_unburrow_from_3_to_1_07_seconds() -> None:
    from sc2pool.engine.data.units import TRANSITION_UPGRADES as UPGRADED_LOOPS

    base, fast = TRANSITION_LOOPS[2095], UPGRADED_LOOPS[2095][1]
    assert (base, fast) == (round(3 * 22.4), round(1.07 * 22.4))  # faster seconds (KB:LLM-PySC2)
    assert TRANSITION_LOOPS[2097] == base and UPGRADED_LOOPS[2097] == (DRILLING_CLAWS, fast)
    g, w = rich_eco()
    [m, late] = w.spawn(MINE, 1, [40.0, 44.0], [20.0, 20.0]).tolist()
    [enemy] = w.spawn(MINE, 2, [40.0], [10.0]).tolist()
    transition(g, m, 2095, MINE, MINE_BURROWED)  # without Drilling Claws: 3 s
    assert act(g, 3661, [late]) == C.SUCCESS  # burrowing when the research finishes: keeps its time (m)
    w.research.grant(1, DRILLING_CLAWS)
    assert w.command(2, 2095, [enemy], None, 0, False) == C.SUCCESS  # (the same loop, another owner)
    transition(g, m, 2097, MINE_BURROWED, MINE, loops=fast)  # with it: 1.07 s, unburrowing ...
    transition(g, m, 2095, MINE, MINE_BURROWED, loops=fast)  # ... and burrowing
    assert unit(g, late).unit_type == MINE and w.u.unit_id[w.u.row(enemy)] == MINE
    g.step(base - 2 * fast - 1)
    assert unit(g, late).unit_type == MINE and w.u.unit_id[w.u.row(enemy)] == MINE
    g.step(1)
    assert unit(g, late).unit_type == MINE_BURROWED  # the 3 s it started with
    assert w.u.unit_id[w.u.row(enemy)] == MINE_BURROWED  # the other player's mine: 3 s
    assert act(g, 3662, [late]) == C.SUCCESS  # the generic BURROWUP: 1.07 s now
    g.step(fast)
    assert unit(g, late).unit_type == MINE


def test_liberator_defender_mode_within_reach_starts_at_once() -> None:
    # (the zone and the approach: tests/engine/test_terran_spells.py)
    g, w = rich_eco()
    [lib] = w.spawn(LIBERATOR, 1, [30.0], [30.0]).tolist()
    assert act(g, 2558, [lib], (32.0, 30.0)) == C.SUCCESS
    assert orders(g, lib) == [2558]
    g.step(TRANSITION_LOOPS[2558])
    assert unit(g, lib).unit_type == 734


def test_a_barracks_lifts_off_leaving_its_add_on_and_takes_it_back_when_it_lands_beside_it() -> None:
    g, w = rich_eco()
    rax = w.construction.add_structure(BARRACKS, 1, 30.5, 40.5)
    assert act(g, 3682, [rax]) == C.SUCCESS
    assert act(g, LIFT, [rax]) == C.ERROR  # building its add-on: not idle
    g.step(400)
    [lab] = tags_of(g, BARRACKS_TECHLAB)
    assert act(g, 560, [rax]) == C.SUCCESS
    assert act(g, LIFT, [rax]) == C.ERROR  # training: not idle
    g.step(int(D.unit_spec(D.MARINE).build_time) + 1)
    # (the marine out of it would stand where the Barracks lands back; on the flat arenas ground
    # units and structures push each other, so it goes)
    w.remove_tags(tags_of(g, D.MARINE))
    transition(g, rax, 452, BARRACKS, BARRACKS_FLYING)
    assert orders(g, rax) == [] and unit(g, rax).is_flying and unit(g, rax).add_on_tag == 0
    assert unit(g, lab).unit_type == TECHLAB  # a free Tech Lab, standing where it was
    # (where it stood: the marine that came out pushed it a little, as units and structures push
    # each other on the flat arenas)
    assert math.hypot(unit(g, lab).pos.x - 33.0, unit(g, lab).pos.y - 40.0) < 0.5
    assert act(g, 560, [rax]) == C.ERROR  # flying: trains nothing
    # landing on another structure's spot is refused; an open spot is flown to, then landed on
    cc = tags_of(g, D.COMMANDCENTER)[0]
    assert act(g, 554, [rax], (unit(g, cc).pos.x, unit(g, cc).pos.y)) == C.CANT_BUILD_LOCATION_INVALID
    assert act(g, LAND, [rax], (30.4, 34.6)) == C.SUCCESS
    assert orders(g, rax) == [554]
    g.step(200)
    got = unit(g, rax)
    assert got.unit_type == BARRACKS and (got.pos.x, got.pos.y) == (30.5, 34.5) and got.add_on_tag == 0
    assert not got.is_flying
    # back over the free Tech Lab: it attaches and the Barracks can train what needs it again
    assert act(g, LIFT, [rax]) == C.SUCCESS
    g.step(TRANSITION_LOOPS[452])
    assert act(g, LAND, [rax], (30.5, 40.5)) == C.SUCCESS
    g.step(200)
    got = unit(g, rax)
    # (it landed on (30.5, 40.5); on the flat arenas structures are circles that push each other a
    # little, the Tech Lab's circle overlaps the Barracks': the ladder-map test checks the exact spot)
    assert got.unit_type == BARRACKS and math.hypot(got.pos.x - 30.5, got.pos.y - 40.5) < 0.2
    assert got.add_on_tag == lab and unit(g, lab).unit_type == BARRACKS_TECHLAB
    assert act(g, 563, [rax]) == C.SUCCESS  # a Marauder: needs the Tech Lab


def test_a_flying_barracks_does_not_land_on_an_enemy_ground_unit() -> None:
    """The landing is accepted and refused on arrival while an enemy ground unit stands on the
    footprint: it stays in the air (the Arqade answer "Do burrowed units block building
    construction?": they "block construction and landing"); once the unit is gone it lands."""
    g, w = rich_eco()
    rax = w.construction.add_structure(BARRACKS, 1, 30.5, 40.5)
    transition(g, rax, 452, BARRACKS, BARRACKS_FLYING)
    [drone] = w.spawn(104, 2, [30.5], [34.5]).tolist()  # a Drone of player 2 on the spot
    assert act(g, LAND, [rax], (30.5, 34.5)) == C.SUCCESS
    g.step(200)
    assert unit(g, rax).unit_type == BARRACKS_FLYING and unit(g, rax).is_flying
    w.remove_tags([drone])
    assert act(g, LAND, [rax], (30.5, 34.5)) == C.SUCCESS
    g.step(200)
    got = unit(g, rax)
    assert got.unit_type == BARRACKS and (got.pos.x, got.pos.y) == (30.5, 34.5)


def test_a_command_center_lifts_off_and_lands() -> None:
    g, w = rich_eco()
    cc = tags_of(g, D.COMMANDCENTER)[0]
    x, y = unit(g, cc).pos.x, unit(g, cc).pos.y
    transition(g, cc, 417, D.COMMANDCENTER, 36)
    assert act(g, 524, [cc]) == C.ERROR  # no SCVs while flying
    assert act(g, 419, [cc], (x, y)) == C.SUCCESS  # back on its spot: lands at once
    g.step(TRANSITION_LOOPS[419])
    assert unit(g, cc).unit_type == D.COMMANDCENTER
    assert act(g, 524, [cc]) == C.SUCCESS


def _melee() -> Any:
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from test_melee import joined

    return joined()


def test_a_lifted_barracks_flies_over_unpathable_ground_and_the_grid_follows_its_footprint() -> None:
    g = _melee()
    w = g.world
    m = w.map
    sx, sy = g.scenario.starts[1]
    # an open spot for the Barracks near the start, and a landing spot whose straight way crosses
    # unpathable cells (a cliff edge or a doodad)
    home = next((sx + dx, sy + dy) for dx in (-8.5, 8.5, 0.5) for dy in (-8.5, 8.5, 0.5)
                if w.placement.fits(BARRACKS, sx + dx, sy + dy) == C.SUCCESS)
    rax = w.construction.add_structure(BARRACKS, 1, *home)
    cell = (int(home[1]), int(home[0]))
    assert not w.vision.pathing_grid(1)[cell]

    def crosses(a: tuple[float, float], b: tuple[float, float]) -> bool:
        for k in np.linspace(0.0, 1.0, 200):
            x, y = a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k
            if not m.pathable[int(y), int(x)]:
                return True
        return False

    spot = None
    for r in np.arange(8.0, 30.0, 1.0):
        for ang in np.linspace(0.0, 2 * math.pi, 24, endpoint=False):
            p = (math.floor(home[0] + r * math.cos(ang)) + 0.5, math.floor(home[1] + r * math.sin(ang)) + 0.5)
            if 0 < p[0] < m.width and 0 < p[1] < m.height and crosses(home, p) \
                    and w.placement.fits(BARRACKS, *p) == C.SUCCESS:
                spot = p
                break
        if spot:
            break
    assert spot is not None
    assert act(g, LIFT, [rax]) == C.SUCCESS
    g.step(TRANSITION_LOOPS[452] + 1)
    assert unit(g, rax).unit_type == BARRACKS_FLYING
    assert w.vision.pathing_grid(1)[cell]  # its footprint is free while it flies
    # a cliff cell (not placeable) is refused as a landing spot
    bad = next((x + 0.5, y + 0.5) for y, x in zip(*np.nonzero(~m.placeable), strict=True)
               if abs(x - home[0]) < 40 and abs(y - home[1]) < 40)
    assert act(g, LAND, [rax], bad) == C.CANT_BUILD_LOCATION_INVALID
    assert act(g, LAND, [rax], spot) == C.SUCCESS
    over_unpathable = False
    for _ in range(1000):
        g.step(4)
        got = unit(g, rax)
        if not m.pathable[int(got.pos.y), int(got.pos.x)]:
            over_unpathable = True
        if got.unit_type == BARRACKS:
            break
    assert over_unpathable and got.unit_type == BARRACKS and (got.pos.x, got.pos.y) == spot
    grid = w.vision.pathing_grid(1)
    assert grid[cell] and not grid[int(spot[1]), int(spot[0])]


@pytest.mark.timeout(120)
def test_burnysc2_sieges_a_tank_and_lifts_and_lands_a_barracks() -> None:
    pytest.importorskip("sc2")
    import sc2.main  # noqa: F401  (resets loguru)
    from engine_harness import play_bot
    from loguru import logger
    from sc2.bot_ai import BotAI
    from sc2.ids.ability_id import AbilityId
    from sc2.ids.unit_typeid import UnitTypeId as U
    from sc2.position import Point2

    logger.remove()
    logger.add(sys.stderr, level="WARNING")

    class ModesBot(BotAI):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []
            self.tags: dict[str, int] = {}

        def note(self, what: str) -> None:
            if what not in self.seen:
                self.seen.append(what)

        async def on_step(self, iteration: int) -> None:
            home = self.start_location
            if iteration == 0:
                await self.client.debug_create_unit([[U.SIEGETANK, 1, home.offset(Point2((0, -6))), 1],
                                                     [U.BARRACKS, 1, Point2((home.x + 0.5, home.y + 10.5)), 1]])
                return
            tanks, sieged = self.units(U.SIEGETANK), self.units(U.SIEGETANKSIEGED)
            rax, flying = self.structures(U.BARRACKS), self.structures(U.BARRACKSFLYING)
            if tanks and "sieged" not in self.seen:
                self.tags.setdefault("tank", tanks.first.tag)
                if tanks.first.is_idle:
                    tanks.first(AbilityId.SIEGEMODE_SIEGEMODE)
            if sieged:
                self.note("sieged")
                self.tags["sieged"] = sieged.first.tag
            if rax and "lifted" not in self.seen:
                self.tags.setdefault("rax", rax.first.tag)
                if rax.first.is_idle:
                    rax.first(AbilityId.LIFT)
            if flying:
                self.note("lifted")
                self.tags["flying"] = flying.first.tag
                if flying.first.is_idle:
                    flying.first(AbilityId.LAND, Point2((home.x + 1.0, home.y + 15.0)))
            if rax and "lifted" in self.seen:
                self.note("landed")
                self.landed_at = rax.first.position
                await self.client.leave()

    bot = ModesBot()
    play_bot("TerranEconomy", bot, seed=1)
    assert bot.seen == ["sieged", "lifted", "landed"] or sorted(bot.seen) == ["landed", "lifted", "sieged"]
    assert bot.tags["tank"] == bot.tags["sieged"] and bot.tags["rax"] == bot.tags["flying"]
    home = bot.start_location
    assert (bot.landed_at.x, bot.landed_at.y) == (home.x + 1.0, home.y + 15.0)  # a 3x3 on cell centres


def test_queries_list_the_form_changes_and_answer_where_a_structure_may_land() -> None:
    from s2clientprotocol import common_pb2, query_pb2

    g = _melee()  # (the flat mini-games' abilities answers stay as they were)
    w = g.world
    w.supply.minerals[1] = w.supply.vespene[1] = 10_000
    sx, sy = g.scenario.starts[1]
    home = next((sx + dx, sy + dy) for dx in (-8.5, 8.5, 0.5) for dy in (-8.5, 8.5, 0.5)
                if w.placement.fits(BARRACKS, sx + dx, sy + dy) == C.SUCCESS)
    rax = w.construction.add_structure(BARRACKS, 1, *home)

    def abilities(tag: int) -> dict[int, bool]:
        q = query_pb2.RequestQuery()
        q.abilities.add(unit_tag=tag)
        return {a.ability_id: a.requires_point for a in g.query(1, q).abilities[0].abilities}

    assert abilities(rax).get(452) is False
    assert act(g, 560, [rax]) == C.SUCCESS
    assert 452 not in abilities(rax)  # training
    g.step(int(D.unit_spec(D.MARINE).build_time) + 1)
    act(g, 452, [rax])
    assert 452 not in abilities(rax) and 554 not in abilities(rax)  # lifting off
    g.step(TRANSITION_LOOPS[452])
    assert abilities(rax).get(554) is True
    [t] = w.spawn(TANK, 1, [sx], [sy - 6.0]).tolist()
    [h] = w.spawn(HELLION, 1, [sx], [sy - 6.0]).tolist()
    assert SIEGE in abilities(t) and UNSIEGE not in abilities(t)
    assert 1998 not in abilities(h)  # no Armory

    cc = tags_of(g, D.COMMANDCENTER)[0]
    q = query_pb2.RequestQuery()
    for x, y in ((unit(g, cc).pos.x, unit(g, cc).pos.y), home):
        q.placements.add(ability_id=554, target_pos=common_pb2.Point2D(x=x, y=y))
    assert [r.result for r in g.query(1, q).placements] == [C.CANT_BUILD_LOCATION_INVALID, C.SUCCESS]


def test_a_queued_siege_waits_for_the_move_before_it_and_keeps_the_orders_after_it() -> None:
    g, w = rich_eco()
    [t] = w.spawn(TANK, 1, [30.0], [30.0]).tolist()
    assert act(g, 16, [t], (34.0, 30.0)) == C.SUCCESS
    assert act(g, SIEGE, [t], queue=True) == C.SUCCESS
    assert act(g, UNSIEGE, [t], queue=True) == C.ERROR  # not sieged (yet): the real client asks the unit
    assert act(g, 18, [t], queue=True) == C.SUCCESS  # hold position, after the siege
    assert orders(g, t) == [16, SIEGE, 18]
    for _ in range(200):
        g.step(1)
        if orders(g, t) and orders(g, t)[0] == SIEGE:
            break
    got = unit(g, t)
    assert (got.pos.x, got.pos.y) == (34.0, 30.0) and orders(g, t) == [SIEGE, 18]
    g.step(TRANSITION_LOOPS[SIEGE])
    assert unit(g, t).unit_type == SIEGED and orders(g, t) == [18]
    assert not w.modes.active
