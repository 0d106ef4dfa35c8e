"""What a CausalWorld protocol draws, seed by seed: the data behind ``agentkit tasks trifinger --protocol``.

Why: a protocol's episodes are only interpretable if a user can see what each seed starts from
(block and goal poses, sizes, masses, every intervened variable) before spending model calls on
them. Draws are made exactly as episodes make them (``sampling.draw_protocol``), without physics.
"""

from __future__ import annotations

import math
from typing import Any

from agentkit.envs.trifinger.protocols import BENCHMARKS
from agentkit.envs.trifinger.sampling import ProtocolDrawError, draw_protocol


def preview(
    protocol: str, samples: int, task: str | None = None, first_seed: int = 0
) -> list[dict[str, Any]]:
    """One entry per (task, seed): the draw as JSON, or ``{"task", "seed", "error"}``.

    Without ``task``: every benchmark task that defines ``protocol``. Bad names raise ValueError."""
    if samples < 1:
        raise ValueError(f"--sample must be at least 1, got {samples}")
    if task is not None:
        if task not in BENCHMARKS:
            raise ValueError(
                f"trifinger task {task!r} has no CausalWorld protocols; they are defined for "
                f"{', '.join(BENCHMARKS)}"
            )
        tasks = [task]
    else:
        tasks = [t for t, table in BENCHMARKS.items() if protocol in table]
    if not tasks or protocol not in BENCHMARKS[tasks[0]]:
        tables = [BENCHMARKS[task]] if task else list(BENCHMARKS.values())
        known = sorted({n for table in tables for n in table}, key=lambda n: int(n[1:]))
        where = f"task {task}" if task else "any benchmark task"
        raise ValueError(f"unknown protocol {protocol!r} for {where}; known: {', '.join(known)}")
    out: list[dict[str, Any]] = []
    for name in tasks:
        for seed in range(first_seed, first_seed + samples):
            try:
                out.append(draw_protocol(name, protocol, seed).to_json())
            except ProtocolDrawError as exc:
                out.append({"task": name, "protocol": protocol, "seed": seed, "error": str(exc)})
    return out


def _pose(spec: dict[str, Any]) -> str:
    x, y, z = spec["position"]
    return f"({x:+.3f}, {y:+.3f}, {z:.3f}) yaw {math.degrees(spec['yaw']):+.0f}° side {spec['size'][0] * 100:.1f} cm"


def _short(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(f"{v:.3g}" for v in value) + "]"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def table_rows(entries: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Rows (task, seed, blocks, goals, other intervened variables) for a human-readable table."""
    rows: list[tuple[str, ...]] = []
    for entry in entries:
        if "error" in entry:
            rows.append((entry["task"], str(entry["seed"]), "", "", f"ERROR: {entry['error']}"))
            continue
        blocks = "\n".join(f"{b['name']} {_pose(b)} {b['mass'] * 1000:.0f} g" for b in entry["blocks"])
        goals = "\n".join(f"{g['name']} {_pose(g)}" for g in entry["goals"])
        goals += "".join(
            f"\ntip {i} ({t[0]:+.3f}, {t[1]:+.3f}, {t[2]:.3f})" for i, t in enumerate(entry["tip_goals"])
        )
        other: list[str] = []
        for name, value in entry["intervention"].items():
            if isinstance(value, dict):
                other.extend(f"{name}.{prop} = {_short(v)}" for prop, v in value.items())
            else:
                other.append(f"{name} = {_short(value)}")
        rows.append(
            (entry["task"], str(entry["seed"]), blocks, goals.strip(), "\n".join(other) or "(nothing)")
        )
    return rows
