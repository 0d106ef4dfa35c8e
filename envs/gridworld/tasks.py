"""The curated MiniGrid and BabyAI tasks offered by the gridworld backend, one line each.

Every task here has been checked to build, reset deterministically and be solved by the reference
agent (BabyAI levels by MiniGrid's BabyAI bot, MiniGrid goal tasks by the BFS planner).
"""

from __future__ import annotations

from agentkit.envs.base import TaskInfo

TASKS: tuple[TaskInfo, ...] = (
    TaskInfo("BabyAI-GoToRedBall-v0", "Go to the red ball in one room with grey distractors.", "babyai"),
    TaskInfo("BabyAI-GoToObj-v0", "Go to the only object in a single room.", "babyai"),
    TaskInfo("BabyAI-GoToLocal-v0", "Go to a named object among distractors in one room.", "babyai"),
    TaskInfo("BabyAI-PickupLoc-v0", "Pick up an object described by colour, kind or location.", "babyai"),
    TaskInfo("BabyAI-PutNextLocal-v0", "Put one object next to another in one room.", "babyai"),
    TaskInfo(
        "BabyAI-OpenDoor-v0", "Open a door named by colour or position in a 3x3 maze of rooms.", "babyai"
    ),
    TaskInfo("BabyAI-UnlockLocal-v0", "Find the key and unlock the locked door of the room.", "babyai"),
    TaskInfo("BabyAI-GoToDoor-v0", "Go to a door of the given colour in one room.", "babyai"),
    TaskInfo("BabyAI-GoTo-v0", "Go to an object anywhere in a 3x3 maze of rooms.", "babyai"),
    TaskInfo("MiniGrid-Empty-8x8-v0", "Reach the goal square in an empty room.", "minigrid"),
    TaskInfo("MiniGrid-DoorKey-6x6-v0", "Pick up the key, unlock the door, reach the goal.", "minigrid"),
    TaskInfo(
        "MiniGrid-DoorKey-8x8-v0", "Pick up the key, unlock the door, reach the goal (larger).", "minigrid"
    ),
    TaskInfo(
        "MiniGrid-LavaCrossingS9N1-v0", "Cross a river of lava through its one gap to the goal.", "minigrid"
    ),
    TaskInfo("MiniGrid-SimpleCrossingS9N1-v0", "Find the gap in a wall and reach the goal.", "minigrid"),
    TaskInfo("MiniGrid-FourRooms-v0", "Reach the goal through the gaps between four rooms.", "minigrid"),
    TaskInfo("MiniGrid-MultiRoom-N2-S4-v0", "Open doors through two small rooms to the goal.", "minigrid"),
)
