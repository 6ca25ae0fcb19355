"""``sc2pool replay FILE``: play an engine replay back through the engine, optionally as a video.

A replay is what the engine's ``save_replay`` returns (burnysc2: ``run_game(save_replay_as=...)``);
see :mod:`sc2pool.engine.replay` for the format. ``register`` stays cheap.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from sc2pool.cli.args import positive_float, positive_int


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="play an engine replay (saved with save_replay) back, optionally to a video",
        description="Play back a replay saved by the sc2pool engine (burnysc2's save_replay / "
        "run_game(save_replay_as=...)) and print what happened; --video renders it as MP4 (or GIF).",
    )
    p.add_argument("file", help="the replay file")
    p.add_argument("--video", default=None, metavar="PATH", help="write the game as a video (.mp4, or .gif)")
    p.add_argument("--player", type=positive_int, default=1, help="whose observations to draw (default 1)")
    p.add_argument("--size", type=positive_int, default=256, help="video pixels on the long side (default 256)")
    p.add_argument("--fps", type=positive_float, default=None, help="video frames per second (default 4x real time, at least 10)")
    p.set_defaults(func=_replay)


def _replay(args: argparse.Namespace) -> int:
    from s2clientprotocol import sc2api_pb2 as sc_pb

    from sc2pool.engine.replay import EngineReplay, Event, Playback, ReplayError
    from sc2pool.training.render import LOOPS_PER_SECOND, FrameRenderer
    from sc2pool.training.video import VideoWriter, default_fps

    try:
        replay = EngineReplay.load(args.file)
    except OSError as exc:
        print(f"sc2pool replay: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    except ReplayError as exc:
        print(f"sc2pool replay: {exc}", file=sys.stderr)
        return 2
    if args.player not in replay.player_ids:
        print(f"sc2pool replay: no player {args.player} in this replay (players: {replay.player_ids})", file=sys.stderr)
        return 2
    loops = [loop for kind, pid, loop, _ in replay.events if kind == Event.OBSERVATION and pid == args.player]
    gaps = Counter(b - a for a, b in zip(loops, loops[1:], strict=False) if b > a)
    step = gaps.most_common(1)[0][0] if gaps else 8
    fps = args.fps or default_fps(LOOPS_PER_SECOND / step)
    results = replay.results or {}
    names = {v: k for k, v in sc_pb.Result.items()}
    print(
        f"replay: {replay.map_path}  seed {replay.seed}  episode {replay.episode}  players {replay.player_ids}  "
        f"{len(replay.events)} requests  {replay.final_loop} loops ({replay.final_loop / LOOPS_PER_SECOND:.1f} game s)  "
        f"result: {', '.join(f'player {p} {names.get(r, r)}' for p, r in sorted(results.items())) or 'none'}"
    )
    writer = VideoWriter(args.video, fps) if args.video else None
    frames = 0
    last_loop = -1
    score = 0
    try:
        playback = Playback(replay)
        renderer = FrameRenderer(playback.game_info(args.player), args.size) if writer is not None else None
        for step_obs in playback.observations(args.player):
            obs = sc_pb.ResponseObservation.FromString(step_obs.observation)
            score = obs.observation.score.score
            if step_obs.game_loop == last_loop:
                continue  # the same moment asked twice (burnysc2 does at the start)
            last_loop = step_obs.game_loop
            frames += 1
            if writer is not None and renderer is not None:
                writer.append(renderer.render(obs))
    except (ReplayError, ValueError) as exc:
        print(f"sc2pool replay: {exc}", file=sys.stderr)
        return 1
    finally:
        if writer is not None:
            writer.close()
    print(f"played back {frames} observations of player {args.player}; final score {score}")
    if writer is not None:
        print(f"video: {writer.path} ({writer.frames} frames, {fps:.1f} fps)")
    return 0
