"""What CausalWorld's episode-to-episode carry-over does to protocol draws, per carry-over mode.

For seeds 0..N-1 draws (``sampling.draw_protocol``, no physics stepped) and prints, for each mode of
``protocol_carry_over`` (benchmark: the paper's pipeline; protocol: one protocol on a fresh env;
none: independent draws, agentkit's draw before issue 28 item 6):

* pick_and_place P4/P5: the share of draws with block and goal on the same side of the wall, and of
  episodes CausalWorld runs unintervened (its fresh env refuses every goal position as out of bounds);
* pushing and pick_and_place P5, P10, P11: the share of goals floating (bottom more than 1 mm above
  the floor) and sunk (more than 1 mm into it);
* picking P5, P10, P11: the share of goals lower than 8 cm, the bottom of its initial space A.

Usage: python bench/trifinger_protocol_carry_over.py [--seeds 500] [--modes benchmark,protocol,none]
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable

from agentkit.envs.trifinger.protocol_carry_over import CARRY_OVER_MODES
from agentkit.envs.trifinger.sampling import ProtocolDraw, ProtocolDrawError, draw_protocol
from agentkit.envs.trifinger.task_spaces import PICKING_GOAL_Z

logger = logging.getLogger("bench.trifinger_protocol_carry_over")
#: A goal whose bottom is this far above (below) the floor counts as floating (sunk).
FLOOR_TOLERANCE = 0.001


def same_side(draw: ProtocolDraw) -> bool:
    """Whether pick_and_place's block and goal lie on the same side of the wall (y = 0)."""
    return draw.scene.blocks[0].position[1] * draw.scene.goals[0].position[1] > 0


def goal_gap(draw: ProtocolDraw) -> float:
    """Height of the goal's bottom above the floor (negative: into it)."""
    goal = draw.scene.goals[0]
    return goal.position[2] - goal.size[2] / 2


def share(task: str, protocol: str, seeds: range, mode: str, test: Callable[[ProtocolDraw], bool]) -> str:
    hits, drawn = 0, 0
    for seed in seeds:
        try:
            draw = draw_protocol(task, protocol, seed, carry_over=mode)
        except ProtocolDrawError:
            continue
        drawn += 1
        hits += test(draw)
    return f"{hits / drawn:.3f} ({hits}/{drawn})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--modes", default=",".join(CARRY_OVER_MODES))
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    seeds = range(args.seeds)
    low = PICKING_GOAL_Z["A"][0]
    for mode in args.modes.split(","):
        start = time.perf_counter()
        print(f"carry_over={mode}, seeds 0..{args.seeds - 1}")
        for protocol in ("P4", "P5"):
            side = share("pick_and_place", protocol, seeds, mode, same_side)
            refused = share("pick_and_place", protocol, seeds, mode, lambda d: bool(d.refused))
            print(f"  pick_and_place@{protocol} same side: {side}, unintervened {refused}")
        for task in ("pushing", "pick_and_place"):
            for protocol in ("P5", "P10", "P11"):
                floating = share(task, protocol, seeds, mode, lambda d: goal_gap(d) > FLOOR_TOLERANCE)
                sunk = share(task, protocol, seeds, mode, lambda d: goal_gap(d) < -FLOOR_TOLERANCE)
                print(f"  {task}@{protocol} goal floating {floating}, sunk {sunk}")
        for protocol in ("P5", "P10", "P11"):
            below = share(
                "picking", protocol, seeds, mode, lambda d: d.scene.goals[0].position[2] < low - 1e-9
            )
            print(f"  picking@{protocol} goal below {low} m: {below}")
        print(f"  ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
