"""The gridworld catalogue (families x difficulties) and its hashed seeds, on the real MiniGrid."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium
import pytest

from agentkit.envs.gridworld import GridworldBackend
from agentkit.envs.gridworld.catalogue import (
    CATALOGUE,
    CATEGORIES,
    DIFFICULTIES,
    catalogue_entry,
    select,
    task_id,
)
from agentkit.envs.gridworld.seeds import base_seed, episode_seeds, splits_overlap


def test_catalogue_spans_every_category_and_difficulty():
    assert {t.category for t in CATALOGUE} == set(CATEGORIES)
    assert {t.difficulty for t in CATALOGUE} == set(DIFFICULTIES)
    for category in CATEGORIES:  # every capability is tested at several difficulties
        assert len({t.difficulty for t in CATALOGUE if t.category == category}) >= 3, category


def test_every_entry_is_registered_described_and_listed_by_the_backend():
    listed = {t.name: t for t in GridworldBackend.tasks()}
    for t in CATALOGUE:
        assert t.name == task_id(t.family, t.difficulty) and t.name in gymnasium.registry
        assert t.env_id in t.description and t.difficulty in t.description and "\n" not in t.description
        assert listed[t.name].category == t.category
    suites = GridworldBackend.suites()
    assert suites["gridworld-all"] == [t.name for t in CATALOGUE]
    assert set(suites["gridworld-memory"]) == {t.name for t in CATALOGUE if t.category == "memory"}


def test_catalogue_names_play_the_level_they_alias():
    b = GridworldBackend(frame="none")
    entry = catalogue_entry("gridworld/door-key-hard")
    ours = b.reset(entry.name, 7).privileged
    raw = b.reset(entry.env_id, 7).privileged
    assert ours == raw and ours["width"] == 8
    b.close()


def test_select_filters_and_rejects_unknown_names():
    easy_nav = select(categories=["navigation"], difficulties=["easy"])
    assert easy_nav and all(t.category == "navigation" and t.difficulty == "easy" for t in easy_nav)
    assert [t.family for t in select(families=["door-key"])] == ["door-key"] * 4
    with pytest.raises(ValueError, match="unknown category 'cooking'"):
        select(categories=["cooking"])
    with pytest.raises(ValueError, match="unknown difficulty"):
        select(difficulties=["insane"])
    with pytest.raises(ValueError, match="not in the gridworld catalogue"):
        catalogue_entry("BabyAI-GoToLocal-v0")


def test_cli_lists_the_catalogue_with_categories(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "agentkit.cli", "tasks", "gridworld", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["gridworld/lava-crossing-expert"]["category"] == "safety"
    assert "MiniGrid-LavaCrossingS11N5-v0" in rows["gridworld/lava-crossing-expert"]["description"]


# -- seeds -----------------------------------------------------------------------------------------


def test_seeds_are_the_documented_hash():
    import hashlib

    digest = hashlib.sha256(b"goto-local::hard::eval").digest()
    assert base_seed("goto-local", "hard", "eval") == int.from_bytes(digest[:4], "big") % 2**31
    seeds = episode_seeds("goto-local", "hard", "eval", 3)
    assert seeds == [seeds[0], seeds[0] + 1, seeds[0] + 2]
    assert episode_seeds("goto-local", "hard", "train", 3) != seeds
    assert episode_seeds("goto-local", "easy", "eval", 3) != seeds
    assert not any(splits_overlap(t.family, t.difficulty, 1000) for t in CATALOGUE)
    with pytest.raises(ValueError, match="split"):
        base_seed("goto-local", "hard", "")


_CHILD = """
import json, sys
from agentkit.envs.gridworld import GridworldBackend
from agentkit.envs.gridworld.seeds import episode_seeds
from agentkit.envs.gridworld.catalogue import catalogue_entry
b = GridworldBackend(frame="none")
out = []
for name in sys.argv[1:]:
    entry = catalogue_entry(name)
    seed = episode_seeds(entry.family, entry.difficulty, "eval", 2)[1]
    raw = b.reset(name, seed)
    for action in (2, 1, 2, 0, 2):
        if b.step(action).done:
            break
    out.append({"seed": seed, "start": raw.privileged, "after": b.observe().privileged})
print(json.dumps(out))
"""


def test_same_seed_gives_the_same_episode_in_two_processes(tmp_path):
    names = ["gridworld/key-corridor-medium", "gridworld/lava-crossing-hard", "gridworld/synth-easy"]
    runs = [
        subprocess.run(
            [sys.executable, "-c", _CHILD, *names],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
            env={"PYTHONHASHSEED": str(k), "PATH": ""},
        ).stdout
        for k in (1, 2)
    ]
    first, second = (json.loads(r) for r in runs)
    assert first == second
    assert len({json.dumps(e["start"]) for e in first}) == 3
