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


SLURM_BINARIES = ("munged", "slurmctld", "slurmd", "srun", "salloc", "squeue", "scancel", "sinfo")


@dataclass
class SlurmCluster:
    dir: str
    env: dict[str, str]
    token: str

    def run(self, *cmd: str, timeout: float = 30) -> str:
        import subprocess

        return subprocess.run(list(cmd), env=self.env, capture_output=True, text=True, timeout=timeout, check=True).stdout

    def steps(self) -> list[tuple[str, str]]:
        """(step id, name) of every job step running."""
        out = self.run("squeue", "-h", "-s", "-o", "%i %j")
        return [(p[0], p[1]) for p in (line.split() for line in out.splitlines()) if len(p) == 2]

    def workers(self) -> list[int]:
        return marked_pids(self.token, "workers.main --remote") + marked_pids(self.token, "slurm_task")


def _require_slurm() -> None:
    import shutil

    missing = [b for b in SLURM_BINARIES if shutil.which(b) is None and not os.path.exists(f"/usr/sbin/{b}")]
    if missing or os.geteuid() != 0:
        why = f"missing {missing}" if missing else "not root"
        if os.environ.get("SC2POOL_REQUIRE_CLUSTER_TESTS"):
            pytest.fail(f"SLURM tests required (SC2POOL_REQUIRE_CLUSTER_TESTS) but {why}: "
                        "apt-get install slurmctld slurmd slurm-client munge")
        pytest.skip(f"a real SLURM needs root and Debian's slurmctld/slurmd/munge: {why}")


@pytest.fixture
def slurm_cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[SlurmCluster]:
    """munged + slurmctld + one slurmd (8 CPUs), configured in a temp dir, on 127.0.0.1 only, as
    root; stopped (and every process they started killed) after the test, even if it fails."""
    import shutil
    import subprocess

    import portpicker

    _require_slurm()
    token = uuid.uuid4().hex
    d = tempfile.mkdtemp(prefix="sc2s-", dir="/tmp")  # short: munge's socket lives in there
    os.chmod(d, 0o755)  # munge wants its socket's directory searchable by all
    for sub in ("state", "spool"):
        os.mkdir(os.path.join(d, sub))
    key = os.path.join(d, "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(128))
    os.chmod(key, 0o600)
    ctld_port, d_port = portpicker.pick_unused_port(), portpicker.pick_unused_port()
    conf = os.path.join(d, "slurm.conf")
    with open(conf, "w") as f:
        f.write(f"""ClusterName=sc2pooltest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={d}/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""")
    monkeypatch.setenv(MARK, token)
    monkeypatch.setenv("SLURM_CONF", conf)
    for var in [v for v in os.environ if v.startswith("SLURM_") and v != "SLURM_CONF"]:
        monkeypatch.delenv(var)
    env = dict(os.environ)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        daemons = [
            ["munged", "-F", "-f", f"--socket={d}/munge.sock", f"--key-file={key}", f"--pid-file={d}/munged.pid",
             f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed"],
            ["slurmctld", "-D", "-f", conf],
            ["slurmd", "-D", "-f", conf, "-N", "localhost"],
        ]
        for cmd in daemons:
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            if cmd[0] == "munged":
                assert wait_until(lambda: os.path.exists(f"{d}/munge.sock"), 10.0), "munged did not start"
        sc = SlurmCluster(d, env, token)

        def idle() -> bool:
            try:
                return sc.run("sinfo", "-h", "-o", "%T", timeout=5).strip() == "idle"
            except (subprocess.SubprocessError, OSError):
                return False

        assert wait_until(idle, 30.0, 0.2), "slurmd did not register an idle node"
        yield sc
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)
        wait_until(lambda: not marked_pids(token), 10.0)
        left = marked_pids(token)
        kill_all(left)
        shutil.rmtree(d, ignore_errors=True)
        assert not left, f"SLURM processes outlived the cluster: {left}"
