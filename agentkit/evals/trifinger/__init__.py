"""CausalWorld's evaluation of the trifinger env: its protocols played as a run, its metrics per
protocol from the stored episodes, and the paper's bar chart (`agentkit eval causalworld`).

Why here and not in envs/trifinger: an evaluation reads the run configuration and scores finished
runs, which a backend may not know about (docs/architecture.md, "The layers"). It may use its own backend's
modules (the protocol lists); nothing in envs/ imports it.
"""
