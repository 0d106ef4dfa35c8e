"""One participant's sitting: a run of episodes played through the page, stored like a model's run.

Why: a person's episodes must be comparable with a model's and readable by the same tools, so the
sitting is an ordinary run (``agentkit.config.RunConfig``, the loop, the store) whose model is
``human:<participant id>``. Only two things differ: the participant (the page, through
:class:`~agentkit.play.page_participant.PageParticipant`) and, in keyboard mode, the control (one
Animal-AI step per answer: ``frame-by-frame:1``, under a memory that keeps only the current turn,
as a held key is no conversation). The run's config also records the participant id, the
condition, the play mode and the tutorial task; nothing else about the person is kept.

The tutorial is the testbed arena ``01-01-01`` (Animal-AI Testbed, category 1 "Food Retrieval":
one green goal straight ahead): a few steps forward reach it, so the participant learns the keys
and sees what a reward looks like before the first task counts. It is played and stored first,
outside the run's counted tasks, with an identity of its own (``agentkit.tutorial_episode``: the
trial after the counted ones), so its task may also be a counted task (the gridworld's is in
``gridworld-easy``) and both are played; the run config flags it and reports leave it out.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from agentkit import __version__
from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.models.participant import Participant
from agentkit.play.page_participant import PageParticipant
from agentkit.prompts.renderer import resolve_templates
from agentkit.records import EndReason, StorageError
from agentkit.runs.setup_episode import make_backend, make_setup
from agentkit.runs.suite_tasks import expand_task_names
from agentkit.runs.suite_tasks import suite_tasks as tasks_of_suite
from agentkit.runs.worker import ended_unjudged, episode_id_for
from agentkit.transcripts import TranscriptStore
from agentkit.tutorial_episode import TASK_KEY, TRIAL_KEY, tutorial_seed

log = logging.getLogger(__name__)

TUTORIAL_TASK = "01-01-01"  # Animal-AI Testbed 1-1-1: one green goal straight ahead (see the docstring)
# Per world: the tutorial and the suite played by default. The gridworld's tutorial is its easiest
# navigation task (reach the green goal square in a small empty room).
TUTORIALS = {"aai-arena": TUTORIAL_TASK, "gridworld": "gridworld/reach-goal-easy"}
DEFAULT_SUITES = {"aai-arena": "aai-children40", "gridworld": "gridworld-easy"}
# Animal-AI decides every 3 physics frames of 0.02 s (Unity's fixed timestep; the arena's stand-in
# refuses any other --decisionPeriod, envs/arena/unity_standin.py): one step per 0.06 s.
STEP_S = 0.06
ENV = "aai-arena"  # the default world
MODES = ("keyboard", "script")


def check_participant(participant: str, option: str = "--participant") -> str:
    """The id itself, or ValueError (one line): letters, digits, '-', '_' or '.', at most 64."""
    if (
        not participant
        or len(participant) > 64
        or not participant.replace("-", "").replace("_", "").replace(".", "").isalnum()
        or not participant.isascii()
    ):
        raise ValueError(
            f"{option}: an id of letters, digits, '-', '_' or '.' (at most 64), not {participant!r}"
        )
    return participant


def check_condition(condition: str, option: str = "--condition") -> str:
    """The condition itself, or ValueError (one line) for one too long or with control characters."""
    if len(condition) > 200 or any(ord(c) < 32 for c in condition):
        raise ValueError(f"{option}: at most 200 printable characters")
    return condition


@dataclass(frozen=True)
class PlayOptions:
    """What the experimenter chose for a sitting (``agentkit play``'s options). ``participant``
    None: the server waits for the experimenter page to name each participant."""

    participant: str | None
    tasks: list[str]
    mode: str = "keyboard"
    condition: str = ""
    size: int | None = None  # frame side in pixels (the arena renders and the observer sends this size)
    tutorial: str | None = TUTORIAL_TASK  # None: no tutorial
    seed: int = 0
    env: str = ENV  # aai-arena (real time under keys) or gridworld (a step a key press)
    # The tutorial's trial; None: the trial after the counted ones (agentkit.tutorial_episode).
    # A sitting stored before the run config recorded it played its tutorial as trial 0.
    tutorial_trial: int | None = None

    def __post_init__(self) -> None:
        if self.env not in TUTORIALS:
            raise ValueError(f"--env: give {' or '.join(TUTORIALS)}, not {self.env!r}")
        if self.mode not in MODES:
            raise ValueError(f"--mode: give keyboard or script, not {self.mode!r}")
        if self.participant is not None:
            check_participant(self.participant)
        check_condition(self.condition)
        if not self.tasks:
            raise ValueError("--tasks: no task to play")

    @property
    def stepping(self) -> str:
        """``realtime`` (the arena under held keys: a step per 0.06 s while the page asks) or
        ``turns`` (a step per key press or typed script)."""
        return "realtime" if self.env == "aai-arena" and self.mode == "keyboard" else "turns"

    @property
    def model(self) -> str:
        if self.participant is None:
            raise ValueError("a sitting needs a participant id")
        return f"human:{self.participant}"

    def run_config(self) -> RunConfig:
        """The run's configuration: the model's conditions, plus frame-by-frame control in keyboard
        mode. Its tasks are the counted ones; the tutorial is played before them (:meth:`plan`)."""
        fields: dict[str, Any] = {
            "env": self.env,
            "tasks": list(self.tasks),
            "model": self.model,
            "seed": self.seed,
            "max_concurrency": 1,
            "workers": "threads",
        }
        views = ObserverSettings().views
        if self.mode == "keyboard":  # the person sees only the frame; no text to render each step
            fields.update(control="frame-by-frame:1", memory="markovian")
            views = ["image"]
        if self.size is not None:
            fields["backend_options"] = {"render_size": self.size}
        fields["observer"] = ObserverSettings(views=views, **({"max_side": self.size} if self.size else {}))
        return RunConfig(**fields)

    def tutorial_episode(self, config: RunConfig | None = None) -> tuple[str, int, int] | None:
        """(task, trial, seed) of the tutorial, or None without one: the trial after the counted
        trials of its task, so it never shares a counted episode's id (nor its seed)."""
        if not self.tutorial:
            return None
        config = config or self.run_config()
        trial = config.episodes if self.tutorial_trial is None else self.tutorial_trial
        return self.tutorial, trial, tutorial_seed(config.seed, trial)

    def plan(self) -> list[tuple[str, int, int]]:
        """(task, trial, seed) of every episode of the sitting, in order: the tutorial, then the
        counted tasks as the run config plans them (each once)."""
        config = self.run_config()
        tutorial = self.tutorial_episode(config)
        return ([tutorial] if tutorial else []) + list(config.episode_plan())

    def config_extras(self) -> dict[str, Any]:
        """What the run config records beside a model run's: the person's ids, the mode, the tutorial."""
        tutorial = self.tutorial_episode()
        return {
            "participant": self.participant,
            "condition": self.condition,
            "play_mode": self.mode,
            TASK_KEY: self.tutorial,
            TRIAL_KEY: tutorial[1] if tutorial else None,
        }


def suite_tasks(suite: str | None, tasks: str | None, env: str = ENV) -> list[str]:
    """The tasks of ``--tasks`` (comma-separated ids or suite names) or else of ``--suite`` (the
    world's default suite when None), in order, expanded as every command expands them
    (``agentkit.runs.suite_tasks``): a task named twice is played once (its episode id would repeat), and
    an unknown suite is refused with the suites the world has."""
    if env not in DEFAULT_SUITES:
        raise ValueError(f"--env: give {' or '.join(DEFAULT_SUITES)}, not {env!r}")
    names = [t.strip() for t in (tasks or "").split(",") if t.strip()]
    if names:
        return expand_task_names(env, names)
    return tasks_of_suite(env, suite or DEFAULT_SUITES[env])


def check_tasks(options: PlayOptions) -> None:
    """ValueError (one line, naming the task) when a task of the sitting cannot be played."""
    config = options.run_config()
    backend = make_backend(config)
    try:
        for task in dict.fromkeys(task for task, _, _ in options.plan()):
            backend.check_task(task)
    finally:
        backend.close()


@dataclass
class EpisodeOutcome:
    """How one played episode ended (for the page and the experimenter)."""

    task: str
    episode_id: str
    success: bool
    end_reason: str
    reward: float

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "episode_id": self.episode_id,
            "success": self.success,
            "end_reason": self.end_reason,
            "reward": round(self.reward, 4),
        }


@dataclass
class PlaySession:
    """Creates the run, then plays its episodes in order on a thread of its own, each answer
    waiting for the page (``participant.hand_over``)."""

    options: PlayOptions
    store: TranscriptStore
    run_id: str = ""
    participant: PageParticipant | None = None
    outcomes: list[EpisodeOutcome] = field(default_factory=list)
    current: int = 0  # index of the episode being played in the run's plan
    error: str | None = None
    resume: Any = None  # an agentkit.play.resume.ResumePoint: go on with that stored sitting
    _thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        self.config = self.options.run_config()
        self.plan = self.options.plan()

    def start(self) -> None:
        """Create the run and start playing (the world waits for the page). The tasks are checked
        before, by :func:`check_tasks` (``agentkit play`` does, before it serves)."""
        backend = make_backend(self.config)
        try:
            templates = resolve_templates(backend.template_set, self.config.templates_dir)
        finally:
            backend.close()
        if self.resume is not None:  # the stored templates, so the sitting reads as it began
            self.templates, self.run_id = self.resume.templates, self.resume.run_id
            self.outcomes = [self.resume.done[i] for i in sorted(self.resume.done)]
            self.store.reopen_run(self.run_id)
        else:
            self.templates = templates
            config = {
                **self.config.model_dump(),
                "agentkit_version": __version__,
                **self.options.config_extras(),
            }
            self.run_id = self.store.create_run(
                env=self.config.env,
                tasks=self.config.tasks,
                model=self.config.model,
                config=config,
                templates=templates,
            )
        self.participant = PageParticipant(self.config.model, self.options.mode)
        self._thread = threading.Thread(
            target=self._play_all, name=f"play-{self.options.participant}", daemon=True
        )
        self._thread.start()

    def _play_all(self) -> None:
        """The sitting's thread: every episode of the plan not already kept, in order."""
        participant = self.participant
        assert participant is not None
        player: Participant = participant
        setup = None
        status = "finished"
        try:
            setup = make_setup(self.config, templates=self.templates, model_factory=lambda backend: player)
            for index, (task, trial, seed) in enumerate(self.plan):
                if self.resume is not None and index in self.resume.done:
                    continue
                self.current = index
                if not self._play_one(setup, index, task, trial, seed):
                    status = "stopped"
                    break
        except Exception as exc:  # the store failed, or the world could not be built: the sitting stops
            log.exception("participant %s: the sitting stopped", self.options.participant)
            self.error, status = f"{type(exc).__name__}: {exc}", "stopped"
        finally:
            if setup is not None:
                setup.backend.close()
            try:
                self.store.finish_run(self.run_id, status)
            except StorageError as exc:
                log.info("run %s not closed: %s", self.run_id, exc)
            self.current = len(self.plan)
            participant.mark_finished()

    def _play_one(self, setup: Any, index: int, task: str, trial: int, seed: int) -> bool:
        """Play and store one episode; False when the sitting cannot go on (closed, or broken)."""
        attempt = self.resume.attempts.get(index, 0) if self.resume is not None else 0
        episode_id = episode_id_for(self.run_id, task, trial, seed, attempt)
        self.store.start_episode(self.run_id, task, seed, trial=trial, attempt=attempt, episode_id=episode_id)
        try:
            result = run_episode(setup, task, seed, sink=self.store, episode_id=episode_id)
        except StorageError:
            raise
        except Exception as exc:  # resetting the world failed: recorded, and the sitting stops
            log.exception("participant %s: %s could not be played", self.options.participant, task)
            self.store.finish_episode(
                episode_id,
                ended_unjudged(episode_id, task, seed, EndReason.ENV_ERROR, self.config.pass_rule),
                error=f"{type(exc).__name__}: {exc}",
            )
            self.error = f"{task}: {type(exc).__name__}: {exc}"
            return False
        result.trial = trial
        if attempt:
            result.metrics = {**result.metrics, "attempt": attempt}
        self.store.finish_episode(episode_id, result, error=result.error)
        self.outcomes.append(
            EpisodeOutcome(task, episode_id, result.success, result.end_reason.value, result.reward)
        )
        log.info("participant %s: %s ended (%s)", self.options.participant, task, result.end_reason.value)
        # a closed session (model error) or a store that keeps nothing more ends the sitting
        return result.end_reason not in (EndReason.MODEL_ERROR, EndReason.STORAGE_ERROR)

    def state(self) -> dict[str, Any]:
        """What the page needs: where the participant is, the frame, and how earlier episodes ended."""
        assert self.participant is not None
        board = self.participant.board
        with board.cond:
            view = board.view.to_json()
            finished = board.finished
        index = min(self.current, len(self.plan) - 1)
        tutorial = bool(self.options.tutorial) and index == 0 and not finished
        return {
            "run_id": self.run_id,
            "participant": self.options.participant,
            "mode": self.options.mode,
            "env": self.options.env,
            "stepping": self.options.stepping,
            "task": self.plan[index][0],
            "task_index": self.current,
            "tasks_total": len(self.plan),
            "tutorial": tutorial,
            "finished": finished,
            "error": self.error,
            "outcomes": [o.to_json() for o in self.outcomes],
            "step_s": STEP_S,
            **view,
        }

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop waiting for the page: the episode in play ends (model error, relaunchable) and the run is closed."""
        if self.participant is not None:
            self.participant.close()
        if self._thread is not None:
            self._thread.join(timeout_s)
