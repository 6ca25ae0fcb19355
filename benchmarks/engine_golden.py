"""Golden check of the engine: one SHA-256 per scripted game over everything a client sees.

A refactoring of the engine that must not change its behaviour (the systems layout of issue 23,
a speed-up that keeps the same operations) is checked by recording these hashes on the tree
before the change and requiring the same ones after every step of it::

    python benchmarks/engine_golden.py --record /tmp/golden.json   # on the reference tree
    python benchmarks/engine_golden.py --check /tmp/golden.json    # after each change
    python benchmarks/engine_golden.py --only Skirmish             # cases whose name contains it

Each case plays one scenario through the :class:`~sc2pool.engine.game.Game` API (the calls the
server makes) for a few hundred agent steps, with a scripted policy or with random commands
(random abilities, economy ones and unknown ones included, random units of any owner, unknown
tags, random targets, queued commands, random step sizes, debug commands), restarting episodes
that end, or (the ``Computers-*`` cases) the engine's melee Computer against itself, each race's
rules at several levels and builds.  The hash covers, in order: ``data`` and ``game_info``, every observation's bytes,
every ``ResponseAction``, every ``ResponseQuery`` (pathing, placements, abilities) and the game
loop after every step.  One case runs python-sc2's ``BotAI`` macro bot (``tests/engine/
macro_bot.py``) in process and hashes every response the engine sends it.

The hashes are run output (they depend on numpy's and Python's arithmetic): record them on the
machine that checks them; they are not committed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from s2clientprotocol import common_pb2, debug_pb2, query_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.computer import levels as L
from sc2pool.engine.game import Game

ROOT = Path(__file__).resolve().parents[1]

# unit types and abilities the drivers use (the real client's ids)
SCV, MARINE, CC, DEPOT, RAX, REFINERY = 45, 48, 18, 19, 21, 20
MINERALS = (341, 483)
GEYSER = 342
BEACON, SHARD = 317, 1680
MOVE, ATTACK, STOP, HOLD, PATROL, SMART, SCAN_MOVE, EXPLODE = 16, 23, 4, 18, 17, 1, 19, 42
GATHER, RETURN, TRAIN_SCV, TRAIN_MARINE = 295, 296, 524, 560
BUILD_CC, BUILD_DEPOT, BUILD_REFINERY, BUILD_RAX = 318, 319, 320, 321
RALLY_CC, RALLY_RAX, CANCEL_LAST = 203, 195, 3671
RANDOM_ABILITIES = (
    MOVE, ATTACK, STOP, HOLD, PATROL, SMART, SCAN_MOVE, EXPLODE, 3794, 3674, 3665, 3793, 3795, 380, 3675,
    GATHER, RETURN, 3666, 3667, TRAIN_SCV, TRAIN_MARINE, BUILD_CC, BUILD_DEPOT, BUILD_REFINERY, BUILD_RAX,
    RALLY_CC, RALLY_RAX, 3673, 3690, CANCEL_LAST, 306, 0, 9999, 1, 2063, 1166,
)
"""Every ability the engine simulates, generic ids, and some it does not (0, 9999, 2063, 1166)."""
DEBUG_TYPES = (MARINE, 51, SCV, 105, 9, 110, 73, 74, DEPOT, RAX, CC, 341, 342, 151, 86, 62)


@dataclass
class Case:
    name: str
    map_name: str
    seed: int
    steps: int
    driver: str
    extra: list[dict[str, int]] = field(default_factory=list)
    participants: int = 1
    step_size: int = 8
    race: int = 1
    """Player one's race."""
    computer: tuple[int, int] | None = None
    """Driver "computer": player one is played by the engine's melee Computer of this
    (difficulty, build), so that the Computer's rules of every race are covered."""


CASES: tuple[Case, ...] = (
    Case("MoveToBeacon-scripted", "MoveToBeacon", 1, 300, "scripted"),
    Case("MoveToBeacon-random", "MoveToBeacon", 2, 300, "random"),
    Case("CollectMineralShards-scripted", "CollectMineralShards", 1, 300, "scripted"),
    Case("CollectMineralShards-random", "CollectMineralShards", 2, 300, "random"),
    Case("FindAndDefeatZerglings-scripted", "FindAndDefeatZerglings", 1, 300, "scripted"),
    Case("FindAndDefeatZerglings-random", "FindAndDefeatZerglings", 2, 300, "random"),
    Case("DefeatRoaches-scripted", "DefeatRoaches", 1, 300, "scripted"),
    Case("DefeatRoaches-random", "DefeatRoaches", 2, 300, "random"),
    Case("DefeatZerglingsAndBanelings-scripted", "DefeatZerglingsAndBanelings", 1, 300, "scripted"),
    Case("DefeatZerglingsAndBanelings-scripted-s7", "DefeatZerglingsAndBanelings", 7, 600, "scripted"),
    Case("DefeatZerglingsAndBanelings-random", "DefeatZerglingsAndBanelings", 2, 300, "random"),
    Case("Skirmish-scripted", "Skirmish", 1, 300, "scripted", [{"type": 2, "race": 2, "difficulty": 3}]),
    Case("Skirmish-hard-computer", "Skirmish", 4, 600, "scripted", [{"type": 2, "race": 3, "difficulty": 7}]),
    Case("Skirmish-two-participants-random", "Skirmish", 5, 300, "random", [{"type": 1, "race": 2}],
         participants=2),
    Case("Battle100v100-scripted-s1", "Battle100v100", 1, 300, "scripted"),
    Case("Battle100v100-scripted-s3", "Battle100v100", 3, 300, "scripted"),
    Case("Battle100v100-scripted-s5", "Battle100v100", 5, 300, "scripted"),
    Case("Battle100v100-random", "Battle100v100", 2, 200, "random"),
    Case("CollectMineralsAndGas-scripted", "CollectMineralsAndGas", 1, 400, "macro"),
    Case("CollectMineralsAndGas-random", "CollectMineralsAndGas", 2, 300, "random"),
    Case("BuildMarines-scripted", "BuildMarines", 1, 500, "macro", step_size=16),
    Case("TerranEconomy-scripted", "TerranEconomy", 1, 700, "macro", step_size=16),
    Case("TerranEconomy-random", "TerranEconomy", 2, 400, "random"),
    Case("TerranEconomy-burnysc2-macro-bot", "TerranEconomy", 3, 0, "burnysc2"),
    # the melee game on real ladder maps: random commands against the Computer, and a burnysc2 bot
    # that builds and fights (benchmarks/melee_bot.py) against a Hard Computer for 8 game minutes
    Case("Melee-AbyssalReefLE-random-vs-computer", "AbyssalReefLE", 2, 300, "random",
         [{"type": 2, "race": 1, "difficulty": 5}]),
    Case("Melee-AcidPlantLE-burnysc2-bot-vs-hard", "AcidPlantLE", 1, 0, "burnysc2-melee",
         [{"type": 2, "race": 1, "difficulty": 5}]),
    # the Computer against itself, every race's rules (computer/terran.py, zerg.py, protoss.py) at
    # several levels and builds, for `steps` game seconds
    Case("Computers-ZvP-hard", "AcidPlantLE", 3, 600, "computer",
         [{"type": 2, "race": 3, "difficulty": L.HARD}], race=2, computer=(L.HARD, L.RANDOM_BUILD)),
    Case("Computers-PvT-veryhard-power-vs-timing", "AcidPlantLE", 4, 600, "computer",
         [{"type": 2, "race": 1, "difficulty": L.HARD, "ai_build": L.TIMING}], race=3,
         computer=(L.VERY_HARD, L.POWER)),
    Case("Computers-TvZ-harder-macro-vs-power", "BlueshiftLE", 5, 600, "computer",
         [{"type": 2, "race": 2, "difficulty": L.VERY_HARD, "ai_build": L.POWER}], race=1,
         computer=(L.HARDER, L.MACRO)),
    Case("Computers-ZvZ-easy-vs-insane-air", "AcidPlantLE", 6, 540, "computer",
         [{"type": 2, "race": 2, "difficulty": L.CHEAT_INSANE, "ai_build": L.AIR}], race=2,
         computer=(L.EASY, L.RANDOM_BUILD)),
    Case("Computers-PvP-medium-rush-vs-vision-air", "AcidPlantLE", 7, 540, "computer",
         [{"type": 2, "race": 3, "difficulty": L.CHEAT_VISION, "ai_build": L.AIR}], race=3,
         computer=(L.MEDIUM, L.RUSH)),
    Case("Computers-ZvT-hard-rush-vs-medium-rush", "AcidPlantLE", 9, 480, "computer",
         [{"type": 2, "race": 1, "difficulty": L.MEDIUM, "ai_build": L.RUSH}], race=2,
         computer=(L.HARD, L.RUSH)),
)


class Recorder:
    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.parts = 0

    def add(self, tag: bytes, data: bytes) -> None:
        self.h.update(tag)
        self.h.update(len(data).to_bytes(8, "little"))
        self.h.update(data)
        self.parts += 1


def new_game(case: Case) -> tuple[Game, list[int]]:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"{case.map_name}.SC2Map"),
                                  random_seed=case.seed)
    req.player_setup.add(type=1, race=case.race)  # type: ignore[arg-type]
    for e in case.extra:
        req.player_setup.add(**e)  # type: ignore[arg-type]
    g = Game.create(req)
    pids = [g.join(sc_pb.RequestJoinGame(race=case.race if k == 0 else case.extra[0].get("race", 1),  # type: ignore[arg-type]
                                         options=sc_pb.InterfaceOptions(raw=True, score=True)))
            for k in range(case.participants)]
    return g, pids


def unit_command(ability: int, tags: list[int], pos: tuple[float, float] | None = None, target: int = 0,
                 queue: bool = False) -> raw_pb2.ActionRawUnitCommand:
    uc = raw_pb2.ActionRawUnitCommand(ability_id=ability, unit_tags=tags, queue_command=queue)
    if pos is not None:
        uc.target_world_space_pos.x, uc.target_world_space_pos.y = pos
    if target:
        uc.target_unit_tag = target
    return uc


def actions(*cmds: raw_pb2.ActionRawUnitCommand) -> sc_pb.RequestAction:
    req = sc_pb.RequestAction()
    for c in cmds:
        req.actions.add().action_raw.unit_command.CopyFrom(c)
    return req


# ---------------------------------------------------------------------------------------------- drivers
Driver = Callable[[Game, int, sc_pb.ResponseObservation, int], "tuple[list[sc_pb.RequestAction], list[query_pb2.RequestQuery], list[sc_pb.RequestDebug]]"]


def scripted(g: Game, pid: int, obs: sc_pb.ResponseObservation, i: int) -> tuple[list[Any], list[Any], list[Any]]:
    """Walk to the beacon / nearest free shard; against enemies focus the weakest visible one every
    4 steps, else sweep; a queued move and a hold now and then."""
    units = obs.observation.raw_data.units
    mine = [u for u in units if u.alliance == 1]
    if not mine:
        return [], [], []
    goals = [u for u in units if u.unit_type in (BEACON, SHARD)]
    enemies = [u for u in units if u.alliance == 4]
    out: list[sc_pb.RequestAction] = []
    if goals:
        for k, u in enumerate(mine):
            gl = min(goals, key=lambda s: (s.pos.x - u.pos.x) ** 2 + (s.pos.y - u.pos.y) ** 2 + (k * 7 % 3))
            out.append(actions(unit_command(MOVE, [u.tag], (gl.pos.x, gl.pos.y))))
    elif enemies and i % 4 == 0:
        weakest = min(enemies, key=lambda e: (e.health + e.shield, e.tag))
        out.append(actions(unit_command(ATTACK, [u.tag for u in mine], target=weakest.tag)))
    elif not enemies and i % 8 == 0:
        x0, y0, x1, y1 = g.scenario.map.playable
        row = (i // 8) % 6
        y = y0 + (row + 0.5) * (y1 - y0) / 6
        x = x1 - 3 if row % 2 == 0 else x0 + 3
        out.append(actions(unit_command(SCAN_MOVE, [u.tag for u in mine], (x, y))))
    if i % 37 == 5:
        out.append(actions(unit_command(MOVE, [mine[0].tag], (mine[0].pos.x + 2, mine[0].pos.y), queue=True),
                           unit_command(HOLD, [mine[-1].tag], queue=True)))
    queries: list[query_pb2.RequestQuery] = []
    if i % 25 == 0:
        q = query_pb2.RequestQuery()
        q.pathing.add(unit_tag=mine[0].tag, end_pos=common_pb2.Point2D(x=10.0, y=10.0))
        q.abilities.add(unit_tag=mine[0].tag)
        if enemies:
            q.abilities.add(unit_tag=enemies[0].tag)
        queries.append(q)
    return out, queries, []


DEPOT_SITES = tuple((26.0 + 2 * (k % 4), 40.0 + 2 * (k // 4)) for k in range(12)) + \
    tuple((38.0 + 2 * (k % 4), 20.0 + 2 * (k // 4)) for k in range(12))
RAX_SITES = ((30.5, 24.5), (34.5, 24.5), (38.5, 24.5), (30.5, 46.5), (42.5, 32.5), (45.5, 40.5))


def macro(g: Game, pid: int, obs: sc_pb.ResponseObservation, i: int) -> tuple[list[Any], list[Any], list[Any]]:
    """A Terran macro build through the raw API: SCVs to 16, depots ahead of supply, refineries
    with three workers each, three barracks, marines; rallies, a cancel, cargo returns."""
    o = obs.observation
    pc = o.player_common
    units = o.raw_data.units
    mine = [u for u in units if u.alliance == 1]
    scvs = [u for u in mine if u.unit_type == SCV]
    ccs = [u for u in mine if u.unit_type == CC]
    depots = [u for u in mine if u.unit_type == DEPOT]
    raxes = [u for u in mine if u.unit_type == RAX]
    refs = [u for u in mine if u.unit_type == REFINERY]
    fields = [u for u in units if u.unit_type in MINERALS]
    geysers = [u for u in units if u.unit_type == GEYSER]
    cmds: list[raw_pb2.ActionRawUnitCommand] = []
    queries: list[query_pb2.RequestQuery] = []
    minerals = pc.minerals

    def builder() -> raw_pb2.Unit | None:
        for u in scvs:
            if u.orders and u.orders[0].ability_id == GATHER and not u.buff_ids:
                return u
        return scvs[0] if scvs else None

    pending_depot = any(d.build_progress < 1 for d in depots) or any(
        u.orders and u.orders[0].ability_id == BUILD_DEPOT for u in scvs)
    if ccs and pc.food_cap - pc.food_used < 4 and not pending_depot and minerals >= 100 and pc.food_cap < 200:
        q = query_pb2.RequestQuery()
        for x, y in DEPOT_SITES:
            q.placements.add(ability_id=BUILD_DEPOT, target_pos=common_pb2.Point2D(x=x, y=y))
        ans = g.query(pid, q)
        queries.append(q)
        free = [s for s, r in zip(DEPOT_SITES, ans.placements, strict=True) if r.result == 1]
        b = builder()
        if free and b is not None:
            cmds.append(unit_command(BUILD_DEPOT, [b.tag], free[0]))
            minerals -= 100
    if ccs and len(scvs) < 16 + 3 * len(refs) and not ccs[0].orders and minerals >= 50:
        cmds.append(unit_command(TRAIN_SCV, [ccs[0].tag]))
        minerals -= 50
    if geysers and len(refs) < 2 and minerals >= 75 and i > 60 and i % 20 == 0:
        taken = {(round(r.pos.x), round(r.pos.y)) for r in refs}
        free_g = [gy for gy in geysers if (round(gy.pos.x), round(gy.pos.y)) not in taken]
        b = builder()
        if free_g and b is not None:
            cmds.append(unit_command(BUILD_REFINERY, [b.tag], target=free_g[0].tag))
            minerals -= 75
    for r in refs:
        if r.build_progress >= 1 and r.assigned_harvesters < 3 and i % 3 == 0:
            b = builder()
            if b is not None:
                cmds.append(unit_command(SMART if i % 2 else GATHER, [b.tag], target=r.tag))
    if any(d.build_progress >= 1 for d in depots) and len(raxes) < 3 and minerals >= 150 and i % 5 == 0:
        q = query_pb2.RequestQuery()
        for x, y in RAX_SITES:
            q.placements.add(ability_id=BUILD_RAX, target_pos=common_pb2.Point2D(x=x, y=y))
        ans = g.query(pid, q)
        queries.append(q)
        free = [s for s, r in zip(RAX_SITES, ans.placements, strict=True) if r.result == 1]
        b = builder()
        if free and b is not None:
            cmds.append(unit_command(BUILD_RAX, [b.tag], free[0]))
            minerals -= 150
    for r in raxes:
        if r.build_progress >= 1 and len(r.orders) < 2 and minerals >= 50:
            cmds.append(unit_command(TRAIN_MARINE, [r.tag], queue=True))
            minerals -= 50
    if raxes and i % 50 == 10:
        cmds.append(unit_command(RALLY_RAX, [raxes[0].tag], (40.0, 32.0)))
    if ccs and fields and i % 90 == 3:
        cmds.append(unit_command(SMART, [ccs[0].tag], target=fields[i % len(fields)].tag))
    if raxes and i % 120 == 77:
        cmds.append(unit_command(CANCEL_LAST, [raxes[-1].tag]))
    for u in scvs:
        if not u.orders and fields:
            f = min(fields, key=lambda m: ((m.pos.x - u.pos.x) ** 2 + (m.pos.y - u.pos.y) ** 2, m.tag))
            if u.buff_ids:
                cmds.append(unit_command(RETURN, [u.tag]))
                cmds.append(unit_command(GATHER, [u.tag], target=f.tag, queue=True))
            else:
                cmds.append(unit_command(GATHER, [u.tag], target=f.tag))
    marines = [u for u in mine if u.unit_type == MARINE]
    if len(marines) >= 4 and i % 40 == 0:
        cmds.append(unit_command(SCAN_MOVE, [m.tag for m in marines], (50.0, 50.0)))
    if i % 15 == 0 and scvs:
        q = query_pb2.RequestQuery()
        q.abilities.add(unit_tag=scvs[i % len(scvs)].tag)
        for u in ccs + raxes:
            q.abilities.add(unit_tag=u.tag)
        q.pathing.add(start_pos=common_pb2.Point2D(x=20.0, y=20.0), end_pos=common_pb2.Point2D(x=40.0, y=40.0))
        q.placements.add(ability_id=BUILD_CC, target_pos=common_pb2.Point2D(x=45.5, y=45.5))
        if geysers:
            q.placements.add(ability_id=BUILD_REFINERY,
                             target_pos=common_pb2.Point2D(x=geysers[0].pos.x, y=geysers[0].pos.y))
        queries.append(q)
    return [actions(*cmds)] if cmds else [], queries, []


class RandomDriver:
    """Random commands to random units (mostly the player's, some of any owner, unknown tags)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, g: Game, pid: int, obs: sc_pb.ResponseObservation, i: int) -> tuple[list[Any], list[Any], list[Any]]:
        rng = self.rng
        units = list(obs.observation.raw_data.units)
        all_tags = [u.tag for u in units]
        mine = [u.tag for u in units if u.alliance == 1]
        x0, y0, x1, y1 = g.scenario.map.playable
        out = []
        for _ in range(int(rng.integers(0, 4))):
            ab = int(rng.choice(RANDOM_ABILITIES))
            pool = mine if (mine and rng.random() < 0.85) else all_tags
            k = int(rng.integers(1, 4))
            tags = [int(pool[int(j)]) for j in rng.integers(0, len(pool), k)] if pool else []
            if rng.random() < 0.05:
                tags.append(123456789)
            pos = None
            target = 0
            r = rng.random()
            if r < 0.45:
                pos = (float(rng.uniform(x0 - 2, x1 + 2)), float(rng.uniform(y0 - 2, y1 + 2)))
                if rng.random() < 0.02:
                    pos = (math.nan, 3.0)
            elif r < 0.9 and all_tags:
                target = int(all_tags[int(rng.integers(len(all_tags)))])
            out.append(actions(unit_command(ab, tags, pos, target, bool(rng.random() < 0.2))))
        queries = []
        if rng.random() < 0.2:
            q = query_pb2.RequestQuery()
            for _ in range(int(rng.integers(1, 4))):
                q.placements.add(ability_id=int(rng.choice((BUILD_CC, BUILD_DEPOT, BUILD_REFINERY, BUILD_RAX, 880, 16))),
                                 target_pos=common_pb2.Point2D(x=float(rng.uniform(x0, x1)), y=float(rng.uniform(y0, y1))))
            if all_tags:
                q.abilities.add(unit_tag=int(all_tags[int(rng.integers(len(all_tags)))]))
                q.pathing.add(unit_tag=int(all_tags[int(rng.integers(len(all_tags)))]),
                              end_pos=common_pb2.Point2D(x=float(rng.uniform(x0, x1)), y=float(rng.uniform(y0, y1))))
            queries.append(q)
        debugs = []
        if rng.random() < 0.04:
            d = sc_pb.RequestDebug()
            kind = rng.random()
            if kind < 0.5:
                cu = d.debug.add().create_unit
                cu.unit_type = int(rng.choice(DEBUG_TYPES))
                cu.owner = int(rng.choice((1, 2, 16)))
                cu.pos.x, cu.pos.y = float(rng.uniform(x0 + 2, x1 - 2)), float(rng.uniform(y0 + 2, y1 - 2))
                cu.quantity = int(rng.integers(1, 3))
            elif kind < 0.75 and all_tags:
                d.debug.add().kill_unit.tag.append(int(all_tags[int(rng.integers(len(all_tags)))]))
            elif all_tags:
                uv = d.debug.add().unit_value
                uv.unit_tag = int(all_tags[int(rng.integers(len(all_tags)))])
                uv.unit_value = int(rng.choice((debug_pb2.DebugSetUnitValue.Life, debug_pb2.DebugSetUnitValue.Shields)))  # type: ignore[assignment]
                uv.value = float(rng.uniform(-5, 60))
            debugs.append(d)
        return out, queries, debugs


# ---------------------------------------------------------------------------------------------- runs
def run_case(case: Case) -> tuple[str, int]:
    if case.driver.startswith("burnysc2"):
        return run_burnysc2(case)
    if case.driver == "computer":
        return run_computers(case)
    rec = Recorder()
    g, pids = new_game(case)
    rec.add(b"data", g.data(sc_pb.RequestData(ability_id=True, unit_type_id=True)).SerializeToString())
    drivers: list[Any] = []
    for k, _pid in enumerate(pids):
        if case.driver == "random":
            drivers.append(RandomDriver(case.seed * 100 + k))
        elif case.driver == "macro":
            drivers.append(macro)
        else:
            drivers.append(scripted)
    step_rng = np.random.default_rng(case.seed + 17)
    ro = sc_pb.RequestObservation()
    for pid in pids:
        rec.add(b"gi", g.game_info(pid).SerializeToString())
    for i in range(case.steps):
        if g.ended:
            rec.add(b"end", json.dumps(sorted(g.results.items()) if g.results else None).encode())
            g.restart()
        for pid, drive in zip(pids, drivers, strict=True):
            b = g.observation_bytes(pid, ro)
            rec.add(b"obs", b)
            obs = sc_pb.ResponseObservation.FromString(b)
            acts, queries, debugs = drive(g, pid, obs, i)
            for q in queries:
                rec.add(b"query", g.query(pid, q).SerializeToString())
            for a in acts:
                rec.add(b"act", g.action(pid, a).SerializeToString())
            for d in debugs:
                g.debug(pid, d)
                rec.add(b"debug", d.SerializeToString())
        n = case.step_size if case.driver != "random" else int(step_rng.integers(1, 17))
        g.step(n)
        rec.add(b"loop", g.game_loop.to_bytes(8, "little"))
    for pid in pids:
        rec.add(b"final", g.observation_bytes(pid, ro))
    return rec.h.hexdigest(), rec.parts


def run_computers(case: Case) -> tuple[str, int]:
    """Computer against Computer: player one is a melee Computer too (added as the scenario adds
    its own), and the game runs ``case.steps`` game seconds; both players' observations are
    hashed every 10 game seconds, and the Computers' own order books."""
    from sc2pool.engine.computer.melee import MeleeComputer

    assert case.computer is not None
    rec = Recorder()
    g, pids = new_game(case)
    scenario: Any = g.scenario
    own = MeleeComputer(pids[0], case.computer[0], case.computer[1], scenario)
    if own.level.extra_income:
        g.world.harvest.income_bonus[pids[0]] = own.level.extra_income
    scenario.computers = [*scenario.computers, own]
    ro = sc_pb.RequestObservation()
    end = int(case.steps * 22.4)
    while g.game_loop < end and not g.ended:
        g.step(min(224, end - g.game_loop))
        for pid in (1, 2):
            rec.add(b"obs", g.observation_bytes(pid, ro))
        for c in scenario.computers:
            rec.add(b"computer", repr((c.step, sorted(c.ordered.items()), sorted(c.refused))).encode())
    rec.add(b"end", json.dumps(sorted(g.results.items()) if g.results else None).encode())
    return rec.h.hexdigest(), rec.parts


def run_burnysc2(case: Case) -> tuple[str, int]:
    """python-sc2's BotAI macro bot (on a ladder map: the melee benchmark's bot against the
    Computer), in process; every response the engine sends is hashed."""
    import asyncio
    import logging
    import random

    from loguru import logger
    from sc2.controller import Controller
    from sc2.data import Difficulty, Race
    from sc2.main import GameMatch, run_match
    from sc2.player import Bot, Computer

    from sc2pool.engine.transport import InProcessTransport

    sys.path.insert(0, str(ROOT / "tests" / "engine"))
    from macro_bot import MacroBot  # type: ignore[import-not-found]

    logger.remove()
    logging.disable(logging.WARNING)
    rec = Recorder()

    class Recording(InProcessTransport):
        async def send_bytes(self, data: bytes | bytearray | memoryview, compress: int | None = None) -> None:
            await super().send_bytes(data, compress)
            rec.add(b"resp", self._pending[-1])

    from sc2 import maps  # noqa: F401  (burnysc2 needs its map helpers imported)
    from sc2.maps import Map

    random.seed(case.seed)
    bot: Any
    if case.driver == "burnysc2-melee":
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from melee_bot import MarineBot  # type: ignore[import-not-found]

        bot = MarineBot()
        players = [Bot(Race.Terran, bot), Computer(Race.Terran, Difficulty(case.extra[0]["difficulty"]))]
        limit: int | None = 8 * 60
    else:
        bot = MacroBot(target=12)
        players = [Bot(Race.Terran, bot)]
        limit = None
    t = Recording()
    match = GameMatch(Map(Path(f"{case.map_name}.SC2Map")), players, random_seed=case.seed, game_time_limit=limit)
    asyncio.run(run_match([Controller(t, None)], match, close_ws=False))  # type: ignore[arg-type]
    rec.add(b"marines", str(bot.max_marines).encode())
    return rec.h.hexdigest(), rec.parts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", help="write the hashes to this JSON file")
    ap.add_argument("--check", help="compare with the hashes in this JSON file; exit 1 on a difference")
    ap.add_argument("--only", default=None, help="run the cases whose name contains this")
    args = ap.parse_args(argv)
    want: dict[str, str] = json.loads(Path(args.check).read_text()) if args.check else {}
    got: dict[str, str] = {}
    bad = 0
    t_all = time.perf_counter()
    for case in CASES:
        if args.only and args.only not in case.name:
            continue
        t0 = time.perf_counter()
        digest, parts = run_case(case)
        got[case.name] = digest
        status = ""
        if args.check:
            status = "same" if want.get(case.name) == digest else "DIFFERENT"
            bad += status != "same"
        print(f"{case.name:44s} {digest[:16]}  {parts:6d} parts  {time.perf_counter() - t0:6.1f} s  {status}",
              flush=True)
    print(f"total {time.perf_counter() - t_all:.1f} s")
    if args.record:
        Path(args.record).write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    if args.check:
        print("golden check:", "PASS" if bad == 0 else f"FAIL ({bad} cases differ)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
