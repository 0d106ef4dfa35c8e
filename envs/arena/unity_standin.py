"""The server of ``agentkit-arena`` (entry: ``standin_command``): the pybullet arena behind ML-Agents' gRPC protocol, as a Unity Animal-AI build speaks it.

Why: so ``--env animalai --aai-build builtin`` runs the Testbed through the very connector code
that drives the official builds, and any ML-Agents client (``UnityEnvironment(file_name=...)``)
can use the arena. It plays the Unity side exactly: it is the gRPC *client*, connects to the port
mlagents-envs passes (``--mlagents-port``), sends its academy parameters (communication API 1.5.0,
the Unity package version of the emulated Animal-AI generation), then answers each input (reset,
step, quit, side channels) with one output: the agent's camera as a PNG and its vector
observation (health, velocity in the agent's frame, position), reward and done flags.

It accepts Animal-AI's player arguments (``--playerMode``, ``--useCamera``, ``--resolution``,
``--decisionPeriod``, ...) and ignores Unity's own (``-batchmode``, ``-logFile PATH`` is used for
its log). ``--emulate-generation 3|4`` chooses the 3.x behaviour (HWC camera, YAML text on the
arena channel) or the 4.x one (CHW camera; the arena channel names a YAML file, or, as 4.x builds
also accept, carries the YAML text). Ray casts and grayscale cameras are
not offered. One arena YAML may hold several arenas; like the arena backend, this plays the first.

It lives with the arena (the world it serves) and takes what both ends of the link agree on
(``protocol``, the hand-written ``wire`` messages) from ``envs/animalai_common``, so the ``animalai``
backend, the other end, never imports the arena backend (docs/architecture.md, "The layers").
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault(
    "GRPC_VERBOSITY", "ERROR"
)  # before grpc loads: its C core's notices are not ours to print

import grpc
from google.protobuf.any_pb2 import Any as AnyProto
from mlagents_envs.communicator_objects.capabilities_pb2 import UnityRLCapabilitiesProto
from mlagents_envs.communicator_objects.command_pb2 import QUIT, RESET
from mlagents_envs.communicator_objects.training_analytics_pb2 import TrainingEnvironmentInitialized
from mlagents_envs.communicator_objects.unity_message_pb2 import UnityMessageProto
from mlagents_envs.communicator_objects.unity_output_pb2 import UnityOutputProto
from mlagents_envs.communicator_objects.unity_rl_initialization_output_pb2 import (
    UnityRLInitializationOutputProto,
)

from agentkit.envs.animalai_common import wire, wire_read
from agentkit.envs.animalai_common.protocol import (
    ANALYTICS_CHANNEL,
    ARENA_CHANNEL,
    BEHAVIOR_NAME,
    BRANCHES,
    COMMUNICATION_VERSION,
    ENGINE_CHANNEL,
    EPISODE_CHANNEL,
    TRAITS,
    Generation,
    pack_side_channels,
    unpack_side_channels,
)
from agentkit.envs.animalai_common.vocabulary import NOOP, is_action
from agentkit.envs.arena.backend import AgentReading, ArenaBackend
from agentkit.records import EndReason

logger = logging.getLogger("agentkit.arena_server")

EXCHANGE_METHOD = "/communicator_objects.UnityToExternalProto/Exchange"  # ML-Agents' one RPC
DEFAULT_TASK = "01-01-01"  # played when a client resets without sending an arena
CONNECT_TIMEOUT_S = 30.0
# ML-Agents dimension properties: NONE (the channel axis, a vector) and TRANSLATIONAL_EQUIVARIANCE.
_DIM_NONE, _DIM_TRANSLATIONAL = 1, 2
# Engine configuration message types (ML-Agents' EngineConfigurationChannel).
_ENGINE_FIELDS = {
    0: ("screen_resolution", "ii"),
    1: ("quality_level", "i"),
    2: ("time_scale", "f"),
    3: ("target_frame_rate", "i"),
    4: ("capture_frame_rate", "i"),
}


@dataclass(frozen=True)
class ServerOptions:
    port: int
    generation: Generation = Generation.V3
    camera: bool = False
    resolution: int = 84
    log_file: str | None = None


class ArenaServer:
    """The Unity side of one link: side channels in, one agent's observation out per input."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.traits = TRAITS[options.generation]
        # A 4.x build plays v4.1.0's items and masses, a 3.x build v3.1.3's (docs/arena-fidelity.md).
        version = "4.1.0" if options.generation == Generation.V4 else "3.1.3"
        self.backend = ArenaBackend(
            render_size=options.resolution, frames=options.camera, aai_version=version
        )
        self.init_seed = 0
        self.engine: dict[str, Any] = {}
        self._files = Path(tempfile.mkdtemp(prefix="agentkit-arena-"))
        self._arena_task: str | None = None  # the task or file the next reset plays
        self._arena_count = 0
        self._pending_seed: int | None = None
        self._last_seed: int | None = None
        self._episode_channel = False
        self._privileged = False
        self._episodes = 0
        self._done = False
        self._end_reason: EndReason | None = None
        self._success: bool | None = None
        self._sent_brain = False
        self._facts_sent: tuple[Any, ...] | None = None  # (episode, end reason, success) last sent
        self._camera_parts: dict[tuple[int, ...], tuple[bytes, bytes]] = {}

    # -- the handshake -------------------------------------------------------------------------

    def academy_parameters(self) -> UnityOutputProto:
        caps = UnityRLCapabilitiesProto(
            baseRLCapabilities=True,
            concatenatedPngObservations=True,
            compressedChannelMapping=True,
            hybridActions=True,
            trainingAnalytics=True,
            variableLengthObservation=True,
            multiAgentGroups=True,
        )
        return UnityOutputProto(
            rl_initialization_output=UnityRLInitializationOutputProto(
                name="AnimalAI",
                communication_version=COMMUNICATION_VERSION,
                package_version=self.traits.package_version,
                capabilities=caps,
            )
        )

    def accept_python(self, init_input) -> None:
        """Check the Python side's versions (as Unity does: same major communication version)."""
        version = init_input.communication_version
        if version.split(".", 1)[0] != COMMUNICATION_VERSION.split(".", 1)[0]:
            raise RuntimeError(
                f"Python speaks communication API {version}, this arena {COMMUNICATION_VERSION}"
            )
        self.init_seed = int(init_input.seed)
        logger.info(
            "connected to mlagents-envs %s (communication %s), seed %d",
            init_input.package_version,
            version,
            self.init_seed,
        )

    # -- one input, one output -----------------------------------------------------------------

    def handle(self, rl_input: wire_read.StepInput) -> bytes | None:
        """Apply side channels and the command; the message to send back (None: quit)."""
        self.read_side_channels(rl_input.side_channel)
        if rl_input.command == QUIT:
            return None
        if rl_input.command == RESET:
            reward = self._start_episode()
        elif self._done:  # a step after the end starts the next episode, as Animal-AI does
            reward = self._start_episode()
        else:
            reward = self._step(self._action(rl_input))
        return self._output(reward)

    def read_side_channels(self, blob: bytes) -> None:
        for channel, payload in unpack_side_channels(blob):
            if channel == ARENA_CHANNEL:
                self._receive_arena(payload)
            elif channel == ENGINE_CHANNEL:
                self._receive_engine(payload)
            elif channel == EPISODE_CHANNEL:
                request = json.loads(payload.decode("utf-8"))
                self._episode_channel = True
                self._pending_seed = int(request["seed"]) if request.get("seed") is not None else None
                self._privileged = bool(request.get("privileged", False))
            elif channel == ANALYTICS_CHANNEL:
                logger.info("training analytics: %s", _analytics(payload))
            else:
                logger.warning("unknown side channel %s (%d bytes) ignored", channel, len(payload))

    def _receive_arena(self, payload: bytes) -> None:
        """The arena channel's payload: YAML text (3.x), or in 4.x the path of a YAML file.

        A 4.x build reads the payload as a path when a file of that name exists and otherwise takes
        it as the YAML itself; so does this stand-in in its 4.x role, so a client that sends text to
        a 4.x build plays the arena it sent, as with the real build.
        """
        text = payload.decode("utf-8")
        if self.traits.yaml_as_path and "\n" not in text.strip() and Path(text.strip()).is_file():
            self._arena_task = str(Path(text.strip()))
            logger.info("arena configuration file received: %s", self._arena_task)
            return
        self._arena_count += 1
        path = self._files / f"arena-{self._arena_count}.yaml"
        path.write_text(text, encoding="utf-8")
        self._arena_task = str(path)
        logger.info("arena configuration text received (%d bytes, kept in %s)", len(payload), path)

    def _receive_engine(self, payload: bytes) -> None:
        (kind,) = struct.unpack_from("<i", payload, 0)
        name, fmt = _ENGINE_FIELDS.get(kind, (f"unknown-{kind}", ""))
        values = struct.unpack_from("<" + fmt, payload, 4) if fmt else ()
        self.engine[name] = values[0] if len(values) == 1 else list(values)
        logger.info("engine configuration %s = %s", name, self.engine[name])

    def _start_episode(self) -> float:
        if self._arena_task is None:
            logger.warning("reset without an arena configuration: playing Testbed task %s", DEFAULT_TASK)
            self._arena_task = DEFAULT_TASK
        if self._pending_seed is not None:
            seed = self._pending_seed
        elif self._last_seed is None:
            seed = self.init_seed
        else:
            seed = self._last_seed + 1
        self._pending_seed = None
        self._last_seed = seed
        self.backend.reset(self._arena_task, seed)
        self._episodes += 1
        self._done, self._end_reason, self._success = False, None, None
        return 0.0

    def _action(self, rl_input: wire_read.StepInput) -> list[int]:
        per_agent = rl_input.discrete.get(BEHAVIOR_NAME)
        if not per_agent:
            return list(NOOP)
        values = per_agent[0] or [int(v) for v in rl_input.vector[BEHAVIOR_NAME][0]]
        if not is_action(values):
            logger.warning("action %s is not two branches of 0..2; doing nothing this step", values)
            return list(NOOP)
        return values

    def _step(self, action: list[int]) -> float:
        result = self.backend.step(action)
        if result.done:
            self._done, self._end_reason, self._success = True, result.end_reason, result.success
        return result.reward

    def _output(self, reward: float) -> bytes:
        """The serialised message answering one input (see ``wire`` for why by hand)."""
        reading = self.backend.agent_reading()
        observations = []
        frame = self.backend.frame()
        if frame is not None:
            observations.append(self._camera(frame))
        observations.append(self._vector(reading))
        agent = wire.agent_info(reward, self._done, self._end_reason is EndReason.TIME_LIMIT, 0, observations)
        side_channel = b""
        # Episode facts go out when they change (a new episode, its end) or every step when Python
        # asked for the privileged state; between those, Python's last copy still holds.
        changed = (self._episodes, self._end_reason, self._success) != self._facts_sent
        if self._episode_channel and (changed or self._privileged):
            facts: dict[str, Any] = {
                "episode": self._episodes,
                "step": reading.step,
                "end_reason": self._end_reason.value if self._end_reason else None,
                "success": self._success,
            }
            if self._privileged:
                facts["privileged"] = self.backend.privileged_state()
            side_channel = pack_side_channels([(EPISODE_CHANNEL, json.dumps(facts).encode("utf-8"))])
            self._facts_sent = (self._episodes, self._end_reason, self._success)
        initialization = b""
        if not self._sent_brain:  # announced once, with the first agent (as ML-Agents does)
            initialization = _brain_parameters().SerializeToString()
            self._sent_brain = True
        return wire.unity_message(BEHAVIOR_NAME, agent, side_channel, initialization)

    def _camera(self, frame) -> bytes:
        parts = self._camera_parts.get(frame.shape)
        if parts is None:  # the fields around the picture are the same every step
            height, width, channels = frame.shape
            if self.traits.channels_first:
                shape, dims = (channels, height, width), (_DIM_NONE, _DIM_TRANSLATIONAL, _DIM_TRANSLATIONAL)
            else:
                shape, dims = (height, width, channels), (_DIM_TRANSLATIONAL, _DIM_TRANSLATIONAL, _DIM_NONE)
            parts = self._camera_parts[frame.shape] = wire.png_observation_parts(shape, dims, "CameraSensor")
        before, after = parts
        return before + wire.field_bytes(3, wire.png(frame)) + after

    @staticmethod
    def _vector(reading: AgentReading) -> bytes:
        vx, vy, vz = reading.velocity
        heading = math.radians(reading.heading_deg)
        fx, fz = math.sin(heading), math.cos(heading)
        local = (vx * fz - vz * fx, vy, vx * fx + vz * fz)  # right, up, forward, as Animal-AI reports
        values = [reading.health, *local, *reading.position]
        return wire.observation(
            (len(values),), (_DIM_NONE,), f"VectorSensor_size{len(values)}", floats=values
        )

    def close(self) -> None:
        self.backend.close()
        shutil.rmtree(self._files, ignore_errors=True)


def _analytics(payload: bytes) -> str:
    """What mlagents-envs announces about itself (Unity only logs it)."""
    message = TrainingEnvironmentInitialized()
    AnyProto.FromString(payload).Unpack(message)
    return f"mlagents-envs {message.mlagents_envs_version} on Python {message.python_version}"


def _brain_parameters() -> UnityRLInitializationOutputProto:
    """The behaviour, announced with the first agent: two discrete branches of 3."""
    init = UnityRLInitializationOutputProto()
    brain = init.brain_parameters.add()
    brain.brain_name = BEHAVIOR_NAME
    brain.is_training = True
    brain.vector_action_size_deprecated.extend(BRANCHES)
    brain.vector_action_space_type_deprecated = 0  # discrete
    brain.action_spec.num_discrete_actions = len(BRANCHES)
    brain.action_spec.discrete_branch_sizes.extend(BRANCHES)
    return init


def _message(output: UnityOutputProto | None = None, status: int = 200) -> bytes:
    message = UnityMessageProto()
    message.header.status = status
    if output is not None:
        message.unity_output.CopyFrom(output)
    return message.SerializeToString()


def serve(options: ServerOptions) -> int:
    """Connect, shake hands, then answer inputs until Python closes; the process exit code."""
    server = ArenaServer(options)
    channel = grpc.insecure_channel(
        f"localhost:{options.port}",
        options=[
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
        ],
    )
    try:
        grpc.channel_ready_future(channel).result(timeout=CONNECT_TIMEOUT_S)
        # Messages go both ways as bytes: written and read by hand each step (see ``wire`` and
        # ``wire_read``), by the generated classes for the handshake.
        exchange = channel.unary_unary(EXCHANGE_METHOD, request_serializer=None, response_deserializer=None)
        reply = UnityMessageProto.FromString(exchange(_message(server.academy_parameters())))
        if reply.header.status != 200:
            logger.info("Python refused the connection (status %d)", reply.header.status)
            return 1
        server.accept_python(reply.unity_input.rl_initialization_input)
        status, rl_input = wire_read.read_step_input(exchange(_message()))  # the first input (a reset)
        while status == 200:
            if rl_input is None:
                raise RuntimeError("Python sent a second initialisation input after the handshake")
            answer = server.handle(rl_input)
            if answer is None:
                break
            status, rl_input = wire_read.read_step_input(exchange(answer))
        logger.info("Python closed the link")
        return 0
    except grpc.FutureTimeoutError:
        logger.error("no mlagents-envs server on port %d within %g s", options.port, CONNECT_TIMEOUT_S)
        return 1
    except grpc.RpcError as exc:
        # The Python side went away (closed without a last message, or died): nothing left to serve.
        logger.info("link closed: %s", exc.code() if hasattr(exc, "code") else exc)
        return 0
    except Exception:  # a bad arena file or the like: in the log (Unity's Player.log), exit code 1
        logger.exception("agentkit-arena stopped")
        return 1
    finally:
        server.close()
        channel.close()


def parse_args(argv: Sequence[str] | None = None) -> ServerOptions:
    parser = argparse.ArgumentParser(
        prog="agentkit-arena", description=__doc__.split("\n\n")[0], allow_abbrev=False
    )
    parser.add_argument("--mlagents-port", type=int, required=True, help="port of the mlagents-envs server")
    parser.add_argument(
        "--emulate-generation",
        type=int,
        choices=(3, 4),
        default=3,
        help="behave as an Animal-AI 3.x (HWC, YAML text) or 4.x (CHW, YAML path) build",
    )
    parser.add_argument(
        "--playerMode", type=int, default=0, help="Animal-AI: 0 training (1 play: not offered)"
    )
    parser.add_argument("--useCamera", action="store_true", help="send the first-person camera")
    parser.add_argument("--resolution", type=int, default=84, help="camera pixels (square)")
    parser.add_argument("--grayscale", action="store_true")
    parser.add_argument("--useRayCasts", action="store_true")
    parser.add_argument("--raysPerSide", type=int, default=2)
    parser.add_argument("--rayMaxDegrees", type=int, default=60)
    parser.add_argument("--decisionPeriod", type=int, default=3)
    args, unknown = parser.parse_known_args(argv)
    log_file = None
    for flag in ("-logFile", "-logfile"):
        if flag in unknown and unknown.index(flag) + 1 < len(unknown):
            log_file = unknown[unknown.index(flag) + 1]
    if args.useRayCasts or args.grayscale:
        parser.error("ray casts and grayscale cameras are not offered by agentkit's arena")
    if args.playerMode != 0:
        parser.error("only training mode (--playerMode 0) is offered by agentkit's arena")
    if args.decisionPeriod != 3:
        parser.error("the arena decides every 3 physics frames (0.06 s); --decisionPeriod must be 3")
    if args.resolution < 16:
        parser.error(f"--resolution must be at least 16 pixels, got {args.resolution}")
    return ServerOptions(
        port=args.mlagents_port,
        generation=Generation(args.emulate_generation),
        camera=args.useCamera,
        resolution=args.resolution,
        log_file=log_file,
    )


def main(argv: Sequence[str] | None = None) -> None:
    options = parse_args(argv)
    handler: logging.Handler = (
        logging.FileHandler(options.log_file) if options.log_file else logging.StreamHandler()
    )
    logging.basicConfig(
        level=logging.INFO if options.log_file else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[handler],
    )
    sys.exit(serve(options))


if __name__ == "__main__":
    main()
