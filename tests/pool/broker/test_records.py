"""The public worker description names the machine ``hostname`` (a "host" is the ``EnvHost``)."""

from __future__ import annotations

import pytest

from sc2pool.broker import WorkerInfo


def test_worker_info_hostname_and_its_deprecated_host_alias() -> None:
    info = WorkerInfo("w", "node1", 7, (0, 1), local=False, ready=True)
    assert info.hostname == "node1"
    with pytest.deprecated_call(match="use .hostname"):
        assert info.host == "node1"
