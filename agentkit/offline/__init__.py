"""Offline tools: recorded episodes replayed, re-rendered and compared, with no model called.

``replay`` re-executes recorded answers and checks the episode turns out the same;
``rerender`` renders recorded turns with new templates or a new history policy and diffs the
prompts (``line_diff``), spread over processes by ``fork_map``; ``stored_observation`` rebuilds
observations from a transcript's stored JSON.
"""
