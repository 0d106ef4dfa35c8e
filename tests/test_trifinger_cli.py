"""`agentkit run --env trifinger` end to end, and a model over HTTP (cassette) solving picking."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from agentkit.config import RunConfig
from agentkit.loop import run_episode
from agentkit.runs.setup_episode import make_setup
from agentkit.testing.cli_runner import run_json
from agentkit.testing.fake_openai import FakeOpenAIServer, count_images

TEST_API_KEY = "sk-test-not-a-real-key-000000"
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning")
_CENTRE = r"centre \(([-\d.]+), ([-\d.]+), ([-\d.]+)\)"


def test_reference_run_prints_pure_json_with_the_final_overlap(tmp_path):
    data = run_json(
        ["run", "--env", "trifinger", "--task", "pushing", "--db", f"sqlite:///{tmp_path / 'r.db'}"], tmp_path
    )
    (episode,) = data["episodes"]
    assert episode["task"] == "pushing" and episode["success"] is True
    assert (
        episode["overlap_causalworld"] > 0.9 and episode["profile"] == "causalworld"
    )  # success is CausalWorld's
    assert episode["success_measure"] == "causalworld_aabb_overlap>0.9" and 0.0 < episode["overlap"] <= 1.0


def _last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content if part.get("type") == "text")


def picking_responder(body: dict[str, Any]) -> str:
    """A stand-in for a language model: reads the block and goal from the prompt text and answers
    with API calls (what a capable model writes for picking)."""
    text = _last_user_text(body)
    gx, gy, gz = (float(v) for v in re.search(r"Goal 0: [^\n]*" + _CENTRE, text).groups())
    if "Holding: block 0" in text:
        return f'Think("nearly there"); move_to({gx}, {gy}, {gz});'
    return (
        f'Think("I see {count_images(body)} images; the red cube must rise into the goal"); '
        f"grasp(block=0); lift(height={gz}); move_to({gx}, {gy}, {gz});"
    )


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def picking_endpoint(record_mode: str) -> Iterator[str]:
    """A live fake model server while recording; a dead local address when replaying the cassette."""
    if record_mode == "none":
        yield f"http://127.0.0.1:{_closed_port()}/v1"
        return
    with FakeOpenAIServer(picking_responder, api_key=TEST_API_KEY) as server:
        yield server.base_url


@pytest.mark.vcr
def test_a_model_over_http_completes_picking_with_api_calls_and_three_cameras(
    picking_endpoint: str, vcr: Any
) -> None:
    config = RunConfig(
        env="trifinger",
        tasks=["picking"],
        model="openai/fake-model",
        api_base=picking_endpoint,
        max_scripts=3,
        observer={"views": ["image", "language"], "max_side": 96},
    )
    setup = make_setup(config, api_key=TEST_API_KEY)
    try:
        result = run_episode(setup, "picking", seed=0)
    finally:
        setup.backend.close()
    assert result.success and result.metrics["overlap_causalworld"] > 0.9
    # the model client's one warm-up round trip (agentkit.models.client_warmup) is not the episode's
    bodies = [
        b for b in (json.loads(r.body) for r in vcr.requests) if b["messages"][0]["content"] != "warm-up"
    ]
    assert count_images(bodies[0]) == 3
    system = bodies[0]["messages"][0]["content"]
    assert "grasp(block)" in system and "lift(height=0.08)" in system
    assert "Block 0: red cube of 6.5 cm" in _last_user_text(bodies[0])
    assert vcr.all_played or vcr.record_mode != "none"
