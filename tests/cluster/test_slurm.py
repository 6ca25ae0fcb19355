"""Workers started by SLURM: `sc2pool train --slurm` inside a real allocation (slurmctld + slurmd +
munge started by the fixture on 127.0.0.1), a job step killed mid-training, no leftovers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
