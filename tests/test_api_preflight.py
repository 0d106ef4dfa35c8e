"""The Python API checks what the CLI checks before a run, and says so with one exception type.

``agentkit.run``/``agentkit.evaluate`` refuse, as ``agentkit.RunSetupError`` with one line and before
any episode or database file exists: an unset API key variable, an ``api_base`` nobody listens on,
a bad ``db``, an unknown task, option or experiment field.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

import agentkit
from agentkit.api import RunSetupError


def _closed_port() -> int:
    """A port on 127.0.0.1 that nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _refused(call, tmp_path: Path, *words: str) -> str:
    start = time.monotonic()
    with pytest.raises(RunSetupError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and all(w in message for w in words), message
    assert caught.value.__cause__ is None  # no chained traceback to read through
    assert caught.value.__context__ is None or caught.value.__suppress_context__
    assert time.monotonic() - start < 30  # refused at once, not after a model's retries
    assert not list(tmp_path.glob("*.db")), "a refused run left a database behind"
    return message


def test_an_unset_key_variable_is_refused_before_any_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTKIT_TEST_UNSET_KEY", raising=False)
    _refused(
        lambda: agentkit.run(
            "aai-arena",
            "01-04-03",
            model="openai/gpt-4o",
            db=tmp_path / "r.db",
            api_key_env="AGENTKIT_TEST_UNSET_KEY",
        ),
        tmp_path,
        "AGENTKIT_TEST_UNSET_KEY",
    )
    _refused(
        lambda: agentkit.evaluate(
            "llm-aai-exp1", model="openai/gpt-4o", db=tmp_path / "r.db", api_key_env="AGENTKIT_TEST_UNSET_KEY"
        ),
        tmp_path,
        "AGENTKIT_TEST_UNSET_KEY",
    )


@pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
def test_a_server_nobody_listens_on_is_refused(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    _refused(
        lambda: agentkit.run(
            "aai-arena", "01-04-03", model="openai/local", api_base=base, db=tmp_path / "r.db"
        ),
        tmp_path,
        "--api-base",
        "cannot connect",
    )


def test_a_bad_db_is_refused(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    _refused(lambda: agentkit.run("aai-arena", "01-04-03", db=tmp_path / "folder"), tmp_path, "is a folder")
    _refused(lambda: agentkit.evaluate("llm-aai-exp1", db="foo://x/y"), tmp_path, "unknown kind of database")
    (tmp_path / "notes.txt").write_text("not a database")
    _refused(
        lambda: agentkit.open_store(tmp_path / "notes.txt", read_only=True), tmp_path, "not a SQLite database"
    )


def test_bad_tasks_options_and_experiments_are_the_same_exception(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _refused(lambda: agentkit.run("aai-arena", db=db), tmp_path, "name tasks or a suite")
    _refused(
        lambda: agentkit.run("aai-arena", "01-04-03", db=db, warp_speed=9),
        tmp_path,
        "unknown option 'warp_speed'",
    )
    _refused(
        lambda: agentkit.evaluate({"env": "aai-arena", "tasks": ["01-04-03"], "trails": 3}, db=db),
        tmp_path,
        "unknown field 'trails'",
    )
    _refused(lambda: agentkit.evaluate("llm-aai-exp9", db=db), tmp_path, "llm-aai-exp9")
    assert issubclass(RunSetupError, ValueError) and agentkit.RunSetupError is RunSetupError


def test_an_unknown_task_is_refused_before_the_run_is_created(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with pytest.raises(RunSetupError, match="99-99-99"):
        agentkit.run("aai-arena", "99-99-99", db=db)
    with agentkit.open_store(db, read_only=True) as store:
        assert store.list_runs() == []
