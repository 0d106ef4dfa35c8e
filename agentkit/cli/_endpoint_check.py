"""``--endpoint-check/--no-endpoint-check`` of ``agentkit run`` and ``agentkit eval``: its help and its call.

Why a module: both commands run the same check (``agentkit.runs.endpoint_check``) at the same moment,
after the key and reachability checks and before any database is opened, and print its outcome
the same way: a refusal as the command's one-line error, each warning as one ``warning:`` line on
stderr (stdout stays pure JSON with ``--json``). The check itself is imported only when a run
starts, so ``--help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

ENDPOINT_CHECK_HELP = (
    "Before the first episode, ask the model's server (a few 1-token requests, cached for a day) "
    "whether it keeps the system message, images, tools, and how long its context is; a run it "
    "cannot serve stops with the fix. See docs/endpoint-check.md."
)


def run_endpoint_check(configs: list[Any], api_key: str | None, fail: Callable[[str], NoReturn]) -> None:
    """Check the endpoints of ``configs``: ``fail`` with the line that names the fix, or print the warnings."""
    from agentkit.cli._common import err
    from agentkit.runs.endpoint_check import EndpointRefused, check_endpoints

    try:
        warnings = check_endpoints(configs, api_key)
    except EndpointRefused as exc:
        fail(str(exc))
    for line in warnings:
        err.print(f"warning: {line}", markup=False)
