"""sc2pool: a ZeroMQ vectorized environment pool for stable-baselines3 and StarCraft II.

Imports are lazy so that ``import sc2pool`` (and the ``sc2pool`` CLI) stays fast and the worker
side never drags in torch.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "ZmqVecEnv": "sc2pool.pool.vec_env",
    "HostSpec": "workers.host",
    "FailurePolicy": "sc2pool.options",
    "Timeouts": "sc2pool.options",
    "RemoteWorkers": "sc2pool.options",
    "LocalTuning": "sc2pool.options",
    "WorkerPlan": "sc2pool.pool.planning",
    "plan_workers": "sc2pool.pool.planning",
    "PoolError": "sc2pool.errors",
    "PoolClosedError": "sc2pool.errors",
    "EnvError": "sc2pool.errors",
    "WorkerDied": "sc2pool.errors",
    "WorkerTimeout": "sc2pool.errors",
    "WorkerFailure": "sc2pool.errors",
    "JoinTimeoutError": "sc2pool.errors",
    "ProtocolError": "sc2pool.errors",
    "EncodeError": "sc2pool.errors",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sc2pool' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
