"""pytest plugin for running stable-baselines3's own test files with ``ZmqVecEnv`` in the place of
``SubprocVecEnv`` (loaded with ``-p sb3_as_zmq`` by ``test_sb3_suites.py``, never by this project's
own test run).

``pytest_configure`` runs before any test module is imported, so ``from
stable_baselines3.common.vec_env import SubprocVecEnv`` in SB3's tests binds ``ZmqVecEnv``. Only
the tests that use ``SubprocVecEnv`` are kept: a test function whose source names it, and of a test
parametrised over vec-env classes only the items that get ``SubprocVecEnv``. The tests that cannot
apply are skipped by name, with the reason, from :data:`SKIPPED` (the one list; docs/sb3-conformance.md reviews it).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import pytest

# nodeid -> why that SB3 test cannot apply to ZmqVecEnv.
SKIPPED: dict[str, str] = {
    "test_vec_envs.py::test_render[SubprocVecEnv]": (
        "renders in 'human' mode: needs an X server (SB3 skips it itself without DISPLAY)"
    ),
}

_SUBPROC: Any = None


def pytest_configure(config: pytest.Config) -> None:
    global _SUBPROC
    import stable_baselines3.common.vec_env as vec_env_pkg
    import stable_baselines3.common.vec_env.subproc_vec_env as subproc_mod

    from sc2pool import ZmqVecEnv

    _SUBPROC = subproc_mod.SubprocVecEnv
    vec_env_pkg.SubprocVecEnv = ZmqVecEnv  # type: ignore[misc, assignment]
    subproc_mod.SubprocVecEnv = ZmqVecEnv  # type: ignore[misc, assignment]


def _is_subproc(value: Any) -> bool:
    from sc2pool import ZmqVecEnv

    if isinstance(value, functools.partial):
        value = value.func
    return value is ZmqVecEnv


def _uses_subproc(item: pytest.Item) -> bool:
    fn = getattr(item, "function", None)
    try:
        return fn is not None and "SubprocVecEnv" in inspect.getsource(fn)
    except (OSError, TypeError):
        return False


def _original_id(item: pytest.Item) -> str:
    """``file::test[params]`` with ``SubprocVecEnv`` (not ``ZmqVecEnv``) in the ids, as SB3 names them."""
    return item.nodeid.replace("ZmqVecEnv", "SubprocVecEnv")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Parameters that take SubprocVecEnv in some item of a test function: there, keep only those items.
    vec_params: dict[tuple[str, str], set[str]] = {}
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None:
            continue
        for name, value in callspec.params.items():
            if _is_subproc(value):
                vec_params.setdefault((str(item.fspath), item.originalname), set()).add(name)  # type: ignore[attr-defined]
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        names = vec_params.get((str(item.fspath), getattr(item, "originalname", item.name)))
        callspec = getattr(item, "callspec", None)
        if names:  # parametrised over vec-env classes: the SubprocVecEnv items only
            selected = callspec is not None and any(_is_subproc(callspec.params.get(n)) for n in names)
        else:  # otherwise: the tests whose code builds a SubprocVecEnv
            selected = _uses_subproc(item)
        if not selected:
            drop.append(item)
            continue
        reason = SKIPPED.get(_original_id(item))
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=f"sc2pool: {reason}"))
        keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
