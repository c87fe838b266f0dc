"""Sections of a true clustering and predictions: metrics, summary statistics and the
worst clusters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..metrics import CANONICAL_METRICS
from ..plots import Bars, Line, Panel, entropy_curve_figure, size_distribution_figure
from ._bundles import SHOWN, ExactScores, Summaries, WorstClusters
from ._charts import Chart, concat_spec, grouped_bars_spec, panel_spec
from ._model import Section, Table
from ._registry import Part, section_for
from ._words import fmt, listing, plural

__all__ = ["LOWER_IS_BETTER", "metrics_section", "summary_section", "worst_clusters_section"]

#: Metrics where a smaller value is better (distances); every other one is a score.
LOWER_IS_BETTER = frozenset({"bmd", "gmd", "variation_of_information"})
#: The metrics drawn in the chart (the rest are in the table).
CHART_METRICS = (
    "pairwise_precision",
    "pairwise_recall",
    "pairwise_f1",
    "cluster_precision",
    "cluster_recall",
    "cluster_f1",
    "b3_precision",
    "b3_recall",
    "b3_f1",
    "ceafe_f1",
    "muc_f1",
    "lea_f1",
    "adjusted_rand_index",
    "v_measure",
)
_COLORS = ("black", "tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")


def _best(values: list[float], metric: str) -> list[int]:
    arr = np.asarray(values, dtype=np.float64)
    if np.isnan(arr).all():
        return []
    target = np.nanmin(arr) if metric in LOWER_IS_BETTER else np.nanmax(arr)
    return [k for k, v in enumerate(arr) if np.isclose(v, target, rtol=0, atol=1e-12)]


@section_for(ExactScores)
def metrics_section(part: Part) -> Section:
    """Every canonical metric of each prediction against the truth, side by side (the
    pair-based ones over the pairs across data sets in a two-file linkage)."""
    result: ExactScores = part.result
    scores = {n: dict(v) for n, v in result.scores.items()}
    names = list(scores)
    rows: list[tuple[Any, ...]] = []
    marked: set[tuple[int, int]] = set()
    for i, metric in enumerate(CANONICAL_METRICS):
        values = [float(scores[n][metric]) for n in names]
        rows.append((metric, *values))
        if len(names) > 1:
            marked.update((i, k + 1) for k in _best(values, metric))
    counts = [
        ("n_records", *(int(scores[n]["n_records"]) for n in names)),
        ("n_true_clusters", *(int(scores[n]["n_true_clusters"]) for n in names)),
        ("n_pred_clusters", *(int(scores[n]["n_pred_clusters"]) for n in names)),
    ]
    table = Table(
        "metrics",
        ("metric", *names),
        (*rows, *counts),
        frozenset(marked),
        note=(
            "Best value per row in bold (smallest for the distances bmd, gmd and "
            "variation_of_information)."
            if len(names) > 1
            else "Distances (bmd, gmd, variation_of_information): smaller is better."
        ),
    )
    groups = [
        (
            n,
            Bars(
                CHART_METRICS,
                np.asarray([scores[n][m] for m in CHART_METRICS], dtype=np.float64),
                np.full(len(CHART_METRICS), np.nan),
                np.full(len(CHART_METRICS), np.nan),
                xlabel="value",
            ),
        )
        for n in names
    ]
    chart = Chart(
        "metrics",
        "Main metrics of each prediction against the truth (1 is perfect): a dot per "
        "value, one colour per prediction; the axis is fitted to the values (its range is "
        "in its title).",
        grouped_bars_spec(groups, title="metrics against the truth"),
    )
    readings = _metrics_reading(scores)
    if result.pairs_across is not None:
        readings.append(
            f"Two-file linkage: the pair-based metrics (pairwise, Rand, adjusted Rand, "
            f"Fowlkes-Mallows, BLANC) count only the {result.pairs_across:,} pairs of records "
            "from different data sets; the others are as usual."
        )
    return Section(
        "metrics",
        "Metrics against the truth",
        tuple(readings),
        tables=(table,),
        charts=(chart,),
        numbers={"metrics": scores},
    )


def _metrics_reading(scores: Mapping[str, Mapping[str, float]]) -> list[str]:
    names = list(scores)
    out: list[str] = []
    first = scores[names[0]]
    n = int(first["n_records"])
    out.append(
        f"{plural(len(names), 'prediction')} of {n:,} records "
        f"({int(first['n_true_clusters']):,} true clusters) scored with "
        f"{len(CANONICAL_METRICS)} metrics."
    )
    for name in names:
        s = scores[name]
        p, r = s["pairwise_precision"], s["pairwise_recall"]
        if p == 1.0 and r == 1.0:
            out.append(f"{name} is exactly the true clustering: every metric is perfect.")
            continue
        lean = (
            "it merges records of different entities more than it splits entities"
            if p < r
            else "it splits entities more than it merges different ones"
            if r < p
            else "its merging and splitting errors balance"
        )
        out.append(
            f"{name}: pairwise precision {fmt(p)}, recall {fmt(r)}, F1 "
            f"{fmt(s['pairwise_f1'])}; B-cubed F1 {fmt(s['b3_f1'])}, cluster F1 "
            f"{fmt(s['cluster_f1'])} ({lean})."
        )
    if len(names) > 1:
        for kind, keys in (
            ("precision", [m for m in CANONICAL_METRICS if m.endswith("_precision")]),
            ("recall", [m for m in CANONICAL_METRICS if m.endswith("_recall")]),
            ("F1", [m for m in CANONICAL_METRICS if m.endswith("_f1")]),
        ):
            winners = {
                name
                for name in names
                if all(scores[name][k] >= max(scores[o][k] for o in names) - 1e-12 for k in keys)
            }
            if len(winners) == 1:
                w = winners.pop()
                out.append(
                    f"{w} has the highest {kind} on every pairwise and cluster metric "
                    f"({len(keys)} of them)."
                )
            else:
                wins = {
                    name: sum(
                        scores[name][k] >= max(scores[o][k] for o in names) - 1e-12 for k in keys
                    )
                    for name in names
                }
                out.append(
                    f"No prediction has the best {kind} on every metric: "
                    + listing(f"{name} on {c} of {len(keys)}" for name, c in wins.items())
                    + "."
                )
    return out


@section_for(Summaries)
def summary_section(part: Part) -> Section:
    """Summary statistics of each clustering (and of the truth when given)."""
    result: Summaries = part.result
    summaries = dict(result.summaries)
    preds = [n for n in summaries if not (result.with_truth and n == "truth")]
    dicts = {n: s.statistics() for n, s in summaries.items()}
    keys = [k for k in next(iter(dicts.values())) if any(np.isfinite(d[k]) for d in dicts.values())]
    names = list(dicts)
    table = Table(
        "summary statistics",
        ("statistic", *names),
        tuple((k, *(dicts[n][k] for n in names)) for k in keys),
    )
    sizes, curves = [], []
    for k, (n, s) in enumerate(summaries.items()):
        size = size_distribution_figure(s).lines[0]
        hill = entropy_curve_figure(s).lines[0]
        sizes.append(Line(size.x, size.y, n, _COLORS[k % len(_COLORS)], marker="o", width=0.8))
        curves.append(Line(hill.x, hill.y, n, _COLORS[k % len(_COLORS)]))
    first = next(iter(summaries.values()))
    size_panel = size_distribution_figure(first)
    hill_panel = entropy_curve_figure(first)
    chart = Chart(
        "summary",
        "Clusters per size (log scales) and the entropy curve of the cluster sizes (Hill "
        "numbers H_q: the effective number of cluster sizes at order q).",
        concat_spec(
            [
                panel_spec(
                    Panel(
                        tuple(sizes),
                        size_panel.xlabel,
                        size_panel.ylabel,
                        "clusters per size",
                        yscale="log",
                    ),
                    xscale="log",
                    width=280,
                    height=200,
                ),
                panel_spec(
                    Panel(tuple(curves), hill_panel.xlabel, hill_panel.ylabel, "entropy curve"),
                    width=280,
                    height=200,
                ),
            ]
        ),
    )
    charts = [chart]
    reading = [
        f"{n}: {s.n_clusters:,} clusters of {s.n_records:,} records, average size "
        f"{fmt(s.average_cluster_size, 3)}, {s.matching_rate:.1%} of records matched to "
        f"another; largest cluster {int(s.sizes.max()) if s.sizes.size else 0} records."
        for n, s in summaries.items()
    ]
    if result.with_truth and preds:
        t = summaries["truth"]
        for n in preds:
            s = summaries[n]
            diff = s.n_clusters - t.n_clusters
            if diff > 0:
                reading.append(
                    f"{n} has {diff:,} more clusters than the truth: on balance it splits entities."
                )
            elif diff < 0:
                reading.append(
                    f"{n} has {-diff:,} fewer clusters than the truth: on balance it merges entities."
                )
    return Section(
        "summary",
        "Summary statistics",
        tuple(reading),
        tables=(table,),
        charts=tuple(charts),
        numbers={"summary": dicts},
    )


def _slug(name: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    return out or "x"


@section_for(WorstClusters)
def worst_clusters_section(part: Part, *, top: int = SHOWN) -> Section:
    """The true clusters with the most errors in each prediction, with their records
    (``part.warnings``: how their records were matched, when not as the metrics')."""
    result: WorstClusters = part.result
    records, record_col = result.records, result.record_col
    tables: list[Table] = []
    numbers: dict[str, Any] = {}
    reading: list[str] = []
    attrs = None
    if records is not None and record_col in records.columns:
        keep = [c for c in records.columns if c != record_col][:8]
        attrs = records[[record_col, *keep]].rename(columns={record_col: "record_id"})
        attrs["record_id"] = attrs["record_id"].astype(str)
    for name, ranking in result.rankings.items():
        share = ranking.with_error / max(ranking.n_clusters, 1)
        reading.append(
            f"{name}: {ranking.with_error:,} of {ranking.n_clusters:,} true clusters "
            f"({share:.1%}) have an error; {ranking.over:,} share a predicted cluster with "
            f"other entities' records (over-clustering) and {ranking.under:,} are split "
            "(under-clustering)."
        )
        # ranked by the size of the error: records split off or predicted with others
        ranked, blocks, shown = ranking.ranked, ranking.blocks, ranking.shown
        picked, shown_with = _distinct_blocks(ranked["cluster_id"], blocks, ranking.overlaps, top)
        worst = ranked[ranked["cluster_id"].isin(picked)]
        numbers[name] = {
            "true_clusters": ranking.n_clusters,
            "clusters_with_error": ranking.with_error,
            "over_clustered": ranking.over,
            "under_clustered": ranking.under,
            "worst": worst.to_dict(orient="records"),
        }
        if worst.empty:
            continue
        rows: list[tuple[Any, ...]] = []
        marked: set[tuple[int, int]] = set()
        columns: tuple[str, ...] = ()
        block_of = blocks.set_index("cluster_id")
        for cid in worst["cluster_id"].to_numpy():
            # the cluster's first records (its own first), among every record its
            # predicted clusters hold; the largest of them is its main piece
            main, total = block_of.at[cid, "main"], int(block_of.at[cid, "records"])
            frame = shown[shown["cluster_id"] == cid].drop(columns="cluster_id")
            frame["record_id"] = frame["record_id"].astype(str)
            if attrs is not None:
                frame = frame.merge(attrs, on="record_id", how="left")
            columns = tuple(str(c) for c in frame.columns)
            # misplaced: another entity's record, or one outside the cluster's largest piece
            wrong_place = (frame["true_cluster"] != cid) | (frame["pred_cluster"] != main)
            for c in ("pred_cluster", "true_cluster"):  # ids as written, not as numbers
                frame[c] = [None if v is None else str(v) for v in frame[c]]
            for k, bad in enumerate(wrong_place):
                if bad:
                    marked.update((len(rows) + k, j) for j in range(3))
            rows.extend(tuple(_cell(v) for v in r) for r in frame.itertuples(index=False))
            if total > len(frame):
                more = total - len(frame)
                rows.append((f"… {more:,} more records", *("" for _ in columns[1:])))
            rows.append(tuple("" for _ in columns))
        tables.append(
            Table(
                f"{name}: the {len(worst)} true clusters with the most misplaced records, "
                "and the records predicted with them",
                columns,
                tuple(rows[:-1]),
                frozenset(marked),
                note="Each block is one true cluster: its records, and the other records "
                "its predicted clusters hold. Misplaced records in bold: another entity's "
                "records, and the cluster's records outside its largest predicted piece. "
                "Blocks in order of misplaced records: "
                + ", ".join(
                    f"{c} {int(m):,}" + _also(shown_with.get(c, []))
                    for c, m in zip(worst["cluster_id"], worst["misplaced"], strict=True)
                )
                + ".",
            )
        )
    return Section(
        "worst",
        "Clusters with errors",
        tuple(reading),
        warnings=part.warnings,
        tables=tuple(tables),
        numbers=numbers,
    )


def _distinct_blocks(
    ranked: pd.Series, blocks: pd.DataFrame, overlaps: pd.DataFrame, top: int
) -> tuple[list[Any], dict[Any, list[Any]]]:
    """The ``top`` first true clusters of ``ranked`` whose blocks differ: a cluster all
    of whose predicted clusters an earlier block already shows is not shown again (its
    records are in that block) but named with it. ``blocks`` counts each cluster's
    predicted clusters; ``overlaps`` pairs a cluster with those of them that hold records
    of another ranked cluster too (only these can be in an earlier block). Returns the
    picked ids and, per picked id, the skipped clusters its block also shows."""
    count = dict(zip(blocks["cluster_id"], blocks["pieces"], strict=True))
    pieces = overlaps.groupby("true_cluster", sort=False)["pred_cluster"].agg(set).to_dict()
    picked: list[Any] = []
    shown_with: dict[Any, list[Any]] = {}
    owner_of: dict[Any, Any] = {}
    for cid in ranked.to_numpy():  # the ranking's first (RANKED) clusters
        if len(picked) == top:
            break
        mine = pieces.get(cid, set())
        if mine and len(mine) == count.get(cid) and mine <= owner_of.keys():
            shown_with.setdefault(owner_of[next(iter(sorted(mine, key=str)))], []).append(cid)
            continue
        picked.append(cid)
        for q in mine:
            owner_of.setdefault(q, cid)
    return picked, shown_with


def _also(others: list[Any]) -> str:
    if not others:
        return ""
    names = ", ".join(str(c) for c in others[:5])
    more = f" and {len(others) - 5:,} more" if len(others) > 5 else ""
    return f" (with {names}{more}, whose records it shows)"


def _cell(value: Any) -> Any:
    if isinstance(value, float) and np.isnan(value):
        return None
    return value.item() if isinstance(value, np.generic) else value
