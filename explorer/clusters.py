"""The Dask clusters runs may train on: which ones the server allows, and one client per cluster.

No Streamlit here.  Where a run trains is the server operator's choice, never a browser
session's: a session that could name any address would make the server connect to a
scheduler of its choosing (Dask unpickles what schedulers and workers send) or start
local clusters without bound.  So in the isolated workspace mode (a shared server, the
default) a run trains on this server or on ``SVI_TOPICS_DASK_SCHEDULER``, nothing else;
any address, and ``local:N``, only in the desktop mode ``SVI_TOPICS_WORKSPACE=shared``.
A local cluster's worker processes count against no limit of the explorer
(``SVI_TOPICS_MAX_TRAINING_THREADS`` bounds the runs' threads, not Dask's workers).

One client per cluster (its canonical address, ``local:01`` is ``local:1``) for the whole
server, connected outside the lock that guards the table: sessions asking for the same
cluster share one attempt, other clusters and other runs wait for nothing.  A client whose
scheduler has gone is dropped, so the next run reconnects; all are closed at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from concurrent.futures import Future
from typing import Any

from explorer import workspace
from explorer.engine_api import canonical_address, connect_cluster
from explorer.engine_api import settings as environment

__all__ = ["SCHEDULER_VARIABLE", "SchedulerNotAllowedError", "allowed", "check", "client", "close_clients", "default"]

SCHEDULER_VARIABLE = "SVI_TOPICS_DASK_SCHEDULER"


class SchedulerNotAllowedError(ValueError):
    """A run asked to train on a Dask scheduler this server does not allow in its workspace mode."""


def default() -> str:
    """``SVI_TOPICS_DASK_SCHEDULER`` in its canonical spelling ("" or unset: this server)."""
    address = environment.get(SCHEDULER_VARIABLE).strip()
    try:
        return canonical_address(address)
    except ValueError:
        return address  # a malformed local:N fails, with its reason, when a run connects


def allowed() -> tuple[str, ...] | None:
    """Where runs may train: "" (this server) and the operator's scheduler, or None (anywhere: desktop mode)."""
    if workspace.mode() == workspace.SHARED:
        return None
    chosen = default()
    return ("", chosen) if chosen else ("",)


def check(address: str) -> str:
    """``address`` in its canonical spelling if runs may train there in this workspace mode, else an error."""
    address = canonical_address(address)
    choices = allowed()
    if choices is not None and address not in choices:
        raise SchedulerNotAllowedError(
            f"this server does not train on the Dask scheduler {address!r}: on a shared server runs train here "
            f"or on the scheduler set by {SCHEDULER_VARIABLE} ({choices[-1] or 'unset'}); any scheduler, and "
            f"local:N, only in the desktop mode {workspace.MODE_VARIABLE}=shared")
    return address


_clients: dict[str, Future] = {}  # canonical address -> its client (or the attempt that makes it)
_clients_lock = threading.Lock()


def _alive(pending: Future) -> bool:
    if not pending.done():
        return True  # being connected: wait for it
    return pending.exception() is None and getattr(pending.result(), "status", "running") == "running"


def client(address: str) -> Any:
    """The one Dask client of ``address`` (canonical) for the whole server, connected if need be.

    Assumes :func:`check` passed.  Raises what connecting raises (the next call tries again).
    """
    with _clients_lock:
        pending = _clients.get(address)
        stale = pending if pending is not None and not _alive(pending) else None
        mine = pending is None or stale is not None
        if mine:
            pending = _clients[address] = Future()
    if stale is not None and stale.exception() is None:
        _close(stale.result())
    if mine:
        try:
            pending.set_result(connect_cluster(address))
        except BaseException as exc:
            with _clients_lock:
                if _clients.get(address) is pending:
                    del _clients[address]
            pending.set_exception(exc)
    return pending.result()


def _close(dask_client: Any) -> None:
    cluster = getattr(dask_client, "cluster", None)  # the LocalCluster of "local:N", not closed by its client
    for closeable in (dask_client, cluster):
        if closeable is not None:
            with contextlib.suppress(Exception):  # a client whose scheduler has gone may fail to close: drop it
                closeable.close()


def close_clients() -> None:
    """Close the Dask clients runs have opened (their runs must have ended); also called at exit."""
    with _clients_lock:
        done = [pending for pending in _clients.values() if pending.done() and pending.exception() is None]
        _clients.clear()
    for pending in done:
        _close(pending.result())


atexit.register(close_clients)
