"""Sections of a labelled sample of true clusters: estimates with intervals, error
analysis, and the provenance of the labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

from ..plots import Bars, differences_figure, disparities_figure, tags_figure
from ..results import Estimate
from ._bundles import LabelSources, SampleAnalysis, SampleEstimates
from ._charts import Chart, bars_spec, concat_spec, grouped_bars_spec
from ._model import Section, Table
from ._registry import Part, section_for
from ._words import fmt, interval, listing, plural

__all__ = [
    "analysis_section",
    "recommended",
    "estimates_section",
    "provenance_section",
]

T = TypeVar("T")

#: The estimators drawn in the chart, when available.
CHART_ESTIMATORS = (
    "pairwise_precision",
    "pairwise_recall",
    "pairwise_f1",
    "cluster_precision",
    "cluster_recall",
    "cluster_f1",
    "b3_precision",
    "b3_recall",
    "homogeneity",
    "completeness",
)


def recommended(results: Mapping[str, Estimate]) -> list[str]:
    """The estimators a report shows (not the naive, cluster-, record- or F-beta forms)."""
    return [k for k in results if not k.endswith(("_naive", "_cluster", "_record", "_fbeta"))]


@section_for(SampleEstimates)
def estimates_section(part: Part) -> Section:
    """Each prediction's performance estimated from the sample, with intervals
    (``part.warnings``: the notes of the estimators shown)."""
    result: SampleEstimates = part.result
    results = {n: dict(r) for n, r in result.estimates.items()}
    level, exact, notes = result.level, result.exact, list(part.warnings)
    _recommended = recommended
    names = list(results)
    keys = _recommended(results[names[0]])
    columns: list[str] = ["estimator"]
    for n in names:
        columns += [n, f"{level:.0%} interval"]
        if exact is not None:
            columns.append(f"{n} exact")
    rows = []
    for k in keys:
        row: list[Any] = [k]
        for n in names:
            e = results[n][k]
            row += [e.value, f"[{fmt(e.lower, 4)}, {fmt(e.upper, 4)}]"]
            if exact is not None:
                row.append(exact[n].get(k))
        rows.append(tuple(row))
    n_draws = next(iter(results[names[0]].values())).n if keys else 0
    table = Table(
        f"estimates from {plural(n_draws, 'draw')} ({result.design} design, {result.weights} weights)",
        tuple(columns),
        tuple(rows),
        note=f"{level:.0%} confidence intervals (normal, clamped to the quantity's range)."
        + (" 'exact' columns: the value computed from the full truth." if exact else ""),
    )
    shown = [k for k in CHART_ESTIMATORS if k in keys]
    groups = [
        (
            n,
            Bars(
                tuple(shown),
                np.asarray([results[n][k].value for k in shown], dtype=np.float64),
                np.asarray([results[n][k].lower for k in shown], dtype=np.float64),
                np.asarray([results[n][k].upper for k in shown], dtype=np.float64),
                xlabel=f"estimate ({level:.0%} interval)",
            ),
        )
        for n in names
    ]
    chart = Chart(
        "estimates",
        f"Estimated performance: a dot per estimate and a line over its {level:.0%} "
        "confidence interval, one colour per prediction; the axis is fitted to the "
        "intervals (its range is in its title).",
        grouped_bars_spec(groups, title="estimates from the labelled sample"),
    )
    reading = [
        f"Estimated from {plural(n_draws, 'draw')} of a labelled sample of true clusters "
        f"({result.design} design); each interval holds the true value with "
        f"{level:.0%} confidence."
    ]
    for n in names:
        r = results[n]
        parts = [
            f"{k.replace('_', ' ')} {interval(r[k])}"
            for k in (
                "pairwise_precision",
                "pairwise_recall",
                "pairwise_f1",
                "b3_precision",
                "b3_recall",
            )
            if k in r
        ]
        # widths compare between proportions only (an average size is in records)
        shares = [k for k in keys if "size" not in k]
        widest = max(shares, key=lambda k: r[k].width if np.isfinite(r[k].width) else -1.0)
        reading.append(
            f"{n}: " + "; ".join(parts) + f". The widest interval of a proportion is "
            f"{widest}'s ({fmt(r[widest].width)} wide)."
        )
    if exact is not None:
        for n in names:
            inside = [
                k
                for k in keys
                if k in exact[n]
                and np.isfinite(exact[n][k])
                and results[n][k].lower <= exact[n][k] <= results[n][k].upper
            ]
            checked = [k for k in keys if k in exact[n] and np.isfinite(exact[n][k])]
            if checked:
                reading.append(
                    f"{n}: the intervals contain the exact value for {len(inside)} of "
                    f"{len(checked)} estimators."
                )
    if len(names) == 2:
        a, b = names
        sep = [
            k
            for k in keys
            if results[a][k].lower > results[b][k].upper
            or results[b][k].lower > results[a][k].upper
        ]
        if sep:
            reading.append(
                f"The intervals of {a} and {b} do not overlap for {listing(sep)}: the sample "
                "separates the two there."
            )
        else:
            reading.append(f"The intervals of {a} and {b} overlap for every estimator.")
    return Section(
        "estimates",
        "Estimates from the labelled sample",
        tuple(reading),
        tables=(table,),
        charts=(chart,),
        warnings=tuple(dict.fromkeys(notes)),
        numbers={n: {k: e.to_dict() for k, e in r.items()} for n, r in results.items()},
    )


@section_for(SampleAnalysis)
def analysis_section(part: Part) -> Section:
    """Where a prediction fails, from the sample: subgroups, the error tree, tags and the
    sampled clusters with the most errors (``part.warnings``: the analysis's notes)."""
    result: SampleAnalysis = part.result
    name, errs, level, group = result.name, result.errors, result.level, result.group
    notes = list(part.warnings)
    table = errs.table
    reading: list[str] = []
    charts: list[Chart] = []
    tables: list[Table] = []
    numbers: dict[str, Any] = {"prediction": name}
    over, under = result.over, result.under
    reading.append(
        f"Errors of {name} on the {len(table):,} sampled true clusters: an estimated "
        f"{over:.1%} of entities are over-clustered (share a predicted cluster with "
        f"another entity) and {under:.1%} under-clustered (split), weighting each "
        "sampled cluster by its inverse sampling probability."
    )
    numbers["over_clustered_share"] = over
    numbers["under_clustered_share"] = under
    d = result.disparities
    if group is not None and d is not None:
        panels = disparities_figure(d)
        charts.append(
            Chart(
                "disparities",
                f"{name}: performance per {group} (dots with {level:.0%} intervals; dashed: "
                "all entities).",
                concat_spec([bars_spec(p, width=200) for p in panels], columns=3),
            )
        )
        numbers["disparities"] = {
            "by": d.by,
            "groups": {str(g): {k: e.to_dict() for k, e in r.items()} for g, r in d.groups.items()},
            "overall": {k: e.to_dict() for k, e in d.overall.items()},
            "clusters": {str(g): c for g, c in d.clusters.items()},
        }
        f1 = {g: r["pairwise_f1"] for g, r in d.groups.items() if "pairwise_f1" in r}
        if f1:
            lo = min(f1, key=lambda g: f1[g].value if np.isfinite(f1[g].value) else np.inf)
            hi = max(f1, key=lambda g: f1[g].value if np.isfinite(f1[g].value) else -np.inf)
            overlap = f1[lo].upper >= f1[hi].lower
            reading.append(
                f"By {group}: pairwise F1 ranges from {interval(f1[lo])} ({lo}) to "
                f"{interval(f1[hi])} ({hi}); "
                + (
                    "the intervals overlap, so the sample shows no clear disparity."
                    if overlap
                    else "the intervals do not overlap: a real disparity."
                )
            )
        shown = differences_figure(d)
        if shown:
            charts.append(
                Chart(
                    "differences",
                    f"{name}: each {group} minus all entities ({level:.0%} intervals of the "
                    "difference, which count that a group's entities are among all entities).",
                    concat_spec([bars_spec(p, width=200) for p in shown], columns=3),
                )
            )
        if d.differences:
            numbers["disparities"]["differences"] = {
                str(g): {k: e.to_dict() for k, e in r.items()} for g, r in d.differences.items()
            }
            apart = [
                (str(g), k, e)
                for g, r in d.differences.items()
                for k, e in r.items()
                if np.isfinite(e.lower) and (e.lower > 0 or e.upper < 0)
            ]
            reading.append(
                f"By {group}, against all entities: "
                + (
                    "; ".join(
                        f"{k} of {g} {'above' if e.value > 0 else 'below'} by {abs(e.value):.3f} "
                        f"({e.lower:+.3f} to {e.upper:+.3f})"
                        for g, k, e in apart
                    )
                    + " (intervals of the difference that exclude 0)."
                    if apart
                    else "no group's difference interval excludes 0."
                )
            )
    tree = result.tree
    if tree is not None:
        tables.append(
            Table(
                f"{name}: which features go with errors (weighted decision tree)",
                (
                    "rule",
                    "clusters with an error (weighted)",
                    "sampled clusters",
                    "share of entities",
                ),
                tuple(
                    (
                        " and ".join(r.conditions) or "all clusters",
                        r.value,
                        r.clusters,
                        r.share,
                    )
                    for r in tree.rules
                ),
                note=f"Overall weighted share of clusters with an error: {fmt(tree.overall)}.",
            )
        )
        numbers["error_tree"] = {
            "overall": tree.overall,
            "first_split": tree.first_split,
            "importances": tree.importances,
            "rules": [
                {
                    "conditions": list(r.conditions),
                    "value": r.value,
                    "clusters": r.clusters,
                    "share": r.share,
                }
                for r in tree.rules
            ],
        }
        top = tree.rules[0] if tree.rules else None
        if top is not None and tree.first_split is not None:
            reading.append(
                f"The error tree splits first on {tree.first_split}; its most "
                f"error-prone leaf ({' and '.join(top.conditions)}) has errors in "
                f"{top.value:.0%} (weighted) of its {top.clusters} sampled clusters, "
                f"against {tree.overall:.0%} (weighted) overall."
            )
        elif top is not None:
            reading.append("The error tree finds no feature that separates errors.")
    freq = result.tag_frequencies
    if freq is not None:
        if freq:
            charts.append(
                Chart(
                    "tags",
                    "Reviewers' error tags: weighted share of entities with an error that carry "
                    "each tag.",
                    bars_spec(tags_figure(freq)),
                )
            )
            first = next(iter(freq))
            reading.append(
                f"The most frequent error tag is '{first}', on an estimated "
                f"{interval(freq[first])} of entities with an error."
            )
        numbers["tags"] = {t: e.to_dict() for t, e in freq.items()}
    # ranked by the size of the error: records split off or predicted with others
    size_of = result.misplaced
    wrong = table[table["EI"] > 0].assign(misplaced=lambda f: f["cluster_id"].map(size_of))
    worst = wrong.sort_values(
        ["misplaced", "size", "cluster_id"], ascending=[False, False, True]
    ).head(10)
    base = ["cluster_id", "size", "misplaced", "n_pred_clusters", "EI", "OCE", "UCE", "weight"]
    extra = [str(f) for f in errs.features if f != "size" and f in worst.columns][:6]
    cols = [c for c in base if c in worst.columns] + extra
    tables.append(
        Table(
            f"{name}: sampled true clusters with the most errors",
            tuple(cols),
            tuple(
                tuple(None if isinstance(v, float) and np.isnan(v) else v for v in row)
                for row in worst[cols].itertuples(index=False)
            ),
            note="In order of misplaced records: the cluster's records outside its largest "
            "predicted piece plus other entities' records predicted with it. EI: whether the "
            "cluster has an error; OCE/UCE: over-/under-clustering error; weight: inverse "
            "sampling probability.",
        )
    )
    numbers["worst_sampled"] = worst[cols].to_dict(orient="records")
    return Section(
        "analysis",
        f"Error analysis of {name}",
        tuple(reading),
        tables=tuple(tables),
        charts=tuple(charts),
        warnings=tuple(dict.fromkeys(notes)),
        numbers=numbers,
    )


@section_for(LabelSources)
def provenance_section(part: Part) -> Section:
    """Who labelled what, how many labels, and agreement where an item was labelled twice.

    (``part.result``: a :class:`LabelSources`.)
    """
    result: LabelSources = part.result
    rows: list[tuple[Any, ...]] = []
    reading: list[str] = []
    numbers: dict[str, Any] = {}
    counts: list[tuple[str, int]] = []
    for c in result.sources:
        unit = "labelled records of" if c.clusters else "labels on"
        items = "true clusters" if c.clusters else "items"
        who = "not recorded"
        per: dict[str, int] = {}
        if c.reviewers is not None:
            per = dict(c.reviewers)
            who = listing(f"{k} ({v:,})" for k, v in per.items())
            counts += [(f"{c.what}: {k}", v) for k, v in per.items()]
        else:
            counts.append((c.what, c.labels))
        rows.append((c.what, c.labels, c.items, c.positives, who, c.repeated, c.agreement))
        numbers[c.what] = {
            "labels": c.labels,
            "items": c.items,
            "positives": c.positives,
            "reviewers": per,
            "items_labelled_twice_or_more": c.repeated,
            "agreement": c.agreement,
        }
        sentence = f"{c.what}: {c.labels:,} {unit} {c.items:,} {items}"
        if c.positives is not None:
            sentence += f", {c.positives:,} positive"
        sentence += (
            f"; labelled by {who}" if c.reviewers is not None else "; reviewers not recorded"
        )
        if c.agreement is not None:
            sentence += (
                f"; {c.repeated:,} items were labelled more than once and the labels agree on "
                f"{c.agreement:.0%} of them"
            )
        reading.append(sentence + ".")
    tables: list[Table] = []
    if result.store is not None:
        from ._provenance import COLUMNS, store_provenance

        s_rows, s_reading, s_numbers, s_counts = store_provenance(result.store, result.sessions)
        name = result.store
        tables.append(
            Table(
                f"sessions of the label store {name}",
                COLUMNS,
                tuple(s_rows),
                note="Agreement: share of items labelled by two reviewers or more whose labels "
                "all agree; kappa between each item's first two reviewers; adjudications and "
                "labels implied by transitivity are not counted as reviews.",
            )
        )
        reading += s_reading
        numbers[f"label store ({name})"] = s_numbers
        counts += s_counts
    table = Table(
        "labels",
        (
            "labels from",
            "labels",
            "items",
            "positive",
            "reviewers",
            "items labelled twice+",
            "agreement",
        ),
        tuple(rows),
        note="Agreement: share of items labelled more than once whose labels all agree.",
    )
    bars = Bars(
        tuple(k for k, _ in counts),
        np.asarray([v for _, v in counts], dtype=np.float64),
        np.full(len(counts), np.nan),
        np.full(len(counts), np.nan),
        xlabel="labels",
        title="labels per source" + (" and reviewer" if any(":" in k for k, _ in counts) else ""),
        xlim=None,
    )
    return Section(
        "provenance",
        "Provenance of the labels",
        tuple(reading),
        tables=(*tables, table) if rows else tuple(tables),
        charts=(
            (
                Chart(
                    "labels",
                    "Number of labels per source (and reviewer, when recorded).",
                    bars_spec(bars),
                ),
            )
            if counts
            else ()
        ),
        numbers=numbers,
    )
