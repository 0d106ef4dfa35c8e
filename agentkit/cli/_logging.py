"""How much the `agentkit` command logs, and where: ``-v`` / ``--log-level`` on every command, to stderr.

Why: a researcher debugging one command wants its debug lines without learning where the global
options go (``agentkit --log-level debug run ...``, ``agentkit run ... --log-level debug`` and
``agentkit run -v ...`` all work: the options are moved before the command name when given after
it; no command has a ``-v`` of its own), and stdout stays the command's output alone (``--json``
is one JSON document; see ``agentkit.leaves.log_streams``).
"""

from __future__ import annotations

import logging

from rich.console import Console
from rich.logging import RichHandler

from agentkit.leaves.log_streams import parse_level, route_litellm_to_root

_log_console = Console(stderr=True)  # log records, laid out by rich (wrapped to the terminal)
LOG_LEVEL_HELP = "debug, info, warning (default), error or critical; on stderr. -v is --log-level debug."


def setup_logging(verbose: bool, log_level: str | None = None) -> None:
    """Root logging at ``log_level`` (else debug with ``verbose``, else warning), rich lines on
    stderr; ``ValueError`` for an unknown level name."""
    from agentkit.leaves.url_redaction import install_log_redaction

    level = parse_level(log_level) if log_level else (logging.DEBUG if verbose else logging.WARNING)
    install_log_redaction()  # no "user:password@" or "?api_key=" of a URL reaches a log line
    logging.basicConfig(
        level=level,
        format="%(message)s",
        handlers=[RichHandler(console=_log_console, show_path=False)],
        force=True,
    )
    route_litellm_to_root()  # if litellm is imported already; else the model module does it on import


VERBOSE_FLAGS = ("-v", "--verbose")


def hoist_log_level(args: list[str]) -> list[str]:
    """``args`` with every ``--log-level X`` / ``--log-level=X`` and ``-v`` / ``--verbose`` given
    after the command name moved to the front, where the options belong (nothing after a ``--``
    is touched)."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg == "--log-level" and i + 1 < len(args):
            front.extend(args[i : i + 2])
            i += 2
            continue
        if arg.startswith("--log-level=") or arg in VERBOSE_FLAGS:
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    return front + rest
