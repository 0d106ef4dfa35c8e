"""The hand-written wire reader and writer agree with mlagents-envs' generated protobuf classes.

Every object ``wire_read`` gives is compared field by field with what the generated classes read
from the same bytes, for messages the generated classes wrote (so protobuf's own encoding, with
every field the reader knows set), for the stand-in's hand-written ones, and for the unpacked
encoding of repeated numbers that older writers use.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from mlagents_envs.base_env import ActionTuple
from mlagents_envs.communicator_objects.agent_action_pb2 import AgentActionProto
from mlagents_envs.communicator_objects.agent_info_pb2 import AgentInfoProto
from mlagents_envs.communicator_objects.observation_pb2 import ObservationProto
from mlagents_envs.communicator_objects.unity_message_pb2 import UnityMessageProto
from PIL import Image

from agentkit.envs.animalai.observations import decode_picture, unfiltered_png
from agentkit.envs.animalai.unity_environment import (
    AnimalAIUnityEnvironment,
    EncodedStepInput,
    read_from_build,
)
from agentkit.envs.animalai_common import wire, wire_read
from agentkit.envs.animalai_common.protocol import BEHAVIOR_NAME


def _full_output() -> UnityMessageProto:
    message = UnityMessageProto()
    message.header.status = 200
    message.header.message = "fine"
    rl = message.unity_output.rl_output
    rl.side_channel = b"\x01\x02side"
    for name, rewards in ((BEHAVIOR_NAME, (0.5, -1.25)), ("Other?team=1", (3.0,))):
        for i, reward in enumerate(rewards):
            info = AgentInfoProto(
                reward=reward,
                done=i == 1,
                max_step_reached=i == 1,
                id=7 + i,
                action_mask=[True, False, True],
                group_id=-3,
                group_reward=2.5,
            )
            camera = ObservationProto(
                shape=[84, 84, 3],
                compression_type=1,
                compressed_data=b"\x89PNG-ish",
                compressed_channel_mapping=[0, 1, 2],
                dimension_properties=[2, 2, 1],
                observation_type=1,
                name="CameraSensor",
            )
            vector = ObservationProto(shape=[7], dimension_properties=[1], name="VectorSensor_size7")
            vector.float_data.data.extend([1.0, -0.5, 0.0, 2.25, 20.0, 0.5, 5.0])
            info.observations.extend([camera, vector])
            rl.agentInfos[name].value.append(info)
    return message


def _assert_same_agent(light, proto) -> None:
    assert light.reward == pytest.approx(proto.reward)
    assert (light.done, light.max_step_reached, light.id) == (proto.done, proto.max_step_reached, proto.id)
    assert light.action_mask == list(proto.action_mask)
    assert (light.group_id, light.group_reward) == (proto.group_id, pytest.approx(proto.group_reward))
    assert len(light.observations) == len(proto.observations)
    for lo, po in zip(light.observations, proto.observations):
        assert lo.shape == list(po.shape)
        assert lo.compression_type == po.compression_type
        assert lo.compressed_data == po.compressed_data
        assert lo.float_data.data == pytest.approx(list(po.float_data.data))
        assert lo.compressed_channel_mapping == list(po.compressed_channel_mapping)
        assert lo.dimension_properties == list(po.dimension_properties)
        assert (lo.observation_type, lo.name) == (po.observation_type, po.name)


def test_a_step_output_written_by_protobuf_reads_the_same():
    proto = _full_output()
    light = wire_read.read_step_output(proto.SerializeToString())
    assert light is not None
    assert (light.header.status, light.header.message) == (200, "fine")
    rl, prl = light.unity_output.rl_output, proto.unity_output.rl_output
    assert rl.side_channel == prl.side_channel
    assert sorted(rl.agentInfos) == sorted(prl.agentInfos)
    for name in prl.agentInfos:
        assert len(rl.agentInfos[name].value) == len(prl.agentInfos[name].value)
        for la, pa in zip(rl.agentInfos[name].value, prl.agentInfos[name].value):
            _assert_same_agent(la, pa)


def test_the_stand_ins_own_message_reads_the_same_and_unpacked_numbers_are_accepted():
    frame = np.arange(8 * 6 * 3, dtype=np.uint8).reshape(8, 6, 3)
    camera = wire.observation((8, 6, 3), (2, 2, 1), "CameraSensor", png=wire.png(frame))
    # A writer that does not pack: shape and dimension properties one field each, floats as fixed32.
    unpacked = (
        b"".join(wire.field_varint(1, v) for v in (7,))
        + wire.field_bytes(4, b"".join(wire.field_float(1, v) for v in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)))
        + wire.field_varint(6, 1)
        + wire.field_bytes(8, b"VectorSensor_size7")
    )
    data = wire.unity_message(BEHAVIOR_NAME, wire.agent_info(1.5, True, False, 3, [camera, unpacked]), b"sc")
    proto = UnityMessageProto.FromString(data)
    light = wire_read.read_step_output(data)
    _assert_same_agent(
        light.unity_output.rl_output.agentInfos[BEHAVIOR_NAME].value[0],
        proto.unity_output.rl_output.agentInfos[BEHAVIOR_NAME].value[0],
    )
    assert light.unity_output.rl_output.side_channel == b"sc"


def test_messages_that_are_not_plain_step_outputs_go_to_the_generated_classes():
    announcing = _full_output()
    announcing.unity_output.rl_initialization_output.name = "AnimalAI"
    assert wire_read.read_step_output(announcing.SerializeToString()) is None
    assert isinstance(read_from_build(announcing.SerializeToString()), UnityMessageProto)
    header_only = UnityMessageProto()
    header_only.header.status = 200
    assert wire_read.read_step_output(header_only.SerializeToString()) is None
    assert isinstance(read_from_build(_full_output().SerializeToString()), wire_read.StepMessage)


def test_malformed_bytes_are_a_wire_error_and_protobuf_gets_the_last_word():
    data = _full_output().SerializeToString()
    with pytest.raises(wire_read.WireError):
        wire_read.read_step_output(data[:-5])
    with pytest.raises(Exception, match="(?i)truncated|error|unexpected"):
        read_from_build(data[:-5])  # protobuf's own error names the problem


def _mlagents_step_input(discrete: list[list[int]], side_channel: bytes) -> bytes:
    """What mlagents-envs itself sends for these actions (its own ``_generate_step_input``)."""
    env = AnimalAIUnityEnvironment.__new__(AnimalAIUnityEnvironment)
    env._env_state = {BEHAVIOR_NAME: ([object()] * len(discrete), [])}

    class _Channels:
        @staticmethod
        def generate_side_channel_messages() -> bytearray:
            return bytearray(side_channel)

    env._side_channel_manager = _Channels()
    actions = ActionTuple(discrete=np.asarray(discrete, dtype=np.int32))
    proto_input = super(AnimalAIUnityEnvironment, env)._generate_step_input({BEHAVIOR_NAME: actions})
    message = UnityMessageProto()
    message.header.status = 200
    message.unity_input.CopyFrom(proto_input)
    fast = env._generate_step_input({BEHAVIOR_NAME: actions})
    assert isinstance(fast, EncodedStepInput)
    assert UnityMessageProto.FromString(fast.message) == message
    return fast.message


@pytest.mark.parametrize(
    "discrete,side_channel", [([[1, 2]], b""), ([[0, 0]], b"\x05channel"), ([[2, 1], [0, 1]], b"")]
)
def test_step_inputs_are_what_mlagents_envs_would_send_and_the_stand_in_reads_them(discrete, side_channel):
    data = _mlagents_step_input(discrete, side_channel)
    status, rl_input = wire_read.read_step_input(data)
    assert status == 200 and rl_input is not None
    assert rl_input.command == 0 and rl_input.side_channel == side_channel
    assert rl_input.discrete[BEHAVIOR_NAME] == discrete
    assert rl_input.vector[BEHAVIOR_NAME] == [[float(a) for a in row] for row in discrete]


def test_the_stand_in_reads_inputs_written_by_protobuf_and_leaves_the_handshake_to_it():
    message = UnityMessageProto()
    message.header.status = 200
    rl = message.unity_input.rl_input
    rl.command = 1
    rl.side_channel = b"xyz"
    rl.agent_actions[BEHAVIOR_NAME].value.append(AgentActionProto(vector_actions_deprecated=[2.0, 0.0]))
    status, rl_input = wire_read.read_step_input(message.SerializeToString())
    assert (status, rl_input.command, rl_input.side_channel) == (200, 1, b"xyz")
    assert rl_input.discrete[BEHAVIOR_NAME] == [[]] and rl_input.vector[BEHAVIOR_NAME] == [[2.0, 0.0]]
    handshake = UnityMessageProto()
    handshake.header.status = 200
    handshake.unity_input.rl_initialization_input.seed = 5
    assert wire_read.read_step_input(handshake.SerializeToString()) == (200, None)
    closing = UnityMessageProto()
    closing.header.status = 400
    status, rl_input = wire_read.read_step_input(closing.SerializeToString())
    assert status == 400 and rl_input.command == 0


def test_continuous_actions_are_left_to_mlagents_envs():
    env = AnimalAIUnityEnvironment.__new__(AnimalAIUnityEnvironment)
    env._env_state = {BEHAVIOR_NAME: ([object()], [])}

    class _Channels:
        @staticmethod
        def generate_side_channel_messages() -> bytearray:
            return bytearray()

    env._side_channel_manager = _Channels()
    actions = ActionTuple(continuous=np.asarray([[0.5]], dtype=np.float32))
    assert not isinstance(env._generate_step_input({BEHAVIOR_NAME: actions}), EncodedStepInput)


def _png_with_filters(frame: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG", optimize=True)  # PIL chooses filters per row
    return buffer.getvalue()


def test_the_unfiltered_png_fast_path_matches_pil_and_declines_other_pngs():
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 255, size=(12, 9, 3), dtype=np.uint8)
    ours = wire.png(frame)
    np.testing.assert_array_equal(unfiltered_png(ours), np.asarray(Image.open(io.BytesIO(ours))))
    gradient = np.tile(np.arange(9, dtype=np.uint8)[None, :, None] * 20, (12, 1, 3))
    assert unfiltered_png(_png_with_filters(gradient)) is None  # filtered rows: PIL's job
    gray = io.BytesIO()
    Image.fromarray(frame[:, :, 0]).save(gray, format="PNG")
    assert unfiltered_png(gray.getvalue()) is None
    assert unfiltered_png(b"not a png") is None
    assert unfiltered_png(ours[:-20]) is None  # truncated: PIL reports it


def test_a_filtered_png_from_a_real_build_still_decodes():
    gradient = np.tile(np.arange(9, dtype=np.uint8)[None, :, None] * 20, (12, 1, 3))
    obs = ObservationProto(
        shape=[12, 9, 3],
        compression_type=1,
        compressed_data=_png_with_filters(gradient),
        dimension_properties=[2, 2, 1],
    )
    np.testing.assert_array_equal(decode_picture(obs, channels_first=False), gradient)
