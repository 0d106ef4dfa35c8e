"""The turn loop: observe -> render -> call -> parse -> compile -> execute -> record, and nothing else.

It knows backends, models, renderers and stores only through their small interfaces, so the same
loop drives every world. Each turn is written to the store before the next begins, so a crash
loses at most the turn in flight. When the loop's own limits stop an episode, the world's clock is
run out idly before the episode is judged; the run's pass rule judges broken episodes
(agentkit.pass_rule).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from agentkit.actions import CompileError, Script
from agentkit.control import Control, FrameWatch
from agentkit.envs.base import Backend, ClockRunOut, StepResult
from agentkit.memory import FullHistory, MemoryPolicy, TurnMessages
from agentkit.models.base import Model, ModelError
from agentkit.models.participant import Participant, as_participant
from agentkit.observers import Observation
from agentkit.observers.observer import Observer
from agentkit.pass_rule import PassRule, apply, runs_out_clock
from agentkit.prompts import PromptRenderer
from agentkit.records import EndReason, EpisodeResult, ModelCallTotals, StorageError, TurnRecord, Usage

log = logging.getLogger(__name__)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _sendable(text: str) -> str:
    """An answer as it can be sent back in the history: a lone surrogate (a misbehaving server's;
    it has no UTF-8 form, so no request could carry it) written as the escape ``\\uXXXX``."""
    if not _LONE_SURROGATE.search(text):
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass
class EpisodeLimits:
    """Per-episode limits. Every model answer counts as one script, parseable or not (as in the paper)."""

    max_scripts: int = 30
    max_parse_failures: int = 5  # consecutive unusable answers before giving up
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = None


class TurnSink(Protocol):
    """Where turns go (the transcript store implements it)."""

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None: ...


@dataclass
class EpisodeSetup:
    """Everything one episode needs besides the task and seed."""

    backend: Backend
    observer: Observer
    renderer: PromptRenderer
    model: Model | Participant  # who plays the turns: a model reading the prompt, or the reference agent
    memory: MemoryPolicy = field(default_factory=FullHistory)
    limits: EpisodeLimits = field(default_factory=EpisodeLimits)
    pass_rule: PassRule = PassRule.AAI  # how a stopped or broken episode is judged (agentkit.pass_rule)
    control: Control = field(default_factory=Control)  # script or frame-by-frame (agentkit.control)
    watch: FrameWatch | None = None  # frames taken during a script (--observe every:K|events)


class _Budget:
    """Running token and cost totals against the limits."""

    def __init__(self, limits: EpisodeLimits) -> None:
        self.limits = limits
        self.usage = Usage()

    def add(self, usage: Usage) -> None:
        self.usage.input_tokens += usage.input_tokens
        self.usage.output_tokens += usage.output_tokens
        self.usage.cost_usd += usage.cost_usd

    def exhausted(self) -> bool:
        lim, u = self.limits, self.usage
        return (
            (lim.max_input_tokens is not None and u.input_tokens >= lim.max_input_tokens)
            or (lim.max_output_tokens is not None and u.output_tokens >= lim.max_output_tokens)
            or (lim.max_cost_usd is not None and u.cost_usd >= lim.max_cost_usd)
        )


@dataclass
class _Execution:
    actions: list[Any] = field(default_factory=list)
    reward: float = 0.0
    last: StepResult | None = None
    compile_error: str | None = None
    env_error: str | None = None  # the simulator raised: the episode ends after this turn is stored


def _execute(backend: Backend, script: Script | None, idle: list[Any], timings: dict[str, float],
             control: Control | None = None, watch: FrameWatch | None = None) -> _Execution:
    """Run a script command by command (compiling each against the current state, through the
    control mode) or the idle actions; ``watch`` is told of every step."""
    out = _Execution()
    t_compile = t_env = 0.0

    def run(actions: list[Any]) -> bool:
        nonlocal t_env
        start = time.perf_counter()
        try:
            for action in actions:
                result = backend.step(action)
                out.actions.append(action)
                out.reward += result.reward
                out.last = result
                if watch is not None:
                    watch.after_step(result)
                if result.done:
                    return True
            return False
        finally:
            t_env += time.perf_counter() - start

    try:
        if script is None:
            run(idle)
        else:
            for command in script:
                start = time.perf_counter()
                try:
                    actions = control.compile(backend, command) if control else backend.compile(command)
                except CompileError as exc:
                    out.compile_error = exc.message
                    t_compile += time.perf_counter() - start
                    break
                t_compile += time.perf_counter() - start
                if run(actions):
                    break
    except Exception as exc:  # a simulator crash: keep what ran, so the paid-for answer is not lost
        log.exception("environment error while executing a script")
        out.env_error = f"{type(exc).__name__}: {exc}"
    timings["compile"] = t_compile
    timings["env"] = t_env
    return out


def run_episode(
    setup: EpisodeSetup,
    task: str,
    seed: int,
    sink: TurnSink | None = None,
    episode_id: str = "",
    should_stop: Callable[[], EndReason | None] | None = None,
) -> EpisodeResult:
    """Play one episode to its end and return its result; every turn goes to ``sink`` as it ends.

    ``should_stop`` is asked before every model call (run-wide budgets, cancellation); a reason it
    returns ends the episode cleanly with that reason.
    """
    started = time.monotonic()
    backend, observer, renderer, limits = setup.backend, setup.observer, setup.renderer, setup.limits
    player = as_participant(setup.model)
    observation: Observation = observer.observe(backend.reset(task, seed))
    context: dict[str, Any] = {
        "commands": backend.vocabulary.describe(),
        "max_scripts": limits.max_scripts,
        "task": task,
        "has_images": renderer.include_images and bool(observation.images),
        **backend.prompt_context(),
        **setup.control.prompt_context(),
    }
    prefix = renderer.prefix_messages(context)  # system message, then the worked example if the set has one
    world_map = backend.world_map()  # as the episode began, for viewers
    task_source = backend.task_source()  # the task's file text, when the task is named by a path
    history: list[TurnMessages] = []
    budget = _Budget(limits)
    feedback: str | None = None
    parse_failures = 0
    all_actions: list[Any] = []
    end_reason: EndReason | None = None
    last_step: StepResult | None = None
    scripts = 0
    storage_error: str | None = None
    model_error: ModelError | None = None
    calls = ModelCallTotals()  # retries, answers cut by max tokens, dropped-prompt warnings

    while end_reason is None:
        stop = should_stop() if should_stop else None
        if stop is not None:
            end_reason = stop
            break
        if limits.max_wall_s is not None and time.monotonic() - started >= limits.max_wall_s:
            end_reason = EndReason.WALL_TIME
            break
        timings: dict[str, float] = {}
        start = time.perf_counter()
        user = renderer.turn_message(observation, context, feedback, scripts)
        messages = [*prefix, *setup.memory.select(history), user]
        timings["render"] = time.perf_counter() - start

        start = time.perf_counter()
        try:
            answer = player.answer(messages, observation, backend.vocabulary)
        except ModelError as exc:
            log.warning("episode %s: model error: %s", episode_id, exc)
            end_reason, model_error = EndReason.MODEL_ERROR, exc
            break
        timings["model"] = time.perf_counter() - start - answer.parse_s
        timings["parse"] = answer.parse_s
        reply = answer.reply
        scripts += 1
        budget.add(reply.usage)
        calls.add(reply.call)
        script, parse_error = answer.script, answer.parse_error

        script, parse_error = setup.control.reread(reply.text, script, parse_error)  # frame-by-frame answers
        if setup.watch is not None:
            setup.watch.start(observation.step)
        execution = _execute(backend, script, backend.idle_actions(), timings, setup.control, setup.watch)
        next_observation = observation
        if execution.env_error is None:
            try:
                start = time.perf_counter()
                next_observation = observer.observe(backend.observe())
                if setup.watch is not None:
                    next_observation = setup.watch.finish(next_observation)
                timings["observe"] = time.perf_counter() - start
            except Exception as exc:  # a simulator crash ends the episode with its own reason, never silently
                log.exception("episode %s: environment error", episode_id)
                execution.env_error = f"{type(exc).__name__}: {exc}"

        if execution.last is not None:
            last_step = execution.last
        all_actions.extend(execution.actions)
        feedback = parse_error.message if parse_error else execution.compile_error
        compile_error = execution.compile_error
        if execution.env_error is not None:
            compile_error = f"environment error: {execution.env_error}"
        parse_failures = parse_failures + 1 if parse_error else 0

        if sink is not None:
            try:
                sink.add_turn(episode_id, TurnRecord(
                    index=scripts - 1,
                    observation=observation.to_json(),
                    messages=messages,
                    answer=reply.text,
                    usage=reply.usage,
                    latency_s=reply.latency_s,
                    cached=reply.cached,
                    script=script.to_json() if script else None,
                    parse_error=parse_error.to_json() if parse_error else None,
                    compile_error=compile_error,
                    actions=execution.actions,
                    reward=execution.reward,
                    total_reward=next_observation.total_reward,
                    health=next_observation.health,
                    done=next_observation.done,
                    timings=timings,
                    images=list(observation.images) if renderer.include_images else [],
                    prompt_context=context if scripts == 1 else None,  # the store's JSON encoder takes numpy values
                    world_map=world_map if scripts == 1 else None,
                    task_source=task_source if scripts == 1 else None,
                    model_call=reply.call,
                ))
            except StorageError as exc:  # the turn cannot be kept: the episode (and the run) stops here
                log.info("episode %s: turn %d not stored: %s", episode_id, scripts - 1, exc)
                end_reason, storage_error = EndReason.STORAGE_ERROR, str(exc)
                break
        history.append(TurnMessages(user=user, assistant={"role": "assistant", "content": _sendable(reply.text)}))
        observation = next_observation

        if execution.env_error is not None:
            end_reason = EndReason.ENV_ERROR
        elif observation.done:
            end_reason = (last_step.end_reason if last_step and last_step.end_reason else
                          (EndReason.GOAL if observation.success else EndReason.FAILED))
        elif parse_failures >= limits.max_parse_failures:
            end_reason = EndReason.PARSE_FAILURE_LIMIT
        elif budget.exhausted():
            end_reason = EndReason.BUDGET
        elif scripts >= limits.max_scripts:
            end_reason = EndReason.SCRIPT_LIMIT

    clock: dict[str, Any] | None = None
    if runs_out_clock(end_reason) and not observation.done:
        observation, clock, broke = _run_out_clock(backend, observer, observation, episode_id)
        if broke:
            end_reason = EndReason.ENV_ERROR
    metrics = backend.episode_metrics(observation)
    if clock is not None:
        metrics["clock_run_out"] = clock
    success, metrics = apply(setup.pass_rule, end_reason, bool(observation.success) and end_reason == EndReason.GOAL,
                             metrics)
    return EpisodeResult(
        episode_id=episode_id,
        task=task,
        seed=seed,
        success=success,
        reward=observation.total_reward,
        end_reason=end_reason,
        scripts=scripts,
        turns=len(history),
        usage=budget.usage,
        actions=all_actions,
        metrics=metrics,
        error=storage_error or (str(model_error) if model_error is not None else None),
        relaunchable=model_error is None or model_error.transient,
        model_calls=calls,
    )


def _run_out_clock(backend: Backend, observer: Observer, observation: Observation,
                   episode_id: str) -> tuple[Observation, dict[str, Any], bool]:
    """Let the world go on idly until its clock ends the episode (our limits stopped asking the
    model; the world does not stop with them). Returns the final observation, the record of what was
    stepped (stored with the episode's metrics) and whether the simulator raised meanwhile."""
    record: dict[str, Any] = {"reward_when_stopped": observation.total_reward}
    try:
        run_out: ClockRunOut = backend.run_out_clock()
        if run_out.idle_steps:
            observation = observer.observe(backend.observe())
    except Exception as exc:  # a simulator crash: the episode ends as an environment error, never a pass
        log.exception("episode %s: environment error while running out the clock", episode_id)
        return observation, {**record, "error": f"{type(exc).__name__}: {exc}"}, True
    if run_out.idle_steps:
        log.debug("episode %s: clock run out with %d idle steps (reward %+.4f)", episode_id,
                  run_out.idle_steps, run_out.reward)
    return observation, {**record, "idle_steps": run_out.idle_steps, "reward": run_out.reward,
                         "ended": run_out.ended,
                         "end_reason": run_out.end_reason.value if run_out.end_reason else None}, False
