"""What both ends of the ML-Agents link agree on for Animal-AI: ids, versions and the two build generations.

Why one module: the connector (Python, the gRPC server) and the ``agentkit-arena`` stand-in (the
Unity side, the gRPC client) must spell these identically, and the differences between Animal-AI
3.x and 4.x builds are facts about builds, not about either end.

* Animal-AI 3.x builds (the LLM-AAI paper used 3.1.3) ship the ML-Agents Unity package 2.x and talk
  to ``mlagents-envs`` 0.28: camera observations are height x width x channels, and the arena YAML
  goes over the side channel as its text.
* Animal-AI 4.x builds ship the ML-Agents Unity package 3.x (``mlagents-envs`` 1.1 on the Python
  side): camera observations are channels x height x width, and the side channel carries the path
  of the YAML file, which the build reads itself.

Both speak communication API 1.5.0; the Unity package version in the handshake tells them apart.

Side channels are framed as ML-Agents frames them: per message, the channel's UUID (16 bytes,
little-endian field order), a little-endian int32 length, then the payload.
"""

from __future__ import annotations

import enum
import struct
import uuid
from dataclasses import dataclass

COMMUNICATION_VERSION = "1.5.0"
#: The Unity package versions the two generations report in the handshake.
PACKAGE_VERSION_3X = "2.2.1-exp.1"
PACKAGE_VERSION_4X = "3.0.0"
#: Animal-AI's behaviour (ML-Agents appends the team id).
BEHAVIOR_NAME = "AnimalAI?team=0"
BRANCHES = (3, 3)  # branch 0: none/forward/backward; branch 1: none/right/left
#: The vector observation: health, velocity (right, up, forward), position (x, y, z).
VECTOR_SIZE = 7

#: Animal-AI's raw-bytes channel for arena configurations.
ARENA_CHANNEL = uuid.UUID("9c36c837-cad5-498a-b675-bc19c9370072")
#: ML-Agents' engine configuration channel (resolution, quality, time scale, frame rates).
ENGINE_CHANNEL = uuid.UUID("e951342c-4f7e-11ea-b238-784f4387d1f7")
#: ML-Agents' training analytics channel (Python announces itself once; Unity only logs it).
ANALYTICS_CHANNEL = uuid.UUID("b664a4a9-d86f-5a5f-95cb-e8353a7e8356")
#: agentkit's own channel, spoken only by the ``agentkit-arena`` stand-in: per-episode seeds from
#: Python, and per-step episode facts back (the privileged state, why the episode ended).
EPISODE_CHANNEL = uuid.uuid5(uuid.NAMESPACE_URL, "https://agentkit/animalai/episode-channel")


class Generation(enum.IntEnum):
    """An Animal-AI build generation, by the major version of Animal-AI."""

    V3 = 3
    V4 = 4


@dataclass(frozen=True)
class GenerationTraits:
    channels_first: bool  # camera as C x H x W (else H x W x C)
    yaml_as_path: bool  # the arena channel carries a file path (else the YAML text)
    package_version: str


TRAITS: dict[Generation, GenerationTraits] = {
    Generation.V3: GenerationTraits(
        channels_first=False, yaml_as_path=False, package_version=PACKAGE_VERSION_3X
    ),
    Generation.V4: GenerationTraits(
        channels_first=True, yaml_as_path=True, package_version=PACKAGE_VERSION_4X
    ),
}


def generation_from_handshake(package_version: str, communication_version: str) -> Generation:
    """The build generation from the versions a build reports; ``ValueError`` for one we cannot talk to."""
    com_major = _major(communication_version, "communication version")
    if com_major != 1:
        raise ValueError(
            f"Animal-AI build speaks ML-Agents communication API {communication_version}; "
            f"agentkit speaks {COMMUNICATION_VERSION}"
        )
    return Generation.V4 if _major(package_version, "package version") >= 3 else Generation.V3


def _major(version: str, what: str) -> int:
    head = version.strip().split(".", 1)[0]
    if not head.isdigit():
        raise ValueError(f"Animal-AI build reported an unreadable {what}: {version!r}")
    return int(head)


def pack_side_channels(messages: list[tuple[uuid.UUID, bytes]]) -> bytes:
    """Frame (channel, payload) pairs into one side-channel blob."""
    out = bytearray()
    for channel, payload in messages:
        out += channel.bytes_le
        out += struct.pack("<i", len(payload))
        out += payload
    return bytes(out)


def unpack_side_channels(data: bytes) -> list[tuple[uuid.UUID, bytes]]:
    """Split a side-channel blob into (channel, payload) pairs; ``ValueError`` when it is truncated."""
    messages = []
    offset = 0
    while offset < len(data):
        if offset + 20 > len(data):
            raise ValueError(f"side-channel data truncated at byte {offset} of {len(data)}")
        channel = uuid.UUID(bytes_le=bytes(data[offset : offset + 16]))
        (length,) = struct.unpack_from("<i", data, offset + 16)
        offset += 20
        if length < 0 or offset + length > len(data):
            raise ValueError(f"side-channel message of {length} bytes overruns the data ({len(data)} bytes)")
        messages.append((channel, bytes(data[offset : offset + length])))
        offset += length
    return messages
