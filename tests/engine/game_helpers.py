"""Helpers for the engine's Game tests: create and join games, build raw unit commands, list
units. A helper module, not a test module, so that test modules share it without importing one
another."""

from __future__ import annotations

from collections.abc import Iterator

from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2pool.engine.game import Game


def create(map_path: str, *extra: dict[str, int], seed: int | None = 7, race: int = 1) -> Game:
    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=map_path))
    if seed is not None:
        req.random_seed = seed
    req.player_setup.add(type=1, race=race)  # type: ignore[arg-type]
    for e in extra:
        req.player_setup.add(**e)  # type: ignore[arg-type]
    return Game.create(req)


def joined(map_path: str, *extra: dict[str, int], seed: int | None = 7) -> Game:
    g = create(map_path, *extra, seed=seed)
    assert g.join(sc_pb.RequestJoinGame(race=1)) == 1  # type: ignore[arg-type]
    return g


def command(ability: int, tags: list[int], pos: tuple[float, float] | None = None, target: int = 0,
            queue: bool = False) -> sc_pb.RequestAction:
    req = sc_pb.RequestAction()
    uc = req.actions.add().action_raw.unit_command
    uc.ability_id = ability
    uc.unit_tags.extend(tags)
    uc.queue_command = queue
    if pos is not None:
        uc.target_world_space_pos.x, uc.target_world_space_pos.y = pos
    if target:
        uc.target_unit_tag = target
    return req


def units(g: Game, alliance: int | None = None) -> list[raw_pb2.Unit]:
    obs = g.observation(1, sc_pb.RequestObservation())
    return [u for u in obs.observation.raw_data.units if alliance is None or u.alliance == alliance]


RandomCommand = tuple[int, list[int], "tuple[float, float] | None", int, bool, int]


def play_random_commands(g: Game, actions: list[RandomCommand]) -> Iterator[None]:
    """Issue each drawn command to player 1 (unit indices beyond the units alive become unknown
    tags, a target index out of range no target) and step its loops; yields after every step so
    the caller checks its invariants there. Every command must be answered with a result."""
    for ability, idx, pos, target, queue, loops in actions:
        tags = g.world.u.tag.tolist()
        pick = [tags[i] if i < len(tags) else 12345 + i for i in idx]
        ttag = tags[target] if 0 <= target < len(tags) else 0
        res = g.action(1, command(ability, pick, pos, ttag, queue))
        assert len(res.result) == 1 and res.result[0] >= 1
        g.step(loops)
        yield
