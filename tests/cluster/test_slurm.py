"""Workers started by SLURM: `sc2pool train --slurm` inside a real allocation (slurmctld + slurmd +
munge started by the fixture on 127.0.0.1), a job step killed mid-training, no leftovers."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.interrupt import python_module, sigint_ignored

from sc2pool import ZmqVecEnv
from sc2pool.errors import ClusterResourcesError, ClusterUnavailableError
from sc2pool.launchers.slurm import SlurmLauncher, allocation_cpus

from .conftest import SlurmCluster, wait_until


def test_outside_an_allocation_and_too_few_cpus_are_typed_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    with pytest.raises(ClusterUnavailableError, match="inside a SLURM allocation"):
        ZmqVecEnv(env="CartPole-v1", n_envs=2, launcher=SlurmLauncher(2))
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_JOB_CPUS_PER_NODE", "2(x2),1")
    assert allocation_cpus() == 5
    with pytest.raises(ClusterResourcesError, match=r"3 workers x 2 CPUs = 6 CPUs needed, but allocation 7 has 5 CPUs"):
        ZmqVecEnv(env="CartPole-v1", n_envs=3, launcher=SlurmLauncher(3, cpus_per_worker=2, srun="/bin/true"))


@pytest.mark.timeout(300)
def test_train_slurm_survives_a_killed_job_step(slurm_cluster: SlurmCluster, tmp_path: Path) -> None:
    out = tmp_path / "run"
    cmd = [
        "salloc", "--ntasks=2", "--cpus-per-task=1", "--job-name=sc2pool-test",
        sys.executable, "-m", "sc2pool", "train", "--slurm", "--task", "MoveToBeacon",
        "--workers", "2", "--envs-per-worker", "1", "--engine", "inprocess", "--timesteps", "512",
        "--on-failure", "restart", "--bind", "tcp://127.0.0.1:0", "--advertise-host", "127.0.0.1",
        "--checkpoint-every", "64", "--no-progress", "--out", str(out), "--join-timeout", "120",
        "--ppo", json.dumps({"n_steps": 64, "batch_size": 64, "n_epochs": 1}),
    ]
    trainer = subprocess.Popen(cmd, env=slurm_cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        def first_step() -> list[str]:
            return [i for i, name in slurm_cluster.steps() if name.startswith("sc2pool-workers-") and name.endswith("-0")]

        # training is under way once the first checkpoint exists; then the workers' step is killed
        assert wait_until(lambda: any((out / "checkpoints").glob("*.zip")) or trainer.poll() is not None, 180, 0.2)
        assert trainer.poll() is None, trainer.communicate()[0]
        steps = first_step()
        assert steps, slurm_cluster.steps()
        slurm_cluster.run("scancel", "--signal=KILL", steps[0])
        text, _ = trainer.communicate(timeout=200)
    finally:
        if trainer.poll() is None:
            trainer.kill()
            trainer.communicate()
    assert trainer.returncode == 0, text
    run = json.loads((out / "run.json").read_text())
    assert run["timesteps"] == 512
    assert run["worker_restarts"] >= 1, run
    assert run["episodes_cut_by_restarts"] >= 1, run
    assert wait_until(lambda: not slurm_cluster.workers(), 15.0), slurm_cluster.workers()
    assert not [s for s in slurm_cluster.steps() if s[1].startswith("sc2pool-workers-")]


def _busy_allocation_trainer(slurm_cluster: SlurmCluster, out: Path, cluster_timeout: float) -> subprocess.Popen[str]:
    """``sc2pool train --slurm`` in an allocation of 2 CPUs that another job step ("blocker")
    holds whole, so the workers' step cannot start: srun waits for CPUs that never free up."""
    train = [
        *python_module("sc2pool"), "train", "--slurm", "--task", "MoveToBeacon", "--workers", "2",
        "--envs-per-worker", "1", "--engine", "inprocess", "--timesteps", "256", "--bind", "tcp://127.0.0.1:0",
        "--advertise-host", "127.0.0.1", "--no-progress", "--out", str(out), "--join-timeout", "120",
        "--cluster-timeout", str(cluster_timeout),
    ]
    script = (
        "srun --ntasks=2 --cpus-per-task=1 --job-name=blocker sleep 600 & "
        "for i in $(seq 150); do squeue -h -s -o %j | grep -qx blocker && break; sleep 0.2; done; "
        f"exec {shlex.join(train)}"
    )
    cmd = ["salloc", "--ntasks=2", "--cpus-per-task=1", "--job-name=sc2pool-test", "bash", "-c", script]
    with sigint_ignored():  # as a backgrounded suite inherits it; the trainer gets its handler back
        return subprocess.Popen(cmd, env=slurm_cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _trainer_pid(salloc: subprocess.Popen[str]) -> int | None:
    import psutil

    try:
        kids = psutil.Process(salloc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return None
    return next((p.pid for p in kids if "sc2pool" in " ".join(p.cmdline()) and "train" in p.cmdline()), None)


@pytest.mark.timeout(240)
def test_a_busy_allocation_is_a_typed_error_at_the_deadline_and_ctrl_c_ends_the_wait_at_once(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    """srun waits, silently and for ever, for CPUs another step of the allocation holds. The
    trainer gives up after --cluster-timeout with a ClusterResourcesError saying so, and a Ctrl-C
    during the wait ends it at once (exit 130); neither leaves a step or a worker behind."""
    salloc = _busy_allocation_trainer(slurm_cluster, tmp_path / "deadline", cluster_timeout=8)
    try:
        text, _ = salloc.communicate(timeout=150)
    finally:
        if salloc.poll() is None:
            salloc.kill()
            salloc.communicate()
    assert salloc.returncode == 1, text
    assert re.search(r"ClusterResourcesError: the workers' job step \(2 tasks x 1 CPUs\) did not start within 8 s", text), text

    salloc = _busy_allocation_trainer(slurm_cluster, tmp_path / "ctrl-c", cluster_timeout=600)
    try:
        # the trainer waits for its step once its srun runs
        assert wait_until(lambda: any("sc2pool.launchers.slurm_task" in " ".join(p.cmdline())
                                      for p in _children(salloc)), 120, 0.2), salloc.poll()
        trainer = _trainer_pid(salloc)
        assert trainer is not None
        sent = time.monotonic()
        os.kill(trainer, signal.SIGINT)
        text, _ = salloc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if salloc.poll() is None:
            salloc.kill()
            salloc.communicate()
    assert salloc.returncode == 130, text
    assert "interrupted (Ctrl-C or SIGTERM)" in text and took < 20, (took, text)
    assert wait_until(lambda: not slurm_cluster.workers(), 15.0), slurm_cluster.workers()
    assert not [s for s in slurm_cluster.steps() if s[1].startswith("sc2pool-workers-")], slurm_cluster.steps()


def _children(proc: subprocess.Popen[str]) -> list[Any]:
    import psutil

    try:
        return list(psutil.Process(proc.pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return []
