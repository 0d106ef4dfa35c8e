"""The compare page sets each run's mean reward and tokens per episode, and B minus A, beside the passes.

Before, it showed passes only: a prompt change that kept the pass rate and doubled the tokens, or
raised the reward without a pass, did not show. A is the reference agent (passes, high reward, no
model tokens), B the real LiteLLM client against the local HTTP server with unparseable answers and
a model error (``problem_runs``); the expected figures are computed here from the stored episodes.
"""

from __future__ import annotations

import re
import urllib.request
from html import unescape

import pytest
from problem_runs import TASK, problem_database

from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerServer, open_readonly
from agentkit.viewer.compare import compare_runs
from agentkit.viewer.queries import ViewerData


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "viewer-problems.db"  # shared with test_viewer_run_problems
    return path, problem_database(path)


def _means(path, run_id):
    """(mean reward, mean input + output tokens) of a run's episodes, read from the store."""
    store = TranscriptStore(f"sqlite:///{path}")
    try:
        episodes = store.list_episodes(run_id=run_id)
    finally:
        store.close()
    assert episodes and all(e.status == "finished" for e in episodes)  # every one judged
    n = len(episodes)
    return (
        sum(e.reward for e in episodes) / n,
        sum(e.input_tokens + e.output_tokens for e in episodes) / n,
    )


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_tallies_carry_mean_reward_and_tokens_of_the_judged_episodes(recorded):
    path, ids = recorded
    a_reward, a_tokens = _means(path, ids["reference"])
    b_reward, b_tokens = _means(path, ids["problems"])
    assert a_reward > 0.5 and a_tokens == 0 and b_tokens > 1000  # the runs differ where it matters

    c = compare_runs(ViewerData(open_readonly(f"sqlite:///{path}")), ids["reference"], ids["problems"])
    for tally in (c.total, c.per_task[0]):
        assert tally.a_reward == pytest.approx(a_reward) and tally.b_reward == pytest.approx(b_reward)
        assert tally.a_tokens == pytest.approx(a_tokens) and tally.b_tokens == pytest.approx(b_tokens)
        assert tally.reward_delta == pytest.approx(b_reward - a_reward)
        assert tally.tokens_delta == pytest.approx(b_tokens - a_tokens)


def test_compare_page_shows_reward_and_token_differences_beside_pass(recorded):
    path, ids = recorded
    a_reward, a_tokens = _means(path, ids["reference"])
    b_reward, b_tokens = _means(path, ids["problems"])
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as server:
        url = f"{server.url}compare?a={ids['reference']}&b={ids['problems']}"
        with urllib.request.urlopen(url, timeout=30) as resp:
            html = resp.read().decode()

    head = _text(html[: html.index("</table>")])  # the runs' table: passes, reward, tokens
    assert "mean reward" in head and "tokens / episode" in head
    assert f"3/3 {100:.0f}%" in head and f"{a_reward:.3f}".rstrip("0") in head
    assert f"{b_tokens:,.0f}" in head
    difference = _text(re.search(r'<tr class="difference".*?</tr>', html, re.S).group(0))
    assert difference.startswith("B − A -100 pts")
    assert difference.endswith(f"{b_reward - a_reward:+,.3f} {b_tokens - a_tokens:+,.0f}")

    task_row = re.search(rf'<th class="task">{TASK}</th>.*?</tr>', html, re.S).group(0)
    reward_cell = re.search(r'<td class="num reward-delta down"[^>]*>([^<]*)</td>', task_row)
    tokens_cell = re.search(r'<td class="num tokens-delta"[^>]*>([^<]*)</td>', task_row)
    assert reward_cell.group(1) == f"{b_reward - a_reward:+,.3f}"
    assert tokens_cell.group(1) == f"{b_tokens - a_tokens:+,.0f}"


def test_a_run_compared_with_itself_differs_by_nothing(recorded):
    path, ids = recorded
    c = compare_runs(ViewerData(open_readonly(f"sqlite:///{path}")), ids["problems"], ids["problems"])
    assert c.total.reward_delta == 0 and c.total.tokens_delta == 0
