"""Export transcripts as JSON Lines, one object per turn, for analysis outside agentkit.

Each line carries the run and episode fields it belongs to, so a single file can be loaded into a
data frame or grepped without joins. Message images are either written once as files next to the
export (small JSONL, images viewable directly) or inlined as data URLs (one self-contained file).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from agentkit.transcripts.blob_files import checked_image_file, is_sha256, shown
from agentkit.transcripts.db import json_default
from agentkit.transcripts.reader import TranscriptReader
from agentkit.transcripts.records import EpisodeInfo, RunInfo, TurnInfo
from agentkit.transcripts.tables import episode_row

log = logging.getLogger(__name__)

ImageExport = Literal["files", "data_url"]


def export_jsonl(
    store: TranscriptReader,
    episode_ids_or_run_id: str | Iterable[str],
    out_path: str | os.PathLike[str],
    images: ImageExport = "files",
    image_dir: str | os.PathLike[str] | None = None,
) -> int:
    """Write the turns of a run (given its id) or of the given episodes to ``out_path``.

    ``images="files"``: each distinct image is written once to ``image_dir`` (default: a folder
    ``<out stem>_images`` next to the output) as ``<sha256>.<ext>``, and message parts become
    ``{"type": "image_file", "path": <relative to the output's folder>, "sha256", "media_type"}``;
    observation image entries get the same ``path``. ``images="data_url"``: message images are
    inlined as the data URLs that were sent. Returns the number of lines written.
    """
    if images not in ("files", "data_url"):
        raise ValueError(f"images must be 'files' or 'data_url', not {images!r}")
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    episodes = _resolve_episodes(store, episode_ids_or_run_id)
    writer = _ImageFiles(store, out, Path(image_dir) if image_dir else None) if images == "files" else None
    runs: dict[str, RunInfo] = {}
    tmp = out.with_name(out.name + ".partial")
    lines = 0
    with tmp.open("w", encoding="utf-8") as f:
        for episode in episodes:
            run = runs.get(episode.run_id) or runs.setdefault(episode.run_id, store.get_run(episode.run_id))
            turns = store.get_turns(episode.id, images="ref" if writer else "data_url")
            context = store.get_prompt_context(episode.id)
            for turn in turns:
                record = _line(run, episode, turn, writer)
                if turn.index == 0 and context is not None:  # the episode's prompt variables, once
                    record["prompt_context"] = context
                f.write(json.dumps(record, ensure_ascii=False, default=json_default))
                f.write("\n")
                lines += 1
    os.replace(tmp, out)  # readers never see a half-written export
    log.info("exported %d turns of %d episode(s) to %s", lines, len(episodes), out)
    return lines


def _resolve_episodes(store: TranscriptReader, ids: str | Iterable[str]) -> list[EpisodeInfo]:
    if isinstance(ids, str):
        try:
            store.get_run(ids)
        except KeyError:
            return [store.get_episode(ids)]
        return store.list_episodes(run_id=ids)
    return [store.get_episode(i) for i in ids]


def _line(run: RunInfo, episode: EpisodeInfo, turn: TurnInfo, writer: _ImageFiles | None) -> dict[str, Any]:
    data = turn.to_json()
    data.pop("episode_id")
    if writer is not None:
        data["messages"] = [writer.message(m) for m in data["messages"] or []]
        data["observation"] = writer.observation(data["observation"])
    return {
        "run_id": run.id,
        "env": run.env,
        "model": run.model,
        "agentkit_version": run.agentkit_version,
        "templates_hash": run.templates_hash,
        "episode_id": episode.id,
        "task": episode.task,
        "seed": episode.seed,
        "trial": episode.trial,
        "episode_status": episode.status,
        "episode_success": episode.success,
        # the verdict every command counts (the backend's pass mark, else its success) and its level/category
        "pass": episode_row(run, episode)["pass"],
        "level": (episode.metrics or {}).get("level"),
        "category": (episode.metrics or {}).get("category"),
        "episode_reward": episode.reward,
        "episode_end_reason": episode.end_reason,
        **data,
    }


class _ImageFiles:
    """Writes each image blob once and rewrites references to relative file paths."""

    def __init__(self, store: TranscriptReader, out: Path, image_dir: Path | None) -> None:
        self.store = store
        self.base = out.parent
        self.dir = image_dir if image_dir is not None else out.parent / f"{out.stem}_images"
        self.paths: dict[str, str | None] = {}

    def path(self, sha256: object) -> str | None:
        """Relative path of the image file (written on first use); None if the blob is absent or refused.

        The hash, media type and bytes come from the database and are checked before any file is
        named after them (``blob_files``): a hostile row is skipped with one warning.
        """
        if not isinstance(sha256, str):
            log.warning("skipping an image reference whose hash is %s, not a string", shown(sha256))
            return None
        if sha256 not in self.paths:
            self.paths[sha256] = self._write(sha256)
        return self.paths[sha256]

    def _write(self, sha256: str) -> str | None:
        if not is_sha256(sha256):
            checked_image_file(sha256, None, b"")  # the warning naming the row
            return None
        try:
            blob = self.store.get_blob(sha256)
        except KeyError:
            return None
        name = checked_image_file(blob.sha256, blob.media_type, blob.data)
        if name is None:
            return None
        self.dir.mkdir(parents=True, exist_ok=True)
        target = self.dir / name
        if not target.exists():
            target.write_bytes(blob.data)
        return Path(os.path.relpath(target, self.base)).as_posix()

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        content = message.get("content")
        if not isinstance(content, list):
            return message
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_ref":
                part = {**part, "type": "image_file", "path": self.path(part.get("sha256"))}
            parts.append(part)
        return {**message, "content": parts}

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        entries = observation.get("images") if isinstance(observation, dict) else None
        if not entries:
            return observation
        images = []
        for entry in entries:
            sha = entry.get("sha256") if isinstance(entry, dict) else None
            path = self.path(sha) if sha else None
            images.append({**entry, "path": path} if path else entry)
        return {**observation, "images": images}
