"""The interface every backend implements (modelled on Gymnasium's small core, one level up).

A backend is reset to a task and seed, hands out RawObservations, compiles one Command at a time
into low-level actions (so API calls such as ``go_to("red key")`` can look at the current state),
and steps one low-level action at a time. It never renders prompts and never sees model text.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agentkit.actions import Command, Vocabulary
from agentkit.actions.policy import ScriptPolicy  # re-exported: the backends' face names it
from agentkit.observers import Observation, RawObservation, WorldMap
from agentkit.records import EndReason


@dataclass(frozen=True)
class TaskInfo:
    name: str
    description: str = ""
    category: str = ""


@dataclass
class StepResult:
    """Outcome of one low-level action."""

    reward: float
    done: bool
    success: bool = False
    end_reason: EndReason | None = None  # set when done
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PrimitiveAction:
    """One of a backend's primitive actions, for frame-by-frame control (``agentkit.control``): the
    name a model answers with, the low-level action it stands for, and a one-line doc for prompts."""

    name: str
    action: Any
    doc: str = ""


@dataclass(frozen=True)
class ClockRunOut:
    """What running out an episode's clock did (``Backend.run_out_clock``).

    ``idle_steps``: idle actions stepped; ``reward``: the reward they brought (the clock's cost, and
    anything the world did meanwhile); ``ended``: whether the episode reached its own end (False for
    a world with no clock, where nothing was stepped), and ``end_reason`` the world's reason.
    ``stopped``: the run's stop (``--max-wall-s``, ``--run-max-wall-s``, Ctrl-C) cut it short
    before the world ended the episode.
    """

    idle_steps: int = 0
    reward: float = 0.0
    ended: bool = False
    end_reason: EndReason | None = None  # why the world ended it (e.g. time_limit), when it did
    stopped: bool = False


#: Asked between idle steps while a clock is run out: True ends the run-out at once (the wall limit
#: bounds this phase as every other, however long the arena's clock).
StopCheck = Callable[[], bool]


class Backend(ABC):
    """An environment the loop can drive. Low-level actions must be JSON-able (ints, lists, dicts)."""

    name: ClassVar[str]
    vocabulary: Vocabulary
    # Which template folder of the package's prompts this backend uses by default.
    template_set: ClassVar[str]
    # Constructor options that switch rendering off, for runs where nothing looks at frames (the
    # reference agent plans from privileged state); the run set-up applies them, naming no backend.
    frameless_options: ClassVar[dict[str, Any]] = {}
    # Whether the viewer may rebuild this backend in its own process to step an episode's stored
    # actions again (the agent's whole path on the map, ``agentkit.viewer.step_path``): only for a
    # backend that then starts no program and reads nothing named by the stored run but its task.
    replays_in_viewer: ClassVar[bool] = False
    # What a pass means on this backend, shown beside every rate. The verdict is called "pass" or
    # "fail" on every backend (``agentkit.outcome_words``): the backend's pass metric where it
    # reports one, else its success flag.
    outcome_meaning: ClassVar[str] = "the backend's success flag"
    # The episode protocols this backend plays (``agentkit.protocols``: when the clock starts, what
    # the model sees first, what an unusable answer costs). Every backend plays agentkit's own; the
    # LLM-AAI harness's is Animal-AI's, so only the Animal-AI backends add "llm-aai".
    protocols: ClassVar[tuple[str, ...]] = ("agentkit",)

    @classmethod
    @abstractmethod
    def tasks(cls) -> list[TaskInfo]:
        """Tasks this backend offers, for `agentkit tasks ENV`."""

    @classmethod
    def suites(cls) -> dict[str, list[str]]:
        """Named task lists (e.g. "aai-children40"), for `--suite`."""
        return {}

    @abstractmethod
    def reset(self, task: str, seed: int) -> RawObservation:
        """Start an episode of ``task``; the same (task, seed) always gives the same episode."""

    def check_task(self, task: str) -> None:
        """Raise ``ValueError`` (naming the task) if ``task`` cannot be played, before a run starts.

        The default resets the task once, which any backend can do; backends with a cheaper test
        (a registry lookup, a file parse) override it.
        """
        self.reset(task, 0)

    @abstractmethod
    def compile(self, command: Command) -> list[Any]:
        """Low-level actions for one command in the current state; raise CompileError if impossible."""

    @abstractmethod
    def step(self, action: Any) -> StepResult:
        """Apply one low-level action."""

    @abstractmethod
    def observe(self) -> RawObservation:
        """The current state as a RawObservation (called once after each script)."""

    def idle_actions(self) -> list[Any]:
        """What the world does while the model produced an unusable answer (default: nothing)."""
        return []

    def run_out_clock(self, stop: StopCheck | None = None) -> ClockRunOut:
        """Let the world go on with the idle action until the episode ends by its own rules, or
        until ``stop`` says the run's time is up.

        Why: when the loop stops asking the model (a script, parse-failure, token, cost or wall
        limit of ours), the world does not stop with it. A child who stops moving in Animal-AI
        still loses health until the time limit ends the episode, and is judged on the reward it
        ends with; judging on the reward so far would make stopping early pay (a task whose pass
        mark is below zero would pass without a single move). A backend with a clock steps its
        no-op until the episode is done (``step_until_done``); the default, for worlds with no
        clock (or none that idling can reach), steps nothing and the episode is judged as it stands.
        """
        return ClockRunOut()

    def primitive_actions(self) -> tuple[PrimitiveAction, ...]:
        """The world's own per-step actions, named, for frame-by-frame control (one model call picks
        one, and it is repeated for n steps). The default, none, refuses that mode in one line."""
        return ()

    def frames_now(self) -> dict[str, Any]:
        """The camera frames of the current state (name -> HxWx3 RGB array), with no other effect:
        what ``--observe`` takes between the steps of a script. Unlike ``observe`` it neither resets
        the reward counted since the last observation nor builds the status. The default, none,
        refuses ``--observe every:K|events`` in one line."""
        return {}

    def sight_events(self) -> list[str]:
        """What came into the agent's view since this was last asked, in words (e.g. ``"goal in view:
        GoodGoal"``), for ``--observe events``; asked only then, after every step, as it may cost a
        render. The default: nothing (the backend cannot tell)."""
        return []

    @abstractmethod
    def reference_policy(self) -> ScriptPolicy:
        """The backend's privileged reference agent, answering with Commands of its own vocabulary."""

    @classmethod
    def controllers(cls) -> tuple[str, ...]:
        """Names of the closed-loop controllers this backend runs itself (``--model <name>``; e.g.
        CausalWorld's trained actors on trifinger). Its ``compile`` takes their one command,
        ``run_controller(name, seconds)`` (``agentkit.actions.controller_command``), which is in no
        model's vocabulary. The default: none."""
        return ()

    def accepts_controller(self, name: str) -> bool:
        """Whether ``name`` is one of this backend's controllers (the default: ``controllers()``;
        a backend may also take controllers from files)."""
        return name in self.controllers()

    def check_controller(self, name: str, task: str) -> None:
        """ValueError (one line) when the built-in controller ``name`` cannot play ``task``; checked
        before a run starts. The default: refuse a name that ``accepts_controller`` refuses."""
        names = self.controllers()
        if not self.accepts_controller(name):
            offered = f"it runs {', '.join(names)}" if names else "it runs none"
            raise ValueError(f"--model {name}: env {self.name!r} has no such built-in controller ({offered})")

    def episode_metrics(self, final: Observation) -> dict[str, Any]:
        """Backend-specific outcome measures of the episode just ended (e.g. pass and level)."""
        return {}

    def prompt_context(self) -> dict[str, Any]:
        """Extra, backend-specific variables for the prompt templates (e.g. the action semantics)."""
        return {}

    def task_source(self) -> dict[str, str] | None:
        """The text of the file the current episode's task was read from, or None (the default: a
        packaged task, known by its name alone).

        Why: a task named by a path (a researcher's own arena file) is not reproducible from its
        name; the file moves or is edited. A backend that reads tasks from files returns
        ``{"name": the task's file as named, "text": its text, "sha256": of the UTF-8 text}`` after
        ``reset``; the loop stores it with the episode and replay hands it back (``use_task_source``).
        """
        return None

    def use_task_source(self, task: str, text: str) -> None:
        """Play ``task`` from ``text`` (a stored ``task_source``) instead of reading its file.

        Only backends whose ``task_source`` returns something are handed a source; others refuse.
        """
        raise ValueError(
            f"the {self.name} backend does not read tasks from files; cannot play {task!r} from stored text"
        )

    def world_map(self) -> WorldMap | None:
        """A top-down drawing of the world as the episode began, for viewers; None if there is none.

        Why: someone reading an episode wants to see where the agent went among the things of its
        world, and the viewer knows no backend, so a backend that can describes its world in plain
        footprints (``WorldMap`` of ``WorldShape``, stored once per episode as its ``to_json``).
        The axes are those of the ``Pose`` its observations carry (the ground plane). A grid world
        draws none: its map is the ASCII view of every turn.
        """
        return None

    def close(self) -> None:  # noqa: B027 - optional: a backend that holds nothing keeps this no-op
        """Release simulator resources."""


def step_until_done(
    backend: Backend, action: Any, max_steps: int, stop: StopCheck | None = None
) -> ClockRunOut:
    """Step ``action`` until the episode ends or ``max_steps`` were stepped (a guard, never the rule:
    a backend picks a bound its clock always reaches first), asking ``stop`` before every step: an
    arena's clock may be two billion steps long, and the wall limit must still end the episode."""
    steps, reward = 0, 0.0
    while steps < max_steps:
        if stop is not None and stop():
            return ClockRunOut(steps, reward, False, stopped=True)
        result = backend.step(action)
        steps += 1
        reward += result.reward
        if result.done:
            return ClockRunOut(steps, reward, True, result.end_reason)
    return ClockRunOut(steps, reward, False)
