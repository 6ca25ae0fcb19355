"""`sc2pool train --on-failure restart` wires both recovery levels: the pool's worker restart and
the worker's own game relaunch, so a long run survives a crashed game without ending."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from sc2pool.training.train import make_vec_env


@pytest.mark.timeout(90)
def test_restart_policy_relaunches_a_killed_game_and_keeps_stepping(no_leaks: None) -> None:
    env = make_vec_env("MoveToBeacon", n_workers=1, envs_per_worker=2, on_failure="restart")
    try:
        assert env.get_attr("on_game_crash") == ["relaunch", "relaunch"]
        env.reset()
        pid = env.env_method("game_pid", indices=[1])[0]
        os.kill(pid, signal.SIGKILL)
        restarted = False
        for _ in range(20):
            _, _, dones, infos = env.step(np.zeros(2, dtype=np.int64))
            if infos[1].get("sc2pool.restarted"):
                restarted = True
                assert dones[1] and infos[1]["TimeLimit.truncated"]
                break
        assert restarted, "the killed game's episode never ended as a restart"
        assert env.env_method("game_pid", indices=[1])[0] != pid
        for _ in range(10):
            env.step(np.zeros(2, dtype=np.int64))
    finally:
        env.close()


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="on_failure"):
        make_vec_env("MoveToBeacon", n_workers=1, envs_per_worker=1, on_failure="ignore")
