"""The default `--max-tokens` fits the longest legitimate script with room to spare (issue 30 item 8).

The default was lowered from 1,024 to 512 so that a base model's junk answers cost half; this
measures again what a script needs: every example script the packaged templates show the model,
and what the reference agents write on the task where theirs are longest (trifinger's
creative_stacked_blocks, 149 tokens when measured over every trifinger task, 55 on the arena, 51 on
gridworld). A default below three times the longest would cut a model that only thinks a little
more than the examples do.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files

from agentkit import api
from agentkit.leaves import run_defaults
from agentkit.models.token_count import token_counter
from agentkit.transcripts import TranscriptStore

MARGIN = 3  # room for a Think("...") of a few sentences more than the examples'


def _template_scripts() -> list[str]:
    """Every script the packaged template sets show: example lines of system.j2, worked examples' answers."""
    root = files("agentkit.prompts").joinpath("templates")
    scripts = []
    for folder in root.iterdir():
        system = folder.joinpath("system.j2")
        if system.is_file():
            scripts += [m.group(0) for m in re.finditer(r'Think\("[^"]*"\);[^\n]*', system.read_text())]
        examples = folder.joinpath("examples.json")
        if examples.is_file():
            scripts += [t["assistant"] for t in json.loads(examples.read_text())["turns"]]
    return scripts


def _reference_scripts(tmp_path) -> list[str]:
    db = f"sqlite:///{tmp_path / 'ref.db'}"
    api.run("trifinger", ["creative_stacked_blocks"], db=db)
    api.run("gridworld", ["BabyAI-OpenDoor-v0", "MiniGrid-DoorKey-8x8-v0"], db=db)
    store = TranscriptStore(db)
    try:
        return [t.answer or "" for e in store.list_episodes() for t in store.get_turns(e.id)]
    finally:
        store.close()


def test_the_default_holds_three_times_the_longest_script(tmp_path):
    count = token_counter("openai/gpt-4o").text
    templates = _template_scripts()
    references = _reference_scripts(tmp_path)
    assert len(templates) >= 8 and len(references) >= 5  # the measurement saw scripts of every kind
    longest = max(count(s) for s in templates + references)
    assert longest >= 100  # trifinger's stacking scripts: what the default must fit
    assert run_defaults.MAX_TOKENS >= MARGIN * longest, (longest, run_defaults.MAX_TOKENS)
    assert run_defaults.MAX_TOKENS < 1024  # lowered (issue 30): a base model's junk costs half
