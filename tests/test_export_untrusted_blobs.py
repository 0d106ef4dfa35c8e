"""A crafted database must not make an export write outside its folder (issue 15, item 2).

Why: transcript databases are shared, and both exports used to name image files after the blob
hash and media type read from the database. A hash such as ``../../../x/OUTSIDE`` or an absolute
path then wrote the attacker's bytes wherever the exporting user could write.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer

FAKE_KEY = "sk-test-not-a-real-key-000000000000"


def _craft(db: Path, evil: list[str]) -> int:
    """Rename the first image blobs (row, turn observations, message contents) to ``evil``; count images."""
    con = sqlite3.connect(db)
    try:
        shas = [
            r[0]
            for r in con.execute("SELECT sha256 FROM blobs WHERE media_type LIKE 'image/%' ORDER BY sha256")
        ]
        assert len(shas) > len(evil), "the run should have stored more images than are renamed"
        for sha, bad in zip(shas, evil):
            con.execute("UPDATE blobs SET sha256 = ? WHERE sha256 = ?", (bad, sha))
            con.execute("UPDATE turns SET observation = replace(observation, ?, ?)", (sha, bad))
            con.execute(
                "UPDATE blobs SET data = CAST(replace(CAST(data AS TEXT), ?, ?) AS BLOB) "
                "WHERE media_type NOT LIKE 'image/%'",
                (sha, bad),
            )
        con.commit()
        return len(shas)
    finally:
        con.close()


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def test_hostile_blob_hashes_are_skipped_by_both_exports(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    url = f"sqlite:///{db}"
    answers = iter(["Turn(90);", "Go(1);", "Turn(-90);"])
    with FakeOpenAIServer(responder=lambda body: next(answers, "Go(1);"), api_key=FAKE_KEY) as server:
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
                "--no-endpoint-check",  # the answers, in order, are the episode's
                "--api-key-env",
                "MY_TEST_KEY",
                "--max-scripts",
                "4",
                "--db",
                url,
                "--json",
            ],
            tmp_path,
            cli_env(MY_TEST_KEY=FAKE_KEY),
        )
    run_id = sqlite3.connect(db).execute("SELECT id FROM runs").fetchone()[0]
    outside = tmp_path / "x"
    outside.mkdir()
    # Relative: from <out>/t_images and from <bundle's work folder>/images, both lead to tmp/x.
    evil = ["../../../x/OUTSIDE", str(outside / "ABSOLUTE")]
    n_images = _craft(db, evil)
    before = _files(tmp_path)

    jsonl = tmp_path / "a" / "b" / "t.jsonl"
    proc = run_cli(["transcripts", "export", run_id, "--out", str(jsonl), "--db", url], tmp_path)
    bundle = tmp_path / "c" / "bundle"
    proc2 = run_cli(["view", "--db", url, "--export", str(bundle), "--run", run_id], tmp_path)

    assert list(outside.iterdir()) == []
    new = _files(tmp_path) - before
    assert new and all(p.is_relative_to(jsonl.parent) or p.is_relative_to(bundle) for p in new), new
    for out in (proc.stderr, proc2.stderr):
        said = " ".join(out.split())  # the log may wrap a line to the terminal's width
        assert "skipping image blob '../../../x/OUTSIDE'" in said, out
        # the log folds a long path anywhere and shortens a hostile name: look for its start, unbroken
        assert str(outside)[:24] in "".join(out.split()) and said.count("skipping image blob") == 2, out
    # the other images are exported as usual
    assert len(list((jsonl.parent / "t_images").iterdir())) == n_images - 2
    assert len(list((bundle / "images").iterdir())) == n_images - 2
    assert "OUTSIDE" not in " ".join(p.name for p in new)
