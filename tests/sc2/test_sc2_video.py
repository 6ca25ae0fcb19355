"""Videos from the CLI: ``sc2pool eval --video`` and ``sc2pool train --video-every`` (tiny budgets,
embedded engine in the workers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sc2pool.training.video import VideoWriter, read_video_info

ENV = {k: v for k, v in os.environ.items() if k != "SC2PATH"}


def _beacon_wh(size: int) -> tuple[int, int]:
    """(width, height) of MoveToBeacon frames at ``size`` px, whatever the engine's arena."""
    from s2clientprotocol import sc2api_pb2 as sc_pb

    from sc2pool.engine.game import Game
    from sc2pool.training.render import FrameRenderer

    req = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="mini_games/MoveToBeacon.SC2Map"), random_seed=1)
    req.player_setup.add(type=sc_pb.Participant, race=1)
    game = Game.create(req)
    r = FrameRenderer(game.game_info(game.join(sc_pb.RequestJoinGame(race=1))), size)  # type: ignore[arg-type]
    return r.width, r.height


@pytest.mark.timeout(120)
def test_eval_writes_the_evaluated_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sc2pool.cli import main

    video = tmp_path / "beacon.gif"
    rc = main(["eval", "--policy", "scripted", "--episodes", "2", "--engine", "inprocess", "--render-size", "64",
               "--video", str(video)])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0, out
    # MoveToBeacon: 120 game s at 8 loops per step = 240 steps per episode: the reset frame, one
    # per step before the last, and the terminal frame the last step carries in its info.
    assert read_video_info(video) == (_beacon_wh(64), 482)
    assert f"video: {video} (482 frames)" in out


@pytest.mark.timeout(180)
def test_train_records_videos_while_the_progress_bar_runs(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = subprocess.run(
        [sys.executable, "-m", "sc2pool", "train", "--workers", "1", "--envs-per-worker", "2", "--timesteps", "768",
         "--engine", "inprocess", "--out", str(out), "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1}),
         "--video-every", "256", "--video-length", "8"],
        capture_output=True, text=True, timeout=150, env=ENV,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    videos = sorted((out / "videos").glob("step_*.mp4"))
    # One at the start, then env 0's next episode after 256 timesteps (its first ends at 480).
    assert [v.name for v in videos] == ["step_000000000.mp4", "step_000000480.mp4"], r.stdout
    for v in videos:
        assert read_video_info(v) == (_beacon_wh(256), 8)
    both = r.stdout + r.stderr
    assert "768/768" in both, "the progress bar ran to the end"
    assert "MoviePy" not in both and "frame_index" not in both, "an encoder printed its own progress"

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (logdir,) = (out / "tensorboard").iterdir()
    acc = EventAccumulator(str(logdir), size_guidance={"images": 0})
    acc.Reload()
    images = acc.Images("videos/env0")
    assert [i.step for i in images] == [0, 480]
    assert all(i.encoded_image_string.startswith(b"GIF89a") and (i.width, i.height) == _beacon_wh(256) for i in images)


def test_video_writer_checks_its_frames(tmp_path: Path) -> None:
    import numpy as np

    with pytest.raises(ValueError, match="fps"):
        VideoWriter(tmp_path / "a.mp4", 0)
    w = VideoWriter(tmp_path / "a.mp4", 10)
    with pytest.raises(ValueError, match="uint8"):
        w.append(np.zeros((8, 8), dtype=np.uint8))
    w.append(np.zeros((8, 8, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="differs"):
        w.append(np.zeros((16, 8, 3), dtype=np.uint8))
    w.append(np.full((8, 8, 3), 200, dtype=np.uint8))
    w.close()
    w.close()  # idempotent
    assert read_video_info(tmp_path / "a.mp4") == ((8, 8), 2)


def test_remote_worker_command_carries_rendering() -> None:
    from sc2pool.training.train import remote_worker_command

    cmd = remote_worker_command("tcp://10.0.0.1:7", "MoveToBeacon", 2, render_size=128)
    assert cmd.endswith("--task MoveToBeacon --envs 2 --render --render-size 128")


def test_a_frame_that_cannot_be_had_drops_the_video_not_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sc2pool.training.video_callback import VideoCallback

    cb = VideoCallback(every=100, folder=tmp_path, fps=10)

    def lost() -> None:
        raise ConnectionError("env 0: the worker is being replaced")

    cb._frame = lost  # type: ignore[method-assign]
    cb._on_training_start()
    assert cb._on_step() is True  # training goes on
    cb._on_training_end()
    assert "dropped (ConnectionError" in capsys.readouterr().out
    assert cb.saved == [] and not list(tmp_path.iterdir())
