"""Write the task catalogue files `agentkit tasks ENV` reads (envs/gridworld and envs/trifinger).

Why: listing a backend's tasks must not import its simulator (minigrid, trifinger-simulation,
pybullet) or numpy, so the lists that only the backend's code can compute are kept as packaged
JSON files. Run this after changing a backend's tasks or suites; tests/test_task_catalogues.py
fails until the files match the backends again.

Usage: python scripts/write_task_catalogues.py
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from agentkit.envs.registry import available_backends, catalogue_file, catalogue_from_backend

log = logging.getLogger("write_task_catalogues")
ENVS = Path(__file__).resolve().parent.parent / "envs"


def catalogue_text(name: str) -> str:
    """The file's text for backend ``name``: its tasks and suites as the backend gives them."""
    return json.dumps(catalogue_from_backend(name).to_json(), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for name in available_backends():
        path = catalogue_file(name)
        if path is not None:
            (ENVS / path).write_text(catalogue_text(name), encoding="utf-8")
            log.info("wrote envs/%s", path)


if __name__ == "__main__":
    main()
