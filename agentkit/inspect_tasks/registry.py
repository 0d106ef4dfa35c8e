"""The tasks and the model API Inspect finds through the ``inspect_ai`` entry point: ``inspect eval
agentkit/<name> --model agentkit/<litellm model id>``.

Why: Inspect loads this module (pyproject's ``[project.entry-points.inspect_ai]``) and registers its
``@task`` functions under the package name, so ``inspect eval agentkit/aai_children40 --model ...``
works in any directory where agentkit is installed. Each task's parameters are ``-T name=value``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task

# Importing it registers the ``agentkit/<litellm model id>`` model API (--model agentkit/openai/gpt-4o).
from agentkit.inspect_tasks import litellm_provider  # noqa: F401  (imported for its registration)
from agentkit.inspect_tasks.suite_task import suite_task

# Inspect puts a task under its package's name itself only when the package is in site-packages (or an
# editable install of a distribution named like the package); agentkit's distribution is
# agentkit-embodied, so in an editable checkout the tasks are given the namespace here.
_NAMESPACE = "" if {"site-packages", "dist-packages"} & set(Path(__file__).resolve().parts) else "agentkit/"


@task(name=_NAMESPACE + "suite")
def suite(
    env: str,
    tasks: str,
    db: str | None = None,
    episodes: int = 1,
    max_scripts: int | None = None,
    memory: str | None = None,
    templates_dir: str | None = None,
    seed: int | None = None,
) -> Task:
    """Any backend's tasks or suites: ``-T env=gridworld -T tasks=gridworld-easy``."""
    return suite_task(
        env,
        tasks,
        db,
        episodes,
        **_given(max_scripts=max_scripts, memory=memory, templates_dir=templates_dir, seed=seed),
    )


@task(name=_NAMESPACE + "aai_children40")
def aai_children40(
    db: str | None = None,
    episodes: int = 1,
    env: str = "aai-arena",
    max_scripts: int | None = None,
    memory: str | None = None,
    templates_dir: str | None = None,
    seed: int | None = None,
) -> Task:
    """The 40 Animal-AI tasks of the children comparison, in the pybullet arena (``-T env=animalai`` for
    the Unity build)."""
    return suite_task(
        env,
        "aai-children40",
        db,
        episodes,
        **_given(max_scripts=max_scripts, memory=memory, templates_dir=templates_dir, seed=seed),
    )


@task(name=_NAMESPACE + "aai_testbed")
def aai_testbed(
    db: str | None = None,
    episodes: int = 1,
    env: str = "aai-arena",
    max_scripts: int | None = None,
    memory: str | None = None,
    templates_dir: str | None = None,
    seed: int | None = None,
) -> Task:
    """The 900 tasks of the Animal-AI Testbed."""
    return suite_task(
        env,
        "aai-testbed",
        db,
        episodes,
        **_given(max_scripts=max_scripts, memory=memory, templates_dir=templates_dir, seed=seed),
    )


@task(name=_NAMESPACE + "gridworld_all")
def gridworld_all(
    db: str | None = None,
    episodes: int = 1,
    max_scripts: int | None = None,
    memory: str | None = None,
    templates_dir: str | None = None,
    seed: int | None = None,
) -> Task:
    """The 55 gridworld tasks."""
    return suite_task(
        "gridworld",
        "gridworld-all",
        db,
        episodes,
        **_given(max_scripts=max_scripts, memory=memory, templates_dir=templates_dir, seed=seed),
    )


def _given(**settings: Any) -> dict[str, Any]:
    """The settings a user set (the others keep agentkit's defaults)."""
    return {k: v for k, v in settings.items() if v is not None}
