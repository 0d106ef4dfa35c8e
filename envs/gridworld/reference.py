"""The gridworld reference agent: a privileged planner that answers in the script language.

BabyAI levels are planned by MiniGrid's BabyAI bot (see ``babyai_planner``), MiniGrid tasks whose
aim is a goal square by a shortest-path search on the full grid (see ``goal_planner``). Any other
task has no reference agent and says so. Each answer is at most ``horizon`` low-level actions,
opened with a ``Think`` naming the current subgoal, e.g.
``Think("go to the blue key"); Turn(-90); Go(3);``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agentkit.actions import Command, Script
from agentkit.actions.formatter import format_script
from agentkit.envs.gridworld.babyai_planner import BabyAIPlanner, Plan, is_babyai
from agentkit.envs.gridworld.goal_planner import has_goal, plan_to_goal
from agentkit.envs.gridworld.plan_script import actions_to_commands
from agentkit.envs.gridworld.vocabulary import VOCABULARY
from agentkit.observers import Observation

if TYPE_CHECKING:
    from agentkit.envs.gridworld.backend import GridworldBackend

logger = logging.getLogger(__name__)


class NoReferenceError(RuntimeError):
    """The current task has no reference agent (neither a BabyAI level nor a reach-the-goal task)."""


class GridworldReference:
    """Bound to one backend; reads its live env (privileged) and plans from it every turn."""

    def __init__(self, backend: GridworldBackend, horizon: int = 12) -> None:
        self.backend = backend
        self.horizon = horizon
        self._episode: int | None = None
        self._bot: BabyAIPlanner | None = None

    def next_answer(self, observation: Observation | None = None) -> str:
        """The next commands as script text (what the transcript stores)."""
        return format_script(Script(tuple(self.next_commands(observation))), VOCABULARY)

    def next_commands(self, observation: Observation | None = None) -> list[Command]:
        """Think (the subgoal), then the next few moves; ``observation`` is not needed, the env is read."""
        plan = self._plan()
        if not plan.actions:
            logger.warning("reference agent has no action to take (%s)", plan.intent)
        return [Command("Think", (plan.intent,)), *actions_to_commands(plan.actions)]

    def _plan(self) -> Plan:
        env = self.backend.unwrapped
        if self._episode != self.backend.episode:
            self._episode = self.backend.episode
            self._bot = BabyAIPlanner(env, self.horizon) if is_babyai(env) else None
        if self._bot is not None:
            return self._bot.plan(env)
        if not has_goal(env):
            raise NoReferenceError(
                f"no reference agent for {self.backend.task}: it is neither a BabyAI level "
                "nor a MiniGrid task with a goal square"
            )
        try:
            actions = plan_to_goal(env)
        except ValueError as exc:
            raise NoReferenceError(
                f"reference planner found no way to the goal in {self.backend.task}"
            ) from exc
        steps = actions[: self.horizon]
        return Plan(steps, f"head for the goal square, {len(actions)} steps away")
