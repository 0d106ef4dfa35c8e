"""The gridworld's evaluation protocol: the BabyAI/MiniGrid catalogue plan, modalities, harnesses,
random and reference baselines, and the ONS leaderboard.

Why here and not in envs/gridworld: an evaluation reads the run configuration and scores runs, which
a backend may not know about (docs/architecture.md, "The layers"). It may use its own backend's modules (the
catalogue, seeds, the backend for baselines); nothing in envs/ imports it.
"""
