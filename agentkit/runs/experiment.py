"""Experiment files: a YAML description of an evaluation, validated, turned into one run per model.

An experiment names a backend, its tasks (a list, a suite or both), the model(s), trials, seeds,
limits and how the model is prompted (template set or folder, memory policy, image size). It
is the unit researchers share: the paper presets in ``presets/`` are experiments. Any field of
``RunConfig`` may appear as well, so nothing a run can do is out of reach of a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agentkit.config import MAX_EPISODES, RunConfig
from agentkit.runs.suite_tasks import UnknownSuite, expand_task_names, suite_tasks


class ExperimentError(ValueError):
    """A bad experiment file: the message names the file and the field."""


class Experiment(BaseModel):
    """One experiment file. ``trials`` is episodes per task (trial i uses seed + i)."""

    model_config = ConfigDict(extra="allow")

    name: str = ""
    description: str = ""
    env: str
    tasks: list[str] = Field(default_factory=list)
    suite: str | None = None
    models: list[str] = Field(default_factory=lambda: ["reference"])
    trials: int = Field(1, ge=1, le=MAX_EPISODES)
    image_size: int | None = Field(None, ge=16, le=4096)
    templates: str | None = None  # a packaged template set name or a folder (relative to the file)
    # For envs with an evaluation protocol (the gridworld catalogue): its options; the plan of
    # (task, seed) episodes then comes from it, and the run is scored by it.
    catalogue: dict[str, Any] | None = None

    def catalogue_options(self) -> Any:
        from agentkit.evals import get_evaluation

        if self.catalogue is None:
            return None
        evaluation = get_evaluation(self.env)
        if evaluation is None:
            raise ExperimentError(f"catalogue: env {self.env!r} has no task catalogue")
        try:
            return evaluation.options_model.model_validate(self.catalogue)
        except ValidationError as exc:  # one line naming the field, also when no file is involved
            first = exc.errors()[0]
            # pydantic puts "Value error, " before a validator's own text
            message = str(first["msg"]).removeprefix("Value error, ")
            raise ExperimentError(f"field catalogue.{_field_path(first['loc'])}: {message}") from None

    @model_validator(mode="before")
    @classmethod
    def _one_model(cls, data: Any) -> Any:
        if isinstance(data, dict) and "model" in data:
            if "models" in data:
                raise ValueError("give either 'model' or 'models', not both")
            data = {**data, "models": [data.pop("model")]}
        return data

    def task_list(self) -> list[str]:
        tasks = list(self.tasks)
        if self.catalogue is not None and not tasks and not self.suite:
            return ["(catalogue)"]  # replaced by the evaluation's plan
        if self.suite:
            try:
                tasks.extend(suite_tasks(self.env, self.suite))
            except UnknownSuite as exc:
                raise ExperimentError(f"suite: {exc}") from None
        if not tasks:
            raise ExperimentError("tasks: name 'tasks' or a 'suite'")
        return tasks

    def _check_harness(self, extra: dict[str, Any]) -> None:
        """Refuse the settings a catalogue's harness would silently replace: it sets the templates and
        the memory policy itself (agentkit/evals/gridworld/harness.py)."""
        harness = (self.catalogue or {}).get("harness")
        if not harness:
            return
        for key, given in (
            ("templates", self.templates),
            ("templates_dir", extra.get("templates_dir")),
            ("memory", extra.get("memory")),
        ):
            if given is not None:
                raise ExperimentError(
                    f"{key}: catalogue.harness {harness!r} sets the templates and the memory "
                    f"policy, so {key!r} would be ignored; remove one of them"
                )

    def run_configs(
        self, base_dir: Path | None = None, overrides: dict[str, Any] | None = None
    ) -> list[RunConfig]:
        """One RunConfig per model; ``overrides`` (from the command line) win over the file.

        Besides RunConfig fields, ``overrides`` may hold ``tasks`` (task or suite names replacing the
        file's tasks and suite) and ``limit`` (only the first N tasks, or the first N episodes of a
        catalogue's plan); the run config then records the tasks and episodes actually played."""
        from agentkit.envs import get_backend

        get_backend(self.env)  # an unknown env is reported before anything else
        extra = dict(self.model_extra or {})
        overrides = dict(overrides or {})
        catalogue = {k: v for k, v in (overrides.pop("catalogue", None) or {}).items() if v is not None}
        if catalogue:  # --modality, --harness: options of the file's catalogue
            if self.catalogue is None:
                flag = "--" + sorted(catalogue)[0].replace("_", "-")
                raise ExperimentError(
                    f"{flag}: applies to a task catalogue, and this experiment has none "
                    "(no 'catalogue:' in the file)"
                )
            return self.model_copy(update={"catalogue": {**self.catalogue, **catalogue}}).run_configs(
                base_dir, overrides
            )
        self._check_harness(extra)
        limit = overrides.pop("limit", None)
        if self.catalogue is not None and overrides.get("episodes") is not None:
            raise ExperimentError(
                f"--trials: a catalogue experiment sets its own episodes per task "
                f"({_evaluation_of(self.env).episodes_hint})"
            )
        if overrides.get("tasks"):
            if self.catalogue is not None:
                raise ExperimentError(
                    f"--tasks: a catalogue experiment plays its catalogue's tasks "
                    f"({_evaluation_of(self.env).tasks_hint})"
                )
            overrides["tasks"] = expand_task_names(self.env, overrides["tasks"])
        models = [overrides.pop("model")] if overrides.get("model") else self.models
        common: dict[str, Any] = {
            "env": self.env,
            "tasks": self.task_list(),
            "episodes": self.trials,
            **extra,
        }
        if self.templates:
            folder = Path(self.templates)
            if base_dir is not None and not folder.is_absolute() and (base_dir / folder).is_dir():
                folder = base_dir / folder
            common["templates_dir"] = str(folder) if folder.is_dir() else self.templates
        if self.image_size is not None:
            observer = dict(common.get("observer") or {})
            observer["max_side"] = self.image_size
            common["observer"] = observer
            options = dict(common.get("backend_options") or {})
            if backend_accepts(self.env, "render_size"):
                options.setdefault("render_size", self.image_size)
            common["backend_options"] = options
        extra_options = overrides.pop("backend_options", None) or {}
        if extra_options:  # merged: the file's options (and render_size from image_size) stay
            common["backend_options"] = {**(common.get("backend_options") or {}), **extra_options}
        common.update({k: v for k, v in overrides.items() if v is not None})
        configs = [RunConfig(**{**common, "model": model}) for model in models]
        options = self.catalogue_options()
        if options is not None:
            from agentkit.evals import require_evaluation

            evaluation = require_evaluation(self.env)
            configs = [evaluation.configure(c, options) for c in configs]
        return [limited(c, limit) for c in configs] if limit is not None else configs


def _evaluation_of(env: str) -> Any:
    """The evaluation protocol of ``env`` (an experiment with a catalogue has one)."""
    from agentkit.evals import require_evaluation

    return require_evaluation(env)


def limited(config: RunConfig, limit: int) -> RunConfig:
    """``config`` playing only its first ``limit`` tasks (with a plan: its first ``limit`` episodes)."""
    if limit < 1:
        raise ExperimentError(f"--limit: must be at least 1, got {limit}")
    if config.plan is not None:
        plan = config.plan[:limit]
        return config.model_copy(
            update={"plan": plan, "tasks": list(dict.fromkeys(task for task, _ in plan))}
        )
    return config.model_copy(update={"tasks": config.tasks[:limit]})


def backend_accepts(env: str, parameter: str) -> bool:
    """Whether ``env``'s backend takes the option ``parameter`` (so a run may set it)."""
    import inspect

    from agentkit.envs import get_backend

    return parameter in inspect.signature(get_backend(env).__init__).parameters


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def load_experiment(
    path: str | Path, overrides: dict[str, Any] | None = None
) -> tuple[Experiment, list[RunConfig]]:
    """Read, validate and expand an experiment file; every error names the file and the field."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExperimentError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ExperimentError(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    return expand_experiment(data, str(path), path.parent, overrides)


def expand_experiment(
    data: Any, source: str, base_dir: Path | None = None, overrides: dict[str, Any] | None = None
) -> tuple[Experiment, list[RunConfig]]:
    """Validate and expand an experiment already read (a file's mapping, or a dict written in Python);
    every error names ``source`` and the field. Relative template folders are read from ``base_dir``."""
    path = source
    if not isinstance(data, dict):
        raise ExperimentError(f"{path}: expected a mapping of fields, got {type(data).__name__}")
    overrides = dict(overrides or {})
    if overrides.get("env"):  # the same experiment on another backend (e.g. a Unity build of the arena)
        data = {**data, "env": overrides.pop("env")}
    overrides.pop("env", None)
    try:
        experiment = Experiment.model_validate(data)
        unknown = set(experiment.model_extra or {}) - set(RunConfig.model_fields)
        if unknown:
            raise ExperimentError(f"{path}: unknown field {sorted(unknown)[0]!r}")
        configs = experiment.run_configs(base_dir, overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ExperimentError(f"{path}: field {_field_path(err['loc'])}: {err['msg']}") from None
    except ExperimentError as exc:
        message = str(exc)
        raise ExperimentError(message if message.startswith(str(path)) else f"{path}: {message}") from None
    except ValueError as exc:  # unknown env and similar, raised while expanding
        raise ExperimentError(f"{path}: {exc}") from None
    return experiment, configs
