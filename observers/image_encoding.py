"""Frames (HxWx3 uint8) into prompt-ready images: downscaled, encoded, content-addressed.

JPEG goes through simplejpeg (libjpeg-turbo): a 512x512 frame takes about a millisecond, which
matters because every turn of every episode encodes at least one. PNG (lossless, for crisp
gridworld tiles or diffing) uses Pillow at a low compression level, trading bytes for speed.
"""

from __future__ import annotations

import hashlib
import io
from typing import Literal

import numpy as np
import simplejpeg
from PIL import Image

from agentkit.observers.observation import EncodedImage

ImageFormat = Literal["jpeg", "png"]
PNG_COMPRESS_LEVEL = 1


def _downscale(array: np.ndarray, max_side: int) -> np.ndarray:
    height, width = array.shape[:2]
    longest = max(height, width)
    if longest <= max_side:
        return array
    scale = max_side / longest
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    # reducing_gap=1 lets Pillow box-reduce by the integer part of the factor first, then resample
    # the rest: several times faster than a full bilinear pass for 2x and larger, and as smooth.
    image = Image.fromarray(array).resize(size, Image.Resampling.BILINEAR, reducing_gap=1.0)
    return np.asarray(image)


def encode_image(
    array: np.ndarray,
    label: str,
    fmt: ImageFormat = "jpeg",
    max_side: int = 512,
    quality: int = 85,
) -> EncodedImage:
    """Encode an RGB frame; the longer side is cut to ``max_side`` keeping the aspect ratio."""
    if array.ndim != 3 or array.shape[2] != 3:
        raise ValueError(f"expected an HxWx3 RGB frame, got shape {array.shape}")
    if max_side < 1:
        raise ValueError(f"max_side must be positive, got {max_side}")
    frame = np.ascontiguousarray(_downscale(np.asarray(array, dtype=np.uint8), max_side))
    if fmt == "jpeg":
        data = simplejpeg.encode_jpeg(frame, quality=quality, colorspace="RGB")
        media_type = "image/jpeg"
    elif fmt == "png":
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
        data = buffer.getvalue()
        media_type = "image/png"
    else:
        raise ValueError(f"image format must be 'jpeg' or 'png', got {fmt!r}")
    return EncodedImage(
        label=label,
        media_type=media_type,
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
        width=int(frame.shape[1]),
        height=int(frame.shape[0]),
    )
