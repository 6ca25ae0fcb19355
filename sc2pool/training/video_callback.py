"""Videos of the agent while it trains: ``sc2pool train --video-every N``.

Kept out of :mod:`sc2pool.training.train` because it imports SB3 at module level (workers import
``sc2pool.training.train`` for a constant and must not pay for torch).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat
from stable_baselines3.common.vec_env import VecEnvWrapper
from tensorboard.compat.proto.summary_pb2 import Summary

from sc2pool.training.video import VideoWriter, gif_bytes


class VideoCallback(BaseCallback):
    """Records env 0 of the training env while PPO trains: its episode running at the start of
    training, then - after every ``every`` timesteps - its next episode from the first frame, at
    most ``max_frames`` frames each. Each video goes to ``folder/step_<timestep>.mp4`` and to
    TensorBoard as an animated GIF (tag ``videos/env0``; TensorBoard's image tab plays it).

    Only env 0 renders (``ZmqVecEnv.get_images(indices=[0])``): one small frame per step while
    recording, nothing otherwise. Writing is silent (no encoder progress bars), so the training
    progress bar stays as it is; one line per saved video is printed.
    """

    def __init__(self, every: int, folder: str | os.PathLike[str], fps: float, max_frames: int = 400) -> None:
        super().__init__()
        self.every = int(every)
        self.folder = Path(folder)
        self.fps = float(fps)
        self.max_frames = int(max_frames)
        self.saved: list[Path] = []
        self._frames: list[np.ndarray] | None = None
        self._started_at = 0
        self._next_at = 0

    def _frame(self) -> np.ndarray:
        venv = self.training_env
        while isinstance(venv, VecEnvWrapper):
            venv = venv.venv
        try:
            images = venv.get_images(indices=[0])  # type: ignore[call-arg]
        except TypeError:  # a VecEnv without the indices argument
            images = venv.get_images()
        frame = images[0]
        if not isinstance(frame, np.ndarray):
            raise ValueError("VideoCallback needs envs built with render_mode='rgb_array'")
        return frame

    def _on_training_start(self) -> None:
        self._begin()  # the env was just reset: its first frame

    def _begin(self) -> None:
        self._started_at = int(self.num_timesteps)
        self._frames = []
        self._capture()

    def _capture(self) -> None:
        """Add env 0's frame. A failure to get it (a worker being replaced under
        ``on_failure="restart"``, say) drops this video, not the training run."""
        try:
            frame = self._frame()
        except Exception as exc:  # noqa: BLE001 - a video is never worth a training run
            print(f"video: recording from timestep {self._started_at} dropped ({type(exc).__name__}: {exc})", flush=True)
            self._frames = None
            self._next_at = int(self.num_timesteps) + self.every
            return
        if self._frames is not None:
            self._frames.append(frame)

    def _on_step(self) -> bool:
        dones = self.locals.get("dones")
        done0 = bool(dones[0]) if dones is not None and len(dones) else False
        if self._frames is not None:
            if done0:
                infos = self.locals.get("infos")
                last = infos[0].get("terminal_frame") if infos else None
                if isinstance(last, np.ndarray) and len(self._frames) < self.max_frames:
                    self._frames.append(last)  # env 0 is already reset: its last picture
                self._save()
            elif len(self._frames) >= self.max_frames:
                self._save()
            else:
                self._capture()
        elif done0 and self.num_timesteps >= self._next_at:
            self._begin()  # env 0 was just reset by this step: a whole episode ahead
        return True

    def _on_training_end(self) -> None:
        if self._frames is not None and len(self._frames) >= 2:
            self._save()
        self._frames = None

    def _save(self) -> None:
        frames, self._frames = self._frames or [], None
        self._next_at = self._started_at + self.every
        if not frames:
            return
        path = self.folder / f"step_{self._started_at:09d}.mp4"
        with VideoWriter(path, self.fps) as writer:
            for f in frames:
                writer.append(f)
        self.saved.append(path)
        print(f"video: {path} ({len(frames)} frames, from timestep {self._started_at})", flush=True)
        tb = _tensorboard_writer(self.logger)
        if tb is not None:
            stride = max(1, len(frames) // 200)  # keep the event file small
            gif = gif_bytes(frames[::stride], self.fps / stride)
            h, w = frames[0].shape[:2]
            image = Summary.Image(height=h, width=w, colorspace=3, encoded_image_string=gif)
            tb._get_file_writer().add_summary(Summary(value=[Summary.Value(tag="videos/env0", image=image)]), self._started_at)
            tb.flush()


def _tensorboard_writer(logger: Any) -> Any:
    """SB3's TensorBoard ``SummaryWriter`` of ``logger``, or None when not logging to TensorBoard.
    (SB3's own ``Video`` record goes through torch's ``add_video``, which needs ``moviepy.editor``:
    gone in moviepy 2, so GIF summaries are written directly.)"""
    for fmt in getattr(logger, "output_formats", []):
        if isinstance(fmt, TensorBoardOutputFormat):
            return fmt.writer
    return None


__all__ = ["VideoCallback"]
