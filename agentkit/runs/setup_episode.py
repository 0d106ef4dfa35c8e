"""Build the parts of an episode (backend, observer, renderer, model, memory) from a RunConfig.

This is the one place that turns names into objects, so the loop stays ignorant of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agentkit.actions.tool_schema import tool_schemas
from agentkit.config import RunConfig
from agentkit.control import Control, FrameWatch, make_control
from agentkit.envs import Backend, get_backend
from agentkit.loop import EpisodeLimits, EpisodeSetup
from agentkit.memory import memory_policy_from_spec
from agentkit.models import reuse_window
from agentkit.models.base import Model
from agentkit.models.cached_model import CachedModel, ResponseCache
from agentkit.models.participant import Participant
from agentkit.models.rate_limit import RateLimitedModel, limiter_for, provider_of
from agentkit.observers.image_encoding import encode_image
from agentkit.observers.observation import EncodedImage
from agentkit.observers.observer import Observer
from agentkit.pass_rule import PassRule
from agentkit.prompts import PromptRenderer
from agentkit.prompts.renderer import resolve_templates
from agentkit.protocols import check_backend, protocol_named

# Frame-by-frame control: an episode ends by the world's own clock, counted in steps as Animal-AI
# counts them (an arena lasts its t steps), not after --max-scripts answers; this many answers
# only guards a world without a clock (an arena with t = 0).
FRAME_CALLS_GUARD = 10_000


def needs_frames(config: RunConfig) -> bool:
    """Whether anything will look at rendered frames: a model shown images. The reference agent
    plans from privileged state, and a backend's built-in controller reads its own observations, so
    their runs skip rendering (the costliest part of a 3D step)."""
    from agentkit.models.controller_agent import is_controller_model

    local = config.model == "reference" or is_controller_model(config.model)
    return not local and config.include_images and "image" in config.observer.views


def make_backend(config: RunConfig) -> Backend:
    backend_cls = get_backend(config.env)
    options = dict(config.backend_options)
    if not needs_frames(config):
        options = {**backend_cls.frameless_options, **options}  # explicit options still win
    try:
        return backend_cls(**options)
    except TypeError as exc:
        raise ValueError(f"backend options for {config.env!r}: {exc}") from None


def make_observer(config: RunConfig) -> Observer:
    return Observer(config.observer)  # the run stores the observer's own settings (ObserverConfig)


def make_model(config: RunConfig, backend: Backend, api_key: str | None = None) -> Model | Participant:
    """``reference`` (the backend's planner), ``human`` (a person at the terminal), a backend's
    built-in controller (``causalworld:pushing_ppo_curr1``) or a litellm id."""
    if config.model == "reference":
        from agentkit.models.reference_model import ReferenceAgent

        return ReferenceAgent(backend.reference_policy())
    from agentkit.models.controller_agent import ControllerAgent, is_controller_model

    if is_controller_model(config.model):
        check_controller(config.model, backend)
        return ControllerAgent(config.model)
    if config.model == "human":
        from agentkit.models.human_frames import shared_frame_display
        from agentkit.models.human_model import HumanModel
        from agentkit.runs import terminal_hold

        return HumanModel(frames=shared_frame_display(config.human_frames), hold=terminal_hold.held)
    from agentkit.models.litellm_model import LiteLLMModel
    from agentkit.models.local_server_key import key_for_server

    return LiteLLMModel(
        config.model,
        api_base=config.api_base,
        api_key=key_for_server(api_key, config.api_base),
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        stop=config.stop,
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
        retry_base_s=config.retry_base_s,
        price_per_mtok=config.price_per_mtok,
        fold_system=config.fold_system,
        prompt_cache=config.prompt_cache,
        tools=tool_schemas(backend.vocabulary) if config.action_format == "tools" else None,
    )


def check_controller(model: str, backend: Backend, tasks: Iterable[str] = ()) -> None:
    """ValueError (one line) when ``backend`` runs no built-in controller named ``model``, or when
    it cannot play one of ``tasks`` (e.g. an actor trained on another task's observation)."""
    names = backend.controllers()
    if not backend.accepts_controller(model):
        offered = f"it runs {', '.join(names)}" if names else "it runs none"
        raise ValueError(f"--model {model}: env {backend.name!r} has no such built-in controller ({offered})")
    for task in tasks:
        backend.check_controller(model, task)


def wrap_model(
    model: Model | Participant, config: RunConfig, cache: ResponseCache | None
) -> Model | Participant:
    """Add the run's rate limit and response cache around an API model."""
    from agentkit.models.litellm_model import LiteLLMModel

    if not isinstance(model, LiteLLMModel):
        return model  # reference, human and replay answers cost nothing and need neither
    wrapped: Model = model
    if config.rate_limit_rpm:
        wrapped = RateLimitedModel(wrapped, limiter_for(provider_of(config.model), config.rate_limit_rpm))
    if config.cache and cache is not None:
        params: dict[str, Any] = {
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "api_base": config.api_base,
        }
        if (
            config.fold_system
        ):  # another request than the unfolded one (kept out otherwise: old keys stay valid)
            params["fold_system"] = True
        if (
            config.stop
        ):  # answers cut at other places are other answers (kept out without: old keys stay valid)
            params["stop"] = list(config.stop)
        wrapped = CachedModel(wrapped, cache, params, config.cache_max_age_s)
    return wrapped


def control_parts(config: RunConfig, backend: Backend) -> tuple[Control, FrameWatch | None]:
    """The run's control mode for ``backend``, and the frame watch of ``--observe every:K|events``
    (None for ``end``). ValueError in one line for a backend without primitive actions."""
    control = make_control(config.control, config.observe, config.observe_max_images, backend)
    if control.observe.kind == "end":
        return control, None
    s = config.observer

    def encode(frame: Any, label: str) -> EncodedImage:
        return encode_image(frame, label=label, fmt=s.image_format, max_side=s.max_side, quality=s.quality)

    return control, FrameWatch(control.observe, backend, encode, config.observe_max_images)


def check_tool_templates(sources: dict[str, str]) -> None:
    """Refuse (ValueError, one line) ``--action-format tools`` with a system template that never
    reads ``action_format``: it would tell the model to write scripts the run does not read."""
    from agentkit.prompts.template_sets import template_variables

    if "action_format" not in template_variables(sources.get("system.j2", "")):
        raise ValueError(
            "--action-format tools: these templates' system.j2 never reads the variable action_format, "
            "so it would ask for scripts written as text; use a set that describes tool calls "
            "(aai-arena, gridworld, trifinger) or add it (docs/control-modes.md)"
        )


def make_setup(
    config: RunConfig,
    templates: dict[str, str] | None = None,
    model_factory: Callable[[Backend], Model | Participant] | None = None,
    api_key: str | None = None,
    cache: ResponseCache | None = None,
) -> EpisodeSetup:
    """All parts of an episode. ``templates`` (stored sources) override the config's template folder."""
    backend = make_backend(config)
    sources = (
        templates if templates is not None else resolve_templates(backend.template_set, config.templates_dir)
    )
    if config.action_format == "tools":
        check_tool_templates(sources)
    renderer = PromptRenderer(sources, include_images=config.include_images)
    control, watch = control_parts(config, backend)
    reuse_window.size_for_run(
        config.max_concurrency, FRAME_CALLS_GUARD if control.frame_by_frame else config.max_scripts
    )  # the model client's caches hold the messages this run resends, no more
    model = (
        model_factory(backend)
        if model_factory
        else wrap_model(make_model(config, backend, api_key), config, cache)
    )
    protocol = protocol_named(config.protocol)
    check_backend(protocol, backend)  # one line for a backend that does not play it
    return EpisodeSetup(
        backend=backend,
        observer=make_observer(config),
        renderer=renderer,
        model=model,
        memory=memory_policy_from_spec(config.memory),
        pass_rule=PassRule(config.pass_rule),
        control=control,
        watch=watch,
        action_format=config.action_format,
        protocol=protocol,
        limits=EpisodeLimits(
            max_scripts=FRAME_CALLS_GUARD if control.frame_by_frame else config.max_scripts,
            max_parse_failures=config.max_parse_failures,
            max_input_tokens=config.max_input_tokens,
            max_output_tokens=config.max_output_tokens,
            max_cost_usd=config.max_cost_usd,
            max_wall_s=config.max_wall_s,
        ),
    )
