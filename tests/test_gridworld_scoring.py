"""ONS scoring on the real gridworld: oracle and random baselines on the same seeds, cached;
the reference agent played through the loop scores 1, the random policy 0."""

from __future__ import annotations

import json

import pytest

from agentkit.config import ObserverSettings, RunConfig
from agentkit.envs.gridworld import GridworldBackend
from agentkit.envs.gridworld.catalogue import CATALOGUE
from agentkit.envs.gridworld.seeds import episode_seeds
from agentkit.evals.gridworld.baselines import BaselineCache, random_episode
from agentkit.evals.gridworld.leaderboard import (
    gridworld_eval_plan,
    gridworld_leaderboard,
    write_category_figure,
)
from agentkit.evals.ons import PairScores, aggregate, ons
from agentkit.loop import run_episode
from agentkit.runs.setup_episode import make_setup

SMALL = dict(
    tasks=["door-key", "goto-local", "lava-gap", "key-corridor"],
    difficulties=["easy", "medium"],
    seeds_per_pair=2,
)


@pytest.fixture(scope="module")
def plan():
    return gridworld_eval_plan(**SMALL)


@pytest.fixture(scope="module")
def cache_file(tmp_path_factory):
    return tmp_path_factory.mktemp("baselines") / "gridworld_baselines.json"


@pytest.fixture(scope="module")
def reference_results(plan):
    config = RunConfig(
        env="gridworld",
        tasks=["unused"],
        include_images=False,
        memory="markovian",
        observer=ObserverSettings(views=["ascii"]),
        backend_options={"frame": "none"},
    )
    setup = make_setup(config)
    results = [run_episode(setup, task, seed) for task, seed in plan]
    setup.backend.close()
    return results


def test_eval_plan_uses_catalogue_names_and_hashed_seeds(plan):
    assert len(plan) == 4 * 2 * 2
    assert ("gridworld/door-key-medium", episode_seeds("door-key", "medium", "eval", 2)[1]) in plan
    assert len(gridworld_eval_plan(seeds_per_pair=1)) == len(CATALOGUE)
    assert gridworld_eval_plan(tasks=["gridworld/lava-gap-hard"], seeds_per_pair=3, split="train") == [
        ("gridworld/lava-gap-hard", s) for s in episode_seeds("lava-gap", "hard", "train", 3)
    ]
    assert {t for t, _ in gridworld_eval_plan(categories=["safety"], difficulties=["expert"])} == {
        "gridworld/lava-crossing-expert"
    }
    with pytest.raises(ValueError, match="not in the gridworld catalogue"):
        gridworld_eval_plan(tasks=["teleport"])
    with pytest.raises(ValueError, match="selects no catalogue task"):
        gridworld_eval_plan(tasks=["lava-gap"], difficulties=["expert"])


def test_reference_agent_through_the_loop_scores_one(reference_results, cache_file, tmp_path):
    board = gridworld_leaderboard(reference_results, "reference", "markovian", "ascii", cache_path=cache_file)
    assert board["overall_ons"] == pytest.approx(1.0) and board["overall_ci"] == pytest.approx([1.0, 1.0])
    assert set(board["categories"]) == {"planning", "instruction-following", "safety", "memory"}
    assert all(row["ons"] == pytest.approx(1.0) for row in board["tasks"].values())
    assert all(row["oracle"] > row["random"] for row in board["tasks"].values())
    row = board["tasks"]["gridworld/door-key-easy"]
    assert row["family"] == "door-key" and row["difficulty"] == "easy" and row["episodes"] == 2
    assert {"model", "harness", "modality", "overall_ons", "overall_ci", "categories", "tasks"} <= set(board)
    json.dumps(board)
    png = write_category_figure(board, tmp_path / "fig" / "ons.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_random_policy_scores_zero_and_the_cache_is_reused(plan, cache_file):
    backend = GridworldBackend(frame="none")
    results = []
    for task, seed in plan:
        outcome = random_episode(backend, task, seed)
        results.append({"task": task, "seed": seed, "success": outcome.success, "reward": outcome.reward})
    backend.close()
    board = gridworld_leaderboard(results, "random", "none", "none", cache_path=cache_file)
    assert board["overall_ons"] == pytest.approx(0.0, abs=1e-12)
    cache = BaselineCache(cache_file)
    cache.fill(plan)
    assert cache.measured == 0  # every baseline came from the file
    keys = json.loads(cache_file.read_text())
    assert len(keys) == 2 * len(plan) and all("minigrid==" in k for k in keys)


def test_half_oracle_half_random_lands_in_between(reference_results, cache_file):
    mixed = [
        {
            "task": r.task,
            "seed": r.seed,
            "success": r.success and i % 2 == 0,
            "reward": r.reward if i % 2 == 0 else 0.0,
        }
        for i, r in enumerate(reference_results)
    ]
    board = gridworld_leaderboard(mixed, "half", "markovian", "ascii", cache_path=cache_file)
    low, high = board["overall_ci"]
    assert 0.0 < board["overall_ons"] < 1.0 and low < board["overall_ons"] < high
    success = gridworld_leaderboard(
        mixed, "half", "markovian", "ascii", metric="success", cache_path=cache_file
    )
    assert success["metric"] == "success" and 0.0 < success["overall_ons"] < 1.0


def test_ons_arithmetic_and_undefined_pairs():
    assert ons(0.5, 1.0, 0.0) == 0.5 and ons(0.1, 0.6, 0.1) == 0.0 and ons(1.0, 0.2, 0.2) is None
    pairs = [
        PairScores("a", "x", (1, 2), agent=(1.0, 0.0), oracle=(1.0, 1.0), random=(0.0, 0.0)),
        PairScores("b", "x", (1, 2), agent=(1.0, 1.0), oracle=(1.0, 1.0), random=(0.0, 0.0)),
        PairScores(
            "c", "y", (1,), agent=(0.3,), oracle=(0.5,), random=(0.5,)
        ),  # oracle no better than chance
        PairScores("d", "z", (1, 2), agent=(0.5, 0.5), oracle=(1.0, 1.0), random=(0.0, 0.0)),
    ]
    board = aggregate(pairs, n_boot=500)
    assert board["tasks"]["a"]["ons"] == 0.5 and board["categories"]["x"]["ons"] == 0.75
    assert board["tasks"]["c"]["ons"] is None and board["categories"]["y"]["ons"] is None
    assert board["categories"]["y"]["undefined_tasks"] == ["c"]
    assert board["overall_ons"] == pytest.approx((0.75 + 0.5) / 2)  # mean over categories with a score
    assert board["categories"]["z"]["ci"] == [0.5, 0.5]
    assert aggregate(pairs, n_boot=500) == board  # the bootstrap is seeded
    with pytest.raises(ValueError, match="one score per seed"):
        PairScores("e", "x", (1, 2), agent=(1.0,), oracle=(1.0, 1.0), random=(0.0, 0.0))


def test_results_outside_the_catalogue_are_rejected(cache_file):
    with pytest.raises(ValueError, match="not in the gridworld catalogue"):
        gridworld_leaderboard(
            [{"task": "BabyAI-GoToLocal-v0", "seed": 1, "success": True, "reward": 1.0}],
            "m",
            "h",
            "ascii",
            cache_path=cache_file,
        )
    with pytest.raises(ValueError, match="lacks 'reward'"):
        gridworld_leaderboard(
            [{"task": "gridworld/door-key-easy", "seed": 1, "success": True}],
            "m",
            "h",
            "ascii",
            cache_path=cache_file,
        )
