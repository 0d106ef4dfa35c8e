"""The viewer's HTML pages, rendered on the server from Jinja templates with autoescaping.

Why server-side: a turn page needs one turn's data, so it is small and fast whatever the length of
the episode, works without script, and the static export reuses it unchanged. Everything taken
from a transcript reaches the page through Jinja's autoescaping (or ``svg``'s escaping), and
images are links to ``/blob/<sha256>`` (or files in a bundle), never inlined.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import jinja2

from agentkit.actions import Command, Vocabulary
from agentkit.actions.formatter import format_command
from agentkit.outcome_words import FAILED, INCOMPLETE, NO_VERDICT, PASSED
from agentkit.records import EndReason
from agentkit.viewer import svg
from agentkit.viewer.compare import Comparison, Divergence
from agentkit.viewer.episode_parts import (
    clock_was_run_out,
    fold_error,
    playback,
    shown_once,
    turn_number,
)
from agentkit.viewer.model_call_view import model_call_html
from agentkit.viewer.queries import (
    Page,
    TurnDetail,
    TurnPoint,
    ViewerData,
    episode_outcome,
    outcome_label,
    verdict_word,
)
from agentkit.viewer.trajectory import grid_of, grid_size_of

HISTORY_SHOWN = 6  # earlier messages shown in full on a turn page; older ones are on their own turns
STRIP_RADIUS = 30  # turns linked on each side of the current one in the turn strip
_NO_VOCABULARY = Vocabulary(commands=())


def _load(name: str) -> str:
    return (
        resources.files("agentkit.viewer")
        .joinpath("static")
        .joinpath("pages")
        .joinpath(name)
        .read_text(encoding="utf-8")
    )


_ENV = jinja2.Environment(
    loader=jinja2.FunctionLoader(lambda name: (_load(name), None, lambda: True)),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _money(v: float | None) -> str:
    if v is None:
        return ""
    return f"${v:.4f}" if v < 1 else f"${v:,.2f}"


def _num(v: float | None, digits: int = 3) -> str:
    if v is None:
        return ""
    return f"{v:.{digits}f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def _pct(v: float | None) -> str:
    return "" if v is None else f"{v:.0%}"


def _signed(v: float | None, digits: int = 2) -> str:
    """A difference with its sign (``+0.25``, ``-1,204``); "-" when either side has no figure."""
    return "-" if v is None else f"{v:+,.{digits}f}"


def _whole(v: float | None) -> str:
    """A mean count such as tokens per episode, to the unit with thousands separated; "-" when absent."""
    return "-" if v is None else f"{v:,.0f}"


def _trend(v: float | None) -> str:
    """The CSS class of a B - A difference: up, down or flat."""
    return "flat" if not v else "up" if v > 0 else "down"


_ENV.filters.update(
    money=_money,
    num=_num,
    pct=_pct,
    signed=_signed,
    whole=_whole,
    trend=_trend,
    tojson_pretty=lambda v: json.dumps(v, indent=2, default=str),
)
# Listing rows are the store's (agentkit.transcripts.listings); their words are the backend's.
_ENV.globals.update(outcome_label=outcome_label, verdict_word=verdict_word)


def render(template: str, **context: Any) -> str:
    return _ENV.get_template(template).render(**context)


# --- turn view model ---------------------------------------------------------------------------------


@dataclass
class Part:
    kind: str  # "text", "image", or "note" (an image shown elsewhere on the page)
    text: str = ""
    src: str = ""
    label: str = ""
    sha: str = ""


@dataclass
class ShownMessage:
    role: str
    parts: list[Part]
    extra: dict[str, Any] = field(default_factory=dict)


def _parts(content: Any, links: Any, media: dict[str, str]) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", content)]
    if not isinstance(content, list):
        return [Part("text", json.dumps(content, default=str))]
    out = []
    for p in content:
        if not isinstance(p, dict):
            out.append(Part("text", str(p)))
        elif p.get("type") == "text":
            out.append(Part("text", str(p.get("text", ""))))
        elif p.get("type") == "image_ref" and isinstance(p.get("sha256"), str):
            mt = str(p.get("media_type", ""))
            media[p["sha256"]] = mt
            out.append(
                Part("image", src=links.blob(p["sha256"], mt), label=p["sha256"][:12], sha=p["sha256"])
            )
        elif p.get("type") == "image_url":
            out.append(Part("text", "[an inline image that was not stored as a blob]"))
        else:
            out.append(Part("text", json.dumps(p, default=str)))
    return out


def _message(m: dict[str, Any], links: Any, media: dict[str, str]) -> ShownMessage:
    extra = {k: v for k, v in m.items() if k not in ("role", "content")}
    return ShownMessage(str(m.get("role", "")), _parts(m.get("content"), links, media), extra)


def script_lines(script: list[dict[str, Any]] | None) -> list[str]:
    """The parsed commands as canonical script text, one per line."""
    if not script:
        return []
    return [format_command(Command.from_json(c), _NO_VOCABULARY) + ";" for c in script]


def _strip(points: list[TurnPoint], current: int) -> list[TurnPoint]:
    lo = max(0, current - STRIP_RADIUS)
    return points[lo : current + STRIP_RADIUS + 1]


def turn_class(p: TurnPoint) -> str:
    """A CSS class telling at a glance how a turn went."""
    if not p.parsed:
        return "t-parse"
    if p.compile_error:
        return "t-compile"
    if p.done:
        return "t-done"
    if p.reward > 0:
        return "t-reward"
    return "t-ok"


def _before(observation: Any) -> dict[str, Any]:
    """The world as the model saw it before the turn (its stored observation): step, total reward, health."""
    if not isinstance(observation, dict):
        return {}
    return {k: observation.get(k) for k in ("step", "total_reward", "health")}


def episode_page(
    data: ViewerData, links: Any, episode_id: str, index: int | None, media: dict[str, str] | None = None
) -> tuple[int, str]:
    """(status, html) of turn ``index`` (default 0) of an episode. ``media`` collects image hashes."""
    media = media if media is not None else {}
    episode = data.episode(episode_id)  # KeyError for an unknown episode
    run = data.run(episode.run_id)
    points = data.series(episode_id)
    n = len(points)
    current = 0 if index is None else index
    turn: TurnDetail | None = data.turn(episode_id, points[current].index) if 0 <= current < n else None
    if n and turn is None:
        return 404, error_page(
            links,
            404,
            f"episode {episode_id} has no turn {turn_number(current)} (it has {n}: turns 1-{n};"
            f" ?turn= takes the stored index, 0-{n - 1})",
        )

    def href(i: int) -> str:
        return links.episode(episode_id, i)

    charts = []
    if n:
        charts.append(
            svg.line_chart(
                "total reward after each turn",
                [p.total_reward for p in points],
                current,
                href,
                markers=[p.reward for p in points],
                axis="reward",
            )
        )
        if any(p.health is not None for p in points):
            charts.append(
                svg.line_chart(
                    "health after each turn",
                    [p.health for p in points],
                    current,
                    href,
                    color="#2faa4a",
                    axis="health",
                )
            )
        charts.append(
            svg.bar_chart(
                "tokens per turn",
                [
                    ("#8fb1ef", [p.input_tokens for p in points]),
                    ("#2b4fa8", [p.output_tokens for p in points]),
                ],
                current,
                href,
                unit="tokens",
                legend=("in (prompt)", "out (answer)"),
            )
        )
        charts.append(
            svg.bar_chart(
                "latency of the model call",
                [("#e09b2d", [p.latency_s for p in points])],
                current,
                href,
                unit="seconds",
            )
        )
        if any(p.cost_usd for p in points):
            charts.append(
                svg.bar_chart(
                    "cost per turn",
                    [("#9a5fc7", [p.cost_usd for p in points])],
                    current,
                    href,
                    unit="US dollars",
                )
            )
    observation = turn.observation if turn else {}
    poses = [p.pose for p in points]
    path = data.step_path(episode_id) if n and any(poses) else None
    the_map = (
        svg.map_svg(
            grid_of(observation),
            poses,
            current,
            href,
            size=grid_size_of(observation),
            world=data.world_map(episode_id),
            steps=path.points if path else (),
        )
        if n
        else ""
    )

    system, history, now = None, [], []
    hidden = 0
    if turn is not None:
        msgs = [_message(m, links, media) for m in turn.messages or []]
        if msgs and msgs[0].role == "system":
            system, msgs = msgs[0], msgs[1:]
        if msgs:
            history, now = msgs[:-1], msgs[-1:]
        hidden = max(0, len(history) - HISTORY_SHOWN)
        history = history[hidden:]
    turn_frames = points[current].frames if 0 <= current < n else ()
    frames = []
    for f in turn_frames:
        media[f.sha256] = f.media_type
        frames.append(
            {
                "src": links.blob(f.sha256, f.media_type),
                "label": f.label,
                "width": f.width,
                "height": f.height,
                "sha": f.sha256,
            }
        )
    for m in now:  # the turn's own images are its frames, shown once, in the frames panel
        m.parts = shown_once(turn_frames, m.parts, lambda label: Part("note", label=label))
    outcome = episode_outcome(
        episode.status, episode.success, episode.metrics, episode.end_reason, run.config.get("pass_rule")
    )
    html = render(
        "episode.html",
        links=links,
        run=run,
        episode=episode,
        points=points,
        n=n,
        current=current,
        turn=turn,
        strip=_strip(points, current),
        turn_class=turn_class,
        charts=charts,
        the_map=the_map,
        path=path,
        no_path=not any(poses),  # an older transcript: no stored pose, and none guessed from text
        pose_label=next((p.label for p in poses if p is not None and p.label), ""),
        any_frames=any(p.frames for p in points),
        playback=playback(points, links, media, current),
        gif=links.episode_gif(episode_id) if any(p.frames for p in points) else None,
        error=fold_error(episode.error),
        clock_shown=clock_was_run_out((episode.metrics or {}).get("clock_run_out")),
        number=turn_number,
        before=_before(observation),
        steps_this_turn=sum(1 for t, _ in path.points[1:] if t == current) if path else None,
        system=system,
        history=history,
        hidden=hidden,
        now=now,
        frames=frames,
        script=script_lines(turn.script) if turn else [],
        model_call=model_call_html(turn),  # finish reason, retries, token counts
        outcome=outcome,
        outcome_word=outcome_label(outcome, run.env),
        title=f"{episode.task} seed {episode.seed} · turn {turn_number(current)} of {n}",
    )
    return 200, html


def outcome_choices(envs: list[str]) -> list[tuple[str, str]]:
    """(value, label) of the outcome filter: the one vocabulary (agentkit.outcome_words), whatever the
    backends of the listing (``envs``, kept for callers)."""
    return [(outcome, outcome) for outcome in (PASSED, FAILED, INCOMPLETE, NO_VERDICT)]


def index_page(data: ViewerData, links: Any, filters: dict[str, Any], runs: Page, episodes: Page) -> str:
    facets = data.facets()
    envs = [filters["env"]] if filters.get("env") else facets.envs
    return render(
        "index.html",
        links=links,
        facets=facets,
        filters=filters,
        runs=runs,
        episodes=episodes,
        outcomes=outcome_choices(envs),
        problems=data.run_problems([r.id for r in runs.items]),
        model_error=EndReason.MODEL_ERROR.value,
        env_error=EndReason.ENV_ERROR.value,
        title="agentkit transcripts",
    )


def run_page(
    data: ViewerData, links: Any, run_id: str, filters: dict[str, Any], episodes: Page, other_runs: list[Any]
) -> str:
    run = data.run(run_id)
    return render(
        "run.html",
        links=links,
        run=run,
        filters=filters,
        episodes=episodes,
        other_runs=other_runs,
        outcomes=outcome_choices([run.env]),
        problems=data.run_problems([run_id])[run_id],
        model_error=EndReason.MODEL_ERROR.value,
        title=f"run {run.id}",
    )


def compare_page(links: Any, comparison: Comparison, run_a: Any, run_b: Any) -> str:
    def text(passed: int, total: int, rate: float | None) -> str:
        return f"{_pct(rate) or '-'} ({passed}/{total})"

    rates = svg.rate_bars(
        [
            (
                t.name,
                t.a_rate,
                t.b_rate,
                text(t.a_pass, t.a_total, t.a_rate),
                text(t.b_pass, t.b_total, t.b_rate),
            )
            for t in comparison.per_task + comparison.per_level
        ]
    )
    # One vocabulary on every backend (agentkit.outcome_words), so both runs share their words.
    word = PASSED
    labels = {outcome: outcome for outcome in (PASSED, FAILED, INCOMPLETE, NO_VERDICT)}
    symbols = {PASSED: "✓", FAILED: "✗", INCOMPLETE: "…", NO_VERDICT: "–"}

    def delta(t: Any) -> float | None:
        return None if t.a_rate is None or t.b_rate is None else t.b_rate - t.a_rate

    return render(
        "compare.html",
        links=links,
        c=comparison,
        run_a=run_a,
        run_b=run_b,
        rates=rates,
        word=word,
        fail=FAILED,
        labels=labels,
        symbols=symbols,
        delta=delta,
        title=f"{run_a.id} vs {run_b.id}",
    )


def diverge_page(links: Any, div: Divergence) -> str:
    def shown(t: TurnDetail | None) -> dict[str, Any] | None:
        if t is None:
            return None
        frames = [
            {"src": links.blob(i["sha256"], i.get("media_type", "")), "label": i.get("label", "")}
            for i in (t.observation or {}).get("images") or []
            if isinstance(i, dict) and "sha256" in i
        ]
        return {"turn": t, "frames": frames, "script": script_lines(t.script)}

    return render(
        "diverge.html",
        links=links,
        d=div,
        a=shown(div.a_turn),
        b=shown(div.b_turn),
        title=f"{div.a.id} vs {div.b.id}",
    )


def error_page(links: Any, status: int, message: str) -> str:
    return render("error.html", links=links, status=status, message=message, title=f"{status}")
