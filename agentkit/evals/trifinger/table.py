"""The console table of a CausalWorld evaluation: per protocol, the bar chart's numbers.

Why a table of its own: the paper's figure shows the mean last fractional success per protocol;
the terminal shows the same numbers (with their standard deviation and a bar of text, so a glance
finds the protocols that broke the participant) in under 80 columns. The integrated metrics are in
``--json`` and the figure's file, not here, to keep the table to what the chart shows.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from agentkit.envs.trifinger.protocols import BENCHMARKS
from agentkit.evals.trifinger.metrics import CHART_METRIC

BAR_WIDTH = 20  # characters for a fractional success of 1


def text_bar(value: float | None) -> str:
    """``value`` in [0, 1] as a row of block characters (eighths), ``BAR_WIDTH`` long at 1."""
    if value is None:
        return ""
    eighths = round(max(0.0, min(1.0, value)) * BAR_WIDTH * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + ("" if rest == 0 else " ▏▎▍▌▋▊▉"[rest])


def protocol_table(scores: dict[str, Any]) -> Table:
    """One row per protocol: its intervention space, episodes counted, mean and std of the last
    fractional success, and the bar."""
    task = scores["task"]
    table = Table(
        title=f"CausalWorld evaluation: {task}, mean last fractional success",
        caption=f"episodes per protocol: {scores['episodes_per_protocol']}, seeds from "
        f"{scores['first_seed']}; std: population (CausalWorld's)",
    )
    table.add_column("protocol")
    table.add_column("space")
    table.add_column("episodes", justify="right")
    table.add_column("mean", justify="right")
    table.add_column("std", justify="right")
    table.add_column("", justify="left", min_width=BAR_WIDTH)
    for row in scores["protocols"]:
        protocol = BENCHMARKS[task].get(row["protocol"])
        mean, std = row[f"mean_{CHART_METRIC}"], row[f"std_{CHART_METRIC}"]
        left_out = f" (+{row['left_out']} left out)" if row["left_out"] else ""
        table.add_row(
            row["protocol"],
            protocol.space.replace("_", "+") if protocol else "",
            f"{row['episodes']}{left_out}",
            "–" if mean is None else f"{mean:.3f}",
            "–" if std is None else f"{std:.3f}",
            text_bar(mean),
        )
    return table
