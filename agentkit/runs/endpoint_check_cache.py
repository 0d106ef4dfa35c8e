"""Where the endpoint check keeps what it found, so a healthy endpoint is asked once a day, not every run.

Why a file in the user's cache folder and not a table in the run's store: the check runs before
any database is opened (a refused run leaves none behind, as the other preflight checks do), and
an endpoint is the same whichever database the next run writes to. The file is
``$AGENTKIT_CACHE_DIR/endpoint-checks.json`` (else ``$XDG_CACHE_HOME/agentkit/``, else
``~/.cache/agentkit/``), one entry per (API base, model, fingerprint of what the server runs),
kept ``MAX_AGE_S``. A file that cannot be read or written is ignored with one warning: the check
then simply runs again.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path

from agentkit.models.endpoint_probe import EndpointReport

logger = logging.getLogger(__name__)

FILE_NAME = "endpoint-checks.json"
MAX_AGE_S = 24 * 3600.0  # a server is restarted with other settings at times; a day-old answer is re-asked
MAX_ENTRIES = 200  # the oldest go first; each is a few hundred bytes


def cache_path() -> Path:
    """The cache file: under $AGENTKIT_CACHE_DIR, $XDG_CACHE_HOME/agentkit or ~/.cache/agentkit."""
    folder = os.environ.get("AGENTKIT_CACHE_DIR")
    if folder:
        return Path(folder) / FILE_NAME
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "agentkit" / FILE_NAME


def cache_key(api_base: str | None, model: str, fingerprint: str) -> str:
    return json.dumps([api_base or "", model, fingerprint])


def cached_report(key: str, path: Path | None = None, now: float | None = None) -> EndpointReport | None:
    """The report stored under ``key`` within ``MAX_AGE_S``, or None."""
    entry = _read(path or cache_path()).get(key)
    now = time.time() if now is None else now
    if not isinstance(entry, dict) or not isinstance(entry.get("checked_at"), (int, float)):
        return None
    if not 0 <= now - entry["checked_at"] <= MAX_AGE_S:
        return None
    try:
        return EndpointReport.from_json(entry.get("report"))
    except (ValueError, TypeError) as exc:
        logger.warning(
            "%s: an endpoint entry is not a report (%s); checking again", path or cache_path(), exc
        )
        return None


def store_report(key: str, report: EndpointReport, path: Path | None = None) -> None:
    """Keep ``report`` under ``key`` (the file written whole, then moved into place)."""
    path = path or cache_path()
    entries = _read(path)
    entries[key] = {"checked_at": time.time(), "report": report.to_json()}
    if len(entries) > MAX_ENTRIES:
        ordered = sorted(entries.items(), key=lambda kv: _checked_at(kv[1]))
        entries = dict(ordered[-MAX_ENTRIES:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".endpoint-", delete=False) as tmp:
            json.dump(entries, tmp)
        os.replace(tmp.name, path)
    except OSError as exc:
        logger.warning(
            "cannot write the endpoint check's cache %s (%s); the next run checks again", path, exc
        )


def _checked_at(entry: object) -> float:
    value = entry.get("checked_at") if isinstance(entry, dict) else None
    return float(value) if isinstance(value, (int, float)) else 0.0


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as exc:
        logger.warning("the endpoint check's cache %s cannot be read (%s); checking again", path, exc)
        return {}
    if not isinstance(data, dict):
        logger.warning("the endpoint check's cache %s is not a JSON object; checking again", path)
        return {}
    return data
