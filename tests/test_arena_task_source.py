"""A custom arena file is stored with its episodes, so replay needs neither the file nor its old text.

Why: an episode of a task named by a path could not be replayed from another folder ("arena file
not found"), and after an edit of the file its replay "DIFFERS from the record".
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources

from agentkit.testing.cli_runner import run_cli, run_json
from agentkit.transcripts import TranscriptStore

ARENA = (
    resources.files("agentkit.envs.arena")
    .joinpath("data", "testbed", "01-04-03.yaml")
    .read_text(encoding="utf-8")
)


def test_custom_arena_replays_from_its_stored_text_after_the_file_is_gone_or_edited(tmp_path):
    folder_a, folder_b = tmp_path / "A", tmp_path / "B"
    folder_a.mkdir()
    folder_b.mkdir()
    (folder_a / "mine.yaml").write_text(ARENA, encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = run_json(
        ["run", "--env", "aai-arena", "--task", "mine.yaml", "--task", "01-04-03", "--db", db], folder_a
    )
    custom, packaged = data["episodes"]
    assert custom["task"] == "mine.yaml" and custom["end_reason"] == "goal"

    store = TranscriptStore(db)
    source = store.get_task_source(custom["episode_id"])
    assert source == {
        "name": "mine.yaml",
        "text": ARENA,
        "sha256": hashlib.sha256(ARENA.encode("utf-8")).hexdigest(),
    }
    assert store.get_task_source(packaged["episode_id"]) is None  # a packaged task is known by its id

    # edited in place: the replay plays the recorded text, not the new one
    (folder_a / "mine.yaml").write_text(
        ARENA.replace("x: 20, y: 0, z: 1.1", "x: 30, y: 0, z: 30"), encoding="utf-8"
    )
    report = run_json(["replay", custom["episode_id"], "--db", db], folder_a)
    assert report["matches"], report["mismatches"]

    # deleted, and replayed from another folder: same outcome, no "not found"
    (folder_a / "mine.yaml").unlink()
    proc = run_cli(["replay", custom["episode_id"], "--db", db, "--json"], folder_b)
    assert "not found" not in proc.stderr

    report = json.loads(proc.stdout)
    assert report["matches"], report["mismatches"]
    assert report["replayed"] == {"success": True, "reward": custom["reward"], "end_reason": "goal"}
