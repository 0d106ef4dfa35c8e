"""The size an item is built with when that is not simply the file's size clamped to its range.

Why apart from the layout: three kinds of items take their size from somewhere else, each by its
own script, and the layout must test the space the item really takes:

* Decay/AntiDecay goals from their reward values, Grow/Shrink goals from their initial size
  (``goal_changes.initial_diameter``): the file's ``sizes`` entry is ignored.
* Items built from a fixed model (spawners, the button): the model's size x 0.999, whatever the file
  says (``GoalSpawner.SetSize`` and the button's sizeMin = sizeMax).
* The sign: the model's size times the file's size used as a scale (``SignPosterboard.SetSize``:
  clamped to 0.5..2.5, all -1 meaning 1; ``signboards.board_scale``), x 0.999; v4.1.0's SignBoard fixes it.
"""

from __future__ import annotations

from agentkit.envs.animalai_common.config import ItemParams, Vector3
from agentkit.envs.animalai_common.goal_changes import initial_diameter
from agentkit.envs.animalai_common.items import ItemType, Vec
from agentkit.envs.animalai_common.signboards import board_scale

SIZE_ADJUSTMENT = 0.999  # Prefab.cs: sizeAdjustement


def built_size(
    item_type: ItemType, given: Vector3 | None, drawn: Vec, params: ItemParams, version: str
) -> Vec:
    """The built size of an item: ``drawn`` is what the layout made of the file's size (clamped to the
    item's range and x 0.999, or drawn at random where the file says -1)."""
    if item_type.changes:
        d = initial_diameter(item_type.behaviour, params, version)
        return (d, d, d)
    if item_type.base_size is None:
        return drawn
    if item_type.behaviour == "sign":
        raw = None if given is None else given.as_tuple()
        scale = board_scale(raw, version)
        if version == "3.1.3" and raw is not None and any(c >= 0 for c in raw):
            # the given components clamped (x 0.999); -1 components keep the layout's random draw
            scale = tuple(
                d if c < 0 else s * SIZE_ADJUSTMENT  # type: ignore[assignment]
                for c, s, d in zip(raw, scale, drawn)
            )
        else:
            scale = tuple(s * SIZE_ADJUSTMENT for s in scale)  # type: ignore[assignment]
        return item_type.model_size(scale)
    return item_type.model_size((SIZE_ADJUSTMENT,) * 3)
