"""A static, shareable copy of selected episodes: the viewer's own pages as files, images beside them.

Why: a transcript database is big and holds everything; a colleague reviewing three episodes needs
neither. The bundle is plain files (``index.html``, one page per turn, ``images/<sha256>.<ext>``,
``static/``) that open from disk in any browser, with the same pages the live viewer shows, minus
what needs the database (filters, comparisons). Each distinct image is written once. The bundle
is built in a temporary folder next to the target and moved into place at the end, so a failed
export never leaves half a bundle behind under the requested name.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from agentkit.records import EndReason
from agentkit.transcripts import TranscriptReader
from agentkit.transcripts.blob_files import checked_image_file, image_file_name
from agentkit.transcripts.listings import EpisodeSummary
from agentkit.transcripts.records import EpisodeInfo, RunInfo
from agentkit.viewer import pages
from agentkit.viewer.links import ExportLinks, turn_file
from agentkit.viewer.queries import ViewerData, episode_outcome
from agentkit.viewer.server import static_assets

log = logging.getLogger(__name__)

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def _episodes(data: ViewerData, run_ids: Iterable[str], episode_ids: Iterable[str]) -> list[EpisodeInfo]:
    chosen: dict[str, EpisodeInfo] = {}
    for run_id in run_ids:
        data.run(run_id)  # KeyError for an unknown run
        for e in data.all_episodes(run_id):
            chosen.setdefault(e.id, e)
    for episode_id in episode_ids:
        e = data.episode(episode_id)
        chosen.setdefault(e.id, e)
    for e in chosen.values():
        if not _SAFE_ID.fullmatch(e.id):  # ids become folder names: refuse anything unusual
            raise ValueError(f"episode id {e.id!r} cannot be used as a file name")
    return list(chosen.values())


def _row(e: EpisodeInfo, run: RunInfo) -> EpisodeSummary:
    return EpisodeSummary(
        id=e.id,
        run_id=e.run_id,
        env=run.env,
        model=run.model,
        task=e.task,
        seed=e.seed,
        trial=e.trial,
        status=e.status,
        success=e.success,
        reward=e.reward,
        end_reason=e.end_reason,
        turns=e.turns,
        cost_usd=e.cost_usd,
        started_at=e.started_at,
        metrics=e.metrics,
        outcome=episode_outcome(e.status, e.success, e.metrics, e.end_reason, run.config.get("pass_rule")),
    )


def export_bundle(
    store: TranscriptReader,
    out_dir: str | os.PathLike[str],
    run_ids: Iterable[str] = (),
    episode_ids: Iterable[str] = (),
) -> dict[str, int]:
    """Write the bundle of the given runs' and episodes' turns to ``out_dir`` (replaced if it exists).

    Returns counts: episodes, turn pages and image files written.
    """
    data = ViewerData(store)
    episodes = _episodes(data, list(run_ids), list(episode_ids))
    if not episodes:
        raise ValueError("nothing to export: name --run RUN_ID or --episode ID")
    target = Path(out_dir).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        counts = _write(data, episodes, work)
        if target.exists():
            if not (target / "index.html").is_file():
                raise FileExistsError(f"{target} exists and is not an agentkit export; not replacing it")
            shutil.rmtree(target)
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    log.info(
        "exported %d episodes (%d turn pages, %d images) to %s",
        counts["episodes"],
        counts["pages"],
        counts["images"],
        target,
    )
    return counts


def _write(data: ViewerData, episodes: list[EpisodeInfo], root: Path) -> dict[str, int]:
    (root / "static").mkdir()
    for name, content in static_assets().items():
        (root / "static" / name).write_bytes(content)
    media: dict[str, str] = {}
    runs: dict[str, RunInfo] = {}
    n_pages = 0
    for e in episodes:
        runs.setdefault(e.run_id, data.run(e.run_id))
        n = len(data.series(e.id))
        folder = root / "episodes" / e.id
        folder.mkdir(parents=True)
        links = ExportLinks(depth=2)
        for i in range(max(n, 1)):  # an episode without turns still gets its (empty) page
            _, html = pages.episode_page(data, links, e.id, i if n else None, media)
            (root / turn_file(e.id, i)).write_text(html, encoding="utf-8")
            n_pages += 1
    images = root / "images"
    images.mkdir()
    written = 0
    for sha, media_type in sorted(media.items()):
        if image_file_name(sha, media_type) is None:  # hash or type from the database unfit for a name
            checked_image_file(sha, media_type, b"")  # one warning naming the row; nothing written
            continue
        found = data.image(sha)
        if found is None:
            log.warning("image %s is referenced but not stored; the bundle shows it as missing", sha)
            continue
        _, content = found
        # Named as the pages link to it (<sha><ext of the referencing part>), bytes checked against it.
        file_name = checked_image_file(sha, media_type, content)
        if file_name is None:  # a damaged or hostile row, named in one warning: skipped
            continue
        (images / file_name).write_bytes(content)
        written += 1
    groups = []
    for run_id, run in runs.items():
        groups.append((run, [_row(e, run) for e in episodes if e.run_id == run_id]))
    html = pages.render(
        "bundle.html",
        links=ExportLinks(depth=0),
        groups=groups,
        problems=data.run_problems(list(runs)),  # over the whole run, as the live run page counts
        model_error=EndReason.MODEL_ERROR.value,
        episode_count=len(episodes),
        exported_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        title="exported transcripts",
    )
    (root / "index.html").write_text(html, encoding="utf-8")
    return {"episodes": len(episodes), "pages": n_pages, "images": written}
