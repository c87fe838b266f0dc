"""The records of a label store: sessions, items, events, and a reviewer's undo/redo stacks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .._errors import InputError

__all__ = ["DOING", "Event", "Item", "SessionInfo", "SessionKind", "StaleAnswer", "Stream"]

SessionKind = Literal["cluster", "pairs", "items"]
#: The actions that give a label (undo and redo step through them).
DOING = ("label", "adjudicate")


@dataclass(frozen=True)
class SessionInfo:
    """A labelling session: its name, kind and configuration.

    Attributes
    ----------
    id : int
    name : str
    kind : {"cluster", "pairs", "items"}
        Cluster review, pair labelling or ranked-item labelling.
    config : dict
        The project configuration the session was created with (data file, id
        column, columns to search and show, blindness, overlap, seed, design).
    created_at : str
        UTC time of creation (ISO 8601).
    """

    id: int
    name: str
    kind: SessionKind
    config: dict[str, Any]
    created_at: str


@dataclass(frozen=True)
class Item:
    """One thing to label: a drawn record, a pair, a ranked item.

    Attributes
    ----------
    key : str
        Its id in the session (a record id, pair id or item id, as text).
    position : int
        Its place in the queue (the draw order for records).
    payload : dict
        What the session needs to show it (record ids, draws, probability,
        score, rank, ...).
    """

    key: str
    position: int
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Event:
    """One row of the append-only log.

    Attributes
    ----------
    id : int
        Increasing log position.
    session : str
        Session name.
    reviewer : str
    time : str
        UTC time (ISO 8601, microseconds).
    action : {"label", "undo", "redo", "adjudicate"}
    item : str or None
        The item labelled (``None`` for undo/redo, see ``target``).
    value : Any
        The label given (``None`` for undo/redo).
    shown : dict
        What the reviewer was shown when acting.
    version : str
        The ereval version that wrote the event.
    target : int or None
        For undo/redo, the event undone or redone.
    source : str or None
        Where an imported label came from (a file name). (Stores written by
        older versions may hold ``"transitivity"`` for a pair label they derived;
        such labels are ignored: derived labels are recomputed from people's.)
    """

    id: int
    session: str
    reviewer: str
    time: str
    action: str
    item: str | None
    value: Any
    shown: dict[str, Any]
    version: str
    target: int | None
    source: str | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the event."""
        return {
            "id": self.id,
            "session": self.session,
            "reviewer": self.reviewer,
            "time": self.time,
            "action": self.action,
            "item": self.item,
            "value": self.value,
            "shown": self.shown,
            "version": self.version,
            "target": self.target,
            "source": self.source,
        }


@dataclass
class Stream:
    """The undo and redo stacks of one reviewer in one session."""

    done: list[Event] = field(default_factory=list)
    undone: list[Event] = field(default_factory=list)

    def apply(self, event: Event) -> None:
        if event.action in DOING:
            self.done.append(event)
            self.undone.clear()
        elif event.action == "undo" and self.done:
            self.undone.append(self.done.pop())
        elif event.action == "redo" and self.undone:
            self.done.append(self.undone.pop())


class StaleAnswer(InputError):
    """An answer given against an older version of its item: nothing was written.

    Raised by :meth:`LabelStore.label <ereval.labels.LabelStore.label>` (and
    ``adjudicate``) when the ``expected_version`` the reviewer was shown is no
    longer the item's version: the same reviewer answered it in another tab,
    undid or redid that answer, or it was adjudicated meanwhile.

    Attributes
    ----------
    session, item, reviewer : str
    expected, found : int
        The version the answer was given against, and the item's version now.
    current : Any
        The answer in force now (the reviewer's label, or for an adjudicator the
        adjudication), ``None`` when there is none.
    given : Any
        The answer that was refused.
    """

    def __init__(
        self,
        session: str,
        item: str,
        *,
        reviewer: str,
        expected: int,
        found: int,
        current: Any,
        given: Any,
    ) -> None:
        self.session = session
        self.item = item
        self.reviewer = reviewer
        self.expected = expected
        self.found = found
        self.current = current
        self.given = given
        super().__init__(
            f"item {item!r} of session '{session}' changed since {reviewer} was shown it "
            f"(version {expected}, now {found}); the answer was not written"
        )
