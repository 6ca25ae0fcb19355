"""Tasks: how a StarCraft II game becomes an RL environment (see ``base.py`` for the contract)."""

from workers.sc2.tasks.base import (
    DIRECTIONS8,
    GameSetup,
    MapFrame,
    Opponent,
    Task,
    TaskError,
    make_task,
    register_task,
    resolve_task,
    task_names,
)

__all__ = [
    "DIRECTIONS8",
    "GameSetup",
    "MapFrame",
    "Opponent",
    "Task",
    "TaskError",
    "make_task",
    "register_task",
    "resolve_task",
    "task_names",
]
