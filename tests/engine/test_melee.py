"""The 1v1 melee game on real ladder maps, through the Game API (the calls the server makes) and
through unmodified burnysc2 bots."""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from game_helpers import command
from s2clientprotocol import debug_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine import data as D
from sc2pool.engine.game import Game, GameError
from sc2pool.engine.sim.units import TYPES
from sc2pool.engine.terrain import find_map, load_map, start_raw

MAP = "AbyssalReefLE.SC2Map"
TERRAN, ZERG, PROTOSS, RANDOM = 1, 2, 3, 4
VISIBLE, SNAPSHOT = 1, 2
SELF, NEUTRAL, ENEMY = 1, 3, 4
LOWER_DEPOT, RAISE_DEPOT, BLINK = 556, 558, 1442
BUILD_COMMANDCENTER = 318
CREEP_TUMOR_BURROWED = 137
NOT_SUPPORTED = 2


def melee(*, computer: dict[str, int] | None = None, seed: int = 5, second: dict[str, int] | None = None,
          map_path: str = MAP) -> Game:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=map_path), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant)
    if second is not None:
        req.player_setup.add(type=sc_pb.Participant, **second)
    else:
        req.player_setup.add(type=sc_pb.Computer, **(computer or {"race": TERRAN, "difficulty": 3}))
    return Game.create(req)


def joined(**kw: Any) -> Game:
    g = melee(**kw)
    assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 1
    return g


def own(g: Game, player: int = 1) -> list[Any]:
    return [u for u in g.observation(player).observation.raw_data.units if u.alliance == SELF]


def test_a_ladder_map_is_played_as_a_melee_game_with_both_players_at_start_locations() -> None:
    g = joined()
    lm = load_map(find_map("AbyssalReefLE"))
    starts = g.scenario.starts  # type: ignore[attr-defined]
    assert sorted(starts.values()) == sorted(lm.start_locations)
    gi = g.game_info(1)
    assert gi.map_name == "AbyssalReefLE"
    assert [(p.x, p.y) for p in gi.start_raw.start_locations] == [starts[2]]
    # at game start the grids are the real client's (terrain.start_raw is measured against it)
    assert gi.start_raw.SerializeToString() == start_raw(lm, starts[1]).SerializeToString()
    # the player's own actual race shows, the opponent's does not (as the real client)
    info = {p.player_id: p for p in gi.player_info}
    assert info[1].race_actual == TERRAN and not info[2].HasField("race_actual")
    assert info[2].type == sc_pb.Computer and info[2].difficulty == 3


def test_each_player_starts_with_its_race_start_and_its_workers_mining() -> None:
    g = joined()
    obs = g.observation(1).observation
    pc = obs.player_common
    assert (pc.minerals, pc.vespene, pc.food_used, pc.food_cap, pc.food_workers) == (50, 0, 12, 15, 12)
    units = own(g)
    assert Counter(u.unit_type for u in units) == {D.COMMANDCENTER: 1, D.SCV: 12}
    cc = next(u for u in units if u.unit_type == D.COMMANDCENTER)
    assert (cc.pos.x, cc.pos.y) == g.scenario.starts[1]  # type: ignore[attr-defined]
    for scv in (u for u in units if u.unit_type == D.SCV):
        assert max(abs(scv.pos.x - cc.pos.x), abs(scv.pos.y - cc.pos.y)) == pytest.approx(3.0)
        assert [o.ability_id for o in scv.orders] == [295]  # HARVEST_GATHER_SCV, as in the captures
    for _ in range(100):
        g.step(16)
    assert g.observation(1).observation.player_common.minerals > 400


def test_the_start_workers_spread_over_the_main_fields_and_mine_at_the_real_rate() -> None:
    """Each main field gets a start worker (the nearest ones a second): sent to one field, they
    kept to it and its neighbour and mined half a base's income.  12 SCVs on 8 fields mine 501
    minerals a normal-speed minute in the real game (Liquipedia "Mining", docs/economy.md), 701 a
    faster minute of 1344 loops."""
    g = joined()
    h = g.world.harvest
    sx, sy = g.scenario.starts[1]  # type: ignore[attr-defined]
    main = {t for t, r in h.resources.items() if r.is_mineral and math.hypot(r.x - sx, r.y - sy) <= 12}
    targets = Counter(job.resource for tag, job in g.world.workers.jobs.items()
                      if g.world.u.owner[g.world.u.row(tag)] == 1)
    assert len(main) == 8 and set(targets) == main and sorted(targets.values()) == [1] * 4 + [2] * 4
    ledger = g.world.supply
    for _ in range(1344 // 16):  # the first minute: the walk out and the first trips
        g.step(16)
    before = ledger.collected_minerals[1]
    for _ in range(2 * 1344 // 16):
        g.step(16)
    per_minute = (ledger.collected_minerals[1] - before) / 2
    assert 640 <= per_minute <= 760, per_minute


def test_workers_sent_to_one_field_spread_over_the_mineral_line_and_mine_at_the_real_rate() -> None:
    """The real game's workers sent to one field "automatically arrange themselves to harvest from
    unoccupied mineral clusters" (Blizzard's resources guide), and python-sc2's examples count on
    it (they send every idle worker to the field nearest the townhall). On AcidPlantLE the fields
    near the nearest one are few: looking for a free field only within 3 of it kept the 12 SCVs on
    two fields, six each, mining 298 minerals a faster minute instead of about 700."""
    g = joined(map_path="AcidPlantLE.SC2Map")
    w = g.world
    sx, sy = g.scenario.starts[1]  # type: ignore[attr-defined]
    main = [r for r in w.harvest.resources.values() if r.is_mineral and math.hypot(r.x - sx, r.y - sy) <= 12]
    nearest = min(main, key=lambda r: math.hypot(r.x - sx, r.y - sy))
    scvs = [t for t in w.workers.jobs if w.u.owner[w.u.row(t)] == 1]
    assert len(scvs) == 12 and g.action(1, command(295, scvs, target=nearest.tag)).result[0] == 1
    ledger = w.supply
    for _ in range(1344 // 16):  # a faster minute to spread out
        g.step(16)
    before = ledger.collected_minerals[1]
    for _ in range(2 * 1344 // 16):
        g.step(16)
    per_minute = (ledger.collected_minerals[1] - before) / 2
    worked = Counter(job.resource for tag, job in w.workers.jobs.items() if w.u.owner[w.u.row(tag)] == 1)
    assert len(worked) >= 7 and max(worked.values()) <= 2, worked
    assert 640 <= per_minute <= 760, per_minute


def test_fog_hides_the_enemy_and_unseen_neutrals_are_snapshots() -> None:
    g = joined()
    units = g.observation(1).observation.raw_data.units
    assert not [u for u in units if u.alliance == ENEMY]
    lm = load_map(find_map("AbyssalReefLE"))
    neutrals = [u for u in units if u.alliance == NEUTRAL]
    assert len(neutrals) == len(lm.neutrals)
    sx, sy = g.scenario.starts[1]  # type: ignore[attr-defined]
    for u in neutrals:
        near = math.hypot(u.pos.x - sx, u.pos.y - sy) < 9
        far = math.hypot(u.pos.x - sx, u.pos.y - sy) > 14
        if far:
            assert u.display_type == SNAPSHOT and u.mineral_contents == 0 and u.vespene_contents == 0
        if near and u.mineral_contents:
            assert u.display_type == VISIBLE
    own_minerals = [u for u in neutrals if u.display_type == VISIBLE and u.mineral_contents]
    assert len(own_minerals) == 8 and {u.mineral_contents for u in own_minerals} == {1800, 900}
    # units stand on the terrain: z is the ground's height there
    cc = next(u for u in own(g) if u.unit_type == D.COMMANDCENTER)
    assert cc.pos.z == pytest.approx(lm.z(cc.pos.x, cc.pos.y), abs=0.6)


def test_an_enemy_structure_seen_once_stays_as_a_snapshot() -> None:
    g = joined(second={"race": TERRAN})
    assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 2
    enemy_cc = next(u for u in own(g, 2) if u.unit_type == D.COMMANDCENTER)
    scout = next(u for u in own(g, 1) if u.unit_type == D.SCV)
    req = sc_pb.RequestDebug()
    req.debug.add().unit_value.CopyFrom(debug_pb2.DebugSetUnitValue(unit_value=debug_pb2.DebugSetUnitValue.Life,
                                                                    value=45, unit_tag=scout.tag))
    # put the scout next to the enemy main, look, then take it away
    g.world.u.x[g.world.u.row(scout.tag)] = enemy_cc.pos.x - 6
    g.world.u.y[g.world.u.row(scout.tag)] = enemy_cc.pos.y
    g.world.touch()
    seen = {u.tag: u.display_type for u in g.observation(1).observation.raw_data.units if u.alliance == ENEMY}
    assert seen.get(enemy_cc.tag) == VISIBLE
    g.debug(1, _kill(scout.tag))
    g.step(1)
    later = {u.tag: u.display_type for u in g.observation(1).observation.raw_data.units if u.alliance == ENEMY}
    assert later == {enemy_cc.tag: SNAPSHOT}


def test_snapshots_report_their_cloak_unknown_as_the_real_client() -> None:
    # python-sc2's capture: every snapshot (display_type 2) has cloak CloakedUnknown (0), every
    # visible unit NotCloaked (3); burnysc2's can_be_attacked is False for a snapshot
    g = joined(second={"race": TERRAN})
    assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 2
    enemy_cc = next(u for u in own(g, 2) if u.unit_type == D.COMMANDCENTER)
    scout = next(u for u in own(g) if u.unit_type == D.SCV)
    g.world.u.x[g.world.u.row(scout.tag)] = enemy_cc.pos.x - 6
    g.world.u.y[g.world.u.row(scout.tag)] = enemy_cc.pos.y
    g.world.touch()
    cloak = {u.tag: u.cloak for u in g.observation(1).observation.raw_data.units if u.alliance == ENEMY}
    assert cloak[enemy_cc.tag] == 3
    g.debug(1, _kill(scout.tag))
    g.step(1)
    units = g.observation(1).observation.raw_data.units
    snapshots = [u for u in units if u.display_type == SNAPSHOT]
    assert enemy_cc.tag in {u.tag for u in snapshots} and any(u.alliance == NEUTRAL for u in snapshots)
    assert {u.cloak for u in snapshots} == {0} and all(u.HasField("cloak") for u in snapshots)
    assert {u.cloak for u in units if u.display_type == VISIBLE} == {3}


def test_enemy_units_report_no_orders_as_the_real_client() -> None:
    # raw.proto: Unit.orders "Not populated for enemies"; their carried resources (buffs) show
    g = joined(second={"race": TERRAN})
    assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 2
    for _ in range(40):  # the enemy's workers out on their fields, some carrying
        g.step(16)
    enemy_cc = next(u for u in own(g, 2) if u.unit_type == D.COMMANDCENTER)
    scout = next(u for u in own(g, 1) if u.unit_type == D.SCV)
    g.world.u.x[g.world.u.row(scout.tag)] = enemy_cc.pos.x - 5
    g.world.u.y[g.world.u.row(scout.tag)] = enemy_cc.pos.y
    g.world.touch()
    enemy = [u for u in g.observation(1).observation.raw_data.units if u.alliance == ENEMY]
    scvs = [u for u in enemy if u.unit_type == D.SCV]
    assert len(scvs) >= 3, "the scout should see the enemy's mining SCVs"
    assert [u.tag for u in enemy if u.orders] == []
    assert any(u.buff_ids for u in scvs)  # carrying minerals: seen, as in the real game
    # the owner still sees its own orders
    assert all(u.orders for u in own(g, 2) if u.unit_type == D.SCV)


def _kill(*tags: int) -> sc_pb.RequestDebug:
    req = sc_pb.RequestDebug()
    req.debug.add().kill_unit.tag.extend(tags)
    return req


def test_a_player_with_no_structures_left_loses() -> None:
    g = joined()
    theirs = [int(t) for t, o, s in zip(g.world.u.tag, g.world.u.owner, g.world.u.unit_id, strict=True)
              if o == 2 and s == D.COMMANDCENTER]
    g.debug(1, _kill(*theirs))
    g.step(1)
    assert g.ended and g.results == {1: sc_pb.Victory, 2: sc_pb.Defeat}
    obs = g.observation(1)
    assert {r.player_id: r.result for r in obs.player_result} == {1: sc_pb.Victory, 2: sc_pb.Defeat}


def _create(player: int, unit_type: int, x: float, y: float, quantity: int = 1) -> sc_pb.RequestDebug:
    req = sc_pb.RequestDebug()
    c = req.debug.add().create_unit
    c.unit_type, c.owner, c.quantity = unit_type, player, quantity
    c.pos.x, c.pos.y = x, y
    return req


def _hide_a_depot(g: Game, owner: int) -> tuple[int, float, float]:
    """A Supply Depot of ``owner`` halfway between the mains, out of everybody's sight: (tag, x, y)."""
    u = g.world.u
    (x1, y1), (x2, y2) = g.scenario.starts[1], g.scenario.starts[2]  # type: ignore[attr-defined]
    hx, hy = (x1 + x2) / 2, (y1 + y2) / 2
    g.debug(owner, _create(owner, D.SUPPLYDEPOT, hx, hy))
    return int(u.tag[(u.owner == owner) & (u.unit_id == D.SUPPLYDEPOT)][0]), hx, hy


def two_bots(race: int = TERRAN) -> Game:
    g = joined(second={"race": race})
    assert g.join(sc_pb.RequestJoinGame(race=race)) == 2
    return g


def test_a_player_left_without_a_main_building_is_revealed_until_it_starts_one_again() -> None:
    from sc2pool.engine.scenarios.melee import REVEAL_DELAY

    g = two_bots()
    u = g.world.u
    x1, y1 = g.scenario.starts[1]  # type: ignore[attr-defined]
    depot, hx, hy = _hide_a_depot(g, 2)
    cc2 = int(u.tag[(u.owner == 2) & (u.unit_id == D.COMMANDCENTER)][0])

    def enemy_seen() -> dict[int, int]:
        return {v.tag: v.display_type for v in g.observation(1).observation.raw_data.units if v.alliance == ENEMY}

    g.step(1)
    assert depot not in enemy_seen()
    g.debug(1, _kill(cc2))
    g.step(REVEAL_DELAY - 16)
    assert not g.ended and depot not in enemy_seen(), "revealed only after the delay"
    g.step(32)
    obs = g.observation(1).observation
    assert {v.tag: v.display_type for v in obs.raw_data.units if v.alliance == ENEMY}.get(depot) == VISIBLE
    vis = np.frombuffer(obs.raw_data.map_state.visibility.data, dtype=np.uint8).reshape(
        obs.raw_data.map_state.visibility.size.y, obs.raw_data.map_state.visibility.size.x)
    assert vis[int(hy), int(hx)] != 2, "the structure is revealed, not the ground round it"
    # player 1's Marines, sent from home, can target it and win the game
    g.debug(1, _create(1, D.MARINE, x1, y1, quantity=4))
    marines = [int(t) for t in u.tag[(u.owner == 1) & (u.unit_id == D.MARINE)]]
    resp = g.action(1, command(D.ATTACK_ATTACK, marines, target=depot))
    assert list(resp.result) == [1]  # Success
    for _ in range(200):
        g.step(16)
        if g.ended:
            break
    assert g.results == {1: sc_pb.Victory, 2: sc_pb.Defeat}


def test_starting_a_main_building_again_ends_the_reveal() -> None:
    from sc2pool.engine.scenarios.melee import REVEAL_DELAY

    g = two_bots()
    u = g.world.u
    x2, y2 = g.scenario.starts[2]  # type: ignore[attr-defined]
    depot, _, _ = _hide_a_depot(g, 2)
    g.debug(1, _kill(int(u.tag[(u.owner == 2) & (u.unit_id == D.COMMANDCENTER)][0])))
    g.step(REVEAL_DELAY + 16)
    seen = {v.tag: v.display_type for v in g.observation(1).observation.raw_data.units if v.alliance == ENEMY}
    assert seen.get(depot) == VISIBLE
    # player 2 starts a Command Center where its main was: the reveal ends
    scv = int(u.tag[(u.owner == 2) & (u.unit_id == D.SCV)][0])
    g.world.supply.minerals[2] = 1000  # (enough whatever it mined)
    resp = g.action(2, command(BUILD_COMMANDCENTER, [scv], pos=(x2, y2)))
    assert list(resp.result) == [1]  # Success
    for _ in range(60):
        g.step(16)
        if np.count_nonzero((u.owner == 2) & (u.unit_id == D.COMMANDCENTER)):
            break
    assert np.count_nonzero((u.owner == 2) & (u.unit_id == D.COMMANDCENTER)), "the SCV should start the CC"
    g.step(32)
    seen = {v.tag: v.display_type for v in g.observation(1).observation.raw_data.units if v.alliance == ENEMY}
    assert seen.get(depot) == SNAPSHOT, "seen once, remembered as a snapshot, no longer revealed"


def test_the_computer_knows_the_structures_of_a_revealed_player() -> None:
    from sc2pool.engine.scenarios.melee import REVEAL_DELAY

    g = joined()
    u = g.world.u
    depot, _, _ = _hide_a_depot(g, 1)
    g.debug(1, _kill(int(u.tag[(u.owner == 1) & (u.unit_id == D.COMMANDCENTER)][0])))
    computer = g.scenario.computers[0]
    g.step(REVEAL_DELAY - 16)
    assert depot not in computer.enemy_structures
    g.step(64)
    assert depot in computer.enemy_structures


def test_creep_tumors_are_not_buildings_a_player_must_lose() -> None:
    g = two_bots(ZERG)
    u = g.world.u
    hx, hy = g.scenario.starts[2]  # type: ignore[attr-defined]
    g.debug(2, _create(2, CREEP_TUMOR_BURROWED, hx + 6, hy))
    assert np.count_nonzero((u.owner == 2) & (u.unit_id == CREEP_TUMOR_BURROWED)) == 1
    buildings = [int(t) for t in u.tag[(u.owner == 2) & TYPES.structure[u.ti] & (u.unit_id != CREEP_TUMOR_BURROWED)]]
    g.debug(1, _kill(*buildings))
    g.step(1)
    assert g.ended and g.results == {1: sc_pb.Victory, 2: sc_pb.Defeat}


def test_a_game_without_income_spending_or_destroyed_buildings_for_three_minutes_is_a_tie() -> None:
    from sc2pool.engine.scenarios.melee import STALEMATE_LOOPS

    g = two_bots()
    u = g.world.u
    g.step(16)
    assert not g.ended
    # both players keep their Command Centers and lose every worker: nobody mines or spends
    g.debug(1, _kill(*[int(t) for t in u.tag[u.unit_id == D.SCV]]))
    g.step(STALEMATE_LOOPS - 64)
    assert not g.ended, "three minutes have not passed"
    g.step(128)
    assert g.ended and g.results == {1: sc_pb.Tie, 2: sc_pb.Tie}


def test_mining_keeps_a_quiet_game_going() -> None:
    from sc2pool.engine.scenarios.melee import STALEMATE_LOOPS

    g = two_bots()
    u = g.world.u
    g.debug(1, _kill(*[int(t) for t in u.tag[(u.unit_id == D.SCV) & (u.owner == 2)]]))
    g.step(STALEMATE_LOOPS + 256)  # player 1's SCVs mine all along (nobody trains or builds)
    assert not g.ended


def test_leaving_gives_the_other_player_the_victory() -> None:
    g = joined()
    g.leave(1)
    assert g.results == {1: sc_pb.Defeat, 2: sc_pb.Victory}


def test_an_idle_worker_does_not_attack_on_its_own_an_attack_moving_one_does() -> None:
    """A builder Probe left beside an enemy Nexus does not start hitting it (a cannon rush);
    ordered to attack-move, a worker fights like any unit."""
    g = joined(computer={"race": TERRAN, "difficulty": 1})
    g.step(1)
    w = g.world
    u = w.u
    cc = int(((u.owner == 2) & (u.unit_id == D.COMMANDCENTER)).nonzero()[0][0])
    cx, cy = float(u.x[cc]), float(u.y[cc])

    def enemy_damage() -> float:  # (life missing: the Computer keeps training SCVs)
        mine = u.owner == 2
        return float((TYPES.hp_max[u.ti[mine]] - u.hp[mine]).sum())

    tags = [int(t) for t in w.spawn(D.SCV, 1, np.array([cx + 3.5]), np.array([cy]), free=True)]
    g.step(int(10 * 22.4))
    assert enemy_damage() == 0 and int(u.rows(np.array(tags))[0]) >= 0
    assert w.command(1, 3674, tags, (cx, cy), 0, False) == 1  # ATTACK_ATTACK (attack-move)
    g.step(22)
    assert enemy_damage() > 0


def test_in_a_bot_vs_bot_game_a_leave_decides_it_with_the_next_loop() -> None:
    """Both bots of a lockstep game see loop L; one returns at burnysc2's game_time_limit and
    leaves. The other's observation of loop L is still a running game (it returns its own Tie);
    only a step gives it the Victory."""
    g = melee(second={"race": ZERG})
    assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 1
    assert g.join(sc_pb.RequestJoinGame(race=ZERG)) == 2
    g.step(224)
    g.leave(2)
    assert not g.ended and not g.observation(1).player_result
    g.step(1)
    assert g.results == {1: sc_pb.Victory, 2: sc_pb.Defeat}
    assert {r.player_id: r.result for r in g.observation(1).player_result} == {1: sc_pb.Victory, 2: sc_pb.Defeat}
    assert g.game_loop == 224  # decided, not played on


def test_random_draws_a_race_by_the_seed_and_every_race_is_a_player() -> None:
    drawn = []
    for seed in range(12):
        g = melee(computer={"race": RANDOM, "difficulty": 2}, seed=seed)
        assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 1
        drawn.append(g.scenario.race_actual(2))
        townhall = {TERRAN: D.COMMANDCENTER, ZERG: 86, PROTOSS: 59}[drawn[-1]]
        assert np.count_nonzero((g.world.u.owner == 2) & (g.world.u.unit_id == townhall)) == 1
    assert set(drawn) == {TERRAN, ZERG, PROTOSS}
    again = melee(computer={"race": RANDOM, "difficulty": 2}, seed=3)
    again.join(sc_pb.RequestJoinGame(race=TERRAN))
    assert again.scenario.race_actual(2) == drawn[3]
    for race in (PROTOSS, ZERG):
        g = melee(computer={"race": race, "difficulty": 2})
        assert g.join(sc_pb.RequestJoinGame(race=TERRAN)) == 1
        assert g.scenario.race_actual(2) == race  # (tests/engine/computer/test_computer_race_games.py)
        g = melee()
        assert g.join(sc_pb.RequestJoinGame(race=race)) == 1  # (test_protoss_*.py, test_zerg_*.py)
        assert g.scenario.race_actual(1) == race


def test_unknown_and_unreadable_maps_are_clear_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(GameError, match="Unknown map") as err:
        melee(map_path="NoSuchMapLE.SC2Map")
    assert err.value.code == sc_pb.ResponseCreateGame.InvalidMapPath
    broken = tmp_path / "Maps" / "BrokenLE.SC2Map"
    broken.parent.mkdir()
    broken.write_bytes(b"MPQ\x1a" + b"\x00" * 64)
    monkeypatch.setenv("SC2PATH", str(tmp_path))
    with pytest.raises(GameError, match="BrokenLE") as err:
        melee(map_path="BrokenLE.SC2Map")
    assert err.value.code == sc_pb.ResponseCreateGame.InvalidMapData


def test_chat_is_echoed_to_every_player() -> None:
    g = joined(second={"race": TERRAN})
    g.join(sc_pb.RequestJoinGame(race=TERRAN))
    req = sc_pb.RequestAction()
    req.actions.add().action_chat.message = "gl hf"
    g.action(1, req)
    for player in (1, 2):
        chat = g.observation(player).chat
        assert [(c.player_id, c.message) for c in chat] == [(1, "gl hf")]
        assert not g.observation(player).chat  # once


def test_a_supply_depot_lowers_and_rises_and_keeps_its_supply() -> None:
    g = joined()
    sx, sy = g.scenario.starts[1]  # type: ignore[attr-defined]
    tag = g.world.construction.add_structure(D.SUPPLYDEPOT, 1, sx + 6, sy + 6)
    assert g.observation(1).observation.player_common.food_cap == 23
    assert g.action(1, command(LOWER_DEPOT, [tag])).result == [1]
    depot = next(u for u in own(g) if u.tag == tag)
    assert depot.unit_type == 47  # SupplyDepotLowered
    assert g.observation(1).observation.player_common.food_cap == 23
    grid = g.world.vision.pathing_grid(1)
    assert grid[int(sy + 6), int(sx + 6)]  # walkable while lowered
    assert g.action(1, command(RAISE_DEPOT, [tag])).result == [1]
    assert next(u for u in own(g) if u.tag == tag).unit_type == D.SUPPLYDEPOT
    assert not g.world.vision.pathing_grid(1)[int(sy + 6), int(sx + 6)]


def test_an_ability_the_engine_does_not_simulate_is_refused_and_reported() -> None:
    g = joined()
    scv = next(u for u in own(g) if u.unit_type == D.SCV)
    cc = next(u for u in own(g) if u.unit_type == D.COMMANDCENTER)
    # (a Stalker's Blink: the SCV's repair, the example before, is simulated now)
    assert g.action(1, command(BLINK, [scv.tag], target=cc.tag)).result == [NOT_SUPPORTED]
    errors = g.observation(1).action_errors
    assert [(e.unit_tag, e.ability_id, e.result) for e in errors] == [(scv.tag, BLINK, NOT_SUPPORTED)]


def test_destructible_rocks_can_be_attacked_and_free_their_ground_when_destroyed() -> None:
    g = joined()
    w = g.world
    u = w.u
    rocks = [r for r in range(len(u)) if u.owner[r] == 16 and "Destructible" in D.unit_spec(int(u.unit_id[r])).name
             and w.placement.obstacles.get(int(u.tag[r])) is not None]
    assert rocks
    r = rocks[0]
    tag, x, y = int(u.tag[r]), float(u.x[r]), float(u.y[r])
    marine = int(w.spawn(D.MARINE, 1, [x + 6], [y])[0])
    assert g.action(1, command(23, [marine], target=tag)).result == [1]
    assert w.placement.blocked.reshape(-1)[w.placement.obstacles[tag]].all()
    g.debug(1, _kill(tag))
    g.step(1)
    assert tag not in w.placement.obstacles and not w.placement.blocked[int(y), int(x)]


def test_the_computer_plays_an_economy() -> None:
    g = joined(computer={"race": TERRAN, "difficulty": 4})
    for _ in range(350):  # 2800 loops, about 2 game minutes at faster speed
        g.step(8)
    u = g.world.u
    theirs = Counter(int(t) for t, o in zip(u.unit_id, u.owner, strict=True) if o == 2)
    assert theirs[D.SCV] > 16 and theirs[D.SUPPLYDEPOT] >= 1 and theirs[D.BARRACKS] >= 1


# ---------------------------------------------------------------------------- through burnysc2
pytest.importorskip("sc2")
import sc2.main  # noqa: E402,F401  (resets loguru; quieten it below)
from engine_harness import play_bot  # noqa: E402
from loguru import logger  # noqa: E402
from sc2.bot_ai import BotAI  # noqa: E402
from sc2.data import Difficulty, Race, Result  # noqa: E402
from sc2.ids.unit_typeid import UnitTypeId  # noqa: E402
from sc2.player import Computer  # noqa: E402

logger.remove()
logger.add(sys.stderr, level="WARNING")


class LadderBot(BotAI):
    """A small macro bot: what burnysc2 finds on the map, then workers, a depot, a barracks."""

    def __init__(self, leave_at: float = 60.0) -> None:
        super().__init__()
        self.leave_at = leave_at
        self.facts: dict[str, Any] = {}

    async def on_step(self, iteration: int) -> None:
        if iteration == 0:
            self.facts["expansions"] = len(self.expansion_locations_list)
            self.facts["ramp"] = self.main_base_ramp.top_center
            self.facts["enemy_start"] = self.enemy_start_locations[0]
            self.facts["enemy_race"] = self.enemy_race
        await self.distribute_workers()
        cc = self.townhalls.first
        if self.can_afford(UnitTypeId.SCV) and cc.is_idle and self.supply_workers < 20:
            cc.train(UnitTypeId.SCV)
        if self.supply_left < 3 and self.can_afford(UnitTypeId.SUPPLYDEPOT) and \
                not self.already_pending(UnitTypeId.SUPPLYDEPOT):
            await self.build(UnitTypeId.SUPPLYDEPOT, near=cc.position.towards(self.game_info.map_center, 6))
        if self.structures(UnitTypeId.SUPPLYDEPOT).ready and self.can_afford(UnitTypeId.BARRACKS) and \
                not self.structures(UnitTypeId.BARRACKS) and not self.already_pending(UnitTypeId.BARRACKS):
            await self.build(UnitTypeId.BARRACKS, near=cc.position.towards(self.game_info.map_center, 9))
        if self.time > self.leave_at:
            self.facts["minerals_collected"] = self.state.score.collected_minerals
            self.facts["structures"] = Counter(s.type_id for s in self.structures)
            await self.client.leave()


def test_a_burnysc2_bot_plays_a_ladder_map_against_the_computer() -> None:
    bot = LadderBot(leave_at=150.0)
    result, _ = play_bot("AbyssalReefLE", bot, opponent=Computer(Race.Terran, Difficulty.Easy))
    assert result == Result.Defeat  # it left
    assert bot.facts["expansions"] == 16
    assert bot.facts["enemy_race"] == Race.Terran
    assert bot.facts["minerals_collected"] > 1000
    assert bot.facts["structures"][UnitTypeId.SUPPLYDEPOT] >= 1
    assert bot.facts["structures"][UnitTypeId.BARRACKS] == 1


def test_game_info_over_the_session_follows_structures_and_is_rebuilt_only_when_the_grid_changes() -> None:
    """burnysc2 asks for game_info every step: the session answers the current pathing grid (a
    structure placed shows blocked) and reuses its bytes while nothing in the grid changed."""
    from sc2pool.engine.session import EngineSession

    session = EngineSession()

    def ask(**kw: Any) -> sc_pb.Response:
        resp = sc_pb.Response.FromString(session.handle(sc_pb.Request(**kw).SerializeToString()))
        assert not resp.error, resp.error
        return resp

    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=MAP), random_seed=4)
    create.player_setup.add(type=sc_pb.Participant, race=TERRAN)
    create.player_setup.add(type=sc_pb.Computer, race=TERRAN, difficulty=3)
    ask(create_game=create)
    ask(join_game=sc_pb.RequestJoinGame(race=TERRAN, options=sc_pb.InterfaceOptions(raw=True, score=True)))
    room_game = session.game  # (the session's recording wrapper round the Game)
    g = getattr(room_game, "_game", room_game)
    w = g.world

    def grid() -> Any:
        gi = ask(game_info=sc_pb.RequestGameInfo()).game_info
        return np.unpackbits(np.frombuffer(gi.start_raw.pathing_grid.data, dtype=np.uint8)).reshape(
            w.map.height, w.map.width).astype(bool)

    ask(step=sc_pb.RequestStep(count=8))
    ask(observation=sc_pb.RequestObservation())
    before = grid()

    calls = []
    inner = room_game.game_info

    def counted(player_id: int) -> Any:
        calls.append(player_id)
        return inner(player_id)

    room_game.game_info = counted  # type: ignore[method-assign,union-attr]
    for _ in range(5):  # SCVs trained and mining change the unit set, not the grid
        ask(step=sc_pb.RequestStep(count=8))
        ask(observation=sc_pb.RequestObservation())
        assert np.array_equal(grid(), before)
    assert not calls
    sx, sy = g.scenario.starts[1]
    x, y = sx, sy + 8.0  # (a 3x3 structure stands on a cell centre, as the start location)
    req = sc_pb.RequestDebug()
    cu = req.debug.add().create_unit
    cu.unit_type, cu.owner, cu.quantity = D.BARRACKS, 1, 1
    cu.pos.x, cu.pos.y = x, y
    ask(debug=req)
    built = w.u.tag[w.u.unit_id == D.BARRACKS].tolist()
    assert built
    ask(step=sc_pb.RequestStep(count=8))
    ask(observation=sc_pb.RequestObservation())
    after = grid()
    assert calls == [1]
    r = w.u.row(built[0])
    bx, by = float(w.u.x[r]), float(w.u.y[r])
    assert before[int(by), int(bx)] and not after[int(by), int(bx)]
    cells = w.pathing.blocked_cells()[built[0]]
    assert len(cells) == 9  # the Barracks' 3x3 cells: those that were free are blocked now
    assert set(np.flatnonzero(before & ~after).tolist()) == set(cells[before.reshape(-1)[cells]].tolist())
    assert not np.count_nonzero(after & ~before)
