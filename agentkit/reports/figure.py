"""The report's figure: pass proportion per level for every column, with 95% intervals.

Why PNG plus a self-contained HTML page: the PNG goes into papers and slides; the HTML page
(the PNG inlined as a data URL, the same figures as a table, no external files or scripts) can be
mailed or attached to an issue and opened anywhere. The figure is drawn with matplotlib's object
API, which renders PNG through Agg: no display, and no pyplot state shared with the caller.

What a reader must not misread: a column that passed nothing at a level (0/12, the normal case
for a model on the hard levels) is drawn as a short outlined stub labelled with its count, so it
is not taken for a level the column did not play (no bar at all); levels carry their names; and
the two intervals (Wilson's over pairs, the clustered one of ``clustered``) are told apart in the
legend's title, which states both methods.
"""

from __future__ import annotations

import base64
import html
import io
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentkit.reports.aai_report import CI_METHOD, PASS_CRITERION, AAIReport
from agentkit.reports.clustered import CLUSTER_METHOD
from agentkit.reports.proportions import Proportion

PNG_NAME = "aai_report.png"
HTML_NAME = "aai_report.html"


STUB = 0.012  # the height a 0% bar is drawn at, so it is seen (and labelled "0/n"), not mistaken for no data
FIGURE_NOTE = (
    "Thin bars with caps: Wilson 95% over (participant x task) pairs. Thick bars: cluster-robust 95% "
    "(children and Olympics entrants clustered by participant, runs by task). "
    "A 0% bar is a stub labelled passed/pairs."
)


def _fmt(cell: Proportion, clustered: tuple[float, float] | None = None) -> str:
    if cell.p is None:
        return "–"
    lo, hi = cell.ci95 or (0.0, 1.0)
    by = f" {{{clustered[0]:.2f}, {clustered[1]:.2f}}}" if clustered else ""
    return f"{cell.p:.2f} [{lo:.2f}, {hi:.2f}]{by} ({cell.passed}/{cell.n})"


@dataclass(frozen=True)
class Bar:
    """One drawn bar: where, how high (a 0% bar gets the STUB height), its label and intervals."""

    column: str  # the column's label
    x: float
    p: float
    height: float
    text: str  # "passed/pairs", drawn over 0% bars
    wilson: tuple[float, float]
    clustered: tuple[float, float] | None


def _groups(report: AAIReport) -> list[tuple[str, list[str]]]:
    return [(report.level_title(level), report.level_tasks(level)) for level in report.levels] + [
        ("all", report.tasks)
    ]


def bars(report: AAIReport) -> list[list[Bar]]:
    """The bars of each shown column, left to right (groups without pairs are left out)."""
    groups = _groups(report)
    width = 0.8 / max(len(report.shown_columns), 1)
    out = []
    for j, column in enumerate(report.shown_columns):
        row = []
        for i, (_, tasks) in enumerate(groups):
            cell = column.over(tasks)
            if cell.p is None:
                continue
            row.append(
                Bar(
                    column.label,
                    i - 0.4 + width * (j + 0.5),
                    cell.p,
                    max(cell.p, STUB),
                    f"{cell.passed}/{cell.n}",
                    cell.ci95 or (cell.p, cell.p),
                    column.clustered(tasks),
                )
            )
        out.append(row)
    return out


def _spans(row: list[Bar], interval: str) -> list[list[float]]:
    """Error bar lengths below and above each bar's p, never negative (matplotlib refuses those)."""
    low, high = [], []
    for bar in row:
        lo, hi = getattr(bar, interval) or (bar.p, bar.p)
        low.append(max(0.0, bar.p - lo))
        high.append(max(0.0, hi - bar.p))
    return [low, high]


def figure_of(report: AAIReport) -> Any:
    """The matplotlib Figure: grouped bars (levels by name, then "all"), one colour per column, both
    intervals, and the methods written under the axes."""
    # The object API renders PNG through Agg without pyplot, so no display and no global backend switch.
    from matplotlib.figure import Figure

    groups = _groups(report)
    n_cols = len(report.shown_columns)
    width = 0.8 / max(n_cols, 1)
    fig = Figure(
        figsize=(min(18.0, 6.0 + 0.3 * len(groups) * max(1, n_cols)), 6.2), dpi=120, layout="constrained"
    )
    ax = fig.subplots()
    for row, column in zip(bars(report), report.shown_columns):
        if not row:
            continue
        xs = [b.x for b in row]
        drawn = ax.bar(xs, [b.height for b in row], width=width, label=column.label)
        colour = drawn.patches[0].get_facecolor()
        for bar, patch in zip(row, drawn.patches):
            if bar.p == 0:  # a stub with a dark edge and its count: "none passed", not "not played"
                patch.set_edgecolor("black")
                patch.set_linewidth(0.8)
                ax.annotate(
                    bar.text,
                    (bar.x, bar.height),
                    xytext=(0, 2),
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    rotation=90 if n_cols > 4 else 0,
                )
        ax.errorbar(
            xs,
            [b.p for b in row],
            yerr=_spans(row, "wilson"),
            fmt="none",
            ecolor="black",
            elinewidth=0.8,
            capsize=2,
        )
        clustered = [b for b in row if b.clustered is not None]
        if clustered:
            ax.errorbar(
                [b.x + width * 0.22 for b in clustered],
                [b.p for b in clustered],
                yerr=_spans(clustered, "clustered"),
                fmt="none",
                ecolor=colour,
                elinewidth=2.6,
                capsize=0,
                alpha=0.9,
            )
    ax.set_xticks(range(len(groups)), [g for g, _ in groups], rotation=30, ha="right", fontsize="small")
    ax.set_xlabel("level")
    ax.set_ylabel("proportion passed")
    ax.set_ylim(0, 1.08)
    ax.set_title(title_of(report), fontsize="medium")
    # Below the axes, so no bar is hidden behind it; its title states how the intervals were made.
    ax.legend(
        fontsize="small",
        loc="upper center",
        bbox_to_anchor=(0.5, -0.3),
        ncol=min(4, max(1, n_cols)),
        title="\n".join(textwrap.wrap(FIGURE_NOTE, 130)),
        title_fontsize=7.5,
    )
    ax.grid(axis="y", alpha=0.3)
    return fig


def title_of(report: AAIReport) -> str:
    """The figure's title, saying what it covers: ``Animal-AI Testbed, aai-children40: 4 of 40 tasks;
    levels 1, 3`` and, when not every selected task is compared, why, on the lines under it."""
    coverage = report.coverage
    if coverage is None:
        return f"Animal-AI Testbed, {report.task_set or 'selected tasks'} ({len(report.tasks)} tasks)"
    title = f"Animal-AI Testbed, {report.task_set or 'selected tasks'}: {coverage.summary()}"
    if coverage.partial:
        title += "\n" + "\n".join(textwrap.wrap(coverage.caption(), 110))
    return title


def render_png(report: AAIReport) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    # "tight": the legend sits below the axes (bbox_to_anchor), which constrained layout alone cut off
    figure_of(report).savefig(buffer, format="png", bbox_inches="tight", pad_inches=0.15)
    return buffer.getvalue()


def render_html(report: AAIReport, png: bytes) -> str:
    """A page holding the figure and the per-level table; every text from the data is escaped."""
    heads = "".join(f"<th>{html.escape(c.label)}</th>" for c in report.shown_columns)
    rows = []
    for level in report.levels:
        tasks = report.level_tasks(level)
        rows.append(
            f"<tr><td>{html.escape(report.level_title(level))}</td>"
            + "".join(
                f"<td>{html.escape(_fmt(c.over(tasks), c.clustered(tasks)))}</td>"
                for c in report.shown_columns
            )
            + "</tr>"
        )
    rows.append(
        "<tr class=all><td>all</td>"
        + "".join(
            f"<td>{html.escape(_fmt(c.over(report.tasks), c.clustered(report.tasks)))}</td>"
            for c in report.shown_columns
        )
        + "</tr>"
    )
    top = ", ".join(f"{html.escape(name)} ({p:.3f})" for name, p in report.olympics_top)
    image = base64.b64encode(png).decode("ascii")
    rules = (
        ", ".join(
            f"{html.escape(run_id)}: {html.escape(rule or 'not recorded')}"
            for run_id, rule in report.pass_rules.items()
        )
        or "none"
    )
    covered = f" ({html.escape(report.coverage.summary())})" if report.coverage else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Animal-AI comparison report</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:70em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:right}}tr.all{{font-weight:bold}}
img{{max-width:100%}}</style></head><body>
<h1>Animal-AI comparison: {html.escape(report.task_set or "selected tasks")}{covered}</h1>
<p class=coverage>{html.escape(report.coverage.caption() if report.coverage else "")}</p>
<img alt="pass proportion per level" src="data:image/png;base64,{image}">
<table><tr><th>level</th>{heads}</tr>
{chr(10).join(rows)}
</table>
<p>Cells: proportion passed [Wilson 95% interval] {{clustered 95% interval}} (passed/pairs).
[{html.escape(CI_METHOD)}] {{{html.escape(CLUSTER_METHOD)}}}.</p>
<p>Children: the {len(report.children_ids)} children with no missing task (Voudouris et al. 2022).
Olympics top 10 by proportion passed over all 900 tasks (Crosby et al. 2020): {top}.</p>
<p>{html.escape(PASS_CRITERION)} Pass rule of each run: {rules}.</p>
</body></html>
"""


def write_figure(report: AAIReport, out_dir: Path) -> dict[str, Path]:
    """Write the PNG and the HTML page into ``out_dir`` (created if needed); returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    png = render_png(report)
    png_path, html_path = out_dir / PNG_NAME, out_dir / HTML_NAME
    png_path.write_bytes(png)
    html_path.write_text(render_html(report, png), encoding="utf-8")
    return {"png": png_path, "html": html_path}
