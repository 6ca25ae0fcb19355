"""Local worker processes: spawning, the private temp dir, and clean-up at exit.

Each local worker is ``python -m workers.main`` started as the leader of its **own process
group** (killing the group also kills any game process it launched, and a Ctrl-C in the
trainer's terminal reaches only the trainer's foreground group, so the trainer closes the pool
in order). It stays in the trainer's *session* on purpose: with Linux's scheduler autogroups
(``kernel.sched_autogroup_enabled=1``, the default on desktops and many servers) every session is
scheduled as one unit, and workers in sessions of their own are woken with group-level latency,
which a lockstep pool pays on every step (see ``docs/design.md``). The host recipe (env
factories or a HostSpec) reaches the child through its stdin at start-up, pickled with
cloudpickle: process start-up on this machine, never the broker socket.

The ipc socket and the shared-memory observation file live in a private directory (mode 0700,
on ``/dev/shm`` when available) that ``close()`` removes; pools that are garbage-collected or
still open at interpreter exit are closed by a ``weakref.finalize``; on Linux workers also get
SIGTERM if the trainer dies (``PR_SET_PDEATHSIG``) and then remove that directory themselves.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from typing import Any


class PrivateDir:
    """A 0700 temp directory for ipc sockets and shared memory, removed by :meth:`cleanup`."""

    def __init__(self) -> None:
        # SC2POOL_TMPDIR overrides the location (tests use it to check that nothing is left behind).
        base = os.environ.get("SC2POOL_TMPDIR")
        if not base and os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
            base = "/dev/shm"
        base = base or tempfile.gettempdir()
        if len(os.path.join(base, f"sc2pool-{os.getpid()}-12345678", "ipc")) > _MAX_IPC_PATH:
            # Unix socket paths are limited to ~107 bytes; fall back to a short base.
            log.warning("%s is too long a directory for ipc sockets; using /tmp", base)
            base = "/tmp"
        sweep_stale_dirs(base)
        self.path = tempfile.mkdtemp(prefix=f"sc2pool-{os.getpid()}-", dir=base)

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def cleanup(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


_DIR_RE = re.compile(r"^sc2pool-(\d+)-")
_MAX_IPC_PATH = 100
log = logging.getLogger("sc2pool.launcher")


def sweep_stale_dirs(base: str) -> list[str]:
    """Remove private dirs left by trainers that no longer exist (killed with SIGKILL together with
    their workers, so nobody could clean up). A dir is named after its trainer's pid and removed
    only when no process with that pid exists; returns the removed paths."""
    removed: list[str] = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    uid = os.getuid()
    for name in names:
        m = _DIR_RE.match(name)
        if m is None:
            continue
        path = os.path.join(base, name)
        try:
            if os.stat(path).st_uid != uid:
                continue
            os.kill(int(m.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        except (OSError, ValueError):
            continue
    return removed


def spawn_worker(
    *,
    endpoint: str,
    name: str,
    index: int,
    recipe: dict[str, Any],
    heartbeat_interval: float,
    private_dir: str,
    log_level: str = "WARNING",
    lane_fd: int | None = None,
    cpus: Sequence[int] | None = None,
    disable_aslr: bool = False,
    spin_us: float = 0.0,
) -> subprocess.Popen[bytes]:
    """Start one local worker process and hand it ``recipe`` on stdin.

    ``recipe`` is ``{"kind": "fns", "fns": <cloudpickled list of env factories>}`` or
    ``{"kind": "spec", "target": "module:factory", "kwargs": {...}, "num_envs": k}``.
    ``cpus``: the cores the worker pins itself to at start-up (see :mod:`sc2pool.pool.affinity`).
    ``disable_aslr``: start it through ``workers.layout`` (Linux): address-space layout
    randomisation off, so sibling workers share one layout (see that module for why and for the
    security trade-off).
    ``spin_us``: for a worker with a core to itself, how long it polls its lane after a reply
    before sleeping, while requests follow replies that fast (``workers.main.spin_read``).
    """
    import cloudpickle

    payload = cloudpickle.dumps({**recipe, "sys_path": [p for p in sys.path if p]})
    cmd = [
        sys.executable,
        "-m",
        "workers.layout" if disable_aslr and sys.platform.startswith("linux") else "workers.main",
        "--connect", endpoint,
        "--name", name,
        "--index", str(index),
        "--heartbeat-interval", str(heartbeat_interval),
        "--cleanup-dir", private_dir,
        "--log-level", log_level,
    ]
    if lane_fd is not None:
        cmd += ["--lane-fd", str(lane_fd)]
    if cpus:
        cmd += ["--cpus", ",".join(str(c) for c in cpus)]
    if spin_us > 0:
        cmd += ["--spin-us", f"{spin_us:g}"]
    # Parent-death signalling is tied to the creating *thread*: only ask for it from the main thread.
    if threading.current_thread() is threading.main_thread():
        cmd += ["--parent-pid", str(os.getpid())]
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        process_group=0,  # own group, same session (see the module docstring)
        env=env,
        close_fds=True,
        pass_fds=(lane_fd,) if lane_fd is not None else (),
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the worker died at once; the broker reports its exit code
    return proc
