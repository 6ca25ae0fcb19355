"""sc2pool: a ZeroMQ vectorized environment pool for stable-baselines3 and StarCraft II.

Imports are lazy so that ``import sc2pool`` (and the ``sc2pool`` CLI) stays fast and the worker
side never drags in torch.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "ZmqVecEnv": "sc2pool.vec_env",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sc2pool' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
