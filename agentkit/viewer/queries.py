"""The viewer's reads: paged listings, one turn at a time, and per-episode series, all cheap.

Why a layer over the store's reader: every read here is a ``TranscriptReader`` method (the one
reader of the schema: paged listings filtered and counted by verdict, one turn with its
messages, an episode's per-turn figures); this class adds what only the viewer wants: the
verdict it judges by (``agentkit.viewer.verdicts``), positions read from each turn's stored
observation (``agentkit.viewer.trajectory``), and per-episode series and step paths kept in
memory while the episode does not change. Nothing here writes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from agentkit.observers.pose import Pose
from agentkit.observers.world_map import WorldMap
from agentkit.outcome_words import (
    FAILED,
    INCOMPLETE,
    NO_VERDICT,
    PASSED,
    stored_outcome,
)
from agentkit.transcripts import TranscriptReader
from agentkit.transcripts.listings import EpisodeSummary, Facets, Page, RunSummary, TurnFigures
from agentkit.transcripts.records import EpisodeInfo, RunInfo, TurnInfo
from agentkit.transcripts.run_problems import RunProblems
from agentkit.viewer.frame_refs import FrameRef, frame_refs
from agentkit.viewer.step_path import StepPath, replay_step_path
from agentkit.viewer.trajectory import pose_of
from agentkit.viewer.verdicts import VERDICT

__all__ = [
    "EpisodeSummary",
    "Facets",
    "OUTCOMES",
    "OUTCOME_ALIASES",
    "Page",
    "RunProblems",
    "RunSummary",
    "TurnDetail",
    "TurnPoint",
    "ViewerData",
    "episode_outcome",
    "outcome_label",
    "verdict_word",
]

OUTCOMES = (PASSED, FAILED, INCOMPLETE, NO_VERDICT)
# Older links and habits: a filter on "success" or "failure" means the verdict, whatever its word.
OUTCOME_ALIASES = {"success": PASSED, "failure": FAILED}
_SERIES_CACHE_SIZE = 64
_COMPARED = ("observation", "answer", "script", "parse_error", "actions", "reward")


def episode_outcome(
    status: str,
    success: bool | None,
    metrics: dict[str, Any] | None,
    end_reason: str | None = None,
    rule: str | None = None,
) -> str:
    """The badge of an episode: pass, fail, incomplete, or no-verdict (an episode its run's pass rule
    leaves unjudged and uncounted, agentkit.pass_rule); ``outcome_label`` gives its backend's word."""
    return stored_outcome(status, success, end_reason, metrics, rule)


def outcome_label(outcome: str, env: str) -> str:
    """The word shown for an outcome: the outcome itself (pass, fail, incomplete, no-verdict) on every
    backend, the one vocabulary of agentkit.outcome_words; ``env`` is kept for the pages that pass it."""
    return outcome


def verdict_word(env: str) -> str:
    """The word of a verdict on backend ``env``: "pass" on every backend (agentkit.outcome_words)."""
    return PASSED


@dataclass(frozen=True)
class TurnPoint:
    """What the plots, the map and the turn strip need of one turn (the store's figures and the
    pose read from its observation; the observation itself is not kept)."""

    index: int
    reward: float
    total_reward: float
    health: float | None
    done: bool
    parsed: bool  # the answer parsed into a script
    compile_error: bool
    n_actions: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_s: float
    cached: bool
    pose: Pose | None
    frames: tuple[FrameRef, ...] = ()  # the images sent with the turn, for the page's playback

    @classmethod
    def of(cls, f: TurnFigures) -> TurnPoint:
        return cls(
            f.index,
            f.reward,
            f.total_reward,
            f.health,
            f.done,
            f.parsed,
            f.compile_error,
            f.n_actions,
            f.input_tokens,
            f.output_tokens,
            f.cost_usd,
            f.latency_s,
            f.cached,
            pose_of(f.observation),
            frame_refs(f.observation),
        )


# One turn in full, as the store describes it; the viewer reads it with messages whose images are
# ``image_ref`` parts (served from /blob/<sha>), not data URLs.
TurnDetail = TurnInfo


class ViewerData:
    """Read-side queries for the viewer over one store (thread-safe; share one per server)."""

    def __init__(self, store: TranscriptReader) -> None:
        self.store = store
        self._series: OrderedDict[tuple[str, int, float], list[TurnPoint]] = OrderedDict()
        self._paths: OrderedDict[tuple[str, int, float], StepPath] = OrderedDict()
        self._lock = threading.Lock()

    # --- listings ---------------------------------------------------------------------------------

    def facets(self) -> Facets:
        return self.store.facets()

    def runs(
        self, env: str | None = None, model: str | None = None, offset: int = 0, limit: int = 50
    ) -> Page[RunSummary]:
        """Runs newest first, with their episodes, passes and judged episodes (latest attempts)."""
        return self.store.run_summaries(VERDICT, env=env, model=model, offset=offset, limit=limit)

    def run_problems(self, run_ids: list[str]) -> dict[str, RunProblems]:
        """Per run: turns by parse-error code and episodes by end reason, over the latest attempts
        the pass counts beside them count (what the run list shows of how its runs went wrong)."""
        return self.store.run_problems(run_ids)

    def episodes(
        self,
        run_id: str | None = None,
        env: str | None = None,
        model: str | None = None,
        task: str | None = None,
        outcome: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> Page[EpisodeSummary]:
        """Episodes in start order, filtered by run, env, model, task and outcome."""
        return self.store.episode_summaries(
            VERDICT,
            run_id=run_id,
            env=env,
            model=model,
            task=task,
            outcome=OUTCOME_ALIASES.get(outcome or "", outcome),
            offset=offset,
            limit=limit,
        )

    def all_episodes(self, run_id: str) -> list[EpisodeInfo]:
        """Every episode of a run with its effective status (for comparisons)."""
        return self.store.list_episodes(run_id=run_id)

    # --- one run, one episode, one turn -----------------------------------------------------------

    def run(self, run_id: str) -> RunInfo:
        return self.store.get_run(run_id)

    def world_map(self, episode_id: str) -> WorldMap | None:
        """The backend's top-down drawing of the episode's world, if it stored one."""
        return self.store.get_world_map(episode_id)

    def episode(self, episode_id: str) -> EpisodeInfo:
        return self.store.get_episode(episode_id)

    def turn(self, episode_id: str, index: int) -> TurnDetail | None:
        """Turn ``index`` of an episode with its messages, or None if there is no such turn."""
        return self.store.get_turn(episode_id, index, images="ref")

    def series(self, episode_id: str) -> list[TurnPoint]:
        """Per-turn points of an episode, kept in memory until the episode gets a new turn."""
        key = self._key(episode_id)
        with self._lock:
            hit = self._series.get(key)
            if hit is not None:
                self._series.move_to_end(key)
                return hit
        points = [TurnPoint.of(f) for f in self.store.turn_figures(episode_id)]
        with self._lock:
            self._series[key] = points
            while len(self._series) > _SERIES_CACHE_SIZE:
                self._series.popitem(last=False)
        return points

    def step_path(self, episode_id: str) -> StepPath:
        """The agent's position after every step (agentkit.viewer.step_path: a replay of the stored
        actions, checked against the record), kept in memory until the episode gets a new turn."""
        key = self._key(episode_id)
        with self._lock:
            hit = self._paths.get(key)
            if hit is not None:
                self._paths.move_to_end(key)
                return hit
        path = replay_step_path(self.store, episode_id)
        with self._lock:
            self._paths[key] = path
            while len(self._paths) > _SERIES_CACHE_SIZE:
                self._paths.popitem(last=False)
        return path

    def turn_keys(self, episode_id: str) -> list[dict[str, Any]]:
        """Per turn, the fields two episodes are compared on (no messages), in index order."""
        return self.store.turn_fields(episode_id, _COMPARED)

    def image(self, sha256: str) -> tuple[str, bytes] | None:
        """(media type, bytes) of an image blob; None for unknown hashes and for non-image blobs."""
        blob = self.store.get_image(sha256)
        return None if blob is None else (blob.media_type, blob.data)

    def _key(self, episode_id: str) -> tuple[str, int, float]:
        """A cache key that changes when the episode gets a new turn."""
        return (episode_id, *self.store.turns_stamp(episode_id))
