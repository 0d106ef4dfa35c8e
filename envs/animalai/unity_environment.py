"""mlagents-envs' ``UnityEnvironment``, adapted for Animal-AI builds of both generations.

Why adapted, and how little: ``UnityEnvironment`` stays what launches the build and serves the
gRPC link (Python is the server, the build the client). The subclass (1) remembers the versions
the build reports in the handshake, which tell Animal-AI 3.x from 4.x builds; (2) keeps each
step's agent protos undecoded, because mlagents-envs 0.28 reads every picture as height x width
x channels and rejects the channels-first pictures of 4.x builds (``observations`` decodes both);
(3) hands messages between its gRPC thread and the caller through in-process queues instead of a
``multiprocessing`` pipe, which would pickle every message (a full serialise and parse with the
pure-Python protobuf runtime that protobuf 3.20 has on Python 3.11), serves with daemon threads
(so a program that forgets to close a build still exits), and checks on the build every second
while it waits; (4) reads and writes the per-step messages straight in protobuf's wire format
(``wire_read``): the pure-Python runtime spends more CPU on them than the whole arena takes to
step and draw. The handshake, resets, behaviour announcements and anything unusual (continuous
actions, several behaviours) still go through the generated classes.
"""

from __future__ import annotations

import atexit
import queue
import threading
import time
from concurrent.futures import Executor, Future
from typing import Any

import grpc
from mlagents_envs.communicator_objects.unity_message_pb2 import UnityMessageProto
from mlagents_envs.communicator_objects.unity_to_external_pb2_grpc import UnityToExternalProtoServicer
from mlagents_envs.environment import UnityEnvironment
from mlagents_envs.exception import UnityTimeOutException, UnityWorkerInUseException
from mlagents_envs.rpc_communicator import RpcCommunicator

from agentkit.envs.animalai_common import wire_read

_SERVICE = "communicator_objects.UnityToExternalProto"


class EncodedStepInput:
    """A step's ``UnityMessageProto`` already in wire format (see ``wire_read.step_input``)."""

    __slots__ = ("message",)

    def __init__(self, message: bytes) -> None:
        self.message = message


def read_from_build(data: bytes) -> Any:
    """A message from the build: a plain step output read from the wire, the rest by protobuf."""
    try:
        light = wire_read.read_step_output(data)
    except (wire_read.WireError, UnicodeDecodeError):
        light = None  # protobuf reads it, or raises its own error naming the problem
    return light if light is not None else UnityMessageProto.FromString(data)


def _has_continuous(actions: Any) -> bool:
    return actions.continuous is not None and actions.continuous.size > 0


def write_to_build(message: Any) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class _Conduit:
    """One end of an in-process, two-way message channel with the face of a ``multiprocessing``
    pipe end (send, recv, poll, close), so mlagents-envs' communicator code works unchanged."""

    _CLOSED = object()

    def __init__(self, inbox: queue.SimpleQueue, outbox: queue.SimpleQueue) -> None:
        self._inbox, self._outbox = inbox, outbox
        self._held: list[Any] = []

    def send(self, message: Any) -> None:
        self._outbox.put(message)

    def poll(self, timeout: float = 0.0) -> bool:
        if not self._held:
            try:
                self._held.append(
                    self._inbox.get(timeout=max(timeout, 0.0)) if timeout else self._inbox.get_nowait()
                )
            except queue.Empty:
                return False
        return True

    def recv(self) -> Any:
        message = self._held.pop() if self._held else self._inbox.get()
        if message is self._CLOSED:
            self._held.append(message)  # stays closed for every later reader
            raise EOFError("the other end closed")
        return message

    def close(self) -> None:
        self._outbox.put(self._CLOSED)


class _Servicer(UnityToExternalProtoServicer):
    """The Exchange handler: the build's message goes to the caller, the caller's answer back."""

    def __init__(self) -> None:
        # C queues: the cheapest hand-over
        to_caller: queue.SimpleQueue[Any] = queue.SimpleQueue()
        to_build: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.parent_conn = _Conduit(inbox=to_caller, outbox=to_build)
        self.child_conn = _Conduit(inbox=to_build, outbox=to_caller)

    def Exchange(self, request, context):
        self.child_conn.send(request)
        return self.child_conn.recv()


class _DaemonPool(Executor):
    """The gRPC server's workers, as daemon threads. Between two steps the build's next Exchange
    waits in a worker for the caller's answer; a ``ThreadPoolExecutor`` worker (never a daemon)
    would then hold the interpreter at exit whenever a program ends without closing the build,
    before the exit hook that closes it could run."""

    def __init__(self, workers: int = 2) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        for i in range(workers):
            threading.Thread(target=self._work, name=f"animalai-grpc-{i}", daemon=True).start()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        self._jobs.put((future, fn, args, kwargs))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass  # daemon workers end with the process; an idle one costs nothing

    def _work(self) -> None:
        while True:
            future, fn, args, kwargs = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # handed to gRPC, which reports it to the build
                future.set_exception(exc)


class _Communicator(RpcCommunicator):
    """mlagents-envs' gRPC server with an in-process hand-over (see ``_Conduit``), checking on the
    build every second (its own check waits timeout/10, or spins when that rounds to zero)."""

    def create_server(self) -> None:
        self.check_port(self.port)
        try:
            self.server = grpc.server(thread_pool=_DaemonPool(), options=(("grpc.so_reuseport", 1),))
            self.unity_to_external = _Servicer()
            handler = grpc.unary_unary_rpc_method_handler(
                self.unity_to_external.Exchange,
                request_deserializer=read_from_build,
                response_serializer=write_to_build,
            )
            self.server.add_generic_rpc_handlers(
                (grpc.method_handlers_generic_handler(_SERVICE, {"Exchange": handler}),)
            )
            self.server.add_insecure_port("[::]:" + str(self.port))
            self.server.start()
            self.is_open = True
        except Exception:
            raise UnityWorkerInUseException(self.worker_id) from None

    def poll_for_timeout(self, poll_callback=None) -> None:
        deadline = time.monotonic() + self.timeout_wait
        interval = min(1.0, max(self.timeout_wait / 10.0, 0.05))
        while time.monotonic() < deadline:
            if self.unity_to_external.parent_conn.poll(interval):
                return
            if poll_callback:
                poll_callback()
        raise UnityTimeOutException(f"no answer within {self.timeout_wait:g} s")

    def exchange(self, inputs, poll_callback=None):
        if not isinstance(inputs, EncodedStepInput):
            return super().exchange(inputs, poll_callback)
        self.unity_to_external.parent_conn.send(inputs.message)
        self.poll_for_timeout(poll_callback)
        output = self.unity_to_external.parent_conn.recv()
        if output.header.status != 200:
            return None
        return output.unity_output


class AnimalAIUnityEnvironment(UnityEnvironment):
    """``UnityEnvironment`` that remembers the handshake and keeps each step's agent protos undecoded."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.handshake: tuple[str, str] = ("", "")  # (package version, communication version)
        self.agent_protos: dict[str, list[Any]] = {}
        try:
            super().__init__(*args, **kwargs)
        except BaseException:
            # mlagents-envs registers its exit hook first; after a failed start (port in use) the
            # hook would trip over the communicator that was never made.
            atexit.unregister(self._close)
            raise

    @staticmethod
    def _get_communicator(worker_id, base_port, timeout_wait):
        return _Communicator(worker_id, base_port, timeout_wait)

    def _send_academy_parameters(self, init_parameters):
        output = super()._send_academy_parameters(init_parameters)
        init = output.rl_initialization_output
        self.handshake = (init.package_version, init.communication_version)
        return output

    def _generate_step_input(self, vector_action):
        """One behaviour's discrete actions, written straight in wire format (else mlagents-envs')."""
        acting = [b for b in vector_action if len(self._env_state[b][0])]
        if len(acting) > 1 or any(
            _has_continuous(vector_action[b]) or vector_action[b].discrete is None for b in acting
        ):
            return super()._generate_step_input(vector_action)
        side_channel = bytes(self._side_channel_manager.generate_side_channel_messages())
        if not acting:
            return EncodedStepInput(wire_read.step_input("", [], side_channel))
        name = acting[0]
        discrete = vector_action[name].discrete
        per_agent = [[int(a) for a in row] for row in discrete[: len(self._env_state[name][0])]]
        return EncodedStepInput(wire_read.step_input(name, per_agent, side_channel))

    def _update_behavior_specs(self, output) -> None:
        if isinstance(output, wire_read.StepOutput):
            return  # a plain step output announces no behaviour
        super()._update_behavior_specs(output)

    def _update_state(self, output) -> None:
        # Decoding happens in observations.decode_agent; mlagents-envs only needs how many agents
        # asked for a decision (to size the actions it sends).
        for name in self._env_specs:
            protos = list(output.agentInfos[name].value) if name in output.agentInfos else []
            self.agent_protos[name] = protos
            self._env_state[name] = ([p for p in protos if not p.done], [p for p in protos if p.done])
        self._side_channel_manager.process_side_channel_message(output.side_channel)
