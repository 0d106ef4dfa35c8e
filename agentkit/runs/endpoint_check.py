"""The endpoint check before a run's first episode: does the model's server keep what the run sends?

Why: a server that drops the system message, the images or the tool schemas still answers every
turn, so a run against it looks normal and measures a model that never saw its instructions or
its view (issue 30: llama.cpp's ``gemma`` format counted 346 input tokens of our ~625, under the
per-turn "less than half" warning, and nothing said so). Here the run's needs (a system message
unless ``--fold-system``, images unless ``--no-images``, tools with ``--action-format tools``,
room for ``--max-tokens``) are compared with what ``agentkit.models.endpoint_probe`` finds: a
need the endpoint drops or refuses stops the run in one line naming the fix; what only may hurt
(an unknown answer, a small context, a reasoning model with few output tokens) is a warning.

What it costs: one tiny request per question (``max_tokens`` 1), and for a healthy endpoint
nothing on the next runs of the day (``agentkit.runs.endpoint_check_cache``). A cached answer that
says a need is not met is asked again before the run is stopped, so a server fixed since is never
refused from memory. ``--no-endpoint-check`` skips it all; the reference agent, a person, a
built-in controller, replayed answers and Inspect's ``mockllm`` never need it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from agentkit.models.controller_agent import is_controller_model
from agentkit.models.endpoint_probe import EndpointReport, EndpointTarget, fingerprint, probe_endpoint
from agentkit.models.local_server_key import key_for_server
from agentkit.runs.endpoint_check_cache import cache_key, cached_report, store_report
from agentkit.runs.preflight import LOCAL_MODELS, PreflightError

logger = logging.getLogger(__name__)

UNCHECKED_MODELS = (*LOCAL_MODELS, "replay")  # answered without a server
UNCHECKED_PREFIXES = ("mockllm/",)  # Inspect's stand-in model: no server behind it
PROBE_TIMEOUT_S = 60.0  # one probe request at most (a local server may load its model on the first)
# Room a run needs beside --max-tokens: a first turn's prompt (about 600 tokens of text on gridworld,
# 1,400 with one image on the arena) and a few turns of history on top.
CONTEXT_ROOM_TOKENS = 4096
# Reasoning models spend output tokens on hidden reasoning before the script (OpenAI's o-series and
# gpt-5 advise leaving 25,000); under this many the answer is often cut before it starts.
REASONING_MIN_TOKENS = 4096
_PARTS = {"system": "the system message", "images": "images", "tools": "tool schemas"}
_CONSEQUENCES = {
    "system": ", so the model would never see its instructions",
    "images": ", so the model would play blind",
    "tools": ", so no command would arrive as a tool call",
}
_FIXES = {"system": "--fold-system", "images": "--no-images", "tools": "--action-format text"}


class EndpointRefused(PreflightError):
    """The endpoint drops or refuses what the run's templates need; the message names the fix."""


@dataclass(frozen=True)
class EndpointNeeds:
    """What a run sends that an endpoint might not keep."""

    system: bool  # a system message (not folded into the first user message)
    images: bool
    tools: bool
    max_tokens: int

    @classmethod
    def of(cls, config: Any) -> EndpointNeeds:
        """The needs of a ``RunConfig``."""
        return cls(
            system=not config.fold_system,
            # images reach the model only when sent and made (a text modality's observer makes none)
            images=bool(config.include_images) and "image" in config.observer.views,
            tools=config.action_format == "tools",
            max_tokens=int(config.max_tokens),
        )

    def wanted(self) -> list[str]:
        return [name for name in ("system", "images", "tools") if getattr(self, name)]


def needs_endpoint_check(model: str) -> bool:
    """Whether ``model`` is answered by a server the check can ask (litellm ids, not local stand-ins)."""
    return not (
        model in UNCHECKED_MODELS or is_controller_model(model) or model.startswith(UNCHECKED_PREFIXES)
    )


def check_endpoints(configs: list[Any], api_key: str | None, use_cache: bool = True) -> list[str]:
    """:func:`check_endpoint` for each distinct endpoint and needs among ``configs`` (an experiment's
    models); the warnings of all, each once."""
    lines: list[str] = []
    seen: set[tuple[str, str | None, EndpointNeeds]] = set()
    for config in configs:
        key = (config.model, config.api_base, EndpointNeeds.of(config))
        if key not in seen:
            seen.add(key)
            lines.extend(line for line in check_endpoint(config, api_key, use_cache) if line not in lines)
    return lines


def check_endpoint(config: Any, api_key: str | None, use_cache: bool = True) -> list[str]:
    """The warnings for run ``config``'s endpoint (one line each); raises :class:`EndpointRefused`
    (one line naming the fix) when it drops or refuses what the run needs."""
    if not needs_endpoint_check(config.model):
        return []
    needs = EndpointNeeds.of(config)
    api_key = key_for_server(api_key, config.api_base)  # as the run's client sends it
    target = EndpointTarget(config.model, config.api_base, api_key, min(config.timeout_s, PROBE_TIMEOUT_S))
    report = _report(target, needs, use_cache)
    refusal = refusal_line(report, needs, target)
    if refusal:
        raise EndpointRefused(refusal)
    return warning_lines(report, needs, target)


def _report(target: EndpointTarget, needs: EndpointNeeds, use_cache: bool) -> EndpointReport:
    """A cached report that settles every need, else a fresh one (cached when nothing was unknown)."""
    key = cache_key(target.api_base, target.model, fingerprint(target))
    cached = cached_report(key) if use_cache else None
    if cached is not None and all(getattr(cached, name) == "kept" for name in needs.wanted()):
        logger.debug("endpoint check of %s: from the cache", target.shown)
        return cached
    report = probe_endpoint(target, images=needs.images, tools=needs.tools, system=needs.system)
    logger.info("endpoint check of %s: %s", target.shown, report.to_json())
    if cached is not None:  # what this run did not ask stays as the earlier run found it
        for name in ("system", "images", "tools"):
            if getattr(report, name) == "unchecked":
                setattr(report, name, getattr(cached, name))
    if use_cache and "unknown" not in (report.system, report.images, report.tools):
        store_report(key, report)
    return report


def refusal_line(report: EndpointReport, needs: EndpointNeeds, target: EndpointTarget) -> str | None:
    """One line when the endpoint drops or refuses a need (every such need named, with its fix), or
    when ``--max-tokens`` alone fills its context; else None."""
    failed = [name for name in needs.wanted() if getattr(report, name) in ("dropped", "refused")]
    if failed:
        what = "; it ".join(
            f"{getattr(report, name)} {_PARTS[name]} ({report.reasons.get(name, 'no reason given')})"
            f"{_CONSEQUENCES[name]}"
            for name in failed
        )
        fixes = " ".join(_FIXES[name] for name in failed)
        return (
            f"--model {target.model} at {target.shown}: the endpoint {what}; "
            f"add {fixes} (or --no-endpoint-check to run anyway)"
        )
    if report.context_tokens is not None and needs.max_tokens >= report.context_tokens:
        return (
            f"--max-tokens {needs.max_tokens}: the endpoint's context is {report.context_tokens} tokens, "
            "with no room left for the prompt; give a smaller --max-tokens or serve a larger context"
        )
    return None


def warning_lines(report: EndpointReport, needs: EndpointNeeds, target: EndpointTarget) -> list[str]:
    """What may hurt the run without stopping it: a need the check could not settle, a context with
    little room beside ``--max-tokens``, a reasoning model with few output tokens."""
    lines = []
    for name in needs.wanted():
        if getattr(report, name) == "unknown":
            lines.append(
                f"endpoint check: cannot tell whether {target.shown} keeps {_PARTS[name]} "
                f"({report.reasons.get(name, 'no reason given')}); if it does not, add {_FIXES[name]}"
            )
    context = report.context_tokens
    if context is not None and needs.max_tokens < context < needs.max_tokens + CONTEXT_ROOM_TOKENS:
        lines.append(
            f"endpoint check: {target.shown} has a context of {context} tokens, "
            f"{context - needs.max_tokens} of them left for prompts beside --max-tokens {needs.max_tokens}; "
            "long episodes may outgrow it (--memory window:K, or a larger context: llama.cpp's -c)"
        )
    if needs.max_tokens < REASONING_MIN_TOKENS and _reasons(target.model):
        lines.append(
            f"{target.model} reasons before it answers, and its reasoning counts against --max-tokens "
            f"{needs.max_tokens}: give --max-tokens {REASONING_MIN_TOKENS} or more, or answers may be cut empty"
        )
    return lines


def _reasons(model: str) -> bool:
    try:
        from agentkit.models.litellm_model import litellm

        return bool(litellm.supports_reasoning(model=model))
    except Exception:  # litellm raises for models missing from its table
        return False
