"""The ``agentkit-arena`` command's entry point, which says what to install when the server cannot load.

Why a module of its own: the server (``unity_standin``) speaks ML-Agents' gRPC protocol and needs the
``animalai`` extra (grpcio, protobuf, mlagents-envs; pybullet for the arena itself). Without it the
command died on its first import with a traceback ending "No module named 'grpc'". This entry
imports the server only when the command runs and turns a missing extra into one line with the
install command, exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

# Top-level modules of the animalai extra (pyproject.toml) that the server imports.
EXTRA_MODULES = frozenset({"grpc", "google", "mlagents_envs", "pybullet", "yaml"})
INSTALL_HINT = "pip install 'agentkit-embodied[animalai]'"


def main(argv: Sequence[str] | None = None) -> None:
    try:
        from agentkit.envs.arena.unity_standin import main as serve_main
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing.split(".")[0] not in EXTRA_MODULES:
            raise
        sys.stderr.write(
            f"error: agentkit-arena needs the animalai extra ({missing} is not installed): {INSTALL_HINT}\n"
        )
        raise SystemExit(2) from None
    serve_main(argv)


if __name__ == "__main__":
    main()
