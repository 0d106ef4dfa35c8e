"""A gridworld whose simulator "crashes" a set number of times, for the env-crash relaunch tests.

A real backend cannot be made to die on cue, so this one raises from ``step`` as a dead
simulator process would (a broken pipe, a lost pybullet connection). Everything else is the real
gridworld. Crashes are counted per process, across instances: after a crash the runner must
build a fresh backend, and the relaunched episode then plays normally.

A test fixture, so it lives in tests/support/, outside the shipped package.
"""

from __future__ import annotations

import threading
from typing import Any

from agentkit.envs.base import StepResult
from agentkit.envs.gridworld.backend import GridworldBackend

_lock = threading.Lock()
crashes_left = 0  # set by tests
instances = 0  # backends built so far (a restart builds a new one)


class FlakyGridworld(GridworldBackend):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        global instances
        super().__init__(*args, **kwargs)
        with _lock:
            instances += 1
        self._steps_taken = 0
        self._dead = False

    def step(self, action: Any) -> StepResult:
        global crashes_left
        if self._dead:
            raise RuntimeError("simulator connection lost")
        self._steps_taken += 1
        with _lock:
            crash = self._steps_taken == 2 and crashes_left > 0
            if crash:
                crashes_left -= 1
        if crash:
            self._dead = True  # a crashed simulator stays dead: only a new backend helps
            raise RuntimeError("simulator connection lost")
        return super().step(action)

    def reset(self, task: str, seed: int) -> Any:
        if self._dead:
            raise RuntimeError("simulator connection lost")
        self._steps_taken = 0
        return super().reset(task, seed)
