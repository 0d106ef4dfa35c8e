"""Small helpers that import nothing of agentkit, so every layer may use them.

They sit with ``agentkit.records`` and ``agentkit.messages`` at the bottom of the layer table
(docs/architecture.md); tests/test_layers.py checks that every module here stays a leaf.
``run_defaults`` holds the run's default numbers, written once; ``url_redaction`` makes URLs
safe to store and log; ``log_streams`` sends every log record to stderr.
"""
