"""The restart policy (``ZmqVecEnv(on_failure="restart")``) under fault injection.

Every test bounds time and count, and checks that no env slot is lost and no process survives.
The env is ``recovery_envs.Counter`` (obs = [steps since reset, pid]) so that a restarted env and
an unaffected one can be told apart exactly.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest
from helpers.proctree import ProcessTree
from helpers.waiting import HANG_S

from sc2pool.errors import ReplacementTimeout, RestartLimitError
from sc2pool.pool.vec_env import ZmqVecEnv
from workers.host import HostSpec

from .reliability_helpers import free_port, kill_group, wait_for

COUNTER = "reliability.recovery_envs:make_counter"
TESTS_DIR = str(Path(__file__).resolve().parent.parent)


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.fixture
def pools(
    short_tmpdir: Path, monkeypatch: pytest.MonkeyPatch, process_tree: ProcessTree
) -> Iterator[Callable[..., ZmqVecEnv]]:
    """Build pools; at the end every pool is closed and the private ipc/shm dir is empty. Requesting
    ``process_tree`` makes its check run after these closes: any worker (or anything it started)
    still alive then fails the test and is killed."""
    d = short_tmpdir
    monkeypatch.setenv("SC2POOL_TMPDIR", str(d))
    made: list[ZmqVecEnv] = []

    def make(**kwargs: Any) -> ZmqVecEnv:
        kwargs.setdefault("on_failure", "restart")
        kwargs.setdefault("heartbeat_interval", 0.25)
        kwargs.setdefault("heartbeat_timeout", 1.5)
        pool = ZmqVecEnv(**kwargs)
        made.append(pool)
        return pool

    try:
        yield make
    finally:
        for pool in made:
            pool.close()
        assert list(d.iterdir()) == [], f"left behind: {list(d.iterdir())}"


def _check_step(last: Any, obs: Any, dones: np.ndarray, infos: list[dict[str, Any]], victims: set[int]) -> set[int]:
    """Assert the restart semantics for one step; returns the envs reported as restarted."""
    restarted = {g for g, info in enumerate(infos) if info.get("sc2pool.restarted")}
    for g, info in enumerate(infos):
        if g in restarted:
            assert g in victims, f"env {g} restarted but its worker was not hit"
            assert dones[g] and info["TimeLimit.truncated"] is True
            np.testing.assert_array_equal(info["terminal_observation"], last[g])
            assert obs[g][0] == 0, "the next observation must be a fresh reset"
            assert obs[g][1] != last[g][1], "a restarted env must come from a new process"
        else:
            assert not dones[g] and "terminal_observation" not in info
            assert obs[g][0] == last[g][0] + 1 and obs[g][1] == last[g][1], f"env {g} was disturbed"
    return restarted


@pytest.mark.starts_first
@pytest.mark.timeout(150)
def test_kill9_a_worker_100_times_mid_step(pools: Callable[..., ZmqVecEnv]) -> None:
    """100 kill -9s (half of them between step_async and step_wait): each one ends exactly the
    victim's episodes, truncated, with the last good observation; nothing else is disturbed."""
    pool = pools(env=COUNTER, n_envs=4, n_workers=2, max_restarts=None)
    rng = random.Random(0)
    acts = np.zeros(4, dtype=np.int64)
    obs = pool.reset()
    pids_seen = set(pool.worker_pids)
    t0 = time.monotonic()
    kills = 100
    for k in range(kills):
        victim = pool.workers[rng.randrange(2)]
        victims = set(victim.env_indices)
        got: set[int] = set()
        for attempt in range(50):  # a kill lands on this step or (if it was already answered) the next
            last = obs
            if k % 2 and attempt == 0:
                pool.step_async(acts)
                os.kill(victim.pid, signal.SIGKILL)
                obs, _, dones, infos = pool.step_wait()
            else:
                if attempt == 0:
                    os.kill(victim.pid, signal.SIGKILL)
                obs, _, dones, infos = pool.step(acts)
            got |= _check_step(last, obs, dones, infos, victims)
            if got:
                break
        assert got == victims, f"kill {k}: restarted {got}, expected {victims}"
        pids_seen.update(pool.worker_pids)
    took = time.monotonic() - t0
    print(f"{kills} kill -9s ridden out in {took:.1f}s ({took / kills * 1000:.0f} ms per restart)")
    assert sum(pool.restart_counts.values()) == kills, pool.restart_counts
    assert sorted(g for w in pool.workers for g in w.env_indices) == [0, 1, 2, 3], "an env slot was lost"
    assert len(pool.worker_pids) == 2
    assert all(_gone(p) for p in pids_seen - set(pool.worker_pids)), "a killed worker was not reaped"
    pool.close()
    wait_for(lambda: all(_gone(p) for p in pids_seen), HANG_S, "every worker gone after close")


@pytest.mark.timeout(300)
def test_ppo_trains_through_a_worker_killer() -> None:
    """End to end: PPO.learn completes while a background thread kill -9s random workers."""
    from stable_baselines3 import PPO

    pool = ZmqVecEnv(env="CartPole-v1", n_envs=4, n_workers=2, on_failure="restart", max_restarts=None,
                     heartbeat_interval=0.25, heartbeat_timeout=1.5)
    stop = threading.Event()
    kills: list[int] = []
    pids_seen: set[int] = set(pool.worker_pids)

    def killer() -> None:
        rng = random.Random(1)
        # 8 kills, then stop: a killer that went on every 0.4 s would, on a loaded machine where a
        # respawn takes longer than that, keep the pool restarting and starve learn() for good
        while len(kills) < 8 and not stop.wait(0.4):
            # only workers that finished starting: killing every replacement before it is up
            # would (rightly) stall the pool, not test it
            pids = [w.pid for w in pool.workers if w.ready]
            pids_seen.update(pool.worker_pids)
            if pids:
                pid = rng.choice(pids)
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
                except ProcessLookupError:
                    pass

    thread = threading.Thread(target=killer, daemon=True)
    try:
        model = PPO("MlpPolicy", pool, n_steps=128, batch_size=128, n_epochs=1, seed=0, device="cpu")
        thread.start()
        while len(kills) < 8:  # learn on until 8 kills happened (the test's timeout guards a hang)
            model.learn(total_timesteps=1024, reset_num_timesteps=False)
        stop.set()
        thread.join()
        assert model.num_timesteps >= 1024
        # A kill landing after the last learn() step is only noticed by the next call: make it.
        pool.reset()
        restarts = sum(pool.restart_counts.values())
        print(f"PPO learned {model.num_timesteps} steps through {len(kills)} kills ({restarts} restarts)")
        assert len(kills) >= 8 and restarts >= 8, (kills, pool.restart_counts)
        assert sorted(g for w in pool.workers for g in w.env_indices) == [0, 1, 2, 3]
    finally:
        stop.set()
        pool.close()
    wait_for(lambda: all(_gone(p) for p in pids_seen), HANG_S, "every worker gone")


@pytest.mark.timeout(60)
def test_stopped_worker_is_replaced_and_the_stopped_process_killed(pools: Callable[..., ZmqVecEnv]) -> None:
    pool = pools(env=COUNTER, n_envs=4, n_workers=2)
    acts = np.zeros(4, dtype=np.int64)
    obs = pool.reset()
    victim = pool.workers[0]
    os.kill(victim.pid, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        restarted: set[int] = set()
        while not restarted:
            assert time.monotonic() - t0 < HANG_S, "the stopped worker was never replaced"
            last = obs
            obs, _, dones, infos = pool.step(acts)
            restarted = _check_step(last, obs, dones, infos, set(victim.env_indices))
        assert restarted == set(victim.env_indices)
        wait_for(lambda: _gone(victim.pid), HANG_S, "the stopped worker killed, not leaked")
        # calls work on the replacement; stepping goes on
        assert pool.get_attr("horizon") == [1000] * 4
        for _ in range(10):
            last = obs
            obs, _, dones, infos = pool.step(acts)
            assert _check_step(last, obs, dones, infos, set()) == set()
        assert pool.restart_counts == {victim.name: 1}
    finally:
        try:
            os.kill(victim.pid, signal.SIGCONT)  # "resume later": it is gone by now
        except ProcessLookupError:
            pass


@pytest.mark.timeout(60)
def test_exceeding_max_restarts_is_a_typed_error_and_closes_the_pool(pools: Callable[..., ZmqVecEnv]) -> None:
    pool = pools(env=COUNTER, n_envs=2, n_workers=2, max_restarts=1)
    acts = np.zeros(2, dtype=np.int64)
    pool.reset()
    pids = set(pool.worker_pids)
    os.kill(pool.workers[1].pid, signal.SIGKILL)
    _, _, dones, _ = pool.step(acts)
    assert list(dones) == [False, True]
    pids.update(pool.worker_pids)
    os.kill(pool.workers[1].pid, signal.SIGKILL)
    with pytest.raises(RestartLimitError, match="max_restarts=1") as info:
        pool.step(acts)
    assert "local-1" in str(info.value) and info.value.__cause__ is not None
    assert pool.closed
    wait_for(lambda: all(_gone(p) for p in pids), HANG_S, "every worker gone")


def _remote_worker(port: int, envs: int = 1, name: str = "") -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([TESTS_DIR, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    cmd = [sys.executable, "-m", "sc2pool", "worker", "--connect", f"tcp://127.0.0.1:{port}", "--env", COUNTER,
           "--envs", str(envs), "--connect-timeout", "30", "--log-level", "WARNING", "--heartbeat-interval", "0.25"]
    if name:
        cmd += ["--name", name]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


@pytest.mark.timeout(90)
def test_lost_remote_worker_is_replaced_by_one_that_joins(pools: Callable[..., ZmqVecEnv]) -> None:
    port = free_port()
    remotes = [_remote_worker(port, name="remote-a")]
    try:
        pool = pools(env=COUNTER, n_envs=3, n_local_workers=1, n_local_envs=2, bind=f"tcp://127.0.0.1:{port}",
                     replace_timeout=30)
        acts = np.zeros(3, dtype=np.int64)
        obs = pool.reset()
        for _ in range(3):
            obs = pool.step(acts)[0]
        os.kill(remotes[0].pid, signal.SIGKILL)
        remotes.append(_remote_worker(port, name="remote-b"))  # a replacement from "elsewhere"
        last = obs
        obs, _, dones, infos = pool.step(acts)  # blocks until remote-b joined and reset
        restarted = _check_step(last, obs, dones, infos, {2})
        if not restarted:  # the death was noticed one step later
            last = obs
            obs, _, dones, infos = pool.step(acts)
            restarted = _check_step(last, obs, dones, infos, {2})
        assert restarted == {2}
        assert [w.name for w in pool.workers] == ["local-0", "remote-b"]
        assert pool.restart_counts == {"envs 2-2": 1}
        for _ in range(5):
            last = obs
            obs, _, dones, infos = pool.step(acts)
            assert _check_step(last, obs, dones, infos, set()) == set()
    finally:
        for r in remotes:
            kill_group(r)


@pytest.mark.timeout(60)
def test_no_replacement_within_replace_timeout_is_a_typed_error(pools: Callable[..., ZmqVecEnv]) -> None:
    port = free_port()
    remote = _remote_worker(port)
    try:
        pool = pools(env=COUNTER, n_envs=2, n_local_workers=1, n_local_envs=1, bind=f"tcp://127.0.0.1:{port}",
                     replace_timeout=1.0)
        acts = np.zeros(2, dtype=np.int64)
        pool.reset()
        pool.step(acts)
        os.kill(remote.pid, signal.SIGKILL)
        t0 = time.monotonic()
        with pytest.raises(ReplacementTimeout, match="replace_timeout=1"):
            for _ in range(1000):
                pool.step(acts)
        # Not before the heartbeat timeout (1.5 s) + replace_timeout (1 s) have run out: a lower
        # bound, which load cannot break; how soon after is the reliability benchmark's figure.
        assert time.monotonic() - t0 >= 1.0
        assert pool.closed
    finally:
        kill_group(remote)


@pytest.mark.timeout(60)
def test_host_recovers_a_crashed_game_inside_a_live_worker(pools: Callable[..., ZmqVecEnv]) -> None:
    """EnvHost hook: step() returns EnvFailure(i, cause, recoverable=True) for env i, the worker
    calls host.recover(i) and reports env i truncated with the restart flag; the worker lives on."""
    pool = pools(host=HostSpec("reliability.recovery_envs:make_flaky_host", {"crash_env": 1, "crash_every": 5}),
                 n_envs=2, n_workers=1, on_failure="raise")
    acts = np.zeros(2, dtype=np.int64)
    obs: Any = pool.reset()
    pid = pool.worker_pids[0]
    hits = 0
    for step in range(1, 13):
        last = obs
        obs, rews, dones, infos = pool.step(acts)
        if step % 5 == 0:
            hits += 1
            assert dones[1] and infos[1]["TimeLimit.truncated"] and infos[1]["sc2pool.restarted"]
            assert "game websocket closed" in infos[1]["sc2pool.failure"]
            np.testing.assert_array_equal(infos[1]["terminal_observation"], last[1])
            assert obs[1][0] == 0 and rews[1] == 0.0
            assert pool.reset_infos[1]["recovered"] == hits
        else:
            assert not dones[1] and obs[1][0] == last[1][0] + 1
        assert not dones[0] and obs[0][0] == last[0][0] + 1, "the other env must be unaffected"
    assert hits == 2 and pool.worker_pids == [pid] and pool.restart_counts == {}


def _hang_if_marked(marker: str) -> Any:
    """An env factory that hangs forever (before the worker's HELLO) in the first process that
    finds ``marker`` (and removes it)."""
    import gymnasium as gym

    try:
        os.unlink(marker)
    except FileNotFoundError:
        return gym.make("CartPole-v1")
    while True:
        time.sleep(0.05)


@pytest.mark.timeout(120)
def test_a_respawned_worker_stuck_before_joining_is_killed_and_respawned(
    pools: Callable[..., ZmqVecEnv], tmp_path: Path
) -> None:
    import functools

    marker = tmp_path / "hang"
    # replace_timeout is how long a healthy respawn may take to join: wide enough for a loaded machine
    pool = pools(env_fns=[functools.partial(_hang_if_marked, str(marker))] * 2, n_workers=2, replace_timeout=10.0)
    acts = np.zeros(2, dtype=np.int64)
    pool.reset()
    marker.touch()
    os.kill(pool.workers[1].pid, signal.SIGKILL)
    t0 = time.monotonic()
    dones = pool.step(acts)[2]
    if not dones[1]:
        dones = pool.step(acts)[2]
    took = time.monotonic() - t0
    assert dones[1], "env 1 must restart"
    assert not marker.exists(), "a replacement must have hung"
    assert pool.restart_counts == {"local-1": 2}, pool.restart_counts
    assert took >= 10.0, f"the stuck replacement was killed after {took:.1f}s, before replace_timeout=10"


def _fail_if_marked(marker: str) -> Any:
    import gymnasium as gym

    if os.path.exists(marker):
        raise RuntimeError("the replacement cannot build its env")
    return gym.make("CartPole-v1")


@pytest.mark.timeout(60)
def test_a_replacement_that_cannot_build_its_envs_is_an_env_error(
    pools: Callable[..., ZmqVecEnv], tmp_path: Path
) -> None:
    """A bug is not a crash: no endless respawning of a worker whose env factory raises."""
    import functools

    from sc2pool.errors import EnvError

    marker = tmp_path / "fail"
    pool = pools(env_fns=[functools.partial(_fail_if_marked, str(marker))] * 2, n_workers=2)
    pool.reset()
    marker.touch()
    os.kill(pool.workers[1].pid, signal.SIGKILL)
    with pytest.raises(EnvError, match="cannot build") as info:
        for _ in range(3):
            pool.step(np.zeros(2, dtype=np.int64))
    assert "build" in str(info.value) and pool.closed


DYING_ONCE = "reliability.recovery_envs:make_counter_dying_once"


@pytest.mark.timeout(60)
def test_a_local_worker_dying_before_it_joins_is_started_again(
    pools: Callable[..., ZmqVecEnv], tmp_path: Path
) -> None:
    """Restart policy while the pool is being built: a local worker killed before its HELLO is
    started again (counted), and the pool comes up with every env."""
    pool = pools(env=DYING_ONCE, env_kwargs={"marker": str(tmp_path / "died")}, n_envs=4, n_workers=2)
    assert (tmp_path / "died").exists(), "one worker must have died"
    assert sum(pool.restart_counts.values()) == 1 and len(pool.restart_counts) == 1, pool.restart_counts
    obs = pool.reset()
    assert obs.shape == (4, 2) and (obs[:, 0] == 0).all()
    assert len({int(p) for p in obs[:, 1]}) == 2 and set(pool.worker_pids) == {int(p) for p in obs[:, 1]}
    obs, _, dones, _ = pool.step(np.zeros(4, dtype=np.int64))
    assert (obs[:, 0] == 1).all() and not dones.any()


@pytest.mark.timeout(60)
def test_a_local_worker_dying_after_it_joined_but_before_ready_is_started_again(
    pools: Callable[..., ZmqVecEnv], tmp_path: Path
) -> None:
    """The same for a worker killed inside ``host.start()`` (e.g. while launching its games)."""
    host = HostSpec("reliability.recovery_envs:make_dies_once_at_start_host", {"marker": str(tmp_path / "died")})
    pool = pools(host=host, n_envs=2, n_workers=2)
    assert (tmp_path / "died").exists()
    assert sum(pool.restart_counts.values()) == 1, pool.restart_counts
    obs = pool.reset()
    assert obs.shape == (2, 2) and set(pool.worker_pids) == {int(p) for p in obs[:, 1]}
    assert pool.step(np.zeros(2, dtype=np.int64))[0][:, 0].tolist() == [1.0, 1.0]


@pytest.mark.timeout(60)
def test_a_worker_dying_while_the_pool_starts_fails_the_constructor_without_restart(
    pools: Callable[..., ZmqVecEnv], tmp_path: Path
) -> None:
    from sc2pool.errors import WorkerDied

    with pytest.raises(WorkerDied, match="SIGKILL"):
        pools(env=DYING_ONCE, env_kwargs={"marker": str(tmp_path / "a")}, n_envs=2, n_workers=2, on_failure="raise")
    with pytest.raises(RestartLimitError, match="max_restarts=0"):
        pools(env=DYING_ONCE, env_kwargs={"marker": str(tmp_path / "b")}, n_envs=2, n_workers=2, max_restarts=0)


@pytest.mark.timeout(60)
def test_an_env_that_cannot_be_built_fails_the_constructor_even_with_restart(
    pools: Callable[..., ZmqVecEnv], tmp_path: Path
) -> None:
    """A worker that reports a build error and exits is a bug, not a crash: the pool raises the
    env's error (with its remote traceback) and does not start that worker again."""
    import functools

    from sc2pool.errors import EnvError

    marker = tmp_path / "fail"
    marker.touch()
    with pytest.raises(EnvError, match="cannot build") as info:
        pools(env_fns=[functools.partial(_fail_if_marked, str(marker))] * 2, n_workers=2)
    assert "RuntimeError" in str(info.value) or info.value.remote_type == "RuntimeError"
