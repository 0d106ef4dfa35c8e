"""Offline prompt iteration: `agentkit rerender` on recorded runs, and `agentkit replay --live-from`."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from viewer_sample import ScriptedModel, record_run, sample_database

from agentkit.offline.replay import continue_live
from agentkit.offline.rerender import (
    StoredImage,
    TokenCounter,
    observation_from_json,
    rerender_run,
    token_counter,
)
from agentkit.records import ModelReply, Usage
from agentkit.testing.cli_runner import run_cli, run_json
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import open_readonly
from agentkit.viewer.compare import first_divergence
from agentkit.viewer.queries import ViewerData

TURN_TEMPLATE = Path(__file__).resolve().parents[1] / "prompts" / "templates" / "gridworld" / "turn.j2"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "viewer-sample.db"  # shared with the viewer's tests
    return path, sample_database(path)


@pytest.fixture(scope="module")
def store(sample):
    return open_readonly(f"sqlite:///{sample[0]}")


@pytest.fixture
def changed_turn(tmp_path) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    source = TURN_TEMPLATE.read_text()
    assert "Write your next script." in source
    (folder / "turn.j2").write_text(
        source.replace("Write your next script.", "Write your next script; keep it short.")
    )
    return folder


# --- fidelity: re-rendering with the recorded templates reproduces what was sent -------------------


@pytest.mark.parametrize("run", ["reference", "scripted"])
def test_unchanged_templates_reproduce_every_recorded_prompt(store, sample, run):
    report = rerender_run(store, sample[1][run], memory=None, workers=1)
    assert report.turns and report.changed_turns == 0, [t.diff for t in report.turns if t.changed][:1]
    assert report.tokens_before == report.tokens_after
    assert all(t.diff == "" and t.system_diff == "" for t in report.turns)


def test_stored_observations_rebuild_with_images_by_hash(store, sample):
    episode = store.list_episodes(run_id=sample[1]["scripted"])[0]
    turn = store.get_turns(episode.id, with_messages=False)[0]
    obs = observation_from_json(turn.observation)
    assert obs.mission and obs.ascii and obs.structured and obs.step == 0
    (image,) = obs.images
    assert isinstance(image, StoredImage) and image.width == 512 and image.data == b""
    assert image.sha256 == turn.observation["images"][0]["sha256"]
    with pytest.raises(ValueError, match="no bytes here"):  # no third image form: the hash is the reference
        image.data_url()


# --- what changed ---------------------------------------------------------------------------------------


def test_a_changed_turn_template_changes_every_turn_with_a_diff_and_token_delta(store, sample, changed_turn):
    report = rerender_run(store, sample[1]["scripted"], templates_dir=changed_turn, workers=1)
    assert report.templates_changed == ["turn.j2"]
    assert (
        report.changed_turns
        == len(report.turns)
        == sum(e.turns for e in store.list_episodes(run_id=report.run_id))
    )
    first = report.turns[0]
    assert (
        "-Write your next script." in first.diff and "+Write your next script; keep it short." in first.diff
    )
    assert first.diff.startswith(f"--- recorded {first.episode_id} turn 0")
    assert first.system_diff == "" and first.history == ""
    assert all(t.tokens_after > t.tokens_before for t in report.turns)
    # full history repeats every earlier (now longer) prompt: the delta grows with the turn
    by_episode = [t for t in report.turns if t.episode_id == first.episode_id]
    deltas = [t.delta for t in by_episode]
    assert deltas == sorted(deltas) and deltas[-1] == deltas[0] * len(by_episode)


def test_a_changed_system_template_is_shown_once(store, sample, tmp_path):
    folder = tmp_path / "sys"
    folder.mkdir()
    run = store.get_run(sample[1]["reference"])
    (folder / "system.j2").write_text(run.templates["system.j2"] + "\nBe brief.")
    report = rerender_run(store, run.id, templates_dir=folder, workers=1)
    assert report.changed_turns == len(report.turns)
    with_diff = [t for t in report.turns if t.system_diff]
    assert len(with_diff) == 1 and "+Be brief." in with_diff[0].system_diff
    assert all(
        t.system_same_as == f"{with_diff[0].episode_id} turn 0" for t in report.turns if t is not with_diff[0]
    )


def test_a_history_policy_change_needs_no_template(store, sample):
    report = rerender_run(store, sample[1]["scripted"], memory="markovian", workers=1)
    assert report.memory_before == "full" and report.memory_after == "markovian"
    firsts = [t for t in report.turns if t.index == 0]
    assert firsts and not any(t.changed for t in firsts)  # nothing to forget on the first turn
    later = [t for t in report.turns if t.index > 0]
    assert all(t.changed and t.tokens_after < t.tokens_before for t in later)
    assert later[0].history == "history: 2 messages, 1 images -> 0 messages, 0 images"
    images = rerender_run(store, sample[1]["scripted"], memory="last-images:1", workers=1)
    changed = [t.changed for t in images.turns if t.episode_id == firsts[0].episode_id]
    assert changed == [False, False] + [True] * (len(changed) - 2)  # from turn 2 on, the oldest image goes


def test_workers_do_not_change_the_report(store, sample, changed_turn):
    one = rerender_run(store, sample[1]["scripted"], templates_dir=changed_turn, workers=1)
    two = rerender_run(store, sample[1]["scripted"], templates_dir=changed_turn, workers=2)
    assert [t.to_json() for t in one.turns] == [t.to_json() for t in two.turns]


def test_unknown_run_episode_and_template_folder_are_clear_errors(store, sample, tmp_path):
    with pytest.raises(KeyError):
        rerender_run(store, "no-such-run")
    with pytest.raises(KeyError, match="not in run"):
        rerender_run(store, sample[1]["scripted"], memory="markovian", episode_ids=["nope"])
    from agentkit.prompts import TemplateError

    with pytest.raises(TemplateError, match="no system.j2, turn.j2"):
        rerender_run(store, sample[1]["scripted"], templates_dir=tmp_path)
    with pytest.raises(TemplateError, match="not a directory"):
        rerender_run(store, sample[1]["scripted"], templates_dir=tmp_path / "missing")


# --- token counts -----------------------------------------------------------------------------------------


_PIECES = [
    "\n",
    "\n\n",
    " ",
    "  ",
    "a",
    "Hello",
    " world",
    ".",
    "/",
    "//",
    "'s",
    "123",
    "4567",
    "é",
    "日本",
    "\t",
    "\r\n",
    "#",
    "?",
    "<",
    "x=6,",
    "-",
    "!!",
    " \n",
    "\n ",
    "😀",
    "Go(2);",
    '"',
    "Think(",
    "```",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_line_cached_counts_equal_whole_text_counts(pieces):
    counter = token_counter("openai/gpt-4o")
    if counter.encoding is None:
        pytest.skip("no offline tokenizer")
    text = "".join(pieces)
    assert counter.text(text) == len(counter.encoding.encode_ordinary(text))
    assert counter.text(text) == counter.text(text)  # from the cache, the same


def test_counter_falls_back_to_four_characters_a_token_and_counts_images():
    counter = TokenCounter()
    assert counter.name == "chars/4" and counter.text("abcdefgh") == 2 and counter.text("abcdefghi") == 3
    assert TokenCounter.image(512, 512) == 255 and TokenCounter.image(1024, 1024) == 765


def test_a_real_tokenizer_loads_offline():
    assert token_counter("openai/gpt-4o").name == "tiktoken:o200k_base"
    assert token_counter("some-local-model").name.startswith("tiktoken:")


# --- the command ---------------------------------------------------------------------------------------------


def test_rerender_command_prints_per_turn_diffs_and_token_deltas(sample, changed_turn, tmp_path):
    path, ids = sample
    db = f"sqlite:///{path}"
    proc = run_cli(["rerender", ids["scripted"], "--templates", str(changed_turn), "--db", db], tmp_path)
    out = proc.stdout
    n = sum(e.turns for e in open_readonly(db).list_episodes(run_id=ids["scripted"]))
    assert out.count("changed, tokens") == n
    assert "+Write your next script; keep it short." in out and "--- recorded" in out
    assert f"{n} of {n} turns in 4 episodes changed" in out and "templates changed: turn.j2" in out
    data = run_json(["rerender", ids["scripted"], "--memory", "window:1", "--db", db], tmp_path)
    assert data["memory_after"] == "window:1" and data["turns"] == n and data["delta"] < 0
    assert {"episode_id", "index", "changed", "tokens_before", "tokens_after", "diff"} <= set(
        data["per_turn"][0]
    )
    missing = run_cli(["rerender", ids["scripted"], "--db", db], tmp_path, check=False)
    assert missing.returncode == 2 and "--templates" in missing.stderr
    unknown = run_cli(["rerender", "nope", "--memory", "full", "--db", db], tmp_path, check=False)
    assert unknown.returncode == 2 and "no run 'nope'" in unknown.stderr


# --- replay --live-from ------------------------------------------------------------------------------------------


class _Fixed:
    name = "test/fixed"

    def complete(self, messages):
        return ModelReply(text="Turn(180); Go(1);", usage=Usage(10, 3, 0.0), model=self.name)


def _writable_copy(sample, tmp_path) -> str:
    path, _ = sample
    target = tmp_path / "copy.db"
    shutil.copy(path, target)
    return f"sqlite:///{target}"


def test_live_from_replays_the_prefix_then_hands_over(sample, tmp_path):
    db = _writable_copy(sample, tmp_path)
    store = TranscriptStore(db)
    source = store.list_episodes(run_id=sample[1]["scripted"])[0]
    recorded = store.get_turns(source.id, with_messages=False)
    report = continue_live(store, source.id, 3, model_factory=lambda backend: _Fixed())
    assert report.replayed_turns == 3 and report.mismatches == []
    new = store.get_turns(report.episode_id, with_messages=False)
    assert [t.answer for t in new[:3]] == [t.answer for t in recorded[:3]]
    assert [t.actions for t in new[:3]] == [t.actions for t in recorded[:3]]
    assert new[3].answer == "Turn(180); Go(1);"
    run = store.get_run(report.run_id)
    assert run.config["live_from"] == {"run_id": source.run_id, "episode_id": source.id, "turn": 3}
    assert run.templates == store.get_run(source.run_id).templates
    assert store.get_episode(report.episode_id).status == "finished"
    div = first_divergence(ViewerData(store), source.id, report.episode_id)
    assert div.turn == 3 and "answer" in div.differences and "observation" not in div.differences


def test_live_from_is_checked(sample, tmp_path):
    store = TranscriptStore(_writable_copy(sample, tmp_path))
    source = store.list_episodes(run_id=sample[1]["scripted"])[0]
    n = len(store.get_turns(source.id, with_messages=False))
    with pytest.raises(ValueError, match=f"take over at 0..{n}"):
        continue_live(store, source.id, n + 1, model_factory=lambda backend: _Fixed())
    finished = store.list_episodes(run_id=sample[1]["reference"])[0]  # solved on its only turn
    with pytest.raises(ValueError, match="nothing is left"):
        continue_live(store, finished.id, 1, model_factory=lambda backend: _Fixed())
    with pytest.raises(KeyError):
        continue_live(store, "nope", 0)


def test_replay_live_from_command_with_an_openai_compatible_model(sample, tmp_path):
    db = _writable_copy(sample, tmp_path)
    store = TranscriptStore(db)
    source = store.list_episodes(run_id=sample[1]["scripted"])[0]
    store.close()
    with FakeOpenAIServer(responder=lambda body: 'Think("live now"); Turn(90);') as server:
        data = run_json(
            [
                "replay",
                source.id,
                "--live-from",
                "2",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--db",
                db,
            ],
            tmp_path,
        )
        calls = len(server.requests)
    assert (
        data["replay_matches"] is True
        and data["replayed_turns"] == 2
        and data["model"] == "openai/fake-model"
    )
    assert calls == data["result"]["scripts"] - 2  # the replayed turns cost no request
    store = TranscriptStore(db)
    new = store.get_turns(data["episode_id"], with_messages=False)
    assert new[2].answer == 'Think("live now"); Turn(90);' and new[2].input_tokens > 0
    assert store.get_run(data["run_id"]).config["live_from"]["episode_id"] == source.id
    # plain replay is unchanged, and checks the continuation too
    assert run_json(["replay", source.id, "--db", db], tmp_path)["matches"] is True
    bad = run_cli(["replay", source.id, "--model", "x", "--db", db], tmp_path, check=False)
    assert bad.returncode == 2 and "--live-from" in bad.stderr


def test_a_long_recorded_run_rerenders_quickly(tmp_path):
    """A smoke check of the benchmark's path (bench/rerender_speed.py measures the speed)."""
    store = TranscriptStore(f"sqlite:///{tmp_path / 'long.db'}")
    rng = random.Random(0)
    answers = [
        rng.choice(["Turn(90); Go(1);", "Go(2)", "no idea", 'Think("left"); Turn(-90);']) for _ in range(40)
    ]
    run_id = record_run(
        store, ["BabyAI-GoToLocal-v0"], episodes=2, model=ScriptedModel(answers), max_scripts=25
    )
    report = rerender_run(store, run_id, memory="full", workers=1)
    assert len(report.turns) >= 25 and report.changed_turns == 0
