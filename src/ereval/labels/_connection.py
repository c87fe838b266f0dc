"""Opening a label store's SQLite file, and what its errors mean to a user.

A store is opened for writing (WAL mode, ``synchronous=FULL``, the schema
migrated) or read-only (SQLite's ``mode=ro``: nothing is ever written, not even
a migration, so a command that only reads leaves the file byte for byte as it
was). SQLite's errors become one-line :class:`~ereval.InputError` messages that
say what happened: the store is locked by another process, it is read-only, it
is empty, or the file is not a label store at all.
"""

from __future__ import annotations

import os
import sqlite3
import urllib.request
from pathlib import Path

from .._errors import InputError

__all__ = ["connect", "sqlite_error"]


def sqlite_error(path: str, exc: sqlite3.Error, *, readonly: bool = False) -> InputError:
    """The one-line error for a SQLite error on the store at ``path``.

    Examples
    --------
    >>> str(sqlite_error("l.db", sqlite3.OperationalError("database is locked")))
    "label store 'l.db' is locked by another process (SQLite: database is locked); try again once it is done"
    >>> str(sqlite_error("l.db", sqlite3.DatabaseError("file is not a database")))
    "'l.db' is not a label store (SQLite said: file is not a database)"
    """
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return InputError(
            f"label store '{path}' is locked by another process (SQLite: {exc}); "
            "try again once it is done"
        )
    if "not a database" in text or "malformed" in text:
        return InputError(f"'{path}' is not a label store (SQLite said: {exc})")
    folder = os.path.dirname(os.path.abspath(path))
    unwritable = os.path.exists(path) and (
        not os.access(path, os.W_OK) or not os.access(folder, os.W_OK)
    )
    if "readonly" in text or "read-only" in text or (unwritable and not readonly):
        return InputError(
            f"label store '{path}' is read-only (SQLite: {exc}); a command that writes labels "
            "needs write access to the file and its folder"
        )
    if isinstance(exc, sqlite3.OperationalError) and "unable to open" in text:
        return InputError(f"label store '{path}' cannot be opened (SQLite: {exc})")
    return InputError(f"'{path}' is not a label store (SQLite said: {exc})")


def connect(path: str, *, readonly: bool, timeout: float) -> sqlite3.Connection:
    """A connection to the store at ``path`` (which exists), in autocommit mode.

    Read-only connections use SQLite's ``mode=ro`` and change nothing; writing
    ones switch the file to WAL mode with ``synchronous=FULL``. An empty file is
    refused: it is not a store, and opening it must not turn it into one.
    """
    if Path(path).is_file() and Path(path).stat().st_size == 0:
        raise InputError(
            f"'{path}' is empty, not a label store; create one with 'ereval label init'"
        )
    try:
        if readonly:
            uri = "file:" + urllib.request.pathname2url(os.path.abspath(path)) + "?mode=ro"
            conn = sqlite3.connect(
                uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        else:
            conn = sqlite3.connect(
                path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
    except sqlite3.Error as exc:
        raise sqlite_error(path, exc, readonly=readonly) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        if readonly:
            conn.execute("PRAGMA query_only = ON")
            conn.execute("PRAGMA user_version").fetchone()
        else:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise InputError(f"label store '{path}' cannot use WAL mode (got {mode!r})")
            conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as exc:
        conn.close()
        raise sqlite_error(path, exc, readonly=readonly) from exc
    except BaseException:
        conn.close()
        raise
    return conn
