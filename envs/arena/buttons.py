"""The Pillar-Button (v4.1.0: SpawnerButton): pressing it spawns a reward, per its probabilities and limits.

Why a module of its own: the AAI3 paper's button tasks turn on when a press pays off and with what,
which ``Spawner_InteractiveButton.cs`` (v3.1.3) decides. This is that logic as a state machine over
physics updates; ``item_runtime.py`` tells it when the agent enters the button's trigger and builds
the rewards it spawns. The draws (which reward, whether it spawns, where) come from the episode's
random generator: Animal-AI uses Unity's global one, whose sequence depends on everything else in
the scene, so no program outside Unity can reproduce its exact draws; the distributions are the same.

* A press is the agent ENTERING the trigger in front of the button (``OnTriggerEnter``) while the
  button is not moving; staying inside does not press again. A press moves the button in over
  ``moveDurations`` seconds (file; default 1.0), back out over ``resetDurations`` (default 1.0), and
  only then spawns the reward; presses during the movement are ignored.
* The reward is drawn from ``rewardNames`` with ``rewardWeights`` (``ChooseReward``: a uniform draw in
  [0, total weight) against the running sum). Nothing spawns when the names are missing, a name is
  not one of the goals Animal-AI can load by name (``items.BUTTON_REWARDS``), the weights do not
  match the names one to one, the reward's ``maxRewardCounts`` entry (-1: no limit) is reached, or a
  uniform draw exceeds ``spawnProbability``.
* Where: at ``rewardSpawnPos`` when it is not (0, 0, 0), else at a uniform point of the arena floor;
  then an x or z of -1 is drawn uniformly in 0..40 and a y of -1 in 0..100, else y is the given y.
  The goal is the prefab as it is (diameter 1, reward +1 / -1, not sized), placed by its centre.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field

from agentkit.envs.animalai_common.config import ItemParams
from agentkit.envs.animalai_common.items import BUTTON_REWARDS, Vec

logger = logging.getLogger(__name__)

DEFAULT_MOVE = 1.0  # ArenaBuilders.InstantiateSpawnable: moveDuration default (seconds, Time.time)
DEFAULT_RESET = 1.0  # ArenaBuilders.InstantiateSpawnable: resetDuration default
ARENA_WIDTH = 40.0  # ArenaBuilder.GetArenaWidth / GetArenaDepth: the spawnArena's scale
RANDOM_HEIGHT = 100.0  # Spawner_InteractiveButton.SpawnReward: Random.Range(0, 100) for y = -1
_FLOAT_EPSILON = 1.401298464324817e-45  # C#'s float.Epsilon in ChooseReward's Random.Range(0, total - eps)


@dataclass(frozen=True)
class ButtonSpawn:
    """A reward the button spawned: the goal's name and the centre it appears at (arena coordinates)."""

    name: str
    position: Vec
    press: int  # which press spawned it (1 = the first)


@dataclass
class SpawnerButton:
    """One Pillar-Button's presses, movement and spawns."""

    params: ItemParams
    version: str = "3.1.3"
    move_duration: float = DEFAULT_MOVE
    reset_duration: float = DEFAULT_RESET
    presses: int = 0  # ButtonPressCount
    spawned: dict[str, int] = field(default_factory=dict)  # RewardSpawnCounts, by name
    _moving_for: float | None = None  # seconds into the current press, None when at rest
    _inside: bool = False

    def __post_init__(self) -> None:
        if self.params.move_duration is not None:
            self.move_duration = self.params.move_duration
        if self.params.reset_duration is not None:
            self.reset_duration = self.params.reset_duration

    @property
    def moving(self) -> bool:
        return self._moving_for is not None

    @property
    def travel(self) -> float:
        """How far in the button is, 0 (out) .. 1 (fully in): for drawing it."""
        if self._moving_for is None:
            return 0.0
        t = self._moving_for
        if t < self.move_duration:
            return t / self.move_duration if self.move_duration > 0 else 1.0
        t -= self.move_duration
        return max(0.0, 1.0 - t / self.reset_duration) if self.reset_duration > 0 else 0.0

    def update(self, dt: float, agent_inside: bool, rng: random.Random) -> ButtonSpawn | None:
        """One physics update of ``dt`` seconds; ``agent_inside``: the agent overlaps the trigger now."""
        entered = agent_inside and not self._inside
        self._inside = agent_inside
        if self._moving_for is None:
            if entered:  # OnTriggerEnter while not moving: ButtonPressCount++, MoveAndReset
                self.presses += 1
                self._moving_for = 0.0
            return None
        self._moving_for += dt
        if self._moving_for + 1e-9 < self.move_duration + self.reset_duration:
            return None
        self._moving_for = None
        return self._spawn(rng)

    def _choose(self, rng: random.Random) -> str | None:
        names, weights = self.params.reward_names, self.params.reward_weights
        if not names or len(weights) != len(names):
            logger.debug("button: invalid rewards or reward weights setup (%s, %s)", names, weights)
            return None
        total = sum(weights)
        draw = rng.uniform(0.0, max(total - _FLOAT_EPSILON, 0.0))
        running = 0.0
        for name, weight in zip(names, weights):
            running += weight
            if draw <= running:
                return name
        return names[-1]

    def _spawn(self, rng: random.Random) -> ButtonSpawn | None:
        name = self._choose(rng)
        if name is None:
            return None
        if name not in BUTTON_REWARDS.get(self.version, ()):
            logger.debug(
                "button: %r is not a reward Animal-AI %s can load; nothing spawns", name, self.version
            )
            return None
        index = self.params.reward_names.index(name)
        limits = self.params.max_reward_counts
        if index < len(limits) and limits[index] != -1 and self.spawned.get(name, 0) >= limits[index]:
            return None
        if rng.random() > self.params.spawn_probability:
            return None
        x, y, z = self.params.reward_spawn_pos.as_tuple()
        if (x, y, z) == (0.0, 0.0, 0.0):
            px, pz = rng.uniform(0.0, ARENA_WIDTH), rng.uniform(0.0, ARENA_WIDTH)
        else:
            px, pz = x, z
        if x == -1:
            px = rng.uniform(0.0, ARENA_WIDTH)
        py = rng.uniform(0.0, RANDOM_HEIGHT) if y == -1 else y
        if z == -1:
            pz = rng.uniform(0.0, ARENA_WIDTH)
        self.spawned[name] = self.spawned.get(name, 0) + 1
        return ButtonSpawn(name, (px, py, pz), self.presses)
