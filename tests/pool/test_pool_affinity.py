"""CPU pinning of local workers (``ZmqVecEnv(cpu_affinity=...)``, ``sc2pool worker --cpus``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pool_envs
import portpicker
import pytest
from pool_helpers import worker_env

from sc2pool.pool import affinity

ALLOWED = sorted(os.sched_getaffinity(0))


def thread_affinities(pid: int) -> list[set[int]]:
    """The core set of every thread of ``pid`` (heartbeat and ZeroMQ threads included)."""
    return [os.sched_getaffinity(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")]


def test_plan_explicit_round_robin_and_none() -> None:
    assert affinity.plan(None, 3) == [None, None, None]
    last = ALLOWED[-1]
    assert affinity.plan([last], 3) == [[last], [last], [last]]
    assert affinity.plan(ALLOWED, 2 * len(ALLOWED)) == [[c] for c in ALLOWED * 2]
    assert affinity.plan("auto", 0) == []


def test_plan_auto_rotates_across_pools() -> None:
    n = max(1, len(ALLOWED))  # a worker per core: one core each
    first = affinity.plan("auto", n)
    second = affinity.plan("auto", n)
    if len(ALLOWED) < 2:
        assert first == second == [None]  # nothing to gain from pinning on one core
        return
    assert all(p is not None and len(p) == 1 and p[0] in ALLOWED for p in first + second)
    assert first[-1] is not None and second[0] is not None
    # a second pool starts where the first one stopped
    assert (ALLOWED.index(second[0][0]) - ALLOWED.index(first[-1][0])) % len(ALLOWED) == 1


def test_plan_auto_gives_blocks_of_cores_when_there_are_two_or_more_per_worker(monkeypatch: Any) -> None:
    # a worker's game processes inherit its affinity: one core each would leave the rest idle
    monkeypatch.setattr(affinity, "available_cpus", lambda: list(range(16)))
    assert affinity.plan("auto", 4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]
    assert affinity.plan("auto", 5) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14]]
    assert affinity.plan("auto", 1) == [list(range(16))]
    plan = affinity.plan("auto", 9)  # fewer than two cores each: one core each, round-robin
    assert all(p is not None and len(p) == 1 for p in plan) and len({p[0] for p in plan if p}) == 9


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ([max(ALLOWED) + 1000], "not available to this process"),
        ([], "is empty"),
        ([-1], "is not a core number"),
        (["0"], "is not a core number"),
        ("pin-everything", "cpu_affinity must be"),
        (3, "cpu_affinity must be"),
    ],
)
def test_plan_refuses_bad_policies(policy: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        affinity.plan(policy, 2)


def test_parse_cpu_list() -> None:
    assert affinity.parse_cpu_list("0,2-4") == [0, 2, 3, 4]
    assert affinity.parse_cpu_list(" 3 ") == [3]
    for bad in ("", "a", "4-2", "1,,x", "-1"):
        with pytest.raises(ValueError, match="bad core list"):
            affinity.parse_cpu_list(bad)


def test_bad_policy_is_refused_before_any_worker_starts(make_pool: Callable[..., Any]) -> None:
    with pytest.raises(ValueError, match="not available"):
        make_pool([pool_envs.make_cartpole] * 2, n_workers=2, cpu_affinity=[max(ALLOWED) + 1000])
    # (the pool_tmpdir fixture checks that no process or file was left behind)


@pytest.mark.timeout(60)
def test_workers_pin_themselves_and_every_thread(make_pool: Callable[..., Any]) -> None:
    core = ALLOWED[-1]
    pool = make_pool([pool_envs.make_cartpole] * 4, n_workers=2, cpu_affinity=[core])
    for pid in pool.worker_pids:
        assert thread_affinities(pid) == [{core}] * len(thread_affinities(pid))
    pool.reset()
    _, rewards, _, _ = pool.step(np.zeros(4, dtype=np.int64))
    assert rewards.tolist() == [1.0] * 4
    assert os.sched_getaffinity(0) == set(ALLOWED), "the trainer is never pinned"


@pytest.mark.timeout(60)
def test_auto_gives_each_worker_its_own_core(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_cartpole] * 2, n_workers=2)  # cpu_affinity="auto" by default
    sets = [os.sched_getaffinity(pid) for pid in pool.worker_pids]
    if len(ALLOWED) < 2:
        assert sets == [set(ALLOWED)] * 2
    else:
        assert all(len(s) == 1 and s <= set(ALLOWED) for s in sets), sets
        assert sets[0] != sets[1], "two workers on two or more cores share one"


@pytest.mark.timeout(60)
def test_none_leaves_placement_to_the_os(make_pool: Callable[..., Any]) -> None:
    pool = make_pool([pool_envs.make_cartpole] * 2, n_workers=2, cpu_affinity=None)
    assert [os.sched_getaffinity(pid) for pid in pool.worker_pids] == [set(ALLOWED)] * 2


@pytest.mark.timeout(60)
def test_restarted_worker_keeps_its_core(make_pool: Callable[..., Any]) -> None:
    core = ALLOWED[-1]
    pool = make_pool([pool_envs.make_cartpole] * 2, n_workers=1, cpu_affinity=[core], on_failure="restart",
                     heartbeat_interval=0.2, heartbeat_timeout=2.0)
    pool.reset()
    old = pool.worker_pids[0]
    os.kill(old, 9)
    for _ in range(100):
        pool.step(np.zeros(2, dtype=np.int64))
        if pool.worker_pids and pool.worker_pids[0] != old and pool.restart_counts.get("local-0"):
            break
    new = pool.worker_pids[0]
    assert new != old
    assert os.sched_getaffinity(new) == {core}


def _cli_worker(endpoint: str, *extra: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "sc2pool", "worker", "--connect", endpoint, "--env", "pool_envs:make_count",
           "--log-level", "ERROR", *extra]
    return subprocess.Popen(cmd, env=worker_env(), stderr=subprocess.PIPE, text=True, start_new_session=True)


@pytest.mark.timeout(60)
def test_cli_worker_cpus(make_pool: Callable[..., Any], procs: list[Any]) -> None:
    bad = _cli_worker("tcp://127.0.0.1:1", "--cpus", "x-1")
    procs.append(bad)
    _, err = bad.communicate(timeout=30)
    assert bad.returncode != 0 and "--cpus x-1" in err and "bad core list" in err

    core = ALLOWED[-1]
    endpoint = f"tcp://127.0.0.1:{portpicker.pick_unused_port()}"
    remote = _cli_worker(endpoint, "--cpus", str(core))
    procs.append(remote)
    pool = make_pool(env="pool_envs:make_count", n_envs=1, bind=endpoint, n_local_workers=0)
    assert [w.pid for w in pool.workers] == [remote.pid]
    assert thread_affinities(remote.pid) == [{core}] * len(thread_affinities(remote.pid))
