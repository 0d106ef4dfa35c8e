"""The evaluation catalogue: task families grouped by capability, each at up to four difficulties.

A *family* is one kind of problem ("go to a named object among distractors"); its *difficulty*
picks a concrete MiniGrid/BabyAI level (a bigger grid, more distractors, more rooms). Each
(family, difficulty) pair is registered with gymnasium under its own id, e.g.
``gridworld/goto-local-easy``, so the backend's ``reset(task, seed)`` accepts catalogue names exactly
as it accepts raw ids such as ``BabyAI-GoToLocal-v0``, and the name alone says what was played.

Every pair has an oracle (MiniGrid's BabyAI bot for BabyAI levels, the shortest-path planner for
reach-the-goal tasks), which the ONS score needs. Categories say which capability a family mostly
tests; a family belongs to exactly one, so per-category means do not count a family twice.
"""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium
import minigrid  # noqa: F401  (registers the MiniGrid-* and BabyAI-* environments we alias)

from agentkit.envs.base import TaskInfo

DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard", "expert")
CATEGORIES: tuple[str, ...] = (
    "navigation",
    "safety",
    "instruction-following",
    "planning",
    "memory",
    "generalization",
)
NAMESPACE = "gridworld"


@dataclass(frozen=True)
class GridTaskInfo(TaskInfo):
    """A catalogue entry: ``name`` is the registered id; ``env_id`` the MiniGrid level behind it."""

    family: str = ""
    difficulty: str = ""
    env_id: str = ""


@dataclass(frozen=True)
class Family:
    name: str
    category: str
    description: str
    levels: dict[str, str]  # difficulty -> MiniGrid/BabyAI id


FAMILIES: tuple[Family, ...] = (
    Family(
        "goto-object",
        "navigation",
        "Walk to the one object named in the mission.",
        {
            "easy": "BabyAI-GoToObjS4-v0",
            "medium": "BabyAI-GoToObj-v0",
            "hard": "BabyAI-GoToObjMazeS4-v0",
            "expert": "BabyAI-GoToObjMaze-v0",
        },
    ),
    Family(
        "reach-goal",
        "navigation",
        "Reach the green goal square.",
        {
            "easy": "MiniGrid-Empty-5x5-v0",
            "medium": "MiniGrid-Empty-8x8-v0",
            "hard": "MiniGrid-Empty-16x16-v0",
            "expert": "MiniGrid-FourRooms-v0",
        },
    ),
    Family(
        "wall-crossing",
        "navigation",
        "Find the gaps in walls that separate you from the goal.",
        {
            "easy": "MiniGrid-SimpleCrossingS9N1-v0",
            "medium": "MiniGrid-SimpleCrossingS9N2-v0",
            "hard": "MiniGrid-SimpleCrossingS9N3-v0",
            "expert": "MiniGrid-SimpleCrossingS11N5-v0",
        },
    ),
    Family(
        "lava-crossing",
        "safety",
        "Cross rivers of lava through their gaps; touching lava ends the episode.",
        {
            "easy": "MiniGrid-LavaCrossingS9N1-v0",
            "medium": "MiniGrid-LavaCrossingS9N2-v0",
            "hard": "MiniGrid-LavaCrossingS9N3-v0",
            "expert": "MiniGrid-LavaCrossingS11N5-v0",
        },
    ),
    Family(
        "lava-gap",
        "safety",
        "Pass a wall of lava through its single gap to the goal.",
        {"easy": "MiniGrid-LavaGapS5-v0", "medium": "MiniGrid-LavaGapS6-v0", "hard": "MiniGrid-LavaGapS7-v0"},
    ),
    Family(
        "goto-local",
        "instruction-following",
        "Go to the object the mission names, among distractors.",
        {
            "easy": "BabyAI-GoToLocalS5N2-v0",
            "medium": "BabyAI-GoToLocalS6N3-v0",
            "hard": "BabyAI-GoToLocalS7N4-v0",
            "expert": "BabyAI-GoToLocalS8N7-v0",
        },
    ),
    Family(
        "open-door",
        "instruction-following",
        "Open the door the mission names by colour or position.",
        {
            "easy": "BabyAI-OpenRedDoor-v0",
            "medium": "BabyAI-OpenDoorColor-v0",
            "hard": "BabyAI-OpenDoorLoc-v0",
            "expert": "BabyAI-OpenDoorsOrderN4-v0",
        },
    ),
    Family(
        "put-next",
        "instruction-following",
        "Put one named object next to another.",
        {
            "easy": "BabyAI-PutNextLocalS5N3-v0",
            "medium": "BabyAI-PutNextLocalS6N4-v0",
            "hard": "BabyAI-PutNextLocal-v0",
            "expert": "BabyAI-PutNextS7N4-v0",
        },
    ),
    Family(
        "door-key",
        "planning",
        "Fetch the key, unlock the door, then reach the goal.",
        {
            "easy": "MiniGrid-DoorKey-5x5-v0",
            "medium": "MiniGrid-DoorKey-6x6-v0",
            "hard": "MiniGrid-DoorKey-8x8-v0",
            "expert": "MiniGrid-DoorKey-16x16-v0",
        },
    ),
    Family(
        "unlock",
        "planning",
        "Unlock a door with the right key, then fetch what lies behind it.",
        {
            "easy": "BabyAI-UnlockLocal-v0",
            "medium": "BabyAI-Unlock-v0",
            "hard": "BabyAI-UnlockPickup-v0",
            "expert": "BabyAI-BlockedUnlockPickup-v0",
        },
    ),
    Family(
        "multi-room",
        "planning",
        "Open doors through a chain of rooms to the goal.",
        {
            "easy": "MiniGrid-MultiRoom-N2-S4-v0",
            "medium": "MiniGrid-MultiRoom-N4-S5-v0",
            "hard": "MiniGrid-MultiRoom-N6-v0",
        },
    ),
    Family(
        "key-corridor",
        "memory",
        "Explore side rooms for a key, remember the locked door, fetch the ball.",
        {
            "easy": "BabyAI-KeyCorridorS3R1-v0",
            "medium": "BabyAI-KeyCorridorS3R2-v0",
            "hard": "BabyAI-KeyCorridorS3R3-v0",
            "expert": "BabyAI-KeyCorridorS4R3-v0",
        },
    ),
    Family(
        "find-object",
        "memory",
        "Search rooms for an object you are told about but cannot see.",
        {"easy": "BabyAI-FindObjS5-v0", "medium": "BabyAI-FindObjS6-v0", "hard": "BabyAI-FindObjS7-v0"},
    ),
    Family(
        "synth",
        "generalization",
        "Follow freshly composed instructions (go to, pick up, open, put next).",
        {
            "easy": "BabyAI-SynthS5R2-v0",
            "medium": "BabyAI-Synth-v0",
            "hard": "BabyAI-SynthLoc-v0",
            "expert": "BabyAI-MiniBossLevel-v0",
        },
    ),
    Family(
        "dist-shift",
        "generalization",
        "Reach the goal past lava placed where training layouts had none.",
        {"easy": "MiniGrid-DistShift1-v0", "medium": "MiniGrid-DistShift2-v0"},
    ),
)


def task_id(family: str, difficulty: str) -> str:
    """The registered name of one (family, difficulty) pair."""
    return f"{NAMESPACE}/{family}-{difficulty}"


def _build() -> tuple[GridTaskInfo, ...]:
    entries = []
    for fam in FAMILIES:
        if fam.category not in CATEGORIES:
            raise ValueError(f"family {fam.name}: unknown category {fam.category!r}")
        for difficulty in DIFFICULTIES:
            env_id = fam.levels.get(difficulty)
            if env_id is None:
                continue
            entries.append(
                GridTaskInfo(
                    name=task_id(fam.name, difficulty),
                    description=f"{fam.description} [{difficulty}: {env_id}]",
                    category=fam.category,
                    family=fam.name,
                    difficulty=difficulty,
                    env_id=env_id,
                )
            )
    return tuple(entries)


CATALOGUE: tuple[GridTaskInfo, ...] = _build()
_BY_NAME = {t.name: t for t in CATALOGUE}


def register_catalogue() -> None:
    """Alias every catalogue id to its MiniGrid level in gymnasium's registry (idempotent)."""
    for info in CATALOGUE:
        if info.name in gymnasium.registry:
            continue
        spec = gymnasium.spec(info.env_id)
        gymnasium.register(
            id=info.name,
            entry_point=spec.entry_point,
            kwargs=dict(spec.kwargs),
            max_episode_steps=spec.max_episode_steps,
        )


def catalogue_entry(name: str) -> GridTaskInfo:
    """The entry for a catalogue id; a clear error for anything else."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"{name!r} is not in the gridworld catalogue; see `agentkit tasks gridworld`"
        ) from None


def select(
    categories: list[str] | None = None,
    families: list[str] | None = None,
    difficulties: list[str] | None = None,
) -> list[GridTaskInfo]:
    """Catalogue entries filtered by category, family and difficulty (``None`` keeps all)."""
    for value, known, what in (
        (categories, CATEGORIES, "category"),
        (difficulties, DIFFICULTIES, "difficulty"),
    ):
        for v in value or ():
            if v not in known:
                raise ValueError(f"unknown {what} {v!r}; known: {', '.join(known)}")
    names = {f.name for f in FAMILIES}
    for fam in families or ():
        if fam not in names:
            raise ValueError(f"unknown task family {fam!r}; known: {', '.join(sorted(names))}")
    return [
        t
        for t in CATALOGUE
        if (categories is None or t.category in categories)
        and (families is None or t.family in families)
        and (difficulties is None or t.difficulty in difficulties)
    ]


register_catalogue()
