"""The run's stop flag across a Ray cluster: one small actor holds it, tasks read it.

Why: a budget reached, a Ctrl-C or a storage error is decided by the driver (``agentkit eval``);
episodes running in Ray tasks on other nodes must end at their next turn with that reason, as
local worker processes do through a shared ``multiprocessing.Value``. The cells below give
``agentkit.runs.budget.StopFlag`` the same ``value`` attribute: the driver's writes through to the
actor; a task's reads it at most every ``READ_EVERY_S`` (a turn must not wait on the network).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from agentkit.records import EndReason

log = logging.getLogger(__name__)
_REASONS = list(EndReason)  # the StopFlag's cell holds a reason's index + 1 (agentkit.runs.budget)

READ_EVERY_S = 0.5  # how stale a task's view of the stop flag may be
READ_TIMEOUT_S = 5.0


class RunSignal:
    """The actor's class (made remote by ``start_signal``): the stop reason's index, 0 while running."""

    def __init__(self) -> None:
        self.value = 0

    def get(self) -> int:
        return self.value

    def set(self, value: int) -> None:
        if self.value == 0:
            self.value = value


def start_signal() -> Any:
    """A new signal actor (no CPU of its own) for one run; the caller kills it when the run ends."""
    import ray

    return ray.remote(num_cpus=0, max_restarts=0)(RunSignal).remote()


class DriverCell:
    """The driver's cell: read locally, every write also sent to the actor."""

    def __init__(self, signal: Any) -> None:
        self.signal = signal
        self._value = 0

    @property
    def value(self) -> int:
        return self._value

    @value.setter
    def value(self, value: int) -> None:
        self._value = value
        self.signal.set.remote(value)


class TaskCell:
    """A task's cell: the actor's value, fetched again once ``READ_EVERY_S`` has passed."""

    def __init__(self, signal: Any) -> None:
        self.signal = signal
        self._value = 0
        self._read_at = float("-inf")

    @property
    def value(self) -> int:
        if self._value == 0 and time.monotonic() - self._read_at >= READ_EVERY_S:
            import ray

            self._read_at = time.monotonic()
            from ray.exceptions import RayActorError

            try:
                self._value = int(ray.get(self.signal.get.remote(), timeout=READ_TIMEOUT_S))
            except RayActorError:  # the actor died with its owner, the driver: nobody keeps this run
                log.warning("the run's driver is gone: ending this episode")
                self._value = _REASONS.index(EndReason.CANCELLED) + 1
            except Exception as exc:  # slow or busy: keep playing, the driver decides
                log.debug("could not read the run's stop flag: %s", exc)
        return self._value

    @value.setter
    def value(self, value: int) -> None:
        self._value = value
        self.signal.set.remote(value)
