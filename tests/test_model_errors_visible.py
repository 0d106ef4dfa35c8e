"""Model calls in plain sight: finish reason, retries and the provider's token counts per turn.

Before: an answer cut by ``--max-tokens`` looked like a bad answer, retries left no trace, and a
server that dropped the system message and the images (7 input tokens reported for ~1,400 sent)
went unnoticed. These tests drive the real model client over HTTP against the local OpenAI-shaped
server, the real CLI in a subprocess, and real SQLite databases.
"""

from __future__ import annotations

import json
import logging
import sqlite3

from agentkit.config import RunConfig
from agentkit.messages import Message, messages_from_openai
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.records import EndReason, EpisodeResult, ModelCall, ModelCallTotals, TurnRecord, Usage
from agentkit.runs.model_call_summary import describe_call, model_call_line, model_call_totals
from agentkit.runs.runner import execute_run
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer, estimate_prompt_tokens
from agentkit.transcripts import TranscriptStore

LONG_ANSWER = 'Think("' + "the key is somewhere to the left of the door " * 20 + '"); Go(1);'
# A prompt well over MIN_TOKENS_CHECKED by any count.
BIG_PROMPT = [
    {"role": "system", "content": "You steer an agent in a grid world. " * 60},
    {"role": "user", "content": "What next?"},
]


def test_a_turn_cut_by_max_tokens_is_stored_with_its_finish_reason_retries_and_counts(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(lambda _body: LONG_ANSWER) as server:
        server.fail_next(500)  # the first turn's first attempt fails once and is retried
        proc = run_cli(
            [
                "run",
                "--env",
                "gridworld",
                "--task",
                "BabyAI-GoToLocal-v0",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--max-tokens",
                "8",
                "--max-scripts",
                "2",
                "--db",
                db,
                "--no-endpoint-check",  # the first request, and its forced 500, are the episode's
            ],
            tmp_path,
            cli_env(),
        )
        first_request = server.requests[1]  # the retried request that was answered
    assert "model calls: 1 retry, 2 turns cut by --max-tokens (finish reason: length)" in proc.stdout

    store = TranscriptStore(db)
    episode = store.list_episodes()[0]
    turns = store.get_turns(episode.id)
    calls = [t.model_call for t in turns]
    assert [c.finish_reason for c in calls] == ["length", "length"]
    assert [c.retries for c in calls] == [1, 0]
    assert calls[0].provider_input_tokens == estimate_prompt_tokens(first_request["messages"])
    assert calls[0].provider_output_tokens == 8 and turns[0].output_tokens == 8
    assert calls[0].our_input_tokens and calls[0].our_input_tokens > 100
    assert calls[0].warning is None  # the server read the whole prompt

    # wide, so that each figure stays on one line (at 80 columns the text wraps between words)
    shown = run_cli(["transcripts", "show", episode.id, "--db", db], tmp_path, cli_env(COLUMNS="250")).stdout
    assert shown.count("finish reason: length (cut by --max-tokens)") == 2
    assert "1 retry" in shown and f"provider tokens {calls[0].provider_input_tokens} in" in shown
    shown_json = json.loads(
        run_cli(["transcripts", "show", episode.id, "--db", db, "--json"], tmp_path, cli_env()).stdout
    )
    assert shown_json["turns"][0]["model_call"]["finish_reason"] == "length"


def test_run_json_sums_retries_cut_turns_and_model_errors(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(lambda _body: LONG_ANSWER) as server:
        data = json.loads(
            run_cli(
                [
                    "run",
                    "--env",
                    "gridworld",
                    "--task",
                    "BabyAI-GoToLocal-v0",
                    "--model",
                    "openai/fake-model",
                    "--api-base",
                    server.base_url,
                    "--max-tokens",
                    "8",
                    "--max-scripts",
                    "3",
                    "--db",
                    db,
                    "--json",
                ],
                tmp_path,
                cli_env(),
            ).stdout
        )
    assert data["model_calls"] == {
        "retries": 0,
        "cut_by_max_tokens": 3,
        "dropped_prompt_warnings": 0,
        "model_errors": 0,
        "errors": [],
    }


def test_totals_count_episodes_ended_by_model_errors_with_their_text():
    def episode(end: EndReason, error: str | None = None, retries: int = 0) -> EpisodeResult:
        return EpisodeResult(
            "e", "t", 0, False, 0.0, end, 1, 1, error=error, model_calls=ModelCallTotals(retries=retries)
        )

    totals = model_call_totals(
        [
            episode(EndReason.MODEL_ERROR, "BadRequestError 400: context length", 2),
            episode(EndReason.GOAL, retries=1),
        ]
    )
    assert totals["model_errors"] == 1 and totals["retries"] == 3
    assert totals["errors"] == ["BadRequestError 400: context length"]
    assert model_call_line(totals) == (
        "model calls: 3 retries, 1 episode ended by a model error (last: BadRequestError 400: context length)"
    )
    assert model_call_line(model_call_totals([episode(EndReason.GOAL)])) is None


def test_a_server_that_drops_part_of_the_prompt_is_warned_about_once_and_stored(tmp_path, caplog):
    store = TranscriptStore(f"sqlite:///{tmp_path / 'runs.db'}")
    # The provider of the issue: it read the system message and the images as nothing.
    dropped = {"prompt_tokens": 7, "completion_tokens": 9, "total_tokens": 16}
    with FakeOpenAIServer(usage=dropped) as server, caplog.at_level(logging.WARNING):
        config = RunConfig(
            env="gridworld",
            tasks=["BabyAI-GoToLocal-v0"],
            model="openai/fake-model",
            api_base=server.base_url,
            max_scripts=2,
        )
        summary = execute_run(config, store, api_key="sk-some-key-000000", show_progress=False)
    warnings = [r for r in caplog.records if "dropped part of the prompt" in r.getMessage()]
    assert len(warnings) == 2  # one line per turn
    turns = store.get_turns(summary.episodes[0].episode_id)
    assert all(t.model_call.provider_input_tokens == 7 for t in turns)
    assert all("the provider counted 7 input tokens" in t.model_call.warning for t in turns)
    assert summary.episodes[0].model_calls.dropped_prompt == 2


def test_no_warning_when_the_provider_counts_the_whole_prompt(caplog):
    with FakeOpenAIServer() as server, caplog.at_level(logging.WARNING):
        model = LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key="sk-x-0000000")
        reply = model.complete(messages_from_openai(BIG_PROMPT))
    assert reply.call.our_input_tokens > 200 and reply.call.warning is None
    assert not [r for r in caplog.records if "dropped" in r.getMessage()]


def test_cached_prompt_tokens_are_kept_when_the_provider_gives_them():
    usage = {
        "prompt_tokens": 600,
        "completion_tokens": 5,
        "total_tokens": 605,
        "prompt_tokens_details": {"cached_tokens": 512},
    }
    with FakeOpenAIServer(usage=usage) as server:
        reply = LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key="sk-x-0000000").complete(
            messages_from_openai(BIG_PROMPT)
        )
    assert reply.call.provider_cached_tokens == 512 and reply.call.provider_input_tokens == 600
    assert "(512 cached)" in describe_call(reply.call)


def _turn(index: int, call: ModelCall | None) -> TurnRecord:
    return TurnRecord(
        index=index,
        observation={},
        messages=[Message("user", "go")],
        answer="Go(1);",
        usage=Usage(1, 1, 0.0),
        latency_s=0.1,
        cached=False,
        script=None,
        parse_error=None,
        compile_error=None,
        actions=[],
        reward=0.0,
        total_reward=0.0,
        health=None,
        done=False,
        timings={},
        model_call=call,
    )


def test_a_database_made_before_model_calls_reads_and_gains_the_table_on_write(tmp_path):
    path = tmp_path / "old.db"
    store = TranscriptStore(f"sqlite:///{path}")
    run = store.create_run("gridworld", ["t"], "m", {}, {})
    episode = store.start_episode(run, "t", 0)
    store.add_turn(episode, _turn(0, None))
    store.close()
    with sqlite3.connect(path) as conn:  # as a database written before the table existed
        conn.execute("DROP TABLE model_calls")
    from agentkit.viewer.readonly import open_readonly

    reader = open_readonly(f"sqlite:///{path}")  # read-only: nothing may be created
    assert [t.model_call for t in reader.get_turns(episode)] == [None]
    reader.close()

    writer = TranscriptStore(f"sqlite:///{path}")  # opened for writing: the table is added
    call = ModelCall(
        finish_reason="length", retries=2, provider_input_tokens=7, our_input_tokens=1400, warning="dropped"
    )
    writer.add_turn(episode, _turn(1, call))
    assert [t.model_call for t in writer.get_turns(episode)] == [None, call]


def test_the_viewer_shows_a_turn_cut_by_max_tokens_and_a_dropped_prompt(tmp_path):
    from agentkit.viewer import ViewerApp, open_readonly

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    dropped = {"prompt_tokens": 7, "completion_tokens": 8, "total_tokens": 15}
    with FakeOpenAIServer(lambda _body: LONG_ANSWER, usage=dropped) as server:
        config = RunConfig(
            env="gridworld",
            tasks=["BabyAI-GoToLocal-v0"],
            model="openai/fake-model",
            api_base=server.base_url,
            max_tokens=8,
            max_scripts=1,
        )
        summary = execute_run(config, TranscriptStore(db), api_key="sk-some-key-000000", show_progress=False)
    episode_id = summary.episodes[0].episode_id
    app = ViewerApp(open_readonly(db))
    html = app.handle("GET", f"/episodes/{episode_id}?turn=0").body.decode()
    assert (
        'id="model-call">finish reason: length (cut by --max-tokens) · 0 retries · provider tokens 7 in'
        in html
    )
    assert 'class="meta model-call err"' in html  # shown as an error, not as a plain number
    assert 'id="dropped-prompt">warning: the provider counted 7 input tokens' in html


def test_the_viewer_shows_no_model_call_for_the_reference_agent(tmp_path):
    from agentkit.viewer import ViewerApp, open_readonly

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"], max_scripts=1)
    summary = execute_run(config, TranscriptStore(db), show_progress=False)
    html = (
        ViewerApp(open_readonly(db))
        .handle("GET", f"/episodes/{summary.episodes[0].episode_id}?turn=0")
        .body.decode()
    )
    assert 'id="answer"' in html and 'id="model-call"' not in html


def test_the_turn_table_export_carries_the_model_call(tmp_path):
    from agentkit.transcripts.tables import run_tables

    store = TranscriptStore(f"sqlite:///{tmp_path / 'runs.db'}")
    with FakeOpenAIServer(lambda _body: LONG_ANSWER) as server:
        config = RunConfig(
            env="gridworld",
            tasks=["BabyAI-GoToLocal-v0"],
            model="openai/fake-model",
            api_base=server.base_url,
            max_tokens=8,
            max_scripts=1,
        )
        summary = execute_run(config, store, api_key="sk-some-key-000000", show_progress=False)
    _, turns = run_tables(store, summary.run_id)
    assert turns[0]["finish_reason"] == "length" and turns[0]["retries"] == 0
    assert turns[0]["provider_output_tokens"] == 8 and turns[0]["our_input_tokens"] > 100
    assert turns[0]["model_warning"] is None


def test_the_viewer_shows_the_error_of_an_episode_a_model_error_ended(tmp_path):
    """The viewer said only "fail" (and "no turns yet") for an episode whose first request was refused."""
    from agentkit.testing.error_server import CONTEXT_TOO_LONG, ErrorServer
    from agentkit.viewer import ViewerApp, open_readonly

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with ErrorServer(400, CONTEXT_TOO_LONG) as server:
        config = RunConfig(
            env="aai-arena", tasks=["01-04-03"], model="openai/fake-model", api_base=server.base_url
        )
        summary = execute_run(config, TranscriptStore(db), api_key="sk-some-key-000000", show_progress=False)
    [episode] = summary.episodes
    app = ViewerApp(open_readonly(db))
    page = app.handle("GET", f"/episodes/{episode.episode_id}").body.decode()
    assert "end model_error" in page and "maximum context length is 8192 tokens" in page
    assert 'id="no-turns">This episode ended before a turn was stored: its error is above.' in page
    run_page = app.handle("GET", f"/runs/{summary.run_id}").body.decode()
    assert "<td>model_error</td>" in run_page
