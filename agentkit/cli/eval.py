"""`agentkit eval`: run an experiment file (or the gridworld catalogue) into the transcript store.

``agentkit eval causalworld --task T`` is the packaged preset of CausalWorld's evaluation: the
task's protocols as one run, scored per protocol (agentkit/evals/trifinger/).

One run per model. ``--resume RUN`` continues a run that was killed or stopped: only the episodes
without a final result are played (see agentkit.runs.runner). With ``--json`` stdout holds one JSON
document; progress and logs go to stderr.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from agentkit.cli._common import (
    AAI_VERSION_HELP,
    DB_HELP,
    PASS_RULE_HELP,
    PASS_RULES,
    animal_ai_options,
    emit_json,
    fail,
    fitted,
    open_store,
    out,
    refuse_human_setup,
    verdict_mark,
    warn_unpriced_budget,
)
from agentkit.cli._endpoint_check import ENDPOINT_CHECK_HELP, run_endpoint_check
from agentkit.cli._executor import executor_overrides
from agentkit.cli._help import HELP_ALL, pointer
from agentkit.cli._run_options import COMMON_FLAGS, EVAL_FLAGS, with_run_flags
from agentkit.outcome_words import outcome_word


def _verdict(episode: dict[str, Any]) -> bool | None:
    """An episode's pass (or, for backends with no pass metric, its success); None: no verdict
    (agentkit.pass_rule), left out of every rate."""
    value = episode.get("pass", episode["success"])
    return None if value is None else bool(value)


def _group_rates(episodes: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Pass (or success) proportions grouped by a metric the backend reports (level, category)."""
    groups: dict[Any, list[bool]] = {}
    for e in episodes:
        if key in e and _verdict(e) is not None:
            groups.setdefault(e[key], []).append(bool(_verdict(e)))

    # numbers in numeric order (level 2 before level 10), then anything else by its text
    def order(k: Any) -> tuple[int, float, str]:
        return (
            (0, float(k), "") if isinstance(k, (int, float)) and not isinstance(k, bool) else (1, 0.0, str(k))
        )

    return [
        {key: k, "episodes": len(v), "pass": sum(v) / len(v)}
        for k, v in sorted(groups.items(), key=lambda kv: order(kv[0]))
    ]


def run_json(summary: Any, store: Any = None) -> dict[str, Any]:
    """The run's JSON: its summary, verdict rates by level and category, and its model calls (with
    ``store``, the whole run's as stored, so a resumed run's cover its earlier episodes too)."""
    from agentkit.runs.model_call_summary import model_call_totals, run_model_call_totals

    data = summary.to_json()
    data["model_calls"] = (
        model_call_totals(summary.episodes)
        if store is None
        # retries, cut turns, errors
        else run_model_call_totals(store, summary.run_id, summary.episodes)
    )
    episodes = data["episodes"]
    verdicts = [v for v in map(_verdict, episodes) if v is not None]
    data["pass_rate"] = sum(verdicts) / len(verdicts) if verdicts else 0.0
    for key in ("level", "category"):
        groups = _group_rates(episodes, key)
        if groups:
            data[f"by_{key}"] = groups
    return data


def eval_command(
    config_file: Path | None = typer.Argument(
        None,
        help="Experiment YAML, or the name of a packaged preset (see --list-presets; causalworld: "
        "CausalWorld's evaluation protocols of --task).",
    ),
    model: str | None = typer.Option(None, help="Model id replacing the file's model(s)."),
    resume: str | None = typer.Option(
        None, help="Run id to continue: plays only missing or failed episodes."
    ),
    max_concurrency: int | None = typer.Option(None, min=1, help="Episodes in flight at once."),
    workers: str | None = typer.Option(None, help="auto, threads or processes.", hidden=True),
    executor: str | None = typer.Option(
        None,
        help="Where episodes run: local (this machine, default) or ray (Ray tasks on a cluster; the "
        "'ray' extra). Stored with the run.",
        hidden=True,
    ),
    ray_address: str | None = typer.Option(
        None,
        "--ray-address",
        help="The Ray cluster to join (HOST:PORT or ray://HOST:PORT; default $RAY_ADDRESS, else a new "
        "local one). Implies --executor ray. A SQLite --db only with a cluster on this machine.",
        hidden=True,
    ),
    api_base: str | None = typer.Option(None, help="Base URL of an OpenAI-compatible server."),
    api_key_env: str | None = typer.Option(None, help="Environment variable holding the API key."),
    db: str | None = typer.Option(None, help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object on stdout."),
    env: str | None = typer.Option(
        None,
        help="With a file: play it on this env instead of the file's (e.g. animalai, with --aai-build). Without a file: evaluate on this env's task catalogue (gridworld).",
    ),
    aai_build: str | None = typer.Option(
        None,
        "--aai-build",
        help="Animal-AI build for --env animalai: its executable, or 'builtin' (agentkit's arena); default $AAI_BUILD.",
        hidden=True,
    ),
    aai_version: str | None = typer.Option(None, "--aai-version", help=AAI_VERSION_HELP, hidden=True),
    categories: str | None = typer.Option(
        None, help="Catalogue categories, comma-separated (default: all).", hidden=True
    ),
    difficulties: str | None = typer.Option(
        None, help="easy,medium,hard,expert (default: all).", hidden=True
    ),
    seeds_per_pair: int | None = typer.Option(
        None, min=1, help="Episodes per (task, difficulty).", hidden=True
    ),
    modality: str | None = typer.Option(
        None,
        help="What the model is shown (see `agentkit tasks gridworld`).",
        hidden=True,
    ),
    harness: str | None = typer.Option(
        None, help="markovian, markovian-reasoner, react, window-K.", hidden=True
    ),
    task: str | None = typer.Option(
        None,
        "--task",
        help="causalworld: the task whose protocols are played (e.g. pushing).",
        hidden=True,
    ),
    episodes_per_protocol: int | None = typer.Option(
        None,
        "--episodes-per-protocol",
        min=1,
        help="causalworld: episodes per protocol (default 200).",
        hidden=True,
    ),
    figure: Path | None = typer.Option(None, help="Write the per-category figure (PNG) here.", hidden=True),
    pass_rule: str | None = typer.Option(None, "--pass-rule", help=PASS_RULE_HELP, hidden=True),
    tasks: str | None = typer.Option(
        None,
        "--tasks",
        help="Task or suite names, comma-separated, replacing the file's (stored with the run).",
    ),
    trials: int | None = typer.Option(
        None, "--trials", min=1, help="Episodes per task, replacing the file's trials."
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="Play only the first N tasks (a catalogue: its first N episodes)."
    ),
    list_presets: bool = typer.Option(
        False, "--list-presets", help="List the packaged experiment presets and exit."
    ),
    endpoint_check: bool = typer.Option(
        True, "--endpoint-check/--no-endpoint-check", help=ENDPOINT_CHECK_HELP, hidden=True
    ),
    help_all: bool = HELP_ALL,
    run_flags: Any = None,  # a RunFlags, filled in by with_run_flags
) -> None:
    """Run an experiment file (or an env's whole catalogue): one run per model, stored, resumable.

    causalworld --task T: CausalWorld's evaluation protocols of task T, scored per protocol.
    """
    if list_presets:
        from agentkit.cli._eval_presets import print_presets

        print_presets(as_json)
        return
    from agentkit.cli._eval_presets import plan_overrides, refuse_tasks_outside_preset, resolve_experiment

    overrides: dict[str, Any] = {
        "model": model,
        "max_concurrency": max_concurrency,
        "workers": workers,
        **executor_overrides(executor, ray_address),
        "api_base": api_base,
        "pass_rule": pass_rule,
    }
    overrides.update(plan_overrides(tasks, trials, limit, resume))  # --tasks, --trials, --limit
    config_file = resolve_experiment(config_file)
    refuse_tasks_outside_preset(config_file, overrides.get("tasks"))  # a preset is narrowed, never swapped
    _refuse_rule_and_resume_clashes(pass_rule, resume, run_flags)
    store = open_store(db) if resume else None  # a new run's store is opened once its settings are checked
    name, configs = "", []
    if resume:
        configs = [_resumed_config(store, resume, overrides)]
    elif config_file is None:
        if env is None:
            fail(
                "name an experiment file or preset (e.g. llm-aai-exp1; see --list-presets), --env ENV, or --resume RUN"
            )
        catalogue = _catalogue(categories, difficulties, seeds_per_pair, modality, harness)
        catalogue.update(_causalworld_options(task, episodes_per_protocol))
        name, configs = _catalogue_configs(env, catalogue, overrides)
    else:
        name, configs = _file_configs(
            config_file,
            {
                **overrides,
                "env": env,
                "backend_options": animal_ai_options(aai_build, aai_version) or None,
                "catalogue": {
                    "modality": modality,
                    "harness": harness,
                    **_causalworld_options(task, episodes_per_protocol),
                },
            },
        )
    if resume and (task is not None or episodes_per_protocol is not None):
        fail("--task/--episodes-per-protocol: a resumed run plays the episodes it was started with")
    if not resume:
        configs = _with_flags(run_flags, configs)
        _refuse_animal_ai_flags(configs, aai_build, aai_version)
    for config in configs:  # a person with worker processes or parallel episodes: one line, before any run
        refuse_human_setup(config)
    _check_model_access(configs, api_key_env)  # every model's key and server, before any run or database
    if endpoint_check:  # what each model's server keeps of a prompt (agentkit.runs.endpoint_check)
        run_endpoint_check(configs, os.environ.get(api_key_env) if api_key_env else None, fail)
    if store is None:  # a refused command leaves no database behind
        store = open_store(db)
    results, stopped_runs = _play_each(configs, store, api_key_env, resume, figure, as_json)
    _finish(name, results, stopped_runs, as_json)


def register(app: typer.Typer) -> None:
    """Add ``agentkit eval`` to the command line, with the run settings' flags (agentkit.cli._run_options)."""
    app.command("eval", epilog=pointer("eval"))(with_run_flags(COMMON_FLAGS, EVAL_FLAGS)(eval_command))


def _check_model_access(configs: list[Any], api_key_env: str | None) -> None:
    """One line, before any database is made or any run played, when a model can never answer: an
    unset or empty key variable, or an api_base nobody listens on (each model and server once)."""
    from agentkit.runs.preflight import PreflightError, check_model_access

    for model, api_base in dict.fromkeys((c.model, c.api_base) for c in configs):
        try:
            check_model_access(model, api_base, api_key_env)
        except PreflightError as exc:
            fail(str(exc))


def _refuse_rule_and_resume_clashes(pass_rule: str | None, resume: str | None, run_flags: Any) -> None:
    """One line for an unknown --pass-rule, and for settings given with --resume (a resumed run keeps its own)."""
    if pass_rule is not None and pass_rule not in PASS_RULES:
        fail(f"--pass-rule: {pass_rule!r} is not one of {', '.join(PASS_RULES)}")
    if resume and pass_rule is not None:
        fail("--pass-rule: a resumed run keeps the rule it was started with")
    if resume and run_flags.given():
        flag = run_flags.flags[sorted(run_flags.given())[0]].decl.split("/")[0]
        fail(f"{flag}: a resumed run keeps the settings it was started with")


def _resumed_config(store: Any, resume: str, overrides: dict[str, Any]) -> Any:
    """The stored configuration of run ``resume``, with the command line's concurrency, workers and api_base."""
    from agentkit.config import RunConfig

    try:
        stored = store.get_run(resume)
    except KeyError:
        fail(f"--resume: no run {resume!r} in the store")
    base = RunConfig.from_stored(stored.config)
    return base.model_copy(update={k: v for k, v in overrides.items() if v is not None and k != "model"})


def _catalogue(
    categories: str | None,
    difficulties: str | None,
    seeds_per_pair: int | None,
    modality: str | None,
    harness: str | None,
) -> dict[str, Any]:
    """The catalogue options the flags give (``--categories a,b`` as a list; options not given left out)."""
    split = lambda text: [x.strip() for x in text.split(",") if x.strip()] if text else None
    catalogue: dict[str, Any] = {
        "categories": split(categories),
        "difficulties": split(difficulties),
        "modality": modality,
        "harness": harness,
    }
    if seeds_per_pair:
        catalogue["seeds_per_pair"] = seeds_per_pair
    return {k: v for k, v in catalogue.items() if v is not None}


def _causalworld_options(task: str | None, episodes_per_protocol: int | None) -> dict[str, Any]:
    """The options of CausalWorld's evaluation the flags give (``catalogue:`` fields; only those set)."""
    given = {"task": task, "episodes_per_protocol": episodes_per_protocol}
    return {k: v for k, v in given.items() if v is not None}


def _catalogue_configs(
    env: str, catalogue: dict[str, Any], overrides: dict[str, Any]
) -> tuple[str, list[Any]]:
    """``--env ENV`` without a file: the env's whole catalogue, one run per model."""
    from agentkit.runs.experiment import Experiment, ExperimentError

    try:
        experiment = Experiment.model_validate(
            {"env": env, "name": f"{env}-catalogue", "catalogue": catalogue}
        )
        configs = experiment.run_configs(None, overrides)
    except (ExperimentError, ValueError) as exc:
        fail(str(exc))
    return experiment.name, configs


def _file_configs(config_file: Path, overrides: dict[str, Any]) -> tuple[str, list[Any]]:
    """An experiment file or packaged preset, the command line's settings over the file's."""
    from agentkit.runs.experiment import ExperimentError, load_experiment

    try:
        experiment, configs = load_experiment(config_file, overrides)
    except ExperimentError as exc:
        fail(str(exc))
    return experiment.name, configs


def _with_flags(run_flags: Any, configs: list[Any]) -> list[Any]:
    from agentkit.cli._run_options import apply_to_all
    from agentkit.evals import require_evaluation

    try:
        configs = apply_to_all(run_flags, configs)
        for config in configs:  # a flag must not undo what the evaluation protocol set
            if config.evaluation is not None:
                require_evaluation(config.env).check(config)
    except ValueError as exc:
        fail(str(exc))
    return configs


def _refuse_animal_ai_flags(configs: list[Any], aai_build: str | None, aai_version: str | None) -> None:
    """One line when --aai-build or --aai-version is given for an env that has no use for it."""
    from agentkit.envs.registry import available_backends
    from agentkit.runs.experiment import backend_accepts

    if aai_build:
        refusing = sorted({c.env for c in configs if not backend_accepts(c.env, "aai_build")})
        if refusing:
            takers = [name for name in available_backends() if backend_accepts(name, "aai_build")]
            fail(
                f"--aai-build: env {refusing[0]!r} plays no Animal-AI build (give --env {' or '.join(takers)})"
            )
    if aai_version:
        refusing = sorted({c.env for c in configs if not backend_accepts(c.env, "aai_version")})
        if refusing:
            fail(f"--aai-version: env {refusing[0]!r} does not rebuild Animal-AI (give --env aai-arena)")


def _play_each(
    configs: list[Any],
    store: Any,
    api_key_env: str | None,
    resume: str | None,
    figure: Path | None,
    as_json: bool,
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Play the runs one after the other: each run's JSON, and the summaries of the runs that stopped
    before playing everything."""
    api_key = os.environ.get(api_key_env) if api_key_env else None
    results: list[dict[str, Any]] = []
    stopped_runs: list[Any] = []
    for config in configs:
        summary, data = _play(config, store, api_key, resume, as_json)
        if summary.config.evaluation is not None:
            data.update(_scores(summary, data, _figure_of(figure, summary.run_id, len(configs)), as_json))
        results.append(data)
        if summary.stopped is not None:
            stopped_runs.append(summary)
        if not as_json:
            _print_run(summary, data, config)
    return results, stopped_runs


def _episode_line(model: str, as_json: bool) -> Any:
    """What to print as each episode ends (nothing with --json)."""

    def line(result: Any) -> None:
        if not as_json:
            mark = verdict_mark(_verdict(result.to_json()))  # the verdict the run's rates count
            out.print(
                f"{result.episode_id}  {result.task}  trial={result.trial}  {mark}  "
                f"reward={result.reward:.3f}  end={result.end_reason.value}  ({model})",
                soft_wrap=False,  # past the terminal's width it wraps between fields, never inside one
            )

    return line


def _play(
    config: Any, store: Any, api_key: str | None, resume: str | None, as_json: bool
) -> tuple[Any, dict[str, Any]]:
    """Play one run (or the rest of a resumed one) into ``store``: its summary and its JSON. A run that
    cannot start, or whose store cannot write, ends the command in one line."""
    from agentkit.prompts import TemplateError
    from agentkit.records import EndReason, StorageError
    from agentkit.runs.runner import execute_run
    from agentkit.transcripts.run_lease import RunBusyError

    # a missing key or a server nobody listens on was refused before the store was opened
    warn_unpriced_budget(config)  # a cost budget on an unpriced model: one warning line
    try:
        summary = execute_run(
            config,
            store,
            api_key=api_key,
            on_episode=_episode_line(config.model, as_json),
            show_progress=not as_json,
            resume_run_id=resume,
        )
    except (ValueError, TemplateError) as exc:
        fail(str(exc))
    except RunBusyError as exc:
        fail(f"--resume: {exc}")
    except StorageError as exc:  # the run could not even be created or taken over
        fail(str(exc))
    except KeyboardInterrupt as exc:
        from agentkit.cli._stops import exit_interrupted

        exit_interrupted(getattr(exc, "run_id", None))
    if summary.stopped is EndReason.STORAGE_ERROR or summary.error:
        from agentkit.cli._stops import exit_store_failed

        exit_store_failed(summary)
    return summary, run_json(summary, store)


def _figure_of(figure: Path | None, run_id: str, runs: int) -> Path | None:
    """Where a run's figure goes: ``--figure`` itself, or with several runs one file per run id."""
    if figure is None or runs == 1:
        return figure
    return figure.with_name(f"{figure.stem}-{run_id}{figure.suffix}")


def _scores(summary: Any, data: dict[str, Any], figure: Path | None, as_json: bool) -> dict[str, Any]:
    """The scores of a run played under its env's evaluation protocol (the gridworld catalogue's ONS)."""
    from agentkit.evals import require_evaluation

    evaluation = require_evaluation(summary.config.env)
    options = evaluation.options_model.model_validate(summary.config.evaluation)
    try:
        board = evaluation.score(data["episodes"], summary.config, options, figure)
    except ValueError as exc:  # e.g. --figure without matplotlib: the run is stored, the figure is not
        fail(str(exc))
    if not as_json:
        for shown in evaluation.summary(board):
            out.print(shown)
    return {k: v for k, v in board.items() if k not in ("episodes", "env", "model")}


def _print_run(summary: Any, data: dict[str, Any], config: Any) -> None:
    """A run's summary line: its verdict rate by the backend's word, then per level and model calls."""
    from agentkit.runs.model_call_summary import model_call_line

    stopped = f", stopped: {summary.stopped.value}" if summary.stopped else ""
    unjudged = f", {data['not_judged']} without a verdict" if data["not_judged"] else ""
    word = outcome_word(summary.config.env)  # the same name and verdict as `agentkit run`
    out.print(
        fitted(
            f"run {summary.run_id} ({config.model}): {len(summary.episodes)} episodes, "
            f"{word.word} rate {data['pass_rate']:.1%} ({word.word}: {word.meaning}; "
            f"pass rule {config.pass_rule}; protocol {config.protocol}{unjudged}){stopped}"
        ),
        markup=False,
    )
    from agentkit.runs.error_rates import run_errors_apart

    apart = run_errors_apart(summary).line()  # pass 40.0% of 10; 2 model errors: 50.0% of the 8 that played
    if apart:
        out.print(f"  {apart}", markup=False)
    for group in data.get("by_level", []):
        out.print(f"  level {group['level']}: {group['pass']:.2f} ({group['episodes']} episodes)")
    if model_call_line(data["model_calls"]):
        out.print(f"  {model_call_line(data['model_calls'])}", markup=False)


def _finish(name: str, results: list[dict[str, Any]], stopped_runs: list[Any], as_json: bool) -> None:
    """The JSON document (one run's keys at the top when there is one run), and exit 3 with one line
    when a run stopped before playing everything."""
    if as_json:
        document: dict[str, Any] = {"experiment": name, "runs": results}
        if len(results) == 1:
            document = {**results[0], **document}
        emit_json(document)
    if stopped_runs:
        from agentkit.cli._stops import exit_if_stopped

        exit_if_stopped(stopped_runs[0])  # 3 and one line: a run stopped before playing everything
