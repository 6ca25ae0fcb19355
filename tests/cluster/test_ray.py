"""Workers placed by Ray on a real two-node Ray cluster (127.0.0.1 only)."""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.interrupt import python_module, sigint_ignored
from helpers.proctree import ProcessTree
from helpers.waiting import HANG_S

from sc2pool import ZmqVecEnv
from sc2pool.errors import ClusterResourcesError, ClusterUnavailableError, JoinTimeoutError
from sc2pool.launchers import RayLauncher

from .conftest import RayCluster, marked_pids, wait_until


@pytest.mark.timeout(150)
def test_workers_spread_over_nodes_step_and_close_leave_nothing(ray_cluster: RayCluster) -> None:
    launcher = RayLauncher(ray_cluster.address, n_workers=2, cpus_per_worker=1)
    env = ZmqVecEnv(env="CartPole-v1", n_envs=4, launcher=launcher, join_timeout=90)
    try:
        assert env.endpoints[0].startswith("tcp://127.0.0.1:")
        assert len(set(launcher.placement().values())) == 2, "SPREAD: one bundle on each node"
        assert sorted(w.name for w in env.workers) == ["ray-0", "ray-1"]
        assert all(not w.local and len(w.env_indices) == 2 for w in env.workers)
        assert len(ray_cluster.workers()) == 2
        assert env.stats.get("curve_accepted", 0) >= 2, "workers joined with their CURVE keys"
        obs = env.reset()
        for _ in range(30):
            obs, rew, done, infos = env.step(np.zeros(4, dtype=np.int64))
        assert obs.shape == (4, 4) and rew.shape == (4,)
    finally:
        env.close()
    assert wait_until(lambda: not ray_cluster.workers(), 10.0), ray_cluster.workers()
    import ray

    assert not ray.is_initialized(), "the launcher disconnects the driver it connected"


@pytest.mark.timeout(120)
def test_unreachable_cluster_too_few_cpus_and_a_worker_that_never_joins(ray_cluster: RayCluster) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{s.getsockname()[1]}"
    t0 = time.monotonic()
    with pytest.raises(ClusterUnavailableError, match=f"no Ray cluster reachable at {dead}"):
        ZmqVecEnv(env="CartPole-v1", n_envs=2, launcher=RayLauncher(dead, n_workers=1, connect_timeout=5))
    assert time.monotonic() - t0 < 10

    with pytest.raises(ClusterResourcesError, match=r"5 workers x 1 CPUs = 5 CPUs needed, but the Ray cluster has 4 CPUs on 2 node"):
        ZmqVecEnv(env="CartPole-v1", n_envs=5, launcher=RayLauncher(ray_cluster.address, n_workers=5))

    class Misdirected(RayLauncher):
        def advertise(self, bound: str) -> str:
            return "tcp://127.0.0.1:9"  # workers start but can never reach the broker

    with pytest.raises(JoinTimeoutError, match=r"(?s)0/2 envs joined.*Ray: 2 worker actor"):
        ZmqVecEnv(env="CartPole-v1", n_envs=2, join_timeout=8,
                  launcher=Misdirected(ray_cluster.address, n_workers=2))
    assert wait_until(lambda: not ray_cluster.workers(), 10.0), "workers of a failed pool are stopped"


@pytest.fixture
def silent_gcs() -> Iterator[str]:
    """HOST:PORT on 127.0.0.1 where connections are accepted and never answered: what a Ray
    driver meets at a port that answers but is no usable GCS (a hung head, another service, an
    address behind which the cluster is not reachable). ``ray.init`` retries there for minutes,
    inside C++ calls that see a Ctrl-C only when they return."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


@pytest.mark.timeout(150)
def test_a_silent_gcs_is_a_typed_error_at_the_deadline_and_ctrl_c_ends_the_connect_at_once(
    silent_gcs: str, process_tree: ProcessTree, tmp_path: Path
) -> None:
    t0 = time.monotonic()
    with pytest.raises(ClusterUnavailableError, match=f"at {silent_gcs}: something accepts connections there but no Ray GCS"):
        ZmqVecEnv(env="CartPole-v1", n_envs=2, launcher=RayLauncher(silent_gcs, n_workers=1, connect_timeout=5))
    assert time.monotonic() - t0 < 30  # 5 s, and the set-up around it on a loaded machine

    cmd = [*python_module("sc2pool"), "train", "--ray", silent_gcs, "--workers", "1", "--envs-per-worker", "1",
           "--out", str(tmp_path / "run"), "--cluster-timeout", "5"]  # fmt: skip
    done = process_tree.run(cmd, timeout=90, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert f"sc2pool train: ClusterUnavailableError: cannot join the Ray cluster at {silent_gcs}" in done.stderr
    assert "rpc_client" not in done.stdout + done.stderr  # Ray's own retry warnings stay out of the way

    cmd[cmd.index("--cluster-timeout") + 1] = "600"
    with sigint_ignored():  # as a backgrounded suite inherits it; the trainer gets its handler back
        trainer = process_tree.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def probing() -> bool:
        import psutil

        kids = psutil.Process(trainer.pid).children(recursive=True)
        return any("sc2pool.launchers.ray_probe" in " ".join(p.cmdline()) for p in kids) or trainer.poll() is not None

    assert wait_until(probing, 60, 0.1) and trainer.poll() is None, trainer.communicate()
    sent = time.monotonic()
    trainer.send_signal(signal.SIGINT)
    _, err = trainer.communicate(timeout=60)
    assert trainer.returncode == 130, err
    assert "interrupted (Ctrl-C or SIGTERM)" in err and time.monotonic() - sent < 15, (time.monotonic() - sent, err)
    # nothing left: the autouse process_tree fixture fails the test on any process of its tree


@pytest.mark.timeout(150)
def test_a_cluster_whose_nodes_do_not_answer_names_the_addresses_they_advertise(ray_cluster: RayCluster) -> None:
    """The GCS answers but no node does (raylets stopped, as if the address they advertise led
    nowhere): ray.init would wait for minutes; the launcher gives up at its deadline and names
    the addresses."""
    raylets = marked_pids(ray_cluster.token, "raylet")
    assert len(raylets) == 2, raylets
    for pid in raylets:
        os.kill(pid, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        with pytest.raises(ClusterUnavailableError) as info:
            ZmqVecEnv(env="CartPole-v1", n_envs=2,
                      launcher=RayLauncher(ray_cluster.address, n_workers=1, connect_timeout=10))
        assert time.monotonic() - t0 < 40
    finally:
        for pid in raylets:
            os.kill(pid, signal.SIGCONT)
    message = str(info.value)
    assert re.search(r"its GCS answers and advertises its nodes at 127\.0\.0\.1:\d+ \(head\), 127\.0\.0\.1:\d+", message) \
        or re.search(r"advertises its nodes at 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+ \(head\)", message), message
    assert "--node-ip-address" in message
    import ray

    assert not ray.is_initialized(), "this process never joined"


@pytest.mark.starts_first
@pytest.mark.timeout(240)
def test_ppo_on_movetobeacon_survives_a_killed_node(ray_cluster: RayCluster) -> None:
    """PPO through Ray-placed workers; the raylet of a node hosting a worker is killed mid-training:
    Ray re-places that bundle, the replacement joins, the lost episodes end truncated, training
    finishes, and no worker program is left on any node."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    from sc2pool.training.train import make_vec_env

    extra = ray_cluster.add_node(num_cpus=2)  # the node to kill; the head keeps room for its bundle
    launcher = RayLauncher(ray_cluster.address, n_workers=2, cpus_per_worker=1, strategy="STRICT_SPREAD")
    env = make_vec_env("MoveToBeacon", n_workers=2, envs_per_worker=1, engine="inprocess", on_failure="restart",
                       launcher=launcher, join_timeout=120, heartbeat_timeout=3.0, replace_timeout=90)
    restarted: list[dict[str, Any]] = []
    after_restart = 128  # timesteps trained on the replacement before stopping

    class KillNode(BaseCallback):
        """Kills the node at timestep 64, then trains until the pool has replaced its worker and
        ``after_restart`` more timesteps ran: the test waits for the event, not for a time."""

        restarted_at: int | None = None
        killed_at: float | None = None

        def _on_step(self) -> bool:
            if self.num_timesteps == 64:
                victim = [n for n in (extra, *ray_cluster.extra[:1]) if n.node_id in launcher.placement().values()]
                assert victim, launcher.placement()
                victim[0].kill_raylet()
                self.killed_at = time.monotonic()
            if self.restarted_at is None and self.killed_at is not None and time.monotonic() - self.killed_at > HANG_S:
                return False  # never replaced: the asserts below say so
            for info in self.locals["infos"]:
                if info.get("sc2pool.restarted"):
                    restarted.append(info)
                    if self.restarted_at is None:
                        self.restarted_at = self.num_timesteps
            return self.restarted_at is None or self.num_timesteps < self.restarted_at + after_restart

    try:
        model = PPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        # the bound only guards a pool that never restarts (the test's timeout ends it first)
        model.learn(total_timesteps=1_000_000, callback=KillNode())
        assert restarted, "the killed node's episode ended truncated"
        assert model.num_timesteps >= 64 + after_restart, "training went on with the replacement"
        assert all(i["TimeLimit.truncated"] and "terminal_observation" in i for i in restarted)
        assert sum(env.venv.restart_counts.values()) >= 1
        assert len(env.venv.workers) == 2
    finally:
        env.close()
    assert wait_until(lambda: not ray_cluster.workers(), 15.0), ray_cluster.workers()


def _checkpointed(out: Path, trainer: subprocess.Popen[str]) -> bool:
    return any((out / "checkpoints").glob("*.zip")) or trainer.poll() is not None


@pytest.mark.timeout(240)
def test_train_ray_cli_ctrl_c_and_a_killed_trainer_leave_no_worker(ray_cluster: RayCluster, tmp_path: Path) -> None:
    """`sc2pool train --ray ADDRESS`: one command, no hand-started worker. Ctrl-C ends it with the
    model saved and every worker gone; a trainer killed with SIGKILL takes its actors (and so the
    workers) with it, through Ray's ownership and the workers' parent-death signal. The trainer
    gets Python's Ctrl-C handler even where this test process inherited SIGINT ignored (a
    backgrounded run of the suite), which is made so here: otherwise it trains on, whatever the load."""
    for sig, code in ((signal.SIGINT, 130), (signal.SIGKILL, -signal.SIGKILL)):
        out = tmp_path / sig.name
        cmd = [
            *python_module("sc2pool"), "train", "--ray", ray_cluster.address, "--task", "MoveToBeacon",
            "--workers", "2", "--envs-per-worker", "1", "--engine", "inprocess", "--timesteps", "100000",
            "--checkpoint-every", "64", "--no-progress", "--out", str(out), "--join-timeout", "120",
            "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1}),
        ]
        with sigint_ignored():
            trainer = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            started = functools.partial(_checkpointed, out, trainer)
            assert wait_until(started, 180, 0.2)
            assert trainer.poll() is None, trainer.communicate()[0]
            assert len(ray_cluster.workers()) == 2
            trainer.send_signal(sig)
            text, _ = trainer.communicate(timeout=60)
        finally:
            if trainer.poll() is None:
                trainer.kill()
                trainer.communicate()
        assert trainer.returncode == code, text
        if sig == signal.SIGINT:
            assert (out / "model.zip").is_file()
        assert wait_until(lambda: not ray_cluster.workers(), 30.0), f"{sig.name}: workers left {ray_cluster.workers()}"
