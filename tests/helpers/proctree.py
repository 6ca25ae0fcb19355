"""The process tree of one test: every process it starts, found again, killed, and counted.

The suite's single leak check for processes. ``tests/conftest.py`` applies it to every test
(``process_tree``, autouse): at the end of the test, on any outcome, whatever is left of the tree
is killed and the test fails naming it. A process belongs to a test's tree when

* it descends from the pytest process (children, grandchildren...) and was not there before the
  test started, or
* it carries the test's marker in its environment (``SC2POOL_TEST_TREE``, set in ``os.environ`` for
  the test's duration and inherited by every process started with the default or a copied
  environment), which finds the orphans that were re-parented to init when their parent died, or
* it is in the session or process group of a process the test started through
  :meth:`ProcessTree.popen` / :meth:`ProcessTree.run` or handed to :meth:`ProcessTree.track`.

Python's multiprocessing helpers (the forkserver SB3's ``SubprocVecEnv`` starts, the resource
tracker) live for the whole pytest run by design and are not counted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Sequence
from typing import Any

import psutil

MARKER_VAR = "SC2POOL_TEST_TREE"

# A process that is still exiting when the test ends is given this long to go before it counts as
# left behind: a hang guard for a loaded machine, not a latency target.
EXIT_GRACE_S = 10.0


def _is_mp_helper(p: psutil.Process) -> bool:
    try:
        cmd = " ".join(p.cmdline())
    except psutil.Error:
        return False
    return "multiprocessing.forkserver" in cmd or "multiprocessing.resource_tracker" in cmd


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _key(p: psutil.Process) -> tuple[int, float] | None:
    try:
        return (p.pid, p.create_time())
    except psutil.Error:
        return None


class ProcessTree:
    """Start, find and kill the processes of one test.

    Use it through the ``process_tree`` fixture::

        def test_cli(process_tree):
            done = process_tree.run([sys.executable, "-m", "sc2pool", ...], timeout=120)
            proc = process_tree.popen([...], stdout=subprocess.PIPE)

    :meth:`popen` and :meth:`run` start the command in a new session, so a timeout or the end of
    the test kills its whole tree (``subprocess.run(timeout=...)`` kills only the direct child).
    """

    def __init__(self, marker: str | None = None) -> None:
        self.marker = marker or uuid.uuid4().hex
        self._started = time.time() - 1.0  # no process older than this can carry the marker
        self._me = psutil.Process()
        self._before = {k for k in map(_key, self._descendants()) if k is not None}
        self._roots: list[int] = []
        self._seen: dict[tuple[int, float], psutil.Process] = {}

    # -- starting ---------------------------------------------------------------------------
    def env(self, env: dict[str, str] | None = None) -> dict[str, str]:
        """``env`` (default: ``os.environ``) with this tree's marker, for commands given their own."""
        out = dict(os.environ if env is None else env)
        out[MARKER_VAR] = self.marker
        return out

    def popen(self, args: Sequence[str] | str, **kwargs: Any) -> subprocess.Popen[Any]:
        """``subprocess.Popen`` in a new session (unless told otherwise), tracked and marked."""
        kwargs.setdefault("start_new_session", True)
        kwargs["env"] = self.env(kwargs.get("env"))
        proc: subprocess.Popen[Any] = subprocess.Popen(args, **kwargs)
        self.track(proc)
        return proc

    def run(
        self, args: Sequence[str] | str, *, timeout: float, input: Any = None, check: bool = False, **kwargs: Any
    ) -> subprocess.CompletedProcess[Any]:
        """``subprocess.run`` whose timeout kills the command's whole session, not just the child.

        Raises:
            subprocess.TimeoutExpired: the command ran past ``timeout`` (its tree is killed first).
            subprocess.CalledProcessError: ``check`` and a non-zero exit status.
        """
        if kwargs.pop("capture_output", False):
            kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
        if input is not None:
            kwargs["stdin"] = subprocess.PIPE
        proc = self.popen(args, **kwargs)
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill_session(proc.pid)
            out, err = proc.communicate()
            raise subprocess.TimeoutExpired(proc.args, timeout, out, err) from None
        done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        if check:
            done.check_returncode()
        return done

    def track(self, proc: subprocess.Popen[Any] | psutil.Process | int) -> None:
        """Count ``proc`` (and its session and group, if it leads them) in this tree."""
        pid = proc if isinstance(proc, int) else proc.pid
        self._roots.append(pid)
        try:
            p = psutil.Process(pid)
            k = _key(p)
            if k is not None:
                self._seen[k] = p
        except psutil.Error:
            pass

    # -- finding ----------------------------------------------------------------------------
    def _descendants(self) -> list[psutil.Process]:
        try:
            return self._me.children(recursive=True)
        except psutil.Error:
            return []

    def members(self) -> list[psutil.Process]:
        """Live (non-zombie) processes of this tree, the pytest process and multiprocessing's own
        long-lived helpers excepted."""
        found: dict[tuple[int, float], psutil.Process] = {}
        for p in self._descendants():
            k = _key(p)
            if k is not None and k not in self._before:
                found[k] = p
        roots = set(self._roots)
        for p in psutil.process_iter(["create_time"]):
            try:
                if p.pid == self._me.pid:
                    continue
                mine = (os.getsid(p.pid) in roots or os.getpgid(p.pid) in roots) if roots else False
                if not mine and (p.info["create_time"] or 0.0) >= self._started:
                    mine = p.environ().get(MARKER_VAR) == self.marker
            except (psutil.Error, OSError):
                continue
            if mine:
                k = _key(p)
                if k is not None:
                    found[k] = p
        for k, p in list(self._seen.items()):
            found.setdefault(k, p)
        extra = []
        for p in found.values():
            if _alive(p) and not _is_mp_helper(p):
                try:
                    extra += p.children(recursive=True)
                except psutil.Error:
                    pass
        for p in extra:
            k = _key(p)
            if k is not None and k not in self._before:
                found.setdefault(k, p)
        return [p for p in found.values() if p.pid != self._me.pid and _alive(p) and not _is_mp_helper(p)]

    # -- killing ----------------------------------------------------------------------------
    def kill_session(self, pid: int) -> None:
        """SIGKILL the session and group led by ``pid`` (the pytest process's own are never touched)."""
        if pid in (os.getsid(0), os.getpgid(0)):
            return
        for p in psutil.process_iter():
            try:
                if os.getsid(p.pid) == pid or os.getpgid(p.pid) == pid:
                    p.kill()
            except (psutil.Error, OSError):
                continue
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill_all(self) -> None:
        """SIGKILL every member, then every root's session and group; reap what is ours to reap."""
        members = self.members()
        for p in members:
            try:
                p.kill()
            except psutil.Error:
                pass
        for pid in self._roots:
            self.kill_session(pid)
        psutil.wait_procs(members, timeout=5.0)

    def leftovers(self, grace: float = EXIT_GRACE_S) -> list[str]:
        """Describe the members still alive after waiting up to ``grace`` s for them to exit."""
        members = self.members()
        if not members:
            return []
        _, alive = psutil.wait_procs(members, timeout=grace)
        out = []
        for p in alive:
            if not _alive(p):
                continue
            try:
                out.append(f"pid {p.pid}: {' '.join(p.cmdline())[:200]}")
            except psutil.Error:
                continue
        return out
