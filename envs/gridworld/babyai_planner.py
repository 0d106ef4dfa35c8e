"""Plan BabyAI levels with MiniGrid's BabyAIBot, a few actions at a time, on a shadow copy of the env.

The bot keeps memory (what it has seen, a stack of subgoals) and expects to be asked once per
step of the env it holds. So it holds a *shadow* env: a deep copy of the live env, made together
with the bot so every object the bot refers to lives in that copy. Each turn a copy of the pair
(shadow, bot) is advanced up to ``horizon`` actions; because MiniGrid is deterministic, the live
env ends in the same state once the loop has executed those actions, and the advanced pair becomes
the new shadow. If the two ever disagree (the loop ran only part of the script), the shadow is
rebuilt from the live env with a fresh bot that keeps the old bot's map of seen cells.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from minigrid.envs.babyai.core.verifier import ObjDesc
from minigrid.utils.baby_ai_bot import BabyAIBot, DisappearedBoxError, GoNextToSubgoal

from agentkit.envs.gridworld.quiet import quiet_stdout
from agentkit.envs.gridworld.vocabulary import Act

logger = logging.getLogger(__name__)


@dataclass
class Plan:
    actions: list[int]
    intent: str


def is_babyai(env: Any) -> bool:
    """BabyAI levels carry verifiable instructions; the bot needs them."""
    return hasattr(env, "instrs")


def _fingerprint(env: Any) -> tuple[Any, ...]:
    carrying = None if env.carrying is None else (env.carrying.type, env.carrying.color)
    return (
        tuple(int(v) for v in env.agent_pos),
        int(env.agent_dir),
        int(env.step_count),
        carrying,
        env.grid.encode().tobytes(),
    )


class BabyAIPlanner:
    """Plans for one episode of one live BabyAI env (``env`` is the unwrapped MiniGridEnv)."""

    def __init__(self, env: Any, horizon: int = 12) -> None:
        self.horizon = horizon
        self._shadow, self._bot = self._fresh(env, seen=None)

    def plan(self, live: Any) -> Plan:
        if _fingerprint(live) != _fingerprint(self._shadow):
            logger.info("reference shadow env out of sync with the live env; rebuilding it")
            self._shadow, self._bot = self._fresh(live, seen=self._bot.vis_mask)
        env, bot = copy.deepcopy((self._shadow, self._bot))
        actions: list[int] = []
        intent = ""
        with quiet_stdout():
            while len(actions) < self.horizon:
                try:
                    action = int(bot.replan())
                except (DisappearedBoxError, AssertionError) as exc:  # the bot gives up on this level
                    logger.warning("BabyAI bot cannot continue: %s", exc)
                    intent = intent or f"I am stuck: {exc}"
                    break
                if not intent:
                    intent = describe_intent(bot)
                if action == Act.DONE:
                    break
                actions.append(action)
                _, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    break
        self._shadow, self._bot = env, bot
        return Plan(actions, intent or "nothing left to do")

    @staticmethod
    def _fresh(env: Any, seen: np.ndarray | None) -> tuple[Any, BabyAIBot]:
        shadow = copy.deepcopy(env)
        bot = BabyAIBot(shadow)
        if seen is not None:
            bot.vis_mask |= seen
        return shadow, bot


def _describe_obj(datum: Any) -> str:
    if isinstance(datum, ObjDesc):
        words = [w for w in (datum.color, datum.type or "object") if w]
        text = "the " + " ".join(words)
        if datum.loc:
            text += (
                " in front"
                if datum.loc == "front"
                else (" behind" if datum.loc == "behind" else f" on the {datum.loc}")
            )
        return text
    if hasattr(datum, "type") and hasattr(datum, "color"):
        return f"the {datum.color} {datum.type}"
    x, y = (int(v) for v in datum)
    return f"cell ({x}, {y})"


def describe_intent(bot: BabyAIBot) -> str:
    """The bot's current subgoal in words, naming what it is ultimately after when exploring."""
    if not bot.stack:
        return "mission accomplished"
    top = bot.stack[-1]
    target = next(
        (s.datum for s in reversed(bot.stack) if isinstance(s, GoNextToSubgoal) and s.reason != "Explore"),
        None,
    )
    kind = type(top).__name__
    if kind == "GoNextToSubgoal":
        if top.reason == "Explore":
            goal = f" to find {_describe_obj(target)}" if target is not None else ""
            return f"explore{goal}, heading to {_describe_obj(top.datum)}"
        prefix = "go next to a free cell beside" if top.reason == "PutNext" else "go to"
        return f"{prefix} {_describe_obj(top.datum)}"
    if kind == "ExploreSubgoal":
        return "explore unseen cells"
    words = {
        "PickupSubgoal": "pick up the object in front of me",
        "DropSubgoal": "drop what I am carrying",
        "OpenSubgoal": "open the door in front of me",
        "CloseSubgoal": "close the door in front of me",
    }
    return words.get(kind, kind)
