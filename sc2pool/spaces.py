"""Gymnasium spaces <-> plain msgpack descriptions, and observation buffer layout.

Spaces travel in HELLO as plain maps (never pickled) so a worker on another machine can describe
its envs and the broker can check that every worker hosts the same spaces. The observation of a
vectorised env is kept SB3-style as one preallocated array per *key* (``None`` for a flat space,
the dict key for ``Dict``, the position for ``Tuple``), each of shape ``(n_envs, *shape)``; this
module computes that layout so that the trainer and local workers can place the arrays in one
shared-memory file at identical offsets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from sc2pool.errors import SpaceError


def space_to_msg(space: spaces.Space[Any]) -> dict[str, Any]:
    """Describe a space as a msgpack-able map. Raises :class:`SpaceError` for unsupported types."""
    if isinstance(space, spaces.Box):
        return {
            "type": "Box",
            "low": np.asarray(space.low),
            "high": np.asarray(space.high),
            "shape": list(space.shape),
            "dtype": np.dtype(space.dtype).str,
        }
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.MultiDiscrete):
        return {
            "type": "MultiDiscrete",
            "nvec": np.asarray(space.nvec),
            "start": np.asarray(space.start),
            "dtype": np.dtype(space.dtype).str,
        }
    if isinstance(space, spaces.MultiBinary):
        n: Any = space.n
        return {"type": "MultiBinary", "n": int(n) if np.ndim(n) == 0 else [int(x) for x in n]}
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "spaces": [[key, space_to_msg(sub)] for key, sub in space.spaces.items()]}
    if isinstance(space, spaces.Tuple):
        return {"type": "Tuple", "spaces": [space_to_msg(sub) for sub in space.spaces]}
    raise SpaceError(
        f"space type {type(space).__name__} is not supported by sc2pool "
        "(supported: Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple)"
    )


def space_from_msg(msg: Any) -> spaces.Space[Any]:
    """Rebuild a space from :func:`space_to_msg`'s description. Raises :class:`SpaceError`."""
    try:
        kind = msg["type"]
        if kind == "Box":
            return spaces.Box(
                low=np.asarray(msg["low"]),
                high=np.asarray(msg["high"]),
                shape=tuple(msg["shape"]),
                dtype=np.dtype(msg["dtype"]),
            )
        if kind == "Discrete":
            return spaces.Discrete(int(msg["n"]), start=int(msg["start"]))
        if kind == "MultiDiscrete":
            return spaces.MultiDiscrete(
                np.asarray(msg["nvec"]), dtype=np.dtype(msg["dtype"]), start=np.asarray(msg["start"])
            )
        if kind == "MultiBinary":
            n = msg["n"]
            return spaces.MultiBinary(n if isinstance(n, int) else [int(x) for x in n])
        if kind == "Dict":
            return spaces.Dict({key: space_from_msg(sub) for key, sub in msg["spaces"]})
        if kind == "Tuple":
            return spaces.Tuple([space_from_msg(sub) for sub in msg["spaces"]])
    except SpaceError:
        raise
    except Exception as exc:
        raise SpaceError(f"malformed space description: {type(exc).__name__}: {exc}") from None
    raise SpaceError(f"unknown space type {kind!r}")


def spaces_equal(a: spaces.Space[Any], b: spaces.Space[Any]) -> bool:
    """Structural equality, exact on dtypes and bounds (gymnasium's ``==`` on Box uses allclose)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, spaces.Box) and isinstance(b, spaces.Box):
        return (
            a.shape == b.shape
            and a.dtype == b.dtype
            and np.array_equal(a.low, b.low, equal_nan=True)
            and np.array_equal(a.high, b.high, equal_nan=True)
        )
    if isinstance(a, spaces.Dict) and isinstance(b, spaces.Dict):
        return list(a.spaces) == list(b.spaces) and all(spaces_equal(a[k], b[k]) for k in a.spaces)
    if isinstance(a, spaces.Tuple) and isinstance(b, spaces.Tuple):
        return len(a.spaces) == len(b.spaces) and all(
            spaces_equal(x, y) for x, y in zip(a.spaces, b.spaces, strict=True)
        )
    return bool(a == b)


@dataclass(frozen=True)
class ObsLayout:
    """Per-key layout of the vectorised observation: keys, shapes, dtypes and byte offsets of the
    ``(n_envs, *shape)`` arrays inside one contiguous buffer (64-byte aligned)."""

    keys: tuple[Any, ...]
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[np.dtype[Any], ...]
    offsets: tuple[int, ...]
    n_envs: int
    nbytes: int
    kind: str  # "flat", "dict" or "tuple"

    @classmethod
    def of(cls, space: spaces.Space[Any], n_envs: int) -> ObsLayout:
        if isinstance(space, spaces.Dict):
            items: list[tuple[Any, spaces.Space[Any]]] = list(space.spaces.items())
            kind = "dict"
        elif isinstance(space, spaces.Tuple):
            items = list(enumerate(space.spaces))
            kind = "tuple"
        else:
            items = [(None, space)]
            kind = "flat"
        keys, shapes, dtypes, offsets = [], [], [], []
        offset = 0
        for key, sub in items:
            if isinstance(sub, (spaces.Dict, spaces.Tuple)) or sub.shape is None or sub.dtype is None:
                raise SpaceError(f"nested or shapeless observation space {sub} is not supported (as in SB3)")
            shape = tuple(int(d) for d in sub.shape)
            dtype = np.dtype(sub.dtype)
            keys.append(key)
            shapes.append(shape)
            dtypes.append(dtype)
            offsets.append(offset)
            offset += -(-(n_envs * math.prod(shape) * dtype.itemsize) // 64) * 64
        return cls(tuple(keys), tuple(shapes), tuple(dtypes), tuple(offsets), n_envs, max(offset, 64), kind)

    def allocate(self, buffer: Any | None = None) -> list[np.ndarray]:
        """One ``(n_envs, *shape)`` array per key: views into ``buffer`` if given, else fresh zeros."""
        if buffer is None:
            return [np.zeros((self.n_envs, *s), dtype=d) for s, d in zip(self.shapes, self.dtypes, strict=True)]
        return [
            np.ndarray((self.n_envs, *s), dtype=d, buffer=buffer, offset=o)
            for s, d, o in zip(self.shapes, self.dtypes, self.offsets, strict=True)
        ]

    def split(self, obs: Any) -> list[Any]:
        """One env's observation as a list of per-key parts (the env's raw values, not cast)."""
        if self.kind == "flat":
            return [obs]
        return [obs[k] for k in self.keys]

    def assemble(self, arrays: Sequence[np.ndarray]) -> Any:
        """Per-key arrays -> the VecEnv observation (array, dict or tuple), as SB3's dict_to_obs."""
        if self.kind == "flat":
            return arrays[0]
        if self.kind == "dict":
            return dict(zip(self.keys, arrays, strict=True))
        return tuple(arrays)
