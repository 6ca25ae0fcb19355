"""The task interface without games: registry, import paths, argument errors, spaces."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import gymnasium as gym
import pytest

from sc2pool.engine.game import scenario_names
from sc2pool.engine.install import write_install
from sc2pool.engine.terrain.catalogue import bundled_maps
from workers.sc2.tasks import Task, TaskError, make_task, resolve_task, task_names


def _scenario_cases() -> list[str]:
    """Every scenario the engine plays, from the engine's own registry."""
    return list(scenario_names())


@pytest.mark.parametrize("scenario", _scenario_cases())
def test_every_engine_scenario_has_a_builtin_task(scenario: str) -> None:
    assert scenario in task_names(), f"the engine plays {scenario!r} but no builtin task does"


def _task_maps(name: str) -> list[str]:
    """Every map a task plays: its setup's, and those it draws per episode (a list of ladder maps)."""
    task = make_task(name)
    return sorted({task.game_setup().map_name} | {task.episode_setup(seed).map_name for seed in range(50)})


def test_every_builtin_task_plays_an_engine_scenario_or_a_bundled_ladder_map() -> None:
    scenarios = set(scenario_names())
    ladder = set(bundled_maps())
    assert ladder, "sc2maptool's ladder maps are part of the dev install ('.[maps]')"
    for name in task_names():
        for map_name in _task_maps(name):
            assert PurePosixPath(map_name).stem in scenarios | ladder, (name, map_name)


def test_every_builtin_task_map_is_where_the_fake_install_puts_it(tmp_path: Path) -> None:
    """A task's map path is relative to ``$SC2PATH/Maps``: the engine's fake install must hold a
    file there, as the real game's install (pysc2's ``Maps/mini_games/``) does."""
    root = write_install(tmp_path / "sc2")
    for name in task_names():
        for map_name in _task_maps(name):
            assert (root / "Maps" / map_name).is_file(), f"task {name}: no Maps/{map_name} in the fake install"


@pytest.mark.parametrize("name", task_names())
def test_builtin_spaces_are_describable(name: str) -> None:
    task = make_task(name)
    spaces = task.observation_space.spaces.values() if isinstance(task.observation_space, gym.spaces.Dict) else [
        task.observation_space]
    assert all(isinstance(s, gym.spaces.Box) for s in spaces)
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
