"""PPO on StarCraft II tasks over the pool: ``sc2pool train`` and ``sc2pool eval``.

Trainer side: this module never imports burnysc2. The observation and action spaces come from the
workers (they build the task), the games run in the workers' processes, and the trainer only sees
a ``ZmqVecEnv`` wrapped in SB3's ``VecMonitor`` (episode returns and lengths).

Hyper-parameters (``PPO_DEFAULTS``) are tuned for the built-in MoveToBeacon on a small CPU
machine: 8 envs x 128 steps per rollout (1024 samples, ~100 updates in 100k steps), a small
MLP, a high learning rate and a little entropy; the policy reaches the scripted walk's score in
well under 100k steps.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: The task id -> HostSpec target for SC2 tasks.
SC2_HOST = "workers.sc2.host:make_host"

PPO_DEFAULTS: dict[str, Any] = {
    "n_steps": 128,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 1e-3,
    "ent_coef": 0.01,
    "gamma": 0.97,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "policy_kwargs": {"net_arch": [64, 64]},
}

#: Per-task PPO settings over ``PPO_DEFAULTS`` (``--ppo`` overrides both). The full game's episodes
#: are hundreds of decisions long and end in a win or a loss: a long horizon (gamma 0.995),
#: longer rollouts per env; PPO starts from the cloned baseline (``TASK_PRETRAIN_DEFAULTS``), so
#: a low learning rate and little entropy, which would otherwise wash the cloned choices out
#: before the critic has learnt which of them to change. How they were chosen: docs/melee.md.
TASK_PPO_DEFAULTS: dict[str, dict[str, Any]] = {
    "Melee": {
        "n_steps": 256,
        "batch_size": 512,
        "n_epochs": 4,
        "learning_rate": 1e-4,
        "ent_coef": 0.003,
        "gamma": 0.995,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "policy_kwargs": {"net_arch": [128, 128]},
    },
}


#: Games of the task's scripted baseline cloned before PPO starts (``--pretrain-episodes``; 0 is
#: PPO from a random policy). Why: :mod:`sc2pool.training.pretrain`; how many: docs/melee.md.
TASK_PRETRAIN_DEFAULTS: dict[str, int] = {"Melee": 24}


#: PPO settings a resumed run may change (``ppo_kwargs`` with ``resume``): the optimisation's,
#: e.g. a lower learning rate to train on against a stronger opponent. The network's shape is
#: the saved model's (``RESUME_FIXED``).
RESUME_SETTABLE = frozenset({
    "learning_rate", "ent_coef", "vf_coef", "clip_range", "n_epochs", "batch_size", "n_steps", "gamma",
    "gae_lambda", "max_grad_norm", "target_kl",
})
RESUME_FIXED = frozenset({"policy", "policy_kwargs"})


def _plain(value: Any) -> Any:
    """A PPO setting as run.json can hold it: a schedule (SB3 keeps ``clip_range`` as one) by its
    value at the start of training."""
    return float(value(1.0)) if callable(value) else value


def ppo_params(task: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The PPO keyword arguments for ``task``: ``PPO_DEFAULTS``, the task's own, then ``overrides``."""
    return {**PPO_DEFAULTS, **TASK_PPO_DEFAULTS.get(task, {}), **(overrides or {})}


def reports_results(task: str) -> bool:
    """Whether ``task``'s games are won or lost (``Task.competitive``): only then does training keep
    ``game_results.csv`` and ``win_rate.png`` and evaluation print a win rate (a mini-game's
    episode ends at its time limit, a Tie that says nothing of winning)."""
    from workers.sc2.tasks.base import TaskError, resolve_task

    try:
        return bool(resolve_task(task).competitive)
    except (TaskError, ImportError, AttributeError, ValueError):
        return False


@dataclass
class TrainResult:
    model_path: Path
    out_dir: Path
    seconds: float
    timesteps: int  # trained in this run
    episodes: list[tuple[int, float, int]] = field(default_factory=list)  # (timestep, return, length)
    interrupted: bool = False  # stopped by Ctrl-C (KeyboardInterrupt); the model is saved anyway

    def curve(self, bins: int = 10) -> list[tuple[int, float, int]]:
        """``(timestep at bin end, mean episode return, episodes)`` over ``bins`` equal spans."""
        if not self.episodes:
            return []
        edges = np.linspace(0, max(self.timesteps, 1), bins + 1)
        out = []
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            rs = [r for t, r, _ in self.episodes if lo < t <= hi]
            if rs:
                out.append((int(hi), float(np.mean(rs)), len(rs)))
        return out


class ProgressLines:
    """Training progress as plain lines, for output that is not a terminal (a log file, a pipe, a
    batch job): SB3's progress bar redraws one line in place, which a file only shows at the end,
    so such a run would say nothing for minutes. One line per ``fraction`` of the run, like SB3's
    logger and tqdm do when they are not on a terminal::

        progress  10%  10240/100000 timesteps  41 episodes  mean reward 12.4  1385 steps/s

    The mean is over the last 100 episodes (SB3's ``ep_rew_mean``); steps/s over the whole run.
    An SB3 callback (built by :meth:`callback`, so that this module imports SB3 only when used).
    """

    def __init__(
        self, total: int, episodes: list[tuple[int, float, int]], stream: Any = None, fraction: float = 0.1
    ) -> None:
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction}")
        self.total = int(total)
        self.episodes = episodes  # (timestep, return, length), appended to as episodes end
        self.stream = stream
        self.fraction = fraction
        self._marks = 0  # lines printed
        self._t0 = 0.0

    def start(self) -> None:
        self._marks = 0
        self._t0 = time.perf_counter()

    def update(self, done: int) -> None:
        """``done`` timesteps of this run so far: print the lines of every mark it passed."""
        last = math.ceil(1 / self.fraction)
        while self._marks < last and done >= min(self.total, math.ceil((self._marks + 1) * self.fraction * self.total)):
            self._marks += 1
            print(self.line(done), file=self.stream or sys.stdout, flush=True)

    def line(self, done: int) -> str:
        recent = [r for _, r, _ in self.episodes[-100:]]
        mean = f"mean reward {np.mean(recent):.1f}" if recent else "mean reward -"
        rate = done / max(time.perf_counter() - self._t0, 1e-9)
        pct = 100 * min(done, self.total) // max(self.total, 1)
        return (f"progress {pct:3d}%  {done}/{self.total} timesteps  {len(self.episodes)} episodes  "
                f"{mean}  {rate:.0f} steps/s")

    def callback(self) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        lines = self

        class _Callback(BaseCallback):
            def _on_training_start(self) -> None:
                self.first = int(self.num_timesteps)  # a resumed model counts on from its checkpoint
                lines.start()

            def _on_step(self) -> bool:
                lines.update(int(self.num_timesteps) - self.first)
                return True

        return _Callback()


def host_spec(task: str, engine: str, task_kwargs: dict[str, Any] | None = None, **extra: Any) -> Any:
    from workers.host import HostSpec

    kwargs: dict[str, Any] = {"task": task, "engine": engine}
    if task_kwargs:
        kwargs["task_kwargs"] = dict(task_kwargs)
    kwargs.update(extra)
    return HostSpec(SC2_HOST, kwargs)


def make_vec_env(
    task: str,
    n_workers: int,
    envs_per_worker: int,
    engine: str = "subprocess",
    task_kwargs: dict[str, Any] | None = None,
    on_failure: str | None = None,
    bind: str | None = None,
    local_workers: int | None = None,
    render: bool = False,
    render_size: int = 256,
    league: Any = None,
    **pool_kwargs: Any,
) -> Any:
    """A ``VecMonitor(ZmqVecEnv)`` of ``n_workers * envs_per_worker`` games of ``task``.

    Self-play (``task_kwargs`` with ``opponent`` ``"self"`` or ``"league"``): slots 2k and 2k+1 of
    each worker are one game, so ``envs_per_worker`` must be even. ``league`` (a
    :class:`~sc2pool.training.selfplay.SnapshotPool`, for ``"league"``) puts a
    :class:`~sc2pool.training.selfplay.LeagueVecEnv` under the monitor: SB3 then sees only the
    learner slots, and the opponent slots are played by the league's snapshots.

    ``render``: build the games with ``render_mode="rgb_array"`` (``render_size`` pixels on the
    long side), so ``get_images()``/``render()`` and SB3's ``VecVideoRecorder`` show them.

    ``on_failure="restart"`` keeps a long run going through crashes at both levels: the pool
    respawns dead or hung workers, and each worker relaunches a crashed game process itself;
    either way the affected episode ends as truncated and the others are untouched. Default: the
    mode of a ``failure=FailurePolicy(...)`` in ``pool_kwargs``, else ``"raise"``.

    ``pool_kwargs``: more ``ZmqVecEnv`` arguments (``failure``, ``timeouts``, ``remote``,
    ``tuning``; see :mod:`sc2pool.options`). ``bind`` and a ``RemoteWorkers`` launcher decide how
    many of the workers run here.

    With ``bind`` (e.g. ``"tcp://0.0.0.0:5555"``) only ``local_workers`` of the ``n_workers`` run
    here (default: all of them); the pool waits for the others, ``sc2pool worker --connect ...
    --task TASK --envs ENVS_PER_WORKER`` started on other machines (see :func:`remote_worker_command`).
    """
    import dataclasses

    from stable_baselines3.common.vec_env import VecMonitor

    from sc2pool import ZmqVecEnv, options
    from sc2pool.training.selfplay import LeagueVecEnv, check_pairing, paired_opponent

    check_pairing(task_kwargs, envs_per_worker)
    if league is not None and paired_opponent(task_kwargs) != "league":
        raise ValueError("a league of snapshots goes with task_kwargs {'opponent': 'league'}")

    if local_workers is not None and not 0 <= local_workers <= n_workers:
        raise ValueError(f"local workers must be between 0 and the {n_workers} workers, got {local_workers}")
    groups = {k: pool_kwargs.pop(k) for k in ("failure", "timeouts", "remote", "tuning") if k in pool_kwargs}
    legacy = {k: pool_kwargs.pop(k) for k in list(pool_kwargs) if k in options.DEPRECATED_KEYWORDS}
    opts = options.resolve(legacy, caller="make_vec_env", **groups)
    if on_failure is None:
        on_failure = opts.failure.on_failure
    elif "failure" in groups and on_failure != opts.failure.on_failure:
        raise ValueError(f"on_failure={on_failure!r} contradicts failure={opts.failure!r}: give one of them")
    failure = dataclasses.replace(opts.failure, on_failure=on_failure)
    if failure.restart and paired_opponent(task_kwargs) is not None:
        raise ValueError(
            "on_failure='restart' is not supported with self-play yet (relaunching one game of a pair would have to "
            "replace both); use on_failure='raise'"
        )
    remote = opts.remote
    if bind is not None and remote.bind is not None and bind != remote.bind:
        raise ValueError(f"bind={bind!r} contradicts remote=RemoteWorkers(bind={remote.bind!r}): give one of them")
    bind = bind if bind is not None else remote.bind
    if bind is None and local_workers is not None and local_workers != n_workers:
        raise ValueError("remote workers (fewer local workers than workers) need a bind endpoint")
    extra: dict[str, Any] = {"on_game_crash": "relaunch"} if failure.restart else {}
    if render:
        extra.update(render_kwargs(render_size))
    n_local = n_workers
    local_envs: int | None = None
    launcher = remote.launcher
    if launcher is not None:  # every worker is placed by the cluster launcher
        if launcher.n_workers != n_workers:
            raise ValueError(f"the launcher starts {launcher.n_workers} workers, not {n_workers}")
        n_local = 0
    elif bind is not None:
        n_local = n_workers if local_workers is None else local_workers
        local_envs = n_local * envs_per_worker
    env = ZmqVecEnv(
        host=host_spec(task, engine, task_kwargs, **extra),
        n_envs=n_workers * envs_per_worker,
        n_workers=n_local,
        failure=failure,
        timeouts=opts.timeouts,
        remote=dataclasses.replace(remote, bind=bind, local_envs=local_envs),
        tuning=opts.tuning,
        **pool_kwargs,
    )
    if league is not None:
        return VecMonitor(LeagueVecEnv(env, league))
    return VecMonitor(env)


def render_kwargs(render_size: int = 256) -> dict[str, Any]:
    """The SC2 host options that make its games render (``render_mode="rgb_array"``)."""
    return {"render_mode": "rgb_array", "render_size": int(render_size)}


def remote_worker_command(
    bind: str,
    task: str,
    envs_per_worker: int,
    engine: str = "subprocess",
    task_kwargs: dict[str, Any] | None = None,
    on_failure: str = "raise",
    render_size: int | None = None,
) -> str:
    """The ``sc2pool worker`` command line that joins a pool bound at ``bind`` with matching games
    (a wildcard address is shown as this machine's host name)."""
    import shlex
    import socket

    endpoint = bind
    for wildcard in ("0.0.0.0", "*", "[::]"):
        endpoint = endpoint.replace(f"//{wildcard}:", f"//{socket.gethostname()}:")
    parts = ["sc2pool", "worker", "--connect", endpoint, "--task", task, "--envs", str(envs_per_worker)]
    if task_kwargs:
        parts += ["--task-kwargs", json.dumps(task_kwargs)]
    if engine != "subprocess":
        parts += ["--engine", engine]
    if on_failure == "restart":
        parts += ["--on-game-crash", "relaunch"]
    if render_size is not None:
        parts += ["--render", "--render-size", str(render_size)]
    return shlex.join(parts)


def _limit_torch_threads() -> None:
    """Games need the cores; PPO's tiny MLP is fastest single-threaded anyway."""
    import torch

    torch.set_num_threads(max(1, int(os.environ.get("SC2POOL_TORCH_THREADS", "1"))))


def train(
    task: str = "MoveToBeacon",
    n_workers: int = 4,
    envs_per_worker: int = 2,
    timesteps: int = 100_000,
    out_dir: str | os.PathLike[str] = "runs/MoveToBeacon",
    seed: int | None = 0,
    engine: str = "subprocess",
    task_kwargs: dict[str, Any] | None = None,
    ppo_kwargs: dict[str, Any] | None = None,
    progress_bar: bool = True,
    verbose: int = 0,
    on_failure: str | None = None,
    bind: str | None = None,
    local_workers: int | None = None,
    pool_kwargs: dict[str, Any] | None = None,
    checkpoint_every: int | None = None,
    resume: str | os.PathLike[str] | None = None,
    video_every: int | None = None,
    video_length: int = 400,
    video_fps: float | None = None,
    render: bool = False,
    render_size: int = 256,
    pretrain_episodes: int | None = None,
    snapshot_every: int | None = None,
    league_size: int | None = None,
    league_fixed: Sequence[str | os.PathLike[str]] = (),
) -> TrainResult:
    """Train PPO on ``task`` through the pool; save ``model.zip``, TensorBoard logs,
    ``learning_curve.csv``, ``episode_reward.png`` and ``run.json`` in ``out_dir``.

    ``progress_bar``: SB3's progress bar when stdout is a terminal, else a plain line every 10% of
    the run (:class:`ProgressLines`). ``bind``/``local_workers``: workers on other machines (see
    :func:`make_vec_env`);
    ``pool_kwargs``: more ``ZmqVecEnv`` arguments, e.g. ``{"timeouts": Timeouts(join=120),
    "remote": RemoteWorkers(curve="keys/")}`` (:mod:`sc2pool.options`).
    ``checkpoint_every``: also save ``checkpoints/model_<timesteps>_steps.zip`` about every that
    many timesteps, so that a long run that dies keeps its progress. ``resume``: continue training
    a saved model (its hyperparameters and timestep count; ``ppo_kwargs`` change those it names of
    ``RESUME_SETTABLE``, e.g. a lower learning rate against a stronger opponent) for
    ``timesteps`` more. ``video_every``: record env 0's episode at the start, then its next
    episode after every that many timesteps (at most ``video_length`` frames), as
    ``videos/step_<timestep>.mp4`` and a GIF under ``videos/`` in TensorBoard (see
    :class:`VideoCallback`); implies ``render``, which builds the games with
    ``render_mode="rgb_array"``. ``pretrain_episodes``: first clone that many games of the task's
    scripted baseline into the new policy (:mod:`sc2pool.training.pretrain`; ``None``: the task's
    default in ``TASK_PRETRAIN_DEFAULTS``, 0: none; never when resuming). With a self-play
    opponent the baseline plays itself (``"self"``), so the agent never meets the Computer.

    Self-play (``task_kwargs={"opponent": "self"}``): every slot is an env SB3 trains on, both
    players of each game. ``{"opponent": "league"}``: SB3 trains on slots 2k only; slots 2k+1 are
    played by snapshots of the policy (:mod:`sc2pool.training.selfplay`), saved as
    ``snapshots/snapshot_<timesteps>.zip`` at the start and every ``snapshot_every`` timesteps
    (default ``LEAGUE_SNAPSHOT_EVERY``), the newest ``league_size`` (default ``LEAGUE_SIZE``)
    making the league, with ``league_fixed`` (saved models, e.g. a clone of the scripted baseline)
    as members that never leave. ``snapshot_every`` saves snapshots with any opponent (no
    league)."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

    from sc2pool.training.selfplay import (
        LEAGUE_SIZE,
        LEAGUE_SNAPSHOT_EVERY,
        SnapshotPool,
        check_pairing,
        paired_opponent,
        snapshot_callback,
    )

    if checkpoint_every is not None and checkpoint_every < 1:
        raise ValueError(f"checkpoint_every must be >= 1 timestep, got {checkpoint_every}")
    if resume is not None and not Path(resume).is_file():
        raise ValueError(f"no model file to resume from at {resume}")
    if video_every is not None and video_every < 1:
        raise ValueError(f"video_every must be >= 1 timestep, got {video_every}")
    if video_length < 2:
        raise ValueError(f"video_length must be >= 2 frames, got {video_length}")
    if snapshot_every is not None and snapshot_every < 1:
        raise ValueError(f"snapshot_every must be >= 1 timestep, got {snapshot_every}")
    check_pairing(task_kwargs, envs_per_worker)
    selfplay = paired_opponent(task_kwargs)
    if (league_size is not None or league_fixed) and selfplay != "league":
        raise ValueError("league_size and league_fixed go with task_kwargs {'opponent': 'league'}")
    league = SnapshotPool(league_size or LEAGUE_SIZE, seed, league_fixed) if selfplay == "league" else None
    if league is not None and snapshot_every is None:
        snapshot_every = LEAGUE_SNAPSHOT_EVERY
    if pretrain_episodes is None:
        pretrain_episodes = 0 if resume is not None else TASK_PRETRAIN_DEFAULTS.get(task, 0)
    if pretrain_episodes < 0:
        raise ValueError(f"pretrain_episodes must be >= 0 games, got {pretrain_episodes}")
    if pretrain_episodes and resume is not None:
        raise ValueError("pretrain_episodes does not apply with resume (the saved model has learnt already)")
    if resume is not None and ppo_kwargs:
        fixed = sorted(set(ppo_kwargs) & RESUME_FIXED)
        if fixed:
            raise ValueError(f"{fixed} cannot change when resuming (the saved network is built with them); "
                             f"settings that can: {sorted(RESUME_SETTABLE)}")
        unknown = sorted(set(ppo_kwargs) - RESUME_SETTABLE)
        if unknown:
            raise ValueError(f"unknown PPO settings {unknown} for resume; settings that can change: {sorted(RESUME_SETTABLE)}")

    _limit_torch_threads()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    params = ppo_params(task, ppo_kwargs)
    episodes: list[tuple[int, float, int]] = []

    results_path = out / "game_results.csv"
    results_path.unlink(missing_ok=True)
    keep_results = reports_results(task)

    class _Episodes(BaseCallback):
        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is not None:
                    t = int(self.num_timesteps) - start
                    episodes.append((t, float(ep["r"]), int(ep["l"])))
                    if keep_results and info.get("game_result") is not None:
                        _note_result(results_path, t, time.perf_counter() - t0, str(info["game_result"]),
                                     str(info.get("opponent", "")))
            return True

    class _Restarts(BaseCallback):
        """Episodes ended by a worker restart (``on_failure="restart"``), for run.json."""

        cut = 0

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                if info.get("sc2pool.restarted"):
                    _Restarts.cut += 1
            return True

    t0 = time.perf_counter()
    pretrained: dict[str, Any] | None = None
    env = make_vec_env(
        task, n_workers, envs_per_worker, engine, task_kwargs, on_failure=on_failure,
        bind=bind, local_workers=local_workers, render=render or video_every is not None, render_size=render_size,
        league=league, **(pool_kwargs or {}),
    )
    try:
        if seed is not None:
            env.seed(seed)
        if resume is not None:
            # only the settings asked for change; the rest are the saved model's own
            model = PPO.load(Path(resume), env=env, device="cpu", tensorboard_log=str(out / "tensorboard"),
                             verbose=verbose, **(ppo_kwargs or {}))
            params = {key: _plain(getattr(model, key)) if key in RESUME_SETTABLE and hasattr(model, key) else value
                      for key, value in params.items()}
        else:
            from sc2pool.training.extractors import policy_for

            policy, policy_kwargs = policy_for(env.observation_space, params.get("policy_kwargs"))
            model = PPO(
                policy,
                env,
                seed=seed,
                device="cpu",
                tensorboard_log=str(out / "tensorboard"),
                verbose=verbose,
                **{**params, "policy_kwargs": policy_kwargs},
            )
            if pretrain_episodes:
                pretrained = _pretrain(model, task, pretrain_episodes, n_workers, envs_per_worker, engine,
                                       task_kwargs, seed, float(params.get("gamma", 0.99)))
        callbacks: list[BaseCallback] = [_Episodes(), _Restarts()]
        bar = progress_bar and sys.stdout.isatty()  # a bar only draws on a terminal
        if progress_bar and not bar:
            callbacks.append(ProgressLines(int(timesteps), episodes).callback())
        if checkpoint_every is not None:
            callbacks.append(
                CheckpointCallback(max(1, checkpoint_every // env.num_envs), str(out / "checkpoints"), "model")
            )
        if snapshot_every is not None:
            callbacks.append(snapshot_callback(snapshot_every, out / "snapshots", league))
        if video_every is not None:
            from sc2pool.training.video import default_fps
            from sc2pool.training.video_callback import VideoCallback

            fps = video_fps or default_fps(float(env.unwrapped.metadata.get("render_fps", 2.8)))
            callbacks.append(VideoCallback(video_every, out / "videos", fps, video_length))
        start = int(model.num_timesteps)  # a resumed model counts on from its checkpoint
        interrupted = False
        try:
            model.learn(
                total_timesteps=int(timesteps),
                callback=callbacks,
                progress_bar=bar,
                tb_log_name=task,
                reset_num_timesteps=resume is None,
            )
        except KeyboardInterrupt:
            interrupted = True  # Ctrl-C: keep what was learnt, saved like a finished run's
        model_path = out / "model.zip"
        model.save(model_path)
        restarts = sum(env.unwrapped.restart_counts.values()) if hasattr(env.unwrapped, "restart_counts") else 0
        league_games = dict(env.venv.games_per_snapshot) if league is not None else None
    finally:
        env.close()
    seconds = time.perf_counter() - t0
    done = int(model.num_timesteps) - start if interrupted else int(timesteps)
    result = TrainResult(model_path, out, seconds, done, episodes, interrupted)
    extra: dict[str, Any] = {"worker_restarts": restarts, "episodes_cut_by_restarts": _Restarts.cut,
                             "pretrain": pretrained}
    if selfplay is not None:
        extra["selfplay"] = {"opponent": selfplay, "snapshot_every": snapshot_every,
                             "league_size": None if league is None else league.size,
                             "league_fixed": [] if league is None else [str(f) for f in league.fixed],
                             "league_games": league_games}
    _write_outputs(result, task, params, n_workers, envs_per_worker, engine, task_kwargs, extra)
    return result


def _pretrain(
    model: Any, task: str, episodes: int, n_workers: int, envs_per_worker: int, engine: str,
    task_kwargs: dict[str, Any] | None, seed: int | None, gamma: float,
) -> dict[str, Any]:
    """Clone ``episodes`` games of the baseline into ``model`` (games on a pool of their own:
    the baseline is a task option, fixed when a game's task is built) and say how it went.
    A self-play run clones the baseline playing itself (both players of each game, the
    league's opponent slots too), so that its agent never meets the Computer."""
    from sc2pool.training.pretrain import behaviour_clone, collect_demonstrations
    from sc2pool.training.selfplay import paired_opponent

    if paired_opponent(task_kwargs) is not None:
        task_kwargs = {**(task_kwargs or {}), "opponent": "self"}

    print(f"pretrain: playing {episodes} games of the {task} baseline to clone ...", flush=True)
    demos = collect_demonstrations(task, episodes, n_workers, envs_per_worker, engine, task_kwargs,
                                   None if seed is None else seed + 1_000_003, gamma)
    report = behaviour_clone(model, demos, seed=seed)
    won = sum(1 for r in demos.results if r == "Victory")
    print(
        f"pretrain: {demos.episodes} games ({won} won) in {demos.seconds:.0f} s, {report.samples} steps; "
        f"cloned in {report.seconds:.0f} s, held-out action accuracy {report.holdout_accuracy:.3f}",
        flush=True,
    )
    return {
        "episodes": demos.episodes, "won": won, "steps": report.samples, "play_s": round(demos.seconds, 1),
        "clone_s": round(report.seconds, 1), "holdout_accuracy": report.holdout_accuracy,
        "opponent": (task_kwargs or {}).get("opponent"),  # whom the baseline played (None: the task's default)
        "policy_loss": report.policy_loss, "value_loss": report.value_loss, "epochs": report.epochs,
    }


def _note_result(path: Path, timestep: int, wall_s: float, result: str, opponent: str = "") -> None:
    """Append one episode's game result to ``game_results.csv`` as it ends (a win rate against
    timesteps and wall time; written as the run goes so that a stopped run keeps it). ``opponent``
    names the Computer played (``Opponent.label``; empty in self-play), so that a run against a
    mix of opponents has a curve for each."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["timestep", "wall_s", "result", "opponent"])
        w.writerow([timestep, f"{wall_s:.1f}", result, opponent])


def _write_outputs(
    result: TrainResult,
    task: str,
    params: dict[str, Any],
    n_workers: int,
    envs_per_worker: int,
    engine: str,
    task_kwargs: dict[str, Any] | None,
    pool: dict[str, Any] | None = None,
) -> None:
    out = result.out_dir
    with (out / "learning_curve.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestep", "episode_return", "episode_length"])
        w.writerows(result.episodes)
    run = {
        "task": task,
        "task_kwargs": task_kwargs or {},
        "engine": engine,
        "workers": n_workers,
        "envs_per_worker": envs_per_worker,
        "timesteps": result.timesteps,
        "seconds": round(result.seconds, 1),
        "ppo": {k: v for k, v in params.items()},
        "episodes": len(result.episodes),
        **(pool or {}),
    }
    (out / "run.json").write_text(json.dumps(run, indent=2, default=str))
    plot_curve(result, out / "episode_reward.png", title=f"PPO on {task}")
    if (out / "game_results.csv").is_file():
        plot_win_rate(out / "game_results.csv", out / "win_rate.png", title=f"PPO on {task}")


def plot_win_rate(results_csv: Path, path: Path, title: str = "", window: int = 20) -> None:
    """Win and loss rates over the last ``window`` games against timesteps and against wall time
    (from ``game_results.csv``) as a PNG: a game task's learning curve, which the shaped episode
    reward does not show."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with Path(results_csv).open() as f:
        all_rows = list(csv.DictReader(f))
    # a run against a mix of Computers: a won/lost pair of lines for each (older files have no column)
    opponents = sorted({r.get("opponent") or "" for r in all_rows})
    palette = (("C2", "C3"), ("C0", "C1"), ("C4", "C5"), ("C6", "C7"))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=100, sharey=True)
    k = 1
    for n, opponent in enumerate(opponents):
        rows = [r for r in all_rows if (r.get("opponent") or "") == opponent]
        kn = max(1, min(window, len(rows)))
        k = max(k, kn)
        t = np.array([int(r["timestep"]) for r in rows])
        wall = np.array([float(r["wall_s"]) for r in rows]) / 60.0
        won = np.array([r["result"] == "Victory" for r in rows], float)
        lost = np.array([r["result"] == "Defeat" for r in rows], float)
        suffix = f" ({opponent})" if len(opponents) > 1 else ""
        c_won, c_lost = palette[n % len(palette)]
        for ax, x in ((axes[0], t), (axes[1], wall)):
            if len(rows) >= kn:
                ax.plot(x[kn - 1 :], np.convolve(won, np.ones(kn) / kn, mode="valid"), color=c_won, lw=2, marker=".",
                        ms=3, label=f"won{suffix}")
                ax.plot(x[kn - 1 :], np.convolve(lost, np.ones(kn) / kn, mode="valid"), color=c_lost, lw=1, marker=".",
                        ms=3, label=f"lost{suffix}")
    for ax, label in ((axes[0], "timesteps"), (axes[1], "wall time (min)")):
        ax.set_xlabel(label)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"share of the last {k} games")
    axes[0].legend(loc="best", fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_curve(result: TrainResult, path: Path, title: str = "") -> None:
    """Episode return against timesteps (raw points and a moving average) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    if result.episodes:
        t = np.array([e[0] for e in result.episodes])
        r = np.array([e[1] for e in result.episodes])
        ax.scatter(t, r, s=6, alpha=0.35, label="episode")
        k = max(1, min(20, len(r) // 5))
        if len(r) >= k:
            avg = np.convolve(r, np.ones(k) / k, mode="valid")
            ax.plot(t[k - 1 :], avg, color="C1", lw=2, label=f"mean of {k}")
        ax.legend(loc="lower right")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("episode reward")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def format_curve(result: TrainResult, bins: int = 10) -> str:
    rows = result.curve(bins)
    if not rows:
        return "learning curve: no finished episodes"
    lines = ["learning curve (mean episode reward per span of timesteps):"]
    top = max(max(abs(r) for _, r, _ in rows), 1e-9)
    for t, r, n in rows:
        bar = "#" * int(round(30 * max(r, 0.0) / top))
        lines.append(f"  <= {t:>8d}  {r:8.2f}  ({n:3d} episodes)  {bar}")
    return "\n".join(lines)


# -- evaluation -------------------------------------------------------------------------------------
def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate of ``wins`` in ``n`` games (95% for z = 1.96).

    Unlike the normal approximation it stays inside [0, 1] and is not empty at 0 or n wins, which
    matters at 40 games and rates near 80-100% (Wilson 1927; Brown, Cai and DasGupta 2001,
    "Interval Estimation for a Binomial Proportion", who recommend it for small n)."""
    if n < 0 or not 0 <= wins <= n:
        raise ValueError(f"need 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class EvalResult:
    returns: list[float]
    lengths: list[int]
    seconds: float
    video: Path | None = None  # the video written (``video=``), one episode after another
    video_frames: int = 0
    results: list[str | None] = field(default_factory=list)
    """Each episode's game result (``Victory``/``Defeat``/``Tie``; None when the game gave none)."""
    opponents: list[str] = field(default_factory=list)
    """Each episode's Computer (``Opponent.label``; empty when none), beside ``results``."""

    def by_opponent(self) -> dict[str, EvalResult]:
        """The games against each Computer, when a task draws several (one entry otherwise)."""
        labels = self.opponents if len(self.opponents) == len(self.results) else [""] * len(self.results)
        out: dict[str, EvalResult] = {}
        for label in sorted(set(labels)):
            keep = [i for i, lab in enumerate(labels) if lab == label]
            out[label] = EvalResult([self.returns[i] for i in keep], [self.lengths[i] for i in keep], self.seconds,
                                    results=[self.results[i] for i in keep], opponents=[label] * len(keep))
        return out

    @property
    def games(self) -> int:
        """Episodes that ended with a game result."""
        return sum(r is not None for r in self.results)

    @property
    def wins(self) -> int:
        return sum(r == "Victory" for r in self.results)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    def win_interval(self, z: float = 1.96) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate (:func:`wilson_interval`)."""
        return wilson_interval(self.wins, self.games, z)

    @property
    def mean(self) -> float:
        return float(np.mean(self.returns)) if self.returns else math.nan

    @property
    def std(self) -> float:
        return float(np.std(self.returns)) if self.returns else math.nan


def evaluate(
    model_path: str | os.PathLike[str] | None,
    task: str = "MoveToBeacon",
    episodes: int = 10,
    policy: str = "model",
    n_workers: int = 1,
    envs_per_worker: int = 2,
    engine: str = "subprocess",
    task_kwargs: dict[str, Any] | None = None,
    deterministic: bool = True,
    seed: int | None = 12345,
    video: str | os.PathLike[str] | None = None,
    video_fps: float | None = None,
    render: bool = False,
    render_size: int = 256,
    pool_kwargs: dict[str, Any] | None = None,
) -> EvalResult:
    """Play ``episodes`` full episodes and return their rewards.

    ``policy``: ``"model"`` (a saved SB3 PPO ``.zip``), ``"scripted"`` (the task's own scripted
    baseline, run in the workers: e.g. walk straight to the beacon) or ``"random"``.
    ``video``: also write the evaluated episodes, one after another in the order they ended, to
    this file (MP4, or GIF when it ends in ``.gif``) at ``video_fps`` (default: 4x real time, at least 10 fps).
    Each env's episode is kept in memory until it ends; its last picture comes from the step's
    ``info["terminal_frame"]``, as the env is already reset when the step returns.
    ``pool_kwargs``: more ``ZmqVecEnv`` arguments, as for :func:`train` (e.g. ``{"timeouts":
    Timeouts(heartbeat=30)}`` on a machine busy with other work).
    """
    if policy not in ("model", "scripted", "random"):
        raise ValueError(f"policy must be 'model', 'scripted' or 'random', got {policy!r}")
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    from sc2pool.training.selfplay import paired_opponent

    if paired_opponent(task_kwargs) is not None:
        raise ValueError(
            f"evaluation plays against a Computer; opponent {paired_opponent(task_kwargs)!r} is a training opponent "
            "(give e.g. --task-kwargs '{\"opponent\": {\"difficulty\": \"easy\"}}', or leave opponent out)"
        )
    kwargs = dict(task_kwargs or {})
    if policy == "scripted":
        kwargs["scripted"] = True
    model = None
    if policy == "model":
        if model_path is None:
            raise ValueError("a model path is needed with policy='model'")
        path = Path(model_path)
        if not path.is_file():
            raise FileNotFoundError(f"no model file at {path}")
        from stable_baselines3 import PPO

        _limit_torch_threads()
        model = PPO.load(str(path), device="cpu")
    n_envs = max(1, min(n_workers * envs_per_worker, episodes))
    workers = max(1, min(n_workers, n_envs))
    t0 = time.perf_counter()
    env = make_vec_env(
        task, workers, max(1, n_envs // workers), engine, kwargs, render=render or video is not None,
        render_size=render_size, **dict(pool_kwargs or {}),
    )
    returns: list[float] = []
    lengths: list[int] = []
    results: list[str | None] = []
    opponents: list[str] = []
    keep_results = reports_results(task)
    writer: Any = None
    try:
        if model is not None and model.observation_space != env.observation_space:
            raise ValueError(
                f"the model was trained on observations {model.observation_space}, "
                f"but task {task!r} gives {env.observation_space}"
            )
        if seed is not None:
            env.seed(seed)
        obs = env.reset()
        clips: list[list[np.ndarray]] = []
        if video is not None:
            from sc2pool.training.video import VideoWriter, default_fps

            fps = video_fps or default_fps(float(env.unwrapped.metadata.get("render_fps", 2.8)))
            writer = VideoWriter(video, fps)
            clips = [[frame] for frame in env.get_images()]
        rng = np.random.default_rng(seed)
        while len(returns) < episodes:
            if model is not None:
                actions, _ = model.predict(obs, deterministic=deterministic)
            else:
                env.action_space.seed(int(rng.integers(2**31)))
                actions = np.array([env.action_space.sample() for _ in range(env.num_envs)])
            obs, _, dones, infos = env.step(actions)
            frames = env.get_images() if writer is not None else None
            for i, (done, info) in enumerate(zip(dones, infos, strict=True)):
                if done and "episode" in info and len(returns) < episodes:
                    returns.append(float(info["episode"]["r"]))
                    lengths.append(int(info["episode"]["l"]))
                    result = info.get("game_result") if keep_results else None
                    results.append(str(result) if result is not None else None)
                    opponents.append(str(info.get("opponent", "")))
                    if writer is not None:
                        last = info.get("terminal_frame")
                        if isinstance(last, np.ndarray):
                            clips[i].append(last)
                        for frame in clips[i]:
                            writer.append(frame)
                if frames is not None:
                    if done:
                        clips[i] = [frames[i]]  # the next episode's first frame
                    else:
                        clips[i].append(frames[i])
    finally:
        env.close()
        if writer is not None:
            writer.close()
    return EvalResult(
        returns,
        lengths,
        time.perf_counter() - t0,
        video=writer.path if writer is not None else None,
        video_frames=writer.frames if writer is not None else 0,
        results=results,
        opponents=opponents,
    )


def summarize_eval(res: EvalResult) -> str:
    text = (
        f"episodes: {len(res.returns)}  rewards: {', '.join(f'{r:g}' for r in res.returns)}\n"
        f"mean reward: {res.mean:.2f}  (std {res.std:.2f}, {res.seconds:.1f} s)"
    )
    if res.games:
        lo, hi = res.win_interval()
        ties = sum(r == "Tie" for r in res.results)
        text += (
            f"\nwin rate: {res.win_rate:.3f}  ({res.wins}/{res.games} games won, {ties} tied; "
            f"95% Wilson interval {lo:.3f}-{hi:.3f})"
        )
        groups = res.by_opponent()
        if len(groups) > 1:
            for label, part in groups.items():
                if part.games:
                    lo, hi = part.win_interval()
                    ties = sum(r == "Tie" for r in part.results)
                    text += (f"\n  against {label or '(no Computer)'}: {part.win_rate:.3f}  ({part.wins}/{part.games} won, "
                             f"{ties} tied; 95% Wilson interval {lo:.3f}-{hi:.3f})")
    if res.video is not None:
        text += f"\nvideo: {res.video} ({res.video_frames} frames)"
    return text


__all__: Sequence[str] = (
    "PPO_DEFAULTS", "TASK_PPO_DEFAULTS", "TrainResult", "EvalResult", "evaluate", "train", "format_curve",
    "ppo_params", "reports_results", "wilson_interval",
)
