"""The Python API: ``agentkit.run``, ``agentkit.evaluate`` and ``agentkit.open_store``, for notebooks and scripts.

Why beside the CLI: a researcher who analyses runs in a notebook wants to start them there too, and
get back typed results rather than parse ``--json`` output. These functions do what ``agentkit run``
and ``agentkit eval`` do (the same run configuration, runner and store, so a run started here is the
same run the CLI, the viewer and the reports read) but fit a notebook: no progress bar unless asked
(``progress=True``), no logging set-up (the caller's logging configuration rules), errors raised as
exceptions with the same one-line messages (``RunSetupError``, a ``ValueError``, for anything that
stops a run before its first episode: the CLI's checks, ``agentkit.runs.preflight`` for the model and
``agentkit.store_access.db_argument`` for ``db``; ``StorageError`` when the store could not write), and a ``RunSummary`` returned (``agentkit.runs.runner.RunSummary``: ``run_id``,
``episodes`` as ``EpisodeResult`` with ``metrics["pass"]`` where the backend judges a pass,
``success_rate``, ``to_json()``).

``db`` is a SQLAlchemy URL or a path to a SQLite file (default ``agentkit.db`` in the working directory).
With one episode in flight at a time, episodes run in a thread of this process (a worker process would
re-import the calling script); ``max_concurrency=N`` keeps the runner's choice of threads or processes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentkit.config import RunConfig
from agentkit.records import EndReason, EpisodeResult, StorageError
from agentkit.runs.runner import RESUMABLE_SETTINGS, RunSummary, execute_run
from agentkit.store_access.storage_fix import storage_fix
from agentkit.transcripts import TranscriptStore

log = logging.getLogger(__name__)

__all__ = ["EvaluationResult", "RunSetupError", "RunSummary", "evaluate", "open_store", "run"]


class RunSetupError(ValueError):
    """A run that cannot start as asked; nothing was played. The message is one line naming what to fix:
    an option, a task or an experiment field, an API key variable that is unset, an ``api_base``
    nobody listens on, a ``db`` that cannot be used (the checks ``agentkit run`` and ``agentkit eval``
    make before their first episode)."""


@contextmanager
def _setup_errors() -> Iterator[None]:
    """Bad input found while a run is set up, as RunSetupError (one line, no chained traceback)."""
    from agentkit.prompts import TemplateError

    try:
        yield
    except RunSetupError:
        raise
    except (ValueError, TemplateError) as exc:  # PreflightError, DatabaseArgumentError, ExperimentError, ...
        raise RunSetupError(str(exc)) from None


def _preflight(
    config: RunConfig, api_key_env: str | None, warn: bool = True, endpoint_check: bool = False
) -> None:
    """What the CLI checks before a run: the model's key variable and server, a human's frame display
    and terminal (one episode at a time, in this process), with ``endpoint_check`` what the server
    keeps of a prompt (``agentkit.runs.endpoint_check``: a refusal raises, warnings are logged and
    raised as ``UserWarning``); and its warning for an unpriced budget."""
    from agentkit.runs.preflight import check_model_access

    with _setup_errors():
        if api_key_env and not os.environ.get(api_key_env):
            raise RunSetupError(f"api_key_env: the environment variable {api_key_env} is not set")
        from agentkit.models.human_model import human_setup_refusal

        refusal = human_setup_refusal(
            config
        )  # worker processes or parallel episodes sharing one person's terminal
        if refusal is not None:
            raise RunSetupError(refusal)
        check_model_access(config.model, config.api_base, api_key_env)
        if endpoint_check:
            import warnings

            from agentkit.runs.endpoint_check import check_endpoint

            for line in check_endpoint(config, os.environ.get(api_key_env) if api_key_env else None):
                log.warning("%s", line)
                warnings.warn(line, UserWarning, stacklevel=4)
    if warn:
        _warn_unpriced_budget(config)


def _warn_unpriced_budget(config: RunConfig) -> None:
    """The CLI's one warning line for a cost budget on a model litellm has no price for: logged at
    WARNING (the caller's logging shows it) and raised as a ``UserWarning`` (a notebook shows it
    once even with no logging set up)."""
    import warnings

    from agentkit.models.price_check import unpriced_budget_warning

    warning = unpriced_budget_warning(
        config.model,
        config.price_per_mtok,
        {"max_cost_usd": config.max_cost_usd, "run_max_cost_usd": config.run_max_cost_usd},
    )
    if warning:
        log.warning("%s", warning)
        warnings.warn(warning, UserWarning, stacklevel=4)


@dataclass
class EvaluationResult:
    """What ``evaluate`` returns: the experiment's name and one ``RunSummary`` per model."""

    name: str
    runs: list[RunSummary] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"experiment": self.name, "runs": [r.to_json() for r in self.runs]}


def db_url(db: str | os.PathLike[str] | None) -> str | None:
    """A store URL from what a caller gives: a SQLAlchemy URL as is, a file path as a SQLite URL."""
    if db is None:
        return None
    text = os.fspath(db)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).expanduser().resolve()}"


def open_store(db: str | os.PathLike[str] | None = None, *, read_only: bool = False) -> TranscriptStore:
    """The transcript store at ``db`` (created if missing), or with ``read_only=True`` a store whose
    writes the database refuses (an error if it does not exist). ``list_runs()``, ``list_episodes(run_id=)``,
    ``get_turns(episode_id)`` read it; use it in a ``with`` block, or ``close()`` it."""
    from agentkit.store_access.db_argument import check_db, opening

    with _setup_errors():
        url = check_db(
            db_url(db), writing=not read_only
        )  # a folder, a text file, an unknown scheme: one line
        with opening(url):
            if read_only:
                from agentkit.viewer.readonly import open_readonly

                return open_readonly(url)
            return TranscriptStore(url)


def run(
    env: str,
    tasks: str | Sequence[str] | None = None,
    *,
    suite: str | None = None,
    model: str = "reference",
    db: str | os.PathLike[str] | None = None,
    api_key_env: str | None = None,
    progress: bool = False,
    on_episode: Callable[[EpisodeResult], None] | None = None,
    endpoint_check: bool = True,
    **options: Any,
) -> RunSummary:
    """Play ``tasks`` (and/or a ``suite``) of ``env`` with ``model`` into the store; the run's summary.

    ``options``: any run setting of ``agentkit run`` and experiment files (``episodes``, ``seed``,
    ``max_scripts``, ``memory``, ``templates_dir``, ``pass_rule``, ``max_concurrency``, ...), and any
    option of the backend (e.g. ``aai_version="4.1.0"``, ``render_size=256``), which goes to
    ``backend_options``. ``api_key_env`` names the environment variable holding the API key (the key
    is never stored). ``on_episode`` is called with each finished episode. ``endpoint_check=False``
    skips asking the model's server what it keeps of a prompt (``agentkit.runs.endpoint_check``).
    """
    from agentkit.runs.suite_tasks import suite_tasks

    with _setup_errors():
        task_list = [tasks] if isinstance(tasks, str) else list(tasks or [])
        if suite:
            task_list.extend(suite_tasks(env, suite))
        if not task_list:
            raise ValueError("name tasks or a suite")
        settings, backend_options = _split_options(env, options)
        config = _config(
            {
                "env": env,
                "tasks": task_list,
                "model": model,
                **settings,
                "backend_options": {**settings.pop("backend_options", {}), **backend_options},
            }
        )
    # before the store: a run that cannot start leaves no database behind
    _preflight(config, api_key_env, endpoint_check=endpoint_check)
    with open_store(db) as store:
        return _execute(
            config, store, api_key_env, progress, on_episode, explicit_workers="workers" in options
        )


def evaluate(
    experiment: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    *,
    model: str | None = None,
    db: str | os.PathLike[str] | None = None,
    resume: str | None = None,
    api_key_env: str | None = None,
    progress: bool = False,
    on_episode: Callable[[EpisodeResult], None] | None = None,
    endpoint_check: bool = True,
    **overrides: Any,
) -> EvaluationResult:
    """Run an experiment (a YAML file's path, a packaged preset's name such as ``"llm-aai-exp1"``, or the
    same fields as a dict) into the store: one run per
    model. ``model`` replaces the experiment's model(s); ``overrides`` set any run field (``env``,
    ``max_concurrency``, ...). ``resume=RUN_ID`` continues a stopped or killed run instead.
    ``endpoint_check=False`` skips asking the models' servers what they keep of a prompt."""
    from agentkit.runs.experiment import expand_experiment, load_experiment

    configs: list[RunConfig] = []
    if resume is None:
        with _setup_errors():
            if experiment is None:
                raise ValueError("give an experiment (a YAML path or a dict) or resume=RUN_ID")
            given = {**overrides, "model": model}
            if isinstance(experiment, Mapping):
                spec, configs = expand_experiment(dict(experiment), "experiment", None, given)
            else:
                from agentkit.runs.preset_files import experiment_path

                spec, configs = load_experiment(
                    experiment_path(experiment), given
                )  # a file, or a preset's name
        for config in configs:
            _preflight(config, api_key_env, endpoint_check=endpoint_check)
    with open_store(db) as store:
        if resume is not None:
            if experiment is not None:
                raise RunSetupError("give an experiment or resume=RUN_ID, not both")
            try:
                stored = store.get_run(resume)
            except KeyError:
                raise RunSetupError(f"resume: no run {resume!r} in the store") from None
            base = RunConfig.from_stored(stored.config)
            kept = {k: v for k, v in overrides.items() if k in RESUMABLE_SETTINGS}
            summary = _execute(
                base.model_copy(update=kept),
                store,
                api_key_env,
                progress,
                on_episode,
                explicit_workers="workers" in overrides,
                resume=resume,
            )
            return EvaluationResult(name=str(stored.config.get("name", "")), runs=[summary])
        result = EvaluationResult(name=spec.name)
        for config in configs:
            result.runs.append(
                _execute(
                    config,
                    store,
                    api_key_env,
                    progress,
                    on_episode,
                    explicit_workers="workers" in overrides or "workers" in (spec.model_extra or {}),
                )
            )
        return result


def _split_options(env: str, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run settings, and options of ``env``'s backend; an option that is neither is refused by name."""
    from agentkit.runs.experiment import backend_accepts

    settings, backend_options = {}, {}
    for key, value in options.items():
        if key in RunConfig.model_fields:
            settings[key] = value
        elif backend_accepts(env, key):
            backend_options[key] = value
        else:
            raise ValueError(
                f"unknown option {key!r}: neither a run setting (agentkit.config.RunConfig) "
                f"nor an option of env {env!r}"
            )
    return settings, backend_options


def _config(fields: dict[str, Any]) -> RunConfig:
    try:
        return RunConfig(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "run"
        raise ValueError(f"invalid option {where}: {first['msg']}") from None


def _execute(
    config: RunConfig,
    store: TranscriptStore,
    api_key_env: str | None,
    progress: bool,
    on_episode: Callable[[EpisodeResult], None] | None,
    explicit_workers: bool,
    resume: str | None = None,
) -> RunSummary:
    if not explicit_workers and config.max_concurrency == 1:
        config = config.model_copy(update={"workers": "threads"})  # no worker process re-imports the caller
    _preflight(
        config, api_key_env, warn=resume is not None
    )  # a new run's config was checked (and warned) already
    api_key = os.environ.get(api_key_env) if api_key_env else None
    with _setup_errors():  # an unknown task or a template that does not resolve: before the run is created
        summary = execute_run(
            config,
            store,
            api_key=api_key,
            on_episode=on_episode,
            show_progress=progress,
            resume_run_id=resume,
        )
    if summary.error or summary.stopped is EndReason.STORAGE_ERROR:
        error = summary.error or "the transcript store cannot write"
        raise StorageError(
            f"{error}; run {summary.run_id} stopped, what was written is kept: "
            f"{storage_fix(error)}, then agentkit.evaluate(resume={summary.run_id!r})"
        )
    log.info("run %s: %d episodes, pass rate %.3f", summary.run_id, len(summary.episodes), summary.pass_rate)
    return summary
