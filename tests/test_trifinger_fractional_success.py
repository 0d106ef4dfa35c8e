"""CausalWorld's fractional success, the figure its evaluation averages (issue 28, item 3).

reaching.py ``_calculate_fractional_success``: ``1 - (clip(goal_reward, 0.01, 0.03) - 0.01) / 0.02`` of
the mean absolute fingertip error; every other task reports its goal reward (the overlap) as is.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.envs.trifinger.causalworld_profile import fractional_success, reaching_error

TARGETS = np.array([[0.1, 0.0, 0.1], [-0.05, 0.08, 0.1], [-0.05, -0.08, 0.1]])


@pytest.mark.parametrize(
    ("offset", "expected"),
    [
        (0.004, 1.0),  # within the success error of 1 cm: full success
        (0.02, 0.5),  # half way between 1 and 3 cm
        (0.05, 0.0),  # beyond 3 cm: none
    ],
)
def test_reaching_maps_three_hand_set_tip_errors_by_causalworlds_formula(offset, expected):
    tips = TARGETS + offset  # every coordinate off by ``offset``: a mean absolute error of ``offset``
    error = reaching_error(tips, TARGETS)
    assert error == pytest.approx(offset)
    assert fractional_success("reaching", error) == pytest.approx(expected)
    assert fractional_success("reaching", error) == pytest.approx(
        1 - (np.clip(error, 0.01, 0.03) - 0.01) / 0.02
    )


def test_other_tasks_report_their_overlap_as_is():
    assert fractional_success("pushing", 0.37) == 0.37
    assert fractional_success("towers", 1.0) == 1.0
