"""One live Animal-AI build behind mlagents-envs' ``UnityEnvironment``: launch, reset, step, close.

Why a layer under the backend: it is everything that is about ML-Agents (ports, the handshake,
side channels, proto decoding, timeouts) and nothing that is about agentkit's episodes, so the
backend reads like the arena's. The build runs under ``unity_environment.AnimalAIUnityEnvironment``
(``UnityEnvironment`` keeping the handshake and the raw agent protos); ``observations`` decodes them.
"""

from __future__ import annotations

import json
import logging
import socket
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mlagents_envs.base_env import ActionTuple
from mlagents_envs.exception import (
    UnityCommunicatorStoppedException,
    UnityEnvironmentException,
    UnityTimeOutException,
    UnityWorkerInUseException,
)
from mlagents_envs.side_channel import IncomingMessage, OutgoingMessage, SideChannel
from mlagents_envs.side_channel.engine_configuration_channel import EngineConfigurationChannel
from mlagents_envs.side_channel.raw_bytes_channel import RawBytesChannel

from agentkit.envs.animalai.build import ResolvedBuild
from agentkit.envs.animalai.observations import AgentObservation, decode_agent
from agentkit.envs.animalai.unity_environment import AnimalAIUnityEnvironment
from agentkit.envs.animalai_common.protocol import (
    ARENA_CHANNEL,
    BRANCHES,
    EPISODE_CHANNEL,
    TRAITS,
    Generation,
    generation_from_handshake,
)

logger = logging.getLogger(__name__)

_PORT_TRIES = 20


class AnimalAIError(RuntimeError):
    """The build could not be launched, did not answer in time, or stopped (one line)."""


@dataclass(frozen=True)
class LaunchSettings:
    """How to start a build. ``worker_id`` None: any free port (so parallel workers never collide)."""

    build: ResolvedBuild
    render_size: int = 84
    camera: bool = True
    worker_id: int | None = None
    base_port: int = 5005
    timeout_s: float = 60.0
    generation: Generation | None = None  # None: from the handshake
    extra_args: tuple[str, ...] = ()
    quality_level: int = 1
    time_scale: float = 300.0  # Animal-AI's training setting; the decision period keeps physics fixed
    target_frame_rate: int = -1


@dataclass
class StepView:
    """The agent after a reset or a step, plus what agentkit's stand-in says about the episode."""

    agent: AgentObservation
    episode: dict[str, Any] = field(default_factory=dict)  # from the episode channel ({} for Unity builds)


class _EpisodeChannel(SideChannel):
    """agentkit's channel to its stand-in: seeds and requests out, episode facts (JSON) in."""

    def __init__(self) -> None:
        super().__init__(EPISODE_CHANNEL)
        self.latest: dict[str, Any] = {}

    def on_message_received(self, msg: IncomingMessage) -> None:
        self.latest = json.loads(msg.get_raw_bytes().decode("utf-8"))

    def request(self, seed: int, privileged: bool) -> None:
        msg = OutgoingMessage()
        msg.set_raw_bytes(bytearray(json.dumps({"seed": seed, "privileged": privileged}).encode("utf-8")))
        self.queue_message_to_send(msg)


class AnimalAIConnection:
    """A launched build. ``reset`` and ``step`` return ``StepView``; ``close`` stops it for good."""

    def __init__(self, settings: LaunchSettings, seed: int, episode_channel: bool) -> None:
        self.settings = settings
        self.seed = seed
        self._arena = RawBytesChannel(ARENA_CHANNEL)
        self._engine = EngineConfigurationChannel()
        self._episode = _EpisodeChannel() if episode_channel else None
        channels: list[SideChannel] = [self._arena, self._engine] + ([self._episode] if self._episode else [])
        self._env, self.port = self._launch(channels, seed)
        package, communication = self._env.handshake
        try:
            detected = generation_from_handshake(package, communication)
        except ValueError as exc:
            self.close()
            raise AnimalAIError(str(exc)) from None
        self.generation = settings.generation or detected
        logger.info(
            "Animal-AI build %s on port %d: package %s, communication %s -> generation %d.x",
            settings.build.path,
            self.port,
            package,
            communication,
            int(self.generation),
        )
        self._engine.set_configuration_parameters(
            width=settings.render_size,
            height=settings.render_size,
            quality_level=settings.quality_level,
            time_scale=settings.time_scale,
            target_frame_rate=settings.target_frame_rate,
        )
        self._behavior: str | None = None
        self.closed = False

    # -- launching ---------------------------------------------------------------------------

    def _launch(self, channels: list[SideChannel], seed: int) -> tuple[AnimalAIUnityEnvironment, int]:
        s = self.settings
        for attempt in range(_PORT_TRIES):
            if s.worker_id is not None:
                base_port, worker_id = s.base_port, s.worker_id + attempt
            else:
                base_port, worker_id = _free_port(), 0
            port = base_port + worker_id
            try:
                env = AnimalAIUnityEnvironment(
                    file_name=s.build.path,
                    worker_id=worker_id,
                    base_port=base_port,
                    seed=seed,
                    timeout_wait=s.timeout_s,
                    additional_args=self._build_args(),
                    side_channels=channels,
                )
                return env, port
            except UnityWorkerInUseException:
                logger.debug("port %d in use, trying another", port)
            except UnityTimeOutException:
                raise AnimalAIError(
                    f"Animal-AI build {s.build.path} did not connect on port {port} within {s.timeout_s:g} s"
                ) from None
            except UnityEnvironmentException as exc:
                raise AnimalAIError(
                    f"Animal-AI build {s.build.path} failed to start: {str(exc).splitlines()[0]}"
                ) from None
        raise AnimalAIError(f"no free port for Animal-AI build {s.build.path} after {_PORT_TRIES} tries")

    def _build_args(self) -> list[str]:
        """Animal-AI's player arguments (training mode, camera at the render size, decisions every 3 frames)."""
        s = self.settings
        args = ["--playerMode", "0"]
        if s.camera:
            args += ["--useCamera", "--resolution", str(s.render_size)]
        args += ["--decisionPeriod", "3"]
        return args + list(s.extra_args)

    # -- episodes ---------------------------------------------------------------------------

    def reset(self, arena_yaml: str, arena_path: str, seed: int, privileged: bool) -> StepView:
        """Start an episode of the arena (its YAML text and a file holding it: 3.x builds get the
        text, 4.x builds the path)."""
        payload = arena_path if TRAITS[self.generation].yaml_as_path else arena_yaml
        self._arena.send_raw_data(bytearray(payload.encode("utf-8")))
        if self._episode is not None:
            self._episode.request(seed, privileged)
        self._call(self._env.reset)
        if self._behavior is None:
            self._behavior = self._check_behavior()
        return self._view()

    def step(self, action: list[int]) -> StepView:
        assert self._behavior is not None
        discrete = np.asarray([action], dtype=np.int32)
        self._env.set_actions(self._behavior, ActionTuple(discrete=discrete))
        self._call(self._env.step)
        return self._view()

    def _call(self, fn) -> None:
        if self.closed:
            raise AnimalAIError("the Animal-AI build was closed")
        try:
            fn()
        except UnityTimeOutException:
            self.close()
            raise AnimalAIError(
                f"Animal-AI build {self.settings.build.path} did not answer within "
                f"{self.settings.timeout_s:g} s"
            ) from None
        except (UnityEnvironmentException, UnityCommunicatorStoppedException) as exc:
            self.close()
            raise AnimalAIError(
                f"Animal-AI build {self.settings.build.path} stopped: {str(exc).splitlines()[0]}"
            ) from None

    def _check_behavior(self) -> str:
        specs = self._env.behavior_specs
        if len(specs) != 1:
            raise AnimalAIError(f"Animal-AI build reported behaviours {sorted(specs)}; expected exactly one")
        name, spec = next(iter(specs.items()))
        branches = tuple(spec.action_spec.discrete_branches)
        if branches != BRANCHES or spec.action_spec.continuous_size:
            raise AnimalAIError(
                f"Animal-AI behaviour {name!r} has discrete branches {branches} and "
                f"{spec.action_spec.continuous_size} continuous actions; expected {BRANCHES}"
            )
        return name

    def _view(self) -> StepView:
        protos = self._env.agent_protos.get(self._behavior or "", [])
        if not protos:
            raise AnimalAIError("the Animal-AI build sent no agent after the step")
        terminal = [p for p in protos if p.done]
        agent = decode_agent(terminal[0] if terminal else protos[0], TRAITS[self.generation].channels_first)
        episode = dict(self._episode.latest) if self._episode is not None else {}
        return StepView(agent, episode)

    @property
    def process(self) -> Any:
        """The build's ``subprocess.Popen`` (None once closed)."""
        env = getattr(self, "_env", None)
        return None if env is None else env._process

    def close(self) -> None:
        if getattr(self, "closed", False):
            return
        self.closed = True
        env = getattr(self, "_env", None)
        if env is not None:
            try:
                env.close()
            except Exception:  # closing must not hide the error that led here
                logger.debug("closing the Animal-AI build failed", exc_info=True)


def _free_port() -> int:
    """A TCP port the OS says is free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])
