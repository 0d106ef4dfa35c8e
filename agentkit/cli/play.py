"""`agentkit play`: a participant plays the arena's tasks in a browser, stored as a run of model `human:<id>`.

Why its own module: the play server (agentkit.play) is only imported when the verb runs, so the
other commands start as fast as before; ``register(app)`` adds the verb to the main app.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import typer

from agentkit.cli._common import DB_HELP, err, fail, out

if TYPE_CHECKING:  # the play server is imported only when the verb runs
    from agentkit.play import PlayOptions
    from agentkit.play.resume import ResumePoint
    from agentkit.transcripts import TranscriptStore

log = logging.getLogger("agentkit.play")


def play(
    participant: str | None = typer.Option(
        None,
        "--participant",
        help="The participant's id (letters, digits, - _ .); nothing else about the person is stored. Without it, name participants on the experimenter page (/experimenter).",
    ),
    db: str | None = typer.Option(None, help=DB_HELP),
    env: str = typer.Option(
        "aai-arena", "--env", help="aai-arena (keys held, real time) or gridworld (a step a key press)."
    ),
    suite: str | None = typer.Option(
        None,
        "--suite",
        help="The suite played in order, after the tutorial (default: aai-children40; gridworld-easy).",
    ),
    tasks: str | None = typer.Option(
        None, "--tasks", help="Task ids or suites, comma-separated, instead of the whole suite."
    ),
    mode: str = typer.Option(
        "keyboard",
        "--mode",
        help="keyboard (arrow keys, real time) or script (typed Go/Turn scripts, one frame a turn).",
    ),
    condition: str = typer.Option(
        "", "--condition", help="The experimental condition, stored in the run config."
    ),
    size: int | None = typer.Option(
        None, "--size", min=16, max=2048, help="Frame side in pixels (default: the model runs' 512)."
    ),
    tutorial: bool = typer.Option(
        True,
        "--tutorial/--no-tutorial",
        help="Start with the tutorial (testbed 01-01-01; gridworld/reach-goal-easy).",
    ),
    seed: int = typer.Option(0, "--seed", help="The run's seed (as for model runs)."),
    host: str = typer.Option(
        "127.0.0.1", help="Address to bind; anything but loopback lets others on the network play."
    ),
    port: int = typer.Option(8770, min=0, max=65535, help="Port (0 picks a free one)."),
    resume: str | None = typer.Option(
        None,
        "--resume",
        help="Go on with this sitting's run (a stopped server cut it short): its options come from the run.",
    ),
) -> None:
    """Serve a local page where a participant plays a tutorial, then the tasks, recorded like a model's run."""
    from agentkit.cli._common import open_store
    from agentkit.play import PlayServer

    point: ResumePoint | None = None
    if resume is not None:
        store, options, point = _resumed_sitting(db, resume, participant)
        participant, mode = options.participant, options.mode
    else:
        options = _new_sitting(participant, env, suite, tasks, mode, condition, size, tutorial, seed)
        store = open_store(db)
    try:
        server = PlayServer(store, options, host=host, port=port, resume=point)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    if host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("play is bound to %s: anyone who can reach it can play and start sittings", host)
    who = f"participant {participant}" if participant else "participants named on the experimenter page"
    err.print(
        f"{who}: {len(options.tasks)} task(s) in {mode} mode{' after the tutorial' if options.tutorial else ''}; "
        f"sittings and outcomes on {server.url}experimenter",
        markup=False,
    )
    out.print(f"agentkit play on {server.url}  - open it in a browser; Ctrl-C to stop", markup=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        store.close()


def _resumed_sitting(
    db: str | None, resume: str, participant: str | None
) -> tuple[TranscriptStore, PlayOptions, ResumePoint]:
    """``--resume RUN``: the store, the sitting's own options and where it stopped; one line when RUN
    is no sitting or another participant's."""
    from agentkit.cli._common import open_store
    from agentkit.play.resume import resume_point

    store = open_store(db)
    try:
        options, point = resume_point(store, resume)
    except ValueError as exc:
        fail(str(exc))
    if participant not in (None, options.participant):
        fail(f"--resume {resume}: the sitting of participant {options.participant}, not {participant}")
    return store, options, point


def _new_sitting(
    participant: str | None,
    env: str,
    suite: str | None,
    tasks: str | None,
    mode: str,
    condition: str,
    size: int | None,
    tutorial: bool,
    seed: int,
) -> PlayOptions:
    """A new sitting's options from the command line, its tasks checked; one line for a bad option or task."""
    from agentkit.play import PlayOptions
    from agentkit.play.session import TUTORIALS, check_tasks, suite_tasks

    try:
        options = PlayOptions(
            participant=participant,
            tasks=suite_tasks(suite, tasks, env),
            mode=mode,
            condition=condition,
            size=size,
            tutorial=TUTORIALS.get(env) if tutorial else None,
            seed=seed,
            env=env,
        )
        check_tasks(options)
    except ValueError as exc:
        fail(str(exc))
    return options


def register(app: typer.Typer) -> None:
    app.command("play")(play)
