"""The one place where the different spellings of an Animal-AI Testbed task are mapped to one id.

Why: the same task is ``L1.6.2`` in the children's data (a column name, numbers unpadded),
``01-06-02.yaml`` in the pass marks and in the Animal-AI repository, ``01-06-02`` in the Olympics
scores and in the arena's suites, and may be a path such as ``configs/01-06-02.yaml`` when a run
was given a file. Everything in the report is keyed by the canonical ``LL-TT-VV`` form, and any
spelling that cannot be mapped is refused here rather than silently dropped from a proportion.
"""

from __future__ import annotations

import re
from pathlib import PurePath

# Children columns: "L<level>.<task>.<variant>" (passed) and "P<...>" (final reward).
_CHILD_COLUMN = re.compile(r"^([LP])(\d{1,2})\.(\d{1,2})\.(\d{1,2})$")
# The Testbed file stem, wherever it appears.
_TESTBED_STEM = re.compile(r"^(\d{2})-(\d{2})-(\d{2})$")


def _form(level: int, task: int, variant: int, original: str) -> str:
    if not (1 <= level <= 10 and 1 <= task <= 30 and 1 <= variant <= 3):
        raise ValueError(f"not a Testbed task (levels 1-10, tasks 1-30, variants 1-3): {original!r}")
    return f"{level:02d}-{task:02d}-{variant:02d}"


def canonical_task_id(name: str) -> str:
    """``"LL-TT-VV"`` for an arena id, a pass-mark file name or a path to a Testbed YAML file.

    ValueError for anything that is not one of the 900 Testbed tasks.
    """
    stem = PurePath(name.strip().replace("\\", "/")).name
    for suffix in (".yaml", ".yml"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    match = _TESTBED_STEM.match(stem)
    if match is None:
        raise ValueError(f"not an Animal-AI Testbed task id (LL-TT-VV): {name!r}")
    level, task, variant = match.groups()
    return _form(int(level), int(task), int(variant), original=name)


def child_column_task(column: str) -> tuple[str, str] | None:
    """(kind, task id) of a children-data column: kind "pass" (``L...``) or "reward" (``P...``).

    None for columns that are not per-task (such as ``User``).
    """
    match = _CHILD_COLUMN.match(column)
    if match is None:
        return None
    kind = "pass" if match.group(1) == "L" else "reward"
    return kind, _form(int(match.group(2)), int(match.group(3)), int(match.group(4)), original=column)


def level_of(task_id: str) -> int:
    """The Testbed level (1-10) of a canonical task id."""
    return int(canonical_task_id(task_id)[:2])
