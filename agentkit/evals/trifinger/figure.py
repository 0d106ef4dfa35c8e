"""The CausalWorld paper's bar chart of an evaluation: mean last fractional success per protocol.

Why drawn like the paper: a reader puts it beside the paper's figure
(``causal_world/evaluation/visualization/bar_plots.py`` ``bar_plots_with_protocol_table``,
rr-learning/CausalWorld, MIT), so it keeps that figure's reading: one bar per protocol, the
y axis "fractional success" from 0 to 1.2, error bars of one standard deviation below the mean and,
above it, the standard deviation capped at 1 (fractional success never exceeds 1). Each bar is
labelled with its mean; under each protocol's name its intervention space (A, B, A+B).
Drawn with matplotlib's object API on Agg (the ``report`` extra): no display, no pyplot state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentkit.evals.trifinger.metrics import CHART_METRIC, ProtocolScores

#: bar_plots.py: ``ax.set_ylim((0, 1.2))``, ``ax.set_ylabel('fractional success')``.
Y_LIMIT = 1.2
BAR_COLOUR = "#3182bd"  # bar_plots_with_protocol_table's first colour


def error_bars(mean: float, std: float) -> tuple[float, float]:
    """(below, above) the mean: the std below, and above it the std capped so the bar stays <= 1."""
    return std, min(std, 1.0 - mean)


def write_protocol_chart(rows: Sequence[ProtocolScores], task: str, model: str, path: Path) -> Path:
    """Draw the chart of ``rows`` (a protocol without episodes gets a dash, no bar) into ``path`` (PNG)."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError(
            "--figure: drawing needs matplotlib (pip install 'agentkit-embodied[report]')"
        ) from None
    from matplotlib.figure import Figure

    from agentkit.envs.trifinger.protocols import BENCHMARKS

    matplotlib.use("Agg")
    figure = Figure(figsize=(max(5.0, 0.55 * len(rows) + 1.5), 3.2))
    axes = figure.subplots()
    xs = list(range(len(rows)))
    means = [r.scores[CHART_METRIC].mean if CHART_METRIC in r.scores else 0.0 for r in rows]
    spread = [
        error_bars(r.scores[CHART_METRIC].mean, r.scores[CHART_METRIC].std)
        if CHART_METRIC in r.scores
        else (0.0, 0.0)
        for r in rows
    ]
    axes.bar(
        xs,
        means,
        0.7,
        yerr=([s[0] for s in spread], [s[1] for s in spread]),
        error_kw={"lw": 1, "capsize": 2, "capthick": 1},
        color=BAR_COLOUR,
        label=f"{model} ({max((r.episodes for r in rows), default=0)} episodes per protocol)",
    )
    for x, row, mean, (_, above) in zip(xs, rows, means, spread):
        label = f"{mean:.2f}" if CHART_METRIC in row.scores else "–"  # no episode counted
        axes.annotate(label, (x, mean + above), xytext=(0, 3), textcoords="offset points", ha="center")
    spaces = {name: p.space.replace("_", "+") for name, p in BENCHMARKS.get(task, {}).items()}
    axes.set_xticks(xs, [f"{r.protocol}\n{spaces.get(r.protocol, '')}" for r in rows])
    axes.set_ylim((0, Y_LIMIT))
    axes.set_ylabel("fractional success")
    axes.set_title(f"CausalWorld {task}: mean last fractional success", fontsize=9)
    axes.legend(loc="upper right", fontsize=7)
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=150)
    return path
