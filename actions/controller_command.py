"""The one command of a built-in controller's turn: ``run_controller(name, seconds)``, kept apart.

Why: some worlds ship closed-loop controllers of their own (CausalWorld's trained RL actors act
every 12 ms on fresh observations), which cannot be written as a model's script of API calls. A
controller participant plays each turn by naming the controller and how long it runs; the backend
runs it at the controller's own rate for that span. The command lives in its own
``CONTROLLER_VOCABULARY``, in no backend's ``vocabulary``: a model's answer is parsed against the
backend's vocabulary, so no model text can start a controller, and no prompt lists it.
"""

from __future__ import annotations

from agentkit.actions.script import Command, Script
from agentkit.actions.vocabulary import CommandSpec, ParamSpec, ParamType, Vocabulary

__all__ = ["CONTROLLER_VOCABULARY", "MAX_SPAN_S", "RUN_CONTROLLER", "controller_script"]

MAX_SPAN_S = 60.0  # longer than any CausalWorld episode (20 s); one turn never needs more

RUN_CONTROLLER = CommandSpec(
    "run_controller",
    (
        ParamSpec("name", ParamType.STR, "the backend's controller, e.g. causalworld:pushing_ppo_curr1"),
        ParamSpec(
            "seconds",
            ParamType.FLOAT,
            "simulated seconds it acts for (closed loop, at its own rate)",
            minimum=0.001,
            maximum=MAX_SPAN_S,
            decimals=3,
        ),
    ),
    "Let the named built-in controller act on its own observations for `seconds` of simulated time.",
)
CONTROLLER_VOCABULARY = Vocabulary(commands=(RUN_CONTROLLER,), case_sensitive=True)


def controller_script(name: str, seconds: float) -> Script:
    """The script of one controller turn."""
    return Script((Command(RUN_CONTROLLER.name, (name, round(float(seconds), 3))),))
