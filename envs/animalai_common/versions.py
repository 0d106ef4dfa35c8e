"""The Animal-AI versions the arena reproduces, and the one it plays unless told otherwise.

Why a module of its own: the pybullet arena (its masses per version) and the Animal-AI backend (which
version its builtin build plays) both name them, and neither may import the other.
"""

AAI_VERSIONS = ("3.1.3", "4.1.0")
DEFAULT_VERSION = "3.1.3"  # the LLM-AAI paper's
