"""The one place that imports trifinger-simulation (for its platform cameras), quietly, pybullet first.

Why: pybullet prints to C stdout at import (``agentkit run --json`` owns stdout), so it is loaded
through the silencer the pybullet backends share (``envs/pybullet_support``) first;
trifinger-simulation 2.0.0 then reads ``np.core.umath`` at import, a DeprecationWarning under
numpy 2 that is filtered here by its exact text and nowhere else; and its ``TriFingerPlatform``
module imports the old ``gym``, which prints a notice on stderr, routed here to this module's
logger at DEBUG.
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings

from agentkit.envs.pybullet_support.bullet import p  # noqa: F401  (imports pybullet with its chatter silenced)

logger = logging.getLogger(__name__)


class _LogLines(io.StringIO):
    def close(self) -> None:
        for line in self.getvalue().splitlines():
            if line.strip():
                logger.debug("%s", line)
        super().close()


def _load():
    sink = _LogLines()
    with warnings.catch_warnings(), contextlib.redirect_stderr(sink):
        warnings.filterwarnings("ignore", message="numpy.core is deprecated", category=DeprecationWarning)
        import trifinger_simulation
        from trifinger_simulation import camera
    sink.close()
    return trifinger_simulation, camera


trifinger_simulation, camera_module = _load()
TriFingerCameras = camera_module.TriFingerCameras
