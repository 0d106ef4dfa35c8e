"""Which Animal-AI Testbed tasks are packaged, and how `agentkit tasks` lists them, read from file names alone.

Why a module of its own: listing the 900 tasks must be quick and must not start the config loader
(YAML, pydantic), numpy or pybullet, so this reads only the names of the packaged arena files. The
backends' ``tasks()`` (through ``tasks.task_infos``) and the light catalogue of ``agentkit tasks
aai-arena`` / ``animalai`` both build on the one function here that says which tasks are packaged.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from agentkit.envs.animalai_common.suites import TASK_ID, suites


def testbed_folder() -> resources.abc.Traversable:
    """The packaged Testbed folder (envs/arena/data/testbed), found without importing the arena package."""
    return resources.files("agentkit.envs").joinpath("arena").joinpath("data").joinpath("testbed")


@lru_cache(maxsize=1)
def packaged_task_ids() -> tuple[str, ...]:
    """The ids of the packaged Testbed files, sorted."""
    return tuple(
        sorted(
            entry.name[:-5]
            for entry in testbed_folder().iterdir()
            if entry.name.endswith(".yaml") and TASK_ID.match(entry.name[:-5])
        )
    )


def testbed_rows() -> list[tuple[str, str, str]]:
    """(name, category, description) of every packaged task; its level is its category ("level 01")."""
    return [(task, f"level {task[:2]}", f"Animal-AI Testbed task {task}") for task in packaged_task_ids()]


def task_catalogue() -> tuple[list[tuple[str, str, str]], dict[str, list[str]]]:
    """What `agentkit tasks aai-arena` (and ``animalai``) lists: the task rows, then the named suites."""
    return testbed_rows(), suites()
