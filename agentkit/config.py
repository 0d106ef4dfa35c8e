"""The validated configuration of a run: what is stored with it, and what replay rebuilds from."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentkit.memory import memory_policy_from_spec


class ObserverSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    views: list[Literal["image", "ascii", "language", "structured"]] = ["image", "ascii", "language"]
    image_format: Literal["jpeg", "png"] = "jpeg"
    max_side: int = Field(512, ge=16, le=4096)
    quality: int = Field(85, ge=1, le=100)


class RunConfig(BaseModel):
    """One run: a backend, a task, a model and how the model is prompted. Never holds an API key."""

    model_config = ConfigDict(extra="forbid")

    env: str
    tasks: list[str] = Field(min_length=1)
    model: str = "reference"
    api_base: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    episodes: int = Field(1, ge=1)  # per task
    seed: int = 0
    max_scripts: int = Field(30, ge=1)
    max_parse_failures: int = Field(5, ge=1)
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = Field(None, gt=0)  # per episode
    # How an episode stopped by these limits or broken by an error is judged (agentkit.pass_rule):
    # "aai" (Animal-AI's, the default) or "llm-aai" (as the LLM-AAI paper's code judged).
    pass_rule: Literal["aai", "llm-aai"] = "aai"
    # Run-wide limits: when one is reached no new episode starts and running ones end cleanly.
    run_max_cost_usd: float | None = Field(None, gt=0)
    run_max_tokens: int | None = Field(None, gt=0)
    run_max_wall_s: float | None = Field(None, gt=0)
    # Reliability and throughput.
    max_concurrency: int = Field(1, ge=1, le=256)
    max_attempts: int = Field(2, ge=1)  # an episode ending in model_error/env_error is relaunched
    rate_limit_rpm: float | None = Field(None, gt=0)  # requests per minute per provider
    cache: bool = False  # answer identical requests from the store's response cache
    cache_max_age_s: float | None = Field(None, gt=0)
    workers: Literal["auto", "threads", "processes"] = "auto"  # how episodes run concurrently
    # Model client: per-request timeout, retries with backoff, and a price for unlisted models.
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(5, ge=0)
    retry_base_s: float = Field(1.0, ge=0)
    price_per_mtok: tuple[float, float] | None = None  # (input, output) USD per million tokens
    # An explicit list of (task, seed) episodes; when set it replaces tasks x episodes (the
    # gridworld catalogue's hashed seeds, hand-picked seeds). Trials count per task in list order.
    plan: list[tuple[str, int]] | None = None
    # Options of the env's evaluation protocol (e.g. the gridworld catalogue) that made ``plan``;
    # kept so a resumed or re-scored run is scored the same way.
    evaluation: dict[str, Any] | None = None
    memory: str = "full"
    templates_dir: str | None = None
    include_images: bool = True
    observer: ObserverSettings = Field(default_factory=ObserverSettings)
    backend_options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("memory")
    @classmethod
    def _check_memory(cls, value: str) -> str:
        memory_policy_from_spec(value)
        return value

    def episode_plan(self) -> list[tuple[str, int, int]]:
        """(task, trial, seed) of every episode: trial i of a task uses seed + i, so runs with the
        same seed meet the same episodes whatever the model."""
        if self.plan is not None:
            trials: dict[str, int] = {}
            out = []
            for task, seed in self.plan:
                out.append((task, trials.get(task, 0), seed))
                trials[task] = trials.get(task, 0) + 1
            return out
        return [(task, i, self.seed + i) for task in self.tasks for i in range(self.episodes)]
