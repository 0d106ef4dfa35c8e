"""What an Animal-AI episode reports and what its prompts are told, shared by the pybullet arena and
the Unity connector so that both score and describe a task identically."""

from __future__ import annotations

from typing import Any

from agentkit.envs.arena.layout import ARENA_SIZE
from agentkit.envs.arena.suites import passed
from agentkit.envs.arena.tasks import task_level


def episode_metrics(task: str | None, pass_mark: float | None, final: Any) -> dict[str, Any]:
    """``pass``: the reward at the episode's end >= pass mark (no pass mark, as in 10-22-02: reward > 0,
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


def prompt_context(time_limit: int | None, pass_mark: float | None) -> dict[str, Any]:
    return {
        "arena_size": int(ARENA_SIZE),
        "turn_step_degrees": 6,
        "time_limit": time_limit,
        "pass_mark": pass_mark,
        "velocity_axes": "right, up, forward (units per second)",
    }
