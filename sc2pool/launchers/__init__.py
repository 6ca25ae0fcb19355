"""How workers start. :mod:`sc2pool.launchers.local` starts the pool's own worker processes on
this machine; the cluster launchers are the pool's control plane on a cluster (see
:mod:`sc2pool.launchers.base`).

``RayLauncher`` (``pip install 'sc2pool[ray]'``) and ``SlurmLauncher`` (inside an allocation)
start, restart and tear down remote workers; observations stay on ZeroMQ. Each is imported only
when used, so Ray is never imported by a pool that does not use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sc2pool.launchers.base import Launcher, LaunchPlan, WorkerRecipe

if TYPE_CHECKING:
    from sc2pool.launchers.ray_launcher import RayLauncher
    from sc2pool.launchers.slurm import SlurmLauncher

__all__ = ["LaunchPlan", "Launcher", "RayLauncher", "SlurmLauncher", "WorkerRecipe"]


def __getattr__(name: str) -> Any:
    if name == "RayLauncher":
        from sc2pool.launchers.ray_launcher import RayLauncher

        return RayLauncher
    if name == "SlurmLauncher":
        from sc2pool.launchers.slurm import SlurmLauncher

        return SlurmLauncher
    raise AttributeError(name)
