"""Settings shared by every test folder."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.proctree import MARKER_VAR, ProcessTree


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files that hold a test marked ``starts_first`` come first: the README's test command runs
    the suite in two processes a file at a time (``-n 2 --dist loadfile``), and a file of long tests
    taken up last would leave one process busy alone at the end."""
    first = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("starts_first")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in first)  # (stable: file order kept)


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_pytest_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """SB3's ``learn()`` without a log folder makes ``/tmp/SB3-<date>`` for its logger, one per call,
    and leaves it behind; ``SB3_LOGDIR`` sends them to pytest's own temporary directory instead
    (worker and CLI subprocesses inherit it)."""
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SB3_LOGDIR", None)
        else:
            os.environ["SB3_LOGDIR"] = old


@pytest.fixture(autouse=True)
def process_tree(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProcessTree]:
    """Every process the test starts (see :mod:`helpers.proctree`): on any outcome, whatever is left
    of the test's process tree at its end is killed, and the test fails naming it.

    Autouse, so every test is checked; request it by name to start commands through
    ``process_tree.popen(...)`` / ``process_tree.run(..., timeout=...)`` (new session, whole tree
    killed on timeout) or to ``process_tree.track(proc)`` a process started otherwise. A fixture that
    starts processes and cleans them up itself should request ``process_tree`` too, so that this
    check runs after that fixture's own teardown."""
    tree = ProcessTree()
    monkeypatch.setenv(MARKER_VAR, tree.marker)
    try:
        yield tree
    finally:
        left = tree.leftovers()
        if left:
            tree.kill_all()
    if left:
        pytest.fail("processes left behind by the test (now killed):\n  " + "\n  ".join(left), pytrace=False)


@pytest.fixture
def short_tmpdir() -> Iterator[Path]:
    """A private directory for a pool's ipc sockets and shared memory (``SC2POOL_TMPDIR``), short
    enough for them: a socket path is limited to about 107 bytes, and under ``-n`` pytest's own
    ``tmp_path`` is long enough that the pool would fall back to /tmp and the test's check of what
    it leaves behind would look at an empty directory. Removed after the test."""
    d = Path(tempfile.mkdtemp(prefix="sc2p-", dir="/tmp"))
    assert len(os.path.join(str(d), "sc2pool-4194304-12345678", "ipc")) <= 100, d  # (launchers/local.py's limit)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)
