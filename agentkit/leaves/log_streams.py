"""Every log record goes to stderr, litellm's included, so stdout carries only a command's output.

Why: ``agentkit ... --json`` promises exactly one JSON document on stdout, and a researcher pipes it
into ``jq`` or a script. litellm installs its own handler on its loggers ("LiteLLM", "LiteLLM
Router", "LiteLLM Proxy") that writes records below WARNING to stdout, and with ``set_verbose`` it
``print``s; so debug logging (``-v``, ``--log-level debug``) used to corrupt the JSON. Here its
handlers are removed and its records propagate to the root logger, whose handler writes to stderr.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import Any

LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
LEVELS = ("debug", "info", "warning", "error", "critical")


def parse_level(name: str) -> int:
    """The logging level named ``name`` (any case); ``ValueError`` naming the choices otherwise."""
    if name.lower() not in LEVELS:
        raise ValueError(f"--log-level must be one of {', '.join(LEVELS)}, not {name!r}")
    return getattr(logging, name.upper())


def route_litellm_to_root() -> None:
    """Take litellm's own handlers off its loggers (they write to stdout) and let its records reach
    the root logger's handlers instead; switch off its ``print``-based verbose mode. Idempotent; a
    no-op until litellm is imported (its handlers are installed on import, so the model module
    calls this right after importing it)."""
    if "litellm" not in sys.modules:
        return
    litellm: Any = sys.modules[
        "litellm"
    ]  # its settings (set_verbose, ...) are module globals it does not type
    litellm.set_verbose = False
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.propagate = True
        if logger.level < logging.root.level or logger.level == logging.NOTSET:
            # litellm sets its own level from LITELLM_LOG; ours (the root's) decides instead
            logger.setLevel(logging.NOTSET)


def import_litellm() -> Any:
    """``import litellm`` with its log records kept off stdout, then ``route_litellm_to_root``.

    Its handler picks ``sys.stdout`` as each record is written, and importing it already logs at
    DEBUG (when the root logger is at DEBUG), so stdout points at stderr while it is imported.
    Typed Any: callers set litellm's module-level settings (``suppress_debug_info``), which its type
    information does not declare.
    """
    with contextlib.redirect_stdout(sys.stderr):
        import litellm
    route_litellm_to_root()
    return litellm
