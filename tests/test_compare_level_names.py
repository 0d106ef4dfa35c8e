"""The compare page names Animal-AI levels as the report does ("L4 Avoidance"), and only those.

The page itself is checked over HTTP in tests/test_viewer_outcome_word.py (two aai-arena runs,
their per-level rows by name); here, the rule for the row's name.
"""

from __future__ import annotations

from agentkit.reports.levels import LEVEL_NAMES
from agentkit.viewer.compare import ANIMAL_AI_ENVS, level_label


def test_animal_ai_levels_carry_the_testbed_names():
    assert level_label("4", animal_ai=True) == "L4 Avoidance"
    assert [level_label(str(n), True) for n in (1, 10)] == ["L1 Food retrieval", "L10 Causal reasoning"]
    assert len(LEVEL_NAMES) == 10 and {"aai-arena", "animalai"} <= ANIMAL_AI_ENVS


def test_other_backends_and_odd_levels_keep_the_number():
    assert level_label("4", animal_ai=False) == "level 4"  # another backend's level 4 is no Avoidance
    assert level_label("11", animal_ai=True) == "L11"  # outside the Testbed's ten: no name invented
    assert level_label("hard", animal_ai=True) == "level hard"
