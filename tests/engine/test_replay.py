"""Engine replays: a burnysc2 bot saves one with ``save_replay_as``; playing it back through the
engine gives byte-identical observations; real-game replays and damaged files are clear errors."""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

sys.path.insert(0, str(Path(__file__).parent))

from engine_harness import session_processes

from sc2pool.engine.install import write_install
from sc2pool.engine.replay import MAGIC, EngineReplay, Event, Playback, ReplayError, ReplayFormatError
from sc2pool.engine.session import EngineSession

SCRIPT = Path(__file__).with_name("replay_game_script.py")


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    """(replay file, observations the bot received), from one unmodified ``run_game``."""
    tmp = tmp_path_factory.mktemp("replay")
    root = write_install(tmp / "StarCraftII")
    replay, observations = tmp / "beacon.sc2pool-replay", tmp / "observations.msgpack"
    env = {**os.environ, "SC2PATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(replay), str(observations), "11"], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
        # engines that outlived the script (a module-scoped fixture: the per-test process_tree
        # check does not cover it)
        for p in session_processes(proc.pid):
            p.kill()
    assert proc.returncode == 0, err[-3000:]
    return replay, msgpack.unpackb(observations.read_bytes())


@pytest.mark.timeout(120)
def test_playback_is_byte_identical_to_the_game(saved_game: tuple[Path, list[bytes]]) -> None:
    path, seen = saved_game
    data = path.read_bytes()
    assert data.startswith(MAGIC)
    replay = EngineReplay.load(path)
    assert replay.map_path.endswith("MoveToBeacon.SC2Map") and replay.seed == 11 and replay.episode == 0
    assert len(seen) > 30
    played = [s.observation for s in Playback(replay).observations(player_id=1)]
    # burnysc2 asks for more observations than it hands to on_step (one before on_start, the
    # final one): every observation the bot saw must come back, in order, byte for byte.
    canonical = [sc_pb.ResponseObservation.FromString(b).SerializeToString() for b in played]
    j = 0
    for obs in canonical:
        if j < len(seen) and obs == seen[j]:
            j += 1
    assert j == len(seen), f"observation {j} of the bot (of {len(seen)}) is not reproduced on playback"
    assert len(played) <= len(seen) + 3
    last = sc_pb.ResponseObservation.FromString(played[-1])
    assert last.observation.score.score >= 1, "the bot reached the beacon at least once"
    assert last.observation.game_loop == replay.final_loop


def test_a_changed_action_is_detected_or_changes_the_game(saved_game: tuple[Path, list[bytes]]) -> None:
    """Playback really replays the recorded actions: dropping them gives a different game."""
    path, seen = saved_game
    replay = EngineReplay.load(path)
    replay.events = [e for e in replay.events if e[0] != 2]  # no actions: the marine stays put
    played = [s.observation for s in Playback(replay).observations(player_id=1)]
    canonical = {sc_pb.ResponseObservation.FromString(b).SerializeToString() for b in played}
    assert not set(seen[-5:]) & canonical


def test_real_game_replays_and_other_files_are_refused(tmp_path: Path) -> None:
    mpq = tmp_path / "ladder.SC2Replay"
    mpq.write_bytes(b"MPQ\x1b" + bytes(1020))
    with pytest.raises(ReplayFormatError, match=r"\.SC2Replay, an MPQ archive"):
        EngineReplay.load(mpq)
    with pytest.raises(ReplayFormatError, match="not an sc2pool replay"):
        EngineReplay.loads(b"hello world")
    with pytest.raises(ReplayFormatError, match="damaged"):
        EngineReplay.loads(MAGIC + b"\x00garbage")
    broken = {"format": "sc2pool-replay", "version": 1, "events": [], "results": [1, 2]}
    with pytest.raises(ReplayFormatError, match="damaged"):
        EngineReplay.loads(MAGIC + zlib.compress(msgpack.packb(broken)))
    future = MAGIC + zlib.compress(msgpack.packb({"format": "sc2pool-replay", "version": 99, "engine": 3}))
    with pytest.raises(ReplayFormatError, match="version 99"):
        EngineReplay.loads(future)
    # The SC2 API's start_replay on the engine names the format too.
    session = EngineSession()
    req = sc_pb.Request(id=3)
    req.start_replay.replay_data = mpq.read_bytes()
    resp = sc_pb.Response.FromString(session.handle(req.SerializeToString()))
    assert resp.error and "MPQ" in resp.error[0] and "SC2Replay" in resp.error[0]


def _beacon_session() -> Callable[..., sc_pb.Response]:
    """A session in a MoveToBeacon game (seed 5), and a function that sends it a request and
    returns the answer, failing the test on an error answer."""
    session = EngineSession()

    def ask(**kw: object) -> sc_pb.Response:
        resp = sc_pb.Response.FromString(session.handle(sc_pb.Request(**kw).SerializeToString()))  # type: ignore[arg-type]
        assert not resp.error, resp.error
        return resp

    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="mini_games/MoveToBeacon.SC2Map"), random_seed=5)
    create.player_setup.add(type=sc_pb.Participant, race=1)
    ask(create_game=create)
    ask(join_game=sc_pb.RequestJoinGame(race=1, options=sc_pb.InterfaceOptions(raw=True, score=True)))
    return ask


def test_save_replay_through_the_session_after_a_restart() -> None:
    """A replay of a later episode (after restart_game) starts from that episode's seed."""
    ask = _beacon_session()
    ask(step=sc_pb.RequestStep(count=50))
    ask(restart_game=sc_pb.RequestRestartGame())
    originals = []
    for _ in range(3):
        originals.append(ask(observation=sc_pb.RequestObservation()).observation.SerializeToString())
        ask(step=sc_pb.RequestStep(count=16))
    data = ask(save_replay=sc_pb.RequestSaveReplay()).save_replay.data
    replay = EngineReplay.loads(data)
    assert replay.episode == 1 and replay.seed == 5
    played = [sc_pb.ResponseObservation.FromString(s.observation).SerializeToString()
              for s in Playback(replay).observations()]
    assert played == originals
    with pytest.raises(ReplayError, match="game loop"):
        replay.events.insert(0, (3, 0, 0, 1))  # an extra step shifts every later request
        list(Playback(replay).observations())


@pytest.mark.timeout(60)
def test_replay_cli_writes_a_video(saved_game: tuple[Path, list[bytes]], tmp_path: Path) -> None:
    from sc2pool.cli import main
    from sc2pool.training.render import FrameRenderer
    from sc2pool.training.video import read_video_info

    path, seen = saved_game
    out = tmp_path / "beacon.mp4"
    assert main(["replay", str(path), "--video", str(out)]) == 0
    size, frames = read_video_info(out)
    # one frame per game loop the bot observed (burnysc2 asks twice at loop 0)
    loops = {sc_pb.ResponseObservation.FromString(b).observation.game_loop for b in seen}
    playback = Playback(EngineReplay.load(path))
    big, small = FrameRenderer(playback.game_info(), 256), FrameRenderer(playback.game_info(), 64)
    assert size == (big.width, big.height) and frames >= len(loops)
    gif = tmp_path / "beacon.gif"
    assert main(["replay", str(path), "--video", str(gif), "--size", "64"]) == 0
    assert read_video_info(gif) == ((small.width, small.height), frames)
    mpq = tmp_path / "real.SC2Replay"
    mpq.write_bytes(b"MPQ\x1a" + bytes(64))
    assert main(["replay", str(mpq)]) == 2
    assert main(["replay", str(path), "--player", "2"]) == 2


@pytest.mark.timeout(60)
def test_bot_vs_bot_replay_reproduces_both_players() -> None:
    """Two players in lockstep on one engine: the replay interleaves both players' requests,
    and playback gives each player's observations back byte for byte."""
    import asyncio

    from s2clientprotocol import common_pb2, raw_pb2

    from sc2pool.engine.session import RoomRegistry

    async def send(s: EngineSession, **kw: object) -> sc_pb.Response:
        out = s.handle(sc_pb.Request(**kw).SerializeToString())  # type: ignore[arg-type]
        if s.pending is not None:
            out = await s.take_pending()
        resp = sc_pb.Response.FromString(out)
        assert not resp.error, resp.error
        return resp

    async def play() -> tuple[dict[int, list[bytes]], bytes]:
        reg = RoomRegistry()
        a, b = EngineSession(registry=reg), EngineSession(registry=reg)
        create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="Skirmish.SC2Map"), random_seed=21)
        create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
        create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Zerg)
        await send(a, create_game=create)
        opts = sc_pb.InterfaceOptions(raw=True, score=True)
        await asyncio.gather(send(a, join_game=sc_pb.RequestJoinGame(race=common_pb2.Terran, options=opts)),
                             send(b, join_game=sc_pb.RequestJoinGame(race=common_pb2.Zerg, options=opts)))
        seen: dict[int, list[bytes]] = {1: [], 2: []}

        async def player(s: EngineSession, pid: int) -> None:
            for _ in range(12):
                obs = (await send(s, observation=sc_pb.RequestObservation())).observation
                seen[pid].append(obs.SerializeToString())
                mine = [u.tag for u in obs.observation.raw_data.units if u.alliance == 1]
                foe = [u for u in obs.observation.raw_data.units if u.alliance == 4]
                if mine and foe:
                    act = sc_pb.RequestAction()
                    act.actions.add().action_raw.unit_command.MergeFrom(raw_pb2.ActionRawUnitCommand(
                        ability_id=23, unit_tags=mine, target_world_space_pos=common_pb2.Point2D(x=foe[0].pos.x, y=foe[0].pos.y)))
                    await send(s, action=act)
                await send(s, step=sc_pb.RequestStep(count=8))

        await asyncio.gather(player(a, 1), player(b, 2))
        return seen, (await send(a, save_replay=sc_pb.RequestSaveReplay())).save_replay.data

    seen, data = asyncio.run(play())
    replay = EngineReplay.loads(data)
    assert replay.player_ids == [1, 2] and {e[1] for e in replay.events if e[0] == 2} == {1, 2}
    played: dict[int, list[bytes]] = {1: [], 2: []}
    for step in Playback(replay).observations():
        played[step.player_id].append(sc_pb.ResponseObservation.FromString(step.observation).SerializeToString())
    assert played == seen


def test_debug_draws_are_not_recorded_and_the_rest_of_a_debug_request_is() -> None:
    """A bot drawing thousands of boxes a step (python-sc2's ramp_wall draws the pathing grid)
    must not grow the recording; a debug command beside the draws still replays."""
    from s2clientprotocol import debug_pb2

    ask = _beacon_session()

    def drawing(with_kill: int = 0) -> sc_pb.RequestDebug:
        req = sc_pb.RequestDebug()
        draw = req.debug.add().draw
        for i in range(2000):
            box = draw.boxes.add()
            box.min.x, box.min.y, box.max.x, box.max.y = i % 64, i // 64, i % 64 + 0.5, i // 64 + 0.5
        if with_kill:
            req.debug.add().kill_unit.tag.append(with_kill)
        return req

    for _ in range(5):
        ask(debug=drawing())
        ask(step=sc_pb.RequestStep(count=8))
    marine = next(u for u in ask(observation=sc_pb.RequestObservation()).observation.observation.raw_data.units if u.alliance == 1)
    ask(debug=drawing(with_kill=marine.tag))
    ask(step=sc_pb.RequestStep(count=8))
    final = ask(observation=sc_pb.RequestObservation()).observation.observation
    assert not any(u.alliance == 1 for u in final.raw_data.units)
    replay = EngineReplay.loads(ask(save_replay=sc_pb.RequestSaveReplay()).save_replay.data)
    debugs = [e for e in replay.events if e[0] == Event.DEBUG]
    assert len(debugs) == 1  # only the request with a kill, and only its kill
    payload = debugs[0][3]
    recorded = sc_pb.RequestDebug.FromString(payload) if isinstance(payload, bytes) else payload
    assert [c.WhichOneof("command") for c in recorded.debug] == ["kill_unit"]
    assert isinstance(recorded.debug[0], debug_pb2.DebugCommand)
    played = list(Playback(replay).observations())
    assert not any(u.alliance == 1 for u in sc_pb.ResponseObservation.FromString(played[-1].observation).observation.raw_data.units)
