"""Animal-AI rules shared by the two backends that play its tasks: ``arena`` (pybullet) and ``animalai`` (Unity).

Why a package of its own: one backend may not import another (docs/architecture.md, "The layers"), yet both
must mean the same Testbed suites and score them the same way. What both need lives here, and so
do the reports, which read the suites without starting either backend.
"""
