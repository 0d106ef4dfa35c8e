"""An agentkit run written as an Inspect log file, so ``inspect view`` (and ``read_eval_log``) open it.

Why: a researcher who reads evaluations in Inspect's viewer should see agentkit runs there too, also
runs played by ``agentkit run`` or ``agentkit eval`` rather than through Inspect. Each episode becomes a
sample (id: the task, epoch: the trial + 1) with its turns as the conversation (the system prompt,
then each turn's new prompt and the model's answer), agentkit's pass and reward as its score, and the
episode's record as its metadata. Called by ``agentkit transcripts export --format inspect``.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    Content,
    ContentImage,
    ContentText,
    ModelOutput,
)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall

from agentkit.inspect_tasks.inspect_participant import chat_message
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.records import EpisodeInfo, TurnInfo

log = logging.getLogger(__name__)

SCORER = "agentkit_score"  # the scorer's name, as the Inspect tasks of agentkit.inspect_tasks report it


def _conversation(turns: list[TurnInfo]) -> list[ChatMessage]:
    """The episode as one chat: the first prompt whole, then each later turn's last message (what the
    turn added), each followed by the answer the model gave."""
    chat: list[ChatMessage] = []
    for turn in turns:
        messages = turn.messages or []
        if chat:  # the tool results answering the previous answer's calls (--action-format tools)
            chat.extend(_tool_results(messages[:-1]))
        chat.extend(_stored_to_inspect(messages if not chat else messages[-1:]))
        chat.append(ChatMessageAssistant(content=turn.answer, tool_calls=_tool_calls(turn.tool_calls)))
    return chat


def _stored_to_inspect(messages: list[dict[str, Any]]) -> list[ChatMessage]:
    """Stored prompt messages (the OpenAI form the store reads back) as Inspect chat messages."""
    return [chat_message(str(m.get("role", "user")), _stored_content(m.get("content"))) for m in messages]


def _stored_content(content: Any) -> str | list[Content]:
    """A stored message's content as Inspect content (text, or text and image parts)."""
    if isinstance(content, str):
        return content
    parts: list[Content] = []
    for part in content or []:
        if part.get("type") == "image_url":
            parts.append(ContentImage(image=part["image_url"]["url"]))
        else:
            parts.append(ContentText(text=str(part.get("text", ""))))
    return parts


def _tool_calls(calls: list[dict[str, str]] | None) -> list[ToolCall] | None:
    """A turn's stored tool calls as Inspect's (arguments that are not a JSON object kept as a parse error)."""
    if not calls:
        return None
    out = []
    for call in calls:
        try:
            arguments = json.loads(call.get("arguments") or "{}")
            problem = None if isinstance(arguments, dict) else "the arguments are not a JSON object"
        except ValueError:
            arguments, problem = None, "the arguments are not valid JSON"
        out.append(
            ToolCall(
                id=call.get("id", ""),
                function=call.get("name", ""),
                arguments=arguments if isinstance(arguments, dict) else {},
                parse_error=problem,
            )
        )
    return out


def _tool_results(messages: list[dict[str, Any]]) -> list[ChatMessage]:
    """The ``tool`` messages at the end of a prompt's history (those after its last answer)."""
    results: list[ChatMessage] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        content = message.get("content")
        results.append(
            ChatMessageTool(
                content=content if isinstance(content, str) else "", tool_call_id=message.get("tool_call_id")
            )
        )
    return results[::-1]


def _sample(episode: EpisodeInfo, turns: list[TurnInfo], model: str) -> EvalSample:
    chat = _conversation(turns)
    first_user = next((m.text for m in chat if m.role == "user"), episode.task)
    passed = 1.0 if episode.success else 0.0
    return EvalSample(
        id=episode.task,
        epoch=episode.trial + 1,
        input=first_user,
        target="",
        messages=chat,
        output=ModelOutput.from_content(model, turns[-1].answer if turns else ""),
        scores={
            SCORER: Score(
                value={"pass": passed, "reward": float(episode.reward or 0.0)},
                explanation=f"{episode.task}: {episode.end_reason} after {episode.scripts or 0} script(s)",
            )
        },
        metadata={"agentkit": episode.to_json()},
    )


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def run_as_eval_log(store: TranscriptStore, run_id: str) -> EvalLog:
    """The run ``run_id`` of ``store`` as an Inspect EvalLog (KeyError in one line for an unknown run)."""
    run = store.get_run(run_id)
    episodes = store.list_episodes(run_id=run_id)
    samples = [_sample(e, store.get_turns(e.id), run.model) for e in episodes]
    passes = [1.0 if e.success else 0.0 for e in episodes]
    rewards = [float(e.reward or 0.0) for e in episodes]
    spec = EvalSpec(
        created=run.created_at.isoformat(),
        task=f"agentkit/{run.env}",
        task_args={"env": run.env, "tasks": list(run.tasks)},
        dataset=EvalDataset(name=run.env, samples=len({e.task for e in episodes})),
        model=run.model,
        config=EvalConfig(),
        metadata={
            "agentkit_run_id": run.id,
            "agentkit_version": run.agentkit_version,
            "agentkit_status": run.status,
        },
    )
    results = EvalResults(
        total_samples=len(samples),
        completed_samples=sum(1 for e in episodes if e.status == "finished"),
        scores=[
            EvalScore(
                name="pass", scorer=SCORER, metrics={"mean": EvalMetric(name="mean", value=_mean(passes))}
            ),
            EvalScore(
                name="reward", scorer=SCORER, metrics={"mean": EvalMetric(name="mean", value=_mean(rewards))}
            ),
        ],
    )
    status: Any = (
        "success" if run.status == "finished" else "started" if run.status == "running" else "cancelled"
    )
    return EvalLog(eval=spec, status=status, results=results, samples=samples)


def export_inspect_log(store: TranscriptStore, run_id: str, out_path: str | os.PathLike[str]) -> Path:
    """Write run ``run_id`` as an Inspect log at ``out_path`` (``.json`` for JSON, ``.eval`` for Inspect's
    zipped format); the path written."""
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(run_as_eval_log(store, run_id), str(out))
    log.info("wrote run %s as an Inspect log to %s", run_id, out)
    return out
