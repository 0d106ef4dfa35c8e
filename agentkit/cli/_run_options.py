"""Command-line flags for the run settings that experiment files had to themselves.

Why: ``timeout_s``, ``max_retries``, the per-episode and run-wide budgets, the response cache, the
rate limit, the image size, the gridworld's API commands and the folded system message could
only be set in a YAML file, so a quick ``agentkit run`` against a slow local server, or an eval
with a budget, meant writing a file first. The flags are declared once here and added to
``agentkit run`` and ``agentkit eval`` by :func:`with_run_flags`; each maps onto a ``RunConfig``
field (documented in ``--help``), and :meth:`RunFlags.apply` puts the ones given into a config.

Every ``RunConfig`` field and where it is set:

============================ ======================= =============================================
field                        agentkit run            agentkit eval
============================ ======================= =============================================
name                         --name                  --name
env, model, api_base         --env --model --api-base --env --model --api-base (file: env, models)
tasks                        --task --suite          --tasks (file: tasks, suite)
episodes, seed               --episodes --seed       --trials --seed (file: trials, seed)
temperature, max_tokens      --temperature ...       --temperature --max-tokens
stop                         --stop (repeatable)     --stop (file: stop)
max_scripts, parse failures  --max-scripts ...       --max-scripts --max-parse-failures
max_cost_usd                 --max-cost              --max-cost
max_input/output_tokens      --max-input-tokens ...  the same
max_wall_s                   --max-wall-s            --max-wall-s
run_max_cost_usd/tokens/wall --run-max-cost ...      the same
max_concurrency, workers     --max-concurrency ...   --max-concurrency --workers
executor, ray_address        --executor --ray-address the same (also with --resume)
max_attempts                 --max-attempts          --max-attempts
max_consecutive_model_errors --max-consecutive-...   the same
rate_limit_rpm               --rate-limit-rpm        --rate-limit-rpm
cache, cache_max_age_s       --cache --cache-max-... the same
timeout_s, max_retries       --timeout-s --max-...   the same (and --retry-base-s)
price_per_mtok               --price-per-mtok IN,OUT the same
fold_system                  --fold-system           --fold-system
prompt_cache                 --prompt-cache on|off   the same
memory, templates_dir        --memory --templates    --memory --templates (file: memory, templates)
include_images               --no-images             --no-images
observer.max_side            --image-size            --image-size (file: image_size)
backend_options.commands     --commands              --commands
backend_options.profile      --profile               --profile (trifinger: causalworld|agentkit)
modality (observer, images)  --modality              --modality --harness (file: catalogue.*)
pass_rule, human_frames      --pass-rule ...         --pass-rule --human-frames
protocol                     --protocol              --protocol (file: protocol)
control, observe             --control --observe     the same (and --observe-max-images)
action_format                --action-format         --action-format (file: action_format)
============================ ======================= =============================================
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from agentkit.cli._executor import executor_for
from agentkit.cli._help import BRIEF_RUN_FLAGS
from agentkit.leaves import run_defaults as default


@dataclass(frozen=True)
class Flag:
    """One flag: its name on the command line, the RunConfig field it sets, its type and help."""

    param: str  # the Python parameter name (also the RunConfig field unless ``field`` says otherwise)
    decl: str  # e.g. "--timeout-s"; a bool flag may name its negative form ("--cache/--no-cache")
    type: type
    help: str
    field: str = ""  # the RunConfig field, when not ``param``
    min: float | None = None

    @property
    def target(self) -> str:
        return self.field or self.param


# Flags both commands lack today (each was only reachable from an experiment file).
COMMON_FLAGS: tuple[Flag, ...] = (
    Flag(
        "name",
        "--name",
        str,
        "A label for the run, stored with it: `agentkit report aai` and the viewer "
        "show it instead of the bare run id.",
    ),
    Flag(
        "timeout_s",
        "--timeout-s",
        float,
        "Seconds one whole model request may take before it fails as a "
        f"timeout and is retried (default {default.TIMEOUT_S:g}).",
        min=0.001,
    ),
    Flag(
        "max_retries",
        "--max-retries",
        int,
        "Retries of a failed model request (rate limit, 5xx, timeout), "
        f"with exponential backoff (default {default.MAX_RETRIES}; 0: none).",
        min=0,
    ),
    Flag(
        "retry_base_s",
        "--retry-base-s",
        float,
        f"First backoff wait of those retries, in seconds (default {default.RETRY_BASE_S:g}).",
        min=0,
    ),
    Flag(
        "max_attempts",
        "--max-attempts",
        int,
        f"Launches of a trial that ends in a model or environment error (default {default.MAX_ATTEMPTS}).",
        min=1,
    ),
    Flag(
        "rate_limit_rpm",
        "--rate-limit-rpm",
        float,
        "At most this many model requests per minute per provider.",
        min=0.001,
    ),
    Flag(
        "cache",
        "--cache/--no-cache",
        bool,
        "Answer identical requests from the store's response cache, never paying twice (default off).",
    ),
    Flag(
        "cache_max_age_s",
        "--cache-max-age-s",
        float,
        "Ignore cached answers older than this many seconds.",
        min=0.001,
    ),
    Flag("max_input_tokens", "--max-input-tokens", int, "Input-token budget per episode.", min=1),
    Flag("max_output_tokens", "--max-output-tokens", int, "Output-token budget per episode.", min=1),
    Flag("max_wall_s", "--max-wall-s", float, "Wall-clock limit per episode, in seconds.", min=0.001),
    Flag(
        "run_max_cost",
        "--run-max-cost",
        float,
        "Cost budget of the whole run in US dollars: no new episode starts once it is spent.",
        field="run_max_cost_usd",
        min=0,
    ),
    Flag("run_max_tokens", "--run-max-tokens", int, "Token budget (input + output) of the whole run.", min=1),
    Flag(
        "run_max_wall_s",
        "--run-max-wall-s",
        float,
        "Wall-clock limit of the whole run, in seconds.",
        min=0.001,
    ),
    Flag(
        "price_per_mtok",
        "--price-per-mtok",
        str,
        "IN,OUT: US dollars per million input and output tokens, "
        "for a model litellm has no price for (budgets need a price).",
    ),
    Flag(
        "fold_system",
        "--fold-system",
        bool,
        "Send the system message as the start of the first user message "
        "(models without a system role); recorded with the run.",
    ),
    Flag(
        "stop",
        "--stop",
        list[str],
        "A stop sequence: the server ends the answer where it appears (repeat for more; OpenAI takes "
        'at most 4). For base models that run on past their answer, e.g. --stop "<end_of_turn>". '
        "Recorded with the run.",
    ),
    Flag(
        "prompt_cache",
        "--prompt-cache",
        str,
        "on (default) or off: cache breakpoints on the prompt's stable "
        "prefix for providers that need them (Anthropic's cache_control); recorded with the run.",
    ),
    Flag(
        "image_size",
        "--image-size",
        int,
        "Longest side of the images sent, in pixels (and the backend's render size where it has one).",
        field="observer.max_side",
        min=16,
    ),
    Flag(
        "commands",
        "--commands",
        str,
        "The command set the model writes, where the backend has several "
        '(gridworld: primitives or api, e.g. go_to("red key")).',
        field="backend_options.commands",
    ),
    Flag(
        "profile",
        "--profile",
        str,
        "trifinger: causalworld (default: CausalWorld's episode lengths, success "
        "measure and raised start pose) or agentkit (the task's own time limit and exact overlap).",
        field="backend_options.profile",
    ),
    Flag(
        "control",
        "--control",
        str,
        "script (default: the model writes a script, run whole) or "
        "frame-by-frame[:N] (the model answers one of the world's primitive actions, e.g. forward-left, "
        "held for N steps, default 1; the episode ends by the world's own clock, not --max-scripts). "
        "Recorded with the run.",
    ),
    Flag(
        "observe",
        "--observe",
        str,
        "What a script's model sees on its next turn: end (default: the view "
        "after the script), every:K (also a frame every K steps of it) or events (also when a step brings "
        "a reward, a touch, a change of lights or a goal into view); each frame labelled with its step.",
    ),
    Flag(
        "protocol",
        "--protocol",
        str,
        "agentkit (the default: the clock starts at the first answer) or llm-aai (the "
        "LLM-AAI paper's harness on Animal-AI: 49 idle steps and three pictures before the first answer, "
        "a fixed reply to an unusable answer, no limit on those). See docs/protocols.md. Recorded with the run.",
    ),
    Flag(
        "action_format",
        "--action-format",
        str,
        "text (default: the model writes its commands as a script) or tools (it calls them "
        "as native tool calls, one per command, checked by the same rules; refusals come back as "
        "tool results). For --control script with an API model. Recorded with the run.",
    ),
    Flag(
        "observe_max_images",
        "--observe-max-images",
        int,
        "At most this many frames taken during a script "
        "are sent on the next turn, evenly spread, the latest kept (default 8).",
        min=1,
    ),
)

# Flags `agentkit run` has had all along that `agentkit eval` lacked (the file set them).
EVAL_FLAGS: tuple[Flag, ...] = (
    Flag("temperature", "--temperature", float, f"Sampling temperature (default {default.TEMPERATURE:g})."),
    Flag(
        "max_tokens", "--max-tokens", int, f"Output tokens per answer (default {default.MAX_TOKENS}).", min=1
    ),
    Flag("seed", "--seed", int, "Seed of each task's first trial (trial i uses seed + i).", min=0),
    Flag(
        "max_scripts",
        "--max-scripts",
        int,
        f"Scripts (model answers) per episode (default {default.MAX_SCRIPTS}).",
        min=1,
    ),
    Flag(
        "max_parse_failures",
        "--max-parse-failures",
        int,
        f"Consecutive unusable answers before the episode ends (default {default.MAX_PARSE_FAILURES}).",
        min=1,
    ),
    Flag(
        "max_cost", "--max-cost", float, "Cost budget per episode in US dollars.", field="max_cost_usd", min=0
    ),
    Flag(
        "max_consecutive_model_errors",
        "--max-consecutive-model-errors",
        int,
        "Stop the run after this many "
        f"episodes in a row end in model errors (0: never; default {default.MAX_CONSECUTIVE_MODEL_ERRORS}).",
        min=0,
    ),
    Flag("memory", "--memory", str, "History policy: full, markovian, window:K, last-images:K."),
    Flag(
        "templates",
        "--templates",
        str,
        "Folder of Jinja templates, or a packaged set's name.",
        field="templates_dir",
    ),
    Flag("no_images", "--no-images", bool, "Send text only (for text-only models).", field="include_images"),
    Flag(
        "human_frames",
        "--human-frames",
        str,
        "Where --model human shows the frames: window (a browser window, "
        "where a display exists), page (a page on 127.0.0.1 that reloads itself), files (PNG files named on the "
        "terminal) or auto (the first that works). Stored with the run.",
    ),
)

# Flags `agentkit eval` has that `agentkit run` lacked.
RUN_FLAGS: tuple[Flag, ...] = (
    Flag(
        "modality",
        "--modality",
        str,
        "What the model is shown, where the env names its modalities "
        "(gridworld: mission, ascii, language, structured, ..., see `agentkit tasks gridworld`).",
        field="(modality)",
    ),
    Flag(
        "max_concurrency",
        "--max-concurrency",
        int,
        f"Episodes in flight at once (default {default.MAX_CONCURRENCY}).",
        min=1,
    ),
    Flag("workers", "--workers", str, "auto, threads or processes."),
    Flag(
        "executor",
        "--executor",
        str,
        "Where episodes run: local (this machine, default) or ray (Ray tasks on a cluster; the 'ray' "
        "extra). Stored with the run.",
    ),
    Flag(
        "ray_address",
        "--ray-address",
        str,
        "The Ray cluster to join (HOST:PORT or ray://HOST:PORT; default $RAY_ADDRESS, else a new local "
        "one). Implies --executor ray.",
    ),
)


class RunFlags:
    """The flags given on one command line (None: not given, the file's or the default value stays)."""

    def __init__(self, values: dict[str, Any], flags: tuple[Flag, ...]) -> None:
        self.values = values
        self.flags = {f.param: f for f in flags}

    def given(self) -> dict[str, Any]:
        # a repeatable flag not given arrives as an empty list
        return {k: v for k, v in self.values.items() if v is not None and v != []}

    def overrides(self) -> dict[str, Any]:
        """The RunConfig fields set, nested ones (``observer.max_side``, ``backend_options.x``) as
        partial dicts for :meth:`apply`; raises ValueError naming the flag for a malformed value."""
        out: dict[str, Any] = {}
        for param, value in self.given().items():
            flag = self.flags[param]
            if param == "price_per_mtok":
                value = _price(value)
            elif param == "max_consecutive_model_errors":
                value = value or None  # 0: never stop
            elif param == "no_images":
                if not value:
                    continue
                value = False  # include_images
            elif param in ("fold_system",) and not value:
                continue
            elif param == "prompt_cache":
                value = _on_off("--prompt-cache", value)
            head, _, tail = flag.target.partition(".")
            if tail:
                out.setdefault(head, {})[tail] = value
            else:
                out[head] = value
        if "ray_address" in out:  # a cluster named: the Ray executor, by the rule eval follows too
            out["executor"] = executor_for(out.get("executor"), out["ray_address"])
        return out

    def apply(self, config: Any, accepts: Callable[[str, str], bool] | None = None) -> Any:
        """A copy of RunConfig ``config`` with the flags given; ``accepts(env, option)`` says whether the
        backend takes an option (``--commands``, the render size): one it does not is refused."""
        overrides = self.overrides()
        modality = overrides.pop("(modality)", None)
        if modality is not None:
            config = with_modality(config, modality)
        if not overrides:
            return config
        data = config.model_dump()
        observer = overrides.pop("observer", None)
        if observer:
            data["observer"] = {**data["observer"], **observer}
            if accepts is not None and accepts(config.env, "render_size"):
                data["backend_options"] = {**data["backend_options"], "render_size": observer["max_side"]}
        options = overrides.pop("backend_options", None)
        if options:
            for name in options:
                if accepts is not None and not accepts(config.env, name):
                    raise ValueError(f"--{name}: env {config.env!r} has no such option")
            data["backend_options"] = {**data["backend_options"], **options}
        data.update(overrides)
        return type(config).model_validate(data)


def with_modality(config: Any, name: str) -> Any:
    """``config`` showing the env's modality ``name`` (its evaluation protocol names them, agentkit.evals)."""
    from agentkit.evals import get_evaluation

    evaluation = get_evaluation(config.env)
    apply = getattr(evaluation, "apply_modality", None)
    if apply is None:
        raise ValueError(f"--modality: env {config.env!r} has no named modalities (gridworld has)")
    try:
        return apply(config, name)
    except ValueError as exc:  # an unknown name: the message lists the known ones
        raise ValueError(f"--modality: {exc}") from None


def _on_off(flag: str, text: str) -> bool:
    if text.strip().lower() not in ("on", "off"):
        raise ValueError(f"{flag}: give on or off, not {text!r}")
    return text.strip().lower() == "on"


def _price(text: str) -> tuple[float, float]:
    try:
        parts = [float(p) for p in text.split(",")]
    except ValueError:
        parts = []
    if len(parts) != 2 or min(parts) < 0:
        raise ValueError(
            f"--price-per-mtok: give IN,OUT in US dollars per million tokens (e.g. 2.5,10), not {text!r}"
        )
    return parts[0], parts[1]


def with_run_flags(*groups: tuple[Flag, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the flags of ``groups`` to a typer command; it receives them as ``run_flags: RunFlags``.

    Typer reads a command's parameters from its signature, so the wrapper's signature is the
    command's (without ``run_flags``) plus one option per flag.
    """
    flags = tuple(f for group in groups for f in group)

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(func, eval_str=True)
        kept = [p for p in signature.parameters.values() if p.name != "run_flags"]
        added = [
            inspect.Parameter(
                f.param,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=f.type | None,
                default=typer.Option(
                    None,
                    *f.decl.split("/") if f.type is not bool else [f.decl],
                    help=f.help,
                    min=f.min,
                    metavar="<str>"
                    if f.type == list[str]
                    else None,  # not "<list[str]>": given once per value
                    show_default=False,
                    hidden=f.param not in BRIEF_RUN_FLAGS,  # listed by --help-all (agentkit.cli._help)
                ),
            )
            for f in flags
        ]

        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {f.param: kwargs.pop(f.param, None) for f in flags}
            return func(*args, run_flags=RunFlags(values, flags), **kwargs)

        # A bool flag without "/--no-x" is a switch: given or not (None then).
        for i, p in enumerate(added):
            flag = flags[i]
            if flag.type is bool and "/" not in flag.decl:
                added[i] = p.replace(
                    default=typer.Option(
                        None,
                        flag.decl,
                        help=flag.help,
                        is_flag=True,
                        flag_value=True,
                        show_default=False,
                        hidden=flag.param not in BRIEF_RUN_FLAGS,
                    )
                )
        parameters = [*kept, *added]
        command.__signature__ = signature.replace(parameters=sorted(parameters, key=_kind_order))  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters if p.annotation is not p.empty}
        if signature.return_annotation is not signature.empty:
            command.__annotations__["return"] = signature.return_annotation
        return command

    return decorate


def _kind_order(p: inspect.Parameter) -> int:
    return int(p.kind)  # positional parameters before keyword-only ones (stable sort keeps the rest)


def apply_to_all(run_flags: RunFlags, configs: list[Any]) -> list[Any]:
    """The configs of an experiment with the flags given (ValueError in one line for a bad value, or
    for ``--templates``/``--memory`` beside a catalogue harness, which sets both)."""
    from pydantic import ValidationError

    from agentkit.runs.experiment import backend_accepts

    given = run_flags.overrides()
    if "human_frames" in given:  # an unknown mode, or a window without a display: one line naming the flag
        from agentkit.models.human_frames import check_frame_mode

        check_frame_mode(given["human_frames"])
    out = []
    for config in configs:
        if "human_frames" in given and config.model != "human":
            raise ValueError(
                f"--human-frames: only --model human shows frames to a person (the model is {config.model!r})"
            )
        harness = (config.evaluation or {}).get("harness")
        clash = next((k for k in ("templates_dir", "memory") if k in given), None)
        if harness and clash:
            flag = "--templates" if clash == "templates_dir" else "--memory"
            raise ValueError(
                f"{flag}: the catalogue's harness {harness!r} sets the templates and the memory "
                f"policy, so {flag} would be ignored; give one of them"
            )
        if config.plan is not None and "seed" in given:  # the catalogue's hashed seeds are the plan
            raise ValueError(
                "--seed: a catalogue experiment plays its catalogue's own seeds (give --seeds-per-pair)"
            )
        try:
            out.append(run_flags.apply(config, backend_accepts))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ValueError(
                f"invalid option: {'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
            ) from None
    return out
