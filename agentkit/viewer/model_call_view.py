"""The episode page's line on how a turn's model call went: finish reason, retries, token counts.

Why a block of its own: an answer cut by ``--max-tokens`` reads like a bad answer unless the page
says so ("finish reason: length (cut by --max-tokens)", shown as an error), and a server that
dropped part of the prompt is only visible as a gap between its token count and ours. Kept apart
from the page layout (``pages.py``), which changes for other reasons.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from agentkit.runs.model_call_summary import describe_call
from agentkit.transcripts.records import TurnInfo


def model_call_html(turn: TurnInfo | None) -> Markup:
    """The block for ``turn`` (as ``TranscriptReader.get_turn`` reads it, with its model call), or
    empty when the turn has no record of its call (the reference agent, a person, a replay, an
    older database)."""
    if turn is None or turn.model_call is None:
        return Markup("")
    call = turn.model_call
    text = describe_call(call)
    if text is None:
        return Markup("")
    cut = call.finish_reason == "length"
    html = Markup('<p class="meta model-call{}" id="model-call">{}</p>').format(
        " err" if cut else "", escape(text)
    )
    if call.warning:
        html += Markup('<p class="err" id="dropped-prompt">warning: {}</p>').format(escape(call.warning))
    return html
