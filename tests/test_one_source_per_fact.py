"""One source per fact (issue 18): each default, hash and lookup is written once and read everywhere.

Why: the defaults 30/5/1024 sat in the command line, RunConfig and the loop's EpisodeLimits; a stored
run's configuration was rebuilt in four places; the observer had two settings classes with different
defaults; the renderer and the store hashed templates with two algorithms; suites were expanded in
four places with their own error texts. These tests hold each fact to its one place.
"""

from __future__ import annotations

import pytest
from typer.main import get_command

from agentkit.cli import app
from agentkit.config import RunConfig
from agentkit.leaves import run_defaults
from agentkit.loop import EpisodeLimits
from agentkit.observers import ObserverConfig
from agentkit.prompts import PromptRenderer
from agentkit.prompts.renderer import resolve_templates
from agentkit.records import templates_hash
from agentkit.runs.experiment import Experiment, ExperimentError
from agentkit.runs.suite_tasks import UnknownSuite, suite_tasks
from agentkit.transcripts import TranscriptStore


def test_run_config_loop_and_command_line_share_the_defaults():
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"])
    limits = EpisodeLimits()
    assert (config.max_scripts, config.max_parse_failures, config.max_tokens) == (
        run_defaults.MAX_SCRIPTS,
        run_defaults.MAX_PARSE_FAILURES,
        run_defaults.MAX_TOKENS,
    )
    assert (limits.max_scripts, limits.max_parse_failures) == (config.max_scripts, config.max_parse_failures)
    run = get_command(app).commands["run"]  # type: ignore[attr-defined]
    flags = {p.name: p.default for p in run.params}
    for name in (
        "model",
        "temperature",
        "max_tokens",
        "episodes",
        "seed",
        "max_scripts",
        "max_parse_failures",
        "max_consecutive_model_errors",
        "memory",
        "pass_rule",
        "human_frames",
    ):
        assert flags[name] == getattr(config, name), name


def test_the_model_client_asks_as_a_default_run_does():
    """LiteLLMModel built without options (the Python API's way) takes the run's defaults, not its own."""
    from agentkit.models.litellm_model import LiteLLMModel

    model = LiteLLMModel("openai/any-model", warm_up=False)
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"])
    fields = ("temperature", "max_tokens", "timeout_s", "max_retries", "retry_base_s")
    assert [getattr(model, f) for f in fields] == [getattr(config, f) for f in fields]
    assert (model.max_tokens, model.timeout_s, model.max_retries) == (
        run_defaults.MAX_TOKENS,
        run_defaults.TIMEOUT_S,
        run_defaults.MAX_RETRIES,
    )


def test_help_texts_say_the_defaults_the_run_uses():
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"])
    helps = {p.name: p.help or "" for name in ("run", "eval") for p in get_command(app).commands[name].params}  # type: ignore[attr-defined]
    assert f"(default {config.max_scripts})" in helps["max_scripts"]
    assert f"(default {config.max_tokens})" in helps["max_tokens"]
    assert f"(default {config.timeout_s:g})" in helps["timeout_s"]
    assert f"(default {config.max_attempts})" in helps["max_attempts"]


def test_a_run_stores_the_observers_own_settings():
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"])
    assert isinstance(config.observer, ObserverConfig)
    assert config.observer.views == list(run_defaults.OBSERVER_VIEWS)
    assert ObserverConfig().views == [
        "image",
        "ascii",
        "language",
        "structured",
    ]  # a bare observer: every view
    again = RunConfig.model_validate(config.model_dump())
    assert again.observer == config.observer


def test_from_stored_leaves_out_what_this_version_does_not_know():
    stored = {
        **RunConfig(env="gridworld", tasks=["a"], max_scripts=7).model_dump(),
        "agentkit_version": "0.1.0",
        "a_setting_of_a_later_version": 1,
    }
    config = RunConfig.from_stored(stored)
    assert config.max_scripts == 7 and config.tasks == ["a"]
    with pytest.raises(ValueError):
        RunConfig.from_stored({**stored, "max_scripts": 0})  # still validated


def test_the_renderer_and_the_store_hash_templates_alike(tmp_path):
    sources = resolve_templates("gridworld")
    renderer = PromptRenderer(sources)
    store = TranscriptStore(f"sqlite:///{tmp_path / 't.db'}")
    run_id = store.create_run(env="gridworld", tasks=["t"], model="reference", config={}, templates=sources)
    assert renderer.hash == store.get_run(run_id).templates_hash == templates_hash(sources)
    assert templates_hash({"a.j2": "x", "b.j2": "y"}) == templates_hash({"b.j2": "y", "a.j2": "x"})


def test_a_suite_means_the_same_tasks_and_the_same_refusal_everywhere():
    tasks = suite_tasks("aai-arena", "aai-children40")
    assert len(tasks) == 40
    experiment = Experiment.model_validate(
        {"env": "aai-arena", "suite": "aai-children40", "models": ["reference"]}
    )
    assert experiment.task_list() == tasks
    with pytest.raises(UnknownSuite, match="unknown suite 'nope' for env 'aai-arena'; known: "):
        suite_tasks("aai-arena", "nope")
    bad = Experiment.model_validate({"env": "aai-arena", "suite": "nope", "models": ["reference"]})
    with pytest.raises(ExperimentError, match="^suite: unknown suite 'nope' for env 'aai-arena'; known: "):
        bad.task_list()


def test_observer_settings_is_the_observers_config_with_the_runs_views():
    from agentkit.config import ObserverSettings

    settings = ObserverSettings(max_side=32)
    assert type(settings) is ObserverConfig and settings.views == list(run_defaults.OBSERVER_VIEWS)
    assert settings.max_side == 32 and ObserverSettings(views=["ascii"]).views == ["ascii"]
