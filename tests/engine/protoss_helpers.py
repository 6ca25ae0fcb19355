"""A Protoss melee game on a ladder map for the Protoss behaviour tests (test_protoss_*.py)."""

from __future__ import annotations

import math
from typing import Any

from game_helpers import command
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game

TERRAN, PROTOSS = 1, 3
NEXUS, PYLON, ASSIMILATOR, GATEWAY, CYBERCORE, WARPGATE, STARGATE = 59, 60, 61, 62, 72, 133, 67
PROBE, ZEALOT, STALKER = 84, 73, 74
TRAIN_PROBE, TRAIN_ZEALOT, TRAIN_STALKER = 1006, 916, 917
BUILD_PYLON, BUILD_GATEWAY, BUILD_ASSIMILATOR = 881, 883, 882
CHRONO, RESEARCH_WARPGATE, MORPH_WARPGATE, WARP_ZEALOT, WARP_STALKER = 3755, 1568, 1518, 1413, 1414
CANCEL_BUILD = 314


def protoss_game(seed: int = 5, map_path: str = "AcidPlantLE.SC2Map") -> Game:
    """Player 1 Protoss (a participant) against a Terran Computer that builds nothing near."""
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=map_path), random_seed=seed)
    req.player_setup.add(type=sc_pb.Participant)
    req.player_setup.add(type=sc_pb.Computer, race=TERRAN, difficulty=1)
    g = Game.create(req)
    assert g.join(sc_pb.RequestJoinGame(race=PROTOSS)) == 1
    return g


def mine(g: Game, unit_type: int | None = None) -> list[Any]:
    units = g.observation(1).observation.raw_data.units
    return [u for u in units if u.alliance == 1 and (unit_type is None or u.unit_type == unit_type)]


def unit(g: Game, tag: int) -> Any:
    return next(u for u in g.observation(1).observation.raw_data.units if u.tag == tag)


def nexus(g: Game) -> Any:
    return mine(g, NEXUS)[0]


def away(g: Game, dist: float) -> tuple[float, float]:
    """A point ``dist`` from the Nexus on the side away from its mineral line (free ground)."""
    n = nexus(g)
    fields = [u for u in g.observation(1).observation.raw_data.units if u.alliance == 3 and u.mineral_contents > 0]
    mx = sum(f.pos.x for f in fields if math.hypot(f.pos.x - n.pos.x, f.pos.y - n.pos.y) < 12)
    my = sum(f.pos.y for f in fields if math.hypot(f.pos.x - n.pos.x, f.pos.y - n.pos.y) < 12)
    k = sum(1 for f in fields if math.hypot(f.pos.x - n.pos.x, f.pos.y - n.pos.y) < 12)
    dx, dy = n.pos.x - mx / k, n.pos.y - my / k
    d = math.hypot(dx, dy)
    return round(n.pos.x + dx / d * dist), round(n.pos.y + dy / d * dist)


def create(g: Game, unit_type: int, pos: tuple[float, float], owner: int = 1) -> int:
    """A finished structure (or a unit) made by debug create_unit; returns its tag."""
    before = {u.tag for u in g.observation(1).observation.raw_data.units}
    req = sc_pb.RequestDebug()
    cu = req.debug.add().create_unit
    cu.unit_type, cu.owner, cu.quantity = unit_type, owner, 1
    cu.pos.x, cu.pos.y = pos
    g.debug(1, req)
    new = [u for u in g.observation(1).observation.raw_data.units if u.tag not in before and u.unit_type == unit_type]
    assert len(new) == 1
    return int(new[0].tag)


def kill(g: Game, tag: int) -> None:
    req = sc_pb.RequestDebug()
    req.debug.add().kill_unit.tag.append(tag)
    g.debug(1, req)


def act(g: Game, ability: int, tags: list[int], pos: tuple[float, float] | None = None, target: int = 0,
        queue: bool = False) -> int:
    return int(g.action(1, command(ability, tags, pos, target, queue)).result[0])


def rich(g: Game, minerals: int = 5000, vespene: int = 5000) -> None:
    g.world.supply.minerals[1] = minerals
    g.world.supply.vespene[1] = vespene

