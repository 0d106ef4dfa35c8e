"""Re-execute a stored episode from its recorded answers, offline, and check it turns out the same.

The run's stored configuration and template sources rebuild the episode; a ReplayModel feeds back
the recorded answers. Turn by turn the parsed script, the low-level actions and the reward must
equal the record, and for a finished episode so must the outcome. A difference means the world,
the parser or the compiler no longer behaves as it did when the episode was recorded.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from agentkit.config import RunConfig
from agentkit.loop import run_episode
from agentkit.models.replay_model import ReplayModel
from agentkit.records import TurnRecord
from agentkit.setup_episode import make_setup
from agentkit.transcripts import TranscriptStore

log = logging.getLogger(__name__)


class _Collect:
    """A turn sink that keeps the replayed turns in memory (replay writes nothing to the store)."""

    def __init__(self) -> None:
        self.turns: list[TurnRecord] = []

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        self.turns.append(turn)


@dataclass
class ReplayReport:
    episode_id: str
    turns: int
    finished: bool  # whether the record holds a finished episode (an outcome to compare)
    recorded: dict[str, Any]
    replayed: dict[str, Any]
    mismatches: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        return {"episode_id": self.episode_id, "matches": self.matches, "turns": self.turns,
                "finished": self.finished, "recorded": self.recorded, "replayed": self.replayed,
                "mismatches": self.mismatches}


def config_from_stored(stored: dict[str, Any]) -> RunConfig:
    """The RunConfig of a stored run (fields added by later versions are ignored)."""
    return RunConfig(**{k: v for k, v in stored.items() if k in RunConfig.model_fields})


def replay_episode(store: TranscriptStore, episode_id: str) -> ReplayReport:
    episode = store.get_episode(episode_id)
    run = store.get_run(episode.run_id)
    recorded_turns = store.get_turns(episode_id, with_messages=False)
    config = config_from_stored(run.config)
    answers = [t.answer for t in recorded_turns]
    setup = make_setup(config, templates=run.templates, model_factory=lambda backend: ReplayModel(answers))
    sink = _Collect()
    try:
        result = run_episode(setup, episode.task, episode.seed, sink=sink, episode_id=episode_id)
    finally:
        setup.backend.close()

    mismatches: list[str] = []
    for rec, rep in zip(recorded_turns, sink.turns):
        for name in ("script", "parse_error", "compile_error", "actions", "reward", "done"):
            want, got = getattr(rec, name), getattr(rep, name)
            if want != got:
                mismatches.append(f"turn {rec.index}: {name} recorded {want!r}, replayed {got!r}")
    finished = episode.status == "finished"
    if len(sink.turns) < len(recorded_turns) or (finished and len(sink.turns) != len(recorded_turns)):
        mismatches.append(f"recorded {len(recorded_turns)} turns, replay produced {len(sink.turns)}")
    recorded = {"success": episode.success, "reward": episode.reward, "end_reason": episode.end_reason}
    replayed = {"success": result.success, "reward": result.reward, "end_reason": result.end_reason.value}
    if finished:
        for key in recorded:
            if recorded[key] != replayed[key]:
                mismatches.append(f"outcome {key}: recorded {recorded[key]!r}, replayed {replayed[key]!r}")
    return ReplayReport(episode_id=episode_id, turns=len(recorded_turns), finished=finished,
                        recorded=recorded, replayed=replayed, mismatches=mismatches)
