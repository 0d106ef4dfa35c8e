"""Small inline SVG figures: per-turn series (reward, health, tokens, latency, cost) and the top-down map.

Why hand-written SVG: the figures are simple, must work in a static export with no script and no
network, and must stay small on episodes of thousands of turns (series longer than the figure is
wide are bucketed). Every text that comes from a transcript is escaped; the figures use SVG
presentation attributes only, so a strict Content-Security-Policy (no inline styles) holds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from html import escape

from markupsafe import Markup

from agentkit.observers.pose import Pose
from agentkit.observers.world_map import WorldMap, WorldShape
from agentkit.viewer.trajectory import GridMap

WIDTH = 640
MAX_COLUMNS = 200  # columns per figure; longer episodes put consecutive turns in one column
MAX_DOTS = 120  # clickable turn dots on the map: the turns near the current one, then a sample
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 64, 10, 24, 34  # room for tick values, the axis titles and the turn axis

COLORS = {
    "red": "#e23b3b",
    "green": "#2faa4a",
    "blue": "#3b6be2",
    "purple": "#8a46d6",
    "yellow": "#e0c21d",
    "grey": "#8a8a8a",
}
_COLOR_WORD = re.compile(r"\b(" + "|".join(COLORS) + r")\b")
_HEADING_DEG = {"east": 0.0, "south": 90.0, "west": 180.0, "north": 270.0}

TurnHref = Callable[[int], str]


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.0f}"
    if abs(v) >= 0.01:
        return f"{v:.2f}".rstrip("0").rstrip(".")
    if abs(v) >= 0.0001:
        return f"{v:.2g}"
    return f"{v:.1e}"


def _buckets(n: int) -> list[tuple[int, int]]:
    """[start, end) turn ranges, one per column: one turn each up to MAX_COLUMNS turns."""
    if n <= MAX_COLUMNS:
        return [(i, i + 1) for i in range(n)]
    size = math.ceil(n / MAX_COLUMNS)
    return [(i, min(n, i + size)) for i in range(0, n, size)]


def _frame(title: str, height: int, lo: float, hi: float, axis: str = "") -> list[str]:
    """The figure's frame: title, value axis with three labelled ticks and light grid lines, and the
    value axis's title (``axis``, e.g. "reward" or "tokens") written up its side."""
    bottom = height - _PAD_B
    mid = (lo + hi) / 2
    y_mid = (bottom + _PAD_T) / 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(title)}">',
        f'<text x="{_PAD_L}" y="15" class="chart-title">{escape(title)}</text>',
    ]
    for y in (_PAD_T, y_mid):
        parts.append(
            f'<line x1="{_PAD_L}" y1="{y:.1f}" x2="{WIDTH - _PAD_R}" y2="{y:.1f}" stroke="#e6e6e6"/>'
        )
    parts += [
        f'<line x1="{_PAD_L}" y1="{bottom}" x2="{WIDTH - _PAD_R}" y2="{bottom}" stroke="#999"/>',
        f'<line x1="{_PAD_L}" y1="{_PAD_T}" x2="{_PAD_L}" y2="{bottom}" stroke="#999"/>',
        f'<text x="{_PAD_L - 5}" y="{_PAD_T + 4}" text-anchor="end" class="tick">{escape(_fmt(hi))}</text>',
        f'<text x="{_PAD_L - 5}" y="{y_mid + 4:.1f}" text-anchor="end" class="tick">{escape(_fmt(mid))}</text>',
        f'<text x="{_PAD_L - 5}" y="{bottom + 4}" text-anchor="end" class="tick">{escape(_fmt(lo))}</text>',
    ]
    if axis:
        parts.append(
            f'<text x="12" y="{y_mid:.1f}" text-anchor="middle" transform="rotate(-90 12 {y_mid:.1f})" '
            f'class="axis-title">{escape(axis)}</text>'
        )
    return parts


class _Columns:
    """The x layout of a per-turn figure: one column per bucket of turns."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.buckets = _buckets(n)
        self.width = (WIDTH - _PAD_L - _PAD_R) / max(1, len(self.buckets))
        self.size = self.buckets[0][1] - self.buckets[0][0] if self.buckets else 1

    def x(self, turn: int) -> float:
        return _PAD_L + (turn // self.size + 0.5) * self.width

    def highlight(self, current: int, height: int) -> str:
        """A band behind the current turn's column."""
        if not 0 <= current < self.n:
            return ""
        return (
            f'<rect x="{self.x(current) - self.width / 2:.1f}" y="{_PAD_T}" width="{max(self.width, 1.5):.1f}" '
            f'height="{height - _PAD_B - _PAD_T}" fill="#ffe8a3"/>'
        )

    def overlay(self, height: int, href: TurnHref | None) -> str:
        """Invisible clickable columns (one per bucket, linking to its first turn) and the turn axis."""
        out = []
        if href is not None:
            for start, end in self.buckets:  # turns named as the prompts name them, from 1
                label = f"turn {start + 1}" if end - start == 1 else f"turns {start + 1}-{end}"
                out.append(
                    f'<a href="{escape(href(start))}"><title>{label}</title>'
                    f'<rect x="{self.x(start) - self.width / 2:.1f}" y="{_PAD_T}" width="{self.width:.1f}" '
                    f'height="{height - _PAD_B - _PAD_T}" class="hit"/></a>'
                )
        tick_y = height - _PAD_B + 15
        out.append(f'<text x="{self.x(0):.1f}" y="{tick_y}" text-anchor="middle" class="tick">1</text>')
        if self.n > 1:
            out.append(
                f'<text x="{self.x(self.n - 1):.1f}" y="{tick_y}" text-anchor="middle" class="tick">{self.n}</text>'
            )
        centre = (_PAD_L + WIDTH - _PAD_R) / 2
        out.append(
            f'<text x="{centre:.1f}" y="{height - 3}" text-anchor="middle" class="axis-title">turn</text>'
        )
        return "".join(out)


def line_chart(
    title: str,
    values: Sequence[float | None],
    current: int,
    href: TurnHref | None = None,
    color: str = "#3b6be2",
    height: int = 190,
    markers: Sequence[float] | None = None,
    axis: str = "",
) -> Markup:
    """A line over turns (e.g. total reward, health); ``markers`` dots turns with a non-zero value."""
    n = len(values)
    known = [v for v in values if v is not None]
    if not known:
        return Markup("")
    lo, hi = min(0.0, min(known)), max(known)
    if hi == lo:
        hi = lo + 1.0
    cols = _Columns(n)
    parts = _frame(title, height, lo, hi, axis)
    parts.insert(1, cols.highlight(current, height))  # right after <svg>: the band is behind the data
    bottom = height - _PAD_B

    def y_of(v: float) -> float:
        return bottom - (v - lo) / (hi - lo) * (bottom - _PAD_T)

    points = []
    for start, end in cols.buckets:
        chunk = [v for v in values[start:end] if v is not None]
        if chunk:
            points.append(f"{cols.x(start):.1f},{y_of(chunk[-1]):.1f}")
    parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{color}" stroke-width="2.4"/>')
    if markers is not None:
        for start, end in cols.buckets:
            v = values[end - 1]
            if v is not None and any(markers[start:end]):
                parts.append(f'<circle cx="{cols.x(start):.1f}" cy="{y_of(v):.1f}" r="3.5" fill="{color}"/>')
    parts.append(cols.overlay(height, href))
    parts.append("</svg>")
    return Markup("".join(parts))


def bar_chart(
    title: str,
    stacks: Sequence[tuple[str, Sequence[float]]],
    current: int,
    href: TurnHref | None = None,
    height: int = 170,
    unit: str = "",
    legend: Sequence[str] = (),
) -> Markup:
    """Stacked bars over turns, one stack per (colour, values) pair; buckets show their sum."""
    n = len(stacks[0][1]) if stacks else 0
    if n == 0:
        return Markup("")
    cols = _Columns(n)
    sums = [[sum(vals[s:e]) for s, e in cols.buckets] for _, vals in stacks]
    hi = max((sum(c) for c in zip(*sums)), default=0.0)
    if hi <= 0:
        hi = 1.0
    parts = _frame(title, height, 0.0, hi, unit)
    x = WIDTH - _PAD_R
    for (color, _), name in reversed(list(zip(stacks, legend))):  # a key, right-aligned by the title
        x -= 7 * len(name) + 22
        parts.append(
            f'<rect x="{x}" y="6" width="10" height="10" fill="{color}"/>'
            f'<text x="{x + 14}" y="15" class="tick">{escape(name)}</text>'
        )
    parts.insert(1, cols.highlight(current, height))
    bottom = height - _PAD_B
    scale = (bottom - _PAD_T) / hi
    w = max(0.8, cols.width * 0.8)
    for b, (start, _) in enumerate(cols.buckets):
        y = float(bottom)
        for (color, _), row in zip(stacks, sums):
            h = row[b] * scale
            if h > 0:
                y -= h
                parts.append(
                    f'<rect x="{cols.x(start) - w / 2:.1f}" y="{y:.1f}" width="{w:.1f}" '
                    f'height="{h:.1f}" fill="{color}"/>'
                )
    parts.append(cols.overlay(height, href))
    parts.append("</svg>")
    return Markup("".join(parts))


# --- the top-down map ---------------------------------------------------------------------------


def _cell_shape(symbol: str, meaning: str, x: int, y: int, s: float) -> str:
    """SVG for one map cell from its ASCII symbol and legend meaning."""
    px, py = x * s, y * s
    if symbol == "#":
        return f'<rect x="{px}" y="{py}" width="{s}" height="{s}" fill="#4a4a4a"/>'
    if symbol == "?":
        return f'<rect x="{px}" y="{py}" width="{s}" height="{s}" fill="#d9d9d9"/>'
    if symbol == ".":
        return ""
    m = _COLOR_WORD.search(meaning)
    color = COLORS[m.group(1)] if m else "#555"
    c = s / 2
    title = f"<title>{escape(meaning)} at ({x}, {y})</title>"
    if "lava" in meaning:
        return f'<rect x="{px}" y="{py}" width="{s}" height="{s}" fill="#f07b22">{title}</rect>'
    if "goal" in meaning:
        return f'<rect x="{px}" y="{py}" width="{s}" height="{s}" fill="#49c265">{title}</rect>'
    if "door" in meaning:
        fill = "none" if "open" in meaning else color
        return (
            f'<rect x="{px + 2}" y="{py + 2}" width="{s - 4}" height="{s - 4}" fill="{fill}" '
            f'stroke="{color}" stroke-width="3">{title}</rect>'
        )
    if "ball" in meaning:
        return f'<circle cx="{px + c}" cy="{py + c}" r="{s * 0.32:.1f}" fill="{color}">{title}</circle>'
    if "box" in meaning:
        return (
            f'<rect x="{px + s * 0.18:.1f}" y="{py + s * 0.18:.1f}" width="{s * 0.64:.1f}" height="{s * 0.64:.1f}" '
            f'fill="none" stroke="{color}" stroke-width="3">{title}</rect>'
        )
    if "key" in meaning:
        return (
            f'<g>{title}<circle cx="{px + s * 0.35:.1f}" cy="{py + c}" r="{s * 0.16:.1f}" fill="none" '
            f'stroke="{color}" stroke-width="3"/><line x1="{px + s * 0.5:.1f}" y1="{py + c}" '
            f'x2="{px + s * 0.85:.1f}" y2="{py + c}" stroke="{color}" stroke-width="3"/></g>'
        )
    return (
        f'<text x="{px + c}" y="{py + c + 4}" text-anchor="middle" class="glyph">{escape(symbol)}'
        f"{title}</text>"
    )


def _agent(
    pose: Pose, to_px: Callable[[float, float], tuple[float, float]], r: float, y_up: bool | None = None
) -> str:
    """The agent as an arrow (or a dot without heading). A numeric heading is in compass degrees
    (0 towards +y, clockwise); ``y_up`` says how +y is drawn (None: as drawn before world maps)."""
    cx, cy = to_px(pose.x, pose.y)
    heading = pose.heading
    deg = (
        _HEADING_DEG.get(heading)
        if isinstance(heading, str)
        else (float(heading) if heading is not None else None)
    )
    if deg is not None and not isinstance(heading, str) and y_up is not None:
        deg = deg - 90.0 if y_up else 90.0 - deg  # compass degrees to the screen's (0 = right, clockwise)
    if deg is None:
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="#d62d20" class="agent"/>'
    pts = []
    for angle, dist in ((0, r), (140, r * 0.8), (220, r * 0.8)):
        a = math.radians(deg + angle)
        pts.append(f"{cx + dist * math.cos(a):.1f},{cy + dist * math.sin(a):.1f}")
    return f'<polygon points="{" ".join(pts)}" fill="#d62d20" class="agent"/>'


def _points(pts: Sequence[tuple[float, float]]) -> str:
    """SVG polyline points, consecutive repeats (the agent standing still) dropped."""
    out: list[str] = []
    last = None
    for x, y in pts:
        text = f"{x:.1f},{y:.1f}"
        if text != last:
            out.append(text)
            last = text
    return " ".join(out)


def _dot_turns(known: Sequence[tuple[int, Pose]], current: int) -> list[tuple[int, Pose]]:
    """At most MAX_DOTS turns to mark: every turn if few, else those around ``current`` and a sample."""
    if len(known) <= MAX_DOTS:
        return list(known)
    near = [(i, p) for i, p in known if abs(i - current) <= MAX_DOTS // 4]
    step = max(1, len(known) // (MAX_DOTS - len(near) or 1))
    picked = {i: p for i, p in known[::step]}
    picked.update(near)
    return sorted(picked.items())


def _world_shape(
    shape: WorldShape, to_px: Callable[[float, float], tuple[float, float]], scale: float, y_up: bool
) -> str:
    cx, cy = to_px(shape.x, shape.y)
    title = f"<title>{escape(shape.label)}</title>" if shape.label else ""
    paint = f'fill="{shape.fill}"' + (f' fill-opacity="{shape.opacity:.2f}"' if shape.opacity < 1 else "")
    if shape.kind == "circle":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{max(1.5, shape.r * scale):.1f}" {paint}>{title}</circle>'
    w, h = shape.w * scale, shape.h * scale
    angle = shape.angle if y_up else -shape.angle  # clockwise seen from above, on either drawing
    turn = f' transform="rotate({angle:.1f} {cx:.1f} {cy:.1f})"' if angle else ""
    return (
        f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" {paint} '
        f'stroke="#555555" stroke-opacity="0.5" stroke-width="0.6"{turn}>{title}</rect>'
    )


def map_svg(
    grid: GridMap | None,
    poses: Sequence[Pose | None],
    current: int,
    href: TurnHref | None = None,
    size: tuple[int, int] | None = None,
    world: WorldMap | None = None,
    steps: Sequence[tuple[int, Pose]] = (),
) -> Markup:
    """The map (the current turn's ASCII view, or the backend's world map) with the whole trajectory.

    With ``steps`` ((turn, pose) after every low-level step, from ``step_path``) the line follows
    every step: solid up to the current turn, the current turn's own steps highlighted, the rest
    faded; without them the line joins the turns' positions. Each turn's position is a dot linking
    to that turn. Without a grid or a world map, positions are drawn in their own bounding box.
    """
    known = [(i, p) for i, p in enumerate(poses) if p is not None]
    if grid is None and world is None and not known:
        return Markup("")
    y_up: bool | None = None
    if grid is None and world is not None:
        scale = 480.0 / max(world.x1 - world.x0, world.y1 - world.y0)
        width, height = (world.x1 - world.x0) * scale, (world.y1 - world.y0) * scale
        cell = 16.0
        y_up = world.y_up

        def to_px(x: float, y: float) -> tuple[float, float]:
            return (x - world.x0) * scale, ((world.y1 - y) if world.y_up else (y - world.y0)) * scale
    elif grid is not None or size is not None:
        gw, gh = (grid.width, grid.height) if grid is not None else size  # type: ignore[misc]
        cell = max(8.0, min(40.0, 480.0 / max(gw, gh, 1)))
        width, height = gw * cell, gh * cell

        def to_px(x: float, y: float) -> tuple[float, float]:
            return (x + 0.5) * cell, (y + 0.5) * cell
    else:
        xs = [p.x for _, p in known] + [p.x for _, p in steps]
        ys = [p.y for _, p in known] + [p.y for _, p in steps]
        span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
        cell = 16.0
        width = height = 480.0
        margin = 24.0
        x0, y0 = min(xs), min(ys)

        def to_px(x: float, y: float) -> tuple[float, float]:
            return margin + (x - x0) / span * (width - 2 * margin), margin + (y - y0) / span * (
                height - 2 * margin
            )

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="map" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'role="img" aria-label="top-down map with the agent\'s trajectory">',
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fbfbf7"/>',
    ]
    if world is not None and grid is None:
        out.extend(_world_shape(shape, to_px, scale, world.y_up) for shape in world.shapes)
    elif grid is None and size is None:  # world coordinates: say which box is drawn
        out.append(
            f'<text x="6" y="{height - 6:.0f}" class="tick">x {_fmt(min(xs))} to {_fmt(max(xs))}, '
            f"y {_fmt(min(ys))} to {_fmt(max(ys))} (ground plane)</text>"
        )
    if grid is not None:
        meanings = dict(grid.legend)
        for y, row in enumerate(grid.rows):
            for x, symbol in enumerate(row):
                if symbol in "<>^v" and meanings.get(symbol, "").startswith("you"):
                    continue
                out.append(_cell_shape(symbol, meanings.get(symbol, symbol), x, y, cell))
    if steps:
        out.extend(_step_lines(steps, current, to_px))
    else:
        done = [to_px(p.x, p.y) for i, p in known if i <= current]
        todo = [to_px(p.x, p.y) for i, p in known if i >= current]
        if len(todo) > 1:
            out.append(
                f'<polyline points="{_points(todo)}" fill="none" stroke="#d62d20" stroke-opacity="0.25" '
                f'stroke-width="2" stroke-dasharray="4 3"/>'
            )
        if len(done) > 1:
            out.append(
                f'<polyline points="{_points(done)}" fill="none" stroke="#d62d20" stroke-width="2.4"/>'
            )
    for i, p in _dot_turns(known, current):
        cx, cy = to_px(p.x, p.y)
        dot = (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{max(2.5, cell * 0.12):.1f}" fill="#d62d20" '
            f'fill-opacity="{1.0 if i <= current else 0.3}"><title>turn {i + 1} at ({_fmt(p.x)}, {_fmt(p.y)})</title></circle>'
        )
        out.append(f'<a href="{escape(href(i))}">{dot}</a>' if href is not None else dot)
    here = poses[current] if 0 <= current < len(poses) else None
    if here is not None:
        out.append(_agent(here, to_px, max(5.0, cell * 0.38), y_up))
    out.append("</svg>")
    return Markup("".join(out))


def _step_lines(
    steps: Sequence[tuple[int, Pose]], current: int, to_px: Callable[[float, float], tuple[float, float]]
) -> list[str]:
    """The step path as three polylines: before the current turn (solid), the current turn's steps
    (highlighted, from where the turn began), and after it (faded). Each joins the one before."""
    before = [to_px(p.x, p.y) for turn, p in steps if turn < current]
    during = [to_px(p.x, p.y) for turn, p in steps if turn == current]
    after = [to_px(p.x, p.y) for turn, p in steps if turn > current]
    out = []
    if after:
        joined = (during or before)[-1:] + after
        out.append(
            f'<polyline points="{_points(joined)}" fill="none" stroke="#d62d20" stroke-opacity="0.25" '
            f'stroke-width="1.6" stroke-dasharray="3 3" class="step-path later"/>'
        )
    if len(before) > 1:
        out.append(
            f'<polyline points="{_points(before)}" fill="none" stroke="#d62d20" stroke-width="1.8" '
            f'class="step-path earlier"/>'
        )
    current_line = before[-1:] + during  # from where the turn began (the reset pose is in turn 0's own)
    if len(current_line) > 1:
        out.append(
            f'<polyline points="{_points(current_line)}" fill="none" stroke="#f08c00" stroke-width="3.2" '
            f'stroke-linejoin="round" class="step-path this-turn"/>'
        )
    return out


def rate_bars(rows: Sequence[tuple[str, float | None, float | None, str, str]]) -> Markup:
    """Paired horizontal bars, one pair per row: (label, rate of A, rate of B, text A, text B)."""
    if not rows:
        return Markup("")
    label_w, bar_w, row_h = 260, 300, 34
    height = row_h * len(rows) + 24
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rates" viewBox="0 0 {label_w + bar_w + 110} {height}" '
        f'role="img" aria-label="rate per task and level, run A against run B">',
        f'<rect x="{label_w}" y="4" width="10" height="10" fill="#8fb1ef"/><text x="{label_w + 14}" y="13" class="tick">A</text>',
        f'<rect x="{label_w + 40}" y="4" width="10" height="10" fill="#2b4fa8"/><text x="{label_w + 54}" y="13" class="tick">B</text>',
    ]
    for i, (label, ra, rb, ta, tb) in enumerate(rows):
        y = 22 + i * row_h
        out.append(
            f'<text x="{label_w - 8}" y="{y + 18}" text-anchor="end" class="label">{escape(label)}</text>'
        )
        for k, (rate, text, color) in enumerate(((ra, ta, "#8fb1ef"), (rb, tb, "#2b4fa8"))):
            yy = y + k * 14
            out.append(f'<rect x="{label_w}" y="{yy}" width="{bar_w}" height="12" fill="#eee"/>')
            if rate:
                out.append(
                    f'<rect x="{label_w}" y="{yy}" width="{bar_w * rate:.1f}" height="12" fill="{color}"/>'
                )
            out.append(f'<text x="{label_w + bar_w + 6}" y="{yy + 10}" class="tick">{escape(text)}</text>')
    out.append("</svg>")
    return Markup("".join(out))
