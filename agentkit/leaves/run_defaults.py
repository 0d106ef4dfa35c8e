"""The defaults of a run, written once: the run configuration, the loop and the command line read them here.

Why one place: the 30 scripts, 5 parse failures and 512 output tokens used to be written in
``cli.py``'s flags, in ``RunConfig`` and in the loop's ``EpisodeLimits``, with the help texts
saying them a fourth time; changing one left the others behind. ``agentkit.config.RunConfig``
takes its field defaults from here, and so do ``EpisodeLimits``, the flags of ``agentkit run``,
the "(default N)" of every help text and the model client's own defaults (``LiteLLMModel``).

It imports nothing (not even pydantic), so ``agentkit --help`` can show the defaults without
loading the run configuration's validation, and every layer may read it (tests/test_layers.py
counts it among the leaf helpers beside ``agentkit.records``).
"""

from __future__ import annotations

from typing import Final

MODEL: Final = "reference"  # the backend's reference agent: no key, no network
TEMPERATURE: Final = 0.0
# Output tokens per answer. A script is short: the longest a reference agent wrote on the packaged
# tasks is 149 tokens (trifinger, a stack of nine commands), the longest example in the packaged
# templates 71; 512 leaves more than three times that for a model's longer Think("..."). A base model
# that never stops (issue 30: two episodes took 6 min 49 s at 1,024) now stops at half the cost.
# tests/test_answer_token_default.py measures it again; reasoning models need more (endpoint_check).
MAX_TOKENS: Final = 512
EPISODES: Final = 1  # per task
SEED: Final = 0  # of each task's first episode; episode i uses seed + i
MAX_SCRIPTS: Final = 30  # model answers per episode, as in the LLM-AAI paper
MAX_PARSE_FAILURES: Final = 5  # consecutive unusable answers before the episode ends
MAX_CONSECUTIVE_MODEL_ERRORS: Final = 3  # episodes in a row ending in model errors before the run stops
MAX_CONCURRENCY: Final = 1
MAX_ATTEMPTS: Final = 2  # launches of an episode that ends in a model or environment error
TIMEOUT_S: Final = 120.0  # one whole model request
MAX_RETRIES: Final = 5  # of a failed model request, with exponential backoff
RETRY_BASE_S: Final = 1.0  # the first backoff wait
MEMORY: Final = "full"  # what of the past each prompt repeats (agentkit.memory)
PASS_RULE: Final = "aai"  # how a stopped or broken episode is judged (agentkit.pass_rule)
PROTOCOL: Final = "agentkit"  # when the clock starts, what an unusable answer costs (agentkit.protocols)
HUMAN_FRAMES: Final = "auto"  # where --model human shows the frames (agentkit.models.human_frames)
# The observer's views a run asks for ("structured" is for tools and maps, not prompts).
OBSERVER_VIEWS: Final = ("image", "ascii", "language")
