"""Helpers shared by the pool tests, importable by name (``from pool_helpers import ...``).

They live here rather than in ``conftest.py`` because ``from conftest import ...`` resolves to
whichever ``conftest`` module pytest imported last: one pytest run over several test folders
would hand these modules another folder's conftest."""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent


def worker_env() -> dict[str, str]:
    """Environment for CLI workers: they must import ``pool_envs`` (next to this file)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH", "")) if p)
    return env
