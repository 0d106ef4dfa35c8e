"""`agentkit run --resume RUN`: continue a run that was killed, interrupted or stopped.

Why: resuming lived only on `agentkit eval`, so a researcher whose `agentkit run` was killed had to
learn a second command (and its experiment files) to finish it. The same machinery serves both:
the stored configuration is the run's, ``agentkit.runs.runner.execute_run(resume_run_id=...)`` keeps
the run id and plays only the planned episodes without a final result.

A resumed run keeps what it was started with (env, tasks, model, limits, templates...): such a
flag beside ``--resume`` is refused in one line, as `eval --resume` refuses it. Only where and how
fast it runs may change (``RESUMABLE_SETTINGS`` of the runner), and the database and key to use.
"""

from __future__ import annotations

from typing import Any

import typer

from agentkit.cli._common import fail
from agentkit.runs.runner import RESUMABLE_SETTINGS

#: The `agentkit run` parameters that may be given with --resume: which run and store, the key,
#: the output form, and the settings a resumed run takes from the command that resumes it.
_ALLOWED_WITH_RESUME = frozenset(
    {"resume", "db", "api_key_env", "as_json", "endpoint_check", *RESUMABLE_SETTINGS}
)


def refuse_settings_beside_resume(ctx: typer.Context) -> None:
    """One line naming the first flag given beside --resume that would change what the run plays."""
    for param in ctx.command.params:
        if param.name is None or param.name in _ALLOWED_WITH_RESUME:
            continue
        source = ctx.get_parameter_source(param.name)
        if source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            flag = next((o for o in param.opts if o.startswith("--")), param.name)
            fail(f"{flag}: a resumed run keeps the settings it was started with")


def resumed_run_config(db: str | None, run_id: str, given: dict[str, Any]) -> Any:
    """The stored configuration of run ``run_id``, with the resumable settings ``given`` on the
    command line (``api_base``, ``max_concurrency``, ``workers``, ``executor``, ``ray_address``);
    one line when the store holds no such run."""
    from agentkit.cli._common import open_store
    from agentkit.config import RunConfig

    store = open_store(db)
    try:
        stored = store.get_run(run_id)
    except KeyError:
        fail(f"--resume: no run {run_id!r} in the store")
    finally:
        store.close()
    base = RunConfig.from_stored(stored.config)
    update = {k: v for k, v in given.items() if k in RESUMABLE_SETTINGS and v is not None}
    if "ray_address" in update:  # a cluster named: the Ray executor, as a new run would choose it
        from agentkit.cli._executor import executor_for

        try:
            update["executor"] = executor_for(update.get("executor"), update["ray_address"])
        except ValueError as exc:
            fail(str(exc))
    return base.model_copy(update=update)
