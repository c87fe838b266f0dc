"""Provenance of labels kept in a label store (:mod:`ereval.labels`): per session,
who labelled how many items, and how far reviewers agree (read by
:func:`ereval.report.collect_results`; shown here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._bundles import StoreSession
from ._words import fmt, listing, plural

__all__ = ["store_provenance"]


#: Columns of the table of sessions.
COLUMNS = (
    "session",
    "kind",
    "items",
    "items labelled",
    "labels",
    "reviewers",
    "items labelled twice+",
    "agreement",
    "Cohen's kappa",
    "Krippendorff's alpha",
    "adjudicated",
)


def store_provenance(
    name: str, sessions: Sequence[StoreSession]
) -> tuple[list[tuple[Any, ...]], list[str], dict[str, Any], list[tuple[str, int]]]:
    """Per session of the label store ``name``: the table row, a sentence, its numbers,
    and the labels per reviewer as ``(label, count)`` bars (most labels first)."""
    rows: list[tuple[Any, ...]] = []
    reading: list[str] = []
    numbers: dict[str, Any] = {}
    counts: list[tuple[str, int]] = []
    for s in sessions:
        agreement = s.agreement
        by_count = sorted(s.reviewers.items(), key=lambda kv: -kv[1])
        share = agreement.agreed / agreement.units if agreement.units else None
        who = listing(f"{k} ({v:,})" for k, v in by_count) or "nobody yet"
        rows.append(
            (
                s.name,
                s.kind,
                s.items,
                s.items_labelled,
                s.labels,
                who,
                agreement.units,
                share,
                agreement.kappa,
                agreement.alpha,
                s.adjudicated,
            )
        )
        numbers[s.name] = {
            "kind": s.kind,
            "created_at": s.created_at,
            "items": s.items,
            "items_labelled": s.items_labelled,
            "labels": s.labels,
            "reviewers": dict(s.reviewers),
            "agreement": agreement.to_dict(),
            "adjudicated": s.adjudicated,
        }
        counts += [(f"{s.name}: {k}", v) for k, v in by_count]
        sentence = (
            f"Session {s.name} ({s.kind}): {s.items_labelled:,} of {s.items:,} items "
            f"labelled, {plural(s.labels, 'label')} by {who}"
        )
        if agreement.units:
            sentence += (
                f"; {agreement.units:,} items were labelled by two reviewers or more, who "
                f"agree on {share:.0%} of them (Cohen's kappa {fmt(agreement.kappa)}, "
                f"Krippendorff's alpha {fmt(agreement.alpha)})"
            )
        if s.adjudicated:
            sentence += f"; {_adjudicated(s.disagreements, s.adjudicated - s.disagreements)}"
        reading.append(sentence + ".")
    if not sessions:
        reading.append(f"The label store {name} holds no session.")
    return rows, reading, numbers, counts


def _adjudicated(disagreements: int, unsure: int) -> str:
    """What the adjudicated items were: disagreements (two reviewers' labels differ,
    "unsure" aside) or items sent to adjudication by an "unsure" label.

    >>> _adjudicated(1, 1)
    'adjudicated 1 disagreement and 1 unsure item'
    """
    parts = []
    if disagreements:
        parts.append(plural(disagreements, "disagreement"))
    if unsure:
        parts.append(plural(unsure, "unsure item"))
    return "adjudicated " + listing(parts)
