"""Intervention actors and curricula: when to intervene on what, across and within episodes.

An actor names a set of variables (like a protocol: first-level and property regexes); a
curriculum applies its actors' samples in episodes ``episode_start`` .. ``episode_end`` (inclusive,
None: forever) every ``episode_periodicity`` episodes, at simulated time ``time_step_ms`` of the
episode (0: right after reset). It is set with the backend option ``curriculum``, e.g.
``{"actors": ["goal", "visual"], "space": "A", "episode_periodicity": 2}``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentkit.envs.trifinger.protocols import Selection

#: CausalWorld's intervention_actors/: goal_actor (a new goal), rigid_block_pose_actor (tool blocks'
#: positions and yaws), physical_proporties_actor (masses and frictions; no gravity), visual_actor
#: (every colour), joints_actor (joint positions), random_actor (see RANDOM).
ACTORS: dict[str, tuple[str, str]] = {
    "goal": (r"goal\d+", r"cylindrical_position|euler_orientation"),
    "block_pose": (r"block\d+", r"cylindrical_position|euler_orientation"),
    "physical": (r"block\d+|floor_friction|stage_friction|finger_.*", r"mass"),
    "visual": (r".*color|block\d+|goal\d+|finger_.*", r"color"),
    "joints": (r"joint_positions", r""),
    "random": (r".*", r".*"),
}
#: Actors drawn as random_actor.py does: never joints or gravity, sizes or positions by a coin.
RANDOM = frozenset({"random"})


class Curriculum(BaseModel):
    """When and what to intervene on (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    actors: list[str] = Field(min_length=1)
    space: str = "A"
    episode_start: int = Field(0, ge=0)
    episode_end: int | None = Field(None, ge=0)
    episode_periodicity: int = Field(1, ge=1)
    time_step_ms: int = Field(0, ge=0)
    seed: int = 0

    @field_validator("actors")
    @classmethod
    def _known(cls, actors: list[str]) -> list[str]:
        unknown = [a for a in actors if a not in ACTORS]
        if unknown:
            raise ValueError(f"unknown actor(s) {', '.join(unknown)}; known: {', '.join(ACTORS)}")
        return actors

    @field_validator("space")
    @classmethod
    def _space(cls, space: str) -> str:
        if space not in ("A", "B", "A_B"):
            raise ValueError(f"space must be A, B or A_B, got {space!r}")
        return space

    def active(self, episode: int) -> bool:
        if episode < self.episode_start or (self.episode_end is not None and episode > self.episode_end):
            return False
        return (episode - self.episode_start) % self.episode_periodicity == 0

    def due(self, episode: int, before_ms: int, after_ms: int) -> bool:
        """Whether the intervention falls in the simulated-time window (before, after] of ``episode``."""
        if not self.active(episode):
            return False
        if self.time_step_ms == 0:
            return before_ms < 0 <= after_ms
        return before_ms < self.time_step_ms <= after_ms

    def selections(self) -> list[Selection]:
        return [
            Selection(
                *ACTORS[a],
                self.space,  # type: ignore[arg-type]
                random=a in RANDOM,
                task_goal=a == "goal",
                tip_joints=a == "joints",
                task_pose=a == "block_pose",
            )
            for a in self.actors
        ]

    def generator(self, episode: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, episode])


def parse_curriculum(value: Any) -> Curriculum | None:
    """A curriculum from backend options (a dict), with a one-line error naming the field."""
    if value is None or isinstance(value, Curriculum):
        return value
    try:
        return Curriculum.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "value"
        raise ValueError(f"backend option curriculum.{where}: {first['msg']}") from None
