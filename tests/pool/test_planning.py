"""``plan_workers``: how a pool's envs are split over local, remote and launcher workers (no processes)."""

from __future__ import annotations

from typing import Any

import pytest

from sc2pool.pool.planning import WorkerPlan, plan_workers, split_evenly


def test_split_evenly_puts_the_remainder_first() -> None:
    assert split_evenly(8, 2) == [4, 4]
    assert split_evenly(7, 3) == [3, 2, 2]
    assert split_evenly(3, 3) == [1, 1, 1]
    assert sum(split_evenly(101, 7)) == 101


def test_env_fns_default_one_worker_per_env() -> None:
    plan = plan_workers(None, n_env_fns=4)
    assert plan == WorkerPlan(4, (1, 1, 1, 1))
    assert plan.local_ranges() == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert (plan.local_envs, plan.remote_envs, plan.n_local_workers) == (4, 0, 4)


def test_env_fns_uneven_split_is_contiguous() -> None:
    plan = plan_workers(None, n_env_fns=5, n_workers=2)
    assert plan.local_sizes == (3, 2)
    assert plan.local_ranges() == [(0, 3), (3, 5)]
    assert plan_workers(5, n_env_fns=5, n_workers=2) == plan  # a matching n_envs is accepted


def test_import_path_envs_all_local_by_default() -> None:
    assert plan_workers(8).local_sizes == (1,) * 8
    assert plan_workers(8, n_workers=3).local_sizes == (3, 3, 2)


def test_bind_leaves_envs_for_remote_workers() -> None:
    # no local workers unless asked: every env waits for a remote worker
    plan = plan_workers(6, accepts_remote=True)
    assert (plan.n_local_workers, plan.local_envs, plan.remote_envs) == (0, 0, 6)
    # local workers host one env each by default, the rest is remote
    plan = plan_workers(6, n_workers=2, accepts_remote=True)
    assert plan.local_ranges() == [(0, 1), (1, 2)] and plan.remote_envs == 4
    # or as many as local_envs says, split evenly
    plan = plan_workers(6, n_workers=2, local_envs=5, accepts_remote=True)
    assert plan.local_sizes == (3, 2) and plan.remote_envs == 1


def test_launcher_workers_share_the_remote_envs_evenly() -> None:
    plan = plan_workers(7, launcher_workers=3)
    assert plan.local_sizes == () and plan.launcher_sizes == (3, 2, 2)
    plan = plan_workers(7, n_workers=1, local_envs=2, launcher_workers=2)
    assert plan.local_sizes == (2,) and plan.launcher_sizes == (3, 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_envs": None, "n_env_fns": 0}, "env_fns is empty"),
        ({"n_envs": 3, "n_env_fns": 4}, "n_envs=3 but 4 env_fns"),
        ({"n_envs": None, "n_env_fns": 2, "n_workers": 0}, "env factories need local workers"),
        ({"n_envs": None, "n_env_fns": 2, "launcher_workers": 1}, "give host= or env="),
        ({"n_envs": None, "n_env_fns": 2, "local_envs": 1, "accepts_remote": True}, "local_envs does not apply"),
        ({"n_envs": None}, "n_envs .>= 1. is required"),
        ({"n_envs": 0}, "n_envs .>= 1. is required"),
        ({"n_envs": 4, "local_envs": 2}, "no remote worker can join"),
        ({"n_envs": 4, "n_workers": -1}, "n_workers must be >= 0"),
        ({"n_envs": 4, "n_workers": 5}, "5 local workers for 4 envs"),
        ({"n_envs": None, "n_env_fns": 2, "n_workers": 3}, "3 local workers for 2 envs"),
        ({"n_envs": 4, "n_workers": 3, "local_envs": 2, "accepts_remote": True}, "3 local workers for 2 envs"),
        ({"n_envs": 4, "local_envs": 5, "n_workers": 1, "accepts_remote": True}, "local_envs=5 is more than"),
        ({"n_envs": 4, "n_workers": 0}, "no local workers"),
        ({"n_envs": 4, "local_envs": 2, "accepts_remote": True}, "no local workers"),
        ({"n_envs": 4, "launcher_workers": 0}, "at least one worker"),
        ({"n_envs": 4, "n_workers": 1, "local_envs": 3, "launcher_workers": 2}, "need at least one env each"),
    ],
)
def test_inconsistent_layouts_are_refused(kwargs: dict[str, Any], message: str) -> None:
    n_envs = kwargs.pop("n_envs")
    with pytest.raises(ValueError, match=message):
        plan_workers(n_envs, **kwargs)


@pytest.mark.parametrize("field", ["n_workers", "local_envs", "launcher_workers"])
def test_counts_must_be_ints(field: str) -> None:
    with pytest.raises(TypeError, match=f"{field} must be an int"):
        plan_workers(4, accepts_remote=True, **{field: 2.0})
    with pytest.raises(TypeError, match="n_envs must be an int"):
        plan_workers(True)  # type: ignore[arg-type]
