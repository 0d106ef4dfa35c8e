"""Replay reproduces recorded episodes offline; a SIGKILLed run leaves a sound, honest database."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time

from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_cli, run_json
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore


def _field(obj, name):
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


def test_replay_of_reference_episodes_matches(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    data = run_json(
        ["run", "--env", "gridworld", "--task", "BabyAI-PickupLoc-v0", "--episodes", "2", "--db", db],
        tmp_path,
    )
    for episode in data["episodes"]:
        report = run_json(["replay", episode["episode_id"], "--db", db], tmp_path)
        assert report["matches"] is True
        assert report["replayed"]["end_reason"] == episode["end_reason"]
        assert report["replayed"]["reward"] == episode["reward"]


def test_replay_of_a_model_episode_needs_no_server(tmp_path):
    answers = iter(["Turn(90); Go(2);", "Nonsense without commands", 'Think("hmm"); Turn(-90); Go(1);'])
    db = f"sqlite:///{tmp_path / 'm.db'}"
    with FakeOpenAIServer(responder=lambda body: next(answers, "Go(1);")) as server:
        data = run_json(
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
                "--max-scripts",
                "5",
                "--db",
                db,
            ],
            tmp_path,
        )
    # the server is gone now: replay must not need it
    report = run_json(["replay", data["episodes"][0]["episode_id"], "--db", db], tmp_path)
    assert report["matches"] is True and report["turns"] == 5


def test_replay_detects_a_tampered_record(tmp_path):
    path = tmp_path / "t.db"
    db = f"sqlite:///{path}"
    data = run_json(["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--db", db], tmp_path)
    episode_id = data["episodes"][0]["episode_id"]
    con = sqlite3.connect(path)
    con.execute(
        "UPDATE turns SET answer = 'Turn(180);' WHERE episode_id = ? AND \"index\" = 0", (episode_id,)
    )
    con.commit()
    con.close()
    proc = run_cli(["replay", episode_id, "--db", db], tmp_path, check=False)
    assert proc.returncode == 1 and "DIFFERS" in proc.stdout


def test_sigkill_mid_episode_keeps_completed_turns_and_marks_episode_unfinished(tmp_path):
    path = tmp_path / "k.db"
    db = f"sqlite:///{path}"
    with FakeOpenAIServer(responder=lambda body: "Turn(90);", latency_s=0.2) as server:
        proc = subprocess.Popen(
            [
                *AGENTKIT,
                "run",
                "--env",
                "gridworld",
                "--task",
                "BabyAI-GoToLocal-v0",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--db",
                db,
            ],
            cwd=tmp_path,
            env=cli_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 120
            turns = 0
            while time.monotonic() < deadline and turns < 3:
                time.sleep(0.1)
                if path.exists():
                    try:
                        con = sqlite3.connect(path, timeout=5)
                        turns = con.execute("SELECT count(*) FROM turns").fetchone()[0]
                        con.close()
                    except sqlite3.OperationalError:
                        turns = 0
            assert turns >= 3, "the run never got going"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    store = TranscriptStore(db)
    (episode,) = store.list_episodes()
    assert _field(episode, "status") == "unfinished"
    turns = store.get_turns(_field(episode, "id"), with_messages=True)
    assert len(turns) >= 3
    assert [_field(t, "index") for t in turns] == list(range(len(turns)))
    listing = run_cli(["transcripts", "list", "--db", db, "--json"], tmp_path)
    assert "unfinished" in listing.stdout


def test_replay_of_an_episode_a_model_error_ended_says_one_thing(tmp_path):
    """Replay once logged "ran out of recorded answers at turn 3" and then printed "matches the
    record" (issue 30 item 9): the record ends at the failed turn, and the replay stopping there is
    the match, said in one statement."""
    served = {"n": 0}
    server = FakeOpenAIServer(responder=lambda body: "Turn(90);")

    def answer(body):
        served["n"] += 1
        if served["n"] == 3:  # the fourth request is refused as a bad request: not retried
            server.fail_next(400)
        return "Turn(90);"

    server.responder = answer
    db = f"sqlite:///{tmp_path / 'e.db'}"
    with server:
        data = run_json(
            ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--model", "openai/fake-model"]
            + ["--api-base", server.base_url, "--max-scripts", "6", "--db", db, "--no-endpoint-check"],
            tmp_path,
        )  # the responder counts every request: the endpoint check's probes would be among them
    [episode] = data["episodes"]
    assert episode["end_reason"] == "model_error" and episode["scripts"] == 3

    proc = run_cli(["replay", episode["episode_id"], "--db", db], tmp_path)
    assert proc.returncode == 0
    assert "ran out of recorded answers" not in proc.stdout + proc.stderr
    [line] = proc.stdout.strip().splitlines()
    assert line.startswith(f"episode {episode['episode_id']}: replay of 3 turns matches the record: ")
    assert "it stops at turn 3, where the recorded episode ended in a model error (" in line
    report = run_json(["replay", episode["episode_id"], "--db", db], tmp_path)
    assert report["matches"] is True and report["verdict"] == line.split(": ", 1)[1]
    assert report["replayed"]["end_reason"] == report["recorded"]["end_reason"] == "model_error"


def test_replay_of_an_errored_episode_that_no_longer_errors_differs(tmp_path):
    """The record's end is only a match where the replay reaches it: an episode whose last stored
    answer now ends it differently is a difference, not "stops where the record ends"."""
    path = tmp_path / "d.db"
    db = f"sqlite:///{path}"
    data = run_json(["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--db", db], tmp_path)
    episode_id = data["episodes"][0]["episode_id"]
    con = sqlite3.connect(path)
    con.execute(
        "UPDATE episodes SET end_reason = 'model_error', error = 'a made-up failure' WHERE id = ?",
        (episode_id,),
    )
    con.commit()
    con.close()
    proc = run_cli(["replay", episode_id, "--db", db], tmp_path, check=False)
    assert proc.returncode == 1
    assert (
        proc.stdout.splitlines()[0]
        == f"episode {episode_id}: replay of {data['episodes'][0]['scripts']} turns DIFFERS from the record"
    )
    assert "outcome end_reason: recorded 'model_error'" in proc.stdout


def test_replay_of_an_unfinished_episode_stops_where_the_record_ends(tmp_path):
    """An episode a crash left unfinished holds fewer turns than it would have played: its replay
    stops after the last stored one, and that is said as part of the match."""
    path = tmp_path / "u.db"
    db = f"sqlite:///{path}"
    with FakeOpenAIServer(responder=lambda body: "Turn(90);") as server:
        data = run_json(
            ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--model", "openai/fake-model"]
            + ["--api-base", server.base_url, "--max-scripts", "3", "--db", db],
            tmp_path,
        )
    [episode] = data["episodes"]
    assert episode["scripts"] == 3
    con = sqlite3.connect(path)
    con.execute(
        "UPDATE episodes SET status = 'unfinished', end_reason = NULL, success = NULL WHERE id = ?",
        (episode["episode_id"],),
    )
    con.execute(
        'DELETE FROM turns WHERE episode_id = ? AND "index" = ?',
        (episode["episode_id"], episode["scripts"] - 1),
    )
    con.commit()
    con.close()
    kept = episode["scripts"] - 1
    proc = run_cli(["replay", episode["episode_id"], "--db", db], tmp_path)
    assert proc.stdout.strip() == (
        f"episode {episode['episode_id']}: replay of {kept} turns matches the record: it stops at turn "
        f"{kept}, where the record ends (the episode was left unfinished)"
    )
    assert "ran out of recorded answers" not in proc.stderr
