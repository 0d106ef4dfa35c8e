"""What to do about a store that cannot write, read from its error: make room only when room is short.

Why: every storage failure used to end "make room, then resume", so a read-only ``-images`` folder
(or one that is a symbolic link) sent the user to free disk space that was never short (issue 29,
row 13). The advice now follows the cause the error names.
"""

from __future__ import annotations

import re

_NO_ROOM = re.compile(r"(?i)no space left|disk is full|quota exceeded|file too large")
_NOT_WRITABLE = re.compile(r"(?i)permission denied|read-only file system|readonly database|not permitted")


def storage_fix(error: str) -> str:
    """The few words of advice for a store that failed with ``error``."""
    if _NO_ROOM.search(error):
        return "make room"
    if _NOT_WRITABLE.search(error):
        return "make what it names writable"
    return "fix what it names"
