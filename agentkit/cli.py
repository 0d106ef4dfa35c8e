"""The `agentkit` command: run, replay, transcripts, tasks.

Human-readable lines go to stdout; with --json, stdout holds exactly one JSON document and every
log line, warning and progress bar goes to stderr.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from agentkit import run_defaults as default
from agentkit.cli_common import (
    AAI_VERSION_HELP,
    DB_HELP,
    HUMAN_FRAMES_HELP,
    PASS_RULE_HELP,
    PASS_RULES,
    animal_ai_options,
    emit_json,
    err,
    fail,
    fitted,
    open_reading_store,
    open_store,
    out,
    refuse_human_setup,
    verdict_mark,
    warn_unpriced_budget,
    with_human_frames,
)
from agentkit.cli_db import register as register_db
from agentkit.cli_endpoint_check import ENDPOINT_CHECK_HELP, run_endpoint_check
from agentkit.cli_eval import register as register_eval
from agentkit.cli_help import HELP_ALL, HELP_LAYOUT, pointer
from agentkit.cli_logging import LOG_LEVEL_HELP, hoist_log_level, setup_logging
from agentkit.cli_play import register as register_play
from agentkit.cli_report import register as register_report
from agentkit.cli_run_options import COMMON_FLAGS, RUN_FLAGS, RunFlags, with_run_flags
from agentkit.cli_templates import register as register_templates
from agentkit.cli_view import register as register_view

if TYPE_CHECKING:
    from agentkit.transcripts.export import ImageExport

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Embody language models in simulated worlds and measure them.",
    **HELP_LAYOUT,
)
transcripts_app = typer.Typer(
    no_args_is_help=True, help="List, show and export stored transcripts.", **HELP_LAYOUT
)
app.add_typer(transcripts_app, name="transcripts")

log = logging.getLogger("agentkit")
_emit_json = emit_json  # short names used throughout this module (agentkit.cli_common)
_fail = fail
_refuse_human_setup = refuse_human_setup
_warn_unpriced_budget = warn_unpriced_budget


def _setup_logging(verbose: bool, log_level: str | None = None) -> None:
    try:
        setup_logging(verbose, log_level)
    except ValueError as exc:
        _fail(str(exc))


def _outcome_text(episode) -> str:
    """An episode's verdict in `transcripts show`: ``outcome=pass|fail|no-verdict`` (agentkit.outcome_words)."""
    from agentkit.outcome_words import verdict, verdict_text

    return f"outcome={verdict_text(verdict(episode.success, episode.metrics))}"


def _listed_outcome(run, episode) -> str:
    """An episode's outcome in `transcripts list`, as eval, the viewer and the report count it: pass,
    fail, or why it has none (incomplete, no-verdict), the one vocabulary of agentkit.outcome_words."""
    from agentkit.outcome_words import stored_outcome

    return stored_outcome(
        episode.status,
        episode.success,
        episode.end_reason,
        episode.metrics,
        (run.config or {}).get("pass_rule"),
    )


def _store(db: str | None):
    return open_store(db)  # a bad --db is one line


def _reading_store(db: str | None):
    """The store of a command that only reads: never writes, and opens copies on read-only media."""
    return open_reading_store(db)


@app.callback()
def _main(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging on stderr."),
    log_level: str | None = typer.Option(None, "--log-level", help=LOG_LEVEL_HELP),
) -> None:
    _setup_logging(verbose, log_level)


@app.command(epilog=pointer("run"))
@with_run_flags(
    COMMON_FLAGS, RUN_FLAGS
)  # --timeout-s, --max-retries, budgets, cache, ... (agentkit.cli_run_options)
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
        from agentkit.cli_run_resume import refuse_settings_beside_resume, resumed_run_config

        refuse_settings_beside_resume(ctx)
        config = resumed_run_config(db, resume, {**run_flags.given(), "api_base": api_base})
        _start_run(config, db, api_key_env, as_json, resume, endpoint_check)
        return
    if env is None:
        _fail("name an --env (gridworld, aai-arena, animalai, trifinger), or --resume RUN")
    tasks_to_run = _tasks_of(env, task, suite)
    if pass_rule not in PASS_RULES:
        _fail(f"--pass-rule: {pass_rule!r} is not one of {', '.join(PASS_RULES)}")
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
    _refuse_human_setup(config)
    _warn_unpriced_budget(config)
    from agentkit.run_preflight import PreflightError, check_model_access

    try:  # a key that is missing or a server nobody listens on fails now, not after every episode's retries
        check_model_access(config.model, config.api_base, api_key_env)
    except PreflightError as exc:
        _fail(str(exc))
    api_key = os.environ.get(api_key_env) if api_key_env else None
    if endpoint_check:
        run_endpoint_check([config], api_key, _fail)
    store, summary = _play_run(config, db, api_key, as_json, resume)
    _print_run_summary(store, summary, summary.config, as_json)
    from agentkit.cli_stops import exit_if_stopped

    exit_if_stopped(summary, command="run")  # 3 and one line when the run stopped before playing everything


def _tasks_of(env: str, task: list[str] | None, suite: str | None) -> list[str]:
    """The tasks ``--task`` names, then those of ``--suite``; one line for an unknown env or suite, or neither."""
    from agentkit.suite_tasks import suite_tasks

    tasks_to_run = list(task or [])
    try:
        if suite:
            tasks_to_run.extend(suite_tasks(env, suite))
    except ValueError as exc:  # an unknown env or suite, named with the known ones
        _fail(str(exc))
    if not tasks_to_run:
        _fail("name a --task or a --suite")
    return tasks_to_run


def _new_config(**fields):
    """The RunConfig of ``agentkit run``'s own flags; one line naming the flag for a bad value."""
    from pydantic import ValidationError

    from agentkit.config import RunConfig

    try:
        return RunConfig(**fields)
    except ValidationError as exc:
        _fail(f"invalid option: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}")


def _episode_line(config, as_json: bool):
    """What to print as each episode ends: its verdict by the backend's word (nothing with --json)."""

    def line(result) -> None:
        if not as_json:  # each episode says pass/fail, as the summary and `agentkit eval` do
            from agentkit.outcome_words import verdict

            mark = verdict_mark(verdict(result.success, result.metrics))  # agentkit.cli_common
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
    from agentkit.runner import execute_run
    from agentkit.transcripts.run_lease import RunBusyError

    try:
        store = _store(db)
        summary = execute_run(
            config,
            store,
            api_key=api_key,
            on_episode=_episode_line(config, as_json),
            show_progress=not as_json,
            resume_run_id=resume,
        )
    except (ValueError, TemplateError, StorageError) as exc:
        _fail(str(exc))
    except RunBusyError as exc:
        _fail(f"--resume: {exc}")
    except KeyboardInterrupt as exc:
        from agentkit.cli_stops import exit_interrupted

        exit_interrupted(getattr(exc, "run_id", None), command="run")
    if summary.error:  # the store could not write: the run stopped (agentkit.records.StorageError)
        from agentkit.cli_stops import exit_store_failed

        exit_store_failed(summary, command="run")
    return store, summary


def _print_run_summary(store, summary, config, as_json: bool) -> None:
    """The run's JSON, or its lines: verdict rate by the backend's word, model calls, input tokens and cost."""
    from agentkit.model_call_summary import model_call_line, run_model_call_totals

    calls = run_model_call_totals(store, summary.run_id, summary.episodes)  # retries, turns cut, model errors
    if as_json:
        _emit_json({**summary.to_json(), "model_calls": calls})
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
    from agentkit.error_rates import run_errors_apart

    apart = run_errors_apart(summary).line()  # pass 40.0% of 10; 2 model errors: 50.0% of the 8 that played
    if apart:
        out.print(apart, markup=False)
    if model_call_line(calls):
        out.print(model_call_line(calls), markup=False)
    from agentkit.run_input_tokens import run_input_tokens

    tokens = run_input_tokens(store, summary.run_id, config.model, config.price_per_mtok)
    if tokens is not None:  # input tokens: N (M cached), cost $X (saved $Y)
        out.print(tokens.line(), markup=False)


@app.command()
def replay(
    episode_id: str = typer.Argument(..., help="Episode to re-execute from its recorded answers."),
    db: str | None = typer.Option(None, help=DB_HELP),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Re-execute an episode with its recorded answers (no network) and check actions and outcome match."""
    from agentkit.replay import replay_episode

    try:
        report = replay_episode(_reading_store(db), episode_id)
    except (KeyError, ValueError) as exc:
        _fail(str(exc))
    if as_json:
        _emit_json(report.to_json())
    else:
        from rich.markup import escape

        colour = "green" if report.matches else "red"
        out.print(f"episode {episode_id}: [{colour}]{escape(report.verdict())}[/{colour}]")
        for problem in report.mismatches:
            out.print(f"  - {problem}", markup=False)
    if not report.matches:
        raise typer.Exit(1)


@app.command()
def tasks(
    env: str = typer.Argument(..., help="Backend name."),
    as_json: bool = typer.Option(False, "--json"),
    protocol: str | None = typer.Option(
        None, "--protocol", help="trifinger: show what this CausalWorld protocol (P0-P12) draws."
    ),
    sample: int = typer.Option(5, "--sample", help="With --protocol: how many seeds (0, 1, ...) to draw."),
    task: str | None = typer.Option(
        None, "--task", help="With --protocol: only this task (default: every task that has it)."
    ),
) -> None:
    """List the tasks a backend offers (trifinger --protocol Pn: what the protocol draws per seed)."""
    if protocol is not None:
        _protocol_preview(env, protocol, sample, task, as_json)
        return
    from agentkit.cli_tasks import list_tasks  # the backend's light catalogue: no simulator, no numpy

    list_tasks(env, as_json)


def _protocol_preview(env: str, protocol: str, sample: int, task: str | None, as_json: bool) -> None:
    """``tasks trifinger --protocol Pn``: block and goal poses, sizes, masses and intervened variables."""
    from agentkit.envs.registry import get_protocol_preview

    try:
        previews = get_protocol_preview(env)
        entries = previews.preview(protocol, sample, task)
    except ValueError as exc:
        _fail(str(exc))
    if as_json:
        _emit_json(entries)
        return
    # Blocks above goals in one column, so that the intervened variables' names (as wide as their
    # longest word, e.g. tool_block.cylindrical_position) fit beside them in 80 columns, whole.
    rows = [
        (t, seed, f"{blocks}\n{goals}", changed)
        for t, seed, blocks, goals, changed in previews.table_rows(entries)
    ]
    table = Table(title=f"trifinger {protocol}: {sample} seed(s) per task")
    columns = ("task", "seed", "blocks, goals", "intervened")
    longest = [
        max([len(col), *(len(word) for row in rows for word in str(row[i]).split())])
        for i, col in enumerate(columns)
    ]
    # what is left of the width for the poses once the other columns and the borders (3 a column) have theirs
    left = max(out.width - longest[0] - longest[1] - longest[3] - 3 * len(columns) - 1, longest[2])
    for i, col in enumerate(columns):
        whole = col != "blocks, goals"
        table.add_column(
            col, overflow="fold", min_width=longest[i] if whole else None, max_width=None if whole else left
        )
    for row in rows:
        table.add_row(*row)
    out.print(table)


@transcripts_app.command("list")
def transcripts_list(
    db: str | None = typer.Option(None, help=DB_HELP),
    run_id: str | None = typer.Option(None, "--run", help="Only this run's episodes."),
    task: str | None = typer.Option(None, help="Only episodes of this task."),
    status: str | None = typer.Option(None, help="finished, running or unfinished."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Runs and their episodes, newest run last; killed episodes show as unfinished."""
    store = _reading_store(db)
    runs = [r for r in store.list_runs() if run_id is None or r.id == run_id]
    listing: list[dict[str, Any]] = []
    for r in runs:
        episodes = store.list_episodes(run_id=r.id, task=task, status=status)
        listing.append(
            {
                "run": {k: v for k, v in r.to_json().items() if k not in ("templates", "config")},
                "episodes": [{**e.to_json(), "outcome": _listed_outcome(r, e)} for e in episodes],
            }
        )
    if as_json:
        _emit_json(listing)
        return
    from agentkit.transcript_listing import print_listing

    print_listing(out, listing)


@transcripts_app.command("show")
def transcripts_show(
    episode_id: str = typer.Argument(...),
    db: str | None = typer.Option(None, help=DB_HELP),
    messages: bool = typer.Option(False, "--messages", help="Also print the prompt messages of every turn."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Every turn of one episode: answer, parsed script or error, actions, reward."""
    store = _reading_store(db)
    try:
        episode = store.get_episode(episode_id)
    except KeyError as exc:
        _fail(str(exc.args[0]))
    turns = store.get_turns(episode_id, with_messages=messages or as_json, images="ref")
    if as_json:
        _emit_json({"episode": episode.to_json(), "turns": [t.to_json() for t in turns]})
        return
    out.soft_wrap = False  # read by a person: wrapped between words at the terminal's width
    try:
        _print_episode(episode, turns, messages)
    finally:
        out.soft_wrap = True


def _print_episode(episode, turns, messages: bool) -> None:
    """`transcripts show`'s text: the episode's heading and error, then every turn."""
    out.print(
        f"[bold]episode {episode.id}[/bold]  run {episode.run_id}  {episode.task}  seed={episode.seed}  "
        f"status={episode.status}  {_outcome_text(episode)}  end={episode.end_reason}"
    )
    if episode.error:
        from rich.markup import escape

        out.print(f"[red]error:[/red] {escape(episode.error)}")
    for t in turns:
        out.rule(f"turn {t.index}")
        if messages and t.messages:
            for m in t.messages:
                content = (
                    m["content"]
                    if isinstance(m["content"], str)
                    else "\n".join(p.get("text", f"<image {p.get('sha256', '')[:12]}>") for p in m["content"])
                )
                out.print(f"[dim]{m['role']}:[/dim] {content}")
        out.print(f"[cyan]answer:[/cyan] {t.answer}")
        if t.parse_error:
            out.print(f"[red]parse error:[/red] {t.parse_error['message']}")
        if t.compile_error:
            out.print(f"[red]could not run:[/red] {t.compile_error}")
        _show_model_call(t.model_call)
        out.print(
            f"actions: {t.actions}  reward: {t.reward:+.3f}  total: {t.total_reward:.3f}  "
            f"tokens: {t.input_tokens}/{t.output_tokens}  done: {t.done}"
        )


def _with_flags(config, run_flags: RunFlags):
    """``config`` with the flags of agentkit.cli_run_options given; one line for a bad value."""
    from pydantic import ValidationError

    from agentkit.experiment import backend_accepts

    try:
        return run_flags.apply(config, backend_accepts)
    except ValidationError as exc:
        _fail(f"invalid option: {'.'.join(str(p) for p in exc.errors()[0]['loc'])}: {exc.errors()[0]['msg']}")
    except ValueError as exc:
        _fail(str(exc))


def _show_model_call(call) -> None:
    """The turn's finish reason, retries and token counts (API models), and a dropped-prompt warning."""
    from agentkit.model_call_summary import describe_call

    text = describe_call(call)
    if text is not None:
        out.print(
            f"model call: {text}", markup=False, style="red" if call.finish_reason == "length" else None
        )
    if call is not None and call.warning:
        err.print(f"warning: {call.warning}", markup=False)


@transcripts_app.command("export")
def transcripts_export(
    target: str = typer.Argument(..., help="A run id or an episode id."),
    out_path: Path = typer.Option(..., "--out", help="JSONL file to write; with --format, a folder."),
    images: str = typer.Option("files", help="files (written next to the JSONL) or data-url (inlined)."),
    db: str | None = typer.Option(None, help=DB_HELP),
    table_format: str | None = typer.Option(
        None,
        "--format",
        help="parquet, csv or jsonl: episodes.<fmt> (pass, level, category) and turns.<fmt> "
        "(no history; images by sha256) in the --out folder; inspect: the run as an Inspect log file (--out "
        "run.eval or run.json; `inspect view` opens it). Without it: one JSON line per turn.",
    ),
) -> None:
    """Write turns as JSON Lines, one object per turn, images as files or data URLs; or, with --format,
    one table per episode and one per turn."""
    from agentkit.transcripts import export_jsonl

    if table_format == "inspect":
        _export_inspect_log(target, out_path, db)
        return
    if table_format is not None:
        _export_tables(target, out_path, table_format, db)
        return
    modes: dict[str, ImageExport] = {"files": "files", "data-url": "data_url", "data_url": "data_url"}
    mode = modes.get(images)
    if mode is None:
        _fail("--images must be files or data-url")
    store = _reading_store(db)
    try:
        count = export_jsonl(store, target, out_path, images=mode)
    except KeyError as exc:
        _fail(str(exc.args[0]))
    err.print(f"wrote {count} turns to {out_path}")


def _export_inspect_log(run_id: str, out_path: Path, db: str | None) -> None:
    """``--format inspect``: the run as an Inspect log (agentkit.inspect_tasks.export_log)."""
    if out_path.suffix not in (".eval", ".json"):
        _fail(f"--out {out_path}: with --format inspect, name a .eval or .json file")
    try:
        from agentkit.inspect_tasks.export_log import export_inspect_log
    except ImportError:
        _fail("--format inspect needs the inspect extra: pip install 'agentkit-embodied[inspect]'")
    store = _reading_store(db)
    try:
        written = export_inspect_log(store, run_id, out_path)
    except KeyError as exc:
        _fail(str(exc.args[0]))
    err.print(f"wrote run {run_id} as an Inspect log to {written}", markup=False)


def _export_tables(target: str, out_dir: Path, table_format: str, db: str | None) -> None:
    from agentkit.transcripts.tables import FORMATS, MissingDataExtra, write_tables

    if table_format not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}, not {table_format!r}")
    if out_dir.exists() and not out_dir.is_dir():
        _fail(f"--out {out_dir} is a file; with --format it names a folder")
    store = _reading_store(db)
    try:
        paths = write_tables(store, target, out_dir, table_format)  # type: ignore[arg-type]
    except KeyError as exc:
        _fail(str(exc.args[0]))
    except MissingDataExtra as exc:
        _fail(str(exc))  # fail() escapes it, or rich would take the extra's "[data]" for markup
    err.print(f"wrote {paths['episodes']} and {paths['turns']}", markup=False)


# The other verbs live in their own modules (view, rerender and replay --live-from; report aai; eval;
# templates list|show|copy; db upgrade; play): registered last, so they follow this module's verbs in
# --help and cli_view can give the replay defined above its --live-from option.
register_view(app)
register_report(app)
register_eval(app)
register_templates(app)
register_db(app)
register_play(app)


def main() -> None:
    args = hoist_log_level(sys.argv[1:])  # --log-level works after the command name too
    try:
        app(args=args)
    except Exception as exc:
        # A damaged database (JSON that does not parse, a malformed page) met anywhere in a read:
        # one line naming it (agentkit.store_read_errors); anything else keeps its traceback.
        from agentkit.store_read_errors import damaged_store_line, db_option

        line = damaged_store_line(exc, db_option(args))
        if line is None:
            raise
        try:
            _fail(line)
        except typer.Exit as stop:
            sys.exit(stop.exit_code)


if __name__ == "__main__":
    main()
