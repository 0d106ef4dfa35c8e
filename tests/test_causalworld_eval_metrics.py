"""CausalWorld's evaluation metrics per protocol, on hand-made stored episodes (issue 28 item 5).

Each answer is computed by hand: the mean and the population standard deviation (numpy's default,
which CausalWorld's metric classes use) of each per-episode figure over a protocol's episodes.
Also the plan the evaluation makes of a task (its protocols as tasks, N trials from the first
seed, CausalWorld's backend options) and the chart's and table's small pure helpers.
"""

from __future__ import annotations

import pytest

from agentkit.config import RunConfig
from agentkit.evals.trifinger.evaluation import CausalWorldEvaluation, CausalWorldOptions
from agentkit.evals.trifinger.figure import error_bars
from agentkit.evals.trifinger.metrics import protocol_scores
from agentkit.evals.trifinger.table import BAR_WIDTH, text_bar


def _episode(task: str, last: float, full: float, window: float, **extra: object) -> dict[str, object]:
    return {
        "task": task,
        "protocol": task.partition("@")[2],
        "last_fractional_success": last,
        "full_integrated_fractional_success": full,
        "last_integrated_fractional_success": window,
        **extra,
    }


def test_two_episodes_of_a_protocol_give_hand_computed_means_and_population_stds():
    episodes = [_episode("pushing@P0", 0.2, 0.1, 0.5), _episode("pushing@P0", 0.6, 0.3, 0.5)]
    (p0,) = protocol_scores(episodes, ["P0"])
    assert p0.episodes == 2 and p0.left_out == 0
    assert (p0.scores["last_fractional_success"].mean, p0.scores["last_fractional_success"].std) == (
        pytest.approx(0.4),
        pytest.approx(0.2),  # population std: sqrt(((0.2-0.4)^2 + (0.6-0.4)^2) / 2), not / 1
    )
    full = p0.scores["full_integrated_fractional_success"]
    assert (full.mean, full.std) == (pytest.approx(0.2), pytest.approx(0.1))
    window = p0.scores["last_integrated_fractional_success"]
    assert (window.mean, window.std) == (pytest.approx(0.5), pytest.approx(0.0))


def test_three_episodes_std_by_hand():
    episodes = [_episode("picking@P4", v, v, v) for v in (0.0, 0.0, 0.9)]
    (p4,) = protocol_scores(episodes, ["P4"])
    # mean 0.3; deviations -0.3, -0.3, 0.6; squares 0.09, 0.09, 0.36; / 3 = 0.18
    assert p4.scores["last_fractional_success"].mean == pytest.approx(0.3)
    assert p4.scores["last_fractional_success"].std == pytest.approx(0.18**0.5)


def test_unjudged_and_figureless_episodes_are_left_out_and_counted():
    episodes = [
        _episode("pushing@P3", 1.0, 1.0, 1.0),
        _episode("pushing@P3", 0.0, 0.0, 0.0, **{"pass": None}),  # interrupted: --resume replays it
        {"task": "pushing@P3", "protocol": "P3"},  # ended before its first control step
    ]
    (p3,) = protocol_scores(episodes, ["P3"])
    assert (p3.episodes, p3.left_out) == (1, 2)
    assert p3.scores["last_fractional_success"].mean == 1.0


def test_protocols_keep_the_given_order_list_unplayed_ones_and_ignore_others():
    episodes = [
        _episode("pushing@P11", 0.5, 0.5, 0.5),
        {**_episode("pushing@P1", 0.25, 0.25, 0.25), "protocol": None},  # read from the task's @P1
        _episode("pushing@P7", 0.9, 0.9, 0.9),  # not asked for
    ]
    rows = protocol_scores(episodes, ["P0", "P1", "P11"])
    assert [r.protocol for r in rows] == ["P0", "P1", "P11"]
    assert [r.episodes for r in rows] == [0, 1, 1]
    assert rows[0].to_json()["mean_last_fractional_success"] is None
    assert rows[1].to_json()["mean_last_fractional_success"] == 0.25
    assert rows[2].to_json()["std_full_integrated_fractional_success"] == 0.0


def test_the_plan_plays_every_protocol_of_the_task_from_the_first_seed():
    config = RunConfig(env="trifinger", tasks=["(catalogue)"], model="reference", seed=5)
    options = CausalWorldOptions(task="reaching", episodes_per_protocol=3)
    planned = CausalWorldEvaluation.configure(config, options)
    assert planned.tasks == ["reaching@P0", "reaching@P5", "reaching@P12"]  # benchmarks.py's reaching
    assert [seed for _, _, seed in planned.episode_plan()] == [5, 6, 7] * 3
    assert planned.backend_options["end_on_success"] is False
    assert planned.backend_options["profile"] == "causalworld"
    CausalWorldEvaluation.check(planned)
    undone = planned.model_copy(
        update={"backend_options": {**planned.backend_options, "profile": "agentkit"}}
    )
    with pytest.raises(ValueError, match="--profile"):
        CausalWorldEvaluation.check(undone)
    stacking = CausalWorldEvaluation.configure(config, CausalWorldOptions(task="stacking2"))
    assert "stacking2@P3" not in stacking.tasks and len(stacking.tasks) == 11  # no size variable
    assert stacking.episodes == 200  # the paper's default


@pytest.mark.parametrize(("task", "message"), [("pushy", "'pushy' has no CausalWorld"), (None, "--task")])
def test_a_task_without_protocols_is_refused_naming_the_known_ones(task, message):
    with pytest.raises(ValueError, match=message) as info:
        CausalWorldOptions(task=task)
    assert "pushing, picking, pick_and_place, stacking2, reaching" in str(info.value)


def test_text_bar_and_error_bars():
    assert text_bar(None) == ""
    assert text_bar(1.0) == "█" * BAR_WIDTH
    assert text_bar(0.5) == "█" * (BAR_WIDTH // 2)
    assert text_bar(1.0 / 160) == "▏"  # one eighth of a character
    below, above = error_bars(0.9, 0.2)
    assert below == 0.2 and above == pytest.approx(0.1)  # capped at a fractional success of 1
