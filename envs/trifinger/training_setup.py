"""CausalWorld's training set-up for the gym env: reward weights, the variable space and the curricula.

Why a module of its own: an RL user reproducing CausalWorld's baselines sets these the way
``scripts/reproduce_experiments.py`` (rr-learning/CausalWorld) does, and the gym env should take
them by the same names rather than hide them in backend options:

* ``dense_reward_weights`` and ``fractional_reward_weight``: each task generator's constructor
  arguments (their defaults are ``dense_reward.REWARD_SPECS``);
* ``variables_space``: ``space_a``, ``space_b`` or ``space_a_b``, the space the intervention actors
  draw from (the baselines train in ``space_a``);
* ``curriculum``: the paper's three: ``none``; ``goal``, a goal actor at the start of every episode
  (``GoalInterventionActorPolicy``, actives ``(0, 1e9, 1, 0)``); ``random``, the random actor on all
  variables at the start of every episode (``RandomInterventionActorPolicy``, the same actives);
* ``settings="reproduce_experiments"``: the baselines' task configs and world parameters for the
  four benchmark tasks (``skip_frame`` 3, structured normalised observations, joint positions).
"""

from __future__ import annotations

from dataclasses import dataclass

from agentkit.envs.trifinger.curriculum import Curriculum
from agentkit.envs.trifinger.dense_reward import REWARD_SPECS, RewardSpec

VARIABLE_SPACES = {"space_a": "A", "space_b": "B", "space_a_b": "A_B"}
CURRICULA = ("none", "goal", "random")
#: scripts/reproduce_experiments.py ``baseline_model``: ``task_configs`` per task (any other task
#: falls back to pushing's there; here it is refused).
BASELINE_WEIGHTS: dict[str, tuple[float, ...]] = {
    "pushing": (750.0, 250.0, 0.0),
    "picking": (250.0, 0.0, 125.0, 0.0, 750.0, 0.0, 0.0, 0.005),
    "pick_and_place": (750.0, 50.0, 250.0, 0.0, 0.005),
    "stacking2": (750.0, 250.0, 250.0, 125.0, 0.005),
}
BASELINE_FRACTIONAL_WEIGHT = 1.0
BASELINE_SKIP_FRAME = 3  # reproduce_experiments.py world_params
SETTINGS = ("reproduce_experiments",)


@dataclass(frozen=True)
class TrainingSetup:
    """What the gym env applies at every reset: the reward spec and the curriculum (None: none)."""

    reward: RewardSpec
    curriculum: Curriculum | None
    variables_space: str


def make_setup(
    family: str,
    dense_reward_weights: tuple[float, ...] | list[float] | None = None,
    fractional_reward_weight: float | None = None,
    variables_space: str = "space_a",
    curriculum: str = "none",
    seed: int = 0,
) -> TrainingSetup:
    """The set-up for ``family``; one clear line for a bad name or a weight list of the wrong length."""
    if variables_space not in VARIABLE_SPACES:
        raise ValueError(
            f"variables_space must be one of {', '.join(VARIABLE_SPACES)}, got {variables_space!r}"
        )
    if curriculum not in CURRICULA:
        raise ValueError(f"curriculum must be one of {', '.join(CURRICULA)}, got {curriculum!r}")
    default = REWARD_SPECS[family]
    weights = (
        default.weights if dense_reward_weights is None else tuple(float(w) for w in dense_reward_weights)
    )
    if len(weights) != len(default.weights):
        raise ValueError(
            f"dense_reward_weights for {family} take {len(default.weights)} numbers "
            f"({family}.py), got {len(weights)}"
        )
    fractional = (
        default.fractional_weight if fractional_reward_weight is None else float(fractional_reward_weight)
    )
    actors = {"none": None, "goal": ["goal"], "random": ["random"]}[curriculum]
    plan = (
        None
        if actors is None
        else Curriculum(
            actors=actors, space=VARIABLE_SPACES[variables_space], episode_periodicity=1, seed=seed
        )
    )
    return TrainingSetup(RewardSpec(weights, fractional), plan, variables_space)


@dataclass(frozen=True)
class BaselineSettings:
    """reproduce_experiments.py's ``task_configs`` and ``world_params`` for one task."""

    dense_reward_weights: tuple[float, ...]
    fractional_reward_weight: float = BASELINE_FRACTIONAL_WEIGHT
    variables_space: str = "space_a"
    skip_frame: int = BASELINE_SKIP_FRAME
    observation_mode: str = "structured"
    normalize_observations: bool = True
    action_mode: str = "joint_positions"


def baseline_settings(family: str) -> BaselineSettings:
    """reproduce_experiments.py's task configs and world parameters for ``family``."""
    if family not in BASELINE_WEIGHTS:
        raise ValueError(
            f"settings='reproduce_experiments' covers {', '.join(BASELINE_WEIGHTS)}, not {family!r}"
        )
    return BaselineSettings(BASELINE_WEIGHTS[family])
