"""When the lights are off: Animal-AI's ``blackouts`` schedule, on Animal-AI's own clock.

The documented rule: a list of increasing frames ``[a, b, c, d, ...]`` toggles the lights at each
listed frame, starting lit (dark from a to b, from c to d, ...; an odd-length list stays dark from its
last frame on); a single negative value ``[-N]`` toggles them every N frames.

What v3.1.3 does with it (``Lights.cs`` ``LightsSwitch.LightStatus``, called by
``TrainingArena.FixedUpdate``): a listed frame f toggles the lights at the physics update whose count
(``Agent.StepCount``, one per 0.02 s update) equals ``f x agentDecisionInterval``, and the arena reads
that interval (5, the agent prefab's ``DecisionRequester``) before the real decision period (3) is set.
So frame f switches the lights at update 5 f, which is environment step 5 f / 3: every blackout
happens 5/3 later, and lasts 5/3 longer, than its frame numbers say. The observation after k steps
(update 3 k) is dark when an odd number of toggles have happened by then.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentkit.envs.animalai_common.motion import DECISION_PERIOD
from agentkit.envs.animalai_common.rules import CLOCK_DECISION_INTERVAL


def toggles_by(step: int, blackouts: Sequence[int]) -> int:
    """How many light switches have happened by the observation after ``step`` environment steps."""
    if not blackouts:
        return 0
    updates = step * DECISION_PERIOD
    if blackouts[0] < 0:
        return updates // (-blackouts[0] * CLOCK_DECISION_INTERVAL)
    return sum(1 for frame in blackouts if frame * CLOCK_DECISION_INTERVAL <= updates)


def lights_on(step: int, blackouts: Sequence[int]) -> bool:
    """Whether the observation after ``step`` environment steps is lit under the ``blackouts`` schedule."""
    return toggles_by(step, blackouts) % 2 == 0
