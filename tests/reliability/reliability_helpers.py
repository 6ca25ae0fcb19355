"""Process helpers shared by the reliability tests: a watched trainer, group kills, polling."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from helpers.waiting import HANG_S

TRAINER = str(Path(__file__).with_name("reliability_trainer.py"))
Spawn = Callable[[Sequence[str]], "subprocess.Popen[Any]"]


def _default_spawn(argv: Sequence[str]) -> subprocess.Popen[Any]:
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def wait_for(pred: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.02)
    assert pred(), f"timed out after {timeout}s waiting for {what}"


def kill_group(p: subprocess.Popen[Any]) -> None:
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


class TrainerProc:
    """``reliability_trainer.py`` in a child process, watched through its JSON-lines stdout."""

    def __init__(self, *args: str, spawn: Spawn = _default_spawn) -> None:
        """``spawn(argv)`` starts the process (default: here, in its own session, binary pipes);
        e.g. ``lambda argv: net.popen("trainer", argv, stdin=PIPE, text=False)`` runs it in a namespace."""
        self.proc = spawn([sys.executable, TRAINER, *args])
        self.events: list[dict[str, Any]] = []
        self.stderr: list[str] = []
        self._threads = [
            threading.Thread(target=self._read_out, daemon=True),
            threading.Thread(target=self._read_err, daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.events.append(json.loads(line))
            except ValueError:
                pass

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.decode(errors="replace") if isinstance(line, bytes) else line)

    def event(self, name: str) -> dict[str, Any] | None:
        return next((e for e in self.events if e.get("event") == name), None)

    @property
    def steps(self) -> int:
        progress = [e for e in self.events if "steps" in e]
        return int(progress[-1]["steps"]) if progress else 0

    @property
    def stats(self) -> dict[str, int]:
        with_stats = [e for e in self.events if "stats" in e]
        return dict(with_stats[-1]["stats"]) if with_stats else {}

    def describe(self) -> str:
        return f"rc={self.proc.poll()} last events={self.events[-3:]} stderr={''.join(self.stderr)[-1500:]}"

    def wait_ready(self, timeout: float = 60) -> dict[str, Any]:
        wait_for(
            lambda: self.event("ready") is not None or self.proc.poll() is not None, timeout, "trainer ready"
        )
        ready = self.event("ready")
        assert ready is not None, f"trainer did not start: {self.describe()}"
        return ready

    def assert_progressing(self, by: int = 50, timeout: float = HANG_S) -> None:
        start = self.steps
        wait_for(lambda: self.steps >= start + by or self.proc.poll() is not None, timeout, "trainer steps")
        assert self.proc.poll() is None, f"trainer died: {self.describe()}"
        assert self.event("error") is None, f"the pool raised: {self.event('error')}"
        assert self.steps >= start + by, f"trainer stalled at {self.steps} steps: {self.describe()}"

    def stop(self) -> int | None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=HANG_S / 2)
        except (subprocess.TimeoutExpired, OSError):
            pass
        rc = self.proc.poll()
        ready = self.event("ready")
        kill_group(self.proc)
        for pid in (ready or {}).get("pids", []):  # local workers lead their own sessions
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        return rc


def free_port() -> int:
    """A currently free tcp port on 127.0.0.1 (the kernel picks it; tiny race, fine for tests)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
