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

from sc2pool.errors import SpaceError, SpaceMismatchError


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
            # A sequence of pairs: gymnasium keeps its order. A plain dict would be sorted by key,
            # and the per-key buffers would no longer line up with the worker's.
            return spaces.Dict([(key, space_from_msg(sub)) for key, sub in msg["spaces"]])
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


Leaf = tuple[tuple[Any, ...], np.dtype[Any], tuple[int, ...]]


def leaves(space: spaces.Space[Any]) -> list[Leaf]:
    """The leaf spaces of ``space`` in its own order (depth first through ``Dict``/``Tuple``), as
    ``(path, dtype, shape)``: the layout of every array that carries values of this space."""
    out: list[Leaf] = []

    def walk(sub: spaces.Space[Any], path: tuple[Any, ...]) -> None:
        if isinstance(sub, spaces.Dict):
            for key, child in sub.spaces.items():
                walk(child, (*path, key))
        elif isinstance(sub, spaces.Tuple):
            for i, child in enumerate(sub.spaces):
                walk(child, (*path, i))
        else:
            if sub.shape is None or sub.dtype is None:
                raise SpaceError(f"space {sub} has no fixed shape and dtype")
            out.append((path, np.dtype(sub.dtype), tuple(int(d) for d in sub.shape)))

    walk(space, ())
    return out


def layout_to_msg(space: spaces.Space[Any]) -> list[list[Any]]:
    """:func:`leaves` as msgpack data: ``[[path, dtype.str, shape], ...]``.

    A worker sends this beside its space description in HELLO, so that the trainer can check that
    the space it rebuilt from the description lays out its arrays exactly as the worker's own
    space does (key order, dtype, byte order, shape), before any data is exchanged."""
    return [[list(path), dtype.str, list(shape)] for path, dtype, shape in leaves(space)]


def _show(path: Sequence[Any]) -> str:
    return "".join(f"[{p!r}]" for p in path) or "(the whole space)"


def check_layout(space: spaces.Space[Any], declared: Any, what: str) -> None:
    """Raise :class:`SpaceMismatchError` unless ``declared`` (a worker's :func:`layout_to_msg`)
    equals the layout of ``space`` (the trainer's view of the same space), naming the first
    difference: a leaf missing or extra, its key or position, dtype (byte order included) or shape."""
    ours = layout_to_msg(space)
    if not isinstance(declared, list) or not all(
        isinstance(x, list) and len(x) == 3 and isinstance(x[0], list) and isinstance(x[2], list) for x in declared
    ):
        raise SpaceMismatchError(f"{what}: malformed layout description {declared!r:.200}")
    for i, (mine, theirs) in enumerate(zip(ours, declared, strict=False)):
        if mine[0] != theirs[0]:
            raise SpaceMismatchError(
                f"{what}: array {i} is {_show(theirs[0])} on the worker but {_show(mine[0])} in the trainer "
                "(key order or structure differs)"
            )
        if mine[1] != theirs[1]:
            raise SpaceMismatchError(
                f"{what}: {_show(mine[0])} has dtype {theirs[1]!r} on the worker but {mine[1]!r} in the trainer"
            )
        if mine[2] != theirs[2]:
            raise SpaceMismatchError(
                f"{what}: {_show(mine[0])} has shape {theirs[2]} on the worker but {mine[2]} in the trainer"
            )
    if len(ours) != len(declared):
        raise SpaceMismatchError(
            f"{what}: the worker lays out {len(declared)} arrays, the trainer {len(ours)} "
            f"(worker: {[_show(x[0]) for x in declared][:16]}, trainer: {[_show(x[0]) for x in ours][:16]})"
        )


class StructuredActions:
    """Per-env ``Dict``/``Tuple`` actions <-> one ``(n_envs, *shape)`` array per leaf space.

    SB3 hands each env its own action, whatever the space (``actions[i]``). For structured action
    spaces the trainer splits the per-env structures into one array per leaf (the order of
    :func:`leaves`, which HELLO checked to agree on both ends) and the worker rebuilds each env's
    ``dict``/``tuple`` from them: plain numeric arrays on the wire, never pickle."""

    def __init__(self, space: spaces.Space[Any]) -> None:
        if not isinstance(space, (spaces.Dict, spaces.Tuple)):
            raise SpaceError(f"{space} is not a structured (Dict or Tuple) space")
        self.space = space
        self.leaves = leaves(space)

    def encode(self, actions: Any, n_envs: int) -> list[tuple[np.ndarray, bool]]:
        """One C-contiguous numeric array per leaf, first axis the env, each with a flag: whether
        the envs' values of a scalar leaf were 0-d arrays rather than numpy scalars (gymnasium's
        float ``Box(shape=())`` samples are), so that each env gets the kind it was given.
        Raises ``ValueError`` naming what does not fit (wrong count, missing key, non-numeric)."""
        try:
            n = len(actions)
        except TypeError:
            raise ValueError(f"actions for a {type(self.space).__name__} action space must be a sequence "
                             f"with one action per env ({n_envs}); got {type(actions).__name__}") from None
        if n != n_envs:
            raise ValueError(f"got {n} actions for {n_envs} envs")
        out = []
        for path, _, _ in self.leaves:
            values = []
            for i in range(n_envs):
                value = actions[i]
                try:
                    for step in path:
                        value = value[step]
                except (KeyError, IndexError, TypeError) as exc:
                    raise ValueError(f"action of env {i} has no {_show(path)}: {type(exc).__name__}: {exc}") from None
                values.append(value)
            # numpy builds a list of arrays in native byte order: keep the values' own dtype
            dtypes = {v.dtype for v in values if isinstance(v, (np.ndarray, np.generic))}
            same = dtypes.pop() if len(dtypes) == 1 and all(isinstance(v, (np.ndarray, np.generic)) for v in values) else None
            try:
                arr = np.ascontiguousarray(np.asarray(values, dtype=same))
            except ValueError as exc:
                raise ValueError(f"actions at {_show(path)} do not form an array: {exc}") from None
            if arr.dtype.kind not in "biuf":
                raise ValueError(f"actions at {_show(path)} must be numeric; got dtype {arr.dtype}")
            out.append((arr, arr.ndim == 1 and all(isinstance(v, np.ndarray) for v in values)))
        return out

    def decode(self, arrays: Sequence[tuple[np.ndarray, bool]], n_envs: int) -> list[Any]:
        """Each env's action as a ``dict``/``tuple`` of the space's structure: arrays, or numpy
        scalars for scalar leaves unless flagged as 0-d arrays (see :meth:`encode`)."""

        def build(sub: spaces.Space[Any], i: int, it: Any) -> Any:
            if isinstance(sub, spaces.Dict):
                return {key: build(child, i, it) for key, child in sub.spaces.items()}
            if isinstance(sub, spaces.Tuple):
                return tuple(build(child, i, it) for child in sub.spaces)
            arr, as_array = next(it)
            return arr[i, ...] if as_array else arr[i]

        return [build(self.space, i, iter(arrays)) for i in range(n_envs)]


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
