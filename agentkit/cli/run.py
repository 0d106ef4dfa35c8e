"""`agentkit run`: play episodes of one model on a backend's tasks into the transcript store.

The command builds a ``RunConfig`` from its flags (or the stored one of ``--resume RUN``),
checks that the model can answer before the first episode, plays the run through
``agentkit.runs.runner.execute_run`` and prints its summary (one JSON document with --json).
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from agentkit.cli._common import (
    AAI_VERSION_HELP,
    DB_HELP,
    HUMAN_FRAMES_HELP,
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
    with_human_frames,
)
from agentkit.cli._endpoint_check import ENDPOINT_CHECK_HELP, run_endpoint_check
from agentkit.cli._help import HELP_ALL, pointer
from agentkit.cli._run_options import COMMON_FLAGS, RUN_FLAGS, RunFlags, with_run_flags
from agentkit.leaves import run_defaults as default


@with_run_flags(
    COMMON_FLAGS, RUN_FLAGS
)  # --timeout-s, --max-retries, budgets, cache, ... (agentkit.cli._run_options)
def run(
    ctx: typer.Context,
    env: str | None = typer.Option(
        None, help="Backend: gridworld, aai-arena, animalai, trifinger (see `agentkit tasks --help`)."
    ),
    task: list[str] | None = typer.Option(
        None, help="Task name, e.g. BabyAI-GoToLocal-v0 (see `agentkit tasks ENV`); repeatable."
    ),
    suite: str | None = typer.Option(
        None, help="A named task list of the backend (see `agentkit tasks ENV`)."
    ),
    model: str = typer.Option(
        default.MODEL,
        help="'reference' (built-in planner), 'human', a backend's built-in controller (trifinger: "
        "causalworld:pushing_ppo_curr1 ...), or a litellm model id such as openai/gpt-4o.",
    ),
    api_base: str | None = typer.Option(None, help="Base URL of an OpenAI-compatible server."),
    api_key_env: str | None = typer.Option(
        None, help="Name of the environment variable holding the API key (the key is never stored)."
    ),
    episodes: int = typer.Option(default.EPISODES, min=1, help="Episodes per task; episode i uses seed+i."),
    seed: int = typer.Option(default.SEED, help="Seed of the first episode."),
    db: str | None = typer.Option(None, help=DB_HELP),
    max_scripts: int = typer.Option(default.MAX_SCRIPTS, min=1, help="Scripts (model answers) per episode."),
    max_parse_failures: int = typer.Option(
        default.MAX_PARSE_FAILURES,
        min=1,
        help="Consecutive unusable answers before the episode ends.",
        hidden=True,
    ),
    memory: str = typer.Option(
        default.MEMORY, help="History policy: full, markovian, window:K, last-images:K.", hidden=True
    ),
    templates: Path | None = typer.Option(
        None, help="Folder of Jinja templates overriding the built-in ones."
    ),
    no_images: bool = typer.Option(False, "--no-images", help="Send text only (for text-only models)."),
    temperature: float = typer.Option(default.TEMPERATURE, help="Sampling temperature.", hidden=True),
    max_tokens: int = typer.Option(default.MAX_TOKENS, help="Output tokens per answer."),
    max_consecutive_model_errors: int = typer.Option(
        default.MAX_CONSECUTIVE_MODEL_ERRORS,
        min=0,
        help="Stop the run after this many episodes in a row end in model errors (0: never).",
        hidden=True,
    ),
    max_cost: float | None = typer.Option(None, help="Cost budget per episode in US dollars.", hidden=True),
    aai_build: str | None = typer.Option(
        None,
        "--aai-build",
        help="Animal-AI build for --env animalai: its executable, or 'builtin' (agentkit's arena); default $AAI_BUILD.",
        hidden=True,
    ),
    aai_version: str | None = typer.Option(None, "--aai-version", help=AAI_VERSION_HELP, hidden=True),
    pass_rule: str = typer.Option(default.PASS_RULE, "--pass-rule", help=PASS_RULE_HELP, hidden=True),
    human_frames: str = typer.Option(
        default.HUMAN_FRAMES, "--human-frames", help=HUMAN_FRAMES_HELP, hidden=True
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object on stdout."),
    resume: str | None = typer.Option(
        None,
        "--resume",
        help="Run id to continue (same id): plays only its episodes without a final result.",
    ),
    endpoint_check: bool = typer.Option(
        True, "--endpoint-check/--no-endpoint-check", help=ENDPOINT_CHECK_HELP, hidden=True
    ),
    help_all: bool = HELP_ALL,
    run_flags: RunFlags = None,  # type: ignore[assignment]  # filled in by with_run_flags
) -> None:
    """Run episodes of a task with a model (by default the backend's reference agent) and store them."""
    if resume:
        from agentkit.cli._run_resume import refuse_settings_beside_resume, resumed_run_config

        refuse_settings_beside_resume(ctx)
        config = resumed_run_config(db, resume, {**run_flags.given(), "api_base": api_base})
        _start_run(config, db, api_key_env, as_json, resume, endpoint_check)
        return
    if env is None:
        fail("name an --env (gridworld, aai-arena, animalai, trifinger), or --resume RUN")
    tasks_to_run = _tasks_of(env, task, suite)
    if pass_rule not in PASS_RULES:
        fail(f"--pass-rule: {pass_rule!r} is not one of {', '.join(PASS_RULES)}")
    config = _new_config(
        env=env,
        tasks=tasks_to_run,
        model=model,
        api_base=api_base,
        episodes=episodes,
        seed=seed,
        max_scripts=max_scripts,
        max_parse_failures=max_parse_failures,
        memory=memory,
        templates_dir=str(templates) if templates else None,
        include_images=not no_images,
        temperature=temperature,
        max_tokens=max_tokens,
        max_cost_usd=max_cost,
        pass_rule=pass_rule,
        max_consecutive_model_errors=max_consecutive_model_errors or None,
        backend_options=animal_ai_options(aai_build, aai_version),
    )
    config = with_human_frames(config, human_frames)
    config = _with_flags(config, run_flags)
    _start_run(config, db, api_key_env, as_json, None, endpoint_check)


def _start_run(
    config, db: str | None, api_key_env: str | None, as_json: bool, resume: str | None, endpoint_check: bool
) -> None:
    """Check the set-up and the model's reach, play the run (or the rest of run ``resume``), print it."""
    refuse_human_setup(config)
    warn_unpriced_budget(config)
    from agentkit.runs.preflight import PreflightError, check_model_access

    try:  # a key that is missing or a server nobody listens on fails now, not after every episode's retries
        check_model_access(config.model, config.api_base, api_key_env)
    except PreflightError as exc:
        fail(str(exc))
    api_key = os.environ.get(api_key_env) if api_key_env else None
    if endpoint_check:
        run_endpoint_check([config], api_key, fail)
    store, summary = _play_run(config, db, api_key, as_json, resume)
    _print_run_summary(store, summary, summary.config, as_json)
    from agentkit.cli._stops import exit_if_stopped

    exit_if_stopped(summary, command="run")  # 3 and one line when the run stopped before playing everything


def _tasks_of(env: str, task: list[str] | None, suite: str | None) -> list[str]:
    """The tasks ``--task`` names, then those of ``--suite``; one line for an unknown env or suite, or neither."""
    from agentkit.runs.suite_tasks import suite_tasks

    tasks_to_run = list(task or [])
    try:
        if suite:
            tasks_to_run.extend(suite_tasks(env, suite))
    except ValueError as exc:  # an unknown env or suite, named with the known ones
        fail(str(exc))
    if not tasks_to_run:
        fail("name a --task or a --suite")
    return tasks_to_run


def _new_config(**fields):
    """The RunConfig of ``agentkit run``'s own flags; one line naming the flag for a bad value."""
    from pydantic import ValidationError

    from agentkit.config import RunConfig

    try:
        return RunConfig(**fields)
    except ValidationError as exc:
        fail(f"invalid option: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}")


def _episode_line(config, as_json: bool):
    """What to print as each episode ends: its verdict by the backend's word (nothing with --json)."""

    def line(result) -> None:
        if not as_json:  # each episode says pass/fail, as the summary and `agentkit eval` do
            from agentkit.outcome_words import verdict

            mark = verdict_mark(verdict(result.success, result.metrics))  # agentkit.cli._common
            out.print(
                f"{result.episode_id}  {result.task}  seed={result.seed}  {mark}  "
                f"reward={result.reward:.3f}  end={result.end_reason.value}  scripts={result.scripts}",
                soft_wrap=False,  # past the terminal's width it wraps between fields, never inside one
            )

    return line


def _play_run(config, db: str | None, api_key: str | None, as_json: bool, resume: str | None = None):
    """The store and the summary of the run played (or of run ``resume``, continued under its own id);
    a run that cannot start or write, or one another process is writing, ends in one line."""
    from agentkit.prompts import TemplateError
    from agentkit.records import StorageError
    from agentkit.runs.runner import execute_run
    from agentkit.transcripts.run_lease import RunBusyError

    try:
        store = open_store(db)
        summary = execute_run(
            config,
            store,
            api_key=api_key,
            on_episode=_episode_line(config, as_json),
            show_progress=not as_json,
            resume_run_id=resume,
        )
    except (ValueError, TemplateError, StorageError) as exc:
        fail(str(exc))
    except RunBusyError as exc:
        fail(f"--resume: {exc}")
    except KeyboardInterrupt as exc:
        from agentkit.cli._stops import exit_interrupted

        exit_interrupted(getattr(exc, "run_id", None), command="run")
    if summary.error:  # the store could not write: the run stopped (agentkit.records.StorageError)
        from agentkit.cli._stops import exit_store_failed

        exit_store_failed(summary, command="run")
    return store, summary


def _print_run_summary(store, summary, config, as_json: bool) -> None:
    """The run's JSON, or its lines: verdict rate by the backend's word, model calls, input tokens and cost."""
    from agentkit.runs.model_call_summary import model_call_line, run_model_call_totals

    calls = run_model_call_totals(store, summary.run_id, summary.episodes)  # retries, turns cut, model errors
    if as_json:
        emit_json({**summary.to_json(), "model_calls": calls})
        return
    from agentkit.outcome_words import outcome_word

    judged = summary.judged
    left_out = len(summary.episodes) - len(judged)
    note = f"; {left_out} without a verdict" if left_out else ""
    word = outcome_word(config.env)  # the verdict eval, the viewer and the report count, by its name
    out.print(
        fitted(
            f"run {summary.run_id}: {word.word} rate {summary.pass_rate:.1%} ({summary.passed}/{len(judged)}; "
            f"{word.word}: {word.meaning}; pass rule {config.pass_rule}; protocol {config.protocol}{note})"
        ),
        markup=False,
    )
    from agentkit.runs.error_rates import run_errors_apart

    apart = run_errors_apart(summary).line()  # pass 40.0% of 10; 2 model errors: 50.0% of the 8 that played
    if apart:
        out.print(apart, markup=False)
    if model_call_line(calls):
        out.print(model_call_line(calls), markup=False)
    from agentkit.runs.input_tokens import run_input_tokens

    tokens = run_input_tokens(store, summary.run_id, config.model, config.price_per_mtok)
    if tokens is not None:  # input tokens: N (M cached), cost $X (saved $Y)
        out.print(tokens.line(), markup=False)


def _with_flags(config, run_flags: RunFlags):
    """``config`` with the flags of agentkit.cli._run_options given; one line for a bad value."""
    from pydantic import ValidationError

    from agentkit.runs.experiment import backend_accepts

    try:
        return run_flags.apply(config, backend_accepts)
    except ValidationError as exc:
        fail(f"invalid option: {'.'.join(str(p) for p in exc.errors()[0]['loc'])}: {exc.errors()[0]['msg']}")
    except ValueError as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    """Add `run` to the `agentkit` command."""
    app.command(epilog=pointer("run"))(run)
