"""The label store: an append-only log of every labelling action in SQLite.

Every action (a label, a correction, an undo, a redo, an adjudication, an
import) is one event appended to the log in its own ``BEGIN IMMEDIATE``
transaction; nothing is ever updated or deleted (triggers refuse it). The
current labels are a query of the log: for each reviewer of a session the
events are replayed with an undo stack and a redo stack, so undo and redo go
back and forth to any depth, and a correction supersedes the old label without
erasing it. Labels are keyed by record, pair or item ids, never by positions in
a clustering, so they survive a new clustering.

The database runs in WAL mode with a busy timeout, so several reviewers and
processes can write at once; a committed action survives the writing process
being killed. A web server takes the store's *server lease*
(:meth:`LabelStore.acquire_server`) so that a second server on the same store
is refused, while a lease left by a crashed server is taken over.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from .._errors import InputError
from .._validation import describe
from ._lease import ServerLease, acquire, holder
from ._schema import migrate, schema_version
from ._types import Event, Item, SessionInfo, SessionKind, Stream

__all__ = [
    "ACTIONS",
    "KINDS",
    "Event",
    "Item",
    "LabelStore",
    "ServerLease",
    "SessionInfo",
    "SessionKind",
]

KINDS: tuple[SessionKind, ...] = ("cluster", "pairs", "items")
Action = Literal["label", "undo", "redo", "adjudicate"]
ACTIONS: tuple[Action, ...] = ("label", "undo", "redo", "adjudicate")


#: A claim keeps an item for the reviewer it was handed to for this long (seconds).
CLAIM_SECONDS = 1800.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _version() -> str:
    from .. import __version__

    return __version__


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


class LabelStore:
    """A label store in one SQLite file.

    Parameters
    ----------
    path : str or path
        The database file.
    create : bool, default False
        Create the file if it does not exist (otherwise a missing file is an error).
    timeout : float, default 30
        Seconds to wait for another writer before giving up.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.db")
    >>> store = LabelStore(path, create=True)
    >>> s = store.create_session("pairs-1", kind="pairs", config={"seed": 0})
    >>> store.add_items("pairs-1", [Item("p1", 0, {}), Item("p2", 1, {})])
    2
    >>> _ = store.label("pairs-1", "p1", "match", reviewer="ana")
    >>> _ = store.label("pairs-1", "p1", "non-match", reviewer="ana")  # a correction
    >>> store.labels("pairs-1")
    {'p1': {'ana': 'non-match'}}
    >>> _ = store.undo("pairs-1", reviewer="ana")
    >>> store.labels("pairs-1")
    {'p1': {'ana': 'match'}}
    >>> _ = store.redo("pairs-1", reviewer="ana")
    >>> store.labels("pairs-1"), len(store.events("pairs-1"))
    ({'p1': {'ana': 'non-match'}}, 4)
    >>> store.close()
    """

    def __init__(
        self, path: str | os.PathLike[str], *, create: bool = False, timeout: float = 30.0
    ) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        if not create and not Path(self.path).is_file():
            raise InputError(
                f"label store '{self.path}' does not exist; create it with 'ereval label init'"
            )
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as exc:
            raise InputError(f"'{self.path}' is not a label store (SQLite said: {exc})") from exc
        if str(mode).lower() != "wal":
            raise InputError(f"label store '{self.path}' cannot use WAL mode (got {mode!r})")
        try:
            self.migrated_from = migrate(self._conn, path=self.path)
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise InputError(f"'{self.path}' is not a label store (SQLite said: {exc})") from exc
        except BaseException:
            self._conn.close()
            raise
        if self.migrated_from == 0:
            with self._transaction() as conn:
                conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('created_at', ?), ('created_by', ?)",
                    (_now(), _version()),
                )

    # ------------------------------------------------------------------ basics
    @property
    def schema_version(self) -> int:
        """The schema version of the open store."""
        with self._lock:
            return schema_version(self._conn)

    def close(self) -> None:
        """Close the connection (every action is already committed)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> LabelStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; threads sharing the store take turns."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def _fetch_one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        rows = self._fetch(sql, args)
        return rows[0] if rows else None

    # ---------------------------------------------------------------- sessions
    def create_session(
        self, name: str, *, kind: SessionKind, config: Mapping[str, Any]
    ) -> SessionInfo:
        """Create a session (an existing name is an error)."""
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"'session' must be a non-empty name; received {describe(name)}")
        if kind not in KINDS:
            raise InputError(f"'kind' must be one of {', '.join(KINDS)}; received {kind!r}")
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM sessions WHERE name = ?", (name,)).fetchone():
                raise InputError(f"session '{name}' already exists in '{self.path}'")
            conn.execute(
                "INSERT INTO sessions (name, kind, config, created_at) VALUES (?, ?, ?, ?)",
                (name, kind, _dumps(dict(config)), _now()),
            )
        return self.session(name)

    def session(self, name: str) -> SessionInfo:
        """The session called ``name``."""
        row = self._fetch_one(
            "SELECT id, name, kind, config, created_at FROM sessions WHERE name = ?", (name,)
        )
        if row is None:
            known = ", ".join(s.name for s in self.sessions()) or "none"
            raise InputError(
                f"'session' {name!r} is not in label store '{self.path}' (sessions: {known})"
            )
        return SessionInfo(row[0], row[1], row[2], json.loads(row[3]), row[4])

    def sessions(self) -> list[SessionInfo]:
        """Every session, in creation order."""
        rows = self._fetch("SELECT id, name, kind, config, created_at FROM sessions ORDER BY id")
        return [SessionInfo(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    # ------------------------------------------------------------------- items
    def add_items(self, session: str, items: Sequence[Item]) -> int:
        """Add items to a session's queue in one transaction; return how many were new.

        An item already in the session is left as it is.
        """
        sid = self.session(session).id
        with self._transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO items (session_id, key, position, payload) "
                "VALUES (?, ?, ?, ?)",
                [(sid, str(it.key), int(it.position), _dumps(it.payload)) for it in items],
            )
            return conn.total_changes - before

    def items(self, session: str) -> list[Item]:
        """The session's items in queue order."""
        sid = self.session(session).id
        rows = self._fetch(
            "SELECT key, position, payload FROM items WHERE session_id = ? ORDER BY position, key",
            (sid,),
        )
        return [Item(r[0], r[1], json.loads(r[2])) for r in rows]

    def item(self, session: str, key: str) -> Item:
        """One item of the session (an unknown item is an error)."""
        sid = self.session(session).id
        row = self._fetch_one(
            "SELECT key, position, payload FROM items WHERE session_id = ? AND key = ?",
            (sid, str(key)),
        )
        if row is None:
            raise InputError(f"'item' {key!r} is not an item of session '{session}'")
        return Item(row[0], row[1], json.loads(row[2]))

    def has_item(self, session: str, key: str) -> bool:
        """Whether ``key`` is an item of the session."""
        sid = self.session(session).id
        return (
            self._fetch_one("SELECT 1 FROM items WHERE session_id = ? AND key = ?", (sid, str(key)))
            is not None
        )

    # ----------------------------------------------------------------- actions
    def label(
        self,
        session: str,
        item: str,
        value: Any,
        *,
        reviewer: str,
        shown: Mapping[str, Any] | None = None,
        source: str | None = None,
        once: bool = False,
    ) -> Event:
        """Record ``reviewer``'s label of ``item`` (a later label of the same item supersedes it).

        ``value`` is any JSON value; the session layers check it for their kind.
        ``once=True`` writes nothing when ``reviewer`` already labelled the item
        and returns that label's event (for labels recorded automatically, which
        two processes may both derive).
        """
        return self._do(session, "label", item, value, reviewer, shown, source, once=once)

    def import_labels(
        self,
        session: str,
        labels: Sequence[tuple[str, Any]],
        *,
        reviewer: str,
        source: str,
        shown: Mapping[str, Any] | None = None,
    ) -> int:
        """Record many labels of one reviewer in one transaction (all or none); return how many.

        Every item must be in the session; ``source`` (e.g. the imported file's
        name) is kept with each event.
        """
        info = self.session(session)
        reviewer = _check_reviewer(reviewer)
        shown_text = _dumps(dict(shown or {}))
        with self._transaction() as conn:
            for item, value in labels:
                if not conn.execute(
                    "SELECT 1 FROM items WHERE session_id = ? AND key = ?", (info.id, str(item))
                ).fetchone():
                    raise InputError(f"'item' {item!r} is not an item of session '{session}'")
                conn.execute(
                    "INSERT INTO events (session_id, reviewer, time, action, item, payload, "
                    "shown, version, target, source) VALUES (?, ?, ?, 'label', ?, ?, ?, ?, NULL, ?)",
                    (
                        info.id,
                        reviewer,
                        _now(),
                        str(item),
                        _dumps({"value": value}),
                        shown_text,
                        _version(),
                        source,
                    ),
                )
        return len(labels)

    def adjudicate(
        self,
        session: str,
        item: str,
        value: Any,
        *,
        reviewer: str,
        shown: Mapping[str, Any] | None = None,
    ) -> Event:
        """Record an adjudicator's final label of an item (it overrides the reviewers')."""
        return self._do(session, "adjudicate", item, value, reviewer, shown, None)

    def undo(self, session: str, *, reviewer: str) -> Event | None:
        """Undo ``reviewer``'s latest label in the session; ``None`` when there is nothing to undo."""
        return self._step(session, "undo", reviewer)

    def redo(self, session: str, *, reviewer: str) -> Event | None:
        """Redo ``reviewer``'s latest undone label; ``None`` when there is nothing to redo."""
        return self._step(session, "redo", reviewer)

    def _do(
        self,
        session: str,
        action: Action,
        item: str,
        value: Any,
        reviewer: str,
        shown: Mapping[str, Any] | None,
        source: str | None,
        *,
        once: bool = False,
    ) -> Event:
        info = self.session(session)
        reviewer = _check_reviewer(reviewer)
        item = str(item)
        payload = _dumps({"value": value})
        shown_text = _dumps(dict(shown or {}))
        with self._transaction() as conn:
            if not conn.execute(
                "SELECT 1 FROM items WHERE session_id = ? AND key = ?", (info.id, item)
            ).fetchone():
                raise InputError(f"'item' {item!r} is not an item of session '{session}'")
            if once:
                found = conn.execute(
                    "SELECT MAX(id) FROM events WHERE session_id = ? AND reviewer = ? AND item = ? "
                    "AND action = ?",
                    (info.id, reviewer, item, action),
                ).fetchone()[0]
                if found is not None:
                    event_id = int(found)
                    return self._event(event_id)
            cur = conn.execute(
                "INSERT INTO events (session_id, reviewer, time, action, item, payload, shown, "
                "version, target, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                (info.id, reviewer, _now(), action, item, payload, shown_text, _version(), source),
            )
            conn.execute(
                "DELETE FROM claims WHERE session_id = ? AND item = ? AND reviewer = ?",
                (info.id, item, reviewer),
            )
            event_id = int(cur.lastrowid or 0)
        return self._event(event_id)

    def _step(self, session: str, action: Action, reviewer: str) -> Event | None:
        info = self.session(session)
        reviewer = _check_reviewer(reviewer)
        with self._transaction() as conn:
            stream = self._stream(info, reviewer, conn)
            stack = stream.done if action == "undo" else stream.undone
            if not stack:
                return None
            target = stack[-1]
            cur = conn.execute(
                "INSERT INTO events (session_id, reviewer, time, action, item, payload, shown, "
                "version, target, source) VALUES (?, ?, ?, ?, ?, ?, '{}', ?, ?, NULL)",
                (
                    info.id,
                    reviewer,
                    _now(),
                    action,
                    target.item,
                    _dumps({"value": None}),
                    _version(),
                    target.id,
                ),
            )
            event_id = int(cur.lastrowid or 0)
        return self._event(event_id)

    def can_undo(self, session: str, *, reviewer: str) -> bool:
        """Whether ``reviewer`` has a label to undo in the session."""
        with self._lock:
            return bool(self._stream(self.session(session), reviewer, self._conn).done)

    def can_redo(self, session: str, *, reviewer: str) -> bool:
        """Whether ``reviewer`` has an undone label to redo in the session."""
        with self._lock:
            return bool(self._stream(self.session(session), reviewer, self._conn).undone)

    # ----------------------------------------------------------------- queries
    _EVENT_SQL = (
        "SELECT e.id, s.name, e.reviewer, e.time, e.action, e.item, e.payload, e.shown, "
        "e.version, e.target, e.source FROM events e JOIN sessions s ON s.id = e.session_id"
    )

    @staticmethod
    def _row_event(row: Sequence[Any]) -> Event:
        return Event(
            id=row[0],
            session=row[1],
            reviewer=row[2],
            time=row[3],
            action=row[4],
            item=row[5],
            value=json.loads(row[6])["value"],
            shown=json.loads(row[7]),
            version=row[8],
            target=row[9],
            source=row[10],
        )

    def _event(self, event_id: int) -> Event:
        row = self._fetch_one(self._EVENT_SQL + " WHERE e.id = ?", (event_id,))
        return self._row_event(row)

    def events(self, session: str | None = None, *, reviewer: str | None = None) -> list[Event]:
        """The log, in order (of one session and/or reviewer when given)."""
        sql, args = self._EVENT_SQL, list[Any]()
        where = []
        if session is not None:
            where.append("e.session_id = ?")
            args.append(self.session(session).id)
        if reviewer is not None:
            where.append("e.reviewer = ?")
            args.append(reviewer)
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._fetch(sql + " ORDER BY e.id", args)
        return [self._row_event(r) for r in rows]

    def _stream(self, info: SessionInfo, reviewer: str, conn: sqlite3.Connection) -> Stream:
        rows = conn.execute(
            self._EVENT_SQL + " WHERE e.session_id = ? AND e.reviewer = ? ORDER BY e.id",
            (info.id, reviewer),
        ).fetchall()
        stream = Stream()
        for row in rows:
            stream.apply(self._row_event(row))
        return stream

    def _streams(self, session: str) -> dict[str, Stream]:
        streams: dict[str, Stream] = {}
        for event in self.events(session):
            streams.setdefault(event.reviewer, Stream()).apply(event)
        return streams

    def labels(self, session: str, *, reviewer: str | None = None) -> dict[str, dict[str, Any]]:
        """The current labels: item -> {reviewer: value} (adjudications not included)."""
        out: dict[str, dict[str, Any]] = {}
        for who, stream in self._streams(session).items():
            if reviewer is not None and who != reviewer:
                continue
            for event in stream.done:
                if event.action == "label" and event.item is not None:
                    out.setdefault(event.item, {})[who] = event.value
        return out

    def adjudications(self, session: str) -> dict[str, tuple[str, Any]]:
        """The current adjudications: item -> (adjudicator, value), the latest one winning."""
        latest: dict[str, Event] = {}
        for stream in self._streams(session).values():
            for event in stream.done:
                if event.action == "adjudicate" and event.item is not None:
                    old = latest.get(event.item)
                    if old is None or event.id > old.id:
                        latest[event.item] = event
        return {k: (e.reviewer, e.value) for k, e in latest.items()}

    def current_events(self, session: str) -> list[Event]:
        """The label and adjudication events in effect (not undone), in log order."""
        done = [e for s in self._streams(session).values() for e in s.done]
        return sorted(done, key=lambda e: e.id)

    def reviewers(self, session: str) -> list[str]:
        """Reviewers who acted in the session, in order of first action."""
        seen: dict[str, None] = {}
        for event in self.events(session):
            seen.setdefault(event.reviewer, None)
        return list(seen)

    # ------------------------------------------------------------------ queue
    def next_item(
        self,
        session: str,
        *,
        reviewer: str,
        required: Mapping[str, int] | None = None,
        default_required: int = 1,
    ) -> Item | None:
        """Hand ``reviewer`` the first item that still needs them, and claim it.

        An item needs ``required[key]`` distinct reviewers (``default_required``
        when absent). It goes to ``reviewer`` if they have not labelled it and
        fewer reviewers than required have labelled or claimed it (claims expire
        after 30 minutes). The claim is taken in the same transaction, so two
        reviewers asking at once get different items. ``None`` when no item is left.
        """
        info = self.session(session)
        reviewer = _check_reviewer(reviewer)
        now = time.time()
        with self._transaction() as conn:
            labelled: dict[str, set[str]] = {}
            streams: dict[str, Stream] = {}
            for row in conn.execute(
                self._EVENT_SQL + " WHERE e.session_id = ? ORDER BY e.id", (info.id,)
            ):
                event = self._row_event(row)
                streams.setdefault(event.reviewer, Stream()).apply(event)
            for who, stream in streams.items():
                for event in stream.done:
                    if event.action == "label" and event.item is not None:
                        labelled.setdefault(event.item, set()).add(who)
            claims: dict[str, set[str]] = {}
            for item_key, who in conn.execute(
                "SELECT item, reviewer FROM claims WHERE session_id = ? AND claimed_at > ?",
                (info.id, now - CLAIM_SECONDS),
            ):
                claims.setdefault(item_key, set()).add(who)
            mine = [k for k, who in claims.items() if reviewer in who]
            for row in conn.execute(
                "SELECT key, position, payload FROM items WHERE session_id = ? "
                "ORDER BY position, key",
                (info.id,),
            ):
                key = row[0]
                done_by = labelled.get(key, set())
                if reviewer in done_by:
                    continue
                need = (required or {}).get(key, default_required)
                if need <= 0 or len(done_by) >= need:
                    continue
                if key not in mine and len(done_by | claims.get(key, set())) >= need:
                    continue
                conn.execute(
                    "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)",
                    (info.id, key, reviewer, now),
                )
                return Item(row[0], row[1], json.loads(row[2]))
        return None

    def release_claims(self, session: str, *, reviewer: str) -> None:
        """Give back the items handed to ``reviewer`` and not labelled yet."""
        info = self.session(session)
        with self._transaction() as conn:
            conn.execute(
                "DELETE FROM claims WHERE session_id = ? AND reviewer = ?", (info.id, reviewer)
            )

    # ------------------------------------------------------------------ lease
    def acquire_server(
        self, *, owner: str = "ereval label serve", ttl: float = 15.0
    ) -> ServerLease:
        """Take the server lease, or raise if a live server holds it.

        A lease whose heartbeat is older than ``ttl`` seconds, or whose process
        on this host is gone (a crashed server), is taken over. See
        :class:`~ereval.labels.ServerLease`.
        """
        return acquire(self, owner=owner, ttl=ttl)

    def server(self) -> dict[str, Any] | None:
        """The current lease holder (owner, host, pid, acquired_at, heartbeat) or ``None``."""
        with self._lock:
            return holder(self._conn)

    # ---------------------------------------------------------------- helpers
    def fingerprint(self, session: str) -> str:
        """A digest of the session's log, changing with every action (for caches)."""
        info = self.session(session)
        row = self._fetch_one(
            "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM events WHERE session_id = ?", (info.id,)
        )
        return hashlib.sha256(f"{info.id}:{row[0]}:{row[1]}".encode()).hexdigest()[:16]


def _check_reviewer(reviewer: Any) -> str:
    if not isinstance(reviewer, str) or not reviewer.strip():
        raise InputError(f"'reviewer' must be a non-empty name; received {describe(reviewer)}")
    return reviewer.strip()
