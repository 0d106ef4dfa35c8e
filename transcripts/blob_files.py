"""File names for exported image blobs, built only from database values that pass strict checks.

Why: transcript databases are shared, so everything read from one is untrusted. A blob hash such
as ``../../../../tmp/x/OUTSIDE`` (or an absolute path), or a media type that ``mimetypes`` maps to
an odd extension, used as part of a file name would let a crafted database make an export write
its bytes anywhere the exporting user can. Exports therefore never use a stored string as a path:
a file name is ``<lowercase hex sha256><extension>``, the extension taken from a fixed allow-list
of image types, and the bytes must hash to the name. A row that fails gets one warning naming it
and is skipped; the rest of the export goes on.
"""

from __future__ import annotations

import hashlib
import logging
import re

log = logging.getLogger(__name__)

SHA256_HEX = re.compile(r"[0-9a-f]{64}")

# The image types a transcript stores (observers write PNG or JPEG; models may echo the others).
IMAGE_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/gif": ".gif"}

_SHOWN = 80  # characters of an untrusted value quoted in a warning


def shown(value: object) -> str:
    """``repr`` of an untrusted value, cut short so a hostile row cannot flood the log."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "...'"


def is_sha256(value: object) -> bool:
    """Whether ``value`` is a SHA-256 as the store writes it: 64 lowercase hex digits."""
    return isinstance(value, str) and SHA256_HEX.fullmatch(value) is not None


def image_file_name(sha256: object, media_type: object) -> str | None:
    """``<sha256><ext>`` for a valid hash and an allowed image type; None otherwise (no warning)."""
    if not is_sha256(sha256) or not isinstance(media_type, str) or media_type not in IMAGE_EXTENSIONS:
        return None
    return f"{sha256}{IMAGE_EXTENSIONS[media_type]}"


def checked_image_file(sha256: object, media_type: object, data: bytes) -> str | None:
    """The file name to write ``data`` under, or None after one warning naming the refused row."""
    if not is_sha256(sha256):
        log.warning("skipping image blob %s: its hash is not 64 lowercase hex digits", shown(sha256))
        return None
    if not isinstance(media_type, str) or media_type not in IMAGE_EXTENSIONS:
        log.warning(
            "skipping image blob %s: media type %s is not one of %s",
            sha256,
            shown(media_type),
            ", ".join(IMAGE_EXTENSIONS),
        )
        return None
    if hashlib.sha256(data).hexdigest() != sha256:
        log.warning("skipping image blob %s: its bytes do not match its hash", sha256)
        return None
    return f"{sha256}{IMAGE_EXTENSIONS[media_type]}"
