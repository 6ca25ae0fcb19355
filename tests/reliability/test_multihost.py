"""A real pool across simulated hosts: the trainer in one network namespace, ``sc2pool worker``
processes in two others, joined over tcp on private test addresses (see ``netns.py``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from helpers.waiting import HANG_S

from .netns import Network
from .reliability_helpers import TrainerProc, wait_for

Factory = Callable[[Sequence[str]], Network]
HEARTBEAT_TIMEOUT = 3.0


def _worker(net: Network, host: str, endpoint: str, n_envs: int) -> subprocess.Popen[str]:
    return net.popen(
        host,
        [sys.executable, "-m", "sc2pool", "worker", "--connect", endpoint, "--env", "CartPole-v1"]
        + ["--envs", str(n_envs), "--name", host, "--connect-timeout", "60", "--log-level", "WARNING"],
    )


def _trainer(net: Network, *args: str) -> TrainerProc:
    def spawn(argv: Sequence[str]) -> subprocess.Popen[Any]:
        return net.popen("trainer", argv, stdin=subprocess.PIPE, text=False)

    return TrainerProc(*args, spawn=spawn)


@pytest.mark.timeout(90)
def test_remote_workers_join_over_tcp_and_a_cut_host_fails_fast(make_network: Factory) -> None:
    """Policy "raise": cutting one host's link yields a typed error naming that host's worker within
    the heartbeat timeout (never a hang), and every worker then exits by itself."""
    net = make_network(["trainer", "b", "c"])
    endpoint = f"tcp://{net.address('trainer')}:5611"
    t = _trainer(
        net,
        *("--bind", endpoint, "--envs", "4", "--local-workers", "0", "--local-envs", "0"),
        *("--heartbeat-timeout", str(HEARTBEAT_TIMEOUT), "--join-timeout", "60", "--allow-insecure-remote"),
    )
    b = _worker(net, "b", endpoint, 2)
    c = _worker(net, "c", endpoint, 2)
    try:
        t.wait_ready(timeout=60)
        t.assert_progressing(by=200)

        net.cut("b")
        wait_for(lambda: t.event("error") is not None or t.proc.poll() is not None, HANG_S, "typed error")
        err = t.event("error")
        assert err is not None, t.describe()
        assert err["type"] in ("WorkerTimeout", "WorkerDied"), err
        assert "'b'" in err["message"], err

        # the trainer closed the pool: c is told (or notices) and exits; b exits once its broker
        # has been silent for the heartbeat timeout, cut or not
        wait_for(lambda: c.poll() is not None, HANG_S, "worker c to exit after the trainer closed")
        net.restore("b")
        wait_for(lambda: b.poll() is not None, HANG_S, "worker b to exit on its own")
        wait_for(lambda: t.proc.poll() is not None, HANG_S, "trainer to exit")
        assert t.proc.returncode == 1
    finally:
        t.stop()


@pytest.mark.timeout(120)
def test_cut_host_is_replaced_by_a_worker_on_another_host_with_restart(make_network: Factory) -> None:
    """Policy "restart": when b's link is cut its env slots become vacant; a worker started on
    host d (same env count) takes them over and training goes on with no error. When b's link
    comes back, b is out of the pool: it gets no heartbeat answers (or a CLOSE) and exits by itself."""
    net = make_network(["trainer", "b", "c", "d"])
    endpoint = f"tcp://{net.address('trainer')}:5612"
    t = _trainer(
        net,
        *("--bind", endpoint, "--envs", "4", "--local-workers", "0", "--local-envs", "0"),
        *("--heartbeat-timeout", str(HEARTBEAT_TIMEOUT), "--join-timeout", "60", "--allow-insecure-remote"),
        *("--on-failure", "restart", "--replace-timeout", "60"),
    )
    b = _worker(net, "b", endpoint, 2)
    c = _worker(net, "c", endpoint, 2)
    d: subprocess.Popen[str] | None = None
    try:
        t.wait_ready(timeout=60)
        t.assert_progressing(by=200)

        net.cut("b")
        d = _worker(net, "d", endpoint, 2)  # the replacement, on another host
        wait_for(
            lambda: t.proc.poll() is not None
            or any(e.get("restarts") and "d" in e.get("workers", ()) for e in t.events if e["event"] == "progress"),
            HANG_S,
            "d to take over b's env slots",
        )
        assert t.event("error") is None, t.describe()
        t.assert_progressing(by=200)
        last = [e for e in t.events if e["event"] == "progress"][-1]
        assert sorted(last["workers"]) == ["c", "d"], last
        assert sum(last["restarts"].values()) == 1, last
        assert last["restarted"] == 2, "b's two env episodes end truncated with the restart flag"

        net.restore("b")
        wait_for(lambda: b.poll() is not None, HANG_S, "the cut worker b to exit")
        t.assert_progressing(by=200)
        assert t.event("error") is None, t.describe()
        t.stop()
        assert t.proc.returncode == 0, t.describe()
        wait_for(lambda: c.poll() is not None and d is not None and d.poll() is not None, HANG_S, "c and d to exit")
    finally:
        t.stop()


@pytest.mark.timeout(90)
def test_curve_pool_across_hosts_refuses_an_intruder_host(make_network: Factory, tmp_path: Any) -> None:
    """CURVE through the real pool and CLI across namespaces: the trainer binds its non-loopback
    address (allowed only because CURVE is on), host b's authorised worker joins and steps, host
    c's worker with an unauthorised key is refused in the handshake (counted) and gives up."""
    from sc2pool.cli import main as cli_main

    keys = tmp_path / "keys"
    assert cli_main(["keygen", str(keys)]) == 0
    assert cli_main(["keygen", str(keys), "--name", "b", "--authorize-into", str(keys / "authorized_workers")]) == 0
    assert cli_main(["keygen", str(keys), "--name", "c"]) == 0
    net = make_network(["trainer", "b", "c"])
    endpoint = f"tcp://{net.address('trainer')}:5613"
    t = _trainer(
        net,
        *("--bind", endpoint, "--envs", "2", "--local-workers", "0", "--local-envs", "0", "--curve", str(keys)),
        *("--heartbeat-timeout", str(HEARTBEAT_TIMEOUT), "--join-timeout", "60"),
    )

    def worker(host: str) -> subprocess.Popen[str]:
        return net.popen(
            host,
            [sys.executable, "-m", "sc2pool", "worker", "--connect", endpoint, "--env", "CartPole-v1", "--envs", "2",
             "--name", host, "--connect-timeout", "8", "--log-level", "WARNING",
             "--curve-secret", str(keys / f"{host}.key_secret"), "--curve-server-key", str(keys / "broker.key")],
        )

    c = worker("c")
    b = worker("b")
    try:
        t.wait_ready(timeout=60)
        t.assert_progressing(by=200)
        wait_for(lambda: c.poll() is not None, HANG_S, "the intruder host's worker to give up")
        assert c.returncode != 0
        t.assert_progressing(by=100)
        assert t.stats.get("curve_refused", 0) >= 1, t.stats
        assert t.stats.get("refused", 0) == 0 and t.stats.get("malformed", 0) == 0, t.stats
        t.stop()
        assert t.proc.returncode == 0, t.describe()
        wait_for(lambda: b.poll() is not None, HANG_S, "b to exit")
    finally:
        t.stop()
