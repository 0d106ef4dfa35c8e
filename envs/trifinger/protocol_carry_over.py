"""What a CausalWorld protocol episode inherits from the episodes run before it on the same env.

Why: CausalWorld evaluates a policy by running protocol after protocol, episode after episode, on
one environment (``evaluation/evaluation.py`` ``evaluate_policy``; ``scripts/reproduce_experiments.py``,
which produced the paper's numbers, runs ``benchmark/benchmarks.py``'s whole list in order, 200
episodes each: ``evaluation/protocols/protocol.py`` ``num_evaluation_episodes_default``). A reset
gives back the task's starting objects (``envs/causalworld.py`` ``reset`` -> ``base_task.py``
``reset_task`` restores ``_current_starting_state``, which ``ProtocolWrapper``'s ``do_intervention``
never changes), but not the task's intervention spaces: ``base_task.py`` ``apply_interventions``
calls the task's ``_adjust_variable_spaces_after_intervention`` after every accepted intervention,
and its edits stay for every later episode and protocol. Two of them change later draws:

* a size intervention (every P3 episode; P10/P11 episodes whose coin chose sizes) sets the height
  range of the block and goal positions from the new size (``pushing.py``, ``pick_and_place.py``:
  both pinned to the new half height; ``picking.py``: the low end of both ranges). A later position
  draw uses that height while the reset has given the objects back their default size: pushing's
  and pick_and_place's goal floats above the floor (or sinks into it), picking's goal may come lower
  than 8 cm;
* ``pick_and_place.py`` puts the block's sector on the side of the last block position an
  intervention set and the goal's sector on the other side. A size intervention sets the block's
  current position (``_handle_contradictory_interventions``), its default place at -y after a reset;
  the initial spaces put the block's sector at +y, the side of the default goal, and give the goal's
  sector a low angle above its high one (-30 > -150 degrees), which ``is_intervention_in_bounds``
  refuses for every value until a block position reorders it. So on a fresh environment P4 (block
  moved) puts block and goal on the same side and P5-P9 run unintervened; after P3 (the paper's
  sequence) P4/P5 put them on opposite sides.

agentkit draws every episode from (task, protocol, seed) alone. To keep that (reproducible per seed)
and still draw what CausalWorld draws, seed k is taken as episode k of its protocol, and what it
inherits is found by looking back: the nearest earlier episode that was an accepted size draw
(each earlier seed's own draw, made without carry-over: a size draw never depends on it, and a
position draw's acceptance does not either, since its rigid block starts resting and only the goal's
height changes; on a fresh pick_and_place env, the first size episode's own draw, since the
episodes before it are refused). Checked against CausalWorld's own code:
``bench/causalworld_protocol_sequence.py``. Modes (``CARRY_OVER_MODES``):

* ``benchmark``: CausalWorld's published pipeline: before a protocol's episode 0 come all the
  protocols benchmarks.py lists before it, 200 episodes each (P4-P9 inherit P3's last size);
* ``protocol``: the protocol alone on a fresh environment (``EvaluationPipeline([protocol])``, as
  the tutorials run one);
* ``none``: every episode from the task's initial spaces (agentkit's draw before issue 28 item 6).
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass

from agentkit.envs.trifinger.protocols import BENCHMARKS, protocol_for

logger = logging.getLogger(__name__)

CARRY_OVER_MODES: tuple[str, ...] = ("benchmark", "protocol", "none")
#: The carry-over each profile draws with when none is asked for: the causalworld profile draws what
#: the paper's evaluation drew, the agentkit profile keeps its independent draws.
DEFAULT_CARRY_OVER = {"causalworld": "benchmark", "agentkit": "none"}
#: evaluation/protocols/protocol.py num_evaluation_episodes_default, times reproduce_experiments.py's
#: fraction 1.0: the episodes of each protocol before the next one starts.
EPISODES_PER_PROTOCOL = 200
#: Tasks whose _adjust_variable_spaces_after_intervention changes later draws (stacking2.py and
#: reaching.py have none).
ADJUSTING_TASKS = ("pushing", "picking", "pick_and_place")
#: Protocols of those tasks whose accepted draws can change sizes (benchmarks.py: P3 sizes only,
#: P10/P11 FullyRandomProtocol's size episodes).
SIZE_PROTOCOLS = ("P3", "P10", "P11")
#: pick_and_place.py _set_intervention_space_a/_b: the block's initial sector is at +y.
INITIAL_BLOCK_SIDE = 1.0


@dataclass(frozen=True)
class Inherited:
    """The edits to a task's spaces an episode starts with; ``None`` fields mean the initial spaces."""

    #: Height (z size) of the block after the last accepted size intervention before this episode.
    size_z: float | None = None
    #: pick_and_place: the side of the wall (+1 is +y) the block's sector is on; the goal's is opposite.
    block_side: float | None = None
    #: Which earlier episode set ``size_z`` ("P3 episode 199"), for records and logs.
    source: str = ""
    #: pick_and_place on an env no block position was applied to yet: its initial goal sector has its
    #: low angle above its high one (-30 > -150 degrees), so every goal position is out of bounds.
    goal_sector_reversed: bool = False


def carry_over_mode(carry_over: str | None, profile: str) -> str:
    """``carry_over`` checked, or the profile's default when it is None."""
    mode = DEFAULT_CARRY_OVER.get(profile, "none") if carry_over is None else carry_over
    if mode not in CARRY_OVER_MODES:
        raise ValueError(f"carry_over must be one of {', '.join(CARRY_OVER_MODES)}, got {carry_over!r}")
    return mode


def _draws_positions(task: str, protocol: str) -> bool:
    spec = protocol_for(task, protocol)
    return spec.fully_random or bool(spec.second and re.fullmatch(spec.second, "cylindrical_position"))


def size_drawn(task: str, protocol: str, episode: int, profile: str) -> float | None:
    """The block height an accepted ``task@protocol`` draw of ``episode`` set, or None (no size
    changed, or no feasible draw: CausalWorld then adjusts nothing)."""
    from agentkit.envs.trifinger.sampling import ProtocolDrawError

    try:
        return _accepted_size(task, protocol, episode, profile)
    except ProtocolDrawError:
        return None


@functools.lru_cache(maxsize=8192)
def _accepted_size(task: str, protocol: str, episode: int, profile: str) -> float | None:
    """``size_drawn`` for a feasible draw, cached per process (a draw is a function of its arguments);
    a failed draw raises and is not cached, so a check patched to refuse everything leaves no trace."""
    from agentkit.envs.trifinger.sampling import draw_protocol

    draw = draw_protocol(task, protocol, episode, profile, carry_over="none")
    size = draw.intervention.get("tool_block", {}).get("size")
    return None if size is None else float(size[2])


def clear_cache() -> None:
    """Forget the earlier episodes' draws looked up so far (tests; a changed feasibility rule)."""
    _accepted_size.cache_clear()
    _FIRST_SIZE.clear()


def _earlier_episodes(task: str, protocol: str, seed: int, mode: str) -> list[tuple[str, range]]:
    """The earlier episodes that can carry a size, nearest first, as (protocol, episodes) spans."""
    spans = [(protocol, range(seed - 1, -1, -1))] if protocol in SIZE_PROTOCOLS else []
    if mode == "benchmark":
        names = list(BENCHMARKS[task])
        for earlier in reversed(names[: names.index(protocol)]):
            if earlier in SIZE_PROTOCOLS:
                spans.append((earlier, range(EPISODES_PER_PROTOCOL - 1, -1, -1)))
    return spans


def inherited(task: str, protocol: str, seed: int, mode: str, profile: str) -> Inherited:
    """What episode ``seed`` of ``task@protocol`` inherits under ``mode`` (see the module's doc)."""
    if mode == "none" or task not in ADJUSTING_TASKS or not _draws_positions(task, protocol):
        return Inherited()
    first = (
        _first_size_on_fresh_env(task, protocol, profile) if _starts_reversed(task, protocol, mode) else None
    )
    if first is not None and seed <= first[0]:
        return _fresh(task)
    for name, episodes in _earlier_episodes(task, protocol, seed, mode):
        for episode in episodes:
            if first is not None and episode == first[0]:
                return _after_size(task, first[1], f"{name} episode {episode}")
            size_z = size_drawn(task, name, episode, profile)
            if size_z is not None:
                return _after_size(task, size_z, f"{name} episode {episode}")
    return _fresh(task)


def _fresh(task: str) -> Inherited:
    """The initial spaces: pick_and_place's block sector at +y and its goal sector reversed."""
    if task != "pick_and_place":
        return Inherited()
    return Inherited(None, INITIAL_BLOCK_SIDE, goal_sector_reversed=True)


def _after_size(task: str, size_z: float, source: str) -> Inherited:
    """After a size intervention: its height, and pick_and_place's sectors at the default block's side."""
    logger.debug("%s inherits block height %.4f from %s", task, size_z, source)
    return Inherited(size_z, _default_block_side(task), source)


def _starts_reversed(task: str, protocol: str, mode: str) -> bool:
    """Whether the protocol's first episodes meet pick_and_place's reversed goal sector (a fresh env,
    a protocol that draws the goal's position)."""
    if mode != "protocol" or task != "pick_and_place":
        return False
    spec = protocol_for(task, protocol)
    return spec.fully_random or bool(spec.first and re.fullmatch(spec.first, "goal_block"))


_FIRST_SIZE: dict[tuple[str, str, str], tuple[int, float]] = {}


def _first_size_on_fresh_env(task: str, protocol: str, profile: str) -> tuple[int, float] | None:
    """The first episode, on a fresh env, whose draw is an accepted size intervention, and its height.
    Until it, pick_and_place's goal positions are refused as out of bounds (P5-P9 never get one: every
    draw moves the goal; P10/P11's refused position draws are redrawn, mostly as sizes, at episode 0).
    Found episodes are remembered per process (``clear_cache``); a search that found none is not."""
    from agentkit.envs.trifinger.sampling import ProtocolDrawError, draw_inheriting

    key = (task, protocol, profile)
    if protocol not in SIZE_PROTOCOLS or key in _FIRST_SIZE:
        return _FIRST_SIZE.get(key)
    for episode in range(EPISODES_PER_PROTOCOL):
        try:
            draw = draw_inheriting(task, protocol, episode, profile, "protocol", _fresh(task))
        except ProtocolDrawError:
            continue
        size = draw.intervention.get("tool_block", {}).get("size")
        if size is not None:
            _FIRST_SIZE[key] = (episode, float(size[2]))
            return _FIRST_SIZE[key]
    return None


def _default_block_side(task: str) -> float | None:
    """The side of the wall pick_and_place's default block is on (reset puts it back there)."""
    if task != "pick_and_place":
        return None
    from agentkit.envs.trifinger.tasks import default_scene

    return 1.0 if default_scene(task).blocks[0].position[1] > 0 else -1.0
