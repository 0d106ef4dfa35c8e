"""What every `agentkit` command shares: its consoles, the one-line error exit, JSON on stdout.

Why one place: the commands live in several files (run, eval, view, report), and a user should meet
the same behaviour in each: errors are one line on stderr (never wrapped into several), exit
status 2, and ``--json`` output is exactly one JSON document on stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)  # one-line errors stay one line

DB_HELP = "SQLAlchemy URL of the transcript store (default: sqlite:///agentkit.db in the working directory)."
PASS_RULES = ("aai", "llm-aai")  # agentkit.pass_rule.PassRule
PASS_RULE_HELP = (
    "How an episode stopped by a limit or broken by an error is judged: 'aai' (Animal-AI's: the "
    "clock is run out idly, errors never pass) or 'llm-aai' (as the LLM-AAI paper's code: errors "
    "get no verdict); see docs/scoring.md. Stored with the run."
)

AAI_VERSION_HELP = (
    "Animal-AI version the aai-arena reproduces: 3.1.3 (default, the LLM-AAI paper's) or 4.1.0 "
    "(its item names and block masses); see docs/arena-fidelity.md. Stored with the run."
)


HUMAN_FRAMES_HELP = (
    "Where --model human shows the frames: window (a browser window, where a display exists), "
    "page (a page on 127.0.0.1 that reloads itself), files (PNG files named on the terminal) or "
    "auto (the first that works). Stored with the run."
)


def refuse_human_setup(config: Any) -> None:
    """One line and exit 2 when a person cannot play as configured (worker processes, parallel
    episodes, a frame display that cannot open here): agentkit.models.human_model.human_setup_refusal."""
    from agentkit.models.human_model import human_setup_refusal

    refusal = human_setup_refusal(config)
    if refusal is not None:
        fail(refusal)


def warn_unpriced_budget(config: Any) -> None:
    """One warning line when a cost budget is set on a model litellm has no price for."""
    from agentkit.models.price_check import unpriced_budget_warning

    warning = unpriced_budget_warning(
        config.model,
        config.price_per_mtok,
        {
            "--max-cost (max_cost_usd)": config.max_cost_usd,
            "--run-max-cost (run_max_cost_usd)": config.run_max_cost_usd,
        },
    )
    if warning:
        err.print(
            f"warning: {warning}", markup=False
        )  # one line however narrow the terminal (log lines wrap)


def with_human_frames(config: Any, mode: str) -> Any:
    """``config`` with its ``human_frames`` mode; a mode that is unknown or cannot work here (a window
    without a display) ends the command in one line, before any episode."""
    from agentkit.models.human_frames import FrameDisplayError, check_frame_mode

    if config.model == "human":
        try:
            check_frame_mode(mode)
        except FrameDisplayError as exc:
            fail(str(exc))
    elif mode != "auto":
        fail(f"--human-frames: only --model human shows frames to a person (the model is {config.model!r})")
    return config.model_copy(update={"human_frames": mode})


def animal_ai_options(aai_build: str | None, aai_version: str | None) -> dict[str, str]:
    """The backend options the Animal-AI flags give (only those set, so other backends are not offered them)."""
    return {key: value for key, value in (("aai_build", aai_build), ("aai_version", aai_version)) if value}


def verdict_mark(passed: bool | None) -> str:
    """An episode's verdict as `run` and `eval` print it as it ends: pass (green), fail (red), or
    no-verdict (yellow), the one vocabulary of agentkit.outcome_words."""
    from agentkit.outcome_words import verdict_text

    colour = "yellow" if passed is None else "green" if passed else "red"
    return f"[{colour}]{verdict_text(passed)}[/{colour}]"


def fitted(line: str) -> str:
    """``line`` wrapped between words to the terminal's width (continuation lines indented by two
    spaces), where a width is known: a terminal, or ``COLUMNS`` set. Piped output with no
    ``COLUMNS`` keeps the line whole, so scripts that read a summary as one line still can."""
    import os
    import textwrap

    if not (out.is_terminal or os.environ.get("COLUMNS")):
        return line
    lines = textwrap.wrap(
        line, width=max(40, out.width), subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )
    return "\n".join(lines) or line


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit with status 2 (``message`` is plain text: an install
    hint's ``[arena]`` or a file's ``[1, 2]`` is printed as written, never read as rich markup)."""
    err.print(f"[red]error:[/red] {escape(message)}", markup=True)
    raise typer.Exit(2)


def emit_json(data: Any) -> None:
    """One JSON document, one line, on stdout (non-JSON values as their text)."""
    sys.stdout.write(json.dumps(data, default=str) + "\n")
    sys.stdout.flush()


def open_store(db: str | None) -> Any:
    """The transcript store a command writes to; a bad ``--db`` (not a URL, an unknown kind of
    database, a folder, a file that is not a SQLite database, a place that cannot be written) ends
    the command in one line (agentkit.store_access.db_argument)."""
    from agentkit.store_access.db_argument import DatabaseArgumentError, check_db, opening
    from agentkit.transcripts import TranscriptStore

    try:
        url = check_db(db, writing=True)
        with opening(url):
            return TranscriptStore(url)
    except DatabaseArgumentError as exc:
        fail(str(exc))


def open_reading_store(db: str | None) -> Any:
    """The store of a command that only reads: never created, never written (agentkit.viewer.readonly);
    a bad or missing ``--db`` ends the command in one line."""
    from agentkit.store_access.db_argument import DatabaseArgumentError, check_db, opening
    from agentkit.viewer.readonly import DatabaseNotFound, open_readonly

    try:
        url = check_db(db, writing=False)
        with opening(url):
            try:
                return open_readonly(url)
            except DatabaseNotFound as exc:  # its own words: "no transcript database at PATH"
                fail(str(exc))
    except (DatabaseArgumentError, ValueError) as exc:
        fail(str(exc))
