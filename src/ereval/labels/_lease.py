"""The server lease of a label store: one server process at a time.

The lease is one row (owner, host, pid, token, acquired_at, heartbeat). A server
takes it when it starts, renews the heartbeat while it runs and deletes the row
when it stops. A second server is refused while the lease is live; a lease whose
heartbeat is older than its ``ttl``, or whose process on this host is gone (a
crashed server), is taken over, and the old holder learns it at its next heartbeat.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .._errors import InputError

if TYPE_CHECKING:
    from ._store import LabelStore

__all__ = ["ServerLease", "acquire", "holder"]

_COLUMNS = ("owner", "host", "pid", "acquired_at", "heartbeat")


class ServerLease:
    """The store's server lease, held by one server process at a time.

    Get it with :meth:`LabelStore.acquire_server`; call :meth:`heartbeat` more
    often than every ``ttl`` seconds and :meth:`release` on shutdown (or use the
    lease as a context manager).
    """

    def __init__(self, store: LabelStore, *, token: str, owner: str, ttl: float) -> None:
        self._store = store
        self.token = token
        self.owner = owner
        self.ttl = ttl
        self.released = False

    def heartbeat(self) -> None:
        """Renew the lease; raise if another server took it over."""
        with self._store._transaction() as conn:
            cur = conn.execute(
                "UPDATE lease SET heartbeat = ? WHERE id = 1 AND token = ?",
                (time.time(), self.token),
            )
            if cur.rowcount != 1:
                raise InputError(
                    f"the server lease of label store '{self._store.path}' was taken over by "
                    "another server; stop this one"
                )

    def release(self) -> None:
        """Give the lease up (idempotent)."""
        if self.released:
            return
        with self._store._transaction() as conn:
            conn.execute("DELETE FROM lease WHERE id = 1 AND token = ?", (self.token,))
        self.released = True

    def __enter__(self) -> ServerLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def acquire(store: LabelStore, *, owner: str, ttl: float) -> ServerLease:
    """Take the lease of ``store`` for ``owner`` (see the module docstring)."""
    host = socket.gethostname()
    token = uuid.uuid4().hex
    now = time.time()
    with store._transaction() as conn:
        row = conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM lease WHERE id = 1").fetchone()
        if row is not None:
            held_owner, held_host, pid, since, beat = row
            stale = now - float(beat) > ttl or (held_host == host and not _pid_alive(pid))
            if not stale:
                raise InputError(
                    f"label store '{store.path}' is already served by {held_owner} "
                    f"(pid {pid} on {held_host}, since {since}); stop that server first"
                )
        conn.execute(
            "INSERT OR REPLACE INTO lease VALUES (1, ?, ?, ?, ?, ?, ?)",
            (
                owner,
                host,
                os.getpid(),
                token,
                datetime.now(UTC).isoformat(timespec="microseconds"),
                now,
            ),
        )
    return ServerLease(store, token=token, owner=owner, ttl=ttl)


def holder(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """The current lease holder, or ``None``."""
    row = conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM lease WHERE id = 1").fetchone()
    return None if row is None else dict(zip(_COLUMNS, row, strict=True))
