"""agentkit's judgement of an episode as an Inspect score: pass (1 or 0) and the world's reward.

Why: Inspect reports and compares scores, so the pass rule agentkit applied (the backend's judgement,
or the run's pass rule for a broken episode) and the reward must reach it as they are, not be judged
again from the model's last message.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from agentkit.inspect_tasks.episode_solver import RESULT_KEY


@scorer(metrics={"pass": [mean(), stderr()], "reward": [mean()]})
def agentkit_score() -> Scorer:
    """``pass``: 1.0 when agentkit judged the episode a pass; ``reward``: the episode's total reward."""

    async def score(state: TaskState, target: Target) -> Score:
        result = state.metadata.get(RESULT_KEY)
        if result is None:
            return Score(value={"pass": 0.0, "reward": 0.0}, explanation="no agentkit episode was played")
        return Score(
            value={"pass": 1.0 if result["success"] else 0.0, "reward": float(result["reward"])},
            answer=state.output.completion if state.output else None,
            explanation=f"{result['task']}: {result['end_reason']} after {result['scripts']} script(s)",
            metadata={"episode_id": result["episode_id"], "run_id": result.get("run_id")},
        )

    return score
