"""`agentkit.run` / `agentkit.evaluate` warn, as the CLI does, of a cost budget that cannot stop the run.

Before: the CLI printed one line for ``--max-cost`` on a model litellm has no price for, but the
Python API said nothing, so a notebook's "budgeted" run spent without limit. The warning now goes
through ``logging`` (WARNING) and ``warnings.warn``. Real model client over HTTP to the local
OpenAI-shaped server, real SQLite store.
"""

from __future__ import annotations

import logging
import warnings

import pytest

import agentkit
from agentkit.testing.fake_openai import FakeOpenAIServer

GRIDWORLD = {"env": "gridworld", "tasks": ["BabyAI-GoToLocal-v0"], "max_scripts": 1}


def _budget_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "cannot stop this run" in r.getMessage()]


@pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
def test_run_and_evaluate_warn_once_of_a_budget_on_an_unpriced_model(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    db = tmp_path / "runs.db"
    with FakeOpenAIServer() as server:
        with pytest.warns(UserWarning, match="max_cost_usd: litellm has no price for openai/fake-model"):
            agentkit.run(
                "gridworld",
                "BabyAI-GoToLocal-v0",
                model="openai/fake-model",
                api_base=server.base_url,
                db=db,
                max_scripts=1,
                max_cost_usd=0.5,
            )
        [record] = _budget_lines(caplog)  # one line, not one per check
        assert record.levelno == logging.WARNING and "\n" not in record.getMessage()
        caplog.clear()
        with pytest.warns(UserWarning, match="run_max_cost_usd: litellm has no price"):
            agentkit.evaluate(
                {**GRIDWORLD, "run_max_cost_usd": 1.0},
                model="openai/fake-model",
                api_base=server.base_url,
                db=db,
            )
        assert len(_budget_lines(caplog)) == 1
        caplog.clear()
        with warnings.catch_warnings():
            warnings.simplefilter(
                "error", UserWarning
            )  # a priced budget (price_per_mtok given) warns of nothing
            agentkit.run(
                "gridworld",
                "BabyAI-GoToLocal-v0",
                model="openai/fake-model",
                api_base=server.base_url,
                db=db,
                max_scripts=1,
                max_cost_usd=0.5,
                price_per_mtok=(1.0, 2.0),
            )
        assert _budget_lines(caplog) == []
