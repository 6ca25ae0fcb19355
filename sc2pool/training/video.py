"""Writing rendered frames as videos: MP4 (H.264 through imageio-ffmpeg's bundled ffmpeg) or GIF
(Pillow), chosen by the file name. Used by ``sc2pool eval --video``, ``sc2pool train
--video-every`` and ``sc2pool replay --video``.

Frames stream to ffmpeg as they come (an MP4 never holds the whole episode in memory); a GIF is
assembled by Pillow at the end (GIFs are meant to be short). Both writers are silent: a training
run's progress bar stays intact while a video is written.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

#: ``sc2pool`` CLI videos play this many times faster than the game's real time by default
#: (MoveToBeacon at game_step 8: 2.8 steps per game second, so about 11 frames per second).
DEFAULT_SPEEDUP = 4.0
#: ... but at no fewer frames per second than this: a melee game takes a decision (a frame) every
#: 32 loops, 0.7 a game second, which 4x real time would play at a jerky 2.8 fps and a 20-minute
#: game in 5 minutes; at 10 fps it plays 14x real time, a 20-minute game in 84 s.
MIN_DEFAULT_FPS = 10.0


def default_fps(render_fps: float) -> float:
    """Frames per second of a CLI video of an env that renders ``render_fps`` frames per game
    second: :data:`DEFAULT_SPEEDUP` times real time, at least :data:`MIN_DEFAULT_FPS`."""
    return max(DEFAULT_SPEEDUP * float(render_fps), MIN_DEFAULT_FPS)


def _check_frame(frame: Any) -> np.ndarray:
    arr = np.asarray(frame)
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"a video frame must be a uint8 (H, W, 3) array, got {arr.dtype} {arr.shape}")
    return np.ascontiguousarray(arr)


def gif_bytes(frames: list[np.ndarray], fps: float) -> bytes:
    """An animated GIF (looping) of ``frames`` at ``fps``."""
    from PIL import Image

    if not frames:
        raise ValueError("a GIF needs at least one frame")
    arrays = [_check_frame(f) for f in frames]
    # One palette for the whole animation, from up to 16 frames spread over it: with a palette
    # per frame (Pillow's default) unchanged pixels change index, so every frame is stored whole;
    # with one palette Pillow stores only each frame's changed box (a melee game's GIF: 3.4 MB
    # instead of 4.1 MB; a mini-game's much less).
    sample = [a for a in arrays[:: max(1, len(arrays) // 16)] if a.shape[1] == arrays[0].shape[1]]
    palette = Image.fromarray(np.concatenate(sample, axis=0)).quantize(
        colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    images = [Image.fromarray(a).quantize(palette=palette, dither=Image.Dither.NONE) for a in arrays]
    buf = io.BytesIO()
    duration = max(20, int(round(1000.0 / fps)))  # GIF delays are in 10 ms units; browsers clamp < 20
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0, optimize=False)
    return buf.getvalue()


class VideoWriter:
    """Write frames to ``path``: a GIF when it ends in ``.gif``, else an MP4 (H.264, yuv420p).

    Args:
        path: the output file (its folder is created).
        fps: frames per second of the video.

    Raises:
        ValueError: ``fps`` not positive, a frame that is not uint8 (H, W, 3), or a frame whose
            size differs from the first one's.
    """

    def __init__(self, path: str | os.PathLike[str], fps: float) -> None:
        if not fps > 0:
            raise ValueError(f"video fps must be > 0, got {fps!r}")
        self.path = Path(path)
        self.fps = float(fps)
        self.gif = self.path.suffix.lower() == ".gif"
        self.frames = 0
        self.size: tuple[int, int] | None = None  # (height, width)
        self._gif_frames: list[np.ndarray] = []
        self._ffmpeg: Any = None
        self._closed = False
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, frame: Any) -> None:
        arr = _check_frame(frame)
        if self._closed:
            raise ValueError(f"the video {self.path} is already closed")
        if self.size is None:
            self.size = (arr.shape[0], arr.shape[1])
            if not self.gif:
                self._start_ffmpeg(arr.shape[1], arr.shape[0])
        elif arr.shape[:2] != self.size:
            raise ValueError(f"frame size {arr.shape[:2]} differs from the video's {self.size}")
        if self.gif:
            self._gif_frames.append(arr.copy())
        else:
            self._ffmpeg.send(arr.tobytes())
        self.frames += 1

    def _start_ffmpeg(self, width: int, height: int) -> None:
        import imageio_ffmpeg

        self._ffmpeg = imageio_ffmpeg.write_frames(
            str(self.path),
            (width, height),
            fps=self.fps,
            codec="libx264",
            pix_fmt_in="rgb24",
            pix_fmt_out="yuv420p",
            macro_block_size=2,  # keep the frame size (the renderer makes even sides)
            ffmpeg_log_level="error",
            quality=7,
        )
        self._ffmpeg.send(None)  # start the generator (launches ffmpeg)

    def close(self) -> None:
        """Finish the file (idempotent). A video without frames writes nothing."""
        if self._closed:
            return
        self._closed = True
        if self.gif:
            if self._gif_frames:
                self.path.write_bytes(gif_bytes(self._gif_frames, self.fps))
            self._gif_frames = []
        elif self._ffmpeg is not None:
            self._ffmpeg.close()
            self._ffmpeg = None

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def read_video_info(path: str | Path) -> tuple[tuple[int, int], int]:
    """``((width, height), frame count)`` of a video file (decodes it; for tests and checks)."""
    p = Path(path)
    if p.suffix.lower() == ".gif":
        from PIL import Image

        with Image.open(p) as im:
            return (im.width, im.height), int(getattr(im, "n_frames", 1))
    import imageio_ffmpeg

    gen = imageio_ffmpeg.read_frames(str(p))
    meta = next(gen)
    n = sum(1 for _ in gen)
    return (int(meta["size"][0]), int(meta["size"][1])), n


__all__ = ["DEFAULT_SPEEDUP", "MIN_DEFAULT_FPS", "VideoWriter", "default_fps", "gif_bytes", "read_video_info"]
