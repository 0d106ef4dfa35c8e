"""The validated configuration of a run: what is stored with it, and what replay rebuilds from.

Seeds and episode counts are bounded here, where the command line, experiment files and resumed runs
all pass: a seed is stored in a 64-bit column and every backend wants one >= 0 (gridworld's
generator refuses negative seeds, so every such episode ended in ``env_error``), and a run's episodes
are planned up front, so an absurd count must be refused in one line, not by a MemoryError.

One source per fact: the defaults are agentkit.leaves.run_defaults' (the command line's flags read the
same ones), the observer's settings are the observer's own ``ObserverConfig``, and a stored run's
configuration is rebuilt by ``RunConfig.from_stored`` (replay, resume, the Python API and eval).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from agentkit.leaves import run_defaults as default
from agentkit.memory import memory_policy_from_spec
from agentkit.models.controller_agent import is_controller_model
from agentkit.observers import ObserverConfig

MAX_SEED = 2**63 - 1  # the largest value of the store's 64-bit seed column
MAX_STOP_CHARS = 200  # a stop sequence is a marker such as "\nUser:", never a paragraph
MAX_EPISODES = 1_000_000  # episodes one run may plan (tasks x episodes, or an explicit plan)


def ObserverSettings(**fields: Any) -> ObserverConfig:
    """The observer settings of a run: an ``ObserverConfig`` whose views default to the run's
    (agentkit.leaves.run_defaults.OBSERVER_VIEWS) rather than the bare observer's every view."""
    return ObserverConfig(**{"views": list(default.OBSERVER_VIEWS), **fields})


def _run_observer() -> ObserverConfig:
    """The observer a run uses unless told otherwise: the default views, images as the observer encodes them."""
    return ObserverSettings()


class RunConfig(BaseModel):
    """One run: a backend, a task, a model and how the model is prompted. Never holds an API key."""

    model_config = ConfigDict(extra="forbid")

    env: str
    tasks: list[str] = Field(min_length=1)
    # A label for the run (``--name``): reports and the viewer show it instead of the bare run id.
    name: str | None = Field(None, min_length=1, max_length=200)
    model: str = default.MODEL
    api_base: str | None = None
    temperature: float = default.TEMPERATURE
    max_tokens: int = Field(default.MAX_TOKENS, ge=1)
    # Stop sequences (``--stop``): the provider ends an answer where one of them appears (litellm's
    # ``stop``). None: only the model's own end of turn.
    stop: list[str] | None = None
    episodes: int = Field(default.EPISODES, ge=1)  # per task
    seed: int = default.SEED
    max_scripts: int = Field(default.MAX_SCRIPTS, ge=1)
    max_parse_failures: int = Field(default.MAX_PARSE_FAILURES, ge=1)
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = Field(None, gt=0)  # per episode
    # How an episode stopped by these limits or broken by an error is judged (agentkit.pass_rule):
    # "aai" (Animal-AI's, the default) or "llm-aai" (as the LLM-AAI paper's code judged).
    pass_rule: Literal["aai", "llm-aai"] = default.PASS_RULE
    # The episode's timing and feedback (agentkit.protocols, docs/protocols.md): "agentkit" (ours, the
    # default: the clock starts at the first answer) or "llm-aai" (the LLM-AAI harness's: 49 idle steps
    # and three pictures before the first answer, a fixed reply to an unusable answer, no limit on them).
    protocol: Literal["agentkit", "llm-aai"] = default.PROTOCOL
    # Run-wide limits: when one is reached no new episode starts and running ones end cleanly.
    run_max_cost_usd: float | None = Field(None, gt=0)
    run_max_tokens: int | None = Field(None, gt=0)
    run_max_wall_s: float | None = Field(None, gt=0)
    # Reliability and throughput.
    max_concurrency: int = Field(default.MAX_CONCURRENCY, ge=1, le=256)
    max_attempts: int = Field(
        default.MAX_ATTEMPTS, ge=1
    )  # an episode ending in model_error/env_error is relaunched
    # The run stops once this many episodes in a row end in model_error (a model that cannot answer
    # would otherwise fail every episode left); None: never.
    max_consecutive_model_errors: int | None = Field(default.MAX_CONSECUTIVE_MODEL_ERRORS, ge=1)
    rate_limit_rpm: float | None = Field(None, gt=0)  # requests per minute per provider
    cache: bool = False  # answer identical requests from the store's response cache
    cache_max_age_s: float | None = Field(None, gt=0)
    workers: Literal["auto", "threads", "processes"] = "auto"  # how episodes run concurrently
    # Where episodes run: "local" (this machine's threads or processes) or "ray" (Ray tasks on the
    # cluster at ``ray_address``, else $RAY_ADDRESS, else a new local one: agentkit.runs.executors).
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    # Model client: per-request timeout, retries with backoff, and a price for unlisted models.
    timeout_s: float = Field(default.TIMEOUT_S, gt=0)
    max_retries: int = Field(default.MAX_RETRIES, ge=0)
    retry_base_s: float = Field(default.RETRY_BASE_S, ge=0)
    price_per_mtok: tuple[float, float] | None = None  # (input, output) USD per million tokens
    # Send the system message as the start of the first user message (models without a system role).
    fold_system: bool = False
    # Cache breakpoints on the stable prefix for providers that need them (agentkit.models.prompt_cache).
    prompt_cache: bool = True
    # An explicit list of (task, seed) episodes; when set it replaces tasks x episodes (the
    # gridworld catalogue's hashed seeds, hand-picked seeds). Trials count per task in list order.
    plan: list[tuple[str, int]] | None = None
    # Options of the env's evaluation protocol (e.g. the gridworld catalogue) that made ``plan``;
    # kept so a resumed or re-scored run is scored the same way.
    evaluation: dict[str, Any] | None = None
    memory: str = default.MEMORY
    # Where ``--model human`` shows the frames: auto, window, page or files (agentkit.models.human_frames).
    human_frames: Literal["auto", "window", "page", "files"] = default.HUMAN_FRAMES
    templates_dir: str | None = None
    include_images: bool = True
    observer: ObserverConfig = Field(default_factory=_run_observer)
    backend_options: dict[str, Any] = Field(default_factory=dict)
    # How the model acts (agentkit.control): "script" (the paper's, the default) or
    # "frame-by-frame[:N]" (one primitive action per answer, held for N steps).
    control: str = "script"
    # Frames a script's model sees on its next turn: "end" (the view after the script, as before),
    # "every:K" (also every K steps of it) or "events" (also when a step reports a reward, a touch,
    # the lights changing); at most ``observe_max_images`` of them per turn.
    observe: str = "end"
    observe_max_images: int = Field(8, ge=1, le=64)
    # How the model writes its actions: "text" (a script in its answer, the paper's) or "tools"
    # (native tool calls, one per command: agentkit.actions.tool_schema and tool_calls).
    action_format: Literal["text", "tools"] = "text"

    @field_validator("action_format")
    @classmethod
    def _check_action_format(cls, value: str, info: ValidationInfo) -> str:
        if value != "tools":
            return value
        model = str(info.data.get("model") or "")
        if model in ("reference", "human") or is_controller_model(model):
            who = {"reference": "the reference agent writes scripts", "human": "a person types scripts"}.get(
                model, f"{model} is a built-in controller"
            )
            raise ValueError(
                f"--action-format tools needs a model that makes tool calls ({who}); name one with --model"
            )
        if (info.data.get("control") or "script") != "script":
            raise ValueError(
                "--action-format tools is for --control script (frame-by-frame answers one action name)"
            )
        if info.data.get("cache"):
            raise ValueError(
                "--action-format tools cannot use --cache (the response cache keeps answer text, not tool calls)"
            )
        return value

    @field_validator("stop")
    @classmethod
    def _check_stop(cls, value: list[str] | None) -> list[str] | None:
        if not value:
            return None  # none given: the field stays out of requests and cache keys
        for sequence in value:
            if not sequence:
                raise ValueError("--stop: a stop sequence cannot be empty")
            if len(sequence) > MAX_STOP_CHARS:
                raise ValueError(f"--stop: a stop sequence is at most {MAX_STOP_CHARS} characters")
        return list(dict.fromkeys(value))

    @field_validator("control")
    @classmethod
    def _check_control(cls, value: str, info: ValidationInfo) -> str:
        from agentkit.control.modes import parse_control

        mode = parse_control(value)
        protocol = info.data.get("protocol") or "agentkit"
        if mode.kind != "script" and protocol != "agentkit":
            raise ValueError(
                f"--protocol {protocol} is the LLM-AAI script harness; it cannot be played frame by frame"
            )
        if mode.kind != "script" and info.data.get("model") == "reference":
            raise ValueError(
                "--control frame-by-frame needs a model that answers primitive actions (the "
                "reference agent writes scripts); name one with --model"
            )
        if mode.kind != "script" and is_controller_model(info.data.get("model") or ""):
            raise ValueError(
                f"--control frame-by-frame needs a model that answers primitive actions "
                f"({info.data.get('model')} is a built-in controller); name one with --model"
            )
        return mode.spec

    @field_validator("observe")
    @classmethod
    def _check_observe(cls, value: str, info: ValidationInfo) -> str:
        from agentkit.control.modes import parse_control, parse_observe

        observe = parse_observe(value)
        if observe.kind != "end":
            if parse_control(info.data.get("control") or "script").kind != "script":
                raise ValueError(
                    "--observe every:K|events is for --control script (frame-by-frame sees every answer's end)"
                )
            if not info.data.get("include_images", True):
                raise ValueError(
                    "--observe every:K|events shows frames, but the run sends no images (--no-images)"
                )
        return observe.spec

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> RunConfig:
        """The configuration a run was stored with (the store's ``runs.config``), validated again.

        Keys this version does not know (a later agentkit's settings, the ``agentkit_version`` stamp)
        are left out, so an older agentkit still replays, resumes and re-scores a newer run's record.
        """
        return cls.model_validate({k: v for k, v in stored.items() if k in cls.model_fields})

    @field_validator("memory")
    @classmethod
    def _check_memory(cls, value: str) -> str:
        memory_policy_from_spec(value)
        return value

    @field_validator("episodes")
    @classmethod
    def _check_episodes(cls, value: int, info: ValidationInfo) -> int:
        tasks = len(info.data.get("tasks") or ()) or 1
        if value > MAX_EPISODES or value * tasks > MAX_EPISODES:
            raise ValueError(
                f"a run plays at most {MAX_EPISODES:,} episodes ({value:,} per task x {tasks:,} "
                "task(s) asked)"
            )
        return value

    @field_validator("seed")
    @classmethod
    def _check_seed(cls, value: int, info: ValidationInfo) -> int:
        last = value + info.data.get("episodes", 1) - 1  # trial i uses seed + i
        if value < 0 or last > MAX_SEED:
            raise ValueError(
                f"seeds must be whole numbers from 0 to {MAX_SEED} (2^63 - 1), and so must seed + "
                f"episodes - 1; got {value}"
            )
        return value

    @field_validator("plan")
    @classmethod
    def _check_plan(cls, value: list[tuple[str, int]] | None) -> list[tuple[str, int]] | None:
        if value is None:
            return value
        if len(value) > MAX_EPISODES:
            raise ValueError(f"a run plays at most {MAX_EPISODES:,} episodes; the plan lists {len(value):,}")
        for _, seed in value:
            if not 0 <= seed <= MAX_SEED:
                raise ValueError(f"seeds must be whole numbers from 0 to {MAX_SEED} (2^63 - 1); got {seed}")
        return value

    def episode_plan(self) -> Iterator[tuple[str, int, int]]:
        """(task, trial, seed) of every episode, generated as asked: trial i of a task uses seed + i,
        so runs with the same seed meet the same episodes whatever the model."""
        if self.plan is not None:
            trials: dict[str, int] = {}
            for task, seed in self.plan:
                yield task, trials.get(task, 0), seed
                trials[task] = trials.get(task, 0) + 1
            return
        for task in self.tasks:
            for i in range(self.episodes):
                yield task, i, self.seed + i
