"""``--executor local|ray`` and ``--ray-address``: where a command's episodes run, checked in one line.

Why a helper of its own: ``agentkit eval`` (also with ``--resume``, where the executor may change
like ``--workers``) and ``agentkit run`` take the same two flags, and a wrong value must fail in
one line naming the flag before anything is created. The rule about ``--ray-address`` is stated
once, by :func:`executor_for`, for both commands (``run`` reads its flags through
``agentkit.cli._run_options``): it must name something, it alone implies ``--executor ray``, and
with ``--executor local`` it is refused rather than ignored.
"""

from __future__ import annotations

from typing import Any

from agentkit.cli._common import fail

EXECUTORS = ("local", "ray")


def executor_for(executor: str | None, ray_address: str | None) -> str | None:
    """The executor the two flags ask for (None: neither given, the file's or stored one stays);
    raises ValueError naming the flag for a blank ``--ray-address`` or one beside ``--executor local``."""
    if ray_address is None:
        return executor
    if not ray_address.strip():
        raise ValueError("--ray-address: give HOST:PORT (or ray://HOST:PORT, or auto)")
    if executor == "local":
        raise ValueError("--ray-address: names a Ray cluster, but --executor is local (drop one of them)")
    return "ray"


def executor_overrides(executor: str | None, ray_address: str | None) -> dict[str, Any]:
    """The RunConfig fields the flags set (None: not given, the file's or stored value stays)."""
    if executor is not None and executor not in EXECUTORS:
        fail(f"--executor: {executor!r} is not one of {', '.join(EXECUTORS)}")
    try:
        return {"executor": executor_for(executor, ray_address), "ray_address": ray_address}
    except ValueError as exc:
        fail(str(exc))
