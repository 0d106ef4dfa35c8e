"""Every modality renders for every catalogued task, through the real observer and templates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentkit.config import RunConfig
from agentkit.envs.gridworld.catalogue import CATALOGUE, FAMILIES
from agentkit.envs.gridworld.seeds import episode_seeds
from agentkit.evals.gridworld.modalities import MODALITIES, apply_modality, modality, modality_settings
from agentkit.runs.setup_episode import make_setup

CONTEXT = {"max_scripts": 30, "commands": []}


def _setup(name: str):
    config = apply_modality(
        RunConfig(env="gridworld", tasks=["unused"], backend_options={"render_size": 64}), name
    )
    return make_setup(config)


@pytest.mark.parametrize("name", list(MODALITIES))
def test_modality_renders_for_every_catalogued_task(name):
    setup = _setup(name)
    m = modality(name)
    for entry in CATALOGUE:
        seed = episode_seeds(entry.family, entry.difficulty, "eval", 1)[0]
        obs = setup.observer.observe(setup.backend.reset(entry.name, seed))
        content = setup.renderer.typed_turn_message(obs, CONTEXT, None, 0).content
        text = content if isinstance(content, str) else content[0].text
        assert obs.mission and obs.mission in text, entry.name
        assert "Commands useful now:" in text
        assert (obs.ascii is not None) == ("ascii" in m.views) and (obs.language is not None) == (
            "language" in m.views
        )
        if obs.ascii:
            assert "Legend:" in text and obs.ascii.split("\n")[0] in text
        if obs.language:
            assert obs.language in text and "You face" in obs.language
        if obs.structured:
            shown = json.loads(text.split("State as JSON:\n", 1)[1].split("\n", 1)[0])
            assert shown["step"] == 0 and shown["status"]["commands_useful_now"] and "orientation" in shown
            assert shown["entities"] == obs.structured["entities"]
        labels = [i.label for i in obs.images]
        expected = (["view"] if m.frame != "none" else []) + (["egocentric"] if m.egocentric else [])
        assert labels == expected, entry.name
        if labels:
            assert isinstance(content, tuple) and len(content) == 1 + len(labels)
        else:
            assert isinstance(content, str)
    setup.backend.close()


def test_egocentric_and_full_pixels_differ_and_follow_the_agent():
    setup = _setup("pixels-egocentric")
    backend = setup.backend
    backend.reset("gridworld/reach-goal-medium", 0)
    before = backend.observe().frames["egocentric"]
    backend.step(1)  # turn right: the egocentric view changes
    after = backend.observe().frames["egocentric"]
    assert before.shape == after.shape == (64, 64, 3)
    assert (before != after).any()
    full = _setup("pixels-full").backend
    full.reset("gridworld/reach-goal-medium", 0)
    assert "egocentric" not in full.observe().frames and full.observe().frames["view"].shape[:2] == (64, 64)


def test_modality_settings_and_errors():
    assert modality_settings("structured") == {
        "observer": {"views": ["structured"]},
        "include_images": False,
        "backend_options": {"frame": "none", "egocentric": False},
    }
    with pytest.raises(ValueError, match="unknown gridworld modality 'smell'"):
        modality("smell")
    config = apply_modality(
        RunConfig(env="gridworld", tasks=["t"], backend_options={"commands": "api"}), "pixels-full"
    )
    assert config.backend_options == {"commands": "api", "frame": "full", "egocentric": False}


def test_renderers_know_no_task_by_name():
    """Observers and the gridworld templates mention no level, family or environment id."""
    root = Path(__file__).resolve().parents[1]
    sources = [*(root / "observers").glob("*.py"), *(root / "prompts" / "templates").glob("gridworld*/*.j2")]
    names = {f.name for f in FAMILIES} | {"BabyAI", "MiniGrid", "DoorKey", "gridworld/"}
    for path in sources:
        text = path.read_text()
        assert not [n for n in names if n in text], path
