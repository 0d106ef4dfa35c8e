"""Image bytes of a SQLite store live in pack files beside the database (agentkit.transcripts.image_packs).

What must hold: a frame written by ``add_turn`` reads back byte for byte through every reader (turns
as data URLs, ``get_blob``, the read-only opening, export); nothing is read outside the folder for a
crafted row; a database copied without its folder still reads, with the images reported missing; an
older database is upgraded and its in-database images still read; ``agentkit db inline-images``
makes a single-file copy; a pack that cannot be written is one StorageError and no turn row.
"""

from __future__ import annotations

import base64
import dataclasses
import logging
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agentkit.messages import ImagePart, Message, TextPart
from agentkit.observers.image_encoding import encode_image
from agentkit.records import StorageError, TurnRecord, Usage
from agentkit.transcripts import TranscriptStore, wal_checkpointer
from agentkit.transcripts.image_packs import PackReader, PackWriter, folder_beside
from agentkit.transcripts.wal_checkpointer import WalCheckpointer
from agentkit.viewer.readonly import open_readonly


def frame(seed: int) -> ImagePart:
    pixels = np.random.default_rng(seed).integers(0, 255, (48, 48, 3), dtype=np.uint8)
    image = encode_image(pixels, "camera")
    return ImagePart(image.data, image.media_type, image.sha256)


def data_url(image: ImagePart) -> str:
    return f"data:{image.media_type};base64," + base64.b64encode(image.data).decode("ascii")


def image_turn(index: int, image: ImagePart) -> TurnRecord:
    return TurnRecord(
        index=index,
        observation={"step": index, "images": [{"name": "camera", "sha256": image.sha256}]},
        messages=[
            Message("system", "You are in an arena."),
            Message("user", (TextPart(f"turn {index}"), image)),
        ],
        answer="Go(1);",
        usage=Usage(10, 2, 0.0),
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
    )


def write_episode(db: Path, images: list[ImagePart], **options: object) -> str:
    with TranscriptStore(f"sqlite:///{db}", **options) as store:  # type: ignore[arg-type]
        run = store.create_run("aai-arena", ["t"], "m", {}, {"system.j2": "x"})
        episode = store.start_episode(run, "t", 0)
        for i, image in enumerate(images):
            store.add_turn(episode, image_turn(i, image))
    return episode


def blob_rows(db: Path) -> list[tuple[str, int, str | None, int | None]]:
    with sqlite3.connect(db) as con:
        return con.execute(
            "SELECT sha256, length(data), pack, pack_offset FROM blobs WHERE media_type LIKE 'image/%' ORDER BY pack_offset"
        ).fetchall()


def test_images_go_to_one_pack_and_read_back_through_every_reader(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    images = [frame(i) for i in range(3)]
    episode = write_episode(db, images)
    rows = blob_rows(db)
    assert [r[0] for r in rows] == [i.sha256 for i in images]
    assert all(r[1] == 0 and r[2] is not None for r in rows)  # no bytes in the database
    (pack,) = (tmp_path / "runs.db-images").iterdir()
    assert pack.name == f"{rows[0][2]}.pack"
    assert pack.read_bytes() == b"".join(i.data for i in images)  # appended in order
    with open_readonly(f"sqlite:///{db}") as reader:
        turns = reader.get_turns(episode, images="data_url")
        assert [t.messages[1]["content"][1]["image_url"]["url"] for t in turns] == [
            data_url(i) for i in images
        ]
        assert reader.get_blob(images[1].sha256).data == images[1].data
        assert reader.get_image(images[2].sha256).data == images[2].data  # type: ignore[union-attr]


def test_without_image_files_the_bytes_stay_in_the_database(tmp_path: Path) -> None:
    db = tmp_path / "single.db"
    image = frame(7)
    write_episode(db, [image], image_files=False)
    assert blob_rows(db) == [(image.sha256, len(image.data), None, None)]
    assert not folder_beside(db).exists()


def test_a_database_copied_without_its_folder_reads_with_images_reported_missing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "runs.db"
    images = [frame(i) for i in range(2)]
    episode = write_episode(db, images)
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    shutil.copyfile(db, elsewhere / "runs.db")
    with caplog.at_level(logging.WARNING), open_readonly(f"sqlite:///{elsewhere / 'runs.db'}") as reader:
        (first, second) = reader.get_turns(episode, images="data_url")
        assert first.answer == "Go(1);"
        assert first.messages[1]["content"][1]["type"] == "image_ref"  # kept as a reference
        assert reader.get_image(images[0].sha256) is None
    pack_lines = [r.getMessage() for r in caplog.records if "is missing: copy the folder" in r.getMessage()]
    assert len(pack_lines) == 1 and "runs.db-images" in pack_lines[0]  # one line for the pack, not per image


@pytest.mark.parametrize(
    "pack, offset, size, why",
    [
        ("../../../../etc/passwd", 0, 10, "not 16 hex digits"),
        ("/etc/passwd", 0, 10, "not 16 hex digits"),
        ("0123456789abcdef", -5, 10, "out of range"),
        ("0123456789abcdef", 0, 10**12, "out of range"),
    ],
)
def test_a_crafted_row_never_reads_outside_the_folder(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, pack: str, offset: int, size: int, why: str
) -> None:
    reader = PackReader(tmp_path)
    with caplog.at_level(logging.WARNING):
        assert reader.read("ab" * 32, pack, offset, size) is None
    assert why in caplog.text


def test_bytes_that_do_not_match_their_hash_are_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "runs.db"
    image = frame(3)
    write_episode(db, [image])
    (pack,) = folder_beside(db).iterdir()
    pack.write_bytes(b"x" + pack.read_bytes()[1:])  # one byte changed
    with caplog.at_level(logging.WARNING), open_readonly(f"sqlite:///{db}") as reader:
        assert reader.get_image(image.sha256) is None
    assert "do not match its hash" in caplog.text


def test_two_stores_write_packs_of_their_own_and_share_an_image_once(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    shared, own_a, own_b = frame(1), frame(2), frame(3)
    url = f"sqlite:///{db}"
    with TranscriptStore(url) as a, TranscriptStore(url) as b:
        run = a.create_run("aai-arena", ["t"], "m", {}, {"system.j2": "x"})
        ep_a, ep_b = a.start_episode(run, "t", 0), b.start_episode(run, "t", 1)
        a.add_turn(ep_a, image_turn(0, shared))
        b.add_turn(ep_b, image_turn(0, own_b))
        a.add_turn(ep_a, image_turn(1, own_a))
        b.add_turn(ep_b, image_turn(1, shared))  # already stored by a: its row stays a's
        assert b.get_blob(shared.sha256).data == shared.data
        assert a.get_blob(own_b.sha256).data == own_b.data
    assert len(list(folder_beside(db).iterdir())) == 2
    assert len(blob_rows(db)) == 3


def test_a_pack_that_cannot_be_written_is_one_storage_error_and_no_turn(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    folder_beside(db).write_text("a file where the folder should be")
    with TranscriptStore(f"sqlite:///{db}") as store:
        run = store.create_run("aai-arena", ["t"], "m", {}, {"system.j2": "x"})
        episode = store.start_episode(run, "t", 0)
        with pytest.raises(StorageError, match="cannot write"):
            store.add_turn(episode, image_turn(0, frame(0)))
        assert store.get_turns(episode) == []
        store.add_turn(
            episode, dataclasses.replace(image_turn(0, frame(0)), messages=[Message("user", "text only")])
        )
        assert len(store.get_turns(episode)) == 1  # text turns still go in


def test_an_older_database_is_upgraded_and_its_images_in_data_still_read(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    old_image, new_image = frame(10), frame(11)
    episode = write_episode(db, [old_image], image_files=False)
    with sqlite3.connect(db) as con:  # schema 4: no pack columns yet
        con.execute("ALTER TABLE blobs DROP COLUMN pack")
        con.execute("ALTER TABLE blobs DROP COLUMN pack_offset")
        con.execute("UPDATE agentkit_schema SET version = 4")
    with TranscriptStore(f"sqlite:///{db}") as store:
        assert store.schema_version() == 5
        store.add_turn(episode, image_turn(1, new_image))
        assert store.get_blob(old_image.sha256).data == old_image.data
        assert store.get_blob(new_image.sha256).data == new_image.data
    assert {(r[0], r[2] is None) for r in blob_rows(db)} == {
        (old_image.sha256, True),
        (new_image.sha256, False),
    }


def test_inline_images_makes_a_single_file_database(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    images = [frame(i) for i in range(3)]
    episode = write_episode(db, images)
    done = subprocess.run(
        [sys.executable, "-m", "agentkit.cli", "db", "inline-images", "--db", f"sqlite:///{db}", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert '"moved": 3' in done.stdout and '"missing": 0' in done.stdout
    shutil.rmtree(folder_beside(db))
    assert all(r[2] is None and r[1] > 0 for r in blob_rows(db))
    with open_readonly(f"sqlite:///{db}") as reader:
        urls = [
            t.messages[1]["content"][1]["image_url"]["url"]
            for t in reader.get_turns(episode, images="data_url")
        ]
    assert urls == [data_url(i) for i in images]


def test_the_background_checkpoint_flushes_the_packs_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint makes committed rows durable; the pack bytes they name are fsync-ed before it."""
    events: list[tuple[int, str]] = []  # (thread, what): the writer and the checkpoint thread interleave
    real_sync, real_passive = PackWriter.sync, WalCheckpointer._passive

    def sync(self: PackWriter) -> None:
        events.append((threading.get_ident(), "sync"))
        real_sync(self)

    def passive(self: WalCheckpointer, driver: sqlite3.Connection) -> tuple[int, int, int]:
        events.append((threading.get_ident(), "checkpoint"))
        return real_passive(self, driver)

    monkeypatch.setattr(PackWriter, "sync", sync)
    monkeypatch.setattr(WalCheckpointer, "_passive", passive)
    monkeypatch.setattr(wal_checkpointer, "CHECKPOINT_EVERY_BYTES", 1)  # a checkpoint round after every turn
    db = tmp_path / "runs.db"
    with TranscriptStore(f"sqlite:///{db}") as store:
        run = store.create_run("aai-arena", ["t"], "m", {}, {"system.j2": "x"})
        episode = store.start_episode(run, "t", 0)
        for i in range(5):
            store.add_turn(episode, image_turn(i, frame(i)))
        deadline = time.monotonic() + 20
        while not any(e[1] == "checkpoint" for e in events) and time.monotonic() < deadline:
            time.sleep(0.01)
    by_thread: dict[int, list[str]] = {}
    for thread, what in list(events):
        by_thread.setdefault(thread, []).append(what)
    assert any("checkpoint" in seq for seq in by_thread.values())
    for seq in by_thread.values():  # the sync hook runs just before _passive's pragma, on that thread
        assert all(seq[i - 1] == "sync" for i, what in enumerate(seq) if what == "checkpoint")


def test_a_private_read_only_copy_reads_images_from_beside_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On read-only media with a -wal file holding changes, readers open a private copy in a temporary
    folder (agentkit.viewer.readonly); its images are still those beside the original database."""
    from agentkit.viewer import readonly

    db = tmp_path / "runs.db"
    image = frame(4)
    episode = write_episode(db, [image])
    writer = sqlite3.connect(db)  # leave a change in the -wal file, as a live writer would
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE runs SET model = 'changed-in-the-wal'")
    writer.commit()
    monkeypatch.setattr(readonly, "cannot_write_beside", lambda path: True)
    try:
        with open_readonly(f"sqlite:///{db}") as reader:
            with reader.engine.connect() as conn:
                (path,) = [r[2] for r in conn.exec_driver_sql("PRAGMA database_list") if r[1] == "main"]
            assert Path(path).parent != tmp_path  # really a copy elsewhere
            assert reader.list_runs()[0].model == "changed-in-the-wal"
            (turn,) = reader.get_turns(episode, images="data_url")
            assert turn.messages[1]["content"][1]["image_url"]["url"] == data_url(image)
    finally:
        writer.close()
