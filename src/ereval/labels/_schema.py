"""The versioned schema of a label store and its migrations.

A store records its schema version in SQLite's ``user_version``. Opening a
store applies, in one transaction, every migration after its version; a store
written by a newer version of ereval is refused rather than guessed at.

Version 1 holds the append-only event log, the sessions and their items.
Version 2 adds the server lease and the claims that hand items to reviewers,
and the ``source`` of each event (where an imported label came from).
"""

from __future__ import annotations

import sqlite3

from .._errors import InputError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "schema_version"]

_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('cluster', 'pairs', 'items')),
    config TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE items (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
);
CREATE INDEX items_position ON items(session_id, position);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    reviewer TEXT NOT NULL,
    time TEXT NOT NULL,
    action TEXT NOT NULL,
    item TEXT,
    payload TEXT NOT NULL,
    shown TEXT NOT NULL,
    version TEXT NOT NULL,
    target INTEGER REFERENCES events(id)
);
CREATE INDEX events_session ON events(session_id, reviewer, id);
CREATE INDEX events_item ON events(session_id, item);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""

_V2 = """
ALTER TABLE events ADD COLUMN source TEXT;
CREATE TABLE lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    token TEXT NOT NULL,
    acquired_at TEXT NOT NULL,
    heartbeat REAL NOT NULL
);
CREATE TABLE claims (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    item TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    claimed_at REAL NOT NULL,
    PRIMARY KEY (session_id, item, reviewer)
);
"""

#: Migration ``i`` (1-based) brings a store from version ``i - 1`` to ``i``.
MIGRATIONS: tuple[str, ...] = (_V1, _V2)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the store (0 for an empty database)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, *, path: str, upto: int = SCHEMA_VERSION) -> int:
    """Bring the store to schema version ``upto`` in one transaction; return the old version.

    A store from a newer schema is refused with an :class:`~ereval.InputError`.
    The caller holds no open transaction.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = schema_version(conn)
        if found > SCHEMA_VERSION:
            raise InputError(
                f"label store '{path}' has schema version {found}, newer than this version of "
                f"ereval reads ({SCHEMA_VERSION}); upgrade ereval to open it"
            )
        for version in range(found + 1, upto + 1):
            for statement in _statements(MIGRATIONS[version - 1]):
                conn.execute(statement)
        if upto > found:
            conn.execute(f"PRAGMA user_version = {int(upto)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found


def _statements(script: str) -> list[str]:
    """Split a migration into statements (triggers keep their inner semicolons)."""
    out: list[str] = []
    current = ""
    for line in script.strip().splitlines():
        current += line + "\n"
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out
