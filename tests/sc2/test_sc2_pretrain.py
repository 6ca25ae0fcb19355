"""Behaviour cloning of a task's baseline before PPO (``sc2pool/training/pretrain.py``): the
returns, the fit, the demonstrations of a real Melee game through the pool, and the refusals."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from sc2pool.training.pretrain import Demonstrations, _discounted, behaviour_clone, collect_demonstrations


def test_returns_are_discounted_from_the_end() -> None:
    np.testing.assert_allclose(_discounted([1.0, 0.0, 2.0], 0.5), [1.5, 1.0, 2.0])
    assert _discounted([], 0.9).shape == (0,)


class _DictEnv(gym.Env[dict[str, np.ndarray], int]):
    """Only for its spaces: a Dict observation with a minimap, like the Melee task's."""

    observation_space = gym.spaces.Dict({
        "features": gym.spaces.Box(0.0, 1.0, (6,), np.float32),
        "minimap": gym.spaces.Box(0, 255, (1, 8, 8), np.uint8),
    })
    action_space = gym.spaces.Discrete(4)


def test_behaviour_cloning_copies_a_rule_and_fits_the_returns() -> None:
    from stable_baselines3 import PPO

    from sc2pool.training.extractors import policy_for

    rng = np.random.default_rng(0)
    n = 600
    features = rng.random((n, 6), dtype=np.float32)
    minimap = np.zeros((n, 1, 8, 8), dtype=np.uint8)  # nothing to memorise the samples by
    actions = features[:, :4].argmax(1)  # the "baseline": the largest of the first four features
    returns = (features[:, 5] * 4 - 2).astype(np.float32)
    demos = Demonstrations({"features": features, "minimap": minimap}, actions, returns, episodes=3, seconds=0.0)
    policy, kwargs = policy_for(_DictEnv.observation_space, {"net_arch": [32]})
    model = PPO(policy, _DictEnv(), policy_kwargs=kwargs, device="cpu", seed=0)
    before = behaviour_clone(model, demos, epochs=0)
    report = behaviour_clone(model, demos, epochs=25, learning_rate=3e-3, batch_size=64)
    assert report.samples == n and report.epochs == 25
    assert report.holdout_accuracy > 0.85 > before.holdout_accuracy
    assert report.value_loss < 0.2  # the returns' variance is 4/3


def test_cloning_needs_demonstrations() -> None:
    demos = Demonstrations(np.zeros((1, 3), np.float32), np.zeros(1, np.int64), np.zeros(1, np.float32), 1, 0.0)
    with pytest.raises(ValueError, match="at least 2"):
        behaviour_clone(object(), demos)
    with pytest.raises(ValueError, match="episodes must be >= 1"):
        collect_demonstrations("Melee", 0, 1, 1)


def test_melee_demonstrations_pair_each_observation_with_the_baselines_action() -> None:
    from workers.sc2.tasks.melee import ACTIONS

    demos = collect_demonstrations(
        "Melee", 1, 1, 1, engine="inprocess", seed=5,
        task_kwargs={"map": "AcidPlantLE", "time_limit_s": 90, "step_loops": 64}, gamma=0.99,
    )
    n = len(demos)
    assert demos.episodes == 1 and demos.results == ["Tie"]
    assert 25 <= n <= 35  # 90 game seconds of 64-loop steps
    assert isinstance(demos.obs, dict) and demos.obs["minimap"].shape[0] == n and demos.returns.shape == (n,)
    assert demos.actions.min() >= 0 and demos.actions.max() < len(ACTIONS)
    # the baseline's opening: an SCV at once, then a depot when supply runs short
    assert ACTIONS[int(demos.actions[0])] == "train_worker"
    assert "build_supply" in {ACTIONS[int(a)] for a in demos.actions}


def test_a_task_that_does_not_report_its_actions_is_refused() -> None:
    with pytest.raises(ValueError, match="does not report the action"):
        collect_demonstrations("MoveToBeacon", 1, 1, 1, engine="inprocess", seed=1)
