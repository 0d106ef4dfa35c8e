"""How the model acts and what it sees while acting: the control mode and observation during a script.

``script`` (the LLM-AAI paper's, the default): the model writes a script, executed whole, and sees
the world again when it ends. ``frame-by-frame[:N]``: the model answers one of the backend's
primitive actions, the world advances N steps with it, and the model is asked again.
``--observe every:K|events`` lets a script's model see frames taken while the script ran.
The loop meets these through :class:`Control` and :class:`FrameWatch` only; how an episode's
answers are read follows from the mode and is chosen once (:func:`choose_reader`).
"""

from agentkit.control.answer_reading import choose_reader, primitive_reader
from agentkit.control.control import Control, make_control
from agentkit.control.frame_watch import FrameWatch
from agentkit.control.modes import ControlMode, ObserveMode, parse_control, parse_observe

__all__ = [
    "Control",
    "ControlMode",
    "FrameWatch",
    "ObserveMode",
    "choose_reader",
    "make_control",
    "parse_control",
    "parse_observe",
    "primitive_reader",
]
