"""`agentkit transcripts list|show|export`: read the stored runs and episodes, and export them
(JSON lines, tables, an Inspect log).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agentkit.cli._common import (
    DB_HELP,
    emit_json,
    err,
    fail,
    open_reading_store,
    out,
)
from agentkit.cli._help import HELP_LAYOUT

if TYPE_CHECKING:
    from agentkit.transcripts.export import ImageExport


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


def transcripts_list(
    db: str | None = typer.Option(None, help=DB_HELP),
    run_id: str | None = typer.Option(None, "--run", help="Only this run's episodes."),
    task: str | None = typer.Option(None, help="Only episodes of this task."),
    status: str | None = typer.Option(None, help="finished, running or unfinished."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Runs and their episodes, newest run last; killed episodes show as unfinished."""
    store = open_reading_store(db)
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
        emit_json(listing)
        return
    from agentkit.cli._transcript_listing import print_listing

    print_listing(out, listing)


def transcripts_show(
    episode_id: str = typer.Argument(...),
    db: str | None = typer.Option(None, help=DB_HELP),
    messages: bool = typer.Option(False, "--messages", help="Also print the prompt messages of every turn."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Every turn of one episode: answer, parsed script or error, actions, reward."""
    store = open_reading_store(db)
    try:
        episode = store.get_episode(episode_id)
    except KeyError as exc:
        fail(str(exc.args[0]))
    turns = store.get_turns(episode_id, with_messages=messages or as_json, images="ref")
    if as_json:
        emit_json({"episode": episode.to_json(), "turns": [t.to_json() for t in turns]})
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


def _show_model_call(call) -> None:
    """The turn's finish reason, retries and token counts (API models), and a dropped-prompt warning."""
    from agentkit.runs.model_call_summary import describe_call

    text = describe_call(call)
    if text is not None:
        out.print(
            f"model call: {text}", markup=False, style="red" if call.finish_reason == "length" else None
        )
    if call is not None and call.warning:
        err.print(f"warning: {call.warning}", markup=False)


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
        fail("--images must be files or data-url")
    store = open_reading_store(db)
    try:
        count = export_jsonl(store, target, out_path, images=mode)
    except KeyError as exc:
        fail(str(exc.args[0]))
    err.print(f"wrote {count} turns to {out_path}")


def _export_inspect_log(run_id: str, out_path: Path, db: str | None) -> None:
    """``--format inspect``: the run as an Inspect log (agentkit.inspect_tasks.export_log)."""
    if out_path.suffix not in (".eval", ".json"):
        fail(f"--out {out_path}: with --format inspect, name a .eval or .json file")
    try:
        from agentkit.inspect_tasks.export_log import export_inspect_log
    except ImportError:
        fail("--format inspect needs the inspect extra: pip install 'agentkit-embodied[inspect]'")
    store = open_reading_store(db)
    try:
        written = export_inspect_log(store, run_id, out_path)
    except KeyError as exc:
        fail(str(exc.args[0]))
    err.print(f"wrote run {run_id} as an Inspect log to {written}", markup=False)


def _export_tables(target: str, out_dir: Path, table_format: str, db: str | None) -> None:
    from agentkit.transcripts.tables import FORMATS, MissingDataExtra, write_tables

    if table_format not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {table_format!r}")
    if out_dir.exists() and not out_dir.is_dir():
        fail(f"--out {out_dir} is a file; with --format it names a folder")
    store = open_reading_store(db)
    try:
        paths = write_tables(store, target, out_dir, table_format)  # type: ignore[arg-type]
    except KeyError as exc:
        fail(str(exc.args[0]))
    except MissingDataExtra as exc:
        fail(str(exc))  # fail() escapes it, or rich would take the extra's "[data]" for markup
    err.print(f"wrote {paths['episodes']} and {paths['turns']}", markup=False)


def register(app: typer.Typer) -> None:
    """Add `transcripts` to the `agentkit` command."""
    transcripts_app = typer.Typer(
        no_args_is_help=True, help="List, show and export stored transcripts.", **HELP_LAYOUT
    )
    app.add_typer(transcripts_app, name="transcripts")
    transcripts_app.command("list")(transcripts_list)
    transcripts_app.command("show")(transcripts_show)
    transcripts_app.command("export")(transcripts_export)
