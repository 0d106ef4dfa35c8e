"""Two runs side by side: which tasks each passed, with what reward and tokens, per task and per level,
and where paired episodes part.

Why: the question after changing a prompt or a model is "what got better, what got worse, and
where exactly did the new agent first do something different". A pass rate that did not move can
hide a reward that did, or answers that now cost twice the tokens, so each tally carries the mean
reward and tokens of the episodes it judged, beside the passes. Episodes are paired by
(task, seed), the key that makes two episodes start from the same world; of relaunched attempts
the latest counts, as in scoring. The per-level rows of an Animal-AI run carry the Testbed's level
names ("L4 Avoidance"), from the table the report uses (``agentkit.reports.levels``: the viewer and
the reports sit in the same layer, and that package imports only the standard library and the
store, so no leaf copy of the table is needed).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from agentkit.outcome_words import FAILED, INCOMPLETE, PASSED, stored_outcome
from agentkit.reports.levels import level_title
from agentkit.transcripts.records import EpisodeInfo
from agentkit.viewer.queries import TurnDetail, ViewerData

# The backends that play Animal-AI tasks (envs/arena, envs/animalai): their "level" metric is the
# Testbed level of the task id NN-TT-VV, which agentkit.reports.levels names.
ANIMAL_AI_ENVS = frozenset({"aai-arena", "animalai"})

# Fields of a stored observation that describe the world (not the prompt's wording).
_WORLD_FIELDS = ("step", "status_text", "ascii", "structured", "mission", "total_reward", "health", "done")


@dataclass(frozen=True)
class Cell:
    """One (task, seed) of the matrix: the episode of each run there, if any."""

    task: str
    seed: int
    a: EpisodeInfo | None
    b: EpisodeInfo | None
    a_outcome: str = INCOMPLETE  # PASSED, FAILED, INCOMPLETE or NO_VERDICT (agentkit.outcome_words)
    b_outcome: str = INCOMPLETE

    @property
    def change(self) -> str:
        """ "same", "gained" (b passes where a does not), "lost", or "missing"."""
        if self.a is None or self.b is None:
            return "missing"
        pa, pb = self.a_outcome == PASSED, self.b_outcome == PASSED
        if pa == pb:
            return "same"
        return "gained" if pb else "lost"

    def marks(self) -> list[tuple[EpisodeInfo | None, str]]:
        """(episode, outcome) of A then B, for the matrix."""
        return [(self.a, self.a_outcome), (self.b, self.b_outcome)]


@dataclass(frozen=True)
class Tally:
    """Passes (the verdict, agentkit.outcome_words) out of judged episodes, for a task or a level, for both runs."""

    name: str
    a_pass: int
    a_total: int
    b_pass: int
    b_total: int
    # Means over the same judged episodes as the pass counts (None: no such episode, or no figure):
    # the episode's total reward, and the tokens it spent (input plus output, every turn).
    a_reward: float | None = None
    b_reward: float | None = None
    a_tokens: float | None = None
    b_tokens: float | None = None

    @property
    def reward_delta(self) -> float | None:
        """B's mean reward minus A's."""
        return _difference(self.a_reward, self.b_reward)

    @property
    def tokens_delta(self) -> float | None:
        """B's mean tokens per episode minus A's."""
        return _difference(self.a_tokens, self.b_tokens)

    @staticmethod
    def rate(passed: int, total: int) -> float | None:
        return passed / total if total else None

    @property
    def a_rate(self) -> float | None:
        return self.rate(self.a_pass, self.a_total)

    @property
    def b_rate(self) -> float | None:
        return self.rate(self.b_pass, self.b_total)


@dataclass
class Comparison:
    run_a: str
    run_b: str
    seeds: list[int]
    rows: list[tuple[str, list[Cell | None]]]  # per task, one cell per seed (None: neither run has it)
    per_task: list[Tally]
    per_level: list[Tally]
    total: Tally


@dataclass
class Divergence:
    """Where two episodes of the same task and seed first differ, and in what."""

    a: EpisodeInfo
    b: EpisodeInfo
    turn: int | None  # the first turn that differs; None when every shared turn is the same
    differences: list[str] = field(default_factory=list)  # what differs at ``turn``
    shared_turns: int = 0
    a_turn: TurnDetail | None = None
    b_turn: TurnDetail | None = None


def _outcome(e: EpisodeInfo | None, rule: str | None) -> str:
    """The verdict the report and eval give ``e`` under its run's pass rule (INCOMPLETE if absent)."""
    if e is None:
        return INCOMPLETE
    return stored_outcome(e.status, e.success, e.end_reason, e.metrics, rule)


def _latest(episodes: list[EpisodeInfo]) -> dict[tuple[str, int], EpisodeInfo]:
    """The episode that counts for each (task, seed): the highest attempt, then the latest start."""
    best: dict[tuple[str, int], EpisodeInfo] = {}
    for e in episodes:
        key = (e.task, e.seed)
        cur = best.get(key)
        if cur is None or (e.attempt, e.started_at) >= (cur.attempt, cur.started_at):
            best[key] = e
    return best


def compare_runs(data: ViewerData, run_a: str, run_b: str) -> Comparison:
    """The pass/fail matrix and tallies of two runs (KeyError if either does not exist)."""
    rule_a = data.run(run_a).config.get("pass_rule")
    rule_b = data.run(run_b).config.get("pass_rule")
    a = _latest(data.all_episodes(run_a))
    b = _latest(data.all_episodes(run_b))
    keys = set(a) | set(b)
    tasks = sorted({t for t, _ in keys})
    seeds = sorted({s for _, s in keys})

    def cell(t: str, s: int) -> Cell:
        ea, eb = a.get((t, s)), b.get((t, s))
        return Cell(t, s, ea, eb, _outcome(ea, rule_a), _outcome(eb, rule_b))

    rows = [(t, [cell(t, s) if (t, s) in keys else None for s in seeds]) for t in tasks]

    def tally(name: str, cells: list[Cell]) -> Tally:
        judged = (PASSED, FAILED)
        ea = [(c.a, c.a_outcome) for c in cells if c.a is not None and c.a_outcome in judged]
        eb = [(c.b, c.b_outcome) for c in cells if c.b is not None and c.b_outcome in judged]
        return Tally(
            name,
            sum(o == PASSED for _, o in ea),
            len(ea),
            sum(o == PASSED for _, o in eb),
            len(eb),
            _mean([e.reward for e, _ in ea]),
            _mean([e.reward for e, _ in eb]),
            _mean([_tokens(e) for e, _ in ea]),
            _mean([_tokens(e) for e, _ in eb]),
        )

    all_cells = [c for _, cells in rows for c in cells if c is not None]
    per_task = [tally(t, [c for c in cells if c is not None]) for t, cells in rows]
    by_level: dict[str, list[Cell]] = defaultdict(list)
    for c in all_cells:
        level = _level(c.a) if c.a is not None else None
        if level is None and c.b is not None:
            level = _level(c.b)
        if level is not None:
            by_level[level].append(c)
    animal_ai = any(_env(data.run(r)) in ANIMAL_AI_ENVS for r in (run_a, run_b))
    per_level = [tally(level_label(lv, animal_ai), by_level[lv]) for lv in sorted(by_level, key=_level_order)]
    return Comparison(run_a, run_b, seeds, rows, per_task, per_level, tally("all tasks", all_cells))


def _mean(values: list[float | None]) -> float | None:
    """The mean of the values that are there; None when none is."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _tokens(e: EpisodeInfo) -> float | None:
    """Tokens an episode spent, input and output; None when the store has no count for it."""
    if e.input_tokens is None and e.output_tokens is None:
        return None
    return float((e.input_tokens or 0) + (e.output_tokens or 0))


def _env(run: Any) -> str | None:
    """The backend a stored run played (its ``env``, else its stored config's)."""
    return getattr(run, "env", None) or (getattr(run, "config", None) or {}).get("env")


def level_label(level: str, animal_ai: bool) -> str:
    """A per-level row's name: ``"L4 Avoidance"`` for an Animal-AI Testbed level, as the report names it
    (agentkit.reports.levels), else ``"level N"`` (another backend's levels have no such names)."""
    if animal_ai:
        try:
            return level_title(int(level))
        except ValueError:
            pass
    return f"level {level}"


def _level(e: EpisodeInfo) -> str | None:
    """A backend's "level" outcome measure (e.g. Animal-AI Testbed levels), if it stores one."""
    level = (e.metrics or {}).get("level")
    return None if level is None else str(level)


def _level_order(level: str) -> tuple[int, Any]:
    try:
        return (0, float(level))
    except ValueError:
        return (1, level)


def _same_world(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two stored observations describe the same state, judged on the views both runs stored.

    Runs may be configured with different views (one stores the structured view, the other not),
    so a view missing from either side is not a difference.
    """
    a, b = a or {}, b or {}
    ia = [i.get("sha256") for i in a.get("images") or [] if isinstance(i, dict)]
    ib = [i.get("sha256") for i in b.get("images") or [] if isinstance(i, dict)]
    if ia and ib and ia != ib:
        return False
    return all(a.get(k) == b.get(k) for k in _WORLD_FIELDS if a.get(k) is not None and b.get(k) is not None)


def first_divergence(data: ViewerData, episode_a: str, episode_b: str) -> Divergence:
    """Walk two episodes turn by turn and report the first turn where anything differs.

    What the model saw (the world part of the observation), its answer, the parsed script, the
    executed actions and the reward are compared separately, because they tell different stories:
    the same observation with a different answer is the model deciding otherwise; a different
    observation after the same actions is the world (or the backend) behaving differently.
    """
    a, b = data.episode(episode_a), data.episode(episode_b)
    ka, kb = data.turn_keys(episode_a), data.turn_keys(episode_b)
    n = min(len(ka), len(kb))
    checks = (
        ("answer", lambda t: t["answer"]),
        ("parsed script", lambda t: (t["script"], t["parse_error"])),
        ("actions", lambda t: t["actions"]),
        ("reward", lambda t: t["reward"]),
    )
    for i in range(n):
        here = [] if _same_world(ka[i]["observation"], kb[i]["observation"]) else ["observation"]
        here += [name for name, key in checks if key(ka[i]) != key(kb[i])]
        if here:
            return Divergence(
                a, b, i, here, n, data.turn(episode_a, ka[i]["index"]), data.turn(episode_b, kb[i]["index"])
            )
    div = Divergence(a, b, None, [], n)
    if len(ka) != len(kb):
        div.differences = [
            f"the same for {n} turns, then one episode goes on for {abs(len(ka) - len(kb))} more"
        ]
    return div
