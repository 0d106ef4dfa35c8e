"""How many prompt messages the model client's caches remember: the messages a run sends again.

Why: a full-history episode resends every earlier message, frames included, on each turn, so the
client remembers each message's JSON (``chat_body``), each frame's data URL (``openai_messages``)
and its token count (``prompt_size``), keyed by value. Only the episodes in flight resend anything;
a finished episode's messages are never asked for again. These caches used to be sized by a far
larger bound (256 MiB of JSON, thousands of messages), so a long run kept its finished episodes'
encodings, data URLs and JPEG bytes until the bound was reached: RSS grew 12.4 MB per 100 episodes
to 460 MB over 1,000 gridworld episodes (``bench/memory_soak.py``), with no plateau in sight.

The window is the run's own messages: its episodes in flight times the messages one episode can
send (a system prompt and worked example, then an answer, a prompt and tool results per turn).
``size_for_run`` sets it when a run builds its parts; a process that never calls it (a model used
directly) keeps the default, one episode of the default length.
"""

from __future__ import annotations

from agentkit.leaves import run_defaults

PREFIX_MESSAGES = 4  # system prompt, a worked example's prompt and answer, the first prompt
MESSAGES_PER_TURN = 4  # the answer, the next prompt, and room for a few tool results
MAX_EPISODE_MESSAGES = 1024  # frame-by-frame runs allow 10,000 calls; a cache needs no more than this
FRAMES_PER_MESSAGE = 2  # a prompt may carry frames taken during the script (--observe) besides its own

_window = PREFIX_MESSAGES + MESSAGES_PER_TURN * run_defaults.MAX_SCRIPTS


def episode_messages(max_scripts: int) -> int:
    """The most messages one episode of ``max_scripts`` answers sends in a request (capped)."""
    return min(MAX_EPISODE_MESSAGES, PREFIX_MESSAGES + MESSAGES_PER_TURN * max(1, max_scripts))


def size_for_run(max_concurrency: int, max_scripts: int) -> None:
    """Size the caches to a run of ``max_concurrency`` episodes in flight, each of ``max_scripts``
    answers. The largest run a process has played sets it: runs in one process share the caches."""
    global _window
    _window = max(_window, max(1, max_concurrency) * episode_messages(max_scripts))


def messages() -> int:
    """How many messages (their JSON, their typed form) a cache remembers."""
    return _window


def frames() -> int:
    """How many frames (data URLs, token counts) a cache remembers."""
    return FRAMES_PER_MESSAGE * _window
