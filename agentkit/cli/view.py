"""The `agentkit view`, `agentkit rerender` and `agentkit replay --live-from` commands.

They live apart from ``cli.py`` so the looking-and-iterating tools can grow without crowding the
core verbs; ``register(app)`` adds them to the main app. ``replay`` is a core verb: it is
replaced by a version that keeps its options and behaviour and adds ``--live-from``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agentkit.cli._common import DB_HELP, err, out
from agentkit.cli._common import emit_json as _emit_json
from agentkit.cli._common import fail as _fail

if TYPE_CHECKING:  # imported where the commands run: `agentkit --help` stays light
    from agentkit.offline.replay import LiveReport
    from agentkit.offline.rerender import RerenderReport

log = logging.getLogger("agentkit.view")


def view(
    db: str | None = typer.Option(None, help=DB_HELP),
    host: str = typer.Option(
        "127.0.0.1", help="Address to bind; anything but loopback shares your transcripts."
    ),
    port: int = typer.Option(8765, min=0, max=65535, help="Port (0 picks a free one)."),
    export: Path | None = typer.Option(
        None, "--export", help="Write a static HTML bundle to this folder instead of serving."
    ),
    run_ids: list[str] | None = typer.Option(
        None, "--run", help="With --export: every episode of this run (repeatable)."
    ),
    episode_ids: list[str] | None = typer.Option(
        None, "--episode", help="With --export: this episode (repeatable); with --export-gif: the episode."
    ),
    export_gif: Path | None = typer.Option(
        None,
        "--export-gif",
        help="Write one --episode's frames as an animated GIF (a turn a frame) to this file.",
    ),
) -> None:
    """Browse runs and step through episodes in a local, read-only web app (or --export a static bundle)."""
    from agentkit.cli._common import open_reading_store
    from agentkit.viewer import ViewerServer, export_bundle

    store = open_reading_store(db)  # a bad or missing --db is one line
    if export_gif is not None:
        _write_gif(store, export_gif, episode_ids or [])
        return
    if export is not None:
        try:
            counts = export_bundle(store, export, run_ids=run_ids or (), episode_ids=episode_ids or ())
        except (KeyError, ValueError, FileExistsError) as exc:
            _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
        err.print(
            f"exported {counts['episodes']} episodes ({counts['pages']} turn pages, {counts['images']} images) "
            f"to {export}; open {export / 'index.html'}"
        )
        return
    if run_ids or episode_ids:
        _fail("--run and --episode select what to --export")
    try:
        server = ViewerServer(store, host=host, port=port)
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    if server.app.allowed_hosts is None:
        log.warning("the viewer is bound to %s: anyone who can reach it can read these transcripts", host)
    out.print(f"agentkit viewer (read-only) on {server.url}  - Ctrl-C to stop")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


def _write_gif(store: Any, target: Path, episode_ids: list[str]) -> None:
    """``--export-gif``: one episode's frames as an animated GIF (agentkit.viewer.gif_export)."""
    from agentkit.viewer.gif_export import NoFrames, episode_gif
    from agentkit.viewer.queries import ViewerData

    if len(episode_ids) != 1:
        _fail("--export-gif writes one episode: name it with --episode ID")
    try:
        data = episode_gif(ViewerData(store), episode_ids[0])
    except KeyError as exc:
        _fail(str(exc.args[0]) if exc.args else f"no episode {episode_ids[0]}")
    except NoFrames as exc:
        _fail(str(exc))
    try:
        target.write_bytes(data)
    except OSError as exc:
        _fail(f"cannot write {target}: {exc.strerror or exc}")
    err.print(f"wrote {target} ({len(data):,} bytes)")


def rerender(
    run_id: str = typer.Argument(..., help="The recorded run whose prompts are re-rendered."),
    templates: Path | None = typer.Option(
        None,
        "--templates",
        help="Folder with new system.j2 / turn.j2 (a missing file keeps the recorded one).",
    ),
    memory: str | None = typer.Option(
        None,
        help="History policy to re-render with: full, markovian, window:K, last-images:K (default: the run's).",
    ),
    episode: list[str] | None = typer.Option(
        None, "--episode", help="Only this episode of the run (repeatable)."
    ),
    full_prompt: bool = typer.Option(
        False, "--full-prompt", help="Diff every message of each prompt, not just the turn's own."
    ),
    context: int = typer.Option(3, min=0, help="Lines of context around each change."),
    changed_only: bool = typer.Option(True, "--changed-only/--all-turns", help="List unchanged turns too."),
    control: str | None = typer.Option(
        None,
        "--control",
        help="The control mode to re-render under (default: the "
        "run's); another mode than the recorded one is refused.",
    ),
    db: str | None = typer.Option(None, help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object on stdout."),
) -> None:
    """Show what new templates (or a history policy) would have sent on every recorded turn: diffs and token counts. No model is called."""
    from agentkit.offline.rerender import rerender_run
    from agentkit.prompts import TemplateError
    from agentkit.viewer import DatabaseNotFound

    if templates is None and memory is None and control is None:
        _fail("give --templates DIR and/or --memory POLICY to compare against the recording")
    from agentkit.cli._common import open_reading_store

    store = open_reading_store(db)
    try:
        report = rerender_run(
            store,
            run_id,
            templates_dir=templates,
            memory=memory,
            episode_ids=episode,
            full_prompt=full_prompt,
            context_lines=context,
            control=control,
        )
    except KeyError as exc:
        _fail(str(exc.args[0]) if exc.args else str(exc))
    except (DatabaseNotFound, TemplateError, ValueError) as exc:
        _fail(str(exc))
    if as_json:
        _emit_json(report.to_json())
        return
    _print_rerender(report, changed_only)


def _print_rerender(report: RerenderReport, changed_only: bool) -> None:
    """``agentkit rerender``'s text report: each (changed) turn with its diffs, then the run's totals."""
    for t in report.turns:
        if changed_only and not t.changed:
            continue
        mark = "changed" if t.changed else "same"
        out.print(
            f"[bold]episode {t.episode_id} turn {t.index}[/bold]: {mark}, tokens {t.tokens_before} -> "
            f"{t.tokens_after} ({t.delta:+d})",
            markup=True,
        )
        if t.history:
            out.print(f"  {t.history}")
        if t.system_same_as:
            out.print(f"  system message changed as shown at {t.system_same_as}")
        for text in (t.system_diff, t.diff):
            if text:
                out.print(text, markup=False)
    before, after = report.tokens_before, report.tokens_after
    pct = f" ({(after - before) / before:+.1%})" if before else ""
    out.print(
        f"run {report.run_id}: {report.changed_turns} of {len(report.turns)} turns in {report.episodes} episodes "
        f"changed; prompt tokens {before:,} -> {after:,}{pct} [{report.token_counter}]; "
        f"templates changed: {', '.join(report.templates_changed) or 'none'}; memory "
        f"{report.memory_before} -> {report.memory_after}; {report.seconds:.2f} s",
        markup=False,
    )
    if report.episodes_without_context:
        err.print(
            f"note: {report.episodes_without_context} episode(s) were recorded before agentkit stored each "
            "episode's prompt variables; their per-episode facts (e.g. an arena's time limit) were rebuilt "
            "without the world, so their prompts may differ even with unchanged templates",
            markup=False,
        )


def _replay_command(original: Any) -> Any:
    """`agentkit replay` with --live-from; without it, the original command runs unchanged."""

    def replay(
        episode_id: str = typer.Argument(..., help="Episode to re-execute from its recorded answers."),
        db: str | None = typer.Option(None, help=DB_HELP),
        as_json: bool = typer.Option(False, "--json"),
        live_from: int | None = typer.Option(
            None,
            "--live-from",
            min=0,
            help="Replay turns before this one, then let a live model play on; stored as a new run.",
        ),
        model: str | None = typer.Option(
            None, help="With --live-from: the live model (default: the recorded run's)."
        ),
        api_base: str | None = typer.Option(
            None, help="With --live-from: base URL of an OpenAI-compatible server."
        ),
        api_key_env: str | None = typer.Option(
            None, help="With --live-from: environment variable holding the API key (never stored)."
        ),
    ) -> None:
        """Re-execute an episode with its recorded answers (no network) and check it matches; with --live-from N, replay up to turn N and continue with a live model."""
        if live_from is None:
            if model or api_base or api_key_env:
                _fail("--model, --api-base and --api-key-env go with --live-from")
            return original(episode_id=episode_id, db=db, as_json=as_json)
        from agentkit.offline.replay import continue_live

        api_key = os.environ.get(api_key_env) if api_key_env else None
        try:
            from agentkit.cli._common import open_store

            report = continue_live(
                open_store(db), episode_id, live_from, model=model, api_base=api_base, api_key=api_key
            )
        except KeyError as exc:
            _fail(str(exc.args[0]) if exc.args else str(exc))
        except ValueError as exc:
            _fail(str(exc))
        if as_json:
            _emit_json(report.to_json())
            return
        _print_continued(report)

    return replay


def _print_continued(report: LiveReport) -> None:
    """``agentkit replay --live-from``'s text report: the new episode's outcome, then where the replay differed."""
    from agentkit.outcome_words import verdict, verdict_text

    r = report.result
    out.print(
        f"episode {report.source_episode_id}: replayed {report.replayed_turns} turns, then {report.model} "
        f"played on -> episode {report.episode_id} (run {report.run_id}): "
        f"{verdict_text(verdict(r['success'], r.get('metrics')))}, reward {r['reward']:.3f}, end {r['end_reason']}, "
        f"{r['scripts']} scripts",
        markup=False,
    )
    for problem in report.mismatches:
        out.print(f"  - replay differs: {problem}", markup=False)


def register(app: typer.Typer) -> None:
    """Add `view` and `rerender` to the app, and give its `replay` the --live-from option."""
    app.command("view")(view)
    app.command("rerender")(rerender)
    for info in list(app.registered_commands):
        callback = info.callback
        if (info.name or getattr(callback, "__name__", "")) == "replay" and callback is not None:
            app.registered_commands.remove(info)
            app.command("replay")(_replay_command(callback))
            break
