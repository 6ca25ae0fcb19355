"""Fixtures for the pool tests: every test runs with a private SC2POOL_TMPDIR and must leave no
ipc/shm file behind. Leftover processes are the suite-wide ``process_tree`` fixture's to find and
kill (``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.proctree import ProcessTree


@pytest.fixture(autouse=True)
def pool_tmpdir(short_tmpdir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Private dir for the pools' ipc/shm files; after the test it must be empty."""
    d = short_tmpdir
    monkeypatch.setenv("SC2POOL_TMPDIR", str(d))
    yield d
    files = sorted(str(p.relative_to(d)) for p in d.rglob("*"))
    assert not files, f"files left behind in the pool tmp dir: {files}"


_OLD_TIMEOUTS = {"join_timeout", "start_timeout", "step_timeout", "heartbeat_interval", "heartbeat_timeout",
                 "close_timeout"}


@pytest.fixture
def make_pool() -> Iterator[Callable[..., Any]]:
    """``make_pool(*args, **kwargs) -> ZmqVecEnv`` with short heartbeat defaults; closed at the end."""
    from sc2pool import Timeouts, ZmqVecEnv

    pools: list[Any] = []

    def make(*args: Any, **kwargs: Any) -> Any:
        # a shorter join than the default; in the tests' own spelling, so old and new do not clash
        if "timeouts" in kwargs:
            pass
        elif _OLD_TIMEOUTS & kwargs.keys():
            kwargs.setdefault("join_timeout", 30.0)
        else:
            kwargs["timeouts"] = Timeouts(join=30.0)
        pool = ZmqVecEnv(*args, **kwargs)
        pools.append(pool)
        return pool

    try:
        yield make
    finally:
        for pool in pools:
            pool.close()


@pytest.fixture
def procs(process_tree: ProcessTree) -> list[Any]:
    """A list to register subprocesses in; each is tracked by ``process_tree``, which kills its
    whole session and group at the end and fails the test if any of it was left."""

    class _Tracked(list):  # type: ignore[type-arg]
        def append(self, p: Any) -> None:
            process_tree.track(p)
            super().append(p)

    return _Tracked()
