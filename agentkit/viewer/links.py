"""Where a page's links point: the live server's routes, or files of a static export.

Why one interface for both: the same templates render the live viewer and the shareable bundle,
so what a researcher sees in a bundle is what the server shows; only the addresses differ
(absolute routes with query strings live, relative file names in a bundle).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from agentkit.transcripts.blob_files import image_file_name

# Where a bundle's link to an image that cannot be exported (bad hash or media type) points.
MISSING_IMAGE = "#missing-image"


def _query(params: dict[str, Any]) -> str:
    kept = {k: v for k, v in params.items() if v not in (None, "")}
    return f"?{urlencode(kept)}" if kept else ""


class LiveLinks:
    """Routes of the viewer's HTTP server."""

    live = True

    def index(self, **filters: Any) -> str:
        return "/" + _query(filters)

    def run(self, run_id: str, **params: Any) -> str:
        return f"/runs/{quote(run_id, safe='')}" + _query(params)

    def episode(self, episode_id: str, turn: int | None = None) -> str:
        return f"/episodes/{quote(episode_id, safe='')}" + _query({"turn": turn})

    def blob(self, sha256: str, media_type: str = "") -> str:
        return f"/blob/{sha256}"

    def episode_gif(self, episode_id: str) -> str | None:
        return f"/episodes/{quote(episode_id, safe='')}/frames.gif"

    def static(self, name: str) -> str:
        return f"/static/{name}"

    def compare(self, run_a: str, run_b: str) -> str | None:
        return "/compare" + _query({"a": run_a, "b": run_b})

    def diverge(self, episode_a: str, episode_b: str) -> str | None:
        return "/diverge" + _query({"a": episode_a, "b": episode_b})


class ExportLinks:
    """File names inside a static bundle, relative to a page ``depth`` folders below its root.

    Layout: ``index.html``, ``episodes/<id>/turn-00000.html``, ``images/<sha256>.<ext>``,
    ``static/<asset>``. Comparison pages need the database, so bundles have none.
    """

    live = False

    def __init__(self, depth: int = 0) -> None:
        self.root = "../" * depth

    def index(self, **filters: Any) -> str:
        return f"{self.root}index.html"

    def run(self, run_id: str, **params: Any) -> str:
        return f"{self.root}index.html#run-{run_id}"

    def episode(self, episode_id: str, turn: int | None = None) -> str:
        return f"{self.root}{turn_file(episode_id, turn or 0)}"

    def blob(self, sha256: str, media_type: str = "") -> str:
        name = image_file_name(sha256, media_type)  # None for values not fit for a file name
        return f"{self.root}images/{name}" if name else MISSING_IMAGE

    def static(self, name: str) -> str:
        return f"{self.root}static/{name}"

    def episode_gif(self, episode_id: str) -> str | None:
        return None  # made on request by the live viewer (or `agentkit view --export-gif`), not bundled

    def compare(self, run_a: str, run_b: str) -> str | None:
        return None

    def diverge(self, episode_a: str, episode_b: str) -> str | None:
        return None


def turn_file(episode_id: str, turn: int) -> str:
    """A turn page's path inside a bundle (ids are checked to be plain before they get here)."""
    return f"episodes/{episode_id}/turn-{turn:05d}.html"
