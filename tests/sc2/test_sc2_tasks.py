"""The task interface without games: registry, import paths, argument errors, spaces."""

from __future__ import annotations

import gymnasium as gym
import pytest

from sc2pool.engine.scenarios import SCENARIOS
from workers.sc2.tasks import Task, TaskError, make_task, resolve_task, task_names

BUILTINS = sorted(SCENARIOS)


def test_every_engine_scenario_has_a_builtin_task() -> None:
    names = task_names()
    missing = [name for name in SCENARIOS if name not in names]
    assert not missing, f"engine scenarios without a built-in task: {missing}"
    assert "FindAndDefeatZerglings" in SCENARIOS  # the list is the engine's, not a copy


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_spaces_are_describable(name: str) -> None:
    task = make_task(name)
    assert isinstance(task.observation_space, gym.spaces.Box)
    assert isinstance(task.action_space, (gym.spaces.Discrete, gym.spaces.MultiDiscrete))
    setup = task.game_setup()
    assert setup.map_name.endswith(".SC2Map") and setup.game_step >= 1


def test_task_by_import_path_and_user_file() -> None:
    cls = resolve_task("workers.sc2.tasks.builtin:MoveToBeacon")
    assert cls is resolve_task("MoveToBeacon")
    user = resolve_task("sc2_user_task:BeaconQuadrant")
    assert issubclass(user, Task)
    assert make_task(user).action_space == gym.spaces.Discrete(4)


def test_unknown_task_names_the_known_ones() -> None:
    with pytest.raises(TaskError, match="MoveToBeacon"):
        resolve_task("MoveToBacon")
    with pytest.raises(TaskError, match="cannot import"):
        resolve_task("no_such_module_xyz:Task")
    with pytest.raises(TaskError, match="not a Task"):
        resolve_task("gymnasium.spaces:Box")


def test_bad_task_arguments_are_typed_errors() -> None:
    with pytest.raises(TaskError, match="MoveToBeacon"):
        make_task("MoveToBeacon", {"n_direction": 4})
    with pytest.raises(TaskError, match="n_directions"):
        make_task("MoveToBeacon", {"n_directions": 1})
    with pytest.raises(TaskError, match="no scripted baseline"):
        make_task("sc2_user_task:BeaconQuadrant", {"scripted": True})
    assert make_task("MoveToBeacon", {"n_directions": 4}).action_space == gym.spaces.Discrete(4)
