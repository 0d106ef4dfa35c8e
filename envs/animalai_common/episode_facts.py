"""What an Animal-AI episode reports and what its prompts are told, shared by the pybullet arena and
the Unity connector so that both score and describe a task identically."""

from __future__ import annotations

from typing import Any

from agentkit.envs.animalai_common.layout import ARENA_SIZE
from agentkit.envs.animalai_common.rules import episode_steps
from agentkit.envs.animalai_common.suites import passed
from agentkit.envs.animalai_common.tasks import task_level


def episode_metrics(task: str | None, pass_mark: float | None, final: Any) -> dict[str, Any]:
    """``pass``: the reward at the episode's end >= pass mark (no pass mark, as in 10-22-02: >= 0,
    ``suites.passed``); ``level``: the Testbed level (None for a file path); ``pass_mark`` as the file
    gives it.

    An episode that has not ended (``final.done`` false: an arena with no time limit, t = 0, stopped
    by the loop's limits, so there was no clock to run out) never reached the end at which Animal-AI
    judges. It passes only if the reward so far already reaches the pass mark and is positive (with
    no step cost, only goals give positive reward): standing still in an untimed arena whose pass
    mark is 0 or below is not a pass. (Model and environment errors are judged by the loop.)
    """
    total = float(getattr(final, "total_reward", 0.0))
    ended = bool(getattr(final, "done", True))
    return {
        "pass": passed(total, pass_mark) and (ended or total > 0),
        "level": task_level(task) if task else None,
        "pass_mark": pass_mark,
    }


def steps_left(t: int, steps: int) -> int | str:
    """What the status reports as time left: the steps until the clock alone ends the episode
    (Animal-AI's clock runs 5/3 longer than the file's ``t``: ``rules.episode_steps``)."""
    total = episode_steps(t)
    return "unlimited" if total is None else max(total - steps, 0)


def prompt_context(time_limit: int | None, pass_mark: float | None) -> dict[str, Any]:
    """``time_limit`` is the file's ``t``; the prompt is told the steps it really lasts (417 for t = 250)."""
    return {
        "arena_size": int(ARENA_SIZE),
        "turn_step_degrees": 6,
        "time_limit": episode_steps(time_limit or 0),
        "arena_t": time_limit,
        "pass_mark": pass_mark,
        "velocity_axes": "right, up, forward (units per second)",
    }
