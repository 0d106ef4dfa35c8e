"""The short status block every prompt shows: step, rewards, health, mission and backend extras."""

from __future__ import annotations

from typing import Any

from agentkit.observers.observation import RawObservation


def _label(key: str) -> str:
    return key.replace("_", " ").capitalize()


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def status_text(raw: RawObservation) -> str:
    """One ``Label: value`` line per fact; extra status fields keep the backend's order."""
    lines = [
        f"Step: {raw.step}",
        f"Reward since last turn: {raw.reward:.4g}",
        f"Total reward: {raw.total_reward:.4g}",
    ]
    if raw.health is not None:
        lines.append(f"Health: {raw.health:.4g}")
    if raw.mission:
        lines.append(f"Mission: {raw.mission}")
    lines.extend(f"{_label(k)}: {_value(v)}" for k, v in raw.status.items())
    if raw.done:
        outcome = {True: "success", False: "failure", None: "over"}[raw.success]
        lines.append(f"Episode over: {outcome}")
    return "\n".join(lines)
