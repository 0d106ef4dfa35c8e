"""The two anchors of the ONS score, measured per (task, seed) and cached: oracle and random.

* oracle: the backend's reference agent (MiniGrid's BabyAI bot, or the shortest-path planner for
  reach-the-goal tasks), stepped exactly as the loop steps it (its scripts compiled command by
  command) until the episode ends or the env's own step limit truncates it;
* random: a uniform random policy over MiniGrid's seven actions, its RNG seeded with the episode
  seed, until the episode ends or is truncated.

Both depend only on (task, seed) and the MiniGrid version, never on a run or a model, so they are
cached in a small JSON file (default ``.agentkit/gridworld_baselines.json`` under the working
directory) rather than in the transcript database: one file serves every database and run, can
be inspected or shipped beside a leaderboard, and needs no change to the store's schema. Keys name
the MiniGrid version, so upgrading MiniGrid re-measures instead of reusing stale numbers.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np

from agentkit.envs.gridworld.backend import GridworldBackend
from agentkit.envs.gridworld.reference import GridworldReference
from agentkit.envs.gridworld.vocabulary import Act

logger = logging.getLogger(__name__)

DEFAULT_CACHE = Path(".agentkit") / "gridworld_baselines.json"
POLICIES = ("oracle", "random")


@dataclass(frozen=True)
class Outcome:
    success: bool
    reward: float
    steps: int


def oracle_episode(backend: GridworldBackend, task: str, seed: int) -> Outcome:
    """The reference agent's episode, compiled and stepped the way the loop does it."""
    backend.reset(task, seed)
    policy = GridworldReference(backend)  # what backend.reference_policy() makes, typed as itself
    total, result = 0.0, None
    while result is None or not result.done:
        commands = [c for c in policy.next_commands() if c.name != "Think"]
        actions = [a for c in commands for a in backend.compile(c)]
        if not actions:
            logger.warning("oracle has no move left in %s seed %d; counted as a failure", task, seed)
            break
        for action in actions:
            result = backend.step(action)
            total += result.reward
            if result.done:
                break
    return Outcome(bool(result is not None and result.success), total, int(backend.unwrapped.step_count))


def random_episode(backend: GridworldBackend, task: str, seed: int) -> Outcome:
    """Uniformly random MiniGrid actions (all seven), RNG seeded by the episode seed."""
    backend.reset(task, seed)
    rng = np.random.default_rng(seed)
    total, result = 0.0, None
    while result is None or not result.done:
        result = backend.step(int(rng.integers(0, len(Act))))
        total += result.reward
    return Outcome(bool(result.success), total, int(backend.unwrapped.step_count))


_PLAYERS = {"oracle": oracle_episode, "random": random_episode}


class BaselineCache:
    """Oracle and random outcomes by (policy, task, seed), read from and written to one JSON file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else DEFAULT_CACHE
        self._tag = f"minigrid=={version('minigrid')}"
        self._data: dict[str, dict] = {}
        if self.path.exists():
            try:
                self._data = json.loads(self.path.read_text())
            except (OSError, ValueError) as exc:
                raise ValueError(
                    f"{self.path}: not a readable baseline cache ({exc}); delete it to re-measure"
                ) from exc
            if not isinstance(self._data, dict):
                raise ValueError(f"{self.path}: a baseline cache holds a JSON object")
        self.measured = 0  # episodes played (not found in the cache) since this object was made

    def _key(self, policy: str, task: str, seed: int) -> str:
        return f"{policy}|{task}|{seed}|{self._tag}"

    def get(self, policy: str, task: str, seed: int, backend: GridworldBackend | None = None) -> Outcome:
        """The cached outcome, measured (and remembered) on first use."""
        if policy not in _PLAYERS:
            raise ValueError(f"unknown baseline policy {policy!r}; known: {', '.join(POLICIES)}")
        key = self._key(policy, task, seed)
        if key not in self._data:
            own = backend is None
            backend = backend or GridworldBackend(frame="none")
            try:
                self._data[key] = asdict(_PLAYERS[policy](backend, task, seed))
            finally:
                if own:
                    backend.close()
            self.measured += 1
        return Outcome(**self._data[key])

    def fill(self, pairs: list[tuple[str, int]]) -> dict[tuple[str, int], dict[str, Outcome]]:
        """Both baselines for every (task, seed), measuring what is missing, then saving the file."""
        backend = GridworldBackend(frame="none")
        try:
            out = {(t, s): {p: self.get(p, t, s, backend) for p in POLICIES} for t, s in pairs}
        finally:
            backend.close()
        if self.measured:
            self.save()
        return out

    def save(self) -> None:
        """Write atomically, so a crash or a concurrent reader never sees half a file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(self._data, fh, indent=1, sort_keys=True)
        os.replace(tmp, self.path)
