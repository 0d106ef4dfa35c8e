"""``--executor local|ray`` and ``--ray-address``: where a command's episodes run, checked in one line.

Why a helper of its own: ``agentkit eval`` (also with ``--resume``, where the executor may change
like ``--workers``) and ``agentkit run`` take the same two flags, and a wrong value must fail in
one line naming the flag before anything is created. ``--ray-address`` alone implies
``--executor ray``; with ``--executor local`` it is refused rather than ignored.
"""

from __future__ import annotations

from typing import Any

from agentkit.cli_common import fail

EXECUTORS = ("local", "ray")


def executor_overrides(executor: str | None, ray_address: str | None) -> dict[str, Any]:
    """The RunConfig fields the flags set (None: not given, the file's or stored value stays)."""
    if executor is not None and executor not in EXECUTORS:
        fail(f"--executor: {executor!r} is not one of {', '.join(EXECUTORS)}")
    if ray_address is not None:
        if not ray_address.strip():
            fail("--ray-address: give HOST:PORT (or ray://HOST:PORT, or auto)")
        if executor == "local":
            fail("--ray-address: names a Ray cluster, but --executor is local (drop one of them)")
        executor = "ray"
    return {"executor": executor, "ray_address": ray_address}
