"""Turn a video of ``sc2pool eval --video`` into a short animated GIF for the docs.

    python tools/video_to_gif.py IN.gif OUT.gif [--every N] [--fps F]     (or IN.mp4)

A GIF input is lossless and gives a much smaller result: H.264's noise changes every pixel of
every frame, which a GIF then stores whole.

Keeps every N-th frame (and always the last one: the game's end), played at F frames per second,
written with :func:`sc2pool.training.video.gif_bytes` (one palette for the whole animation).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def _frames(path: Path) -> list[np.ndarray]:
    if path.suffix.lower() == ".gif":
        from PIL import Image

        with Image.open(path) as im:
            out = []
            for i in range(int(getattr(im, "n_frames", 1))):
                im.seek(i)
                out.append(np.asarray(im.convert("RGB")))
            return out
    import imageio_ffmpeg

    gen = imageio_ffmpeg.read_frames(str(path))
    meta = next(gen)
    w, h = meta["size"]
    return [np.frombuffer(f, np.uint8).reshape(h, w, 3) for f in gen]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("video", type=Path)
    p.add_argument("gif", type=Path)
    p.add_argument("--every", type=int, default=2, help="keep every N-th frame (default 2)")
    p.add_argument("--fps", type=float, default=12.5, help="frames per second of the GIF (default 12.5)")
    args = p.parse_args(argv)
    if args.every < 1 or not args.fps > 0:
        p.error("--every must be >= 1 and --fps > 0")
    from sc2pool.training.video import gif_bytes

    frames = _frames(args.video)
    if not frames:
        print(f"{args.video}: no frames", file=sys.stderr)
        return 1
    kept = frames[:: args.every]
    if len(frames) > 1 and (len(frames) - 1) % args.every:
        kept.append(frames[-1])
    args.gif.write_bytes(gif_bytes(kept, args.fps))
    size = args.gif.stat().st_size
    print(f"{args.gif}: {len(kept)} frames of {len(frames)}, {len(kept) / args.fps:.1f} s, {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
