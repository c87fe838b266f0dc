"""What the app says when a reviewer cannot go on: why, and what to do next.

Who holds which items, why a session stopped, where a disputed item went, and
the command that exports a finished session -- written so that it can be
copied and run as it is.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence

__all__ = ["STOP_REASONS", "export_command", "held_text", "plural"]

#: Why a pair session stopped asking, for the reviewer.
STOP_REASONS = {
    "budget": "the label budget is spent",
    "ci_width": "the interval is as narrow as asked",
    "exhausted": "every pair of the pool is labelled",
    "stalled": "the sampler keeps drawing pairs that are labelled already",
    "max_iterations": "the sampler reached its limit of draws",
}

#: The export of each kind of session, and the file it is written to.
_EXPORTS = {
    "cluster": ("benchmark", "benchmark"),
    "pairs": ("pairs", "labels"),
    "items": ("paula", "paula"),
}


def plural(n: int, noun: str) -> str:
    """``"1 record"``, ``"2 records"``, ``"2 matches"``.

    Examples
    --------
    >>> plural(1, "record"), plural(3, "pair"), plural(0, "match")
    ('1 record', '3 pairs', '0 matches')
    """
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun}{'es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's'}"


def held_text(held: Mapping[str, Sequence[str]], noun: str, *, besides: str | None = None) -> str:
    """Who holds what, e.g. ``"1 record is held by ana, 2 by bob"`` (empty when nobody).

    ``besides`` leaves one reviewer out (the one reading it).

    Examples
    --------
    >>> held_text({"r1": ["ana"], "r2": ["bob"], "r3": ["bob"]}, "record")
    '1 record is held by ana, 2 by bob'
    >>> held_text({"p1": ["ana"]}, "pair", besides="ana")
    ''
    """
    counts: dict[str, int] = {}
    for holders in held.values():
        for who in holders:
            if who != besides:
                counts[who] = counts.get(who, 0) + 1
    if not counts:
        return ""
    parts = [f"{n} by {who}" for who, n in counts.items()]
    first_who, first_n = next(iter(counts.items()))
    verb = "is" if first_n == 1 else "are"
    parts[0] = f"{plural(first_n, noun)} {verb} held by {first_who}"
    return ", ".join(parts)


def export_command(db: str, session: str, kind: str) -> str:
    """The command that exports a session's labels, ready to copy and run.

    Examples
    --------
    >>> export_command("/data/my labels.db", "main", "cluster")
    "ereval label export --db '/data/my labels.db' --session main --kind benchmark -o main-benchmark.csv"
    """
    export, stem = _EXPORTS[kind]
    out = f"{session}-{stem}.csv".replace(os.sep, "_")
    return shlex.join(
        [
            "ereval",
            "label",
            "export",
            "--db",
            os.path.abspath(db),
            "--session",
            session,
            "--kind",
            export,
            "-o",
            out,
        ]
    )
