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

`check` reads the page's section "The whole Testbed (900 tasks)" and accepts a task written out
(`03-20-02`), as a range of variants (`03-20-01..03`) or as a list of variants (`03-24-02/03`).
It exits with status 1 and names the missing tasks when any failed task is not there.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections import defaultdict
from pathlib import Path

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
    if len(argv) == 3 and argv[0] == "check":
        return check(argv[1], argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
