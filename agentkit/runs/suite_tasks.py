"""A backend's suites (named task lists) expanded into task names, in one place.

Why: ``agentkit run --suite``, an experiment file's ``suite:``, ``agentkit eval --tasks`` (which takes
suite names among task names) and the Python API's ``run(suite=...)`` each looked the suite up
themselves, with their own error text. They share these two functions now, so a suite means the same
tasks, and an unknown one is refused in the same words, wherever it is named.
"""

from __future__ import annotations


class UnknownSuite(ValueError):
    """The backend has no suite of that name (the message lists the ones it has)."""


def suite_tasks(env: str, suite: str) -> list[str]:
    """The tasks of ``env``'s suite ``suite``, in order; ``UnknownSuite`` names the known suites
    (an unknown ``env`` is the registry's ValueError)."""
    from agentkit.envs import get_backend

    suites = get_backend(env).suites()
    if suite not in suites:
        raise UnknownSuite(
            f"unknown suite {suite!r} for env {env!r}; known: {', '.join(sorted(suites)) or 'none'}"
        )
    return list(suites[suite])


def expand_task_names(env: str, names: list[str]) -> list[str]:
    """Task names as given, each name of one of ``env``'s suites replaced by the suite's tasks (in order,
    a task named twice played once)."""
    from agentkit.envs import get_backend

    suites = get_backend(env).suites()
    tasks: list[str] = []
    for name in names:
        tasks.extend(suites.get(name, [name]))
    return list(dict.fromkeys(tasks))
