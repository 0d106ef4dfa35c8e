"""Re-render a recorded run's prompts with new templates or a new history policy, without any model.

Why: the cheapest prompt iteration is to see, before spending anything, exactly what a changed
template would have sent on every recorded turn. For each turn the Observation the model saw is
rebuilt from the stored observation JSON (images by hash), the prompt is rendered the way the loop
renders it (same context, same feedback after an unusable answer, same history of earlier prompts
paired with the recorded answers, now passed through the chosen memory policy), and compared with
the messages actually sent: a unified diff per turn and token counts before and after.

The answers stay the recorded ones, so from the first changed turn on this shows what the new
prompt would have looked like on the old trajectory, not what a model would have done with it.

Speed matters (runs have thousands of turns and this is meant to be rerun on every template
edit), so the recorded prompts are read as references to their content blobs and every distinct
message is parsed, compared and counted once, and images are handled by hash only: prompts are
rendered as typed messages (``agentkit.messages``), whose image parts carry the stored sha256 (a
``StoredImage``'s bytes are never loaded), so no data URL is made, decoded or hashed.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from agentkit.actions import Vocabulary
from agentkit.actions.tool_calls import script_from_tool_calls
from agentkit.actions.tool_results import tool_results
from agentkit.config import RunConfig
from agentkit.control.modes import check_same_control
from agentkit.envs import get_backend
from agentkit.memory import MemoryPolicy, TurnMessages, memory_policy_from_spec
from agentkit.messages import ImagePart, ToolCall
from agentkit.messages import Message as TypedMessage
from agentkit.models.token_count import CHARS_PER_TOKEN, TokenCounter, token_counter
from agentkit.offline.fork_map import fork_map
from agentkit.offline.line_diff import unified_diff
from agentkit.offline.stored_observation import StoredImage, observation_from_json
from agentkit.prompts import PromptRenderer
from agentkit.prompts.renderer import EXAMPLES_NAME, TEMPLATE_NAMES, TemplateError, resolve_templates
from agentkit.runs.setup_episode import check_tool_templates
from agentkit.transcripts import TranscriptReader
from agentkit.transcripts.message_tool_calls import tool_extra
from agentkit.transcripts.prompt_reader import PromptTurn

log = logging.getLogger(__name__)
# Re-exported: callers and tests import them from here.
__all__ = [
    "CHARS_PER_TOKEN",
    "RerenderReport",
    "StoredImage",
    "TokenCounter",
    "TurnChange",
    "observation_from_json",
    "rerender_run",
    "token_counter",
]

MESSAGE_OVERHEAD_TOKENS = 3  # OpenAI chat format: role and separators around every message
REPLY_PRIMING_TOKENS = 3  # the assistant turn the request opens

# --- messages as comparable, countable values ------------------------------------------------------

Part = tuple[str, str]  # ("text", text) or ("image", sha256)
Msg = tuple[str, tuple[Part, ...], str]  # (role, parts, extra keys as canonical JSON or "")


@functools.lru_cache(maxsize=256)
def _data_url_sha256(url: str) -> str:
    """The hash the store files a base64 data-URL image under (of its decoded bytes)."""
    header, _, payload = url.partition(",")
    if url.startswith("data:") and header.endswith(";base64"):
        try:
            return hashlib.sha256(base64.b64decode(payload, validate=True)).hexdigest()
        except (binascii.Error, ValueError):
            pass
    return "inline:" + hashlib.sha256(url.encode()).hexdigest()


class _Messages:
    """Interns messages as ``Msg`` tuples, so equal messages are one object, counted once."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._interned: dict[Msg, Msg] = {}
        self.typed: dict[TypedMessage, Msg] = {}  # rendered typed messages (compared by value) -> interned
        self._tokens: dict[int, int] = {}
        self._role_tokens: dict[str, int] = {}
        self.image_sizes: dict[str, tuple[int, int]] = {}

    def of_content(self, role: str, content: Any, extra: dict[str, Any] | None) -> Msg:
        if content.__class__ is str:
            parts: tuple[Part, ...] = (("text", content),)
        elif isinstance(content, list):
            parts = tuple(
                [
                    ("text", p["text"])
                    if p.__class__ is dict and p.get("type") == "text" and p.get("text").__class__ is str
                    else self._part(p)
                    for p in content
                ]
            )
        else:
            parts = (("text", json.dumps(content, sort_keys=True)),)
        msg = (role, parts, json.dumps(extra, sort_keys=True) if extra else "")
        return self._interned.setdefault(msg, msg)

    def of_typed(self, message: TypedMessage) -> Msg:
        """A rendered typed message as an interned ``Msg`` (images by their sha256)."""
        msg = self.typed.get(message)
        if msg is None:
            content = message.content
            if isinstance(content, str):
                parts: tuple[Part, ...] = (("text", content),)
            else:
                parts = tuple(
                    [("image", p.sha256) if isinstance(p, ImagePart) else ("text", p.text) for p in content]
                )
            extra = tool_extra(message)  # a tool call or result: its keys, as the store keeps them
            key = (message.role, parts, json.dumps(extra, sort_keys=True) if extra else "")
            msg = self.typed[message] = self._interned.setdefault(key, key)
        return msg

    def of_message(self, message: dict[str, Any]) -> Msg:
        if len(message) == 2 and "content" in message and "role" in message:  # the usual shape: no extra keys
            return self.of_content(str(message["role"]), message["content"], None)
        extra = {k: v for k, v in message.items() if k not in ("role", "content")}
        return self.of_content(str(message.get("role", "")), message.get("content"), extra or None)

    @staticmethod
    def _part(p: Any) -> Part:
        if isinstance(p, dict):
            kind = p.get("type")
            if kind == "text":
                return ("text", str(p.get("text", "")))
            if kind == "image_ref":
                return ("image", str(p.get("sha256", "")))
            if kind == "image_url":
                url = str((p.get("image_url") or {}).get("url", ""))
                return ("image", _data_url_sha256(url))
        return ("text", json.dumps(p, sort_keys=True))

    def tokens(self, msg: Msg) -> int:
        n = self._tokens.get(id(msg))
        if n is None:
            n = self._role_tokens.get(msg[0])
            if n is None:
                n = self._role_tokens[msg[0]] = MESSAGE_OVERHEAD_TOKENS + self.counter.text(msg[0])
            for kind, value in msg[1]:
                if kind == "text":
                    n += self.counter.text(value)
                else:  # an image no observation describes (e.g. a worked example's): assume 512x512
                    n += self.counter.image(*self.image_sizes.get(value, (512, 512)))
            self._tokens[id(msg)] = n  # interned messages live as long as this object: ids stay valid
        return n

    def prompt_tokens(self, msgs: list[Msg]) -> int:
        counted = self._tokens
        if msgs and id(msgs[-1]) not in counted:  # usually the only new message: the current turn's
            self.tokens(msgs[-1])
        try:  # the common case, every message counted already: a sum at C speed
            return REPLY_PRIMING_TOKENS + sum(map(counted.__getitem__, map(id, msgs)))
        except KeyError:
            for m in [m for m in msgs if id(m) not in counted]:
                self.tokens(m)
            return REPLY_PRIMING_TOKENS + sum(map(counted.__getitem__, map(id, msgs)))


def message_lines(msg: Msg) -> list[str]:
    """A message as diffable text lines: a role header, the text, images as their hash."""
    lines = [f"### {msg[0]}" + (f" {msg[2]}" if msg[2] else "")]
    for kind, value in msg[1]:
        if kind == "text":
            lines.extend(value.split("\n"))
        else:
            lines.append(f"[image {value[:16]}]")
    return lines


_IMAGES_IN: dict[Msg, int] = {}


def _count_images(msgs: list[Msg]) -> int:
    """Images in a message list; each distinct message's count is worked out once (histories repeat)."""
    try:  # the common case, every message seen before: a sum at C speed
        return sum(map(_IMAGES_IN.__getitem__, msgs))
    except KeyError:
        if len(_IMAGES_IN) > 100_000:
            _IMAGES_IN.clear()
        for m in msgs:
            if m not in _IMAGES_IN:
                _IMAGES_IN[m] = sum(1 for kind, _ in m[1] if kind == "image")
        return sum(map(_IMAGES_IN.__getitem__, msgs))


# --- the report ----------------------------------------------------------------------------------------


@dataclass
class TurnChange:
    """One recorded turn: whether the re-rendered prompt differs, how, and its size before and after."""

    episode_id: str
    index: int
    changed: bool
    tokens_before: int
    tokens_after: int
    diff: str = ""  # unified diff of the turn's own message (or of the whole prompt), recorded -> re-rendered
    system_diff: str = ""  # the system message's diff, kept on the first turn showing this change
    system_same_as: str = ""  # "<episode> turn <k>": the system message changed as shown there
    history: str = ""  # a note when the history part of the prompt changed shape

    @property
    def delta(self) -> int:
        return self.tokens_after - self.tokens_before

    def to_json(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "index": self.index,
            "changed": self.changed,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "delta": self.delta,
            "diff": self.diff,
            "system_diff": self.system_diff,
            "system_same_as": self.system_same_as,
            "history": self.history,
        }


@dataclass
class RerenderReport:
    run_id: str
    env: str
    templates_changed: list[str]  # template names whose source differs from the run's
    memory_before: str
    memory_after: str
    token_counter: str
    episodes: int = 0
    seconds: float = 0.0
    workers: int = 1
    turns: list[TurnChange] = field(default_factory=list)
    # Episodes recorded before the store kept each episode's prompt variables: their backend facts
    # (e.g. an arena's time limit) were rebuilt without the world, so their prompts may differ.
    episodes_without_context: int = 0

    @property
    def changed_turns(self) -> int:
        return sum(t.changed for t in self.turns)

    @property
    def tokens_before(self) -> int:
        return sum(t.tokens_before for t in self.turns)

    @property
    def tokens_after(self) -> int:
        return sum(t.tokens_after for t in self.turns)

    @property
    def turns_per_s(self) -> float:
        return len(self.turns) / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "env": self.env,
            "templates_changed": self.templates_changed,
            "memory_before": self.memory_before,
            "memory_after": self.memory_after,
            "token_counter": self.token_counter,
            "episodes": self.episodes,
            "turns": len(self.turns),
            "changed_turns": self.changed_turns,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "delta": self.tokens_after - self.tokens_before,
            "seconds": self.seconds,
            "workers": self.workers,
            "episodes_without_context": self.episodes_without_context,
            "per_turn": [t.to_json() for t in self.turns],
        }


# --- what a run's prompts were made from ------------------------------------------------------------


def overlay_templates(
    recorded: dict[str, str], template_set: str, templates_dir: str | Path | None
) -> dict[str, str]:
    """The run's recorded template sources, overridden by the files ``templates_dir`` provides.

    ``templates_dir`` is read as ``agentkit run --templates`` reads it (a folder, with files in
    ``DIR/<set>/`` taking precedence, or the name of a packaged set), but a file it lacks keeps
    the run's recorded source rather than the package's, so changing one file changes only it.
    """
    sources = dict(recorded)
    if templates_dir is None:
        return sources
    resolved = resolve_templates(template_set, templates_dir)  # TemplateError for a bad folder or set
    base = Path(templates_dir)
    if base.is_dir():
        folders: list[Any] = [base, base / template_set]
    else:
        folders = [resources.files("agentkit.prompts").joinpath("templates").joinpath(str(templates_dir))]
    provided = [n for n in (*TEMPLATE_NAMES, EXAMPLES_NAME) if any(f.joinpath(n).is_file() for f in folders)]
    if not provided:
        raise TemplateError(
            f"--templates {templates_dir}: no {', '.join((*TEMPLATE_NAMES, EXAMPLES_NAME))} in it"
        )
    for name in provided:
        sources[name] = resolved[name]
    return sources


def backend_prompt_facts(config: RunConfig) -> tuple[str, Vocabulary, dict[str, Any]]:
    """(template set, vocabulary, extra prompt variables) of a run's backend, env not started.

    The backend is constructed with the run's options but never reset, which is what starts a
    simulator, so this needs no running world. Its per-episode facts are then missing; they are
    used only for episodes recorded before the store kept each episode's prompt variables.
    """
    backend_cls = get_backend(config.env)
    try:
        backend = backend_cls(**config.backend_options)
    except TypeError as exc:
        raise ValueError(f"backend options for {config.env!r}: {exc}") from None
    try:
        return backend_cls.template_set, backend.vocabulary, dict(backend.prompt_context())
    finally:
        backend.close()


# --- re-rendering ----------------------------------------------------------------------------------------


class _Differ:
    """Unified diffs between two message lists, each distinct pair of messages diffed once."""

    def __init__(self, context: int) -> None:
        self.context = context
        self._seen: dict[tuple[int, int], str] = {}

    def messages(self, old: Msg | None, new: Msg | None, label: str) -> str:
        key = (id(old), id(new))
        hit = self._seen.get(key)
        if hit is not None:
            return hit
        a = message_lines(old) if old is not None else []
        b = message_lines(new) if new is not None else []
        text = unified_diff(a, b, f"recorded {label}", f"rerendered {label}", self.context)
        self._seen[key] = text
        return text

    def prompts(self, old: list[Msg], new: list[Msg], label: str) -> str:
        a = [line for m in old for line in message_lines(m)]
        b = [line for m in new for line in message_lines(m)]
        return unified_diff(a, b, f"recorded {label}", f"rerendered {label}", self.context)


@dataclass
class _Job:
    """Everything needed to re-render episodes of one run, built once (and inherited by workers)."""

    store: TranscriptReader
    renderer: PromptRenderer
    policy: MemoryPolicy
    config: RunConfig
    commands: list[dict[str, str]]
    backend_context: dict[str, Any]
    counter: TokenCounter
    full_prompt: bool
    context_lines: int
    vocabulary: Vocabulary | None = None  # a run of tool calls: its refusals are re-made as tool results


_FORKED_JOB: _Job | None = None  # the job of the workers forked by _run_parallel


def rerender_run(
    store: TranscriptReader,
    run_id: str,
    templates_dir: str | Path | None = None,
    memory: str | None = None,
    episode_ids: list[str] | None = None,
    full_prompt: bool = False,
    context_lines: int = 3,
    counter: TokenCounter | None = None,
    workers: int | None = None,
    control: str | None = None,
) -> RerenderReport:
    """Re-render every recorded turn of a run (or of some of its episodes) and report the changes.

    By default a turn's diff covers its own user message, plus the system message the first time
    a given change of it appears; the history part is summarised, since its messages are earlier
    turns' prompts whose diffs are shown on those turns. ``full_prompt`` diffs the whole message
    list. ``workers`` (default: one per idle CPU for runs of a thousand turns or more, on Linux)
    splits the episodes between forked processes; the report is the same either way.
    """
    started = time.perf_counter()
    run = store.get_run(run_id)
    config = RunConfig.from_stored(run.config)
    check_same_control(config.control, control, run_id)  # another mode cannot re-render these turns
    template_set, vocabulary, backend_context = backend_prompt_facts(config)
    sources = overlay_templates(run.templates, template_set, templates_dir)
    if config.action_format == "tools":  # templates asking for text scripts cannot re-render tool calls
        check_tool_templates(sources)
    job = _Job(
        store,
        PromptRenderer(sources, include_images=config.include_images),
        memory_policy_from_spec(memory or config.memory),
        config,
        vocabulary.describe(),
        backend_context,
        counter or token_counter(run.model),
        full_prompt,
        context_lines,
        vocabulary if config.action_format == "tools" else None,
    )
    report = RerenderReport(
        run_id=run_id,
        env=run.env,
        templates_changed=sorted(
            n for n in set(sources) | set(run.templates) if sources.get(n) != run.templates.get(n)
        ),
        memory_before=config.memory,
        memory_after=job.policy.spec,
        token_counter=job.counter.name,
    )
    episodes = store.list_episodes(run_id=run_id)
    if episode_ids is not None:
        wanted = set(episode_ids)
        unknown = wanted - {e.id for e in episodes}
        if unknown:
            raise KeyError(f"episode(s) {', '.join(sorted(unknown))} are not in run {run_id}")
        episodes = [e for e in episodes if e.id in wanted]
    plan = [(e.id, e.task) for e in episodes]
    turns = [e.turns or 0 for e in episodes]
    n_workers = report.workers = _workers(workers, sum(turns), len(plan))
    if n_workers > 1:
        results = _run_parallel(job, plan, turns, n_workers)
    else:
        results = _run_episodes(job, plan)
    for changes, rebuilt in results:
        if changes:
            report.episodes += 1
            report.episodes_without_context += rebuilt
            report.turns.extend(changes)
    _once_per_system_change(report.turns)
    report.seconds = time.perf_counter() - started
    return report


def _workers(asked: int | None, turns: int, episodes: int) -> int:
    if asked is not None:
        return max(1, min(asked, episodes))
    if turns < 1000 or episodes < 2 or not sys.platform.startswith("linux"):
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    # Workers on CPUs that other programs keep busy only slow each other down. This process, busy
    # too, is part of the load average: it will be one of the workers.
    idle = cpus - max(0.0, os.getloadavg()[0] - 1.0)
    return max(1, min(round(idle), 8, episodes))


def _run_parallel(
    job: _Job, plan: list[tuple[str, str]], turns: list[int], workers: int
) -> list[_EpisodeOutcome]:
    """The episodes split into ``workers`` contiguous parts of about equal turns, one forked
    process each (this process doing the last), results in plan order."""
    global _FORKED_JOB
    parts = _balanced_parts(plan, turns, workers)
    _FORKED_JOB = job
    try:
        return [changes for part in fork_map(_work, parts, after_fork=_after_fork) for changes in part]
    finally:
        _FORKED_JOB = None


def _balanced_parts(plan: list[tuple[str, str]], turns: list[int], parts: int) -> list[list[tuple[str, str]]]:
    """``plan`` cut into at most ``parts`` contiguous, non-empty pieces of about equal total turns."""
    total = sum(max(t, 1) for t in turns)
    out: list[list[tuple[str, str]]] = [[]]
    done = 0
    for item, n in zip(plan, turns):
        if out[-1] and len(out) < parts and done >= total * len(out) / parts:
            out.append([])
        out[-1].append(item)
        done += max(n, 1)
    return out


def _after_fork() -> None:
    """In a forked worker: new database connections (the parent's must not be shared)."""
    assert _FORKED_JOB is not None
    _FORKED_JOB.store.engine.dispose(close=False)


def _work(part: list[tuple[str, str]]) -> list[_EpisodeOutcome]:
    assert _FORKED_JOB is not None
    return _run_episodes(_FORKED_JOB, part)


_EpisodeOutcome = tuple[list[TurnChange], bool]  # an episode's turn changes; was its context rebuilt?


def _run_episodes(job: _Job, plan: list[tuple[str, str]]) -> list[_EpisodeOutcome]:
    msgs = _Messages(job.counter)
    differ = _Differ(job.context_lines)
    out: list[_EpisodeOutcome] = []
    # each distinct stored message becomes an interned Msg once, for all episodes read
    with job.store.episode_prompt_reader(msgs.of_content) as reader:
        for episode_id, task in plan:
            recorded = reader.read(episode_id)
            if not recorded:
                out.append(([], False))
                continue
            context = job.store.get_prompt_context(episode_id)
            changes = _rerender_episode(job, episode_id, task, recorded, context, msgs, differ)
            out.append((changes, context is None))
    return out


def _prefix(renderer: PromptRenderer, context: dict[str, Any]) -> list[TypedMessage]:
    """What opens every prompt of an episode: the system message, and a worked example if the set has one."""
    return renderer.typed_prefix_messages(context)


def _rerender_episode(
    job: _Job,
    episode_id: str,
    task: str,
    recorded: list[PromptTurn[Msg]],
    context: dict[str, Any] | None,
    msgs: _Messages,
    differ: _Differ,
) -> list[TurnChange]:
    """Re-render one episode's turns with the variables its prompts were made from: the recorded
    ones, or for an older transcript the run's vocabulary and limits with the backend's static facts."""
    renderer = job.renderer
    if context is None:
        first = observation_from_json(recorded[0].observation)
        context = {
            "commands": job.commands,
            "max_scripts": job.config.max_scripts,
            "task": task,
            "has_images": renderer.include_images and bool(first.images),
            **job.backend_context,
        }
    prefix = [msgs.of_typed(m) for m in _prefix(renderer, context)]
    history: list[TurnMessages] = []
    interned = msgs.typed  # rendered typed messages -> interned messages (by value)
    feedback: str | None = None
    out = []
    for turn in recorded:
        observation = observation_from_json(turn.observation)
        for image in observation.images:
            msgs.image_sizes.setdefault(image.sha256, (image.width, image.height))
        user_message = renderer.typed_turn_message(observation, context, feedback, turn.index)
        calls = tuple(ToolCall.from_json(c) for c in turn.tool_calls or ())
        assistant_message = TypedMessage("assistant", turn.answer, calls)
        user = msgs.of_typed(user_message)
        msgs.of_typed(assistant_message)
        selected = job.policy.select(history)
        # the history's messages are interned already; a policy that rewrites messages (dropping images) makes new ones
        found = [
            m if m is not None else msgs.of_typed(d) for m, d in zip(map(interned.get, selected), selected)
        ]
        new = [*prefix, *found, user]
        old = turn.messages
        change = TurnChange(
            episode_id, turn.index, new != old, msgs.prompt_tokens(old), msgs.prompt_tokens(new)
        )
        if change.changed:
            label = f"{episode_id} turn {turn.index}"
            if job.full_prompt:
                change.diff = differ.prompts(old, new, label)
            else:
                if old[:1] != new[:1]:
                    change.system_diff = differ.messages(
                        old[0] if old else None, new[0] if new else None, f"{label} system"
                    )
                if old[-1:] != new[-1:]:
                    change.diff = differ.messages(old[-1] if old else None, new[-1], label)
            old_hist, new_hist = old[1:-1], new[1:-1]
            if len(old_hist) != len(new_hist) or _count_images(old_hist) != _count_images(new_hist):
                change.history = (
                    f"history: {len(old_hist)} messages, {_count_images(old_hist)} images -> "
                    f"{len(new_hist)} messages, {_count_images(new_hist)} images"
                )
        out.append(change)
        results: tuple[TypedMessage, ...] = ()
        if (
            calls and job.vocabulary is not None
        ):  # as the loop answers each call (agentkit.actions.tool_results)
            results = tool_results(calls, script_from_tool_calls(list(calls), job.vocabulary))
            for result in results:
                msgs.of_typed(result)
        history.append(TurnMessages(user=user_message, assistant=assistant_message, results=results))
        feedback = turn.parse_error.get("message") if turn.parse_error else turn.compile_error
        if results and turn.parse_error:
            feedback = None  # the refusal went back as the refused call's result
    return out


def _once_per_system_change(turns: list[TurnChange]) -> None:
    """Keep each distinct system-message diff on the first turn it appears; later turns point back."""
    first: dict[str, str] = {}
    for t in turns:
        if t.system_diff:
            seen = first.get(t.system_diff)
            if seen is None:
                first[t.system_diff] = f"{t.episode_id} turn {t.index}"
            else:
                t.system_diff = ""
                t.system_same_as = seen
