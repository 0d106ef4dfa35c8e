"""Inspect with a real model endpoint (issue 30 item 1): ``inspect eval ... --model openai/<name>
--model-base-url URL`` (Inspect's own provider), ``openai-api/<service>/<name>`` and ``agentkit/openai/<name>``
(agentkit's litellm client) against an OpenAI-compatible HTTP server on 127.0.0.1.

The server (agentkit.testing.fake_openai) answers each turn with the reference agent's script for the
same episode, so the eval must pass as the reference did; it also records what it was sent, so the test
sees agentkit's prompt arrive over HTTP (system message, images, the answer budget). Inspect's own
providers need openai 3, which litellm allows from 1.110 on (pyproject.toml's inspect extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentImage,
    ContentText,
    get_model,
)

import agentkit
from agentkit.inspect_tasks import suite_task
from agentkit.inspect_tasks.litellm_provider import to_openai_chat
from agentkit.leaves import run_defaults
from agentkit.testing.fake_openai import FakeOpenAIServer, count_images

TASK = "BabyAI-GoToLocal-v0"


def _reference_answers(env: str, task: str, db: Path) -> list[str]:
    summary = agentkit.run(env, task, db=db, max_scripts=5)
    (episode,) = summary.episodes
    assert episode.success
    with agentkit.open_store(db, read_only=True) as store:
        return [turn.answer for turn in store.get_turns(episode.episode_id)]


def _replaying(answers: list[str]) -> Any:
    """A responder giving the reference's answers in turn (the client's warm-up stays in process)."""
    queue = list(answers)

    def respond(body: dict[str, Any]) -> str:
        return queue.pop(0) if queue else "no more recorded answers"

    return respond


def _scores(log: Any) -> dict[str, float]:
    return {s.name: s.metrics["mean"].value for s in log.results.scores}


def test_inspect_eval_cli_plays_an_episode_against_a_local_openai_server(tmp_path: Path) -> None:
    answers = _reference_answers("gridworld", TASK, tmp_path / "reference.db")
    db = tmp_path / "inspect.db"
    with FakeOpenAIServer(_replaying(answers), model_ids=("local-model",)) as server:
        done = subprocess.run(
            [
                str(Path(sys.executable).with_name("inspect")),
                "eval",
                "agentkit/suite",
                "-T",
                "env=gridworld",
                "-T",
                f"tasks={TASK}",
                "-T",
                f"db={db}",
                "-T",
                "max_scripts=5",
                "--model",
                "agentkit/openai/local-model",
                "--model-base-url",
                server.base_url,
                "--log-dir",
                str(tmp_path / "logs"),
                "--log-format",
                "json",
                "--display",
                "none",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"} | {"NO_COLOR": "1"},
        )
        turns = list(server.requests)
    assert done.returncode == 0, done.stderr[-2000:]
    (log_file,) = (tmp_path / "logs").glob("*.json")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.eval.model == "agentkit/openai/local-model"
    assert _scores(log)["pass"] == 1.0  # the server's answers were the reference's: the episode passed
    # Every turn went over HTTP to the server, as agentkit's prompt: instructions first, then the turn.
    assert len(turns) == len(answers)
    assert all(r["model"] == "local-model" and r["max_tokens"] == run_defaults.MAX_TOKENS for r in turns)
    assert [m["role"] for m in turns[0]["messages"]][:2] == ["system", "user"]
    assert "Go" in turns[0]["messages"][0]["content"]  # the script language is explained up front
    with agentkit.open_store(db, read_only=True) as store:
        (run,) = store.list_runs()
        assert run.model == "inspect/agentkit/openai/local-model" and run.status == "finished"
        (episode,) = store.list_episodes(run_id=run.id)
        assert episode.success and [t.answer for t in store.get_turns(episode.id)] == answers


def test_images_generate_settings_and_model_args_reach_the_server(tmp_path: Path) -> None:
    answers = _reference_answers("aai-arena", "01-04-03", tmp_path / "reference.db")
    with FakeOpenAIServer(_replaying(answers)) as server:
        log = inspect_eval(
            suite_task("aai-arena", "01-04-03", db=str(tmp_path / "inspect.db"), max_scripts=5),
            model=get_model("agentkit/openai/fake-model", base_url=server.base_url, fold_system=True),
            max_tokens=300,
            temperature=0.5,
            stop_seqs=["<end>"],
            log_dir=str(tmp_path / "logs"),
            display="none",
        )[0]
        turns = list(server.requests)
    assert log.status == "success", log.error
    assert _scores(log)["pass"] == 1.0
    assert turns and all(count_images(r) >= 1 for r in turns)  # the arena's frames went as image parts
    assert {(r["max_tokens"], r["temperature"], tuple(r["stop"])) for r in turns} == {(300, 0.5, ("<end>",))}
    # -M fold_system=true: the instructions open the first user message; no system message is sent
    assert all(m["role"] != "system" for r in turns for m in r["messages"])
    usage = log.stats.model_usage["agentkit/openai/fake-model"]
    assert usage.input_tokens > 0 and usage.output_tokens > 0  # the server's counts reach Inspect's log


def test_a_refused_connection_is_a_model_error_that_scores_a_fail(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        base_url = server.base_url  # the port is free again once the server stops
    log = inspect_eval(
        suite_task("gridworld", TASK, db=str(tmp_path / "inspect.db"), max_scripts=2),
        model=get_model("agentkit/openai/fake-model", base_url=base_url, max_retries=0),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )[0]
    assert _scores(log)["pass"] == 0.0
    with agentkit.open_store(tmp_path / "inspect.db", read_only=True) as store:
        (episode,) = store.list_episodes()
        assert episode.end_reason == "model_error" and "connect" in (episode.error or "").lower()
        assert (episode.error or "").startswith("agentkit/openai/fake-model: ")  # named once, not re-wrapped


def test_messages_are_converted_and_bad_input_is_refused_in_one_line() -> None:
    chat = to_openai_chat(
        [
            ChatMessageSystem(content="rules"),
            ChatMessageUser(
                content=[ContentText(text="look"), ContentImage(image="data:image/png;base64,AA==")]
            ),
        ]
    )
    assert chat == [
        {"role": "system", "content": "rules"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
            ],
        },
    ]
    with pytest.raises(ValueError, match=r"^agentkit/ models take no tool messages"):
        to_openai_chat([ChatMessageTool(content="42", function="add", tool_call_id="c1")])
    with pytest.raises(ValueError, match=r"give a litellm model id after 'agentkit/'"):
        get_model("agentkit/gpt-4o", memoize=False)
    with pytest.raises(ValueError, match=r"^-M fold_system: true or false, not 'maybe'$"):
        get_model("agentkit/openai/gpt-4o", fold_system="maybe", memoize=False)


def _inspect_cli(tmp_path: Path, db: Path, model: str, args: list[str], env: dict[str, str]) -> Any:
    """``inspect eval agentkit/suite`` on the gridworld task as a user would run it; its log."""
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("inspect")),
            "eval",
            "agentkit/suite",
            "-T",
            "env=gridworld",
            "-T",
            f"tasks={TASK}",
            "-T",
            f"db={db}",
            "-T",
            "max_scripts=5",
            "--model",
            model,
            *args,
            "--log-dir",
            str(tmp_path / "logs"),
            "--log-format",
            "json",
            "--display",
            "none",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")} | {"NO_COLOR": "1"} | env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (log_file,) = (tmp_path / "logs").glob("*.json")
    return read_eval_log(str(log_file))


# Inspect's providers that speak OpenAI's protocol, each pointed at the local server its own way:
# openai/ takes --model-base-url and wants a key (any: the server has none); it defaults to OpenAI's
# Responses API, which local servers lack, so -M responses_api=false asks for chat completions.
# openai-api/<service>/ reads <SERVICE>_BASE_URL and <SERVICE>_API_KEY.
PROVIDERS = {
    "openai": (
        "openai/local-model",
        lambda url: ["--model-base-url", url, "-M", "responses_api=false"],
        lambda url: {"OPENAI_API_KEY": "no-key-needed"},
    ),
    "openai-api": (
        "openai-api/localsrv/local-model",
        lambda url: [],
        lambda url: {"LOCALSRV_BASE_URL": url, "LOCALSRV_API_KEY": "no-key-needed"},
    ),
}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_inspects_own_openai_providers_play_an_episode_against_a_local_server(
    tmp_path: Path, provider: str
) -> None:
    model, args, env = PROVIDERS[provider]
    answers = _reference_answers("gridworld", TASK, tmp_path / "reference.db")
    db = tmp_path / "inspect.db"
    with FakeOpenAIServer(_replaying(answers), model_ids=("local-model",)) as server:
        log = _inspect_cli(tmp_path, db, model, args(server.base_url), env(server.base_url))
        turns = list(server.requests)
    assert log.status == "success" and log.eval.model == model
    assert _scores(log)["pass"] == 1.0  # the server's answers were the reference's: the episode passed
    # Every turn went over HTTP, through Inspect's client, as agentkit's prompt.
    assert len(turns) == len(answers)
    assert all(r["model"] == "local-model" for r in turns)
    # openai/ sends the instructions in OpenAI's newer "developer" role; openai-api/ as "system"
    first = "developer" if provider == "openai" else "system"
    assert [m["role"] for m in turns[0]["messages"]][:2] == [first, "user"]
    assert "Go" in str(turns[0]["messages"][0]["content"])  # the script language is explained up front
    assert all(count_images(r) >= 1 for r in turns)  # the frame of each turn went as an image part
    usage = log.stats.model_usage[model]
    assert usage.input_tokens > 0 and usage.output_tokens > 0  # the server's counts reach Inspect's log
    with agentkit.open_store(db, read_only=True) as store:
        (run,) = store.list_runs()
        assert run.model == f"inspect/{model}" and run.status == "finished"
        (episode,) = store.list_episodes(run_id=run.id)
        assert episode.success and [t.answer for t in store.get_turns(episode.id)] == answers


def test_inspects_openai_provider_sends_the_arenas_frames_as_images(tmp_path: Path) -> None:
    answers = _reference_answers("aai-arena", "01-04-03", tmp_path / "reference.db")
    with FakeOpenAIServer(_replaying(answers)) as server:
        log = inspect_eval(
            suite_task("aai-arena", "01-04-03", db=str(tmp_path / "inspect.db"), max_scripts=5),
            model=get_model(
                "openai/fake-model", base_url=server.base_url, api_key="no-key-needed", responses_api=False
            ),
            max_tokens=300,
            log_dir=str(tmp_path / "logs"),
            display="none",
        )[0]
        turns = list(server.requests)
    assert log.status == "success", log.error
    assert _scores(log)["pass"] == 1.0
    assert len(turns) == len(answers) and all(count_images(r) >= 1 for r in turns)
    assert {r.get("max_tokens", r.get("max_completion_tokens")) for r in turns} == {300}
