"""An episode's frames as one animated GIF: one picture per turn, numbered as the prompts number turns.

Why a GIF: a talk, a paper's supplement or a chat with a colleague takes an animation where it
takes no web page and no database, and Pillow (already installed for the observers) writes GIFs.
The frames are the images the model was sent before each turn (the stored blobs, nothing is
rendered again); a turn with several cameras shows them side by side. Served by the viewer at
``/episodes/<id>/frames.gif`` and written by ``agentkit view --export-gif FILE --episode ID``.
"""

from __future__ import annotations

import io
import logging
from typing import Any

from PIL import Image, ImageDraw, ImageFont, UnidentifiedImageError

from agentkit.viewer.episode_parts import turn_number

log = logging.getLogger(__name__)

MS_PER_TURN = 600  # each turn's picture stays this long: slow enough to read its number
MAX_PICTURES = 600  # longer episodes are sampled evenly (a GIF of thousands of frames helps nobody)
MAX_SIDE = 480  # a picture's longer side, in pixels, after scaling (frames are 84-512 px)
MAX_CAMERAS = 4
_BAND = 18  # the strip under each picture with its turn number


class NoFrames(ValueError):
    """The episode sent no images (a ``--no-images`` run, the reference agent): there is nothing to animate."""


def _picture(blobs: list[bytes]) -> Image.Image | None:
    """The turn's frames decoded and set side by side, or None when none decodes."""
    images = []
    for data in blobs[:MAX_CAMERAS]:
        try:
            with Image.open(io.BytesIO(data)) as image:
                images.append(image.convert("RGB"))
        except (UnidentifiedImageError, OSError, ValueError) as exc:  # a damaged blob: left out
            log.warning("a stored frame could not be decoded for the GIF: %s", exc)
    if not images:
        return None
    height = max(i.height for i in images)
    width = sum(i.width for i in images)
    picture = Image.new("RGB", (width, height))
    x = 0
    for image in images:
        picture.paste(image, (x, 0))
        x += image.width
    scale = min(1.0, MAX_SIDE / max(width, height)) if max(width, height) > MAX_SIDE else 1.0
    if max(width, height) < 200:  # an 84-pixel camera is unreadable at 1:1: enlarge, pixels kept sharp
        scale = 200 / max(width, height)
    if scale != 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        picture = picture.resize(size, Image.Resampling.NEAREST)
    return picture


def episode_gif(data: Any, episode_id: str, ms_per_turn: int = MS_PER_TURN) -> bytes:
    """The GIF of ``episode_id`` (``data`` is a ``ViewerData``); NoFrames when it has no images.

    KeyError (from the store) for an unknown episode."""
    data.episode(episode_id)  # KeyError for an unknown episode
    points = [p for p in data.series(episode_id) if p.frames]
    total = len(data.series(episode_id))
    if not points:
        raise NoFrames(f"episode {episode_id} sent no images (text only, or the reference agent): no GIF")
    if len(points) > MAX_PICTURES:
        step = len(points) / MAX_PICTURES
        points = [points[int(i * step)] for i in range(MAX_PICTURES)]
    pictures = []
    for p in points:
        blobs = [found[1] for f in p.frames if (found := data.image(f.sha256)) is not None]
        picture = _picture(blobs)
        if picture is None:
            continue
        framed = Image.new("RGB", (picture.width, picture.height + _BAND), (29, 37, 51))
        framed.paste(picture, (0, 0))
        ImageDraw.Draw(framed).text(
            (4, picture.height + 3),
            f"turn {turn_number(p.index)} of {total}",
            fill=(232, 235, 240),
            font=ImageFont.load_default(),
        )
        pictures.append(framed)
    if not pictures:
        raise NoFrames(f"episode {episode_id}: none of its stored frames could be decoded")
    size = pictures[0].size
    pictures = [p if p.size == size else p.resize(size, Image.Resampling.NEAREST) for p in pictures]
    out = io.BytesIO()
    pictures[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=pictures[1:],
        duration=max(20, ms_per_turn),
        loop=0,
        optimize=False,
    )
    return out.getvalue()
