"""Remote workers started by SLURM: one ``srun`` job step across the allocation's nodes.

Inside an allocation (``sbatch``/``salloc``: ``SLURM_JOB_ID`` is set) the trainer runs on the
first node and starts the workers as one job step, ``n_workers`` tasks of ``cpus_per_worker``
CPUs each::

    srun --ntasks=N --cpus-per-task=C --kill-on-bad-exit=1 --input=all \\
         python -m sc2pool.launchers.slurm_task

Each task picks its own :class:`~sc2pool.launchers.base.WorkerRecipe` (name, env count, fresh
CurveZMQ keys) from ``srun``'s stdin by ``SLURM_PROCID`` and runs the ordinary worker program,
which connects back over tcp. Nothing secret is on a command line; observations never touch SLURM.
While other steps hold the allocation's CPUs, ``srun`` waits for them without a word;
``start()`` waits at most ``start_timeout`` for ``squeue`` to list the step, then cancels it.

Restarts: a step whose task died is killed whole by SLURM (``--kill-on-bad-exit``); with
``on_failure="restart"`` the launcher starts a new step for it, whose workers join as the
replacements of the failed ones (the affected episodes end truncated). ``close()`` lets the
workers exit on the broker's CLOSE, then cancels the step; ``srun`` gets SIGTERM when the trainer
dies (so SLURM cancels the step), and workers also leave by themselves once the broker is silent.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass

from sc2pool.errors import ClusterResourcesError, ClusterUnavailableError, LauncherError
from sc2pool.launchers.base import Launcher, LaunchPlan, _die_with_parent, describe_exit_code

log = logging.getLogger("sc2pool.launchers.slurm")


def allocation_cpus(env: dict[str, str] | None = None) -> int:
    """CPUs of the allocation from ``SLURM_JOB_CPUS_PER_NODE`` (e.g. ``"4"``, ``"2(x3),1"``)."""
    text = (env if env is not None else os.environ).get("SLURM_JOB_CPUS_PER_NODE", "")
    total = 0
    for part in filter(None, text.split(",")):
        m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if m is None:
            raise ClusterUnavailableError(f"cannot read SLURM_JOB_CPUS_PER_NODE={text!r}")
        total += int(m.group(1)) * int(m.group(2) or 1)
    return total


@dataclass(eq=False)
class _Step:
    positions: list[int]  # worker positions (plan indices) of its tasks, by SLURM_PROCID
    names: list[str]
    proc: subprocess.Popen[bytes]
    job_name: str
    generation: int


class SlurmLauncher(Launcher):
    """Start a pool's remote workers as a SLURM job step of the current allocation::

        ZmqVecEnv(host=task_host, n_envs=16,
                  remote=RemoteWorkers(launcher=SlurmLauncher(n_workers=8, cpus_per_worker=2)),
                  failure=FailurePolicy("restart"))

    :param n_workers: number of worker tasks in the step.
    :param cpus_per_worker: ``--cpus-per-task`` of each worker.
    :param bind_host: the address the broker listens on (default every interface, with CURVE).
    :param advertise_host: the address workers connect to (default this node's host name).
    :param srun: the ``srun`` command (default: found on ``PATH``).
    :param srun_args: more ``srun`` options (e.g. ``["--exclusive"]``).
    :param start_timeout: seconds for SLURM to start the workers' job step (``sc2pool train
        --cluster-timeout``): inside a busy allocation ``srun`` waits, silently, for other steps to
        free their CPUs; past this, :class:`ClusterResourcesError` says so.
    """

    def __init__(
        self,
        n_workers: int,
        *,
        cpus_per_worker: int = 1,
        bind_host: str = "0.0.0.0",
        advertise_host: str | None = None,
        srun: str | None = None,
        srun_args: list[str] | None = None,
        start_timeout: float = 30.0,
    ) -> None:
        if n_workers < 1:
            raise ValueError(f"n_workers must be >= 1, got {n_workers}")
        if cpus_per_worker < 1:
            raise ValueError(f"cpus_per_worker must be >= 1, got {cpus_per_worker}")
        if not start_timeout > 0:
            raise ValueError(f"start_timeout must be > 0 seconds, got {start_timeout}")
        self.start_timeout = start_timeout
        self.n_workers = n_workers
        self.cpus_per_worker = cpus_per_worker
        self.bind_host = bind_host
        self.advertise_host = advertise_host
        self.srun = srun
        self.srun_args = list(srun_args or [])
        self.job_id = ""
        self._plan: LaunchPlan | None = None
        self._steps: list[_Step] = []
        self._ended: dict[int, int] = {}  # worker position -> how many of its steps ended
        self._token = uuid.uuid4().hex[:8]
        self._closed = False

    def prepare(self) -> None:
        self.job_id = os.environ.get("SLURM_JOB_ID", "")
        if not self.job_id:
            raise ClusterUnavailableError(
                "SlurmLauncher runs inside a SLURM allocation (SLURM_JOB_ID is not set): start the trainer "
                "with sbatch or salloc"
            )
        srun = self.srun or shutil.which("srun")
        if srun is None:
            raise ClusterUnavailableError("srun is not on PATH (install SLURM's client commands)")
        self.srun = srun
        need = self.n_workers * self.cpus_per_worker
        have = allocation_cpus()
        if have and need > have:
            raise ClusterResourcesError(
                f"{self.n_workers} workers x {self.cpus_per_worker} CPUs = {need} CPUs needed, but allocation "
                f"{self.job_id} has {have} CPUs (SLURM_JOB_CPUS_PER_NODE={os.environ.get('SLURM_JOB_CPUS_PER_NODE')}): "
                "ask sbatch for more (--ntasks/--cpus-per-task) or start fewer workers"
            )

    def bind_endpoint(self) -> str:
        return f"tcp://{self.bind_host}:0"

    def advertise(self, bound: str) -> str:
        host = self.advertise_host or socket.gethostname()
        port = bound.rsplit(":", 1)[1]
        return f"tcp://{host}:{port}"

    # ------------------------------------------------------------------------------ steps
    def start(self, plan: LaunchPlan) -> None:
        if len(plan.worker_envs) != self.n_workers:
            raise ValueError(f"plan for {len(plan.worker_envs)} workers, launcher for {self.n_workers}")
        self._plan = plan
        step = self._launch(list(range(self.n_workers)), 0)
        self._steps.append(step)
        self._await_start(step)

    def _await_start(self, step: _Step) -> None:
        """Wait until SLURM runs the step (``squeue`` lists it), at most ``start_timeout``. A
        Ctrl-C here (KeyboardInterrupt) or the deadline cancels the step before going on up, so a
        step that would start later cannot outlive the trainer's decision."""
        if shutil.which("squeue") is None:
            log.warning("squeue is not on PATH: not waiting for job step %s to start", step.job_name)
            return
        deadline = time.monotonic() + self.start_timeout
        try:
            while not self._step_ids(step.job_name):
                if step.proc.poll() is not None:
                    return  # not waiting any more: poll() reports or replaces an ended step, as always
                if time.monotonic() >= deadline:
                    raise ClusterResourcesError(
                        f"the workers' job step ({len(step.names)} tasks x {self.cpus_per_worker} CPUs) did not start "
                        f"within {self.start_timeout:g} s (--cluster-timeout): allocation {self.job_id} has no free "
                        f"CPUs for it, other job steps hold them (`squeue -s -j {self.job_id}`); let them end, or "
                        "ask sbatch/salloc for more CPUs"
                    )
                time.sleep(0.2)
        except BaseException:
            self._cancel(step)
            self._steps.remove(step)
            raise

    def _launch(self, positions: list[int], generation: int) -> _Step:
        assert self._plan is not None and self.srun is not None
        names = [f"slurm-{i}" if generation == 0 else f"slurm-{i}.{generation}" for i in positions]
        recipes = {procid: self._plan.recipe(i, name) for procid, (i, name) in enumerate(zip(positions, names, strict=True))}
        import cloudpickle

        payload = cloudpickle.dumps(recipes)
        job_name = f"sc2pool-workers-{self._token}-{generation}"
        cmd = [
            self.srun,
            f"--ntasks={len(positions)}",
            f"--cpus-per-task={self.cpus_per_worker}",
            "--kill-on-bad-exit=1",  # one task dies: SLURM ends the step, the launcher relaunches it
            "--input=all",  # every task reads the recipes from stdin (never from the command line)
            f"--job-name={job_name}",
            "--quiet",
            *self.srun_args,
            sys.executable, "-m", "sc2pool.launchers.slurm_task",
        ]
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, env=env, preexec_fn=_die_with_parent)
        assert proc.stdin is not None
        try:
            proc.stdin.write(payload)
            proc.stdin.close()
        except BrokenPipeError:
            pass
        log.info("started job step %s: %d workers (%s)", job_name, len(positions), ", ".join(names))
        return _Step(positions, names, proc, job_name, generation)

    def poll(self) -> None:
        if self._closed or self._plan is None:
            return
        for k, step in enumerate(self._steps):
            code = step.proc.poll()
            if code is None:
                continue
            why = f"job step {step.job_name} ({', '.join(step.names)}): srun {describe_exit_code(code)}"
            if not self._plan.restart:
                raise LauncherError(why)
            limit = self._plan.max_restarts
            for i in step.positions:
                self._ended[i] = self._ended.get(i, 0) + 1
                if limit is not None and self._ended[i] > limit + 1:
                    raise LauncherError(f"worker position {i} lost {self._ended[i]} job steps (max_restarts={limit}); last: {why}")
            log.warning("%s; starting a new step", why)
            self._steps[k] = self._launch(step.positions, step.generation + 1)

    def owns(self, name: str) -> bool:
        return any(name in s.names for s in self._steps)

    def worker_failed(self, name: str) -> None:
        for step in self._steps:
            if name in step.names and step.proc.poll() is None:
                self._cancel(step)  # its srun ends; poll() starts a new step
                return

    def _step_ids(self, job_name: str) -> list[str]:
        squeue = shutil.which("squeue")
        if squeue is None:
            return []
        try:
            out = subprocess.run(
                [squeue, "-h", "-s", "-j", self.job_id, "-o", "%i %j"],
                capture_output=True, text=True, timeout=10,
            ).stdout
        except (OSError, subprocess.TimeoutExpired):
            return []
        return [line.split()[0] for line in out.splitlines() if line.split()[1:] == [job_name]]

    def _cancel(self, step: _Step) -> None:
        """Cancel the step through SLURM (every node), then make sure srun is gone."""
        scancel = shutil.which("scancel")
        for step_id in self._step_ids(step.job_name):
            if scancel is not None:
                subprocess.run([scancel, "--signal=KILL", step_id], capture_output=True, timeout=10)
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            if step.proc.poll() is not None:
                break
            step.proc.send_signal(sig)
            try:
                step.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue

    def describe(self) -> list[str]:
        return [
            f"  SLURM: job step {s.job_name} of allocation {self.job_id} ({', '.join(s.names)}): srun "
            f"{describe_exit_code(s.proc.poll())}; a worker that never joins usually cannot reach "
            f"{self._plan.endpoint if self._plan else 'the broker'} from its node (see the step's output)"
            for s in self._steps
        ]

    def close(self, grace: float = 3.0) -> None:
        if self._closed:
            return
        self._closed = True
        deadline = time.monotonic() + max(grace, 0.0)
        for step in self._steps:  # workers exit on the broker's CLOSE; srun then ends
            try:
                step.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for step in self._steps:
            if step.proc.poll() is None:
                self._cancel(step)
        self._steps = []

