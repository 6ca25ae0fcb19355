"""A tiny stand-in for ``sc2pool.engine.game.Game`` so protocol tests do not depend on the simulation.

It honours the Game API the session calls, counts calls, and ends after ``END_LOOP`` game loops.
"""

from __future__ import annotations

from typing import Any

from s2clientprotocol import common_pb2, data_pb2, error_pb2, query_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

END_LOOP = 64


class StubError(Exception):
    """The stub's refusal (plays GameError's role)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class StubGame:
    created = 0

    def __init__(self, req: sc_pb.RequestCreateGame) -> None:
        self.req = req
        self.game_loop = 0
        self.ended = False
        self.seed = req.random_seed
        self.calls: dict[str, int] = {}
        self.joined: list[int] = []
        self.left: list[int] = []
        self.end_loop = END_LOOP

    @classmethod
    def create(cls, req: sc_pb.RequestCreateGame) -> StubGame:
        name = req.local_map.map_path.rsplit("/", 1)[-1].removesuffix(".SC2Map")
        if name == "Missing":
            raise StubError(f"unknown map {name}", code=sc_pb.ResponseCreateGame.InvalidMapPath)
        if name == "Broken":
            raise RuntimeError("simulated engine bug")
        cls.created += 1
        return cls(req)

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def join(self, req: sc_pb.RequestJoinGame) -> int:
        self._count("join")
        if not req.HasField("race"):
            raise StubError("observers are not supported", code=sc_pb.ResponseJoinGame.FeatureUnsupported)
        slots = max(1, sum(1 for p in self.req.player_setup if p.type == sc_pb.Participant))
        if len(self.joined) >= slots:
            raise StubError("All participant slots are taken", code=sc_pb.ResponseJoinGame.GameFull)
        self.joined.append(len(self.joined) + 1)
        return self.joined[-1]

    def data(self, req: sc_pb.RequestData) -> sc_pb.ResponseData:
        self._count("data")
        return sc_pb.ResponseData(units=[data_pb2.UnitTypeData(unit_id=48, name="Marine", available=True)])

    def game_info(self, player_id: int) -> sc_pb.ResponseGameInfo:
        self._count("game_info")
        gi = sc_pb.ResponseGameInfo(map_name="Stub", local_map_path=self.req.local_map.map_path)
        gi.start_raw.map_size.x = 8
        gi.start_raw.map_size.y = 8
        return gi

    def observation(self, player_id: int, req: sc_pb.RequestObservation) -> sc_pb.ResponseObservation:
        self._count("observation")
        obs = sc_pb.ResponseObservation()
        obs.observation.game_loop = self.game_loop
        obs.observation.raw_data.units.add(tag=1, unit_type=48, owner=1, alliance=raw_pb2.Self, pos=common_pb2.Point(x=1, y=2, z=0))
        if self.ended:
            obs.player_result.add(player_id=1, result=sc_pb.Victory)
        return obs

    def action(self, player_id: int, req: sc_pb.RequestAction) -> sc_pb.ResponseAction:
        self._count("action")
        return sc_pb.ResponseAction(result=[error_pb2.Success] * len(req.actions))

    def step(self, count: int) -> None:
        self._count("step")
        self.game_loop += count
        if self.game_loop >= self.end_loop:
            self.ended = True

    def query(self, player_id: int, req: query_pb2.RequestQuery) -> query_pb2.ResponseQuery:
        self._count("query")
        return query_pb2.ResponseQuery(pathing=[query_pb2.ResponseQueryPathing(distance=1.0) for _ in req.pathing])

    def debug(self, player_id: int, req: Any) -> None:
        self._count("debug")
        for cmd in req.debug:
            if cmd.HasField("end_game"):
                self.ended = True

    def restart(self) -> None:
        self._count("restart")
        self.game_loop = 0
        self.ended = False

    def leave(self, player_id: int) -> None:
        self.left.append(player_id)
