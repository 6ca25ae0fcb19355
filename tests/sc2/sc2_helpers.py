"""Process helpers for the StarCraft II tests (imported by conftest and the tests)."""

from __future__ import annotations

import os

import psutil
from helpers.waiting import HANG_S


def descendants() -> dict[int, psutil.Process]:
    me = psutil.Process(os.getpid())
    out = {}
    for p in me.children(recursive=True):
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                out[p.pid] = p
        except psutil.NoSuchProcess:
            pass
    return out


def wait_gone(pids: list[int], timeout: float = HANG_S) -> list[int]:
    """Pids still alive (not zombies) after polling up to ``timeout`` seconds."""
    procs = []
    for pid in pids:
        try:
            procs.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    still = []
    for p in alive:
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                still.append(p.pid)
        except psutil.NoSuchProcess:
            pass
    return still


def engine_pids() -> list[int]:
    """Pids of the embedded engine's game processes among this test process's descendants."""
    out = []
    for pid, p in descendants().items():
        try:
            if "sc2pool.engine" in " ".join(p.cmdline()):
                out.append(pid)
        except psutil.Error:  # gone meanwhile
            pass
    return out
