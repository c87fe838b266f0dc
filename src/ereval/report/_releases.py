"""Sections over releases: monitoring with change flags, and the last release
compared with the one before."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._compare import CATEGORIES
from .._monitor import Monitoring
from ..plots import Bars, MonitorPanel, monitoring_figure
from ._bundles import ReleaseComparison
from ._charts import Chart, bars_spec, concat_spec, monitor_spec
from ._model import Section, Table
from ._registry import Part, section_for
from ._words import fmt, listing, plural

__all__ = ["comparison_section", "monitoring_section"]

#: Most statistics drawn in the monitoring chart.
MAX_PANELS = 6


@section_for(Monitoring)
def monitoring_section(part: Part) -> Section:
    """Summary statistics (and estimates, with a sample) over releases, with flags."""
    m: Monitoring = part.result
    panels = monitoring_figure(m)[:MAX_PANELS]
    chart = Chart(
        "monitoring",
        _monitoring_caption(panels),
        concat_spec([monitor_spec(p) for p in panels], columns=3),
    )
    stats = m.statistics
    shown = [c for c in stats.columns if np.isfinite(stats[c].astype(float)).any()]
    table = Table(
        "summary statistics per release (all records)",
        ("release", *shown),
        tuple((r, *(float(stats.loc[r, c]) for c in shown)) for r in m.releases),
    )
    flags = m.flags
    flag_table = Table(
        "flagged changes",
        ("release", "scope", "statistic", "rule", "value", "lower", "upper"),
        tuple(
            (row.release, row.scope, row.statistic, row.rule, row.value, row.lower, row.upper)
            for row in flags.itertuples(index=False)
        ),
        note="shift: outside the prediction limits of earlier releases; trend: a monotone run; "
        "interval: the estimate's interval does not overlap the previous release's; "
        "outside_estimate: the release's own value lies outside the interval estimated for "
        "the truth.",
    )
    first, last = m.releases[0], m.releases[-1]
    reading = [
        f"{plural(len(m.releases), 'release')} from {first} to {last}; "
        f"{m.n_common:,} records are in every release."
    ]
    acs = stats["average_cluster_size"].astype(float)
    reading.append(
        f"Average cluster size went from {fmt(acs.iloc[0])} to {fmt(acs.iloc[-1])} and the "
        f"matching rate from {float(stats['matching_rate'].iloc[0]):.1%} to "
        f"{float(stats['matching_rate'].iloc[-1]):.1%}."
    )
    if flags.empty:
        reading.append("No change was flagged.")
    else:
        per = flags.groupby("release", sort=False)["statistic"].apply(
            lambda s: listing(dict.fromkeys(s))
        )
        reading.append(
            f"{plural(len(flags), 'flag')} raised: "
            + "; ".join(f"{r}: {s}" for r, s in per.items())
            + "."
        )
    if m.estimates:
        est = m.estimates.get(last, {})
        if "pairwise_f1" in est:
            e = est["pairwise_f1"]
            reading.append(
                f"In {last} the estimated pairwise F1 is {fmt(e.value)} "
                f"[{fmt(e.lower)}, {fmt(e.upper)}]."
            )
    tables = (table, flag_table) if not flags.empty else (table,)
    return Section(
        "monitoring",
        "Monitoring over releases",
        tuple(reading),
        tables=tables,
        charts=(chart,),
        warnings=tuple(dict.fromkeys([*m.notes, *part.warnings])),
        numbers=m.to_dict(),
    )


def _monitoring_caption(panels: Sequence[MonitorPanel]) -> str:
    """The caption naming the series the panels draw, and only those."""
    labels = {line.label for p in panels for line in p.panel.lines}
    bands = {band.label for p in panels for band in p.bands}
    parts = []
    if "all records" in labels:
        parts.append("all records (blue)")
    fixed = sorted(x for x in labels if x.startswith(("records in every release", "fixed subset")))
    if fixed:
        parts.append(f"{fixed[0].split(' (')[0]} (green)")
    if "estimate" in labels:
        parts.append("estimates (black, dashed) with their intervals (grey band)")
    if "estimate, fixed subset" in labels or "interval, fixed subset" in bands:
        parts.append("estimates over the fixed subset (green, dashed, green band)")
    if "flagged" in labels:
        parts.append("flagged changes (red crosses)")
    return "Statistics over releases: " + listing(parts) + "."


@section_for(ReleaseComparison)
def comparison_section(part: Part) -> Section:
    """What the later release kept, split and merged of the earlier one's clusters,
    record by record."""
    result: ReleaseComparison = part.result
    old_name, new_name, c = result.old, result.new, result.comparison
    counts = c.counts
    bars = Bars(
        CATEGORIES,
        np.asarray([counts[k] for k in CATEGORIES], dtype=np.float64),
        np.full(len(CATEGORIES), np.nan),
        np.full(len(CATEGORIES), np.nan),
        xlabel=f"clusters of {old_name}",
        title=f"what {new_name} did to the clusters of {old_name}",
        xlim=None,
    )
    agreement = Table(
        f"agreement of {new_name} with {old_name} on their common records ({old_name} as truth)",
        ("metric", "value"),
        tuple((k, v) for k, v in c.agreement.items()),
    )
    n_moved, moved = result.n_moved, result.moved
    shown = f"first {len(moved)} of {n_moved:,}" if n_moved > len(moved) else f"{n_moved:,}"
    changed_table = Table(
        f"records that changed cluster ({shown})",
        tuple(str(x) for x in moved.columns),
        tuple(tuple(_plain(v) for v in row) for row in moved.itertuples(index=False)),
    )
    total = sum(counts.values())
    reading = [
        f"Of the {total:,} clusters of {old_name}, {new_name} kept {counts['kept']:,}, split "
        f"{counts['split']:,}, merged {counts['merged']:,} with others, split and merged "
        f"{counts['split_and_merged']:,} and removed {counts['removed']:,}; "
        f"{n_moved:,} records changed cluster (left their cluster's largest part, or "
        f"joined a cluster made mostly of other records, under another id), "
        f"{c.n_added:,} were added."
    ]
    if "pairwise_precision" in c.agreement:
        p, r = c.agreement["pairwise_precision"], c.agreement["pairwise_recall"]
        reading.append(
            f"Taking {old_name} as truth, {new_name} has pairwise precision {fmt(p)} and recall "
            f"{fmt(r)}: "
            + (
                "it mostly links more records together."
                if p < r
                else "it mostly separates records that were linked."
                if r < p
                else "the releases agree."
            )
        )
    return Section(
        "comparison",
        f"Release comparison: {old_name} to {new_name}",
        tuple(reading),
        tables=(agreement, changed_table),
        charts=(
            Chart(
                "comparison",
                "Clusters of the earlier release by what the later one did to them.",
                bars_spec(bars),
            ),
        ),
        numbers=c.to_dict(),
    )


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and np.isnan(value):
        return None
    return value
