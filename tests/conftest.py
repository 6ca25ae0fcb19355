"""Settings shared by every test folder."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


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
