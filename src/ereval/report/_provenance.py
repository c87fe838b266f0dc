"""Provenance of labels kept in a label store (:mod:`ereval.labels`): per session,
who labelled how many items, and how far reviewers agree."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from ..labels import LabelStore, session_agreement
from .words import fmt, listing, plural

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
    path: str | os.PathLike[str],
) -> tuple[list[tuple[Any, ...]], list[str], dict[str, Any], list[tuple[str, int]]]:
    """Per session of the label store at ``path``: the table row, a sentence, its
    numbers, and the labels per reviewer as ``(label, count)`` bars.

    Agreement is :func:`ereval.labels.session_agreement` over the items labelled by
    two reviewers or more (adjudications and labels implied by transitivity left out).
    """
    rows: list[tuple[Any, ...]] = []
    reading: list[str] = []
    numbers: dict[str, Any] = {}
    counts: list[tuple[str, int]] = []
    with LabelStore(path, readonly=True) as store:
        sessions = store.sessions()
        for info in sessions:
            labels = store.labels(info.name)
            per = Counter(who for by in labels.values() for who in by)
            n_items = len(store.items(info.name))
            n_labelled = len(labels)
            n_labels = sum(per.values())
            adjudicated = len(store.adjudications(info.name))
            agreement = session_agreement(store, info.name)
            share = agreement.agreed / agreement.units if agreement.units else None
            who = listing(f"{k} ({v:,})" for k, v in per.most_common()) or "nobody yet"
            rows.append(
                (
                    info.name,
                    info.kind,
                    n_items,
                    n_labelled,
                    n_labels,
                    who,
                    agreement.units,
                    share,
                    agreement.kappa,
                    agreement.alpha,
                    adjudicated,
                )
            )
            numbers[info.name] = {
                "kind": info.kind,
                "created_at": info.created_at,
                "items": n_items,
                "items_labelled": n_labelled,
                "labels": n_labels,
                "reviewers": dict(per),
                "agreement": agreement.to_dict(),
                "adjudicated": adjudicated,
            }
            counts += [(f"{info.name}: {k}", v) for k, v in per.most_common()]
            sentence = (
                f"Session {info.name} ({info.kind}): {n_labelled:,} of {n_items:,} items "
                f"labelled, {plural(n_labels, 'label')} by {who}"
            )
            if agreement.units:
                sentence += (
                    f"; {agreement.units:,} items were labelled by two reviewers or more, who "
                    f"agree on {share:.0%} of them (Cohen's kappa {fmt(agreement.kappa)}, "
                    f"Krippendorff's alpha {fmt(agreement.alpha)})"
                )
            if adjudicated:
                sentence += f"; {_adjudicated(labels, store.adjudications(info.name))}"
            reading.append(sentence + ".")
    if not sessions:
        reading.append(f"The label store {os.path.basename(os.fspath(path))} holds no session.")
    return rows, reading, numbers, counts


def _adjudicated(labels: dict[str, dict[str, Any]], adjudications: dict[str, Any]) -> str:
    """What the adjudicated items were: disagreements (two reviewers' labels differ,
    "unsure" aside) or items sent to adjudication by an "unsure" label.

    >>> _adjudicated({"a": {"x": "match", "y": "non-match"}, "b": {"x": "unsure"}},
    ...              {"a": ("lead", "match"), "b": ("lead", "match")})
    'adjudicated 1 disagreement and 1 unsure item'
    """
    disagreements = 0
    for item in adjudications:
        given = {str(v) for v in labels.get(item, {}).values() if str(v) != "unsure"}
        disagreements += len(given) > 1
    others = len(adjudications) - disagreements
    parts = []
    if disagreements:
        parts.append(plural(disagreements, "disagreement"))
    if others:
        parts.append(plural(others, "unsure item"))
    return "adjudicated " + listing(parts)
