"""The episode page draws the agent's whole path (every step, not one dot per turn) and labels its
numbers as before, during and after the turn.

An arena episode is recorded with `agentkit run` (the reference agent, a real subprocess); the
viewer replays its stored actions (agentkit.viewer.step_path) and is read through a real HTTP
server on 127.0.0.1, and in headless Chromium where it is installed. A record whose actions were
altered afterwards must not be drawn as a path: the replay is checked against the stored poses.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import shutil
import sqlite3
import urllib.request
from pathlib import Path

import pytest

from agentkit.testing.cli_runner import run_json
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerServer, open_readonly
from agentkit.viewer.step_path import replay_step_path
from agentkit.viewer.trajectory import pose_of

REPO = Path(__file__).resolve().parents[1]
TASK = "04-03-01"  # the reference agent walks around a hot zone for 6 turns (about 120 steps)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer-path")
    db = folder / "runs.db"
    data = run_json(
        ["run", "--env", "aai-arena", "--task", TASK, "--max-scripts", "6", "--db", f"sqlite:///{db}"], folder
    )
    return db, data["episodes"][0]["episode_id"]


def _turns(db: Path, episode_id: str):
    store = TranscriptStore(f"sqlite:///{db}")
    try:
        return store.get_turns(episode_id, with_messages=False)
    finally:
        store.close()


def _get(server: ViewerServer, path: str) -> str:
    with urllib.request.urlopen(server.url.rstrip("/") + path, timeout=30) as resp:
        return resp.read().decode("utf-8")


def test_the_replayed_path_has_every_step_and_meets_every_turn(recorded):
    db, episode_id = recorded
    turns = _turns(db, episode_id)
    store = open_readonly(f"sqlite:///{db}")
    path = replay_step_path(store, episode_id)
    assert path, path.reason
    assert len(path.points) == 1 + sum(len(t.actions) for t in turns) and len(turns) >= 3
    # each turn starts where the stored observation says the agent stood
    for turn in turns:
        # turn k > 0 starts at the last step of turn k - 1; turn 0 at the reset pose, point 0
        first = next(i for i, (t, _) in enumerate(path.points) if t == turn.index) - (turn.index > 0)
        want = pose_of(turn.observation)
        assert math.dist((path.points[first][1].x, path.points[first][1].y), (want.x, want.y)) < 0.02
    # a path, not dots: steps are short (Animal-AI's agent moves at most ~1.3 units a step) and many
    # of them lie between two turns' positions
    hops = [math.dist((a.x, a.y), (b.x, b.y)) for (_, a), (_, b) in zip(path.points, path.points[1:])]
    starts = [pose_of(t.observation) for t in turns]
    jumps = [math.dist((a.x, a.y), (b.x, b.y)) for a, b in zip(starts, starts[1:])]
    assert max(hops) < 2.0 and max(jumps) > 4 * max(hops)


def test_the_episode_page_draws_the_path_and_labels_before_and_after(recorded):
    db, episode_id = recorded
    turns = _turns(db, episode_id)
    with ViewerServer(open_readonly(f"sqlite:///{db}"), port=0) as server:
        html = _get(server, f"/episodes/{episode_id}?turn=2")
    lines = {
        kind: points
        for points, kind in re.findall(r'<polyline points="([^"]*)"[^>]*class="step-path ([\w-]+)"', html)
    }
    assert set(lines) == {"earlier", "this-turn", "later"}
    # turn 2's own steps: one point per step that moved the agent, plus where the turn began
    assert 2 <= len(lines["this-turn"].split()) <= len(turns[2].actions) + 1
    assert len(lines["earlier"].split()) > len(turns) and "every step's position" in html
    numbers = re.search(r'<table class="kv before-after">.*?</table>', html, re.S).group(0)
    assert "before the turn" in numbers and "after the turn" in numbers
    reward = re.search(
        r"<th>reward</th><td>total ([-\d.]+)</td><td>([-\d.]+)</td><td>total ([-\d.]+)</td>", numbers
    )
    before, during, after = (float(v) for v in reward.groups())
    assert before == pytest.approx(turns[2].observation["total_reward"], abs=1e-4)
    assert after == pytest.approx(turns[2].total_reward, abs=1e-4) and during == pytest.approx(
        turns[2].reward, abs=1e-4
    )
    assert after == pytest.approx(before + during, abs=2e-4)
    health = re.search(r"<th>health</th><td>([-\d.]+)</td><td></td><td>([-\d.]+)</td>", numbers).groups()
    assert float(health[0]) == pytest.approx(turns[2].observation["health"], abs=1e-2)
    assert float(health[1]) == pytest.approx(turns[2].health, abs=1e-2)


def test_an_altered_record_is_not_drawn_as_a_path(recorded, tmp_path):
    db, episode_id = recorded
    altered = tmp_path / "altered.db"
    shutil.copy(db, altered)
    con = sqlite3.connect(altered)
    with con:  # turn 1 now says it only turned on the spot: the replay cannot reach turn 2's stored pose
        (actions,) = con.execute(
            'SELECT actions FROM turns WHERE episode_id = ? AND "index" = 1', (episode_id,)
        ).fetchone()
        con.execute(
            'UPDATE turns SET actions = ? WHERE episode_id = ? AND "index" = 1',
            (json.dumps([[0, 1]] * len(json.loads(actions))), episode_id),
        )
    con.close()
    path = replay_step_path(open_readonly(f"sqlite:///{altered}"), episode_id)
    assert not path and "turn 2" in path.reason
    with ViewerServer(open_readonly(f"sqlite:///{altered}"), port=0) as server:
        html = _get(server, f"/episodes/{episode_id}?turn=2")
    assert 'class="step-path' not in html and "Whole path not drawn" in html
    assert html.count("<circle") >= 3  # the turns' dots are still there


def test_the_path_is_drawn_in_chromium(recorded):
    spec = importlib.util.spec_from_file_location(
        "viewer_browser", Path(__file__).with_name("test_viewer_browser.py")
    )
    browsing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(browsing)
    if browsing.CHROMIUM is None:
        pytest.skip("no chromium on PATH (./dev setup installs Debian's)")
    db, episode_id = recorded
    with ViewerServer(open_readonly(f"sqlite:///{db}"), port=0) as server:
        browser = browsing.Browser(browsing.CHROMIUM)
        try:
            browser.goto(f"{server.url}episodes/{episode_id}?turn=2")
            length = browser.evaluate("document.querySelector('svg.map polyline.this-turn').getTotalLength()")
            width = browser.evaluate("document.querySelector('svg.map polyline.earlier').getBBox().width")
            assert length > 10 and width > 10
            browser.screenshot(REPO / "test-artifacts" / "viewer-step-path.png")
            assert browser.problems() == []
        finally:
            browser.close()


def test_a_backend_that_would_start_a_program_is_never_replayed_by_a_page(recorded, tmp_path):
    """A database from elsewhere whose run names a Unity build: the page must not launch it."""
    db, episode_id = recorded
    hostile = tmp_path / "hostile.db"
    shutil.copy(db, hostile)
    marker = tmp_path / "launched"
    build = tmp_path / "build.sh"
    build.write_text(f"#!/bin/sh\ntouch {marker}\n")
    build.chmod(0o755)
    con = sqlite3.connect(hostile)
    with con:
        (config,) = con.execute("SELECT config FROM runs").fetchone()
        config = {**json.loads(config), "env": "animalai", "backend_options": {"aai_build": str(build)}}
        con.execute("UPDATE runs SET env = 'animalai', config = ?", (json.dumps(config),))
    con.close()
    path = replay_step_path(open_readonly(f"sqlite:///{hostile}"), episode_id)
    assert not path and "not replayed by the viewer" in path.reason
    with ViewerServer(open_readonly(f"sqlite:///{hostile}"), port=0) as server:
        html = _get(server, f"/episodes/{episode_id}")
    assert 'class="step-path' not in html and "<circle" in html and not marker.exists()
