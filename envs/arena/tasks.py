"""Where arenas come from: the packaged Animal-AI Testbed (by task id) or any YAML file on disk.

Why both: the Testbed's 900 tasks are the benchmark ("01-04-03" names level 1, task 4, variant 3),
and researchers write their own arenas, so ``reset(task)`` takes either an id or a path.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from agentkit.envs.base import TaskInfo
from agentkit.envs.arena.config import ArenaConfig
from agentkit.envs.arena.config_loader import load_arena_config, parse_arena_config

TASK_ID = re.compile(r"^(\d{2})-(\d{2})-(\d{2})$")

def _testbed() -> resources.abc.Traversable:
    return resources.files("agentkit.envs.arena").joinpath("data", "testbed")


@lru_cache(maxsize=1)
def packaged_task_ids() -> tuple[str, ...]:
    """The ids of the packaged Testbed files, sorted."""
    return tuple(sorted(entry.name[:-5] for entry in _testbed().iterdir()
                        if entry.name.endswith(".yaml") and TASK_ID.match(entry.name[:-5])))


def task_infos() -> list[TaskInfo]:
    """Every Testbed task with its level as category (``"level 01"`` .. ``"level 10"``)."""
    return [TaskInfo(name=task, description=f"Animal-AI Testbed task {task}", category=f"level {task[:2]}")
            for task in packaged_task_ids()]


def task_level(task: str) -> int | None:
    """The level of a Testbed id, None for a file path."""
    match = TASK_ID.match(task)
    return int(match.group(1)) if match else None


@lru_cache(maxsize=64)
def _load_testbed(task: str) -> ArenaConfig:
    text = _testbed().joinpath(f"{task}.yaml").read_text(encoding="utf-8")
    return parse_arena_config(text, source=f"{task}.yaml")


def load_task(task: str) -> ArenaConfig:
    """The arena of a Testbed id or a YAML path; a clear ``ValueError`` when it is neither."""
    if TASK_ID.match(task):
        if task not in packaged_task_ids():
            raise ValueError(f"unknown Animal-AI Testbed task {task!r}; see `agentkit tasks aai-arena`")
        return _load_testbed(task)
    path = Path(task).expanduser()
    if path.suffix.lower() in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise ValueError(f"arena file not found: {task}")
        return load_arena_config(path)
    raise ValueError(f"unknown arena task {task!r}: give a Testbed id such as '01-04-03' "
                     "or a path to an arena YAML file")
