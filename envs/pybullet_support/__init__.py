"""pybullet, imported once and quietly, for the backends built on it: ``arena`` and ``trifinger``.

Why a package of its own: one backend may not import another (docs/architecture.md, "The layers"), yet both
must load pybullet through the same output silencer, or its start-up chatter reaches the stdout
that ``agentkit run --json`` owns. ``bullet.p`` is the pybullet module.
"""
