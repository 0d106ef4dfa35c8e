"""Record the worked example of the ``aai-arena-incontext`` prompt set.

Why a script: the example must show what a model really sees (the arena's own frames and the
turn text of the ``aai-arena`` templates) and scripts that really work, so it is played, not
written by hand: the arena's reference agent plays ``tutorial_arena.yaml`` (seed 0) through the
ordinary parser and backend, and each turn's picture, prompt text and answer are saved here as
``example_NN.png`` and ``examples.json``. Re-run it after changing the arena's rendering, the
``aai-arena`` turn template or the reference agent:

    .venv/bin/python scripts/record_incontext_example.py

It lives in ``scripts/``, outside the shipped package (development scripts stay out of the package: tests/test_layers.py checks it),
and writes into the prompt set's folder.

Frames are stored at ``--size`` pixels (default 256) with a reduced palette, to keep the prompt
and the package small.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
from pathlib import Path

from PIL import Image

from agentkit.actions import Script, parse_script
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.observers import Observer, ObserverConfig
from agentkit.prompts import PromptRenderer

# The prompt set's folder in the repository: the arena played and the files written.
HERE = Path(__file__).resolve().parent.parent / "prompts" / "templates" / "aai-arena-incontext"
ARENA = HERE / "tutorial_arena.yaml"
MAX_TURNS = 8

INTRO = (
    "Before your own episode, here is a worked example: one short episode in a practice arena, "
    "played well. Each of the following turns shows what the player was shown (the picture and the "
    "numbers) and the script it answered with. The practice arena is not yours: only the way of "
    "playing carries over."
)

log = logging.getLogger("record_incontext_example")


def _png(frame, size: int) -> bytes:
    image = Image.fromarray(frame).resize((size, size), Image.LANCZOS)
    image = image.quantize(colors=96, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def record(size: int, seed: int = 0) -> dict:
    backend = ArenaBackend(render_size=512, frames=True)
    observer = Observer(ObserverConfig(views=("image",)))
    renderer = PromptRenderer.from_set("aai-arena")
    policy = backend.reference_policy()
    turns = []
    try:
        raw = backend.reset(str(ARENA), seed)
        context = {
            "commands": backend.vocabulary.describe(),
            "max_scripts": 30,
            "task": "tutorial",
            "has_images": True,
            **backend.prompt_context(),
        }
        for turn in range(MAX_TURNS):
            observation = observer.observe(raw)
            text = renderer.typed_turn_message(observation, context, None, turn).text
            answer = policy.next_answer(observation)
            name = f"example_{turn + 1:02d}.png"
            (HERE / name).write_bytes(_png(raw.frames["camera"], size))
            turns.append({"user": text, "images": [name], "assistant": answer})
            script = parse_script(answer, backend.vocabulary)
            if not isinstance(script, Script):
                raise RuntimeError(f"the reference answer does not parse: {answer!r}: {script}")
            done = False
            for command in script:
                for action in backend.compile(command):
                    if backend.step(action).done:
                        done = True
                        break
                if done:
                    break
            raw = backend.observe()
            log.info(
                "turn %d: %s -> reward %.3f%s", turn + 1, answer, raw.total_reward, " (done)" if done else ""
            )
            if done:
                break
        if not raw.done or not raw.success:
            raise RuntimeError(
                "the reference agent did not solve the tutorial arena; fix it before recording"
            )
    finally:
        backend.close()
    return {
        "intro": INTRO,
        "turns": turns,
        "source": "recorded by scripts/record_incontext_example.py: the arena reference agent on tutorial_arena.yaml, seed 0",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="side of the stored frames in pixels")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for old in HERE.glob("example_*.png"):
        old.unlink()
    spec = record(args.size)
    (HERE / "examples.json").write_text(
        json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    log.info("wrote %d turns to %s", len(spec["turns"]), HERE / "examples.json")


if __name__ == "__main__":
    main()
