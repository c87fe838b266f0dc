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
from . import _claims
from ._connection import connect, sqlite_error
from ._lease import ServerLease, acquire, holder
from ._schema import SCHEMA_VERSION, migrate, schema_version
from ._types import Event, Item, SessionInfo, SessionKind, StaleAnswer, Stream

__all__ = [
    "ACTIONS",
    "KINDS",
    "Event",
    "Item",
    "LabelStore",
    "ServerLease",
    "SessionInfo",
    "SessionKind",
    "StaleAnswer",
    "check_reviewer",
    "is_reserved",
]

KINDS: tuple[SessionKind, ...] = ("cluster", "pairs", "items")
Action = Literal["label", "undo", "redo", "adjudicate"]
ACTIONS: tuple[Action, ...] = ("label", "undo", "redo", "adjudicate")


#: A claim keeps an item for the reviewer it was handed to for this long (seconds).
CLAIM_SECONDS = _claims.CLAIM_SECONDS
#: Seconds to wait for another writer before a store is reported as locked.
DEFAULT_TIMEOUT = 30.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _version() -> str:
    from .._version import __version__

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
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        timeout: float | None = None,
        readonly: bool = False,
    ) -> None:
        self.path = str(path)
        self.readonly = bool(readonly)
        self._lock = threading.RLock()
        timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        if not Path(self.path).is_file() and (readonly or not create):
            raise InputError(
                f"label store '{self.path}' does not exist; create it with 'ereval label init'"
            )
        self._conn = connect(self.path, readonly=self.readonly, timeout=timeout)
        if self.readonly:
            self.migrated_from = self._check_readable()
            return
        try:
            self.migrated_from = migrate(self._conn, path=self.path)
        except sqlite3.Error as exc:
            self._conn.close()
            raise sqlite_error(self.path, exc) from exc
        except BaseException:
            self._conn.close()
            raise
        if self.migrated_from == 0:
            with self._transaction() as conn:
                conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('created_at', ?), ('created_by', ?)",
                    (_now(), _version()),
                )

    def _check_readable(self) -> int:
        """The schema version of a store opened read-only (which cannot be migrated)."""
        try:
            found = schema_version(self._conn)
        except sqlite3.Error as exc:
            self._conn.close()
            raise sqlite_error(self.path, exc, readonly=True) from exc
        problem = None
        if found == 0:
            problem = f"'{self.path}' is not a label store (it holds no label store schema)"
        elif found > SCHEMA_VERSION:
            problem = (
                f"label store '{self.path}' has schema version {found}, newer than this version "
                f"of ereval reads ({SCHEMA_VERSION}); upgrade ereval to open it"
            )
        elif found < SCHEMA_VERSION:
            problem = (
                f"label store '{self.path}' has the older schema version {found}; open it once "
                "with a command that writes (e.g. 'ereval label serve') to upgrade it"
            )
        if problem is not None:
            self._conn.close()
            raise InputError(problem)
        return found

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
        """One ``BEGIN IMMEDIATE`` transaction; threads sharing the store take turns.

        A store opened read-only refuses, and SQLite's errors (another process
        holding the store, a read-only file) become one-line input errors.
        """
        if self.readonly:
            raise InputError(
                f"label store '{self.path}' is open read-only: this command does not change it"
            )
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise sqlite_error(self.path, exc) from exc
            try:
                yield conn
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise sqlite_error(self.path, exc) from exc
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise sqlite_error(self.path, exc) from exc

    def _fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise sqlite_error(self.path, exc, readonly=self.readonly) from exc

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
        expected_version: int | None = None,
    ) -> Event:
        """Record ``reviewer``'s label of ``item`` (a later label of the same item supersedes it).

        ``value`` is any JSON value; the session layers check it for their kind.
        ``expected_version``, when given, is the :meth:`item_version` the reviewer
        was shown: if the item changed since (the same reviewer answered it in
        another tab, undid or redid that answer, or it was adjudicated),
        :class:`StaleAnswer` is raised and nothing is written.
        """
        return self._do(session, "label", item, value, reviewer, shown, source, expected_version)

    def import_labels(
        self,
        session: str,
        labels: Sequence[tuple[str, Any]],
        *,
        reviewer: str,
        source: str,
        shown: Mapping[str, Any] | None = None,
        new_items: Sequence[Item] = (),
    ) -> int:
        """Record many labels of one reviewer in one transaction (all or none); return how many.

        ``new_items`` are added to the session in the same transaction (pairs the
        sampler has not asked yet). Every labelled item must then be in the
        session, and no item may be given two different labels; ``source`` (e.g.
        the imported file's name) is kept with each event. A refused import
        writes nothing.
        """
        info = self.session(session)
        reviewer = check_reviewer(reviewer)
        shown_text = _dumps(dict(shown or {}))
        first: dict[str, Any] = {}
        unique: list[tuple[str, Any]] = []
        for item, value in labels:
            key = str(item)
            if key in first:
                if first[key] != value:
                    raise InputError(
                        f"'labels' give item {key!r} two labels ({first[key]!r} and {value!r})"
                    )
                continue
            first[key] = value
            unique.append((key, value))
        with self._transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO items (session_id, key, position, payload) "
                "VALUES (?, ?, ?, ?)",
                [(info.id, str(it.key), int(it.position), _dumps(it.payload)) for it in new_items],
            )
            for key, value in unique:
                if not conn.execute(
                    "SELECT 1 FROM items WHERE session_id = ? AND key = ?", (info.id, key)
                ).fetchone():
                    raise InputError(f"'item' {key!r} is not an item of session '{session}'")
                conn.execute(
                    "INSERT INTO events (session_id, reviewer, time, action, item, payload, "
                    "shown, version, target, source) VALUES (?, ?, ?, 'label', ?, ?, ?, ?, NULL, ?)",
                    (
                        info.id,
                        reviewer,
                        _now(),
                        key,
                        _dumps({"value": value}),
                        shown_text,
                        _version(),
                        source,
                    ),
                )
        return len(unique)

    def adjudicate(
        self,
        session: str,
        item: str,
        value: Any,
        *,
        reviewer: str,
        shown: Mapping[str, Any] | None = None,
        expected_version: int | None = None,
    ) -> Event:
        """Record an adjudicator's final label of an item (it overrides the reviewers').

        The adjudicator must not be one of the item's reviewers (a dispute is
        decided by someone who is not part of it). ``expected_version`` is the
        item's :meth:`item_version` over every reviewer, as the adjudicator saw it.
        """
        return self._do(session, "adjudicate", item, value, reviewer, shown, None, expected_version)

    def undo(self, session: str, *, reviewer: str) -> Event | None:
        """Undo ``reviewer``'s latest label in the session; ``None`` when there is nothing to undo."""
        return self._step(session, "undo", reviewer)

    def redo(self, session: str, *, reviewer: str) -> Event | None:
        """Redo ``reviewer``'s latest undone label; ``None`` when there is nothing to redo."""
        return self._step(session, "redo", reviewer)

    def item_version(self, session: str, item: str, *, reviewer: str | None = None) -> int:
        """The version of ``item`` as ``reviewer`` sees it: the last event that changed it.

        For a reviewer: their own labels of the item, their undo and redo of them,
        and every adjudication of the item (and its undo and redo). Without a
        reviewer (an adjudicator's view): every event on the item. ``0`` when none.
        An answer carries the version it was given against (``expected_version``).
        """
        info = self.session(session)
        with self._lock:
            return _item_version(self._conn, info.id, str(item), reviewer)

    def _do(
        self,
        session: str,
        action: Action,
        item: str,
        value: Any,
        reviewer: str,
        shown: Mapping[str, Any] | None,
        source: str | None,
        expected_version: int | None,
    ) -> Event:
        info = self.session(session)
        reviewer = check_reviewer(reviewer)
        item = str(item)
        payload = _dumps({"value": value})
        shown_text = _dumps(dict(shown or {}))
        with self._transaction() as conn:
            if not conn.execute(
                "SELECT 1 FROM items WHERE session_id = ? AND key = ?", (info.id, item)
            ).fetchone():
                raise InputError(f"'item' {item!r} is not an item of session '{session}'")
            if action == "adjudicate":
                parties = self._parties(info, item, conn)
                if reviewer in parties:
                    raise InputError(
                        f"'reviewer' {reviewer} is part of the dispute on item {item!r} (they "
                        "labelled it); it is adjudicated by someone who did not label it"
                    )
            if expected_version is not None:
                who = reviewer if action == "label" else None
                found = _item_version(conn, info.id, item, who)
                if found != int(expected_version):
                    current = self._current_value(info, item, who, conn)
                    raise StaleAnswer(
                        session,
                        item,
                        reviewer=reviewer,
                        expected=int(expected_version),
                        found=found,
                        current=current,
                        given=value,
                    )
            cur = conn.execute(
                "INSERT INTO events (session_id, reviewer, time, action, item, payload, shown, "
                "version, target, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                (info.id, reviewer, _now(), action, item, payload, shown_text, _version(), source),
            )
            _claims.release(conn, info.id, reviewer, item)
            event_id = int(cur.lastrowid or 0)
        return self._event(event_id)

    def _parties(self, info: SessionInfo, item: str, conn: sqlite3.Connection) -> set[str]:
        """The reviewers whose current label of ``item`` is in force."""
        streams: dict[str, Stream] = {}
        for row in conn.execute(
            self._EVENT_SQL + " WHERE e.session_id = ? ORDER BY e.id", (info.id,)
        ):
            event = self._row_event(row)
            if not is_reserved(event.reviewer):
                streams.setdefault(event.reviewer, Stream()).apply(event)
        return {
            who
            for who, stream in streams.items()
            if any(e.action == "label" and e.item == item for e in stream.done)
        }

    def _current_value(
        self, info: SessionInfo, item: str, reviewer: str | None, conn: sqlite3.Connection
    ) -> Any:
        """``reviewer``'s label of ``item`` in force, or the adjudication (``None``: none)."""
        if reviewer is not None:
            stream = self._stream(info, reviewer, conn)
            for event in reversed(stream.done):
                if event.action == "label" and event.item == item:
                    return event.value
            return None
        latest: Event | None = None
        streams: dict[str, Stream] = {}
        for row in conn.execute(
            self._EVENT_SQL + " WHERE e.session_id = ? ORDER BY e.id", (info.id,)
        ):
            event = self._row_event(row)
            streams.setdefault(event.reviewer, Stream()).apply(event)
        for stream in streams.values():
            for event in stream.done:
                if event.action == "adjudicate" and event.item == item:
                    if latest is None or event.id > latest.id:
                        latest = event
        return None if latest is None else latest.value

    def _step(self, session: str, action: Action, reviewer: str) -> Event | None:
        info = self.session(session)
        reviewer = check_reviewer(reviewer)
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
        try:
            rows = conn.execute(
                self._EVENT_SQL + " WHERE e.session_id = ? AND e.reviewer = ? ORDER BY e.id",
                (info.id, reviewer),
            ).fetchall()
        except sqlite3.Error as exc:
            raise sqlite_error(self.path, exc, readonly=self.readonly) from exc
        stream = Stream()
        for row in rows:
            stream.apply(self._row_event(row))
        return stream

    def _streams(self, session: str) -> dict[str, Stream]:
        """Each person's undo and redo stacks (labels recorded under a reserved name,
        by older versions, are left out: they decide nothing)."""
        streams: dict[str, Stream] = {}
        for event in self.events(session):
            if not is_reserved(event.reviewer):
                streams.setdefault(event.reviewer, Stream()).apply(event)
        return streams

    def labels(self, session: str, *, reviewer: str | None = None) -> dict[str, dict[str, Any]]:
        """The current labels given by people: item -> {reviewer: value} (adjudications not
        included)."""
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
            if not is_reserved(event.reviewer):
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
        fewer reviewers than required have labelled or claimed it (claims lapse
        after 30 minutes); an item ``reviewer`` already holds comes back first. The
        claim is taken in the same transaction, so two reviewers asking at once get
        different items. ``None`` when no item is left for them (see :meth:`held`).
        """
        info = self.session(session)
        reviewer = check_reviewer(reviewer)
        now = time.time()
        with self._transaction() as conn:
            streams: dict[str, Stream] = {}
            for row in conn.execute(
                self._EVENT_SQL + " WHERE e.session_id = ? ORDER BY e.id", (info.id,)
            ):
                event = self._row_event(row)
                if not is_reserved(event.reviewer):
                    streams.setdefault(event.reviewer, Stream()).apply(event)
            labelled: dict[str, set[str]] = {}
            for who, stream in streams.items():
                for event in stream.done:
                    if event.action == "label" and event.item is not None:
                        labelled.setdefault(event.item, set()).add(who)
            rows = {
                str(r[0]): r
                for r in conn.execute(
                    "SELECT key, position, payload FROM items WHERE session_id = ? "
                    "ORDER BY position, key",
                    (info.id,),
                )
            }
            key = _claims.choose(
                list(rows),
                reviewer=reviewer,
                labelled=labelled,
                claims=_claims.holders(conn, info.id, now=now),
                required=required,
                default_required=default_required,
            )
            if key is None:
                return None
            _claims.take(conn, info.id, key, reviewer, now=now)
            row = rows[key]
            return Item(row[0], row[1], json.loads(row[2]))

    def held(self, session: str) -> dict[str, list[str]]:
        """Who holds what: item -> the reviewers it is handed to and not yet labelled by."""
        info = self.session(session)
        with self._lock:
            try:
                return _claims.holders(self._conn, info.id, now=time.time())
            except sqlite3.Error as exc:
                raise sqlite_error(self.path, exc, readonly=self.readonly) from exc

    def claimed(self, session: str, *, reviewer: str) -> list[str]:
        """The items handed to ``reviewer`` and not labelled by them yet, oldest first."""
        return [k for k, who in self.held(session).items() if reviewer in who]

    def release_claims(self, session: str, *, reviewer: str, item: str | None = None) -> int:
        """Give back the items handed to ``reviewer`` (only ``item`` when given); how many."""
        info = self.session(session)
        with self._transaction() as conn:
            return _claims.release(conn, info.id, reviewer, None if item is None else str(item))

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


def is_reserved(name: str) -> bool:
    """Whether ``name`` is reserved for what ereval records itself: a name in parentheses.

    Examples
    --------
    >>> is_reserved("(transitivity)"), is_reserved(" (x) "), is_reserved("ana (lead)")
    (True, True, False)
    """
    text = name.strip()
    return text.startswith("(") and text.endswith(")")


def check_reviewer(reviewer: Any) -> str:
    """A reviewer name: non-empty, trimmed, not reserved (see :func:`is_reserved`)."""
    if not isinstance(reviewer, str) or not reviewer.strip():
        raise InputError(f"'reviewer' must be a non-empty name; received {describe(reviewer)}")
    if is_reserved(reviewer):
        raise InputError(
            f"'reviewer' {reviewer.strip()!r} is reserved (names in parentheses mark what "
            "ereval records itself); choose another name"
        )
    return reviewer.strip()


def _item_version(
    conn: sqlite3.Connection, session_id: int, item: str, reviewer: str | None
) -> int:
    """See :meth:`LabelStore.item_version`."""
    if reviewer is None:
        row = conn.execute(
            "SELECT COALESCE(MAX(id), 0) FROM events WHERE session_id = ? AND item = ?",
            (session_id, item),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT COALESCE(MAX(id), 0) FROM events WHERE session_id = ? AND item = ? "
            "AND (reviewer = ? OR action = 'adjudicate' OR target IN (SELECT id FROM events "
            "WHERE session_id = ? AND item = ? AND action = 'adjudicate'))",
            (session_id, item, reviewer, session_id, item),
        ).fetchone()
    return int(row[0])
