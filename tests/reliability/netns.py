"""Multi-host test harness: Linux network namespaces as separate "hosts" on a private switch.

Layout for ``Network(["trainer", "b", "c"])``::

    ns <prefix>-sw      bridge br0, ports p0 p1 p2          (the "switch"; no address)
    ns <prefix>-trainer eth0 10.213.1.1/24  <-veth->  p0
    ns <prefix>-b       eth0 10.213.1.2/24  <-veth->  p1
    ns <prefix>-c       eth0 10.213.1.3/24  <-veth->  p2

Every interface and address lives inside namespaces this harness creates; the root namespace
gets nothing (no veth end, no address, no route), so test traffic can never leave them and
parallel runs cannot clash (names carry the creating pid and a random token; each run has its
own switch, so the same addresses may be reused). ``cut(host)`` takes the host's switch port
down (the host sees NO-CARRIER and packets vanish, as with a pulled cable), ``restore(host)``
brings it back.

Teardown (``close()``, the context manager, or the pytest fixture) always runs: it kills every
process started through the harness (by process group) and every process still inside the
namespaces, then deletes the namespaces, which destroys their veths and the bridge. Namespaces
left by a run that was killed (its pid is gone) are removed by :func:`cleanup_stale`.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

PREFIX = "s2p"
_NAME_RE = re.compile(rf"^{PREFIX}-(\d+)-([0-9a-f]+)-")


class NetnsUnavailable(RuntimeError):
    """The kernel (or our privileges) refuse network namespaces; tests using them must skip."""


def _ip(*args: str, check: bool = True, timeout: float = 10.0) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"`ip {' '.join(args)}` failed ({r.returncode}): {r.stderr.strip()}")
    return r


def list_namespaces() -> list[str]:
    r = _ip("netns", "list", check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def _kill_namespace_processes(ns: str) -> None:
    r = _ip("netns", "pids", ns, check=False)
    for tok in r.stdout.split():
        try:
            os.kill(int(tok), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _delete_namespace(ns: str) -> None:
    _kill_namespace_processes(ns)
    _ip("netns", "del", ns, check=False)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cleanup_stale() -> list[str]:
    """Delete harness namespaces whose creating process no longer exists; return their names."""
    removed = []
    for ns in list_namespaces():
        m = _NAME_RE.match(ns)
        if m and not _pid_alive(int(m.group(1))):
            _delete_namespace(ns)
            removed.append(ns)
    return removed


def check_available() -> None:
    """Raise :class:`NetnsUnavailable` with the reason if namespaces cannot be created here."""
    if os.name != "posix" or not os.path.exists("/proc/self/ns/net"):
        raise NetnsUnavailable("not Linux: no /proc/self/ns/net")
    if os.geteuid() != 0:
        raise NetnsUnavailable("creating network namespaces needs root (CAP_SYS_ADMIN + CAP_NET_ADMIN)")
    probe = f"{PREFIX}-{os.getpid()}-{secrets.token_hex(3)}-probe"
    try:
        r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=10)
    except FileNotFoundError:
        raise NetnsUnavailable("the `ip` command (iproute2) is not installed") from None
    if r.returncode != 0:
        raise NetnsUnavailable(f"kernel refused `ip netns add`: {r.stderr.strip()}")
    try:
        r = subprocess.run(
            ["ip", "-n", probe, "link", "add", "pv0", "type", "veth", "peer", "name", "pv1"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if r.returncode != 0:
            raise NetnsUnavailable(f"kernel refused veth pairs: {r.stderr.strip()}")
        r = subprocess.run(
            ["ip", "-n", probe, "link", "add", "pb0", "type", "bridge"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if r.returncode != 0:
            raise NetnsUnavailable(f"kernel refused a bridge: {r.stderr.strip()}")
    finally:
        _ip("netns", "del", probe, check=False)


@dataclass
class Host:
    """One simulated host: a namespace with ``eth0`` at ``address`` on the switch."""

    name: str
    ns: str
    address: str
    port: str  # its port name inside the switch namespace


class OutputLines:
    """Collects a process's stdout lines (with arrival time) in a background thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        assert proc.stdout is not None
        self._thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            with self._lock:
                self.lines.append((time.monotonic(), line.rstrip("\n")))

    def count(self, pred: Callable[[str], bool] = lambda _s: True) -> int:
        with self._lock:
            return sum(1 for _, s in self.lines if pred(s))

    def snapshot(self) -> list[str]:
        with self._lock:
            return [s for _, s in self.lines]


@dataclass
class Network:
    """N namespaces joined by one bridge; see the module docstring. Use as a context manager."""

    host_names: Sequence[str]
    subnet: str = "10.213.1"
    token: str = field(default_factory=lambda: secrets.token_hex(3))
    hosts: dict[str, Host] = field(default_factory=dict, init=False)
    procs: list[subprocess.Popen[Any]] = field(default_factory=list, init=False)
    _namespaces: list[str] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        if len(set(self.host_names)) != len(self.host_names) or not self.host_names:
            raise ValueError(f"host names must be unique and non-empty: {self.host_names!r}")
        if len(self.host_names) > 250:
            raise ValueError("at most 250 hosts per network")
        self.prefix = f"{PREFIX}-{os.getpid()}-{self.token}"
        self.switch = f"{self.prefix}-sw"

    # -- lifecycle ------------------------------------------------------------------------

    def up(self) -> Network:
        """Create the switch and hosts. On any failure everything created so far is removed."""
        try:
            self._add_ns(self.switch)
            _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", self.switch, "link", "set", "br0", "up")
            for i, name in enumerate(self.host_names):
                ns = f"{self.prefix}-{name}"
                port = f"p{i}"
                host = Host(name=name, ns=ns, address=f"{self.subnet}.{i + 1}", port=port)
                self._add_ns(ns)
                # both veth ends are created directly inside their namespaces: nothing in the root one
                _ip(
                    "-n",
                    self.switch,
                    "link",
                    "add",
                    port,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "eth0",
                    "netns",
                    ns,
                )
                _ip("-n", self.switch, "link", "set", port, "master", "br0")
                _ip("-n", self.switch, "link", "set", port, "up")
                _ip("-n", ns, "addr", "add", f"{host.address}/24", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
                self.hosts[name] = host
        except BaseException:
            self.close()
            raise
        return self

    def _add_ns(self, ns: str) -> None:
        _ip("netns", "add", ns)
        self._namespaces.append(ns)
        _ip("-n", ns, "link", "set", "lo", "up")

    def close(self) -> None:
        """Kill every process and delete every namespace of this network. Idempotent, never raises."""
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for stream in (p.stdout, p.stderr, p.stdin):
                if stream is not None:
                    stream.close()
        for ns in reversed(self._namespaces):
            _delete_namespace(ns)
        self._namespaces.clear()

    def __enter__(self) -> Network:
        return self.up()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- use --------------------------------------------------------------------------------

    def address(self, host: str) -> str:
        return self.hosts[host].address

    def run(self, host: str, argv: Sequence[str], timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        """Run a command to completion inside ``host``."""
        return subprocess.run(
            ["ip", "netns", "exec", self.hosts[host].ns, *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def popen(self, host: str, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[str]:
        """Start a command inside ``host`` in its own process group; killed at teardown.

        ``ip netns exec`` execs the command, so the returned pid is the command's own.
        """
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
        kwargs.setdefault("text", True)
        p: subprocess.Popen[str] = subprocess.Popen(
            ["ip", "netns", "exec", self.hosts[host].ns, *argv], start_new_session=True, **kwargs
        )
        self.procs.append(p)
        return p

    def cut(self, host: str) -> None:
        """Disconnect ``host`` from the switch (silent packet loss, like a pulled cable)."""
        _ip("-n", self.switch, "link", "set", self.hosts[host].port, "down")

    def restore(self, host: str) -> None:
        """Reconnect ``host`` to the switch."""
        _ip("-n", self.switch, "link", "set", self.hosts[host].port, "up")

    def namespaces(self) -> list[str]:
        return list(self._namespaces)
