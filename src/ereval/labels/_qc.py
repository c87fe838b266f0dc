"""Quality checks of a cluster review (Binette et al. 2024, §3.2.2).

For a drawn record ``r`` with predicted cluster ``ĉ(r)``, a reviewer marks the
records that do not belong (``A_r``) and adds the missing ones (``B_r``); the
true cluster is ``c(r) = (ĉ(r) \\ A_r) ∪ B_r``. Errors (the label is refused):

* ``A_r ⊂ ĉ(r)``: every removed record is in the predicted cluster;
* ``r ∉ A_r``: the drawn record is not removed from its own cluster;
* ``B_r ∩ ĉ(r) = ∅`` and every added record exists in the data.

Warnings (the label is kept, the warning saved with it): an added record from
another block than ``r``, or whose attributes are very dissimilar to ``r``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["QualityReport", "check_review", "similarity"]


@dataclass(frozen=True)
class QualityReport:
    """The outcome of the checks: errors refuse the label, warnings travel with it."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No errors."""
        return not self.errors


def similarity(a: str, b: str) -> float:
    """Token-set similarity of two texts in [0, 100] (RapidFuzz), 100 for two empty texts."""
    from .._optional import require

    fuzz = require("rapidfuzz.fuzz", feature="the attribute similarity check")
    if not a.strip() and not b.strip():
        return 100.0
    return float(fuzz.token_set_ratio(a.lower(), b.lower()))


def check_review(
    record: str,
    predicted: Sequence[str],
    *,
    remove: Iterable[str],
    add: Iterable[str],
    exists: Callable[[str], bool],
    block: Callable[[str], Any] | None = None,
    text: Callable[[str], str] | None = None,
    min_similarity: float = 40.0,
) -> QualityReport:
    """Check a reviewer's ``remove`` (A_r) and ``add`` (B_r) for drawn record ``record``.

    Parameters
    ----------
    record : str
        The drawn record r.
    predicted : sequence of str
        Its predicted cluster ĉ(r).
    remove, add : iterable of str
        A_r and B_r.
    exists : callable
        Whether a record id is in the data.
    block : callable, optional
        The block of a record; added records from another block than r are flagged.
    text : callable, optional
        The comparable text of a record; added records with similarity below
        ``min_similarity`` (0-100) to r are flagged.

    Examples
    --------
    >>> rep = check_review("a", ["a", "b"], remove=["a", "z"], add=["b"], exists=lambda r: True)
    >>> rep.ok, len(rep.errors)
    (False, 3)
    """
    pred = set(predicted)
    removed = list(dict.fromkeys(remove))
    added = list(dict.fromkeys(add))
    errors: list[str] = []
    warnings: list[str] = []
    if record in removed:
        errors.append(f"the drawn record {record!r} cannot be removed from its own cluster")
    outside = [r for r in removed if r not in pred]
    if outside:
        errors.append(
            f"removed record(s) {', '.join(map(repr, outside))} are not in the predicted cluster"
        )
    inside = [r for r in added if r in pred]
    if inside:
        errors.append(
            f"added record(s) {', '.join(map(repr, inside))} are already in the predicted cluster"
        )
    unknown = [r for r in added if not exists(r)]
    if unknown:
        errors.append(f"added record(s) {', '.join(map(repr, unknown))} are not in the data")
    both = [r for r in removed if r in added]
    if both:
        errors.append(f"record(s) {', '.join(map(repr, both))} are both removed and added")
    for r in added:
        if r in unknown or r in inside:
            continue
        if block is not None and block(r) != block(record):
            warnings.append(
                f"added record {r!r} is in block {block(r)!r}, not in {record!r}'s block "
                f"{block(record)!r}"
            )
        if text is not None:
            score = similarity(text(r), text(record))
            if score < min_similarity:
                warnings.append(
                    f"added record {r!r} has very dissimilar attributes to {record!r} "
                    f"(similarity {score:.0f}/100)"
                )
    return QualityReport(errors, warnings)
