"""Self-play on the trainer's side: which slots SB3 sees, and the league's snapshot opponents.

A self-play task (Melee with ``opponent="self"`` or ``"league"``) plays env slots ``2k`` and
``2k+1`` of every worker as the two players of one game (``workers.sc2.host``). With ``"self"``
both slots are ordinary envs: SB3 sees them all and the one policy learns from both sides. With
``"league"`` the odd slots are the opponents: :class:`LeagueVecEnv` hides them from SB3 and plays
them itself with earlier versions of the policy - snapshots that :class:`SnapshotCallback` saves
every ``snapshot_every`` timesteps into a small :class:`SnapshotPool` (the newest ``league_size``;
the first one is the untrained policy, saved when training starts). Each game's opponent is drawn
from the pool, uniformly, when its episode starts (m: uniform over recent snapshots is the
simplest league; AlphaStar-style prioritised sampling is not done). Snapshot inference runs on the
trainer's CPU, batched per snapshot. Fixed members stay beside the snapshots: saved models, or
:data:`SCRIPTED`, the task's own scripted baseline, played in the opponent's env (the env's
``scripted`` attribute is switched on for that game): a steady opponent that never played the
Computer and that the learner's weak early snapshots cannot be.

Pairs are slot ``2k`` (learner) and ``2k+1`` (opponent) of the whole pool: every worker has an even
number of envs, so the pool's global slots pair the same way as each worker's.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: The ``opponent`` values that make the second player an env of the pool.
PAIRED_OPPONENTS = ("self", "league")
#: Default timesteps between two league snapshots (m: about 8 PPO updates of 8 learner games x 256
#: steps; often enough that the opponents follow the learner, rarely enough to differ from it).
LEAGUE_SNAPSHOT_EVERY = 16_384
#: Default number of snapshots kept in the league (the newest ones) (m).
LEAGUE_SIZE = 5
#: The fixed league member that is the task's scripted baseline rather than a saved model
#: (``--league-fixed scripted``).
SCRIPTED = "scripted"


def paired_opponent(task_kwargs: dict[str, Any] | None) -> str | None:
    """``"self"`` / ``"league"`` when ``task_kwargs`` make the second player an env of the pool."""
    opponent = (task_kwargs or {}).get("opponent")
    if isinstance(opponent, str) and opponent.lower() in PAIRED_OPPONENTS:
        return opponent.lower()
    return None


def check_pairing(task_kwargs: dict[str, Any] | None, envs_per_worker: int) -> None:
    """The pairing rule, checked before any worker starts: slots 2k and 2k+1 of a worker are one
    game, so self-play needs an even number of envs per worker."""
    kind = paired_opponent(task_kwargs)
    if kind is not None and envs_per_worker % 2:
        raise ValueError(
            f"opponent {kind!r} plays env slots 2k and 2k+1 of a worker as the two players of one game, so "
            f"--envs-per-worker must be even; got {envs_per_worker}"
        )


#: A league member: a saved model's path, or :data:`SCRIPTED`.
Member = Path | str


class SnapshotPool:
    """The league: paths of saved snapshots of the learner (the newest ``size``), and their
    policies loaded on the CPU as they are first drawn (at most ``size`` kept loaded), beside
    ``fixed`` members that never leave: saved models of any origin with the task's spaces, or
    :data:`SCRIPTED`, the task's scripted baseline (steady opponents the snapshots alone do not
    give)."""

    def __init__(self, size: int = LEAGUE_SIZE, seed: int | None = None,
                 fixed: Sequence[str | os.PathLike[str]] = ()) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"league size must be an int >= 1, got {size!r}")
        self.size = size
        self.fixed: list[Member] = [SCRIPTED if str(f).lower() == SCRIPTED else Path(f) for f in fixed]
        for f in self.fixed:
            if isinstance(f, Path) and not f.is_file():
                raise FileNotFoundError(f"no model for the league at {f} (a fixed member is a saved SB3 .zip, "
                                        f"or {SCRIPTED!r} for the task's scripted baseline)")
        if self.fixed.count(SCRIPTED) > 1:
            raise ValueError(f"the league names {SCRIPTED!r} more than once")
        self.snapshots: list[Path] = []
        self._policies: dict[Path, Any] = {}
        self.rng = np.random.default_rng(seed)

    @property
    def paths(self) -> list[Member]:
        """Every member: the fixed ones, then the snapshots (oldest first)."""
        return [*self.fixed, *self.snapshots]

    def add(self, path: str | os.PathLike[str]) -> None:
        """Put a saved model (an SB3 ``.zip``) in the league; the oldest leaves a full one (its
        file stays on disk)."""
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"no snapshot at {p}")
        self.snapshots.append(p)
        while len(self.snapshots) > self.size:
            self._policies.pop(self.snapshots.pop(0), None)

    def draw(self) -> Member:
        """A member for the next game of an opponent slot (uniform over the league)."""
        paths = self.paths
        if not paths:
            raise RuntimeError("the league has no snapshot yet (SnapshotCallback saves the first at the start)")
        return paths[int(self.rng.integers(len(paths)))]

    def policy(self, path: Path) -> Any:
        """The snapshot's policy, loaded once (CPU)."""
        pol = self._policies.get(path)
        if pol is None:
            from stable_baselines3 import PPO

            pol = PPO.load(path, device="cpu").policy
            pol.set_training_mode(False)
            self._policies[path] = pol
        return pol


def _take(obs: Any, index: Any) -> Any:
    """Rows ``index`` of a batch of observations (an array, or a dict of arrays)."""
    if isinstance(obs, dict):
        return {k: v[index] for k, v in obs.items()}
    return obs[index]


def _vec_env_wrapper() -> type:
    from stable_baselines3.common.vec_env import VecEnvWrapper

    return VecEnvWrapper  # type: ignore[no-any-return]


class LeagueVecEnv(_vec_env_wrapper()):  # type: ignore[misc]
    """A VecEnv of a self-play pool's learner slots (the even ones); the odd slots, their
    opponents, are played by snapshots drawn from ``league`` once per game.

    ``venv``'s slots ``2k`` and ``2k+1`` must be the two players of one game (its ``num_envs`` is
    even). SB3 sees ``num_envs // 2`` envs; its env ``k`` is the pool's slot ``2k``. Until the
    league has a snapshot (before training starts), opponents play uniformly random actions. A
    game whose opponent is :data:`SCRIPTED` switches that slot's env to its scripted baseline
    (``set_attr("scripted", True)``; the actions sent to it are then ignored) and back for the
    next member drawn.
    """

    def __init__(self, venv: Any, league: SnapshotPool, deterministic: bool = False) -> None:
        from stable_baselines3.common.vec_env import VecEnv

        if venv.num_envs % 2:
            raise ValueError(f"a league pool pairs slots 2k and 2k+1; it needs an even number of envs, got {venv.num_envs}")
        self.venv = venv
        self.league = league
        self.deterministic = deterministic
        self._opp_obs: Any = None
        self._opponents: list[Member | None] = [None] * (venv.num_envs // 2)
        #: Games started per member (a snapshot by file name, a fixed member by path), for the run's record.
        self.games_per_snapshot: dict[str, int] = {}
        VecEnv.__init__(self, venv.num_envs // 2, venv.observation_space, venv.action_space)
        self.class_attributes = dict(inspect.getmembers(self.__class__))

    # -- the opponents ------------------------------------------------------------------------------
    def _draw(self, pairs: Sequence[int]) -> None:
        switch: dict[bool, list[int]] = {True: [], False: []}
        for k in pairs:
            member = self.league.draw() if self.league.paths else None
            was_scripted = self._opponents[k] == SCRIPTED
            self._opponents[k] = member
            if member is not None:  # (a fixed member by its path: its name may be a snapshot's too)
                key = str(member) if member in self.league.fixed else member.name  # type: ignore[union-attr]
                self.games_per_snapshot[key] = self.games_per_snapshot.get(key, 0) + 1
            scripted = member == SCRIPTED
            if scripted != was_scripted:
                switch[scripted].append(2 * k + 1)
        # before the game's first action: the env reads ``scripted`` when it decodes a step
        for value, slots in switch.items():
            if slots:
                self.venv.set_attr("scripted", value, slots)

    def _opponent_actions(self) -> np.ndarray:
        n = self.num_envs
        if self.league.paths:  # games that started before the first snapshot get one now
            self._draw([k for k, path in enumerate(self._opponents) if path is None])
        actions = np.array([self.action_space.sample() for _ in range(n)])
        by_snapshot: dict[Path, list[int]] = {}
        for k, member in enumerate(self._opponents):
            if isinstance(member, Path):  # (a scripted opponent's env ignores its action)
                by_snapshot.setdefault(member, []).append(k)
        for path, ks in by_snapshot.items():
            policy = self.league.policy(path)
            acts, _ = policy.predict(_take(self._opp_obs, np.array(ks)), deterministic=self.deterministic)
            actions[ks] = acts
        return actions

    # -- VecEnv ------------------------------------------------------------------------------------
    def reset(self) -> Any:
        obs = self.venv.reset()
        self._opp_obs = _take(obs, slice(1, None, 2))
        self._draw(range(self.num_envs))
        infos = self.venv.reset_infos
        self.reset_infos = list(infos[0::2]) if infos else [{} for _ in range(self.num_envs)]
        return _take(obs, slice(0, None, 2))

    def step_async(self, actions: np.ndarray) -> None:
        learner = np.asarray(actions)
        opponent = self._opponent_actions().astype(learner.dtype, copy=False)
        full = np.empty((self.venv.num_envs, *learner.shape[1:]), dtype=learner.dtype)
        full[0::2] = learner
        full[1::2] = opponent
        self.venv.step_async(full)

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        self._opp_obs = _take(obs, slice(1, None, 2))
        ended = [k for k in range(self.num_envs) if dones[2 * k + 1]]
        if ended:
            self._draw(ended)
        return _take(obs, slice(0, None, 2)), rewards[0::2], dones[0::2], list(infos[0::2])

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        return self.venv.seed(seed)[0::2]  # type: ignore[no-any-return]

    def set_options(self, options: list[dict[str, Any]] | dict[str, Any] | None = None) -> None:
        if isinstance(options, list):  # one per learner slot: its opponent starts the same game
            options = [o for o in options for _ in range(2)]
        self.venv.set_options(options)

    def get_images(self) -> Sequence[np.ndarray | None]:
        return list(self.venv.get_images())[0::2]

    def _slots(self, indices: Any) -> list[int]:
        return [2 * i for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return self.venv.get_attr(attr_name, self._slots(indices))  # type: ignore[no-any-return]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self.venv.set_attr(attr_name, value, self._slots(indices))

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        return self.venv.env_method(method_name, *method_args, indices=self._slots(indices), **method_kwargs)  # type: ignore[no-any-return]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return self.venv.env_is_wrapped(wrapper_class, self._slots(indices))  # type: ignore[no-any-return]


def snapshot_callback(every: int, directory: str | os.PathLike[str], league: SnapshotPool | None = None) -> Any:
    """An SB3 callback saving the learner as ``DIR/snapshot_<timesteps>.zip`` when training starts
    and then about every ``every`` timesteps, each one added to ``league`` (when given)."""
    from stable_baselines3.common.callbacks import BaseCallback

    if every < 1:
        raise ValueError(f"snapshot_every must be >= 1 timestep, got {every}")
    folder = Path(directory)

    class SnapshotCallback(BaseCallback):
        """Saves the learner's snapshots (the league's opponents, and a record of the run)."""

        def __init__(self) -> None:
            super().__init__()
            self.next_at = 0
            self.saved: list[Path] = []

        def _save(self) -> None:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"snapshot_{int(self.num_timesteps)}.zip"
            self.model.save(path)
            self.saved.append(path)
            if league is not None:
                league.add(path)
            self.next_at = int(self.num_timesteps) + every

        def _on_training_start(self) -> None:
            self._save()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_at:
                self._save()
            return True

    return SnapshotCallback()


__all__ = [
    "LEAGUE_SIZE",
    "LEAGUE_SNAPSHOT_EVERY",
    "PAIRED_OPPONENTS",
    "SCRIPTED",
    "LeagueVecEnv",
    "Member",
    "SnapshotPool",
    "check_pairing",
    "paired_opponent",
    "snapshot_callback",
]
