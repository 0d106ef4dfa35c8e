"""The protocol of an episode: when the world's clock starts, what the model sees before its first
answer, and what an unusable answer costs and is told.

Why a module of its own: this is a different axis from the pass rule (``agentkit.pass_rule``, how
an episode is judged). Two harnesses that judge alike still differ in timing: the LLM-AAI paper's
harness (Kinds-of-Intelligence-CFI/LLM-AAI, commit e339118, ``experiment1.py``) lets 49 steps of
the clock pass and shows three pictures before the model's first answer, so its episodes cannot be
compared step for step with ours, where the clock starts at the first answer. A run chooses one
(``RunConfig.protocol``, ``--protocol``, ``protocol:`` in an experiment file) and stores it;
``docs/protocols.md`` sets the two side by side with the facts and their lines in the LLM-AAI source.

What is the same under both: one answer is one script, parseable or not; a script runs whole and is
followed by one observation taken at once (LLM-AAI appends an observation to every script and does
not wait after it); an unusable answer costs the backend's idle action (one no-op step on Animal-AI);
when the scripts run out the world's clock is run out with the idle action (``Backend.run_out_clock``).
What differs is the start, the reply to an unusable answer, and whether a run of unusable answers
ends the episode. Only backends that list a protocol in ``Backend.protocols`` play it (the LLM-AAI
harness is Animal-AI's: ``aai-arena`` and ``animalai``); others refuse it in one line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

from agentkit.envs.base import Backend
from agentkit.observers import Observation
from agentkit.observers.observation import EncodedImage
from agentkit.observers.observer import Observer
from agentkit.records import EndReason

log = logging.getLogger(__name__)

# The reply to an answer that does not parse under the llm-aai protocol, in our words. LLM-AAI
# replied with one fixed message whatever was wrong (``PREVIOUS_RESPONSE_IS_INVALID``,
# src/definitions/prompts/observations.py lines 9-11): the answer was invalid, only the script
# language may be used, the agent will not move until it is, and its health keeps falling.
UNUSABLE_REPLY = (
    "it was not a script of the commands above, so you did not move, and your health kept "
    "going down meanwhile. Answer with those commands only."
)


@dataclass(frozen=True)
class EpisodeProtocol:
    """One protocol's timing and feedback (the two are ``AGENTKIT`` and ``LLM_AAI``).

    ``start_idle_steps``: idle steps after the reset before the first observation is taken.
    ``start_observations``: pictures taken before the first answer, all sent with the first prompt
    (0: the model sees the reset's own view). ``observation_wait``: idle steps after each of them.
    ``unusable_reply``: the fixed reply to an answer that does not parse (None: the parser's own
    message, naming what is wrong). ``parse_failures_end_episode``: whether ``max_parse_failures``
    unusable answers in a row end the episode (LLM-AAI had no such limit).
    """

    name: str
    start_idle_steps: int = 0
    start_observations: int = 0
    observation_wait: int = 0
    unusable_reply: str | None = None
    parse_failures_end_episode: bool = True

    @property
    def start_steps(self) -> int:
        """Steps of the clock gone before the first answer (the episode not ending meanwhile)."""
        return self.start_idle_steps + self.start_observations * self.observation_wait

    @property
    def has_start(self) -> bool:
        return self.start_steps > 0 or self.start_observations > 0

    def prompt_context(self) -> dict[str, Any]:
        """What the prompt templates may read of the protocol (``protocol.name``, ``protocol.start``)."""
        start = (
            {
                "observations": self.start_observations,
                "wait": self.observation_wait,
                "steps": self.start_steps,
                "at": start_observation_steps(self),
            }
            if self.has_start
            else None
        )
        return {"name": self.name, "start": start}


#: Ours: the clock starts at the first answer, which sees the reset's view; an unusable answer is
#: told what is wrong; ``max_parse_failures`` of them in a row end the episode.
AGENTKIT = EpisodeProtocol("agentkit")

#: The LLM-AAI harness (experiment1.py, commit e339118): one step after the reset (line 146, "a
#: first step in order to get an observation"), then NUM_INITIAL_OBS = 3 observations
#: (prompts.py line 3; experiment1.py lines 152-171), each followed by FRAMES_BETWEEN_OBS = 16
#: no-op steps (constants.py line 3; ``_update_message_with_obs`` lines 362-369, its ``wait``
#: defaulting to True for all three): 1 + 3 x 16 = 49 steps before the first answer.
LLM_AAI = EpisodeProtocol(
    "llm-aai",
    start_idle_steps=1,
    start_observations=3,
    observation_wait=16,
    unusable_reply=UNUSABLE_REPLY,
    parse_failures_end_episode=False,
)

PROTOCOLS: dict[str, EpisodeProtocol] = {p.name: p for p in (AGENTKIT, LLM_AAI)}
NAMES: tuple[str, ...] = tuple(PROTOCOLS)


def protocol_named(name: str) -> EpisodeProtocol:
    """The protocol called ``name``; ValueError in one line for an unknown one."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"--protocol: {name!r} is not one of {', '.join(NAMES)}") from None


def start_observation_steps(protocol: EpisodeProtocol) -> list[int]:
    """The clock's step at each start observation (e.g. [1, 17, 33] for llm-aai), counted from the reset."""
    return [
        protocol.start_idle_steps + i * protocol.observation_wait for i in range(protocol.start_observations)
    ]


def check_backend(protocol: EpisodeProtocol, backend: Backend) -> None:
    """Refuse (ValueError, one line) a protocol the backend does not play, or one whose idle steps
    the backend would skip (an Animal-AI backend built with ``idle_action=None``)."""
    if protocol.name not in backend.protocols:
        raise ValueError(
            f"--protocol {protocol.name}: the {backend.name} backend plays only "
            f"{', '.join(backend.protocols)} (the LLM-AAI harness is Animal-AI's: aai-arena, animalai)"
        )
    if protocol.has_start and len(backend.idle_actions()) != 1:
        raise ValueError(
            f"--protocol {protocol.name}: its waits are single idle steps, and this {backend.name} "
            "backend has no idle action (backend option idle_action is None)"
        )


@dataclass
class StartRecord:
    """What the start of an episode did before the model was first asked (stored with the episode's
    metrics as ``protocol_start``, and shown by the viewer)."""

    protocol: str
    idle_steps: int = 0
    observed_at: list[int] = field(default_factory=list)
    reward: float = 0.0
    ended: bool = False
    end_reason: EndReason | None = None
    error: str | None = None  # the simulator raised during the start
    actions: list[Any] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol,
            "idle_steps": self.idle_steps,
            "observed_at": list(self.observed_at),
            "reward": self.reward,
            "ended": self.ended,
            "end_reason": self.end_reason.value if self.end_reason else None,
            **({"error": self.error} if self.error else {}),
        }


def play_start(
    protocol: EpisodeProtocol, backend: Backend, observer: Observer, first: Observation
) -> tuple[Observation, StartRecord]:
    """Play ``protocol``'s start from the reset (whose observation is ``first``): the observation
    the first prompt shows, and the record of what was stepped.

    The pictures are the backend's frames at each start observation (``frames_now``, which leaves
    the reward count alone), labelled with their step; the returned observation's status is the
    world's when the model is asked (step 49 under llm-aai) and its images are those pictures only:
    the model never sees the view after the last wait. If the world ends the episode during the
    start, the observation is its final one and ``ended`` is set (LLM-AAI raised an error then,
    experiment1.py lines 150-173; we keep the world's own ending, see docs/protocols.md).
    """
    record = StartRecord(protocol.name)
    if not protocol.has_start:
        return first, record
    (idle,) = backend.idle_actions()  # one action: check_backend refuses any other
    step = first.step

    def wait(steps: int) -> bool:
        nonlocal step
        for _ in range(steps):
            result = backend.step(idle)
            step += 1
            record.idle_steps += 1
            record.actions.append(idle)
            record.reward += result.reward
            if result.done:
                record.ended, record.end_reason = True, result.end_reason
                return True
        return False

    images: list[EncodedImage] = []
    ended = wait(protocol.start_idle_steps)
    for _ in range(protocol.start_observations):
        if ended:
            break
        record.observed_at.append(step)
        images.extend(observer.encode_frames(backend.frames_now(), f"step {step}"))
        ended = wait(protocol.observation_wait)
    now = observer.observe(backend.observe())
    if now.step != step:  # a backend counting steps otherwise would make every label wrong
        log.warning(
            "protocol %s: the backend reports step %d after %d start steps", protocol.name, now.step, step
        )
    log.debug(
        "protocol %s: %d start steps, pictures at %s, first answer at step %d",
        protocol.name,
        record.idle_steps,
        record.observed_at,
        now.step,
    )
    return (now if ended else replace(now, images=images)), record
