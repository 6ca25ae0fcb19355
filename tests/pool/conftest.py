"""Fixtures for the pool tests: every test runs with a private SC2POOL_TMPDIR and must leave no
worker process and no ipc/shm file behind (checked after the test; leftovers are killed)."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest


def _children() -> list[psutil.Process]:
    try:
        return psutil.Process().children(recursive=True)
    except psutil.Error:
        return []


def kill_tree(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            psutil.Process(pid).kill()
        except psutil.Error:
            pass


@pytest.fixture(autouse=True)
def pool_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Private dir for the pools' ipc/shm files; after the test it must be empty and no child
    process may survive."""
    d = tmp_path / "p"  # short: ipc socket paths are limited to ~107 bytes
    d.mkdir()
    monkeypatch.setenv("SC2POOL_TMPDIR", str(d))
    before = {p.pid for p in _children()}
    yield d
    leftovers = [p for p in _children() if p.pid not in before and p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    kill_tree([p.pid for p in leftovers])
    files = sorted(str(p.relative_to(d)) for p in d.rglob("*"))
    assert not leftovers, f"processes left behind: {[(p.pid, p.cmdline()) for p in leftovers]}"
    assert not files, f"files left behind in the pool tmp dir: {files}"


@pytest.fixture
def make_pool() -> Iterator[Callable[..., Any]]:
    """``make_pool(*args, **kwargs) -> ZmqVecEnv`` with short heartbeat defaults; closed at the end."""
    from sc2pool import ZmqVecEnv

    pools: list[Any] = []

    def make(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("join_timeout", 30.0)
        pool = ZmqVecEnv(*args, **kwargs)
        pools.append(pool)
        return pool

    try:
        yield make
    finally:
        for pool in pools:
            pool.close()


@pytest.fixture
def procs() -> Iterator[list[Any]]:
    """A list to register subprocesses in; all are killed (with their groups) at the end."""
    started: list[Any] = []
    try:
        yield started
    finally:
        for p in started:
            if p.poll() is None:
                kill_tree([p.pid])
                p.wait(timeout=5)
