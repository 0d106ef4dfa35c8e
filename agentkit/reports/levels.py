"""The names of the ten Animal-AI Testbed levels, so a report says "L4 Avoidance", not "4".

Why here: a level number means nothing to a reader who has not learnt the Testbed by heart. The
names are the ten categories of the 2019 Animal-AI Olympics, the order the Testbed's levels keep
(M. Crosby, "The Animal-AI Olympics" launch post, mdcrosby.com/blog/animalailaunch.html, and
Crosby et al. 2020, "The Animal-AI Testbed and Competition", PMLR 123): level N of the Testbed
(task ids ``NN-TT-VV``) holds the tests of category N.
"""

from __future__ import annotations

LEVEL_NAMES: dict[int, str] = {
    1: "Food retrieval",
    2: "Preferences",
    3: "Obstacles",
    4: "Avoidance",
    5: "Spatial reasoning",
    6: "Generalization",
    7: "Internal models",
    8: "Object permanence",
    9: "Advanced preferences",
    10: "Causal reasoning",
}


def level_name(level: int) -> str:
    """The category of a Testbed level ("" for a number outside 1-10)."""
    return LEVEL_NAMES.get(level, "")


def level_title(level: int) -> str:
    """``"L1 Food retrieval"``: the short label tables and figures use."""
    name = level_name(level)
    return f"L{level} {name}" if name else f"L{level}"
