"""The stand-in's per-step message and camera picture, encoded by hand.

Why by hand: protobuf 3.20 (the version mlagents-envs 0.28 needs) has no compiled runtime for
Python 3.11, and its pure-Python one spends about a millisecond building and serialising the
one message the stand-in sends every step, as long as the arena's physics and camera together.
The message has a fixed shape, so it is written straight in protobuf's wire format (varint keys,
length-delimited sub-messages; proto3 packs repeated numbers); the tests read every byte back
with the generated classes on the Python side. Likewise the PNG: one IDAT of unfiltered rows.

Field numbers are those of ML-Agents' ``communicator_objects`` (communication API 1.5.0).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

import numpy as np

_LEN, _VARINT, _FIXED32 = 2, 0, 5
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def varint(value: int) -> bytes:
    """A non-negative integer as a protobuf varint."""
    if value < 0:
        raise ValueError("only non-negative varints are written here")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def field_bytes(number: int, payload: bytes) -> bytes:
    """A length-delimited field (bytes, string, sub-message or packed numbers)."""
    return _key(number, _LEN) + varint(len(payload)) + payload


def field_varint(number: int, value: int) -> bytes:
    """An int/bool/enum field; proto3 leaves zeros out."""
    return _key(number, _VARINT) + varint(int(value)) if value else b""


def field_float(number: int, value: float) -> bytes:
    return _key(number, _FIXED32) + struct.pack("<f", value) if value else b""


def packed_varints(number: int, values: Iterable[int]) -> bytes:
    return field_bytes(number, b"".join(varint(v) for v in values))


def observation(
    shape: Iterable[int],
    dimension_properties: Iterable[int],
    name: str,
    *,
    png: bytes | None = None,
    floats: Iterable[float] | None = None,
) -> bytes:
    """An ``ObservationProto``: PNG-compressed (``png``) or raw (``floats``)."""
    out = packed_varints(1, shape)
    if png is not None:
        out += field_varint(2, 1) + field_bytes(3, png)  # compression_type PNG, compressed_data
    if floats is not None:
        values = list(floats)
        out += field_bytes(4, field_bytes(1, struct.pack(f"<{len(values)}f", *values)))  # float_data.data
    return out + packed_varints(6, dimension_properties) + field_bytes(8, name.encode("utf-8"))


def png_observation_parts(
    shape: Iterable[int], dimension_properties: Iterable[int], name: str
) -> tuple[bytes, bytes]:
    """The bytes of a PNG ``ObservationProto`` before and after its ``compressed_data`` field (3):
    ``before + field_bytes(3, png) + after`` equals ``observation(shape, dims, name, png=png)``."""
    return (
        packed_varints(1, shape) + field_varint(2, 1),
        packed_varints(6, dimension_properties) + field_bytes(8, name.encode("utf-8")),
    )


def agent_info(
    reward: float, done: bool, max_step_reached: bool, agent_id: int, observations: Iterable[bytes]
) -> bytes:
    """An ``AgentInfoProto`` from encoded observations."""
    out = (
        field_float(7, reward)
        + field_varint(8, done)
        + field_varint(9, max_step_reached)
        + field_varint(10, agent_id)
    )
    return out + b"".join(field_bytes(13, obs) for obs in observations)


def unity_message(
    behavior: str, agent: bytes, side_channel: bytes = b"", initialization: bytes = b"", status: int = 200
) -> bytes:
    """A ``UnityMessageProto`` carrying one agent's info (and, once, the serialised
    ``UnityRLInitializationOutputProto`` announcing the behaviour)."""
    entry = field_bytes(1, behavior.encode("utf-8")) + field_bytes(
        2, field_bytes(1, agent)
    )  # map entry -> list
    rl_output = field_bytes(2, entry) + (field_bytes(3, side_channel) if side_channel else b"")
    output = field_bytes(1, rl_output) + (field_bytes(2, initialization) if initialization else b"")
    return field_bytes(1, field_varint(1, status)) + field_bytes(2, output)


def png(frame: np.ndarray) -> bytes:
    """An H x W x 3 uint8 frame as a PNG (8-bit RGB, filter 0 on every row, fast deflate)."""
    height, width, channels = frame.shape
    if channels != 3 or frame.dtype != np.uint8:
        raise ValueError(f"png() takes H x W x 3 uint8 frames, got {frame.shape} {frame.dtype}")
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # a leading 0 per row: no filter
    rows[:, 1:] = frame.reshape(height, width * 3)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 1))
        + _chunk(b"IEND", b"")
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )
