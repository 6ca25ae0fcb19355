"""PPO trained with one seed ends with bit-identical weights over DummyVecEnv and over ZmqVecEnv,
for a flat, a Dict (keys not in sorted order) and a Tuple observation space: the pool changes
nothing a learner can see (observations, rewards, dones, terminal observations, their order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pool_envs
import pytest
import torch
import wire_envs
from gymnasium import spaces
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecEnvWrapper


class TupleAsDict(VecEnvWrapper):
    """SB3's policies take no Tuple observations: present them as a Dict of the same arrays on the
    trainer side (terminal observations too), so that the Tuple itself crosses the pool's wire."""

    def __init__(self, venv: VecEnv) -> None:
        assert isinstance(venv.observation_space, spaces.Tuple)
        space = spaces.Dict([(str(i), s) for i, s in enumerate(venv.observation_space.spaces)])
        super().__init__(venv, observation_space=space)

    @staticmethod
    def _dict(obs: Any) -> dict[str, Any]:
        return {str(i): x for i, x in enumerate(obs)}

    def reset(self) -> Any:
        return self._dict(self.venv.reset())

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = self._dict(info["terminal_observation"])
        return self._dict(obs), rewards, dones, infos


CASES: dict[str, tuple[Callable[[], Any], str, bool]] = {
    "flat": (pool_envs.make_cartpole, "MlpPolicy", False),
    "dict-unsorted": (wire_envs.make_unsorted_discrete, "MultiInputPolicy", False),
    "tuple": (wire_envs.make_tuple_obs_env, "MultiInputPolicy", True),
}


def train(venv: VecEnv, policy: str) -> dict[str, torch.Tensor]:
    model = PPO(policy, venv, n_steps=24, batch_size=24, n_epochs=2, seed=7, device="cpu")
    model.learn(total_timesteps=96)
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("case", list(CASES))
def test_ppo_weights_are_bit_identical_to_dummy_vec_env(make_pool: Callable[..., Any], case: str) -> None:
    make, policy, tuple_obs = CASES[case]
    fns = [make] * 3
    wrap: Callable[[VecEnv], VecEnv] = TupleAsDict if tuple_obs else (lambda v: v)
    want = train(wrap(DummyVecEnv(fns)), policy)
    got = train(wrap(make_pool(fns, n_workers=2)), policy)
    assert list(got) == list(want)
    different = [k for k in want if not torch.equal(got[k], want[k])]
    assert not different, f"weights differ from DummyVecEnv's: {different}"
    # and training did move them: identical-because-untouched would prove nothing
    fresh = PPO(policy, wrap(DummyVecEnv(fns)), seed=7, device="cpu").policy.state_dict()
    assert any(not torch.equal(fresh[k], want[k]) for k in want)
    assert np.isfinite(sum(float(v.float().sum()) for v in got.values()))
