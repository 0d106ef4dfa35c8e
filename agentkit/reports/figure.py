"""The report's figure: pass proportion per level for every column, with 95% intervals.

Why PNG plus a self-contained HTML page: the PNG goes into papers and slides; the HTML page
(the PNG inlined as a data URL, the same figures as a table, no external files or scripts) can be
mailed or attached to an issue and opened anywhere. The figure is drawn with matplotlib's object
API, which renders PNG through Agg: no display, and no pyplot state shared with the caller.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from agentkit.reports.aai_report import CI_METHOD, PASS_CRITERION, AAIReport
from agentkit.reports.proportions import Proportion

PNG_NAME = "aai_report.png"
HTML_NAME = "aai_report.html"


def _fmt(cell: Proportion) -> str:
    if cell.p is None:
        return "–"
    lo, hi = cell.ci95 or (0.0, 1.0)
    return f"{cell.p:.2f} [{lo:.2f}, {hi:.2f}] ({cell.passed}/{cell.n})"


def render_png(report: AAIReport) -> bytes:
    """Grouped bars (levels, then "all"), one colour per column, Wilson intervals as error bars."""
    # The object API renders PNG through Agg without pyplot, so no display and no global backend switch.
    from matplotlib.figure import Figure

    groups = [(str(level), report.level_tasks(level)) for level in report.levels] + [("all", report.tasks)]
    n_cols = len(report.shown_columns)
    width = 0.8 / max(n_cols, 1)
    fig = Figure(figsize=(min(16.0, 5.0 + 0.22 * len(groups) * max(1, n_cols)), 5.0), dpi=120, layout="constrained")
    ax = fig.subplots()
    for j, column in enumerate(report.shown_columns):
        xs, ys, low, high = [], [], [], []
        for i, (_, tasks) in enumerate(groups):
            cell = column.over(tasks)
            if cell.p is None:
                continue
            lo, hi = cell.ci95 or (cell.p, cell.p)
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(cell.p)
            low.append(max(0.0, cell.p - lo))  # a bar length is never negative, whatever the interval
            high.append(max(0.0, hi - cell.p))
        ax.bar(xs, ys, width=width, yerr=[low, high], capsize=2, label=column.label, error_kw={"linewidth": 0.8})
    ax.set_xticks(range(len(groups)), [g for g, _ in groups])
    ax.set_xlabel("level")
    ax.set_ylabel("proportion passed")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Animal-AI Testbed, {report.task_set or 'selected tasks'} ({len(report.tasks)} tasks)")
    # Below the axes, so no bar is hidden behind it.
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=min(4, max(1, n_cols)))
    ax.grid(axis="y", alpha=0.3)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def render_html(report: AAIReport, png: bytes) -> str:
    """A page holding the figure and the per-level table; every text from the data is escaped."""
    heads = "".join(f"<th>{html.escape(c.label)}</th>" for c in report.shown_columns)
    rows = []
    for level in report.levels:
        cells = report.cells(report.level_tasks(level))
        rows.append(f"<tr><td>{level}</td>" + "".join(
            f"<td>{html.escape(_fmt(cells[c.key]))}</td>" for c in report.shown_columns) + "</tr>")
    overall = report.cells(report.tasks)
    rows.append("<tr class=all><td>all</td>" + "".join(
        f"<td>{html.escape(_fmt(overall[c.key]))}</td>" for c in report.shown_columns) + "</tr>")
    top = ", ".join(f"{html.escape(name)} ({p:.3f})" for name, p in report.olympics_top)
    image = base64.b64encode(png).decode("ascii")
    rules = ", ".join(f"{html.escape(run_id)}: {html.escape(rule or 'not recorded')}"
                      for run_id, rule in report.pass_rules.items()) or "none"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Animal-AI comparison report</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:70em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:right}}tr.all{{font-weight:bold}}
img{{max-width:100%}}</style></head><body>
<h1>Animal-AI comparison: {html.escape(report.task_set or 'selected tasks')}</h1>
<img alt="pass proportion per level" src="data:image/png;base64,{image}">
<table><tr><th>level</th>{heads}</tr>
{chr(10).join(rows)}
</table>
<p>Cells: proportion passed [95% interval] (passed/pairs). {html.escape(CI_METHOD)}.</p>
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
