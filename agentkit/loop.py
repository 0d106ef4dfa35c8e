"""The turn loop: observe -> render -> call -> parse -> compile -> execute -> record, and nothing else.

It knows backends, models, renderers and stores only through their small interfaces, so the same
loop drives every world. Each turn is written to the store before the next begins, so a crash
loses at most the turn in flight. When the loop's own limits stop an episode, the world's clock is
run out idly before the episode is judged; the run's pass rule judges broken episodes
(agentkit.pass_rule). The run's protocol (agentkit.protocols) says what happens before the first
answer and what an unusable answer is told.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentkit.actions import CompileError, ParseError, Script
from agentkit.actions.tool_results import tool_results
from agentkit.control import Control, FrameWatch, choose_reader
from agentkit.envs.base import Backend, ClockRunOut, StepResult
from agentkit.leaves import run_defaults
from agentkit.memory import FullHistory, MemoryPolicy, TurnMessages
from agentkit.messages import Message, escape_lone_surrogates
from agentkit.models.answer_reader import AnswerReader
from agentkit.models.base import Model, ModelError
from agentkit.models.participant import Answer, Participant, as_participant
from agentkit.observers import Observation, WorldMap
from agentkit.observers.observer import Observer
from agentkit.pass_rule import PASS, PassRule, apply, runs_out_clock
from agentkit.prompts import PromptRenderer
from agentkit.protocols import AGENTKIT, EpisodeProtocol, StartRecord, play_start
from agentkit.records import EndReason, EpisodeResult, ModelCallTotals, StorageError, TurnRecord, Usage

log = logging.getLogger(__name__)


@dataclass
class EpisodeLimits:
    """Per-episode limits. Every model answer counts as one script, parseable or not (as in the paper)."""

    max_scripts: int = run_defaults.MAX_SCRIPTS
    max_parse_failures: int = run_defaults.MAX_PARSE_FAILURES  # consecutive unusable answers before giving up
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
    action_format: str = "text"  # "tools": the model answers with tool calls (agentkit.actions.tool_calls)
    protocol: EpisodeProtocol = AGENTKIT  # the start, the reply to unusable answers (agentkit.protocols)

    @property
    def reader(self) -> AnswerReader:
        """How this episode's replies are read, which follows from the control mode and the action
        format alone (ValueError for tool calls under frame-by-frame control)."""
        return choose_reader(self.control, self.action_format)


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


def _execute(
    backend: Backend,
    script: Script | None,
    idle: list[Any],
    timings: dict[str, float],
    control: Control | None = None,
    watch: FrameWatch | None = None,
) -> _Execution:
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


@dataclass
class _Episode:
    """One episode's parts and running state, handed from step to step of a turn."""

    setup: EpisodeSetup
    player: Participant
    episode_id: str
    observation: Observation
    context: dict[str, Any]
    prefix: list[Message]  # system message, then the worked example if the set has one
    world_map: WorldMap | None  # as the episode began, for viewers
    task_source: Any  # the task's file text, when the task is named by a path
    budget: _Budget
    started: float = field(default_factory=time.monotonic)
    history: list[TurnMessages] = field(default_factory=list)
    feedback: str | None = None
    parse_failures: int = 0
    all_actions: list[Any] = field(default_factory=list)
    end_reason: EndReason | None = None
    last_step: StepResult | None = None
    scripts: int = 0
    storage_error: str | None = None
    model_error: ModelError | None = None
    calls: ModelCallTotals = field(
        default_factory=ModelCallTotals
    )  # retries, cut answers, dropped-prompt warnings
    start: StartRecord | None = None  # what the protocol's start stepped before the first answer


@dataclass
class _Turn:
    """What one turn produced, from the prompt to the observation that followed."""

    user: Message
    messages: list[Message]  # typed (agentkit.messages): only the model client makes OpenAI dicts
    answer: Answer
    script: Script | None
    parse_error: ParseError | None
    execution: _Execution
    next_observation: Observation
    timings: dict[str, float]
    results: tuple[Message, ...] = ()  # the tool messages answering the answer's tool calls


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
    ep = _begin(setup, task, seed, episode_id)
    while ep.end_reason is None:
        ep.end_reason = _stop_before_turn(ep, should_stop)
        if ep.end_reason is not None:
            break
        turn = _play_turn(ep)
        if turn is None:  # the model failed: nothing to store
            break
        if not _store_turn(ep, turn, sink):
            break
        reply = turn.answer.reply
        answer = Message("assistant", escape_lone_surrogates(reply.text), tuple(reply.tool_calls))
        ep.history.append(TurnMessages(user=turn.user, assistant=answer, results=turn.results))
        ep.observation = turn.next_observation
        ep.end_reason = _end_after_turn(ep, turn.execution)
    return _result(ep, task, seed, should_stop)


def _begin(setup: EpisodeSetup, task: str, seed: int, episode_id: str) -> _Episode:
    """Reset the world and fix what every prompt of the episode shares."""
    started = time.monotonic()
    backend, renderer, protocol = setup.backend, setup.renderer, setup.protocol
    observation: Observation = setup.observer.observe(backend.reset(task, seed))
    world_map = backend.world_map()  # as the episode began, before any start step
    observation, start, end_reason = _start(setup, observation, episode_id)
    context: dict[str, Any] = {
        "commands": backend.vocabulary.describe(),
        "max_scripts": setup.limits.max_scripts,
        "task": task,
        "has_images": renderer.include_images and bool(observation.images),
        **backend.prompt_context(),
        **setup.control.prompt_context(),
        **({"action_format": "tools"} if setup.action_format == "tools" else {}),
        **({"protocol": protocol.prompt_context()} if protocol is not AGENTKIT else {}),
    }
    return _Episode(
        setup=setup,
        player=as_participant(setup.model, setup.reader),  # the one reading of every reply
        episode_id=episode_id,
        observation=observation,
        context=context,
        prefix=renderer.typed_prefix_messages(context),
        world_map=world_map,
        task_source=backend.task_source(),
        budget=_Budget(setup.limits),
        started=started,
        all_actions=list(start.actions) if start else [],
        end_reason=end_reason,
        start=start,
    )


def _start(
    setup: EpisodeSetup, observation: Observation, episode_id: str
) -> tuple[Observation, StartRecord | None, EndReason | None]:
    """The protocol's start before the first answer (llm-aai: 49 idle steps, three pictures): the
    observation the first prompt shows, the start's record, and why the episode already ended, if
    the world (or the simulator, raising) ended it meanwhile. Nothing to do under agentkit's own."""
    protocol = setup.protocol
    if not protocol.has_start:
        return observation, None, None
    try:
        observation, start = play_start(protocol, setup.backend, setup.observer, observation)
    except Exception as exc:  # a simulator crash before the first answer: the episode's own reason
        log.exception("episode %s: environment error during the %s start", episode_id, protocol.name)
        return (
            observation,
            StartRecord(protocol.name, error=f"{type(exc).__name__}: {exc}"),
            EndReason.ENV_ERROR,
        )
    if not start.ended:
        return observation, start, None
    return (
        observation,
        start,
        start.end_reason or (EndReason.GOAL if observation.success else EndReason.FAILED),
    )


def _stop_before_turn(ep: _Episode, should_stop: Callable[[], EndReason | None] | None) -> EndReason | None:
    """The run's own stop (budgets, cancellation) or the episode's wall-time limit, asked before each call."""
    stop = should_stop() if should_stop else None
    if stop is not None:
        return stop
    limit = ep.setup.limits.max_wall_s
    if limit is not None and time.monotonic() - ep.started >= limit:
        return EndReason.WALL_TIME
    return None


def _play_turn(ep: _Episode) -> _Turn | None:
    """Render the prompt, ask the participant, run the script and observe; None if the model failed."""
    setup = ep.setup
    timings: dict[str, float] = {}
    start = time.perf_counter()
    user = setup.renderer.typed_turn_message(ep.observation, ep.context, ep.feedback, ep.scripts)
    messages: list[Message] = [*ep.prefix, *setup.memory.select(ep.history), user]
    timings["render"] = time.perf_counter() - start

    start = time.perf_counter()
    try:
        answer = ep.player.answer(messages, ep.observation, setup.backend.vocabulary)
    except ModelError as exc:
        # a replay reaching the end of its record is expected there, not a failure to warn about
        (log.info if exc.recorded else log.warning)("episode %s: model error: %s", ep.episode_id, exc)
        ep.end_reason, ep.model_error = EndReason.MODEL_ERROR, exc
        return None
    timings["model"] = time.perf_counter() - start - answer.parse_s
    timings["parse"] = answer.parse_s
    ep.scripts += 1
    ep.budget.add(answer.reply.usage)
    ep.calls.add(answer.reply.call)
    script, parse_error = answer.script, answer.parse_error

    execution, next_observation = _act(ep, script, timings)
    if execution.last is not None:
        ep.last_step = execution.last
    ep.all_actions.extend(execution.actions)
    ep.feedback = parse_error.message if parse_error else execution.compile_error
    if parse_error and setup.protocol.unusable_reply is not None:  # the protocol's fixed reply instead
        ep.feedback = setup.protocol.unusable_reply
    ep.parse_failures = ep.parse_failures + 1 if parse_error else 0
    results: tuple[Message, ...] = ()
    if answer.reply.tool_calls:  # each call answered by a tool message; a refusal said where it was made
        results = tool_results(tuple(answer.reply.tool_calls), answer.parsed)
        if parse_error is not None:
            ep.feedback = None
    return _Turn(user, messages, answer, script, parse_error, execution, next_observation, timings, results)


def _act(ep: _Episode, script: Script | None, timings: dict[str, float]) -> tuple[_Execution, Observation]:
    """Run the script (or the idle actions) and observe the world after it."""
    setup, backend = ep.setup, ep.setup.backend
    if setup.watch is not None:
        setup.watch.start(ep.observation.step)
    execution = _execute(backend, script, backend.idle_actions(), timings, setup.control, setup.watch)
    next_observation = ep.observation
    if execution.env_error is None:
        try:
            start = time.perf_counter()
            next_observation = setup.observer.observe(backend.observe())
            if setup.watch is not None:
                next_observation = setup.watch.finish(next_observation)
            timings["observe"] = time.perf_counter() - start
        except Exception as exc:  # a simulator crash ends the episode with its own reason, never silently
            log.exception("episode %s: environment error", ep.episode_id)
            execution.env_error = f"{type(exc).__name__}: {exc}"
    return execution, next_observation


def _store_turn(ep: _Episode, turn: _Turn, sink: TurnSink | None) -> bool:
    """Write the turn to ``sink``; False (and the episode ends) when it cannot be kept."""
    if sink is None:
        return True
    execution, reply, first = turn.execution, turn.answer.reply, ep.scripts == 1
    compile_error = execution.compile_error
    if execution.env_error is not None:
        compile_error = f"environment error: {execution.env_error}"
    try:
        sink.add_turn(
            ep.episode_id,
            TurnRecord(
                index=ep.scripts - 1,
                observation=ep.observation.to_json(),
                messages=turn.messages,
                answer=reply.text,
                usage=reply.usage,
                latency_s=reply.latency_s,
                cached=reply.cached,
                script=turn.script.to_json() if turn.script else None,
                parse_error=turn.parse_error.to_json() if turn.parse_error else None,
                compile_error=compile_error,
                actions=execution.actions,
                reward=execution.reward,
                total_reward=turn.next_observation.total_reward,
                health=turn.next_observation.health,
                done=turn.next_observation.done,
                timings=turn.timings,
                prompt_context=ep.context if first else None,  # the store's JSON encoder takes numpy values
                world_map=ep.world_map.to_json() if first and ep.world_map is not None else None,
                task_source=ep.task_source if first else None,
                model_call=reply.call,
                tool_calls=[c.to_json() for c in reply.tool_calls] or None,
            ),
        )
    except StorageError as exc:  # the turn cannot be kept: the episode (and the run) stops here
        log.info("episode %s: turn %d not stored: %s", ep.episode_id, ep.scripts - 1, exc)
        ep.end_reason, ep.storage_error = EndReason.STORAGE_ERROR, str(exc)
        return False
    return True


def _end_after_turn(ep: _Episode, execution: _Execution) -> EndReason | None:
    """Why the episode ends after this turn, or None to play another."""
    limits, observation, last = ep.setup.limits, ep.observation, ep.last_step
    if execution.env_error is not None:
        return EndReason.ENV_ERROR
    if observation.done:
        if last and last.end_reason:
            return last.end_reason
        return EndReason.GOAL if observation.success else EndReason.FAILED
    if ep.setup.protocol.parse_failures_end_episode and ep.parse_failures >= limits.max_parse_failures:
        return EndReason.PARSE_FAILURE_LIMIT
    if ep.budget.exhausted():
        return EndReason.BUDGET
    if ep.scripts >= limits.max_scripts:
        return EndReason.SCRIPT_LIMIT
    return None


def _result(
    ep: _Episode, task: str, seed: int, should_stop: Callable[[], EndReason | None] | None = None
) -> EpisodeResult:
    """Run out the world's clock if our limits stopped the episode, then judge it.

    The run-out is bounded by the same stops as the turns (``--max-wall-s``, the run's limits,
    Ctrl-C): an arena's clock may be billions of steps long. A run-out they cut short ends the
    episode with their reason and is never a pass: the verdict is on the state the clock leaves,
    and there is none."""
    setup, observation, end_reason = ep.setup, ep.observation, ep.end_reason
    if end_reason is None:  # every way out of run_episode's loop names its reason
        raise RuntimeError(f"episode {ep.episode_id}: the loop ended without a reason")
    clock: dict[str, Any] | None = None
    cut: list[EndReason] = []  # the stop that cut the run-out short, if one did

    def stop() -> bool:
        reason = _stop_before_turn(ep, should_stop)
        if reason is not None:
            cut.append(reason)
        return reason is not None

    if runs_out_clock(end_reason) and not observation.done:
        observation, clock, broke = _run_out_clock(
            setup.backend, setup.observer, observation, ep.episode_id, stop
        )
        if broke:
            end_reason = EndReason.ENV_ERROR
        elif cut:
            end_reason = cut[0]
            clock["stopped"] = end_reason.value
            log.info("episode %s: clock run-out stopped (%s)", ep.episode_id, end_reason.value)
    metrics = setup.backend.episode_metrics(observation)
    if clock is not None:
        metrics["clock_run_out"] = clock
        if cut and PASS in metrics:  # judged on a clock that was not run out: never a pass
            metrics[PASS] = False
    if ep.start is not None:
        metrics["protocol_start"] = ep.start.to_json()
    success, metrics = apply(
        setup.pass_rule, end_reason, bool(observation.success) and end_reason == EndReason.GOAL, metrics
    )
    return EpisodeResult(
        episode_id=ep.episode_id,
        task=task,
        seed=seed,
        success=success,
        reward=observation.total_reward,
        end_reason=end_reason,
        scripts=ep.scripts,
        turns=len(ep.history),
        usage=ep.budget.usage,
        actions=ep.all_actions,
        metrics=metrics,
        error=ep.storage_error or (str(ep.model_error) if ep.model_error is not None else None),
        relaunchable=ep.model_error is None or ep.model_error.transient,
        model_calls=ep.calls,
    )


def _run_out_clock(
    backend: Backend,
    observer: Observer,
    observation: Observation,
    episode_id: str,
    stop: Callable[[], bool] | None = None,
) -> tuple[Observation, dict[str, Any], bool]:
    """Let the world go on idly until its clock ends the episode (our limits stopped asking the
    model; the world does not stop with them). Returns the final observation, the record of what was
    stepped (stored with the episode's metrics) and whether the simulator raised meanwhile."""
    record: dict[str, Any] = {"reward_when_stopped": observation.total_reward}
    try:
        run_out: ClockRunOut = backend.run_out_clock(stop)
        if run_out.idle_steps:
            observation = observer.observe(backend.observe())
    except Exception as exc:  # a simulator crash: the episode ends as an environment error, never a pass
        log.exception("episode %s: environment error while running out the clock", episode_id)
        return observation, {**record, "error": f"{type(exc).__name__}: {exc}"}, True
    if run_out.idle_steps:
        log.debug(
            "episode %s: clock run out with %d idle steps (reward %+.4f)",
            episode_id,
            run_out.idle_steps,
            run_out.reward,
        )
    return (
        observation,
        {
            **record,
            "idle_steps": run_out.idle_steps,
            "reward": run_out.reward,
            "ended": run_out.ended,
            "end_reason": run_out.end_reason.value if run_out.end_reason else None,
        },
        False,
    )
