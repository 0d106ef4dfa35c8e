"""The model client is warmed up before its first timed call: against an instant local server the
latency stored with the first turn is in line with the next ones, and the warm-up never reaches
the model's own server."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

import pytest

from agentkit.testing.cli_runner import cli_env
from agentkit.testing.fake_openai import FakeOpenAIServer

KEY = "sk-test-warmup-000000000000"

# A fresh interpreter: in this one, other tests have long since imported and built everything.
_SCRIPT = """
import json, sys
from agentkit.messages import messages_from_openai
from agentkit.models.litellm_model import LiteLLMModel
model = LiteLLMModel("openai/fake-model", api_base=sys.argv[1], api_key=sys.argv[2], max_retries=0,
                     warm_up=sys.argv[3] == "on", extra=json.loads(sys.argv[4]))
messages = [{"role": "system", "content": "rules"}, {"role": "user", "content": "look"}]
print(json.dumps([model.complete(messages_from_openai(messages)).latency_s for _ in range(6)]))
"""


def _latencies(server: FakeOpenAIServer, warm_up: str, extra: dict | None = None) -> list[float]:
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, server.base_url, KEY, warm_up, json.dumps(extra or {})],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "extra",
    [None, {"response_format": {"type": "text"}}],
    ids=["direct-route", "litellm-route"],  # a parameter litellm must map keeps litellm's route
)
def test_first_stored_latency_is_in_line_with_the_others(extra):
    with FakeOpenAIServer(api_key=KEY) as server:
        latencies = _latencies(server, "on", extra)
        assert server.request_count == 6  # the warm-up went to its own local server, not to this one
    first, rest = latencies[0], statistics.median(latencies[1:])
    # without the warm-up the first call stores ~0.5-1.2 s against a few ms for the others (through
    # litellm; ~0.1 s when only the direct route was warmed and litellm's route is taken)
    assert first <= 4 * rest + 0.05, latencies
