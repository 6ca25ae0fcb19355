"""Real clusters on this machine, every address on 127.0.0.1: a multi-node Ray cluster (Ray's own
multi-node test utility) and, in ``slurm_cluster``, slurmctld + slurmd + munge configured here.

Every process a cluster starts carries a marker in its environment, so a test can tell its own
leftovers from anything else on the machine, and the fixtures kill exactly those at the end."""

from __future__ import annotations

import os
import signal
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

MARK = "SC2POOL_CLUSTER_TEST"

# Ray resolves 127.0.0.1 to the machine's outward address unless it runs in its single-machine
# mode, which is what keeps every Ray address on loopback here. Ray reads this once, at import.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def marked_pids(token: str, needle: str = "") -> list[int]:
    """Processes whose environment carries ``MARK=token`` (and whose command line has ``needle``)."""
    want = f"{MARK}={token}".encode()
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if want not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{name}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue  # a zombie is already dead; its parent reaps it
        except OSError:
            continue
        if needle in cmd:
            out.append(int(name))
    return out


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def wait_until(cond: Callable[[], bool], timeout: float, period: float = 0.1) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(period)
    return cond()


@dataclass
class RayCluster:
    cluster: Any
    token: str
    extra: list[Any] = field(default_factory=list)

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    def add_node(self, num_cpus: int) -> Any:
        node = self.cluster.add_node(num_cpus=num_cpus, node_ip_address="127.0.0.1")
        self.extra.append(node)
        return node

    def workers(self) -> list[int]:
        """Live worker programs started through this cluster."""
        return marked_pids(self.token, "workers.main --remote")


@pytest.fixture
def ray_cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[RayCluster]:
    """A head (2 CPUs) and one more node (2 CPUs) on 127.0.0.1, stopped after the test even if it
    fails; the test's driver connects through the launcher (``ray.init``) and disconnects at close."""
    from ray.cluster_utils import Cluster

    token = uuid.uuid4().hex
    tmp = tempfile.mkdtemp(prefix="sc2r-", dir="/tmp")  # short: Unix socket paths live in there
    monkeypatch.setenv(MARK, token)
    monkeypatch.setenv("RAY_TMPDIR", tmp)
    cluster = None
    try:
        cluster = Cluster(
            initialize_head=True,
            head_node_args={"num_cpus": 2, "node_ip_address": "127.0.0.1", "include_dashboard": False},
            shutdown_at_exit=False,
        )
        rc = RayCluster(cluster, token)
        rc.add_node(num_cpus=2)
        yield rc
    finally:
        import ray

        if ray.is_initialized():
            ray.shutdown()
        if cluster is not None:
            try:
                cluster.shutdown()
            except Exception:
                pass
        wait_until(lambda: not marked_pids(token), 10.0)
        left = marked_pids(token)
        kill_all(left)
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
        assert not left, f"Ray processes outlived the cluster: {left}"
