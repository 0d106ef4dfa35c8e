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


def check_reachable(address: str | None, timeout_s: float = 5.0) -> None:
    """ValueError (one line) when nothing answers at a Ray address (Ray itself would retry forever)."""
    if address is None or address in ("auto", "local"):
        return
    split = urlsplit(address if "://" in address else f"ray://{address}")
    try:
        port = split.port or (10001 if address.startswith("ray://") else 6379)
    except ValueError:
        raise ValueError(f"--ray-address {address!r}: give HOST:PORT or ray://HOST:PORT") from None
    try:
        with socket.create_connection((split.hostname or "127.0.0.1", port), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"--ray-address {address}: no Ray cluster answers there ({reason})") from None


def is_local_address(address: str | None) -> bool:
    """Whether the cluster at ``address`` runs on this machine (None: a new local cluster)."""
    if address is None:
        return True
    return is_this_machine(address_host(address))


def is_this_machine(host: str) -> bool:
    """Whether ``host`` (a name or an IP address) is this machine."""
    if host in _LOCAL_NAMES or host.startswith("127."):
        return True
    return host in _own_names()


def _own_names() -> set[str]:
    """This machine's names and addresses: its host name, and the addresses it is reached by
    (the one Ray's nodes advertise is the address of the default route's interface)."""
    own = {socket.gethostname(), socket.getfqdn()}
    try:
        own.update(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(
                ("198.51.100.1", 9)
            )  # TEST-NET-2; a UDP "connect" sends nothing, it picks the route
            own.add(probe.getsockname()[0])
        except OSError:
            pass
    return own


def check_nodes_share_sqlite(store_url: str, node_hosts: list[str], address: str | None) -> None:
    """ValueError (one line) when a SQLite store meets a cluster with a node on another machine."""
    if not store_url.startswith("sqlite"):
        return
    remote = sorted(h for h in node_hosts if not is_this_machine(h))
    if remote:
        where = address or "the cluster"
        raise ValueError(
            f"--ray-address {where}: a SQLite store is a file on this machine, but the cluster has a node "
            f"on {remote[0]}, which cannot write it; use a PostgreSQL store (--db postgresql://USER@HOST/DB)"
        )


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
