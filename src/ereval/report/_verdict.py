"""The verdict heading a report: which prediction is better, by how much, how sure
the evidence is, and where to look next.

Every phrase is read from the numbers the report's sections already hold (the
exact metrics, the sample's estimates with their intervals, the cluster-wise
errors, OASIS's estimates); nothing is computed anew. The comparison uses
pairwise F1 (the harmonic mean of pairwise precision and recall, Christen 2012,
*Data Matching*, §7.3); the certainty of a difference is the number of
estimators whose two confidence intervals do not overlap.

>>> from ereval.report._model import Section
>>> m = {"a": {"pairwise_f1": 0.9, "pairwise_precision": 0.95, "pairwise_recall": 0.86,
...            "n_records": 10, "n_true_clusters": 4}}
>>> v = verdict_of((Section("metrics", "Metrics", (), numbers={"metrics": m}),))
>>> v.headline
'a: pairwise F1 0.9 against the truth (precision 0.95, recall 0.86).'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._model import Section
from ._words import fmt, plural

__all__ = ["Verdict", "verdict_of"]

#: Suffixes of estimators a report does not show (the naive and variant ones).
_HIDDEN = ("_naive", "_cluster", "_record", "_fbeta")


@dataclass(frozen=True)
class Verdict:
    """What a report says first.

    Attributes
    ----------
    headline : str
        One sentence: the answer.
    points : tuple of str
        How sure, and what to look at next.
    links : tuple of (str, str)
        ``(section title, section key)`` of the sections the points refer to.
    """

    headline: str
    points: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``headline, points, links`` in plain types."""
        return {
            "headline": self.headline,
            "points": list(self.points),
            "links": [list(x) for x in self.links],
        }


def _by_key(sections: Sequence[Section]) -> dict[str, Section]:
    return {s.key: s for s in sections}


def _interval(e: Mapping[str, Any]) -> str:
    lo, hi = e["interval"]
    return f"{fmt(e['value'])} [{fmt(lo)}, {fmt(hi)}]"


def _level(e: Mapping[str, Any]) -> str:
    return f"{float(e['level']):.0%}"


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(float(x))


def _separated(estimates: Mapping[str, Mapping[str, Any]], a: str, b: str) -> tuple[int, int]:
    """Estimators (shown in the report) whose intervals for ``a`` and ``b`` do not overlap,
    and how many were compared."""
    keys = [k for k in estimates[a] if not k.endswith(_HIDDEN) and k in estimates[b]]
    sep = 0
    compared = 0
    for k in keys:
        (la, ua), (lb, ub) = estimates[a][k]["interval"], estimates[b][k]["interval"]
        if not all(_finite(x) for x in (la, ua, lb, ub)):
            continue
        compared += 1
        sep += la > ub or lb > ua
    return sep, compared


def _error_kind(name: str, by: Mapping[str, Section]) -> tuple[str, str] | None:
    """The main error kind of ``name`` and the key of the section showing it."""
    worst = by.get("worst")
    if worst is not None and name in worst.numbers:
        w = worst.numbers[name]
        over, under = int(w["over_clustered"]), int(w["under_clustered"])
        # the clusters the ranking counted (those of the records on both sides when the
        # prediction lacks some true records)
        of = f" of {int(w['true_clusters']):,}"
        if over == 0 and under == 0:
            return "", ""
        if under >= over:
            text = (
                f"its main error is splitting entities: {under:,}{of} true clusters are split "
                f"and {over:,} share a predicted cluster with another entity"
            )
        else:
            text = (
                f"its main error is merging entities: {over:,}{of} true clusters share a "
                f"predicted cluster with another entity and {under:,} are split"
            )
        return text, "worst"
    analysis = by.get("analysis")
    if analysis is not None and analysis.numbers.get("prediction") == name:
        over_share = float(analysis.numbers["over_clustered_share"])
        under_share = float(analysis.numbers["under_clustered_share"])
        kind = "splitting" if under_share >= over_share else "merging"
        return (
            f"its main error is {kind} entities: an estimated {under_share:.1%} (weighted) "
            f"of entities are split and {over_share:.1%} (weighted) merged with another",
            "analysis",
        )
    return None


def _with_truth(by: Mapping[str, Section]) -> Verdict:
    scores: Mapping[str, Mapping[str, float]] = by["metrics"].numbers["metrics"]
    names = sorted(scores, key=lambda n: -float(scores[n]["pairwise_f1"]))
    best = names[0]
    s = scores[best]
    points: list[str] = []
    links: list[tuple[str, str]] = [(by["metrics"].title, "metrics")]
    if len(names) == 1:
        f1 = float(s["pairwise_f1"])
        if f1 == 1.0:
            headline = f"{best} is exactly the true clustering: every metric is perfect."
        else:
            headline = (
                f"{best}: pairwise F1 {fmt(f1)} against the truth (precision "
                f"{fmt(s['pairwise_precision'])}, recall {fmt(s['pairwise_recall'])})."
            )
    else:
        second = names[1]
        t = scores[second]
        f1s = [m for m in s if m.endswith("_f1")]
        wins = sum(float(s[m]) >= float(t[m]) for m in f1s)
        headline = (
            f"{best} is better: pairwise F1 {fmt(s['pairwise_f1'])} vs "
            f"{fmt(t['pairwise_f1'])} for {second} "
            f"(a difference of {fmt(float(s['pairwise_f1']) - float(t['pairwise_f1']), 2)})."
        )
        points.append(
            f"Against the full truth ({int(s['n_records']):,} records, so no sampling error), "
            f"{best} has the higher or equal score on {wins} of {len(f1s)} F1 metrics."
        )
        est = by.get("estimates")
        if est is not None and best in est.numbers and second in est.numbers:
            sep, compared = _separated(est.numbers, best, second)
            points.append(
                f"The labelled sample separates them on {sep} of {compared} estimators "
                "(intervals that do not overlap)."
            )
            links.append((est.title, "estimates"))
    kind = _error_kind(best, by)
    if kind is not None and kind[0]:
        section = by[kind[1]]
        points.append(f"{best}: {kind[0]} (see {section.title}).")
        links.append((section.title, kind[1]))
    return Verdict(headline, tuple(points), tuple(links))


def _from_sample(by: Mapping[str, Section]) -> Verdict:
    est = by["estimates"]
    results: Mapping[str, Mapping[str, Any]] = est.numbers
    # pairwise F1 leads; a design that estimates precision only (predicted clusters) leads
    # with pairwise precision
    common = [
        k for k in ("pairwise_f1", "pairwise_precision") if all(k in r for r in results.values())
    ]
    key = common[0] if common else next(iter(next(iter(results.values()))))
    label = key.replace("_", " ").replace("f1", "F1")
    names = sorted(results, key=lambda n: -float(results[n][key]["value"]))
    best = names[0]
    e = results[best][key]
    points: list[str] = []
    links = [(est.title, "estimates")]
    if len(names) == 1:
        headline = (
            f"{best}: estimated {label} {_interval(e)} ({_level(e)} interval, from "
            f"{plural(int(e['n']), 'draw')} of the labelled sample)."
        )
    else:
        second = names[1]
        o = results[second][key]
        headline = (
            f"{best} is estimated better: {label} {_interval(e)} vs {_interval(o)} for "
            f"{second} ({_level(e)} intervals)."
        )
        sep, compared = _separated(results, best, second)
        points.append(
            f"The labelled sample separates them on {sep} of {compared} estimators "
            "(intervals that do not overlap)"
            + ("; the ranking is not certain." if sep == 0 else ".")
        )
    kind = _error_kind(best, by)
    if kind is not None and kind[0]:
        section = by[kind[1]]
        points.append(f"{best}: {kind[0]} (see {section.title}).")
        links.append((section.title, kind[1]))
    return Verdict(headline, tuple(points), tuple(links))


def _from_oasis(by: Mapping[str, Section]) -> Verdict:
    sec = by["oasis"]
    final = sec.numbers["final"]
    f1 = final["f_measure"] if "f_measure" in final else final["f1"]
    headline = (
        f"The pairwise decisions have an estimated F1 of {_interval(f1)} ({_level(f1)} "
        f"interval, OASIS from {plural(int(final['labels_used']), 'label')})."
    )
    return Verdict(headline, (), ((sec.title, "oasis"),))


def verdict_of(sections: Sequence[Section]) -> Verdict | None:
    """The verdict of a report's sections (None when no section gives one)."""
    by = _by_key(sections)
    if "metrics" in by:
        return _with_truth(by)
    if "estimates" in by:
        return _from_sample(by)
    if "oasis" in by:
        return _from_oasis(by)
    for s in sections:
        if s.reading:
            return Verdict(
                s.reading[0],
                tuple(s.reading[1:2]),
                ((s.title, s.key),),
            )
    return None
