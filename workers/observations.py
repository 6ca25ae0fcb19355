"""Where a worker's observations go: the trainer's shared-memory file, or raw frames after a reply.

A local worker writes its envs' rows of the trainer's observation arrays in place (nothing but
rewards, flags and infos crosses the socket); a remote worker, or a local one without shared
memory, sends each observation array as a raw frame after the reply header.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
from typing import Any

import numpy as np
from gymnasium import spaces

from sc2pool.pool.spaces import ObsLayout

log = logging.getLogger("sc2pool.worker")


def shm_path_allowed(path: Any, total_envs: Any, lo: int, hi: int, *, local: bool, private_dir: str | None) -> bool:
    """Whether a worker may map the shared-memory file a WELCOME names.

    A remote worker never maps a file the broker names (a hostile broker could make it overwrite
    any file it can write); a local one only inside the trainer's private directory, and only a
    file that holds its own envs' rows."""
    if not local or not private_dir:
        return False
    if not isinstance(path, str) or not isinstance(total_envs, int) or total_envs < hi or lo < 0:
        return False
    return os.path.dirname(os.path.realpath(path)) == os.path.realpath(private_dir)


class ObsSink:
    """Writes a step's observations of envs ``lo..hi`` (global indices) to shared memory, or
    packs them as frames. Build it with :meth:`frames_only` or :meth:`shared`."""

    def __init__(self, layout: ObsLayout, num_envs: int, mm: mmap.mmap | None = None,
                 views: list[np.ndarray] | None = None) -> None:
        self.layout = layout
        self.n = num_envs
        self._mmap = mm
        self.views = views  # this worker's rows of the shm arrays (None: observations go as frames)
        self._frame_shape = (num_envs, *layout.shapes[0]) if layout.kind == "flat" else ()  # a flat one's frame

    @classmethod
    def frames_only(cls, space: spaces.Space[Any], num_envs: int) -> ObsSink:
        return cls(ObsLayout.of(space, num_envs), num_envs)

    @classmethod
    def shared(cls, space: spaces.Space[Any], path: str, total_envs: int, lo: int, hi: int) -> ObsSink:
        """Map the trainer's observation file (``total_envs`` rows) and keep views of rows lo..hi."""
        layout = ObsLayout.of(space, total_envs)
        with open(path, "r+b") as f:
            mm = mmap.mmap(f.fileno(), layout.nbytes)
        return cls(layout, hi - lo, mm, [v[lo:hi] for v in layout.allocate(mm)])

    @property
    def in_shared_memory(self) -> bool:
        return self.views is not None

    def write(self, obs_list: list[Any]) -> list[Any]:
        """Store one observation per env; returns the frames to send (none with shared memory).
        Raises (ValueError, TypeError, KeyError...) when an observation does not fit the space."""
        layout = self.layout
        views = self.views
        if layout.kind == "flat":
            if views is not None:
                view = views[0]
                for i, obs in enumerate(obs_list):
                    view[i] = obs
                return []
            arr = np.empty(self._frame_shape, dtype=layout.dtypes[0])
            for i, obs in enumerate(obs_list):
                arr[i] = obs
            return [arr]
        keys = layout.keys
        if views is None:
            views = [np.empty((self.n, *s), dtype=d) for s, d in zip(layout.shapes, layout.dtypes, strict=True)]
            out: list[Any] = views
        else:
            out = []
        for i, obs in enumerate(obs_list):
            for j, key in enumerate(keys):
                views[j][i] = obs[key]
        return out

    def release(self) -> None:
        """Drop the views and unmap the file (idempotent)."""
        self.views = None
        if self._mmap is not None:
            with contextlib.suppress(BufferError):
                self._mmap.close()
            self._mmap = None
