"""The per-episode fractional-success figures CausalWorld's three metrics average (issue 28 item 5).

Hand-made series with hand-computed answers, including the last-integrated window's quirk
(``infos[-index]`` for index 0..19: the first step and the last 19), then the backend: every
episode of CausalWorld's evaluation runs its full length (250 control steps for pushing, 125 for
reaching) and reports the figures of its own series.
"""

from __future__ import annotations

import pytest

from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.fractional_success_series import episode_fractional_success
from agentkit.envs.trifinger.variables import WorldVariables


def test_a_forty_step_series_gives_last_mean_and_first_plus_last_nineteen():
    series = [0.1] + [0.0] * 20 + [1.0] * 19
    scores = episode_fractional_success(series)
    assert scores is not None
    assert scores.last == 1.0
    assert scores.full_integrated == pytest.approx((0.1 + 19.0) / 40)  # 0.4775
    # the window is step 0 (0.1) and the last 19 steps (1.0 each), not the last 20
    assert scores.last_integrated == pytest.approx((0.1 + 19.0) / 20)  # 0.955
    assert scores.control_steps == 40


def test_a_series_shorter_than_the_window_averages_all_of_it():
    scores = episode_fractional_success([0.2, 0.4])
    assert scores is not None
    assert (scores.last, scores.full_integrated, scores.last_integrated) == pytest.approx((0.4, 0.3, 0.3))


def test_an_episode_without_a_control_step_has_no_figures():
    assert episode_fractional_success([]) is None


def test_metrics_keys_carry_causalworlds_metric_names():
    scores = episode_fractional_success([0.25] * 30)
    assert scores is not None
    assert scores.to_metrics() == {
        "last_fractional_success": 0.25,
        "full_integrated_fractional_success": 0.25,
        "last_integrated_fractional_success": 0.25,
        "control_steps": 30,
    }


def test_a_pushing_episode_run_out_to_its_end_holds_250_steps_of_its_overlap():
    backend = TriFingerBackend(cameras=False, end_on_success=False)
    try:
        backend.reset("pushing@P0", 0)
        variables = WorldVariables(backend.world)
        variables.write("block0", variables.read("goal0", "cylindrical_position"), "cylindrical_position")
        run_out = backend.run_out_clock()
        assert run_out.ended and run_out.idle_steps >= 2  # 10 s held in steps of at most 5 s
        metrics = backend.episode_metrics(None)
        assert metrics["control_steps"] == 250  # 10 s of 40 ms: CausalWorld's pushing episode
        assert metrics["sim_time_s"] == pytest.approx(10.0)
        assert metrics["last_fractional_success"] == pytest.approx(metrics["overlap_causalworld"], abs=1e-3)
        assert metrics["last_fractional_success"] > 0.9
    finally:
        backend.close()


def test_reaching_counts_125_steps_and_ending_on_success_runs_nothing_out():
    backend = TriFingerBackend(cameras=False, end_on_success=False)
    try:
        backend.reset("reaching@P0", 3)
        assert backend.run_out_clock().ended
        assert backend.episode_metrics(None)["control_steps"] == 125  # 5 s
    finally:
        backend.close()
    backend = TriFingerBackend(cameras=False)  # end_on_success: the episode is judged as it stands
    try:
        backend.reset("reaching@P0", 3)
        assert backend.run_out_clock().idle_steps == 0
        assert "control_steps" not in backend.episode_metrics(None)
    finally:
        backend.close()


def test_the_clock_run_out_holds_to_the_time_limit_and_asks_the_runs_stop_before_each_step():
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend(cameras=False, end_on_success=False)
    try:
        backend.reset("reaching@P0", 0)
        backend.step({"q": list(backend.world.target), "ms": 400})
        stopped = backend.run_out_clock(lambda: True)  # the run's wall limit is already up
        assert stopped.stopped and stopped.idle_steps == 0 and backend.world.steps == 400
        ran = backend.run_out_clock(lambda: False)
        assert not ran.stopped and ran.idle_steps == 115  # 40-ms holds from 0.4 s to the 5-s limit
        assert backend.world.steps == backend.time_limit_steps
        assert backend.episode_metrics(None)["control_steps"] == backend.time_limit_steps // 40
    finally:
        backend.close()
