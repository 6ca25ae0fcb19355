"""The failure policy without processes: restart counts, max_restarts, replace_timeout and
start_timeout on a fake clock, spares and vacancies."""

from __future__ import annotations

import pytest

from sc2pool.broker.records import Vacancy, WorkerRecord
from sc2pool.broker.restart_policy import AfterFailure, GiveUp, RespawnStuck, RestartPolicy
from sc2pool.errors import ReplacementTimeout, RestartLimitError, WorkerDied


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(name: str = "local-0", lo: int = 0, hi: int = 2, local: bool = True, **kw: object) -> WorkerRecord:
    return WorkerRecord(b"id-" + name.encode(), name, "node1", 42, lo, hi, local, **kw)  # type: ignore[arg-type]


def died(name: str = "local-0") -> WorkerDied:
    return WorkerDied("the process was killed by signal SIGKILL", worker=name, pid=42, env_indices=[0, 1])


def test_on_failure_must_be_raise_or_restart() -> None:
    with pytest.raises(ValueError, match="on_failure"):
        RestartPolicy("retry")


def test_counts_per_slot_and_raises_past_max_restarts_with_the_cause_chained() -> None:
    policy = RestartPolicy("restart", max_restarts=2)
    cause = died()
    policy.count("local-0", cause)
    policy.count("local-0", cause)
    policy.count("envs 2-3", cause)  # another slot: counted apart
    assert policy.counts == {"local-0": 2, "envs 2-3": 1}
    with pytest.raises(RestartLimitError, match=r"failed 3 times, more than max_restarts=2") as info:
        policy.count("local-0", cause)
    assert info.value.__cause__ is cause
    assert "SIGKILL" in str(info.value)


def test_no_limit_when_max_restarts_is_none() -> None:
    policy = RestartPolicy("restart", max_restarts=None)
    for _ in range(100):
        policy.count("local-0", died())
    assert policy.counts["local-0"] == 100


def test_max_restarts_zero_gives_up_at_the_first_failure() -> None:
    with pytest.raises(RestartLimitError):
        RestartPolicy("restart", max_restarts=0).count("local-0", died())


def test_after_failure_decisions() -> None:
    local, remote = record(), record("r", 2, 4, local=False)
    raise_policy, restart = RestartPolicy("raise"), RestartPolicy("restart")
    run = {"running": True, "starting": False, "closed": False, "failed": False, "local_names": ["local-0"]}
    assert raise_policy.after_failure(local, **run) is AfterFailure.RAISE  # type: ignore[arg-type]
    assert restart.after_failure(local, **run) is AfterFailure.REPLACE  # type: ignore[arg-type]
    assert restart.after_failure(remote, **run) is AfterFailure.REPLACE  # type: ignore[arg-type]
    assert restart.after_failure(local, **{**run, "closed": True}) is AfterFailure.RAISE  # type: ignore[arg-type]
    start = {**run, "running": False, "starting": True}
    assert restart.after_failure(local, **start) is AfterFailure.RESPAWN_AT_START  # type: ignore[arg-type]
    assert restart.after_failure(None, **start) is AfterFailure.RESPAWN_AT_START  # type: ignore[arg-type]
    # a remote worker is not started by the pool; a pool that already failed respawns nothing
    assert restart.after_failure(remote, **start) is AfterFailure.RAISE  # type: ignore[arg-type]
    assert restart.after_failure(local, **{**start, "failed": True}) is AfterFailure.RAISE  # type: ignore[arg-type]
    assert raise_policy.after_failure(None, **start) is AfterFailure.RAISE  # type: ignore[arg-type]


def test_vacancy_is_keyed_by_local_name_or_remote_env_range_and_starts_waiting_now() -> None:
    clock = FakeClock()
    policy = RestartPolicy("restart", clock=clock)
    v = policy.vacate(record("local-1", 2, 4), died())
    assert (v.key, v.local_name, v.lo, v.hi, v.since) == ("local-1", "local-1", 2, 4, 1000.0)
    clock.now = 1005.0
    r = policy.vacate(record("node-a", 4, 7, local=False), died("node-a"))
    assert (r.key, r.local_name, r.n_envs, r.since) == ("envs 4-6", None, 3, 1005.0)


def test_replace_timeout_on_a_fake_clock() -> None:
    clock = FakeClock()
    policy = RestartPolicy("restart", replace_timeout=60.0, clock=clock)
    remote = policy.vacate(record("node-a", 2, 4, local=False), died("node-a"))
    local = policy.vacate(record("local-0", 0, 2), died())
    local.spawned = True
    clock.now += 60.0
    assert policy.overdue([remote, local], clock()) == []  # exactly at the limit: still waiting
    clock.now += 0.5
    actions = policy.overdue([remote, local], clock())
    assert len(actions) == 2
    give_up, respawn = actions
    assert isinstance(give_up, GiveUp) and isinstance(give_up.error, ReplacementTimeout)
    assert "replace_timeout=60 s" in str(give_up.error) and "SIGKILL" in str(give_up.error)
    assert give_up.error.env_indices == [2, 3]
    assert isinstance(respawn, RespawnStuck) and respawn.vacancy is local
    # a local vacancy whose respawn has not been started yet is not stuck
    local.spawned = False
    assert [type(a) for a in policy.overdue([local], clock())] == []


def test_start_timeout_of_a_joined_replacement_on_a_fake_clock() -> None:
    clock = FakeClock()
    policy = RestartPolicy("restart", start_timeout=30.0, clock=clock)
    slow = record("node-b", 0, 2, local=False, joined_at=clock())
    quick = record("node-c", 2, 4, local=False, joined_at=clock(), ready=True)
    assert policy.slow_starter([slow, quick], clock.now + 30.0) is None
    err = policy.slow_starter([quick, slow], clock.now + 31.0)
    assert isinstance(err, ReplacementTimeout) and "start_timeout=30 s" in str(err) and "node-b" in str(err)
    slow.ready = True
    assert policy.slow_starter([slow, quick], clock.now + 99.0) is None


def test_spare_takes_only_a_remote_vacancy_of_its_size() -> None:
    cause = died()
    vacancies = [
        Vacancy("local-0", 0, 2, "local-0", cause),
        Vacancy("envs 2-4", 2, 5, None, cause),
        Vacancy("envs 5-6", 5, 7, None, cause),
    ]
    assert RestartPolicy.spare_for(vacancies, 2) is vacancies[2]  # not the local one of 2 envs
    assert RestartPolicy.spare_for(vacancies, 3) is vacancies[1]
    assert RestartPolicy.spare_for(vacancies, 4) is None
    assert RestartPolicy.spare_for([], 2) is None
