"""Where the agent was after every low-level step of an episode, by replaying its stored actions.

Why a replay: the store keeps one observation per turn (what the model saw before its script), so
a map drawn from it has one dot per turn and straight lines between them, through walls, across
a detour of 40 steps. Per-step positions are not stored (no backend reports them, and the turn
record has no place for them), and parsing them out of status text would be a guess. But every
low-level action of every turn is stored, and a backend is deterministic for its (task, seed,
options, task file): stepping the stored actions through a fresh backend, as ``agentkit replay``
does with the stored answers, gives every step's position exactly.

The replay is checked against the record before it is believed: the pose the replay reaches at the
start of each turn must be the pose stored with that turn's observation (to their stored rounding).
On any difference (a multi-arena file whose arena depends on earlier resets, a changed simulator),
on a backend whose observations carry no pose, or when the backend cannot be built here, there is no
step path and the map keeps its one dot per turn; the reason is given on the page. Only a backend
that declares ``replays_in_viewer`` is rebuilt (pybullet's arena: nothing is started, and a task's
file text comes from the store), so a database from elsewhere never makes a page launch a program
its run config names (a Unity build). Frames are not rendered (the backend's ``frameless_options``),
and replays run one at a time.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentkit.observers.pose import Pose
from agentkit.transcripts import TranscriptReader
from agentkit.viewer.trajectory import pose_of

if TYPE_CHECKING:  # its module brings numpy; the replay that makes one imports it when it runs
    from agentkit.observers.observation import RawObservation

log = logging.getLogger(__name__)

MAX_STEPS = 20_000  # longer episodes are not replayed for a page (a few seconds of physics at most)
TOLERANCE = 0.011  # stored poses are rounded to 2 decimals
_REPLAYS = threading.Lock()


@dataclass(frozen=True)
class StepPath:
    """``points[i]``: (turn, pose) after each step, starting with the pose at reset (turn 0); the
    steps of a protocol's start (``agentkit.protocols``: llm-aai's 49 before the first answer), and
    then the reset, count as turn -1. Empty with ``reason`` saying why there is no step path."""

    points: list[tuple[int, Pose]] = field(default_factory=list)
    reason: str = ""
    applies: bool = True  # False: the backend is never replayed here (not a failure worth a word on the page)

    def __bool__(self) -> bool:
        return bool(self.points)


def _close(a: Pose | None, b: Pose | None) -> bool:
    return a is not None and b is not None and abs(a.x - b.x) <= TOLERANCE and abs(a.y - b.y) <= TOLERANCE


def _pose(raw: RawObservation) -> Pose | None:
    """Where the replayed backend says the agent is (its typed pose, as the store keeps it)."""
    return raw.pose


def replay_step_path(store: TranscriptReader, episode_id: str) -> StepPath:
    """The step path of a stored episode (see the module's docstring), or an empty one with a reason."""
    from agentkit.config import RunConfig
    from agentkit.envs import get_backend

    episode = store.get_episode(episode_id)
    try:
        config = RunConfig.from_stored(store.get_run(episode.run_id).config)
    except Exception as exc:  # a stored config this version cannot read
        return StepPath(reason=f"the run's stored configuration cannot be read here ({exc})")
    try:
        backend_cls = get_backend(config.env)
    except ValueError as exc:  # a backend whose extra is missing here
        return StepPath(reason=f"backend {config.env!r} is not available here ({exc})")
    if (
        not backend_cls.replays_in_viewer
    ):  # it would start a program (a Unity build, a server): never from a page
        return StepPath(reason=f"backend {config.env!r} is not replayed by the viewer", applies=False)
    turns = store.get_turns(episode_id, with_messages=False)
    if not turns:
        return StepPath(reason="the episode has no turns")
    if sum(len(t.actions or []) for t in turns) > MAX_STEPS:
        return StepPath(reason=f"more than {MAX_STEPS} steps: not replayed for a page")
    recorded = [pose_of(t.observation) for t in turns]
    if recorded[0] is None:
        return StepPath(reason="no positions are stored with this backend's observations", applies=False)
    with _REPLAYS:
        try:  # the stored options, frames always off (a stored frames=True would only cost time)
            backend = backend_cls(**{**config.backend_options, **backend_cls.frameless_options})
        except Exception as exc:  # options this version's backend does not take
            return StepPath(
                reason=f"backend {config.env!r} cannot be started with the stored options ({exc})"
            )
        try:
            return _walk(
                store, episode_id, episode.task, episode.seed, backend, turns, recorded, config.protocol
            )
        except Exception as exc:  # the simulator raised: no path, the page still works
            log.warning("episode %s: replaying its actions for the map failed: %s", episode_id, exc)
            return StepPath(reason=f"replaying the stored actions failed ({type(exc).__name__})")
        finally:
            backend.close()


def _walk(
    store: TranscriptReader,
    episode_id: str,
    task: str,
    seed: int,
    backend: Any,
    turns: list[Any],
    recorded: list[Pose | None],
    protocol_name: str = "agentkit",
) -> StepPath:
    from agentkit.offline.replay import use_stored_source
    from agentkit.protocols import protocol_named

    protocol = protocol_named(protocol_name)
    use_stored_source(store, episode_id, task, backend)
    here = _pose(backend.reset(task, seed))
    if here is None:
        return StepPath(reason="this backend's observations carry no pose")
    points = [(-1 if protocol.has_start else 0, here)]
    if protocol.has_start:  # the idle steps before the first answer, as the loop stepped them
        (idle,) = backend.idle_actions()
        for _ in range(protocol.start_steps):
            result = backend.step(idle)
            here = _pose(backend.observe())
            if here is None:
                return StepPath(reason="this backend's observations carry no pose")
            points.append((-1, here))
            if result.done:
                break
    for turn, want in zip(turns, recorded):
        if not _close(here, want):
            return StepPath(
                reason=f"the replay left the record at turn {turn.index} (a pose differs), so it is not drawn"
            )
        for action in turn.actions or []:
            result = backend.step(action)
            here = _pose(backend.observe())
            if here is None:
                return StepPath(reason="this backend's observations carry no pose")
            points.append((turn.index, here))
            if result.done:
                break
    return StepPath(points)
