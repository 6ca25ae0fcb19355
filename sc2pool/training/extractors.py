"""Feature extractors for ``Dict`` observations with a small spatial view (the Melee task's minimap).

SB3's ``MultiInputPolicy`` builds a ``CombinedExtractor``: NatureCNN for every image in the
``Dict``, a flatten for the rest. NatureCNN is Atari's network (8x8 stride 4, then 4x4 stride 2,
then 3x3) and needs images of at least 36 pixels; on a 32-pixel minimap of 8 layers it cannot be
built, and at 64 pixels it is most of a CPU training step. :class:`MinimapExtractor` is the same
combination with a CNN sized for minimaps (three 3x3 convolutions of stride 2, then one linear
layer): about 0.8 M multiply-adds for a 32-pixel, 8-layer view.
"""

from __future__ import annotations

from typing import Any

import torch as th
from gymnasium import spaces
from stable_baselines3.common.preprocessing import get_flattened_obs_dim, is_image_space
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class MinimapCNN(nn.Module):
    """Three 3x3 convolutions of stride 2 (16, 32, 32 channels) and a linear layer to ``out``."""

    def __init__(self, space: spaces.Box, out: int = 128) -> None:
        super().__init__()
        channels = int(space.shape[0])
        self.cnn = nn.Sequential(
            nn.Conv2d(channels, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with th.no_grad():
            n = int(self.cnn(th.zeros(1, *space.shape)).shape[1])
        self.linear = nn.Sequential(nn.Linear(n, out), nn.ReLU())

    def forward(self, x: th.Tensor) -> th.Tensor:
        return self.linear(self.cnn(x))  # type: ignore[no-any-return]


class MinimapExtractor(BaseFeaturesExtractor):
    """``CombinedExtractor`` with :class:`MinimapCNN` for the images (channels first, ``uint8``,
    which SB3 scales to ``[0, 1]`` before this sees them) and a flatten for every other key."""

    def __init__(self, observation_space: spaces.Dict, cnn_output_dim: int = 128) -> None:
        super().__init__(observation_space, features_dim=1)
        extractors: dict[str, nn.Module] = {}
        total = 0
        for key, sub in observation_space.spaces.items():
            if isinstance(sub, spaces.Box) and len(sub.shape) == 3 and is_image_space(sub, check_channels=False):
                extractors[key] = MinimapCNN(sub, cnn_output_dim)
                total += cnn_output_dim
            else:
                extractors[key] = nn.Flatten()
                total += get_flattened_obs_dim(sub)
        self.extractors = nn.ModuleDict(extractors)
        self._features_dim = total

    def forward(self, observations: dict[str, th.Tensor]) -> th.Tensor:
        return th.cat([ex(observations[key]) for key, ex in self.extractors.items()], dim=1)


def policy_for(observation_space: Any, policy_kwargs: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """SB3's policy name for ``observation_space`` and its ``policy_kwargs``: ``MultiInputPolicy``
    for a ``Dict`` (with :class:`MinimapExtractor` when it holds an image and no extractor was
    chosen), ``MlpPolicy`` otherwise."""
    kwargs = dict(policy_kwargs or {})
    if not isinstance(observation_space, spaces.Dict):
        return "MlpPolicy", kwargs
    has_image = any(
        isinstance(s, spaces.Box) and len(s.shape) == 3 and is_image_space(s, check_channels=False)
        for s in observation_space.spaces.values()
    )
    if has_image:
        kwargs.setdefault("features_extractor_class", MinimapExtractor)
    return "MultiInputPolicy", kwargs


__all__ = ["MinimapCNN", "MinimapExtractor", "policy_for"]
