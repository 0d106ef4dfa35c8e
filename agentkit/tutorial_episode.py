"""Which episode of an ``agentkit play`` sitting is its tutorial, the practice that never counts.

Why a module of its own: the sitting that plays the tutorial (``agentkit.play``) and the reports that
leave it out (``agentkit.reports``) must agree on one rule, and the reports should not import the
play server to learn it. The tutorial's task may also be one of the counted tasks (the gridworld's
tutorial ``gridworld/reach-goal-easy`` is in its default suite ``gridworld-easy``), so the task alone
does not tell the practice episode from the counted one: the tutorial is the trial after the counted
trials of its task (trial ``episodes``; the counted ones are 0 .. episodes - 1), with that trial's
seed, so its stable episode id and its world are its own. The run config records both the task
(``tutorial``) and the trial (``tutorial_trial``).

Sittings stored before ``tutorial_trial`` was recorded played the tutorial as trial 0, prepended to
the run's tasks; for them every episode of the tutorial's task is the tutorial, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TASK_KEY = "tutorial"  # run config: the tutorial's task, or None for a sitting without one
TRIAL_KEY = "tutorial_trial"  # run config: the tutorial's trial number
SEED_SPAN = 2**63  # the store's 64-bit seed column holds 0 .. 2^63 - 1 (agentkit.config.MAX_SEED)


def tutorial_seed(seed: int, trial: int) -> int:
    """The tutorial's seed: trial i of a task uses seed + i (``RunConfig.episode_plan``), wrapped
    into the seed column's range at its very top."""
    return (seed + trial) % SEED_SPAN


def is_tutorial(config: Mapping[str, Any] | None, task: str, trial: int) -> bool:
    """Whether the episode (``task``, ``trial``) of the run with this config is its tutorial."""
    config = config or {}
    tutorial = config.get(TASK_KEY)
    if not isinstance(tutorial, str) or not tutorial or task != tutorial:
        return False
    recorded = config.get(TRIAL_KEY)
    return trial == recorded if isinstance(recorded, int) else True
