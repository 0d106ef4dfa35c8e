"""When the lights are off: Animal-AI's ``blackouts`` schedule.

Animal-AI's rule: a list of increasing frames ``[a, b, c, d, ...]`` toggles the lights at each
listed frame, starting lit, so the arena is dark from frame a to b - 1, from c to d - 1, ... (an
odd-length list leaves it dark from its last frame on); a single negative value ``[-N]`` switches
the lights every N frames (lit for frames 0..N-1, dark for N..2N-1, ...). A frame is an environment
step: the observation after k steps shows frame k.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence


def lights_on(frame: int, blackouts: Sequence[int]) -> bool:
    """Whether frame ``frame`` is lit under the ``blackouts`` schedule."""
    if not blackouts:
        return True
    if blackouts[0] < 0:
        period = -blackouts[0]
        return (frame // period) % 2 == 0
    toggles = bisect.bisect_right(blackouts, frame)  # how many listed frames are <= frame
    return toggles % 2 == 0
