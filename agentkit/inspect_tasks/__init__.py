"""agentkit's suites as Inspect (inspect_ai) tasks: ``inspect eval agentkit/aai_children40 --model ...``.

Why: researchers who already evaluate with Inspect want agentkit's worlds, script language, memory
policies and templates without leaving it. Each suite task is a sample; the solver plays one agentkit
episode whose model turns go to Inspect's model; the scorer reports agentkit's pass and reward; the
episode is also written to agentkit's transcript store (the task's ``db`` parameter), so the viewer,
reports and replay read it like any other run. Needs the ``inspect`` extra.
"""

from agentkit.inspect_tasks.episode_solver import agentkit_episode
from agentkit.inspect_tasks.scorer import agentkit_score
from agentkit.inspect_tasks.suite_task import suite_task

__all__ = ["agentkit_episode", "agentkit_score", "suite_task"]
