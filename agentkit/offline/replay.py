"""Re-execute a stored episode from its recorded answers, offline, and check it turns out the same.

The run's stored configuration and template sources rebuild the episode; a ReplayModel feeds back
the recorded answers. Turn by turn the parsed script, the low-level actions and the reward must
equal the record, and for a finished episode so must the outcome. A difference means the world,
the parser or the compiler no longer behaves as it did when the episode was recorded.
"""

from __future__ import annotations

import copy
import hashlib
import logging
from dataclasses import dataclass, field
from typing import Any

from agentkit.actions import Vocabulary
from agentkit.config import RunConfig
from agentkit.loop import run_episode
from agentkit.messages import Message
from agentkit.models.answer_reader import SCRIPT_READER, AnswerReader
from agentkit.models.participant import Answer, ModelParticipant, as_participant
from agentkit.models.replay_model import ReplayModel
from agentkit.observers import Observation
from agentkit.records import TurnRecord
from agentkit.runs.setup_episode import make_setup
from agentkit.transcripts import TranscriptReader, TranscriptStore

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
    # Where the record ends short of a verdict (a model error, an unfinished episode), in words; None
    # when the record holds the whole episode. The replay stops there too, which is a match.
    record_end: str | None = None

    @property
    def matches(self) -> bool:
        return not self.mismatches

    def verdict(self) -> str:
        """The replay's one statement: matches (and where it stopped, when the record ends early) or differs."""
        if not self.matches:
            return f"replay of {self.turns} turns DIFFERS from the record"
        if self.record_end is None:
            return f"replay of {self.turns} turns matches the record"
        return f"replay of {self.turns} turns matches the record: it stops at turn {self.turns}, {self.record_end}"

    def to_json(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "matches": self.matches,
            "verdict": self.verdict(),
            "record_end": self.record_end,
            "turns": self.turns,
            "finished": self.finished,
            "recorded": self.recorded,
            "replayed": self.replayed,
            "mismatches": self.mismatches,
        }


def replay_episode(store: TranscriptReader, episode_id: str) -> ReplayReport:
    episode = store.get_episode(episode_id)
    run = store.get_run(episode.run_id)
    recorded_turns = store.get_turns(episode_id, with_messages=False)
    config = RunConfig.from_stored(run.config)
    answers = [t.answer for t in recorded_turns]
    calls = [t.tool_calls for t in recorded_turns]  # an answer of tool calls replays its very calls
    record_end = _record_end(episode.status, episode.end_reason, episode.error)
    setup = make_setup(
        config,
        templates=run.templates,
        model_factory=lambda backend: ReplayModel(answers, tool_calls=calls, record_end=record_end),
    )
    sink = _Collect()
    try:
        use_stored_source(store, episode_id, episode.task, setup.backend)
        result = run_episode(setup, episode.task, episode.seed, sink=sink, episode_id=episode_id)
    finally:
        setup.backend.close()

    mismatches: list[str] = []
    for rec, rep in zip(recorded_turns, sink.turns):
        for name in ("script", "parse_error", "compile_error", "actions", "reward", "done", "tool_calls"):
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
    return ReplayReport(
        episode_id=episode_id,
        turns=len(recorded_turns),
        finished=finished,
        recorded=recorded,
        replayed=replayed,
        mismatches=mismatches,
        record_end=record_end,
    )


def _record_end(status: str, end_reason: str | None, error: str | None) -> str | None:
    """Why the record holds no answer after its last turn, when that is not the episode's own end.

    Why: an episode a model error ended has no answer for the turn that failed, and an unfinished
    one none for the turns it never played. Their replay runs out of answers at that very turn,
    which is the record reproduced, not a difference; saying so keeps the replay to one verdict
    instead of "ran out of recorded answers" followed by "matches the record"."""
    if status != "finished":
        return "where the record ends (the episode was left unfinished)"
    if end_reason == "model_error":
        cause = f" ({error})" if error else ""
        return f"where the recorded episode ended in a model error{cause}"
    return None


def use_stored_source(store: TranscriptReader, episode_id: str, task: str, backend: Any) -> None:
    """Make ``backend`` play the task's file text stored with the episode, if any (a custom arena):
    replay then neither needs the file where it was nor meets an edited one."""
    source = store.get_task_source(episode_id)
    if source is None:
        return
    digest = hashlib.sha256(source["text"].encode("utf-8")).hexdigest()
    if digest != source["sha256"]:
        log.warning(
            "episode %s: the stored text of %s does not match its stored sha256", episode_id, source["name"]
        )
    backend.use_task_source(task, source["text"])


# --- continuing an episode with a live model -------------------------------------------------------


class HandOverModel:
    """Plays the recorded answers first, then lets ``live`` (a model or the reference agent) play
    every later turn.

    Why: to see what a different (or the same, re-sampled) model does from a chosen point of a
    recorded episode, the world has to be brought to that point exactly as it was, which replaying
    the recorded answers does without calling any model. Both parts read their replies with the
    episode's reader, which the loop hands over (``reading_with``) before the first turn.
    """

    def __init__(
        self,
        recorded: list[str],
        live: Any,
        tool_calls: list[list[dict[str, str]] | None] | None = None,
        reader: AnswerReader = SCRIPT_READER,
    ) -> None:
        self._replay = ReplayModel(recorded, tool_calls=tool_calls)
        self.live = live
        self._replayed = ModelParticipant(self._replay, reader)
        self._live = as_participant(live, reader)
        self.name = getattr(live, "name", "live")

    def reading_with(self, reader: AnswerReader) -> HandOverModel:
        """This hand-over reading both parts' replies with ``reader`` (the recorded answers not yet
        given stay where they are)."""
        bound = copy.copy(self)
        bound._replayed = ModelParticipant(self._replay, reader)
        bound._live = as_participant(self.live, reader)
        return bound

    @property
    def handed_over(self) -> bool:
        return self._replay.remaining == 0

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer:
        if self._replay.remaining:
            return self._replayed.answer(messages, observation, vocabulary)
        return self._live.answer(messages, observation, vocabulary)


@dataclass
class LiveReport:
    """The continuation: where it came from, what it became, and whether the replayed part matched."""

    source_episode_id: str
    source_run_id: str
    live_from: int
    run_id: str
    episode_id: str
    model: str
    replayed_turns: int
    result: dict[str, Any]
    mismatches: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "source_episode_id": self.source_episode_id,
            "source_run_id": self.source_run_id,
            "live_from": self.live_from,
            "run_id": self.run_id,
            "episode_id": self.episode_id,
            "model": self.model,
            "replayed_turns": self.replayed_turns,
            "result": self.result,
            "replay_matches": not self.mismatches,
            "mismatches": self.mismatches,
        }


class _Tee:
    """Stores every turn and keeps the replayed ones in memory for the comparison with the record."""

    def __init__(self, store: TranscriptStore, replayed: int) -> None:
        self.store = store
        self.replayed = replayed
        self.turns: list[TurnRecord] = []

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        self.store.add_turn(episode_id, turn)
        if turn.index < self.replayed:
            self.turns.append(turn)


def continue_live(
    store: TranscriptStore,
    episode_id: str,
    live_from: int,
    model: str | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    model_factory: Any = None,
) -> LiveReport:
    """Replay turns ``0 .. live_from - 1`` of an episode, then let a live model play on.

    The continuation is stored as a new run of one episode, with the source run's config and
    template sources; its config names the source (``live_from``: run, episode, turn). ``model``
    and ``api_base`` default to the source run's; ``model_factory(backend)`` overrides how the live
    model is built (tests, embedding).
    """
    from agentkit import __version__
    from agentkit.runs.setup_episode import make_model, wrap_model

    episode = store.get_episode(episode_id)
    run = store.get_run(episode.run_id)
    recorded = store.get_turns(episode_id, with_messages=False)
    if not 0 <= live_from <= len(recorded):
        raise ValueError(
            f"--live-from {live_from}: episode {episode_id} has turns 0..{len(recorded) - 1}, "
            f"so the live model can take over at 0..{len(recorded)}"
        )
    if live_from and recorded[live_from - 1].done:
        raise ValueError(f"episode {episode_id} ended on turn {live_from - 1}: nothing is left to play live")
    source = RunConfig.from_stored(run.config)
    changes: dict[str, Any] = {"tasks": [episode.task], "episodes": 1, "seed": episode.seed}
    if model is not None:
        changes.update(model=model, api_base=api_base)
    elif api_base is not None:
        changes["api_base"] = api_base
    else:
        from agentkit.leaves.url_redaction import (
            url_to_resume,  # warns if the stored one lost its credentials
        )

        changes["api_base"] = url_to_resume(source.api_base, None)
    config = source.model_copy(update=changes)
    answers = [t.answer for t in recorded[:live_from]]
    calls = [t.tool_calls for t in recorded[:live_from]]

    def build(backend: Any) -> HandOverModel:
        live = (
            model_factory(backend)
            if model_factory
            else wrap_model(make_model(config, backend, api_key), config, store)
        )
        return HandOverModel(answers, live, calls)  # the loop hands it the episode's reader

    setup = make_setup(config, templates=run.templates, model_factory=build)
    use_stored_source(store, episode_id, episode.task, setup.backend)
    link = {"run_id": run.id, "episode_id": episode_id, "turn": live_from}
    new_run = store.create_run(
        env=run.env,
        tasks=[episode.task],
        model=config.model,
        config={**config.model_dump(), "agentkit_version": __version__, "live_from": link},
        templates=run.templates,
    )
    new_episode = store.start_episode(new_run, episode.task, episode.seed, trial=episode.trial)
    sink = _Tee(store, live_from)
    status = "unfinished"
    try:
        result = run_episode(setup, episode.task, episode.seed, sink=sink, episode_id=new_episode)
        result.trial = episode.trial
        store.finish_episode(new_episode, result)
        status = "finished"
    finally:
        store.finish_run(new_run, status)
        setup.backend.close()
    mismatches = []
    for rec, rep in zip(recorded, sink.turns):
        for name in ("script", "parse_error", "compile_error", "actions", "reward", "done"):
            if getattr(rec, name) != getattr(rep, name):
                mismatches.append(
                    f"turn {rec.index}: {name} recorded {getattr(rec, name)!r}, "
                    f"replayed {getattr(rep, name)!r}"
                )
    if len(sink.turns) < live_from:
        mismatches.append(f"the replay ended after {len(sink.turns)} of the {live_from} recorded turns")
    if mismatches:
        log.warning(
            "episode %s: the replayed turns differ from the record (%d differences); the live part "
            "does not start from the recorded state",
            episode_id,
            len(mismatches),
        )
    return LiveReport(
        source_episode_id=episode_id,
        source_run_id=run.id,
        live_from=live_from,
        run_id=new_run,
        episode_id=new_episode,
        model=config.model,
        replayed_turns=len(sink.turns),
        result=result.to_json(),
        mismatches=mismatches,
    )
