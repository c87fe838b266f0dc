"""Claims: which reviewer an item is handed to, so that two reviewers never get the same one.

A claim is a row ``(session, item, reviewer, claimed_at)``. It is taken when a
reviewer asks for the next item (an explicit action: never when a page is only
looked at), removed when that reviewer labels the item or gives it back, and
lapses after :data:`CLAIM_SECONDS`. While it lives, the item counts as taken
for that reviewer: an item needing one reviewer goes to nobody else, and
:func:`holders` says who holds what.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

__all__ = ["CLAIM_SECONDS", "choose", "holders", "release", "take"]

#: A claim keeps an item for the reviewer it was handed to for this long (seconds).
CLAIM_SECONDS = 1800.0


def holders(conn: sqlite3.Connection, session_id: int, *, now: float) -> dict[str, list[str]]:
    """The live claims of a session: item -> reviewers holding it (in the order they took it)."""
    out: dict[str, list[str]] = {}
    for item, who in conn.execute(
        "SELECT item, reviewer FROM claims WHERE session_id = ? AND claimed_at > ? "
        "ORDER BY claimed_at, item",
        (session_id, now - CLAIM_SECONDS),
    ):
        out.setdefault(str(item), []).append(str(who))
    return out


def choose(
    items: list[str],
    *,
    reviewer: str,
    labelled: Mapping[str, set[str]],
    claims: Mapping[str, list[str]],
    required: Mapping[str, int] | None,
    default_required: int,
) -> str | None:
    """The first of ``items`` (in queue order) that still needs ``reviewer``.

    An item needs ``required[key]`` distinct reviewers (``default_required`` when
    absent); it goes to ``reviewer`` if they have not labelled it and fewer
    reviewers than it needs have labelled or hold it. An item ``reviewer`` already
    holds comes first, so asking again hands back the same item.
    """
    mine = [
        k for k, who in claims.items() if reviewer in who and reviewer not in labelled.get(k, set())
    ]
    order = [*[k for k in items if k in mine], *[k for k in items if k not in mine]]
    for key in order:
        done_by = labelled.get(key, set())
        if reviewer in done_by:
            continue
        need = (required or {}).get(key, default_required)
        if need <= 0 or len(done_by) >= need:
            continue
        if key not in mine and len(done_by | set(claims.get(key, ()))) >= need:
            continue
        return key
    return None


def take(
    conn: sqlite3.Connection, session_id: int, item: str, reviewer: str, *, now: float
) -> None:
    """Claim ``item`` for ``reviewer`` (renewing a claim they hold)."""
    conn.execute(
        "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)", (session_id, item, reviewer, now)
    )


def release(
    conn: sqlite3.Connection, session_id: int, reviewer: str, item: str | None = None
) -> int:
    """Give back ``reviewer``'s claim on ``item`` (all their claims when ``None``); how many."""
    if item is None:
        cur = conn.execute(
            "DELETE FROM claims WHERE session_id = ? AND reviewer = ?", (session_id, reviewer)
        )
    else:
        cur = conn.execute(
            "DELETE FROM claims WHERE session_id = ? AND reviewer = ? AND item = ?",
            (session_id, reviewer, item),
        )
    return int(cur.rowcount)
