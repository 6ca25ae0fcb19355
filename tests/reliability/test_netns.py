"""The multi-host harness itself, proved with plain zmq across namespaces."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from helpers.waiting import HANG_S

from .netns import Network, OutputLines, cleanup_stale, list_namespaces
from .reliability_helpers import wait_for

PEER = str(Path(__file__).with_name("zmq_peer.py"))
Factory = Callable[[Sequence[str]], Network]


def _round_trips_now(proc: subprocess.Popen[str], out: OutputLines) -> int:
    """The dealer's completed round trips, asked through its stdin: its "at N" answer comes after
    every line it printed before, so once it arrives ``out`` holds all of them."""
    assert proc.stdin is not None
    asked = out.count(lambda s: s.startswith("at "))
    proc.stdin.write("?")
    proc.stdin.flush()
    wait_for(lambda: out.count(lambda s: s.startswith("at ")) > asked, HANG_S, "the dealer's answer")
    return int([s for s in out.snapshot() if s.startswith("at ")][-1].split()[1])


@pytest.mark.timeout(60)
def test_cut_link_stops_one_host_only_and_restore_resumes_it(make_network: Factory) -> None:
    net = make_network(["trainer", "b", "c"])
    endpoint = f"tcp://{net.address('trainer')}:5601"
    router = net.popen(
        "trainer",
        [sys.executable, PEER, "router", f"tcp://{net.address('trainer')}:5601"],
        stdin=subprocess.PIPE,
    )
    r_out = OutputLines(router)
    wait_for(lambda: r_out.count() >= 1, HANG_S, "router ready")
    b_proc = net.popen("b", [sys.executable, PEER, "dealer", endpoint, "B"], stdin=subprocess.PIPE)
    b = OutputLines(b_proc)
    c = OutputLines(net.popen("c", [sys.executable, PEER, "dealer", endpoint, "C"], stdin=subprocess.PIPE))

    def b_rounds() -> int:
        return b.count(lambda s: s.startswith("B "))

    wait_for(lambda: b_rounds() >= 20 and c.count() >= 20, HANG_S, "both hosts round-tripping")

    net.cut("b")
    # B's output reaches us through a pipe and a reader thread: ask B where it is rather than
    # trusting the lines seen so far (one echo already on its way may still land: the +1 below)
    b_at_cut = _round_trips_now(b_proc, b)
    c_at_cut = c.count()
    wait_for(lambda: c.count() >= c_at_cut + 100, HANG_S, "C to keep going while B is cut")
    b_now = _round_trips_now(b_proc, b)
    assert b_now <= b_at_cut + 1, f"B advanced {b_now - b_at_cut} round trips through a cut link"

    net.restore("b")
    b_at_restore = b_rounds()
    wait_for(lambda: b_rounds() >= b_at_restore + 20, HANG_S, "B to resume after the link is restored")
    assert c.count() > c_at_cut + 100
    assert router.poll() is None


@pytest.mark.timeout(60)
def test_teardown_removes_namespaces_and_processes_even_on_failure(make_network: Factory) -> None:
    names: list[str] = []
    pids: list[int] = []
    with pytest.raises(RuntimeError, match="boom"), Network(["x", "y"]) as net:
        names = net.namespaces()
        p = net.popen("x", ["sleep", "300"])
        pids.append(p.pid)
        # the two hosts really are separate: y does not see x's address locally
        assert net.address("x") in net.run("x", ["ip", "-4", "addr", "show", "eth0"]).stdout
        assert net.address("x") not in net.run("y", ["ip", "-4", "addr"]).stdout
        raise RuntimeError("boom")
    assert names and not set(names) & set(list_namespaces())
    assert p.poll() is not None, "a process started in a namespace survived teardown"


@pytest.mark.timeout(60)
def test_stale_namespaces_of_dead_runs_are_cleaned(make_network: Factory) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = f"s2p-{dead.pid}-abcdef-left"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    try:
        assert stale in cleanup_stale()
        assert stale not in list_namespaces()
    finally:
        subprocess.run(["ip", "netns", "del", stale], capture_output=True)


@pytest.mark.timeout(60)
def test_curve_across_hosts_admits_the_authorised_host_and_logs_the_intruders_address(
    make_network: Factory, tmp_path: Path
) -> None:
    from sc2pool.cli import main as cli_main

    keys = tmp_path / "keys"
    assert cli_main(["keygen", str(keys)]) == 0
    assert (
        cli_main(
            ["keygen", str(keys), "--name", "worker-b", "--authorize-into", str(keys / "authorized_workers")]
        )
        == 0
    )
    assert cli_main(["keygen", str(keys), "--name", "intruder"]) == 0
    net = make_network(["trainer", "b", "c"])
    bind = f"tcp://{net.address('trainer')}:5602"
    router = OutputLines(
        net.popen(
            "trainer",
            [sys.executable, PEER, "router", bind, "--curve-keys", str(keys)],
            stdin=subprocess.PIPE,
        )
    )
    wait_for(lambda: router.count(lambda s: s == "ready") >= 1, HANG_S, "router ready")
    server_key = str(keys / "broker.key")
    b = OutputLines(
        net.popen(
            "b",
            [sys.executable, PEER, "dealer", bind, "B", "--curve-secret", str(keys / "worker-b.key_secret")]
            + ["--server-key", server_key],
            stdin=subprocess.PIPE,
        )
    )
    c = OutputLines(
        net.popen(
            "c",
            [sys.executable, PEER, "dealer", bind, "C", "--curve-secret", str(keys / "intruder.key_secret")]
            + ["--server-key", server_key],
            stdin=subprocess.PIPE,
        )
    )
    intruder = f"refused {net.address('c')} unknown-key"
    wait_for(
        lambda: b.count() >= 20 and router.count(lambda s: s == intruder) >= 1, HANG_S, "B served, C refused"
    )
    assert c.count() == 0, "the intruder got a reply"
    assert not router.count(lambda s: s.startswith(f"refused {net.address('b')} "))


def test_unavailable_namespaces_are_reported_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    from . import netns

    monkeypatch.setattr(netns.os, "geteuid", lambda: 1000)
    with pytest.raises(netns.NetnsUnavailable, match="needs root"):
        netns.check_available()
