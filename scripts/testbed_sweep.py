"""Compare two whole-Testbed sweeps of the reference agent and check the solvability page covers them.

Why: `docs/arena-solvability.md` classifies every Testbed task the reference agent fails. That page
is written from two `agentkit run --env aai-arena --suite aai-testbed --episodes 3 --seed 0 --json`
outputs (before and after a change); this script makes the figures it quotes (pass counts per level
and seed, the tasks gained and lost), lists the failed tasks grouped by family (LL-TT, the variants of
one task) with the end reasons, rewards and the children's and Olympics pass counts that the
classification starts from, and checks that the page names every failed task.

Usage:
    python scripts/testbed_sweep.py table BEFORE.json AFTER.json      # per level and seed, gained/lost
    python scripts/testbed_sweep.py failed AFTER.json                  # failed tasks by family
    python scripts/testbed_sweep.py check AFTER.json docs/arena-solvability.md
    python scripts/testbed_sweep.py clock AFTER.json                   # level 9 against v3.1.3's clock

`check` reads the page's section "The whole Testbed (900 tasks)" and accepts a task written out
(`03-20-02`), as a range of variants (`03-20-01..03`) or as a list of variants (`03-24-02/03`).
It exits with status 1 and names the missing tasks when any failed task is not there.

`clock` tests the failed level-9 episodes against Animal-AI v3.1.3's clock. There an episode of
multi goals ends only when health runs out, 5t/3 steps after the last goal that refilled it, so
the final reward is G - 1 - 0.6 s/t for goals worth G of which the last is taken at step s. A pass
needs s <= (G - 1 - pass mark) t / 0.6. For each seed's layout (`build_layout`, as the arena builds
it) it finds, for every set of goals, the earliest step any agent could take them all: the shortest
straight path from the start that comes within reach of each (in the best order, Held-Karp) at the
fastest a run from rest can go (`motion.flat_ground_run`; walls and turns ignored, so this is a
lower bound). Walls are not modelled, so sets of goals worth more than the pass mark + 1.1 (the
level's design: the best reachable choice, minus 1, minus 0.1) are taken to be out of reach. "none" means no set of goals meets its deadline
even so: the task cannot be passed in v3.1.3 with that layout. Moving goals (bounce goals) and
goals that end the episode make the bound invalid and are reported as such.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections import defaultdict
from pathlib import Path

from agentkit.envs.animalai_common.config_loader import load_arena_config
from agentkit.envs.animalai_common.layout import build_layout
from agentkit.envs.animalai_common.motion import flat_ground_run
from agentkit.reports.baselines import shipped_baselines

log = logging.getLogger("testbed_sweep")

SECTION = "## The whole Testbed (900 tasks)"
# 03-20-01, 03-20-01..03, 03-24-02/03 (and 03-24-01/02/03)
_MENTION = re.compile(r"\b(\d{2})-(\d{2})-(\d{2})((?:\.\.\d{2})|(?:/\d{2})+)?\b")


def read_sweep(path: str) -> dict[str, dict[int, dict]]:
    """task -> seed -> episode record of one `agentkit run ... --json` output."""
    data = json.loads(Path(path).read_text())
    episodes: dict[str, dict[int, dict]] = defaultdict(dict)
    for episode in data["episodes"]:
        episodes[episode["task"]][int(episode["seed"])] = episode
    return dict(episodes)


def seeds_of(sweep: dict[str, dict[int, dict]]) -> list[int]:
    return sorted({seed for per_seed in sweep.values() for seed in per_seed})


def failed_tasks(sweep: dict[str, dict[int, dict]]) -> dict[str, list[int]]:
    """task -> the seeds at which it was not passed (tasks passed at every seed left out)."""
    failed = {
        task: [s for s, e in sorted(per_seed.items()) if not e.get("pass")]
        for task, per_seed in sweep.items()
    }
    return {task: seeds for task, seeds in sorted(failed.items()) if seeds}


def table(before_path: str, after_path: str) -> None:
    before, after = read_sweep(before_path), read_sweep(after_path)
    seeds = seeds_of(after)
    print("| level | " + " | ".join(f"before s{s} | after s{s}" for s in seeds) + " |")
    print("|---|" + "---|---|" * len(seeds))
    totals = defaultdict(int)
    for level in range(1, 11):
        cells = []
        for seed in seeds:
            for name, sweep in (("before", before), ("after", after)):
                passed = sum(
                    1
                    for task, per_seed in sweep.items()
                    if int(task[:2]) == level and per_seed.get(seed, {}).get("pass")
                )
                totals[(name, seed)] += passed
                cells.append(str(passed))
        print(f"| {level} | " + " | ".join(cells) + " |")
    print(
        "| all 900 | " + " | ".join(f"{totals[('before', s)]} | {totals[('after', s)]}" for s in seeds) + " |"
    )
    for seed in seeds:
        gained = sorted(
            t
            for t in after
            if after[t].get(seed, {}).get("pass") and not before.get(t, {}).get(seed, {}).get("pass")
        )
        lost = sorted(
            t
            for t in after
            if not after[t].get(seed, {}).get("pass") and before.get(t, {}).get(seed, {}).get("pass")
        )
        print(f"\nseed {seed}: gained {len(gained)}: {' '.join(gained)}")
        print(f"seed {seed}: lost {len(lost)}: {' '.join(lost)}")


def failed(after_path: str) -> None:
    after = read_sweep(after_path)
    baselines = shipped_baselines()
    top10 = [e.name for e in baselines.top_entrants()]
    olympics_top = baselines.olympics_by_task(top10)
    olympics_all = baselines.olympics_by_task(baselines.olympics)
    children = baselines.children_by_task()
    families: dict[str, list[str]] = defaultdict(list)
    for task in failed_tasks(after):
        families[task[:5]].append(task)
    for family, tasks in families.items():
        print(f"{family}")
        for task in tasks:
            child = children.get(task)
            child_text = f" children {child.passed}/{child.n}" if child else ""
            episodes = " ".join(
                f"s{s}:{'P' if e.get('pass') else 'F'} {e['reward']:.2f} {e['end_reason']} {e['scripts']}sc"
                for s, e in sorted(after[task].items())
            )
            print(
                f"  {task} mark {baselines.pass_marks[task]:g} olympics top10 {olympics_top[task].passed}"
                f" all {olympics_all[task].passed}/{olympics_all[task].n}{child_text} | {episodes}"
            )


TESTBED = Path(__file__).resolve().parent.parent / "envs" / "arena" / "data" / "testbed"
RUN_STEPS = 120
AGENT_RADIUS = 0.5
# Level 9's pass marks are the goals of the best choice the layout allows, minus 1, minus 0.1
# (09-03-01: 6 x 1.998 - 1.1 = 10.9): sets worth more are taken to be out of reach (across a wall
# the agent cannot climb back over), since walls are not modelled here.
DESIGN_MARGIN = 1.1
MAX_EXACT_GOALS = 13  # 2^13 x 13 x 13 steps of Held-Karp


def steps_to_cover(length: float, _runs: list[float] = []) -> int:  # noqa: B006  (a cache on purpose)
    """The fewest steps in which the agent, starting at rest, can cover ``length`` units: driving
    forward all the time on flat ground (``motion.flat_ground_run``) is the fastest any path can go."""
    if not _runs:
        _runs.extend(flat_ground_run(n).driven for n in range(RUN_STEPS + 1))
    for steps, covered in enumerate(_runs):
        if covered >= length:
            return steps
    return RUN_STEPS + 1


def clock_bound(task: str, seed: int) -> str:
    """Whether any agent could meet the v3.1.3 clock's deadline in this layout (see the module doc)."""
    config = load_arena_config(TESTBED / f"{task}.yaml")
    arena = config.arenas[config.arena_order[0]]
    layout = build_layout(arena, seed)
    names = {item.name for item in layout.items}
    if any("Bounce" in n and "GoodGoal" in n for n in names):
        return "moving goals, no bound"
    if "GoodGoal" in names:
        return "a goal that ends the episode, no bound"
    ax, _, az = layout.agent.position
    goals = [(g.position[0], g.position[2], g.size[0]) for g in layout.items if g.name == "GoodGoalMulti"]
    if len(goals) > MAX_EXACT_GOALS:
        return f"{len(goals)} goals, too many for the exact bound"
    mark = arena.pass_mark or 0.0
    # Held-Karp over the goals: the shortest straight path from the start that comes within reach
    # (the agent's radius plus the goal's) of each goal of a set, in the best order.
    n = len(goals)
    reach = [AGENT_RADIUS + size / 2 for _, _, size in goals]

    def gap(a: tuple[float, float], b: tuple[float, float], cut: float) -> float:
        return max(0.0, ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 - cut)

    inf = float("inf")
    best = [[inf] * n for _ in range(1 << n)]
    for i, (x, z, _) in enumerate(goals):
        best[1 << i][i] = gap((ax, az), (x, z), reach[i])
    verdict_steps: list[tuple[float, float, float]] = []  # (earliest, deadline, worth)
    for mask in range(1, 1 << n):
        row = best[mask]
        for last in range(n):
            here = row[last]
            if here == inf:
                continue
            for nxt in range(n):
                if mask & (1 << nxt):
                    continue
                length = here + gap(goals[last][:2], goals[nxt][:2], reach[last] + reach[nxt])
                if length < best[mask | (1 << nxt)][nxt]:
                    best[mask | (1 << nxt)][nxt] = length
        worth = sum(goals[i][2] for i in range(n) if mask & (1 << i))
        deadline = (worth - 1 - mark) * arena.t / 0.6
        if 0 <= deadline and worth <= mark + DESIGN_MARGIN + 0.01:
            verdict_steps.append((steps_to_cover(min(row)), deadline, worth))
    possible = [v for v in verdict_steps if v[0] <= v[1]]
    if possible:
        earliest, deadline, worth = max(possible, key=lambda v: v[1] - v[0])
        return f"possible at best: goals worth {worth:.2f} by step {deadline:.0f}, at the soonest at step {earliest:.0f}"
    if not verdict_steps:
        return "none: all the goals are not worth the pass mark + 1"
    earliest, deadline, worth = min(verdict_steps, key=lambda v: v[0] - v[1])
    return f"none: e.g. goals worth {worth:.2f} needed by step {deadline:.0f}, at the soonest at step {earliest:.0f}"


def clock(after_path: str) -> None:
    after = read_sweep(after_path)
    for task, seeds in failed_tasks(after).items():
        if not task.startswith("09-"):
            continue
        for seed in seeds:
            print(f"{task} s{seed} reward {after[task][seed]['reward']:.2f}: {clock_bound(task, seed)}")


def mentioned(text: str) -> set[str]:
    """Every task id the text names, with ranges and lists of variants expanded."""
    found: set[str] = set()
    for level, task, variant, tail in _MENTION.findall(text):
        first = int(variant)
        variants = [first]
        if tail.startswith(".."):
            variants = list(range(first, int(tail[2:]) + 1))
        elif tail:
            variants += [int(v) for v in tail.strip("/").split("/")]
        found.update(f"{level}-{task}-{v:02d}" for v in variants)
    return found


def check(after_path: str, doc_path: str) -> int:
    text = Path(doc_path).read_text()
    start = text.find(SECTION)
    if start < 0:
        print(f"{doc_path}: no section {SECTION!r}")
        return 1
    end = text.find("\n## ", start + len(SECTION))
    named = mentioned(text[start : end if end >= 0 else len(text)])
    missing = [task for task in failed_tasks(read_sweep(after_path)) if task not in named]
    if missing:
        print(f"{len(missing)} failed task(s) not named in {SECTION!r}: {' '.join(missing)}")
        return 1
    print(f"every failed task of {after_path} is named in {doc_path}")
    return 0


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if len(argv) == 3 and argv[0] == "table":
        table(argv[1], argv[2])
        return 0
    if len(argv) == 2 and argv[0] == "failed":
        failed(argv[1])
        return 0
    if len(argv) == 2 and argv[0] == "clock":
        clock(argv[1])
        return 0
    if len(argv) == 3 and argv[0] == "check":
        return check(argv[1], argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
