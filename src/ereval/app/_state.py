"""What one server process holds: the store, its lease, the open sessions, the templates."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from .._errors import InputError
from ..labels import LabelStore, ServerLease
from ._security import SecurityConfig

__all__ = ["AppState", "Flash", "check_reviewer_name", "url_for"]

#: Routes by name: the templates and redirects build every address with :func:`url_for`.
_ROUTES = {
    "home": "/",
    "agreement": "/agreement",
    "static": "/static/{0}",
    "session": "/s/{0}",
    "start": "/s/{0}/start",
    "release": "/s/{0}/release",
    "review": "/s/{0}/review",
    "save": "/s/{0}/review/save",
    "search": "/s/{0}/search",
    "pairs": "/s/{0}/pairs",
    "pair_label": "/s/{0}/pairs/label",
    "items": "/s/{0}/items",
    "item_label": "/s/{0}/items/label",
    "undo": "/s/{0}/undo",
    "redo": "/s/{0}/redo",
    "adjudicate": "/s/{0}/adjudicate",
    "reviewer": "/reviewer",
}


def url_for(name: str, *parts: str, **query: Any) -> str:
    """The address of a route, its path parts and query quoted.

    Examples
    --------
    >>> url_for("review", "a b/c", item="r/1", remove=["x", "y"])
    '/s/a%20b%2Fc/review?item=r%2F1&remove=x&remove=y'
    """
    path = _ROUTES[name].format(*(quote(str(p), safe="") for p in parts))
    pairs: list[tuple[str, str]] = []
    for key, value in query.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            pairs.extend((key, str(v)) for v in value)
        else:
            pairs.append((key, str(value)))
    return path + ("?" + urlencode(pairs) if pairs else "")


def check_reviewer_name(name: Any) -> str:
    """A reviewer name: 1 to 64 printable characters, trimmed, not reserved.

    Examples
    --------
    >>> check_reviewer_name("  ana ")
    'ana'
    >>> check_reviewer_name("")
    Traceback (most recent call last):
    ...
    ereval._errors.InputError: 'reviewer' must be 1 to 64 printable characters; received ''
    >>> check_reviewer_name("(transitivity)")
    Traceback (most recent call last):
    ...
    ereval._errors.InputError: 'reviewer' '(transitivity)' is reserved (names in parentheses mark what ereval records itself); choose another name
    """
    from ..labels import check_reviewer

    text = str(name).strip() if isinstance(name, str) else ""
    if not 1 <= len(text) <= 64 or not text.isprintable():
        raise InputError(f"'reviewer' must be 1 to 64 printable characters; received {name!r}")
    return check_reviewer(text)


@dataclass(frozen=True)
class Flash:
    """A message for the next page a browser opens.

    Attributes
    ----------
    text : str
    error : bool
        Shown as a problem rather than a confirmation.
    link, link_text : str or None
        Where to go next about it (e.g. the adjudication of a disputed item).
    ack : str or None
        The item whose answer the server stored: the page tells the browser it may
        forget what it kept of that answer (the review's note).
    """

    text: str
    error: bool = False
    link: str | None = None
    link_text: str | None = None
    ack: str | None = None


@dataclass
class AppState:
    """The state of one server: the store (one connection, guarded by ``lock``),
    the default reviewer, the security settings and the sessions opened so far."""

    store: LabelStore
    reviewer: str
    security: SecurityConfig
    lease: ServerLease | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    flashes: dict[str, Flash] = field(default_factory=dict)
    _progress: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    _sessions: dict[str, Any] = field(default_factory=dict)

    @property
    def store_name(self) -> str:
        """The store's file name (shown in the page header)."""
        return Path(self.store.path).name

    def open_session(self, name: str) -> Any:
        """The session object of ``name`` (a ClusterReview, PairLabelling or
        ItemLabelling), opened once and kept: its data and search index are loaded
        on first use only."""
        found = self._sessions.get(name)
        if found is not None:
            return found
        from ..labels import open_session

        session = open_session(self.store, name)
        self._sessions[name] = session
        return session

    def progress(self, name: str) -> dict[str, Any]:
        """The session's progress counts, recomputed only after the log changed."""
        fingerprint = self.store.fingerprint(name)
        cached = self._progress.get(name)
        if cached is not None and cached[0] == fingerprint:
            return cached[1]
        progress: dict[str, Any] = self.open_session(name).progress()
        self._progress[name] = (fingerprint, progress)
        return progress

    def warm(self) -> None:
        """Load every session's data and search index now, so no request waits for it."""
        for info in self.store.sessions():
            session = self.open_session(info.name)
            if info.kind == "cluster":
                _ = session.index
