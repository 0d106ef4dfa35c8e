"""CausalWorld's evaluation metrics per protocol, computed from stored episodes.

Why from stored episodes: a CausalWorld evaluation here is an ordinary run (any participant, stored,
resumable), so its scores are a pure function of the run's episodes as the store holds them, and a
resumed or re-read run scores the same. Each episode carries CausalWorld's three per-episode
figures, computed by the backend from its fractional success after every 40 ms control step
(``agentkit.envs.trifinger.fractional_success_series``); this module only groups them by protocol
and averages, as ``causal_world/evaluation/evaluation.py`` ``evaluate_policy`` does with
``causal_world/metrics/`` (rr-learning/CausalWorld, MIT): per protocol, each metric's mean and its
population standard deviation (``np.mean``, ``np.std``) over that protocol's episodes, reported as
``mean_<metric>`` and ``std_<metric>``.

Which episodes count: every episode of the protocol with the figures, as CausalWorld counts every
episode it ran. An episode without a verdict (interrupted; ``--resume`` plays it again) is left out,
as is one that ended before its first control step (it has no figures); both are counted in
``left_out`` so a reader sees them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: causal_world/metrics/*.py ``name``s, in the order evaluation.py lists its metrics.
METRICS: tuple[str, ...] = (
    "full_integrated_fractional_success",
    "last_integrated_fractional_success",
    "last_fractional_success",
)
#: The metric the paper's bar chart shows.
CHART_METRIC = "last_fractional_success"


@dataclass(frozen=True)
class Score:
    """A metric's mean and population standard deviation over a protocol's episodes."""

    mean: float
    std: float


@dataclass(frozen=True)
class ProtocolScores:
    """One protocol's metrics: ``scores`` by metric name (empty when no episode counted)."""

    protocol: str
    episodes: int
    left_out: int
    scores: dict[str, Score]

    def to_json(self) -> dict[str, Any]:
        """CausalWorld's ``scores.json`` keys for the protocol (``mean_<metric>``, ``std_<metric>``)."""
        data: dict[str, Any] = {
            "protocol": self.protocol,
            "episodes": self.episodes,
            "left_out": self.left_out,
        }
        for name in METRICS:
            score = self.scores.get(name)
            data[f"mean_{name}"] = None if score is None else round(score.mean, 4)
            data[f"std_{name}"] = None if score is None else round(score.std, 4)
        return data


def protocol_of(episode: Mapping[str, Any]) -> str:
    """The protocol an episode played: its stored ``protocol``, else its task's ``@Pn`` suffix."""
    stored = episode.get("protocol")
    if stored:
        return str(stored)
    return str(episode.get("task", "")).partition("@")[2]


def _has_verdict(episode: Mapping[str, Any]) -> bool:
    """False for an episode the pass rule left without a verdict (``pass`` stored as None)."""
    return not ("pass" in episode and episode["pass"] is None)


def score(values: Sequence[float]) -> Score:
    """Mean and population standard deviation (numpy's default, as CausalWorld's metrics use)."""
    mean = sum(values) / len(values)
    return Score(mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)))


def protocol_scores(episodes: Iterable[Mapping[str, Any]], protocols: Sequence[str]) -> list[ProtocolScores]:
    """Each of ``protocols``' metrics over its episodes, in the order given (a protocol no episode
    played is listed with 0 episodes; episodes of other protocols are ignored)."""
    counted: dict[str, list[Mapping[str, Any]]] = {p: [] for p in protocols}
    left_out: dict[str, int] = dict.fromkeys(protocols, 0)
    for episode in episodes:
        protocol = protocol_of(episode)
        if protocol not in counted:
            continue
        if _has_verdict(episode) and all(episode.get(name) is not None for name in METRICS):
            counted[protocol].append(episode)
        else:
            left_out[protocol] += 1
    return [
        ProtocolScores(
            protocol=p,
            episodes=len(counted[p]),
            left_out=left_out[p],
            scores={name: score([float(e[name]) for e in counted[p]]) for name in METRICS if counted[p]},
        )
        for p in protocols
    ]
