"""Credentials inside an API base URL never reach the database, the logs or the exports (issue 15, item 3).

Why: ``--api-base http://user:pass@host/v1?api_key=...`` used to be stored verbatim in the run's
config, from where the viewer, the exports and the logs showed it. The request itself must still
go to the real URL.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from agentkit.leaves.url_redaction import REDACTED, redact_url, redact_urls
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import scrub_secrets

USER, PASSWORD, QUERY_KEY = "alice-the-user", "hunter2-the-password", "qk-query-secret-value"


def test_redact_url_removes_user_info_and_secret_query_values() -> None:
    url = "https://bob:pw123@api.example.org:8443/v1?api_key=K1&Token=K2&X-Api-Key=K3&sig=K4&model=m&accessToken=K5"
    red = redact_url(url)
    assert red.startswith("https://api.example.org:8443/v1?")
    assert "bob" not in red and "pw123" not in red
    assert all(f"K{i}" not in red for i in range(1, 6)) and "model=m" in red and red.count(REDACTED) == 5
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"  # nothing to hide: unchanged
    assert (
        redact_urls("failed: http://u:p@h/v1?key=abc, retrying")
        == f"failed: http://h/v1?key={REDACTED}, retrying"
    )
    assert scrub_secrets({"api_base": url, "n": 1}) == {"api_base": red, "n": 1}


def _scan(data: bytes, where: str) -> None:
    for secret in (USER, PASSWORD, QUERY_KEY):
        assert secret.encode() not in data, f"{secret!r} found in {where}"


def test_run_with_credentials_in_api_base_stores_and_logs_none(tmp_path: Path) -> None:
    answers = iter(["Turn(90);", "Go(1);"])

    # No key required: the user info of the URL turns into a Basic auth header, as httpx sends it.
    def respond(body: dict) -> str:  # the endpoint check's 1-token probes take no answer of the episode's
        return "ready" if body.get("max_tokens") == 1 else next(answers, "Go(1);")

    with FakeOpenAIServer(responder=respond) as server:
        host = server.base_url.split("://", 1)[1]
        api_base = f"http://{USER}:{PASSWORD}@{host}?api_key={QUERY_KEY}&mode=fast"
        db = tmp_path / "runs.db"
        url = f"sqlite:///{db}"
        proc = run_cli(
            [
                "-v",
                "run",
                "--env",
                "gridworld",
                "--task",
                "BabyAI-GoToLocal-v0",
                "--model",
                "openai/fake-model",
                "--api-base",
                api_base,
                "--max-scripts",
                "3",
                "--db",
                url,
                "--json",
            ],
            tmp_path,
            cli_env(),
        )
        sent = list(zip(server.targets, server.requests))
    targets = [t for t, body in sent if body.get("max_tokens") != 1]
    probes = [t for t, body in sent if body.get("max_tokens") == 1]  # the endpoint check's
    # the requests went to the real URL, its query included; the endpoint check's too
    assert probes and all(QUERY_KEY in t for t in probes), probes
    assert len(targets) == 3 and all(QUERY_KEY in t for t in targets), targets
    con = sqlite3.connect(db)
    run_id, config = con.execute("SELECT id, config FROM runs").fetchone()
    stored = json.loads(config)["api_base"]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    assert stored == f"http://{host}?api_key={REDACTED}&mode=fast"
    assert "DEBUG" in proc.stderr or proc.stderr.count("\n") > 3  # -v really logged
    _scan(proc.stdout.encode() + proc.stderr.encode(), "the run's output and logs")
    # the database, its -wal/-shm files, and the image packs in its -images folder
    for path in [
        db,
        *(p for p in db.parent.glob("runs.db-*") if p.is_file()),
        *db.parent.glob("runs.db-images/*"),
    ]:
        _scan(path.read_bytes(), path.name)

    jsonl = tmp_path / "export" / "t.jsonl"
    shown = run_cli(["-v", "transcripts", "export", run_id, "--out", str(jsonl), "--db", url], tmp_path)
    bundle = tmp_path / "bundle"
    viewed = run_cli(["-v", "view", "--db", url, "--export", str(bundle), "--run", run_id], tmp_path)
    for out in (shown, viewed):
        _scan((out.stdout + out.stderr).encode(), "an export's output")
    for path in [*jsonl.parent.rglob("*"), *bundle.rglob("*")]:
        if path.is_file():
            _scan(path.read_bytes(), str(path))


def test_resume_sends_to_the_full_url_given_again(tmp_path: Path) -> None:
    """The stored api_base lost its credentials: ``eval --resume`` takes the full URL from --api-base."""
    (tmp_path / "exp.yaml").write_text(
        "env: gridworld\ntasks: [BabyAI-GoToLocal-v0]\nmodel: openai/fake-model\ntrials: 1\n"
        "max_scripts: 2\nmax_attempts: 1\nmax_retries: 0\n",
        encoding="utf-8",
    )
    db = tmp_path / "runs.db"
    url = f"sqlite:///{db}"
    with FakeOpenAIServer() as server:
        host = server.base_url.split("://", 1)[1]
        api_base = f"http://{USER}:{PASSWORD}@{host}?api_key={QUERY_KEY}"
        server.fail_next(400)  # the first episode ends in a model error: resume plays it again
        quiet = "--no-endpoint-check"  # every request is an episode's: the forced 400 is the first one's
        first = run_cli(
            ["eval", "exp.yaml", "--api-base", api_base, "--db", url, quiet], tmp_path, check=False
        )
        run_id = sqlite3.connect(db).execute("SELECT id FROM runs").fetchone()[0]
        n_first = len(server.targets)
        resumed = run_cli(["eval", "--resume", run_id, "--api-base", api_base, "--db", url, quiet], tmp_path)
        targets = server.targets[n_first:]
    assert n_first == 1, first.stdout + first.stderr
    assert len(targets) == 2 and all(QUERY_KEY in t for t in targets), targets
    _scan((first.stdout + first.stderr + resumed.stdout + resumed.stderr).encode(), "eval's output")


def test_a_base_urls_query_becomes_the_clients_default_query() -> None:
    """openai 3 glues routes after the raw base URL; the query must travel as ``default_query``."""
    from agentkit.models.usage_guard import split_query, sync_client

    assert split_query("http://h:1/v1") == ("http://h:1/v1", None)
    assert split_query("http://u:p@h/v1?api_key=K&mode=&x=1") == (
        "http://u:p@h/v1",
        {"api_key": "K", "mode": "", "x": "1"},
    )
    client = sync_client("http://h:1/v1?api_key=K", None, 5.0)
    try:
        url = client._build_request(  # the URL the client would send to
            openai_final_request("/chat/completions")
        ).url
        assert str(url) == "http://h:1/v1/chat/completions?api_key=K"
    finally:
        client.close()


def openai_final_request(route: str) -> Any:
    from openai._models import FinalRequestOptions

    return FinalRequestOptions.construct(method="post", url=route, json_data={})
