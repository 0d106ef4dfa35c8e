"""The box-pile scene: the agent driving at full speed into a pile of cardboard boxes near the fence.

Why: where a real Animal-AI v3.1.3 run and this arena part is where the agent meets movable bodies at
speed (issue 27: in Unity the agent ended stopped against the boxes near the fence, here it pushed on).
This script builds one such scene, drives into it the way a model's script does (``Go(n)`` and then
standing still), and prints where the agent stops and where each box ends, so that a change to bodies
and contacts can be measured before and after. No Unity binary runs here: the figures are ours, and
``docs/arena-fidelity.md`` sets them beside what the source says should happen.

The scene: four Cardbox2 (mass 2, ``LowFriction`` 0.25) of size 1 in a 2 x 2 block on the floor, and
two more turned 45 degrees stacked on top of it, the block's far face 6 units from the fence; the agent
20 units before it, facing it.

Usage: python bench/box_pile.py [--go N] [--wait N] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import tempfile
from pathlib import Path

from agentkit.actions import Command
from agentkit.envs.arena.backend import ArenaBackend

FENCE_Z = 40.0
PILE = [  # (x, y, z, rotation): the Testbed's way of placing items (base centre; y + 0.01 on spawn)
    (19.5, 0.0, 32.5, 0),
    (20.5, 0.0, 32.5, 0),
    (19.5, 0.0, 33.5, 0),
    (20.5, 0.0, 33.5, 0),
    (20.0, 1.0, 33.0, 45),
    (20.0, 2.0, 33.0, 45),
]
AGENT_Z = 12.0


def scene_yaml() -> str:
    items = [
        "    - !Item\n      name: Agent\n"
        f"      positions: [!Vector3 {{x: 20, y: 0, z: {AGENT_Z}}}]\n      rotations: [0]\n"
    ]
    for x, y, z, r in PILE:
        items.append(
            "    - !Item\n      name: Cardbox2\n"
            f"      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n      rotations: [{r}]\n"
            "      sizes: [!Vector3 {x: 1, y: 1, z: 1}]\n"
        )
    return "!ArenaConfig\narenas:\n  0: !Arena\n    t: 0\n    items:\n" + "".join(items)


def run(go: int, wait: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "box_pile.yaml"
        path.write_text(scene_yaml())
        backend = ArenaBackend(frames=False)
        try:
            backend.reset(str(path), seed=0)
            top_speed = 0.0
            for action in backend.compile(Command("Go", (go,))):
                backend.step(action)
                top_speed = max(top_speed, math.hypot(*backend.observe().privileged["agent"]["velocity"]))
            for _ in range(wait):
                backend.step([0, 0])
            state = backend.observe().privileged
        finally:
            backend.close()
    agent = state["agent"]["position"]
    boxes = [i["position"] for i in state["items"] if i["name"] == "Cardbox2"]
    return {
        "go": go,
        "top_speed": round(top_speed, 2),
        "agent_z": round(agent[2], 2),
        "agent_gap_to_fence": round(FENCE_Z - agent[2] - 0.5, 2),
        "boxes_z": sorted(round(b[2], 2) for b in boxes),
        "boxes_x": sorted(round(b[0], 2) for b in boxes),
        "boxes_y": sorted(round(b[1], 2) for b in boxes),
        "boxes_at_fence": sum(1 for b in boxes if b[2] > FENCE_Z - 1.5),
        "agent_travel_after_contact": round(agent[2] - (min(z for _, _, z, _ in PILE) - 1.0), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--go", type=int, default=30, help="the Go(n) driven into the pile")
    parser.add_argument("--wait", type=int, default=40, help="idle steps afterwards")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    result = run(args.go, args.wait)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"Go({result['go']}) into the pile, then {args.wait} idle steps (top speed {result['top_speed']} units/s)"
    )
    print(
        f"  agent stops at z = {result['agent_z']} ({result['agent_gap_to_fence']} units from the fence), "
        f"{result['agent_travel_after_contact']} units past the pile's near face"
    )
    print(f"  boxes z: {result['boxes_z']}  ({result['boxes_at_fence']} of 6 against the fence)")
    print(f"  boxes x: {result['boxes_x']}")
    print(f"  boxes y: {result['boxes_y']}")


if __name__ == "__main__":
    main()
