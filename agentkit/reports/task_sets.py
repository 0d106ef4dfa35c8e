"""Turn the ``--tasks`` option into a list of Testbed task ids.

Suite names of the arena (``aai-children40``, ``aai-testbed``, ``aai-level-03``) and task ids,
separated by commas or spaces (any spelling ``task_ids.canonical_task_id`` accepts). The arena's
suites are reused so the report and ``agentkit run --suite`` always mean the same tasks.
"""

from __future__ import annotations

import re

from agentkit.envs.animalai_common.suites import suites
from agentkit.reports.task_ids import canonical_task_id

DEFAULT_TASK_SET = "aai-children40"


def resolve_task_set(spec: str | None) -> list[str]:
    """Canonical task ids, in Testbed order, without repeats; ValueError naming a bad entry."""
    spec = (spec or DEFAULT_TASK_SET).strip()
    named = suites()
    if spec in named:
        return sorted(set(named[spec]))
    parts = [p for p in re.split(r"[,\s]+", spec) if p]
    if not parts:
        raise ValueError("--tasks: empty task set")
    ids: set[str] = set()
    for part in parts:  # each entry a suite or a task id: "aai-level-01,aai-level-02" is two suites
        if part in named:
            ids.update(named[part])
            continue
        try:
            ids.add(canonical_task_id(part))
        except ValueError:
            raise ValueError(
                f"--tasks: {part!r} is neither a suite (aai-children40, aai-testbed, "
                f"aai-level-01 .. aai-level-10) nor a Testbed task id LL-TT-VV"
            ) from None
    return sorted(ids)
