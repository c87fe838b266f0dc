"""Label store and review sessions (Binette et al. 2024, §3.2)."""

from __future__ import annotations

from .store import ACTIONS, KINDS, Event, Item, LabelStore, ServerLease, SessionInfo, SessionKind

__all__ = [
    "ACTIONS",
    "Event",
    "Item",
    "KINDS",
    "LabelStore",
    "ServerLease",
    "SessionInfo",
    "SessionKind",
]
