"""Behaviour cloning of a task's scripted baseline, before PPO: ``sc2pool train --pretrain-episodes N``.

A whole melee game is hundreds of decisions long and ends in one result. PPO started from a
random policy spends its first hours losing, and a policy that never wins cannot learn what wins
(docs/melee.md has such a run). Starting from the baseline's behaviour puts PPO where games are
won and lost by the choices it can improve on, the way AlphaStar began from human games:

1. :func:`collect_demonstrations` plays ``N`` games with the task's ``scripted`` baseline through
   the pool and keeps each step's observation with the action the baseline chose there (the
   task reports it as ``info["action"]``) and the discounted return that followed;
2. :func:`behaviour_clone` fits the PPO policy's action head to those actions (cross-entropy) and
   its value head to those returns (squared error), so the first PPO updates start from sensible
   advantages instead of a random critic undoing the cloned policy.

Only tasks whose ``info`` carries ``"action"`` can be cloned (the Melee task does); a task that
does not is refused with an error naming it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Demonstrations:
    """Steps of the baseline's games: ``obs`` (a dict of arrays for a ``Dict`` observation, else
    an array), the ``actions`` chosen there, the discounted ``returns`` that followed."""

    obs: dict[str, np.ndarray] | np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    episodes: int
    seconds: float
    results: list[str | None] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def _discounted(rewards: list[float], gamma: float) -> np.ndarray:
    out = np.empty(len(rewards), dtype=np.float32)
    acc = 0.0
    for i in range(len(rewards) - 1, -1, -1):
        acc = rewards[i] + gamma * acc
        out[i] = acc
    return out


def _slice(obs: Any, i: int) -> Any:
    if isinstance(obs, dict):
        return {k: np.array(v[i]) for k, v in obs.items()}
    return np.array(obs[i])


def _stack(items: list[Any]) -> dict[str, np.ndarray] | np.ndarray:
    if items and isinstance(items[0], dict):
        return {k: np.stack([o[k] for o in items]) for k in items[0]}
    return np.stack(items)


def collect_demonstrations(
    task: str,
    episodes: int,
    n_workers: int,
    envs_per_worker: int,
    engine: str = "subprocess",
    task_kwargs: dict[str, Any] | None = None,
    seed: int | None = None,
    gamma: float = 0.99,
) -> Demonstrations:
    """Play ``episodes`` games of ``task``'s scripted baseline through the pool and keep every step.

    Args:
        task: the task's name (its ``scripted`` baseline plays; the actions sent are ignored).
        episodes: whole games to keep (games still running when the last one ends are dropped).
        n_workers, envs_per_worker, engine, task_kwargs: as for :func:`sc2pool.training.train.train`.
        seed: seeds the games (``None``: unseeded).
        gamma: the discount of the returns the value head is fitted to (PPO's own).

    Returns:
        The :class:`Demonstrations`.

    Raises:
        ValueError: ``episodes`` < 1, or the task's ``info`` does not report the action it took.
    """
    from sc2pool.training.train import make_vec_env

    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    t0 = time.perf_counter()
    env = make_vec_env(task, n_workers, envs_per_worker, engine, {**(task_kwargs or {}), "scripted": True})
    steps: list[list[tuple[Any, int, float]]] = [[] for _ in range(env.num_envs)]
    obs_out: list[Any] = []
    actions: list[int] = []
    returns: list[np.ndarray] = []
    results: list[str | None] = []
    try:
        if seed is not None:
            env.seed(seed)
        obs = env.reset()
        noop = np.zeros((env.num_envs,), dtype=np.int64)
        while len(results) < episodes:
            new_obs, rewards, dones, infos = env.step(noop)
            for i, info in enumerate(infos):
                action = info.get("action")
                if action is None:
                    raise ValueError(
                        f"task {task!r} does not report the action its baseline took (info['action']); "
                        "it cannot be cloned: train without --pretrain-episodes"
                    )
                steps[i].append((_slice(obs, i), int(action), float(rewards[i])))
                if dones[i]:
                    if len(results) < episodes:
                        obs_out.extend(s[0] for s in steps[i])
                        actions.extend(s[1] for s in steps[i])
                        returns.append(_discounted([s[2] for s in steps[i]], gamma))
                        results.append(info.get("game_result"))
                    steps[i] = []
            obs = new_obs
    finally:
        env.close()
    return Demonstrations(
        _stack(obs_out), np.asarray(actions, dtype=np.int64), np.concatenate(returns), len(results),
        time.perf_counter() - t0, results,
    )


@dataclass
class CloneReport:
    """How well the policy copies the baseline: action accuracy on the steps held out from
    fitting, and the last epoch's losses."""

    samples: int
    epochs: int
    holdout_accuracy: float
    policy_loss: float
    value_loss: float
    seconds: float


def behaviour_clone(
    model: Any,
    demos: Demonstrations,
    epochs: int = 8,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    holdout: float = 0.1,
    seed: int | None = 0,
) -> CloneReport:
    """Fit ``model.policy`` (an SB3 ``ActorCriticPolicy``) to ``demos`` in place.

    Args:
        model: the SB3 PPO model whose policy is fitted (its own optimizer is left as it is).
        demos: the steps to copy.
        epochs, batch_size, learning_rate: Adam over the steps, ``epochs`` passes.
        value_coef: weight of the value head's squared error beside the action cross-entropy.
        holdout: share of the steps kept out of fitting to measure the accuracy on.
        seed: the shuffles' seed.

    Returns:
        The :class:`CloneReport`.
    """
    import torch as th
    from stable_baselines3.common.utils import obs_as_tensor

    t0 = time.perf_counter()
    n = len(demos)
    if n < 2:
        raise ValueError(f"behaviour cloning needs at least 2 demonstration steps, got {n}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_hold = int(round(n * holdout)) if n >= 20 else 0
    hold, fit = order[:n_hold], order[n_hold:]
    policy = model.policy
    device = policy.device

    def batch(idx: np.ndarray) -> tuple[Any, Any, Any]:
        obs = {k: v[idx] for k, v in demos.obs.items()} if isinstance(demos.obs, dict) else demos.obs[idx]
        return (
            obs_as_tensor(obs, device),
            th.as_tensor(demos.actions[idx], device=device),
            th.as_tensor(demos.returns[idx], device=device),
        )

    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    threads = th.get_num_threads()
    th.set_num_threads(max(1, os.cpu_count() or 1))  # the games wait meanwhile: every core fits
    policy.set_training_mode(True)
    p_loss = v_loss = float("nan")
    for _ in range(epochs):
        rng.shuffle(fit)
        p_sum = v_sum = 0.0
        for start in range(0, len(fit), batch_size):
            obs_t, act_t, ret_t = batch(fit[start:start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs_t, act_t)
            policy_loss = -log_prob.mean()
            value_loss = th.nn.functional.mse_loss(values.flatten(), ret_t)
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            p_sum += policy_loss.item() * len(act_t)
            v_sum += value_loss.item() * len(act_t)
        p_loss, v_loss = p_sum / max(1, len(fit)), v_sum / max(1, len(fit))
    policy.set_training_mode(False)
    th.set_num_threads(threads)
    accuracy = float("nan")
    if n_hold:
        with th.no_grad():
            obs_t, act_t, _ = batch(hold)
            probs = policy.get_distribution(obs_t).distribution.probs
            accuracy = float((probs.argmax(-1) == act_t).float().mean())
    return CloneReport(n, epochs, accuracy, p_loss, v_loss, time.perf_counter() - t0)


__all__ = ["CloneReport", "Demonstrations", "behaviour_clone", "collect_demonstrations"]
