"""An Inspect ``Task`` for a backend's suite (or named tasks): dataset, agentkit solver and scorer.

Why: the registered tasks (``agentkit/aai_children40``, ``agentkit/suite``) and a script calling
``inspect_ai.eval`` directly build their Task the same way here, from the settings ``agentkit run``
takes (episodes, seed, memory, templates, limits), with one line for a setting agentkit refuses.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import ValidationError

from agentkit.config import RunConfig
from agentkit.inspect_tasks.episode_solver import agentkit_episode
from agentkit.inspect_tasks.scorer import agentkit_score
from agentkit.inspect_tasks.store_run import StoreRun
from agentkit.runs.suite_tasks import expand_task_names


def suite_task(
    env: str, tasks: str | list[str], db: str | None = None, episodes: int = 1, **settings: Any
) -> Task:
    """``tasks`` (task or suite names of ``env``, a comma-separated string or a list) as an Inspect Task:
    one sample per agentkit task, ``episodes`` epochs (trial i plays seed + i), each episode written to
    the agentkit store ``db`` (a path or SQLAlchemy URL; default ``agentkit.db`` here). ``settings``:
    run settings of ``agentkit run`` (``max_scripts``, ``memory``, ``templates_dir``, ``seed``, ...) and
    ``backend_options``. ValueError in one line for an unknown task, suite or setting."""
    from agentkit.api import db_url
    from agentkit.store_access.db_argument import check_db

    names = [t.strip() for t in tasks.split(",")] if isinstance(tasks, str) else list(tasks)
    task_names = expand_task_names(env, [n for n in names if n])
    try:
        config = RunConfig(env=env, tasks=task_names, episodes=episodes, model="inspect", **settings)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(
            f"agentkit task setting {'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        ) from None
    run = StoreRun(config, check_db(db_url(db), writing=True), expected=len(task_names) * episodes)
    from agentkit.prompts import TemplateError

    try:
        run.check()
    except TemplateError as exc:
        raise ValueError(str(exc)) from None
    dataset = MemoryDataset(
        [
            Sample(input=f"Play the {env} task {name}.", id=name, metadata={"task": name, "env": env})
            for name in task_names
        ],
        name=f"agentkit-{env}",
    )
    return Task(dataset=dataset, solver=agentkit_episode(run), scorer=agentkit_score(), epochs=episodes)
