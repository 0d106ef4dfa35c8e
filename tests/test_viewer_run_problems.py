"""The run list counts what went wrong in each run: turns by parse-error code, episodes ended by a model error.

Before, the index showed "2/3 success" and nothing else: a model that cannot write the script
language, or a server that refused requests, looked like a model bad at the task. The runs here
are recorded through the real loop, the real LiteLLM client and the local OpenAI-shaped HTTP server
(``problem_runs``); the viewer is a real HTTP server, and the query also runs on a PostgreSQL copy.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import urllib.request
from collections import Counter

import pytest
from problem_runs import ANSWERS, problem_database

from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerApp, ViewerServer, open_readonly
from agentkit.viewer.queries import ViewerData


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "viewer-problems.db"
    return path, problem_database(path)


def _stored_problems(path, run_id):
    """What the store holds, counted here without the viewer: parse-error codes of the turns and
    end reasons of the episodes of a run (each (task, seed) played once, so every episode counts)."""
    store = TranscriptStore(f"sqlite:///{path}")
    try:
        codes: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        for e in store.list_episodes(run_id=run_id):
            reasons[e.end_reason] += 1
            codes.update(t.parse_error["code"] for t in store.get_turns(e.id) if t.parse_error)
        return codes, reasons
    finally:
        store.close()


def _row(html: str, run_id: str) -> str:
    """The run list's row of ``run_id``."""
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    return next(r for r in rows if f'class="run-link">{run_id}<' in r)


def _cell(row: str, name: str) -> str:
    """The visible text of a problems cell of a row, tags stripped, spaces collapsed."""
    cell = re.search(rf'<td class="[^"]*{name}[^"]*">(.*?)</td>', row, re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", " ", cell).split())


def test_the_recorded_run_has_every_kind_of_problem_it_was_made_with(recorded):
    path, ids = recorded
    codes, reasons = _stored_problems(path, ids["problems"])
    assert set(codes) == {code for _, code in ANSWERS if code}
    assert reasons["model_error"] == 1


def test_index_shows_parse_error_codes_and_model_errors_per_run(recorded):
    path, ids = recorded
    codes, reasons = _stored_problems(path, ids["problems"])
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as server:
        with urllib.request.urlopen(server.url, timeout=30) as resp:
            html = resp.read().decode()
    assert "<th" in html and ">parse errors</th>" in html and ">model errors</th>" in html

    row = _row(html, ids["problems"])
    parse = _cell(row, "parse-errors")
    total = sum(codes.values())
    assert parse.startswith(f"{total} turns ")
    for code, n in codes.items():
        assert f"{code} {n}" in parse, parse
    assert _cell(row, "model-errors") == str(reasons["model_error"])

    clean = _row(html, ids["reference"])  # the reference agent: every answer parsed, no model call
    assert _cell(clean, "parse-errors") == "0" and _cell(clean, "model-errors") == "0"


def test_counts_take_the_latest_attempt_as_the_pass_count_does(recorded, tmp_path):
    """A relaunched attempt replaces the one it relaunches: the model error of the first attempt is
    not counted once a later attempt of the same (task, trial, seed) finished."""
    path, ids = recorded
    copy = tmp_path / "copy.db"
    copy.write_bytes(path.read_bytes())
    store = TranscriptStore(f"sqlite:///{copy}")
    try:
        failed = next(e for e in store.list_episodes(run_id=ids["problems"]) if e.end_reason == "model_error")
        before = store.run_problems([ids["problems"]])[ids["problems"]]
        relaunch = store.start_episode(
            ids["problems"], failed.task, failed.seed, trial=failed.trial, attempt=1
        )
    finally:
        store.close()
    data = ViewerData(open_readonly(f"sqlite:///{copy}"))
    after = data.run_problems([ids["problems"]])[ids["problems"]]
    assert before.ended_by("model_error") == 1 and after.ended_by("model_error") == 0
    assert relaunch and after.parse_error_turns < before.parse_error_turns  # its turns left with it


def test_the_counts_read_the_same_on_postgresql(recorded, postgres_server):
    from postgres_server import copy_database

    path, ids = recorded
    url = postgres_server.new_database()
    copy_database(f"sqlite:///{path}", url)
    on_sqlite = ViewerData(open_readonly(f"sqlite:///{path}")).run_problems(list(ids.values()))
    on_postgres = ViewerData(open_readonly(url)).run_problems(list(ids.values()))
    assert on_postgres == on_sqlite
    assert on_sqlite[ids["problems"]].parse_error_turns > 0


def test_run_page_repeats_the_counts_in_its_header(recorded):
    path, ids = recorded
    codes, reasons = _stored_problems(path, ids["problems"])
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as server:
        with urllib.request.urlopen(f"{server.url}runs/{ids['problems']}", timeout=30) as resp:
            html = resp.read().decode()
        with urllib.request.urlopen(f"{server.url}runs/{ids['reference']}", timeout=30) as resp:
            clean = resp.read().decode()
    line = " ".join(
        re.sub(r"<[^>]+>", " ", re.search(r'<p class="meta run-problems">(.*?)</p>', html).group(1)).split()
    )
    assert line.startswith(f"parse errors in {sum(codes.values())} turns:")
    assert all(f"{code} {n}" in line for code, n in codes.items())
    assert line.endswith(f"· {reasons['model_error']} episode ended by a model error")
    assert "run-problems" not in clean  # nothing went wrong: no line


def test_a_parse_error_that_is_not_json_is_counted_apart_and_the_list_still_shows(recorded, tmp_path, caplog):
    """A damaged database (one turn's parse_error made malformed text): SQLite refuses a JSON query
    over it, the run list reads the values one by one instead and names the column in one warning."""
    path, ids = recorded
    codes, _ = _stored_problems(path, ids["problems"])
    copy = tmp_path / "damaged.db"
    copy.write_bytes(path.read_bytes())
    con = sqlite3.connect(copy)
    damaged = con.execute(
        "SELECT t.id, json_extract(t.parse_error, '$.code') FROM turns t JOIN episodes e ON e.id = t.episode_id "
        "WHERE e.run_id = ? AND t.parse_error IS NOT NULL ORDER BY t.id LIMIT 1",
        (ids["problems"],),
    ).fetchone()
    con.execute(
        "UPDATE turns SET parse_error = ? WHERE id = ?", ('{"code": "no_comm' + "[" * 5000, damaged[0])
    )
    con.commit()
    con.close()

    app = ViewerApp(open_readonly(f"sqlite:///{copy}"))
    with caplog.at_level(logging.WARNING):
        response = app.handle("GET", "/")
    assert response.status == 200
    parse = _cell(_row(response.body.decode(), ids["problems"]), "parse-errors")
    assert "unreadable 1" in parse
    codes[damaged[1]] -= 1
    assert all(f"{code} {n}" in parse for code, n in codes.items() if n)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "turns.parse_error: 1 stored value is not JSON; counted as 'unreadable' on the run list"
    ]


def test_a_static_export_says_each_runs_problems_as_the_run_page_does(recorded, tmp_path):
    """`agentkit view --export`: each run's section carries the run page's line (counted over the
    whole run, and said so), and a run without problems has none."""
    from agentkit.viewer.export import export_bundle

    path, ids = recorded
    codes, reasons = _stored_problems(path, ids["problems"])
    reader = open_readonly(f"sqlite:///{path}")
    try:
        export_bundle(reader, tmp_path / "bundle", run_ids=[ids["problems"], ids["reference"]])
    finally:
        reader.close()
    html = (tmp_path / "bundle" / "index.html").read_text(encoding="utf-8")
    sections = dict(re.findall(r'<section id="run-([0-9a-f]+)">(.*?)</section>', html, re.S))
    line = " ".join(
        re.sub(
            r"<[^>]+>",
            " ",
            re.search(r'<p class="meta run-problems">(.*?)</p>', sections[ids["problems"]], re.S).group(1),
        ).split()
    )
    assert line.startswith(f"whole run: parse errors in {sum(codes.values())} turns:")
    assert all(f"{code} {n}" in line for code, n in codes.items())
    assert line.endswith(f"· {reasons['model_error']} episode ended by a model error")
    assert "run-problems" not in sections[ids["reference"]]
