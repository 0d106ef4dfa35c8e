"""Read the per-step ML-Agents messages straight from protobuf's wire format.

Why: on Python 3.11, protobuf 3.20 (the version mlagents-envs needs) parses and builds messages in
pure Python, and each step's two messages then cost more CPU than the arena's physics and camera
together (nested message objects, listeners, per-field type checks). Both ends of the link read
only a few fields of one fixed message shape each step, so they read them here, into plain
slotted objects with the generated classes' field names; anything else (the handshake, a message
that carries the behaviour's parameters, one that does not parse) goes to the generated classes
as before. Unknown fields are skipped, as protobuf does, and repeated numbers are accepted both
packed and unpacked, so a real Unity build's messages read the same.

Field numbers are ML-Agents' ``communicator_objects`` (communication API 1.5.0); the tests compare
every object read here with what the generated classes read from the same bytes.
"""

from __future__ import annotations

import struct
from typing import Any

from agentkit.envs.animalai_common import wire

_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5
_FLOAT = struct.Struct("<f")


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        try:
            byte = buf[pos]
        except IndexError:
            raise WireError("message ends inside a varint") from None
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError("varint longer than 10 bytes")


def fields(buf: bytes) -> list[tuple[int, int, Any]]:
    """Every field of one message as (number, wire type, value): an int for varints, bytes for
    length-delimited fields and fixed32/fixed64 (raw, little-endian)."""
    out: list[tuple[int, int, Any]] = []
    pos, end = 0, len(buf)
    value: int | bytes
    while pos < end:
        key = buf[pos]  # one-byte keys and lengths are the rule: read them inline
        if key < 0x80:
            pos += 1
        else:
            key, pos = _varint(buf, pos)
        number, kind = key >> 3, key & 7
        if kind == _VARINT:
            value, pos = _varint(buf, pos)
        elif kind == _LEN:
            size = buf[pos] if pos < end else 0x80
            if size < 0x80:
                pos += 1
            else:
                size, pos = _varint(buf, pos)
            if pos + size > end:
                raise WireError(f"field {number} runs past the end of the message")
            value, pos = buf[pos : pos + size], pos + size
        elif kind == _FIXED32:
            value, pos = buf[pos : pos + 4], pos + 4
        elif kind == _FIXED64:
            value, pos = buf[pos : pos + 8], pos + 8
        else:
            raise WireError(f"field {number} has wire type {kind}, which proto3 does not use")
        if pos > end:
            raise WireError(f"field {number} runs past the end of the message")
        out.append((number, kind, value))
    return out


def _int32(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _ints(items: list[int], kind: int, value: Any) -> None:
    """Append a repeated int32/enum/bool field's values (packed or one per field)."""
    if kind == _VARINT:
        items.append(_int32(value))
        return
    pos = 0
    while pos < len(value):
        number, pos = _varint(value, pos)
        items.append(_int32(number))


def _floats(items: list[float], kind: int, value: Any) -> None:
    """Append a repeated float field's values (packed or one per field)."""
    if kind == _FIXED32:
        items.append(_FLOAT.unpack(value)[0])
    elif len(value) % 4:
        raise WireError("packed floats are not a multiple of 4 bytes")
    else:
        items.extend(v for (v,) in _FLOAT.iter_unpack(value))


class FloatData:
    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data: list[float] = []


class Observation:
    """``ObservationProto``'s fields that Animal-AI's sensors fill."""

    __slots__ = (
        "shape",
        "compression_type",
        "compressed_data",
        "float_data",
        "compressed_channel_mapping",
        "dimension_properties",
        "observation_type",
        "name",
    )

    def __init__(self, buf: bytes) -> None:
        self.shape: list[int] = []
        self.compression_type = 0
        self.compressed_data = b""
        self.float_data = FloatData()
        self.compressed_channel_mapping: list[int] = []
        self.dimension_properties: list[int] = []
        self.observation_type = 0
        self.name = ""
        for number, kind, value in fields(buf):
            if number == 1:
                _ints(self.shape, kind, value)
            elif number == 2:
                self.compression_type = _int32(value)
            elif number == 3:
                self.compressed_data = bytes(value)
            elif number == 4:
                for n, k, v in fields(value):
                    if n == 1:
                        _floats(self.float_data.data, k, v)
            elif number == 5:
                _ints(self.compressed_channel_mapping, kind, value)
            elif number == 6:
                _ints(self.dimension_properties, kind, value)
            elif number == 7:
                self.observation_type = _int32(value)
            elif number == 8:
                self.name = bytes(value).decode("utf-8")


class AgentInfo:
    """``AgentInfoProto``: one agent's reward, flags and observations after a step."""

    __slots__ = (
        "reward",
        "done",
        "max_step_reached",
        "id",
        "action_mask",
        "observations",
        "group_id",
        "group_reward",
    )

    def __init__(self, buf: bytes) -> None:
        self.reward = 0.0
        self.done = False
        self.max_step_reached = False
        self.id = 0
        self.action_mask: list[bool] = []
        self.observations: list[Observation] = []
        self.group_id = 0
        self.group_reward = 0.0
        for number, kind, value in fields(buf):
            if number == 7:
                self.reward = _FLOAT.unpack(value)[0]
            elif number == 8:
                self.done = bool(value)
            elif number == 9:
                self.max_step_reached = bool(value)
            elif number == 10:
                self.id = _int32(value)
            elif number == 11:
                masks: list[int] = []
                _ints(masks, kind, value)
                self.action_mask.extend(bool(m) for m in masks)
            elif number == 13:
                self.observations.append(Observation(value))
            elif number == 14:
                self.group_id = _int32(value)
            elif number == 15:
                self.group_reward = _FLOAT.unpack(value)[0]


class ListAgentInfo:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: list[AgentInfo] = []


class RLOutput:
    """``UnityRLOutputProto``: agents per behaviour, and the side-channel bytes."""

    __slots__ = ("agentInfos", "side_channel")

    def __init__(self, buf: bytes) -> None:
        self.agentInfos: dict[str, ListAgentInfo] = {}
        self.side_channel = b""
        for number, _, value in fields(buf):
            if number == 2:  # map entry: key 1 (behaviour name), value 2 (ListAgentInfoProto)
                name, listed = "", ListAgentInfo()
                for n, _, v in fields(value):
                    if n == 1:
                        name = bytes(v).decode("utf-8")
                    elif n == 2:
                        listed.value.extend(AgentInfo(item) for k, _, item in fields(v) if k == 1)
                entry = self.agentInfos.setdefault(name, ListAgentInfo())
                entry.value = listed.value  # a repeated key: the last entry wins, as in protobuf maps
            elif number == 3:
                self.side_channel = bytes(value)


class StepOutput:
    """``UnityOutputProto`` of a step: the RL output only (no behaviour parameters)."""

    __slots__ = ("rl_output",)

    def __init__(self, rl_output: RLOutput) -> None:
        self.rl_output = rl_output


class Header:
    __slots__ = ("status", "message")

    def __init__(self, status: int, message: str) -> None:
        self.status, self.message = status, message


class StepMessage:
    """``UnityMessageProto`` from the build after a step (header and output)."""

    __slots__ = ("header", "unity_output")

    def __init__(self, header: Header, unity_output: StepOutput) -> None:
        self.header, self.unity_output = header, unity_output


def _header(buf: bytes) -> Header:
    status, message = 0, ""
    for number, _, value in fields(buf):
        if number == 1:
            status = _int32(value)
        elif number == 2:
            message = bytes(value).decode("utf-8")
    return Header(status, message)


def read_step_output(buf: bytes) -> StepMessage | None:
    """A build's message as a ``StepMessage``, or None when it is not a plain step output (it
    announces behaviours, carries an input, or has no output): those go to the generated classes."""
    header, output = Header(0, ""), None
    for number, _, value in fields(buf):
        if number == 1:
            header = _header(value)
        elif number == 2:
            output = value
        elif number == 3:
            return None
    if output is None:
        return None
    rl_output = None
    for number, _, value in fields(output):
        if number == 1:
            rl_output = value
        elif number == 2:  # rl_initialization_output: behaviour parameters for mlagents-envs
            return None
    return StepMessage(header, StepOutput(RLOutput(rl_output or b"")))


class StepInput:
    """``UnityRLInputProto``'s fields: the command, side channels and each behaviour's actions
    (per agent, its discrete actions, or its deprecated vector actions as sent)."""

    __slots__ = ("command", "side_channel", "discrete", "vector")

    def __init__(self, buf: bytes) -> None:
        self.command = 0
        self.side_channel = b""
        self.discrete: dict[str, list[list[int]]] = {}
        self.vector: dict[str, list[list[float]]] = {}
        for number, _kind, value in fields(buf):
            if number == 1:
                self._actions(value)
            elif number == 4:
                self.command = _int32(value)
            elif number == 5:
                self.side_channel = bytes(value)

    def _actions(self, entry: bytes) -> None:
        name, discrete, vector = "", [], []
        for n, _, v in fields(entry):
            if n == 1:
                name = bytes(v).decode("utf-8")
            elif n == 2:
                for k, _, action in fields(v):
                    if k != 1:
                        continue
                    ints: list[int] = []
                    floats: list[float] = []
                    for field, kind, value in fields(action):
                        if field == 7:
                            _ints(ints, kind, value)
                        elif field == 1:
                            _floats(floats, kind, value)
                    discrete.append(ints)
                    vector.append(floats)
        self.discrete[name], self.vector[name] = discrete, vector


def read_step_input(buf: bytes) -> tuple[int, StepInput | None]:
    """(header status, the RL input) of a message from Python (an empty input when it carries none);
    the input is None when the message carries the handshake's initialisation input instead, which
    is read with the generated classes."""
    status, rl_input = 0, None
    for number, _, value in fields(buf):
        if number == 1:
            status = _header(value).status
        elif number == 3:
            for n, _, v in fields(value):
                if n == 1:
                    rl_input = v
                elif n == 2:
                    return status, None
    return status, StepInput(rl_input or b"")


def step_input(behavior: str, discrete_per_agent: list[list[int]], side_channel: bytes) -> bytes:
    """A serialised ``UnityMessageProto`` carrying a step command (status 200) with each agent's
    discrete actions, written as mlagents-envs writes them (also as deprecated vector actions)."""
    if side_channel or len(discrete_per_agent) != 1:
        return _step_input(behavior, discrete_per_agent, side_channel)
    key = (behavior, tuple(discrete_per_agent[0]))
    cached = _STEP_INPUTS.get(key)
    if cached is None:  # Animal-AI has 9 actions: each message is written once
        if len(_STEP_INPUTS) > 256:
            _STEP_INPUTS.clear()
        cached = _STEP_INPUTS[key] = _step_input(behavior, discrete_per_agent, side_channel)
    return cached


_STEP_INPUTS: dict[tuple[str, tuple[int, ...]], bytes] = {}


def _step_input(behavior: str, discrete_per_agent: list[list[int]], side_channel: bytes) -> bytes:
    agents = b""
    for actions in discrete_per_agent:
        vector = b"".join(_FLOAT.pack(float(a)) for a in actions)
        action = (wire.field_bytes(1, vector) if vector else b"") + (
            wire.packed_varints(7, actions) if actions else b""
        )
        agents += wire.field_bytes(1, action)
    rl_input = b""
    if discrete_per_agent:
        rl_input = wire.field_bytes(
            1, wire.field_bytes(1, behavior.encode("utf-8")) + wire.field_bytes(2, agents)
        )
    rl_input += wire.field_bytes(5, side_channel) if side_channel else b""  # command STEP is 0: left out
    return wire.field_bytes(1, wire.field_varint(1, 200)) + wire.field_bytes(3, wire.field_bytes(1, rl_input))
