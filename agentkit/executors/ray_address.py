"""Checks made before a Ray run is created: Ray is installed, and the store is one every node can write.

Why: a SQLite file lives on one machine; Ray tasks on other nodes would each open (and create) a
file of their own at the same path and the episodes they play would be lost to the run. So SQLite
is accepted only when the cluster is on this machine (no address, ``auto``/``local``, or an address
naming this host), and an in-memory store never (worker processes cannot see it). Each refusal is
one line naming the flag.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from urllib.parse import urlsplit

RAY_EXTRA_HINT = "pip install 'agentkit-embodied[ray]'"
_LOCAL_NAMES = {"", "127.0.0.1", "localhost", "::1", "0.0.0.0", "auto", "local"}


def require_ray() -> None:
    """ValueError (one line naming the extra) when Ray is not installed."""
    try:
        found = importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):  # a broken or blocked install reads as missing
        found = False
    if not found:
        raise ValueError(f"--executor ray: Ray is not installed: {RAY_EXTRA_HINT}")


def effective_address(address: str | None) -> str | None:
    """The cluster a driver joins: ``--ray-address``, else ``$RAY_ADDRESS``, else None (a new local one)."""
    return address or os.environ.get("RAY_ADDRESS") or None


def address_host(address: str) -> str:
    """The host part of a Ray address (``HOST:PORT``, ``ray://HOST:PORT``, ``auto``, ``local``)."""
    if address in ("auto", "local"):
        return address
    split = urlsplit(address if "://" in address else f"ray://{address}")
    return split.hostname or ""


def is_local_address(address: str | None) -> bool:
    """Whether the cluster at ``address`` runs on this machine (None: a new local cluster)."""
    if address is None:
        return True
    host = address_host(address)
    if host in _LOCAL_NAMES or host.startswith("127."):
        return True
    own = {socket.gethostname(), socket.getfqdn()}
    try:
        own.update(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    return host in own


def check_store_for_ray(store_url: str, is_memory: bool, address: str | None) -> None:
    """ValueError (one line) when the store cannot be written by the cluster's tasks."""
    if is_memory:
        raise ValueError(
            "--executor ray: an in-memory store cannot be shared with Ray's worker processes; "
            "give --db (a PostgreSQL URL, or a SQLite file with a cluster on this machine)"
        )
    if store_url.startswith("sqlite") and not is_local_address(address):
        raise ValueError(
            f"--ray-address {address}: a SQLite store is a file on this machine, which the nodes of a "
            "remote cluster cannot write; use a PostgreSQL store (--db postgresql://USER@HOST/DB)"
        )
