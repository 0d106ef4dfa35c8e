"""A CausalWorld actor acting closed-loop on the backend's world: what ``run_controller`` runs.

Why here and not in the participant: the actors act every 12 ms (``skip_frame`` 3 x 4 ms, their
``*_policy.py``: "expected to run @83.3 Hz") on fresh observations, which only the backend has.
``--model causalworld:<actor>`` plays each turn with ``run_controller(name, seconds)``
(``agentkit.models.controller_agent``); the backend compiles it to one action
``{"controller": name, "ms": n}`` and, for that span, runs this loop, CausalWorld's own
(``causalworld.py`` ``step``): read the world, build the task's structured observation exactly as
CausalWorld does (``observation_vector``, normalised and not clipped, time left =
episode length - elapsed), ask the network for its deterministic action, scale it from [-1, 1] to
the joint-position bounds (``envs/robot/action.py`` ``denormalize_action``) and hold that set-point
for 3 physics steps (``world.hold_steps``, CausalWorld's joint-position control step).

The controller is no command of the LLM vocabulary (``vocabulary.VOCABULARY``): its command is in
``agentkit.actions.controller_command.CONTROLLER_VOCABULARY`` only. An actor reads the
observation of the task it was trained on; a task whose vector has another size is refused in one
line (an actor of the same size, e.g. pushing's on picking, is allowed: a transfer experiment).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agentkit.envs.trifinger import causalworld_robot as robot
from agentkit.envs.trifinger import observation_vector as ov
from agentkit.envs.trifinger.causalworld_actors import (
    ACTOR_SKIP_FRAME,
    ACTORS,
    ActorNetwork,
    is_actor_file,
    load_actor,
    trained_on,
)
from agentkit.envs.trifinger.state_snapshot import read_state
from agentkit.envs.trifinger.tasks import default_scene
from agentkit.envs.trifinger.world import TIME_STEP_MS, TriFingerWorld

CONTROLLER_PREFIX = "causalworld:"
STEP_MS = ACTOR_SKIP_FRAME * TIME_STEP_MS  # 12 ms


def controller_names() -> tuple[str, ...]:
    """``causalworld:<actor>`` for each shipped actor: what ``--model`` may name on trifinger
    (besides ``causalworld:<path>.zip``, a policy file of the same format: ``is_controller``)."""
    return tuple(CONTROLLER_PREFIX + name for name in ACTORS)


def is_controller(name: str) -> bool:
    """Whether ``name`` is a shipped actor's controller name or ``causalworld:<path>.zip``."""
    return name in controller_names() or (
        name.startswith(CONTROLLER_PREFIX) and is_actor_file(name.removeprefix(CONTROLLER_PREFIX))
    )


def fits(name: str, family: str, number_of_obstacles: int = 0) -> None:
    """ValueError (one line) when actor ``name`` cannot read ``family``'s observation (its default
    scene's objects plus ``number_of_obstacles``): the check before a run, without a simulator."""
    network = load_actor(name.removeprefix(CONTROLLER_PREFIX))
    scene = default_scene(family)
    obstacles = len(scene.obstacles) + number_of_obstacles
    entries = ov.layout(family, len(scene.blocks), len(scene.goals), obstacles, 0.0)
    _check_size(name, network, family, entries)


def _check_size(name: str, network: ActorNetwork, family: str, entries: list[ov.Entry]) -> None:
    size = len(ov.names(entries))
    if size != network.observation_size:
        raise ValueError(
            f"{name} reads {network.observation_size} numbers (trained on {trained_on(network)}), but "
            f"{family}'s observation has {size}"
        )


def joint_targets(action: np.ndarray) -> np.ndarray:
    """action.py ``denormalize_action``: [-1, 1] to the joint-position bounds (radians)."""
    return robot.denormalize_action(action, robot.JOINT_LOW, robot.JOINT_HIGH)


@dataclass(frozen=True)
class ActorController:
    """One actor bound to one task's observation layout (``entries``)."""

    name: str
    network: ActorNetwork
    entries: tuple[ov.Entry, ...]

    @classmethod
    def for_task(cls, name: str, world: TriFingerWorld, family: str, episode_s: float) -> ActorController:
        """The controller ``name`` for the scene in ``world``; ValueError (one line) when the actor
        is unknown or reads an observation of another size than this task's."""
        if not is_controller(name):
            raise ValueError(
                f"no controller {name!r} on trifinger; there are {', '.join(controller_names())}"
                " and causalworld:<path>.zip"
            )
        network = load_actor(name.removeprefix(CONTROLLER_PREFIX))
        scene = world.built_scene()
        entries = ov.layout(
            family, len(world.block_specs), len(world.goal_specs), len(scene.obstacles), episode_s
        )
        _check_size(name, network, family, entries)
        return cls(name, network, tuple(entries))

    def observation(self, world: TriFingerWorld, time_left_s: float) -> np.ndarray:
        """CausalWorld's normalised structured observation of the world now (unclipped)."""
        return ov.vector(list(self.entries), read_state(world), time_left_s, scaled=True, clip=False)

    def run(
        self,
        world: TriFingerWorld,
        ms: int,
        limit_ms: int,
        after_step: Callable[[], None] | None = None,
    ) -> int:
        """Act for ``ms`` milliseconds (whole 12-ms steps, at least one) or until the episode's
        ``limit_ms``; ``after_step`` is called after each step. Returns the steps taken."""
        steps = max(1, round(ms / STEP_MS))
        taken = 0
        while taken < steps and world.steps < limit_ms:
            time_left = max(0.0, limit_ms / 1000.0 - world.elapsed_s)  # base_task.py _calculate_time_left
            action = self.network.act(self.observation(world, time_left))
            world.hold_steps(joint_targets(action), ACTOR_SKIP_FRAME)
            taken += 1
            if after_step is not None:
                after_step()
        return taken
