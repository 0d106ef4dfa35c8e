"""A GridView as ASCII art, one character per cell, with a legend of exactly the symbols shown.

Symbol scheme (fixed, so a symbol means the same thing on every turn of every episode):

- ``#`` wall, ``.`` empty floor, ``?`` a cell not seen yet, ``*`` goal square, ``~`` lava,
  ``_`` floor tile, ``>`` ``v`` ``<`` ``^`` you, facing east / south / west / north;
- carriable objects by the initial of their colour (red, green, blue, purple, yellow, grEy):
  keys lowercase ``r g b p y e``, balls uppercase ``R G B P Y E``, boxes digits ``1``..``6``;
- doors by state: ``/`` open, ``+`` closed, ``=`` locked; their colour is named in the legend, with
  positions when doors of several colours share a symbol. The same holds for goal, lava, floor
  tiles and for anything not in this table (which gets a spare symbol such as ``&``).

Cells outside the seen mask are always ``?``: what the agent has not seen never leaks into text.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from agentkit.observers.cells import cell_name
from agentkit.observers.observation import Cell, GridView

COLOR_ORDER = ("red", "green", "blue", "purple", "yellow", "grey")
_COLOR_LETTER = dict(zip(COLOR_ORDER, "rgbpye"))
_BOX_DIGIT = dict(zip(COLOR_ORDER, "123456"))
_AGENT = {"east": ">", "south": "v", "west": "<", "north": "^"}
_TERRAIN = {"wall": "#", "unseen": "?", "goal": "*", "lava": "~", "floor": "_"}
_DOOR = {"open": "/", "closed": "+", "locked": "="}
_SPARE = "&%$@!;:"
_FIXED_MEANING = {"#": "wall", ".": "empty floor", "?": "not seen yet"}


@dataclass(frozen=True)
class AsciiMap:
    """The rendered rows and the legend as (symbol, meaning) pairs, in display order."""

    rows: tuple[str, ...]
    legend: tuple[tuple[str, str], ...]

    def text(self) -> str:
        legend = "\n".join(f"{symbol} = {meaning}" for symbol, meaning in self.legend)
        return "\n".join(self.rows) + "\n\nLegend:\n" + legend


def _fixed_symbol(cell: Cell) -> str | None:
    """The symbol that encodes kind *and* colour by itself, if the table has one."""
    if cell.kind == "key" and cell.color in _COLOR_LETTER:
        return _COLOR_LETTER[cell.color]
    if cell.kind == "ball" and cell.color in _COLOR_LETTER:
        return _COLOR_LETTER[cell.color].upper()
    if cell.kind == "box" and cell.color in _BOX_DIGIT:
        return _BOX_DIGIT[cell.color]
    return None


def _shared_symbol(cell: Cell, spares: dict[str, str]) -> tuple[str, str]:
    """(symbol, colourless meaning) for cells whose symbol leaves the colour to the legend."""
    if cell.kind == "door" and cell.state in _DOOR:
        return _DOOR[cell.state], f"{cell.state} door"
    if cell.kind in _TERRAIN:
        return _TERRAIN[cell.kind], cell_name(Cell(cell.kind, None, cell.state))
    meaning = cell_name(Cell(cell.kind, None, cell.state))
    if meaning not in spares:
        if len(spares) >= len(_SPARE):
            raise ValueError(f"too many unknown cell kinds for the ASCII view (at {meaning!r})")
        spares[meaning] = _SPARE[len(spares)]
    return spares[meaning], meaning


_UNSEEN = Cell("unseen")


def ascii_map(grid: GridView) -> AsciiMap:
    """Render ``grid``; unseen cells (per ``grid.seen``) become ``?`` whatever they hold."""
    rows: list[str] = []
    fixed: dict[str, str] = {}  # symbol -> meaning
    shared: dict[str, tuple[str, dict[str | None, list[tuple[int, int]]]]] = {}
    spares: dict[str, str] = {}
    order: list[str] = []
    # The per-cell test of ``seen_cell``, unrolled: this runs on every observation of every turn.
    agent = tuple(grid.agent_pos)
    seen_rows = grid.seen.tolist() if grid.seen is not None else None
    for y, cells in enumerate(grid.cells):
        row = []
        seen_row = seen_rows[y] if seen_rows is not None else None
        for x, cell in enumerate(cells):
            if (x, y) == agent:
                row.append(_AGENT[grid.agent_dir])
                continue
            if seen_row is not None and not seen_row[x]:
                cell = _UNSEEN
            elif cell is not None and cell.kind in ("empty", "floor") and cell.color is None:
                cell = None
            if cell is None:
                symbol = "."
                fixed.setdefault(symbol, _FIXED_MEANING[symbol])
            elif cell.kind in ("wall", "unseen"):
                symbol = _TERRAIN[cell.kind]
                fixed.setdefault(symbol, _FIXED_MEANING[symbol])
            elif (fixed_symbol := _fixed_symbol(cell)) is not None:
                symbol = fixed_symbol
                fixed.setdefault(symbol, cell_name(cell))
            else:
                symbol, meaning = _shared_symbol(cell, spares)
                shared.setdefault(symbol, (meaning, defaultdict(list)))[1][cell.color].append((x, y))
            if symbol not in order:
                order.append(symbol)
            row.append(symbol)
        rows.append("".join(row))

    legend = [(_AGENT[grid.agent_dir], _agent_meaning(grid))]
    for symbol in sorted(order, key=lambda s: (s not in _FIXED_MEANING, order.index(s))):
        if symbol in fixed:
            legend.append((symbol, fixed[symbol]))
        else:
            meaning, by_color = shared[symbol]
            legend.append((symbol, _shared_meaning(meaning, by_color)))
    return AsciiMap(tuple(rows), tuple(legend))


def render_ascii(grid: GridView) -> str:
    """The map and its legend as one block of text for a prompt."""
    return ascii_map(grid).text()


def _agent_meaning(grid: GridView) -> str:
    x, y = grid.agent_pos
    under = grid.cells[y][x]
    where = (
        f"you, facing {grid.agent_dir}, at x={x}, y={y} (x counts columns from the left, y rows from the top)"
    )
    return where + (f" (standing on {cell_name(under)})" if under is not None else "")


def _shared_meaning(meaning: str, by_color: dict[str | None, list[tuple[int, int]]]) -> str:
    colors = list(by_color)
    if len(colors) == 1:
        return meaning if colors[0] is None else f"{meaning}, {colors[0]}"
    parts = []
    for color in colors:
        where = ", ".join(f"({x}, {y})" for x, y in by_color[color])
        parts.append(f"{color or 'no colour'} at {where}")
    return f"{meaning}: " + "; ".join(parts)
