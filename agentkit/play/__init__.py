"""People playing the very worlds the models meet, in a browser: human baselines recorded like any run.

Why: comparing models with children or adults is only fair on the same arenas, rules and frames,
and only useful when the person's episodes sit beside the models' in the transcript store (viewer,
replay, reports). ``agentkit play`` serves a local page; the participant plays a tutorial arena,
then the suite's tasks in order, either with the arrow keys (one Animal-AI step per 0.06 s while
the page asks for frames) or by typing Go/Turn scripts (the model's own conditions). Every episode
is stored in a run whose model is ``human:<participant id>``.
"""

from agentkit.play.keys import held_keys_action
from agentkit.play.server import PlayServer
from agentkit.play.session import PlayOptions, PlaySession

__all__ = ["PlayOptions", "PlayServer", "PlaySession", "held_keys_action"]
