"""Local workers with one shared address layout (``LocalTuning(disable_aslr=...)``, formerly
``fixed_layout``; ``workers.layout``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pool_envs
import pytest

from workers import layout

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="personality(2) is Linux-only")


def executable_base(pid: int) -> int:
    """Where ``pid`` maps the Python executable's first page (randomised per process under ASLR)."""
    exe = os.path.realpath(f"/proc/{pid}/exe")
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[5] == exe:
            return int(fields[0].split("-")[0], 16)
    raise AssertionError(f"no mapping of {exe} in /proc/{pid}/maps")


def personality(pid: int) -> int:
    return int(Path(f"/proc/{pid}/personality").read_text().strip(), 16)


def aslr_on() -> bool:
    return Path("/proc/sys/kernel/randomize_va_space").read_text().strip() != "0"


@pytest.mark.timeout(60)
def test_workers_share_one_layout_and_what_they_start_is_randomised(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_layout_probe] * 3, n_workers=3)  # fixed_layout=True by default
    pids = pool.worker_pids
    bases = {executable_base(pid) for pid in pids}
    assert len(bases) == 1, f"workers mapped the interpreter at different addresses: {bases}"
    if aslr_on():
        assert executable_base(os.getpid()) not in bases, "the trainer's own layout is untouched"
    # The switch is off again once a worker runs: its games and engine get randomised layouts.
    assert all(personality(pid) & layout.ADDR_NO_RANDOMIZE == 0 for pid in pids)
    assert all(p & layout.ADDR_NO_RANDOMIZE == 0 for p in pool.env_method("child_personality"))
    pool.reset()
    _, rewards, _, _ = pool.step(np.zeros(3, dtype=np.int64))
    assert rewards.tolist() == [1.0] * 3


@pytest.mark.timeout(60)
def test_fixed_layout_false_keeps_the_os_default(make_pool: Callable[..., Any]) -> None:
    if not aslr_on():
        pytest.skip("ASLR is off on this machine: every process has the same layout")
    pool = make_pool([pool_envs.make_cartpole] * 3, n_workers=3, fixed_layout=False)
    bases = [executable_base(pid) for pid in pool.worker_pids]
    assert len(set(bases)) == 3, f"randomised workers should differ: {[hex(b) for b in bases]}"


class _Exec(Exception):
    pass


def _fake_personality(current: int, refuse: bool) -> Callable[[int], int]:
    state = {"p": current}

    def fake(persona: int) -> int:
        if refuse:
            return -1
        old = state["p"]
        if persona != 0xFFFFFFFF:
            state["p"] = persona
        return old

    return fake


def _run_trampoline(monkeypatch: pytest.MonkeyPatch, current: int, refuse: bool) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def fake_execv(path: str, argv: list[str]) -> None:
        seen["exec"] = argv
        raise _Exec

    def fake_local_main(argv: list[str]) -> int:
        seen["in_process"] = argv
        return 0

    import workers.main

    monkeypatch.setattr(layout, "_personality", _fake_personality(current, refuse))
    monkeypatch.setattr(layout.os, "execv", fake_execv)
    monkeypatch.setattr(workers.main, "_local_main", fake_local_main)
    try:
        assert layout.main(["--connect", "ipc:///x", "--name", "w"]) == 0
    except _Exec:
        pass
    return seen


def test_trampoline_fixes_the_layout_and_execs_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _run_trampoline(monkeypatch, current=0, refuse=False)
    assert seen == {"exec": [sys.executable, "-m", "workers.main", "--connect", "ipc:///x", "--name", "w",
                             layout.RESTORE_FLAG]}


def test_trampoline_runs_the_worker_in_place_where_personality_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # e.g. a container whose seccomp profile refuses ADDR_NO_RANDOMIZE: the worker still starts
    seen = _run_trampoline(monkeypatch, current=0, refuse=True)
    assert seen == {"in_process": ["--connect", "ipc:///x", "--name", "w"]}


def test_trampoline_keeps_a_layout_fixed_by_the_user(monkeypatch: pytest.MonkeyPatch) -> None:
    # started under `setarch -R`: no exec needed, and no --restore-aslr (the user's choice stands
    # for the games too)
    seen = _run_trampoline(monkeypatch, current=layout.ADDR_NO_RANDOMIZE, refuse=False)
    assert seen == {"in_process": ["--connect", "ipc:///x", "--name", "w"]}


def test_restore_randomization_clears_only_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    current = layout.ADDR_NO_RANDOMIZE | 0x0008  # with another persona bit that must stay

    def fake(persona: int) -> int:
        calls.append(persona)
        return current

    monkeypatch.setattr(layout, "_personality", fake)
    layout.restore_randomization()
    assert calls == [0xFFFFFFFF, 0x0008]


@pytest.mark.timeout(60)
def test_disable_aslr_false_keeps_the_os_default(make_pool: Callable[..., Any]) -> None:
    """The option's new name: ``LocalTuning(disable_aslr=False)`` is ``fixed_layout=False``."""
    if not aslr_on():
        pytest.skip("ASLR is off on this machine: every process has the same layout")
    from sc2pool import LocalTuning

    pool = make_pool([pool_envs.make_cartpole] * 2, n_workers=2, tuning=LocalTuning(disable_aslr=False))
    bases = [executable_base(pid) for pid in pool.worker_pids]
    assert len(set(bases)) == 2, f"randomised workers should differ: {[hex(b) for b in bases]}"
