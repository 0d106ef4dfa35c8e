"""Decode one Animal-AI agent's ML-Agents observations: the camera and the vector (health, velocity, position).

Why our own decoder rather than ``mlagents_envs.rpc_utils``: mlagents-envs 0.28 reads every
picture as height x width x channels and rejects the channels-first pictures of Animal-AI 4.x
builds; reading the protos here handles both generations with one code path, and gives the
frames as uint8 (what the observer wants) instead of floats in [0, 1].

The channel axis is read from the observation's dimension properties when the build sends them
(the one axis that is not translationally equivariant), else from the build generation.
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass

import numpy as np
from PIL import Image

from agentkit.envs.animalai_common.protocol import VECTOR_SIZE

# ML-Agents enums (communicator_objects): compression NONE = 0 / PNG = 1; dimension properties.
_COMPRESSION_NONE = 0
_DIM_NONE = 1
_DIM_TRANSLATIONAL = 2


class ObservationError(ValueError):
    """The build sent observations that are not Animal-AI's camera + vector."""


@dataclass(frozen=True)
class AgentObservation:
    """One agent's observation after a step: camera H x W x 3 uint8 (None without a camera)."""

    camera: np.ndarray | None
    health: float
    velocity: tuple[float, float, float]  # agent frame: right, up, forward (units per second)
    position: tuple[float, float, float]  # arena axes x, y (up), z
    reward: float  # since the previous decision
    done: bool
    max_step_reached: bool


def decode_agent(info, channels_first: bool) -> AgentObservation:
    """An ``AgentInfoProto`` as an ``AgentObservation``; ``channels_first`` is the generation's default layout."""
    camera = None
    vector = None
    for obs in info.observations:
        shape = tuple(obs.shape)
        if len(shape) == 3 and camera is None:
            camera = decode_picture(obs, channels_first)
        elif len(shape) == 1 and shape[0] == VECTOR_SIZE and vector is None:
            vector = np.asarray(obs.float_data.data, dtype=np.float64)
    if vector is None or vector.shape != (VECTOR_SIZE,):
        shapes = [tuple(o.shape) for o in info.observations]
        raise ObservationError(
            f"no Animal-AI vector observation of {VECTOR_SIZE} floats among observations {shapes}"
        )
    return AgentObservation(
        camera=camera,
        health=float(vector[0]),
        velocity=(float(vector[1]), float(vector[2]), float(vector[3])),
        position=(float(vector[4]), float(vector[5]), float(vector[6])),
        reward=float(info.reward),
        done=bool(info.done),
        max_step_reached=bool(info.max_step_reached),
    )


def channel_axis(obs, channels_first: bool) -> int:
    """0 or 2: where the channels are in ``obs.shape``."""
    props = list(obs.dimension_properties)
    if len(props) == 3 and props.count(_DIM_TRANSLATIONAL) == 2 and props.count(_DIM_NONE) == 1:
        axis = props.index(_DIM_NONE)
        if axis in (0, 2):
            return axis
    return 0 if channels_first else 2


def decode_picture(obs, channels_first: bool) -> np.ndarray:
    """A visual ``ObservationProto`` (PNG-compressed or raw floats, either layout) as H x W x 3 uint8."""
    shape = tuple(obs.shape)
    axis = channel_axis(obs, channels_first)
    channels = shape[axis]
    height, width = (shape[1], shape[2]) if axis == 0 else (shape[0], shape[1])
    if obs.compression_type == _COMPRESSION_NONE:
        data = np.asarray(obs.float_data.data, dtype=np.float32)
        if data.size != height * width * channels:
            raise ObservationError(f"camera of shape {list(shape)} carries {data.size} values")
        pixels = data.reshape(shape)
        if axis == 0:
            pixels = pixels.transpose(1, 2, 0)
        frame = np.clip(np.rint(pixels * 255.0), 0, 255).astype(np.uint8)
    else:
        # A picture of more than 3 channels is several concatenated PNGs; Animal-AI's camera is one.
        decoded = unfiltered_png(obs.compressed_data)
        if decoded is None:
            with Image.open(io.BytesIO(obs.compressed_data)) as image:
                decoded = np.asarray(image.convert("RGB") if image.mode not in ("RGB", "L") else image)
        frame = decoded
        if frame.ndim == 2:
            frame = frame[:, :, None]
        if frame.shape[:2] != (height, width):
            raise ObservationError(
                f"camera PNG is {frame.shape[1]}x{frame.shape[0]} but the observation "
                f"shape {list(shape)} says {width}x{height}"
            )
        frame = frame[:, :, :channels]
    if frame.shape[2] == 1:
        frame = np.repeat(frame, 3, axis=2)
    if frame.shape[2] != 3:
        raise ObservationError(f"camera has {frame.shape[2]} channels; Animal-AI's camera has 1 or 3")
    return np.ascontiguousarray(frame)


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_HEADER = struct.Struct(">IIBBBBB")


def unfiltered_png(data: bytes) -> np.ndarray | None:
    """An 8-bit RGB PNG whose rows are all stored unfiltered (as ``agentkit-arena`` writes them),
    decoded with zlib alone; None for any other PNG, which PIL then reads. Why: at 84 px PIL's
    general path (open, load, convert to an array) costs several times the inflate itself."""
    if not data.startswith(_PNG_SIGNATURE):
        return None
    pos, header, idat = 8, None, []
    try:
        while pos + 8 <= len(data):
            size, kind = struct.unpack_from(">I4s", data, pos)
            chunk = data[pos + 8 : pos + 8 + size]
            pos += 12 + size
            if kind == b"IHDR":
                header = _PNG_HEADER.unpack(chunk)
            elif kind == b"IDAT":
                idat.append(chunk)
            elif kind == b"IEND":
                break
        if header is None:
            return None
        width, height, depth, color, _, _, interlace = header
        if depth != 8 or color != 2 or interlace != 0:
            return None
        raw = zlib.decompress(b"".join(idat))
    except (struct.error, zlib.error):
        return None
    if len(raw) != height * (width * 3 + 1):
        return None
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(height, width * 3 + 1)
    if rows[:, 0].any():  # some row uses a PNG filter: leave it to PIL
        return None
    return rows[:, 1:].reshape(height, width, 3)
