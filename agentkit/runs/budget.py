"""Run-wide limits (tokens, dollars, wall time) and cancellation, shared by every episode in flight.

Episodes have their own limits in the loop; these are the run's. Once one is reached no new
episode starts and the running ones end at their next turn with the matching end reason, so a
run never overspends by more than the turns already in flight.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from agentkit.config import RunConfig
from agentkit.records import EndReason, Usage

_REASONS = list(EndReason)


class StopFlag:
    """Why the run stopped, as an integer cell (0: not stopped) that threads or processes share.

    In process mode the cell is a ``multiprocessing.Value('i')`` handed to the workers, so a stop
    the parent decides (budget, Ctrl-C) reaches episodes in other processes with its reason.
    """

    def __init__(self, cell: Any = None) -> None:
        self.cell = cell if cell is not None else _Cell()

    def set(self, reason: EndReason) -> None:
        if self.cell.value == 0:
            self.cell.value = _REASONS.index(reason) + 1

    def get(self) -> EndReason | None:
        value = self.cell.value
        return _REASONS[value - 1] if value else None


class _Cell:
    value = 0


class RunBudget:
    """Thread-safe running totals of a run against its limits, plus the shared stop flag."""

    def __init__(self, config: RunConfig, spent: Usage | None = None, flag: StopFlag | None = None) -> None:
        self.max_cost_usd = config.run_max_cost_usd
        self.max_tokens = config.run_max_tokens
        self.max_wall_s = config.run_max_wall_s
        self.started = time.monotonic()
        self.usage = Usage(**vars(spent)) if spent else Usage()
        self._lock = threading.Lock()
        self.flag = flag or StopFlag()

    def add(self, usage: Usage) -> None:
        """Count what a finished turn or episode spent."""
        with self._lock:
            self.usage.input_tokens += usage.input_tokens
            self.usage.output_tokens += usage.output_tokens
            self.usage.cost_usd += usage.cost_usd
        self._check()

    def cancel(self) -> None:
        with self._lock:
            self.flag.set(EndReason.CANCELLED)

    def stop(self, reason: EndReason) -> None:
        """Stop the run for ``reason`` (e.g. a storage error): no new episode, running ones end."""
        with self._lock:
            self.flag.set(reason)

    def _check(self) -> None:
        reason: EndReason | None = None
        u = self.usage
        if self.max_cost_usd is not None and u.cost_usd >= self.max_cost_usd:
            reason = EndReason.BUDGET
        elif self.max_tokens is not None and u.input_tokens + u.output_tokens >= self.max_tokens:
            reason = EndReason.BUDGET
        elif self.max_wall_s is not None and time.monotonic() - self.started >= self.max_wall_s:
            reason = EndReason.WALL_TIME
        if reason is not None:
            with self._lock:
                self.flag.set(reason)

    def stop_reason(self) -> EndReason | None:
        """Why the run must stop now, or None. Called before every model call."""
        self._check()
        return self.flag.get()
